//! Tenure (`lease`, `ownership`, `other`): the tenure word a cue introduces, or a lease
//! phrase no negation opens.

use super::{find, value_starts, Marker};
use crate::review::fields::values::Candidate;
use crate::review::fields::{Extraction, FieldSpec, Value};

/// Phrases that state a lease as the way the land is held: "under a registered lease",
/// "leased to", "leasehold".
static LEASED: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"(?i)\b(?:under|by way of|through|holds?|held)\s+(?:an?|the|its)\s+(?:[\w-]+\s+){0,3}?(lease)\b|\b(leased)\s+(?:to|from|by)\b|\b(leasehold)\b")
        .expect("static pattern")
});

/// Whether one of the `n` words before `at` negates what follows ("not", "no", "never").
fn negated(quote: &str, at: usize, n: usize) -> bool {
    quote[..at].split_whitespace().rev().take(n).any(|w| {
        let w = w.to_ascii_lowercase();
        matches!(
            w.trim_matches(|c: char| !c.is_alphanumeric()),
            "not" | "no" | "never" | "nor" | "without"
        )
    })
}

/// Lease phrases in `quote` that no negation opens ("not under a lease").
fn lease_phrases(quote: &str) -> Vec<(usize, usize)> {
    LEASED
        .captures_iter(quote)
        .filter(|c| !negated(quote, c.get(0).map_or(0, |m| m.start()), 3))
        .filter_map(|c| {
            c.get(1)
                .or(c.get(2))
                .or(c.get(3))
                .map(|g| (g.start(), g.end()))
        })
        .collect()
}

/// The tenure a cue introduces: the first tenure word within a few words after it
/// (`Tenure: Leasehold`, `held under a 30-year lease`), or a cell under a tenure header.
pub fn tenure(
    spec: &FieldSpec,
    quote: &str,
    markers: &[Marker],
    context: Option<&str>,
    x: &mut Extraction,
) {
    let starts = value_starts(spec, quote, markers, context, false);
    let mut hits: Vec<(usize, usize, &str)> = Vec::new();
    for at in starts {
        let lower = quote[at..].to_ascii_lowercase();
        let window: usize = lower
            .split_inclusive(char::is_whitespace)
            .take(TENURE_WINDOW_WORDS)
            .map(str::len)
            .sum();
        let head = &lower[..window];
        let first = TENURE_CLASSES
            .iter()
            .flat_map(|(class, words)| {
                words
                    .iter()
                    .flat_map(move |w| find(head, w).into_iter().map(move |(s, e)| (s, e, *class)))
            })
            .min_by_key(|(s, e, _)| (*s, usize::MAX - e));
        hits.extend(first.map(|(s, e, class)| (at + s, at + e, class)));
    }
    if hits.is_empty() {
        hits.extend(
            lease_phrases(quote)
                .into_iter()
                .map(|(s, e)| (s, e, "lease")),
        );
    }
    for (start, end, class) in hits.into_iter().filter(|h| !negated(quote, h.0, 5)) {
        let value = Ok(Value::Text(class.into()));
        x.take(
            quote,
            Candidate {
                start,
                end,
                value,
                unit: None,
            },
        );
    }
}

/// The tenure class a word or phrase states on its own (`Leasehold` → `lease`).
pub fn tenure_class(text: &str) -> Option<&'static str> {
    let t = text.trim().to_ascii_lowercase();
    TENURE_CLASSES
        .iter()
        .find(|(_, words)| words.contains(&t.as_str()))
        .map(|(class, _)| *class)
}

/// Words after a tenure cue in which the tenure word must stand.
const TENURE_WINDOW_WORDS: usize = 8;

/// Tenure classes and the words that state each.
const TENURE_CLASSES: [(&str, &[&str]); 3] = [
    (
        "lease",
        &["leasehold", "lease", "leased", "tenancy", "rental"],
    ),
    (
        "ownership",
        &[
            "freehold",
            "ownership",
            "owned",
            "fee simple",
            "private property",
            "title deed",
        ],
    ),
    (
        "other",
        &[
            "concession",
            "usufruct",
            "easement",
            "customary",
            "communal",
            "community land",
            "conservation agreement",
        ],
    ),
];
