//! Measurement: `attest eval search` runs a query file against an index and reports
//! search latency per mode and the recall@k of the HNSW graph against exact search;
//! [`retrieval`] evaluates ranking quality on BEIR datasets with [`metrics`], and
//! [`answers`], [`multihop`] and [`attribution`] measure answers, the research loop and the
//! support check.
//!
//! Each evaluation has a `run` function that takes the configuration and the command's
//! options and does everything the command does but print: choose the evaluation index
//! ([`eval_index_dir`]), load the dataset, bring its corpus into the index
//! ([`open_eval_engine`]), evaluate and assemble the report.

pub mod answers;
pub mod attribution;
pub mod documents;
pub mod metrics;
pub mod multihop;
pub mod retrieval;
pub mod review;
pub mod synth;

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;

use crate::config::{setting, Config, Origin, Range};
use crate::engine::Engine;
use crate::error::Error;
use crate::ingest::{ingest, IngestOptions};
use crate::retrieve::{search, Mode};

use retrieval::Dataset;

/// Where evaluation indexes live by default, one directory per dataset, under the working
/// directory.
pub const EVAL_INDEX_ROOT: &str = ".attest-eval";

/// The modes `attest eval search` times.
pub const SEARCH_MODES: [Mode; 3] = [Mode::Lexical, Mode::Dense, Mode::Hybrid];

/// The options every dataset evaluation shares.
#[derive(Debug, Clone, Default)]
pub struct DatasetRun {
    /// Dataset directory (BEIR format).
    pub dataset: PathBuf,
    /// qrels split (default: the only one, else `test`).
    pub split: Option<String>,
    /// Index for the dataset (default: [`eval_index_dir`]).
    pub eval_index: Option<PathBuf>,
    /// Use at most this many questions.
    pub limit: Option<usize>,
    /// Show progress bars on standard error.
    pub progress: bool,
}

/// Keep at most `limit` items (at least one).
pub fn truncate<T>(items: &mut Vec<T>, limit: Option<usize>) {
    if let Some(n) = limit {
        items.truncate(n.max(1));
    }
}

/// The index an evaluation uses: `eval_index`, or [`EVAL_INDEX_ROOT`]`/<dataset directory
/// name>`.
pub fn eval_index_dir(dataset: &Path, eval_index: Option<PathBuf>) -> PathBuf {
    eval_index.unwrap_or_else(|| {
        let name = dataset
            .canonicalize()
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "dataset".into());
        PathBuf::from(EVAL_INDEX_ROOT).join(name)
    })
}

/// Load a BEIR dataset's split, keeping at most `limit` queries.
pub fn load_dataset(
    dir: &Path,
    split: Option<&str>,
    limit: Option<usize>,
) -> Result<Dataset, Error> {
    let mut ds = Dataset::load(dir, split)?;
    truncate(&mut ds.queries, limit);
    Ok(ds)
}

/// Open (creating if needed) the evaluation index of `cfg` and bring the dataset's corpus
/// into it; a file that fails to ingest is an error. A BEIR corpus is one `.jsonl` file
/// holding the whole dataset (SciFact: 13,113 chunks, over 7 minutes of embedding on two
/// cores), so the per-file chunk budget and time limit are lifted to their maxima for it
/// unless they were set.
pub fn open_eval_engine(mut cfg: Config, ds: &Dataset, progress: bool) -> Result<Engine, Error> {
    lift_file_budgets(&mut cfg);
    let mut engine = Engine::open_with_default_model(cfg, true)?;
    let r = ingest(
        &mut engine,
        &[ds.corpus()],
        &IngestOptions {
            prune: false,
            progress,
            ..IngestOptions::default()
        },
    )?;
    if let Some(f) = r.failed.first() {
        return Err(Error::Usage(format!("{}: {}", f.path, f.reason)));
    }
    Ok(engine)
}

/// Raise `max_chunks_per_file` and `file_timeout_secs` to the top of their ranges, each
/// unless it was set (file, environment or flag).
fn lift_file_budgets(cfg: &mut Config) {
    let most = |key: &str| match setting(key).and_then(|s| s.range) {
        Some(Range::Int(_, hi)) => Some(hi),
        _ => None,
    };
    let unset = |cfg: &Config, key: &str| cfg.origin(key) == Origin::Default;
    if let Some(hi) = most("max_chunks_per_file").filter(|_| unset(cfg, "max_chunks_per_file")) {
        cfg.max_chunks_per_file = usize::try_from(hi).unwrap_or(usize::MAX);
    }
    if let Some(hi) = most("file_timeout_secs").filter(|_| unset(cfg, "file_timeout_secs")) {
        cfg.file_timeout_secs = hi;
    }
}

/// `attest eval search`: the queries of the file `queries` (at most `limit`) against the
/// index of `cfg`, `k` hits each, in every mode of [`SEARCH_MODES`].
pub fn run_search(
    cfg: Config,
    queries: &Path,
    k: usize,
    limit: Option<usize>,
) -> Result<SearchEval, Error> {
    let mut engine = Engine::open_with_default_model(cfg, false)?;
    engine.ensure_graph()?;
    let mut qs = read_queries(queries)?;
    truncate(&mut qs, limit);
    eval_search(
        &engine,
        &qs,
        &queries.display().to_string(),
        k,
        &SEARCH_MODES,
    )
}

/// One query read from a query file.
#[derive(Debug, Clone)]
pub struct Query {
    /// Query id (`_id` in BEIR files, the line number otherwise).
    pub id: String,
    /// Query text.
    pub text: String,
    /// Gold answer strings (`metadata.answers` in BEIR files), when the dataset has them.
    pub answers: Vec<String>,
}

/// Read queries: BEIR `queries.jsonl` (`_id`, `text`) or plain text, one query per line.
pub fn read_queries(path: &Path) -> Result<Vec<Query>, Error> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::Usage(format!("{}: {e}", path.display())))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if line.starts_with('{') {
            let v: serde_json::Value = serde_json::from_str(line)
                .map_err(|e| Error::Usage(format!("{}: line {}: {e}", path.display(), i + 1)))?;
            let id = v["_id"].as_str().map(str::to_string);
            let q = v["text"].as_str().map(str::to_string);
            let answers = v["metadata"]["answers"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|x| x.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default();
            match (id, q) {
                (Some(id), Some(text)) => out.push(Query { id, text, answers }),
                _ => {
                    return Err(Error::Usage(format!(
                        "{}: line {}: expected string fields _id and text",
                        path.display(),
                        i + 1
                    )))
                }
            }
        } else {
            out.push(Query {
                id: (i + 1).to_string(),
                text: line.to_string(),
                answers: Vec::new(),
            });
        }
    }
    if out.is_empty() {
        return Err(Error::Usage(format!("{}: no queries", path.display())));
    }
    Ok(out)
}

/// Latency figures of one mode.
#[derive(Debug, Clone, Serialize)]
pub struct Latency {
    /// Median milliseconds per query.
    pub p50_ms: f64,
    /// 95th percentile milliseconds per query.
    pub p95_ms: f64,
    /// Mean milliseconds per query.
    pub mean_ms: f64,
    /// Queries per second (single thread of queries).
    pub qps: f64,
}

/// The `attest eval search` report.
#[derive(Debug, Clone, Serialize)]
pub struct SearchEval {
    /// Query file.
    pub queries_file: String,
    /// Queries run.
    pub queries: usize,
    /// Chunks in the index.
    pub chunks: usize,
    /// Hits asked per query.
    pub k: usize,
    /// Dense backend used by `search`.
    pub dense_backend: String,
    /// Latency of the whole `search` call (embedding, retrieval, fusion, fetching rows)
    /// per mode.
    pub modes: std::collections::BTreeMap<String, Latency>,
    /// Mean recall@k of HNSW against exact dense search (None without an HNSW graph).
    pub hnsw_recall_at_k: Option<f64>,
    /// Mean milliseconds of the dense lookup alone: exact and HNSW.
    pub exact_lookup_ms: f64,
    /// Mean milliseconds of the HNSW lookup alone.
    pub hnsw_lookup_ms: Option<f64>,
}

/// Percentile (nearest rank) of sorted values.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn latency(mut ms: Vec<f64>) -> Latency {
    ms.sort_by(f64::total_cmp);
    let total: f64 = ms.iter().sum();
    Latency {
        p50_ms: percentile(&ms, 50.0),
        p95_ms: percentile(&ms, 95.0),
        mean_ms: total / ms.len().max(1) as f64,
        qps: if total > 0.0 {
            ms.len() as f64 * 1000.0 / total
        } else {
            0.0
        },
    }
}

/// Recall@k of the HNSW graph against exact search, per query, with the summed times of
/// both lookups. On a backend that searches vectors itself (Milvus), its own HNSW search
/// is measured against an exact index of every stored vector, read once.
fn dense_recall(
    engine: &Engine,
    queries: &[Query],
    k: usize,
) -> Result<(Vec<f64>, f64, f64), Error> {
    let served = engine.store().searches_dense();
    let everything = match served {
        true => Some(crate::index::exact_from_store(
            engine.store(),
            engine.embedder().dim(),
        )?),
        false => None,
    };
    let mut recall = Vec::new();
    let (mut exact_ms, mut hnsw_ms) = (0.0, 0.0);
    for q in queries {
        let v = engine.embed_query(&q.text)?;
        let t = Instant::now();
        let exact: Vec<(i64, f32)> = match &everything {
            Some(ex) => ex
                .search(&v, k, &|_| true)
                .into_iter()
                .map(|(i, s)| (i as i64, s))
                .collect(),
            None => engine.dense_search_exact(&v, k)?,
        };
        exact_ms += t.elapsed().as_secs_f64() * 1000.0;
        let t = Instant::now();
        let approx = match served {
            true => Some(engine.dense_search(&v, k)?),
            false => engine.dense_search_hnsw(&v, k),
        };
        if let Some(approx) = approx {
            hnsw_ms += t.elapsed().as_secs_f64() * 1000.0;
            let want: std::collections::HashSet<i64> = exact.iter().map(|x| x.0).collect();
            let got = approx.iter().filter(|x| want.contains(&x.0)).count();
            recall.push(got as f64 / want.len().max(1) as f64);
        }
    }
    Ok((recall, exact_ms, hnsw_ms))
}

/// Run every query in each mode, timing whole searches, then measure HNSW recall@k.
pub fn eval_search(
    engine: &Engine,
    queries: &[Query],
    file: &str,
    k: usize,
    modes: &[Mode],
) -> Result<SearchEval, Error> {
    let mut out = std::collections::BTreeMap::new();
    for &mode in modes {
        // Warm-up query (page cache, allocator).
        search(engine, &queries[0].text, mode, k)?;
        let mut ms = Vec::with_capacity(queries.len());
        for q in queries {
            let t = Instant::now();
            search(engine, &q.text, mode, k)?;
            ms.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        out.insert(mode.to_string(), latency(ms));
    }
    let (recall, exact_ms, hnsw_ms) = dense_recall(engine, queries, k)?;
    let n = queries.len() as f64;
    Ok(SearchEval {
        queries_file: file.to_string(),
        queries: queries.len(),
        chunks: engine.store().chunk_count()?,
        k,
        dense_backend: engine.dense_backend().to_string(),
        modes: out,
        hnsw_recall_at_k: (!recall.is_empty())
            .then(|| recall.iter().sum::<f64>() / recall.len() as f64),
        exact_lookup_ms: exact_ms / n,
        hnsw_lookup_ms: (!recall.is_empty()).then_some(hnsw_ms / n),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentile_uses_nearest_rank() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&v, 50.0), 50.0);
        assert_eq!(percentile(&v, 95.0), 95.0);
        assert_eq!(percentile(&[3.0], 95.0), 3.0);
        assert_eq!(percentile(&[], 50.0), 0.0);
    }

    #[test]
    fn queries_read_from_beir_jsonl_or_plain_lines() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("q.jsonl");
        std::fs::write(&p, "{\"_id\": \"7\", \"text\": \"a claim\"}\n\n").unwrap();
        let q = read_queries(&p).unwrap();
        assert_eq!((q[0].id.as_str(), q[0].text.as_str()), ("7", "a claim"));
        std::fs::write(&p, "first question\nsecond\n").unwrap();
        assert_eq!(read_queries(&p).unwrap().len(), 2);
        std::fs::write(&p, "{\"id\": 1}\n").unwrap();
        assert!(read_queries(&p).unwrap_err().to_string().contains("line 1"));
    }
}
