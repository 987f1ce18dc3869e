//! attest: local, offline question answering in which every sentence cites verbatim,
//! span-checked evidence from your own documents.
//!
//! Modules follow the pipeline (see `ARCHITECTURE.md`): [`corpus`] loads and splits
//! documents, [`models`] embeds them, [`store`] and [`index`] persist them, [`ingest`]
//! drives that, [`retrieve`] searches, [`evidence`] extracts, verifies, composes and gates
//! the cited answer [`ask`] returns, and [`engine`], [`status`], [`render`] serve the CLI.

pub mod answer;
pub mod ask;
pub mod audit;
pub mod authority;
pub mod cancel;
pub mod caught;
pub mod config;
pub mod corpus;
pub mod engine;
pub mod error;
pub mod eval;
pub mod evidence;
pub mod export;
pub mod figure;
pub mod frame;
pub mod guard;
pub mod index;
pub mod ingest;
pub mod lexicon;
pub mod mcp;
pub mod memory;
pub mod models;
pub mod outfile;
pub mod period;
pub mod profile;
pub mod progress;
pub mod render;
pub mod research;
pub mod retrieve;
pub mod review;
pub mod server;
pub mod service;
pub mod source;
pub mod status;
pub mod store;
pub mod text;
pub mod validate;
pub mod value;

pub use error::{Error, Result};
