//! Integration tests: one binary, one module per area (ripgrep style).

mod answers;
mod ask;
mod authority;
mod cli;
mod common;
mod documents;
mod embed;
mod generate;
mod loaders;
mod mcp;
mod milvus;
mod output;
mod provisions;
mod review;
mod review_formats;
mod review_rules;
mod review_subjects;
mod scans;
mod serve;
mod snapshot;
mod store;
mod structure;
mod values;
mod viewer;
mod workflow;
mod wrong;
