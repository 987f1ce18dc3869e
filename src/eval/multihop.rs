//! `attest eval multihop`: multi-hop questions (BEIR data whose queries have two or more
//! gold paragraphs) asked twice, as one retrieval step and through the research loop;
//! reports the share of questions whose answer's evidence includes **every** gold
//! paragraph (`both_gold_single_step`, `both_gold_loop`), the same over all verified items,
//! steps per question and latency.

use std::collections::HashSet;
use std::time::Instant;

use serde::Serialize;

use super::retrieval::Dataset;
use super::{eval_index_dir, load_dataset, open_eval_engine, percentile, DatasetRun};
use crate::answer::Status;
use crate::ask::{ask, AskOptions};
use crate::config::Config;
use crate::engine::Engine;
use crate::error::Error;

/// Gold paragraphs a question needs to count as multi-hop.
const MIN_GOLD: usize = 2;

/// `attest eval multihop`: load the dataset, ingest its corpus into the evaluation index
/// and ask its multi-gold questions (never served from the QA memory).
pub fn run(mut cfg: Config, run: &DatasetRun) -> Result<MultihopReport, Error> {
    let ds = load_dataset(&run.dataset, run.split.as_deref(), run.limit)?;
    cfg.index = eval_index_dir(&run.dataset, run.eval_index.clone());
    let mut opts = AskOptions::from_config(&cfg);
    opts.memory = false; // every question is researched, never served from memory
    let engine = open_eval_engine(cfg, &ds, run.progress)?;
    let bar = crate::ingest::counter_bar(ds.queries.len() as u64, run.progress, "questions");
    let _log = crate::ingest::ticker(run.progress, "eval multihop", "questions", &bar);
    let report = evaluate(&engine, &ds, &opts, |n| bar.set_position(n as u64))?;
    bar.finish_and_clear();
    Ok(report)
}

/// Metrics of the comparison.
#[derive(Debug, Clone, Default, Serialize)]
pub struct MultihopMetrics {
    /// Share whose single-step answer cites every gold paragraph.
    pub both_gold_single_step: f64,
    /// Share whose research-loop answer cites every gold paragraph.
    pub both_gold_loop: f64,
    /// The same over every verified item (cited or not), single step.
    pub both_gold_verified_single_step: f64,
    /// The same over every verified item, research loop.
    pub both_gold_verified_loop: f64,
    /// Share classified `multi_hop`.
    pub multi_hop_share: f64,
    /// Mean research steps per question (loop).
    pub steps_per_question: f64,
    /// Answered share, single step.
    pub answered_single_step: f64,
    /// Answered share, loop.
    pub answered_loop: f64,
    /// Cited quotes not verbatim at their spans, both runs (must be 0).
    pub not_verbatim: usize,
    /// Sentences without citations, both runs (must be 0).
    pub uncited_sentences: usize,
    /// Median milliseconds per question, single step.
    pub p50_ms_single_step: f64,
    /// Median milliseconds per question, loop.
    pub p50_ms_loop: f64,
    /// 95th percentile milliseconds, loop.
    pub p95_ms_loop: f64,
}

/// The report.
#[derive(Debug, Clone, Serialize)]
pub struct MultihopReport {
    /// Dataset directory.
    pub dataset: String,
    /// Split.
    pub split: String,
    /// Questions with two or more gold paragraphs.
    pub questions: usize,
    /// Metrics.
    pub metrics: MultihopMetrics,
}

struct Outcome {
    cited: HashSet<String>,
    verified: HashSet<String>,
    steps: usize,
    answered: bool,
    multi_hop: bool,
    ms: f64,
}

fn run_one(
    engine: &Engine,
    q: &str,
    opts: &AskOptions,
    m: &mut MultihopMetrics,
) -> Result<Outcome, Error> {
    let t = Instant::now();
    let run = ask(engine, q, opts)?;
    let ms = t.elapsed().as_secs_f64() * 1e3;
    let a = &run.answer;
    let mut quotes = crate::store::QuoteChecker::new(engine.store());
    for e in &a.evidence {
        if !quotes
            .check(&e.doc_id, e.start, e.end, &e.quote, None)?
            .stands()
        {
            m.not_verbatim += 1;
        }
    }
    m.uncited_sentences += a
        .sentences
        .iter()
        .filter(|s| s.citations.is_empty())
        .count();
    Ok(Outcome {
        cited: a.evidence.iter().flat_map(|e| e.keys().cloned()).collect(),
        verified: run
            .candidates
            .iter()
            .filter(|c| c.verdict.rejected.is_none())
            .map(|c| c.verdict.candidate.key.clone())
            .collect(),
        steps: a.steps.len(),
        answered: a.status == Status::Answered,
        multi_hop: a
            .research
            .as_ref()
            .is_some_and(|r| r.classification.class == crate::research::Class::MultiHop),
        ms,
    })
}

/// Ask every multi-gold question of `ds` single-step and through the loop.
pub fn evaluate(
    engine: &Engine,
    ds: &Dataset,
    opts: &AskOptions,
    mut progress: impl FnMut(usize),
) -> Result<MultihopReport, Error> {
    let mut m = MultihopMetrics::default();
    let single = AskOptions {
        research: false,
        ..opts.clone()
    };
    let (mut lat_single, mut lat_loop) = (Vec::new(), Vec::new());
    let (mut b1, mut b2, mut v1, mut v2, mut steps, mut mh, mut a1, mut a2) =
        (0, 0, 0, 0, 0, 0, 0, 0);
    let mut n = 0;
    for (i, q) in ds.queries.iter().enumerate() {
        let gold: Vec<&String> = ds.qrels[&q.id]
            .iter()
            .filter(|(_, &s)| s > 0)
            .map(|(k, _)| k)
            .collect();
        if gold.len() < MIN_GOLD {
            continue;
        }
        n += 1;
        let s = run_one(engine, &q.text, &single, &mut m)?;
        let l = run_one(engine, &q.text, opts, &mut m)?;
        let all = |set: &HashSet<String>| gold.iter().all(|g| set.contains(*g));
        b1 += all(&s.cited) as usize;
        b2 += all(&l.cited) as usize;
        v1 += all(&s.verified) as usize;
        v2 += all(&l.verified) as usize;
        steps += l.steps;
        mh += l.multi_hop as usize;
        a1 += s.answered as usize;
        a2 += l.answered as usize;
        lat_single.push(s.ms);
        lat_loop.push(l.ms);
        progress(i + 1);
    }
    let d = n.max(1) as f64;
    m.both_gold_single_step = b1 as f64 / d;
    m.both_gold_loop = b2 as f64 / d;
    m.both_gold_verified_single_step = v1 as f64 / d;
    m.both_gold_verified_loop = v2 as f64 / d;
    m.multi_hop_share = mh as f64 / d;
    m.steps_per_question = steps as f64 / d;
    m.answered_single_step = a1 as f64 / d;
    m.answered_loop = a2 as f64 / d;
    lat_single.sort_by(f64::total_cmp);
    lat_loop.sort_by(f64::total_cmp);
    m.p50_ms_single_step = percentile(&lat_single, 50.0);
    m.p50_ms_loop = percentile(&lat_loop, 50.0);
    m.p95_ms_loop = percentile(&lat_loop, 95.0);
    Ok(MultihopReport {
        dataset: ds.dir.display().to_string(),
        split: ds.split.clone(),
        questions: n,
        metrics: m,
    })
}
