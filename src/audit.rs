//! The audit trail: `attest ask --audit FILE` writes a run's full lineage as JSON (the
//! answer JSON plus the index, model and corpus version, every retrieved chunk with its
//! scores, every candidate with its relevance and verdict, unused items and timings);
//! `attest validate --audit FILE` replays it against the current store and reports drift.
//!
//! Drift kinds: `document_missing` (the document is no longer indexed), `quote_changed`
//! (the span no longer holds the quote), and `document_changed` (the document's content
//! hash differs but the quote still stands at its span: reported, not a failure).

use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use crate::ask::Run;
use crate::engine::Engine;
use crate::error::Error;
use crate::store::{sha256_hex, Store};

/// Version of the audit file format.
pub const AUDIT_VERSION: u64 = 1;

/// What an audit file holds around the run.
#[derive(Serialize)]
struct Record<'a> {
    audit_version: u64,
    created_unix: u64,
    index: String,
    model: String,
    corpus_version: u64,
    #[serde(flatten)]
    run: &'a Run,
}

fn bad(path: &Path, msg: impl std::fmt::Display) -> Error {
    Error::Usage(format!("{}: {msg}", path.display()))
}

/// Write `run`'s audit trail to `path` with [`crate::outfile::write_atomic`]: through a
/// temporary file (a crash never leaves half a file), through symbolic links, and never
/// over a directory, device, FIFO or socket.
pub fn write(path: &Path, engine: &Engine, run: &Run) -> Result<(), Error> {
    let rec = Record {
        audit_version: AUDIT_VERSION,
        created_unix: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
        index: engine.dir().display().to_string(),
        model: engine.store().model_id()?.unwrap_or_default(),
        corpus_version: engine.store().corpus_version()?,
        run,
    };
    let json = serde_json::to_vec_pretty(&rec).map_err(|e| bad(path, e))?;
    crate::outfile::write_atomic(path, &json)?;
    Ok(())
}

/// One quote that no longer stands as recorded.
#[derive(Debug, Clone, Serialize)]
pub struct Drift {
    /// Run-local id in the audit.
    pub id: String,
    /// Stable evidence key.
    pub evidence_key: String,
    /// Source path.
    pub source: String,
    /// `document_missing`, `quote_changed` or `document_changed`.
    pub kind: String,
    /// What differs.
    pub message: String,
}

/// The replay report.
#[derive(Debug, Clone, Serialize)]
pub struct Replay {
    /// Audit file.
    pub audit: String,
    /// Question of the audited run.
    pub question: String,
    /// Status recorded.
    pub status: String,
    /// Corpus version when the run was recorded.
    pub corpus_version_then: u64,
    /// Corpus version now.
    pub corpus_version_now: u64,
    /// Cited quotes re-checked.
    pub checked: usize,
    /// Quotes still verbatim at their spans.
    pub intact: usize,
    /// Quotes that drifted (and documents that changed around intact quotes).
    pub drift: Vec<Drift>,
    /// Whether every cited quote still stands.
    pub passed: bool,
}

fn field<'a>(item: &'a Value, name: &str, path: &Path, what: &str) -> Result<&'a Value, Error> {
    item.get(name)
        .ok_or_else(|| bad(path, format!("{what} has no \"{name}\"")))
}

fn string(item: &Value, name: &str, path: &Path, what: &str) -> Result<String, Error> {
    field(item, name, path, what)?
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| bad(path, format!("{what}: \"{name}\" is not a string")))
}

fn number(item: &Value, name: &str, path: &Path, what: &str) -> Result<u64, Error> {
    field(item, name, path, what)?.as_u64().ok_or_else(|| {
        bad(
            path,
            format!("{what}: \"{name}\" is not a non-negative integer"),
        )
    })
}

/// Re-check every cited quote of the audit at `path` against `store`.
pub fn replay(store: &Store, path: &Path) -> Result<Replay, Error> {
    let text = std::fs::read_to_string(path).map_err(|e| bad(path, e))?;
    let v: Value =
        serde_json::from_str(&text).map_err(|e| bad(path, format!("not valid JSON ({e})")))?;
    if !v.is_object() {
        return Err(bad(path, "expected an audit object (attest ask --audit)"));
    }
    let version = number(&v, "audit_version", path, "the audit")?;
    if version != AUDIT_VERSION {
        return Err(bad(
            path,
            format!("audit_version {version} is not supported (expected {AUDIT_VERSION})"),
        ));
    }
    let question = string(&v, "question", path, "the audit")?;
    let status = string(&v, "status", path, "the audit")?;
    let then = number(&v, "corpus_version", path, "the audit")?;
    let items = field(&v, "evidence", path, "the audit")?
        .as_array()
        .ok_or_else(|| bad(path, "\"evidence\" is not an array"))?;
    let mut drift = Vec::new();
    let mut intact = 0;
    for (i, item) in items.iter().enumerate() {
        let what = format!("evidence item {}", i + 1);
        let id = string(item, "id", path, &what)?;
        let key = string(item, "evidence_key", path, &what)?;
        let doc_id = string(item, "doc_id", path, &what)?;
        let source = string(item, "source", path, &what)?;
        let quote = string(item, "quote", path, &what)?;
        let start = number(item, "start", path, &what)? as usize;
        let end = number(item, "end", path, &what)? as usize;
        let hash = string(item, "content_hash", path, &what)?;
        let d = |kind: &str, message: String| Drift {
            id: id.clone(),
            evidence_key: key.clone(),
            source: source.clone(),
            kind: kind.into(),
            message,
        };
        match store.document_text(&doc_id)? {
            None => drift.push(d(
                "document_missing",
                format!("document {doc_id} is no longer in the index"),
            )),
            Some(t) if t.get(start..end) != Some(quote.as_str()) => drift.push(d(
                "quote_changed",
                format!("bytes {start}..{end} no longer hold the quote"),
            )),
            Some(t) => {
                intact += 1;
                if sha256_hex(t.as_bytes()) != hash {
                    drift.push(d(
                        "document_changed",
                        "the document changed; the quote still stands at its span".into(),
                    ));
                }
            }
        }
    }
    Ok(Replay {
        audit: path.display().to_string(),
        question,
        status,
        corpus_version_then: then,
        corpus_version_now: store.corpus_version()?,
        checked: items.len(),
        intact,
        passed: intact == items.len(),
        drift,
    })
}
