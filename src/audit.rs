//! The audit trail: `attest ask --audit FILE` writes a run's full lineage as JSON (the
//! answer JSON plus the index, model and corpus version, every retrieved chunk with its
//! scores, every candidate with its relevance and verdict, unused items and timings);
//! `attest validate --audit FILE` replays it against the current store and reports drift.
//!
//! Drift kinds: `document_missing` (the document is no longer indexed), `quote_changed`
//! (the span no longer holds the quote), and `document_changed` (the document's content
//! hash differs but the quote still stands at its span: reported, not a failure). The
//! recorded answer is checked again too: the Evidence Gate on its text, its sentences
//! against the text, and every sentence that is not verbatim against what it cites
//! (figures, negation, support), so an edited answer fails. An audit whose corpus
//! version is newer than the index's is refused.

use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use std::collections::{HashMap, HashSet};

use crate::answer::Run;
use crate::engine::Engine;
use crate::error::Error;
use crate::evidence::gate::{
    check_external, citations, GateConfig, GateResult, Severity, Violation, ViolationKind,
};
use crate::store::{QuoteAt, Store};

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
    /// The Evidence Gate on the recorded answer text against its evidence (answered
    /// runs only): a forged or edited answer fails here.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gate: Option<GateResult>,
    /// Sentences that contradict or are not supported by what they cite, and recorded
    /// sentences that are not the answer's.
    pub violations: Vec<Violation>,
    /// Whether every cited quote still stands and the answer passes its checks.
    pub passed: bool,
    /// The recorded answer text (for the caller's support check).
    #[serde(skip)]
    pub answer: String,
    /// Evidence id → quote (for the caller's support check).
    #[serde(skip)]
    pub quotes: HashMap<String, Option<String>>,
}

impl Replay {
    /// Add support-check violations and recompute `passed`.
    pub fn add_violations(&mut self, v: Vec<Violation>) {
        self.violations.extend(v);
        self.passed = self.passed
            && self
                .violations
                .iter()
                .all(|v| v.severity != Severity::Error);
    }
}

/// The answer's own checks: the gate on its text, recorded sentences that are the
/// answer's and cite what they say, and the model-free claim checks.
fn check_answer(
    v: &Value,
    quotes: &HashMap<String, Option<String>>,
) -> (Option<GateResult>, Vec<Violation>) {
    let text = v.get("answer").and_then(Value::as_str).unwrap_or_default();
    let answered = v.get("status").and_then(Value::as_str) == Some("answered");
    let mut out = Vec::new();
    let sentences = v
        .get("sentences")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for (i, s) in sentences.iter().enumerate() {
        let st = s.get("text").and_then(Value::as_str).unwrap_or_default();
        let listed: Vec<&str> = s
            .get("citations")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let parsed: Vec<String> = citations(st).into_iter().map(|c| c.id).collect();
        if st.is_empty() || !text.contains(st) || parsed != listed {
            out.push(Violation {
                kind: ViolationKind::SentenceMismatch,
                paragraph: None,
                sentence: Some(st.to_string()),
                message: format!(
                    "recorded sentence {} is not a sentence of the answer citing what it lists",
                    i + 1
                ),
                severity: Severity::Error,
            });
        }
    }
    out.extend(crate::evidence::support::check_claims(text, quotes));
    let gate = answered.then(|| {
        let ids: HashSet<String> = quotes.keys().cloned().collect();
        check_external(text, &ids, &GateConfig::default())
    });
    (gate, out)
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

/// The places an item states its quote: its own span and each of its `locations`, as
/// (document id, start, end, content hash).
fn places(
    item: &Value,
    path: &Path,
    what: &str,
) -> Result<Vec<(String, usize, usize, String)>, Error> {
    let place = |v: &Value, what: &str| -> Result<_, Error> {
        Ok((
            string(v, "doc_id", path, what)?,
            number(v, "start", path, what)? as usize,
            number(v, "end", path, what)? as usize,
            string(v, "content_hash", path, what)?,
        ))
    };
    let mut out = vec![place(item, what)?];
    let locations = item.get("locations").and_then(Value::as_array);
    for (j, l) in locations.into_iter().flatten().enumerate() {
        out.push(place(l, &format!("{what}, location {}", j + 1))?);
    }
    Ok(out)
}

/// Drift of one evidence item: every place must still hold its quote.
fn check_item(store: &Store, item: &Value, path: &Path, what: &str) -> Result<Vec<Drift>, Error> {
    let quote = string(item, "quote", path, what)?;
    let d = |kind: &str, message: String| -> Result<Drift, Error> {
        Ok(Drift {
            id: string(item, "id", path, what)?,
            evidence_key: string(item, "evidence_key", path, what)?,
            source: string(item, "source", path, what)?,
            kind: kind.into(),
            message,
        })
    };
    let mut out = Vec::new();
    let mut quotes = crate::store::QuoteChecker::new(store);
    for (doc_id, start, end, hash) in places(item, path, what)? {
        match quotes.check(&doc_id, start, end, &quote, Some(&hash))? {
            QuoteAt::DocumentMissing => out.push(d(
                "document_missing",
                format!("document {doc_id} is no longer in the index"),
            )?),
            QuoteAt::QuoteChanged => out.push(d(
                "quote_changed",
                format!("bytes {start}..{end} of {doc_id} no longer hold the quote"),
            )?),
            QuoteAt::DocumentChanged => out.push(d(
                "document_changed",
                "the document changed; the quote still stands at its span".into(),
            )?),
            QuoteAt::Holds => {}
        }
    }
    Ok(out)
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
    let now = store.corpus_version()?;
    if then > now {
        return Err(bad(
            path,
            format!("corpus_version {then} is newer than this index's ({now}): the audit does not come from this index"),
        ));
    }
    let items = field(&v, "evidence", path, "the audit")?
        .as_array()
        .ok_or_else(|| bad(path, "\"evidence\" is not an array"))?;
    let mut drift = Vec::new();
    let mut intact = 0;
    let mut quotes = HashMap::new();
    for (i, item) in items.iter().enumerate() {
        let what = format!("evidence item {}", i + 1);
        for name in ["id", "evidence_key", "doc_id", "source", "quote"] {
            string(item, name, path, &what)?;
        }
        let id = string(item, "id", path, &what)?;
        quotes.insert(id, Some(string(item, "quote", path, &what)?));
        let found = check_item(store, item, path, &what)?;
        intact += usize::from(!found.iter().any(|d| d.kind != "document_changed"));
        drift.extend(found);
    }
    let (gate, violations) = check_answer(&v, &quotes);
    let passed = intact == items.len()
        && gate.as_ref().is_none_or(|g| g.passed)
        && violations.iter().all(|v| v.severity != Severity::Error);
    Ok(Replay {
        audit: path.display().to_string(),
        question,
        status,
        corpus_version_then: then,
        corpus_version_now: now,
        checked: items.len(),
        intact,
        passed,
        drift,
        gate,
        violations,
        answer: v
            .get("answer")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        quotes,
    })
}
