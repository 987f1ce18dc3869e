//! Integration tests: one binary, one module per area (ripgrep style).

mod common;
mod embed;
