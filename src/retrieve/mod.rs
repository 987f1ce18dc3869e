//! Retrieval: dense (bi-encoder + HNSW or exact), lexical (BM25 over FTS5), and hybrid
//! reciprocal rank fusion of the two.
//!
//! Hybrid score of a chunk: `sum over retrievers of 1 / (rrf_k + rank)`, rank 1-based,
//! taken over each retriever's top `candidates` (both configurable; defaults 60 and 100).
//! Ties are broken by chunk row id so results are deterministic.

use std::collections::{HashMap, HashSet};
use std::str::FromStr;

use serde::Serialize;

pub mod acronym;
pub mod diverse;
pub mod multi;

use crate::corpus::layout::Layout;
use crate::engine::Engine;
use crate::error::Error;
use crate::index::lexical;
use crate::store::ChunkRow;

/// Which retrievers a search uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Dense and lexical, fused with reciprocal rank fusion.
    Hybrid,
    /// Bi-encoder cosine only.
    Dense,
    /// BM25 only.
    Lexical,
}

impl FromStr for Mode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "hybrid" => Ok(Mode::Hybrid),
            "dense" => Ok(Mode::Dense),
            "lexical" => Ok(Mode::Lexical),
            _ => Err(format!("unknown mode {s:?} (hybrid, dense or lexical)")),
        }
    }
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Mode::Hybrid => "hybrid",
            Mode::Dense => "dense",
            Mode::Lexical => "lexical",
        })
    }
}

/// Per-retriever scores of a hit (`None` when that retriever did not return it).
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct ModeScores {
    /// Cosine similarity between query and chunk embeddings.
    pub dense: Option<f64>,
    /// BM25 score (higher is better).
    pub lexical: Option<f64>,
    /// 1-based rank in the dense list.
    pub dense_rank: Option<usize>,
    /// 1-based rank in the lexical list.
    pub lexical_rank: Option<usize>,
}

/// A chunk as results show it: ids, document, byte span, line range and text
/// (`document_text[start..end]`).
#[derive(Debug, Clone, Serialize)]
pub struct ChunkView {
    /// Chunk id (derived from the document content hash and span).
    pub chunk_id: String,
    /// Internal chunk row id (dense and FTS id).
    #[serde(skip)]
    pub row: i64,
    /// Document id.
    pub doc_id: String,
    /// Document key within its file (BEIR `_id`), omitted when empty.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub key: String,
    /// Source path of the document.
    pub source: String,
    /// Document title.
    pub title: String,
    /// Byte offset where the chunk starts in the stored document text.
    pub start: usize,
    /// Byte offset where it ends (exclusive).
    pub end: usize,
    /// First line (1-based).
    pub line_start: usize,
    /// Last line (1-based).
    pub line_end: usize,
    /// The chunk text.
    pub text: String,
    /// 1-based page where the chunk starts, when the source has pages (search output).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<usize>,
    /// Innermost section title where the chunk starts (search output).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    /// Where the chunk lies in the file on disk (search output): `file_start`,
    /// `file_end`, or `file_span_absent`.
    #[serde(flatten)]
    pub file: crate::corpus::layout::FileSpan,
}

impl From<&ChunkRow> for ChunkView {
    fn from(r: &ChunkRow) -> Self {
        ChunkView {
            chunk_id: r.chunk_id.clone(),
            row: r.id,
            doc_id: r.doc_id.clone(),
            key: r.doc_key.clone(),
            source: r.source.clone(),
            title: r.title.clone(),
            start: r.span.start,
            end: r.span.end,
            line_start: r.lines.0,
            line_end: r.lines.1,
            text: r.text.clone(),
            page: None,
            section: None,
            file: Default::default(),
        }
    }
}

/// One search result.
#[derive(Debug, Clone, Serialize)]
pub struct Hit {
    /// The chunk.
    #[serde(flatten)]
    pub chunk: ChunkView,
    /// Fused score in hybrid mode; the retriever's own score otherwise.
    pub score: f64,
    /// Per-retriever scores and ranks.
    pub scores: ModeScores,
}

/// A search's results.
#[derive(Debug, Clone, Serialize)]
pub struct SearchResult {
    /// The query as given.
    pub query: String,
    /// Mode used.
    pub mode: Mode,
    /// Dense backend used (`exact`, `hnsw`, or `none`).
    pub dense_backend: String,
    /// Hits, best first.
    pub hits: Vec<Hit>,
}

/// The documents a search may draw from (a `--scope`, a filter): retrieval searches
/// only their chunks, so a restricted question still gets a full candidate list.
#[derive(Debug, Clone, Default)]
pub struct Restrict {
    /// Document ids.
    pub doc_ids: HashSet<String>,
    /// Their row ids, ascending.
    pub docs: Vec<i64>,
    /// Their chunks' row ids.
    pub chunks: HashSet<i64>,
    /// What an `--as-of` date set aside, to record in the answer.
    pub dated: Option<crate::source::DatedSources>,
}

impl Restrict {
    /// The restriction to documents `doc_ids` of `engine`'s index.
    pub fn new(engine: &Engine, doc_ids: HashSet<String>) -> Result<Restrict, Error> {
        let ids: Vec<&str> = doc_ids.iter().map(String::as_str).collect();
        let docs = engine.store().doc_rows_of(&ids)?;
        let chunks = engine
            .store()
            .chunk_ids_of_docs(&docs)?
            .into_iter()
            .collect();
        Ok(Restrict {
            doc_ids,
            docs,
            chunks,
            dated: None,
        })
    }

    /// Whether document `doc_id` may be drawn from.
    pub fn contains(&self, doc_id: &str) -> bool {
        self.doc_ids.contains(doc_id)
    }
}

/// Upper bound on the query length accepted, in bytes (longer queries are cut at a char
/// boundary; the bi-encoder reads only the first 256 tokens anyway).
pub const MAX_QUERY_BYTES: usize = 64 * 1024;

/// Validate and trim a query.
pub fn clean_query(query: &str) -> Result<&str, Error> {
    let q = query.trim();
    if q.is_empty() {
        return Err(Error::EmptyQuery);
    }
    if q.len() <= MAX_QUERY_BYTES {
        return Ok(q);
    }
    let mut end = MAX_QUERY_BYTES;
    while !q.is_char_boundary(end) {
        end -= 1;
    }
    Ok(&q[..end])
}

/// Fuse ranked lists with reciprocal rank fusion; returns (row id, fused score), best first.
pub fn rrf(lists: &[&[i64]], k: f64) -> Vec<(i64, f64)> {
    let weighted: Vec<(f64, Vec<i64>)> = lists.iter().map(|l| (1.0, l.to_vec())).collect();
    rrf_weighted(&weighted, k)
}

/// Weighted reciprocal rank fusion: each list contributes `weight / (k + rank)`.
pub fn rrf_weighted(lists: &[(f64, Vec<i64>)], k: f64) -> Vec<(i64, f64)> {
    let mut acc: HashMap<i64, f64> = HashMap::new();
    for (w, list) in lists {
        for (i, id) in list.iter().enumerate() {
            *acc.entry(*id).or_default() += w / (k + (i + 1) as f64);
        }
    }
    let mut out: Vec<(i64, f64)> = acc.into_iter().collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    out
}

/// Run a search against an open engine.
pub fn search(engine: &Engine, query: &str, mode: Mode, k: usize) -> Result<SearchResult, Error> {
    search_in(engine, query, mode, k, None)
}

/// [`search`] among the chunks `scope` allows (all when `None`).
pub fn search_in(
    engine: &Engine,
    query: &str,
    mode: Mode,
    k: usize,
    scope: Option<&Restrict>,
) -> Result<SearchResult, Error> {
    let q = clean_query(query)?;
    let cfg = engine.config();
    let n = cfg.candidates.max(k);
    let mut dense: Vec<(i64, f32)> = Vec::new();
    let mut lexical_hits: Vec<(i64, f64)> = Vec::new();
    if mode != Mode::Lexical {
        let v = engine.embed_query(q)?;
        dense = diverse::dense_candidates(engine, &v, n, scope)?;
    }
    if mode != Mode::Dense {
        if let Some(expr) = lexical::lex_query(q) {
            lexical_hits = diverse::lexical_candidates(engine, &expr, n, scope)?;
        }
    }
    let mut scores: HashMap<i64, ModeScores> = HashMap::new();
    for (i, (id, s)) in dense.iter().enumerate() {
        let e = scores.entry(*id).or_default();
        e.dense = Some(*s as f64);
        e.dense_rank = Some(i + 1);
    }
    for (i, (id, s)) in lexical_hits.iter().enumerate() {
        let e = scores.entry(*id).or_default();
        e.lexical = Some(*s);
        e.lexical_rank = Some(i + 1);
    }
    let ranked: Vec<(i64, f64)> = match mode {
        Mode::Dense => dense.iter().map(|(i, s)| (*i, *s as f64)).collect(),
        Mode::Lexical => lexical_hits.clone(),
        Mode::Hybrid => {
            let d: Vec<i64> = dense.iter().map(|x| x.0).collect();
            let l: Vec<i64> = lexical_hits.iter().map(|x| x.0).collect();
            rrf(&[&d, &l], cfg.rrf_k)
        }
    };
    // At most `max_chunks_per_document` hits from one document before other documents'.
    let (top, _) = diverse::walk(engine, &ranked, &|_| false, k, cfg.max_chunks_per_document)?;
    let layouts = stored_layouts(engine, &top)?;
    let empty = Layout::default();
    let mut hits = Vec::with_capacity(top.len());
    for (r, score) in &top {
        let mut chunk = ChunkView::from(r);
        let layout = layouts.get(&chunk.doc_id).unwrap_or(&empty);
        chunk.page = layout.page_of(chunk.start);
        chunk.section = layout.section_of(chunk.start).map(str::to_string);
        chunk.file = layout.file_span(chunk.start, chunk.end);
        hits.push(Hit {
            chunk,
            score: *score,
            scores: scores.get(&r.id).cloned().unwrap_or_default(),
        });
    }
    Ok(SearchResult {
        query: query.to_string(),
        mode,
        dense_backend: if mode == Mode::Lexical {
            "none".into()
        } else {
            engine.dense_backend().to_string()
        },
        hits,
    })
}

/// The stored layouts of the hits' documents, read at once (pages and sections for
/// display; empty when the stored JSON is unreadable, which `status --deep` reports).
fn stored_layouts(
    engine: &Engine,
    top: &[(ChunkRow, f64)],
) -> Result<HashMap<String, Layout>, Error> {
    let mut ids: Vec<&str> = top.iter().map(|(r, _)| r.doc_id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    Ok(engine
        .store()
        .layouts_json_of(&ids)?
        .into_iter()
        .map(|(id, j)| (id, serde_json::from_str(&j).unwrap_or_default()))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rrf_rewards_agreement_and_breaks_ties_by_id() {
        let fused = rrf(&[&[1, 2, 3], &[3, 1, 4]], 60.0);
        let ids: Vec<i64> = fused.iter().map(|x| x.0).collect();
        assert_eq!(ids, vec![1, 3, 2, 4]);
        let want = 1.0 / 61.0 + 1.0 / 62.0;
        assert!((fused[0].1 - want).abs() < 1e-12);
        // Equal scores: lower id first.
        let tie = rrf(&[&[7], &[5]], 60.0);
        assert_eq!(tie.iter().map(|x| x.0).collect::<Vec<_>>(), vec![5, 7]);
    }

    #[test]
    fn empty_and_huge_queries_are_handled() {
        assert!(matches!(clean_query("   "), Err(Error::EmptyQuery)));
        let huge = "é".repeat(MAX_QUERY_BYTES);
        let q = clean_query(&huge).unwrap();
        assert!(q.len() <= MAX_QUERY_BYTES && q.is_char_boundary(q.len()));
    }
}
