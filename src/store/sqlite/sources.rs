//! Store queries behind source metadata and filters: every document with what it says
//! about itself, the declarations made at ingest, and BM25 search within some documents.

use rusqlite::params;

use super::super::{Catalog, CatalogRow, StoreError};
use super::SqliteStore;

impl Catalog for SqliteStore {
    fn catalog_rows(
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

    fn source_decls(&self) -> Result<Vec<(String, String)>, StoreError> {
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

    fn set_source_decl(&self, root: &str, meta_json: &str) -> Result<(), StoreError> {
        self.conn
            .execute(
                "INSERT OR REPLACE INTO source_decl(root, meta) VALUES (?1, ?2)",
                params![root, meta_json],
            )
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    fn doc_rows_of(&self, doc_ids: &[&str]) -> Result<Vec<i64>, StoreError> {
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
