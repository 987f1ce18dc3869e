//! Stage 1, screen: the question's own rules (empty, too long, no words), the
//! prompt-injection guard, answer choices, then the QA memory. A question stopped here
//! costs no retrieval.

use std::time::Instant;

use super::{ms, AskOptions};
use crate::answer::{Answer, Run, Status};
use crate::engine::Engine;
use crate::error::Error;
use crate::research::{strip_choices, Choice};
use crate::store::sha256_hex;
use crate::text::word_count;

/// Most answer choices accepted.
pub const MAX_CHOICES: usize = 10;

/// Why a question is not accepted.
#[derive(Debug, Clone, PartialEq)]
pub enum Rejection {
    /// Nothing but white space.
    Empty,
    /// More words than `max_question_words`.
    TooLong {
        /// Words in the question.
        words: usize,
        /// The limit.
        limit: usize,
    },
    /// No letter or digit.
    NoWords,
    /// Answer choices and nothing else.
    OnlyChoices,
    /// More than [`MAX_CHOICES`] answer choices.
    TooManyChoices(usize),
    /// The prompt-injection guard matched.
    Injection(crate::guard::Screen),
}

impl Rejection {
    /// The `reason` the answer JSON carries.
    pub fn message(&self) -> String {
        match self {
            Rejection::Empty => "the question is empty".into(),
            Rejection::TooLong { words, limit } => format!(
                "the question has {words} words; the limit is {limit} (max_question_words)"
            ),
            Rejection::NoWords => "the question has no words".into(),
            Rejection::OnlyChoices => "the question is only answer choices".into(),
            Rejection::TooManyChoices(n) => format!(
                "the question has {n} answer choices; at most {MAX_CHOICES} are accepted"
            ),
            Rejection::Injection(hit) => format!(
                "possible prompt injection ({}: \"{}\"); questions are answered from the documents only",
                hit.kind.as_str(), hit.matched
            ),
        }
    }
}

/// Check the question before anything runs: `Some(rejection)` when it is not accepted.
pub fn guard(question: &str, opts: &AskOptions) -> Option<Rejection> {
    let q = question.trim();
    if q.is_empty() {
        return Some(Rejection::Empty);
    }
    let n = word_count(q);
    if n > opts.max_question_words {
        return Some(Rejection::TooLong {
            words: n,
            limit: opts.max_question_words,
        });
    }
    if !q.chars().any(char::is_alphanumeric) {
        return Some(Rejection::NoWords);
    }
    None
}

/// Reject a question that is only answer choices, or has too many.
fn guard_choices(stem: &str, choices: &[Choice]) -> Option<Rejection> {
    if !choices.is_empty() && !stem.chars().any(char::is_alphanumeric) {
        return Some(Rejection::OnlyChoices);
    }
    if choices.len() > MAX_CHOICES {
        return Some(Rejection::TooManyChoices(choices.len()));
    }
    None
}

/// An accepted question.
pub(super) struct Question {
    /// The question as asked.
    pub asked: String,
    /// The question without its answer choices, trimmed: what is researched.
    pub stem: String,
    /// Answer choices found in it.
    pub choices: Vec<Choice>,
    /// Where the answer is stored in the QA memory (`None`: not stored).
    pub memory: Option<crate::memory::MemoryKey>,
    /// The stem's frame: what it asks for, read once here and passed down to research,
    /// verification, the decision and the answer.
    pub frame: crate::frame::Frame,
}

/// What screening decided.
pub(super) enum Screened {
    /// Answered without research: rejected, or served from the QA memory.
    Done(Box<Run>),
    /// To research.
    Accepted(Box<Question>),
}

/// An empty answer to `question` with `status`.
pub(super) fn empty_answer(question: &str, status: Status) -> Answer {
    Answer {
        question: question.to_string(),
        as_of: None,
        status,
        reason: None,
        answer: String::new(),
        sentences: Vec::new(),
        evidence: Vec::new(),
        conflicts: Vec::new(),
        rejected: Vec::new(),
        missing_evidence: Vec::new(),
        confidence: crate::answer::Confidence::Insufficient,
        gate: crate::evidence::gate::check(
            "",
            &Default::default(),
            &crate::evidence::gate::GateConfig::default(),
        ),
        steps: Vec::new(),
        research: None,
        choice: None,
        reply: None,
        question_frame: None,
        answer_value: None,
        assurance: None,
        phrasing: None,
        metrics: Default::default(),
    }
}

/// A `rejected_input` run.
fn rejected(question: &str, why: Rejection) -> Screened {
    let mut a = empty_answer(question, Status::RejectedInput);
    a.reason = Some(why.message());
    if let Rejection::Injection(hit) = why {
        a.metrics.injection = Some(hit);
    }
    Screened::Done(Box::new(Run::answer_only(a)))
}

/// Screen `question`: the rules, the injection guard, the choices, the QA memory.
pub(super) fn screen(
    engine: &Engine,
    question: &str,
    opts: &AskOptions,
    t0: Instant,
) -> Result<Screened, Error> {
    if let Some(why) = guard(question, opts) {
        return Ok(rejected(question, why));
    }
    if let Some(hit) = crate::guard::screen(question) {
        return Ok(rejected(question, Rejection::Injection(hit)));
    }
    let (stem, choices) = strip_choices(question);
    let stem = stem.trim().to_string();
    if let Some(why) = guard_choices(&stem, &choices) {
        return Ok(rejected(question, why));
    }
    // Only default-mode answers (research loop on, extractive, no choices) are stored
    // and served: phrased answers and choice selections rerun.
    let generator = engine.generator().filter(|_| opts.generate);
    let memory = if opts.memory
        && opts.scope.is_none()
        && opts.research
        && choices.is_empty()
        && generator.is_none()
    {
        let corpus_version = engine.store().corpus_version()?;
        let v = engine.embed_query(&stem)?;
        let fp = fingerprint(engine, opts);
        if let Some(hit) =
            crate::memory::lookup(engine.store(), question, &fp, &v, opts.memory_threshold)?
        {
            let mut answer = hit.answer;
            answer.question = question.to_string();
            answer.metrics.timings_ms.insert("total".into(), ms(t0));
            return Ok(Screened::Done(Box::new(Run::answer_only(answer))));
        }
        Some(crate::memory::MemoryKey {
            vector: v,
            fingerprint: fp,
            corpus_version,
        })
    } else {
        None
    };
    Ok(Screened::Accepted(Box::new(Question {
        asked: question.to_string(),
        frame: crate::frame::frame(&stem),
        stem,
        choices,
        memory,
    })))
}

/// A digest of every setting that shapes an answer: a stored answer is served only
/// under the same fingerprint.
pub fn fingerprint(engine: &Engine, opts: &AskOptions) -> String {
    let cfg = engine.config();
    let reranker = engine
        .reranker()
        .filter(|_| opts.rerank)
        .map(|r| r.model_id().to_string());
    let parts = format!(
        "attest {}|model {}|chunks {}|statements {}|relevance {:?}|gate {:?}|reranker {:?} depth {}|candidates {}|rrf_k {}|exact {}|ef {}|research {}",
        env!("CARGO_PKG_VERSION"),
        engine.embedder().model_id(),
        opts.chunks,
        opts.max_statements,
        opts.relevance,
        opts.gate,
        reranker,
        cfg.rerank_depth,
        cfg.candidates,
        cfg.rrf_k,
        cfg.exact_threshold,
        cfg.hnsw_ef_search,
        opts.research,
    );
    sha256_hex(parts.as_bytes())
}
