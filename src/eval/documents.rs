//! `attest eval documents`: answers over real documents (PDF, DOCX) with known values.
//!
//! The dataset directory holds `docs/` (the files) and `questions.jsonl`: one object per
//! line with `id`, `doc` (file name under `docs/`), `question`, `answer` (the value, or
//! null), `page` (1-based, or null), `kind` (`form_value`, `table_cell`, `prose`, …) and
//! `answerable`. The documents are ingested into the evaluation index (timed: pages per
//! second, and the share of ingest time spent extracting and chunking vs embedding), then
//! every question is asked against the whole corpus. Per kind: the share of answerable
//! questions whose answer cites a quote containing the value, the share where that quote
//! is in the question's document on the stated page (a document without pages — HTML,
//! Markdown, text — is page 1), the share of unanswerable questions
//! that abstain (a file that cannot be read at all counts as abstaining: its error is
//! the answer), and the number of cited instructions (must be 0). Every cited quote is
//! re-checked at its span.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::answer::Status;
use crate::ask::{ask, AskOptions};
use crate::config::Config;
use crate::engine::Engine;
use crate::error::Error;
use crate::evidence::extract::is_instruction;
use crate::ingest::{ingest, IngestOptions};
use crate::store::QuoteChecker;

use super::eval_index_dir;

/// One question of the dataset.
#[derive(Debug, Clone, Deserialize)]
pub struct DocQuestion {
    /// Question id.
    pub id: String,
    /// File name under `docs/`.
    pub doc: String,
    /// The question.
    pub question: String,
    /// The value an answer must cite, when answerable.
    #[serde(default)]
    pub answer: Option<String>,
    /// 1-based page of the value.
    #[serde(default)]
    pub page: Option<usize>,
    /// What kind of text holds the value.
    #[serde(default)]
    pub kind: String,
    /// Whether the documents answer it.
    pub answerable: bool,
}

/// Figures of one kind (or of all questions).
#[derive(Debug, Clone, Default, Serialize)]
pub struct KindFigures {
    /// Answerable questions.
    pub answerable: usize,
    /// Answerable questions whose answer cites a quote containing the value.
    pub value_cited: usize,
    /// … with that quote in the question's document on the stated page.
    pub on_page: usize,
    /// Unanswerable questions.
    pub unanswerable: usize,
    /// Unanswerable questions that abstained.
    pub abstained: usize,
    /// Cited quotes that are instructions (must be 0).
    pub instructions_cited: usize,
    /// Share `value_cited / answerable`.
    pub value_cited_share: f64,
    /// Share `on_page / answerable`.
    pub on_page_share: f64,
    /// Share `abstained / unanswerable`.
    pub abstained_share: f64,
}

/// What happened to one question.
#[derive(Debug, Clone, Serialize)]
pub struct DocOutcome {
    /// Question id.
    pub id: String,
    /// Kind.
    pub kind: String,
    /// Answer status (`answered`, `no_authoritative_evidence`, or `file_failed`).
    pub status: String,
    /// Whether a cited quote contains the value.
    pub value_cited: bool,
    /// Whether such a quote is in the document on the stated page.
    pub on_page: bool,
    /// Pages of the cited quotes in the question's document.
    pub cited_pages: Vec<usize>,
    /// The answer's confidence.
    pub confidence: crate::answer::Confidence,
    /// Cited items.
    pub items: usize,
    /// Whether the question's frame asks for a value (a date, an amount …).
    pub typed: bool,
    /// Whether the answer names its value and its first sentence holds it.
    pub value_first: bool,
    /// The value the answer names (`answer_value`), judged against the expected one:
    /// `Some(true)` it is the expected value, `Some(false)` another (for an
    /// unanswerable question, any named value), `None` no value named.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value_named: Option<bool>,
    /// The value the answer names, as written in its quote.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// The value read for the question, named or not (see `assurance.value_check`),
    /// judged as `value_named` is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value_read: Option<bool>,
    /// Whether the outcome is right: an answerable question answered with a quote
    /// holding the value, an unanswerable one not answered.
    pub right: bool,
    /// Whether the documents answer the question (a near miss: not).
    pub answerable: bool,
    /// The answer's assurance signals (for fitting its confidence model).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub assurance: Option<crate::ask::assure::Signals>,
}

/// The report.
#[derive(Debug, Clone, Serialize)]
pub struct DocumentsReport {
    /// Dataset directory.
    pub dataset: String,
    /// Questions asked.
    pub questions: usize,
    /// Whether each question searched only its own document.
    pub scoped: bool,
    /// Figures per kind.
    pub kinds: BTreeMap<String, KindFigures>,
    /// Figures over all questions.
    pub all: KindFigures,
    /// Files that failed to ingest, with the reason.
    pub failed_files: Vec<(String, String)>,
    /// Pages of the ingested PDF and DOCX files.
    pub pages: usize,
    /// Ingest wall time in milliseconds.
    pub ingest_ms: u64,
    /// Pages per second of ingest.
    pub pages_per_second: f64,
    /// Share of ingest time spent loading, extracting and chunking (the rest embeds and
    /// writes).
    pub extract_share: f64,
    /// Share of ingest time spent in the bi-encoder.
    pub embed_share: f64,
    /// Cited quotes not verbatim at their spans (must be 0).
    pub not_verbatim: usize,
    /// One row per question.
    pub outcomes: Vec<DocOutcome>,
    /// Per confidence level, the answers given and the share right (see [`DocOutcome`]).
    pub reliability: BTreeMap<String, super::metrics::LevelFigures>,
    /// Median number of cited items per answered question.
    pub median_items: f64,
    /// Of the answered questions whose frame asks for a value, the share whose answer
    /// names the value (`answer_value`) and whose first sentence holds it.
    pub value_first: f64,
    /// Share of answerable questions whose answer names the expected value itself
    /// (`answer_value`), not only a quote holding it.
    pub value_named_right: f64,
    /// Answers that name a value other than the expected one (any named value for an
    /// unanswerable question): wrong values claimed.
    pub value_named_wrong: usize,
}

/// Read `questions.jsonl`, naming the line of a bad row.
pub fn read_questions(path: &Path) -> Result<Vec<DocQuestion>, Error> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::Usage(format!("{}: {e}", path.display())))?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l)
                .map_err(|e| Error::Usage(format!("{}:{}: {e}", path.display(), i + 1)))
        })
        .collect()
}

/// Whether `quote` contains `value`, both whitespace-collapsed and lower-cased.
pub fn contains_value(quote: &str, value: &str) -> bool {
    let norm = |s: &str| {
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    let v = norm(value);
    !v.is_empty() && norm(quote).contains(&v)
}

/// `attest eval documents` on `dataset` (see the module doc), at most `limit` questions;
/// with `scoped`, each question searches only its own document (as `ask --scope`).
pub fn run(
    mut cfg: Config,
    dataset: &Path,
    eval_index: Option<PathBuf>,
    limit: Option<usize>,
    scoped: bool,
) -> Result<DocumentsReport, Error> {
    let mut questions = read_questions(&dataset.join("questions.jsonl"))?;
    super::truncate(&mut questions, limit);
    cfg.index = eval_index_dir(dataset, eval_index);
    let mut opts = AskOptions::from_config(&cfg);
    opts.memory = false;
    let mut engine = Engine::open_with_default_model(cfg, true)?;
    let docs = dataset.join("docs");
    let t = Instant::now();
    let r = ingest(
        &mut engine,
        std::slice::from_ref(&docs),
        &IngestOptions {
            prune: true,
            ..IngestOptions::default()
        },
    )?;
    let ingest_ms = t.elapsed().as_millis() as u64;
    let failed: Vec<(String, String)> = r
        .failed
        .iter()
        .map(|f| (f.path.clone(), f.reason.clone()))
        .collect();
    let pages = count_pages(&engine)?;
    let mut report = DocumentsReport {
        dataset: dataset.display().to_string(),
        questions: questions.len(),
        scoped,
        kinds: BTreeMap::new(),
        all: KindFigures::default(),
        failed_files: failed,
        pages,
        ingest_ms: r.total_ms.max(ingest_ms),
        pages_per_second: pages as f64 / (r.total_ms.max(1) as f64 / 1e3),
        extract_share: share(r.total_ms - r.embed_ms.min(r.total_ms), r.total_ms),
        embed_share: share(r.embed_ms, r.total_ms),
        not_verbatim: 0,
        outcomes: Vec::new(),
        reliability: BTreeMap::new(),
        median_items: 0.0,
        value_first: 0.0,
        value_named_right: 0.0,
        value_named_wrong: 0,
    };
    for q in &questions {
        let mut opts = opts.clone();
        if scoped {
            let file = docs
                .join(&q.doc)
                .canonicalize()
                .unwrap_or_else(|_| docs.join(&q.doc));
            let ids = engine
                .store()
                .doc_ids_under(&[file.to_string_lossy().into_owned()])?;
            let restrict = crate::retrieve::Restrict::new(&engine, ids)?;
            opts.scope = Some(std::sync::Arc::new(restrict));
        }
        let outcome = ask_one(&engine, q, &opts, &mut report)?;
        tally(&mut report, q, &outcome);
        report.outcomes.push(outcome);
    }
    finish(&mut report.all);
    report.kinds.values_mut().for_each(finish);
    summarise(&mut report);
    Ok(report)
}

/// The reliability table and the concision figures over the outcomes.
fn summarise(report: &mut DocumentsReport) {
    report.reliability =
        super::metrics::reliability(report.outcomes.iter().map(|o| (o.confidence, o.right)));
    let mut items: Vec<f64> = report
        .outcomes
        .iter()
        .filter(|o| o.status == Status::Answered.as_str())
        .map(|o| o.items as f64)
        .collect();
    items.sort_by(f64::total_cmp);
    report.median_items = super::percentile(&items, 50.0);
    let typed: Vec<&DocOutcome> = report
        .outcomes
        .iter()
        .filter(|o| o.typed && o.status == Status::Answered.as_str())
        .collect();
    report.value_first =
        typed.iter().filter(|o| o.value_first).count() as f64 / typed.len().max(1) as f64;
    let named = |right: bool| {
        report
            .outcomes
            .iter()
            .filter(|o| o.value_named == Some(right))
            .count()
    };
    report.value_named_right = named(true) as f64 / report.all.answerable.max(1) as f64;
    report.value_named_wrong = named(false);
}

fn share(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

/// Pages of every stored document that has pages.
fn count_pages(engine: &Engine) -> Result<usize, Error> {
    let mut pages = 0;
    for (doc_id, _) in engine.store().document_keys()? {
        let json = engine.store().layout_json_of(&doc_id)?.unwrap_or_default();
        let layout: crate::corpus::layout::Layout = serde_json::from_str(&json).unwrap_or_default();
        pages += layout.pages.len();
    }
    Ok(pages)
}

/// Judge the value the answer names: whether the question is typed, whether the first
/// sentence holds the value, and whether it is the expected one.
fn judge_value(out: &mut DocOutcome, a: &crate::answer::Answer, q: &DocQuestion) {
    out.typed = a
        .question_frame
        .as_ref()
        .is_some_and(|f| f.answer_type.is_value());
    out.value_first = a.answer_value.as_ref().is_some_and(|v| {
        a.sentences
            .first()
            .is_some_and(|s| s.text.contains(v.raw.as_str()))
    });
    let expected = |v: &crate::answer::AnswerValue| {
        q.answer.as_deref().is_some_and(|g| {
            contains_value(g, &v.raw) || contains_value(&v.raw, g) || same_value(g, v)
        })
    };
    out.value = a.answer_value.as_ref().map(|v| v.raw.clone());
    out.value_named = a.answer_value.as_ref().map(expected);
    out.value_read = a
        .assurance
        .as_ref()
        .and_then(|s| s.value_check.as_ref())
        .map(|c| expected(&c.value));
}

/// Whether the expected answer `gold` states value `v` in other words: read as `v`'s
/// type, one of its values normalises as `v` does ("March 2024" and "3-2024").
fn same_value(gold: &str, v: &crate::answer::AnswerValue) -> bool {
    crate::value::typed::find(gold, v.ty, None)
        .iter()
        .any(|x| x.normalised == v.normalised)
}

/// Ask one question and judge the answer.
fn ask_one(
    engine: &Engine,
    q: &DocQuestion,
    opts: &AskOptions,
    report: &mut DocumentsReport,
) -> Result<DocOutcome, Error> {
    let file_failed = report.failed_files.iter().any(|(p, _)| {
        Path::new(p)
            .file_name()
            .is_some_and(|n| n == q.doc.as_str())
    });
    let mut out = DocOutcome {
        id: q.id.clone(),
        kind: q.kind.clone(),
        status: "file_failed".into(),
        value_cited: false,
        on_page: false,
        cited_pages: Vec::new(),
        confidence: crate::answer::Confidence::Insufficient,
        items: 0,
        typed: false,
        value_first: false,
        value_named: None,
        value: None,
        value_read: None,
        right: !q.answerable,
        answerable: q.answerable,
        assurance: None,
    };
    if file_failed {
        return Ok(out);
    }
    let run = ask(engine, &q.question, opts)?;
    let a = &run.answer;
    out.status = a.status.as_str().to_string();
    out.confidence = a.confidence;
    out.items = a.evidence.len();
    out.assurance = a.assurance.clone();
    judge_value(&mut out, a, q);
    let mut quotes = QuoteChecker::new(engine.store());
    for e in &a.evidence {
        if !quotes
            .check(&e.doc_id, e.start, e.end, &e.quote, None)?
            .stands()
        {
            report.not_verbatim += 1;
        }
        if is_instruction(&e.quote) {
            report.all.instructions_cited += 1;
            report
                .kinds
                .entry(q.kind.clone())
                .or_default()
                .instructions_cited += 1;
        }
        let in_doc = Path::new(&e.source)
            .file_name()
            .is_some_and(|n| n == q.doc.as_str());
        if in_doc {
            out.cited_pages.push(e.page.unwrap_or(1));
        }
        if q.answer
            .as_deref()
            .is_some_and(|v| contains_value(&e.quote, v))
        {
            out.value_cited = true;
            // A document without pages (HTML, Markdown, text) is one page.
            out.on_page |= in_doc && e.page.or(Some(1)) == q.page;
        }
    }
    let answered = a.status == Status::Answered;
    out.right = if q.answerable {
        answered && out.value_cited
    } else {
        !answered
    };
    Ok(out)
}

/// Count one outcome into its kind and the total.
fn tally(report: &mut DocumentsReport, q: &DocQuestion, o: &DocOutcome) {
    let abstained = o.status != Status::Answered.as_str();
    for f in [
        &mut report.all,
        report.kinds.entry(q.kind.clone()).or_default(),
    ] {
        if q.answerable {
            f.answerable += 1;
            f.value_cited += usize::from(o.value_cited);
            f.on_page += usize::from(o.on_page);
        } else {
            f.unanswerable += 1;
            f.abstained += usize::from(abstained);
        }
    }
}

fn finish(f: &mut KindFigures) {
    let r = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    f.value_cited_share = r(f.value_cited, f.answerable);
    f.on_page_share = r(f.on_page, f.answerable);
    f.abstained_share = r(f.abstained, f.unanswerable);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_match_across_whitespace_and_case() {
        assert!(contains_value(
            "Total  Project\nArea 1,200 ha",
            "area 1,200"
        ));
        assert!(!contains_value("Total Project Area 1,200 ha", "1,300"));
        assert!(!contains_value("anything", "  "));
    }

    #[test]
    fn outcomes_are_tallied_per_kind_and_overall() {
        let mut report = DocumentsReport {
            dataset: String::new(),
            questions: 2,
            scoped: false,
            kinds: BTreeMap::new(),
            all: KindFigures::default(),
            failed_files: Vec::new(),
            pages: 0,
            ingest_ms: 0,
            pages_per_second: 0.0,
            extract_share: 0.0,
            embed_share: 0.0,
            not_verbatim: 0,
            outcomes: Vec::new(),
            reliability: BTreeMap::new(),
            median_items: 0.0,
            value_first: 0.0,
            value_named_right: 0.0,
            value_named_wrong: 0,
        };
        let q = |answerable: bool| DocQuestion {
            id: "q".into(),
            doc: "a.pdf".into(),
            question: "?".into(),
            answer: answerable.then(|| "1".into()),
            page: Some(1),
            kind: "prose".into(),
            answerable,
        };
        let o = |status: &str, cited: bool| DocOutcome {
            id: "q".into(),
            kind: "prose".into(),
            status: status.into(),
            value_cited: cited,
            on_page: cited,
            cited_pages: vec![],
            confidence: crate::answer::Confidence::Low,
            items: 1,
            typed: false,
            value_first: false,
            value_named: None,
            value: None,
            value_read: None,
            right: cited,
            answerable: cited,
            assurance: None,
        };
        tally(&mut report, &q(true), &o("answered", true));
        tally(&mut report, &q(false), &o("answered", false));
        tally(&mut report, &q(false), &o("file_failed", false));
        finish(&mut report.all);
        assert_eq!(report.all.value_cited_share, 1.0);
        assert_eq!(report.all.abstained_share, 0.5);
        assert_eq!(report.kinds["prose"].unanswerable, 2);
    }
}
