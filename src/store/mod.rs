//! The store boundary: what the engine keeps about a corpus (documents and their text,
//! chunks, vectors, lexical search, filters, the corpus version) and the backends that keep
//! it.
//!
//! [`Store`] is what every stage holds. It wraps one [`Backend`]: the embedded default,
//! [`SqliteStore`] (SQLite with FTS5, beside an HNSW graph file), or a server. A backend
//! implements four traits ([`Records`], [`Scoped`], [`Catalog`], [`Maintenance`]) whose
//! methods `Store` exposes directly, so call sites do not know which backend they use.
//! Quotes are checked against the text the backend returns ([`QuoteChecker`]), wherever
//! that text lives.

use std::path::{Path, PathBuf};

use crate::corpus::layout::Layout;
use crate::corpus::load::SourceKind;
use crate::corpus::Span;

mod backend;
pub mod export;
mod lexquery;
pub mod milvus;
mod pathkey;
mod quote;
pub mod sqlite;

pub use backend::{Backend, Catalog, DocFilter, Maintenance, Records, Scoped};
pub use lexquery::LexQuery;
pub use milvus::{MilvusStore, MilvusTarget, Writer};
pub use pathkey::{key_path, path_key};
pub use quote::{QuoteAt, QuoteChecker};
pub use sqlite::check::{self, Problem, ProblemKind};
pub use sqlite::{SqliteStore, DB_FILE};

/// Errors from the store. Each names the database file.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite reported an error.
    #[error("{}: {source}", path.display())]
    Sqlite {
        /// The database file.
        path: PathBuf,
        /// The SQLite error.
        source: rusqlite::Error,
    },
    /// The index directory could not be created or read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path concerned.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The index was built with another model or dimension.
    #[error("{}: index was embedded with {stored_model} ({stored_dim} dimensions), not {model} ({dim} dimensions); convert it with `attest ingest --reembed`, set `embed_precision` or `model_dir` to what embedded it, or use another --index", path.display())]
    ModelMismatch {
        /// The database file.
        path: PathBuf,
        /// Model recorded in the index.
        stored_model: String,
        /// Dimension recorded in the index.
        stored_dim: usize,
        /// Model asked for.
        model: String,
        /// Dimension asked for.
        dim: usize,
    },
    /// The database comes from a newer attest.
    #[error("{}: schema version {found} is newer than this attest supports ({supported})", path.display())]
    TooNew {
        /// The database file.
        path: PathBuf,
        /// Version found.
        found: i64,
        /// Newest version this build knows.
        supported: i64,
    },
    /// No index exists at the path.
    #[error("{}: no index here (run `attest ingest PATH` first)", path.display())]
    NoIndex {
        /// The index directory.
        path: PathBuf,
    },
    /// A stored value is malformed.
    #[error("{}: corrupt store: {reason}", path.display())]
    Corrupt {
        /// The database file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The database file exists but is empty: not an index (never treated as a new one).
    #[error("{}: the index database is empty (0 bytes), not an attest index; restore it from a backup, or delete it and run `attest ingest PATH` to build a new index", path.display())]
    Empty {
        /// The database file.
        path: PathBuf,
    },
    /// The index cannot be written (permissions or a read-only filesystem).
    #[error("{}: index is read-only ({reason}); search, ask and status still work, ingest needs write access", path.display())]
    ReadOnly {
        /// The index directory or database file.
        path: PathBuf,
        /// Why it cannot be written.
        reason: String,
    },
    /// The backend server refused a request or could not be reached.
    #[error("{}: {reason}", path.display())]
    Backend {
        /// Where the backend is (its address and collection prefix).
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
    /// A stored document, chunk or vector is damaged (found while reading it).
    #[error("{}: {what} is damaged in the index: {reason}; run `attest ingest --repair` to re-read it from its file", path.display())]
    Damaged {
        /// The database file.
        path: PathBuf,
        /// The chunk or document, named by id and source.
        what: String,
        /// What is wrong.
        reason: String,
    },
}

/// A document as stored.
#[derive(Debug, Clone)]
pub struct StoredDoc {
    /// Row id.
    pub id: i64,
    /// Stable document id (hash of the normalised source path and key).
    pub doc_id: String,
    /// Canonical path of the file.
    pub path: String,
    /// Key within the file ('' for single-document files).
    pub key: String,
    /// Path shown to users.
    pub source: String,
    /// Title.
    pub title: String,
    /// sha256 of the text.
    pub content_hash: String,
}

/// A chunk to insert: its span in the document text and its vector.
#[derive(Debug, Clone)]
pub struct NewChunk {
    /// Byte span in the document text.
    pub span: Span,
    /// 1-based first and last line.
    pub lines: (usize, usize),
    /// Model tokens in the chunk.
    pub tokens: usize,
    /// Unit-length embedding.
    pub vector: Vec<f32>,
    /// What the prompt-injection guard found in the chunk, if anything.
    pub injection: Option<crate::guard::Screen>,
    /// Words that name the chunk's place, searched beside its text: its section path and
    /// the labels of the table rows it holds ('' when it has neither).
    pub context: String,
    /// The hash of the text its vector was embedded from ([`embed_hash`]); `None` when
    /// not known (an imported chunk), so that no later text borrows its vector.
    pub embed_hash: Option<EmbedHash>,
}

/// The key of an embedded text: the first 16 bytes of the sha256 of the text with its
/// whitespace collapsed to single spaces and trimmed (the bi-encoder's tokenizer splits
/// on whitespace, so such texts give the same tokens and the same vector).
pub type EmbedHash = [u8; 16];

/// The [`EmbedHash`] of a text about to be embedded.
pub fn embed_hash(text: &str) -> EmbedHash {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    for (i, word) in text.split_whitespace().enumerate() {
        if i > 0 {
            hasher.update(b" ");
        }
        hasher.update(word.as_bytes());
    }
    let digest = hasher.finalize();
    let mut out = [0u8; 16];
    out.copy_from_slice(&digest[..16]);
    out
}

/// A document to insert.
#[derive(Debug, Clone)]
pub struct NewDoc {
    /// Canonical file path.
    pub path: String,
    /// Key within the file.
    pub key: String,
    /// Path shown to users.
    pub source: String,
    /// Title.
    pub title: String,
    /// Kind of source.
    pub kind: SourceKind,
    /// Stored text.
    pub text: String,
    /// Pages, headings and labels of `text`.
    pub layout: Layout,
    /// File modification time in nanoseconds since the epoch.
    pub mtime_ns: i64,
    /// Chunks with vectors.
    pub chunks: Vec<NewChunk>,
    /// What the document is (`profile::Profile` JSON, whose source fields are
    /// `source::SourceMeta`'s).
    pub source_meta: String,
}

/// A QA memory row: (id, question vector blob, corpus version, answer JSON).
pub type MemoryRow = (i64, Vec<u8>, u64, String);

/// A chunk joined with its document, as search results need it.
#[derive(Debug, Clone)]
pub struct ChunkRow {
    /// Row id (dense/FTS id).
    pub id: i64,
    /// Chunk id.
    pub chunk_id: String,
    /// Document id.
    pub doc_id: String,
    /// Document key within its file (BEIR `_id`; empty for single-document files).
    pub doc_key: String,
    /// Document source path.
    pub source: String,
    /// Document title.
    pub title: String,
    /// Byte span in the document text.
    pub span: Span,
    /// 1-based line range.
    pub lines: (usize, usize),
    /// Chunk text (`doc_text[span]`).
    pub text: String,
}

/// Stable document id: sha256 of the normalised path, plus `#key` for multi-document files.
pub fn doc_id(path: &str, key: &str) -> String {
    let norm = path.replace('\\', "/");
    let s = if key.is_empty() {
        norm
    } else {
        format!("{norm}#{key}")
    };
    short_hash(s.as_bytes(), 16)
}

/// Chunk id derived from the document content hash and the byte span.
pub fn chunk_id(content_hash: &str, span: Span) -> String {
    short_hash(
        format!("{content_hash}:{}:{}", span.start, span.end).as_bytes(),
        16,
    )
}

/// Full sha256 hex digest.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    hex::encode(Sha256::digest(bytes))
}

fn short_hash(bytes: &[u8], hex_chars: usize) -> String {
    let mut h = sha256_hex(bytes);
    h.truncate(hex_chars);
    h
}

/// Encode a vector as little-endian f32 bytes.
pub fn vector_to_blob(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Decode little-endian f32 bytes.
pub fn blob_to_vector(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// A document as the source catalog lists it.
#[derive(Debug, Clone)]
pub struct CatalogRow {
    /// Document row id.
    pub id: i64,
    /// Document id.
    pub doc_id: String,
    /// Canonical path of its file.
    pub path: String,
    /// Path shown to users.
    pub source: String,
    /// Title.
    pub title: String,
    /// Kind of file (`markdown`, `pdf`, …).
    pub kind: String,
    /// What it says about itself (JSON; '' when never read).
    pub source_meta: String,
    /// The opening of its text, read only when `source_meta` is ''.
    pub opening: String,
    /// Pages (0 when the source has none).
    pub pages: usize,
    /// Chunks.
    pub chunks: usize,
}

/// A layout as stored: compact JSON (`{}` when empty).
pub fn layout_json(layout: &Layout) -> String {
    serde_json::to_string(layout).unwrap_or_else(|_| "{}".into())
}

/// Whether canonical `path` is one of `roots` or lies under one.
pub(crate) fn under_roots(path: &str, roots: &[String]) -> bool {
    roots.iter().any(|root| {
        path == root
            || path
                .strip_prefix(root.as_str())
                .is_some_and(|rest| rest.starts_with('/') || root.ends_with('/'))
    })
}

/// An open store: one backend behind the [`Backend`] traits, whose methods it exposes.
pub struct Store {
    inner: Box<dyn Backend>,
}

impl std::ops::Deref for Store {
    type Target = dyn Backend;
    fn deref(&self) -> &Self::Target {
        self.inner.as_ref()
    }
}

impl std::ops::DerefMut for Store {
    fn deref_mut(&mut self) -> &mut Self::Target {
        self.inner.as_mut()
    }
}

impl Store {
    /// A store over `backend`.
    pub fn new(backend: Box<dyn Backend>) -> Self {
        Store { inner: backend }
    }

    /// Open (creating when `create`) the SQLite store in index directory `dir`
    /// ([`SqliteStore::open`]).
    pub fn open(dir: &Path, model: &str, dim: usize, create: bool) -> Result<Self, StoreError> {
        Ok(Self::new(Box::new(SqliteStore::open(
            dir, model, dim, create,
        )?)))
    }

    /// Open the existing SQLite store in `dir` without checking the model
    /// ([`SqliteStore::open_existing`]).
    pub fn open_existing(dir: &Path) -> Result<Self, StoreError> {
        Ok(Self::new(Box::new(SqliteStore::open_existing(dir)?)))
    }
}
