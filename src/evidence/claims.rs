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
//!   `neither`, `none`, `nothing`, `without`, `except`). A bound is no negation: `not later
//!   than 10 days` states what `within 10 days` states, `not less than seven (7) years`
//!   what `at least 7 years` states ([`BOUND_PHRASES`] are read past).
//! * **Bounds.** A figure stated as a floor where every cited text stating it has it as a
//!   ceiling, or the reverse (`not more than 7 years` against `not less than 7 years`),
//!   contradicts.

use std::collections::HashSet;

use crate::corpus::segment::sentences;
use crate::figure::{figures_of, number_values, Bound, Figure};
use crate::text::content_words;
use crate::text::figures;
use crate::text::words;

/// Words that negate what a sentence states.
const NEGATIONS: &[&str] = &[
    "not", "no", "never", "cannot", "nor", "neither", "none", "nothing", "nobody", "without",
    "except",
];

/// Phrases that bound a figure rather than negate a statement (lower case, by words).
pub const BOUND_PHRASES: &[&[&str]] = &[
    &["not", "later", "than"],
    &["no", "later", "than"],
    &["not", "earlier", "than"],
    &["no", "earlier", "than"],
    &["not", "sooner", "than"],
    &["no", "sooner", "than"],
    &["not", "less", "than"],
    &["no", "less", "than"],
    &["not", "more", "than"],
    &["no", "more", "than"],
    &["not", "fewer", "than"],
    &["no", "fewer", "than"],
    &["not", "greater", "than"],
    &["no", "greater", "than"],
    &["not", "longer", "than"],
    &["no", "longer", "than"],
    &["not", "shorter", "than"],
    &["no", "shorter", "than"],
    &["not", "to", "exceed"],
    &["not", "exceeding"],
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

/// Whether `text` carries a negation; the `not` / `no` of a bound ([`BOUND_PHRASES`])
/// is none.
pub fn negated(text: &str) -> bool {
    let lower = text.to_lowercase();
    if lower.contains("n't") || lower.contains("n\u{2019}t") {
        return true;
    }
    let ws = words(&lower);
    let mut i = 0;
    while i < ws.len() {
        let bound = BOUND_PHRASES.iter().find(|p| {
            ws.get(i..i + p.len())
                .is_some_and(|w| w.iter().zip(p.iter()).all(|(a, b)| a == b))
        });
        if let Some(p) = bound {
            i += p.len();
            continue;
        }
        if NEGATIONS.contains(&ws[i].as_str()) {
            return true;
        }
        i += 1;
    }
    false
}

/// A figure `claim` states as a floor where every cited text that states it has it as a
/// ceiling, or the reverse: its key and the two bounds.
pub fn flipped_bound(claim: &str, sources: &[&str]) -> Option<(String, Bound, Bound)> {
    let cited: Vec<Figure> = sources.iter().flat_map(|s| figures_of(s)).collect();
    figures_of(claim).into_iter().find_map(|f| {
        let opposite = match f.bound {
            Bound::Min => Bound::Max,
            Bound::Max => Bound::Min,
            Bound::Exact => return None,
        };
        let same: Vec<Bound> = cited
            .iter()
            .filter(|c| c.key() == f.key())
            .map(|c| c.bound)
            .collect();
        let flipped = same.contains(&opposite) && !same.contains(&f.bound);
        flipped.then(|| (f.key(), f.bound, opposite))
    })
}

/// `at least` / `at most` / `exactly`, as a bound is explained.
fn bound_word(b: Bound) -> &'static str {
    match b {
        Bound::Min => "a floor (at least)",
        Bound::Max => "a ceiling (at most)",
        Bound::Exact => "exact",
    }
}

/// The first figure of `claim` that no text of `sources` states, if any: figures with
/// their units first, then every number written in digits (against the sources' numbers
/// in digits or words), all read as values (`$5,000` is 5000 dollars, `12.5%` is one
/// figure, full-width digits are digits).
pub fn missing_figure(claim: &str, sources: &[&str]) -> Option<String> {
    let have: HashSet<String> = sources.iter().flat_map(|s| figures(s)).collect();
    if let Some(f) = figures(claim).into_iter().find(|f| !have.contains(f)) {
        return Some(f);
    }
    let have: HashSet<String> = sources
        .iter()
        .flat_map(|s| number_values(s, true))
        .collect();
    number_values(claim, false)
        .into_iter()
        .find(|n| !have.contains(n))
}

/// Clauses of a claim, each stating its own figures: cut at `;`, `,` and the words that
/// join two statements (`and`, `while`, `whereas`, `but`).
fn clauses(claim: &str) -> Vec<&str> {
    let lower = claim.to_ascii_lowercase();
    let bytes = lower.as_bytes();
    // (start of the cut, its length)
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let joiner = [" and ", " while ", " whereas ", " but "]
            .iter()
            .find(|w| bytes[i..].starts_with(w.as_bytes()));
        if let Some(w) = joiner {
            cuts.push((i, w.len()));
            i += w.len();
            continue;
        }
        if matches!(bytes[i], b';' | b',') && !is_digit_comma(bytes, i) {
            cuts.push((i, 1));
        }
        i += 1;
    }
    let mut out = Vec::new();
    let mut start = 0;
    for (at, len) in cuts.into_iter().chain([(claim.len(), 0)]) {
        if at > start {
            out.push(&claim[start..at]);
        }
        start = at + len;
    }
    out
}

fn is_digit_comma(b: &[u8], i: usize) -> bool {
    i > 0 && b[i - 1].is_ascii_digit() && b.get(i + 1).is_some_and(u8::is_ascii_digit)
}

/// A figure of `claim` that the cited texts state only about another subject: in its
/// clause, the cited sentence sharing most content words with the clause does not state
/// it, while only sentences sharing fewer do (two figures swapped between two cited
/// items: "client records 10 years and billing records 7 years").
pub fn misattributed_figure(claim: &str, sources: &[&str]) -> Option<String> {
    let sents: Vec<(HashSet<String>, Vec<String>)> = sources
        .iter()
        .flat_map(|src| sentences(src).into_iter().map(move |s| s.slice(src)))
        .map(|s| (subject_words(s), figures(s)))
        .collect();
    if sents.len() < 2 {
        return None;
    }
    for clause in clauses(claim) {
        let mine = subject_words(clause);
        if mine.is_empty() {
            continue;
        }
        let shared = |w: &HashSet<String>| w.intersection(&mine).count();
        let best = sents.iter().map(|(w, _)| shared(w)).max().unwrap_or(0);
        for f in figures(clause) {
            let stating: Vec<usize> = sents
                .iter()
                .filter(|(_, fs)| fs.contains(&f))
                .map(|(w, _)| shared(w))
                .collect();
            if best >= 2 && !stating.is_empty() && stating.iter().all(|n| *n < best) {
                return Some(f);
            }
        }
    }
    None
}

/// Content words of `text` that are neither numbers nor units.
fn subject_words(text: &str) -> HashSet<String> {
    content_words(text)
        .into_iter()
        .filter(|w| {
            !w.chars().all(|c| c.is_ascii_digit())
                && crate::figure::word_value(w).is_none()
                && !crate::figure::UNITS.contains(&w.trim_end_matches('s'))
        })
        .collect()
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
    if let Some(f) = misattributed_figure(claim, sources) {
        return Some((
            Contradiction::FigureNotInEvidence,
            format!("states \"{f}\" of a subject the cited text that states it is not about"),
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
    if let Some((f, mine, theirs)) = flipped_bound(claim, sources) {
        return Some((
            Contradiction::PolarityMismatch,
            format!(
                "states \"{f}\" as {}, but the cited text states it as {}",
                bound_word(mine),
                bound_word(theirs)
            ),
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

    #[test]
    fn bounds_are_not_negations_but_a_flipped_bound_contradicts() {
        let src = "The notice shall be given not later than 10 days after the breach.";
        assert!(!negated(src));
        assert_eq!(
            contradiction(
                "The notice shall be given within 10 days after the breach",
                &[src]
            ),
            None
        );
        let keep = "Records shall be kept for not less than seven (7) years.";
        for ok in [
            "Records shall be kept for at least 7 years",
            "Records shall be kept for no fewer than 7 years",
        ] {
            assert_eq!(contradiction(ok, &[keep]), None, "{ok}");
        }
        let flip = contradiction("Records shall be kept for not more than 7 years", &[keep]);
        assert_eq!(flip.map(|c| c.0), Some(Contradiction::PolarityMismatch));
        assert_eq!(
            flipped_bound("kept for at most 7 years", &[keep]),
            Some(("7 year".into(), Bound::Max, Bound::Min))
        );
        assert_eq!(flipped_bound("kept for 7 years", &[keep]), None);
        let secret = "The county shall not disclose client records to any employer.";
        assert_eq!(
            contradiction(
                "The county shall disclose client records to any employer",
                &[secret]
            )
            .map(|c| c.0),
            Some(Contradiction::PolarityMismatch)
        );
        assert!(negated("Records are not kept, no later than ever."));
        assert!(negated("It shall not, no later than 5 days, be sent."));
        assert!(!negated(
            "Fees not to exceed $50 and not exceeding 5 visits."
        ));
    }

    #[test]
    fn figures_swapped_between_cited_items_contradict() {
        let client = "Client records must be retained for 7 years.";
        let billing = "Billing records must be retained for 10 years.";
        let swapped =
            "Client records must be retained for 10 years and billing records for 7 years";
        assert_eq!(
            misattributed_figure(swapped, &[client, billing]),
            Some("10 year".into())
        );
        let right = "Client records must be retained for 7 years and billing records for 10 years";
        assert_eq!(misattributed_figure(right, &[client, billing]), None);
        // A clause too thin to bind a figure is left to the other checks.
        let act = "A county program shall retain each client record for not less than 7 years.";
        let bulletin = "The bulletin requires a retention period of 10 years.";
        assert_eq!(
            misattributed_figure(
                "The Act requires 7 years, the bulletin 10 years",
                &[act, bulletin]
            ),
            None
        );
        assert_eq!(
            missing_figure(
                "The rate is 5% this year",
                &["The rate is 12.5% this year."]
            ),
            Some("5 percent".into())
        );
        assert_eq!(
            missing_figure(
                "adopted in \u{ff12}\u{ff10}\u{ff12}\u{ff13}",
                &["adopted in 2022"]
            ),
            Some("2023".into())
        );
    }
}
