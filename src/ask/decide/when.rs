//! When a value holds: the span of time a clause states it for, and former values.
//!
//! A period named next to a cue word bounds the time a value holds: "since", "from",
//! "as of", "effective", "beginning", "starting" open it; "until", "through", "till"
//! close it at the named period's end; "before", "prior to" close it before the period
//! begins; "after" opens it once the period is over; "in", "during", "for" hold it to the
//! period. A question asks about such a span the same way ("before 2024"). A value whose
//! span and the asked span do not meet is not the asked period's.
//!
//! A value stated as a former one ("previously", "formerly", "former", "used to", or a
//! span closed by "until …" told in the past tense) is not a current value: it answers
//! only a question that asks about a past span itself.

use crate::frame::Frame;
use crate::lexicon::{self, Class};
use crate::period::Period;
use crate::value::typed::Found;

/// A span of time in months since year 0, both ends inclusive; an open end is `None`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct Span {
    /// The first month, when bounded.
    pub from: Option<u32>,
    /// The last month, when bounded.
    pub to: Option<u32>,
}

impl Span {
    /// Whether the two spans share no month.
    pub(super) fn disjoint(&self, other: &Span) -> bool {
        let before = |a: &Span, b: &Span| matches!((a.to, b.from), (Some(t), Some(f)) if t < f);
        before(self, other) || before(other, self)
    }
}

/// The first and last month period `p` covers (a year: January to December).
fn months(p: &Period) -> Option<(u32, u32)> {
    let y = u32::from(p.year?) * 12;
    Some(match (p.month, p.quarter) {
        (Some(m), _) => (y + u32::from(m) - 1, y + u32::from(m) - 1),
        (None, Some(q)) => (y + 3 * (u32::from(q) - 1), y + 3 * u32::from(q) - 1),
        _ => (y, y + 11),
    })
}

/// How a cue word bounds the span of the period after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cue {
    /// From the period's start on.
    Opens,
    /// To the period's end.
    Closes,
    /// Up to the month before the period starts.
    Before,
    /// From the month after the period ends.
    After,
    /// Within the period.
    Within,
}

/// Cue words (lower case, as the text writes them before a period) and how they bound.
const CUES: &[(&str, Cue)] = &[
    ("since", Cue::Opens),
    ("from", Cue::Opens),
    ("as of", Cue::Opens),
    ("as from", Cue::Opens),
    ("effective", Cue::Opens),
    ("beginning", Cue::Opens),
    ("starting", Cue::Opens),
    ("until", Cue::Closes),
    ("till", Cue::Closes),
    ("through", Cue::Closes),
    ("to", Cue::Closes),
    ("before", Cue::Before),
    ("prior to", Cue::Before),
    ("after", Cue::After),
    ("in", Cue::Within),
    ("during", Cue::Within),
    ("for", Cue::Within),
];

/// The span `text` states by cue words before the periods it names; `None` when no
/// period of it stands after a cue word.
pub(super) fn span(text: &str) -> Option<Span> {
    let lower = crate::figure::normalise(text).to_lowercase();
    let mut out = Span::default();
    let mut any = false;
    for p in crate::period::periods(&lower) {
        let Some((first, last)) = months(&p) else {
            continue;
        };
        let Some(at) = lower.find(&p.text.to_lowercase()) else {
            continue;
        };
        let Some(cue) = cue_before(&lower[..at]) else {
            continue;
        };
        any = true;
        match cue {
            Cue::Opens => out.from = Some(first),
            Cue::Closes => out.to = Some(last),
            Cue::Before => out.to = Some(first.saturating_sub(1)),
            Cue::After => out.from = Some(last + 1),
            Cue::Within => {
                out.from = out.from.or(Some(first));
                out.to = out.to.or(Some(last));
            }
        }
    }
    any.then_some(out)
}

/// The cue word that ends `before` (the text before a period, up to three words back,
/// through "the", "1", "31" of a date written day first).
fn cue_before(before: &str) -> Option<Cue> {
    let words: Vec<String> = crate::text::words(before);
    let tail: Vec<&str> = words
        .iter()
        .rev()
        .map(String::as_str)
        .skip_while(|w| *w == "the" || w.chars().all(|c| c.is_ascii_digit()))
        .take(2)
        .collect();
    let one = tail.first().copied().unwrap_or("");
    let two = tail
        .get(1)
        .map(|w| format!("{w} {one}"))
        .unwrap_or_default();
    CUES.iter()
        .find(|(c, _)| *c == two || *c == one)
        .map(|(_, cue)| *cue)
}

/// Whether `w` marks a value as a former one: a word of [`Class::Former`], or "earlier".
fn former_word(w: &str) -> bool {
    lexicon::is(Class::Former, w) || w == "earlier"
}

/// Whether `clause` states its value as a former one: a [`former_word`], "used to",
/// or a span closed by "until"/"till" told in the past tense ("until 2021 the fee was").
pub(super) fn former(clause: &str) -> bool {
    let lower = clause.to_lowercase();
    let words = crate::text::words(&lower);
    let has = |w: &str| words.iter().any(|x| x == w);
    let closed = span(&lower).is_some_and(|s| s.to.is_some() && s.from.is_none())
        && ["until", "till"].iter().any(|c| has(c));
    let past = ["was", "were", "had"].iter().any(|w| has(w));
    words.iter().any(|w| former_word(w)) || lower.contains("used to") || (closed && past)
}

/// The span question `f` asks about, from its own words.
pub(super) fn asked(f: &Frame) -> Option<Span> {
    span(&f.qualifiers.join(" "))
}

/// Whether the value of `clause` holds outside what question `f` asks about: its span
/// and the asked one share no month, or it is a former value and the question asks
/// about no span of time.
pub(super) fn outside(f: &Frame, clause: &str) -> bool {
    match (asked(f), span(clause)) {
        (Some(q), Some(v)) if q.disjoint(&v) => true,
        (None, _) => former(clause) && !asks_former(f),
        _ => false,
    }
}

/// Whether date `v` falls on the wrong side of a date the question sets as a bound
/// ("the next meeting after 12 March 2025", "the last inspection before 1 May"): a date
/// no later than the one after which the question asks, or no earlier than the one
/// before which it asks, is not the asked date. Dates compare as far as both are written
/// (a month against a day compares the months).
pub(super) fn beyond_asked_date(f: &Frame, v: &crate::value::typed::Found) -> bool {
    use crate::value::typed::{find, AnswerType};
    if f.answer_type != AnswerType::Date || v.unit.is_some() {
        return false;
    }
    let q = f.qualifiers.join(" ");
    find(&q, AnswerType::Date, None).iter().any(|d| {
        let before: Vec<&str> = q[..d.start].split_whitespace().rev().take(2).collect();
        let later = matches!(before.first(), Some(&"after" | &"following" | &"since"));
        let earlier = matches!(before.as_slice(), ["before", ..] | ["to", "prior"]);
        let n = v.normalised.len().min(d.normalised.len());
        let (a, b) = (&v.normalised[..n], &d.normalised[..n]);
        let iso = |x: &str| x.chars().all(|c| c.is_ascii_digit() || c == '-');
        iso(a) && iso(b) && ((later && a <= b) || (earlier && a >= b))
    })
}

/// Whether a length of time at `start..end` of `quote` fixes a point in time, and so
/// answers "when": it is a limit ("within 30 days", "no later than 2 weeks"), it is tied
/// to an event after it ("30 days after the call ends", "5 years ago"), or it recurs
/// ("every 5 years"). A bare length ("a period of 10 years") says how long something
/// lasts, not when it happens or ends.
pub(super) fn fixes_time(quote: &str, start: usize, end: usize) -> bool {
    let before = crate::text::words(&quote[..start].to_lowercase());
    let after = crate::text::words(&quote[end..].to_lowercase());
    let last = |n: usize| {
        before
            .len()
            .checked_sub(n)
            .map(|i| before[i..].join(" "))
            .unwrap_or_default()
    };
    let first = |n: usize| after.iter().take(n).cloned().collect::<Vec<_>>().join(" ");
    let limits = [
        Class::BoundDeadline,
        Class::BoundMin,
        Class::BoundMax,
        Class::BoundMore,
        Class::BoundLess,
        Class::Recurrence,
    ];
    (1..=3).any(|n| lexicon::is_any(&limits, &last(n)))
        || (1..=2).any(|n| lexicon::is(Class::TimeAnchor, &first(n)))
}

/// Whether length of time `v` of `quote` is told relative to the very event question `f`
/// asks the date of: "at least six months before expiry" for "When does the permit
/// expire?", "30 days before it takes effect" for "When does it take effect?". Such a
/// length says when something else happens (an application, a notice), not when the
/// asked event does. Read for questions asking when something ends or takes effect: a
/// word of [`Class::TimeAnchor`] right after the length, then, within four words, a cue
/// of the asked date role.
pub(super) fn relative_to_asked_event(f: &Frame, quote: &str, v: &Found) -> bool {
    use crate::frame::DateRole;
    let Some(role) = f
        .date_role
        .filter(|r| matches!(r, DateRole::Expiry | DateRole::Effective))
    else {
        return false;
    };
    if !v
        .unit
        .as_deref()
        .is_some_and(crate::value::typed::is_time_unit)
    {
        return false;
    }
    let after = crate::text::words(&quote[v.end..].to_lowercase());
    let Some(k) = after
        .iter()
        .take(2)
        .position(|w| lexicon::is(Class::TimeAnchor, w) || w == "prior")
    else {
        return false;
    };
    let event = after[k + 1..].iter().take(4).cloned().collect::<Vec<_>>();
    cued(role, &event)
}

/// Whether `words` (lower case) hold a cue of date role `role`: a word that begins with a
/// one-word cue ("expires" for "expir"), or a cue of several words written in them.
pub(super) fn cued(role: crate::frame::DateRole, words: &[String]) -> bool {
    let text = words.join(" ");
    role.cues().iter().any(|c| {
        if c.contains(' ') {
            text.contains(c)
        } else {
            words.iter().any(|w| w.starts_with(c))
        }
    })
}

/// Whether question `f` asks for a former value in its own words ("previous", "former",
/// "originally").
fn asks_former(f: &Frame) -> bool {
    f.qualifiers
        .iter()
        .any(|w| former_word(w) || matches!(w.as_str(), "previous" | "old"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::frame;

    #[test]
    fn cue_words_bound_the_span_of_the_period_after_them() {
        let s = span("Since March 2023, the levy is 4%").unwrap();
        assert_eq!(s.from, Some(2023 * 12 + 2));
        assert_eq!(s.to, None);
        let s = span("before 2020").unwrap();
        assert_eq!(s.to, Some(2019 * 12 + 11));
        let s = span("until 30 June 2022 the rate was $9").unwrap();
        assert_eq!(s.to, Some(2022 * 12 + 5));
        assert!(span("The levy is 4% of turnover").is_none());
    }

    #[test]
    fn a_value_for_a_span_the_question_does_not_ask_about_is_outside() {
        let f = frame("What was the largest award before 2022?");
        assert!(outside(&f, "From January 2022 the largest award is $9,000"));
        assert!(!outside(&f, "In 2020 the largest award was $5,000"));
        let f = frame("What is the largest award in 2023?");
        assert!(outside(
            &f,
            "Until 31 December 2021 the largest award was $5,000"
        ));
        assert!(!outside(&f, "Since 2022 the largest award is $9,000"));
    }

    #[test]
    fn a_length_of_time_answers_when_only_as_a_limit_an_offset_or_a_recurrence() {
        let at = |q: &str, v: &str| {
            let i = q.find(v).unwrap();
            fixes_time(q, i, i + v.len())
        };
        assert!(at("Report it within 24 hours of the call.", "24 hours"));
        assert!(at(
            "It closes 30 days after the notice is served.",
            "30 days"
        ));
        assert!(at("The site is inspected every 5 years.", "5 years"));
        assert!(at(
            "Apply no later than 2 weeks before the hearing.",
            "2 weeks"
        ));
        assert!(!at("The permanence period is 40 years.", "40 years"));
        assert!(!at(
            "Credits are held for a period of 10 years.",
            "10 years"
        ));
    }

    #[test]
    fn a_former_value_answers_no_plain_question() {
        let f = frame("What is the renewal fee?");
        assert!(outside(&f, "Until 1 May 2020 the renewal fee was $35"));
        assert!(outside(&f, "The renewal fee was formerly $35"));
        assert!(!outside(&f, "The renewal fee is $35 until further notice"));
        assert!(!outside(&f, "The renewal fee is $35"));
        let f = frame("What was the previous renewal fee?");
        assert!(!outside(&f, "The renewal fee was formerly $35"));
    }
}
