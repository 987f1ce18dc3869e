//! `attest ask`: question → screen → research (retrieve → extract → verify, step by
//! step) → select and number → compose + Evidence Gate (+ phrase) → finish: an answer
//! made of verified quotes, or `no_authoritative_evidence`.
//!
//! Fail closed: when no candidate survives verification, or the composed text fails the
//! gate, the answer is empty and `missing_evidence` says what was searched for and not
//! found. Never an unsupported sentence.
//!
//! One file per stage, in data-flow order: [`screen`], [`research`], [`select`],
//! [`compose`], [`finish`]. Each takes the previous stage's typed output.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::Instant;

use crate::answer::Run;
use crate::engine::Engine;
use crate::error::Error;
use crate::evidence::gate::GateConfig;
use crate::evidence::verify::RelevanceConfig;

pub mod assure;
pub mod batch;
pub mod cell;
pub mod compose;
pub mod decide;
pub mod finish;
pub mod research;
pub mod screen;
pub mod select;

pub use compose::{sentence_body, MULTI_HOP_STATEMENTS_PER_DOCUMENT};
pub use finish::{confidence, distinct_statements, item_of, WEAK_RETRIEVAL};
pub use research::{MAX_COMPLETED_STEPS, MAX_FAILURES_IN_ROW, MAX_ITERATIONS};
pub use screen::{fingerprint, guard, Rejection, MAX_CHOICES};

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
    /// Least value-model probability at which a value read is named.
    pub min_value_probability: f64,
    /// Least value-model probability of the value read at which a one-step value question
    /// whose value is not named is still answered.
    pub min_value_answer_probability: f64,
    /// Let the engine's generator, when one is configured, phrase the answer.
    pub generate: bool,
    /// When set, only these documents are searched; the QA memory is not used.
    pub scope: Option<std::sync::Arc<crate::retrieve::Restrict>>,
}

impl AskOptions {
    /// Options from the engine's configuration.
    pub fn from_config(cfg: &crate::config::Config) -> Self {
        AskOptions {
            chunks: cfg.ask_chunks.max(1),
            max_statements: cfg.max_statements.max(1),
            relevance: RelevanceConfig {
                min_relevance: cfg.min_relevance,
                min_cross_relevance: cfg.min_cross_relevance,
                embed_budget: cfg.embed_budget,
            },
            gate: GateConfig::default(),
            max_question_words: cfg.max_question_words,
            rerank: true,
            research: true,
            memory: cfg.memory,
            memory_threshold: cfg.memory_threshold,
            min_value_probability: cfg.min_value_probability,
            min_value_answer_probability: cfg.min_value_answer_probability,
            generate: true,
            scope: None,
        }
    }
}

/// Relevance by which a binding item may fall short of a non-binding one and still be
/// composed before it. A bound, not tuned.
pub const BINDING_FIRST_MARGIN: f64 = 0.05;

/// Ids of the verified items quoting text that does not bind (a recital, a note, a
/// summary) that a binding item about as relevant (within [`BINDING_FIRST_MARGIN`])
/// outranks: those come after the binding ones. A non-binding item clearly more relevant
/// than every binding one keeps its place, labelled (the rule is not there to be found).
fn demoted(engine: &Engine, numbered: &select::Numbered) -> Result<HashSet<String>, Error> {
    let items = numbered.items();
    let nb = crate::authority::label::non_binding_ids(engine, &items)?;
    let score = |id: &str| numbered.get(id).map_or(0.0, |v| v.relevance.score);
    let best_binding = items
        .iter()
        .filter(|i| !nb.contains(&i.id))
        .map(|i| score(&i.id))
        .fold(f64::NEG_INFINITY, f64::max);
    Ok(nb
        .into_iter()
        .filter(|id| best_binding >= score(id) - BINDING_FIRST_MARGIN)
        .collect())
}

/// The order items are composed in (lower first): 0 for the text that binds, 3 for the
/// text [`demoted`] puts after it; for a free-text question about obligations, binding
/// items go by their source as requirements do (0 statutes and regulations, 1 policy
/// and guidance, 2 the rest). A typed question keeps its lead first.
fn composing_order(
    engine: &Engine,
    numbered: &select::Numbered,
    frame: &crate::frame::Frame,
    stem: &str,
) -> Result<std::collections::HashMap<String, u8>, Error> {
    use crate::authority::requirements::{asks_obligation, group_of};
    let later = demoted(engine, numbered)?;
    let grouped = !frame.answer_type.is_value() && asks_obligation(stem);
    let types: std::collections::HashMap<String, crate::source::SourceType> = match grouped {
        true => {
            let ids: Vec<String> = numbered.items().into_iter().map(|i| i.doc_id).collect();
            crate::authority::Catalog::load_only(engine, &ids)?
                .documents
                .into_iter()
                .map(|d| (d.doc_id, d.source_type.value))
                .collect()
        }
        false => Default::default(),
    };
    Ok(numbered
        .items()
        .into_iter()
        .map(|i| {
            let rank = match (later.contains(&i.id), types.get(&i.doc_id)) {
                (true, _) => 3,
                (false, Some(t)) => group_of(*t),
                (false, None) => 0,
            };
            (i.id, rank)
        })
        .collect())
}

/// Milliseconds since `t`, to two decimals.
fn ms(t: Instant) -> f64 {
    (t.elapsed().as_secs_f64() * 1e5).round() / 100.0
}

/// Milliseconds per stage.
#[derive(Debug, Default)]
pub(crate) struct Timings(BTreeMap<String, f64>);

impl Timings {
    /// Add the time since `t` to `stage`.
    fn add(&mut self, stage: &str, t: Instant) {
        *self.0.entry(stage.to_string()).or_insert(0.0) += ms(t);
    }

    /// Set `stage` to the time since `t`.
    fn set(&mut self, stage: &str, t: Instant) {
        self.0.insert(stage.to_string(), ms(t));
    }

    fn into_map(self) -> BTreeMap<String, f64> {
        self.0
    }
}

/// Answer `question` from the engine's index.
pub fn ask(engine: &Engine, question: &str, opts: &AskOptions) -> Result<Run, Error> {
    let started = Instant::now();
    let question = match screen::screen(engine, question, opts, started)? {
        screen::Screened::Done(run) => return Ok(*run),
        screen::Screened::Accepted(q) => *q,
    };
    let mut timings = Timings::default();
    let mut found = research::research(engine, &question, opts, &mut timings)?;
    let t = Instant::now();
    let verdicts = std::mem::take(&mut found.verdicts);
    let (mut numbered, held) = select::number_held(engine, &question.stem, verdicts)?;
    let frame = question.frame.clone();
    let (mut decision, multi_hop) = first_decision(engine, &question.stem, &frame, &numbered);
    let mut second_look = false;
    if frame.answer_type.is_value() && decision.value.is_none() && !decision.settled {
        let searched = Searched {
            found,
            numbered,
            decision,
        };
        let s;
        (s, second_look) =
            search_value(engine, &question, searched, multi_hop, opts, &mut timings)?;
        Searched {
            found,
            numbered,
            decision,
        } = s;
    }
    decision.unmet.extend(held.unmet);
    let lead = lead_of(&decision, &numbered);
    let keep = kept(&frame, &numbered, &decision, multi_hop);
    let order = composing_order(engine, &numbered, &frame, &question.stem)?;
    let mut composed = compose::compose(
        &mut numbered,
        found.classification.class,
        keep.as_deref(),
        &order,
        opts,
    );
    timings.set("compose", t);
    let (gate, summaries) = gate_and_summaries(
        engine,
        &question.stem,
        &mut composed,
        &mut numbered,
        opts,
        &mut timings,
    )?;
    let mut run = finish::finish(
        engine,
        finish::Done {
            question,
            found,
            numbered,
            composed,
            gate,
            timings,
            started,
            frame,
            unmet: decision.unmet,
            note: decision.note,
            absent: decision.absent,
            settled: decision.settled,
            lead,
            second_look,
            summaries,
        },
        opts,
    )?;
    cite_papers(engine, &mut run.answer.evidence);
    Ok(run)
}

/// Each evidence item from a paper labelled with how a researcher cites it ("Lo et al.
/// 2020"), from its document's stored profile.
fn cite_papers(engine: &Engine, evidence: &mut [crate::answer::EvidenceItem]) {
    let mut by_doc: HashMap<String, Option<String>> = HashMap::new();
    for e in evidence {
        e.cite = by_doc
            .entry(e.doc_id.clone())
            .or_insert_with(|| {
                let json = engine.store().profile_json_of(&e.doc_id).ok().flatten();
                crate::profile::paper::citation_of(json.as_deref())
            })
            .clone();
    }
}

/// The item stating the decided value (document, start), the value and its cell.
type Lead = (String, usize, crate::value::typed::Found, Option<String>);

/// Where `decision`'s value is stated: its item's document and start, with the value.
fn lead_of(decision: &decide::Decision, numbered: &select::Numbered) -> Option<Lead> {
    decision.value.as_ref().and_then(|(id, v)| {
        numbered.get(id).map(|x| {
            let at = (x.candidate.doc_id.clone(), x.candidate.start);
            (at.0, at.1, v.clone(), decision.cell.clone())
        })
    })
}

/// The gate on the composed answer, then the summaries beside its differences (see
/// `compose::add_summaries`), each timed.
fn gate_and_summaries(
    engine: &Engine,
    stem: &str,
    composed: &mut compose::Composed,
    numbered: &mut select::Numbered,
    opts: &AskOptions,
    timings: &mut Timings,
) -> Result<(crate::evidence::gate::GateResult, Vec<String>), Error> {
    let t = Instant::now();
    let gate = compose::gate(&composed.composition, numbered, opts);
    timings.set("gate", t);
    let t = Instant::now();
    let summaries = compose::add_summaries(engine, stem, composed, numbered, gate.passed, opts)?;
    timings.set("summaries", t);
    Ok((gate, summaries))
}

/// The decision on the first research's items, and whether `stem` is multi-hop. A
/// multi-hop answer spans documents through bridges: a free-text one is left to the
/// research loop's steps, a typed one may find the named things in any verified item;
/// the class is read even with the loop off (one step may find both ends of a bridge).
/// A statement to check ("0-dimensional biomaterials show inductive properties") asks
/// for the evidence about it, not for an answer to a frame.
fn first_decision(
    engine: &Engine,
    stem: &str,
    frame: &crate::frame::Frame,
    numbered: &select::Numbered,
) -> (decide::Decision, bool) {
    let multi_hop = crate::research::classify(stem).class == crate::research::Class::MultiHop;
    let statement = !frame.answer_type.is_value() && crate::frame::is_statement(stem);
    let decision = if (multi_hop || statement) && !frame.answer_type.is_value() {
        decide::Decision::default()
    } else {
        decide::decide(engine, frame, numbered, multi_hop)
    };
    (decision, multi_hop)
}

/// The items the answer may cite: none when the frame is unmet, else the decision's
/// (for a multi-hop question or things named side by side, with each verified link, see
/// [`decide::with_chain`]).
fn kept(
    frame: &crate::frame::Frame,
    numbered: &select::Numbered,
    decision: &decide::Decision,
    multi_hop: bool,
) -> Option<Vec<String>> {
    if !decision.unmet.is_empty() {
        return Some(Vec::new());
    }
    let mut keep = decision.keep.clone();
    // Things named side by side ("Do Gibson and Zurracapote both contain gin?") are
    // each cited, like the links of a multi-hop chain.
    let side_by_side = frame.either && frame.entities.len() >= 2;
    if let Some(k) = keep.as_mut().filter(|_| multi_hop || side_by_side) {
        decide::with_chain(frame, numbered, k);
    }
    keep
}

/// What a question's research found, its numbered items and the decision on them.
struct Searched {
    found: research::Found,
    numbered: select::Numbered,
    decision: decide::Decision,
}

/// The further search of a typed question whose value no verified item states: one more
/// step over twice the chunks, then (for a question classified simple) one bridge, then
/// the second look. Returns what it found and whether the second look gave the value.
fn search_value(
    engine: &Engine,
    asked: &screen::Question,
    s: Searched,
    multi_hop: bool,
    opts: &AskOptions,
    timings: &mut Timings,
) -> Result<(Searched, bool), Error> {
    let Searched {
        found, numbered, ..
    } = s;
    let (question, frame) = (asked.stem.as_str(), &asked.frame);
    let mut found = research::widen(engine, asked, opts, timings, found)?;
    let mut verdicts = numbered.into_verdicts();
    verdicts.append(&mut found.verdicts);
    let mut numbered = select::number_held(engine, question, verdicts)?.0;
    let mut decision = decide::decide(engine, frame, &numbered, multi_hop);
    if decision.value.is_none() {
        // The bridge step reconsiders what was rejected: all verdicts go with it.
        found.verdicts = numbered.into_verdicts();
        let bridged;
        (found, bridged) = research::bridge(engine, asked, opts, timings, found)?;
        numbered = select::number_held(engine, question, std::mem::take(&mut found.verdicts))?.0;
        if bridged {
            decision = decide::decide(engine, frame, &numbered, multi_hop);
        }
    }
    let mut second_look = false;
    if decision.value.is_none() {
        (numbered, decision, second_look) =
            look_again(engine, frame, numbered, decision, multi_hop, opts);
    }
    let s = Searched {
        found,
        numbered,
        decision,
    };
    Ok((s, second_look))
}

/// The second look of a typed question nothing answered (see
/// [`decide::second_look`]): the items it finds are verified and the question decided
/// again; when that still finds no value, everything stays as it was. Returns the items,
/// the decision and whether the second look gave the value.
fn look_again(
    engine: &Engine,
    frame: &crate::frame::Frame,
    numbered: select::Numbered,
    decision: decide::Decision,
    multi_hop: bool,
    opts: &AskOptions,
) -> (select::Numbered, decide::Decision, bool) {
    let ids = decide::second_look(engine, frame, &numbered, &opts.relevance);
    if ids.is_empty() {
        return (numbered, decision, false);
    }
    let mut taken = Vec::new();
    let mut verdicts = Vec::new();
    for (id, mut v) in numbered.ided.into_iter() {
        if ids.contains(&id) {
            taken.push((
                v.candidate.doc_id.clone(),
                v.candidate.start,
                v.rejected.take(),
            ));
        }
        verdicts.push(v);
    }
    verdicts.extend(numbered.collapsed.into_iter().map(|(_, v)| v));
    let again = select::number(verdicts);
    let second = decide::decide(engine, frame, &again, multi_hop);
    if second.value.is_some() {
        return (again, second, true);
    }
    let mut verdicts = again.into_verdicts();
    for v in verdicts.iter_mut() {
        let c = &v.candidate;
        if let Some((_, _, r)) = taken
            .iter_mut()
            .find(|(d, s, _)| *d == c.doc_id && *s == c.start)
        {
            v.rejected = r.take();
        }
    }
    (select::number(verdicts), decision, false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::{Confidence, Status};
    use crate::config::Config;
    use crate::evidence::phrase::PhrasingOutcome;
    use proptest::prelude::*;
    use proptest::test_runner::{Config as PropConfig, TestRunner};
    use std::collections::HashSet;

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
            Status::StatedAbsent => {
                prop_assert!(a.gate.passed && !a.evidence.is_empty());
                prop_assert!(a.answer_value.is_none());
            }
            _ => {
                prop_assert!(a.answer.is_empty() && a.sentences.is_empty());
                prop_assert_eq!(a.confidence, Confidence::Insufficient);
            }
        }
        // Ids are E1..En, each once, over evidence, rejected and the audit's candidates
        // (a candidate collapsed into an item carries that item's id).
        let own: Vec<&crate::answer::Candidate> = run
            .candidates
            .iter()
            .filter(|c| c.same_quote_as.is_none())
            .collect();
        let mut all: Vec<usize> = own.iter().map(|c| c.id[1..].parse().unwrap()).collect();
        all.sort_unstable();
        prop_assert_eq!(all, (1..=own.len()).collect::<Vec<_>>());
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
        assert_eq!(p.outcome, PhrasingOutcome::Phrased, "{p:?}");
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
        assert_eq!(
            a.phrasing.as_ref().unwrap().outcome,
            PhrasingOutcome::Fallback
        );
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
    fn confidence_follows_the_frame_and_weak_retrieval_lowers_it() {
        use crate::frame::AnswerType as T;
        use finish::{Assurance, Met};
        let c = |statements, retrieval_confidence, met| {
            confidence(Assurance {
                statements,
                retrieval_confidence,
                met,
                one_step: true,
            })
        };
        let chained = Assurance {
            statements: 2,
            retrieval_confidence: 0.9,
            met: Met::Value(T::Date),
            one_step: false,
        };
        assert_eq!(confidence(chained), Confidence::Medium);
        assert_eq!(c(0, 0.9, Met::Value(T::Date)), Confidence::Insufficient);
        assert_eq!(c(1, 0.9, Met::Value(T::Date)), Confidence::High);
        assert_eq!(c(1, 0.1, Met::Value(T::Date)), Confidence::Medium);
        assert_eq!(c(3, 0.9, Met::Value(T::Money)), Confidence::Medium);
        // A typed question answered without its value never gets `high`.
        assert_eq!(c(5, 0.9, Met::NoValue), Confidence::Low);
        assert_eq!(c(5, 0.9, Met::Text), Confidence::Medium);
        assert_eq!(c(1, 0.9, Met::Text), Confidence::Low);
        assert_eq!(c(2, 0.1, Met::Text), Confidence::Low);
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
        assert!(guard("  ", &o).unwrap().message().contains("empty"));
        assert!(guard("?!", &o).unwrap().message().contains("no words"));
        let long = "word ".repeat(o.max_question_words + 1);
        assert!(guard(&long, &o).unwrap().message().contains("limit"));
        assert_eq!(guard("How long are records kept?", &o), None);
    }
}
