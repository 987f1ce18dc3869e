//! `attest eval review`: a checklist review scored against known statuses and field
//! values.
//!
//! The dataset directory holds the documents (under `docs/`, or the directory itself),
//! `checklist.json` (or `.toml`) and `expected.json`:
//! `{"requirements": {"ID": {"status": "...", "fields": [{"name", "value", "doc"}]}}}`,
//! listing every value the documents state for each requirement's fields (`doc`: the file
//! name). The documents are ingested into the evaluation index, the checklist reviewed,
//! and then: field values (a value is right when its name, document and normalised value
//! match an expected one; every other value is a **wrong value**), statuses (accuracy,
//! and precision and recall per status), and every value's `raw` re-checked at its span in
//! the stored text, like the answer invariants. Without `expected.json` only the timings
//! and the span check are reported.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::config::Config;
use crate::engine::Engine;
use crate::error::Error;
use crate::ingest::{ingest, IngestOptions};
use crate::review::{checklist, review, Review, ReviewOptions};

use super::eval_index_dir;

/// One expected field value.
#[derive(Debug, Clone, Deserialize)]
pub struct ExpectedField {
    /// Field name.
    pub name: String,
    /// Normalised value (ISO date, number, text).
    pub value: serde_json::Value,
    /// File name of the document that states it.
    pub doc: String,
}

/// What one requirement should come out as.
#[derive(Debug, Clone, Deserialize)]
pub struct ExpectedRequirement {
    /// Status.
    pub status: String,
    /// Every value its fields are stated with.
    #[serde(default)]
    pub fields: Vec<ExpectedField>,
}

/// `expected.json`.
#[derive(Debug, Clone, Deserialize)]
pub struct Expected {
    /// By requirement id.
    pub requirements: BTreeMap<String, ExpectedRequirement>,
}

/// Precision and recall of a set of predictions.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Scores {
    /// Expected items.
    pub expected: usize,
    /// Predicted items.
    pub predicted: usize,
    /// Predicted items that are right.
    pub correct: usize,
    /// correct / predicted (1 when nothing was predicted).
    pub precision: f64,
    /// correct / expected (1 when nothing was expected).
    pub recall: f64,
}

impl Scores {
    fn finish(&mut self) {
        let ratio = |a: usize, b: usize| {
            if b == 0 {
                1.0
            } else {
                round(a as f64 / b as f64)
            }
        };
        self.precision = ratio(self.correct, self.predicted);
        self.recall = ratio(self.correct, self.expected);
    }
}

fn round(x: f64) -> f64 {
    (x * 1e4).round() / 1e4
}

/// A value the review gave that no document states so (or missed).
#[derive(Debug, Clone, Serialize)]
pub struct ValueMiss {
    /// Requirement id.
    pub requirement: String,
    /// Field name.
    pub name: String,
    /// The value.
    pub value: serde_json::Value,
    /// Raw text (predicted values only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raw: Option<String>,
    /// Document file name.
    pub doc: String,
}

/// A requirement whose status differs from the expected one.
#[derive(Debug, Clone, Serialize)]
pub struct StatusMiss {
    /// Requirement id.
    pub requirement: String,
    /// Expected status.
    pub expected: String,
    /// The review's status.
    pub got: String,
    /// The review's reason.
    pub reason: String,
}

/// The report of `attest eval review`.
#[derive(Debug, Clone, Serialize)]
pub struct ReviewEvalReport {
    /// Dataset directory.
    pub dataset: String,
    /// Requirements reviewed.
    pub requirements: usize,
    /// Documents ingested.
    pub documents: usize,
    /// Chunks in the index.
    pub chunks: usize,
    /// Field values: precision and recall.
    pub fields: Scores,
    /// Values the review gave that the expected file does not list (must be 0).
    pub wrong_values: Vec<ValueMiss>,
    /// Expected values the review did not give.
    pub missed_values: Vec<ValueMiss>,
    /// Share of requirements with the expected status.
    pub status_accuracy: f64,
    /// Per status: precision and recall.
    pub statuses: BTreeMap<String, Scores>,
    /// Requirements whose status differs.
    pub status_misses: Vec<StatusMiss>,
    /// Field values whose `raw` was re-checked at its span in the stored text.
    pub raw_checked: usize,
    /// Of those, how many did not hold (must be 0).
    pub raw_not_verbatim: usize,
    /// Evidence items the review cites that are a table-of-contents entry or a template
    /// instruction (must be 0).
    pub contents_or_instructions_cited: usize,
    /// Milliseconds: ingest, then the review's stages.
    pub timings_ms: BTreeMap<String, f64>,
    /// Whether `expected.json` was found (without it only timings and spans are reported).
    pub scored: bool,
}

fn file_name(source: &str) -> String {
    Path::new(source)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| source.to_string())
}

/// Whether a predicted normalised value equals an expected one (numbers within 0.01).
pub fn same_value(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => (x - y).abs() <= 0.01 + 1e-9 * x.abs().max(y.abs()),
        _ => match (a.as_str(), b.as_str()) {
            (Some(x), Some(y)) => x.trim().eq_ignore_ascii_case(y.trim()),
            _ => a == b,
        },
    }
}

/// The checklist file of `dir`: `checklist.json`, else `checklist.toml`.
fn checklist_path(dir: &Path) -> PathBuf {
    let json = dir.join("checklist.json");
    if json.is_file() {
        json
    } else {
        dir.join("checklist.toml")
    }
}

/// `attest eval review` on `dataset` (see the module doc); `docs`, when not empty,
/// overrides where the documents are.
pub fn run(
    mut cfg: Config,
    dataset: &Path,
    docs: Vec<PathBuf>,
    eval_index: Option<PathBuf>,
    opts_of: impl Fn(&Config) -> ReviewOptions,
) -> Result<ReviewEvalReport, Error> {
    let list = checklist::load(&checklist_path(dataset))?;
    let expected_path = dataset.join("expected.json");
    let expected: Option<Expected> = if expected_path.is_file() {
        let text = std::fs::read_to_string(&expected_path)
            .map_err(|e| Error::Usage(format!("{}: {e}", expected_path.display())))?;
        Some(
            serde_json::from_str(&text)
                .map_err(|e| Error::Usage(format!("{}: {e}", expected_path.display())))?,
        )
    } else {
        None
    };
    let docs = if docs.is_empty() {
        let d = dataset.join("docs");
        vec![if d.is_dir() { d } else { dataset.to_path_buf() }]
    } else {
        docs
    };
    cfg.index = eval_index_dir(dataset, eval_index);
    let opts = opts_of(&cfg);
    let mut engine = Engine::open_with_default_model(cfg, true)?;
    let t = Instant::now();
    let ingested = ingest(
        &mut engine,
        &docs,
        &IngestOptions {
            prune: true,
            ..IngestOptions::default()
        },
    )?;
    let ingest_ms = t.elapsed().as_secs_f64() * 1e3;
    let r = review(&engine, &list, &opts)?;
    let mut report = ReviewEvalReport {
        dataset: dataset.display().to_string(),
        requirements: r.requirements.len(),
        documents: ingested.documents,
        chunks: ingested.chunks,
        fields: Scores::default(),
        wrong_values: Vec::new(),
        missed_values: Vec::new(),
        status_accuracy: 0.0,
        statuses: BTreeMap::new(),
        status_misses: Vec::new(),
        raw_checked: 0,
        raw_not_verbatim: 0,
        contents_or_instructions_cited: r
            .requirements
            .iter()
            .flat_map(|q| &q.evidence)
            .filter(|e| {
                crate::evidence::provision::is_contents_entry(&e.quote)
                    || crate::evidence::extract::is_instruction(&e.quote)
            })
            .count(),
        timings_ms: r.timings_ms.clone(),
        scored: expected.is_some(),
    };
    report
        .timings_ms
        .insert("ingest".into(), (ingest_ms * 100.0).round() / 100.0);
    check_spans(&engine, &r, &mut report)?;
    if let Some(expected) = &expected {
        score_fields(&r, expected, &mut report);
        score_statuses(&r, expected, &mut report);
    }
    Ok(report)
}

/// Re-check every field value's `raw` at its span in the stored document text.
fn check_spans(engine: &Engine, r: &Review, report: &mut ReviewEvalReport) -> Result<(), Error> {
    let mut texts: HashMap<String, Option<String>> = HashMap::new();
    for f in r.requirements.iter().flat_map(|q| &q.fields) {
        if !texts.contains_key(&f.doc_id) {
            texts.insert(f.doc_id.clone(), engine.store().document_text(&f.doc_id)?);
        }
        report.raw_checked += 1;
        let holds = texts[&f.doc_id]
            .as_deref()
            .and_then(|t| t.get(f.start..f.end))
            == Some(f.raw.as_str());
        if !holds {
            report.raw_not_verbatim += 1;
        }
    }
    Ok(())
}

fn score_fields(r: &Review, expected: &Expected, report: &mut ReviewEvalReport) {
    let mut s = Scores::default();
    for q in &r.requirements {
        let want: &[ExpectedField] = expected.requirements.get(&q.id).map_or(&[], |e| &e.fields);
        s.expected += want.len();
        let mut used = vec![false; want.len()];
        for f in &q.fields {
            s.predicted += 1;
            let doc = file_name(&f.source);
            let hit = want.iter().enumerate().position(|(i, w)| {
                !used[i] && w.name == f.name && w.doc == doc && same_value(&w.value, &f.value)
            });
            match hit {
                Some(i) => {
                    used[i] = true;
                    s.correct += 1;
                }
                None => report.wrong_values.push(ValueMiss {
                    requirement: q.id.clone(),
                    name: f.name.clone(),
                    value: f.value.clone(),
                    raw: Some(f.raw.clone()),
                    doc,
                }),
            }
        }
        for (w, _) in want.iter().zip(&used).filter(|(_, u)| !**u) {
            report.missed_values.push(ValueMiss {
                requirement: q.id.clone(),
                name: w.name.clone(),
                value: w.value.clone(),
                raw: None,
                doc: w.doc.clone(),
            });
        }
    }
    s.finish();
    report.fields = s;
}

fn score_statuses(r: &Review, expected: &Expected, report: &mut ReviewEvalReport) {
    let mut right = 0;
    let mut judged = 0;
    for q in &r.requirements {
        let Some(e) = expected.requirements.get(&q.id) else {
            continue;
        };
        judged += 1;
        let got = q.status.as_str().to_string();
        report
            .statuses
            .entry(e.status.clone())
            .or_default()
            .expected += 1;
        let g = report.statuses.entry(got.clone()).or_default();
        g.predicted += 1;
        if got == e.status {
            g.correct += 1;
            right += 1;
        } else {
            report.status_misses.push(StatusMiss {
                requirement: q.id.clone(),
                expected: e.status.clone(),
                got,
                reason: q.reason.clone(),
            });
        }
    }
    report.statuses.values_mut().for_each(Scores::finish);
    report.status_accuracy = if judged == 0 {
        1.0
    } else {
        round(right as f64 / judged as f64)
    };
}
