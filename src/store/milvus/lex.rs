//! Words for the Milvus BM25 index, normalised as SQLite's FTS5 tokenizer
//! (`porter unicode61 remove_diacritics 2`) normalises them: runs of letters and digits,
//! lower-cased, diacritics removed, English-stemmed. Milvus's own analyzer (milvus-lite
//! offers only the `standard` tokenizer, without stemming) then only splits on spaces,
//! so both backends match the same words.

use rust_stemmers::{Algorithm, Stemmer};
use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

/// The normalised words of `text`, in order.
pub fn terms(text: &str) -> Vec<String> {
    let stemmer = Stemmer::create(Algorithm::English);
    crate::text::words(text)
        .into_iter()
        .map(|w| {
            let plain: String = w.nfd().filter(|c| !is_combining_mark(*c)).collect();
            stemmer.stem(&plain).into_owned()
        })
        .collect()
}

/// [`terms`] joined by spaces: what the BM25 field of a chunk holds, cut (at a word) to
/// at most `max_bytes`.
pub fn indexed(text: &str, max_bytes: usize) -> String {
    let mut out = String::new();
    for t in terms(text) {
        if out.len() + t.len() + 1 > max_bytes {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&t);
    }
    out
}

/// Whether the words `phrase` appear consecutively in `words`.
pub fn holds_phrase(words: &[&str], phrase: &[String]) -> bool {
    !phrase.is_empty()
        && words
            .windows(phrase.len())
            .any(|w| w.iter().zip(phrase).all(|(a, b)| *a == b.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_lowered_stripped_of_diacritics_and_stemmed() {
        assert_eq!(
            terms("Records RETAINED; café"),
            vec!["record", "retain", "cafe"]
        );
        assert_eq!(indexed("retention of records", 100), "retent of record");
        assert_eq!(indexed("retention of records", 10), "retent of");
    }

    #[test]
    fn a_phrase_must_be_consecutive() {
        let p = terms("project id");
        assert!(holds_phrase(&["the", "project", "id", "is"], &p));
        assert!(!holds_phrase(&["project", "the", "id"], &p));
        assert!(!holds_phrase(&["project"], &[]));
    }
}
