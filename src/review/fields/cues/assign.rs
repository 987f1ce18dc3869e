//! How a candidate value of a date, duration, percentage or area field is given to the
//! field, as a table of named rules ([`FieldRule::ALL`]): the first rule that applies to
//! a candidate decides it, dropping it (it is another field's or nobody's) or setting it
//! aside with a reason (it is the field's kind of statement but not its value). Each rule
//! carries examples (a field, a quote, the candidate it decides) that one test runs.

use serde::Serialize;

use super::limits::{change_amount, limit_around, threshold, under_limit_header};
use super::position::at_position;
use super::rules::{is_act, sets_deadline};
use super::subject::other_subject;
use super::{by_label, named_next, Marker};
use crate::review::fields::values::Candidate;
use crate::review::fields::{FieldSpec, FieldType, Position, RejectReason};

/// A named rule of how a candidate is given to a field, in the order
/// [`FieldRule::ALL`] tries them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FieldRule {
    /// A percentage something changes by ("falls by 38%"), not a level.
    ChangeAmount,
    /// A table cell under a column of limits, plans or baselines ("Registry maximum").
    UnderLimitColumn,
    /// The nearest cue is another field's or introduces something else.
    OtherFieldCue,
    /// No cue, label, deadline or naming sentence introduces it.
    NoCue,
    /// The other end of a range than the one the field takes.
    OtherRangeEnd,
    /// Stated as a limit or a condition ("at least 10%", "must deposit").
    LimitOrCondition,
    /// Another project's, site's or party's value.
    OtherSubject,
}

/// What a rule does with the candidate it decides.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Verdict {
    /// Not the field's at all: left out.
    Dropped(FieldRule),
    /// The field's kind of statement, set aside with a reason and a note.
    SetAside(FieldRule, RejectReason, String),
}

impl FieldRule {
    /// Every rule, in the order they are tried.
    pub const ALL: [FieldRule; 7] = [
        FieldRule::ChangeAmount,
        FieldRule::UnderLimitColumn,
        FieldRule::OtherFieldCue,
        FieldRule::NoCue,
        FieldRule::OtherRangeEnd,
        FieldRule::LimitOrCondition,
        FieldRule::OtherSubject,
    ];
}

/// What the rules read a candidate against.
pub(super) struct Scene<'a> {
    /// The field.
    pub spec: &'a FieldSpec,
    /// The quote.
    pub quote: &'a str,
    /// Every cue in the quote.
    pub markers: &'a [Marker],
    /// The label the quote sits under.
    pub context: Option<&'a str>,
    /// Candidates no cue introduces (a label gives the field at most one of them, unless
    /// it is a range's end).
    pub orphans: usize,
}

/// The first rule of the first stage (which candidates are the field's) that decides
/// candidate `c`, introduced by `m`.
pub(super) fn first_stage(s: &Scene, c: &Candidate, m: Option<&Marker>) -> Option<FieldRule> {
    let (spec, quote) = (s.spec, s.quote);
    if spec.ty == FieldType::Percentage && change_amount(quote, c.start) {
        return Some(FieldRule::ChangeAmount);
    }
    if under_limit_header(quote, s.context, c.start) {
        return Some(FieldRule::UnderLimitColumn);
    }
    match m {
        // "submitted" marks a submission date, unless submitting is the act the deadline
        // is set for.
        Some(m) => {
            let act = m.fields.is_empty()
                && is_act(&quote[m.start..m.end], &spec.act)
                && sets_deadline(quote, c.start, &spec.act);
            (!m.fields.contains(&spec.name) && !act).then_some(FieldRule::OtherFieldCue)
        }
        None => {
            let labelled = by_label_ok(s, c);
            let taken = labelled
                || sets_deadline(quote, c.start, &spec.act)
                || named_next(spec, quote, c.start, c.end);
            (!taken).then_some(FieldRule::NoCue)
        }
    }
}

/// Whether the label the quote sits under gives `c` to the field: it is the one
/// candidate no cue introduces (range fields: position words decide), and it measures no
/// "of" phrase after it ("About 35% of the displaced grazing …" under a "Leakage" heading
/// measures what follows "of").
fn by_label_ok(s: &Scene, c: &Candidate) -> bool {
    (s.orphans == 1 || s.spec.position != Position::Any)
        && !s.quote[c.end..]
            .trim_start()
            .to_ascii_lowercase()
            .starts_with("of ")
        && by_label(s.spec, s.quote, s.context, c.start)
}

/// The verdict of the second stage on candidate `c`, the `i`-th of the `n` the first
/// stage kept, introduced by `m`.
pub(super) fn second_stage(
    s: &Scene,
    c: &Candidate,
    m: Option<&Marker>,
    (i, n): (usize, usize),
) -> Option<Verdict> {
    let (spec, quote) = (s.spec, s.quote);
    if spec.position != Position::Any && !at_position(spec.position, quote, c.start, i, n) {
        return Some(Verdict::Dropped(FieldRule::OtherRangeEnd));
    }
    let limit_cue = m.is_some_and(|m| limit_around(quote, m.start, c.start));
    if spec.ty.numeric() && (threshold(quote, c.start, c.end) || limit_cue) {
        let note = "stated as a limit or condition, not as the value".to_string();
        return Some(Verdict::SetAside(
            FieldRule::LimitOrCondition,
            RejectReason::Threshold,
            note,
        ));
    }
    other_subject(spec, quote, c.start)
        .map(|why| Verdict::SetAside(FieldRule::OtherSubject, RejectReason::OtherSubject, why))
}

/// Every candidate of `cands` with the verdict of the first rule that decides it
/// (`None`: the field's value). `gap` is how far a cue may stand before its value.
pub(super) fn verdicts(
    s: &mut Scene,
    cands: Vec<Candidate>,
    gap: usize,
) -> Vec<(Candidate, Option<Verdict>)> {
    let intro: Vec<Option<&Marker>> = cands
        .iter()
        .map(|c| super::introducer(s.quote, s.markers, c.start, c.end, gap))
        .collect();
    s.orphans = intro.iter().filter(|m| m.is_none()).count();
    let mut out = Vec::new();
    let mut kept = Vec::new();
    for (c, m) in cands.into_iter().zip(intro) {
        match first_stage(s, &c, m) {
            Some(rule) => out.push((c, Some(Verdict::Dropped(rule)))),
            None => kept.push((c, m)),
        }
    }
    let n = kept.len();
    for (i, (c, m)) in kept.into_iter().enumerate() {
        let v = second_stage(s, &c, m, (i, n));
        out.push((c, v));
    }
    out
}

#[cfg(test)]
mod tests;
