//! What a passage is about, when its structure says so: a table row is about its stub,
//! the text of its first cell ("Dog licence" of "| Dog licence | 12 months | $20 |").
//!
//! Two passages that state different values conflict only when they speak of the same
//! thing. Rows of one table with different stubs are different things however many words
//! they share (a dog licence's fee and a cat licence's fee differ without contradicting
//! each other); so are rows of different documents whose stubs each name something the
//! other does not, and a row and a sentence that does not name the row's stub.

use std::collections::BTreeSet;

use crate::text::content_words;

/// The cells of `quote` when it is one table row: cells joined by `|`, as the loaders
/// write Markdown, HTML and DOCX rows (outer pipes aside), at least two of them, on one
/// line; `None` for any other text.
pub fn row_cells(quote: &str) -> Option<Vec<&str>> {
    let t = quote.trim();
    if t.contains('\n') || !t.contains('|') {
        return None;
    }
    let inner = t.strip_prefix('|').unwrap_or(t);
    let inner = inner.strip_suffix('|').unwrap_or(inner);
    let cells: Vec<&str> = inner.split('|').map(str::trim).collect();
    (cells.len() >= 2).then_some(cells)
}

/// The stub of a row quote (its first cell), when it has words.
pub fn stub(quote: &str) -> Option<&str> {
    row_cells(quote)?
        .first()
        .copied()
        .filter(|s| s.chars().any(char::is_alphanumeric))
}

/// Content words of `s`, stemmed, a final "e" of a longer stem dropped so that a
/// singular and its plural meet ("licence" and "licences").
fn word_set(s: &str) -> BTreeSet<String> {
    content_words(s)
        .into_iter()
        .map(|w| match w.len() > 4 && w.ends_with('e') {
            true => w[..w.len() - 1].to_string(),
            false => w,
        })
        .collect()
}

/// Whether quotes `a` and `b` (of one document when `same_doc`) may speak of the same
/// thing, as far as their structure tells: two rows when their stubs have the same
/// words, or (across documents) neither stub names something the other lacks; a row and
/// other text when the text names every word of the row's stub; any other two, yes.
pub fn same_subject(a: &str, b: &str, same_doc: bool) -> bool {
    match (stub(a), stub(b)) {
        (Some(x), Some(y)) => {
            let (x, y) = (word_set(x), word_set(y));
            x == y || (!same_doc && (x.is_subset(&y) || y.is_subset(&x)))
        }
        (Some(x), None) => word_set(x).is_subset(&word_set(b)),
        (None, Some(y)) => word_set(y).is_subset(&word_set(a)),
        (None, None) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_is_about_its_stub() {
        assert_eq!(
            row_cells("| Dog licence | 12 months | $20 |"),
            Some(vec!["Dog licence", "12 months", "$20"])
        );
        assert_eq!(stub("Boat permit | 1 year | $45"), Some("Boat permit"));
        assert_eq!(row_cells("Dogs must be licensed every year."), None);
        assert_eq!(row_cells("| a |\n| b |"), None);
        assert_eq!(stub("|  | 12 | 40 |"), None);
    }

    #[test]
    fn rows_with_other_stubs_are_other_things() {
        let dog = "| Dog licence | 12 months | $20 |";
        let cat = "| Cat licence | 12 months | $30 |";
        assert!(!same_subject(dog, cat, true));
        assert!(!same_subject(dog, cat, false));
        assert!(!same_subject(
            "Boat mooring permit | 1 year | $45",
            "Boat launch permit | 1 year | $15",
            true
        ));
        // The same row in two documents' schedules is one thing.
        assert!(same_subject(
            dog,
            "| Dog licence | 12 months | $25 |",
            false
        ));
        assert!(same_subject(dog, "| Dog licences | 1 year | $25 |", false));
        // A row and a sentence: the sentence must name the stub.
        assert!(same_subject(
            dog,
            "A dog licence costs $25 for 12 months.",
            false
        ));
        assert!(!same_subject(
            cat,
            "A dog licence costs $25 for 12 months.",
            false
        ));
        // Two sentences: the structure says nothing.
        assert!(same_subject(
            "Client records must be kept 7 years.",
            "Client records must be kept 10 years.",
            false
        ));
    }
}
