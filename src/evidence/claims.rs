//! Claim checks that need no model: does a sentence state a figure, a date, or a polarity,
//! that the texts it cites do not? A sentence that passes the support check on wording
//! alone ("Client records must be retained for **one** year" against "… for seven
//! years") still fails here.
//!
//! * **Figures.** Every figure the sentence states must be stated by a cited text,
//!   compared as values: a number with its unit (`seven (7) years` = `7 years`, see
//!   [`crate::figure`]) and every bare number written in digits (amounts, section numbers).
//!   Each cited text is read in its own number format, the sentence in its own or, where
//!   its numbers show none, in the one its cited texts agree on
//!   ([`crate::figure::NumberFormat`]): `EUR 1.000,50` is `EUR 1,000.50`, not `EUR 1`;
//!   a number left ambiguous equals only one written as ambiguously.
//! * **Dates.** Every date the sentence names is named by a cited text, compared as a
//!   date: a day (`28 March 2025` = `2025-03-28`), a month of a year, a month alone, or
//!   a numeric date left ambiguous (as written). Numeric dates are read in the order each
//!   text shows ([`parse::infer_order`]); the sentence's digits inside its dates are
//!   checked as dates, not as bare numbers.
//! * **Polarity.** The sentence and the cited sentence that shares most of its content
//!   words must agree on negation (`not`, `no`, `never`, `cannot`, `-n't`, `nor`,
//!   `neither`, `none`, `nothing`, `without`, `except`, and a denial frame: `it is false
//!   that`, `denies that`). A bound is no negation: `not later than 10 days` states what
//!   `within 10 days` states, `not less than seven (7) years` what `at least 7 years`
//!   states ([`BOUND_PHRASES`] are read past).
//! * **Bounds.** A figure stated as a floor where every cited text stating it has it as a
//!   ceiling, or the reverse (`not more than 7 years` against `not less than 7 years`),
//!   contradicts.
//! * **Parts.** A part of a quote is verbatim ([`faithful_part`]) only if it keeps the
//!   negation that governs it: a part that drops a negation, a negative determiner or a
//!   denial frame of its own clause (`share your password` of `Never share your
//!   password`, `provider may charge` of `No provider may charge`, `clients must pay` of
//!   `It is not true that clients must pay`, `Providers may charge` of `Providers may
//!   charge no fee`) flips its polarity.

use crate::lexicon::{self, Class};
use std::collections::HashSet;

use crate::corpus::segment::sentences;
use crate::figure::{
    figure_keys, figure_keys_in, figures_in, normalise, number_values, numbers_in, Bound, Figure,
    NumberFormat,
};
use crate::text::content_words;
use crate::text::words;
use crate::value::{parse, DateOrder, RejectReason, Value};

/// Words that negate what a sentence states.
const NEGATIONS: &[&str] = &[
    "not", "no", "never", "cannot", "nor", "neither", "none", "nothing", "nobody", "without",
    "except",
];

/// Words that deny the clause `that` opens after them (`it is false that …`).
const DENIALS: &[&str] = &[
    "false",
    "untrue",
    "incorrect",
    "myth",
    "deny",
    "denies",
    "denied",
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
    negation_in(text, NEGATIONS)
}

/// Whether `text` carries one of `negations`, an `n't`, or a denial frame (`false
/// that`), bounds read past.
fn negation_in(text: &str, negations: &[&str]) -> bool {
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
        let denial =
            DENIALS.contains(&ws[i].as_str()) && ws.get(i + 1).is_some_and(|w| w == "that");
        if denial || negations.contains(&ws[i].as_str()) {
            return true;
        }
        i += 1;
    }
    false
}

/// The number format `claim` is read in: the one its own numbers show, else the one the
/// formats shown by `sources` agree on, else none.
pub fn claim_format(claim: &str, sources: &[&str]) -> NumberFormat {
    let shown: HashSet<NumberFormat> = sources
        .iter()
        .map(|s| NumberFormat::of(s))
        .filter(|f| *f != NumberFormat::Unknown)
        .collect();
    let agreed = match shown.len() {
        1 => shown.into_iter().next().unwrap_or(NumberFormat::Unknown),
        _ => NumberFormat::Unknown,
    };
    NumberFormat::of(claim).or(agreed)
}

/// A figure `claim` states as a floor where every cited text that states it has it as a
/// ceiling, or the reverse: its key and the two bounds.
pub fn flipped_bound(claim: &str, sources: &[&str]) -> Option<(String, Bound, Bound)> {
    let cited: Vec<Figure> = sources
        .iter()
        .flat_map(|s| crate::figure::figures_of(s))
        .collect();
    let fmt = claim_format(claim, sources);
    figures_in(claim, fmt).into_iter().find_map(|f| {
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
/// their units first, then dates, then every number written in digits outside its dates
/// (against the sources' numbers in digits or words), all read as values in each text's
/// number format (`$5,000` is 5000 dollars, `EUR 1.000,50` is 1000.5 euros, `12.5%` is
/// one figure, full-width digits are digits).
pub fn missing_figure(claim: &str, sources: &[&str]) -> Option<String> {
    let fmt = claim_format(claim, sources);
    let claim = normalise(claim);
    let have: HashSet<String> = sources.iter().flat_map(|s| figure_keys(s)).collect();
    let keys = figure_keys_in(&claim, fmt);
    if let Some(f) = keys.into_iter().find(|f| !have.contains(f)) {
        return Some(f);
    }
    let dated = dates_of(&claim, sources_order(sources));
    if let Some(d) = missing_date(&claim, &dated, sources) {
        return Some(d);
    }
    let have: HashSet<String> = sources
        .iter()
        .flat_map(|s| number_values(s, true))
        .collect();
    numbers_in(&claim, fmt)
        .into_iter()
        .filter(|n| !n.words && !dated.iter().any(|d| d.start <= n.start && n.end <= d.end))
        .map(|n| n.value)
        .find(|n| !have.contains(n))
}

/// A date as two texts are compared on it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum DateKey {
    /// A day (`2025-03-28`).
    Day(String),
    /// A month of a year (`2025-03`).
    Month(String),
    /// A month named alone (`March`: 3).
    MonthAlone(u8),
    /// A numeric date either order reads, as written (`05/06/2021`).
    Ambiguous(String),
}

/// A date a text names: its span and key.
#[derive(Debug, Clone)]
struct Dated {
    start: usize,
    end: usize,
    key: DateKey,
}

/// The dates `text` (normalised) names: numeric ones read in the order the text's own
/// unambiguous dates show, else in `order`.
fn dates_of(text: &str, order: Option<DateOrder>) -> Vec<Dated> {
    let order = parse::infer_order(text).or(order);
    let mut out = Vec::new();
    for c in parse::dates(text, order) {
        let raw = &text[c.start..c.end];
        let key = match &c.value {
            Ok(Value::Date { year, month, day }) => {
                DateKey::Day(format!("{year:04}-{month:02}-{day:02}"))
            }
            Err((RejectReason::IncompleteDate, _)) => match month_of_year(raw) {
                Some(m) => DateKey::Month(m),
                None => continue,
            },
            Err((RejectReason::AmbiguousDate, _)) => {
                DateKey::Ambiguous(raw.split_whitespace().collect::<Vec<_>>().join(" "))
            }
            _ => continue,
        };
        out.push(Dated {
            start: c.start,
            end: c.end,
            key,
        });
    }
    for p in crate::period::periods(text) {
        if let (Some(m), None) = (p.month, p.year) {
            let start = text.find(&p.text).unwrap_or(0);
            out.push(Dated {
                start,
                end: start,
                key: DateKey::MonthAlone(m),
            });
        }
    }
    out
}

/// `March 2025` → `2025-03`.
fn month_of_year(raw: &str) -> Option<String> {
    let p = crate::period::periods(raw).into_iter().next()?;
    Some(format!("{:04}-{:02}", p.year?, p.month?))
}

/// The date order the sources' own dates show, when they show one and agree.
fn sources_order(sources: &[&str]) -> Option<DateOrder> {
    let mut shown: Vec<DateOrder> = sources
        .iter()
        .filter_map(|s| parse::infer_order(s))
        .collect();
    shown.dedup();
    match shown.as_slice() {
        [one] => Some(*one),
        _ => None,
    }
}

/// The first date of `dated` (of `claim`, normalised) that no source names, as the claim
/// writes it: a day must be that day, a month of a year that month (or a day in it), a
/// month alone that month of any date, an ambiguous date the same writing.
fn missing_date(claim: &str, dated: &[Dated], sources: &[&str]) -> Option<String> {
    let mut have: HashSet<DateKey> = HashSet::new();
    for s in sources {
        for d in dates_of(&normalise(s), None) {
            if let DateKey::Day(day) = &d.key {
                have.insert(DateKey::Month(day[..7].to_string()));
            }
            if let DateKey::Day(m) | DateKey::Month(m) = &d.key {
                if let Ok(month) = m[5..7].parse::<u8>() {
                    have.insert(DateKey::MonthAlone(month));
                }
            }
            have.insert(d.key);
        }
    }
    dated
        .iter()
        .find(|d| !have.contains(&d.key))
        .map(|d| match &d.key {
            DateKey::MonthAlone(m) => {
                crate::lexicon::month_name(*m).map_or_else(|| m.to_string(), str::to_string)
            }
            _ => claim[d.start..d.end].to_string(),
        })
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
    // Each sentence is read in its whole quote's number format, each clause in the claim's.
    let sents: Vec<(HashSet<String>, Vec<String>)> = sources
        .iter()
        .flat_map(|src| {
            let fmt = NumberFormat::of(src);
            sentences(src).into_iter().map(move |s| (s.slice(src), fmt))
        })
        .map(|(s, fmt)| (subject_words(s), figure_keys_in(s, fmt)))
        .collect();
    if sents.len() < 2 {
        return None;
    }
    let fmt = claim_format(claim, sources);
    for clause in clauses(claim) {
        let mine = subject_words(clause);
        if mine.is_empty() {
            continue;
        }
        let shared = |w: &HashSet<String>| w.intersection(&mine).count();
        let best = sents.iter().map(|(w, _)| shared(w)).max().unwrap_or(0);
        for f in figure_keys_in(clause, fmt) {
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

/// Negations that flip the clause a part is cut from: [`NEGATIONS`] less `without` and
/// `except`, which restrict what follows them rather than deny it.
const FLIPS: &[&str] = &[
    "not", "no", "never", "cannot", "nor", "neither", "none", "nothing", "nobody",
];

/// Words that join two clauses.
const COORDINATORS: &[&str] = &["and", "but", "or", "while", "whereas", "yet"];

/// Words that open a clause of their own inside a sentence.
const SUBORDINATORS: &[&str] = &[
    "if", "unless", "when", "whenever", "where", "because", "although", "though", "that", "which",
    "who", "whom", "whose", "before", "after", "until", "once", "since",
];

/// Modals besides the auxiliaries ([`Class::Auxiliary`]): right after a subject, either
/// shows a clause of its own.
const AUXILIARIES: &[&str] = &["cannot", "might", "need"];

/// Whether `w` is an auxiliary or a modal ([`AUXILIARIES`]).
fn auxiliary(w: &str) -> bool {
    AUXILIARIES.contains(&w) || lexicon::is(Class::Auxiliary, w)
}

/// Marks that end a clause inside a sentence.
const CLAUSE_MARKS: &[char] = &[',', ';', ':', '(', ')', '\u{2014}', '\u{2013}'];

/// Whether `piece` is a part of `quote` in the sense of [`crate::figure::verbatim_part`]
/// (word boundaries, whole numbers) at a place where it keeps its polarity (see
/// [`drops_negation`]).
pub fn faithful_part(quote: &str, piece: &str) -> bool {
    crate::figure::verbatim_spans(quote, piece)
        .into_iter()
        .any(|(s, e)| !drops_negation(quote, s, e))
}

/// Whether the part `quote[start..end]` leaves out a negation that governs it: in the
/// clause it is cut from, a negation, negative determiner or denial frame before it
/// (`No provider may …`, `Never share …`, `It is not true that …`) up to the mark or
/// joining word that opens its own clause, or one right after it before any mark or
/// joining word (`… may charge no fee`, `… can't pay`). Bounds (`no later than`) are
/// none.
pub fn drops_negation(quote: &str, start: usize, end: usize) -> bool {
    let (from, to) = sentence_around(quote, start, end);
    let lead = governing_lead(&quote[from..start], &quote[start..end]);
    let rest = &quote[end..to.max(end)];
    let trail = clause_head(rest);
    let contracted = rest.starts_with("'t") || rest.starts_with("\u{2019}t");
    negation_in(lead, FLIPS) || negation_in(trail, FLIPS) || contracted
}

/// The start of the sentence of `quote` holding byte `start` and the end of the one
/// holding the byte before `end`.
fn sentence_around(quote: &str, start: usize, end: usize) -> (usize, usize) {
    let spans = sentences(quote);
    let from = spans
        .iter()
        .find(|s| s.start <= start && start < s.end)
        .map_or(0, |s| s.start);
    let to = spans
        .iter()
        .find(|s| s.start < end && end <= s.end)
        .map_or(quote.len(), |s| s.end);
    (from.min(start), to)
}

/// The end of `before` (the sentence before a part) that governs the part: from the last
/// clause mark, or from the last joining word after which a clause of its own begins (a
/// subject, then an auxiliary within three words: `… and counties must`).
fn governing_lead<'a>(before: &'a str, piece: &str) -> &'a str {
    let cut = before.rfind(CLAUSE_MARKS).map_or(0, |i| {
        i + before[i..].chars().next().map_or(1, char::len_utf8)
    });
    let seg = &before[cut..];
    let spans = crate::text::word_spans(seg);
    let lower = |t: &str| t.to_lowercase();
    let ahead: Vec<String> = spans
        .iter()
        .map(|&(a, b)| lower(&seg[a..b]))
        .chain(words(piece).into_iter().take(4))
        .collect();
    for (k, &(_, b)) in spans.iter().enumerate().rev() {
        if !COORDINATORS.contains(&ahead[k].as_str()) {
            continue;
        }
        let next: Vec<&str> = ahead[k + 1..].iter().take(3).map(String::as_str).collect();
        let own_subject = next.first().is_some_and(|w| !auxiliary(w))
            && next.iter().skip(1).any(|w| auxiliary(w));
        if own_subject {
            return &seg[b..];
        }
    }
    seg
}

/// The start of `rest` (the sentence after a part) that belongs to the part's clause: up
/// to the first mark, joining word or word that opens a clause.
fn clause_head(rest: &str) -> &str {
    let stop = rest
        .find(|c: char| CLAUSE_MARKS.contains(&c) || matches!(c, '.' | '!' | '?'))
        .unwrap_or(rest.len());
    let seg = &rest[..stop];
    let joins = crate::text::word_spans(seg).into_iter().find(|&(a, b)| {
        let w = seg[a..b].to_lowercase();
        COORDINATORS.contains(&w.as_str()) || SUBORDINATORS.contains(&w.as_str())
    });
    joins.map_or(seg, |(a, _)| &seg[..a])
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
            Some("31/12/2030".into())
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

    #[test]
    fn figures_are_compared_in_each_texts_number_format() {
        let fee = "The monthly fee is EUR 2.000,75 per member.";
        for bad in [
            "The monthly fee is EUR 2 per member",
            "The monthly fee is EUR 2.00 per member",
            "The monthly fee is EUR 2.000 per member",
        ] {
            assert!(missing_figure(bad, &[fee]).is_some(), "{bad}");
        }
        for ok in [
            "The monthly fee is EUR 2,000.75 per member",
            "The monthly fee is EUR 2.000,75 per member",
            "The monthly fee is EUR 2000.75 per member",
        ] {
            assert_eq!(missing_figure(ok, &[fee]), None, "{ok}");
        }
        let rate = "Interest accrues at 7,5 % a year.";
        assert_eq!(
            missing_figure("Interest accrues at 7 % a year", &[rate]),
            Some("7 percent".into())
        );
        assert_eq!(
            missing_figure("Interest accrues at 7.5 % a year", &[rate]),
            None
        );
        // A source left ambiguous is matched only by the same writing.
        let deposit = "The deposit is EUR 3.600 for each flat.";
        assert_eq!(missing_figure("The deposit is EUR 3.600", &[deposit]), None);
        for bad in [
            "The deposit is EUR 3,600",
            "The deposit is EUR 3.6",
            "The deposit is EUR 3600",
        ] {
            assert!(missing_figure(bad, &[deposit]).is_some(), "{bad}");
        }
        // A claim that shows no format is read in its sources'.
        let shown = "The deposit is EUR 3.600 and the cap is EUR 1.000.000.";
        assert_eq!(missing_figure("The deposit is EUR 3600", &[shown]), None);
        assert_eq!(
            claim_format("The deposit is EUR 3.600", &[shown]),
            NumberFormat::Comma
        );
        assert!(missing_figure("The deposit is EUR 3.6", &[shown]).is_some());
    }

    #[test]
    fn dates_are_compared_as_dates() {
        let src = "The licence expires on 14 February 2026.";
        let m = |c: &str| missing_figure(c, &[src]);
        assert_eq!(
            m("The licence expires on 14 March 2026"),
            Some("14 March 2026".into())
        );
        assert_eq!(
            m("The licence expires in March 2026"),
            Some("March 2026".into())
        );
        assert_eq!(m("The licence expires in March"), Some("march".into()));
        for ok in [
            "The licence expires on 2026-02-14",
            "The licence expires on February 14, 2026",
            "The licence expires in February 2026",
            "The licence expires in February",
        ] {
            assert_eq!(m(ok), None, "{ok}");
        }
        // Numeric dates in the order each text shows.
        let filed = "Filed on 13/04/2025 and due on 02/05/2025.";
        assert_eq!(missing_figure("It is due on 2 May 2025", &[filed]), None);
        assert!(missing_figure("It is due on 5 February 2025", &[filed]).is_some());
        assert_eq!(missing_figure("It is due on 02/05/2025", &[filed]), None);
    }

    #[test]
    fn a_part_that_drops_its_negation_is_no_faithful_part() {
        for (quote, part) in [
            (
                "No tenant may sublet the flat without consent.",
                "tenant may sublet the flat without consent",
            ),
            ("Never leave the door unlocked.", "leave the door unlocked"),
            (
                "It is not true that members must vote.",
                "members must vote",
            ),
            ("It is false that members must vote.", "members must vote"),
            ("Landlords may charge no deposit.", "Landlords may charge"),
            ("Members can't vote twice.", "Members can"),
            ("No tenant may sublet the flat or keep a pet.", "keep a pet"),
        ] {
            assert!(crate::figure::verbatim_part(quote, part), "{part}");
            assert!(!faithful_part(quote, part), "{part}");
        }
        for (quote, part) in [
            (
                "Tenants may not sublet the flat and landlords must repair the roof.",
                "landlords must repair the roof",
            ),
            (
                "If rent is not paid, the landlord may end the lease.",
                "the landlord may end the lease",
            ),
            (
                "Tenants must pay the rent without delay.",
                "Tenants must pay the rent",
            ),
            (
                "Notice must be given no later than 10 days after the move.",
                "Notice must be given no later than 10 days after the move",
            ),
            (
                "Never leave the door unlocked.",
                "Never leave the door unlocked",
            ),
            (
                "Tenants may keep records that are not sealed.",
                "Tenants may keep records",
            ),
            (
                "Rent is due monthly. No pets are allowed.",
                "Rent is due monthly",
            ),
        ] {
            assert!(faithful_part(quote, part), "{part}");
        }
        assert!(negated("It is untrue that rent rose."));
        assert!(negated("The board denies that rent rose."));
        assert!(!negated("The false ceiling was removed."));
    }
}
