//! Integration tests: one binary, one module per area (ripgrep style).

mod cli;
mod common;
mod embed;
