//! `attest eval answers`: every query of a BEIR split asked as a question against the
//! dataset's corpus, through the whole `ask` pipeline.
//!
//! Answerable run (the dataset's own queries): `answered_rate`, `cites_relevant_doc_rate`
//! (share of questions whose answer cites at least one judged-relevant document; an
//! abstention counts as a miss), `cited_item_precision` (share of cited items from a
//! judged-relevant document). Unanswerable run (`--questions-from` another dataset):
//! `abstain_rate`. Both: latency, and the invariants checked on every answer against the
//! store (every cited quote verbatim at its span, no unknown ids, every sentence cites).
//!
//! `relevance_sweep` shows, for a grid of thresholds on the fitted relevance, the share of
//! questions that would be answered (some complete, verbatim candidate at or above the
//! threshold), to put an answerable and an unanswerable run side by side.

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::time::Instant;

use serde::Serialize;

use super::metrics::Judgments;
use super::retrieval::Dataset;
use super::{eval_index_dir, open_eval_engine, percentile, truncate, DatasetRun, Query};
use crate::answer::{Answer, Run, Status};
use crate::ask::{ask, AskOptions};
use crate::config::Config;
use crate::engine::Engine;
use crate::error::Error;
use crate::evidence::gate::citations;
use crate::evidence::support::SupportConfig;
use crate::evidence::verify::Reason;

/// Per-question outcome.
#[derive(Debug, Clone, Serialize)]
pub struct QuestionResult {
    /// Query id.
    pub id: String,
    /// Status.
    pub status: Status,
    /// Document keys of the cited items.
    pub cited_docs: Vec<String>,
    /// Whether a cited document is judged relevant (answerable runs).
    pub cites_relevant: Option<bool>,
    /// Whether a cited quote states a gold answer (datasets with answers; answered
    /// questions only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub states_answer: Option<bool>,
    /// The answer's confidence.
    pub confidence: crate::answer::Confidence,
    /// Milliseconds.
    pub ms: f64,
    /// Types of the gate's error violations (an answer withheld by the gate).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub gate_violations: Vec<String>,
    /// Relevance of the complete, verbatim candidates scored by the model.
    #[serde(skip)]
    pub signals: Vec<f64>,
    /// Every candidate's relevance signals, for calibration.
    pub candidates: Vec<CandidateSignals>,
}

/// Relevance signals of one candidate, with its judgment (for calibrating thresholds).
#[derive(Debug, Clone, Serialize)]
pub struct CandidateSignals {
    /// Document key.
    pub key: String,
    /// Rank of its chunk.
    pub chunk_rank: usize,
    /// Cosine question–chunk.
    pub chunk_cosine: f64,
    /// Cosine question–quote (None when not scored).
    pub cosine: Option<f64>,
    /// Question-term coverage.
    pub coverage: f64,
    /// Relevance score.
    pub score: f64,
    /// Verdict: `verified` or the rejection reason.
    pub verdict: String,
    /// Whether its document is judged relevant (answerable runs).
    pub relevant: Option<bool>,
}

/// Answer-level metrics.
#[derive(Debug, Clone, Default, Serialize)]
pub struct AnswerMetrics {
    /// Share of questions answered.
    pub answered_rate: f64,
    /// Share ending in `no_authoritative_evidence`.
    pub abstain_rate: f64,
    /// Share rejected by the input guard.
    pub rejected_input_rate: f64,
    /// Share of questions whose answer cites a judged-relevant document (answerable runs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cites_relevant_doc_rate: Option<f64>,
    /// The same over answered questions only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cites_relevant_doc_rate_answered: Option<f64>,
    /// Share of cited items from judged-relevant documents (answerable runs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cited_item_precision: Option<f64>,
    /// Share of questions whose cited quotes state a gold answer (datasets with answers,
    /// such as HotpotQA): answered and right, where `answered_rate` counts any answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub states_answer_rate: Option<f64>,
    /// Share of answered questions whose cited quotes state no gold answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answered_without_answer_rate: Option<f64>,
    /// Mean cited items per answered question.
    pub mean_cited_items: f64,
    /// Cited quotes checked against the store.
    pub quotes_checked: usize,
    /// Share of them verbatim at their spans (must be 1).
    pub verbatim_rate: f64,
    /// Citations of ids not in the evidence (must be 0).
    pub unknown_citations: usize,
    /// Answer sentences without a citation (must be 0).
    pub uncited_sentences: usize,
    /// Composed answers the gate failed (withheld, so they end as abstentions; should be 0).
    pub gate_failures: usize,
    /// Answer sentences neither verbatim inside a quote they cite nor supported by the
    /// quotes they cite, re-checked here (must be 0; only a generator writes sentences
    /// that are not verbatim).
    pub unsupported_sentences: usize,
    /// Generator calls (0 without `--generator`).
    pub generator_calls: usize,
    /// Answers whose phrased text was kept.
    pub phrased: usize,
    /// Answers where the generator's text failed the checks and the extractive answer
    /// stood.
    pub phrase_fallbacks: usize,
    /// Median milliseconds per question.
    pub p50_ms: f64,
    /// 95th percentile milliseconds.
    pub p95_ms: f64,
    /// Mean milliseconds.
    pub mean_ms: f64,
    /// With `--repeat`: share of answered questions served from the QA memory when asked
    /// again.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_hit_rate: Option<f64>,
    /// With `--repeat`: median milliseconds of the repeated question.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p50_ms_repeat: Option<f64>,
    /// With `--repeat`: median over answered questions of repeat time ÷ first time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repeat_time_ratio: Option<f64>,
}

/// The report.
#[derive(Debug, Clone, Serialize)]
pub struct AnswersReport {
    /// Dataset whose corpus answered.
    pub dataset: String,
    /// Split of the questions.
    pub split: String,
    /// Where the questions came from, when not the dataset itself.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub questions_from: Option<String>,
    /// Whether the corpus is expected to answer.
    pub answerable: bool,
    /// Questions asked.
    pub questions: usize,
    /// Metrics.
    pub metrics: AnswerMetrics,
    /// Answered share by relevance threshold.
    pub relevance_sweep: BTreeMap<String, f64>,
    /// Per confidence level, the answers given and the share right: citing a judged-
    /// relevant document (answerable runs); any answer is wrong when the corpus cannot
    /// answer the questions.
    pub reliability: BTreeMap<String, super::metrics::LevelFigures>,
    /// Per-question outcomes (with `--per-question`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub per_question: Vec<QuestionResult>,
}

/// Options of `attest eval answers`.
#[derive(Debug, Clone, Default)]
pub struct AnswersRun {
    /// The dataset whose corpus answers (and, without `questions_from`, whose queries are
    /// asked), its split, index, question limit and progress display.
    pub base: DatasetRun,
    /// Ask this dataset's queries instead (an unanswerable run).
    pub questions_from: Option<PathBuf>,
    /// Split of `questions_from`.
    pub questions_split: Option<String>,
    /// Use an installed cross-encoder.
    pub rerank: bool,
    /// Keep per-question outcomes in the report.
    pub per_question: bool,
    /// Ask every answered question a second time with the QA memory on.
    pub repeat: bool,
    /// Run the research loop (else one retrieval step per question).
    pub research: bool,
}

/// `attest eval answers`: load the dataset (and the dataset the questions come from),
/// ingest the corpus into the evaluation index, ask every question and assemble the
/// report.
pub fn run(mut cfg: Config, run: &AnswersRun) -> Result<AnswersReport, Error> {
    let base = &run.base;
    let ds = Dataset::load(&base.dataset, base.split.as_deref())?;
    let from = match &run.questions_from {
        Some(d) => Some(Dataset::load(d, run.questions_split.as_deref())?),
        None => None,
    };
    let mut questions = from.as_ref().unwrap_or(&ds).queries.clone();
    truncate(&mut questions, base.limit);
    cfg.index = eval_index_dir(&base.dataset, base.eval_index.clone());
    let mut opts = AskOptions::from_config(&cfg);
    opts.rerank = run.rerank;
    // Every question is researched, never served from memory (with `repeat` the memory
    // stores the first answer and serves the second).
    opts.memory = run.repeat;
    opts.research = run.research;
    let mut engine = open_eval_engine(cfg, &ds, base.progress)?;
    engine.load_generator()?;
    let bar = crate::ingest::counter_bar(questions.len() as u64, base.progress, "questions");
    let _log = crate::ingest::ticker(base.progress, "eval answers", "questions", &bar);
    let (metrics, results) = evaluate(
        &engine,
        &questions,
        from.is_none().then_some(&ds.qrels),
        &opts,
        run.repeat,
        |n| bar.set_position(n as u64),
    )?;
    bar.finish_and_clear();
    Ok(AnswersReport {
        dataset: base.dataset.display().to_string(),
        split: from.as_ref().unwrap_or(&ds).split.clone(),
        questions_from: run.questions_from.as_ref().map(|p| p.display().to_string()),
        answerable: from.is_none(),
        questions: results.len(),
        metrics,
        relevance_sweep: relevance_sweep(&results),
        reliability: super::metrics::reliability(
            results
                .iter()
                .filter(|r| r.status == Status::Answered)
                .map(|r| (r.confidence, r.cites_relevant == Some(true))),
        ),
        per_question: if run.per_question {
            results
        } else {
            Vec::new()
        },
    })
}

/// Counts gathered over the questions that the metrics are ratios of.
#[derive(Default)]
struct Tally {
    /// Repeated questions served from the QA memory.
    memory_hits: usize,
    /// Milliseconds of each repeated question.
    repeat_ms: Vec<f64>,
    /// Repeat time ÷ first time of each repeated question.
    ratios: Vec<f64>,
    /// Cited items (answerable runs).
    cited_items: usize,
    /// Cited items from judged-relevant documents (answerable runs).
    relevant_items: usize,
    /// Cited quotes verbatim at their spans.
    verbatim: usize,
}

/// Judgments per query id.
type Qrels = std::collections::HashMap<String, Judgments>;

/// Shortest first-answer time a repeat time is divided by (milliseconds), so that a
/// first answer timed at zero gives a finite ratio.
const MIN_RATIO_MS: f64 = 1e-9;

/// Ask every question; `qrels` given for answerable runs.
pub fn evaluate(
    engine: &Engine,
    questions: &[Query],
    qrels: Option<&Qrels>,
    opts: &AskOptions,
    repeat: bool,
    mut progress: impl FnMut(usize),
) -> Result<(AnswerMetrics, Vec<QuestionResult>), Error> {
    let mut results = Vec::with_capacity(questions.len());
    let mut m = AnswerMetrics::default();
    let mut tally = Tally::default();
    for (n, q) in questions.iter().enumerate() {
        let t = Instant::now();
        let run = ask(engine, &q.text, opts)?;
        let ms = elapsed_ms(t);
        if repeat && run.answer.status == Status::Answered {
            ask_again(engine, &q.text, opts, ms, &mut tally)?;
        }
        check_invariants(engine, &run.answer, &mut m, &mut tally)?;
        results.push(question_result(q, &run, qrels, ms, &mut tally));
        progress(n + 1);
    }
    summarise(&mut m, &results, &tally, qrels.is_some(), repeat);
    Ok((m, results))
}

fn elapsed_ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

/// Ask an answered question again (with the QA memory on) and record the repeat.
fn ask_again(
    engine: &Engine,
    question: &str,
    opts: &AskOptions,
    first_ms: f64,
    tally: &mut Tally,
) -> Result<(), Error> {
    let t = Instant::now();
    let again = ask(engine, question, opts)?;
    let ms = elapsed_ms(t);
    tally.memory_hits += again.answer.metrics.memory_hit as usize;
    tally.repeat_ms.push(ms);
    tally.ratios.push(ms / first_ms.max(MIN_RATIO_MS));
    Ok(())
}

/// The invariants, checked against the store, not trusted from the run: citations of
/// known ids only, every sentence cited, every quote verbatim at its span, every sentence
/// verbatim in or supported by what it cites; plus the gate and generator counts.
fn check_invariants(
    engine: &Engine,
    a: &Answer,
    m: &mut AnswerMetrics,
    tally: &mut Tally,
) -> Result<(), Error> {
    let ids: HashSet<&str> = a.evidence.iter().map(|e| e.id.as_str()).collect();
    m.unknown_citations += citations(&a.answer)
        .iter()
        .filter(|c| !ids.contains(c.id.as_str()))
        .count();
    m.uncited_sentences += a
        .sentences
        .iter()
        .filter(|s| s.citations.is_empty())
        .count();
    let mut quotes = crate::store::QuoteChecker::new(engine.store());
    for e in &a.evidence {
        m.quotes_checked += 1;
        if quotes
            .check(&e.doc_id, e.start, e.end, &e.quote, None)?
            .stands()
        {
            tally.verbatim += 1;
        }
    }
    if !a.gate.passed {
        m.gate_failures += 1;
    }
    m.unsupported_sentences += unsupported_sentences(engine, a)?;
    m.generator_calls += a.metrics.generator_calls;
    if let Some(p) = &a.phrasing {
        if p.outcome == crate::evidence::phrase::PhrasingOutcome::Phrased {
            m.phrased += 1;
        } else {
            m.phrase_fallbacks += 1;
        }
    }
    Ok(())
}

/// Sentences neither verbatim inside a quote they cite nor supported by the quotes they
/// cite.
fn unsupported_sentences(engine: &Engine, a: &Answer) -> Result<usize, Error> {
    let mut n = 0;
    for st in &a.sentences {
        let body = crate::ask::sentence_body(&st.text);
        let cited: Vec<&str> = a
            .evidence
            .iter()
            .filter(|e| st.citations.contains(&e.id))
            .map(|e| e.quote.as_str())
            .collect();
        if cited.iter().any(|q| q.contains(body)) {
            continue;
        }
        let f = crate::evidence::support::features(engine.embedder(), body, &cited)?;
        if cited.is_empty() || !f.supported(&SupportConfig::default()) {
            n += 1;
        }
    }
    Ok(n)
}

/// One question's outcome; counts its cited and relevant items (answerable runs).
fn question_result(
    q: &Query,
    run: &Run,
    qrels: Option<&Qrels>,
    ms: f64,
    tally: &mut Tally,
) -> QuestionResult {
    let a = &run.answer;
    let cited_docs: Vec<String> = {
        let mut seen = Vec::new();
        for k in a.evidence.iter().flat_map(|e| e.keys()) {
            if !seen.contains(k) {
                seen.push(k.clone());
            }
        }
        seen
    };
    let judged = qrels.and_then(|qr| qr.get(&q.id));
    let relevant = |k: &String| judged.is_some_and(|j| j.get(k).is_some_and(|&s| s > 0));
    let cites_relevant = qrels.map(|_| {
        tally.cited_items += a.evidence.len();
        tally.relevant_items += a.evidence.iter().filter(|e| e.keys().any(relevant)).count();
        cited_docs.iter().any(relevant)
    });
    QuestionResult {
        gate_violations: a
            .gate
            .violations
            .iter()
            .filter(|v| v.severity == crate::evidence::gate::Severity::Error)
            .map(|v| format!("{}: {}", v.kind.as_str(), v.message))
            .collect(),
        id: q.id.clone(),
        candidates: candidate_signals(run, qrels.map(|_| &relevant as &dyn Fn(&String) -> bool)),
        status: a.status,
        cited_docs,
        cites_relevant,
        states_answer: (a.status == Status::Answered && !q.answers.is_empty())
            .then(|| states_answer(a, &q.answers)),
        confidence: a.confidence,
        ms,
        signals: sweep_signals(run),
    }
}

/// Whether a cited quote of `a` states one of the gold `answers` (compared as lower-case
/// words, so punctuation and spacing do not matter).
fn states_answer(a: &crate::answer::Answer, answers: &[String]) -> bool {
    let quotes: Vec<String> = a
        .evidence
        .iter()
        .map(|e| {
            format!(
                " {} ",
                crate::text::words(&e.quote.to_lowercase()).join(" ")
            )
        })
        .collect();
    answers.iter().any(|g| {
        let g = crate::text::words(&g.to_lowercase()).join(" ");
        !g.is_empty() && quotes.iter().any(|q| q.contains(&format!(" {g} ")))
    })
}

/// Relevance of the complete, verbatim candidates the model scored (verified, or
/// rejected only for relevance): what [`relevance_sweep`] thresholds.
fn sweep_signals(run: &Run) -> Vec<f64> {
    run.candidates
        .iter()
        .filter(|c| {
            c.verdict
                .rejected
                .as_ref()
                .is_none_or(|r| r.reason == Reason::DoesNotAddressQuestion)
        })
        .filter(|c| c.verdict.relevance.cosine.is_some())
        .map(|c| c.verdict.relevance.score)
        .collect()
}

/// Every candidate's relevance signals and verdict, with its judgment when `relevant`
/// (answerable runs) says which document keys are judged relevant.
fn candidate_signals(
    run: &Run,
    relevant: Option<&dyn Fn(&String) -> bool>,
) -> Vec<CandidateSignals> {
    run.candidates
        .iter()
        .map(|c| {
            let v = &c.verdict;
            CandidateSignals {
                key: v.candidate.key.clone(),
                chunk_rank: v.candidate.chunk_rank,
                chunk_cosine: v.candidate.chunk_cosine,
                cosine: v.relevance.cosine,
                coverage: v.relevance.coverage,
                score: v.relevance.score,
                verdict: v
                    .rejected
                    .as_ref()
                    .map_or("verified".into(), |r| r.reason.as_str().into()),
                relevant: relevant.map(|rel| rel(&v.candidate.key)),
            }
        })
        .collect()
}

/// The metrics that are ratios over all questions.
fn summarise(
    m: &mut AnswerMetrics,
    results: &[QuestionResult],
    tally: &Tally,
    answerable: bool,
    repeat: bool,
) {
    let n = results.len().max(1) as f64;
    let count = |s: Status| results.iter().filter(|r| r.status == s).count();
    let answered = count(Status::Answered);
    let per_answered = |k: usize| k as f64 / answered.max(1) as f64;
    m.answered_rate = answered as f64 / n;
    m.abstain_rate = count(Status::NoAuthoritativeEvidence) as f64 / n;
    m.rejected_input_rate = count(Status::RejectedInput) as f64 / n;
    if answerable {
        let hits = results
            .iter()
            .filter(|r| r.cites_relevant == Some(true))
            .count();
        m.cites_relevant_doc_rate = Some(hits as f64 / n);
        m.cites_relevant_doc_rate_answered = Some(per_answered(hits));
        m.cited_item_precision =
            Some(tally.relevant_items as f64 / tally.cited_items.max(1) as f64);
    }
    let golds = results.iter().filter(|r| r.states_answer.is_some()).count();
    if golds > 0 {
        let stated = results
            .iter()
            .filter(|r| r.states_answer == Some(true))
            .count();
        m.states_answer_rate = Some(stated as f64 / n);
        m.answered_without_answer_rate = Some(per_answered(golds - stated));
    }
    m.mean_cited_items = per_answered(m.quotes_checked);
    m.verbatim_rate = if m.quotes_checked == 0 {
        1.0
    } else {
        tally.verbatim as f64 / m.quotes_checked as f64
    };
    let mut lat: Vec<f64> = results.iter().map(|r| r.ms).collect();
    lat.sort_by(f64::total_cmp);
    m.p50_ms = percentile(&lat, 50.0);
    m.p95_ms = percentile(&lat, 95.0);
    m.mean_ms = lat.iter().sum::<f64>() / n;
    if repeat {
        let (mut repeat_ms, mut ratios) = (tally.repeat_ms.clone(), tally.ratios.clone());
        repeat_ms.sort_by(f64::total_cmp);
        ratios.sort_by(f64::total_cmp);
        m.memory_hit_rate = Some(per_answered(tally.memory_hits));
        m.p50_ms_repeat = Some(percentile(&repeat_ms, 50.0));
        m.repeat_time_ratio = Some(percentile(&ratios, 50.0));
    }
}

/// Lowest relevance threshold of the sweep.
const SWEEP_FROM: f64 = 0.05;
/// Step between thresholds of the sweep.
const SWEEP_STEP: f64 = 0.05;
/// Thresholds in the sweep after the first (0.05 to 0.95).
const SWEEP_STEPS: usize = 18;

/// Answered share per relevance threshold, from the per-question signals.
pub fn relevance_sweep(results: &[QuestionResult]) -> BTreeMap<String, f64> {
    let n = results.len().max(1) as f64;
    (0..=SWEEP_STEPS)
        .map(|ti| {
            let t = SWEEP_FROM + ti as f64 * SWEEP_STEP;
            let answered = results
                .iter()
                .filter(|r| r.signals.iter().any(|&s| s >= t))
                .count();
            (format!("{t:.2}"), answered as f64 / n)
        })
        .collect()
}
