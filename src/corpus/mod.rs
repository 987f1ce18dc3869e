//! The corpus stage: find and load documents ([`load`]), then split their stored text
//! into sentences ([`segment`]) and chunks ([`chunk`]) as byte spans.
//!
//! Spans are the truth: every sentence and chunk is a `[start, end)` byte range of the
//! stored text. For plain text the stored text is the file's text; for Markdown too, but
//! for inline links and images (stored as their text) and character references (decoded),
//! see [`mdinline`].

pub mod chunk;
pub mod docx;
pub mod firstpage;
pub mod forms;
pub mod glue;
pub mod layout;
pub mod load;
pub mod mdinline;
pub mod ocr;
pub mod pdflayout;
pub mod pdftext;
pub mod segment;
mod tablehead;
pub mod textlayout;
pub mod xml;

pub use segment::Span;
