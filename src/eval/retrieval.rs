//! `attest eval retrieval`: BEIR-format datasets (`corpus.jsonl`, `queries.jsonl`,
//! `qrels/SPLIT.tsv`) ingested into their own index and searched with every query that has
//! judgments, reporting nDCG@10, Recall@10, Recall@100, MRR@10 and latency per mode.
//!
//! Retrieval returns chunks; a document's rank is the rank of its best chunk (BEIR judges
//! documents). Each query asks for [`DOC_DEPTH`] documents.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;

use super::metrics::{all_found_at_k, mrr_at_k, ndcg_at_k, recall_at_k, Judgments};
use super::{eval_index_dir, load_dataset, open_eval_engine, percentile, DatasetRun, Query};
use crate::config::Config;
use crate::engine::Engine;
use crate::error::Error;
use crate::retrieve::multi::{retrieve, KeywordPrf, MultiOptions};
use crate::retrieve::{search, Mode};

/// A retrieval configuration compared by the evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EvalMode {
    /// A single query in one search mode.
    Single(Mode),
    /// Hybrid retrieval with the primary query and the keyword/feedback alternatives.
    MultiQuery,
    /// Multi-query retrieval reranked by the installed cross-encoder.
    MultiQueryRerank,
}

impl std::fmt::Display for EvalMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EvalMode::Single(m) => write!(f, "{m}"),
            EvalMode::MultiQuery => f.write_str("hybrid+multi-query"),
            EvalMode::MultiQueryRerank => f.write_str("hybrid+multi-query+rerank"),
        }
    }
}

impl std::str::FromStr for EvalMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "hybrid+multi-query" | "multi-query" => Ok(EvalMode::MultiQuery),
            "hybrid+multi-query+rerank" | "rerank" => Ok(EvalMode::MultiQueryRerank),
            other => other.parse().map(EvalMode::Single).map_err(|_| {
                format!("unknown mode {other:?} (lexical, dense, hybrid, hybrid+multi-query)")
            }),
        }
    }
}

/// Every mode available without a cross-encoder.
pub const ALL_MODES: [EvalMode; 4] = [
    EvalMode::Single(Mode::Lexical),
    EvalMode::Single(Mode::Dense),
    EvalMode::Single(Mode::Hybrid),
    EvalMode::MultiQuery,
];

/// Documents ranked per query (for Recall@100).
pub const DOC_DEPTH: usize = 100;

/// Chunks retrieved per document ranked: several chunks of one document collapse into one
/// rank, so [`rank_documents`] asks for this many times the documents it needs.
pub const CHUNKS_PER_DOCUMENT: usize = 3;

/// Candidates each retriever gives at least, so that [`DOC_DEPTH`] documents can be
/// ranked from [`CHUNKS_PER_DOCUMENT`] chunks each.
pub const EVAL_CANDIDATES: usize = DOC_DEPTH * CHUNKS_PER_DOCUMENT;

/// The cut-off of nDCG, Recall, MRR and all-relevant (`@10`).
pub const TOP_K: usize = 10;

/// `attest eval retrieval`: load the dataset, ingest its corpus into the evaluation index
/// and evaluate `modes` (none: [`ALL_MODES`], plus reranking when a cross-encoder is
/// installed).
pub fn run(
    mut cfg: Config,
    run: &DatasetRun,
    modes: Vec<EvalMode>,
) -> Result<RetrievalReport, Error> {
    let ds = load_dataset(&run.dataset, run.split.as_deref(), run.limit)?;
    cfg.index = eval_index_dir(&run.dataset, run.eval_index.clone());
    cfg.candidates = cfg.candidates.max(EVAL_CANDIDATES);
    let engine = open_eval_engine(cfg, &ds, run.progress)?;
    let modes = if modes.is_empty() {
        let mut m = ALL_MODES.to_vec();
        if engine.reranker().is_some() {
            m.push(EvalMode::MultiQueryRerank);
        }
        m
    } else {
        modes
    };
    let total = (ds.queries.len() * modes.len()) as u64;
    let bar = crate::ingest::counter_bar(total, run.progress, "queries");
    let _log = crate::ingest::ticker(run.progress, "eval retrieval", "queries", &bar);
    let report = evaluate(&engine, &ds, &modes, &bar);
    bar.finish_and_clear();
    report
}

/// A BEIR dataset split.
#[derive(Debug, Clone)]
pub struct Dataset {
    /// Dataset directory.
    pub dir: PathBuf,
    /// Split name (the qrels file stem).
    pub split: String,
    /// Queries that have judgments in the split, in file order.
    pub queries: Vec<Query>,
    /// Judgments per query id.
    pub qrels: HashMap<String, Judgments>,
}

fn bad(path: &Path, msg: impl std::fmt::Display) -> Error {
    Error::Usage(format!("{}: {msg}", path.display()))
}

impl Dataset {
    /// The corpus file.
    pub fn corpus(&self) -> PathBuf {
        self.dir.join("corpus.jsonl")
    }

    /// Read a dataset directory. Without `split`, the only qrels file is used (or `test`
    /// when there are several).
    pub fn load(dir: &Path, split: Option<&str>) -> Result<Self, Error> {
        for f in ["corpus.jsonl", "queries.jsonl"] {
            if !dir.join(f).is_file() {
                return Err(bad(dir, format!("missing {f} (expected a BEIR dataset: corpus.jsonl, queries.jsonl, qrels/SPLIT.tsv)")));
            }
        }
        let qdir = dir.join("qrels");
        let mut splits: Vec<String> = std::fs::read_dir(&qdir)
            .map_err(|e| bad(&qdir, e))?
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                let p = e.path();
                if p.extension()? != "tsv" {
                    return None;
                }
                Some(p.file_stem()?.to_string_lossy().into_owned())
            })
            .collect();
        splits.sort();
        let split = match split {
            Some(s) => s.to_string(),
            None if splits.len() == 1 => splits[0].clone(),
            None => "test".to_string(),
        };
        if !splits.contains(&split) {
            return Err(bad(
                &qdir,
                format!("no split {split:?} (available: {})", splits.join(", ")),
            ));
        }
        let qpath = qdir.join(format!("{split}.tsv"));
        let text = std::fs::read_to_string(&qpath).map_err(|e| bad(&qpath, e))?;
        let mut qrels: HashMap<String, Judgments> = HashMap::new();
        for (i, line) in text.lines().enumerate() {
            let cols: Vec<&str> = line.split('\t').map(str::trim).collect();
            if line.trim().is_empty() {
                continue;
            }
            if cols.len() < 3 {
                return Err(bad(
                    &qpath,
                    format!("line {}: expected query-id, corpus-id, score", i + 1),
                ));
            }
            let score: i64 = match cols[2].parse() {
                Ok(s) => s,
                Err(_) if i == 0 => continue, // header
                Err(_) => {
                    return Err(bad(
                        &qpath,
                        format!("line {}: score {:?} is not an integer", i + 1, cols[2]),
                    ))
                }
            };
            qrels
                .entry(cols[0].to_string())
                .or_default()
                .insert(cols[1].to_string(), score.max(0) as u32);
        }
        let all = super::read_queries(&dir.join("queries.jsonl"))?;
        let queries: Vec<Query> = all
            .into_iter()
            .filter(|q| qrels.contains_key(&q.id))
            .collect();
        if queries.is_empty() {
            return Err(bad(&qpath, "no judged query appears in queries.jsonl"));
        }
        Ok(Dataset {
            dir: dir.to_path_buf(),
            split,
            queries,
            qrels,
        })
    }
}

/// Quality and speed of one mode.
#[derive(Debug, Clone, Serialize)]
pub struct ModeReport {
    /// nDCG@10.
    #[serde(rename = "ndcg@10")]
    pub ndcg10: f64,
    /// Recall@10.
    #[serde(rename = "recall@10")]
    pub recall10: f64,
    /// Recall@100.
    #[serde(rename = "recall@100")]
    pub recall100: f64,
    /// MRR@10.
    #[serde(rename = "mrr@10")]
    pub mrr10: f64,
    /// Share of queries with every relevant document in the top 10 (multi-hop: both gold
    /// paragraphs).
    #[serde(rename = "all_relevant@10")]
    pub all_relevant10: f64,
    /// Median latency per query.
    pub p50_ms: f64,
    /// 95th percentile latency.
    pub p95_ms: f64,
    /// Queries per second.
    pub qps: f64,
}

/// The `attest eval retrieval` report.
#[derive(Debug, Clone, Serialize)]
pub struct RetrievalReport {
    /// Dataset directory.
    pub dataset: String,
    /// Split.
    pub split: String,
    /// Queries evaluated.
    pub queries: usize,
    /// Documents and chunks in the index.
    pub documents: usize,
    /// Chunks in the index.
    pub chunks: usize,
    /// Results per mode.
    pub modes: BTreeMap<String, ModeReport>,
}

/// Rank documents (BEIR `_id`s) for a query: each document at the rank of its best chunk.
pub fn rank_documents(
    engine: &Engine,
    query: &str,
    mode: EvalMode,
    depth: usize,
) -> Result<Vec<String>, Error> {
    let keys: Vec<String> = match mode {
        EvalMode::Single(m) => search(engine, query, m, depth * CHUNKS_PER_DOCUMENT)?
            .hits
            .into_iter()
            .map(|h| h.chunk.key)
            .collect(),
        EvalMode::MultiQuery | EvalMode::MultiQueryRerank => {
            let opts = MultiOptions {
                k: depth * CHUNKS_PER_DOCUMENT,
                rerank_depth: engine.config().rerank_depth,
                per_document: engine.config().max_chunks_per_document,
                ..MultiOptions::default()
            };
            let reranker = match mode {
                EvalMode::MultiQueryRerank => engine.reranker(),
                _ => None,
            };
            retrieve(
                engine,
                query,
                &KeywordPrf::default(),
                &HashSet::new(),
                reranker,
                &opts,
            )?
            .hits
            .into_iter()
            .map(|h| h.chunk.key)
            .collect()
        }
    };
    let mut seen = HashSet::new();
    Ok(keys
        .into_iter()
        .filter(|k| seen.insert(k.clone()))
        .take(depth)
        .collect())
}

/// Evaluate each mode over the dataset's queries.
pub fn evaluate(
    engine: &Engine,
    ds: &Dataset,
    modes: &[EvalMode],
    bar: &indicatif::ProgressBar,
) -> Result<RetrievalReport, Error> {
    let mut out = BTreeMap::new();
    for &mode in modes {
        rank_documents(engine, &ds.queries[0].text, mode, DOC_DEPTH)?; // warm-up
        let mut sums = [0f64; 5];
        let mut ms = Vec::with_capacity(ds.queries.len());
        for q in &ds.queries {
            let t = Instant::now();
            let ranked = rank_documents(engine, &q.text, mode, DOC_DEPTH)?;
            ms.push(t.elapsed().as_secs_f64() * 1000.0);
            let j = &ds.qrels[&q.id];
            sums[0] += ndcg_at_k(&ranked, j, TOP_K);
            sums[1] += recall_at_k(&ranked, j, TOP_K);
            sums[2] += recall_at_k(&ranked, j, DOC_DEPTH);
            sums[3] += mrr_at_k(&ranked, j, TOP_K);
            sums[4] += all_found_at_k(&ranked, j, TOP_K) as u8 as f64;
            bar.inc(1);
        }
        let n = ds.queries.len() as f64;
        let total: f64 = ms.iter().sum();
        ms.sort_by(f64::total_cmp);
        out.insert(
            mode.to_string(),
            ModeReport {
                ndcg10: sums[0] / n,
                recall10: sums[1] / n,
                recall100: sums[2] / n,
                mrr10: sums[3] / n,
                all_relevant10: sums[4] / n,
                p50_ms: percentile(&ms, 50.0),
                p95_ms: percentile(&ms, 95.0),
                qps: if total > 0.0 { n * 1000.0 / total } else { 0.0 },
            },
        );
    }
    Ok(RetrievalReport {
        dataset: ds.dir.display().to_string(),
        split: ds.split.clone(),
        queries: ds.queries.len(),
        documents: engine.store().document_count()?,
        chunks: engine.store().chunk_count()?,
        modes: out,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, qrels: &str) {
        std::fs::create_dir_all(dir.join("qrels")).unwrap();
        std::fs::write(
            dir.join("corpus.jsonl"),
            "{\"_id\": \"d1\", \"text\": \"x\"}\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("queries.jsonl"),
            "{\"_id\": \"q1\", \"text\": \"one\"}\n{\"_id\": \"q2\", \"text\": \"two\"}\n",
        )
        .unwrap();
        std::fs::write(dir.join("qrels/dev.tsv"), qrels).unwrap();
    }

    #[test]
    fn dataset_reads_judged_queries_only() {
        let tmp = tempfile::tempdir().unwrap();
        write(tmp.path(), "query-id\tcorpus-id\tscore\nq2\td1\t1\n");
        let ds = Dataset::load(tmp.path(), None).unwrap();
        assert_eq!(ds.split, "dev");
        assert_eq!(ds.queries.len(), 1);
        assert_eq!(ds.queries[0].id, "q2");
        assert_eq!(ds.qrels["q2"]["d1"], 1);
    }

    #[test]
    fn missing_files_and_malformed_qrels_are_clear_errors() {
        let tmp = tempfile::tempdir().unwrap();
        let e = Dataset::load(tmp.path(), None).unwrap_err().to_string();
        assert!(e.contains("missing corpus.jsonl"), "{e}");
        write(tmp.path(), "q1\td1\tmaybe\nq1\td1\tyes\n");
        let e = Dataset::load(tmp.path(), None).unwrap_err().to_string();
        assert!(e.contains("dev.tsv") && e.contains("line 2"), "{e}");
        write(tmp.path(), "q1\td1\t1\n");
        let e = Dataset::load(tmp.path(), Some("test"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("no split \"test\"") && e.contains("dev"), "{e}");
    }
}
