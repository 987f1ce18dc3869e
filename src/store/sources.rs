//! Store queries behind source metadata and filters: every document with what it says
//! about itself, the declarations made at ingest, and BM25 search within some documents.

use rusqlite::params;

use super::{Store, StoreError};

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

impl Store {
    /// Every document (or only those with ids `only`), in path order, with what the
    /// catalog needs; `opening_bytes` of text are read for documents stored before source
    /// metadata existed.
    pub fn catalog_rows(
        &self,
        opening_bytes: usize,
        only: Option<&[String]>,
    ) -> Result<Vec<CatalogRow>, StoreError> {
        let only_json = only.map(|ids| serde_json::to_string(ids).unwrap_or_else(|_| "[]".into()));
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT d.id, d.doc_id, d.path, d.source, d.title, d.kind, d.source_meta, \
                 CASE WHEN d.source_meta = '' THEN substr(d.text, 1, ?1) ELSE '' END, \
                 CASE WHEN json_valid(d.layout) THEN coalesce(json_array_length(d.layout, '$.pages'), 0) ELSE 0 END, \
                 (SELECT count(*) FROM chunks c WHERE c.doc = d.id) \
                 FROM documents d WHERE ?2 IS NULL OR d.doc_id IN (SELECT value FROM json_each(?2)) \
                 ORDER BY d.source, d.key",
            )
            .map_err(|e| self.err(e))?;
        let rows = st
            .query_map(params![opening_bytes as i64, only_json], |r| {
                Ok(CatalogRow {
                    id: r.get(0)?,
                    doc_id: r.get(1)?,
                    path: r.get(2)?,
                    source: r.get(3)?,
                    title: r.get(4)?,
                    kind: r.get(5)?,
                    source_meta: r.get(6)?,
                    opening: r.get(7)?,
                    pages: r.get::<_, i64>(8)? as usize,
                    chunks: r.get::<_, i64>(9)? as usize,
                })
            })
            .map_err(|e| self.err(e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.err(e))?;
        Ok(rows)
    }

    /// Source declarations made at ingest: (canonical root path, JSON), in path order.
    pub fn source_decls(&self) -> Result<Vec<(String, String)>, StoreError> {
        let mut st = self
            .conn
            .prepare_cached("SELECT root, meta FROM source_decl ORDER BY root")
            .map_err(|e| self.err(e))?;
        let rows = st
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(|e| self.err(e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.err(e))?;
        Ok(rows)
    }

    /// Record (or replace) the source declaration of canonical path `root`.
    pub fn set_source_decl(&self, root: &str, meta_json: &str) -> Result<(), StoreError> {
        self.conn
            .execute(
                "INSERT OR REPLACE INTO source_decl(root, meta) VALUES (?1, ?2)",
                params![root, meta_json],
            )
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// BM25 top-`limit` for `match_expr` among the chunks of documents `docs` (row ids).
    pub fn fts_search_in_docs(
        &self,
        match_expr: &str,
        limit: usize,
        docs: &[i64],
    ) -> Result<Vec<(i64, f64)>, StoreError> {
        self.fts_search_docs(match_expr, limit, docs, true)
    }

    /// Chunk row ids of documents `docs` (row ids).
    pub fn chunk_ids_of_docs(&self, docs: &[i64]) -> Result<Vec<i64>, StoreError> {
        let docs_json = serde_json::to_string(docs).unwrap_or_else(|_| "[]".into());
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT id FROM chunks WHERE doc IN (SELECT value FROM json_each(?1)) ORDER BY id",
            )
            .map_err(|e| self.err(e))?;
        let rows = st
            .query_map([docs_json], |r| r.get::<_, i64>(0))
            .map_err(|e| self.err(e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.err(e))?;
        Ok(rows)
    }
}

impl Store {
    /// Row ids of the documents with ids `doc_ids` (unknown ids are left out), ascending.
    pub fn doc_rows_of(&self, doc_ids: &[&str]) -> Result<Vec<i64>, StoreError> {
        let json = serde_json::to_string(doc_ids).unwrap_or_else(|_| "[]".into());
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT id FROM documents WHERE doc_id IN (SELECT value FROM json_each(?1)) ORDER BY id",
            )
            .map_err(|e| self.err(e))?;
        let rows = st
            .query_map([json], |r| r.get::<_, i64>(0))
            .map_err(|e| self.err(e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.err(e))?;
        Ok(rows)
    }
}
