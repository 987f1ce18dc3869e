//! The backend traits: everything the engine asks of a store, in four parts. A backend
//! implements all four ([`Backend`]); [`super::Store`] exposes their methods.
//!
//! Row ids are the backend's: a chunk row id keys the chunk in dense and lexical search
//! and never names another chunk later; a document row id keys the document in filters.
//! Lexical scores are BM25, higher better; dense search is the dense index's (see
//! `index::Dense`).

use std::collections::{HashMap, HashSet};
use std::path::Path;

use super::export::RawDoc;
use super::{CatalogRow, ChunkRow, EmbedHash, MemoryRow, NewDoc, Problem, StoreError, StoredDoc};
use crate::corpus::layout::Layout;
use crate::store::LexQuery;

/// Documents, chunks, vectors, lexical search and metadata.
pub trait Records {
    /// Where the store is (a database file, or a server address), for naming it in errors.
    fn location(&self) -> &Path;

    /// Whether the store was opened read-only (it cannot be written).
    fn is_read_only(&self) -> bool;

    /// The schema version of what is stored.
    fn schema_version(&self) -> Result<i64, StoreError>;

    /// Read a metadata value.
    fn meta(&self, key: &str) -> Result<Option<String>, StoreError>;

    /// Write a metadata value.
    fn set_meta(&self, key: &str, value: &str) -> Result<(), StoreError>;

    /// The corpus version: incremented by every write that changes the corpus.
    fn corpus_version(&self) -> Result<u64, StoreError> {
        Ok(self
            .meta("corpus_version")?
            .and_then(|v| v.parse().ok())
            .unwrap_or(0))
    }

    /// Model id recorded in the index.
    fn model_id(&self) -> Result<Option<String>, StoreError> {
        self.meta("model_id")
    }

    /// Dimension recorded in the index.
    fn dimension(&self) -> Result<Option<usize>, StoreError> {
        Ok(self.meta("dimension")?.and_then(|d| d.parse().ok()))
    }

    /// Record an ingested root (canonical path).
    fn add_root(&self, root: &str) -> Result<(), StoreError>;

    /// Recorded file state: (size, mtime_ns, file_hash).
    fn file_state(&self, path: &str) -> Result<Option<(u64, i64, String)>, StoreError>;

    /// Documents that came from file `path`, in row order.
    fn docs_of_file(&self, path: &str) -> Result<Vec<StoredDoc>, StoreError>;

    /// The document with id `doc_id`, when the index holds it.
    fn document_by_id(&self, doc_id: &str) -> Result<Option<StoredDoc>, StoreError>;

    /// Up to `limit` documents in ingest order, from row id `after` on (exclusive).
    fn documents_page(&self, after: i64, limit: usize) -> Result<Vec<StoredDoc>, StoreError>;

    /// The documents among rows `rows` that exist, in the order asked.
    fn documents_by_rows(&self, rows: &[i64]) -> Result<Vec<StoredDoc>, StoreError>;

    /// Canonical paths of every file with documents stored, sorted.
    fn stored_files(&self) -> Result<Vec<String>, StoreError>;

    /// Apply one file's changes at once: remove `remove` (document row ids), insert `add`,
    /// record the file state, and bump the corpus version if anything changed. Returns the
    /// row ids of the inserted chunks, in order.
    fn apply_file(
        &mut self,
        file: Option<(&str, u64, i64, &str)>,
        remove: &[i64],
        add: &[NewDoc],
    ) -> Result<Vec<i64>, StoreError>;

    /// The documents of file `path` with their chunks and vectors exactly as stored, in
    /// row order (unchecked; [`Records::export_file`] checks them).
    fn raw_docs_of_file(&self, path: &str) -> Result<Vec<RawDoc>, StoreError>;

    /// The documents of file `path` as an ingest would insert them again, for copying to
    /// another backend: a damaged one is a [`StoreError::Damaged`] error naming it
    /// ([`RawDoc::checked`]).
    fn export_file(&self, path: &str) -> Result<Vec<NewDoc>, StoreError> {
        let dim = self.dimension()?;
        self.raw_docs_of_file(path)?
            .into_iter()
            .map(|d| d.checked(self.location(), dim))
            .collect()
    }

    /// Remove every document of file `path` and its file record; returns how many
    /// documents went.
    fn remove_file(&mut self, path: &str) -> Result<usize, StoreError>;

    /// Number of documents.
    fn document_count(&self) -> Result<usize, StoreError>;

    /// Number of chunks.
    fn chunk_count(&self) -> Result<usize, StoreError>;

    /// Every chunk row id with its vector, in id order. A vector that is not a finite,
    /// unit-length vector of the recorded dimension is a [`StoreError::Damaged`] error
    /// naming its chunk.
    fn all_vectors(&self) -> Result<Vec<(i64, Vec<f32>)>, StoreError>;

    /// Every chunk row id, ascending.
    fn chunk_row_ids(&self) -> Result<Vec<i64>, StoreError>;

    /// Vectors of the given chunk rows, in the order asked (`None` for unknown ids); a
    /// damaged vector is an error naming its chunk.
    fn vectors_by_ids(&self, ids: &[i64]) -> Result<Vec<Option<Vec<f32>>>, StoreError>;

    /// Stored vectors of chunks embedded from texts with these hashes (see
    /// [`crate::store::embed_hash`]), one per hash found; a backend that records no hashes
    /// finds none.
    fn vectors_by_embed_hash(
        &self,
        _hashes: &[EmbedHash],
    ) -> Result<HashMap<EmbedHash, Vec<f32>>, StoreError> {
        Ok(HashMap::new())
    }

    /// BM25 top-`limit` over chunk text (and, at half weight, chunk context) for `query`:
    /// (row id, score), best first, ties by row id.
    fn lexical_search(&self, query: &LexQuery, limit: usize)
        -> Result<Vec<(i64, f64)>, StoreError>;

    /// Number of chunks containing `word` (as the lexical index normalises words).
    fn term_chunk_count(&self, word: &str) -> Result<usize, StoreError>;

    /// Chunks by row id, joined with their documents, in the order asked (missing ids
    /// skipped).
    fn chunks_by_ids(&self, ids: &[i64]) -> Result<Vec<ChunkRow>, StoreError>;

    /// Chunks flagged by the prompt-injection guard: (source, first line, kind, matched).
    fn injection_flags(&self) -> Result<Vec<(String, usize, String, String)>, StoreError>;

    /// Every QA memory row: (id, question vector blob, corpus version, answer JSON).
    fn memory_rows(&self) -> Result<Vec<MemoryRow>, StoreError>;

    /// Store an answer in the QA memory (replacing one for the same question). On a
    /// read-only store nothing is stored (the memory is a cache).
    fn remember(
        &self,
        question: &str,
        vector: &[u8],
        corpus_version: u64,
        answer: &str,
    ) -> Result<(), StoreError>;

    /// Delete a QA memory row.
    fn forget(&self, id: i64) -> Result<(), StoreError>;

    /// The row id of the first chunk of document `doc_id` that holds byte `at`.
    fn chunk_row_at(&self, doc_id: &str, at: usize) -> Result<Option<i64>, StoreError>;

    /// The text of chunk `chunk_id` (the first of that id), `None` when no chunk has it.
    fn chunk_text(&self, chunk_id: &str) -> Result<Option<String>, StoreError>;

    /// The stored text of document `doc_id`, checked: text that is not UTF-8 or does not
    /// hash to the recorded content hash is a [`StoreError::Damaged`] error naming it.
    fn document_text(&self, doc_id: &str) -> Result<Option<String>, StoreError>;

    /// The profile of document `doc_id` as stored at ingest (`profile::Profile` JSON; ''
    /// for a document stored before profiles), `None` when there is no such document.
    fn profile_json_of(&self, doc_id: &str) -> Result<Option<String>, StoreError>;

    /// Ids of the documents from files at or under the canonical paths `roots`.
    fn doc_ids_under(&self, roots: &[String]) -> Result<HashSet<String>, StoreError>;

    /// The layout of document `doc_id` as stored (JSON), `None` when there is no such
    /// document.
    fn layout_json_of(&self, doc_id: &str) -> Result<Option<String>, StoreError>;

    /// The stored layout (JSON) of each of `doc_ids` that exists, by document id: one
    /// read for all of them where the backend can (a search's hits).
    fn layouts_json_of(&self, doc_ids: &[&str]) -> Result<HashMap<String, String>, StoreError> {
        let mut out = HashMap::new();
        for d in doc_ids {
            if let Some(json) = self.layout_json_of(d)? {
                out.insert(d.to_string(), json);
            }
        }
        Ok(out)
    }

    /// The layout of document `doc_id`, checked against its `text`: a layout that is not
    /// JSON or does not fit the text is a [`StoreError::Damaged`] error naming it.
    fn document_layout(&self, doc_id: &str, text: &str) -> Result<Layout, StoreError> {
        let Some(json) = self.layout_json_of(doc_id)? else {
            return Ok(Layout::default());
        };
        let damaged = |reason: String| StoreError::Damaged {
            path: self.location().to_path_buf(),
            what: format!("layout of document {doc_id}"),
            reason,
        };
        let layout: Layout = serde_json::from_str(&json).map_err(|e| damaged(e.to_string()))?;
        layout.check(text).map_err(|e| damaged(e.to_string()))?;
        Ok(layout)
    }

    /// Document keys (BEIR `_id`s) by document id.
    fn document_keys(&self) -> Result<HashMap<String, String>, StoreError>;

    /// Whether the backend searches vectors itself ([`Records::dense_search`]); when not,
    /// the engine searches its own dense index over [`Records::all_vectors`].
    fn searches_dense(&self) -> bool {
        false
    }

    /// Dense top-`k` candidates by cosine among the chunks `docs` allows, with HNSW beam
    /// `ef`: (row id, similarity as the backend computes it), best first. Only for backends
    /// that [`Records::searches_dense`]; the engine re-scores them exactly.
    fn dense_search(
        &self,
        query: &[f32],
        k: usize,
        ef: usize,
        docs: DocFilter<'_>,
    ) -> Result<Vec<(i64, f32)>, StoreError> {
        let _ = (query, k, ef, docs);
        Err(StoreError::Backend {
            path: self.location().to_path_buf(),
            reason: "this backend has no dense search of its own".into(),
        })
    }

    /// Make what this process wrote fast to search, at the end of an ingest or a copy (a
    /// server that searches unflushed rows by brute force flushes them); nothing to do by
    /// default.
    fn settle(&self) -> Result<(), StoreError> {
        Ok(())
    }

    /// Make this process writer `k` of `n` concurrent writers (`attest ingest --shard
    /// K/N`). Only backends that several processes can write at once accept it.
    fn set_writer(&mut self, k: u64, n: u64) -> Result<(), StoreError> {
        Err(StoreError::Backend {
            path: self.location().to_path_buf(),
            reason: format!(
                "--shard {k}/{n} needs a backend several processes can write at once (backend = \"milvus\")"
            ),
        })
    }
}

/// Which documents' chunks a search may return.
#[derive(Debug, Clone, Copy)]
pub enum DocFilter<'a> {
    /// Every chunk.
    All,
    /// Only chunks of these document rows.
    Within(&'a [i64]),
    /// No chunk of these document rows.
    Without(&'a [i64]),
}

/// What retrieval within or without some documents needs.
pub trait Scoped {
    /// Document row of each chunk row in `ids` (unknown ids are left out).
    fn chunk_docs(&self, ids: &[i64]) -> Result<HashMap<i64, i64>, StoreError>;

    /// The first chunk (in document order) of document row `doc`.
    fn first_chunk_of_doc(&self, doc: i64) -> Result<Option<i64>, StoreError>;

    /// Every chunk row of document rows `docs`.
    fn chunk_rows_of_docs(&self, docs: &[i64]) -> Result<HashSet<i64>, StoreError>;

    /// Chunk row ids of document rows `docs`, ascending.
    fn chunk_ids_of_docs(&self, docs: &[i64]) -> Result<Vec<i64>, StoreError>;

    /// [`Records::lexical_search`] among the chunks of document rows `docs`.
    fn lexical_search_in_docs(
        &self,
        query: &LexQuery,
        limit: usize,
        docs: &[i64],
    ) -> Result<Vec<(i64, f64)>, StoreError>;

    /// [`Records::lexical_search`] leaving out the chunks of document rows `docs`.
    fn lexical_search_without_docs(
        &self,
        query: &LexQuery,
        limit: usize,
        docs: &[i64],
    ) -> Result<Vec<(i64, f64)>, StoreError>;
}

/// What the source catalog and authority filters need.
pub trait Catalog {
    /// Every document (or only those with ids `only`), in path order, with what the
    /// catalog needs; `opening_bytes` of text are read for documents stored before source
    /// metadata existed.
    fn catalog_rows(
        &self,
        opening_bytes: usize,
        only: Option<&[String]>,
    ) -> Result<Vec<CatalogRow>, StoreError>;

    /// Source declarations made at ingest: (root, metadata JSON), by root.
    fn source_decls(&self) -> Result<Vec<(String, String)>, StoreError>;

    /// Record the source declaration for `root`.
    fn set_source_decl(&self, root: &str, meta_json: &str) -> Result<(), StoreError>;

    /// Row ids of the documents with ids `doc_ids` (unknown ids are left out), ascending.
    fn doc_rows_of(&self, doc_ids: &[&str]) -> Result<Vec<i64>, StoreError>;
}

/// Integrity checks and repair.
pub trait Maintenance {
    /// Check that every chunk span lies inside its document and every vector has the
    /// index's length (cheap scans).
    fn integrity_problems(&self) -> Result<Vec<String>, StoreError>;

    /// The storage engine's own consistency check (SQLite's `quick_check`).
    fn storage_problems(&self) -> Result<Vec<String>, StoreError>;

    /// Read every document and chunk and report what is damaged.
    fn deep_check(&self) -> Result<Vec<Problem>, StoreError>;

    /// Rebuild the lexical index from the stored chunks.
    fn rebuild_fulltext(&self) -> Result<(), StoreError>;
}

/// A complete store backend.
pub trait Backend: Records + Scoped + Catalog + Maintenance + Send {}

impl<T: Records + Scoped + Catalog + Maintenance + Send> Backend for T {}

/// Checks that `store` was built with bi-encoder `model` of dimension `dim`; a store that
/// records none yet records them and answers `true` (so that the backend can record what
/// else a new store needs).
pub(crate) fn check_model<R: Records + ?Sized>(
    store: &R,
    model: &str,
    dim: usize,
) -> Result<bool, StoreError> {
    match (store.meta("model_id")?, store.meta("dimension")?) {
        (Some(m), Some(d)) => {
            let d: usize = d.parse().unwrap_or(0);
            if m != model || d != dim {
                return Err(StoreError::ModelMismatch {
                    path: store.location().to_path_buf(),
                    stored_model: m,
                    stored_dim: d,
                    model: model.to_string(),
                    dim,
                });
            }
            Ok(false)
        }
        _ => {
            store.set_meta("model_id", model)?;
            store.set_meta("dimension", &dim.to_string())?;
            Ok(true)
        }
    }
}
