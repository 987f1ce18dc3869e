//! [`Records`] on Milvus: documents, chunks, vectors, lexical search and metadata.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde_json::{json, Map, Value};

use super::{
    client, int, int_list, lex, parts, placeholder, str_list, text, MilvusStore, PLACEHOLDER,
};
use crate::corpus::Span;
use crate::store::LexQuery;
use crate::store::{
    chunk_id, doc_id, layout_json, sha256_hex, ChunkRow, DocFilter, MemoryRow, NewDoc, Records,
    StoreError, StoredDoc,
};

/// Fields of a [`StoredDoc`] in `docs`.
const DOC_FIELDS: &[&str] = &[
    "id",
    "doc_id",
    "path",
    "doc_key",
    "source",
    "title",
    "content_hash",
];

fn stored_doc(r: &Map<String, Value>) -> StoredDoc {
    StoredDoc {
        id: int(r, "id"),
        doc_id: text(r, "doc_id"),
        path: text(r, "path"),
        key: text(r, "doc_key"),
        source: text(r, "source"),
        title: text(r, "title"),
        content_hash: text(r, "content_hash"),
    }
}

impl MilvusStore {
    pub(super) fn docs_where(&self, filter: &str) -> Result<Vec<StoredDoc>, StoreError> {
        let mut docs: Vec<StoredDoc> = self
            .query("docs", filter, DOC_FIELDS)?
            .iter()
            .map(stored_doc)
            .collect();
        docs.sort_by_key(|d| d.id);
        Ok(docs)
    }

    pub(super) fn doc_row_of(&self, doc_id: &str) -> Result<Option<i64>, StoreError> {
        let filter = format!("doc_id == {}", client::quote(doc_id));
        Ok(self.docs_where(&filter)?.first().map(|d| d.id))
    }

    /// The parts of blob `kind` of document row `doc`, joined; `None` when it has none.
    fn blob(&self, doc: i64, kind: &str) -> Result<Option<String>, StoreError> {
        let filter = format!("doc == {doc} and kind == {}", client::quote(kind));
        let mut rows = self.query("blobs", &filter, &["part", "data"])?;
        if rows.is_empty() {
            return Ok(None);
        }
        rows.sort_by_key(|r| int(r, "part"));
        Ok(Some(rows.iter().map(|r| text(r, "data")).collect()))
    }

    fn put_blob(&self, doc: i64, kind: &str, body: &str) -> Result<usize, StoreError> {
        let rows: Vec<Value> = parts(body)
            .iter()
            .enumerate()
            .map(|(i, p)| {
                json!({"k": format!("{doc}/{kind}/{i}"), "doc": doc, "part": i as i64,
                       "kind": kind, "data": p, PLACEHOLDER: placeholder()})
            })
            .collect();
        let n = rows.len();
        self.upsert("blobs", rows)?;
        Ok(n)
    }

    /// Remove documents `rows` with their chunks and blobs (chunks first, so no chunk
    /// outlives its document).
    fn remove_docs(&mut self, rows: &[i64]) -> Result<(), StoreError> {
        if rows.is_empty() {
            return Ok(());
        }
        let gone: i64 = self
            .query("chunks", &int_list("doc", rows), &["lex_text", "lex_ctx"])?
            .iter()
            .map(|r| word_count(&text(r, "lex_text")) + word_count(&text(r, "lex_ctx")))
            .sum();
        self.token_delta -= gone;
        self.delete("chunks", &int_list("doc", rows))?;
        self.delete("blobs", &int_list("doc", rows))?;
        self.delete("docs", &int_list("id", rows))
    }

    /// Insert one document: its text and layout, its row, then its chunks. Returns the
    /// chunk row ids.
    fn insert_doc(&mut self, d: &NewDoc) -> Result<Vec<i64>, StoreError> {
        let row = self.next_doc;
        self.next_doc += self.writer.n as i64;
        let hash = sha256_hex(d.text.as_bytes());
        let text_parts = self.put_blob(row, "text", &d.text)?;
        let layout_parts = self.put_blob(row, "layout", &layout_json(&d.layout))?;
        let kind = serde_json::to_value(d.kind)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        self.upsert(
            "docs",
            vec![json!({
                "id": row, "doc_id": doc_id(&d.path, &d.key), "path": d.path, "doc_key": d.key,
                "source": d.source, "title": d.title, "kind": kind, "content_hash": hash,
                "size": d.text.len() as i64, "mtime_ns": d.mtime_ns, "source_meta": d.source_meta,
                "pages": d.layout.pages.len() as i64, "text_parts": text_parts as i64,
                "layout_parts": layout_parts as i64, PLACEHOLDER: placeholder(),
            })],
        )?;
        self.insert_chunks(row, &hash, d)
    }

    fn insert_chunks(&mut self, doc: i64, hash: &str, d: &NewDoc) -> Result<Vec<i64>, StoreError> {
        let mut ids = Vec::with_capacity(d.chunks.len());
        let mut rows = Vec::with_capacity(d.chunks.len());
        for (ord, c) in d.chunks.iter().enumerate() {
            let id = self.next_chunk;
            self.next_chunk += self.writer.n as i64;
            let body = &d.text[c.span.start..c.span.end];
            if body.len() > super::VARCHAR_MAX as usize
                || c.context.len() > super::VARCHAR_MAX as usize
            {
                return Err(self.fail(format!(
                    "{}: a chunk of {} bytes is longer than the Milvus backend stores ({} bytes)",
                    d.source,
                    body.len(),
                    super::VARCHAR_MAX
                )));
            }
            let (flag_kind, flag_matched) = match &c.injection {
                Some(f) => (f.kind.as_str().to_string(), f.matched.clone()),
                None => (String::new(), String::new()),
            };
            let max = super::VARCHAR_MAX as usize / 2;
            let (lex_text, lex_ctx) = (lex::indexed(body, max), lex::indexed(&c.context, max));
            self.token_delta += word_count(&lex_text) + word_count(&lex_ctx);
            rows.push(json!({
                "id": id, "chunk_id": chunk_id(hash, c.span), "doc": doc, "ord": ord as i64,
                "span_start": c.span.start as i64, "span_end": c.span.end as i64,
                "line_start": c.lines.0 as i64, "line_end": c.lines.1 as i64,
                "tokens": c.tokens as i64, "text": body, "context": c.context,
                "lex": format!("{lex_text} {lex_ctx}"), "lex_text": lex_text, "lex_ctx": lex_ctx,
                "vector": c.vector, "flag_kind": flag_kind, "flag_matched": flag_matched,
            }));
            ids.push(id);
        }
        for batch in rows.chunks(512) {
            self.upsert("chunks", batch.to_vec())?;
        }
        Ok(ids)
    }

    fn vector_rows(&self, filter: &str) -> Result<Vec<(i64, Vec<f32>)>, StoreError> {
        let dim = self.dim;
        let mut out = Vec::new();
        for r in self.query("chunks", filter, &["id", "vector"])? {
            let v = vector_field(&r);
            if let Some(f) =
                crate::store::check::vector_fault(&crate::store::vector_to_blob(&v), Some(dim))
            {
                return Err(StoreError::Damaged {
                    path: self.location.clone(),
                    what: format!("chunk row {}", int(&r, "id")),
                    reason: f.to_string(),
                });
            }
            out.push((int(&r, "id"), v));
        }
        out.sort_by_key(|x| x.0);
        Ok(out)
    }
}

impl Records for MilvusStore {
    fn location(&self) -> &Path {
        self.location_path()
    }

    fn is_read_only(&self) -> bool {
        false
    }

    fn schema_version(&self) -> Result<i64, StoreError> {
        Ok(self
            .meta("schema_version")?
            .and_then(|v| v.parse().ok())
            .unwrap_or(0))
    }

    fn meta(&self, key: &str) -> Result<Option<String>, StoreError> {
        let filter = format!("k == {}", client::quote(key));
        Ok(self
            .query("meta", &filter, &["v"])?
            .first()
            .map(|r| text(r, "v")))
    }

    fn set_meta(&self, key: &str, value: &str) -> Result<(), StoreError> {
        self.upsert(
            "meta",
            vec![json!({"k": key, "v": value, PLACEHOLDER: placeholder()})],
        )
    }

    fn corpus_version(&self) -> Result<u64, StoreError> {
        Ok(self
            .meta_prefixed("version/")?
            .iter()
            .filter_map(|(_, v)| v.parse::<u64>().ok())
            .sum())
    }

    fn add_root(&self, root: &str) -> Result<(), StoreError> {
        self.set_meta(&format!("root/{root}"), "")
    }

    fn file_state(&self, path: &str) -> Result<Option<(u64, i64, String)>, StoreError> {
        let filter = format!("path == {}", client::quote(path));
        let rows = self.query("files", &filter, &["size", "mtime_ns", "file_hash"])?;
        Ok(rows.first().map(|r| {
            (
                int(r, "size") as u64,
                int(r, "mtime_ns"),
                text(r, "file_hash"),
            )
        }))
    }

    fn docs_of_file(&self, path: &str) -> Result<Vec<StoredDoc>, StoreError> {
        self.docs_where(&format!("path == {}", client::quote(path)))
    }

    fn document_by_id(&self, doc_id: &str) -> Result<Option<StoredDoc>, StoreError> {
        let filter = format!("doc_id == {}", client::quote(doc_id));
        Ok(self.docs_where(&filter)?.into_iter().next())
    }

    fn documents_page(&self, after: i64, limit: usize) -> Result<Vec<StoredDoc>, StoreError> {
        let mut ids: Vec<i64> = self
            .query("docs", &format!("id > {after}"), &["id"])?
            .iter()
            .map(|r| int(r, "id"))
            .collect();
        ids.sort_unstable();
        ids.truncate(limit);
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        self.docs_where(&int_list("id", &ids))
    }

    fn documents_by_rows(&self, rows: &[i64]) -> Result<Vec<StoredDoc>, StoreError> {
        if rows.is_empty() {
            return Ok(Vec::new());
        }
        let found: HashMap<i64, StoredDoc> = self
            .docs_where(&int_list("id", rows))?
            .into_iter()
            .map(|d| (d.id, d))
            .collect();
        Ok(rows.iter().filter_map(|r| found.get(r).cloned()).collect())
    }

    fn stored_files(&self) -> Result<Vec<String>, StoreError> {
        let mut paths: Vec<String> = self
            .query("docs", "id >= 0", &["path"])?
            .iter()
            .map(|r| text(r, "path"))
            .collect();
        paths.sort();
        paths.dedup();
        Ok(paths)
    }

    fn apply_file(
        &mut self,
        file: Option<(&str, u64, i64, &str)>,
        remove: &[i64],
        add: &[NewDoc],
    ) -> Result<Vec<i64>, StoreError> {
        let changed = !remove.is_empty() || !add.is_empty();
        if let (Some((p, ..)), true) = (file, changed) {
            self.delete("files", &format!("path == {}", client::quote(p)))?;
        }
        self.remove_docs(remove)?;
        let mut chunk_ids = Vec::new();
        for d in add {
            chunk_ids.extend(self.insert_doc(d)?);
        }
        if let Some((p, size, mtime, hash)) = file {
            self.upsert(
                "files",
                vec![json!({"path": p, "size": size as i64, "mtime_ns": mtime,
                            "file_hash": hash, PLACEHOLDER: placeholder()})],
            )?;
        }
        self.record_write(changed)?;
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
        self.delete("files", &format!("path == {}", client::quote(path)))?;
        self.apply_file(None, &docs, &[])?;
        Ok(docs.len())
    }

    fn document_count(&self) -> Result<usize, StoreError> {
        let name = self.name("docs");
        self.conn
            .count(&name, "id >= 0")
            .map(|n| n as usize)
            .map_err(|e| self.fail(e))
    }

    fn chunk_count(&self) -> Result<usize, StoreError> {
        let name = self.name("chunks");
        self.conn
            .count(&name, "id >= 0")
            .map(|n| n as usize)
            .map_err(|e| self.fail(e))
    }

    fn all_vectors(&self) -> Result<Vec<(i64, Vec<f32>)>, StoreError> {
        self.vector_rows("id >= 0")
    }

    fn chunk_row_ids(&self) -> Result<Vec<i64>, StoreError> {
        let mut ids: Vec<i64> = self
            .query("chunks", "id >= 0", &["id"])?
            .iter()
            .map(|r| int(r, "id"))
            .collect();
        ids.sort_unstable();
        Ok(ids)
    }

    fn vectors_by_ids(&self, ids: &[i64]) -> Result<Vec<Option<Vec<f32>>>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let found: HashMap<i64, Vec<f32>> = self
            .vector_rows(&int_list("id", ids))?
            .into_iter()
            .collect();
        Ok(ids.iter().map(|i| found.get(i).cloned()).collect())
    }

    fn lexical_search(
        &self,
        query: &LexQuery,
        limit: usize,
    ) -> Result<Vec<(i64, f64)>, StoreError> {
        self.bm25(query, limit, None)
    }

    fn term_chunk_count(&self, word: &str) -> Result<usize, StoreError> {
        let Some(term) = lex::terms(word).into_iter().next() else {
            return Ok(0);
        };
        let (_, _, hits) = self.phrase_hits(&[vec![term]])?;
        Ok(hits.first().copied().unwrap_or(0).max(0) as usize)
    }

    fn chunks_by_ids(&self, ids: &[i64]) -> Result<Vec<ChunkRow>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let fields = [
            "id",
            "chunk_id",
            "doc",
            "span_start",
            "span_end",
            "line_start",
            "line_end",
            "text",
        ];
        let rows = self.query("chunks", &int_list("id", ids), &fields)?;
        let doc_rows: Vec<i64> = rows.iter().map(|r| int(r, "doc")).collect();
        let docs: HashMap<i64, StoredDoc> = self
            .documents_by_rows(&doc_rows)?
            .into_iter()
            .map(|d| (d.id, d))
            .collect();
        let by_id: HashMap<i64, &Map<String, Value>> =
            rows.iter().map(|r| (int(r, "id"), r)).collect();
        Ok(ids
            .iter()
            .filter_map(|id| {
                let r = by_id.get(id)?;
                let d = docs.get(&int(r, "doc"))?;
                Some(chunk_row(r, d))
            })
            .collect())
    }

    fn injection_flags(&self) -> Result<Vec<(String, usize, String, String)>, StoreError> {
        let rows = self.query(
            "chunks",
            "flag_kind != \"\"",
            &["doc", "line_start", "flag_kind", "flag_matched"],
        )?;
        let docs: HashMap<i64, StoredDoc> = self
            .documents_by_rows(&rows.iter().map(|r| int(r, "doc")).collect::<Vec<_>>())?
            .into_iter()
            .map(|d| (d.id, d))
            .collect();
        let mut out: Vec<(String, usize, String, String)> = rows
            .iter()
            .map(|r| {
                let source = docs
                    .get(&int(r, "doc"))
                    .map(|d| d.source.clone())
                    .unwrap_or_default();
                (
                    source,
                    int(r, "line_start") as usize,
                    text(r, "flag_kind"),
                    text(r, "flag_matched"),
                )
            })
            .collect();
        out.sort();
        Ok(out)
    }

    fn memory_rows(&self) -> Result<Vec<MemoryRow>, StoreError> {
        let mut out = Vec::new();
        for (k, v) in self.meta_prefixed("memory/")? {
            let Ok(id) = k["memory/".len()..].parse::<i64>() else {
                continue;
            };
            let Ok(meta) = serde_json::from_str::<Value>(&v) else {
                continue;
            };
            let answer = self.blob(-id, "answer")?.unwrap_or_default();
            out.extend(super::memory_row(id, &meta, answer));
        }
        Ok(out)
    }

    fn remember(
        &self,
        question: &str,
        vector: &[u8],
        corpus_version: u64,
        answer: &str,
    ) -> Result<(), StoreError> {
        let rows = self.meta_prefixed("memory/")?;
        for (k, v) in &rows {
            let same = serde_json::from_str::<Value>(v).ok().and_then(|m| {
                m.get("question")
                    .and_then(Value::as_str)
                    .map(|q| q == question)
            });
            if same == Some(true) {
                let id: i64 = k["memory/".len()..].parse().unwrap_or(0);
                self.forget(id)?;
            }
        }
        let id = rows
            .iter()
            .filter_map(|(k, _)| k["memory/".len()..].parse::<i64>().ok())
            .max()
            .unwrap_or(0)
            + 1;
        let meta =
            json!({"question": question, "vector": hex::encode(vector), "version": corpus_version});
        if meta.to_string().len() > super::VARCHAR_MAX as usize {
            tracing::info!("question too long for the QA memory on Milvus: not stored");
            return Ok(());
        }
        self.put_blob(-id, "answer", answer)?;
        self.set_meta(&format!("memory/{id}"), &meta.to_string())
    }

    fn forget(&self, id: i64) -> Result<(), StoreError> {
        self.delete(
            "meta",
            &format!("k == {}", client::quote(&format!("memory/{id}"))),
        )?;
        self.delete("blobs", &format!("doc == {}", -id))
    }

    fn chunk_row_at(&self, doc_id: &str, at: usize) -> Result<Option<i64>, StoreError> {
        let Some(doc) = self.doc_row_of(doc_id)? else {
            return Ok(None);
        };
        let filter = format!("doc == {doc} and span_start <= {at} and span_end > {at}");
        let rows = self.query("chunks", &filter, &["id", "span_start"])?;
        Ok(rows
            .iter()
            .min_by_key(|r| (int(r, "span_start"), int(r, "id")))
            .map(|r| int(r, "id")))
    }

    fn chunk_text(&self, chunk_id: &str) -> Result<Option<String>, StoreError> {
        let filter = format!("chunk_id == {}", client::quote(chunk_id));
        let rows = self.query("chunks", &filter, &["id", "text"])?;
        Ok(rows
            .iter()
            .min_by_key(|r| int(r, "id"))
            .map(|r| text(r, "text")))
    }

    fn document_text(&self, doc_id: &str) -> Result<Option<String>, StoreError> {
        let Some(doc) = self.document_by_id(doc_id)? else {
            return Ok(None);
        };
        let body = self.blob(doc.id, "text")?.unwrap_or_default();
        if sha256_hex(body.as_bytes()) != doc.content_hash {
            return Err(StoreError::Damaged {
                path: self.location.clone(),
                what: format!("document {} ({doc_id})", doc.source),
                reason:
                    "its stored text does not match its content hash (missing or changed parts)"
                        .into(),
            });
        }
        Ok(Some(body))
    }

    fn doc_ids_under(&self, roots: &[String]) -> Result<HashSet<String>, StoreError> {
        let rows = self.query("docs", "id >= 0", &["doc_id", "path"])?;
        Ok(rows
            .iter()
            .filter(|r| crate::store::under_roots(&text(r, "path"), roots))
            .map(|r| text(r, "doc_id"))
            .collect())
    }

    fn profile_json_of(&self, doc_id: &str) -> Result<Option<String>, StoreError> {
        let filter = format!("doc_id == {}", client::quote(doc_id));
        let rows = self.query("docs", &filter, &["source_meta"])?;
        Ok(rows.first().map(|r| text(r, "source_meta")))
    }

    fn layout_json_of(&self, doc_id: &str) -> Result<Option<String>, StoreError> {
        let Some(doc) = self.doc_row_of(doc_id)? else {
            return Ok(None);
        };
        Ok(Some(
            self.blob(doc, "layout")?.unwrap_or_else(|| "{}".into()),
        ))
    }

    fn layouts_json_of(&self, doc_ids: &[&str]) -> Result<HashMap<String, String>, StoreError> {
        if doc_ids.is_empty() {
            return Ok(HashMap::new());
        }
        let docs = self.query("docs", &str_list("doc_id", doc_ids), &["id", "doc_id"])?;
        let rows: Vec<i64> = docs.iter().map(|r| int(r, "id")).collect();
        let filter = format!("{} and kind == \"layout\"", int_list("doc", &rows));
        let mut parts = self.query("blobs", &filter, &["doc", "part", "data"])?;
        parts.sort_by_key(|r| (int(r, "doc"), int(r, "part")));
        let mut json: HashMap<i64, String> = HashMap::new();
        for r in &parts {
            json.entry(int(r, "doc"))
                .or_default()
                .push_str(&text(r, "data"));
        }
        Ok(docs
            .iter()
            .map(|r| {
                let layout = json.remove(&int(r, "id")).unwrap_or_else(|| "{}".into());
                (text(r, "doc_id"), layout)
            })
            .collect())
    }

    fn document_keys(&self) -> Result<HashMap<String, String>, StoreError> {
        let rows = self.query("docs", "id >= 0", &["doc_id", "doc_key"])?;
        Ok(rows
            .iter()
            .map(|r| (text(r, "doc_id"), text(r, "doc_key")))
            .collect())
    }

    fn searches_dense(&self) -> bool {
        true
    }

    fn dense_search(
        &self,
        query: &[f32],
        k: usize,
        ef: usize,
        docs: DocFilter<'_>,
    ) -> Result<Vec<(i64, f32)>, StoreError> {
        let filter = match docs {
            DocFilter::All => None,
            DocFilter::Within([]) => return Ok(Vec::new()),
            DocFilter::Within(d) => Some(int_list("doc", d)),
            DocFilter::Without([]) => None,
            DocFilter::Without(d) => Some(int_list("doc", d).replacen(" in [", " not in [", 1)),
        };
        if k == 0 {
            return Ok(Vec::new());
        }
        let name = self.name("chunks");
        self.conn
            .search_dense(&name, "vector", query, k, ef.max(k), filter.as_deref())
            .map_err(|e| self.fail(e))
    }

    fn settle(&self) -> Result<(), StoreError> {
        self.conn.flush_pending().map_err(|e| self.fail(e))
    }

    fn set_writer(&mut self, k: u64, n: u64) -> Result<(), StoreError> {
        if n == 0 || k >= n {
            return Err(self.fail(format!("shard {k}/{n} is not one of 0..{n}")));
        }
        self.writer = super::Writer { k, n };
        self.next_chunk = self.writer.first_at(self.max_next("chunk")?);
        self.next_doc = self.writer.first_at(self.max_next("doc")?);
        Ok(())
    }
}

/// Words in a space-joined word list.
/// The `vector` field of a row (empty when absent; a non-number element is left out,
/// which the length check then catches).
pub(super) fn vector_field(r: &Map<String, Value>) -> Vec<f32> {
    r.get("vector")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_f64)
                .map(|x| x as f32)
                .collect()
        })
        .unwrap_or_default()
}

fn word_count(s: &str) -> i64 {
    s.split(' ').filter(|w| !w.is_empty()).count() as i64
}

fn chunk_row(r: &Map<String, Value>, d: &StoredDoc) -> ChunkRow {
    ChunkRow {
        id: int(r, "id"),
        chunk_id: text(r, "chunk_id"),
        doc_id: d.doc_id.clone(),
        doc_key: d.key.clone(),
        source: d.source.clone(),
        title: d.title.clone(),
        span: Span {
            start: int(r, "span_start") as usize,
            end: int(r, "span_end") as usize,
        },
        lines: (int(r, "line_start") as usize, int(r, "line_end") as usize),
        text: text(r, "text"),
    }
}
