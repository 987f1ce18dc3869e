//! Diversity across documents, so one document cannot take over a result list (a file
//! repeating one sentence thousands of times would otherwise fill every candidate slot
//! and every hit).
//!
//! * **Candidates.** A retriever's top-`n` list keeps at most [`candidate_cap`] chunks
//!   per document, and one of several with the same document and score (copies of one
//!   text); when a document goes over, the list is searched again without that
//!   document's chunks and refilled from other documents. Only when no other document
//!   has candidates are the dropped chunks put back (after everything else), so a
//!   single-document corpus keeps its full list.
//! * **Hits.** [`pick`] takes at most `per_document` chunks from one document, and never
//!   a chunk whose words are (90 %) those of one already taken, nor one all of whose
//!   sentences a chunk already taken holds, before it takes any other;
//!   the rest follow only to fill up to `k`.

use std::collections::{HashMap, HashSet};

use crate::engine::Engine;
use crate::error::Error;
use crate::index::lexical::LexQuery;
use crate::store::{ChunkRow, DocFilter};

use super::Restrict;

/// Chunks a retriever's candidate list keeps from one document, at least.
pub const MIN_CANDIDATES_PER_DOCUMENT: usize = 10;

/// Chunks of one document a candidate list of `n` keeps: a tenth of it, at least
/// [`MIN_CANDIDATES_PER_DOCUMENT`].
pub fn candidate_cap(n: usize) -> usize {
    (n / 10).max(MIN_CANDIDATES_PER_DOCUMENT)
}

/// A capped candidate list: entries kept, entries over the cap, documents that went over.
type Capped<S> = (Vec<(i64, S)>, Vec<(i64, S)>, Vec<i64>);

/// Split `list` into the entries within `cap` per document (in order), the entries over
/// it, and the documents that went over. An entry with the same document and the same
/// score as one kept is a copy (identical text scores identically): it counts toward the
/// cap but is not kept.
fn cap_list<S: Copy + Into<f64>>(
    engine: &Engine,
    list: &[(i64, S)],
    cap: usize,
) -> Result<Capped<S>, Error> {
    let ids: Vec<i64> = list.iter().map(|x| x.0).collect();
    let docs = engine.store().chunk_docs(&ids)?;
    let mut count: HashMap<i64, usize> = HashMap::new();
    let mut scores: HashSet<(i64, u64)> = HashSet::new();
    let (mut kept, mut over, mut full) = (Vec::new(), Vec::new(), Vec::new());
    for &(id, s) in list {
        let doc = docs.get(&id).copied().unwrap_or(-1);
        let c = count.entry(doc).or_default();
        *c += 1;
        if *c > cap && !full.contains(&doc) {
            full.push(doc);
        }
        if *c <= cap && scores.insert((doc, s.into().to_bits())) {
            kept.push((id, s));
        } else {
            over.push((id, s));
        }
    }
    Ok((kept, over, full))
}

/// Kept entries and refills by descending score (ties by id), then the dropped entries,
/// truncated to `n`.
fn merge<S: Copy + PartialOrd>(
    kept: Vec<(i64, S)>,
    refill: Vec<(i64, S)>,
    over: Vec<(i64, S)>,
    n: usize,
) -> Vec<(i64, S)> {
    let mut seen: HashSet<i64> = kept.iter().map(|x| x.0).collect();
    let mut out = kept;
    out.extend(refill.into_iter().filter(|x| seen.insert(x.0)));
    out.sort_by(|a, b| {
        b.1.partial_cmp(&a.1)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.0.cmp(&b.0))
    });
    out.truncate(n);
    if out.len() < n {
        out.extend(over.into_iter().filter(|x| seen.insert(x.0)));
        out.truncate(n);
    }
    out
}

/// Dense top-`n` for `qv` among the chunks `scope` allows, with at most
/// [`candidate_cap`] chunks per document.
pub fn dense_candidates(
    engine: &Engine,
    qv: &[f32],
    n: usize,
    scope: Option<&Restrict>,
) -> Result<Vec<(i64, f32)>, Error> {
    let allowed = |r: i64| scope.is_none_or(|s| s.chunks.contains(&r));
    let first = match scope {
        None => engine.dense_search(qv, n)?,
        Some(s) => scoped_dense(engine, qv, n, s)?,
    };
    let (kept, over, full) = cap_list(engine, &first, candidate_cap(n))?;
    if full.is_empty() {
        return Ok(first);
    }
    let without = engine.store().chunk_rows_of_docs(&full)?;
    let rest: Vec<i64>;
    let docs = match scope {
        None => DocFilter::Without(&full),
        Some(s) => {
            rest = s
                .docs
                .iter()
                .copied()
                .filter(|d| !full.contains(d))
                .collect();
            DocFilter::Within(&rest)
        }
    };
    let refill =
        engine.dense_search_filtered(qv, n, &|r| !without.contains(&r) && allowed(r), docs)?;
    Ok(merge(kept, refill, over, n))
}

/// Chunks a restriction may hold for which a short dense list is completed by exact
/// search over their stored vectors. A bound, not tuned.
pub const EXACT_SCOPE_CHUNKS: usize = 50_000;

/// Dense top-`n` within `scope`: the index's filtered search, completed by exact search
/// over the allowed chunks' vectors when it finds fewer than it could (a graph search
/// under a very selective filter may stop early).
fn scoped_dense(
    engine: &Engine,
    qv: &[f32],
    n: usize,
    scope: &Restrict,
) -> Result<Vec<(i64, f32)>, Error> {
    let within = DocFilter::Within(&scope.docs);
    let hits = engine.dense_search_filtered(qv, n, &|r| scope.chunks.contains(&r), within)?;
    if hits.len() >= n.min(scope.chunks.len()) || scope.chunks.len() > EXACT_SCOPE_CHUNKS {
        return Ok(hits);
    }
    let mut ids: Vec<i64> = scope.chunks.iter().copied().collect();
    ids.sort_unstable();
    let vectors = engine.store().vectors_by_ids(&ids)?;
    let mut scored: Vec<(i64, f32)> = ids
        .iter()
        .zip(vectors)
        .filter_map(|(id, v)| v.map(|v| (*id, v.iter().zip(qv).map(|(a, b)| a * b).sum())))
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    scored.truncate(n);
    Ok(scored)
}

/// BM25 top-`n` for the lexical query `expr` among the chunks `scope` allows, with at
/// most [`candidate_cap`] chunks per document.
pub fn lexical_candidates(
    engine: &Engine,
    expr: &LexQuery,
    n: usize,
    scope: Option<&Restrict>,
) -> Result<Vec<(i64, f64)>, Error> {
    let store = engine.store();
    let first = match scope {
        None => store.lexical_search(expr, n)?,
        Some(s) => store.lexical_search_in_docs(expr, n, &s.docs)?,
    };
    let (kept, over, full) = cap_list(engine, &first, candidate_cap(n))?;
    if full.is_empty() {
        return Ok(first);
    }
    let refill = match scope {
        None => store.lexical_search_without_docs(expr, n, &full)?,
        Some(s) => {
            let docs: Vec<i64> = s
                .docs
                .iter()
                .copied()
                .filter(|d| !full.contains(d))
                .collect();
            store.lexical_search_in_docs(expr, n, &docs)?
        }
    };
    Ok(merge(kept, refill, over, n))
}

/// Indexes of `rows` (document id, chunk text; best first) to take as `k` hits: at most
/// `per_document` per document and no text twice first, then the rest in order.
pub fn pick(rows: &[(&str, &str)], k: usize, per_document: usize) -> Vec<usize> {
    pick_with(rows, k, per_document, true)
}

fn pick_with(rows: &[(&str, &str)], k: usize, per_document: usize, fill: bool) -> Vec<usize> {
    let mut per_doc: HashMap<&str, usize> = HashMap::new();
    let mut texts: Vec<HashSet<String>> = Vec::new();
    let mut said: HashSet<String> = HashSet::new();
    let mut taken = Vec::new();
    let mut rest = Vec::new();
    for (i, (doc, text)) in rows.iter().enumerate() {
        if taken.len() == k {
            break;
        }
        let c = per_doc.entry(doc).or_default();
        let words: HashSet<String> = crate::text::words(text).into_iter().collect();
        let sents = sentence_set(text);
        let novel = sents.iter().any(|x| !said.contains(x));
        if *c < per_document && novel && !texts.iter().any(|t| same_words(t, &words)) {
            *c += 1;
            texts.push(words);
            said.extend(sents);
            taken.push(i);
        } else {
            rest.push(i);
        }
    }
    if fill {
        let n = k.saturating_sub(taken.len());
        taken.extend(rest.into_iter().take(n));
    }
    taken
}

/// Walk `ranked` (chunk row, score; best first), skipping chunks `skip` rejects, until
/// `want` hits spread over documents are found ([`pick`]); returns the picked rows with
/// their scores and how many chunks were skipped.
pub fn walk(
    engine: &Engine,
    ranked: &[(i64, f64)],
    skip: &dyn Fn(&ChunkRow) -> bool,
    want: usize,
    per_document: usize,
) -> Result<(Vec<(ChunkRow, f64)>, usize), Error> {
    let mut rows: Vec<(ChunkRow, f64)> = Vec::new();
    let mut skipped = 0;
    let keys = |rows: &[(ChunkRow, f64)]| -> Vec<(String, String)> {
        rows.iter()
            .map(|(r, _)| (r.doc_id.clone(), r.text.clone()))
            .collect()
    };
    /// Fewest rows read from the store per batch (one query each).
    const MIN_ROW_BATCH: usize = 16;
    let choose = |keys: &[(String, String)], fill: bool| {
        let refs: Vec<(&str, &str)> = keys.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        pick_with(&refs, want, per_document, fill)
    };
    for batch in ranked.chunks(want.max(MIN_ROW_BATCH)) {
        let ids: Vec<i64> = batch.iter().map(|x| x.0).collect();
        let got = engine.store().chunks_by_ids(&ids)?;
        let mut by_id: HashMap<i64, ChunkRow> = got.into_iter().map(|r| (r.id, r)).collect();
        for (id, score) in batch {
            let Some(r) = by_id.remove(id) else { continue };
            if skip(&r) {
                skipped += 1;
                continue;
            }
            rows.push((r, *score));
        }
        if choose(&keys(&rows), false).len() == want {
            break;
        }
    }
    let picked = choose(&keys(&rows), true);
    let mut slots: Vec<Option<(ChunkRow, f64)>> = rows.into_iter().map(Some).collect();
    let out = picked.into_iter().filter_map(|i| slots[i].take()).collect();
    Ok((out, skipped))
}

/// The sentences of `text`, whitespace-collapsed and lower-cased.
fn sentence_set(text: &str) -> HashSet<String> {
    crate::corpus::segment::sentences(text)
        .into_iter()
        .map(|sp| {
            let s = sp.slice(text).to_lowercase();
            s.split_whitespace().collect::<Vec<_>>().join(" ")
        })
        .collect()
}

/// Word sets overlapping by [`SAME_TEXT_JACCARD`] or more: the same text (a document
/// repeating one sentence gives chunks that differ only in how many times they hold it).
fn same_words(a: &HashSet<String>, b: &HashSet<String>) -> bool {
    let union = a.union(b).count();
    union == 0 || a.intersection(b).count() as f64 / union as f64 >= SAME_TEXT_JACCARD
}

/// Word-set Jaccard at or above which two chunks count as the same text.
pub const SAME_TEXT_JACCARD: f64 = 0.9;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pick_spreads_over_documents_and_skips_repeated_text_then_fills() {
        let rows = [
            ("r", "Keep records 7 years."),
            ("r", "Keep records 7 years."),
            ("r", "Keep  records 7 years."),
            ("r", "Other text in r."),
            ("r", "More text in r."),
            ("r", "Even more text in r."),
            ("a", "Keep records 10 years."),
        ];
        assert_eq!(pick(&rows, 3, 2), vec![0, 3, 6]);
        // Fewer distinct candidates than k: the rest fill in their order.
        assert_eq!(pick(&rows, 5, 2), vec![0, 3, 6, 1, 2]);
        let one = [("d", "a"), ("d", "b"), ("d", "c")];
        assert_eq!(pick(&one, 3, 1), vec![0, 1, 2]);
        // A chunk that says nothing a taken chunk does not (another document repeating a
        // sentence) comes after one that does.
        let said = [
            ("a", "Keep records 7 years. Shred them after."),
            ("r", "Keep records 7 years.  Keep records 7 years."),
            ("b", "Keep records 10 years."),
        ];
        assert_eq!(pick(&said, 2, 3), vec![0, 2]);
    }

    #[test]
    fn merge_orders_by_score_and_puts_dropped_entries_last() {
        let m = merge(
            vec![(1, 0.9), (2, 0.5)],
            vec![(3, 0.7), (1, 0.9)],
            vec![(4, 0.8)],
            4,
        );
        assert_eq!(m, vec![(1, 0.9), (3, 0.7), (2, 0.5), (4, 0.8)]);
        assert_eq!(candidate_cap(100), 10);
        assert_eq!(candidate_cap(300), 30);
    }
}
