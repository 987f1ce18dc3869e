//! Extract: atomic evidence candidates from retrieved chunks.
//!
//! Each candidate is one verbatim byte span of a stored document text: a sentence of the
//! chunk, or a clause of a long sentence. Rules, in order:
//!
//! * Headings, table rules and fragments under [`MIN_WORDS`] words state nothing and are
//!   skipped (a short heading line such as "Article 99" is never a value unless the layout
//!   labels it); a leading list marker (`-`, `1.`, `(a)`) is left out of the span.
//! * A lead-in ending in `:` and the list items after it are one provision
//!   ([`provision::in_list`]): quoted whole, or each item with the lead-in, as one
//!   contiguous span. A `:` line with no items after it is a prompt (an instruction).
//! * A sentence over [`MAX_WORDS`] words is cut at clause boundaries (`;`, then
//!   `, and` / `, but` / `, or` / `, which` / `, unless` / `, except`, any comma last), each
//!   piece at least [`MIN_PIECE_WORDS`] words, recursively, cutting nearest the middle, but
//!   only where [`provision::may_cut`] allows: the part cut off is a clause of its own,
//!   outside brackets, not the rest of an enumeration, and the sentence does not open with
//!   a condition. Otherwise it is quoted whole. A piece that begins
//!   mid-clause (a lower-case verb or modal with no subject, a conjunction or relative
//!   pronoun) is extended back to the start of its sentence, so it says who does what.
//! * A quote that opens with an unresolved reference (`This`, `These`, `Such`, `It`, `They`,
//!   `Said`, …), or in lower case, is extended to include the sentence before it in the
//!   same document; when there is none (start of the document, or a heading before it) it
//!   is marked incomplete. "This Regulation", "this section" (the document or part the
//!   quote stands in, [`OWN_DOCUMENT`]), an impersonal "It is unlawful to …" and "The former
//!   director" (a role's previous holder) are not such references.
//! * A quote that only points elsewhere ("See § 5899(b).") is marked incomplete.
//! * A quote that ends inside an open bracket is extended to the closing bracket, or marked
//!   incomplete; one over [`MAX_PROVISION_WORDS`] words is marked incomplete.
//!
//! Kind: `requirement` when the quote states an obligation or prohibition (must, shall,
//! required, prohibited, mandated, may not, …), else `statement`.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::provision::{self, is_heading_or_rule, strip_marker, MAX_PROVISION_WORDS};
use crate::corpus::layout::Layout;
use crate::corpus::segment::{sentences, Span};
use crate::error::Error;
use crate::retrieve::ChunkView;
use crate::store::{sha256_hex, Store};
use crate::text::{is_stopword, word_count, words};

/// Quotes shorter than this many words are not evidence on their own.
pub const MIN_WORDS: usize = 4;
/// Sentences longer than this many words are cut at clause boundaries.
pub const MAX_WORDS: usize = 40;
/// Clause pieces are at least this many words.
pub const MIN_PIECE_WORDS: usize = 10;

/// What a quote states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// An obligation or prohibition.
    Requirement,
    /// Anything else.
    Statement,
    /// Text that tells the reader what to do ("Indicate the start date.", "Enter:"): a
    /// template's instruction states no fact and is never cited.
    Instruction,
}

/// Whether a quote stands on its own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "state", content = "why")]
pub enum Completeness {
    /// Self-contained as cut.
    Complete,
    /// Extended backwards to include what it depends on (the reason says what).
    Extended(String),
    /// Not self-contained and could not be repaired (the reason says why).
    Incomplete(String),
}

/// One extracted evidence candidate (a verbatim span of a stored document).
#[derive(Debug, Clone, Serialize)]
pub struct Candidate {
    /// Document id.
    pub doc_id: String,
    /// Document key within its file (BEIR `_id`), empty for single-document files.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub key: String,
    /// Source path.
    pub source: String,
    /// Document title.
    pub title: String,
    /// Chunk the quote came from.
    pub chunk_id: String,
    /// sha256 of the document text the span refers to.
    pub content_hash: String,
    /// The quote: `doc_text[start..end]`.
    pub quote: String,
    /// Byte offset of the quote in the document text.
    pub start: usize,
    /// End byte offset (exclusive).
    pub end: usize,
    /// 1-based line of `start`.
    pub line: usize,
    /// Requirement or statement.
    pub kind: Kind,
    /// Self-contained, extended, or incomplete.
    pub completeness: Completeness,
    /// Research step that retrieved the chunk.
    pub step: usize,
    /// 1-based rank of the chunk in its step's retrieval.
    pub chunk_rank: usize,
    /// Cosine between the question and the whole chunk (set by the caller; 0 unknown).
    pub chunk_cosine: f64,
    /// 1-based page of `start`, when the source has pages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<usize>,
    /// Innermost section title at `start`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    /// A table row's column headers, or the prompt or field name a value answers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// What the quote owes to OCR, when it lies on a page OCR read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ocr: Option<crate::corpus::layout::OcrMark>,
    /// Where the quote lies in the file on disk (or why no span of the file is given).
    #[serde(flatten)]
    pub file: crate::corpus::layout::FileSpan,
}

impl Kind {
    /// The name used in JSON and human output.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Requirement => "requirement",
            Kind::Statement => "statement",
            Kind::Instruction => "instruction",
        }
    }
}

impl Candidate {
    /// What relevance reads. A table row, a form value or a short fragment is read with
    /// the section title and the label (a row's headers, a value's prompt), each on its own
    /// line, then the quote; a statement is read alone. Only the quote is ever cited.
    /// A short labelled value (`7/1/2017` under `Date of birth`) means what its label
    /// says: its context is the section and the label.
    pub fn context_text(&self) -> std::borrow::Cow<'_, str> {
        let short = word_count(&self.quote) < MIN_WORDS;
        if self.label.is_none() && !short {
            // A statement speaks for itself; its section already shapes the chunk's
            // embedding, and reading every sentence of a section with its title would lift
            // them all alike.
            return std::borrow::Cow::Borrowed(&self.quote);
        }
        let mut s = String::new();
        for head in [&self.section, &self.label].into_iter().flatten() {
            s.push_str(head);
            s.push('\n');
        }
        if self.label.is_none() || word_count(&self.quote) >= MIN_WORDS {
            s.push_str(&self.quote);
        }
        std::borrow::Cow::Owned(s)
    }

    /// The key that survives re-indexing: derived from (document content hash, start, end).
    pub fn evidence_key(&self) -> String {
        evidence_key(&self.content_hash, self.start, self.end)
    }
}

/// Stable evidence key: the first 16 hex digits of sha256("content_hash:start:end").
pub fn evidence_key(content_hash: &str, start: usize, end: usize) -> String {
    sha256_hex(format!("{content_hash}:{start}:{end}").as_bytes())[..16].to_string()
}

/// Obligation and prohibition markers (single words, then two-word phrases).
const REQUIREMENT_WORDS: &[&str] = &[
    "must",
    "shall",
    "required",
    "requires",
    "require",
    "prohibited",
    "prohibits",
    "prohibit",
    "mandated",
    "mandates",
    "mandatory",
    "obligated",
    "forbidden",
];
const REQUIREMENT_PAIRS: &[(&str, &str)] = &[("may", "not"), ("shall", "not"), ("is", "required")];

/// `requirement` when `quote` states an obligation or prohibition.
/// Words after an opening "No"/"Neither" within which a modal makes a prohibition ("No
/// client may be refused …").
const NEGATED_SUBJECT_WINDOW: usize = 8;
/// How far back (bytes) the previous sentence of a quote is looked for; a longer
/// sentence is not context a reader needs.
const PREVIOUS_SENTENCE_BYTES: usize = 3000;
/// Words under which a line equal to the document's title names the document rather
/// than stating something.
const SHORT_TITLE_WORDS: usize = 6;

pub fn kind_of(quote: &str) -> Kind {
    if is_instruction(quote) {
        return Kind::Instruction;
    }
    let w = words(quote);
    let single = w.iter().any(|x| REQUIREMENT_WORDS.contains(&x.as_str()));
    // "No client may be refused …", "Nothing in this section shall …"
    let negated_subject = w.first().is_some_and(|f| f == "no" || f == "neither")
        && w.iter()
            .take(NEGATED_SUBJECT_WINDOW)
            .any(|x| x == "may" || x == "can");
    let pair = w
        .windows(2)
        .any(|p| REQUIREMENT_PAIRS.contains(&(p[0].as_str(), p[1].as_str())));
    if single || pair || negated_subject {
        Kind::Requirement
    } else {
        Kind::Statement
    }
}

/// Verbs that open a template's instructions to whoever fills it in, whatever follows.
const IMPERATIVES: &[&str] = &[
    "indicate",
    "describe",
    "provide",
    "specify",
    "enter",
    "attach",
    "explain",
    "identify",
    "justify",
    "summarize",
    "summarise",
    "outline",
    "demonstrate",
    "fill",
    "insert",
    "submit",
    "discuss",
    "multiply",
    "subtract",
    "divide",
];

/// Verbs that are also nouns or adjectives ("Type 2 diabetes", "State law", "Complete
/// remission"): imperatives only when a determiner or pronoun follows ("List the …",
/// "Check whether …").
const AMBIGUOUS_IMPERATIVES: &[&str] = &[
    "list", "state", "include", "complete", "select", "tick", "check", "type", "print", "sign",
    "write", "add", "use", "see", "refer", "give", "report", "document", "mark", "detail",
    "define", "note",
];

/// Words after which an ambiguous verb is an imperative.
const OBJECT_OPENERS: &[&str] = &[
    "the", "a", "an", "your", "any", "all", "each", "every", "whether", "how", "why", "what",
    "which", "who", "when", "where", "this", "these", "those", "their", "its", "if", "here",
    "below", "above", "one", "and", "or", "on", "in", "at", "to", "for", "it", "them",
];

/// Whether `s` instructs the reader instead of stating something: it opens (after a list
/// marker or a form's line number) with an imperative ([`IMPERATIVES`], or one of
/// [`AMBIGUOUS_IMPERATIVES`] followed by a determiner or pronoun), or it is a prompt that
/// ends with `:`.
pub fn is_instruction(s: &str) -> bool {
    let t = s.trim();
    if t.ends_with(':') {
        // "Start date:" prompts; "By 20 December 2025, the Commission shall submit a
        // report …, including on:" states a provision and leads in to its items.
        return !states_something(t);
    }
    let body = strip_marker(t, Span::new(0, t.len())).slice(t);
    let mut words = body.split_whitespace();
    let mut first = words.next().unwrap_or("");
    if is_line_number(first) {
        first = words.next().unwrap_or(""); // a form's line number: "1 Enter …", "2a Add …"
    }
    let first = first.trim_matches(|c: char| !c.is_alphanumeric());
    if !first.chars().next().is_some_and(char::is_uppercase) {
        return false;
    }
    let verb = first.to_lowercase();
    let next = words
        .next()
        .unwrap_or("")
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    // "Note to Readers …" is a note addressed to someone, not "note (it) to …".
    let noun = verb == "note" && next == "to";
    IMPERATIVES.contains(&verb.as_str())
        || (AMBIGUOUS_IMPERATIVES.contains(&verb.as_str())
            && OBJECT_OPENERS.contains(&next.as_str())
            && !noun)
}

/// Verbs that make a line ending in `:` a statement leading in to a list, not a prompt.
const LEAD_IN_VERBS: &[&str] = &[
    "shall", "must", "may", "will", "should", "is", "are", "was", "were", "has", "have",
    "includes", "include", "means", "apply", "applies",
];

/// Whether `t` (a line ending in `:`) states something: six words or more, one of
/// them a verb of [`LEAD_IN_VERBS`].
fn states_something(t: &str) -> bool {
    let w = words(t);
    w.len() >= 6 && w.iter().any(|x| LEAD_IN_VERBS.contains(&x.as_str()))
}

/// A form's line number: up to three digits with an optional letter (`1`, `2a`, `14b`).
fn is_line_number(token: &str) -> bool {
    let digits = token.chars().take_while(char::is_ascii_digit).count();
    let rest = &token[digits..];
    (1..=3).contains(&digits) && rest.len() <= 1 && rest.chars().all(|c| c.is_ascii_lowercase())
}

/// Whether a fragment too short to be a statement is a value a form or table states: the
/// layout labels it, or it has a figure and answers the instruction or prompt right
/// before it (`Indicate the start date.` / `15/03/2021.`). Captions, instructions,
/// headings the layout does not label (`Article 99`) and fragments without two letters or
/// digits (`1 $`, `▼ ▼`) are not values.
fn is_value(fragment: &str, labelled: bool, prompted: bool) -> bool {
    let first = fragment.split_whitespace().next().unwrap_or("");
    let first = first.to_lowercase();
    let caption = ["table", "figure", "fig.", "chart", "exhibit", "page"].contains(&first.as_str());
    // "Article 99", "Section 4", "§ 12": a heading, unless the layout labels it a value.
    let heading = !labelled && HEADING_WORDS.contains(&first.as_str());
    let mut tokens = fragment.split_whitespace().peekable();
    if tokens.peek().is_some_and(|t| is_line_number(t)) {
        tokens.next();
    }
    let substance: usize = tokens
        .map(|t| t.chars().filter(|c| c.is_alphanumeric()).count())
        .sum();
    substance >= 2
        && (labelled || (prompted && fragment.chars().any(|c| c.is_ascii_digit())))
        && !caption
        && !heading
        && !is_instruction(fragment)
}

/// Lines at the top of a document that make its head (title, dateline, revision).
pub const HEAD_LINES: usize = 6;

/// Whether `line` (1-based) is in a document's head (see [`HEAD_LINES`]).
pub fn in_head(line: usize) -> bool {
    line <= HEAD_LINES
}

/// Whether `span` is the line of a document's head that names its authors (those the
/// layout read from its first page): who wrote it, a value though it is no sentence.
fn is_author_line(doc_text: &str, span: Span, layout: &Layout) -> bool {
    let line = doc_text[..span.start].matches('\n').count() + 1;
    line <= AUTHOR_LINES
        && crate::corpus::firstpage::is_author_line(span.slice(doc_text), &layout.authors)
}

/// Where the document's `title` is printed in `chunk` within its first lines (the
/// words in order, across line breaks): a candidate only a question asking for a title
/// keeps (see `ask::research`).
fn title_span(doc_text: &str, chunk: Span, title: &str) -> Option<Span> {
    let head_end = doc_text
        .match_indices('\n')
        .nth(AUTHOR_LINES)
        .map_or(doc_text.len(), |(i, _)| i);
    let end = chunk.end.min(head_end);
    if chunk.start >= end || word_count(title) < 2 {
        return None;
    }
    let pattern = title
        .split_whitespace()
        .map(regex::escape)
        .collect::<Vec<_>>()
        .join(r"\s+");
    let re = regex::Regex::new(&pattern).ok()?;
    let m = re.find(&doc_text[chunk.start..end])?;
    Some(Span::new(chunk.start + m.start(), chunk.start + m.end()))
}

/// Lines at the top of a document within which its author line is read (a title of
/// four lines, then the names).
const AUTHOR_LINES: usize = 12;

/// Whether `span` is a short line of the document's head that states a date ("November -
/// 2015" under a report's title): the document's own dateline, a value though it is
/// no sentence.
fn is_dateline(doc_text: &str, span: Span) -> bool {
    let line = doc_text[..span.start].matches('\n').count() + 1;
    in_head(line)
        && !crate::value::typed::find(span.slice(doc_text), crate::frame::AnswerType::Date, None)
            .is_empty()
}

/// First words of a short heading line ("Article 99", "Part III", "§ 12").
const HEADING_WORDS: &[&str] = &[
    "article",
    "art.",
    "section",
    "sec.",
    "part",
    "chapter",
    "title",
    "annex",
    "appendix",
    "schedule",
    "§",
    "§§",
    "rule",
    "regulation",
    "recital",
];

/// Openings that refer back to something the quote does not contain.
const BACK_REFERENCES: &[&str] = &[
    "this",
    "these",
    "that",
    "those",
    "such",
    "it",
    "its",
    "they",
    "their",
    "them",
    "he",
    "she",
    "his",
    "her",
    "said",
    "thereafter",
    "therefore",
    "thus",
    "hence",
    "otherwise",
    "both",
    "either",
    "neither",
];

/// The first word of `s`, lower-cased (letters and digits only).
fn first_word(s: &str) -> String {
    words(s).into_iter().next().unwrap_or_default()
}

/// Nouns after "This"/"These" that name the document or the part of it the quote stands
/// in ("This Regulation", "this Part", "These Rules"): resolved by where the quote is,
/// so not a reference to an earlier sentence.
const OWN_DOCUMENT: &[&str] = &[
    "regulation",
    "regulations",
    "directive",
    "decision",
    "act",
    "code",
    "law",
    "ordinance",
    "statute",
    "treaty",
    "convention",
    "protocol",
    "agreement",
    "contract",
    "policy",
    "bulletin",
    "manual",
    "handbook",
    "guide",
    "guidance",
    "document",
    "report",
    "standard",
    "rule",
    "rules",
    "order",
    "part",
    "title",
    "chapter",
    "subchapter",
    "division",
    "article",
    "section",
    "subsection",
    "paragraph",
    "subparagraph",
    "subdivision",
    "clause",
    "annex",
    "appendix",
    "schedule",
    // What a form, a data release, a permit or a project submission says of itself.
    "form",
    "statistics",
    "data",
    "table",
    "figure",
    "worksheet",
    "instructions",
    "publication",
    "notice",
    "plan",
    "permit",
    "licence",
    "license",
    "lease",
    "certificate",
    "application",
    "project",
    "programme",
    "program",
    "study",
];

/// Whether words `w` open with an impersonal "It" ("It is unlawful to …", "It shall be
/// the duty of … to …"): "It" + a form of "be" + an adjective of
/// [`IMPERSONAL_ADJECTIVES`] + "to"/"that"/"for"/"whether", or + "the policy/duty/…".
fn impersonal_it(w: &[String]) -> bool {
    let w: Vec<&str> = w
        .iter()
        .map(String::as_str)
        .filter(|x| !matches!(*x, "not" | "hereby" | "also"))
        .take(6)
        .collect();
    let rest = match w.as_slice() {
        ["it", "is" | "was", rest @ ..] => rest,
        ["it", "shall" | "will" | "may" | "must" | "would" | "should", "be", rest @ ..] => rest,
        _ => return false,
    };
    match rest {
        [adj, "to" | "that" | "for" | "whether", ..] => IMPERSONAL_ADJECTIVES.contains(adj),
        ["the", noun, ..] => {
            ["policy", "duty", "responsibility", "intent", "purpose"].contains(noun)
        }
        _ => false,
    }
}

/// Adjectives of an impersonal "It is … to/that" ("It is unlawful to …").
const IMPERSONAL_ADJECTIVES: &[&str] = &[
    "unlawful",
    "illegal",
    "lawful",
    "prohibited",
    "forbidden",
    "permitted",
    "necessary",
    "important",
    "essential",
    "possible",
    "impossible",
    "required",
    "mandatory",
    "recommended",
    "advisable",
    "sufficient",
    "appropriate",
];

/// Whether `quote` opens with a reference to text before it. "This Regulation", "this
/// section" and an impersonal "It is … to" refer to where the quote stands, not back.
pub fn opens_with_back_reference(quote: &str) -> bool {
    let all = words(quote);
    let first = all.first().map_or("", String::as_str);
    let second = all.get(1).map_or("", String::as_str);
    if matches!(first, "this" | "these") && OWN_DOCUMENT.contains(&second) {
        return false;
    }
    if first == "it" && impersonal_it(&all) {
        return false;
    }
    if BACK_REFERENCES.contains(&first) {
        return true;
    }
    // "The above", "The same", "The foregoing", "The former/latter"; but "former" before a
    // role names the role's previous holder ("The former director, …"), no reference.
    let w: Vec<String> = all.into_iter().take(3).collect();
    let previous_holder =
        w.get(1).is_some_and(|f| f == "former") && w.get(2).is_some_and(|r| is_role(r));
    w.len() >= 2
        && w[0] == "the"
        && !previous_holder
        && matches!(
            w[1].as_str(),
            "above" | "same" | "foregoing" | "former" | "latter" | "aforementioned"
        )
}

/// Words for a position a person holds (singular or plural): `the former director` is
/// whoever held it before.
const ROLES: &[&str] = &[
    "director",
    "president",
    "chair",
    "chairman",
    "chairwoman",
    "chairperson",
    "officer",
    "manager",
    "owner",
    "employee",
    "employer",
    "member",
    "minister",
    "secretary",
    "treasurer",
    "head",
    "chief",
    "partner",
    "governor",
    "mayor",
    "commissioner",
    "administrator",
    "trustee",
    "tenant",
    "landlord",
    "spouse",
    "husband",
    "wife",
    "resident",
    "student",
    "ceo",
    "cfo",
    "auditor",
    "editor",
    "principal",
    "leader",
    "senator",
    "judge",
];

/// Whether `w` names a position a person holds ([`ROLES`], a plural `s` dropped).
fn is_role(w: &str) -> bool {
    ROLES.contains(&w) || w.strip_suffix('s').is_some_and(|s| ROLES.contains(&s))
}

/// Openings of a clause that continues an earlier one (no subject of its own).
const CONTINUATIONS: &[&str] = &[
    "and",
    "or",
    "but",
    "nor",
    "which",
    "who",
    "whom",
    "whose",
    "where",
    "including",
    "unless",
    "except",
    "must",
    "shall",
    "may",
    "will",
    "should",
    "can",
    "is",
    "are",
    "was",
    "were",
    "has",
    "have",
    "had",
    "to",
    "then",
];

fn continues_a_clause(piece: &str) -> bool {
    CONTINUATIONS.contains(&first_word(piece).as_str())
}

/// When `piece` is a conjunction followed by a clause with its own subject ("and the
/// notice must…"), the byte length of the conjunction and the space after it.
fn conjunction_before_subject(piece: &str) -> Option<usize> {
    let w: Vec<String> = words(piece).into_iter().take(2).collect();
    let subject_start = [
        "the", "a", "an", "each", "every", "all", "no", "any", "its", "their", "his", "her",
    ];
    (w.len() == 2
        && matches!(w[0].as_str(), "and" | "or" | "but")
        && subject_start.contains(&w[1].as_str()))
    .then(|| piece.find(char::is_whitespace).map(|i| i + 1))
    .flatten()
}

/// Words a pure cross-reference is made of ("See § 5899(b) of the Act.").
const REFERENCE_WORDS: &[&str] = &[
    "see",
    "section",
    "sections",
    "subdivision",
    "subsection",
    "paragraph",
    "chapter",
    "article",
    "part",
    "title",
    "act",
    "code",
    "above",
    "below",
    "also",
    "cf",
    "pursuant",
    "under",
    "refer",
    "described",
    "provided",
    "set",
    "forth",
    "appendix",
    "table",
    "figure",
];

/// Whether `quote` only points to another provision and says nothing itself.
pub fn is_dangling_reference(quote: &str) -> bool {
    let w = words(quote);
    let points = w
        .iter()
        .any(|x| matches!(x.as_str(), "see" | "refer" | "cf" | "pursuant"))
        || quote.contains('§');
    if !points {
        return false;
    }
    let substantive = w
        .iter()
        .filter(|x| {
            !is_stopword(x)
                && !REFERENCE_WORDS.contains(&x.as_str())
                && !x
                    .chars()
                    .all(|c| c.is_ascii_digit() || c.is_ascii_lowercase() && x.len() <= 2)
        })
        .count();
    substantive < 2
}

/// Clause boundaries inside `text`, as byte offsets where the next piece starts, with a
/// priority (lower is stronger).
fn clause_cuts(text: &str) -> Vec<(usize, u8)> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        if (c == b';' || c == b':') && b.get(i + 1) == Some(&b' ') {
            out.push((i + 2, if c == b';' { 0 } else { 1 }));
        }
    }
    for marker in [
        ", and ",
        ", but ",
        ", or ",
        ", which ",
        ", unless ",
        ", except ",
        ", while ",
        ", whereas ",
    ] {
        let mut from = 0;
        while let Some(i) = text[from..].find(marker) {
            let at = from + i + 2; // the piece starts at the conjunction
            out.push((at, 2));
            from = at;
        }
    }
    // Last resort for very long sentences: any comma.
    let mut from = 0;
    while let Some(i) = text[from..].find(", ") {
        out.push((from + i + 2, 3));
        from += i + 2;
    }
    out.sort();
    out.dedup_by_key(|x| x.0);
    out
}

/// Cut `span` of `text` into clause pieces of at most [`MAX_WORDS`] words where a clause
/// boundary allows (each piece at least [`MIN_PIECE_WORDS`] words) and
/// [`provision::may_cut`] agrees; a sentence with no such boundary stays whole.
fn cut(text: &str, span: Span, out: &mut Vec<Span>) {
    let s = span.slice(text);
    let total = word_count(s);
    if total <= MAX_WORDS || provision::opens_with_condition(s) {
        out.push(span);
        return;
    }
    let mut best: Option<(u8, usize, usize)> = None; // (priority, distance from middle, at)
    for (at, prio) in clause_cuts(s) {
        if !provision::may_cut(s, at) {
            continue; // the rest does not stand alone, or the cut would change the meaning
        }
        let left = word_count(&s[..at]);
        let right = total - left;
        if left < MIN_PIECE_WORDS || right < MIN_PIECE_WORDS {
            continue;
        }
        let dist = left.abs_diff(total / 2);
        if best.is_none_or(|(p, d, _)| (prio, dist) < (p, d)) {
            best = Some((prio, dist, at));
        }
    }
    match best {
        None => out.push(span),
        Some((_, _, at)) => {
            let left = trim_span(text, Span::new(span.start, span.start + at));
            let right = trim_span(text, Span::new(span.start + at, span.end));
            cut(text, left, out);
            cut(text, right, out);
        }
    }
}

/// Shrink `span` past surrounding whitespace and a trailing comma or semicolon.
fn trim_span(text: &str, span: Span) -> Span {
    let s = span.slice(text);
    let lead = s.len() - s.trim_start().len();
    let t = s.trim();
    let t = t.trim_end_matches([',', ';']).trim_end();
    Span::new(span.start + lead, span.start + lead + t.len())
}

/// The sentence of `text` that ends before `at`, if it is in the same paragraph (no
/// blank line or heading between, or the blank line interrupts an unfinished sentence)
/// and is not a heading.
fn previous_sentence(text: &str, at: usize) -> Option<Span> {
    let mut from = at.saturating_sub(PREVIOUS_SENTENCE_BYTES);
    while !text.is_char_boundary(from) {
        from -= 1;
    }
    let last = sentences(&text[from..at]).pop()?;
    if from > 0 && last.start == 0 {
        return None; // the window may have cut this sentence: unknown, so not used
    }
    let prev = Span::new(from + last.start, from + last.end);
    let between = &text[prev.end..at];
    let head = prev.slice(text);
    // A blank line ends a paragraph, unless the text before it stops mid-sentence (a
    // column or page break inside a PDF sentence: "if that job pays" / "weekly, enter 52").
    let unfinished = !head.ends_with(['.', '!', '?', ':', ';', ')', '"', '”']);
    if (between.contains("\n\n") && !unfinished) || is_heading_or_rule(head) {
        return None;
    }
    Some(prev)
}

/// Candidate spans of one chunk: sentence or clause spans with their completeness,
/// before the document-level fields are attached. A lead-in and its list items are one
/// provision ([`provision::in_list`]); every span is then held to
/// [`provision::close_brackets`] and [`MAX_PROVISION_WORDS`], and given once.
pub fn spans_of_chunk(doc_text: &str, chunk: Span, layout: &Layout) -> Vec<(Span, Completeness)> {
    let mut out = Vec::new();
    let chunk_text = chunk.slice(doc_text);
    let sents = sentences(chunk_text)
        .into_iter()
        .map(|s| Span::new(chunk.start + s.start, chunk.start + s.end))
        .collect();
    let mut prompted = false; // the sentence before is an instruction or a prompt
    for sent in layout.split_sentences(doc_text, sents) {
        let after_prompt = std::mem::replace(&mut prompted, is_instruction(sent.slice(doc_text)));
        let labelled = layout.label_for(sent.start, sent.end).is_some();
        let heading = (is_heading_or_rule(sent.slice(doc_text)) && !labelled)
            || layout.is_heading(sent.start, sent.end);
        if heading && !is_author_line(doc_text, sent, layout) {
            continue;
        }
        if let Some(list) = provision::in_list(doc_text, sent).filter(|_| !labelled) {
            for (span, how) in list {
                let state = match how {
                    provision::ListQuote::Whole => Completeness::Complete,
                    provision::ListQuote::FromLeadIn => {
                        Completeness::Extended("a list item; quoted with its lead-in".into())
                    }
                    provision::ListQuote::Incomplete(why) => Completeness::Incomplete(why),
                };
                let q = span.slice(doc_text);
                if word_count(q) < MIN_WORDS {
                    continue;
                }
                let lower = q.chars().next().is_some_and(char::is_lowercase);
                let resolved = !matches!(state, Completeness::Incomplete(_));
                out.push(if resolved && (opens_with_back_reference(q) || lower) {
                    resolve_reference(doc_text, span, span.start)
                } else {
                    (span, state)
                });
            }
            continue;
        }
        let raw_start = sent.start;
        let sent = strip_marker(doc_text, sent);
        if word_count(sent.slice(doc_text)) < MIN_WORDS {
            if is_value(sent.slice(doc_text), labelled, after_prompt)
                || is_dateline(doc_text, sent)
                || is_author_line(doc_text, sent, layout)
            {
                out.push((sent, Completeness::Complete));
            }
            continue;
        }
        let mut pieces = Vec::new();
        cut(doc_text, sent, &mut pieces);
        // A form value stands on its own line: a lower-case field name ("phone: …")
        // does not continue the line before it.
        let value = layout
            .label_for(sent.start, sent.end)
            .is_some_and(|l| l.kind == crate::corpus::layout::LabelKind::Value);
        for (i, p) in pieces.iter().enumerate() {
            let (span, state) = if value && pieces.len() == 1 {
                (*p, Completeness::Complete)
            } else {
                repair_piece(doc_text, sent, raw_start, i, *p)
            };
            let q = span.slice(doc_text);
            if word_count(q) >= MIN_WORDS || is_value(q, labelled, after_prompt) {
                out.push((span, state));
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    out.into_iter()
        .map(|(span, state)| whole_provision(doc_text, span, state))
        .filter(|(span, _)| seen.insert(*span))
        .collect()
}

/// `span` held to the provision rules that do not depend on how it was cut: a quote that
/// leaves a bracket open is extended to the closing bracket (or marked incomplete), and
/// one over [`MAX_PROVISION_WORDS`] words is marked incomplete.
fn whole_provision(doc_text: &str, span: Span, state: Completeness) -> (Span, Completeness) {
    let Some(closed) = provision::close_brackets(doc_text, span) else {
        return (
            span,
            Completeness::Incomplete("ends inside a bracket that does not close".into()),
        );
    };
    let state = match state {
        Completeness::Incomplete(why) => Completeness::Incomplete(why),
        _ if word_count(closed.slice(doc_text)) > MAX_PROVISION_WORDS => {
            Completeness::Incomplete(format!(
                "over {MAX_PROVISION_WORDS} words with no clause boundary where the rest stands alone"
            ))
        }
        state if closed == span => state,
        _ => Completeness::Extended("quoted to the bracket it opens".into()),
    };
    (closed, state)
}

/// Piece `i` of sentence `sent` (which starts at `raw_start` before its list marker) as a
/// quote: a piece without its own subject is taken from the sentence start, a quote that
/// opens with a back-reference takes the sentence before it, a bare cross-reference is
/// incomplete.
fn repair_piece(
    doc_text: &str,
    sent: Span,
    raw_start: usize,
    i: usize,
    p: Span,
) -> (Span, Completeness) {
    let mut span = p;
    let mut state = Completeness::Complete;
    let q = span.slice(doc_text);
    if i > 0 {
        if let Some(skip) = conjunction_before_subject(q) {
            span = Span::new(span.start + skip, span.end);
        }
    }
    let q = span.slice(doc_text);
    if i > 0 && continues_a_clause(q) {
        span = Span::new(sent.start, p.end);
        state = Completeness::Extended(
            "the clause continues its sentence; quoted from the sentence start".into(),
        );
    }
    let q = span.slice(doc_text);
    let lower = q.chars().next().is_some_and(char::is_lowercase);
    if opens_with_back_reference(q) || (lower && span.start == sent.start) {
        let before = if span.start == sent.start {
            raw_start
        } else {
            span.start
        };
        (span, state) = resolve_reference(doc_text, span, before);
    }
    let q = span.slice(doc_text);
    if state == Completeness::Complete && is_dangling_reference(q) {
        state = Completeness::Incomplete(
            "only points to another provision and states nothing itself".into(),
        );
    }
    (span, state)
}

/// `span`, which opens with a back-reference (or in lower case), with what its opening
/// refers to: the sentence ending before byte `before`, or marked incomplete when there is
/// none.
fn resolve_reference(doc_text: &str, span: Span, before: usize) -> (Span, Completeness) {
    let opening = first_word(span.slice(doc_text));
    let Some(prev) = previous_sentence(doc_text, before) else {
        return (
            span,
            Completeness::Incomplete(format!(
                "opens with {opening:?} but no earlier sentence in its paragraph says what it refers to"
            )),
        );
    };
    let prev = strip_marker(doc_text, prev);
    let head = prev.slice(doc_text);
    let state =
        if opens_with_back_reference(head) || head.chars().next().is_some_and(char::is_lowercase) {
            Completeness::Incomplete(format!(
                "opens with {opening:?}, and the sentence before it depends on another in turn"
            ))
        } else {
            Completeness::Extended(format!(
                "opens with {opening:?}; the sentence it depends on is included"
            ))
        };
    (Span::new(prev.start, span.end), state)
}

/// A document as extraction reads it: text, content hash, layout, line index.
struct DocView {
    text: String,
    hash: String,
    layout: Layout,
    lines: crate::corpus::segment::LineIndex,
}

/// Read document `doc_id` for extraction (`None` when it is gone).
fn doc_view(store: &Store, doc_id: &str) -> Result<Option<DocView>, Error> {
    let Some(text) = store.document_text(doc_id)? else {
        return Ok(None);
    };
    let layout = store.document_layout(doc_id, &text)?;
    Ok(Some(DocView {
        hash: sha256_hex(text.as_bytes()),
        lines: crate::corpus::segment::LineIndex::new(&text),
        text,
        layout,
    }))
}

/// The label of the span `[start, end)`: the layout's, or for a short value, the prompt
/// right before it (an instruction in the same paragraph or on the line above).
fn label_of(doc: &DocView, span: Span) -> Option<String> {
    label_at(&doc.text, &doc.layout, span)
}

/// [`label_of`] the span `span` of `text` laid out as `layout` (an audit re-derives an
/// item's label with it).
pub fn label_at(text: &str, layout: &Layout, span: Span) -> Option<String> {
    if let Some(l) = layout.label_for(span.start, span.end) {
        return Some(l.label.clone());
    }
    if word_count(span.slice(text)) >= MIN_WORDS {
        return None;
    }
    let before = text[..span.start].trim_end();
    let from = before.len().saturating_sub(PREVIOUS_SENTENCE_BYTES);
    let from = (from..=before.len()).find(|&i| before.is_char_boundary(i))?;
    let prev = sentences(&before[from..]).pop()?;
    let prompt = prev.slice(&before[from..]);
    is_instruction(prompt).then(|| prompt.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// Extract candidates from `chunks` (retrieved at `step`, best first). Documents are read
/// from `store`; a chunk whose document is gone is skipped. The same span is returned
/// once (first chunk wins). Instructions are never candidates.
pub fn extract(store: &Store, chunks: &[ChunkView], step: usize) -> Result<Vec<Candidate>, Error> {
    let mut docs: HashMap<String, Option<DocView>> = HashMap::new();
    let mut out: Vec<Candidate> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (rank, c) in chunks.iter().enumerate() {
        if !docs.contains_key(&c.doc_id) {
            docs.insert(c.doc_id.clone(), doc_view(store, &c.doc_id)?);
        }
        let Some(doc) = docs[&c.doc_id].as_ref() else {
            continue;
        };
        let text = &doc.text;
        if text.get(c.start..c.end) != Some(c.text.as_str()) {
            continue; // the chunk no longer matches its document; nothing to quote
        }
        let title = title_span(text, Span::new(c.start, c.end), &c.title);
        let mut spans = spans_of_chunk(text, Span::new(c.start, c.end), &doc.layout);
        spans.extend(title.map(|t| (t, Completeness::Complete)));
        for (span, completeness) in spans {
            if !seen.insert((c.doc_id.clone(), span.start, span.end)) {
                continue;
            }
            // A short title line met as a sentence names the document and states
            // nothing; the title span itself is kept for questions asking for a title.
            if Some(span) != title
                && span.slice(text).trim() == c.title.trim()
                && word_count(&c.title) < SHORT_TITLE_WORDS
            {
                continue;
            }
            let quote = span.slice(text).to_string();
            let kind = kind_of(&quote);
            if kind == Kind::Instruction {
                continue;
            }
            out.push(Candidate {
                doc_id: c.doc_id.clone(),
                key: c.key.clone(),
                source: c.source.clone(),
                title: c.title.clone(),
                chunk_id: c.chunk_id.clone(),
                content_hash: doc.hash.clone(),
                kind,
                quote,
                start: span.start,
                end: span.end,
                line: doc.lines.line_of(span.start),
                completeness,
                step,
                chunk_rank: rank + 1,
                chunk_cosine: 0.0,
                page: doc.layout.page_of(span.start),
                section: doc.layout.section_of(span.start).map(str::to_string),
                label: label_of(doc, span),
                ocr: doc.layout.ocr_mark(&doc.text, span.start, span.end),
                file: doc.layout.file_span(span.start, span.end),
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn quotes(text: &str) -> Vec<(String, Completeness)> {
        spans_of_chunk(text, Span::new(0, text.len()), &Layout::default())
            .into_iter()
            .map(|(s, c)| (s.slice(text).to_string(), c))
            .collect()
    }

    #[test]
    fn a_title_printed_in_the_head_is_found_across_line_breaks() {
        let text = "Explaining Triage Notes\nto Nurses\n\nAda Byron\n\nAbstract\nWe study notes.";
        let whole = Span::new(0, text.len());
        let t = title_span(text, whole, "Explaining Triage Notes to Nurses").unwrap();
        assert_eq!(t.slice(text), "Explaining Triage Notes\nto Nurses");
        assert_eq!(kind_of(t.slice(text)), Kind::Statement);
        assert!(title_span(text, Span::new(40, text.len()), "Explaining Triage Notes").is_none());
        assert!(title_span(text, whole, "Notes").is_none());
    }

    #[test]
    fn instructions_are_told_from_statements() {
        for s in [
            "Indicate and justify the project start date, specifying the day, month, and year.",
            "1 Enter an estimate of your 2025 itemized deductions (from Schedule A (Form 1040)).",
            "List the parcels and their owners.",
            "Start date:",
            "(a) Describe the baseline scenario.",
        ] {
            assert!(is_instruction(s), "{s}");
            assert_eq!(kind_of(s), Kind::Instruction);
        }
        for s in [
            "Type 2 diabetes is associated with obesity.",
            "State law requires a permit for every well.",
            "Mark Twain wrote the novel in 1884.",
            "Complete remission was seen in 40% of patients.",
            "If it pays every other week, enter 26.",
            "Start date: 1 March 2021",
            "Note to Readers on the Update Version 1.1 refines Version 1.0.",
            "By 20 December 2025, the Commission shall submit a report on the application of this Regulation, including on:",
        ] {
            assert!(!is_instruction(s), "{s}");
        }
    }

    #[test]
    fn short_values_are_kept_after_a_prompt_or_under_a_label_only() {
        let text =
            "Indicate the project start date.\n\n15/03/2021.\n\nIn 2019 it rained.\n\n12 cases.";
        let got: Vec<String> = spans_of_chunk(text, Span::new(0, text.len()), &Layout::default())
            .into_iter()
            .map(|(s, _)| s.slice(text).to_string())
            .collect();
        assert!(got.contains(&"15/03/2021.".to_string()), "{got:?}");
        assert!(
            !got.contains(&"12 cases.".to_string()),
            "no prompt before it: {got:?}"
        );
        assert!(is_value("Prince H Smith", true, false));
        assert!(
            !is_value("Prince H Smith", false, true),
            "no figure, no label"
        );
        assert!(!is_value("1 $", true, true));
        assert!(!is_value("Table 3 Site", false, true));
    }

    #[test]
    fn kinds_follow_obligation_words() {
        assert_eq!(kind_of("Counties must retain records."), Kind::Requirement);
        assert_eq!(kind_of("Staff may not bill clients."), Kind::Requirement);
        assert_eq!(kind_of("Balance billing is prohibited."), Kind::Requirement);
        assert_eq!(
            kind_of("The county is required to report."),
            Kind::Requirement
        );
        assert_eq!(kind_of("Staff may bill SMAP."), Kind::Statement);
        assert_eq!(
            kind_of("No client may be refused services because of inability to pay."),
            Kind::Requirement
        );
        assert_eq!(kind_of("The clinic opened in 1990."), Kind::Statement);
    }

    #[test]
    fn headings_markers_and_fragments_are_not_quotes() {
        let text =
            "## 4.2 Retention\n\n- Client records must be retained for seven years.\n\nSee above.";
        let q = quotes(text);
        assert_eq!(q.len(), 1, "{q:?}");
        assert_eq!(q[0].0, "Client records must be retained for seven years.");
        assert_eq!(q[0].1, Completeness::Complete);
    }

    #[test]
    fn back_references_take_the_sentence_before_or_are_incomplete() {
        let text = "Client records must be retained for seven years after the last service. \
                    This requirement follows section 5897 of the Act and the County Code.";
        let q = quotes(text);
        assert_eq!(q.len(), 2);
        assert!(q[1].0.starts_with("Client records must"), "{q:?}");
        assert!(q[1].0.ends_with("County Code."));
        assert!(matches!(q[1].1, Completeness::Extended(_)));
        let text = "## Heading\n\nThis requirement follows section 5897 of the Act and the Code.";
        let q = quotes(text);
        assert!(matches!(q[0].1, Completeness::Incomplete(_)), "{q:?}");
    }

    #[test]
    fn pure_cross_references_are_incomplete() {
        assert!(is_dangling_reference("See § 5899(b)."));
        assert!(is_dangling_reference(
            "See also Section 9.40.140 of the County Code."
        ));
        assert!(!is_dangling_reference(
            "Records must be kept for seven years (see § 5897)."
        ));
        assert!(!is_dangling_reference("Counties must retain records."));
    }

    #[test]
    fn long_sentences_are_cut_at_clause_boundaries() {
        let long = "The Department must give the client and the landlord written notice at least \
                    thirty days before housing assistance ends for any reason at all; the notice \
                    must state the reason for the decision and explain how to file a grievance \
                    or an appeal under Chapter 6 of this manual within the time allowed.";
        assert!(word_count(long) > MAX_WORDS);
        let q = quotes(long);
        assert_eq!(q.len(), 2, "{q:?}");
        assert!(q[0].0.ends_with("for any reason at all"));
        assert!(q[1].0.starts_with("the notice must state"));
        // A piece that continues its clause is extended to the sentence start.
        let long = "Each clinic that provides outpatient services to adults in the county \
                    program keeps a register of every client seen in the past year, and must \
                    send a complete copy of that register to the Department of Behavioural \
                    Health every quarter together with the signed quarterly attestation form.";
        // The second clause has no subject of its own: the sentence stays whole.
        let q = quotes(long);
        assert_eq!(q.len(), 1, "{q:?}");
        assert_eq!(q[0], (long.to_string(), Completeness::Complete));
    }

    /// Every quote of `text` that contains `key` also contains each of `whole`.
    fn assert_whole(text: &str, key: &str, whole: &[&str]) {
        let q = quotes(text);
        assert!(q.iter().any(|(s, _)| s.contains(key)), "{key}: {q:?}");
        for (s, _) in q.iter().filter(|(s, _)| s.contains(key)) {
            for w in whole {
                assert!(s.contains(w), "{s:?} lacks {w:?}");
            }
        }
    }

    #[test]
    fn alternatives_exceptions_and_enumerations_are_never_cut_off() {
        let fine = "Non-compliance with the prohibition of the practices referred to in Article 5 \
                    shall be subject to administrative fines of up to EUR 35 000 000 or, if the \
                    offender is an undertaking, up to 7 % of its total worldwide annual turnover \
                    for the preceding financial year, whichever is higher.";
        assert!(word_count(fine) > MAX_WORDS);
        assert_whole(fine, "EUR 35 000 000", &["7 %", "whichever is higher"]);
        let unless = "The Department must return the deposit to the tenant within thirty days \
                      after the tenancy ends and the keys have been handed back to the landlord, \
                      unless the landlord has filed a written claim for damage to the premises \
                      with the rent tribunal before that date.";
        assert_whole(unless, "return the deposit", &["unless the landlord"]);
        let items = "The written notice sent to the client by the county office must state the \
                     name of the client, the address of the client, the reason for the decision, \
                     the date on which the decision takes effect, and the way in which an appeal \
                     may be lodged with the hearing office.";
        assert_whole(items, "must state", &["the way in which an appeal"]);
    }

    #[test]
    fn a_leading_condition_stays_with_its_main_clause() {
        let rule = "If the owner of the lost property does not claim it within six months after \
                    the notice of the find has been published by the municipal office, the person \
                    who found the lost property acquires ownership of the same together with any \
                    proceeds of its sale.";
        assert!(word_count(rule) > MAX_WORDS);
        assert_whole(rule, "acquires ownership", &["If the owner"]);
        let list = "If the applicant does not answer within thirty days:\n\n\
                    (a) the application lapses; and\n(b) the fee is forfeited.\n";
        let q = quotes(list);
        assert_eq!(q.len(), 1, "{q:?}");
        assert!(q[0].0.starts_with("If the applicant") && q[0].0.ends_with("forfeited."));
    }

    #[test]
    fn a_lead_in_and_its_items_are_one_provision() {
        let text = "## Notices\n\nThe notice shall include:\n\n- the name of the client;\n\
                    - the reason for the decision; and\n- the date by which an appeal must be \
                    filed.\n\nOther text follows here.";
        let q = quotes(text);
        let whole = &text[text.find("The notice").unwrap()..text.find("\n\nOther").unwrap()];
        assert_eq!(q[0], (whole.to_string(), Completeness::Complete), "{q:?}");
        assert_eq!(q.len(), 2, "{q:?}");
        assert_eq!(kind_of(whole), Kind::Requirement);
        // A prompt with no items after it is still an instruction.
        let form = "Enter your full name:\n\nThe office opens at nine every morning.";
        assert_eq!(quotes(form)[0].0, "Enter your full name:");
        assert!(is_instruction("Enter your full name:"));
        // A long list: each item is quoted from the lead-in.
        let item = "a description of the measures taken to keep the personal data of every \
                    client safe from loss, theft and unauthorised disclosure by staff";
        let mut long = "Each annual report submitted by the provider shall contain:\n".to_string();
        for i in 1..=8 {
            long.push_str(&format!(
                "({}) {item} {i};\n",
                char::from(b'a' + i as u8 - 1)
            ));
        }
        let q = quotes(&long);
        assert_eq!(q.len(), 8, "{q:?}");
        for (s, state) in &q[..4] {
            assert!(s.starts_with("Each annual report"), "{s}");
            assert!(matches!(state, Completeness::Extended(_)), "{state:?}");
        }
        assert!(q[1].0.ends_with("by staff 2;"));
        assert!(matches!(q[7].1, Completeness::Incomplete(_)), "{:?}", q[7]);
    }

    #[test]
    fn references_to_the_document_itself_are_not_back_references() {
        for s in [
            "This Regulation shall apply from 2 August 2026.",
            "This Part applies to every county clinic.",
            "These Rules take effect on 1 January 2025.",
            "These statistics represent the number of background checks initiated.",
            "This project is located in the county of Shropshire.",
            "It is unlawful to sell tobacco to a minor.",
        ] {
            assert!(!opens_with_back_reference(s), "{s}");
            let text = format!("## Article 113\n\n{s}");
            assert_eq!(quotes(&text), vec![(s.to_string(), Completeness::Complete)]);
        }
        for s in [
            "These records must be kept for seven years.",
            "It is used to treat the symptoms.",
            "Such a fine may not exceed EUR 500.",
            "This requirement follows section 5897.",
            "The former applies to every county clinic.",
            "The former option costs less than the second.",
            "The latter director signed the report.",
        ] {
            assert!(opens_with_back_reference(s), "{s}");
        }
    }

    #[test]
    fn the_former_holder_of_a_role_is_no_back_reference() {
        for s in [
            "The former treasurer of the club, Ann Lee, resigned in 2019.",
            "The former owners sold the farm to the county in 2004.",
        ] {
            assert!(!opens_with_back_reference(s), "{s}");
            let text = format!("## History\n\n{s}");
            assert_eq!(quotes(&text), vec![(s.to_string(), Completeness::Complete)]);
        }
    }

    #[test]
    fn no_quote_ends_inside_an_open_bracket_or_beyond_the_hard_bound() {
        let text = "Applicants should describe every contribution they will make to the project \
                    over its lifetime (e.g., resources, investments, staff time, equipment, land, \
                    vehicles, software, training, office space, travel, transport, catering, \
                    security, insurance, cleaning, printing, postage and utilities) and should \
                    estimate the value of each.";
        assert!(word_count(text) > MAX_WORDS);
        for (s, _) in quotes(text) {
            assert_eq!(s.matches('(').count(), s.matches(')').count(), "{s}");
        }
        let t = "Costs of the project (e.g., resources, investments\n\nStaff time) are paid.";
        let q = quotes(t);
        assert!(matches!(q[0].1, Completeness::Incomplete(_)), "{q:?}");
        let huge = vec!["word"; MAX_PROVISION_WORDS + 5].join(" ") + ".";
        assert!(matches!(quotes(&huge)[0].1, Completeness::Incomplete(_)));
    }

    #[test]
    fn heading_lines_are_not_values() {
        assert!(!is_value("Article 99", false, true));
        assert!(!is_value("Section 12", false, true));
        assert!(is_value("Article 99", true, false), "a labelled value");
        let text = "The following provisions apply:\n\nArticle 99\n\nPenalties";
        assert!(quotes(text)
            .iter()
            .all(|(s, _)| s != "Article 99" && s != "Penalties"));
    }

    #[test]
    fn evidence_keys_depend_on_content_and_span_only() {
        let a = evidence_key("abc", 1, 5);
        assert_eq!(a, evidence_key("abc", 1, 5));
        assert_ne!(a, evidence_key("abd", 1, 5));
        assert_ne!(a, evidence_key("abc", 1, 6));
        assert_eq!(a.len(), 16);
    }

    proptest! {
        #[test]
        fn every_candidate_is_a_verbatim_span_inside_the_text(
            text in "([A-Za-z]{1,9}[ ,;:]{1,2}|This |See § 5 |\\. |\n\n|## h\n|- |1\\. ){0,120}"
        ) {
            let chunk = Span::new(0, text.len());
            for (span, state) in spans_of_chunk(&text, chunk, &Layout::default()) {
                let q = text.get(span.start..span.end);
                prop_assert!(q.is_some(), "span {:?} not on char boundaries", span);
                let q = q.unwrap();
                prop_assert!(word_count(q) >= MIN_WORDS || q.chars().any(|c| c.is_ascii_digit()));
                prop_assert_eq!(q.trim(), q);
                if let Completeness::Incomplete(why) = state {
                    prop_assert!(!why.is_empty());
                }
            }
        }
    }
}
