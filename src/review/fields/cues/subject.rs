//! Values of another subject: another project, site or party, an area of something else,
//! a tranche of a schedule.

use super::{find, sentence_around};
use crate::review::fields::{FieldSpec, FieldType};

/// Words before a value in its sentence that make it another project's, site's or
/// party's ("The neighbouring Reed Marsh project deposits 25% …, and its start date is …").
const OTHER_SUBJECT: &[&str] = &[
    "neighbouring",
    "neighboring",
    "adjacent",
    "nearby",
    "another project",
    "other project",
    "other projects",
    "sister project",
    "similar project",
    "similar projects",
    "adjoining",
    "for comparison",
    "by comparison",
    "compared with",
];

/// Words right before a percentage that make it a tranche of a schedule ("the first 50%
/// of the cumulative buffer pool is released"), not the rate.
const TRANCHE: &[&str] = &[
    "first",
    "last",
    "remaining",
    "next",
    "final",
    "second",
    "third",
];

/// Things an area can measure that are not the project: a part of it, a sampling unit,
/// or the larger holding it belongs to.
const AREA_OBJECTS: &[&str] = &[
    "pixel",
    "pixels",
    "block",
    "blocks",
    "strip",
    "strips",
    "plot",
    "plots",
    "quadrat",
    "quadrats",
    "cell",
    "cells",
    "grid",
    "holding",
    "holdings",
    "compartment",
    "field",
    "fields",
    "parcel of which",
];

/// Why the area at `s` is of something else: one of [`AREA_OBJECTS`] among the five words
/// before it ("10 m pixels (0.01 ha)", "a holding of about 640 ha") or in the phrase after
/// "of" that follows it ("9.5 ha of unplanted open-ground strips").
fn area_of_another(quote: &str, s: usize, lead: &str) -> Option<String> {
    let words = |t: &str| -> Vec<String> {
        t.split(|c: char| !c.is_alphanumeric() && c != '-')
            .filter(|w| !w.is_empty())
            .map(|w| w.to_ascii_lowercase())
            .collect()
    };
    let before = words(lead);
    let near = &before[before.len().saturating_sub(5)..];
    let rest = quote[s..]
        .split_once(char::is_whitespace)
        .map_or("", |(_, r)| r);
    let rest = rest.trim_start();
    // Skip the unit ("ha", "hectares") to what the area is of.
    let rest = rest
        .split_once(' ')
        .map_or("", |(u, r)| if u.len() <= 9 { r } else { rest });
    let clause = rest.split([',', ';', '.', '(', ')']).next().unwrap_or("");
    let after = words(clause);
    let of = after.first().is_some_and(|w| w == "of");
    let named = near
        .iter()
        .chain(after.iter().take(6).filter(|_| of))
        .find(|w| AREA_OBJECTS.contains(&w.as_str()))?;
    Some(format!("the area of a {named}, not of the project"))
}

/// Why the value at `s` belongs to another subject, if it does.
pub(super) fn other_subject(spec: &FieldSpec, quote: &str, s: usize) -> Option<String> {
    let (from, _) = sentence_around(quote, s, s);
    let lead = quote[from..s].to_ascii_lowercase();
    if let Some(w) = OTHER_SUBJECT.iter().find(|w| !find(&lead, w).is_empty()) {
        return Some(format!(
            "stated in a sentence about a {w} subject, not this one"
        ));
    }
    if spec.ty == FieldType::Area {
        if let Some(why) = area_of_another(quote, s, &lead) {
            return Some(why);
        }
    }
    let last = lead
        .split_whitespace()
        .next_back()
        .unwrap_or("")
        .trim_matches(|c: char| !c.is_alphanumeric());
    (spec.ty == FieldType::Percentage && TRANCHE.contains(&last))
        .then(|| format!("\"{last}\" makes it a tranche of a schedule, not the rate"))
}
