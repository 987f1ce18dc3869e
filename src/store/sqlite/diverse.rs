//! Store queries behind per-document diversity in retrieval: which document a chunk
//! belongs to, every chunk of some documents, and BM25 search without some documents.

use std::collections::{HashMap, HashSet};

use rusqlite::params;

use super::super::{Scoped, StoreError};
use super::SqliteStore;
use crate::store::LexQuery;

impl Scoped for SqliteStore {
    fn chunk_docs(&self, ids: &[i64]) -> Result<HashMap<i64, i64>, StoreError> {
        let mut st = self
            .conn
            .prepare_cached("SELECT doc FROM chunks WHERE id = ?1")
            .map_err(|e| self.err(e))?;
        let mut out = HashMap::with_capacity(ids.len());
        for &id in ids {
            let doc = st
                .query_row([id], |r| r.get::<_, i64>(0))
                .map(Some)
                .or_else(|e| match e {
                    rusqlite::Error::QueryReturnedNoRows => Ok(None),
                    e => Err(e),
                })
                .map_err(|e| self.err(e))?;
            if let Some(d) = doc {
                out.insert(id, d);
            }
        }
        Ok(out)
    }

    fn first_chunk_of_doc(&self, doc: i64) -> Result<Option<i64>, StoreError> {
        self.conn
            .query_row(
                "SELECT id FROM chunks WHERE doc = ?1 ORDER BY ord LIMIT 1",
                [doc],
                |r| r.get::<_, i64>(0),
            )
            .map(Some)
            .or_else(|e| match e {
                rusqlite::Error::QueryReturnedNoRows => Ok(None),
                e => Err(e),
            })
            .map_err(|e| self.err(e))
    }

    fn chunk_rows_of_docs(&self, docs: &[i64]) -> Result<HashSet<i64>, StoreError> {
        let mut st = self
            .conn
            .prepare_cached("SELECT id FROM chunks WHERE doc = ?1")
            .map_err(|e| self.err(e))?;
        let mut out = HashSet::new();
        for &d in docs {
            let rows = st
                .query_map([d], |r| r.get::<_, i64>(0))
                .map_err(|e| self.err(e))?;
            for r in rows {
                out.insert(r.map_err(|e| self.err(e))?);
            }
        }
        Ok(out)
    }

    fn lexical_search_without_docs(
        &self,
        query: &LexQuery,
        limit: usize,
        docs: &[i64],
    ) -> Result<Vec<(i64, f64)>, StoreError> {
        self.fts_search_docs(&query.fts5(), limit, docs, false)
    }
    fn lexical_search_in_docs(
        &self,
        query: &LexQuery,
        limit: usize,
        docs: &[i64],
    ) -> Result<Vec<(i64, f64)>, StoreError> {
        self.fts_search_docs(&query.fts5(), limit, docs, true)
    }

    fn chunk_ids_of_docs(&self, docs: &[i64]) -> Result<Vec<i64>, StoreError> {
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

impl SqliteStore {
    /// BM25 top-`limit` for `match_expr` among the chunks of documents `docs` (`within`)
    /// or among all other chunks. The unary `+` keeps SQLite from driving the full-text
    /// table by the row-id list (one MATCH per allowed chunk: 14× slower on 645 chunks);
    /// the MATCH runs once and its rows are checked against the list.
    fn fts_search_docs(
        &self,
        match_expr: &str,
        limit: usize,
        docs: &[i64],
        within: bool,
    ) -> Result<Vec<(i64, f64)>, StoreError> {
        let docs_json = serde_json::to_string(docs).unwrap_or_else(|_| "[]".into());
        let sql = format!(
            "SELECT f.rowid, bm25(chunks_fts, 1.0, 0.5) AS s FROM chunks_fts f \
             WHERE chunks_fts MATCH ?1 AND +f.rowid {} \
             (SELECT id FROM chunks WHERE doc IN (SELECT value FROM json_each(?3))) \
             ORDER BY s, f.rowid LIMIT ?2",
            if within { "IN" } else { "NOT IN" }
        );
        let mut st = self.conn.prepare_cached(&sql).map_err(|e| self.err(e))?;
        let rows = st
            .query_map(params![match_expr, limit as i64, docs_json], |r| {
                Ok((r.get::<_, i64>(0)?, -r.get::<_, f64>(1)?))
            })
            .map_err(|e| self.err(e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.err(e))?;
        Ok(rows)
    }
}
