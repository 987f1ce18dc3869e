//! The deep check (`attest status --deep`): every stored vector, every document's text
//! against its content hash, every chunk span against its document, the FTS5 index
//! against the chunk table, and every stored file's bytes on disk against the sha256
//! recorded when it was read. Each problem names its document, chunk or file; `attest
//! ingest --repair` re-reads what is named.

use std::collections::BTreeSet;
use std::fmt;

use rusqlite::types::ValueRef;
use serde::Serialize;

use super::super::{chunk_id, sha256_hex, Maintenance, Records, StoreError};
use super::{lossy, SqliteStore};
use crate::models::NORM_TOLERANCE;

/// What is wrong with a stored vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VectorFault {
    /// The blob does not hold the recorded number of `f32`s.
    Length {
        /// Bytes stored.
        bytes: usize,
        /// Dimension recorded in the index.
        dim: usize,
    },
    /// Some component is NaN or infinite.
    NotFinite,
    /// Every component is zero.
    Zero,
    /// The vector is not unit length.
    NotUnit,
}

impl fmt::Display for VectorFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VectorFault::Length { bytes, dim } => write!(
                f,
                "its vector has {bytes} bytes, not {dim} dimensions ({} bytes)",
                dim * 4
            ),
            VectorFault::NotFinite => f.write_str("its vector holds NaN or infinite values"),
            VectorFault::Zero => f.write_str("its vector is all zeros"),
            VectorFault::NotUnit => f.write_str("its vector is not unit length"),
        }
    }
}

/// Check a stored vector blob against the recorded dimension (when known).
pub fn vector_fault(blob: &[u8], dim: Option<usize>) -> Option<VectorFault> {
    let len_ok = match dim {
        Some(d) => blob.len() == d * 4 && d > 0,
        None => blob.len().is_multiple_of(4) && !blob.is_empty(),
    };
    if !len_ok {
        return Some(VectorFault::Length {
            bytes: blob.len(),
            dim: dim.unwrap_or(0),
        });
    }
    let mut norm2 = 0.0f64;
    for c in blob.chunks_exact(4) {
        let x = f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        if !x.is_finite() {
            return Some(VectorFault::NotFinite);
        }
        norm2 += f64::from(x) * f64::from(x);
    }
    if norm2 == 0.0 {
        Some(VectorFault::Zero)
    } else if (norm2 - 1.0).abs() > f64::from(NORM_TOLERANCE) {
        Some(VectorFault::NotUnit)
    } else {
        None
    }
}

/// Kinds of damage the deep check finds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProblemKind {
    /// A vector of the wrong length.
    VectorLength,
    /// A vector with NaN or infinite values.
    VectorNotFinite,
    /// An all-zero vector.
    VectorZero,
    /// A vector that is not unit length.
    VectorNotUnit,
    /// A document text that is not UTF-8.
    TextNotUtf8,
    /// A document text that does not hash to its content hash.
    ContentHash,
    /// A chunk whose span is outside its document or not on character boundaries.
    ChunkSpan,
    /// A chunk whose text or id does not match its document span.
    ChunkText,
    /// The FTS5 index disagrees with the chunk table.
    Fulltext,
    /// A document's layout (pages, headings, labels) is not JSON or does not fit its text.
    Layout,
    /// A file's bytes on disk no longer hash to what was ingested (though its size and
    /// modification time may be unchanged, which the ingest's fast path trusts).
    FileChanged,
}

impl From<VectorFault> for ProblemKind {
    fn from(f: VectorFault) -> Self {
        match f {
            VectorFault::Length { .. } => ProblemKind::VectorLength,
            VectorFault::NotFinite => ProblemKind::VectorNotFinite,
            VectorFault::Zero => ProblemKind::VectorZero,
            VectorFault::NotUnit => ProblemKind::VectorNotUnit,
        }
    }
}

/// One problem found by the deep check.
#[derive(Debug, Clone, Serialize)]
pub struct Problem {
    /// What kind of damage.
    pub kind: ProblemKind,
    /// Source of the document concerned (as shown to users), if any.
    pub source: Option<String>,
    /// Document id, if any.
    pub doc_id: Option<String>,
    /// Chunk id, if the problem is one chunk's.
    pub chunk_id: Option<String>,
    /// What is wrong, in words.
    pub detail: String,
    /// The command that repairs it.
    pub repair: String,
    /// Store key of the file to re-read (internal).
    #[serde(skip)]
    pub(crate) file: Option<String>,
    /// Document row to replace (internal).
    #[serde(skip)]
    pub(crate) doc_row: Option<i64>,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.chunk_id, &self.source, &self.doc_id) {
            (Some(c), Some(s), _) => write!(f, "chunk {c} of {s}: ")?,
            (None, Some(s), Some(d)) => write!(f, "document {s} ({d}): ")?,
            (None, Some(s), None) => write!(f, "file {s}: ")?,
            _ => {}
        }
        write!(f, "{} (repair: {})", self.detail, self.repair)
    }
}

const REPAIR: &str = "attest ingest --repair";

/// A document row as the deep check reads it (bytes, since the text may be damaged).
struct DocRow {
    row: i64,
    doc_id: String,
    file: String,
    source: String,
    content_hash: String,
    text: Vec<u8>,
}

impl Maintenance for SqliteStore {
    fn deep_check(&self) -> Result<Vec<Problem>, StoreError> {
        let dim = self.dimension()?;
        let mut problems = Vec::new();
        let mut st = self
            .conn
            .prepare(
                "SELECT id, CAST(doc_id AS BLOB), CAST(path AS BLOB), CAST(source AS BLOB), \
                 CAST(content_hash AS BLOB), CAST(text AS BLOB) FROM documents ORDER BY id",
            )
            .map_err(|e| self.err(e))?;
        let mut rows = st.query([]).map_err(|e| self.err(e))?;
        while let Some(r) = rows.next().map_err(|e| self.err(e))? {
            let get = |i| r.get_ref(i).map_err(|e| self.err(e));
            let doc = DocRow {
                row: r.get(0).map_err(|e| self.err(e))?,
                doc_id: lossy(get(1)?),
                file: lossy(get(2)?),
                source: lossy(get(3)?),
                content_hash: lossy(get(4)?),
                text: get(5)?.as_bytes().unwrap_or_default().to_vec(),
            };
            self.check_document(&doc, dim, &mut problems)?;
        }
        self.check_files(&mut problems)?;
        if let Some(detail) = self.fulltext_problem()? {
            problems.push(Problem {
                kind: ProblemKind::Fulltext,
                source: None,
                doc_id: None,
                chunk_id: None,
                detail,
                repair: REPAIR.into(),
                file: None,
                doc_row: None,
            });
        }
        Ok(problems)
    }

    fn rebuild_fulltext(&self) -> Result<(), StoreError> {
        self.conn
            .execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild')", [])
            .map(|_| ())
            .map_err(|e| self.err(e))
    }
    fn storage_problems(&self) -> Result<Vec<String>, StoreError> {
        let ok: String = self
            .conn
            .query_row("PRAGMA quick_check", [], |r| r.get(0))
            .map_err(|e| self.err(e))?;
        Ok(if ok == "ok" {
            Vec::new()
        } else {
            vec![format!("sqlite quick_check: {ok}")]
        })
    }

    fn integrity_problems(&self) -> Result<Vec<String>, StoreError> {
        let mut problems = Vec::new();
        let bad: i64 = self
            .conn
            .query_row(
                "SELECT COUNT(*) FROM chunks c JOIN documents d ON d.id = c.doc \
                 WHERE c.end > length(CAST(d.text AS BLOB)) OR c.start >= c.end",
                [],
                |r| r.get(0),
            )
            .map_err(|e| self.err(e))?;
        if bad > 0 {
            problems.push(format!("{bad} chunk span(s) outside their document"));
        }
        if let Some(dim) = self.dimension()? {
            let wrong: i64 = self
                .conn
                .query_row(
                    "SELECT COUNT(*) FROM chunks WHERE length(vector) != ?1",
                    [dim as i64 * 4],
                    |r| r.get(0),
                )
                .map_err(|e| self.err(e))?;
            if wrong > 0 {
                problems.push(format!(
                    "{wrong} chunk vector(s) of the wrong length (`attest status --deep` names them; `attest ingest --repair` rewrites them)"
                ));
            }
        }
        Ok(problems)
    }
}

impl SqliteStore {
    fn check_document(
        &self,
        doc: &DocRow,
        dim: Option<usize>,
        out: &mut Vec<Problem>,
    ) -> Result<(), StoreError> {
        let problem = |kind, chunk: Option<&str>, detail: String| Problem {
            kind,
            source: Some(doc.source.clone()),
            doc_id: Some(doc.doc_id.clone()),
            chunk_id: chunk.map(str::to_string),
            detail,
            repair: REPAIR.into(),
            file: Some(doc.file.clone()),
            doc_row: Some(doc.row),
        };
        let text = match std::str::from_utf8(&doc.text) {
            Ok(t) => Some(t),
            Err(e) => {
                out.push(problem(
                    ProblemKind::TextNotUtf8,
                    None,
                    format!("stored text is not UTF-8 ({e})"),
                ));
                None
            }
        };
        if let Some(t) = text {
            if let Err(StoreError::Damaged { reason, .. }) = self.document_layout(&doc.doc_id, t) {
                out.push(problem(ProblemKind::Layout, None, reason));
            }
        }
        if sha256_hex(&doc.text) != doc.content_hash {
            out.push(problem(
                ProblemKind::ContentHash,
                None,
                "stored text does not match its content hash".into(),
            ));
        }
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT CAST(chunk_id AS BLOB), start, end, CAST(text AS BLOB), vector FROM chunks WHERE doc = ?1 ORDER BY id",
            )
            .map_err(|e| self.err(e))?;
        let mut rows = st.query([doc.row]).map_err(|e| self.err(e))?;
        while let Some(r) = rows.next().map_err(|e| self.err(e))? {
            let get = |i| r.get_ref(i).map_err(|e| self.err(e));
            let id = lossy(get(0)?);
            let span = (
                get(1)?.as_i64().unwrap_or(-1),
                get(2)?.as_i64().unwrap_or(-1),
            );
            let chunk_text = get(3)?.as_bytes().unwrap_or_default();
            if let Some(fault) = blob_fault(get(4)?, dim) {
                out.push(problem(fault.into(), Some(&id), fault.to_string()));
            }
            if let Some((kind, detail)) =
                chunk_fault(text, &doc.content_hash, &id, span, chunk_text)
            {
                out.push(problem(kind, Some(&id), detail));
            }
        }
        Ok(())
    }

    /// Every stored file that is still a regular file whose bytes no longer hash to the
    /// recorded sha256 (files recorded without one, gone or unreadable are left to the
    /// ingest, which reports them).
    fn check_files(&self, out: &mut Vec<Problem>) -> Result<(), StoreError> {
        let mut st = self
            .conn
            .prepare(
                "SELECT f.path, f.file_hash, (SELECT source FROM documents d WHERE d.path = f.path \
                 ORDER BY d.id LIMIT 1) FROM files f WHERE f.file_hash != '' ORDER BY f.path",
            )
            .map_err(|e| self.err(e))?;
        let rows = st
            .query_map([], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get::<_, Option<String>>(2)?))
            })
            .map_err(|e| self.err(e))?
            .collect::<Result<Vec<(String, String, Option<String>)>, _>>()
            .map_err(|e| self.err(e))?;
        for (key, recorded, source) in rows {
            let path = super::super::key_path(&key);
            let Ok(now) = crate::corpus::load::file_sha256(&path) else {
                continue;
            };
            if now != recorded {
                out.push(Problem {
                    kind: ProblemKind::FileChanged,
                    source: Some(source.unwrap_or_else(|| path.display().to_string())),
                    doc_id: None,
                    chunk_id: None,
                    detail: format!(
                        "changed on disk since it was ingested (sha256 {}… now, {}… stored), \
                         though its size and modification time may be the same",
                        &now[..12],
                        recorded.chars().take(12).collect::<String>()
                    ),
                    repair: REPAIR.into(),
                    file: Some(key),
                    doc_row: None,
                });
            }
        }
        Ok(())
    }

    /// The FTS5 integrity check against the chunk table, as a problem description.
    fn fulltext_problem(&self) -> Result<Option<String>, StoreError> {
        let checked = self.conn.execute(
            "INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('integrity-check', 1)",
            [],
        );
        match checked {
            Ok(_) => Ok(None),
            Err(e) if self.read_only => {
                tracing::warn!(
                    "index is read-only: the full-text integrity check cannot run ({e})"
                );
                Ok(None)
            }
            Err(e) if e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseCorrupt) => {
                Ok(Some(format!(
                    "the full-text index disagrees with the chunk table ({e})"
                )))
            }
            Err(e) => Err(self.err(e)),
        }
    }
}

/// The fault of a vector column value, if any.
fn blob_fault(v: ValueRef<'_>, dim: Option<usize>) -> Option<VectorFault> {
    match v.as_blob() {
        Ok(b) => vector_fault(b, dim),
        Err(_) => Some(VectorFault::Length {
            bytes: 0,
            dim: dim.unwrap_or(0),
        }),
    }
}

/// What is wrong with a chunk's span, text or id against its document, if anything.
pub(crate) fn chunk_fault(
    text: Option<&str>,
    content_hash: &str,
    id: &str,
    (start, end): (i64, i64),
    chunk_text: &[u8],
) -> Option<(ProblemKind, String)> {
    let text = text?;
    let span = match (usize::try_from(start), usize::try_from(end)) {
        (Ok(s), Ok(e)) if s < e => s..e,
        _ => {
            return Some((
                ProblemKind::ChunkSpan,
                format!("span {start}..{end} is empty or negative"),
            ))
        }
    };
    let Some(body) = text.get(span.clone()) else {
        return Some((
            ProblemKind::ChunkSpan,
            format!(
                "span {start}..{end} is outside its document ({} bytes) or splits a character",
                text.len()
            ),
        ));
    };
    if body.as_bytes() != chunk_text {
        return Some((
            ProblemKind::ChunkText,
            format!("chunk text differs from its document span {start}..{end}"),
        ));
    }
    let expected = chunk_id(
        content_hash,
        crate::corpus::Span {
            start: span.start,
            end: span.end,
        },
    );
    (expected != id).then(|| {
        (
            ProblemKind::ChunkText,
            format!("chunk id does not derive from its span {start}..{end}"),
        )
    })
}

/// Files and document rows that a repair must re-read, from the problems found.
pub(crate) fn repair_targets(problems: &[Problem]) -> (BTreeSet<String>, BTreeSet<i64>) {
    let files = problems.iter().filter_map(|p| p.file.clone()).collect();
    let docs = problems.iter().filter_map(|p| p.doc_row).collect();
    (files, docs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blob(v: &[f32]) -> Vec<u8> {
        super::super::vector_to_blob(v)
    }

    #[test]
    fn vector_faults_are_named() {
        let unit = [0.6f32, 0.8];
        assert_eq!(vector_fault(&blob(&unit), Some(2)), None);
        assert!(matches!(
            vector_fault(&blob(&unit[..1]), Some(2)),
            Some(VectorFault::Length { bytes: 4, dim: 2 })
        ));
        assert_eq!(
            vector_fault(&blob(&[f32::NAN, 1.0]), Some(2)),
            Some(VectorFault::NotFinite)
        );
        assert_eq!(
            vector_fault(&blob(&[0.0, 0.0]), Some(2)),
            Some(VectorFault::Zero)
        );
        assert_eq!(
            vector_fault(&blob(&[3.0, 4.0]), Some(2)),
            Some(VectorFault::NotUnit)
        );
        assert!(vector_fault(&[1, 2, 3], None).is_some());
    }

    #[test]
    fn chunk_faults_cover_spans_text_and_ids() {
        let text = "héllo world";
        let hash = sha256_hex(text.as_bytes());
        let id = chunk_id(&hash, crate::corpus::Span { start: 0, end: 5 });
        let ok = chunk_fault(Some(text), &hash, &id, (0, 5), b"h\xc3\xa9ll");
        assert_eq!(ok, None);
        let kind = |r: Option<(ProblemKind, String)>| r.map(|x| x.0);
        assert_eq!(
            kind(chunk_fault(Some(text), &hash, &id, (0, 99), b"")),
            Some(ProblemKind::ChunkSpan)
        );
        assert_eq!(
            kind(chunk_fault(Some(text), &hash, &id, (0, 2), b"h")),
            Some(ProblemKind::ChunkSpan),
            "splits a character"
        );
        assert_eq!(
            kind(chunk_fault(Some(text), &hash, &id, (0, 5), b"hello")),
            Some(ProblemKind::ChunkText)
        );
        assert_eq!(
            kind(chunk_fault(
                Some(text),
                &hash,
                "other",
                (0, 5),
                b"h\xc3\xa9ll"
            )),
            Some(ProblemKind::ChunkText)
        );
    }
}
