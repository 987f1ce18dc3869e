//! Stage 2, research: plan, execute, evaluate, replan (design.md §1). Each step
//! retrieves chunks no earlier step saw, extracts candidate quotes, verifies them against
//! its own question, and is `completed` when it verified evidence. Simple questions take
//! one step; multi-hop questions continue while the replanner finds an uncovered compared
//! thing or a bridge entity, within [`MAX_COMPLETED_STEPS`], [`MAX_ITERATIONS`] and
//! [`MAX_FAILURES_IN_ROW`].

use std::collections::{HashMap, HashSet};
use std::time::Instant;

use super::screen::Question;
use super::{AskOptions, Timings};
use crate::answer::{Step, StepAction, StepStatus};
use crate::engine::Engine;
use crate::error::Error;
use crate::evidence::extract::{extract, Candidate};
use crate::evidence::verify::{verify, Reason, Rejection, Verdict};
use crate::models::cross::Rerank;
use crate::research::{classify, replan, Class, Classification, Move, StepKind, StepOutcome};
use crate::retrieve::multi::{retrieve, KeywordPrf, MultiOptions, Retrieval};

/// Completed steps after which the loop stops.
pub const MAX_COMPLETED_STEPS: usize = 3;
/// Iterations (completed or failed steps) after which the loop stops.
pub const MAX_ITERATIONS: usize = 4;
/// Failed steps in a row after which the loop stops (design.md §1: a question the
/// corpus cannot answer must not spend the whole budget).
pub const MAX_FAILURES_IN_ROW: usize = 3;

/// What the research loop found.
pub(super) struct Found {
    /// How the question was classified.
    pub classification: Classification,
    /// Why the loop stopped.
    pub stopped: String,
    /// The steps, in order.
    pub steps: Vec<Step>,
    /// Each step's retrieval.
    pub retrievals: Vec<Retrieval>,
    /// Every verdict of every step (a reconsidered candidate once).
    pub verdicts: Vec<Verdict>,
    /// Candidates extracted over all steps.
    pub candidates: usize,
    /// What each step gave the replanner.
    pub outcomes: Vec<StepOutcome>,
}

/// The loop's running state.
struct Loop<'e> {
    engine: &'e Engine,
    reranker: Option<&'e dyn Rerank>,
    retrieve: MultiOptions,
    found: Found,
    outcomes: Vec<StepOutcome>,
    seen: HashSet<String>,
}

/// One step to run: its question, how it was chosen, why, and the entity it is about.
struct Planned {
    question: String,
    /// The step question's frame (the asked question's own, read once, when the step
    /// asks it again).
    frame: crate::frame::Frame,
    action: StepAction,
    kind: StepKind,
    reason: String,
    entity: Option<String>,
}

/// Research `question` (answer choices stripped).
pub(super) fn research(
    engine: &Engine,
    asked: &Question,
    opts: &AskOptions,
    timings: &mut Timings,
) -> Result<Found, Error> {
    let question = asked.stem.as_str();
    let classification = if opts.research {
        classify(question)
    } else {
        Classification {
            class: Class::Simple,
            reason: "research loop off".into(),
        }
    };
    let mut l = Loop {
        engine,
        reranker: if opts.rerank { engine.reranker() } else { None },
        retrieve: MultiOptions {
            k: depth(opts),
            rerank_depth: engine.config().rerank_depth,
            per_document: engine.config().max_chunks_per_document,
            scope: opts.scope.clone(),
            ..MultiOptions::default()
        },
        found: Found {
            classification,
            stopped: String::new(),
            steps: Vec::new(),
            retrievals: Vec::new(),
            verdicts: Vec::new(),
            candidates: 0,
            outcomes: Vec::new(),
        },
        outcomes: Vec::new(),
        seen: HashSet::new(),
    };
    let mut next = replan(question, &[]);
    let mut failures_in_row = 0;
    loop {
        let planned = match planned(next, asked) {
            Ok(p) => p,
            Err(complete) => {
                l.found.stopped = complete;
                break;
            }
        };
        let completed = l.step(planned, opts, timings)?;
        failures_in_row = if completed { 0 } else { failures_in_row + 1 };
        if let Some(why) = l.stop(failures_in_row) {
            l.found.stopped = why;
            break;
        }
        next = replan(question, &l.outcomes);
    }
    l.found.outcomes = std::mem::take(&mut l.outcomes);
    Ok(l.found)
}

/// How many times the first step's chunks a widened step retrieves.
pub const WIDEN_FACTOR: usize = 2;

/// How many times deeper a question scoped to one document retrieves: every chunk of the
/// document competes for the places, and the section that answers is often not the one
/// that repeats the question's words (an abstract, a caption).
pub const ONE_DOCUMENT_DEPTH: usize = 2;

/// Chunks a retrieval of `opts` draws: `opts.chunks`, [`ONE_DOCUMENT_DEPTH`] times as many
/// when the scope is one document.
fn depth(opts: &AskOptions) -> usize {
    let one = opts.scope.as_ref().is_some_and(|s| s.doc_ids.len() == 1);
    opts.chunks * if one { ONE_DOCUMENT_DEPTH } else { 1 }
}

/// One more step for a typed question whose value none of `found`'s verified items
/// states: the question again, over [`WIDEN_FACTOR`] times as many chunks, none of them
/// seen before (a value in the fourth chunk of a document whose first three were taken).
/// Its verdicts are added to `found.verdicts`.
pub(super) fn widen(
    engine: &Engine,
    question: &Question,
    opts: &AskOptions,
    timings: &mut Timings,
    found: Found,
) -> Result<Found, Error> {
    let mut l = Loop::again(engine, opts, found, WIDEN_FACTOR);
    let planned = Planned {
        question: question.stem.clone(),
        frame: question.frame.clone(),
        action: StepAction::Widen,
        kind: StepKind::Retry,
        reason: "no verified passage stated the value asked for: the question again, over \
                 more chunks"
            .into(),
        entity: None,
    };
    l.step(planned, opts, timings)?;
    l.found.outcomes = std::mem::take(&mut l.outcomes);
    Ok(l.found)
}

/// One bridge step for a question classified simple whose value none of `found`'s
/// verified items states, even widened: the question may ask through a bridge its words
/// do not mark ("based in a suburb of a city with a population of …"), found in its
/// evidence (see [`crate::research::bridge_after`]). A multi-hop question's loop has
/// followed its bridges already. Returns `found` with the step's verdicts added, and
/// whether a step ran.
pub(super) fn bridge(
    engine: &Engine,
    question: &Question,
    opts: &AskOptions,
    timings: &mut Timings,
    found: Found,
) -> Result<(Found, bool), Error> {
    let simple = opts.research && found.classification.class == Class::Simple;
    let next = simple
        .then(|| crate::research::bridge_after(&question.stem, &found.outcomes))
        .flatten();
    let Some(Ok(p)) = next.map(|m| planned(m, question)) else {
        return Ok((found, false));
    };
    let mut l = Loop::again(engine, opts, found, 1);
    l.step(p, opts, timings)?;
    l.found.outcomes = std::mem::take(&mut l.outcomes);
    Ok((l.found, true))
}

/// The step a move plans, or why the loop completes; a step asking `asked` again
/// takes its frame.
fn planned(m: Move, asked: &Question) -> Result<Planned, String> {
    let frame = |q: &str| {
        if q == asked.stem {
            asked.frame.clone()
        } else {
            crate::frame::frame(q)
        }
    };
    match m {
        Move::NextStep {
            kind,
            question,
            reason,
            entity,
        } => Ok(Planned {
            frame: frame(&question),
            question,
            action: StepAction::NextStep,
            kind,
            reason,
            entity,
        }),
        Move::Retry { question } => Ok(Planned {
            frame: frame(&question),
            question,
            action: StepAction::Retry,
            kind: StepKind::Retry,
            reason: "the last step failed".into(),
            entity: None,
        }),
        Move::Complete { reason } => Err(reason),
    }
}

impl<'e> Loop<'e> {
    /// A loop continuing `found`, retrieving `factor` times the first step's chunks,
    /// none seen before.
    fn again(engine: &'e Engine, opts: &AskOptions, mut found: Found, factor: usize) -> Self {
        let seen = found
            .retrievals
            .iter()
            .flat_map(|r| r.hits.iter().map(|h| h.chunk.chunk_id.clone()))
            .collect();
        Loop {
            engine,
            reranker: if opts.rerank { engine.reranker() } else { None },
            retrieve: MultiOptions {
                k: depth(opts) * factor,
                rerank_depth: engine.config().rerank_depth,
                per_document: engine.config().max_chunks_per_document * factor,
                scope: opts.scope.clone(),
                ..MultiOptions::default()
            },
            outcomes: std::mem::take(&mut found.outcomes),
            found,
            seen,
        }
    }

    /// Why the loop stops after the last step, if it does.
    fn stop(&self, failures_in_row: usize) -> Option<String> {
        if self.found.classification.class == Class::Simple {
            return Some("simple question: one step".into());
        }
        let done = self.outcomes.iter().filter(|o| o.completed).count();
        let iterations = self.outcomes.len();
        (done >= MAX_COMPLETED_STEPS
            || iterations >= MAX_ITERATIONS
            || failures_in_row >= MAX_FAILURES_IN_ROW)
            .then(|| {
                format!(
                    "cap reached ({done} completed steps, {iterations} iterations, {failures_in_row} failures in a row)"
                )
            })
    }

    /// Run one step: retrieve, extract, verify, evaluate. Returns whether it completed.
    fn step(
        &mut self,
        p: Planned,
        opts: &AskOptions,
        timings: &mut Timings,
    ) -> Result<bool, Error> {
        let step_no = self.found.steps.len() + 1;
        let t = Instant::now();
        let retrieval = retrieve(
            self.engine,
            &p.question,
            &KeywordPrf::default(),
            &self.seen,
            self.reranker,
            &self.retrieve,
        )?;
        timings.add("retrieve", t);
        self.seen
            .extend(retrieval.hits.iter().map(|h| h.chunk.chunk_id.clone()));
        let t = Instant::now();
        let (candidates, revisited) = self.candidates(&retrieval, &p, step_no)?;
        timings.add("extract", t);
        let t = Instant::now();
        self.found.candidates += candidates.len();
        let mut verdicts = verify(
            self.engine.store(),
            &p.question,
            &p.frame,
            candidates,
            self.engine.embedder(),
            self.reranker,
            &opts.relevance,
        )?;
        timings.add("verify", t);
        if let Some(e) = &p.entity {
            focus_on(e, step_no, &mut verdicts);
        }
        let one = opts.scope.as_ref().is_some_and(|s| s.doc_ids.len() == 1);
        admit_head_lines(self.engine, &p.question, one, &mut verdicts)?;
        self.settle_revisited(&revisited, &mut verdicts);
        sort_verdicts(&mut verdicts);
        let near = near_quotes(&verdicts, &opts.relevance);
        Ok(self.evaluate(p, step_no, retrieval, verdicts, near))
    }

    /// The step's candidates: extracted from its chunks, plus (for a step about an
    /// entity) earlier rejected candidates that mention it. Returns the spans revisited.
    fn candidates(
        &self,
        retrieval: &Retrieval,
        p: &Planned,
        step_no: usize,
    ) -> Result<(Vec<Candidate>, HashSet<Span>), Error> {
        let chunks: Vec<_> = retrieval.hits.iter().map(|h| h.chunk.clone()).collect();
        let mut candidates = extract(self.engine.store(), &chunks, step_no)?;
        for c in candidates.iter_mut() {
            c.chunk_cosine = retrieval.hits[c.chunk_rank - 1].cosine;
        }
        let mut revisited = HashSet::new();
        if let Some(e) = &p.entity {
            let again = self.revisit(e, &p.question, step_no)?;
            revisited.extend(again.iter().map(|c| (c.doc_id.clone(), c.start, c.end)));
            candidates.extend(again);
        }
        Ok((candidates, revisited))
    }

    /// A step about an entity also reconsiders what earlier steps rejected as off the
    /// question but which mentions the entity: a bridge's second paragraph is often
    /// retrieved by the first step, judged against the whole question, and excluded from
    /// later retrievals. It is scored again against this step's question.
    fn revisit(
        &self,
        entity: &str,
        question: &str,
        step_no: usize,
    ) -> Result<Vec<Candidate>, Error> {
        let mut again: Vec<Candidate> = self
            .found
            .verdicts
            .iter()
            .filter(|v| {
                v.rejected
                    .as_ref()
                    .is_some_and(|r| r.reason == Reason::DoesNotAddressQuestion)
                    && (about_entity(entity, &v.candidate.quote)
                        || about_entity(entity, &v.candidate.title))
            })
            .map(|v| v.candidate.clone())
            .collect();
        if again.is_empty() {
            return Ok(again);
        }
        let rows: HashMap<&str, i64> = self
            .found
            .retrievals
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
        let vecs = self.engine.store().vectors_by_ids(&ids)?;
        let qv = self.engine.embed_query(question)?;
        for (c, v) in again.iter_mut().zip(vecs) {
            c.step = step_no;
            c.chunk_cosine = v.map_or(0.0, |v| crate::models::dot(&qv, &v) as f64);
        }
        Ok(again)
    }

    /// A reconsidered candidate replaces its earlier verdict when it now passes; when it
    /// still fails, the earlier verdict stands.
    fn settle_revisited(&mut self, revisited: &HashSet<Span>, verdicts: &mut Vec<Verdict>) {
        if revisited.is_empty() {
            return;
        }
        let passed: HashSet<Span> = verdicts
            .iter()
            .filter(|v| v.rejected.is_none() && revisited.contains(&span(v)))
            .map(span)
            .collect();
        self.found.verdicts.retain(|v| !passed.contains(&span(v)));
        verdicts.retain(|v| v.rejected.is_none() || !revisited.contains(&span(v)));
    }

    /// Evaluate the step (completed when it verified evidence, i.e. relevance at or above
    /// the calibrated threshold), record it and what the replanner needs.
    fn evaluate(
        &mut self,
        p: Planned,
        step_no: usize,
        retrieval: Retrieval,
        verdicts: Vec<Verdict>,
        near: Vec<(String, String)>,
    ) -> bool {
        let (good, good_titles): (Vec<String>, Vec<String>) = verdicts
            .iter()
            .filter(|v| v.rejected.is_none())
            .map(|v| (v.candidate.quote.clone(), v.candidate.title.clone()))
            .unzip();
        let completed = !good.is_empty();
        self.found.steps.push(Step {
            step: step_no,
            question: p.question.clone(),
            action: if step_no == 1 {
                StepAction::First
            } else {
                p.action
            },
            reason: p.reason.clone(),
            queries: retrieval.queries.clone(),
            retrieved: retrieval
                .hits
                .iter()
                .map(|h| h.chunk.chunk_id.clone())
                .collect(),
            confidence: retrieval.confidence,
            verified: good.len(),
            status: if completed {
                StepStatus::Completed
            } else {
                StepStatus::Failed
            },
        });
        self.outcomes.push(StepOutcome {
            kind: p.kind,
            reason: p.reason,
            question: p.question,
            completed,
            verified: good,
            verified_titles: good_titles,
            near,
            titles: unverified_titles(&retrieval, &verdicts),
        });
        self.found.retrievals.push(retrieval);
        self.found.verdicts.extend(verdicts);
        completed
    }
}

/// Quotes turned away as off the question only because their relevance fell just short
/// (at least [`crate::evidence::verify::SECOND_LOOK_SHARE`] of the threshold), or as incomplete,
/// of documents with a verified quote: a bridge may be named there ("The songs are performed by
/// pianist Harry Connick Jr." beside the soundtrack's verified first sentence).
fn near_quotes(
    verdicts: &[Verdict],
    relevance: &crate::evidence::verify::RelevanceConfig,
) -> Vec<(String, String)> {
    let docs: HashSet<&str> = verdicts
        .iter()
        .filter(|v| v.rejected.is_none())
        .map(|v| v.candidate.doc_id.as_str())
        .collect();
    verdicts
        .iter()
        .filter(|v| {
            let floor = relevance.second_look_floor(&v.relevance);
            // A quote cut where its text leaves a bracket open is no evidence, but the
            // names it holds are still names ("Scott Parkin (born 1969, … a vocal critic
            // of ExxonMobil and Halliburton").
            let near = v.rejected.as_ref().is_some_and(|r| match r.reason {
                Reason::DoesNotAddressQuestion => v.relevance.score >= floor,
                Reason::IncompleteQuote => true,
                _ => false,
            });
            near && docs.contains(v.candidate.doc_id.as_str())
        })
        .map(|v| (v.candidate.quote.clone(), v.candidate.title.clone()))
        .collect()
}

/// A candidate's place: (document, start, end).
type Span = (String, usize, usize);

fn span(v: &Verdict) -> Span {
    (
        v.candidate.doc_id.clone(),
        v.candidate.start,
        v.candidate.end,
    )
}

/// A step about an entity (a bridge, a compared thing) keeps only evidence whose quote or
/// document title mentions a word of its name.
fn focus_on(entity: &str, step_no: usize, verdicts: &mut [Verdict]) {
    for v in verdicts.iter_mut() {
        if v.rejected.is_none()
            && !about_entity(entity, &v.candidate.quote)
            && !about_entity(entity, &v.candidate.title)
        {
            v.rejected = Some(Rejection {
                reason: Reason::DoesNotAddressQuestion,
                rationale: format!(
                    "step {step_no} researches {entity:?}, which the quote does not mention"
                ),
            });
        }
    }
}

/// A document's head lines as evidence (see [`crate::research::authorship`]): for a
/// question asking who wrote a document, its author line; for one asking for a title,
/// its title line. Either is verified and put first when it is of the document the
/// question names (by title for authors, by an author for a title) or of the one
/// document in scope. A title line answers nothing else: it names its document and
/// states nothing.
fn admit_head_lines(
    engine: &Engine,
    question: &str,
    one_document: bool,
    verdicts: &mut [Verdict],
) -> Result<(), Error> {
    use crate::research::authorship::{asks, asks_title, is_title, names_author, names_document};
    let (authors_asked, title_asked) = (asks(question), asks_title(question));
    let top = verdicts
        .iter()
        .map(|v| v.relevance.score)
        .fold(0.0_f64, f64::max);
    let mut authors: HashMap<String, Vec<String>> = HashMap::new();
    for v in verdicts.iter_mut() {
        let c = &v.candidate;
        let title_line = is_title(&c.quote, &c.title);
        if title_line && !title_asked {
            v.rejected = Some(Rejection {
                reason: Reason::DoesNotAddressQuestion,
                rationale: "the title line names its document and states nothing".into(),
            });
            continue;
        }
        let gone = matches!(&v.rejected, Some(r) if r.reason == Reason::NotVerbatim);
        if gone || !(authors_asked || title_asked) {
            continue;
        }
        if !authors.contains_key(&c.doc_id) {
            let stored = engine.store().profile_json_of(&c.doc_id)?;
            authors.insert(
                c.doc_id.clone(),
                crate::profile::stored_authors(stored.as_deref()),
            );
        }
        let by = &authors[&c.doc_id];
        let admit = if title_line {
            one_document || names_author(question, by)
        } else {
            authors_asked
                && (one_document || names_document(question, &c.title))
                && crate::research::authorship::is_author_line(&c.quote, by)
        };
        if admit {
            v.rejected = None;
            v.relevance.score = v.relevance.score.max(top + 1e-6);
        }
    }
    Ok(())
}

/// Verified first, then by relevance, chunk rank and position.
fn sort_verdicts(verdicts: &mut [Verdict]) {
    verdicts.sort_by(|a, b| {
        a.rejected
            .is_some()
            .cmp(&b.rejected.is_some())
            .then(b.relevance.score.total_cmp(&a.relevance.score))
            .then(a.candidate.chunk_rank.cmp(&b.candidate.chunk_rank))
            .then(a.candidate.start.cmp(&b.candidate.start))
    });
}

/// Titles of documents the step retrieved but verified nothing from (bridge hints).
fn unverified_titles(retrieval: &Retrieval, verdicts: &[Verdict]) -> Vec<String> {
    let verified_docs: HashSet<&str> = verdicts
        .iter()
        .filter(|v| v.rejected.is_none())
        .map(|v| v.candidate.doc_id.as_str())
        .collect();
    let mut titles: Vec<String> = Vec::new();
    for h in &retrieval.hits {
        if !verified_docs.contains(h.chunk.doc_id.as_str()) && !titles.contains(&h.chunk.title) {
            titles.push(h.chunk.title.clone());
        }
    }
    titles
}

/// Shortest word of an entity's name that counts as a mention of it.
const MIN_ENTITY_WORD_CHARS: usize = 4;

/// Whether `text` mentions a word (4+ letters, not a stop word) of `entity`'s name.
fn about_entity(entity: &str, text: &str) -> bool {
    crate::text::words(entity).iter().any(|w| {
        w.chars().count() >= MIN_ENTITY_WORD_CHARS
            && !crate::text::is_stopword(w)
            && crate::research::mentions(text, w)
    })
}
