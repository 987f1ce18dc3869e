//! Which end of a range a date is: the words right before it, else its place among the
//! dates a range cue introduces.

use crate::review::fields::Position;

/// Whether the date at `s` (the `i`-th of `n` dates a range cue introduces) is the range's
/// start or end as asked: a word right before it decides ("from", "until"), else the
/// first of two is the start and the second the end.
pub(super) fn at_position(p: Position, quote: &str, s: usize, i: usize, n: usize) -> bool {
    let lower = quote[..s].to_ascii_lowercase();
    let before = lower.trim_end().trim_end_matches([':', ',', '|', ' ', '.']);
    let words: Vec<&str> = before
        .rsplit(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(2)
        .collect();
    let last = words.first().copied().unwrap_or("");
    let pair = words.iter().rev().copied().collect::<Vec<_>>().join(" ");
    let dash = before.ends_with(['–', '-']) && !last.is_empty();
    let is_start = START_WORDS.contains(&last) || START_PAIRS.contains(&pair.as_str());
    let is_end = dash || END_WORDS.contains(&last) || END_PAIRS.contains(&pair.as_str());
    match p {
        Position::RangeStart if is_start => true,
        Position::RangeEnd if is_end => true,
        _ if is_start || is_end => false,
        Position::RangeStart => n == 2 && i == 0,
        Position::RangeEnd => n == 2 && i == 1,
        Position::Any => true,
    }
}

/// A word right before a date that makes it a range's start.
const START_WORDS: &[&str] = &[
    "from",
    "start",
    "starts",
    "starting",
    "started",
    "begin",
    "begins",
    "beginning",
    "began",
    "commence",
    "commences",
    "commencing",
    "commenced",
];

/// Two words right before a date that make it a range's start.
const START_PAIRS: &[&str] = &[
    "first day",
    "start date",
    "starting date",
    "commencement date",
    "effective date",
    "starts on",
    "begins on",
    "commences on",
    "started on",
    "began on",
];

/// A word right before a date that makes it a range's end.
const END_WORDS: &[&str] = &[
    "to", "until", "till", "through", "end", "ends", "ending", "ended", "expire", "expires",
    "expiring", "expiry",
];

/// Two words right before a date that make it a range's end.
const END_PAIRS: &[&str] = &[
    "last day",
    "end date",
    "ending date",
    "expiry date",
    "ends on",
    "expires on",
    "ending on",
    "ended on",
    "closing date",
];
