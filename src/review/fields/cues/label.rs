//! Values read under their label: the header of a table cell, or the label of a whole
//! quote that names no field itself.

use super::{markers, MAX_LABELLED_SENTENCE_WORDS, MAX_LABELLED_WORDS};
use crate::review::fields::FieldSpec;

/// The header of the table cell holding `[s, e)`, when the quote is a row whose cells
/// line up with the `|`-separated headers of `context`.
pub(super) fn cell_header(quote: &str, context: &str, s: usize) -> Option<String> {
    let headers = context
        .rsplit_once(": ")
        .map_or(context, |(cap, h)| if h.contains('|') { h } else { cap });
    let headers: Vec<&str> = headers.split('|').map(str::trim).collect();
    let cells: Vec<(usize, &str)> = split_cells(quote);
    if headers.len() < 2 || headers.len() != cells.len() {
        return None;
    }
    let i = cells.iter().rposition(|(at, _)| *at <= s)?;
    let generic = [
        "value",
        "values",
        "detail",
        "details",
        "description",
        "information",
        "answer",
        "response",
        "data",
        "entry",
        "",
    ];
    if i > 0 && generic.contains(&headers[i].to_ascii_lowercase().as_str()) {
        // A key-value table: the value is read under the table's subject and its key.
        return Some(format!("{} {}", headers[0], cells[0].1.trim()));
    }
    Some(headers[i].to_string())
}

/// The cells of a `a | b | c` row with their offsets (outer pipes of Markdown dropped).
fn split_cells(row: &str) -> Vec<(usize, &str)> {
    let mut cells = Vec::new();
    let mut at = 0;
    for part in row.split('|') {
        cells.push((at, part));
        at += part.len() + 1;
    }
    if row.trim_start().starts_with('|') {
        cells.remove(0);
    }
    if row.trim_end().ends_with('|') {
        cells.pop();
    }
    cells
}

/// Whether the label text `context` introduces `spec` and no competing field.
fn label_introduces(spec: &FieldSpec, context: &str) -> bool {
    let lower = context.to_ascii_lowercase();
    let ms = markers(spec, &lower);
    !ms.is_empty() && ms.iter().all(|m| m.fields.contains(&spec.name))
}

/// Whether the value at `[s, e)` (no cue of its own in the quote) is introduced by its
/// label: the header of its cell, or the label of the whole quote.
pub(super) fn by_label(spec: &FieldSpec, quote: &str, context: Option<&str>, s: usize) -> bool {
    let Some(ctx) = context else { return false };
    if ctx.contains('|') && quote.contains('|') {
        return cell_header(quote, ctx, s).is_some_and(|h| label_introduces(spec, &h));
    }
    crate::text::word_count(quote) <= MAX_LABELLED_SENTENCE_WORDS && label_introduces(spec, ctx)
}

/// The spans of `quote` its label introduces as values of `spec` (when the quote names
/// no field itself): the cells under a header that introduces it, or the whole quote
/// (trimmed) under a label that does.
pub(super) fn label_spans(
    spec: &FieldSpec,
    quote: &str,
    context: Option<&str>,
) -> Vec<(usize, usize)> {
    let Some(ctx) = context else {
        return Vec::new();
    };
    let short = |(s, e): &(usize, usize)| {
        s < e && crate::text::word_count(&quote[*s..*e]) <= MAX_LABELLED_WORDS
    };
    let trim = |at: usize, cell: &str| {
        let body = cell.trim_end_matches(|c: char| c.is_whitespace() || c == '.');
        let lead = body.len() - body.trim_start().len();
        (at + lead, at + body.len())
    };
    if ctx.contains('|') && quote.contains('|') {
        return split_cells(quote)
            .into_iter()
            .filter(|(at, _)| {
                cell_header(quote, ctx, *at).is_some_and(|h| label_introduces(spec, &h))
            })
            .map(|(at, cell)| trim(at, cell))
            .filter(short)
            .collect();
    }
    if label_introduces(spec, ctx) {
        vec![trim(0, quote)].into_iter().filter(short).collect()
    } else {
        Vec::new()
    }
}
