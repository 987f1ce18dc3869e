//! Stage 5, finish: the answer's evidence items, confidence, what is missing when nothing
//! was answered, the optional phrasing by a generator, the choice selection, metrics, the
//! QA memory write, and the audit trail.
//!
//! Confidence says how the answer met the question's frame (see [`Assurance`]), not how
//! many quotes agree: `high` only when a value of a precise type (a date, a period, a
//! duration, a percentage, a telephone number, an email address) was read from a cited
//! quote that covers what the question names, for a question read as one step (a value
//! at the end of a multi-hop chain may come from the wrong link); `medium` for another
//! value so read, or a
//! free-text answer of two distinct statements or more; `low` for one statement, or a
//! typed question answered without a value (its frame not met: never `high`);
//! `insufficient` with none. Then lowered one level (never below `low`) when the
//! retrieval confidence (mean cosine between the question and the retrieved chunks) is
//! under [`WEAK_RETRIEVAL`]. Distinct statements, not quote instances: identical quotes
//! are one item and near-duplicates one statement. The levels were set from the
//! reliability tables of `attest eval documents` and `attest eval answers` (docs/figures.md).
//! An answer whose value stands on one side of a contradiction no rule decides is never
//! `high`.
//!
//! When cited sources differ, the answer follows the ruling on which governs (see
//! [`ruled`]): its value and its first sentences are the governing source's.

use std::collections::HashSet;
use std::time::Instant;

use super::compose::Composed;
use super::research::Found;
use super::screen::{empty_answer, Question};
use super::select::Numbered;
use super::{AskOptions, Timings};
use crate::answer::{
    Answer, Candidate, Confidence, EvidenceItem, Metrics, RejectedItem, Research, Run, Status,
    StepStatus,
};
use crate::engine::Engine;
use crate::error::Error;
use crate::evidence::gate::GateResult;
use crate::evidence::verify::{question_terms, Reason, Verdict};

mod ruled;

/// Retrieval confidence under which the answer's confidence is lowered one level.
pub const WEAK_RETRIEVAL: f64 = 0.35;
/// Question terms listed as absent from the retrieved passages, at most (enough to see
/// what is missing without repeating a long question).
const MAX_ABSENT_TERMS: usize = 12;

/// How an answer met the question's frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Met {
    /// A value of this type was read from a cited quote covering the question.
    Value(crate::frame::AnswerType),
    /// The question asks for a value and none was claimed.
    NoValue,
    /// A free-text question: the cited quotes cover its focus, or it was not decided.
    Text,
}

/// What an answer's confidence is read from.
#[derive(Debug, Clone, Copy)]
pub struct Assurance {
    /// Distinct statements cited.
    pub statements: usize,
    /// Mean cosine between the question and the retrieved chunks.
    pub retrieval_confidence: f64,
    /// How the frame was met.
    pub met: Met,
    /// Whether the question was read as one step (not multi-hop): a value read at the
    /// end of a chain may come from the wrong link, so it is never `high` (nor is a
    /// value the second look found: `ask::look_again`).
    pub one_step: bool,
}

/// Confidence from the statements cited, the frame's outcome and the retrieval (see the
/// module doc).
pub fn confidence(a: Assurance) -> Confidence {
    use crate::frame::AnswerType as T;
    let level = match (a.statements, a.met) {
        (0, _) => Confidence::Insufficient,
        (
            _,
            Met::Value(T::Date | T::Period | T::Duration | T::Percentage | T::Phone | T::Email),
        ) if a.one_step => Confidence::High,
        (_, Met::Value(_)) => Confidence::Medium,
        (_, Met::NoValue) | (1, Met::Text) => Confidence::Low,
        (_, Met::Text) => Confidence::Medium,
    };
    match level {
        Confidence::High if a.retrieval_confidence < WEAK_RETRIEVAL => Confidence::Medium,
        Confidence::Medium if a.retrieval_confidence < WEAK_RETRIEVAL => Confidence::Low,
        l => l,
    }
}

/// Distinct statements among quotes: near-duplicates (content words overlapping by
/// [`crate::evidence::compose::DUPLICATE_JACCARD`] or more, with the same figures) count
/// once.
pub fn distinct_statements(quotes: &[&str]) -> usize {
    use crate::evidence::compose::DUPLICATE_JACCARD;
    use crate::text::{content_words, figures};
    let mut reps: Vec<(HashSet<String>, Vec<String>)> = Vec::new();
    for q in quotes {
        let words: HashSet<String> = content_words(q).into_iter().collect();
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

/// Everything the finish stage takes.
pub(super) struct Done {
    pub question: Question,
    pub found: Found,
    pub numbered: Numbered,
    pub composed: Composed,
    pub gate: GateResult,
    pub timings: Timings,
    pub started: Instant,
    /// The question's frame.
    pub frame: crate::frame::Frame,
    /// Why nothing answers the frame (see `decide`).
    pub unmet: Vec<String>,
    /// The item stating the answer's value (document, start) and the value.
    pub lead: Option<(String, usize, crate::value::typed::Found, Option<String>)>,
    /// What the answer lacks though it stands (see `decide`).
    pub note: Vec<String>,
    /// Whether the cited items say that what is asked has not been set (see `decide`):
    /// the answer keeps them as evidence but states no value (`stated_absent`).
    pub absent: bool,
    /// Whether the cited items settle the question without a value (an exemption that
    /// covers the asked case; see `decide`).
    pub settled: bool,
    /// Whether the value was found by the second look (an item whose relevance fell
    /// short of the threshold): never `high`.
    pub second_look: bool,
    /// Items from summaries shown beside the answer's differences, cited by none of its
    /// sentences (see `authority::summary`).
    pub summaries: Vec<String>,
}

/// Assemble the run.
pub(super) fn finish(engine: &Engine, d: Done, opts: &AskOptions) -> Result<Run, Error> {
    let Done {
        question,
        found,
        mut numbered,
        composed,
        gate,
        mut timings,
        started,
        frame,
        unmet: mut unmet_frame,
        note,
        absent,
        settled,
        lead,
        second_look,
        summaries,
    } = d;
    let one_step = found.classification.class != crate::research::Class::MultiHop;
    let mut answer = empty_answer(&question.stem, Status::NoAuthoritativeEvidence);
    answer.question = question.asked.clone();
    answer.rejected = rejected_items(&numbered);
    answer.steps = found.steps;
    answer.research = Some(Research {
        classification: found.classification,
        stopped: found.stopped,
        choices: question.choices.clone(),
    });
    answer.gate = gate;
    let c = &composed.composition;
    let mut generator_calls = 0;
    let unmet = unmet_periods(&question.stem, &c.cited, &numbered);
    let lead_dropped = lead_dropped(lead.as_ref(), &c.cited, &numbered);
    unmet_frame.extend(lead_dropped.then(|| LEAD_DROPPED.to_string()));
    answer.as_of = opts.scope.as_ref().and_then(|s| s.dated.clone());
    if !c.cited.is_empty() && answer.gate.passed && unmet.is_empty() && !lead_dropped {
        answered(engine, &mut answer, c, &numbered, &summaries)?;
        answer.missing_evidence = note;
        let sure = one_step && !second_look;
        let (met, check, citable) = valued(&mut answer, &frame, lead, c, &mut numbered, opts, sure);
        // Passages about the question that state nothing of the kind asked answer nothing.
        if absent || settled || check.is_some() || !withheld_untyped(&mut answer, &frame, met) {
            let retrieval = found.retrievals.first().map_or(0.0, |r| r.confidence);
            assure(&mut answer, &summaries, retrieval, (met, check), sure);
            generator_calls = phrase(engine, &mut answer, &question.stem, opts, &mut timings)?;
            if absent {
                stated_unset(&mut answer);
            } else if !settled && one_step {
                unanswered_value(&mut answer, &frame, citable);
            }
        }
    } else {
        let mut why = missing(
            &answer,
            &found.retrievals,
            &numbered,
            opts.relevance.min_relevance,
        );
        why.extend(unmet_frame);
        why.extend(unmet_period_note(&unmet));
        why.extend(verified_set_aside(&numbered, &frame));
        answer.missing_evidence = why;
    }
    answer.question_frame = Some(frame);
    answer.metrics = metrics(
        timings,
        started,
        generator_calls,
        found.candidates,
        &numbered,
    );
    choose_or_reply(&question, &mut answer);
    if let Some(key) = &question.memory {
        crate::memory::remember(engine.store(), key, &answer)?;
    }
    Ok(audit_trail(answer, found.retrievals, numbered, composed))
}

/// Set `answer`'s value: `lead`'s, or the governing source's when its sources differ and
/// the ruling names another (see [`ruled`]), named only when the value model is sure
/// enough of it (see [`super::assure::check`]); returns how the frame was met, the
/// value's check, and whether the value read may be cited unnamed (its probability
/// reaches `min_value_answer_probability`).
fn valued(
    answer: &mut Answer,
    frame: &crate::frame::Frame,
    lead: Option<(String, usize, crate::value::typed::Found, Option<String>)>,
    c: &crate::evidence::compose::Composition,
    numbered: &mut Numbered,
    opts: &AskOptions,
    one_step: bool,
) -> (Met, Option<crate::answer::ValueCheck>, bool) {
    answer.answer_value = answer_value(answer, frame.answer_type, lead);
    if ruled::follow(answer, frame, c, numbered, opts) == ruled::Followed::Withdrawn {
        answer.missing_evidence.push(GOVERNING_UNPLACED.into());
    }
    let bound = opts.min_value_probability;
    let check = super::assure::check(answer, frame.answer_type, one_step, bound);
    if let Some(k) = check.as_ref().filter(|k| !k.given) {
        answer.answer_value = None;
        answer.missing_evidence.push(format!(
            "a value was read ({}) but is not named: the value model gives it {:.2}, below its bound {bound:.2}",
            k.value.raw, k.probability,
        ));
    }
    if answer.answer_value.is_none() && check.is_none() {
        let quotes = answer
            .evidence
            .iter()
            .map(|e| (e.id.as_str(), e.quote.as_str()));
        let notes = set_aside_notes(quotes, frame);
        answer.missing_evidence.extend(notes);
    }
    let met = match &answer.answer_value {
        Some(v) => Met::Value(v.ty),
        None if frame.answer_type.is_value() => Met::NoValue,
        None => Met::Text,
    };
    let from = opts.min_value_answer_probability;
    let citable = check.as_ref().is_some_and(|k| k.probability >= from);
    (met, check, citable)
}

/// The notes of [`set_aside_notes`] on the verified items of `numbered`.
fn verified_set_aside(numbered: &Numbered, frame: &crate::frame::Frame) -> Vec<String> {
    let verified = numbered
        .verified()
        .map(|(id, v)| (id.as_str(), v.candidate.quote.as_str()));
    set_aside_notes(verified, frame)
}

/// Why the passages `quotes` (id, quote), about question `frame`, name no value of the
/// kind asked: each value of that kind a rule of the value filter sets aside, with the
/// rule (at most three).
fn set_aside_notes<'a>(
    quotes: impl Iterator<Item = (&'a str, &'a str)>,
    frame: &crate::frame::Frame,
) -> Vec<String> {
    if !frame.answer_type.is_value() {
        return Vec::new();
    }
    quotes
        .flat_map(|(id, quote)| {
            super::decide::set_aside(frame, quote)
                .into_iter()
                .map(move |(raw, rule)| {
                    format!(
                        "{id} states \"{raw}\", set aside by rule {}: {}",
                        rule.name(),
                        rule.describe()
                    )
                })
        })
        .take(3)
        .collect()
}

/// The run's metrics: timings (with the total since `started`), generator calls,
/// candidates and verified items.
fn metrics(
    timings: super::Timings,
    started: std::time::Instant,
    generator_calls: usize,
    candidates: usize,
    numbered: &Numbered,
) -> Metrics {
    let mut m = Metrics {
        timings_ms: timings.into_map(),
        generator_calls,
        memory_hit: false,
        candidates,
        verified: numbered.verified().count(),
        injection: None,
    };
    m.timings_ms.insert("total".to_string(), super::ms(started));
    m
}

/// The type of value `v` states for a question of type `ty`: a "when" question is
/// answered by a date, a time limit or a time of day, each typed as what it is.
fn value_type(
    ty: crate::frame::AnswerType,
    v: &crate::value::typed::Found,
) -> crate::frame::AnswerType {
    use crate::frame::AnswerType;
    match v.unit.as_deref() {
        Some(crate::value::typed::CLOCK) => AnswerType::Time,
        Some(_) if ty == AnswerType::Date => AnswerType::Duration,
        _ => ty,
    }
}

/// The answer's value: `lead`'s value, placed in the document, under the id the
/// answer cites its item by.
fn answer_value(
    answer: &Answer,
    ty: crate::frame::AnswerType,
    lead: Option<(String, usize, crate::value::typed::Found, Option<String>)>,
) -> Option<crate::answer::AnswerValue> {
    let (doc, start, v, cell) = lead?;
    let e = answer
        .evidence
        .iter()
        .find(|e| e.doc_id == doc && e.start == start)?;
    Some(crate::answer::AnswerValue {
        ty: value_type(ty, &v),
        normalised: v.normalised.clone(),
        raw: e.quote.get(v.start..v.end)?.to_string(),
        evidence_id: e.id.clone(),
        start: e.start + v.start,
        end: e.start + v.end,
        cell,
    })
}

/// Words that make a question ask for a figure.
const QUANTITY_WORDS: &[&str] = &[
    "amount",
    "total",
    "number",
    "count",
    "cost",
    "costs",
    "rate",
    "percentage",
    "percent",
    "value",
    "sum",
    "figure",
    "balance",
    "price",
    "budget",
    "funding",
];

/// When the question asks for a figure ("how many", "how much", "what amount", …): the
/// periods it names (see [`crate::period`]: years, fiscal and calendar years, quarters,
/// months, numeric month/year) that no cited item names in its quote, label or section
/// — or in its document title when the quote, label and section name no other year. A
/// figure pinned to a period is never answered from another period's figures ("October
/// 2015" is not "November - 2015"; "FY2023" is not a 2022 table in a report titled 2023).
fn unmet_periods(question: &str, cited: &[String], n: &Numbered) -> Vec<String> {
    let words: Vec<String> = crate::text::words(question);
    let asks_quantity = words
        .windows(2)
        .any(|w| w[0] == "how" && (w[1] == "many" || w[1] == "much"))
        || words.iter().any(|w| QUANTITY_WORDS.contains(&w.as_str()));
    let wanted = crate::period::periods(question);
    if !asks_quantity || wanted.is_empty() || cited.is_empty() {
        return Vec::new();
    }
    let items: Vec<_> = cited
        .iter()
        .filter_map(|id| n.get(id))
        .map(|v| super::decide::ItemPeriods::of(&v.candidate))
        .collect();
    let mut unmet: Vec<String> = Vec::new();
    for w in &wanted {
        let met = items.iter().any(|p| p.meet(w));
        if !met && !unmet.contains(&w.text) {
            unmet.push(w.text.clone());
        }
    }
    unmet
}

/// What the answer says when the governing source's figure could not be placed as its
/// value.
const GOVERNING_UNPLACED: &str = "the governing source's figure could not be placed in its \
                                  quote, so the answer states no value (see conflicts)";

/// What the answer says when the passage stating the value did not survive the gate.
const LEAD_DROPPED: &str = "the passage that states the value failed the Evidence Gate (see \
                            gate), so the passages supporting it do not answer alone";

/// What the answer says when no cited passage mentions a period the question names.
fn unmet_period_note(unmet: &[String]) -> Option<String> {
    (!unmet.is_empty()).then(|| {
        format!(
            "verified evidence for the period the question names: no cited passage mentions {}",
            unmet.join(", ")
        )
    })
}

/// Whether the item that states the value (`lead`: document, start) is missing from the
/// cited items: supporting items alone do not answer.
fn lead_dropped(
    lead: Option<&(String, usize, crate::value::typed::Found, Option<String>)>,
    cited: &[String],
    n: &Numbered,
) -> bool {
    lead.is_some_and(|(doc, start, ..)| {
        !cited.iter().any(|id| {
            n.get(id)
                .is_some_and(|v| v.candidate.doc_id == *doc && v.candidate.start == *start)
        })
    })
}

/// The rejected candidates as the answer lists them.
fn rejected_items(n: &Numbered) -> Vec<RejectedItem> {
    n.ided
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
        .collect()
}

/// Decimal places an evidence item's score is rounded to in the answer.
const SCORE_SCALE: f64 = 1e4;

/// Fill an answered `answer` from composition `c`: text, sentences, conflicts, evidence
/// items and confidence.
/// Fill `answer` from composition `c`: its text, its evidence (the cited items, then the
/// summaries beside its differences) labelled with provisions and binding, and the
/// rulings on its differences.
fn answered(
    engine: &Engine,
    answer: &mut Answer,
    c: &crate::evidence::compose::Composition,
    n: &Numbered,
    summaries: &[String],
) -> Result<(), Error> {
    answer.status = Status::Answered;
    answer.answer = c.answer.clone();
    answer.sentences = c.sentences.clone();
    answer.conflicts = c.conflicts.clone();
    answer.evidence = c
        .cited
        .iter()
        .chain(summaries)
        .filter_map(|id| n.get(id).map(|v| evidence_item(id, v, n)))
        .collect();
    ruled::bound_differences(&answer.evidence, &c.cited, &mut answer.conflicts);
    crate::authority::label::label(engine, &mut answer.evidence)?;
    let beside: HashSet<String> = summaries.iter().cloned().collect();
    crate::authority::rule::rule(engine, answer, &beside)
}

/// Set `answer`'s confidence and its assurance signals, with the check of its value.
fn assure(
    answer: &mut Answer,
    summaries: &[String],
    retrieval: f64,
    (met, check): (Met, Option<crate::answer::ValueCheck>),
    sure: bool,
) {
    answer.confidence = assured(answer, summaries, retrieval, met, sure);
    let mut s = signals(answer, summaries, retrieval, met, sure);
    answer.confidence = super::assure::model().level(&s, answer.confidence);
    s.value_check = check;
    answer.assurance = Some(s);
}

/// The signals `answer`'s assurance is read from, with the fitted model's probability.
fn signals(
    answer: &Answer,
    summaries: &[String],
    retrieval: f64,
    met: Met,
    one_step: bool,
) -> super::assure::Signals {
    use crate::frame::AnswerType as T;
    let quotes: Vec<&str> = answer.evidence.iter().map(|e| e.quote.as_str()).collect();
    let precise = matches!(
        met,
        Met::Value(
            T::Date | T::Period | T::Duration | T::Time | T::Percentage | T::Phone | T::Email
        )
    );
    let mut s = super::assure::Signals {
        value: matches!(met, Met::Value(_)),
        no_value: met == Met::NoValue,
        precise,
        one_step,
        statements: answer_statements(answer, summaries),
        retrieval,
        lead_relevance: answer.evidence.first().map_or(0.0, |e| e.score),
        coverage: super::assure::coverage(&answer.question, &quotes),
        differ: ruled::undecided(answer),
        probability: 0.0,
        value_check: None,
    };
    s.probability = super::assure::model().probability(&s);
    s
}

/// The confidence of `answer` (see [`Assurance`]); never `high` when its sources differ
/// and no ruling decides which applies.
fn assured(
    answer: &Answer,
    summaries: &[String],
    retrieval_confidence: f64,
    met: Met,
    one_step: bool,
) -> Confidence {
    let c = confidence(Assurance {
        statements: answer_statements(answer, summaries),
        retrieval_confidence,
        met,
        one_step,
    });
    if ruled::undecided(answer) && c == Confidence::High {
        Confidence::Medium
    } else {
        c
    }
}

/// Withhold `answer` when its question asks for a value of a precise type (a date, an
/// amount, a size — see [`crate::evidence::verify::asks_precise`]), none was claimed, and
/// no cited quote states any value of that type: the quotes are about the question but do
/// not say what it asks, so the documents do not answer it. Returns whether it was.
fn withheld_untyped(answer: &mut Answer, frame: &crate::frame::Frame, met: Met) -> bool {
    use crate::evidence::verify::{asks_precise, states_type};
    if met != Met::NoValue
        || !asks_precise(frame)
        || answer.evidence.iter().any(|e| states_type(frame, &e.quote))
    {
        return false;
    }
    let ty = crate::frame::json_name(&frame.answer_type);
    let n = answer.evidence.len();
    withhold(
        answer,
        format!(
            "a value of the kind asked ({ty}): {n} verified passage(s) are about the question but state none"
        ),
    );
    true
}

/// Withhold `answer`: no statement, no evidence, no value; `note` says why.
fn withhold(answer: &mut Answer, note: String) {
    let empty = empty_answer(&answer.question, Status::NoAuthoritativeEvidence);
    answer.status = empty.status;
    answer.answer = empty.answer;
    answer.sentences = empty.sentences;
    answer.evidence = empty.evidence;
    answer.conflicts = empty.conflicts;
    answer.answer_value = None;
    answer.confidence = empty.confidence;
    answer.gate = empty.gate;
    answer.missing_evidence.push(note);
}

/// What an answer to a value question that names no value says first: it is no answer.
const NO_VALUE_NAMED: &str = "a passage stating the value asked that the engine can stand \
                              behind: the passages shown are the closest found, cited for the \
                              reader, and none is given as the answer (see the notes below)";

/// Mark `answer` to a one-step question asking for a value (a date, an amount, a count, a
/// name …) as not answered when it names no value and the value read for it, if any, is not
/// `citable` (its probability is below `min_value_answer_probability`): its
/// passages are about the question, but none states a value of the kind asked that binds
/// to it and validates, or the value read is too unlikely to be the one asked for even to
/// cite. Its quotes stay, cited as the closest passages found, and the notes say why no
/// value was named; an exemption or a statement that the value is not set answers with no
/// value and is not marked so. A citable value read below the naming bound leaves the
/// answer standing, its quotes cited and no value named.
fn unanswered_value(answer: &mut Answer, frame: &crate::frame::Frame, citable: bool) {
    if answer.status != Status::Answered
        || !frame.answer_type.is_value()
        || answer.answer_value.is_some()
        || citable
    {
        return;
    }
    answer.status = Status::NoAuthoritativeEvidence;
    answer.confidence = Confidence::Insufficient;
    answer.missing_evidence.insert(0, NO_VALUE_NAMED.into());
}

/// Mark `answer`, whose cited items say that what is asked has not been set, as stating
/// that absence: its quotes stand as evidence, and it names no value.
fn stated_unset(answer: &mut Answer) {
    answer.status = Status::StatedAbsent;
    answer.answer_value = None;
}

/// Distinct statements among the answer's cited quotes (summaries shown beside a
/// difference are not the answer's statements).
fn answer_statements(answer: &Answer, summaries: &[String]) -> usize {
    let quotes: Vec<&str> = answer
        .evidence
        .iter()
        .filter(|e| !summaries.contains(&e.id))
        .map(|e| e.quote.as_str())
        .collect();
    distinct_statements(&quotes)
}

/// The evidence item of verdict `v` with id `id`.
fn evidence_item(id: &str, v: &Verdict, n: &Numbered) -> EvidenceItem {
    item_of(id, v, n.locations.get(id).cloned().unwrap_or_default())
}

/// The evidence item with id `id` of verified verdict `v`, with the other places that
/// state its quote.
pub fn item_of(id: &str, v: &Verdict, locations: Vec<crate::answer::Location>) -> EvidenceItem {
    let c = &v.candidate;
    EvidenceItem {
        id: id.to_string(),
        evidence_key: c.evidence_key(),
        doc_id: c.doc_id.clone(),
        key: c.key.clone(),
        source: c.source.clone(),
        title: c.title.clone(),
        chunk_id: c.chunk_id.clone(),
        quote: c.quote.clone(),
        display: crate::answer::display_text(&c.quote),
        start: c.start,
        end: c.end,
        line: c.line,
        page: c.page,
        section: c.section.clone(),
        label: c.label.clone(),
        kind: c.kind,
        score: (v.relevance.score * SCORE_SCALE).round() / SCORE_SCALE,
        step: c.step,
        content_hash: c.content_hash.clone(),
        locations,
        provision: None,
        non_binding: None,
        source_type: None,
        ocr: c.ocr.clone(),
        cite: None,
        file: c.file,
    }
}

/// Let the engine's generator, when one is configured and allowed, phrase the answer
/// (its sentences are checked; the extractive answer stands otherwise). Returns the
/// generator calls made.
fn phrase(
    engine: &Engine,
    answer: &mut Answer,
    question: &str,
    opts: &AskOptions,
    timings: &mut Timings,
) -> Result<usize, Error> {
    let Some(g) = engine.generator().filter(|_| opts.generate) else {
        return Ok(0);
    };
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
        question,
        &quotes,
        &answer.answer,
        engine.embedder(),
        &crate::evidence::support::SupportConfig::default(),
        &opts.gate,
    )?;
    if let Some(p) = phrased {
        answer.answer = p.answer;
        answer.sentences = p.sentences;
        answer.gate = p.gate;
    }
    answer.phrasing = Some(record);
    timings.set("phrase", t);
    Ok(1)
}

/// The cited evidence as the choice and reply readers read it: none unless answered.
fn choice_items(answer: &Answer) -> Vec<crate::research::choice::ChoiceItem> {
    if answer.status != Status::Answered {
        return Vec::new();
    }
    answer
        .evidence
        .iter()
        .map(|e| crate::research::choice::ChoiceItem {
            id: e.id.clone(),
            quote: e.quote.clone(),
            context: [
                e.section.as_deref(),
                e.label.as_deref(),
                Some(e.title.as_str()),
            ]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" "),
        })
        .collect()
}

/// The choice selection: from the cited evidence when answered, else undecided.
fn select_choice(q: &Question, answer: &Answer) -> crate::research::choice::Selection {
    crate::research::choice::select(&q.stem, &q.choices, &choice_items(answer))
}

/// A question with answer choices gets its selection; a yes/no question its reply.
fn choose_or_reply(question: &Question, answer: &mut Answer) {
    if !question.choices.is_empty() {
        answer.choice = Some(select_choice(question, answer));
    } else if frame_asks_yes_no(answer) {
        replied(&question.stem, answer);
    }
}

/// Whether `answer` is an answered yes/no question that no value (a ticked box) answers.
fn frame_asks_yes_no(answer: &Answer) -> bool {
    answer.status == Status::Answered
        && answer.answer_value.is_none()
        && answer
            .question_frame
            .as_ref()
            .is_some_and(|f| f.answer_type == crate::frame::AnswerType::YesNo)
}

/// Reply to a yes/no question from its cited evidence: a decided reply opens the answer
/// text as a short paragraph of its own ("Yes [E1]."), which states nothing for the gate
/// to check beyond the item it cites.
fn replied(stem: &str, answer: &mut Answer) {
    let r = crate::research::reply::reply(stem, &choice_items(answer));
    if let (Some(word), Some(id)) = (r.reply.map(|x| x.word()), r.deciding.as_ref()) {
        answer.answer = format!("{word} [{id}].\n\n{}", answer.answer);
    }
    answer.reply = Some(r);
}

/// What was searched for and not found.
fn missing(
    answer: &Answer,
    retrievals: &[crate::retrieve::multi::Retrieval],
    n: &Numbered,
    min_relevance: f64,
) -> Vec<String> {
    let mut out = Vec::new();
    for (st, r) in answer.steps.iter().zip(retrievals) {
        if st.status == StepStatus::Completed {
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
            .take(MAX_ABSENT_TERMS)
            .collect();
        if !absent.is_empty() {
            out.push(format!(
                "no retrieved passage mentions: {}",
                absent.join(", ")
            ));
        }
    }
    let n_incomplete = n
        .ided
        .iter()
        .filter(|(_, v)| {
            v.rejected
                .as_ref()
                .is_some_and(|r| r.reason == Reason::IncompleteQuote)
                && v.relevance.score >= min_relevance
        })
        .count();
    if n_incomplete > 0 {
        out.push(format!(
            "{n_incomplete} relevant passage(s) were not self-contained, so not quoted (see rejected)"
        ));
    }
    if !answer.gate.passed {
        out.push("the composed text failed the Evidence Gate (see gate)".into());
    }
    out
}

/// The run: the answer plus the full retrieval, every candidate and the unused items.
fn audit_trail(
    answer: Answer,
    retrieval: Vec<crate::retrieve::multi::Retrieval>,
    n: Numbered,
    composed: Composed,
) -> Run {
    let candidates = n
        .ided
        .into_iter()
        .map(|(id, verdict)| Candidate {
            id,
            verdict,
            same_quote_as: None,
        })
        .chain(n.collapsed.into_iter().map(|(id, verdict)| Candidate {
            id: id.clone(),
            verdict,
            same_quote_as: Some(id),
        }))
        .collect();
    Run {
        answer,
        retrieval,
        candidates,
        unused: composed
            .composition
            .unused
            .into_iter()
            .chain(composed.dropped)
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A one-step value question that names no value: answered, its quotes cited without
    /// a value, when the value read reaches the model's `answer_from`; not answered below
    /// it, or when no value of the kind asked was read.
    #[test]
    fn a_value_question_naming_no_value_is_answered_only_from_the_answer_bound() {
        let frame = crate::frame::frame("When does the permit expire?");
        let from = super::super::assure::value_model().answer_from;
        let run = |read: Option<f64>| {
            let mut a = empty_answer("q", Status::Answered);
            unanswered_value(&mut a, &frame, read.is_some_and(|p| p >= from));
            a.status
        };
        assert_eq!(run(Some(from)), Status::Answered);
        assert_eq!(run(Some(from - 0.01)), Status::NoAuthoritativeEvidence);
        assert_eq!(run(None), Status::NoAuthoritativeEvidence);
        let text = crate::frame::frame("Why was the permit issued?");
        let mut a = empty_answer("q", Status::Answered);
        unanswered_value(&mut a, &text, false);
        assert_eq!(
            a.status,
            Status::Answered,
            "a text question is not a value question"
        );
    }
}
