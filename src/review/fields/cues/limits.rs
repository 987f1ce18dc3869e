//! Numbers stated as a limit, a condition, a change or under a limit column, not as the
//! field's value.

use super::label::cell_header;
use super::{find, is_word};
use crate::lexicon::{self, Class};

/// Words before a number that make it a limit, not the stated value, besides the
/// lexicon's bound phrases ([`BOUNDS`]).
const COMPARATORS: &[&str] = &[
    ">",
    "<",
    "≥",
    "≤",
    "=>",
    "exceeds",
    "exceed",
    "exceeding",
    "above",
    "below",
    "under",
    "over",
    "maximum of",
    "minimum of",
    "max.",
    "min.",
    "threshold of",
    "limit of",
    "cap of",
    "beyond",
    "lower than",
    "higher than",
    "within",
];

/// The lexicon's classes of phrases that bound the figure after them.
const BOUNDS: &[Class] = &[
    Class::BoundMin,
    Class::BoundMax,
    Class::BoundMore,
    Class::BoundLess,
];

/// Every phrase before a number that makes it a limit: the lexicon's bound phrases and
/// [`COMPARATORS`].
fn comparators() -> impl Iterator<Item = &'static str> {
    BOUNDS
        .iter()
        .flat_map(|c| lexicon::words(*c).iter().copied())
        .chain(COMPARATORS.iter().copied())
}

/// Words after a number that make it a limit.
const TRAILING_COMPARATORS: &[&str] = &[
    "or more",
    "or less",
    "or higher",
    "or lower",
    "or above",
    "or below",
    "threshold",
    "cap",
    "limit",
    "or greater",
    "+",
];

/// Whether the number at `[s, e)` is stated as a limit or condition.
pub(super) fn threshold(quote: &str, s: usize, e: usize) -> bool {
    let lower = quote.to_ascii_lowercase();
    let mut before = lower[..s].trim_end();
    for det in [" the", " a", " an", " of"] {
        before = before.strip_suffix(det).unwrap_or(before).trim_end();
    }
    let after = lower[e..].trim_start();
    let tail = &before[before.len().saturating_sub(30)..];
    let between = before.ends_with("between")
        || (before.ends_with(" and")
            && tail.contains("between")
            && tail.bytes().any(|b| b.is_ascii_digit()));
    between
        || comparators().any(|c| {
            before.ends_with(c)
                && (c.starts_with(['>', '<', '≥', '≤', '='])
                    || before.len() == c.len()
                    || !is_word(before.as_bytes()[before.len() - c.len() - 1]))
        })
        || TRAILING_COMPARATORS.iter().any(|c| after.starts_with(c))
}

/// Words that make a cue name a limit ("a minimum buffer contribution of 10%"), besides
/// the lexicon's bound phrases and limit words ([`LIMIT_CLASSES`]).
const LIMIT_WORDS: &[&str] = &[
    "min",
    "max",
    "threshold",
    "floor",
    "required",
    "requirement",
];

/// The lexicon's classes of words that make a cue name a limit.
const LIMIT_CLASSES: &[Class] = &[Class::LimitWord, Class::BoundMin, Class::BoundMax];

/// Every word or phrase that makes a cue name a limit.
fn limit_words() -> impl Iterator<Item = &'static str> {
    LIMIT_CLASSES
        .iter()
        .flat_map(|c| lexicon::words(*c).iter().copied())
        .chain(LIMIT_WORDS.iter().copied())
}

/// Words that make a statement a rule, not the project's value.
const RULE_WORDS: &[&str] = &[
    "shall",
    "must",
    "should",
    "require",
    "requires",
    "required",
    "rules",
    "eligible",
    "eligibility",
    "may",
    "can",
    "could",
];

/// The first of [`RULE_WORDS`] also count before the cue in the sentence ("may" and "can"
/// do not: "In May 2021 …").
const RULE_LEAD_WORDS: usize = 9;

/// Whether a limit word stands in the two words before the cue at `cue` or between the
/// cue and the value at `value`.
pub(super) fn limit_around(quote: &str, cue: usize, value: usize) -> bool {
    let lower = quote.to_ascii_lowercase();
    let before: Vec<&str> = lower[..cue].split_whitespace().rev().take(2).collect();
    let between = &lower[cue.min(value)..cue.max(value)];
    // A rule: a modal or "require" between the cue and the value, or anywhere before the
    // value in its sentence ("projects above 40% must deposit 20% …").
    let sentence_start = lower[..value].rfind(". ").map_or(0, |i| i + 2);
    let lead = &lower[sentence_start.min(value)..value];
    let modal = RULE_WORDS.iter().any(|w| !find(between, w).is_empty())
        || RULE_WORDS[..RULE_LEAD_WORDS]
            .iter()
            .any(|w| !find(lead, w).is_empty());
    modal
        || limit_words().any(|w| {
            before
                .iter()
                .any(|b| b.trim_matches(|c: char| !c.is_alphanumeric()) == w)
                || !find(between, w).is_empty()
        })
}

/// Whether the percentage at `s` is a change ("falls by 38%", "up from 4%"), not a level.
pub(super) fn change_amount(quote: &str, s: usize) -> bool {
    let w = quote[..s]
        .split_whitespace()
        .next_back()
        .unwrap_or("")
        .to_ascii_lowercase();
    matches!(w.as_str(), "by" | "from")
}

/// Column headers that hold something other than the project's value.
const OTHER_COLUMNS: &[&str] = &[
    "maximum",
    "minimum",
    "max",
    "min",
    "limit",
    "threshold",
    "required",
    "requirement",
    "registry",
    "standard",
    "planned",
    "plan",
    "previous",
    "original",
    "target",
    "baseline",
    "default",
    "benchmark",
    "cap",
];

/// Whether the cell holding `s` sits under a header naming a limit, plan or baseline
/// ("Registry maximum", "Planned").
pub(super) fn under_limit_header(quote: &str, context: Option<&str>, s: usize) -> bool {
    let Some(ctx) = context.filter(|c| c.contains('|') && quote.contains('|')) else {
        return false;
    };
    cell_header(quote, ctx, s).is_some_and(|h| {
        let h = h.to_ascii_lowercase();
        OTHER_COLUMNS.iter().any(|w| !find(&h, w).is_empty())
    })
}
