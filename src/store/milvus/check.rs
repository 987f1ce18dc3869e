//! [`Maintenance`] on Milvus: the integrity checks. The server keeps its own indexes
//! (BM25 and HNSW), so there is no lexical index to rebuild and no storage check to run.

use super::{int, text, MilvusStore};
use crate::store::check::chunk_fault;
use crate::store::{Maintenance, Problem, ProblemKind, Records, StoreError};

impl Maintenance for MilvusStore {
    /// Nothing: the span scan reads every chunk row from the server (minutes at a million
    /// chunks), so on Milvus it belongs to the deep check, which compares every span with
    /// its document's text.
    fn integrity_problems(&self) -> Result<Vec<String>, StoreError> {
        Ok(Vec::new())
    }

    fn storage_problems(&self) -> Result<Vec<String>, StoreError> {
        Ok(Vec::new())
    }

    fn deep_check(&self) -> Result<Vec<Problem>, StoreError> {
        let mut out = Vec::new();
        let mut after = 0;
        loop {
            let page = self.documents_page(after, 256)?;
            let Some(last) = page.last() else { break };
            after = last.id;
            for doc in &page {
                self.check_doc(doc, &mut out)?;
            }
        }
        Ok(out)
    }

    fn rebuild_fulltext(&self) -> Result<(), StoreError> {
        Ok(())
    }
}

impl MilvusStore {
    fn check_doc(
        &self,
        doc: &crate::store::StoredDoc,
        out: &mut Vec<Problem>,
    ) -> Result<(), StoreError> {
        let problem = |kind, chunk: Option<String>, detail: String| Problem {
            kind,
            source: Some(doc.source.clone()),
            doc_id: Some(doc.doc_id.clone()),
            chunk_id: chunk,
            detail,
            repair: "attest ingest --repair".into(),
            file: Some(doc.path.clone()),
            doc_row: Some(doc.id),
        };
        let body = match self.document_text(&doc.doc_id) {
            Ok(t) => t,
            Err(StoreError::Damaged { reason, .. }) => {
                out.push(problem(ProblemKind::ContentHash, None, reason));
                None
            }
            Err(e) => return Err(e),
        };
        if let Some(t) = &body {
            if let Err(StoreError::Damaged { reason, .. }) = self.document_layout(&doc.doc_id, t) {
                out.push(problem(ProblemKind::Layout, None, reason));
            }
        }
        let rows = self.query(
            "chunks",
            &format!("doc == {}", doc.id),
            &["chunk_id", "span_start", "span_end", "text"],
        )?;
        for r in &rows {
            let id = text(r, "chunk_id");
            let span = (int(r, "span_start"), int(r, "span_end"));
            if let Some((kind, detail)) = chunk_fault(
                body.as_deref(),
                &doc.content_hash,
                &id,
                span,
                text(r, "text").as_bytes(),
            ) {
                out.push(problem(kind, Some(id), detail));
            }
        }
        Ok(())
    }
}
