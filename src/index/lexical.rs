//! Lexical retrieval: turning user text into a safe lexical query ([`LexQuery`]) that a
//! backend runs as BM25 (FTS5 for SQLite).
//!
//! User text never reaches FTS5 syntax: it is split into words (letters and digits),
//! each word becomes a double-quoted string token, and the tokens are OR-ed. Quotes,
//! `-`, `*`, `:`, `^`, parentheses and the operators `AND` / `OR` / `NOT` / `NEAR` are
//! therefore plain words or separators, never syntax.

use crate::text::{is_stopword, words};

/// Most distinct terms put into one FTS5 query (long queries keep their first terms).
pub const MAX_TERMS: usize = 64;

/// The distinct content terms of `text`, in first-seen order: stop words are removed
/// unless nothing else is left; at most [`MAX_TERMS`].
pub fn query_terms(text: &str) -> Vec<String> {
    let all = words(text);
    let mut seen = std::collections::HashSet::new();
    let content: Vec<String> = all
        .iter()
        .filter(|w| !is_stopword(w))
        .filter(|w| seen.insert(w.to_string()))
        .take(MAX_TERMS)
        .cloned()
        .collect();
    if !content.is_empty() {
        return content;
    }
    let mut seen = std::collections::HashSet::new();
    all.into_iter()
        .filter(|w| seen.insert(w.clone()))
        .take(MAX_TERMS)
        .collect()
}

pub use crate::store::LexQuery;

/// The lexical query for `text`: its content terms, the abbreviations forms print for
/// them, and (for a short text) the text as a phrase; `None` when it has no words at all.
pub fn lex_query(text: &str) -> Option<LexQuery> {
    let mut terms = query_terms(text);
    if terms.is_empty() {
        return None;
    }
    // "revision" also looks for "Rev." (forms print their abbreviations).
    let short: Vec<String> = terms
        .iter()
        .flat_map(|t| crate::text::abbreviations_of(t))
        .filter(|a| !terms.iter().any(|t| t == a))
        .map(str::to_string)
        .collect();
    terms.extend(short);
    // A short text is also matched as a phrase, its words in order ("other names used"):
    // a passage that prints it scores above one that scatters its words.
    let all = words(text);
    if (2..=MAX_PHRASE_WORDS).contains(&all.len()) {
        terms.push(all.join(" "));
    }
    Some(LexQuery { terms })
}

/// Most words of a text that is also matched as a phrase.
pub const MAX_PHRASE_WORDS: usize = 6;

#[cfg(test)]
mod tests {
    use super::*;

    fn fts_query(text: &str) -> Option<String> {
        lex_query(text).map(|q| q.fts5())
    }

    #[test]
    fn syntax_characters_become_plain_quoted_terms() {
        let q = fts_query(r#"records" AND -retention* NEAR(x) col:umn ^start"#).unwrap();
        assert_eq!(
            q,
            r#""records" OR "retention" OR "near" OR "x" OR "col" OR "umn" OR "start""#
        );
        // A short text is matched as a phrase too.
        assert_eq!(
            fts_query("Other names used").unwrap(),
            r#""names" OR "used" OR "other names used""#
        );
    }

    #[test]
    fn only_stop_words_are_kept_when_nothing_else_remains() {
        assert_eq!(query_terms("what is it"), vec!["what", "is", "it"]);
        assert_eq!(query_terms("what is retention"), vec!["retention"]);
        assert_eq!(fts_query("  ?!- "), None);
    }

    #[test]
    fn a_word_forms_abbreviate_is_also_looked_for_by_its_abbreviation() {
        let q = fts_query("what revision date does the form carry").unwrap();
        assert!(q.contains("\"revision\""), "{q}");
        assert!(q.contains("\"rev\""), "{q}");
        assert!(!fts_query("the first article").unwrap().contains("\"art\""));
    }

    #[test]
    fn a_phrase_keeps_its_words_in_order_and_no_syntax() {
        let q = LexQuery::phrase("Project \"ID\" (no.)").unwrap();
        assert_eq!(q.terms, vec!["project id no"]);
        assert_eq!(q.fts5(), "\"project id no\"");
        assert_eq!(q.words(), vec!["project", "id", "no"]);
        assert_eq!(LexQuery::phrase(" -- "), None);
    }

    #[test]
    fn long_queries_are_capped() {
        let q: String = (0..10_000).map(|i| format!("w{i} ")).collect();
        assert_eq!(query_terms(&q).len(), MAX_TERMS);
    }

    #[test]
    fn non_english_words_are_kept() {
        assert_eq!(
            query_terms("Ünïcödé 東京 café"),
            vec!["ünïcödé", "東京", "café"]
        );
    }
}
