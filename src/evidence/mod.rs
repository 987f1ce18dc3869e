//! The evidence stage (design.md §1): extract verbatim evidence, verify it, compose
//! cite-only answers, and gate the result. So far: the Evidence Gate ([`gate`]).

pub mod gate;
