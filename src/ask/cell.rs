//! Tables cell by cell: which cell of a cited table row a question asks for.
//!
//! A row of several values answers one of them only when the question names that
//! value's column: the cell whose column header shares the most words or figures with
//! the question, among the cells holding a value of the asked type. Cells that state a
//! figure of the question name the row (a stub such as `$365,000 - 524,999`), not the
//! answer. No unique best column: no value is claimed and the row is cited whole.

use crate::engine::Engine;
use crate::evidence::extract::Candidate;
use crate::frame::Frame;
use crate::value::typed::Found;
use std::collections::HashSet;

/// The cell a question asks for: its value (offsets in the item's quote) and the label
/// `row × column`.
#[derive(Debug, Clone)]
pub(super) struct Pick {
    /// The value, with offsets in the quote.
    pub value: Found,
    /// `row × column`: the row's stub and the cell's column header.
    pub label: String,
}

/// Why a table row gives no cell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Miss {
    /// Not a row whose cells are known.
    NotARow,
    /// The row (its stub, given) is not the one the question names, or names it only
    /// together with another thing ("United States and Canada" for Canada's own).
    Row(String),
    /// The row (its stub, given) has no column the question names best.
    Column(String),
}

/// The cell of candidate `c` (a table row) that frame `f` asks for, read with
/// `values` (the frame's value reader: a text and the heading that names a date's role,
/// `None` for any value), when exactly one column is named best.
pub(super) fn pick(
    engine: &Engine,
    f: &Frame,
    c: &Candidate,
    values: impl Fn(&str, Option<&str>) -> Vec<Found>,
) -> Result<Pick, Miss> {
    let text = engine
        .store()
        .document_text(&c.doc_id)
        .ok()
        .flatten()
        .ok_or(Miss::NotARow)?;
    let layout = engine
        .store()
        .document_layout(&c.doc_id, &text)
        .map_err(|_| Miss::NotARow)?;
    let row = layout
        .label_for(c.start, c.end)
        .filter(|r| !r.cells.is_empty())
        .ok_or(Miss::NotARow)?;
    let asked: HashSet<String> = f
        .qualifiers
        .iter()
        .filter(|w| !crate::text::is_stopword(w) || BOUND_WORDS.contains(&w.as_str()))
        .flat_map(|w| crate::text::stem_forms(w))
        .collect();
    let stub = row.stub(&text).unwrap_or_default().trim();
    if other_table(f, &row.label)
        || !row_named(f, row, &text, &asked, &values)
        || combined(stub, f, &asked)
    {
        return Err(Miss::Row(stub.to_string()));
    }
    let mut scored = scored_cells(f, c, row, &text, &asked, stub, &values);
    let no_column = || Miss::Column(stub.to_string());
    // No cell holds a value alone, but the row does across its cells ("1,250 | ha"): one
    // such value answers, labelled by the cell it starts in.
    if scored.is_empty() {
        return across_cells(c, row, stub, &values).ok_or_else(no_column);
    }
    // A row of one value, named by the question, answers with it whatever its column.
    if scored.len() == 1 {
        return scored.pop().map(|(_, p)| p).ok_or_else(no_column);
    }
    let top = scored
        .iter()
        .map(|(s, _)| *s)
        .max()
        .filter(|s| s.0 > 0)
        .ok_or_else(no_column)?;
    let mut best = scored.into_iter().filter(|(s, _)| *s == top);
    let first = best.next().ok_or_else(no_column)?;
    // Several columns equally named: "the first Handgun column" picks the first.
    let first_asked = f.order == Some(crate::frame::Order::First);
    if first_asked || best.next().is_none() {
        Ok(first.1)
    } else {
        Err(no_column())
    }
}

/// Whether `row` is the one asked about: its cells without a value (its stub) name a
/// figure of the question, or words (of `asked`) that are half its words or more.
fn row_named(
    f: &Frame,
    row: &crate::corpus::layout::Labelled,
    text: &str,
    asked: &HashSet<String>,
    values: impl Fn(&str, Option<&str>) -> Vec<Found>,
) -> bool {
    // The stub names the row even when it reads as a value: a range of amounts
    // ("$100,000 - 124,999") heads its row of figures.
    let stub = row.cells.len() > 2 && names_the_row(row.stub(text));
    let naming: String = row
        .cells
        .iter()
        .enumerate()
        .filter(|&(k, x)| (k == 0 && stub) || values(&text[x.start..x.end], None).is_empty())
        .filter_map(|(_, x)| text.get(x.start..x.end))
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    // Most of the stub's words are asked about: "Curfew and loitering law violations"
    // is not the row of "drug abuse violations".
    let words: Vec<String> = crate::text::words(&naming)
        .into_iter()
        .filter(|w| !crate::text::is_stopword(w) && !w.chars().all(|c| c.is_ascii_digit()))
        .collect();
    let named = words
        .iter()
        .filter(|w| crate::text::stem_forms(w).iter().any(|s| asked.contains(s)))
        .count();
    // A stub of totals ("Total") is the row of a question whose every focus word the
    // table's label or the stub writes: not of "arrests for drug abuse violations".
    let totals = !words.is_empty() && words.iter().all(|w| TOTAL_WORDS.contains(&w.as_str()));
    let said = crate::text::words(&format!("{} {naming}", row.label).to_lowercase());
    let said: HashSet<String> = said
        .iter()
        .flat_map(|w| crate::text::stem_forms(w))
        .collect();
    let unsaid = f.focus.iter().any(|w| {
        !crate::text::stem_forms(&w.to_lowercase())
            .iter()
            .any(|s| said.contains(s))
    });
    (named > 0 && 2 * named >= words.len() && !(totals && unsaid))
        || f.figures.iter().any(|x| naming.contains(x.as_str()))
}

/// The numbered things `words` name: ("table", "324") for "… Table 324 …".
fn numbered(words: &[String]) -> Vec<(String, String)> {
    words
        .windows(2)
        .filter(|p| {
            crate::corpus::layout::CAPTION_WORDS.contains(&p[0].as_str())
                && p[1].chars().any(|c| c.is_ascii_digit())
        })
        .map(|p| (p[0].clone(), p[1].clone()))
        .collect()
}

/// Whether the question names a numbered table ("In Table 324, …") and the row's label
/// opens with the caption of another one ("Table 325. Arrests by Race").
fn other_table(f: &Frame, label: &str) -> bool {
    let asked = numbered(&f.qualifiers);
    let words = crate::text::words(&label.to_lowercase());
    let Some((kind, number)) = numbered(&words[..words.len().min(2)]).pop() else {
        return false;
    };
    let same_kind: Vec<&(String, String)> = asked.iter().filter(|(k, _)| *k == kind).collect();
    !same_kind.is_empty() && !same_kind.iter().any(|(_, n)| *n == number)
}

/// Words of a stub that sums the rows below it.
const TOTAL_WORDS: &[&str] = &["total", "totals", "all", "subtotal", "grand", "overall"];

/// A cell's score (see [`column_score`]) and what it would answer.
type Scored = ((usize, std::cmp::Reverse<usize>), Pick);

/// The cells of `row` inside candidate `c` that hold a value (none stating a figure of
/// the question: those name the row), each with its column's score.
fn scored_cells(
    f: &Frame,
    c: &Candidate,
    row: &crate::corpus::layout::Labelled,
    text: &str,
    asked: &HashSet<String>,
    stub: &str,
    values: impl Fn(&str, Option<&str>) -> Vec<Found>,
) -> Vec<Scored> {
    let mut scored = Vec::new();
    for (k, cell) in row.cells.iter().enumerate() {
        if k == 0 && row.cells.len() > 2 && names_the_row(text.get(cell.start..cell.end)) {
            continue;
        }
        if cell.start < c.start || cell.end > c.start + c.quote.len() {
            continue;
        }
        let Some(body) = text.get(cell.start..cell.end) else {
            continue;
        };
        let lower = body.to_lowercase();
        if f.figures.iter().any(|x| lower.contains(x.as_str())) {
            continue;
        }
        let Some(v) = values(body, Some(&cell.column)).into_iter().next() else {
            continue;
        };
        let at = cell.start - c.start;
        scored.push((
            column_score(&cell.column, asked, &f.figures),
            Pick {
                value: Found {
                    start: at + v.start,
                    end: at + v.end,
                    ..v
                },
                label: format!("{stub} × {}", cell.column),
            },
        ));
    }
    scored
}

/// Whether a row's first cell `body` is its stub rather than a value: words or a range
/// ("Robbery", "$100,000 - 124,999").
fn names_the_row(body: Option<&str>) -> bool {
    body.is_some_and(|b| {
        b.chars().any(char::is_alphabetic) || b.contains(" - ") || b.contains(" – ")
    })
}

/// The one value row `c` states across its cells (a number and its unit in two
/// cells), labelled `stub × column` of the cell it starts in.
fn across_cells(
    c: &Candidate,
    row: &crate::corpus::layout::Labelled,
    stub: &str,
    values: impl Fn(&str, Option<&str>) -> Vec<Found>,
) -> Option<Pick> {
    let vs = values(&c.quote, Some(c.label.as_deref().unwrap_or("")));
    let [v] = vs.as_slice() else {
        return None;
    };
    let at = c.start + v.start;
    let cell = row.cells.iter().find(|x| x.start <= at && at < x.end)?;
    Some(Pick {
        value: v.clone(),
        label: format!("{stub} × {}", cell.column),
    })
}

/// Whether a row's `stub` names a thing the question asks about only together with
/// another thing the question does not name: "United States and Canada" is not Canada's
/// own row.
fn combined(stub: &str, f: &Frame, asked: &HashSet<String>) -> bool {
    let lower = stub.to_lowercase();
    let parts: Vec<&str> = lower
        .split(" and ")
        .flat_map(|p| p.split(['&', '/']))
        .filter(|p| !p.trim().is_empty())
        .collect();
    if parts.len() < 2 || f.entities.is_empty() {
        return false;
    }
    let names = |p: &str| {
        crate::text::words(p)
            .iter()
            .filter(|w| !crate::text::is_stopword(w))
            .any(|w| crate::text::stem_forms(w).iter().any(|s| asked.contains(s)))
    };
    parts.iter().any(|p| names(p)) && parts.iter().any(|p| !names(p))
}

/// Whether candidate `c` is a table row whose cells are known.
pub(super) fn is_row(engine: &Engine, c: &Candidate) -> bool {
    let Some(text) = engine.store().document_text(&c.doc_id).ok().flatten() else {
        return false;
    };
    engine
        .store()
        .document_layout(&c.doc_id, &text)
        .ok()
        .and_then(|l| l.label_for(c.start, c.end).map(|r| !r.cells.is_empty()))
        .unwrap_or(false)
}

/// Stop words that tell columns of ranges apart ("Under 18", "65 and over").
const BOUND_WORDS: &[&str] = &["under", "over", "above", "below"];

/// How well a column header matches the question: shared words (stems) plus twice each
/// figure of the question it states, then fewer header words the question lacks.
fn column_score(
    column: &str,
    asked: &HashSet<String>,
    figures: &[String],
) -> (usize, std::cmp::Reverse<usize>) {
    let lower = column.to_lowercase();
    // "Under 18 years" and "18 years and over" differ by their bound words; a word
    // counts once ("Total Total", the total of totals, names no more than "Total").
    let mut words: Vec<String> = crate::text::words(&lower)
        .into_iter()
        .filter(|w| !crate::text::is_stopword(w) || BOUND_WORDS.contains(&w.as_str()))
        .collect();
    words.sort();
    words.dedup();
    let shared = words
        .iter()
        .filter(|w| crate::text::stem_forms(w).iter().any(|s| asked.contains(s)))
        .count();
    let stated = figures
        .iter()
        .filter(|x| lower.contains(x.as_str()))
        .count();
    (shared + 2 * stated, std::cmp::Reverse(words.len() - shared))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_under_another_numbered_caption_is_not_the_asked_table_s() {
        let f = crate::frame::frame("In Table 324, how many robbery arrests are reported?");
        assert!(other_table(
            &f,
            "Table 325. Arrests by Race: 2009 Offense charged"
        ));
        assert!(!other_table(
            &f,
            "Table 324. Arrests by Sex and Age: 2009 Total"
        ));
        // A label without a numbered caption, or a question naming none, rules nothing out.
        assert!(!other_table(&f, "Offense charged Total White Black"));
        let g = crate::frame::frame("How many robbery arrests are reported?");
        assert!(!other_table(&g, "Table 325. Arrests by Race: 2009"));
        // A figure is not a table.
        assert!(!other_table(&f, "Figure 2. Arrests by year"));
    }

    #[test]
    fn a_header_word_twice_names_a_column_once() {
        let asked: HashSet<String> = ["female", "total"].iter().map(|w| w.to_string()).collect();
        let total_total = column_score("Total Total", &asked, &[]);
        let female_total = column_score("Female Total", &asked, &[]);
        assert!(
            female_total > total_total,
            "{female_total:?} {total_total:?}"
        );
    }
}
