//! `attest ask`: question → guard → retrieve → extract → verify → compose → Evidence Gate
//! → answer, or `no_authoritative_evidence`.
//!
//! Fail closed: when no candidate survives verification, or the composed text fails the
//! gate, the answer is empty and `missing_evidence` says what was searched for and not
//! found. Never an unsupported sentence.
//!
//! Confidence counts distinct statements, not quote instances: identical quotes are one
//! item (their other places are its `locations`) and near-duplicates one statement.
//! `high` with 5 or more distinct statements from two documents or more, `medium` with
//! 2–4 (or 5 or more from one document), `low` with 1, `insufficient` with none; then
//! lowered one level (never below `low`) when the retrieval confidence (mean cosine
//! between the question and the retrieved chunks) is under [`WEAK_RETRIEVAL`].

use std::collections::HashSet;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::engine::Engine;
use crate::error::Error;
use crate::evidence::compose::{compose_diverse, Conflict, Item, Sentence};
use crate::evidence::extract::{extract, Kind};
use crate::evidence::gate::{check, GateConfig, GateResult};
use crate::evidence::verify::{question_terms, verify, Reason, RelevanceConfig, Verdict};
use crate::research::{
    classify, replan, strip_choices, Choice, Class, Classification, Move, StepOutcome,
};
use crate::retrieve::multi::{retrieve, KeywordPrf, MultiOptions, Retrieval};
use crate::text::word_count;

/// Retrieval confidence under which the answer's confidence is lowered one level.
pub const WEAK_RETRIEVAL: f64 = 0.35;

/// Outcome of a question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// An answer made of verified quotes that passed the gate.
    Answered,
    /// Nothing verified: the corpus holds no authoritative evidence for the question.
    NoAuthoritativeEvidence,
    /// The question was not accepted (see `reason`).
    RejectedInput,
}

/// How much verified evidence backs the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    /// No verified evidence.
    Insufficient,
    /// One item.
    Low,
    /// Two to four items.
    Medium,
    /// Five or more.
    High,
}

/// Confidence from the distinct statements verified, the documents stating them and the
/// retrieval confidence. Five or more statements are `high` only when they come from two
/// documents or more (else `medium`): one document repeating itself is one voice.
pub fn confidence(statements: usize, documents: usize, retrieval_confidence: f64) -> Confidence {
    let level = match statements {
        0 => Confidence::Insufficient,
        1 => Confidence::Low,
        2..=4 => Confidence::Medium,
        _ if documents < 2 => Confidence::Medium,
        _ => Confidence::High,
    };
    match level {
        Confidence::High if retrieval_confidence < WEAK_RETRIEVAL => Confidence::Medium,
        Confidence::Medium if retrieval_confidence < WEAK_RETRIEVAL => Confidence::Low,
        l => l,
    }
}

/// Distinct statements among quotes: near-duplicates (content words overlapping by
/// [`crate::evidence::compose::DUPLICATE_JACCARD`] or more, with the same figures) count
/// once.
pub fn distinct_statements(quotes: &[&str]) -> usize {
    use crate::evidence::compose::DUPLICATE_JACCARD;
    use crate::text::figures;
    let mut reps: Vec<(HashSet<String>, Vec<String>)> = Vec::new();
    for q in quotes {
        let words: HashSet<String> = crate::text::content_words(q).into_iter().collect();
        let figs = figures(q);
        let same = reps.iter().any(|(w, f)| {
            let union = w.union(&words).count().max(1);
            *f == figs && w.intersection(&words).count() as f64 / union as f64 >= DUPLICATE_JACCARD
        });
        if !same {
            reps.push((words, figs));
        }
    }
    reps.len()
}

/// Another place that states an evidence item's quote byte for byte (identical quotes
/// collapse into one item; every place is kept).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Location {
    /// Stable key from (document content hash, start, end).
    pub evidence_key: String,
    /// Document id.
    pub doc_id: String,
    /// Document key within its file (BEIR `_id`), omitted when empty.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub key: String,
    /// Source path.
    pub source: String,
    /// Byte offset in the document text.
    pub start: usize,
    /// End byte offset (exclusive).
    pub end: usize,
    /// 1-based line of `start`.
    pub line: usize,
    /// sha256 of the document text.
    pub content_hash: String,
}

impl EvidenceItem {
    /// Document keys of every place the item states its quote (its own first).
    pub fn keys(&self) -> impl Iterator<Item = &String> {
        std::iter::once(&self.key).chain(self.locations.iter().map(|l| &l.key))
    }
}

impl Location {
    fn of(c: &crate::evidence::extract::Candidate) -> Self {
        Location {
            evidence_key: c.evidence_key(),
            doc_id: c.doc_id.clone(),
            key: c.key.clone(),
            source: c.source.clone(),
            start: c.start,
            end: c.end,
            line: c.line,
            content_hash: c.content_hash.clone(),
        }
    }
}

/// Collapse verdicts whose quotes are identical and whose verdicts agree (verified, or
/// rejected for the same reason) into the first of them in `order`. Returns the kept
/// indexes in order and, per kept index, the indexes collapsed into it.
fn collapse_identical(
    verdicts: &[Verdict],
    order: Vec<usize>,
) -> (Vec<usize>, std::collections::HashMap<usize, Vec<usize>>) {
    let mut first: std::collections::HashMap<(Option<Reason>, &str), usize> = Default::default();
    let mut kept = Vec::new();
    let mut members: std::collections::HashMap<usize, Vec<usize>> = Default::default();
    for i in order {
        let v = &verdicts[i];
        let key = (
            v.rejected.as_ref().map(|r| r.reason),
            v.candidate.quote.as_str(),
        );
        match first.get(&key) {
            Some(&lead) => members.entry(lead).or_default().push(i),
            None => {
                first.insert(key, i);
                kept.push(i);
            }
        }
    }
    (kept, members)
}

/// A verified evidence item as the answer lists it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EvidenceItem {
    /// Run-local id (`E1`).
    pub id: String,
    /// Stable key from (document content hash, start, end).
    pub evidence_key: String,
    /// Document id.
    pub doc_id: String,
    /// Document key within its file (BEIR `_id`), omitted when empty.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub key: String,
    /// Source path.
    pub source: String,
    /// Document title.
    pub title: String,
    /// Chunk the quote came from.
    pub chunk_id: String,
    /// The verbatim quote.
    pub quote: String,
    /// Byte offset in the document text.
    pub start: usize,
    /// End byte offset (exclusive).
    pub end: usize,
    /// 1-based line of `start`.
    pub line: usize,
    /// Requirement or statement.
    pub kind: Kind,
    /// Relevance to the question.
    pub score: f64,
    /// Research step.
    pub step: usize,
    /// sha256 of the document text.
    pub content_hash: String,
    /// Other places stating the same quote byte for byte (identical quotes are one item).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub locations: Vec<Location>,
}

/// A rejected candidate.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RejectedItem {
    /// Run-local id.
    pub id: String,
    /// Why.
    pub reason: Reason,
    /// Explanation.
    pub rationale: String,
    /// Source path.
    pub source: String,
    /// 1-based line.
    pub line: usize,
    /// The quote.
    pub quote: String,
    /// Relevance score.
    pub score: f64,
}

/// One research step.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Step {
    /// 1-based.
    pub step: usize,
    /// The question this step searched for.
    pub question: String,
    /// How the planner chose it: `first`, `next_step` or `retry`.
    pub action: String,
    /// Why.
    pub reason: String,
    /// Evidence items this step verified.
    pub verified: usize,
    /// Primary query and alternatives.
    pub queries: Vec<String>,
    /// Chunk ids retrieved.
    pub retrieved: Vec<String>,
    /// Mean cosine between question and retrieved chunks.
    pub confidence: f64,
    /// `completed` (it verified evidence) or `failed`.
    pub status: String,
}

/// How the question was researched.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Research {
    /// `simple` or `multi_hop`, and why.
    #[serde(flatten)]
    pub classification: Classification,
    /// Why the loop stopped.
    pub stopped: String,
    /// Answer choices found in the question (stripped before research).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<Choice>,
}

/// Timings and counters of a run.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Metrics {
    /// Milliseconds per stage (`retrieve`, `extract`, `verify`, `compose`, `gate`, `total`).
    pub timings_ms: std::collections::BTreeMap<String, f64>,
    /// Generator calls (0: extractive).
    pub generator_calls: usize,
    /// Whether a QA memory answered.
    pub memory_hit: bool,
    /// Candidates extracted.
    pub candidates: usize,
    /// Candidates verified.
    pub verified: usize,
    /// The prompt-injection guard's finding on the question (`null`: clean).
    pub injection: Option<crate::guard::Screen>,
}

/// The answer (design.md §3, "Answer JSON").
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Answer {
    /// The question as asked.
    pub question: String,
    /// Outcome.
    pub status: Status,
    /// Why the input was rejected (only for `rejected_input`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The cited answer (empty unless answered).
    pub answer: String,
    /// Its sentences with their citations.
    pub sentences: Vec<Sentence>,
    /// Cited evidence items.
    pub evidence: Vec<EvidenceItem>,
    /// Conflicting figures among the cited items.
    pub conflicts: Vec<Conflict>,
    /// Rejected candidates with reasons.
    pub rejected: Vec<RejectedItem>,
    /// What was searched for and not found (when not answered).
    pub missing_evidence: Vec<String>,
    /// Evidence-based confidence.
    pub confidence: Confidence,
    /// The Evidence Gate's result on `answer`.
    pub gate: GateResult,
    /// Research steps.
    pub steps: Vec<Step>,
    /// Classification and stop reason of the research loop.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub research: Option<Research>,
    /// What the generator wrote and what became of it (only when one is configured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phrasing: Option<crate::evidence::phrase::Phrasing>,
    /// For a question with answer choices: the selection (`selected` null when the
    /// evidence cannot decide) and a cited line per choice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choice: Option<crate::research::choice::Selection>,
    /// Timings and counters.
    pub metrics: Metrics,
}

/// Everything a run saw, for the audit trail: the answer plus the full retrieval, every
/// candidate with its relevance and verdict, and items verified but not used.
#[derive(Debug, Clone, Serialize)]
pub struct Run {
    /// The answer.
    #[serde(flatten)]
    pub answer: Answer,
    /// Full retrieval per step (queries, chunks with scores).
    pub retrieval: Vec<Retrieval>,
    /// Every candidate, with its run-local id, relevance and verdict.
    pub candidates: Vec<Candidate>,
    /// Verified items the answer did not use, and why.
    pub unused: Vec<(String, String)>,
}

/// A candidate of the audit trail: its run-local id and verdict.
#[derive(Debug, Clone, Serialize)]
pub struct Candidate {
    /// Run-local id.
    pub id: String,
    /// Candidate, relevance and verdict.
    #[serde(flatten)]
    pub verdict: Verdict,
    /// For a candidate whose quote is byte for byte another's: the item it was collapsed
    /// into (its place is one of that item's `locations`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub same_quote_as: Option<String>,
}

/// Options of a run (from [`crate::config::Config`] by default).
#[derive(Debug, Clone)]
pub struct AskOptions {
    /// Chunks retrieved.
    pub chunks: usize,
    /// Distinct statements per answer.
    pub max_statements: usize,
    /// Relevance thresholds.
    pub relevance: RelevanceConfig,
    /// Gate thresholds.
    pub gate: GateConfig,
    /// Longest question, in words.
    pub max_question_words: usize,
    /// Use the cross-encoder when one is installed.
    pub rerank: bool,
    /// Run the research loop for multi-hop questions (else every question is one step).
    pub research: bool,
    /// Use the QA memory (serve and store answers).
    pub memory: bool,
    /// Cosine between questions at or above which a stored answer is served.
    pub memory_threshold: f64,
    /// Let the engine's generator, when one is configured, phrase the answer.
    pub generate: bool,
}

impl AskOptions {
    /// Options from the engine's configuration.
    pub fn from_config(cfg: &crate::config::Config) -> Self {
        AskOptions {
            chunks: cfg.ask_chunks.max(1),
            max_statements: cfg.max_statements.max(1),
            relevance: RelevanceConfig {
                min_relevance: cfg.min_relevance,
                cosine_weight: cfg.cosine_weight,
                coverage_weight: cfg.coverage_weight,
                min_cross_relevance: cfg.min_cross_relevance,
                embed_budget: cfg.embed_budget,
            },
            gate: GateConfig::default(),
            max_question_words: cfg.max_question_words,
            rerank: true,
            research: true,
            memory: cfg.memory,
            memory_threshold: cfg.memory_threshold,
            generate: true,
        }
    }
}

fn ms(t: Instant) -> f64 {
    (t.elapsed().as_secs_f64() * 1e5).round() / 100.0
}

fn empty_answer(question: &str, status: Status) -> Answer {
    Answer {
        question: question.to_string(),
        status,
        reason: None,
        answer: String::new(),
        sentences: Vec::new(),
        evidence: Vec::new(),
        conflicts: Vec::new(),
        rejected: Vec::new(),
        missing_evidence: Vec::new(),
        confidence: Confidence::Insufficient,
        gate: check("", &HashSet::new(), &GateConfig::default()),
        steps: Vec::new(),
        research: None,
        choice: None,
        phrasing: None,
        metrics: Metrics::default(),
    }
}

impl Run {
    /// A run that did no work: the answer alone (a rejected question, a memory hit).
    fn answer_only(answer: Answer) -> Run {
        Run {
            answer,
            retrieval: Vec::new(),
            candidates: Vec::new(),
            unused: Vec::new(),
        }
    }
}

/// A `rejected_input` run with `reason`.
fn rejected(question: &str, reason: String) -> Run {
    let mut a = empty_answer(question, Status::RejectedInput);
    a.reason = Some(reason);
    Run::answer_only(a)
}

fn add_time(timings: &mut std::collections::BTreeMap<String, f64>, stage: &str, t: Instant) {
    *timings.entry(stage.to_string()).or_insert(0.0) += ms(t);
}

/// Completed steps after which the loop stops.
pub const MAX_COMPLETED_STEPS: usize = 3;
/// Iterations (completed or failed steps) after which the loop stops.
pub const MAX_ITERATIONS: usize = 4;
/// Statements one document contributes to a step of a multi-hop answer.
pub const MULTI_HOP_STATEMENTS_PER_DOCUMENT: usize = 2;
/// Most answer choices accepted.
pub const MAX_CHOICES: usize = 10;

/// Reject a question that is only answer choices, or has too many.
fn guard_choices(stem: &str, choices: &[Choice]) -> Option<String> {
    if !choices.is_empty() && !stem.chars().any(char::is_alphanumeric) {
        return Some("the question is only answer choices".into());
    }
    if choices.len() > MAX_CHOICES {
        return Some(format!(
            "the question has {} answer choices; at most {MAX_CHOICES} are accepted",
            choices.len()
        ));
    }
    None
}

/// Check the question before anything runs: `Some(reason)` when it is not accepted.
pub fn guard(question: &str, opts: &AskOptions) -> Option<String> {
    let q = question.trim();
    if q.is_empty() {
        return Some("the question is empty".into());
    }
    let n = word_count(q);
    if n > opts.max_question_words {
        return Some(format!(
            "the question has {n} words; the limit is {} (max_question_words)",
            opts.max_question_words
        ));
    }
    if !q.chars().any(char::is_alphanumeric) {
        return Some("the question has no words".into());
    }
    None
}

/// Answer `question` from the engine's index.
pub fn ask(engine: &Engine, question: &str, opts: &AskOptions) -> Result<Run, Error> {
    let t0 = Instant::now();
    let mut timings = std::collections::BTreeMap::new();
    if let Some(reason) = guard(question, opts) {
        return Ok(rejected(question, reason));
    }
    if let Some(hit) = crate::guard::screen(question) {
        let reason = format!(
            "possible prompt injection ({}: \"{}\"); questions are answered from the documents only",
            hit.kind, hit.matched
        );
        let mut run = rejected(question, reason);
        run.answer.metrics.injection = Some(hit);
        return Ok(run);
    }
    let (stem, choices) = strip_choices(question);
    let q = stem.trim();
    if let Some(reason) = guard_choices(q, &choices) {
        return Ok(rejected(question, reason));
    }
    // QA memory: a stored answer to the same question, if its quotes still stand.
    // Only default-mode answers (research loop on) are stored and served.
    let generator = engine.generator().filter(|_| opts.generate);
    // Phrased answers are not cached: the memory serves default (extractive) runs only.
    let memory_vec = if opts.memory && opts.research && choices.is_empty() && generator.is_none() {
        let v = engine.embed_query(q)?;
        let fp = crate::memory::fingerprint(engine, opts);
        if let Some(hit) =
            crate::memory::lookup(engine.store(), question, &fp, &v, opts.memory_threshold)?
        {
            let mut answer = hit.answer;
            answer.question = question.to_string();
            answer.metrics.timings_ms.insert("total".into(), ms(t0));
            return Ok(Run::answer_only(answer));
        }
        Some((v, fp))
    } else {
        None
    };
    let reranker = if opts.rerank { engine.reranker() } else { None };
    let classification = if opts.research {
        classify(q)
    } else {
        crate::research::Classification {
            class: Class::Simple,
            reason: "research loop off".into(),
        }
    };
    let mopts = MultiOptions {
        k: opts.chunks,
        rerank_depth: engine.config().rerank_depth,
        per_document: engine.config().max_chunks_per_document,
        ..MultiOptions::default()
    };
    // The research loop: plan, execute, evaluate, replan (multi-hop only).
    let mut steps: Vec<Step> = Vec::new();
    let mut outcomes: Vec<StepOutcome> = Vec::new();
    let mut retrievals: Vec<Retrieval> = Vec::new();
    let mut verdicts: Vec<Verdict> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let (mut iterations, mut failures_in_row, mut n_candidates) = (0, 0, 0);
    let mut next = replan(q, &[]);
    let stop_reason: String;
    let mut focus_entity: Option<String>;
    loop {
        focus_entity = None;
        let (sub_q, action, why) = match &next {
            Move::NextStep {
                question,
                reason,
                entity,
            } => {
                focus_entity = entity.clone();
                (question.clone(), "next_step", reason.clone())
            }
            Move::Retry { question } => (question.clone(), "retry", "the last step failed".into()),
            Move::Complete { reason } => {
                stop_reason = reason.clone();
                break;
            }
        };
        iterations += 1;
        let step_no = steps.len() + 1;
        let t = Instant::now();
        let retrieval = retrieve(
            engine,
            &sub_q,
            &KeywordPrf::default(),
            &seen,
            reranker,
            &mopts,
        )?;
        add_time(&mut timings, "retrieve", t);
        seen.extend(retrieval.hits.iter().map(|h| h.chunk.chunk_id.clone()));
        let t = Instant::now();
        let chunks: Vec<_> = retrieval.hits.iter().map(|h| h.chunk.clone()).collect();
        let mut candidates = extract(engine.store(), &chunks, step_no)?;
        for c in candidates.iter_mut() {
            c.chunk_cosine = retrieval.hits[c.chunk_rank - 1].cosine;
        }
        // A step about an entity also reconsiders what earlier steps rejected as off the
        // question but which mentions the entity: a bridge's second paragraph is often
        // retrieved by the first step, judged against the whole question, and excluded
        // from later retrievals. It is scored again against this step's question.
        let mut revisited: HashSet<(String, usize, usize)> = HashSet::new();
        if let Some(e) = &focus_entity {
            let mut again: Vec<crate::evidence::extract::Candidate> = verdicts
                .iter()
                .filter(|v| {
                    v.rejected
                        .as_ref()
                        .is_some_and(|r| r.reason == Reason::DoesNotAddressQuestion)
                        && (about_entity(e, &v.candidate.quote)
                            || about_entity(e, &v.candidate.title))
                })
                .map(|v| v.candidate.clone())
                .collect();
            if !again.is_empty() {
                let rows: std::collections::HashMap<&str, i64> = retrievals
                    .iter()
                    .flat_map(|r| {
                        r.hits
                            .iter()
                            .map(|h| (h.chunk.chunk_id.as_str(), h.chunk.row))
                    })
                    .collect();
                let ids: Vec<i64> = again
                    .iter()
                    .map(|c| rows.get(c.chunk_id.as_str()).copied().unwrap_or(-1))
                    .collect();
                let vecs = engine.store().vectors_by_ids(&ids)?;
                let qv = engine.embed_query(&sub_q)?;
                for (c, v) in again.iter_mut().zip(vecs) {
                    c.step = step_no;
                    c.chunk_cosine = v.map_or(0.0, |v| crate::models::dot(&qv, &v) as f64);
                    revisited.insert((c.doc_id.clone(), c.start, c.end));
                }
                candidates.extend(again);
            }
        }
        add_time(&mut timings, "extract", t);
        let t = Instant::now();
        n_candidates += candidates.len();
        let mut step_verdicts = verify(
            engine.store(),
            &sub_q,
            candidates,
            engine.embedder(),
            reranker,
            &opts.relevance,
        )?;
        add_time(&mut timings, "verify", t);
        // A step about an entity (a bridge, a compared thing) keeps only evidence whose
        // quote or document title mentions a word of its name.
        if let Some(e) = &focus_entity {
            for v in step_verdicts.iter_mut() {
                if v.rejected.is_none()
                    && !about_entity(e, &v.candidate.quote)
                    && !about_entity(e, &v.candidate.title)
                {
                    v.rejected = Some(crate::evidence::verify::Rejection {
                        reason: Reason::DoesNotAddressQuestion,
                        rationale: format!(
                            "step {step_no} researches {e:?}, which the quote does not mention"
                        ),
                    });
                }
            }
        }
        // A reconsidered candidate replaces its earlier verdict when it now passes; when
        // it still fails, the earlier verdict stands.
        if !revisited.is_empty() {
            let span = |v: &Verdict| {
                (
                    v.candidate.doc_id.clone(),
                    v.candidate.start,
                    v.candidate.end,
                )
            };
            let passed: HashSet<(String, usize, usize)> = step_verdicts
                .iter()
                .filter(|v| v.rejected.is_none() && revisited.contains(&span(v)))
                .map(span)
                .collect();
            verdicts.retain(|v| !passed.contains(&span(v)));
            step_verdicts.retain(|v| v.rejected.is_none() || !revisited.contains(&span(v)));
        }
        step_verdicts.sort_by(|a, b| {
            a.rejected
                .is_some()
                .cmp(&b.rejected.is_some())
                .then(b.relevance.score.total_cmp(&a.relevance.score))
                .then(a.candidate.chunk_rank.cmp(&b.candidate.chunk_rank))
                .then(a.candidate.start.cmp(&b.candidate.start))
        });
        let good: Vec<String> = step_verdicts
            .iter()
            .filter(|v| v.rejected.is_none())
            .map(|v| v.candidate.quote.clone())
            .collect();
        // Evaluate: a step is completed when it verified evidence (relevance at or above
        // the calibrated threshold); otherwise failed.
        let completed = !good.is_empty();
        failures_in_row = if completed { 0 } else { failures_in_row + 1 };
        steps.push(Step {
            step: step_no,
            question: sub_q.clone(),
            action: if step_no == 1 {
                "first".into()
            } else {
                action.into()
            },
            reason: why,
            queries: retrieval.queries.clone(),
            retrieved: retrieval
                .hits
                .iter()
                .map(|h| h.chunk.chunk_id.clone())
                .collect(),
            confidence: retrieval.confidence,
            verified: good.len(),
            status: if completed { "completed" } else { "failed" }.into(),
        });
        let verified_docs: HashSet<&str> = step_verdicts
            .iter()
            .filter(|v| v.rejected.is_none())
            .map(|v| v.candidate.doc_id.as_str())
            .collect();
        let mut titles: Vec<String> = Vec::new();
        for h in &retrieval.hits {
            if !verified_docs.contains(h.chunk.doc_id.as_str()) && !titles.contains(&h.chunk.title)
            {
                titles.push(h.chunk.title.clone());
            }
        }
        outcomes.push(StepOutcome {
            reason: steps.last().map(|st| st.reason.clone()).unwrap_or_default(),
            question: sub_q,
            completed,
            verified: good,
            titles,
        });
        retrievals.push(retrieval);
        verdicts.extend(step_verdicts);
        let done = outcomes.iter().filter(|o| o.completed).count();
        if classification.class == Class::Simple {
            stop_reason = "simple question: one step".into();
            break;
        }
        if done >= MAX_COMPLETED_STEPS || iterations >= MAX_ITERATIONS || failures_in_row >= 3 {
            stop_reason = format!(
                "cap reached ({done} completed steps, {iterations} iterations, {failures_in_row} failures in a row)"
            );
            break;
        }
        next = replan(q, &outcomes);
    }
    let retrieval_confidence = retrievals.first().map_or(0.0, |r| r.confidence);
    // Ids: verified items by relevance first (E1 is the best), then rejected ones.
    let t = Instant::now();
    let mut order: Vec<usize> = (0..verdicts.len()).collect();
    order.sort_by(|&a, &b| {
        let (va, vb) = (&verdicts[a], &verdicts[b]);
        va.rejected
            .is_some()
            .cmp(&vb.rejected.is_some())
            .then(va.candidate.step.cmp(&vb.candidate.step))
            .then(vb.relevance.score.total_cmp(&va.relevance.score))
            .then(va.candidate.chunk_rank.cmp(&vb.candidate.chunk_rank))
            .then(va.candidate.start.cmp(&vb.candidate.start))
    });
    // Identical quotes (a document repeating itself, or two documents quoting the same
    // text) are one item with every place kept as a location.
    let (order, members) = collapse_identical(&verdicts, order);
    let mut ided: Vec<(String, Verdict)> = Vec::with_capacity(order.len());
    let mut locations: std::collections::HashMap<String, Vec<Location>> = Default::default();
    let mut slots: Vec<Option<Verdict>> = verdicts.into_iter().map(Some).collect();
    let mut collapsed: Vec<(String, Verdict)> = Vec::new();
    for (n, i) in order.into_iter().enumerate() {
        let id = format!("E{}", n + 1);
        for &m in members.get(&i).into_iter().flatten() {
            let v = slots[m].take().expect("each once");
            locations
                .entry(id.clone())
                .or_default()
                .push(Location::of(&v.candidate));
            collapsed.push((id.clone(), v));
        }
        ided.push((id, slots[i].take().expect("each once")));
    }
    let verified: Vec<&(String, Verdict)> =
        ided.iter().filter(|(_, v)| v.rejected.is_none()).collect();
    let items: Vec<Item> = verified
        .iter()
        .map(|(id, v)| Item {
            id: id.clone(),
            doc_id: v.candidate.doc_id.clone(),
            step: v.candidate.step,
            quote: v.candidate.quote.clone(),
            start: v.candidate.start,
            end: v.candidate.end,
        })
        .collect();
    let mut items = items;
    // Multi-hop answers spread their statements over the documents each step verified.
    let per_doc = if classification.class == Class::MultiHop {
        MULTI_HOP_STATEMENTS_PER_DOCUMENT
    } else {
        usize::MAX
    };
    let mut first = compose_diverse(&items, opts.max_statements, per_doc);
    // Sentences the gate rejects are dropped with the items they cite, and the rest is
    // composed again (at most three rounds); what still fails is withheld below.
    let mut dropped: Vec<(String, String)> = Vec::new();
    for _ in 0..3 {
        let cited: HashSet<String> = first.cited.iter().cloned().collect();
        let g = check(&first.answer, &cited, &opts.gate);
        if g.passed {
            break;
        }
        let mut drop: Vec<(String, String)> = Vec::new();
        for v in g.violations.iter().filter(|v| v.severity == "error") {
            if let Some(sent) = &v.sentence {
                for s in &first.sentences {
                    if sent.contains(sentence_body(&s.text)) || s.text.contains(sent.as_str()) {
                        for id in &s.citations {
                            drop.push((id.clone(), format!("dropped by the gate: {}", v.message)));
                        }
                    }
                }
            } else if v.kind == "low_citation_density" {
                // The longest cited quote carries the fewest citations per word.
                if let Some(it) = items
                    .iter()
                    .filter(|i| cited.contains(&i.id))
                    .max_by_key(|i| (word_count(&i.quote), std::cmp::Reverse(i.id.clone())))
                {
                    drop.push((it.id.clone(), format!("dropped by the gate: {}", v.message)));
                }
            }
        }
        if drop.is_empty() {
            break;
        }
        items.retain(|i| !drop.iter().any(|(id, _)| *id == i.id));
        dropped.extend(drop);
        first = compose_diverse(&items, opts.max_statements, per_doc);
    }
    // Renumber so the answer reads E1, E2, … in order: cited items first, then the other
    // verified items, then the rejected ones; compose again under the new ids (the same
    // items in the same order give the same text).
    let mut names: Vec<String> = first.cited.clone();
    for (id, _) in &ided {
        if !names.contains(id) {
            names.push(id.clone());
        }
    }
    let rename: std::collections::HashMap<String, String> = names
        .into_iter()
        .enumerate()
        .map(|(n, old)| (old, format!("E{}", n + 1)))
        .collect();
    for (id, _) in ided.iter_mut() {
        *id = rename[id.as_str()].clone();
    }
    let locations: std::collections::HashMap<String, Vec<Location>> = locations
        .into_iter()
        .map(|(id, l)| (rename[id.as_str()].clone(), l))
        .collect();
    for (id, _) in collapsed.iter_mut() {
        *id = rename[id.as_str()].clone();
    }
    let items: Vec<Item> = items
        .into_iter()
        .map(|mut it| {
            it.id = rename[it.id.as_str()].clone();
            it
        })
        .collect();
    let composition = compose_diverse(&items, opts.max_statements, per_doc);
    ided.sort_by_key(|(id, _)| id[1..].parse::<usize>().unwrap_or(usize::MAX));
    let verified: Vec<&(String, Verdict)> =
        ided.iter().filter(|(_, v)| v.rejected.is_none()).collect();
    timings.insert("compose".to_string(), ms(t));
    let t = Instant::now();
    let cited: HashSet<String> = composition.cited.iter().cloned().collect();
    let mut gate = check(&composition.answer, &cited, &opts.gate);
    // Verbatim invariant on the composed text: every sentence, less its citation and
    // final mark, lies inside the quote of an item it cites (the others it cites hold it
    // too, or are near-duplicates merged into it).
    for s in &composition.sentences {
        let body = sentence_body(&s.text);
        let inside = s.citations.iter().any(|id| {
            ided.iter().find(|(i, _)| i == id).is_some_and(|(_, v)| {
                crate::evidence::gate::neutralise_markers(&v.candidate.quote).contains(body)
            })
        });
        if !inside {
            gate.passed = false;
            gate.violations.push(crate::evidence::gate::Violation {
                kind: "not_verbatim".into(),
                paragraph: None,
                sentence: Some(s.text.clone()),
                message: "the sentence is not inside the quote of any item it cites".into(),
                severity: "error".into(),
            });
        }
    }
    timings.insert("gate".to_string(), ms(t));
    let rejected: Vec<RejectedItem> = ided
        .iter()
        .filter_map(|(id, v)| {
            v.rejected.as_ref().map(|r| RejectedItem {
                id: id.clone(),
                reason: r.reason,
                rationale: r.rationale.clone(),
                source: v.candidate.source.clone(),
                line: v.candidate.line,
                quote: v.candidate.quote.clone(),
                score: v.relevance.score,
            })
        })
        .collect();
    let answered = !composition.cited.is_empty() && gate.passed;
    let mut generator_calls = 0;
    let mut answer = empty_answer(q, Status::NoAuthoritativeEvidence);
    answer.question = question.to_string();
    answer.rejected = rejected;
    answer.steps = steps;
    answer.research = Some(Research {
        classification,
        stopped: stop_reason,
        choices: choices.clone(),
    });
    answer.gate = gate;
    if answered {
        answer.status = Status::Answered;
        answer.answer = composition.answer.clone();
        answer.sentences = composition.sentences.clone();
        answer.conflicts = composition.conflicts.clone();
        answer.evidence = composition
            .cited
            .iter()
            .filter_map(|id| ided.iter().find(|(i, _)| i == id))
            .map(|(id, v)| {
                let c = &v.candidate;
                EvidenceItem {
                    id: id.clone(),
                    evidence_key: c.evidence_key(),
                    doc_id: c.doc_id.clone(),
                    key: c.key.clone(),
                    source: c.source.clone(),
                    title: c.title.clone(),
                    chunk_id: c.chunk_id.clone(),
                    quote: c.quote.clone(),
                    start: c.start,
                    end: c.end,
                    line: c.line,
                    kind: c.kind,
                    score: (v.relevance.score * 1e4).round() / 1e4,
                    step: c.step,
                    content_hash: c.content_hash.clone(),
                    locations: locations.get(id).cloned().unwrap_or_default(),
                }
            })
            .collect();
        let quotes: Vec<&str> = verified
            .iter()
            .map(|(_, v)| v.candidate.quote.as_str())
            .collect();
        let documents: HashSet<&str> = verified
            .iter()
            .map(|(id, v)| (id, v.candidate.doc_id.as_str()))
            .flat_map(|(id, d)| {
                let more = locations
                    .get(id)
                    .into_iter()
                    .flatten()
                    .map(|l| l.doc_id.as_str());
                std::iter::once(d).chain(more)
            })
            .collect();
        answer.confidence = confidence(
            distinct_statements(&quotes),
            documents.len(),
            retrieval_confidence,
        );
        if let Some(g) = generator {
            let t = Instant::now();
            let quotes: Vec<(String, String)> = answer
                .evidence
                .iter()
                .map(|e| (e.id.clone(), e.quote.clone()))
                .collect();
            let mut g = g.lock().map_err(|_| {
                Error::Model(crate::models::ModelError::Input(
                    "the generator is unusable: an earlier run panicked while holding it".into(),
                ))
            })?;
            let (phrased, record) = crate::evidence::phrase::phrase(
                &mut *g,
                q,
                &quotes,
                &answer.answer,
                engine.embedder(),
                &crate::evidence::support::SupportConfig::default(),
                &opts.gate,
            )?;
            generator_calls += 1;
            if let Some(p) = phrased {
                answer.answer = p.answer;
                answer.sentences = p.sentences;
                answer.gate = p.gate;
            }
            answer.phrasing = Some(record);
            timings.insert("phrase".to_string(), ms(t));
        }
    } else {
        answer.missing_evidence =
            missing(&answer.steps, &retrievals, &ided, answer.gate.passed, opts);
    }
    answer.metrics = Metrics {
        timings_ms: timings,
        generator_calls,
        memory_hit: false,
        candidates: n_candidates,
        verified: verified.len(),
        injection: None,
    };
    answer
        .metrics
        .timings_ms
        .insert("total".to_string(), ms(t0));
    if !choices.is_empty() && answer.status == Status::Answered {
        let items: Vec<(String, String)> = answer
            .evidence
            .iter()
            .map(|e| (e.id.clone(), e.quote.clone()))
            .collect();
        answer.choice = Some(crate::research::choice::select(&choices, &items));
    } else if !choices.is_empty() {
        answer.choice = Some(crate::research::choice::select(&choices, &[]));
    }
    if let Some((v, fp)) = memory_vec {
        crate::memory::remember(engine.store(), &v, &fp, &answer)?;
    }
    Ok(Run {
        answer,
        retrieval: retrievals,
        candidates: ided
            .into_iter()
            .map(|(id, verdict)| Candidate {
                id,
                verdict,
                same_quote_as: None,
            })
            .chain(collapsed.into_iter().map(|(id, verdict)| Candidate {
                id: id.clone(),
                verdict,
                same_quote_as: Some(id),
            }))
            .collect(),
        unused: composition
            .unused
            .into_iter()
            .chain(
                dropped
                    .into_iter()
                    .map(|(id, why)| (rename[id.as_str()].clone(), why)),
            )
            .collect(),
    })
}

/// Whether `text` mentions a word (4+ letters, not a stop word) of `entity`'s name.
fn about_entity(entity: &str, text: &str) -> bool {
    crate::text::words(entity).iter().any(|w| {
        w.chars().count() >= 4 && !crate::text::is_stopword(w) && crate::research::mentions(text, w)
    })
}

/// A composed sentence less its citation and final mark: the part that must be verbatim.
pub fn sentence_body(sentence: &str) -> &str {
    match sentence.rfind(" [") {
        Some(i) => &sentence[..i],
        None => sentence,
    }
}

/// What was searched for and not found.
fn missing(
    steps: &[Step],
    retrievals: &[Retrieval],
    ided: &[(String, Verdict)],
    gate_passed: bool,
    opts: &AskOptions,
) -> Vec<String> {
    let mut out = Vec::new();
    for (st, r) in steps.iter().zip(retrievals) {
        if st.status == "completed" {
            continue;
        }
        out.push(format!(
            "verbatim evidence that addresses: {} (step {}, searched as: {})",
            st.question,
            st.step,
            r.queries.join(" | ")
        ));
        let text: String = r
            .hits
            .iter()
            .map(|h| h.chunk.text.to_lowercase())
            .collect::<Vec<_>>()
            .join(" ");
        let have: HashSet<String> = crate::text::content_words(&text).into_iter().collect();
        let absent: Vec<String> = question_terms(&st.question)
            .into_iter()
            .filter(|t| !have.contains(t))
            .take(12)
            .collect();
        if !absent.is_empty() {
            out.push(format!(
                "no retrieved passage mentions: {}",
                absent.join(", ")
            ));
        }
    }
    let n_incomplete = ided
        .iter()
        .filter(|(_, v)| {
            v.rejected
                .as_ref()
                .is_some_and(|r| r.reason == Reason::IncompleteQuote)
                && v.relevance.score >= opts.relevance.min_relevance
        })
        .count();
    if n_incomplete > 0 {
        out.push(format!(
            "{n_incomplete} relevant passage(s) were not self-contained, so not quoted (see rejected)"
        ));
    }
    if !gate_passed {
        out.push("the composed text failed the Evidence Gate (see gate)".into());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use proptest::prelude::*;
    use proptest::test_runner::{Config as PropConfig, TestRunner};

    use crate::engine::sample_engine;

    fn opts() -> AskOptions {
        let mut o = AskOptions::from_config(&Config::default());
        o.relevance.min_relevance = 0.3;
        o
    }

    /// The invariants of every run, checked against the store.
    fn check_invariants(e: &Engine, run: &Run) -> Result<(), TestCaseError> {
        let a = &run.answer;
        let ids: HashSet<&str> = a.evidence.iter().map(|x| x.id.as_str()).collect();
        for x in &a.evidence {
            let text = e.store().document_text(&x.doc_id).unwrap().unwrap();
            prop_assert_eq!(&text[x.start..x.end], x.quote.as_str());
        }
        for c in crate::evidence::gate::citations(&a.answer) {
            prop_assert!(ids.contains(c.id.as_str()), "unknown id {}", c.id);
        }
        for s in &a.sentences {
            prop_assert!(!s.citations.is_empty());
            let body = sentence_body(&s.text);
            prop_assert!(a
                .evidence
                .iter()
                .any(|x| s.citations.contains(&x.id) && x.quote.contains(body)));
        }
        match a.status {
            Status::Answered => {
                prop_assert!(a.gate.passed && !a.evidence.is_empty());
                prop_assert!(a.confidence > Confidence::Insufficient);
            }
            _ => {
                prop_assert!(a.answer.is_empty() && a.sentences.is_empty());
                prop_assert_eq!(a.confidence, Confidence::Insufficient);
            }
        }
        // Ids are E1..En, each once, over evidence, rejected and the audit's candidates.
        let mut all: Vec<usize> = run
            .candidates
            .iter()
            .map(|c| c.id[1..].parse().unwrap())
            .collect();
        all.sort_unstable();
        prop_assert_eq!(all, (1..=run.candidates.len()).collect::<Vec<_>>());
        Ok(())
    }

    #[test]
    fn every_answer_keeps_the_invariants() {
        let tmp = tempfile::tempdir().unwrap();
        let e = sample_engine(tmp.path());
        let o = opts();
        let word = prop_oneof![
            Just("records".to_string()),
            Just("retained".to_string()),
            Just("youth".to_string()),
            Just("assessment".to_string()),
            Just("grievance".to_string()),
            Just("days".to_string()),
            Just("must".to_string()),
            Just("This".to_string()),
            Just("§".to_string()),
            "[a-z]{2,9}",
        ];
        let mut runner = TestRunner::new(PropConfig::with_cases(40));
        runner
            .run(&proptest::collection::vec(word, 1..14), |w| {
                let q = w.join(" ");
                let run = ask(&e, &q, &o).unwrap();
                check_invariants(&e, &run)
            })
            .unwrap();
    }

    #[test]
    fn a_generator_phrases_checked_sentences_or_the_extractive_answer_stands() {
        use crate::models::generate::ScriptedGenerator;
        use std::sync::{Arc, Mutex};
        let tmp = tempfile::tempdir().unwrap();
        let mut e = sample_engine(tmp.path());
        let q = "How long must client records be retained?";
        let mut o = opts();
        o.memory = false;
        let plain = ask(&e, q, &o).unwrap().answer;
        assert_eq!(plain.status, Status::Answered);
        let first = &plain.sentences[0];
        let body = sentence_body(&first.text);
        let id = &first.citations[0];
        // One sentence the evidence states (reworded only by its connective), one it
        // does not, one uncited.
        let reply = format!(
            "In short, {} [{id}]. Housing payments go to landlords every month [{id}]. Records matter.",
            body.trim_end_matches('.')
        );
        let g = Arc::new(Mutex::new(ScriptedGenerator::new(&[
            reply.as_str(),
            "No idea.",
        ])));
        e.set_generator(Some(g.clone()));
        let run = ask(&e, q, &o).unwrap();
        let a = &run.answer;
        let p = a.phrasing.as_ref().expect("phrasing recorded");
        assert_eq!(p.outcome, "phrased", "{p:?}");
        assert_eq!(a.metrics.generator_calls, 1);
        assert_eq!(a.sentences.len(), 1, "{:?}", a.sentences);
        assert!(a.answer.starts_with("In short,"));
        assert_eq!(p.dropped.len(), 2);
        assert_eq!(p.extractive, plain.answer);
        assert!(a.gate.passed);
        assert_eq!(a.evidence.len(), plain.evidence.len());
        for c in crate::evidence::gate::citations(&a.answer) {
            assert!(a.evidence.iter().any(|x| x.id == c.id));
        }
        // The prompt quoted the cited evidence.
        let prompt = g.lock().unwrap().prompts[0][1].content.clone();
        assert!(prompt.contains(&format!("[{id}] \"")), "{prompt}");
        // A reply with nothing usable: the extractive answer stands, recorded as such.
        let run = ask(&e, q, &o).unwrap();
        let a = &run.answer;
        assert_eq!(a.phrasing.as_ref().unwrap().outcome, "fallback");
        assert_eq!(a.answer, plain.answer);
        assert_eq!(a.sentences, plain.sentences);
        assert_eq!(a.metrics.generator_calls, 1);
        // Without the generator nothing is called and nothing is recorded.
        o.generate = false;
        let a = ask(&e, q, &o).unwrap().answer;
        assert!(a.phrasing.is_none() && a.metrics.generator_calls == 0);
        assert_eq!(g.lock().unwrap().prompts.len(), 2);
    }

    #[test]
    fn same_corpus_and_question_give_the_same_answer() {
        let tmp = tempfile::tempdir().unwrap();
        let e = sample_engine(tmp.path());
        let q = "How long must client records be retained?";
        let a = ask(&e, q, &opts()).unwrap().answer;
        let b = ask(&e, q, &opts()).unwrap().answer;
        assert_eq!(a.status, Status::Answered);
        assert_eq!(a.answer, b.answer);
        assert_eq!(
            serde_json::to_string(&a.evidence).unwrap(),
            serde_json::to_string(&b.evidence).unwrap()
        );
        assert!(a.answer.contains("[E1"), "E1 is cited first: {}", a.answer);
    }

    #[test]
    fn confidence_levels_follow_counts_and_weak_retrieval_lowers_them() {
        assert_eq!(confidence(0, 0, 0.9), Confidence::Insufficient);
        assert_eq!(confidence(1, 1, 0.9), Confidence::Low);
        assert_eq!(confidence(3, 2, 0.9), Confidence::Medium);
        assert_eq!(confidence(5, 2, 0.9), Confidence::High);
        assert_eq!(confidence(5, 1, 0.9), Confidence::Medium);
        assert_eq!(confidence(5, 2, 0.1), Confidence::Medium);
        assert_eq!(confidence(2, 1, 0.1), Confidence::Low);
        assert_eq!(confidence(1, 1, 0.1), Confidence::Low);
        let same = "Client records must be retained for seven years after the last service.";
        assert_eq!(
            distinct_statements(&[
                same,
                same,
                "Client records must be retained for seven years after the last service date."
            ]),
            1
        );
        assert_eq!(
            distinct_statements(&[
                same,
                "Client records must be retained for ten years after the last service."
            ]),
            2
        );
    }

    #[test]
    fn the_guard_rejects_empty_wordless_and_overlong_questions() {
        let o = opts();
        assert!(guard("  ", &o).unwrap().contains("empty"));
        assert!(guard("?!", &o).unwrap().contains("no words"));
        let long = "word ".repeat(o.max_question_words + 1);
        assert!(guard(&long, &o).unwrap().contains("limit"));
        assert_eq!(guard("How long are records kept?", &o), None);
    }
}
