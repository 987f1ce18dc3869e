//! Rulings on an answer's differences: for each pair of cited items that state different
//! values for one thing, the sides (the pair and every other cited item stating one value
//! in the same unit about the same thing: its words overlap a member's and, for a table
//! row, its stub is the member's), their sources from the catalog, and
//! `source::govern`'s decision on which governs.

use std::collections::HashSet;

use super::Catalog;
use crate::answer::{Answer, EvidenceItem};
use crate::engine::Engine;
use crate::error::Error;
use crate::evidence::subject::same_subject;
use crate::figure::{figures_of, normalise};
use crate::source::govern::{govern_on, today, Side};

/// Content-word overlap (numbers aside) at or above which another cited item speaks of
/// the same thing as a side (as compose pairs differences).
const SAME_THING: f64 = crate::evidence::compose::CONFLICT_JACCARD;

/// Content words of a quote, numbers and number words aside.
pub(super) fn thing_words(quote: &str) -> HashSet<String> {
    crate::text::content_words(quote)
        .into_iter()
        .filter(|w| {
            !w.chars().any(|c| c.is_ascii_digit()) && crate::figure::word_value(w).is_none()
        })
        .collect()
}

/// Jaccard overlap of two word sets (0 when both are empty).
pub(super) fn overlap(a: &HashSet<String>, b: &HashSet<String>) -> f64 {
    let union = a.union(b).count();
    match union {
        0 => 0.0,
        _ => a.intersection(b).count() as f64 / union as f64,
    }
}

/// Whether `quote` states exactly one value (perhaps several times) in `unit`.
pub(super) fn states_one_value(quote: &str, unit: &str) -> bool {
    let values: HashSet<String> = figures_of(&normalise(quote))
        .into_iter()
        .filter(|f| f.unit == unit)
        .map(|f| f.value)
        .collect();
    values.len() == 1
}

/// The one value `e` states in `unit` (value, bound), or the first of `named` when it
/// states several; `None` when it states none or several and none is named.
fn value_in(e: &EvidenceItem, unit: &str, named: &[String]) -> Option<Side> {
    let text = normalise(&e.quote);
    let figs: Vec<_> = figures_of(&text)
        .into_iter()
        .filter(|f| f.unit == unit)
        .collect();
    let distinct: HashSet<&str> = figs.iter().map(|f| f.value.as_str()).collect();
    let f = match distinct.len() {
        1 => figs.first()?,
        0 => return None,
        _ => figs.iter().find(|f| named.contains(&f.key()))?,
    };
    Side::read(&e.id, &e.source, e.non_binding.is_none(), &text, f)
}

/// Set the ruling of every difference in `answer` (a no-op when it has none). Items in
/// `summaries` (found by `summary::summary_sides` for these differences) are sides of the
/// difference whose unit they state, whatever their wording.
pub fn rule(
    engine: &Engine,
    answer: &mut Answer,
    summaries: &HashSet<String>,
) -> Result<(), Error> {
    if answer.conflicts.is_empty() {
        return Ok(());
    }
    let catalog = Catalog::load(engine)?;
    let evidence = answer.evidence.clone();
    let day = answer.as_of.as_ref().map_or_else(today, |d| d.as_of);
    for c in &mut answer.conflicts {
        let Some(unit) = c
            .figures
            .iter()
            .flatten()
            .next()
            .and_then(|k| k.split_once(' '))
            .map(|x| x.1.to_string())
        else {
            continue;
        };
        let named: Vec<String> = c.figures.iter().flatten().cloned().collect();
        let members: Vec<&EvidenceItem> =
            evidence.iter().filter(|e| c.ids.contains(&e.id)).collect();
        let words: Vec<HashSet<String>> = members.iter().map(|e| thing_words(&e.quote)).collect();
        let mut sides: Vec<Side> = Vec::new();
        for e in &evidence {
            let member = c.ids.contains(&e.id);
            let same = member
                || summaries.contains(&e.id)
                || words.iter().zip(&members).any(|(w, m)| {
                    overlap(w, &thing_words(&e.quote)) >= SAME_THING
                        && same_subject(&m.quote, &e.quote, m.doc_id == e.doc_id)
                });
            let side = match (same, member) {
                (false, _) => None,
                (true, true) => value_in(e, &unit, &named),
                (true, false) => value_in(e, &unit, &[]),
            };
            if let Some(mut s) = side {
                if let Some(d) = catalog.get(&e.doc_id) {
                    s.source_type = d.source_type.value;
                    s.authority = d.authority.value;
                    s.effective_from = d.effective_from.as_ref().map(|f| f.value);
                    s.superseded_by = d.superseded_by.clone();
                }
                sides.push(s);
            }
        }
        if sides.len() >= 2 {
            c.ruling = Some(govern_on(&sides, day));
        }
    }
    Ok(())
}
