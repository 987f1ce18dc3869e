//! The Milvus backend: the corpus in collections on a Milvus server (a `milvus-lite`
//! process, a standalone Milvus or a cluster), so several machines can serve one corpus
//! and several `attest ingest --shard K/N` processes can load it together.
//!
//! Collections, named `PREFIX_…`:
//! * `chunks`: one row per chunk: spans, text, context, the words for BM25 (normalised
//!   here as FTS5 normalises them, [`lex`]) feeding a BM25 function, the dense vector
//!   (HNSW, cosine), the prompt-injection flag;
//! * `docs`: one row per document, without its text;
//! * `blobs`: document texts and layouts in parts of at most [`PART_BYTES`];
//! * `files`: the state of every ingested file;
//! * `meta`: model, dimension, roots, declarations, QA memory, and per writer its next
//!   row ids and its version counter. The corpus version is the sum of the writers'
//!   counters: it moves whenever any writer changes the corpus.
//!
//! There are no transactions: a file's rows are written text first, then the document,
//! then its chunks, and its file record last (and removed first), so an interrupted
//! write leaves a file that the next ingest reads again, and a reader that meets a half
//! written document fails closed (its quotes cannot be checked).

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use super::{MemoryRow, StoreError};
use client::{Conn, Field};

mod bm25;
mod check;
mod client;
mod export;
pub mod lex;
mod porter;
mod records;
mod scoped;

/// Largest part of a text or layout stored in one `blobs` row (Milvus VARCHARs hold at
/// most 65,535 bytes).
pub const PART_BYTES: usize = 60_000;

/// Largest VARCHAR value.
const VARCHAR_MAX: u32 = 65_535;

/// Schema version of the collections.
const SCHEMA_VERSION: i64 = 1;

/// Which of `n` concurrent writers this process is (`k` in `0..n`): its row ids are
/// `k` modulo `n`, so writers never collide.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Writer {
    /// This writer.
    pub k: u64,
    /// Writers in all.
    pub n: u64,
}

impl Default for Writer {
    fn default() -> Self {
        Writer { k: 0, n: 1 }
    }
}

impl Writer {
    fn tag(&self) -> String {
        format!("{}of{}", self.k, self.n)
    }

    /// The first id at or above `base` that belongs to this writer.
    fn first_at(&self, base: i64) -> i64 {
        let n = self.n as i64;
        let k = self.k as i64;
        base + (k - base % n).rem_euclid(n)
    }
}

/// Where a Milvus store lives and who writes to it.
#[derive(Debug, Clone)]
pub struct MilvusTarget {
    /// Server URL (`http://127.0.0.1:19530`).
    pub url: String,
    /// Collection name prefix (letters, digits and `_`).
    pub prefix: String,
    /// This writer.
    pub writer: Writer,
}

/// An open Milvus store.
pub struct MilvusStore {
    conn: Conn,
    prefix: String,
    location: PathBuf,
    writer: Writer,
    dim: usize,
    next_chunk: i64,
    next_doc: i64,
    /// Tokens added less tokens removed by this writer since its count was last saved.
    token_delta: i64,
    /// Corpus statistics for lexical ranking, at the version they were read.
    stats: std::sync::Mutex<bm25::Stats>,
}

/// The `_v` placeholder every collection needs (Milvus requires a vector field).
const PLACEHOLDER: &str = "_v";

fn placeholder() -> Value {
    json!([1.0, 0.0])
}

impl MilvusStore {
    /// Connect to `target` and open its collections (creating them when `create`),
    /// checking they were built with `model` / `dim` (recording them on first use).
    pub fn open(
        target: &MilvusTarget,
        model: &str,
        dim: usize,
        create: bool,
    ) -> Result<Self, StoreError> {
        let mut store = Self::connect(target, dim, create)?;
        store.check_model(model, dim)?;
        store.next_chunk = store.writer.first_at(store.max_next("chunk")?);
        store.next_doc = store.writer.first_at(store.max_next("doc")?);
        Ok(store)
    }

    /// Open an existing store without checking the model (for `status` and audits).
    pub fn open_existing(target: &MilvusTarget) -> Result<Self, StoreError> {
        use super::Records;
        let mut store = Self::connect(target, 0, false)?;
        store.dim = store.dimension()?.unwrap_or(0);
        Ok(store)
    }

    fn connect(target: &MilvusTarget, dim: usize, create: bool) -> Result<Self, StoreError> {
        let location = PathBuf::from(format!("{}/{}", target.url, target.prefix));
        let fail = |reason: String| StoreError::Backend {
            path: location.clone(),
            reason,
        };
        let valid = |c: char| c.is_ascii_alphanumeric() || c == '_';
        if target.prefix.is_empty()
            || !target.prefix.chars().all(valid)
            || target.prefix.starts_with(|c: char| c.is_ascii_digit())
        {
            return Err(fail(format!(
                "collection prefix {:?} must be letters, digits and _, not starting with a digit",
                target.prefix
            )));
        }
        if target.writer.n == 0 || target.writer.k >= target.writer.n {
            return Err(fail(format!(
                "shard {}/{} is not one of 0..{}",
                target.writer.k, target.writer.n, target.writer.n
            )));
        }
        let conn = Conn::connect(&target.url).map_err(fail)?;
        let store = MilvusStore {
            conn,
            prefix: target.prefix.clone(),
            location,
            writer: target.writer,
            dim,
            next_chunk: 0,
            next_doc: 0,
            token_delta: 0,
            stats: Default::default(),
        };
        store.open_collections(create)?;
        Ok(store)
    }

    fn name(&self, collection: &str) -> String {
        format!("{}_{collection}", self.prefix)
    }

    pub(super) fn fail(&self, reason: impl Into<String>) -> StoreError {
        StoreError::Backend {
            path: self.location.clone(),
            reason: reason.into(),
        }
    }

    fn open_collections(&self, create: bool) -> Result<(), StoreError> {
        let meta = self.name("meta");
        let exists = self
            .conn
            .list_collections()
            .map_err(|e| self.fail(e))?
            .contains(&meta);
        if !exists && !create {
            return Err(StoreError::NoIndex {
                path: self.location.clone(),
            });
        }
        for (name, fields) in self.schemas() {
            self.conn
                .ensure_collection(&self.name(name), &fields)
                .map_err(|e| self.fail(e))?;
        }
        Ok(())
    }

    fn schemas(&self) -> Vec<(&'static str, Vec<Field>)> {
        use Field::*;
        let v = VARCHAR_MAX;
        let ph = FloatVector(PLACEHOLDER, 2);
        vec![
            ("meta", vec![VarCharPk("k", 1024), VarChar("v", v), ph]),
            (
                "files",
                vec![
                    VarCharPk("path", v),
                    Int64("size"),
                    Int64("mtime_ns"),
                    VarChar("file_hash", 128),
                    ph,
                ],
            ),
            ("docs", docs_fields()),
            (
                "blobs",
                vec![
                    VarCharPk("k", 256),
                    Int64("doc"),
                    Int64("part"),
                    VarChar("kind", 16),
                    VarChar("data", v),
                    ph,
                ],
            ),
            ("chunks", chunks_fields(self.dim as u32)),
        ]
    }

    /// Checks the stored bi-encoder (recording it, and the schema version, in a new store).
    fn check_model(&self, model: &str, dim: usize) -> Result<(), StoreError> {
        if crate::store::backend::check_model(self, model, dim)? {
            use super::Records;
            self.set_meta("schema_version", &SCHEMA_VERSION.to_string())?;
        }
        Ok(())
    }

    /// The highest `next/{what}/…` value any writer recorded (1 when none did).
    fn max_next(&self, what: &str) -> Result<i64, StoreError> {
        let rows = self.meta_prefixed(&format!("next/{what}/"))?;
        Ok(rows
            .iter()
            .filter_map(|(_, v)| v.parse::<i64>().ok())
            .max()
            .unwrap_or(1)
            .max(1))
    }

    /// Every meta (key, value) whose key starts with `prefix`.
    pub(super) fn meta_prefixed(&self, prefix: &str) -> Result<Vec<(String, String)>, StoreError> {
        let filter = format!(
            "k like {}",
            client::quote(&format!("{}%", like_escape(prefix)))
        );
        let rows = self.query("meta", &filter, &["k", "v"])?;
        let mut out: Vec<(String, String)> =
            rows.iter().map(|r| (text(r, "k"), text(r, "v"))).collect();
        out.sort();
        Ok(out)
    }

    /// Record this writer's next ids and count one more change of the corpus.
    fn record_write(&mut self, changed: bool) -> Result<(), StoreError> {
        use super::Records;
        let tag = self.writer.tag();
        self.set_meta(&format!("next/chunk/{tag}"), &self.next_chunk.to_string())?;
        self.set_meta(&format!("next/doc/{tag}"), &self.next_doc.to_string())?;
        if self.token_delta != 0 {
            let key = format!("tokens/{tag}");
            let t: i64 = self.meta(&key)?.and_then(|v| v.parse().ok()).unwrap_or(0);
            self.set_meta(&key, &(t + self.token_delta).to_string())?;
            self.token_delta = 0;
        }
        if changed {
            let key = format!("version/{tag}");
            let v: u64 = self.meta(&key)?.and_then(|v| v.parse().ok()).unwrap_or(0);
            self.set_meta(&key, &(v + 1).to_string())?;
        }
        Ok(())
    }

    pub(super) fn query(
        &self,
        collection: &str,
        filter: &str,
        fields: &[&str],
    ) -> Result<Vec<Map<String, Value>>, StoreError> {
        self.conn
            .query(&self.name(collection), filter, fields)
            .map_err(|e| self.fail(e))
    }

    pub(super) fn upsert(&self, collection: &str, rows: Vec<Value>) -> Result<(), StoreError> {
        if rows.is_empty() {
            return Ok(());
        }
        self.conn
            .upsert(&self.name(collection), rows)
            .map_err(|e| self.fail(e))
    }

    pub(super) fn delete(&self, collection: &str, filter: &str) -> Result<(), StoreError> {
        self.conn
            .delete(&self.name(collection), filter)
            .map_err(|e| self.fail(e))
    }

    pub(super) fn location_path(&self) -> &Path {
        &self.location
    }
}

fn docs_fields() -> Vec<Field> {
    use Field::*;
    let v = VARCHAR_MAX;
    vec![
        Int64Pk("id"),
        VarChar("doc_id", 128),
        VarChar("path", v),
        VarChar("doc_key", v),
        VarChar("source", v),
        VarChar("title", v),
        VarChar("kind", 64),
        VarChar("content_hash", 128),
        Int64("size"),
        Int64("mtime_ns"),
        VarChar("source_meta", v),
        Int64("pages"),
        Int64("text_parts"),
        Int64("layout_parts"),
        FloatVector(PLACEHOLDER, 2),
    ]
}

fn chunks_fields(dim: u32) -> Vec<Field> {
    use Field::*;
    let v = VARCHAR_MAX;
    vec![
        Int64Pk("id"),
        VarChar("chunk_id", 128),
        Int64("doc"),
        Int64("ord"),
        Int64("span_start"),
        Int64("span_end"),
        Int64("line_start"),
        Int64("line_end"),
        Int64("tokens"),
        VarChar("text", v),
        VarChar("context", v),
        Bm25Text("lex", v, "sparse"),
        VarChar("lex_text", v),
        VarChar("lex_ctx", v),
        FloatVector("vector", dim),
        VarChar("flag_kind", 64),
        VarChar("flag_matched", v),
    ]
}

/// `s` with the `like` wildcards escaped.
fn like_escape(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_")
}

/// An integer field of a row (0 when absent).
pub(super) fn int(row: &Map<String, Value>, field: &str) -> i64 {
    row.get(field).and_then(Value::as_i64).unwrap_or(0)
}

/// A string field of a row ('' when absent).
pub(super) fn text(row: &Map<String, Value>, field: &str) -> String {
    row.get(field)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// `id in [..]` for integer ids.
pub(super) fn int_list(field: &str, ids: &[i64]) -> String {
    let list: Vec<String> = ids.iter().map(i64::to_string).collect();
    format!("{field} in [{}]", list.join(", "))
}

/// `field in ["..", ..]` for strings.
pub(super) fn str_list(field: &str, values: &[&str]) -> String {
    let list: Vec<String> = values.iter().map(|v| client::quote(v)).collect();
    format!("{field} in [{}]", list.join(", "))
}

/// `text` in parts of at most [`PART_BYTES`], cut at character boundaries.
pub(super) fn parts(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let mut cut = rest.len().min(PART_BYTES);
        while !rest.is_char_boundary(cut) {
            cut -= 1;
        }
        out.push(&rest[..cut]);
        rest = &rest[cut..];
    }
    out
}

/// A QA memory entry as kept in `meta` (its answer in `blobs`).
pub(super) fn memory_row(id: i64, meta: &Value, answer: String) -> Option<MemoryRow> {
    let blob = hex::decode(meta.get("vector")?.as_str()?).ok()?;
    Some((id, blob, meta.get("version")?.as_u64()?, answer))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writers_take_their_own_residues_above_the_base() {
        let w = Writer { k: 1, n: 3 };
        assert_eq!(w.first_at(1), 1);
        assert_eq!(w.first_at(2), 4);
        assert_eq!(w.first_at(7), 7);
        assert_eq!(Writer::default().first_at(42), 42);
    }

    #[test]
    fn long_texts_split_at_character_boundaries() {
        let t = "é".repeat(PART_BYTES);
        let p = parts(&t);
        assert_eq!(p.concat(), t);
        assert!(p.iter().all(|x| x.len() <= PART_BYTES));
        assert!(parts("").is_empty());
    }
}
