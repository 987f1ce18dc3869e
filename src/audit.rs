//! The audit trail: `attest ask --audit FILE` writes a run's full lineage as JSON (the
//! answer JSON plus the index, model and corpus version, every retrieved chunk with its
//! scores, every candidate with its relevance and verdict, unused items and timings);
//! `attest validate --audit FILE` replays it against the current store and reports drift.
//!
//! Drift kinds: `document_missing` (the document is no longer indexed), `quote_changed`
//! (the span no longer holds the quote), `label_mismatch` (a label the audit shows —
//! source, title, section, page, source type, file span… — is not the one the index
//! gives the quote, see [`labels`]), and, reported but not failures, `document_changed`
//! (the document's content hash differs but the quote still stands at its span) and
//! `file_changed` (the file on disk is no longer the bytes that were ingested, so its
//! file span may not hold the quote). The recorded answer is checked again too, whatever
//! its status: the Evidence Gate on its text, its sentences against the text, and every
//! sentence that is not verbatim against what it cites (figures, negation, support), so
//! an edited answer fails; a run that did not answer states nothing. An audit whose
//! corpus version is newer than the index's is refused.

mod labels;

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use std::collections::{HashMap, HashSet};

use crate::answer::{EvidenceItem, Run, Status};
use crate::engine::Engine;
use crate::error::Error;
use crate::evidence::gate::{
    check_external, citations, GateConfig, GateResult, Severity, Violation, ViolationKind,
};
use crate::source::SourceRule;
use crate::store::{QuoteAt, QuoteChecker, Store};

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

/// How a recorded quote drifted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DriftKind {
    /// The document is no longer indexed.
    DocumentMissing,
    /// The span no longer holds the quote.
    QuoteChanged,
    /// The document changed but the quote still stands at its span (not a failure).
    DocumentChanged,
    /// A label the audit shows is not the one the index gives the quote.
    LabelMismatch,
    /// The file on disk is no longer the bytes that were ingested: its file span may not
    /// hold the quote (not a failure: the index still does).
    FileChanged,
}

impl DriftKind {
    /// The name, as the JSON spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            DriftKind::DocumentMissing => "document_missing",
            DriftKind::QuoteChanged => "quote_changed",
            DriftKind::DocumentChanged => "document_changed",
            DriftKind::LabelMismatch => "label_mismatch",
            DriftKind::FileChanged => "file_changed",
        }
    }

    /// Whether it fails the replay.
    pub fn fails(self) -> bool {
        !matches!(self, DriftKind::DocumentChanged | DriftKind::FileChanged)
    }
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
    /// What drifted.
    pub kind: DriftKind,
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

/// The part of an audit file the replay reads (the rest is for people).
#[derive(Deserialize)]
struct AuditFile {
    question: String,
    status: Status,
    corpus_version: u64,
    evidence: Vec<EvidenceItem>,
    #[serde(default)]
    answer: String,
    #[serde(default)]
    sentences: Vec<AuditSentence>,
    /// The answer's value, when it records one.
    #[serde(default)]
    answer_value: Option<Value>,
    /// The evidence items as written (labels are compared as recorded).
    #[serde(skip)]
    recorded: Vec<Value>,
}

/// A recorded sentence of the answer.
#[derive(Deserialize)]
struct AuditSentence {
    text: String,
    citations: Vec<String>,
}

/// The answer's own checks: the gate on its text, recorded sentences that are the
/// answer's and cite what they say, and the model-free claim checks.
fn check_answer(
    a: &AuditFile,
    quotes: &HashMap<String, Option<String>>,
) -> (Option<GateResult>, Vec<Violation>) {
    let text = a.answer.as_str();
    let mut out = Vec::new();
    for (i, s) in a.sentences.iter().enumerate() {
        let st = s.text.as_str();
        let parsed: Vec<String> = citations(st).into_iter().map(|c| c.id).collect();
        if st.is_empty() || !text.contains(st) || parsed != s.citations {
            out.push(Violation::error(
                ViolationKind::SentenceMismatch,
                None,
                Some(st.to_string()),
                format!(
                    "recorded sentence {} is not a sentence of the answer citing what it lists",
                    i + 1
                ),
            ));
        }
    }
    out.extend(crate::evidence::support::check_claims(text, quotes));
    out.extend(check_status(a));
    // Every status is gated: text recorded under any status goes through the gate.
    let gate = (a.status == Status::Answered || !text.trim().is_empty()).then(|| {
        let ids: HashSet<String> = quotes.keys().cloned().collect();
        check_external(text, &ids, &GateConfig::default())
    });
    (gate, out)
}

/// A run that did not answer (no authoritative evidence, a rejected question) states
/// nothing: answer text, recorded sentences, cited evidence or an answer value under such
/// a status is a violation. A stated absence cites what it states but names no value.
fn check_status(a: &AuditFile) -> Option<Violation> {
    if a.status == Status::Answered {
        return None;
    }
    let quiet = a.status != Status::StatedAbsent;
    let states: Vec<&str> = [
        (quiet && !a.answer.trim().is_empty(), "answer text"),
        (quiet && !a.sentences.is_empty(), "sentences"),
        (quiet && !a.evidence.is_empty(), "evidence"),
        (
            a.answer_value.as_ref().is_some_and(|v| !v.is_null()),
            "an answer value",
        ),
    ]
    .into_iter()
    .filter_map(|(has, what)| has.then_some(what))
    .collect();
    (!states.is_empty()).then(|| {
        Violation::error(
            ViolationKind::StatusMismatch,
            None,
            None,
            format!(
                "a {} run {}, but the audit records {}",
                a.status.as_str(),
                if quiet {
                    "states nothing"
                } else {
                    "names no value"
                },
                states.join(", ")
            ),
        )
    })
}

/// Drift of one evidence item (recorded as `recorded`): every place must still hold its
/// quote, with the labels the index gives it, in the file that was ingested.
fn check_item(
    quotes: &mut QuoteChecker,
    docs: &mut labels::Documents,
    item: &EvidenceItem,
    recorded: &Value,
) -> Result<Vec<Drift>, Error> {
    let d = |kind: DriftKind, message: String| Drift {
        id: item.id.clone(),
        evidence_key: item.evidence_key.clone(),
        source: item.source.clone(),
        kind,
        message,
    };
    let mut out = Vec::new();
    let places = std::iter::once((
        item.doc_id.as_str(),
        item.start,
        item.end,
        &item.content_hash,
    ))
    .chain(
        item.locations
            .iter()
            .map(|l| (l.doc_id.as_str(), l.start, l.end, &l.content_hash)),
    );
    for (k, (doc_id, start, end, hash)) in places.enumerate() {
        let at = quotes.check(doc_id, start, end, &item.quote, Some(hash))?;
        match at {
            QuoteAt::DocumentMissing => out.push(d(
                DriftKind::DocumentMissing,
                format!("document {doc_id} is no longer in the index"),
            )),
            QuoteAt::QuoteChanged => out.push(d(
                DriftKind::QuoteChanged,
                format!("bytes {start}..{end} of {doc_id} no longer hold the quote"),
            )),
            QuoteAt::DocumentChanged => out.push(d(
                DriftKind::DocumentChanged,
                "the document changed; the quote still stands at its span".into(),
            )),
            QuoteAt::Holds => {}
        }
        if !at.stands() {
            continue;
        }
        let differences = match k.checked_sub(1) {
            None => docs.item_differences(item, recorded),
            Some(i) => {
                let r = &recorded["locations"][i];
                docs.location_differences(&item.locations[i], r)
            }
        };
        for m in differences {
            out.push(d(DriftKind::LabelMismatch, format!("{doc_id}: {m}")));
        }
        let spanned = if k == 0 {
            item.file.span()
        } else {
            item.locations[k - 1].file.span()
        };
        if let Some(why) = spanned.and_then(|_| docs.file_changed(doc_id)) {
            out.push(d(DriftKind::FileChanged, why));
        }
    }
    Ok(out)
}

/// Read the audit file at `path`: its version first (a file of another version is
/// refused before anything else is read), then the fields the replay needs; an error
/// names the file and the field.
fn read(path: &Path) -> Result<AuditFile, Error> {
    #[derive(Deserialize)]
    struct Versioned {
        audit_version: u64,
    }
    let text = std::fs::read_to_string(path).map_err(|e| bad(path, e))?;
    let v: Value =
        serde_json::from_str(&text).map_err(|e| bad(path, format!("not valid JSON ({e})")))?;
    if !v.is_object() {
        return Err(bad(path, "expected an audit object (attest ask --audit)"));
    }
    let field_error = |e: serde_path_to_error::Error<serde_json::Error>| {
        bad(path, format!("{}: {}", e.path(), e.inner()))
    };
    let version = serde_path_to_error::deserialize::<_, Versioned>(&v)
        .map_err(field_error)?
        .audit_version;
    if version != AUDIT_VERSION {
        return Err(bad(
            path,
            format!("audit_version {version} is not supported (expected {AUDIT_VERSION})"),
        ));
    }
    let mut a: AuditFile = serde_path_to_error::deserialize(&v).map_err(field_error)?;
    a.recorded = match v.get("evidence") {
        Some(Value::Array(items)) => items.clone(),
        _ => Vec::new(),
    };
    Ok(a)
}

/// Re-check every cited quote of the audit at `path` against `store`, and every label
/// it shows (source types under the `[[sources]]` rules `rules`).
pub fn replay(store: &Store, rules: &[SourceRule], path: &Path) -> Result<Replay, Error> {
    let a = read(path)?;
    let (then, now) = (a.corpus_version, store.corpus_version()?);
    if then > now {
        return Err(bad(
            path,
            format!("corpus_version {then} is newer than this index's ({now}): the audit does not come from this index"),
        ));
    }
    let mut drift = Vec::new();
    let mut intact = 0;
    let mut checker = QuoteChecker::new(store);
    let mut docs = labels::Documents::load(store, rules, &a.evidence)?;
    for (item, recorded) in a.evidence.iter().zip(&a.recorded) {
        let found = check_item(&mut checker, &mut docs, item, recorded)?;
        intact += usize::from(!found.iter().any(|d| d.kind.fails()));
        drift.extend(found);
    }
    let quotes: HashMap<String, Option<String>> = a
        .evidence
        .iter()
        .map(|e| (e.id.clone(), Some(e.quote.clone())))
        .collect();
    let (gate, violations) = check_answer(&a, &quotes);
    let passed = intact == a.evidence.len()
        && gate.as_ref().is_none_or(|g| g.passed)
        && violations.iter().all(|v| v.severity != Severity::Error);
    Ok(Replay {
        audit: path.display().to_string(),
        question: a.question,
        status: a.status.as_str().to_string(),
        corpus_version_then: then,
        corpus_version_now: now,
        checked: a.evidence.len(),
        intact,
        passed,
        drift,
        gate,
        violations,
        answer: a.answer,
        quotes,
    })
}
