//! The research loop's decisions (design.md §1): classify a question as `simple` or
//! `multi_hop`, strip answer choices, and choose the next step from what earlier steps
//! verified. Deterministic rules; `ask` runs the steps.
//!
//! * **Classify**: `multi_hop` when the question compares (`same`, `both`, `which … first`,
//!   `older`, `more`, … with two named things), asks through a bridge (a relative clause
//!   such as "the woman who portrayed …", "the director of the film …", a possessive chain),
//!   or names three or more things; otherwise `simple`.
//! * **Replan** (multi-hop only), in order: `next_step` for a thing the question names that
//!   no verified evidence mentions yet (comparisons); `next_step` for a bridge entity, a
//!   name in the last step's best verified evidence that the question does not contain;
//!   `retry` with the keyword form when the last step failed; else `complete`.

use std::collections::HashSet;

pub mod authorship;
pub mod choice;
pub mod reply;

use serde::{Deserialize, Serialize};

use crate::lexicon::{self, Class as Words};
use crate::retrieve::multi::keyword_terms;
use crate::text::{is_stopword, words};

/// How a question is researched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    /// One focused passage answers it.
    Simple,
    /// Several concepts, a bridge entity, or a comparison.
    MultiHop,
}

impl Class {
    /// The name, as the JSON spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Class::Simple => "simple",
            Class::MultiHop => "multi_hop",
        }
    }
}

/// The classification and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Classification {
    /// The class.
    pub class: Class,
    /// The rule that decided.
    pub reason: String,
}

/// Words that mark a comparison.
const COMPARATIVES: &[&str] = &[
    "same",
    "both",
    "first",
    "older",
    "younger",
    "earlier",
    "later",
    "more",
    "less",
    "larger",
    "smaller",
    "longer",
    "shorter",
    "higher",
    "lower",
    "bigger",
    "compare",
    "compared",
    "difference",
    "either",
    "between",
];

/// Words after which a relative clause or a "… of the …" chain asks through a bridge.
const BRIDGE_MARKERS: &[(&str, &str)] = &[
    ("who", ""),
    ("whose", ""),
    ("which", "was"),
    ("that", "was"),
    ("director", "of"),
    ("author", "of"),
    ("founder", "of"),
    ("creator", "of"),
    ("star", "of"),
    ("singer", "of"),
    ("owner", "of"),
    ("member", "of"),
    ("capital", "of"),
    ("home", "of"),
];

/// Most words of a quoted title that counts as a name ("Big Stone Gap").
const MAX_QUOTED_NAME_WORDS: usize = 8;

/// Names in `text`: runs of capitalised words (joined by `of`, `and`, `the`, `de`, `&`
/// inside a run), not counting a lone sentence-initial stop word. Quoted titles count too.
pub fn names(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    // Quoted titles: "Big Stone Gap".
    let mut rest = text;
    while let Some(i) = rest.find('"') {
        let after = &rest[i + 1..];
        let Some(j) = after.find('"') else { break };
        let t = after[..j].trim();
        if !t.is_empty() && t.split_whitespace().count() <= MAX_QUOTED_NAME_WORDS {
            out.push(t.to_string());
        }
        rest = &after[j + 1..];
    }
    let toks: Vec<&str> = text.split_whitespace().collect();
    let mut run: Vec<&str> = Vec::new();
    let flush = |run: &mut Vec<&str>, out: &mut Vec<String>| {
        while run
            .last()
            .is_some_and(|w| matches!(*w, "of" | "and" | "the" | "de" | "&"))
        {
            run.pop();
        }
        if !run.is_empty() {
            let name = run.join(" ");
            let single_stop = run.len() == 1 && is_stopword(&run[0].to_lowercase());
            if !single_stop && !out.contains(&name) {
                out.push(name);
            }
        }
        run.clear();
    };
    for (i, raw) in toks.iter().enumerate() {
        let w = raw.trim_matches(|c: char| !c.is_alphanumeric() && c != '&' && c != '.');
        let w = w.trim_end_matches('.');
        if raw.starts_with(['(', '[', '"']) {
            flush(&mut run, &mut out);
        }
        let cap = w.chars().next().is_some_and(char::is_uppercase);
        // "and" joins a one-word start ("Kiss and Tell"), not two full names
        // ("Scott Derrickson and Ed Wood").
        let joiner = !run.is_empty()
            && (matches!(w, "of" | "the" | "de" | "&") || (w == "and" && run.len() == 1));
        let sentence_start =
            i == 0 || toks[i - 1].ends_with(['.', '?', '!', ':']) || toks[i - 1].ends_with(".\"");
        if (cap && !(sentence_start && is_stopword(&w.to_lowercase()))) || joiner {
            run.push(w);
        } else {
            flush(&mut run, &mut out);
        }
        // A name ends at punctuation.
        if raw.ends_with([',', '.', ';', ':', '?', '!', ')']) {
            flush(&mut run, &mut out);
        }
    }
    flush(&mut run, &mut out);
    out.retain(|n| n.chars().any(char::is_alphabetic));
    out
}

/// Single words that are capitalised without naming a bridge: demonyms and Roman numerals
/// (months and weekdays are [`Words::Month`] and [`Words::Weekday`]).
const NOT_BRIDGES: &[&str] = &[
    "american",
    "british",
    "english",
    "french",
    "german",
    "italian",
    "spanish",
    "canadian",
    "australian",
    "irish",
    "scottish",
    "welsh",
    "japanese",
    "chinese",
    "korean",
    "indian",
    "russian",
    "european",
    "african",
    "asian",
    "mexican",
    "swedish",
    "dutch",
    "i",
    "ii",
    "iii",
];

/// Names of `quote` that could be bridges, best first: multi-word names before single
/// words, each in order of appearance; demonyms, months and days left out.
pub fn bridge_candidates(quote: &str) -> Vec<String> {
    let all = names(quote);
    let (multi, single): (Vec<String>, Vec<String>) = all
        .into_iter()
        .partition(|n| n.split_whitespace().count() > 1);
    multi
        .into_iter()
        .chain(single.into_iter().filter(|n| {
            let n = n.to_lowercase();
            !NOT_BRIDGES.contains(&n.as_str())
                && !lexicon::is_any(&[Words::Month, Words::Weekday], &n)
        }))
        .collect()
}

/// Words that open a question besides the question words and auxiliaries
/// ([`Words::WhWord`], [`Words::Auxiliary`]); a text opening otherwise and not ending in
/// `?` is a statement to check.
const INTERROGATIVES: &[&str] = &[
    "Name three best sellers …",
    "name",
    "list",
    "give",
    "identify",
    "tell",
    // Requests ask as well ("Name three best sellers …").
];
/// Words that open a relative clause.
const RELATIVES: &[&str] = &["who", "whom", "whose", "which", "that", "where"];
/// Words from which a question with a relative clause is long enough to ask through
/// something found on the way even without two names.
const LONG_RELATIVE_QUESTION_WORDS: usize = 10;

/// Things the question names: multi-word names, and single names that are not acronyms
/// or codes (HIV, IL-6, UK name terms, not things to hop between). A name that only
/// places the question in time ("Quarter 2 2025", "May 2024"), a unit ("GWh") and a single
/// capitalised word that modifies the noun after it ("Full members", "Restricted-tier
/// storage") name no thing to hop to.
fn named_things(question: &str) -> Vec<String> {
    let toks: Vec<&str> = question.split_whitespace().collect();
    names(question)
        .into_iter()
        .filter(|n| {
            n.split_whitespace().count() > 1
                || n.chars()
                    .filter(|c| c.is_alphabetic())
                    .any(char::is_lowercase)
                    && !n.chars().any(|c| c.is_ascii_digit())
        })
        .filter(|n| !only_time(n) && lexicon::units::unit_named(n).is_none())
        .filter(|n| n.contains(' ') || !modifies_next(&toks, n))
        .collect()
}

/// Whether every word of `name` is a number, a month, a weekday or a unit of time (or
/// "quarter"): a time, not a thing.
fn only_time(name: &str) -> bool {
    name.split_whitespace().all(|w| {
        let w = w.to_lowercase();
        w.chars().all(|c| c.is_ascii_digit() || "/-".contains(c))
            || lexicon::is_any(&[Words::Month, Words::Weekday, Words::TimeUnit], &w)
            || w == "quarter"
    })
}

/// Whether the one-word name `name` stands right before a lower-case content word in
/// `toks` (it qualifies that word: "Full members").
fn modifies_next(toks: &[&str], name: &str) -> bool {
    toks.windows(2).any(|p| {
        let this = p[0].trim_matches(|c: char| !c.is_alphanumeric() && c != '-');
        let next = p[1].trim_matches(|c: char| !c.is_alphanumeric());
        this == name
            && !p[0].ends_with([',', ';', ':', ')'])
            && next.chars().next().is_some_and(char::is_lowercase)
            && next.chars().all(|c| c.is_alphabetic() || c == '-')
            && !is_stopword(next)
    })
}

fn multi_hop(reason: String) -> Classification {
    Classification {
        class: Class::MultiHop,
        reason,
    }
}

/// Classify `question` (answer choices already stripped).
pub fn classify(question: &str) -> Classification {
    let w = words(question);
    let named = named_things(question);
    let interrogative = question.trim_end().ends_with('?')
        || w.first().is_some_and(|f| {
            INTERROGATIVES.contains(&f.as_str())
                || lexicon::is_any(&[Words::WhWord, Words::Auxiliary], f)
        });
    if !interrogative {
        return Classification {
            class: Class::Simple,
            reason: "a statement to check: one focused passage".into(),
        };
    }
    if let Some(c) = w.iter().find(|x| COMPARATIVES.contains(&x.as_str())) {
        if named.len() >= 2 || w.iter().any(|x| x == "or") {
            return multi_hop(format!("compares ({c:?}) two named things"));
        }
    }
    if let Some(pair) = bridge_marker(&w) {
        return multi_hop(format!("asks through a bridge (\"{pair}\")"));
    }
    if let Some(r) = w.iter().skip(1).find(|x| RELATIVES.contains(&x.as_str())) {
        if named.len() >= 2 || w.len() >= LONG_RELATIVE_QUESTION_WORDS {
            return multi_hop(format!(
                "a relative clause (\"{r}\") asks about something found on the way"
            ));
        }
    }
    if named.len() >= 2 {
        return multi_hop(format!("names {} things", named.len()));
    }
    Classification {
        class: Class::Simple,
        reason: "one focused passage can answer it".into(),
    }
}

/// The first pair of words of `w` that marks a bridge ("who portrayed", "director of"),
/// joined by a space. "Who wrote X?" opens with "who": not a bridge; a relative clause is
/// inside the question.
fn bridge_marker(w: &[String]) -> Option<String> {
    let opens_with_who = w.first().map(String::as_str) == Some("who")
        && w.iter().filter(|x| *x == "who").count() == 1;
    for pair in w.windows(2) {
        for (a, b) in BRIDGE_MARKERS {
            if pair[0] == *a && (b.is_empty() || pair[1] == *b) {
                if *a == "who" && opens_with_who {
                    continue;
                }
                return Some(format!("{} {}", pair[0], pair[1]));
            }
        }
    }
    None
}

/// Whether `name` occurs in `text` (case-insensitive, whole words).
pub fn mentions(text: &str, name: &str) -> bool {
    let t = words(text);
    let n = words(name);
    !n.is_empty() && t.windows(n.len()).any(|w| w == n.as_slice())
}

/// The next move of the research loop.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "action")]
pub enum Move {
    /// Research this sub-question next.
    NextStep {
        /// What the step researches.
        #[serde(skip)]
        kind: StepKind,
        /// The sub-question.
        question: String,
        /// Why.
        reason: String,
        /// The entity the step is about (a bridge or a compared thing): its evidence must
        /// mention it.
        #[serde(skip_serializing_if = "Option::is_none")]
        entity: Option<String>,
    },
    /// Reword the failed step and try again.
    Retry {
        /// The reworded question.
        question: String,
    },
    /// Stop.
    Complete {
        /// Why.
        reason: String,
    },
}

/// What a research step is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StepKind {
    /// The question itself (the first step).
    #[default]
    Question,
    /// A thing the question compares that no verified evidence covers yet.
    Compared,
    /// A bridge entity found in verified evidence.
    Bridge,
    /// A failed step reworded.
    Retry,
}

/// What the replanner knows of a finished step.
#[derive(Debug, Clone)]
pub struct StepOutcome {
    /// The step's question.
    pub question: String,
    /// Whether the evaluator marked it completed.
    pub completed: bool,
    /// What the step researched.
    pub kind: StepKind,
    /// Why the planner chose it.
    pub reason: String,
    /// Verified quotes, best first.
    pub verified: Vec<String>,
    /// The title of each verified quote's document, in the same order.
    pub verified_titles: Vec<String>,
    /// Quotes of the same documents whose relevance fell just short, each with its
    /// document's title: bridges may be named there too.
    pub near: Vec<(String, String)>,
    /// Titles of documents the step retrieved but verified nothing from.
    pub titles: Vec<String>,
}

/// The name a document title stands for: the part before a parenthesis or comma
/// ("Drifting (motorsport)" → "Drifting", "Southaven, Mississippi" → "Southaven").
pub fn title_name(title: &str) -> &str {
    let end = title.find(['(', ',']).unwrap_or(title.len());
    title[..end].trim()
}

/// What the replanner derives from the question and the steps so far.
struct Context<'a> {
    question: &'a str,
    steps: &'a [StepOutcome],
    /// Step questions asked so far (lower case).
    asked: HashSet<String>,
    /// Every verified quote so far.
    all_verified: Vec<&'a String>,
    /// The question's keyword terms.
    focus: Vec<String>,
    /// Words of the verified quotes.
    covered: HashSet<String>,
    /// Names in the question.
    question_names: Vec<String>,
}

/// Extra question terms a step's query takes at most besides its entity's name.
const MAX_FOCUS_TERMS: usize = 6;
/// Verified quotes of the bridge source searched for bridge entities, at most.
const BRIDGE_SOURCE_QUOTES: usize = 6;
/// Words of the question a quote just short of relevance must word to name a bridge.
const NEAR_BRIDGE_WORDS: usize = 2;
/// Bridge steps with evidence after which no further bridge is tried (the first may
/// have been the wrong hop, so a second candidate is still tried).
const MAX_BRIDGES: usize = 2;
/// Leading words of a bridge name compared with earlier steps' questions (a longer form
/// of an earlier bridge is not a new one).
const BRIDGE_HEAD_WORDS: usize = 2;
/// Letters a document title's name needs to count as a bridge.
const MIN_TITLE_LETTERS: usize = 4;

impl<'a> Context<'a> {
    fn new(question: &'a str, steps: &'a [StepOutcome]) -> Self {
        let all_verified: Vec<&String> = steps.iter().flat_map(|s| &s.verified).collect();
        Context {
            question,
            steps,
            asked: steps.iter().map(|s| s.question.to_lowercase()).collect(),
            covered: all_verified.iter().flat_map(|v| words(v)).collect(),
            all_verified,
            focus: keyword_terms(question),
            question_names: names(question),
        }
    }

    /// A step's query for `name`: the name plus the question terms not yet covered by
    /// verified evidence (what the next step still has to find).
    fn focus_text(&self, name: &str) -> String {
        let extra = self.focus.iter().filter(|t| {
            !mentions(name, t)
                && !self.question_names.iter().any(|n| mentions(n, t))
                && !self.covered.contains(*t)
        });
        let mut q = name.to_string();
        for t in extra.take(MAX_FOCUS_TERMS) {
            q.push(' ');
            q.push_str(t);
        }
        q
    }

    /// A next step for `name` of `kind`, unless its query was asked already.
    fn step_for(&self, name: &str, kind: StepKind, reason: String) -> Option<Move> {
        let q = self.focus_text(name);
        (!self.asked.contains(&q.to_lowercase())).then(|| Move::NextStep {
            kind,
            question: q,
            reason,
            entity: Some(name.to_string()),
        })
    }
}

/// Choose the next move for `question` after `steps`.
pub fn replan(question: &str, steps: &[StepOutcome]) -> Move {
    let Some(last) = steps.last() else {
        return Move::NextStep {
            kind: StepKind::Question,
            question: question.to_string(),
            reason: "first step: the question itself".into(),
            entity: None,
        };
    };
    let ctx = Context::new(question, steps);
    if let Some(m) = compared_step(&ctx) {
        return m;
    }
    if let Some(m) = bridge_step(&ctx, last) {
        return m;
    }
    let last_failed_bridge = !last.completed && last.kind == StepKind::Bridge;
    if !last.completed && !last_failed_bridge {
        let reworded = keyword_terms(&last.question).join(" ");
        if !reworded.is_empty() && !ctx.asked.contains(&reworded.to_lowercase()) {
            return Move::Retry { question: reworded };
        }
    }
    Move::Complete {
        reason: if last.completed {
            "no uncovered aspect or new bridge entity".into()
        } else {
            "the last step failed and rewording does not change it".into()
        },
    }
}

/// A thing a comparison names that no verified evidence mentions yet.
fn compared_step(ctx: &Context) -> Option<Move> {
    let comparison = words(ctx.question)
        .iter()
        .any(|w| COMPARATIVES.contains(&w.as_str()));
    if !comparison || !ctx.steps.iter().any(|s| s.completed) {
        return None;
    }
    names(ctx.question)
        .into_iter()
        .filter(|n| !ctx.all_verified.iter().any(|v| mentions(v, n)))
        .find_map(|n| {
            let why = format!("{n:?} is named in the question but no verified evidence covers it");
            ctx.step_for(&n, StepKind::Compared, why)
        })
}

/// A bridge: a name in the best evidence of the latest completed step that was not
/// itself a bridge step (a failed bridge step falls through to the next candidate from
/// the same source), that the question does not contain. After [`MAX_BRIDGES`] bridge
/// steps found evidence, none.
fn bridge_step(ctx: &Context, last: &StepOutcome) -> Option<Move> {
    let steps = ctx.steps;
    let bridged = steps
        .iter()
        .filter(|s| s.completed && s.kind == StepKind::Bridge)
        .count()
        >= MAX_BRIDGES;
    let source = steps
        .iter()
        .rev()
        .find(|s| s.completed && s.kind != StepKind::Bridge)?;
    let last_failed_bridge = !last.completed && last.kind == StepKind::Bridge;
    if bridged || !(last.completed || last_failed_bridge) {
        // after a failed step of another kind, the retry handles it
        return None;
    }
    bridge_from(ctx, source)
}

/// A bridge step for a question answered in one step whose verified passages state
/// no value of the asked type, even over more chunks: a name in the best evidence of
/// the latest completed step ("based in the Memphis suburb of Southaven" → Southaven),
/// searched with what the question still asks.
///
/// Only a name that is the title of a document retrieved with nothing verified counts:
/// the hop leads to another document the corpus holds, never back into the documents
/// already read ("Form W-4" of the W-4's own instructions).
pub fn bridge_after(question: &str, steps: &[StepOutcome]) -> Option<Move> {
    let ctx = Context::new(question, steps);
    let source = steps.iter().rev().find(|s| s.completed)?;
    let unread: Vec<&str> = steps
        .iter()
        .flat_map(|s| &s.titles)
        .map(|t| title_name(t))
        .collect();
    let mut names = bridge_names(&ctx, source);
    names.retain(|n| unread.contains(&n.as_str()));
    fresh_bridge(&ctx, names)
}

/// The first fresh bridge name of `source`'s evidence as a next step (see
/// [`bridge_step`]).
fn bridge_from(ctx: &Context, source: &StepOutcome) -> Option<Move> {
    fresh_bridge(ctx, bridge_names(ctx, source))
}

/// The first of `names` that is a fresh bridge, as a next step: not in the question, not
/// a longer form of an earlier step's bridge, not made of the question's own words.
fn fresh_bridge(ctx: &Context, names: Vec<String>) -> Option<Move> {
    let steps = ctx.steps;
    names.into_iter().find_map(|n| {
        // Not in the question, and not a longer form of an earlier step's bridge.
        let head: String = n
            .split_whitespace()
            .take(BRIDGE_HEAD_WORDS)
            .collect::<Vec<_>>()
            .join(" ");
        let fresh = !mentions(ctx.question, &n)
            && !steps.iter().any(|s| mentions(&s.question, &head))
            && !words(&n)
                .iter()
                .all(|w| is_stopword(w) || ctx.focus.contains(w));
        let why = format!("bridge entity {n:?} found in verified evidence");
        fresh
            .then(|| ctx.step_for(&n, StepKind::Bridge, why))
            .flatten()
    })
}

/// Bridge candidates from `source`'s best quotes, in the order they are tried: titles of
/// retrieved documents the evidence names (the evidence points at a document the corpus
/// holds), then multi-word names, then single names. Quotes about something the question
/// names come first: a bridge is a hop from the question's own entities.
fn bridge_names(ctx: &Context, source: &StepOutcome) -> Vec<String> {
    let top: Vec<(usize, &String)> = source
        .verified
        .iter()
        .take(BRIDGE_SOURCE_QUOTES)
        .enumerate()
        .collect();
    // About a thing the question names: the quote names it, or its document's title does
    // ("The songs are performed by pianist Harry Connick Jr." of the soundtrack's article).
    let anchored = |(i, v): &(usize, &String)| {
        let title = source.verified_titles.get(*i).map_or("", String::as_str);
        ctx.question_names
            .iter()
            .any(|n| mentions(v, n) || mentions(title, n))
    };
    // The quote that words more of what the question says of the bridge ("performed by",
    // "songs") names it more likely: such quotes are searched first.
    let described: Vec<&String> = ctx
        .focus
        .iter()
        .filter(|t| !ctx.question_names.iter().any(|n| mentions(n, t)))
        .collect();
    let said = |v: &String| {
        let w = words(v);
        described.iter().filter(|t| w.contains(t)).count()
    };
    let mut first: Vec<(usize, &String)> = top.iter().copied().filter(anchored).collect();
    // A quote just short of relevance, of a document with a verified quote, counts when it
    // words two or more of what the question says.
    let names_asked = |text: &str| ctx.question_names.iter().any(|n| mentions(text, n));
    let near = source.near.iter().filter(|(v, title)| {
        (names_asked(v) || names_asked(title)) && said(v) >= NEAR_BRIDGE_WORDS
    });
    first.extend(near.map(|(v, _)| (BRIDGE_SOURCE_QUOTES, v)));
    first.sort_by_key(|(i, v)| (std::cmp::Reverse(said(v)), *i));
    let ordered: Vec<&String> = first
        .into_iter()
        .chain(top.iter().copied().filter(|x| !anchored(x)).take(1))
        .map(|(_, v)| v)
        .collect();
    // Names of the quotes that word much of what the question says come first.
    let (lead, rest): (Vec<&String>, Vec<&String>) = ordered
        .into_iter()
        .partition(|v| said(v) >= NEAR_BRIDGE_WORDS);
    let mut out = names_in(ctx, &lead);
    for n in names_in(ctx, &rest) {
        if !out.contains(&n) {
            out.push(n);
        }
    }
    out
}

/// Bridge candidates of `quotes`: titles of retrieved documents they name, then
/// multi-word names, then single names.
fn names_in(ctx: &Context, quotes: &[&String]) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for quote in quotes {
        for n in bridge_candidates(quote) {
            if !found.contains(&n) {
                found.push(n);
            }
        }
    }
    found.sort_by_key(|n| n.split_whitespace().count() < 2);
    let mut titled: Vec<String> = Vec::new();
    for quote in quotes {
        for t in ctx.steps.iter().flat_map(|s| &s.titles) {
            let n = title_name(t);
            if n.chars().filter(|c| c.is_alphabetic()).count() >= MIN_TITLE_LETTERS
                && mentions(quote, n)
                && !titled.iter().any(|x| x == n)
            {
                titled.push(n.to_string());
            }
        }
    }
    found.retain(|n| !titled.contains(n));
    titled.into_iter().chain(found).collect()
}

/// Answer choices found in a question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Choice {
    /// The label (`A`, `B`, …).
    pub label: String,
    /// The choice text.
    pub text: String,
}

/// Split answer choices ("(A) …" lines, "A. …" / "A) …" lines after an "Answer choices:"
/// line) from the question: (question without choices, choices).
pub fn strip_choices(question: &str) -> (String, Vec<Choice>) {
    let mut stem = Vec::new();
    let mut choices = Vec::new();
    let mut in_block = false;
    for line in question.lines() {
        let t = line.trim();
        let lower = t.to_lowercase();
        if lower.starts_with("answer choices") || lower == "choices:" || lower == "options:" {
            in_block = true;
            continue;
        }
        let parsed = choice_line(t, in_block);
        match parsed {
            Some(c) => choices.push(c),
            None => {
                if !t.is_empty() {
                    stem.push(t);
                }
            }
        }
    }
    (stem.join(" "), choices)
}

fn choice_line(t: &str, in_block: bool) -> Option<Choice> {
    let b = t.as_bytes();
    // "(A) text"
    if b.len() >= 4 && b[0] == b'(' && b[1].is_ascii_uppercase() && b[2] == b')' {
        return Some(Choice {
            label: (b[1] as char).to_string(),
            text: t[3..].trim().to_string(),
        });
    }
    // "A. text" / "A) text" inside a choices block
    if in_block && b.len() >= 3 && b[0].is_ascii_uppercase() && (b[1] == b'.' || b[1] == b')') {
        return Some(Choice {
            label: (b[0] as char).to_string(),
            text: t[2..].trim().to_string(),
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_capitalised_runs_and_quoted_titles() {
        assert_eq!(
            names("Kiss and Tell is a 1945 film starring Shirley Temple as Corliss Archer."),
            vec!["Kiss and Tell", "Shirley Temple", "Corliss Archer"]
        );
        assert_eq!(
            names("The director of the romantic comedy \"Big Stone Gap\" is based in what New York city?"),
            vec!["Big Stone Gap", "New York"]
        );
    }

    #[test]
    fn comparisons_and_bridges_are_multi_hop_plain_questions_simple() {
        for q in [
            "Were Scott Derrickson and Ed Wood of the same nationality?",
            "What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?",
            "The director of the romantic comedy \"Big Stone Gap\" is based in what New York city?",
            "Which magazine was started first, Arthur's Magazine or First for Women?",
            "Name three best sellers from Arthur Hailey that were released before Donna Tartt was born.",
        ] {
            assert_eq!(classify(q).class, Class::MultiHop, "{q}");
        }
        for q in [
            "How long must client records be retained?",
            "Who wrote Hamlet?",
            "What is the grievance deadline?",
            // One thing, with a qualifier, a unit or a time beside it.
            "How many Full members does the Brindle Water Rowing Club have?",
            "How much did the Harbour Cycle Programme spend in Quarter 2 2025?",
            "How many GWh of heat were lost in the Kestrel Valley network?",
            "AMP-activated protein kinase (AMPK) activation reduces inflammation-related fibrosis in the lungs of mice that were exposed.",
        ] {
            assert_eq!(classify(q).class, Class::Simple, "{q}");
        }
    }

    #[test]
    fn a_retrieved_document_whose_title_the_evidence_names_is_the_first_bridge() {
        assert_eq!(title_name("Drifting (motorsport)"), "Drifting");
        assert_eq!(title_name("Southaven, Mississippi"), "Southaven");
        let q = "Where is the company that Sachin Warrier worked for as a software engineer headquartered?";
        let quote = "Sachin Warrier is a playback singer from Kerala who worked with Muthuchippi Poloru and as a software engineer at Tata Consultancy Services.";
        let step = |titles: Vec<String>| StepOutcome {
            kind: StepKind::Question,
            reason: "first step".into(),
            question: q.into(),
            completed: true,
            verified: vec![quote.into()],
            verified_titles: vec![],
            near: vec![],
            titles,
        };
        let entity = |m: Move| match m {
            Move::NextStep { entity, .. } => entity,
            other => panic!("{other:?}"),
        };
        // Without titles, the first new name in the quote is the bridge.
        assert_eq!(
            entity(replan(q, &[step(Vec::new())])).as_deref(),
            Some("Muthuchippi Poloru")
        );
        let titles = vec![
            "Kerala State Film Awards".to_string(),
            "Tata Consultancy Services".into(),
        ];
        assert_eq!(
            entity(replan(q, &[step(titles)])).as_deref(),
            Some("Tata Consultancy Services")
        );
    }

    #[test]
    fn the_replanner_follows_a_bridge_then_completes() {
        let q = "What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?";
        let first = replan(q, &[]);
        assert!(matches!(first, Move::NextStep { ref question, .. } if question == q));
        let s1 = StepOutcome {
            kind: StepKind::Question,
            reason: "first step".into(),
            question: q.into(),
            completed: true,
            verified: vec!["Kiss and Tell is a 1945 American comedy film starring then 17-year-old Shirley Temple as Corliss Archer, portrayed on radio.".into()],
            verified_titles: vec![],
            near: vec![],
            titles: Vec::new(),
        };
        let m = replan(q, std::slice::from_ref(&s1));
        let Move::NextStep {
            question, reason, ..
        } = m
        else {
            panic!("{m:?}")
        };
        assert!(question.starts_with("Shirley Temple"), "{question}");
        assert!(
            question.contains("government"),
            "uncovered terms follow: {question}"
        );
        assert!(
            !question.contains("portrayed"),
            "covered terms do not: {question}"
        );
        assert!(reason.contains("bridge"));
        let s2 = StepOutcome {
            kind: StepKind::Bridge,
            reason: "bridge entity \"Shirley Temple\"".into(),
            question,
            completed: true,
            verified: vec!["Shirley Temple Black was an American actress who served as Chief of Protocol of the United States.".into()],
            verified_titles: vec![],
            near: vec![],
            titles: Vec::new(),
        };
        let m = replan(q, &[s1, s2]);
        assert!(
            matches!(m, Move::NextStep { .. } | Move::Complete { .. }),
            "{m:?}"
        );
    }

    #[test]
    fn a_failed_step_is_retried_once_reworded() {
        let q = "Were Scott Derrickson and Ed Wood of the same nationality?";
        let s1 = StepOutcome {
            kind: StepKind::Question,
            reason: "first step".into(),
            question: q.into(),
            completed: false,
            verified: vec![],
            verified_titles: vec![],
            near: vec![],
            titles: Vec::new(),
        };
        let m = replan(q, std::slice::from_ref(&s1));
        let Move::Retry { question } = m else {
            panic!("{m:?}")
        };
        let s2 = StepOutcome {
            kind: StepKind::Retry,
            reason: "retry".into(),
            question,
            completed: false,
            verified: vec![],
            verified_titles: vec![],
            near: vec![],
            titles: Vec::new(),
        };
        assert!(matches!(replan(q, &[s1, s2]), Move::Complete { .. }));
    }

    #[test]
    fn answer_choices_are_split_from_the_stem() {
        let (stem, c) =
            strip_choices("How long are records kept?\n(A) 5 years\n(B) 7 years\n(C) 10 years");
        assert_eq!(stem, "How long are records kept?");
        assert_eq!(c.len(), 3);
        assert_eq!(
            c[1],
            Choice {
                label: "B".into(),
                text: "7 years".into()
            }
        );
        let (stem, c) = strip_choices("Which applies?\nAnswer choices:\nA. seven\nB) ten");
        assert_eq!(stem, "Which applies?");
        assert_eq!(c.len(), 2);
        let (_, c) = strip_choices("A. plain question without a block");
        assert!(c.is_empty());
    }
}
