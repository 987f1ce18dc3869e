//! The lexical query a backend runs as BM25, built by `index::lexical`.

use crate::text::words;

/// A lexical query, independent of the engine that runs it: terms OR-ed, each a word or a
/// phrase (words that must appear in order). Built only from [`crate::text::words`], so no
/// term carries query syntax.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LexQuery {
    /// Words and phrases (several words joined by one space), in first-seen order.
    pub terms: Vec<String>,
}

impl LexQuery {
    /// One phrase: `text`'s words in order (`None` when it has no words).
    pub fn phrase(text: &str) -> Option<Self> {
        let all = words(text);
        (!all.is_empty()).then(|| LexQuery {
            terms: vec![all.join(" ")],
        })
    }

    /// The FTS5 MATCH expression: every term double-quoted, OR-ed.
    pub fn fts5(&self) -> String {
        let quoted: Vec<String> = self
            .terms
            .iter()
            .map(|t| format!("\"{}\"", t.replace('"', "\"\"")))
            .collect();
        quoted.join(" OR ")
    }

    /// Every word of every term, each once, in first-seen order.
    pub fn words(&self) -> Vec<&str> {
        let mut seen = std::collections::HashSet::new();
        self.terms
            .iter()
            .flat_map(|t| t.split(' '))
            .filter(|w| !w.is_empty() && seen.insert(*w))
            .collect()
    }
}
