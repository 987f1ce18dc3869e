//! The SQLite backend: documents, chunks with their vectors, an FTS5 index for BM25, and
//! the metadata that ties an index to one model, in one database file beside the HNSW
//! graph (`index::Dense`).
//!
//! Schema changes go through numbered [`MIGRATIONS`] recorded in `PRAGMA user_version`.
//! Every file's changes are written in one transaction, and every transaction that
//! changes the corpus increments `corpus_version` (later stages key caches on it).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rusqlite::types::FromSqlError;
use rusqlite::{params, Connection, OptionalExtension, Transaction};

pub mod check;
mod diverse;
mod export;
mod sources;

use super::{
    blob_to_vector, chunk_id, doc_id, layout_json, sha256_hex, vector_to_blob, ChunkRow, EmbedHash,
    MemoryRow, NewDoc, Records, StoreError, StoredDoc,
};
use crate::corpus::Span;
use crate::store::LexQuery;

/// Schema migrations, applied in order; migration `i` brings the schema to version `i + 1`.
pub const MIGRATIONS: &[&str] = &[
    r#"
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE roots (path TEXT PRIMARY KEY);
CREATE TABLE files (
    path TEXT PRIMARY KEY,          -- canonical absolute path
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    file_hash TEXT NOT NULL         -- sha256 of the file bytes
);
CREATE TABLE documents (
    id INTEGER PRIMARY KEY,
    doc_id TEXT NOT NULL UNIQUE,    -- sha256 of the normalised source path (+ '#' + key)
    path TEXT NOT NULL,             -- canonical absolute path of the file it came from
    key TEXT NOT NULL DEFAULT '',   -- document key within the file (BEIR _id), '' otherwise
    source TEXT NOT NULL,           -- path as shown to users
    title TEXT NOT NULL,
    kind TEXT NOT NULL,
    content_hash TEXT NOT NULL,     -- sha256 of text
    size INTEGER NOT NULL,          -- bytes of text
    mtime_ns INTEGER NOT NULL,
    text TEXT NOT NULL
);
CREATE INDEX documents_path ON documents(path);
CREATE TABLE chunks (
    id INTEGER PRIMARY KEY,         -- dense index and FTS5 row id
    chunk_id TEXT NOT NULL,         -- derived from (content_hash, start, end)
    doc INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    ord INTEGER NOT NULL,
    start INTEGER NOT NULL,
    end INTEGER NOT NULL,
    line_start INTEGER NOT NULL,
    line_end INTEGER NOT NULL,
    tokens INTEGER NOT NULL,
    text TEXT NOT NULL,
    vector BLOB NOT NULL
);
CREATE INDEX chunks_doc ON chunks(doc);
CREATE INDEX chunks_chunk_id ON chunks(chunk_id);
CREATE VIRTUAL TABLE chunks_fts USING fts5(
    text, content='chunks', content_rowid='id',
    tokenize='porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
"#,
    // 2: chunk row ids are never reused (AUTOINCREMENT), because the HNSW graph keys its
    // points by them and cannot delete; existing graphs are rebuilt.
    r#"
CREATE TABLE chunks_new (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    chunk_id TEXT NOT NULL,
    doc INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    ord INTEGER NOT NULL,
    start INTEGER NOT NULL,
    end INTEGER NOT NULL,
    line_start INTEGER NOT NULL,
    line_end INTEGER NOT NULL,
    tokens INTEGER NOT NULL,
    text TEXT NOT NULL,
    vector BLOB NOT NULL
);
INSERT INTO chunks_new SELECT id, chunk_id, doc, ord, start, end, line_start, line_end, tokens, text, vector FROM chunks;
DROP TRIGGER chunks_ai;
DROP TRIGGER chunks_ad;
DROP TABLE chunks;
ALTER TABLE chunks_new RENAME TO chunks;
CREATE INDEX chunks_doc ON chunks(doc);
CREATE INDEX chunks_chunk_id ON chunks(chunk_id);
CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild');
DELETE FROM meta WHERE key IN ('hnsw_dump', 'hnsw_corpus_version');
"#,
    // 3: chunks flagged by the prompt-injection guard at ingest (chunks ingested before
    // this version are not flagged until their file changes).
    r#"
CREATE TABLE injection_flags (
    chunk INTEGER PRIMARY KEY,      -- chunks.id
    kind TEXT NOT NULL,
    matched TEXT NOT NULL
);
CREATE TRIGGER chunks_flags_ad AFTER DELETE ON chunks BEGIN
    DELETE FROM injection_flags WHERE chunk = old.id;
END;
"#,
    // 4: the QA memory (answers keyed by question embedding and corpus version).
    r#"
CREATE TABLE qa_memory (
    id INTEGER PRIMARY KEY,
    question TEXT NOT NULL,
    vector BLOB NOT NULL,
    corpus_version INTEGER NOT NULL,
    answer TEXT NOT NULL            -- the answer JSON
);
"#,
    // 5: each document's layout (pages, headings, labelled rows and values, extractor) as
    // JSON. Converted files are read again on the next ingest so they gain one.
    r#"
ALTER TABLE documents ADD COLUMN layout TEXT NOT NULL DEFAULT '{}';
DELETE FROM files WHERE path IN (SELECT path FROM documents WHERE kind != 'jsonl');
"#,
    // 6: `files.file_hash` is the sha256 of the file's bytes as read (it was a hash of its
    // documents' content hashes); an empty hash is unknown, and the next ingest re-reads
    // the file to record it.
    r#"
UPDATE files SET file_hash = '';
"#,
    // 7: a chunk's context (its section path and the labels of the table rows it holds),
    // searched by BM25 beside its text. Files with headings or labelled rows are read
    // again on the next ingest, and their stored layouts are marked stale (a field the
    // reader ignores) so that their documents are chunked again and gain one.
    r#"
ALTER TABLE chunks ADD COLUMN context TEXT NOT NULL DEFAULT '';
DROP TRIGGER chunks_ai;
DROP TRIGGER chunks_ad;
DROP TABLE chunks_fts;
CREATE VIRTUAL TABLE chunks_fts USING fts5(
    text, context, content='chunks', content_rowid='id',
    tokenize='porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts(rowid, text, context) VALUES (new.id, new.text, new.context);
END;
CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, text, context)
        VALUES ('delete', old.id, old.text, old.context);
END;
INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild');
DELETE FROM files WHERE path IN (SELECT path FROM documents
    WHERE layout LIKE '%"headings"%' OR layout LIKE '%"labels"%');
UPDATE documents SET layout = '{"stale":true,' || substr(layout, 2)
    WHERE layout LIKE '{"%' AND (layout LIKE '%"headings"%' OR layout LIKE '%"labels"%');
"#,
    // 8: what each document says about itself as a source (type, dates, supersedes; JSON,
    // '' until read: documents stored before are read from their opening when listed),
    // since extended to the document's whole profile (`profile::Profile`: role, version,
    // date of issue, date order) under the same name,
    // and the source declarations of `attest ingest PATH --source-type …` per path.
    r#"
ALTER TABLE documents ADD COLUMN source_meta TEXT NOT NULL DEFAULT '';
CREATE TABLE source_decl (root TEXT PRIMARY KEY, meta TEXT NOT NULL);
"#,
    // 9: the hash of the text each chunk's vector was embedded from (title and section
    // lines included, whitespace collapsed), so that a text embedded before lends its
    // vector instead of being embedded again. Chunks stored before have none.
    r#"
ALTER TABLE chunks ADD COLUMN embed_hash BLOB;
CREATE INDEX chunks_embed_hash ON chunks(embed_hash) WHERE embed_hash IS NOT NULL;
"#,
];

/// An open index database.
pub struct SqliteStore {
    conn: Connection,
    path: PathBuf,
    read_only: bool,
}

/// File name of the database inside the index directory.
pub const DB_FILE: &str = "attest.sqlite3";

/// Name under which a new database is built before it is renamed to [`DB_FILE`], so an
/// interrupted creation never leaves a partial index behind.
const DB_FILE_NEW: &str = "attest.sqlite3.new";

impl SqliteStore {
    /// Open (creating when `create`) the database in index directory `dir`, migrate it,
    /// and check it was built with `model` / `dim` (recording them on first use).
    /// `create` also means the caller writes: a read-only index is then an error; without
    /// it a read-only index is opened read-only.
    pub fn open(dir: &Path, model: &str, dim: usize, create: bool) -> Result<Self, StoreError> {
        let path = dir.join(DB_FILE);
        if !path.exists() {
            if !create {
                return Err(StoreError::NoIndex {
                    path: dir.to_path_buf(),
                });
            }
            Self::create(dir, model, dim)?;
        }
        let mut store = Self::open_file(dir, create)?;
        store.migrate()?;
        store.check_model(model, dim)?;
        Ok(store)
    }

    /// Open an existing database without checking the model (for `status`), read-only
    /// when the index cannot be written.
    pub fn open_existing(dir: &Path) -> Result<Self, StoreError> {
        let path = dir.join(DB_FILE);
        if !path.exists() {
            return Err(StoreError::NoIndex {
                path: dir.to_path_buf(),
            });
        }
        let mut store = Self::open_file(dir, false)?;
        store.migrate()?;
        Ok(store)
    }

    /// Build a new database under a temporary name and link it into place (a concurrent
    /// creator's database, if one got there first, is kept).
    fn create(dir: &Path, model: &str, dim: usize) -> Result<(), StoreError> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| StoreError::Io { path, source }
        };
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        if let Some(reason) = not_writable(dir) {
            return Err(StoreError::ReadOnly {
                path: dir.to_path_buf(),
                reason,
            });
        }
        let tmp = dir.join(format!("{DB_FILE_NEW}.{}", std::process::id()));
        for suffix in ["", "-wal", "-shm"] {
            let stale = PathBuf::from(format!("{}{suffix}", tmp.display()));
            match std::fs::remove_file(&stale) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(io(&stale)(e)),
                _ => {}
            }
        }
        let mut store = Self::open_raw(&tmp, false)?;
        store.migrate()?;
        store.check_model(model, dim)?;
        let SqliteStore { conn, path, .. } = store;
        conn.close()
            .map_err(|(_, source)| StoreError::Sqlite { path, source })?;
        let linked = std::fs::hard_link(&tmp, dir.join(DB_FILE));
        std::fs::remove_file(&tmp).map_err(io(&tmp))?;
        match linked {
            Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => Err(io(&tmp)(e)),
            _ => Ok(()),
        }
    }

    /// Open the existing database file of `dir`: an empty file is an error; an index that
    /// cannot be written is opened read-only, or refused when `write` is asked.
    fn open_file(dir: &Path, write: bool) -> Result<Self, StoreError> {
        let path = dir.join(DB_FILE);
        let meta = std::fs::metadata(&path).map_err(|source| StoreError::Io {
            path: path.clone(),
            source,
        })?;
        if meta.len() == 0 {
            return Err(StoreError::Empty { path });
        }
        let read_only = not_writable(&path).or_else(|| not_writable(dir));
        match read_only {
            Some(reason) if write => Err(StoreError::ReadOnly {
                path: dir.to_path_buf(),
                reason,
            }),
            Some(reason) => {
                tracing::info!("{}: opening read-only ({reason})", path.display());
                Self::open_raw(&path, true)
            }
            None => Self::open_raw(&path, false),
        }
    }

    fn open_raw(path: &Path, read_only: bool) -> Result<Self, StoreError> {
        use rusqlite::OpenFlags;
        let flags = if read_only {
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX
        } else {
            OpenFlags::default()
        };
        let conn =
            Connection::open_with_flags(path, flags).map_err(|source| StoreError::Sqlite {
                path: path.to_path_buf(),
                source,
            })?;
        let store = SqliteStore {
            conn,
            path: path.to_path_buf(),
            read_only,
        };
        let pragmas = if read_only {
            "PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 10000;"
        } else {
            "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 10000;"
        };
        store
            .conn
            .execute_batch(pragmas)
            .map_err(|e| store.err(e))?;
        Ok(store)
    }

    fn err(&self, source: rusqlite::Error) -> StoreError {
        sqlite_error(&self.path, source)
    }

    fn migrate(&mut self) -> Result<(), StoreError> {
        let current = self.schema_version()?;
        let supported = MIGRATIONS.len() as i64;
        if current > supported {
            return Err(StoreError::TooNew {
                path: self.path.clone(),
                found: current,
                supported,
            });
        }
        if self.read_only && current < supported {
            return Err(StoreError::ReadOnly {
                path: self.path.clone(),
                reason: format!("schema version {current} needs an upgrade to {supported}"),
            });
        }
        for (i, sql) in MIGRATIONS.iter().enumerate().skip(current as usize) {
            let path = self.path.clone();
            let e = |source| sqlite_error(&path, source);
            let tx = self.conn.transaction().map_err(e)?;
            tx.execute_batch(sql).map_err(e)?;
            tx.execute_batch(&format!("PRAGMA user_version = {}", i + 1))
                .map_err(e)?;
            tx.execute(
                "INSERT OR REPLACE INTO meta(key, value) VALUES ('schema_version', ?1)",
                params![(i + 1).to_string()],
            )
            .map_err(e)?;
            tx.commit().map_err(e)?;
        }
        Ok(())
    }

    /// Checks the stored bi-encoder (recording it, and corpus version 0, in a new store).
    fn check_model(&self, model: &str, dim: usize) -> Result<(), StoreError> {
        if crate::store::backend::check_model(self, model, dim)?
            && self.meta("corpus_version")?.is_none()
        {
            self.set_meta("corpus_version", "0")?;
        }
        Ok(())
    }

    fn documents_where(
        &self,
        condition: &str,
        value: impl rusqlite::ToSql,
        limit: usize,
    ) -> Result<Vec<StoredDoc>, StoreError> {
        let sql = format!(
            "SELECT id, doc_id, path, key, source, title, content_hash FROM documents WHERE {condition} ORDER BY id LIMIT {limit}"
        );
        let mut st = self.conn.prepare_cached(&sql).map_err(|e| self.err(e))?;
        let rows = st
            .query_map([value], stored_doc)
            .map_err(|e| self.err(e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.err(e))?;
        Ok(rows)
    }

    fn count(&self, sql: &str) -> Result<usize, StoreError> {
        self.conn
            .query_row(sql, [], |r| r.get::<_, i64>(0))
            .map(|n| n as usize)
            .map_err(|e| self.err(e))
    }

    /// Decode a stored vector, or name its chunk in a [`StoreError::Damaged`] error.
    fn checked_vector(
        &self,
        row: i64,
        blob: rusqlite::types::ValueRef<'_>,
        dim: Option<usize>,
    ) -> Result<Vec<f32>, StoreError> {
        let fault = match blob.as_blob() {
            Ok(b) => match check::vector_fault(b, dim) {
                None => return Ok(blob_to_vector(b)),
                Some(f) => f.to_string(),
            },
            Err(_) => format!("the vector is stored as {:?}, not a blob", blob.data_type()),
        };
        Err(StoreError::Damaged {
            path: self.path.clone(),
            what: self.chunk_name(row),
            reason: fault,
        })
    }

    /// "chunk ID (row N) of SOURCE", as far as the store can tell.
    fn chunk_name(&self, row: i64) -> String {
        let named = self
            .conn
            .query_row(
                "SELECT c.chunk_id, CAST(d.source AS BLOB) FROM chunks c JOIN documents d ON d.id = c.doc WHERE c.id = ?1",
                [row],
                |r| Ok((lossy(r.get_ref(0)?), lossy(r.get_ref(1)?))),
            )
            .ok();
        match named {
            Some((id, source)) => format!("chunk {id} (row {row}) of {source}"),
            None => format!("chunk row {row}"),
        }
    }
}

impl SqliteStore {
    /// The one text column `sql` selects for document `doc_id` (`None`: no such document).
    fn document_text_column(&self, sql: &str, doc_id: &str) -> Result<Option<String>, StoreError> {
        self.conn
            .query_row(sql, [doc_id], |r| r.get::<_, String>(0))
            .optional()
            .map_err(|e| self.err(e))
    }
}

impl Records for SqliteStore {
    fn is_read_only(&self) -> bool {
        self.read_only
    }

    fn location(&self) -> &Path {
        &self.path
    }

    fn schema_version(&self) -> Result<i64, StoreError> {
        self.conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(|e| self.err(e))
    }

    fn meta(&self, key: &str) -> Result<Option<String>, StoreError> {
        self.conn
            .query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
            .optional()
            .map_err(|e| self.err(e))
    }

    fn set_meta(&self, key: &str, value: &str) -> Result<(), StoreError> {
        self.conn
            .execute(
                "INSERT OR REPLACE INTO meta(key, value) VALUES (?1, ?2)",
                params![key, value],
            )
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    fn add_root(&self, root: &str) -> Result<(), StoreError> {
        self.conn
            .execute("INSERT OR IGNORE INTO roots(path) VALUES (?1)", [root])
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    fn file_state(&self, path: &str) -> Result<Option<(u64, i64, String)>, StoreError> {
        self.conn
            .query_row(
                "SELECT size, mtime_ns, file_hash FROM files WHERE path = ?1",
                [path],
                |r| Ok((r.get::<_, i64>(0)? as u64, r.get(1)?, r.get(2)?)),
            )
            .optional()
            .map_err(|e| self.err(e))
    }

    fn docs_of_file(&self, path: &str) -> Result<Vec<StoredDoc>, StoreError> {
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT id, doc_id, path, key, source, title, content_hash FROM documents WHERE path = ?1 ORDER BY id",
            )
            .map_err(|e| self.err(e))?;
        let rows = st
            .query_map([path], stored_doc)
            .map_err(|e| self.err(e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.err(e))?;
        Ok(rows)
    }

    fn document_by_id(&self, doc_id: &str) -> Result<Option<StoredDoc>, StoreError> {
        self.documents_where("doc_id = ?1", doc_id, 1)
            .map(|mut d| d.pop())
    }

    fn documents_page(&self, after: i64, limit: usize) -> Result<Vec<StoredDoc>, StoreError> {
        self.documents_where("id > ?1", after, limit)
    }

    fn documents_by_rows(&self, rows: &[i64]) -> Result<Vec<StoredDoc>, StoreError> {
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT id, doc_id, path, key, CAST(source AS BLOB), title, content_hash FROM documents WHERE id = ?1",
            )
            .map_err(|e| self.err(e))?;
        let mut out = Vec::new();
        for row in rows {
            let found = st
                .query_row([row], |r| {
                    Ok(StoredDoc {
                        id: r.get(0)?,
                        doc_id: lossy(r.get_ref(1)?),
                        path: lossy(r.get_ref(2)?),
                        key: lossy(r.get_ref(3)?),
                        source: lossy(r.get_ref(4)?),
                        title: lossy(r.get_ref(5)?),
                        content_hash: lossy(r.get_ref(6)?),
                    })
                })
                .optional()
                .map_err(|e| self.err(e))?;
            out.extend(found);
        }
        Ok(out)
    }

    fn stored_files(&self) -> Result<Vec<String>, StoreError> {
        let mut st = self
            .conn
            .prepare("SELECT DISTINCT path FROM documents ORDER BY path")
            .map_err(|e| self.err(e))?;
        let rows = st
            .query_map([], |r| r.get(0))
            .map_err(|e| self.err(e))?
            .collect::<Result<Vec<String>, _>>()
            .map_err(|e| self.err(e))?;
        Ok(rows)
    }

    fn apply_file(
        &mut self,
        file: Option<(&str, u64, i64, &str)>,
        remove: &[i64],
        add: &[NewDoc],
    ) -> Result<Vec<i64>, StoreError> {
        let path = self.path.clone();
        let e = move |source| sqlite_error(&path, source);
        let tx = self.conn.transaction().map_err(e.clone())?;
        for id in remove {
            tx.execute("DELETE FROM chunks WHERE doc = ?1", [id])
                .map_err(e.clone())?;
            tx.execute("DELETE FROM documents WHERE id = ?1", [id])
                .map_err(e.clone())?;
        }
        let mut chunk_ids = Vec::new();
        for d in add {
            insert_doc(&tx, d, &mut chunk_ids).map_err(e.clone())?;
        }
        if let Some((p, size, mtime, hash)) = file {
            tx.execute(
                "INSERT OR REPLACE INTO files(path, size, mtime_ns, file_hash) VALUES (?1, ?2, ?3, ?4)",
                params![p, size as i64, mtime, hash],
            )
            .map_err(e.clone())?;
        }
        if !remove.is_empty() || !add.is_empty() {
            bump_version(&tx).map_err(e.clone())?;
        }
        tx.commit().map_err(e)?;
        Ok(chunk_ids)
    }

    fn raw_docs_of_file(
        &self,
        path: &str,
    ) -> Result<Vec<crate::store::export::RawDoc>, StoreError> {
        self.raw_docs(path)
    }

    fn remove_file(&mut self, path: &str) -> Result<usize, StoreError> {
        let docs: Vec<i64> = self.docs_of_file(path)?.iter().map(|d| d.id).collect();
        let n = docs.len();
        self.apply_file(None, &docs, &[])?;
        self.conn
            .execute("DELETE FROM files WHERE path = ?1", [path])
            .map_err(|e| self.err(e))?;
        Ok(n)
    }

    fn document_count(&self) -> Result<usize, StoreError> {
        self.count("SELECT COUNT(*) FROM documents")
    }

    fn chunk_count(&self) -> Result<usize, StoreError> {
        self.count("SELECT COUNT(*) FROM chunks")
    }

    fn all_vectors(&self) -> Result<Vec<(i64, Vec<f32>)>, StoreError> {
        let dim = self.dimension()?;
        let mut st = self
            .conn
            .prepare("SELECT id, vector FROM chunks ORDER BY id")
            .map_err(|e| self.err(e))?;
        let mut rows = st.query([]).map_err(|e| self.err(e))?;
        let mut out = Vec::new();
        while let Some(r) = rows.next().map_err(|e| self.err(e))? {
            let id: i64 = r.get(0).map_err(|e| self.err(e))?;
            let blob = r.get_ref(1).map_err(|e| self.err(e))?;
            out.push((id, self.checked_vector(id, blob, dim)?));
        }
        Ok(out)
    }

    fn chunk_row_ids(&self) -> Result<Vec<i64>, StoreError> {
        let mut st = self
            .conn
            .prepare("SELECT id FROM chunks ORDER BY id")
            .map_err(|e| self.err(e))?;
        let rows = st
            .query_map([], |r| r.get(0))
            .map_err(|e| self.err(e))?
            .collect::<Result<Vec<i64>, _>>()
            .map_err(|e| self.err(e))?;
        Ok(rows)
    }

    fn lexical_search(
        &self,
        query: &LexQuery,
        limit: usize,
    ) -> Result<Vec<(i64, f64)>, StoreError> {
        let match_expr = query.fts5();
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT rowid, bm25(chunks_fts, 1.0, 0.5) AS s FROM chunks_fts WHERE chunks_fts MATCH ?1 ORDER BY s, rowid LIMIT ?2",
            )
            .map_err(|e| self.err(e))?;
        let rows = st
            .query_map(params![match_expr, limit as i64], |r| {
                Ok((r.get::<_, i64>(0)?, -r.get::<_, f64>(1)?))
            })
            .map_err(|e| self.err(e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.err(e))?;
        Ok(rows)
    }

    fn term_chunk_count(&self, word: &str) -> Result<usize, StoreError> {
        let expr = format!("\"{}\"", word.replace('"', "\"\""));
        self.conn
            .prepare_cached("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?1")
            .and_then(|mut st| st.query_row([expr], |r| r.get::<_, i64>(0)))
            .map(|n| n as usize)
            .map_err(|e| self.err(e))
    }

    fn vectors_by_ids(&self, ids: &[i64]) -> Result<Vec<Option<Vec<f32>>>, StoreError> {
        let dim = self.dimension()?;
        let mut st = self
            .conn
            .prepare_cached("SELECT vector FROM chunks WHERE id = ?1")
            .map_err(|e| self.err(e))?;
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            let mut rows = st.query([id]).map_err(|e| self.err(e))?;
            out.push(match rows.next().map_err(|e| self.err(e))? {
                Some(r) => {
                    let blob = r.get_ref(0).map_err(|e| self.err(e))?;
                    Some(self.checked_vector(*id, blob, dim)?)
                }
                None => None,
            });
        }
        Ok(out)
    }

    fn vectors_by_embed_hash(
        &self,
        hashes: &[EmbedHash],
    ) -> Result<HashMap<EmbedHash, Vec<f32>>, StoreError> {
        let dim = self.dimension()?;
        let mut st = self
            .conn
            .prepare_cached("SELECT id, vector FROM chunks WHERE embed_hash = ?1 LIMIT 8")
            .map_err(|e| self.err(e))?;
        let mut out = HashMap::new();
        for h in hashes {
            if out.contains_key(h) {
                continue;
            }
            let mut rows = st.query([h.as_slice()]).map_err(|e| self.err(e))?;
            while let Some(r) = rows.next().map_err(|e| self.err(e))? {
                let id: i64 = r.get(0).map_err(|e| self.err(e))?;
                let blob = r.get_ref(1).map_err(|e| self.err(e))?;
                // A damaged vector is never lent (a repair embeds its text again).
                if let Ok(v) = self.checked_vector(id, blob, dim) {
                    out.insert(*h, v);
                    break;
                }
            }
        }
        Ok(out)
    }

    fn chunks_by_ids(&self, ids: &[i64]) -> Result<Vec<ChunkRow>, StoreError> {
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT c.id, c.chunk_id, d.doc_id, d.source, d.title, c.start, c.end, c.line_start, c.line_end, c.text, d.key \
                 FROM chunks c JOIN documents d ON d.id = c.doc WHERE c.id = ?1",
            )
            .map_err(|e| self.err(e))?;
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            let row = st
                .query_row([id], |r| {
                    Ok(ChunkRow {
                        id: r.get(0)?,
                        chunk_id: r.get(1)?,
                        doc_id: r.get(2)?,
                        source: r.get(3)?,
                        title: r.get(4)?,
                        span: Span {
                            start: r.get::<_, i64>(5)? as usize,
                            end: r.get::<_, i64>(6)? as usize,
                        },
                        lines: (r.get::<_, i64>(7)? as usize, r.get::<_, i64>(8)? as usize),
                        text: String::from_utf8(r.get_ref(9)?.as_bytes()?.to_vec())
                            .map_err(|e| FromSqlError::Other(Box::new(e)))?,
                        doc_key: r.get(10)?,
                    })
                })
                .optional()
                .map_err(|e| match e {
                    rusqlite::Error::FromSqlConversionFailure(..)
                    | rusqlite::Error::InvalidColumnType(..) => StoreError::Damaged {
                        path: self.path.clone(),
                        what: self.chunk_name(*id),
                        reason: format!("its stored text cannot be read ({e})"),
                    },
                    e => self.err(e),
                })?;
            out.extend(row);
        }
        Ok(out)
    }

    fn injection_flags(&self) -> Result<Vec<(String, usize, String, String)>, StoreError> {
        let mut st = self
            .conn
            .prepare(
                "SELECT d.source, c.line_start, f.kind, f.matched FROM injection_flags f \
                 JOIN chunks c ON c.id = f.chunk JOIN documents d ON d.id = c.doc \
                 ORDER BY d.source, c.line_start",
            )
            .map_err(|e| self.err(e))?;
        let rows = st
            .query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, i64>(1)? as usize,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                ))
            })
            .map_err(|e| self.err(e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.err(e))?;
        Ok(rows)
    }

    fn memory_rows(&self) -> Result<Vec<MemoryRow>, StoreError> {
        let mut st = self
            .conn
            .prepare_cached("SELECT id, vector, corpus_version, answer FROM qa_memory")
            .map_err(|e| self.err(e))?;
        let rows = st
            .query_map([], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get::<_, i64>(2)? as u64, r.get(3)?))
            })
            .map_err(|e| self.err(e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.err(e))?;
        Ok(rows)
    }

    fn remember(
        &self,
        question: &str,
        vector: &[u8],
        corpus_version: u64,
        answer: &str,
    ) -> Result<(), StoreError> {
        if self.read_only {
            tracing::info!("index is read-only: the answer is not stored in the QA memory");
            return Ok(());
        }
        self.conn
            .execute("DELETE FROM qa_memory WHERE question = ?1", [question])
            .map_err(|e| self.err(e))?;
        self.conn
            .execute(
                "INSERT INTO qa_memory(question, vector, corpus_version, answer) VALUES (?1, ?2, ?3, ?4)",
                params![question, vector, corpus_version as i64, answer],
            )
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    fn forget(&self, id: i64) -> Result<(), StoreError> {
        if self.read_only {
            return Ok(());
        }
        self.conn
            .execute("DELETE FROM qa_memory WHERE id = ?1", [id])
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    fn chunk_row_at(&self, doc_id: &str, at: usize) -> Result<Option<i64>, StoreError> {
        self.conn
            .query_row(
                "SELECT c.id FROM chunks c JOIN documents d ON d.id = c.doc \
                 WHERE d.doc_id = ?1 AND c.start <= ?2 AND c.end > ?2 ORDER BY c.start LIMIT 1",
                rusqlite::params![doc_id, at as i64],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.err(e))
    }

    fn chunk_text(&self, chunk_id: &str) -> Result<Option<String>, StoreError> {
        self.conn
            .query_row(
                "SELECT CAST(text AS BLOB) FROM chunks WHERE chunk_id = ?1 LIMIT 1",
                [chunk_id],
                |r| Ok(lossy(r.get_ref(0)?)),
            )
            .optional()
            .map_err(|e| self.err(e))
    }

    fn document_text(&self, doc_id: &str) -> Result<Option<String>, StoreError> {
        let row = self
            .conn
            .query_row(
                "SELECT CAST(source AS BLOB), content_hash, CAST(text AS BLOB) FROM documents WHERE doc_id = ?1",
                [doc_id],
                |r| {
                    Ok((
                        lossy(r.get_ref(0)?),
                        lossy(r.get_ref(1)?),
                        r.get::<_, Vec<u8>>(2)?,
                    ))
                },
            )
            .optional()
            .map_err(|e| self.err(e))?;
        let Some((source, hash, bytes)) = row else {
            return Ok(None);
        };
        let damaged = |reason: String| StoreError::Damaged {
            path: self.path.clone(),
            what: format!("document {source} ({doc_id})"),
            reason,
        };
        if sha256_hex(&bytes) != hash {
            return Err(damaged(
                "its stored text does not match its content hash".into(),
            ));
        }
        String::from_utf8(bytes)
            .map(Some)
            .map_err(|e| damaged(format!("its stored text is not UTF-8 ({e})")))
    }

    fn doc_ids_under(
        &self,
        roots: &[String],
    ) -> Result<std::collections::HashSet<String>, StoreError> {
        let mut st = self
            .conn
            .prepare_cached("SELECT doc_id, path FROM documents")
            .map_err(|e| self.err(e))?;
        let rows = st
            .query_map([], |r| Ok((r.get::<_, String>(0)?, lossy(r.get_ref(1)?))))
            .map_err(|e| self.err(e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.err(e))?;
        Ok(rows
            .into_iter()
            .filter(|(_, path)| super::under_roots(path, roots))
            .map(|(id, _)| id)
            .collect())
    }

    fn profile_json_of(&self, doc_id: &str) -> Result<Option<String>, StoreError> {
        self.document_text_column(
            "SELECT source_meta FROM documents WHERE doc_id = ?1",
            doc_id,
        )
    }

    fn layout_json_of(&self, doc_id: &str) -> Result<Option<String>, StoreError> {
        self.document_text_column("SELECT layout FROM documents WHERE doc_id = ?1", doc_id)
    }

    fn document_keys(&self) -> Result<HashMap<String, String>, StoreError> {
        let mut st = self
            .conn
            .prepare("SELECT doc_id, key FROM documents")
            .map_err(|e| self.err(e))?;
        let rows = st
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(|e| self.err(e))?
            .collect::<Result<HashMap<String, String>, _>>()
            .map_err(|e| self.err(e))?;
        Ok(rows)
    }
}

/// A store error for database `path`: writes refused by SQLite become [`StoreError::ReadOnly`].
fn sqlite_error(path: &Path, source: rusqlite::Error) -> StoreError {
    use rusqlite::ErrorCode;
    match source.sqlite_error_code() {
        Some(ErrorCode::ReadOnly) => StoreError::ReadOnly {
            path: path.to_path_buf(),
            reason: source.to_string(),
        },
        _ => StoreError::Sqlite {
            path: path.to_path_buf(),
            source,
        },
    }
}

/// Why `path` cannot be written, if it cannot: no write permission bit at all (which
/// also holds for root, whom the OS would let write anyway), or `access(W_OK)` refuses
/// (permissions, a read-only filesystem).
fn not_writable(path: &Path) -> Option<String> {
    match std::fs::metadata(path) {
        Ok(m) if m.permissions().readonly() => {
            return Some(format!("{} has no write permission", path.display()))
        }
        Ok(_) => {}
        Err(e) => return Some(format!("{}: {e}", path.display())),
    }
    rustix::fs::access(path, rustix::fs::Access::WRITE_OK)
        .err()
        .map(|e| format!("{}: {}", path.display(), std::io::Error::from(e)))
}

/// A text or blob column as a string, invalid UTF-8 replaced (for naming things).
fn lossy(v: rusqlite::types::ValueRef<'_>) -> String {
    match v.as_bytes() {
        Ok(b) => String::from_utf8_lossy(b).into_owned(),
        Err(_) => String::new(),
    }
}

fn stored_doc(r: &rusqlite::Row<'_>) -> rusqlite::Result<StoredDoc> {
    Ok(StoredDoc {
        id: r.get(0)?,
        doc_id: r.get(1)?,
        path: r.get(2)?,
        key: r.get(3)?,
        source: r.get(4)?,
        title: r.get(5)?,
        content_hash: r.get(6)?,
    })
}

fn bump_version(tx: &Transaction<'_>) -> rusqlite::Result<()> {
    tx.execute(
        "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'corpus_version'",
        [],
    )?;
    Ok(())
}

fn insert_doc(tx: &Transaction<'_>, d: &NewDoc, chunk_rows: &mut Vec<i64>) -> rusqlite::Result<()> {
    let hash = sha256_hex(d.text.as_bytes());
    let kind = serde_json::to_value(d.kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    tx.execute(
        "INSERT INTO documents(doc_id, path, key, source, title, kind, content_hash, size, mtime_ns, text, layout, source_meta) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
        params![
            doc_id(&d.path, &d.key),
            d.path,
            d.key,
            d.source,
            d.title,
            kind,
            hash,
            d.text.len() as i64,
            d.mtime_ns,
            d.text,
            layout_json(&d.layout),
            d.source_meta
        ],
    )?;
    let doc_row = tx.last_insert_rowid();
    let mut st = tx.prepare_cached(
        "INSERT INTO chunks(chunk_id, doc, ord, start, end, line_start, line_end, tokens, text, vector, context, embed_hash) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
    )?;
    for (ord, c) in d.chunks.iter().enumerate() {
        st.execute(params![
            chunk_id(&hash, c.span),
            doc_row,
            ord as i64,
            c.span.start as i64,
            c.span.end as i64,
            c.lines.0 as i64,
            c.lines.1 as i64,
            c.tokens as i64,
            &d.text[c.span.start..c.span.end],
            vector_to_blob(&c.vector),
            c.context,
            c.embed_hash.as_ref().map(|h| h.as_slice())
        ])?;
        let row = tx.last_insert_rowid();
        chunk_rows.push(row);
        if let Some(f) = &c.injection {
            tx.execute(
                "INSERT INTO injection_flags(chunk, kind, matched) VALUES (?1, ?2, ?3)",
                params![row, f.kind.as_str(), f.matched],
            )?;
        }
    }
    Ok(())
}
