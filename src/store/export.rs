//! Stored documents read back whole, to be written to another backend (`attest migrate`).
//!
//! A backend reads a file's documents as [`RawDoc`]s, exactly as stored; [`RawDoc::checked`]
//! turns each into the [`NewDoc`] an ingest would have written, after checking everything a
//! copy must not carry over damaged: the text against its content hash, the layout against
//! the text, every chunk's span and text against the document, every vector's length and
//! norm, and every stored name of a closed set.

use std::path::Path;

use super::{check::vector_fault, sha256_hex, vector_to_blob, NewChunk, NewDoc, StoreError};
use crate::corpus::layout::Layout;
use crate::corpus::load::SourceKind;
use crate::corpus::Span;
use crate::guard::{InjectionKind, Screen};

/// A stored document with its chunks, as read back (unchecked).
#[derive(Debug, Clone, Default)]
pub struct RawDoc {
    /// Canonical path of the file.
    pub path: String,
    /// Key within the file.
    pub key: String,
    /// Path shown to users.
    pub source: String,
    /// Title.
    pub title: String,
    /// Kind of source, as stored (`markdown`, `pdf`, …).
    pub kind: String,
    /// sha256 of the text, as stored.
    pub content_hash: String,
    /// File modification time in nanoseconds.
    pub mtime_ns: i64,
    /// Stored text.
    pub text: String,
    /// Layout JSON.
    pub layout: String,
    /// Source metadata JSON.
    pub source_meta: String,
    /// Chunks in order.
    pub chunks: Vec<RawChunk>,
}

/// A stored chunk, as read back (unchecked).
#[derive(Debug, Clone, Default)]
pub struct RawChunk {
    /// Byte span in the document text.
    pub start: i64,
    /// End of the span (exclusive).
    pub end: i64,
    /// 1-based first and last line.
    pub lines: (i64, i64),
    /// Model tokens.
    pub tokens: i64,
    /// Stored chunk text (must equal the document text at the span).
    pub text: String,
    /// Vector.
    pub vector: Vec<f32>,
    /// Section path and row labels searched beside the text.
    pub context: String,
    /// Prompt-injection flag (kind, matched phrase), as stored.
    pub flag: Option<(String, String)>,
}

impl RawDoc {
    /// The document as it would be inserted again, or a [`StoreError::Damaged`] error
    /// naming it (in the store at `location`, whose vectors have `dim` dimensions).
    pub fn checked(self, location: &Path, dim: Option<usize>) -> Result<NewDoc, StoreError> {
        let what = format!("document {} (file {})", self.source, self.path);
        let damaged = |reason: String| StoreError::Damaged {
            path: location.to_path_buf(),
            what: what.clone(),
            reason,
        };
        if sha256_hex(self.text.as_bytes()) != self.content_hash {
            return Err(damaged(
                "its stored text does not match its content hash".into(),
            ));
        }
        let kind: SourceKind = serde_json::from_value(serde_json::Value::String(self.kind.clone()))
            .map_err(|_| damaged(format!("unknown kind of source {:?}", self.kind)))?;
        let layout: Layout = if self.layout.trim().is_empty() {
            Layout::default()
        } else {
            serde_json::from_str(&self.layout).map_err(|e| damaged(format!("layout: {e}")))?
        };
        layout
            .check(&self.text)
            .map_err(|e| damaged(format!("layout: {e}")))?;
        let mut chunks = Vec::with_capacity(self.chunks.len());
        for (ord, c) in self.chunks.into_iter().enumerate() {
            let chunk = c
                .checked(&self.text, dim)
                .map_err(|reason| damaged(format!("chunk {ord}: {reason}")))?;
            chunks.push(chunk);
        }
        Ok(NewDoc {
            path: self.path,
            key: self.key,
            source: self.source,
            title: self.title,
            kind,
            text: self.text,
            layout,
            mtime_ns: self.mtime_ns,
            chunks,
            source_meta: self.source_meta,
        })
    }
}

impl RawChunk {
    /// The chunk as it would be inserted again into a document of text `doc`, or why not.
    fn checked(self, doc: &str, dim: Option<usize>) -> Result<NewChunk, String> {
        let (start, end) = (to_usize(self.start)?, to_usize(self.end)?);
        let body = (start <= end)
            .then(|| doc.get(start..end))
            .flatten()
            .ok_or_else(|| format!("span {start}..{end} does not lie inside the text"))?;
        if body != self.text {
            return Err(format!(
                "its text differs from the document's at {start}..{end}"
            ));
        }
        if let Some(fault) = vector_fault(&vector_to_blob(&self.vector), dim) {
            return Err(format!("vector: {fault}"));
        }
        let injection = match self.flag {
            None => None,
            Some((kind, matched)) => {
                let kind: InjectionKind =
                    serde_json::from_value(serde_json::Value::String(kind.clone()))
                        .map_err(|_| format!("unknown injection flag {kind:?}"))?;
                Some(Screen { kind, matched })
            }
        };
        Ok(NewChunk {
            span: Span { start, end },
            lines: (to_usize(self.lines.0)?, to_usize(self.lines.1)?),
            tokens: to_usize(self.tokens)?,
            vector: self.vector,
            injection,
            context: self.context,
            embed_hash: None,
        })
    }
}

fn to_usize(v: i64) -> Result<usize, String> {
    usize::try_from(v).map_err(|_| format!("negative position {v}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc() -> RawDoc {
        let text = "Records are kept for seven years.".to_string();
        RawDoc {
            path: "/c/a.md".into(),
            source: "a.md".into(),
            kind: "markdown".into(),
            content_hash: sha256_hex(text.as_bytes()),
            layout: "{}".into(),
            chunks: vec![RawChunk {
                start: 0,
                end: 7,
                lines: (1, 1),
                tokens: 2,
                text: "Records".into(),
                vector: vec![0.6, 0.8],
                flag: Some(("chat_markup".into(), "<|im_start|>".into())),
                ..RawChunk::default()
            }],
            text,
            ..RawDoc::default()
        }
    }

    #[test]
    fn a_sound_document_comes_back_as_it_was_written() {
        let d = doc().checked(Path::new("idx"), Some(2)).unwrap();
        assert_eq!(d.kind, SourceKind::Markdown);
        assert_eq!(d.chunks[0].span, Span { start: 0, end: 7 });
        assert_eq!(
            d.chunks[0].injection.as_ref().map(|s| s.kind),
            Some(InjectionKind::ChatMarkup)
        );
    }

    #[test]
    fn damage_of_every_kind_is_named_and_refused() {
        type Spoil = fn(&mut RawDoc);
        let cases: Vec<(Spoil, &str)> = vec![
            (|d| d.text.push('!'), "content hash"),
            (|d| d.kind = "scroll".into(), "unknown kind"),
            (|d| d.layout = "{not json".into(), "layout"),
            (|d| d.chunks[0].end = 400, "does not lie inside"),
            (|d| d.chunks[0].start = -1, "negative"),
            (|d| d.chunks[0].text = "Recordz".into(), "differs"),
            (|d| d.chunks[0].vector = vec![f32::NAN, 0.8], "vector"),
            (|d| d.chunks[0].vector = vec![0.6, 0.8, 0.0], "vector"),
            (
                |d| d.chunks[0].flag = Some(("curse".into(), "x".into())),
                "flag",
            ),
        ];
        for (spoil, expect) in cases {
            let mut d = doc();
            spoil(&mut d);
            let e = d
                .checked(Path::new("idx"), Some(2))
                .unwrap_err()
                .to_string();
            assert!(e.contains(expect) && e.contains("a.md"), "{expect}: {e}");
        }
    }
}
