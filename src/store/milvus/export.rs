//! [`RawDoc`]s read back from Milvus (`Records::raw_docs_of_file`).

use serde_json::{Map, Value};

use super::{client, int, text, MilvusStore};
use crate::store::export::{RawChunk, RawDoc};
use crate::store::StoreError;

const DOC_FIELDS: &[&str] = &[
    "id",
    "path",
    "doc_key",
    "source",
    "title",
    "kind",
    "content_hash",
    "mtime_ns",
    "source_meta",
];
const CHUNK_FIELDS: &[&str] = &[
    "ord",
    "span_start",
    "span_end",
    "line_start",
    "line_end",
    "tokens",
    "text",
    "vector",
    "context",
    "flag_kind",
    "flag_matched",
];

impl MilvusStore {
    /// The documents of file `path` with their chunks, as stored.
    pub(super) fn raw_docs(&self, path: &str) -> Result<Vec<RawDoc>, StoreError> {
        let filter = format!("path == {}", client::quote(path));
        let mut rows = self.query("docs", &filter, DOC_FIELDS)?;
        rows.sort_by_key(|r| int(r, "id"));
        let mut out = Vec::with_capacity(rows.len());
        for r in rows {
            let row = int(&r, "id");
            let mut chunks = self.query("chunks", &format!("doc == {row}"), CHUNK_FIELDS)?;
            chunks.sort_by_key(|c| int(c, "ord"));
            out.push(RawDoc {
                path: text(&r, "path"),
                key: text(&r, "doc_key"),
                source: text(&r, "source"),
                title: text(&r, "title"),
                kind: text(&r, "kind"),
                content_hash: text(&r, "content_hash"),
                mtime_ns: int(&r, "mtime_ns"),
                text: self.blob(row, "text")?.unwrap_or_default(),
                layout: self.blob(row, "layout")?.unwrap_or_default(),
                source_meta: text(&r, "source_meta"),
                chunks: chunks.iter().map(raw_chunk).collect(),
            });
        }
        Ok(out)
    }
}

fn raw_chunk(r: &Map<String, Value>) -> RawChunk {
    let kind = text(r, "flag_kind");
    RawChunk {
        start: int(r, "span_start"),
        end: int(r, "span_end"),
        lines: (int(r, "line_start"), int(r, "line_end")),
        tokens: int(r, "tokens"),
        text: text(r, "text"),
        vector: super::records::vector_field(r),
        context: text(r, "context"),
        flag: (!kind.is_empty()).then(|| (kind, text(r, "flag_matched"))),
    }
}
