//! [`Scoped`] and [`Catalog`] on Milvus: retrieval within or without some documents, and
//! what the source catalog reads.

use std::collections::{HashMap, HashSet};

use super::{int, int_list, str_list, text, MilvusStore};
use crate::store::LexQuery;
use crate::store::{Catalog, CatalogRow, Records, Scoped, StoreError};

impl MilvusStore {
    fn chunk_doc_rows(&self, filter: &str) -> Result<Vec<(i64, i64)>, StoreError> {
        Ok(self
            .query("chunks", filter, &["id", "doc"])?
            .iter()
            .map(|r| (int(r, "id"), int(r, "doc")))
            .collect())
    }
}

impl Scoped for MilvusStore {
    fn chunk_docs(&self, ids: &[i64]) -> Result<HashMap<i64, i64>, StoreError> {
        if ids.is_empty() {
            return Ok(HashMap::new());
        }
        Ok(self
            .chunk_doc_rows(&int_list("id", ids))?
            .into_iter()
            .collect())
    }

    fn first_chunk_of_doc(&self, doc: i64) -> Result<Option<i64>, StoreError> {
        let rows = self.query("chunks", &format!("doc == {doc}"), &["id", "ord"])?;
        Ok(rows
            .iter()
            .min_by_key(|r| (int(r, "ord"), int(r, "id")))
            .map(|r| int(r, "id")))
    }

    fn chunk_rows_of_docs(&self, docs: &[i64]) -> Result<HashSet<i64>, StoreError> {
        Ok(self.chunk_ids_of_docs(docs)?.into_iter().collect())
    }

    fn chunk_ids_of_docs(&self, docs: &[i64]) -> Result<Vec<i64>, StoreError> {
        if docs.is_empty() {
            return Ok(Vec::new());
        }
        let mut ids: Vec<i64> = self
            .chunk_doc_rows(&int_list("doc", docs))?
            .into_iter()
            .map(|x| x.0)
            .collect();
        ids.sort_unstable();
        Ok(ids)
    }

    fn lexical_search_in_docs(
        &self,
        query: &LexQuery,
        limit: usize,
        docs: &[i64],
    ) -> Result<Vec<(i64, f64)>, StoreError> {
        if docs.is_empty() {
            return Ok(Vec::new());
        }
        self.bm25(query, limit, Some(&int_list("doc", docs)))
    }

    fn lexical_search_without_docs(
        &self,
        query: &LexQuery,
        limit: usize,
        docs: &[i64],
    ) -> Result<Vec<(i64, f64)>, StoreError> {
        if docs.is_empty() {
            return self.bm25(query, limit, None);
        }
        let filter = int_list("doc", docs).replacen(" in [", " not in [", 1);
        self.bm25(query, limit, Some(&filter))
    }
}

impl Catalog for MilvusStore {
    fn catalog_rows(
        &self,
        opening_bytes: usize,
        only: Option<&[String]>,
    ) -> Result<Vec<CatalogRow>, StoreError> {
        let filter = match only {
            Some(ids) => str_list(
                "doc_id",
                &ids.iter().map(String::as_str).collect::<Vec<_>>(),
            ),
            None => "id >= 0".into(),
        };
        let fields = [
            "id",
            "doc_id",
            "path",
            "doc_key",
            "source",
            "title",
            "kind",
            "source_meta",
            "pages",
        ];
        let rows = self.query("docs", &filter, &fields)?;
        let mut chunks: HashMap<i64, usize> = HashMap::new();
        let doc_rows: Vec<i64> = rows.iter().map(|r| int(r, "id")).collect();
        if !doc_rows.is_empty() {
            for (_, doc) in self.chunk_doc_rows(&int_list("doc", &doc_rows))? {
                *chunks.entry(doc).or_default() += 1;
            }
        }
        let mut out = Vec::with_capacity(rows.len());
        for r in &rows {
            let source_meta = text(r, "source_meta");
            let opening = if source_meta.is_empty() {
                let body = self.document_text(&text(r, "doc_id"))?.unwrap_or_default();
                body.chars()
                    .scan(0, |n, c| {
                        *n += c.len_utf8();
                        (*n <= opening_bytes).then_some(c)
                    })
                    .collect()
            } else {
                String::new()
            };
            out.push((
                text(r, "source"),
                text(r, "doc_key"),
                CatalogRow {
                    id: int(r, "id"),
                    doc_id: text(r, "doc_id"),
                    path: text(r, "path"),
                    source: text(r, "source"),
                    title: text(r, "title"),
                    kind: text(r, "kind"),
                    source_meta,
                    opening,
                    pages: int(r, "pages") as usize,
                    chunks: chunks.get(&int(r, "id")).copied().unwrap_or(0),
                },
            ));
        }
        out.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
        Ok(out.into_iter().map(|x| x.2).collect())
    }

    fn source_decls(&self) -> Result<Vec<(String, String)>, StoreError> {
        Ok(self
            .meta_prefixed("decl/")?
            .into_iter()
            .map(|(k, v)| (k["decl/".len()..].to_string(), v))
            .collect())
    }

    fn set_source_decl(&self, root: &str, meta_json: &str) -> Result<(), StoreError> {
        self.set_meta(&format!("decl/{root}"), meta_json)
    }

    fn doc_rows_of(&self, doc_ids: &[&str]) -> Result<Vec<i64>, StoreError> {
        if doc_ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut rows: Vec<i64> = self
            .query("docs", &str_list("doc_id", doc_ids), &["id"])?
            .iter()
            .map(|r| int(r, "id"))
            .collect();
        rows.sort_unstable();
        Ok(rows)
    }
}
