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
//! `relevance_sweep` shows, for a grid of cosine weights and thresholds, the share of
//! questions that would be answered (some complete, verbatim candidate at or above the
//! threshold): the curve the default threshold was chosen from, by putting an
//! answerable and an unanswerable run side by side.

use std::collections::{BTreeMap, HashSet};
use std::time::Instant;

use serde::Serialize;

use super::metrics::Judgments;
use super::{percentile, Query};
use crate::answer::Status;
use crate::ask::{ask, AskOptions};
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
    /// Milliseconds.
    pub ms: f64,
    /// Types of the gate's error violations (an answer withheld by the gate).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub gate_violations: Vec<String>,
    /// (cosine, coverage, chunk cosine) of the complete, verbatim candidates scored by
    /// the model.
    #[serde(skip)]
    pub signals: Vec<(f64, f64, f64)>,
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
    /// Answered share by cosine weight and relevance threshold.
    pub relevance_sweep: BTreeMap<String, BTreeMap<String, f64>>,
    /// Per-question outcomes (with `--per-question`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub per_question: Vec<QuestionResult>,
}

/// Ask every question; `qrels` given for answerable runs.
pub fn evaluate(
    engine: &Engine,
    questions: &[Query],
    qrels: Option<&std::collections::HashMap<String, Judgments>>,
    opts: &AskOptions,
    repeat: bool,
    mut progress: impl FnMut(usize),
) -> Result<(AnswerMetrics, Vec<QuestionResult>), Error> {
    let (mut hits, mut repeat_ms, mut ratios) = (0usize, Vec::new(), Vec::new());
    let mut results = Vec::with_capacity(questions.len());
    let mut m = AnswerMetrics::default();
    let (mut cited_items, mut relevant_items, mut verbatim) = (0usize, 0usize, 0usize);
    for (n, q) in questions.iter().enumerate() {
        let t = Instant::now();
        let run = ask(engine, &q.text, opts)?;
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let a = &run.answer;
        if repeat && a.status == Status::Answered {
            let t = Instant::now();
            let again = ask(engine, &q.text, opts)?;
            let ms2 = t.elapsed().as_secs_f64() * 1e3;
            hits += again.answer.metrics.memory_hit as usize;
            repeat_ms.push(ms2);
            ratios.push(ms2 / ms.max(1e-9));
        }
        // Invariants, checked against the store, not trusted from the run.
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
                verbatim += 1;
            }
        }
        if !a.gate.passed {
            m.gate_failures += 1;
        }
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
                m.unsupported_sentences += 1;
            }
        }
        m.generator_calls += a.metrics.generator_calls;
        if let Some(p) = &a.phrasing {
            if p.outcome == crate::evidence::phrase::PhrasingOutcome::Phrased {
                m.phrased += 1;
            } else {
                m.phrase_fallbacks += 1;
            }
        }
        let cited_docs: Vec<String> = {
            let mut seen = Vec::new();
            for k in a.evidence.iter().flat_map(|e| e.keys()) {
                if !seen.contains(k) {
                    seen.push(k.clone());
                }
            }
            seen
        };
        let cites_relevant = qrels.map(|qr| {
            let judged = qr.get(&q.id);
            let rel = |k: &String| judged.is_some_and(|j| j.get(k).is_some_and(|&s| s > 0));
            cited_items += a.evidence.len();
            relevant_items += a.evidence.iter().filter(|e| e.keys().any(rel)).count();
            cited_docs.iter().any(rel)
        });
        let signals = run
            .candidates
            .iter()
            .filter(|c| {
                c.verdict
                    .rejected
                    .as_ref()
                    .is_none_or(|r| r.reason == Reason::DoesNotAddressQuestion)
            })
            .filter_map(|c| {
                c.verdict.relevance.cosine.map(|cos| {
                    (
                        cos,
                        c.verdict.relevance.coverage,
                        c.verdict.candidate.chunk_cosine,
                    )
                })
            })
            .collect();
        let judged = qrels.and_then(|qr| qr.get(&q.id));
        let candidates = run
            .candidates
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
                    relevant: qrels.map(|_| {
                        judged.is_some_and(|j| j.get(&v.candidate.key).is_some_and(|&s| s > 0))
                    }),
                }
            })
            .collect();
        results.push(QuestionResult {
            gate_violations: a
                .gate
                .violations
                .iter()
                .filter(|v| v.severity == crate::evidence::gate::Severity::Error)
                .map(|v| format!("{}: {}", v.kind.as_str(), v.message))
                .collect(),
            id: q.id.clone(),
            candidates,
            status: a.status,
            cited_docs,
            cites_relevant,
            ms,
            signals,
        });
        progress(n + 1);
    }
    let n = results.len().max(1) as f64;
    let count = |s: Status| results.iter().filter(|r| r.status == s).count();
    let answered = count(Status::Answered);
    m.answered_rate = answered as f64 / n;
    m.abstain_rate = count(Status::NoAuthoritativeEvidence) as f64 / n;
    m.rejected_input_rate = count(Status::RejectedInput) as f64 / n;
    if qrels.is_some() {
        let hits = results
            .iter()
            .filter(|r| r.cites_relevant == Some(true))
            .count();
        m.cites_relevant_doc_rate = Some(hits as f64 / n);
        m.cites_relevant_doc_rate_answered = Some(hits as f64 / answered.max(1) as f64);
        m.cited_item_precision = Some(relevant_items as f64 / cited_items.max(1) as f64);
    }
    m.mean_cited_items = m.quotes_checked as f64 / answered.max(1) as f64;
    m.verbatim_rate = if m.quotes_checked == 0 {
        1.0
    } else {
        verbatim as f64 / m.quotes_checked as f64
    };
    let mut lat: Vec<f64> = results.iter().map(|r| r.ms).collect();
    lat.sort_by(f64::total_cmp);
    m.p50_ms = percentile(&lat, 50.0);
    m.p95_ms = percentile(&lat, 95.0);
    m.mean_ms = lat.iter().sum::<f64>() / n;
    if repeat {
        repeat_ms.sort_by(f64::total_cmp);
        ratios.sort_by(f64::total_cmp);
        m.memory_hit_rate = Some(hits as f64 / answered.max(1) as f64);
        m.p50_ms_repeat = Some(percentile(&repeat_ms, 50.0));
        m.repeat_time_ratio = Some(percentile(&ratios, 50.0));
    }
    Ok((m, results))
}

/// Answered share per relevance weighting and threshold, from the per-question signals:
/// the configured weights and two alternatives (no chunk cosine; chunk cosine alone).
pub fn relevance_sweep(
    results: &[QuestionResult],
    cfg: &crate::evidence::verify::RelevanceConfig,
) -> BTreeMap<String, BTreeMap<String, f64>> {
    let mut out = BTreeMap::new();
    let n = results.len().max(1) as f64;
    let weightings = [
        (cfg.cosine_weight, cfg.coverage_weight),
        (0.5, 0.5),
        (0.0, 0.0),
    ];
    for (a, b) in weightings {
        let w = crate::evidence::verify::RelevanceConfig {
            cosine_weight: a,
            coverage_weight: b,
            ..*cfg
        };
        let mut row = BTreeMap::new();
        for ti in 0..=20 {
            let t = 0.30 + ti as f64 * 0.01;
            let answered = results
                .iter()
                .filter(|r| r.signals.iter().any(|&(c, v, k)| w.score(c, v, k) >= t))
                .count();
            row.insert(format!("{t:.2}"), answered as f64 / n);
        }
        out.insert(
            format!("cosine {a:.1} coverage {b:.1} chunk {:.1}", 1.0 - a - b),
            row,
        );
    }
    out
}
