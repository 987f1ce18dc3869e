//! The corpus stage: find and load documents ([`load`]), then split their stored text
//! into sentences ([`segment`]) and chunks ([`chunk`]) as byte spans.
//!
//! Spans are the truth: every sentence and chunk is a `[start, end)` byte range of the
//! stored text, and for Markdown and plain text the stored text is the file's text.

pub mod chunk;
pub mod docx;
pub mod layout;
pub mod load;
pub mod pdflayout;
pub mod pdftext;
pub mod segment;
pub mod textlayout;

pub use segment::Span;
