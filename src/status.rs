//! `attest status`: what the index holds and whether its parts agree, without loading
//! the model: from metadata alone, or with `--deep` by reading everything.

use serde::Serialize;

use crate::config::Config;
use crate::error::Error;
use crate::index::{inspect, inspect_summary, IndexHealth};
use crate::store::Problem;

/// The `attest status` report.
#[derive(Debug, Clone, Serialize)]
pub struct Status {
    /// Index directory.
    pub index_dir: String,
    /// Documents stored.
    pub documents: usize,
    /// Chunks stored.
    pub chunks: usize,
    /// Model the index was built with.
    pub model: String,
    /// Vector dimension.
    pub dimension: usize,
    /// Corpus version.
    pub corpus_version: u64,
    /// Store schema version.
    pub schema_version: i64,
    /// Dense index health (plus store integrity problems).
    pub index: IndexHealth,
    /// Chunks the prompt-injection guard flagged at ingest.
    pub injection_flags: Vec<InjectionFlag>,
    /// Whether the index is read-only (read commands work; ingest is refused).
    pub read_only: bool,
    /// With `--deep`: every damaged document or chunk found (empty when sound).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deep: Option<Vec<Problem>>,
    /// Whether an `attest ingest` is writing this index right now (counts may change and
    /// the dense index may lag until it ends).
    pub ingest_running: bool,
}

/// A chunk flagged by the prompt-injection guard.
#[derive(Debug, Clone, serde::Serialize)]
pub struct InjectionFlag {
    /// Source path (with `#key` for BEIR documents).
    pub source: String,
    /// First line of the chunk.
    pub line: usize,
    /// Kind of injection.
    pub kind: String,
    /// The phrase that matched (normalised).
    pub matched: String,
}

/// Inspect the index named by `cfg` from its metadata (counts, versions, the HNSW
/// manifest) and two scans of lengths (chunk spans, vector lengths): about 2.5 s at a
/// million chunks, where loading the graph takes far longer (a server's `/v1/status` runs
/// it). With `deep`, also load the HNSW graph and compare it point by point, run SQLite's
/// `quick_check`, and check every stored vector, document text, chunk span and the
/// full-text index ([`Store::deep_check`]).
pub fn status(cfg: &Config, deep: bool) -> Result<Status, Error> {
    let store = crate::engine::open_existing_store(cfg)?;
    let mut index = if store.searches_dense() {
        IndexHealth {
            live_chunks: store.chunk_count()?,
            dense_backend: cfg.backend.to_string(),
            consistent: true,
            ..IndexHealth::default()
        }
    } else if deep {
        inspect(&store, &cfg.index, cfg)?.1
    } else {
        inspect_summary(&store, &cfg.index)?
    };
    if !store.searches_dense() {
        index.dense_backend = if index.live_chunks < cfg.exact_threshold {
            "exact".into()
        } else {
            "hnsw".into()
        };
    }
    let mut problems = store.integrity_problems()?;
    let deep = if deep {
        problems.extend(store.storage_problems()?);
        let found = store.deep_check()?;
        problems.extend(found.iter().map(Problem::to_string));
        Some(found)
    } else {
        None
    };
    if !problems.is_empty() {
        index.consistent = false;
        index.problems.extend(problems);
    }
    Ok(Status {
        index_dir: match cfg.backend {
            crate::config::BackendKind::Sqlite => cfg.index.display().to_string(),
            crate::config::BackendKind::Milvus => store.location().display().to_string(),
        },
        documents: store.document_count()?,
        chunks: store.chunk_count()?,
        model: store.model_id()?.unwrap_or_default(),
        dimension: store.dimension()?.unwrap_or(0),
        corpus_version: store.corpus_version()?,
        schema_version: store.schema_version()?,
        index,
        injection_flags: store
            .injection_flags()?
            .into_iter()
            .map(|(source, line, kind, matched)| InjectionFlag {
                source,
                line,
                kind,
                matched,
            })
            .collect(),
        read_only: store.is_read_only(),
        deep,
        ingest_running: crate::ingest::ingest_running(&cfg.index),
    })
}
