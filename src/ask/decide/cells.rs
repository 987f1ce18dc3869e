//! A value read from a table row or among alternatives: the cell whose row and column the
//! question names, the clause of an alternative that words the question, and why an
//! identifier is left open (another item, or the same label elsewhere in the document,
//! gives another).

use std::collections::HashSet;

use super::context::{has_word, stems};
use super::fit::{values, values_with};
use super::{nothing_said, support, unmet, Decision};
use crate::ask::cell;
use crate::ask::select::Numbered;
use crate::engine::Engine;
use crate::evidence::verify::Verdict;
use crate::frame::{AnswerType, Frame};
use crate::value::typed::Found;

/// The decision for a lead that is a table row (or a passage of several values): the
/// cell of the first covering row the question names by row and column. A table with no
/// cell for the question gives no value and no whole row; a passage of several values
/// that is no table row is cited whole, no value claimed.
pub(super) fn by_cell(
    engine: &Engine,
    f: &Frame,
    covering: &[(&String, &Verdict)],
    lead: &String,
    multi_hop: bool,
) -> Decision {
    // `pick` answers only for a row with known cells, so every covering item is tried
    // once (its layout read once).
    let mut missed = Vec::new();
    let picks: Vec<(String, cell::Pick)> = covering
        .iter()
        .filter_map(|(id, v)| {
            match cell::pick(engine, f, &v.candidate, |t, h| values_with(f, t, h)) {
                Ok(p) => Some(((*id).clone(), p)),
                Err(m) => {
                    missed.push(m);
                    None
                }
            }
        })
        .collect();
    // Of several rows' cells, the one whose row and column state the most figures of
    // the question ("a higher paying job of $100,000 - 124,999 and a lower paying job
    // of $20,000 - 29,999": not the $20,000 row's $100,000 column); the first on a tie.
    let stated = |p: &cell::Pick| {
        let label = p.label.to_lowercase();
        f.figures
            .iter()
            .filter(|x| label.contains(x.as_str()))
            .count()
    };
    let mut picked: Option<(String, cell::Pick)> = None;
    for (id, p) in picks {
        if picked
            .as_ref()
            .is_none_or(|(_, best)| stated(&p) > stated(best))
        {
            picked = Some((id, p));
        }
    }
    let Some((lead, p)) = picked else {
        if missed.iter().all(|m| *m == cell::Miss::NotARow) {
            // Alternatives in clauses of their own ("if it pays weekly, enter 52; if it
            // pays every other week, enter 26"): the one whose clause words the question.
            let quote = covering
                .iter()
                .find(|(id, _)| *id == lead)
                .map(|(_, v)| v.candidate.quote.as_str());
            return Decision {
                keep: Some(support(covering, lead, multi_hop)),
                value: quote
                    .and_then(|q| alternative(f, q))
                    .map(|v| (lead.clone(), v)),
                ..Decision::default()
            };
        }
        return unmet(no_cell(f, &missed));
    };
    Decision {
        keep: Some(support(covering, &lead, multi_hop)),
        cell: Some(p.label),
        value: Some((lead, p.value)),
        ..Decision::default()
    }
}

/// The value of the one clause of `quote` (clauses split at `;`, each stating one value
/// of the asked type) that words more of the question than every other clause, and at
/// least [`ALTERNATIVE_WORDS`] of its words.
fn alternative(f: &Frame, quote: &str) -> Option<Found> {
    let asked: HashSet<String> = f
        .qualifiers
        .iter()
        .filter(|w| !crate::text::is_stopword(w) && !w.chars().any(|c| c.is_ascii_digit()))
        .map(|w| crate::text::stem(w))
        .collect();
    let mut scored: Vec<(usize, Found)> = Vec::new();
    let mut at = 0;
    for clause in quote.split(';') {
        let vs = values(f, clause);
        let words: HashSet<String> = crate::text::words(&clause.to_lowercase())
            .iter()
            .map(|w| crate::text::stem(w))
            .collect();
        if let [v] = vs.as_slice() {
            let score = asked.intersection(&words).count();
            let v = Found {
                start: at + v.start,
                end: at + v.end,
                ..v.clone()
            };
            scored.push((score, v));
        }
        at += clause.len() + 1;
    }
    scored.sort_by_key(|(k, _)| std::cmp::Reverse(*k));
    match scored.as_slice() {
        [(best, v), rest @ ..]
            if *best >= ALTERNATIVE_WORDS
                && rest.iter().all(|(k, _)| k < best)
                && !rest.is_empty() =>
        {
            Some(v.clone())
        }
        _ => None,
    }
}

/// Words of the question the clause of an alternative must word (see [`alternative`]).
const ALTERNATIVE_WORDS: usize = 2;

/// Why no table cell answers frame `f`, from the rows' misses: a row the question names
/// without the column it asks for, or no row it names.
fn no_cell(f: &Frame, missed: &[cell::Miss]) -> String {
    use cell::Miss;
    let asked = nothing_said(f, &[]);
    if let Some(Miss::Column(stub)) = missed.iter().find(|m| matches!(m, Miss::Column(_))) {
        return format!(
            "the table has no single column for what is asked ({asked}) in the row \"{stub}\""
        );
    }
    let rows: Vec<&str> = missed
        .iter()
        .filter_map(|m| match m {
            Miss::Row(s) => Some(s.as_str()),
            _ => None,
        })
        .take(3)
        .collect();
    format!(
        "the table has no row for what is asked ({asked}); rows found: {}",
        rows.iter()
            .map(|r| format!("\"{r}\""))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// For an identifier: why the covering items leave it open — another item, naming what
/// is asked as much as the first, states a different identifier (a document holding two
/// notices, each with its docket number, neither naming the question's subject).
pub(super) fn ambiguous(
    f: &Frame,
    covering: &[(&String, &Verdict)],
    named: &[usize],
    value: &Found,
) -> Option<String> {
    if f.answer_type != AnswerType::Identifier {
        return None;
    }
    let best = named.first().copied()?;
    let other = covering
        .iter()
        .zip(named)
        .take_while(|(_, k)| **k == best)
        .flat_map(|((_, v), _)| values(f, &v.candidate.quote))
        .find(|x| x.normalised != value.normalised)?;
    Some(format!(
        "the passages state different identifiers ({} and {}) and none names {} itself",
        value.normalised,
        other.normalised,
        nothing_said(f, &[])
    ))
}

/// Bytes after a label read for the identifier it introduces.
const LABEL_REACH: usize = 48;

/// For an identifier read in candidate `c` after a label ("Docket No."): why it is open
/// when the same document gives that label another identifier elsewhere and the quote
/// itself does not name every named thing of `f` (a file of two notices, the other
/// notice's docket retrieved alone).
pub(super) fn labelled_elsewhere(
    engine: &Engine,
    f: &Frame,
    c: &crate::evidence::extract::Candidate,
    value: &Found,
) -> Option<String> {
    if f.answer_type != AnswerType::Identifier || f.entities.is_empty() {
        return None;
    }
    let quote = stems(&c.quote);
    let named = f.entities.iter().all(|e| {
        crate::text::words(&e.to_lowercase())
            .iter()
            .all(|w| has_word(&quote, w))
    });
    if named {
        return None;
    }
    // The label: the last two words before the value.
    let before = c.quote.get(..value.start)?.trim_end();
    let words: Vec<&str> = before.split_whitespace().collect();
    let label = words.get(words.len().checked_sub(2)?..)?.join(" ");
    if label.chars().filter(|ch| ch.is_alphabetic()).count() < 3 {
        return None;
    }
    let text = engine.store().document_text(&c.doc_id).ok()??;
    let other = text.match_indices(&label).find_map(|(i, _)| {
        let from = i + label.len();
        let mut to = (from + LABEL_REACH).min(text.len());
        while !text.is_char_boundary(to) {
            to -= 1;
        }
        let v = values(f, text.get(from..to)?).into_iter().next()?;
        (v.normalised != value.normalised).then_some(v.normalised)
    })?;
    Some(format!(
        "the document gives \"{label}\" two identifiers ({} and {other}) and the passage \
         found does not name {} itself",
        value.normalised,
        nothing_said(f, &[])
    ))
}

/// Whether item `id` is read as a table row: three numbers or more, unless it is a
/// sentence (its numbers under a third of its words) whose wording binds one of its
/// values to question `f` ([`super::bind::decisive`]: "valid for five years from 1 March
/// 2025 and expires on 28 February 2030" for "When does it expire?"); such a value is
/// read from the wording, the others' cells from their row and column.
pub(super) fn tabular_row(f: &Frame, n: &Numbered, id: &str) -> bool {
    n.get(id).is_some_and(|v| {
        let quote = &v.candidate.quote;
        let numbers = crate::figure::numbers(quote).len();
        let prose = numbers * 3 < crate::text::word_count(quote);
        numbers >= 3 && !(prose && super::bind::decisive(f, quote, &super::fit::values(f, quote)))
    })
}
