//! Lexical ranking on Milvus, identical to SQLite's: Milvus's own BM25 (over the words
//! of [`lex`]) only proposes candidates; each is then scored with FTS5's `bm25()` formula
//! from the same statistics FTS5 keeps: rows, tokens per row and in all, rows holding each
//! phrase, and phrase hits per column weighted 1.0 (text) and 0.5 (context).
//!
//! `score = Σ_phrases idf · f·(k1+1) / (f + k1·(1 − b + b·D/avgdl))`, `k1` = 1.2, `b` =
//! 0.75, `idf = ln((N − n + 0.5)/(n + 0.5))` (at least 1e-6), `f` the weighted hits and `D`
//! the row's tokens. A row FTS5 would rank within the limit is missed only when Milvus's
//! own BM25 ranks it below [`CANDIDATE_FACTOR`] times the limit. A phrase of several
//! words that more than [`PHRASE_SAMPLE_ROWS`] rows hold all the words of has its row
//! count estimated from a sample (its idf, not the rows found, can then differ slightly
//! from FTS5's).

use std::collections::HashMap;

use super::{client, int, int_list, lex, text, MilvusStore};
use crate::store::{LexQuery, Records, StoreError};

/// Candidates fetched per result asked for.
pub const CANDIDATE_FACTOR: usize = 4;

/// Fewest candidates fetched.
const MIN_CANDIDATES: usize = 200;

/// Most rows Milvus returns for one search or one query window.
const MAX_WINDOW: usize = 16_384;

/// Rows holding all of a phrase's words that are read to see whether they hold the phrase;
/// when more rows hold the words, the share of these that hold it stands for all of them.
const PHRASE_SAMPLE_ROWS: usize = 2_000;

const K1: f64 = 1.2;
const B: f64 = 0.75;
/// FTS5 column weights: text, context.
const WEIGHTS: [f64; 2] = [1.0, 0.5];

/// Corpus-wide statistics at one corpus version.
#[derive(Debug, Default)]
pub(super) struct Stats {
    version: u64,
    rows: i64,
    tokens: i64,
    /// Rows holding each phrase (its words joined by spaces).
    hits: HashMap<String, i64>,
}

/// A candidate's words, by column.
struct Row {
    id: i64,
    columns: [Vec<String>; 2],
}

/// Times `phrase` occurs in `words` (overlapping occurrences count, as FTS5 counts them).
fn occurrences(words: &[String], phrase: &[String]) -> usize {
    if phrase.is_empty() || words.len() < phrase.len() {
        return 0;
    }
    words.windows(phrase.len()).filter(|w| *w == phrase).count()
}

/// FTS5's score of `row` for `phrases` with idfs `idf`; `None` when no phrase occurs.
fn score(row: &Row, phrases: &[Vec<String>], idf: &[f64], avgdl: f64) -> Option<f64> {
    let d = (row.columns[0].len() + row.columns[1].len()) as f64;
    let mut any = false;
    let mut s = 0.0;
    for (p, w) in phrases.iter().zip(idf) {
        let mut f = 0.0;
        for (col, weight) in row.columns.iter().zip(WEIGHTS) {
            for _ in 0..occurrences(col, p) {
                f += weight;
            }
        }
        any |= f > 0.0;
        s += w * ((f * (K1 + 1.0)) / (f + K1 * (1.0 - B + B * d / avgdl)));
    }
    any.then_some(s)
}

/// FTS5's idf for a phrase held by `hits` of `rows` rows.
fn idf(rows: i64, hits: i64) -> f64 {
    let v = ((rows - hits) as f64 + 0.5) / (hits as f64 + 0.5);
    let v = v.ln();
    if v <= 0.0 {
        1e-6
    } else {
        v
    }
}

/// Of `all` rows, how many hold what `held` of a sample of `seen` hold (exact when the
/// sample is all of them).
fn scale_sample(held: i64, seen: i64, all: i64) -> i64 {
    if seen >= all || seen == 0 {
        return held;
    }
    ((held as f64) * (all as f64) / (seen as f64)).round() as i64
}

fn words(s: &str) -> Vec<String> {
    s.split(' ')
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

impl MilvusStore {
    /// BM25 top-`limit` among chunks matching `filter`, ranked as FTS5 ranks them.
    pub(super) fn bm25(
        &self,
        query: &LexQuery,
        limit: usize,
        filter: Option<&str>,
    ) -> Result<Vec<(i64, f64)>, StoreError> {
        let phrases: Vec<Vec<String>> = query
            .terms
            .iter()
            .map(|t| lex::terms(t))
            .filter(|p| !p.is_empty())
            .collect();
        if phrases.is_empty() || limit == 0 {
            return Ok(Vec::new());
        }
        let rows = self.candidates(&phrases, limit, filter)?;
        let (n, avgdl, idfs) = self.phrase_stats(&phrases)?;
        if n == 0 {
            return Ok(Vec::new());
        }
        let mut out: Vec<(i64, f64)> = rows
            .iter()
            .filter_map(|r| score(r, &phrases, &idfs, avgdl).map(|s| (r.id, s)))
            .collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        out.truncate(limit);
        Ok(out)
    }

    /// Milvus's BM25 top candidates for the phrases' words, with their words by column.
    fn candidates(
        &self,
        phrases: &[Vec<String>],
        limit: usize,
        filter: Option<&str>,
    ) -> Result<Vec<Row>, StoreError> {
        let all: Vec<String> = phrases.iter().flatten().cloned().collect();
        let fetch = (limit * CANDIDATE_FACTOR).clamp(MIN_CANDIDATES, MAX_WINDOW);
        let name = self.name("chunks");
        let hits = self
            .conn
            .search_bm25(&name, "sparse", &all.join(" "), fetch, filter)
            .map_err(|e| self.fail(e))?;
        let ids: Vec<i64> = hits.iter().map(|h| h.0).collect();
        self.rows_words(&int_list("id", &ids), ids.is_empty())
    }

    fn rows_words(&self, filter: &str, none: bool) -> Result<Vec<Row>, StoreError> {
        if none {
            return Ok(Vec::new());
        }
        Ok(self
            .query("chunks", filter, &["id", "lex_text", "lex_ctx"])?
            .iter()
            .map(|r| Row {
                id: int(r, "id"),
                columns: [words(&text(r, "lex_text")), words(&text(r, "lex_ctx"))],
            })
            .collect())
    }

    /// Rows, average tokens per row and each phrase's idf, at the current corpus version.
    fn phrase_stats(&self, phrases: &[Vec<String>]) -> Result<(i64, f64, Vec<f64>), StoreError> {
        let (rows, tokens, hits) = self.phrase_hits(phrases)?;
        let idfs = hits.iter().map(|h| idf(rows, *h)).collect();
        Ok((rows, tokens as f64 / rows.max(1) as f64, idfs))
    }

    /// Rows and tokens in all, and rows holding each phrase, at the current corpus version
    /// (cached until it moves).
    pub(super) fn phrase_hits(
        &self,
        phrases: &[Vec<String>],
    ) -> Result<(i64, i64, Vec<i64>), StoreError> {
        let version = self.corpus_version()?;
        let mut stats = self.stats.lock().unwrap_or_else(|p| p.into_inner());
        if stats.version != version || stats.rows == 0 {
            *stats = Stats {
                version,
                rows: self.chunk_count()? as i64,
                tokens: self.token_total()?,
                hits: HashMap::new(),
            };
        }
        let mut hits = Vec::with_capacity(phrases.len());
        for p in phrases {
            let key = p.join(" ");
            let h = match stats.hits.get(&key) {
                Some(h) => *h,
                None => {
                    let h = self.phrase_rows(p)?;
                    stats.hits.insert(key, h);
                    h
                }
            };
            hits.push(h);
        }
        Ok((stats.rows, stats.tokens, hits))
    }

    /// Rows holding `phrase` in one column: exact when at most [`PHRASE_SAMPLE_ROWS`] rows
    /// hold all its words, otherwise estimated from the first of them.
    fn phrase_rows(&self, phrase: &[String]) -> Result<i64, StoreError> {
        let filter: Vec<String> = phrase
            .iter()
            .map(|w| format!("TEXT_MATCH(lex, {})", client::quote(w)))
            .collect();
        let filter = filter.join(" and ");
        let name = self.name("chunks");
        if let [word] = phrase {
            return self.word_rows(word, &filter);
        }
        let n = self.conn.count(&name, &filter).map_err(|e| self.fail(e))? as i64;
        if n == 0 {
            return Ok(n);
        }
        let sample = self
            .conn
            .query_first(
                &name,
                &filter,
                &["id", "lex_text", "lex_ctx"],
                PHRASE_SAMPLE_ROWS,
            )
            .map_err(|e| self.fail(e))?;
        let held = sample
            .iter()
            .filter(|r| {
                [text(r, "lex_text"), text(r, "lex_ctx")]
                    .iter()
                    .any(|c| occurrences(&words(c), phrase) > 0)
            })
            .count() as i64;
        Ok(scale_sample(held, sample.len() as i64, n))
    }

    /// Rows holding `word`: the hits of a BM25 search for it alone (a sparse search
    /// returns exactly the rows sharing a word with the query, and is several times faster
    /// on milvus-lite than counting a `TEXT_MATCH` filter), or that count when the
    /// search's window is full.
    fn word_rows(&self, word: &str, filter: &str) -> Result<i64, StoreError> {
        let name = self.name("chunks");
        let hits = self
            .conn
            .search_bm25(&name, "sparse", word, MAX_WINDOW, None)
            .map_err(|e| self.fail(e))?;
        if hits.len() < MAX_WINDOW {
            return Ok(hits.len() as i64);
        }
        Ok(self.conn.count(&name, filter).map_err(|e| self.fail(e))? as i64)
    }

    /// Tokens in all chunks: the sum of every writer's running count.
    pub(super) fn token_total(&self) -> Result<i64, StoreError> {
        Ok(self
            .meta_prefixed("tokens/")?
            .iter()
            .filter_map(|(_, v)| v.parse::<i64>().ok())
            .sum())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(s: &str) -> Vec<String> {
        words(s)
    }

    #[test]
    fn phrases_count_overlapping_occurrences_within_a_column() {
        assert_eq!(occurrences(&w("a a a"), &w("a a")), 2);
        assert_eq!(occurrences(&w("a b a b"), &w("a b")), 2);
        assert_eq!(occurrences(&w("a"), &w("a b")), 0);
        assert_eq!(occurrences(&w("a b"), &[]), 0);
    }

    #[test]
    fn a_sample_stands_for_all_rows_in_proportion() {
        assert_eq!(scale_sample(7, 10, 10), 7, "the whole set is exact");
        assert_eq!(scale_sample(500, 2_000, 10_000), 2_500);
        assert_eq!(scale_sample(0, 2_000, 10_000), 0);
        assert_eq!(scale_sample(3, 0, 10), 3);
    }

    #[test]
    fn scores_follow_fts5_weights_and_lengths() {
        let row = |t: &str, c: &str| Row {
            id: 1,
            columns: [w(t), w(c)],
        };
        let p = vec![w("record")];
        let idfs = [idf(10, 2)];
        let in_text = score(&row("record kept", "section"), &p, &idfs, 3.0).unwrap();
        let in_ctx = score(&row("kept here", "record"), &p, &idfs, 3.0).unwrap();
        assert!(in_text > in_ctx, "context hits weigh half");
        assert_eq!(score(&row("nothing", "here"), &p, &idfs, 3.0), None);
        assert_eq!(
            idf(10, 9),
            1e-6,
            "a common phrase keeps a tiny positive idf"
        );
        assert!((idf(10, 2) - (8.5f64 / 2.5).ln()).abs() < 1e-12);
    }
}
