//! [`RawDoc`]s read back from Milvus (`Records::raw_docs_of_file`).

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::{client, int, int_list, text, MilvusStore};
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
    "doc",
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
    /// The documents of file `path` with their chunks, as stored (three queries for the
    /// whole file: documents, chunks, blobs).
    pub(super) fn raw_docs(&self, path: &str) -> Result<Vec<RawDoc>, StoreError> {
        let filter = format!("path == {}", client::quote(path));
        let mut rows = self.query("docs", &filter, DOC_FIELDS)?;
        rows.sort_by_key(|r| int(r, "id"));
        let ids: Vec<i64> = rows.iter().map(|r| int(r, "id")).collect();
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut chunks: HashMap<i64, Vec<Map<String, Value>>> = HashMap::new();
        for c in self.query("chunks", &int_list("doc", &ids), CHUNK_FIELDS)? {
            chunks.entry(int(&c, "doc")).or_default().push(c);
        }
        let mut blobs: HashMap<(i64, String), Vec<(i64, String)>> = HashMap::new();
        let fields = ["doc", "kind", "part", "data"];
        for b in self.query("blobs", &int_list("doc", &ids), &fields)? {
            let key = (int(&b, "doc"), text(&b, "kind"));
            blobs
                .entry(key)
                .or_default()
                .push((int(&b, "part"), text(&b, "data")));
        }
        let mut joined = |row: i64, kind: &str| {
            let mut parts = blobs.remove(&(row, kind.to_string())).unwrap_or_default();
            parts.sort_by_key(|p| p.0);
            parts.into_iter().map(|p| p.1).collect::<String>()
        };
        Ok(rows
            .iter()
            .map(|r| {
                let row = int(r, "id");
                let mut mine = chunks.remove(&row).unwrap_or_default();
                mine.sort_by_key(|c| int(c, "ord"));
                RawDoc {
                    path: text(r, "path"),
                    key: text(r, "doc_key"),
                    source: text(r, "source"),
                    title: text(r, "title"),
                    kind: text(r, "kind"),
                    content_hash: text(r, "content_hash"),
                    mtime_ns: int(r, "mtime_ns"),
                    text: joined(row, "text"),
                    layout: joined(row, "layout"),
                    source_meta: text(r, "source_meta"),
                    chunks: mine.iter().map(raw_chunk).collect(),
                }
            })
            .collect())
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
