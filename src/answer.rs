//! The answer a run returns (design.md §3, "Answer JSON") and the audit trail around it:
//! the types `ask` produces and the QA memory, the audit replay, the evaluations and the
//! renderer read. Closed sets of values are enums that serialise as the JSON spells them.

use serde::{Deserialize, Serialize};

use crate::corpus::layout::FileSpan;
use crate::evidence::compose::{Conflict, Sentence};
use crate::evidence::extract::Kind;
use crate::evidence::gate::GateResult;
use crate::evidence::verify::{Reason, Verdict};
use crate::research::{Choice, Classification};
use crate::retrieve::multi::Retrieval;

/// Outcome of a question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// An answer made of verified quotes that passed the gate.
    Answered,
    /// Nothing verified: the corpus holds no authoritative evidence for the question.
    NoAuthoritativeEvidence,
    /// The cited documents state that what is asked does not exist or has not been set
    /// ("a replacement has not yet been named"): verified quotes that passed the gate,
    /// and no answer value.
    StatedAbsent,
    /// The question was not accepted (see `reason`).
    RejectedInput,
}

impl Status {
    /// The name, as the JSON spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Answered => "answered",
            Status::NoAuthoritativeEvidence => "no_authoritative_evidence",
            Status::StatedAbsent => "stated_absent",
            Status::RejectedInput => "rejected_input",
        }
    }
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

impl Confidence {
    /// The name, as the JSON spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Confidence::Insufficient => "insufficient",
            Confidence::Low => "low",
            Confidence::Medium => "medium",
            Confidence::High => "high",
        }
    }
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
    /// 1-based page of `start`, when the source has pages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<usize>,
    /// sha256 of the document text.
    pub content_hash: String,
    /// Where the quote lies in the file on disk: `file_start`, `file_end` (or why not).
    #[serde(flatten)]
    pub file: FileSpan,
}

/// `s` with every whitespace run collapsed to one space, trimmed.
pub fn display_text(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

impl EvidenceItem {
    /// Document keys of every place the item states its quote (its own first).
    pub fn keys(&self) -> impl Iterator<Item = &String> {
        std::iter::once(&self.key).chain(self.locations.iter().map(|l| &l.key))
    }
}

impl Location {
    /// The place of candidate `c`.
    pub fn of(c: &crate::evidence::extract::Candidate) -> Self {
        Location {
            evidence_key: c.evidence_key(),
            doc_id: c.doc_id.clone(),
            key: c.key.clone(),
            source: c.source.clone(),
            start: c.start,
            end: c.end,
            line: c.line,
            page: c.page,
            content_hash: c.content_hash.clone(),
            file: c.file,
        }
    }
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
    /// The quote with whitespace runs collapsed to one space, for reading.
    #[serde(default)]
    pub display: String,
    /// Byte offset in the document text (the stored text the gate checks).
    pub start: usize,
    /// End byte offset (exclusive).
    pub end: usize,
    /// Where the quote lies in the file on disk: `file_start`, `file_end`, bytes of the
    /// file whose rendering is the quote (text and Markdown), or `file_span_absent`
    /// saying why not.
    #[serde(flatten)]
    pub file: FileSpan,
    /// 1-based line of `start`.
    pub line: usize,
    /// 1-based page of `start`, when the source has pages (PDF, DOCX).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<usize>,
    /// Innermost section title at `start`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    /// A table row's column headers, or the prompt or field name a value answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
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
    /// The finest provision the quote stands in ("Article 521(2)(b)", "§ 164.404(b)"),
    /// when its section is numbered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provision: Option<String>,
    /// Why the quoted text does not bind (a recital, a note, a summary), when it does not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub non_binding: Option<NonBindingAt>,
    /// The kind of source it comes from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_type: Option<crate::source::SourceType>,
    /// What the quote owes to OCR (engine, words below the confidence threshold), when
    /// its page was read by OCR.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ocr: Option<crate::corpus::layout::OcrMark>,
    /// For a paper: how a researcher cites it, "Lo et al. 2020" (its first page's authors
    /// and year).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cite: Option<String>,
}

/// What non-binding text an item quotes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NonBindingAt {
    /// Recital, preamble, note, example, summary or citation.
    pub kind: crate::source::binding::NonBinding,
    /// Its number, for a recital ("(2)").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
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

/// How the research loop chose a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepAction {
    /// The question itself.
    First,
    /// A sub-question (a compared thing or a bridge entity).
    NextStep,
    /// The failed step reworded.
    Retry,
    /// A typed question nothing answered: the question again, over more chunks.
    Widen,
}

impl StepAction {
    /// The name, as the JSON spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            StepAction::First => "first",
            StepAction::NextStep => "next_step",
            StepAction::Retry => "retry",
            StepAction::Widen => "widen",
        }
    }
}

/// What the evaluator made of a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    /// It verified evidence.
    Completed,
    /// It verified nothing.
    Failed,
}

impl StepStatus {
    /// The name, as the JSON spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            StepStatus::Completed => "completed",
            StepStatus::Failed => "failed",
        }
    }
}

/// One research step.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Step {
    /// 1-based.
    pub step: usize,
    /// The question this step searched for.
    pub question: String,
    /// How the planner chose it.
    pub action: StepAction,
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
    /// Whether it verified evidence.
    pub status: StepStatus,
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

/// The value that answers a typed question: a span inside a verified quote.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnswerValue {
    /// The answer type the value is of.
    #[serde(rename = "type")]
    pub ty: crate::frame::AnswerType,
    /// The normalised value (ISO date, `7 year`, digits of a telephone number, …).
    pub normalised: String,
    /// The value as the quote writes it.
    pub raw: String,
    /// The evidence item whose quote states it.
    pub evidence_id: String,
    /// Byte offset of the value in the document's stored text.
    pub start: usize,
    /// End byte offset (exclusive).
    pub end: usize,
    /// For a value read from one cell of a table row: `row × column` (the row's stub and
    /// the cell's column header).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cell: Option<String>,
}

/// The answer (design.md §3, "Answer JSON").
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Answer {
    /// The question as asked.
    pub question: String,
    /// What an `--as-of` date set aside (only for a question asked as of a date).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub as_of: Option<crate::source::DatedSources>,
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
    /// For a yes/no question answered from the evidence: the reply ("Yes" or "No", which
    /// opens the answer text), the item that decides it and the items pointing the other
    /// way; `reply` null when no verified sentence states or denies what it asks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply: Option<crate::research::reply::YesNo>,
    /// What the question asks for, read before research (see [`crate::frame`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question_frame: Option<crate::frame::Frame>,
    /// The value that answers a typed question, inside the quote of the first cited item.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer_value: Option<AnswerValue>,
    /// What the answer's confidence was read from, and the fitted probability that it is
    /// right (see the `assure` module of `ask`); absent when nothing was cited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assurance: Option<Signals>,
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

impl Run {
    /// A run that did no work: the answer alone (a rejected question, a memory hit).
    pub fn answer_only(answer: Answer) -> Run {
        Run {
            answer,
            retrieval: Vec::new(),
            candidates: Vec::new(),
            unused: Vec::new(),
        }
    }
}

/// What an answer's confidence is read from, as the answer reports it (the model over
/// these signals is `ask::assure`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Signals {
    /// A value of the asked type was read from a cited quote.
    pub value: bool,
    /// The question asks for a value and none was claimed.
    pub no_value: bool,
    /// The value is of a precise type (a date, a period, a length of time, a
    /// percentage, a time of day, a telephone number, an email address).
    pub precise: bool,
    /// The question was read as one step and the value found in the first look.
    pub one_step: bool,
    /// Distinct statements cited.
    pub statements: usize,
    /// Mean cosine between the question and the retrieved chunks.
    pub retrieval: f64,
    /// The relevance of the first cited item.
    pub lead_relevance: f64,
    /// Share of the question's content words that the cited quotes hold.
    pub coverage: f64,
    /// The cited sources differ and no ruling decides which applies.
    pub differ: bool,
    /// The model's probability that the answer is right.
    pub probability: f64,
    /// The check the value read for the question went through before it was named
    /// (absent when no value was read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value_check: Option<ValueCheck>,
}

/// What a value read for a question was checked on before the answer named it, and the
/// fitted probability that it is the value asked for (the model is `ask::assure`'s
/// value model; a value below its bound is not named).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ValueCheck {
    /// The value read.
    pub value: AnswerValue,
    /// Whether the answer names it (`answer_value`).
    pub given: bool,
    /// It is a name (of a person, an organisation or a place).
    pub name: bool,
    /// It is of a precise type (a date, a period, a length of time, a time of day, a
    /// percentage, a telephone number, an email address).
    pub precise: bool,
    /// It is an amount of money.
    pub money: bool,
    /// The relevance of the item whose quote states it.
    pub relevance: f64,
    /// That item is the first the answer cites.
    pub first: bool,
    /// Cited quotes that state this value.
    pub agree: usize,
    /// Other values of the asked type the cited quotes state.
    pub rivals: usize,
    /// Share of the question's content words that the stating quote holds.
    pub coverage: f64,
    /// It was read from one cell of a table row.
    pub cell: bool,
    /// The question was read as one step and the value found in the first look.
    pub one_step: bool,
    /// The value model's probability that it is the value asked for.
    pub probability: f64,
}

impl ValueCheck {
    /// The value model's inputs, in the order of its weights.
    pub fn features(&self) -> [f64; 10] {
        let b = |x: bool| f64::from(u8::from(x));
        [
            b(self.name),
            b(self.precise),
            b(self.money),
            self.relevance,
            b(self.first),
            (1.0 + self.agree as f64).ln(),
            (1.0 + self.rivals as f64).ln(),
            self.coverage,
            b(self.cell),
            b(self.one_step),
        ]
    }
}

impl Signals {
    /// The model's inputs, in the order of `ask::assure::Model::weights`.
    pub fn features(&self) -> [f64; 9] {
        let b = |x: bool| f64::from(u8::from(x));
        [
            b(self.value),
            b(self.no_value),
            b(self.precise),
            b(self.one_step),
            (1.0 + self.statements as f64).ln(),
            self.retrieval,
            self.lead_relevance,
            self.coverage,
            b(self.differ),
        ]
    }
}
