//! Rule fields (a period a regulation or policy sets): the cue nearest the period in its
//! sentence, suspensions and extensions, the deadline an act is set for, and what the
//! period is counted from.

use super::{find, names_word, sentence_around, Marker};
use crate::review::fields::values::Candidate;
use crate::review::fields::{Extraction, FieldSpec};

/// Phrases that, anywhere before a period in its sentence, make it how long a rule is put
/// off ("delay the notification … no longer than 30 days"), not the rule's own period.
const SUSPENSIONS: &[&str] = &[
    "suspend",
    "suspended",
    "suspension",
    "tolled",
    "temporarily",
    "delay the",
    "delay such",
    "delay notification",
];

/// Words that set a deadline right before its date ("by", "no later than").
const DEADLINE_WORDS: &[&str] = &["by", "before", "later than", "until", "due"];

/// Words at most between a deadline word and its date ("by 3:00PM Eastern Standard
/// Time, February 28, 2018").
const DEADLINE_GAP_WORDS: usize = 5;

/// Whether the date at `s` is the deadline of `act`: its sentence names every act word
/// before it (any form: "submitting" → "submitted"), and a deadline word stands at most
/// [`DEADLINE_GAP_WORDS`] words before it ("RFI responses are to be submitted … by
/// 3:00PM …, February 28, 2018").
pub(super) fn sets_deadline(quote: &str, s: usize, act: &[String]) -> bool {
    if act.is_empty() {
        return false;
    }
    let (from, _) = sentence_around(quote, s, s);
    let before = quote[from..s].to_lowercase();
    let words = crate::text::words(&before);
    let named = act.iter().all(|a| words.iter().any(|w| same_root(w, a)));
    let tail: Vec<&str> = before
        .split_whitespace()
        .rev()
        .take(DEADLINE_GAP_WORDS + 2)
        .collect();
    let tail: Vec<&str> = tail.into_iter().rev().collect();
    let set = DEADLINE_WORDS.iter().any(|d| {
        let d: Vec<&str> = d.split(' ').collect();
        tail.windows(d.len()).any(|w| {
            w.iter()
                .zip(&d)
                .all(|(x, y)| x.trim_matches(|c: char| !c.is_alphanumeric()) == *y)
        })
    });
    named && set
}

/// Whether the words of `phrase` are all forms of words of `act`.
pub(super) fn is_act(phrase: &str, act: &[String]) -> bool {
    let words = crate::text::words(phrase);
    !words.is_empty() && words.iter().all(|w| act.iter().any(|a| same_root(w, a)))
}

/// Whether two words are forms of one ("submit", "submitted", "submitting"; "response",
/// "responses"): one is a prefix of the other, or they share five letters or more.
fn same_root(a: &str, b: &str) -> bool {
    let n = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    let shorter = a.chars().count().min(b.chars().count());
    (n == shorter && shorter >= 3) || n >= 5
}

/// Keep the periods a rule field's cue introduces: the nearest cue in the value's sentence,
/// before or after it ("not later than 60 days after the end of each calendar year,
/// provide the notification"). A comparator states the rule here, so none is a limit; the
/// sentence must be of the kind asked (an extension or the deadline itself) and name the
/// requirement's subject.
pub(super) fn ruled(
    spec: &FieldSpec,
    quote: &str,
    markers: &[Marker],
    cands: Vec<Candidate>,
    x: &mut Extraction,
) {
    for c in cands {
        let (from, to) = sentence_around(quote, c.start, c.end);
        let nearest = markers
            .iter()
            .filter(|m| m.start >= from && m.end <= to)
            .filter(|m| m.end <= c.start || m.start >= c.end)
            // A distractor after the value counts only right after it ("six years prior to").
            .filter(|m| {
                !m.fields.is_empty()
                    || m.end <= c.start
                    || quote[c.end..m.start].chars().all(char::is_whitespace)
            })
            .min_by_key(|m| {
                if m.end <= c.start {
                    c.start - m.end
                } else {
                    m.start - c.end
                }
            });
        if !nearest.is_some_and(|m| m.fields.contains(&spec.name)) {
            continue;
        }
        let lower = quote[from..to].to_ascii_lowercase();
        let lead = &lower[..c.start - from];
        if SUSPENSIONS.iter().any(|w| !find(lead, w).is_empty()) {
            continue;
        }
        let extends = ["extend", "extended", "extension"]
            .iter()
            .any(|w| !find(lead, w).is_empty());
        if spec.extension.is_some_and(|want| want != extends) {
            continue;
        }
        if !spec.subject.is_empty() && !spec.subject.iter().any(|w| names_word(&lower, w)) {
            continue;
        }
        let event = event_words(quote, c.end);
        let event_text = event.join(" ");
        if !spec.event.is_empty()
            && !event.is_empty()
            && !spec.event.iter().any(|w| names_word(&event_text, w))
        {
            continue;
        }
        x.take(quote, c);
    }
}

/// Words that open what a period is counted from ("60 days after discovery").
const EVENT_WORDS: &[&str] = &["after", "of", "from", "following", "since"];

/// Words of an event phrase that name no event.
const EVENT_STOP: &[&str] = &[
    "the", "a", "an", "such", "its", "their", "this", "that", "each", "any",
];

/// What the period ending at `end` is counted from: the content words after "after",
/// "of", "from", "following" or "since" right after it, up to punctuation or eight words
/// ("60 days after the end of each calendar year" → end, calendar, year). Empty when no
/// such word follows.
pub(crate) fn event_words(text: &str, end: usize) -> Vec<String> {
    let rest = text[end..].trim_start();
    let clause = rest
        .split([',', ';', '.', ':', '(', ')'])
        .next()
        .unwrap_or("");
    let words: Vec<String> = clause
        .split_whitespace()
        .take(9)
        .map(|w| w.to_lowercase())
        .collect();
    if !words
        .first()
        .is_some_and(|w| EVENT_WORDS.contains(&w.as_str()))
    {
        return Vec::new();
    }
    words[1..]
        .iter()
        .filter(|w| w.len() >= 3 && !EVENT_STOP.contains(&w.as_str()))
        .filter(|w| !EVENT_WORDS.contains(&w.as_str()))
        .cloned()
        .collect()
}
