//! Claim checks that need no model: does a sentence state a figure, or a polarity, that
//! the texts it cites do not? A sentence that passes the support check on wording alone
//! ("Client records must be retained for **one** year" against "… for seven years")
//! still fails here.
//!
//! * **Figures.** Every figure the sentence states must be stated by a cited text,
//!   compared as values: a number with its unit (`seven (7) years` = `7 years`, see
//!   [`figures`]) and every bare number written in digits (dates, amounts, section
//!   numbers: `31/12/2030` states 31, 12 and 2030).
//! * **Polarity.** The sentence and the cited sentence that shares most of its content
//!   words must agree on negation (`not`, `no`, `never`, `cannot`, `-n't`, `nor`,
//!   `neither`, `none`, `nothing`, `without`, `except`).

use std::collections::HashSet;

use crate::corpus::segment::sentences;
use crate::text::content_words;
use crate::text::words;
use crate::text::{figures, number_word_value};

/// Words that negate what a sentence states.
const NEGATIONS: &[&str] = &[
    "not", "no", "never", "cannot", "nor", "neither", "none", "nothing", "nobody", "without",
    "except",
];

/// How a claim contradicts what it cites.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Contradiction {
    /// It states a figure no cited text states.
    FigureNotInEvidence,
    /// Its negation differs from the cited sentence closest to it.
    PolarityMismatch,
}

impl Contradiction {
    /// The violation it is.
    pub fn kind(self) -> crate::evidence::gate::ViolationKind {
        use crate::evidence::gate::ViolationKind;
        match self {
            Contradiction::FigureNotInEvidence => ViolationKind::FigureNotInEvidence,
            Contradiction::PolarityMismatch => ViolationKind::PolarityMismatch,
        }
    }
}

/// Whether `text` carries a negation.
pub fn negated(text: &str) -> bool {
    let lower = text.to_lowercase();
    lower.contains("n't")
        || lower.contains("n\u{2019}t")
        || words(&lower)
            .iter()
            .any(|w| NEGATIONS.contains(&w.as_str()))
}

/// Bare numbers in `text`: digit runs (thousands separators dropped, leading zeros kept
/// apart from the value) and, for sources, number words.
fn numbers(text: &str, with_words: bool) -> HashSet<String> {
    let cleaned: String = text
        .char_indices()
        .filter(|&(i, c)| !(c == ',' && is_thousands_comma(text, i)))
        .map(|(_, c)| c)
        .collect();
    words(&cleaned)
        .into_iter()
        .filter_map(|w| {
            if w.chars().all(|c| c.is_ascii_digit()) {
                let v = w.trim_start_matches('0');
                Some(if v.is_empty() {
                    "0".into()
                } else {
                    v.to_string()
                })
            } else if with_words {
                number_word_value(&w).map(str::to_string)
            } else {
                None
            }
        })
        .collect()
}

fn is_thousands_comma(text: &str, i: usize) -> bool {
    let b = text.as_bytes();
    i > 0
        && b[i - 1].is_ascii_digit()
        && b.len() > i + 3
        && b[i + 1..i + 4].iter().all(u8::is_ascii_digit)
        && b.get(i + 4).is_none_or(|c| !c.is_ascii_digit())
}

/// The first figure of `claim` that no text of `sources` states, if any.
pub fn missing_figure(claim: &str, sources: &[&str]) -> Option<String> {
    let have: HashSet<String> = sources.iter().flat_map(|s| figures(s)).collect();
    if let Some(f) = figures(claim).into_iter().find(|f| !have.contains(f)) {
        return Some(f);
    }
    let have: HashSet<String> = sources.iter().flat_map(|s| numbers(s, true)).collect();
    let mut mine: Vec<String> = numbers(claim, false).into_iter().collect();
    mine.sort();
    mine.into_iter().find(|n| !have.contains(n))
}

/// Whether `claim`'s negation agrees with the cited sentence(s) sharing most of its
/// content words (any of them when several tie).
pub fn polarity_agrees(claim: &str, sources: &[&str]) -> bool {
    let mine: HashSet<String> = content_words(claim).into_iter().collect();
    let neg = negated(claim);
    let mut best = 0usize;
    let mut agree = false;
    for src in sources {
        for s in sentences(src) {
            let sent = s.slice(src);
            let shared = content_words(sent)
                .into_iter()
                .collect::<HashSet<_>>()
                .intersection(&mine)
                .count();
            if shared > best {
                best = shared;
                agree = negated(sent) == neg;
            } else if shared == best && shared > 0 {
                agree |= negated(sent) == neg;
            }
        }
    }
    // Nothing shared: no cited sentence to compare with (the support check decides).
    best == 0 || agree
}

/// How `claim` contradicts `sources`, with an explanation; `None` when it states no
/// figure they do not and agrees with them on negation.
pub fn contradiction(claim: &str, sources: &[&str]) -> Option<(Contradiction, String)> {
    if let Some(f) = missing_figure(claim, sources) {
        return Some((
            Contradiction::FigureNotInEvidence,
            format!("states \"{f}\", which no cited text states"),
        ));
    }
    if !polarity_agrees(claim, sources) {
        let (c, s) = if negated(claim) {
            ("negates", "does not")
        } else {
            ("does not negate", "does")
        };
        return Some((
            Contradiction::PolarityMismatch,
            format!("the sentence {c} what it states, but the cited text closest to it {s}"),
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const E1: &str =
        "Client records must be retained for seven years after the last date of service.";

    #[test]
    fn a_different_figure_or_a_new_number_contradicts() {
        let bad = "Client records must be retained for one year after the last date of service";
        assert_eq!(
            contradiction(bad, &[E1]).map(|c| c.0),
            Some(Contradiction::FigureNotInEvidence)
        );
        for ok in [
            "Client records must be retained for 7 years after the last date of service",
            "Client records must be retained for seven (7) years",
        ] {
            assert_eq!(contradiction(ok, &[E1]), None, "{ok}");
        }
        assert_eq!(
            missing_figure(
                "Records are kept until 31/12/2030",
                &["kept until 31/12/2031"]
            ),
            Some("2030".into())
        );
        assert_eq!(
            missing_figure("A fee of $1,500 applies", &["A fee of $1500 applies."]),
            None
        );
        assert_eq!(
            missing_figure("Leakage is 10%", &["Leakage is 15%."]),
            Some("10 percent".into())
        );
    }

    #[test]
    fn a_flipped_negation_contradicts() {
        let neg = "Client records must not be retained after the last date of service";
        assert_eq!(
            contradiction(neg, &[E1]).map(|c| c.0),
            Some(Contradiction::PolarityMismatch)
        );
        let src = "Counties may not disclose client records without written consent.";
        assert!(polarity_agrees(
            "Counties may not disclose client records",
            &[src]
        ));
        assert!(!polarity_agrees(
            "Counties may disclose client records",
            &[src]
        ));
        assert!(!polarity_agrees(
            "Counties can't keep client records",
            &["Counties can keep client records."]
        ));
        assert!(negated("No county may disclose records."));
        assert!(!negated("Notice is given to the county."));
    }
}
