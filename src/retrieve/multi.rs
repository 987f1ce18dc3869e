//! Multi-query retrieval: one question becomes a primary query plus alternatives worded
//! differently; candidates from dense and BM25 retrieval for every query are pooled,
//! deduplicated by chunk, fused with reciprocal rank fusion, and chunks seen in earlier
//! research steps are excluded.
//!
//! The default rewriter is deterministic: a keyword form (content terms only, question
//! scaffolding removed) and a pseudo-relevance-feedback expansion (the keyword form plus
//! terms that characterise the top hits of a first pass: frequent there, rare in the
//! corpus). The [`Rewrite`] trait leaves room for a generator-backed rewriter.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::Serialize;

use crate::engine::Engine;
use crate::error::Error;
use crate::index::lexical;
use crate::lexicon::{self, Class};
use crate::models::cross::Rerank;
use crate::models::dot;
use crate::retrieve::{clean_query, ChunkView, ModeScores};
use crate::text::{is_stopword, words};

/// Shortest feedback word (in bytes) considered as an expansion term: shorter words are
/// mostly function words and abbreviations. A design choice of the rewriter, not tuned.
pub const MIN_EXPANSION_TERM_BYTES: usize = 4;
/// A feedback word qualifies when it occurs in at least this many feedback chunks …
pub const MIN_FEEDBACK_CHUNKS: usize = 2;
/// … or at least this many times in them (design choices of the rewriter, not tuned).
pub const MIN_FEEDBACK_COUNT: usize = 3;
/// Qualifying words looked up in the index per expansion term wanted (each lookup is one
/// FTS5 query; a latency bound, not tuned).
pub const CANDIDATES_PER_EXPANSION_TERM: usize = 3;
/// Words in more than this share of the chunks are too common to discriminate and are not
/// added (a design choice of the rewriter, not tuned).
pub const MAX_EXPANSION_CHUNK_SHARE: f64 = 0.1;

/// Turns a question into alternative queries.
pub trait Rewrite: Send + Sync {
    /// Alternatives to `question` (not including it); `feedback` holds the texts of the
    /// top chunks of a first retrieval pass, best first.
    fn rewrite(
        &self,
        question: &str,
        feedback: &[&str],
        engine: &Engine,
    ) -> Result<Vec<String>, Error>;
    /// Name recorded with the queries.
    fn name(&self) -> &str;
}

/// The deterministic keyword + pseudo-relevance-feedback rewriter.
#[derive(Debug, Clone)]
pub struct KeywordPrf {
    /// Expansion terms added by feedback.
    pub expansion_terms: usize,
    /// Feedback chunks read.
    pub feedback_chunks: usize,
}

impl Default for KeywordPrf {
    fn default() -> Self {
        KeywordPrf {
            expansion_terms: 6,
            feedback_chunks: 3,
        }
    }
}

/// Content terms of a question: lower-cased words without stop words or scaffolding
/// ([`Class::Scaffold`]).
pub fn keyword_terms(question: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    words(question)
        .into_iter()
        .filter(|w| !is_stopword(w) && !lexicon::is(Class::Scaffold, w))
        .filter(|w| seen.insert(w.clone()))
        .collect()
}

/// Words a quoted phrase needs to be searched by itself.
const MIN_QUOTED_WORDS: usize = 2;

/// The phrases `question` quotes (`'…'`, `"…"`, `‘…’`, `“…”`) of at least
/// [`MIN_QUOTED_WORDS`] words, lower case.
fn quoted_phrases(question: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (open, close) in [('\'', '\''), ('"', '"'), ('‘', '’'), ('“', '”')] {
        let mut rest = question;
        while let Some(i) = rest.find(open) {
            let after = &rest[i + open.len_utf8()..];
            // An apostrophe inside a word ("treasurer's") opens nothing.
            let glued = open == '\'' && rest[..i].chars().last().is_some_and(char::is_alphanumeric);
            let Some(j) = after.find(close) else { break };
            let phrase = after[..j].trim();
            if !glued && words(phrase).len() >= MIN_QUOTED_WORDS {
                out.push(phrase.to_lowercase());
            }
            rest = &after[j + close.len_utf8()..];
        }
    }
    out
}

impl Rewrite for KeywordPrf {
    fn name(&self) -> &str {
        "keyword+prf"
    }

    fn rewrite(
        &self,
        question: &str,
        feedback: &[&str],
        engine: &Engine,
    ) -> Result<Vec<String>, Error> {
        let mut out = Vec::new();
        let kw = keyword_terms(question);
        let keyword = kw.join(" ");
        if !kw.is_empty() && keyword != question.trim().to_lowercase() {
            out.push(keyword.clone());
        }
        // A label the question quotes ("listed under 'Other names used'") is searched
        // for by itself too: the passage that prints it may share no other word.
        out.extend(quoted_phrases(question));
        // Feedback: candidate terms by how many feedback chunks contain them and how often.
        let query_terms: HashSet<&str> = kw.iter().map(String::as_str).collect();
        let mut stats: BTreeMap<String, (usize, usize)> = BTreeMap::new();
        for text in feedback.iter().take(self.feedback_chunks) {
            let mut in_this = HashSet::new();
            for w in words(text) {
                if w.len() < MIN_EXPANSION_TERM_BYTES
                    || is_stopword(&w)
                    || query_terms.contains(w.as_str())
                    || w.chars().all(|c| c.is_ascii_digit())
                {
                    continue;
                }
                let e = stats.entry(w.clone()).or_default();
                e.1 += 1;
                if in_this.insert(w) {
                    e.0 += 1;
                }
            }
        }
        let mut cands: Vec<(String, usize, usize)> = stats
            .into_iter()
            .filter(|(_, (docs, tf))| *docs >= MIN_FEEDBACK_CHUNKS || *tf >= MIN_FEEDBACK_COUNT)
            .map(|(w, (d, tf))| (w, d, tf))
            .collect();
        cands.sort_by(|a, b| (b.1, b.2).cmp(&(a.1, a.2)).then(a.0.cmp(&b.0)));
        cands.truncate(self.expansion_terms * CANDIDATES_PER_EXPANSION_TERM);
        let total = engine.store().chunk_count()?.max(1) as f64;
        let mut scored = Vec::new();
        for (w, d, tf) in cands {
            let df = engine.store().term_chunk_count(&w)? as f64;
            if df == 0.0 || df / total > MAX_EXPANSION_CHUNK_SHARE {
                continue; // unknown to the index, or too common to discriminate
            }
            let idf = (total / df).ln();
            scored.push((w, (d as f64 + (tf as f64).ln_1p()) * idf));
        }
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let expansion: Vec<String> = scored
            .into_iter()
            .take(self.expansion_terms)
            .map(|x| x.0)
            .collect();
        if !expansion.is_empty() {
            out.push(
                format!("{keyword} {}", expansion.join(" "))
                    .trim()
                    .to_string(),
            );
        }
        Ok(out)
    }
}

/// One retrieved chunk with its pooled scores.
#[derive(Debug, Clone, Serialize)]
pub struct Retrieved {
    /// The chunk and its document.
    #[serde(flatten)]
    pub chunk: ChunkView,
    /// Fused score over every query's lists.
    pub score: f64,
    /// Best per-retriever scores across queries.
    pub scores: ModeScores,
    /// Cosine between the primary query and the chunk.
    pub cosine: f64,
}

/// What one multi-query retrieval did and found.
#[derive(Debug, Clone, Serialize)]
pub struct Retrieval {
    /// The primary query followed by the alternatives.
    pub queries: Vec<String>,
    /// Rewriter used.
    pub rewriter: String,
    /// Chunks returned, best first.
    pub hits: Vec<Retrieved>,
    /// Mean cosine between the primary query embedding and the returned chunks'
    /// embeddings (0 without hits).
    pub confidence: f64,
    /// Chunks skipped because an earlier step saw them.
    pub excluded: usize,
    /// Which ordering produced the hits: `cross-encoder:<model>` when a reranker scored
    /// them, `fused` when the fused order stands.
    pub order: String,
}

/// Options of a multi-query retrieval.
#[derive(Debug, Clone)]
pub struct MultiOptions {
    /// Chunks returned (default 5).
    pub k: usize,
    /// Weight of the alternatives' lists relative to the primary query's (1.0).
    pub alternative_weight: f64,
    /// Candidates the cross-encoder scores, when one is used (a budget: one pair costs
    /// about five query embeddings).
    pub rerank_depth: usize,
    /// Chunks of one document among the hits before other documents' (3; see
    /// [`super::diverse`]).
    pub per_document: usize,
    /// When set, only chunks of these documents are retrieved.
    pub scope: Option<std::sync::Arc<super::Restrict>>,
}

impl Default for MultiOptions {
    fn default() -> Self {
        MultiOptions {
            k: 5,
            alternative_weight: 0.5,
            rerank_depth: 25,
            per_document: 3,
            scope: None,
        }
    }
}

/// Chunks of the primary query's first pass whose texts feed the rewriter.
pub const FEEDBACK_CHUNKS: usize = 5;

/// Ranked lists of every query (with their RRF weights) and the best per-retriever
/// scores seen for each chunk.
#[derive(Default)]
struct Pool {
    lists: Vec<(f64, Vec<i64>)>,
    scores: HashMap<i64, ModeScores>,
    /// The documents the lists may hold (all when `None`).
    scope: Option<std::sync::Arc<super::Restrict>>,
}

impl Pool {
    /// Adds the dense and BM25 candidates (`n` each) of `query`, whose embedding is `qv`,
    /// with `weight`.
    fn add(
        &mut self,
        engine: &Engine,
        query: &str,
        qv: &[f32],
        n: usize,
        weight: f64,
    ) -> Result<(), Error> {
        let scope = self.scope.as_deref();
        let dense = super::diverse::dense_candidates(engine, qv, n, scope)?;
        let lex = match lexical::lex_query(query) {
            Some(e) => super::diverse::lexical_candidates(engine, &e, n, scope)?,
            None => Vec::new(),
        };
        record(&mut self.scores, &dense, &lex);
        self.lists
            .push((weight, dense.iter().map(|x| x.0).collect()));
        self.lists.push((weight, lex.iter().map(|x| x.0).collect()));
        Ok(())
    }
}

/// Retrieve for `question` with the primary query and the rewriter's alternatives,
/// pooling dense and BM25 candidates of every query, excluding `exclude` (chunk ids).
pub fn retrieve(
    engine: &Engine,
    question: &str,
    rewriter: &dyn Rewrite,
    exclude: &HashSet<String>,
    reranker: Option<&dyn Rerank>,
    opts: &MultiOptions,
) -> Result<Retrieval, Error> {
    let q = clean_query(question)?;
    let cfg = engine.config();
    let n = cfg.candidates.max(opts.k);
    let qv = engine.embed_query(q)?;
    let mut pool = Pool {
        scope: opts.scope.clone(),
        ..Pool::default()
    };
    pool.add(engine, q, &qv, n, 1.0)?;
    let queries = add_alternatives(engine, q, rewriter, &mut pool, n, opts)?;
    let fused = super::rrf_weighted(&pool.lists, cfg.rrf_k);
    let fused = pin_printed(engine, q, fused, opts.scope.as_deref())?;
    let fused = pin_defining(engine, q, fused, opts.scope.as_deref())?;
    let fused = pin_head(engine, q, fused)?;
    // Walk the fused list, skipping excluded chunks, until enough are found.
    let want = match reranker {
        Some(_) => opts.k.max(opts.rerank_depth),
        None => opts.k,
    };
    let (rows, excluded) = super::diverse::walk(
        engine,
        &fused,
        &|r| {
            exclude.contains(&r.chunk_id)
                || opts.scope.as_ref().is_some_and(|s| !s.contains(&r.doc_id))
        },
        want,
        opts.per_document,
    )?;
    let mut hits: Vec<Retrieved> = rows
        .iter()
        .map(|(r, score)| Retrieved {
            chunk: ChunkView::from(r),
            score: *score,
            scores: pool.scores.get(&r.id).cloned().unwrap_or_default(),
            cosine: 0.0,
        })
        .collect();
    let mut order = "fused".to_string();
    if let Some(rr) = reranker {
        hits = rerank(rr, q, hits, opts.rerank_depth)?;
        order = format!("cross-encoder:{}", rr.model_id());
    }
    hits.truncate(opts.k);
    let confidence = set_cosines(engine, &qv, &mut hits)?;
    Ok(Retrieval {
        queries,
        rewriter: rewriter.name().to_string(),
        hits,
        confidence,
        excluded,
        order,
    })
}

/// Chunks taken first for each phrase a question quotes: the passages that print it, word
/// for word (a label such as 'Other names used' stands in a long form chunk whose other
/// words the question does not share). A bound, not tuned.
pub const PINNED_PER_PHRASE: usize = 2;

/// Chunks read per pinned phrase to find those that print it as written (the full-text
/// phrase "3 6" also matches "3, 6"). A bound, not tuned.
const PHRASE_CANDIDATES: usize = 30;

/// Whether `text` holds `phrase` as whole words: "3.6" is not printed by "4.3.3.6.1".
fn prints(text: &str, phrase: &str) -> bool {
    text.match_indices(phrase).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = &text[at + phrase.len()..];
        let mut next = after.chars();
        let glued = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric());
        let continued = next.next() == Some('.') && glued(next.next());
        !glued(before) && before != Some('.') && !glued(after.chars().next()) && !continued
    })
}

/// Numbers with dots a question names an item by ("objective 3.6", "section 5.2.2").
fn dotted_numbers(q: &str) -> Vec<String> {
    q.split_whitespace()
        .map(|t| t.trim_matches(|c: char| !c.is_ascii_alphanumeric()))
        .filter(|t| {
            let parts: Vec<&str> = t.split('.').collect();
            parts.len() >= 2
                && parts
                    .iter()
                    .all(|p| !p.is_empty() && p.len() <= 3 && p.bytes().all(|b| b.is_ascii_digit()))
        })
        .map(str::to_string)
        .collect()
}

/// `fused` with the chunks that print a phrase `q` quotes or a dotted number it names
/// moved to its head (at most [`PINNED_PER_PHRASE`] per phrase, best BM25 first), above
/// every fused score.
fn pin_printed(
    engine: &Engine,
    q: &str,
    fused: Vec<(i64, f64)>,
    scope: Option<&super::Restrict>,
) -> Result<Vec<(i64, f64)>, Error> {
    let mut pinned: Vec<i64> = Vec::new();
    for phrase in quoted_phrases(q).into_iter().chain(dotted_numbers(q)) {
        let Some(expr) = lexical::LexQuery::phrase(&phrase) else {
            continue;
        };
        let hits = super::diverse::lexical_candidates(engine, &expr, PHRASE_CANDIDATES, scope)?;
        let ids: Vec<i64> = hits.iter().map(|h| h.0).collect();
        let rows = engine.store().chunks_by_ids(&ids)?;
        let printed = |id: i64| {
            rows.iter()
                .find(|r| r.id == id)
                .is_some_and(|r| prints(&r.text.to_lowercase(), &phrase))
        };
        let found = ids.into_iter().filter(|&id| printed(id));
        for id in found.take(PINNED_PER_PHRASE) {
            if !pinned.contains(&id) {
                pinned.push(id);
            }
        }
    }
    Ok(pinned_first(fused, &pinned))
}

/// `fused` with `pinned` at its head, in order, above every fused score.
fn pinned_first(fused: Vec<(i64, f64)>, pinned: &[i64]) -> Vec<(i64, f64)> {
    if pinned.is_empty() {
        return fused;
    }
    let top = fused.first().map_or(0.0, |x| x.1);
    let mut out: Vec<(i64, f64)> = pinned
        .iter()
        .enumerate()
        .map(|(i, &id)| (id, top + (pinned.len() - i) as f64))
        .collect();
    out.extend(fused.into_iter().filter(|x| !pinned.contains(&x.0)));
    out
}

/// Chunks read for the acronym a question asks to expand, to find those that define it
/// (an acronym used on every page is defined once). A bound, not tuned.
const ACRONYM_CANDIDATES: usize = 500;

/// `fused` with the chunks that define the acronym `q` asks to expand (see
/// [`crate::retrieve::acronym`]) at its head: at most [`PINNED_PER_PHRASE`], each
/// document's first definition, in the order the full-text search ranks them.
fn pin_defining(
    engine: &Engine,
    q: &str,
    fused: Vec<(i64, f64)>,
    scope: Option<&super::Restrict>,
) -> Result<Vec<(i64, f64)>, Error> {
    let Some(short) = crate::retrieve::acronym::asked(q) else {
        return Ok(fused);
    };
    let Some(expr) = lexical::LexQuery::phrase(&short) else {
        return Ok(fused);
    };
    let hits = super::diverse::lexical_candidates(engine, &expr, ACRONYM_CANDIDATES, scope)?;
    let ids: Vec<i64> = hits.iter().map(|h| h.0).collect();
    let mut rows = engine.store().chunks_by_ids(&ids)?;
    rows.retain(|r| crate::retrieve::acronym::definition(&r.text, &short).is_some());
    // Each document's first definition, documents in full-text order.
    let rank = |id: i64| ids.iter().position(|&x| x == id).unwrap_or(usize::MAX);
    rows.sort_by_key(|r| (r.doc_id.clone(), r.span.start));
    rows.dedup_by(|a, b| a.doc_id == b.doc_id);
    rows.sort_by_key(|r| rank(r.id));
    let pinned: Vec<i64> = rows.iter().take(PINNED_PER_PHRASE).map(|r| r.id).collect();
    Ok(pinned_first(fused, &pinned))
}

/// Fused hits among which the document a question points at is looked for.
const HEAD_SEARCH_DEPTH: usize = 30;

/// `fused` with the first chunk of the document `q` points at second in line (see
/// [`crate::frame::document_pointed_at`]): the first document among the leading hits
/// whose title or head prints the words naming it. The head is read even when the
/// question's words are printed elsewhere (a revision in every page's footer).
fn pin_head(engine: &Engine, q: &str, fused: Vec<(i64, f64)>) -> Result<Vec<(i64, f64)>, Error> {
    let Some(naming) = crate::frame::document_pointed_at(q) else {
        return Ok(fused);
    };
    let store = engine.store();
    let ids: Vec<i64> = fused.iter().take(HEAD_SEARCH_DEPTH).map(|x| x.0).collect();
    let docs = store.chunk_docs(&ids)?;
    let mut tried = HashSet::new();
    let mut found = None;
    for doc in ids.iter().filter_map(|id| docs.get(id)) {
        if !tried.insert(*doc) {
            continue;
        }
        let Some(head) = store.first_chunk_of_doc(*doc)? else {
            continue;
        };
        let row = store.chunks_by_ids(&[head])?;
        let said: HashSet<String> = row
            .iter()
            .flat_map(|r| words(&format!("{} {}", r.title, r.text).to_lowercase()))
            .collect();
        if naming.iter().all(|w| said.contains(w)) {
            found = Some(head);
            break;
        }
    }
    let (Some(head), Some(&(lead, top))) = (found, fused.first()) else {
        return Ok(fused);
    };
    if head == lead {
        return Ok(fused);
    }
    let next = fused.get(1).map_or(top, |x| x.1);
    let mut out: Vec<(i64, f64)> = fused.into_iter().filter(|x| x.0 != head).collect();
    out.insert(1.min(out.len()), (head, (top + next) / 2.0));
    Ok(out)
}

/// Rewrites `q` with feedback from the pool's first pass and adds each new alternative's
/// lists with `opts.alternative_weight`; returns the queries run, the primary first.
fn add_alternatives(
    engine: &Engine,
    q: &str,
    rewriter: &dyn Rewrite,
    pool: &mut Pool,
    n: usize,
    opts: &MultiOptions,
) -> Result<Vec<String>, Error> {
    let first = super::rrf_weighted(&pool.lists, engine.config().rrf_k);
    let top_rows: Vec<i64> = first.iter().take(FEEDBACK_CHUNKS).map(|x| x.0).collect();
    let feedback_rows = engine.store().chunks_by_ids(&top_rows)?;
    let feedback: Vec<&str> = feedback_rows.iter().map(|r| r.text.as_str()).collect();
    let alternatives = rewriter.rewrite(q, &feedback, engine)?;
    let mut queries = vec![q.to_string()];
    for alt in alternatives {
        if queries.contains(&alt) || alt.trim().is_empty() {
            continue;
        }
        let v = engine.embed_query(&alt)?;
        pool.add(engine, &alt, &v, n, opts.alternative_weight)?;
        queries.push(alt);
    }
    Ok(queries)
}

/// Reorders the top `depth` hits by the cross-encoder's logit for (`q`, chunk), which
/// becomes their score; the rest keep their fused order (and fused scores) after them
/// (the budget: only `depth` pairs are scored).
fn rerank(
    rr: &dyn Rerank,
    q: &str,
    mut hits: Vec<Retrieved>,
    depth: usize,
) -> Result<Vec<Retrieved>, Error> {
    let depth = hits.len().min(depth);
    let passages: Vec<&str> = hits[..depth]
        .iter()
        .map(|h| h.chunk.text.as_str())
        .collect();
    let logits = rr.score(q, &passages)?;
    let mut head: Vec<(f32, usize, Retrieved)> = hits
        .drain(..depth)
        .zip(logits)
        .enumerate()
        .map(|(i, (mut h, logit))| {
            h.score = logit as f64;
            (logit, i, h)
        })
        .collect();
    head.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut reordered: Vec<Retrieved> = head.into_iter().map(|x| x.2).collect();
    reordered.append(&mut hits);
    Ok(reordered)
}

/// Sets each hit's cosine with the primary query embedding `qv` and returns their mean
/// (the retrieval's confidence; 0 without hits).
fn set_cosines(engine: &Engine, qv: &[f32], hits: &mut [Retrieved]) -> Result<f64, Error> {
    let rows: Vec<i64> = hits.iter().map(|h| h.chunk.row).collect();
    let vectors = engine.store().vectors_by_ids(&rows)?;
    for (h, v) in hits.iter_mut().zip(&vectors) {
        h.cosine = v.as_ref().map(|v| dot(qv, v) as f64).unwrap_or(0.0);
    }
    Ok(if hits.is_empty() {
        0.0
    } else {
        hits.iter().map(|h| h.cosine).sum::<f64>() / hits.len() as f64
    })
}

fn record(scores: &mut HashMap<i64, ModeScores>, dense: &[(i64, f32)], lex: &[(i64, f64)]) {
    for (i, (id, s)) in dense.iter().enumerate() {
        let e = scores.entry(*id).or_default();
        if e.dense.is_none_or(|d| (*s as f64) > d) {
            e.dense = Some(*s as f64);
        }
        e.dense_rank = Some(e.dense_rank.map_or(i + 1, |r| r.min(i + 1)));
    }
    for (i, (id, s)) in lex.iter().enumerate() {
        let e = scores.entry(*id).or_default();
        if e.lexical.is_none_or(|d| *s > d) {
            e.lexical = Some(*s);
        }
        e.lexical_rank = Some(e.lexical_rank.map_or(i + 1, |r| r.min(i + 1)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::cross::CrossEncoder;

    use crate::engine::sample_engine;

    #[test]
    fn steps_never_refetch_chunks_an_earlier_step_saw() {
        let tmp = tempfile::tempdir().unwrap();
        let e = sample_engine(tmp.path());
        let mut seen = HashSet::new();
        let mut all = Vec::new();
        let opts = MultiOptions {
            k: 6,
            ..MultiOptions::default()
        };
        for q in [
            "How long must client records be retained?",
            "How long must client records be retained?",
            "records retention years for minors",
        ] {
            let r = retrieve(&e, q, &KeywordPrf::default(), &seen, None, &opts).unwrap();
            assert_eq!(r.hits.len(), 6);
            assert!(r.queries.len() >= 2, "{:?}", r.queries);
            assert_eq!(r.order, "fused");
            for h in &r.hits {
                all.push(h.chunk.chunk_id.clone());
                seen.insert(h.chunk.chunk_id.clone());
            }
        }
        let unique: HashSet<&String> = all.iter().collect();
        assert_eq!(unique.len(), all.len(), "100% unique chunks across steps");
    }

    #[test]
    fn hostile_or_odd_questions_give_errors_or_sane_results_never_panics() {
        let tmp = tempfile::tempdir().unwrap();
        let e = sample_engine(tmp.path());
        let none = HashSet::new();
        let opts = MultiOptions::default();
        let rw = KeywordPrf::default();
        assert!(matches!(
            retrieve(&e, "  \n ", &rw, &none, None, &opts),
            Err(Error::EmptyQuery)
        ));
        let long = "records retention county ".repeat(3_400); // ~10,000 words
        for q in [
            long.as_str(),
            r#""records" AND -retention* NEAR(x, 2) OR col:umn ^"#,
            "¿Cuánto tiempo se conservan los registros clínicos?",
            "東京の記録はいつまで保存しますか",
            "?!",
        ] {
            let r = retrieve(&e, q, &rw, &none, None, &opts).unwrap();
            assert!(r.hits.len() <= opts.k);
            assert!(r.confidence.is_finite());
        }
    }

    #[test]
    fn chunks_printing_a_quoted_phrase_lead_the_fused_list() {
        let tmp = tempfile::tempdir().unwrap();
        let e = sample_engine(tmp.path());
        let rows = e.store().chunks_by_ids(&[1, 2, 3]).unwrap();
        let target = rows.last().unwrap();
        let phrase: Vec<&str> = target.text.split_whitespace().skip(2).take(3).collect();
        let q = format!("Where is '{}' written?", phrase.join(" "));
        let fused: Vec<(i64, f64)> = vec![(1, 0.05), (2, 0.04)];
        let out = pin_printed(&e, &q, fused.clone(), None).unwrap();
        let printing = |id: i64| {
            let r = &e.store().chunks_by_ids(&[id]).unwrap()[0];
            words(&r.text)
                .join(" ")
                .contains(&words(&phrase.join(" ")).join(" "))
        };
        assert!(printing(out[0].0), "{out:?}");
        assert!(
            out[0].1 > 0.05 && out.windows(2).all(|w| w[0].1 >= w[1].1),
            "{out:?}"
        );
        assert!(
            out.iter().filter(|x| x.0 == 1 || x.0 == 2).count() == 2,
            "{out:?}"
        );
        assert!(prints("3.6: explore", "3.6") && prints("see (3.6).", "3.6"));
        assert!(!prints("4.3.3.6.1, 4.3.6", "3.6") && !prints("13.6 or 3.61", "3.6"));
        assert_eq!(
            dotted_numbers("Is 5.2.2 or 3.6? Not 2018 nor v1.x."),
            ["5.2.2", "3.6"]
        );
        // A question quoting nothing leaves the list as it was.
        assert_eq!(
            pin_printed(&e, "Where is it written?", fused.clone(), None).unwrap(),
            fused
        );
    }

    #[test]
    fn a_question_pointing_at_a_document_reads_its_head_second() {
        let tmp = tempfile::tempdir().unwrap();
        let e = sample_engine(tmp.path());
        let ids = e.store().chunk_row_ids().unwrap();
        let docs = e.store().chunk_docs(&ids).unwrap();
        // A chunk that is not its document's first.
        let (&lead, &doc) = docs
            .iter()
            .find(|(id, d)| e.store().first_chunk_of_doc(**d).unwrap() != Some(**id))
            .unwrap();
        let head = e.store().first_chunk_of_doc(doc).unwrap().unwrap();
        let fused = vec![(lead, 0.05), (head + 1000, 0.04), (head, 0.01)];
        let out = pin_head(&e, "Who signed this notice?", fused.clone()).unwrap();
        assert_eq!(
            out.iter().map(|x| x.0).collect::<Vec<_>>(),
            [lead, head, head + 1000]
        );
        assert!(out.windows(2).all(|w| w[0].1 >= w[1].1), "{out:?}");
        assert_eq!(
            pin_head(&e, "Who signed the notice?", fused.clone()).unwrap(),
            fused
        );
    }

    #[test]
    fn confidence_is_the_mean_cosine_of_the_returned_chunks() {
        let tmp = tempfile::tempdir().unwrap();
        let e = sample_engine(tmp.path());
        let r = retrieve(
            &e,
            "grievance appeal deadline",
            &KeywordPrf::default(),
            &HashSet::new(),
            None,
            &MultiOptions::default(),
        )
        .unwrap();
        let mean = r.hits.iter().map(|h| h.cosine).sum::<f64>() / r.hits.len() as f64;
        assert!((r.confidence - mean).abs() < 1e-12);
        assert!(r.confidence > 0.0 && r.confidence <= 1.0);
    }

    #[test]
    fn a_cross_encoder_reorders_the_pool_and_says_so() {
        let tmp = tempfile::tempdir().unwrap();
        let e = sample_engine(tmp.path());
        let ce_dir = tmp.path().join("tiny-cross-encoder");
        crate::models::cross::tiny::build(&ce_dir);
        let ce = CrossEncoder::load(&ce_dir).unwrap();
        let opts = MultiOptions {
            k: 5,
            rerank_depth: 12,
            ..MultiOptions::default()
        };
        let r = retrieve(
            &e,
            "How long must client records be retained?",
            &KeywordPrf::default(),
            &HashSet::new(),
            Some(&ce),
            &opts,
        )
        .unwrap();
        assert_eq!(r.order, "cross-encoder:tiny-cross-encoder");
        assert_eq!(r.hits.len(), 5);
        for w in r.hits.windows(2) {
            assert!(w[0].score >= w[1].score, "ordered by logit");
        }
        let direct = ce
            .score(
                "How long must client records be retained?",
                &[r.hits[0].chunk.text.as_str()],
            )
            .unwrap()[0];
        assert!((direct as f64 - r.hits[0].score).abs() < 1e-4);
    }

    #[test]
    fn keyword_form_drops_question_scaffolding() {
        assert_eq!(
            keyword_terms("How long must client records be retained?"),
            vec!["long", "client", "records", "retained"]
        );
        assert!(keyword_terms("What is it?").is_empty());
    }
}
