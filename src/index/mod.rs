//! Search indexes over the stored chunks: the dense index (HNSW file beside the database,
//! or exact brute force) and the lexical query builder for the FTS5 table.
//!
//! The HNSW graph cannot delete points, so removed chunks stay in it as dead points and
//! are filtered at search time; the graph is rebuilt from the stored vectors when the
//! dead share passes `rebuild_dead_fraction`, when its files are missing or unreadable, or
//! when it no longer matches the chunk table.

pub mod dense;
pub mod lexical;

use std::collections::HashSet;
use std::path::Path;

use serde::Serialize;

use crate::config::Config;
use crate::store::{Store, StoreError};
use dense::{DenseError, ExactIndex, HnswIndex, HnswParams};

/// Errors of the dense index's upkeep: the store it reads, or the index files.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// The SQLite store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The dense index failed.
    #[error(transparent)]
    Dense(#[from] DenseError),
}

/// Health of the dense index as found when the index was opened.
#[derive(Debug, Clone, Serialize, Default)]
pub struct IndexHealth {
    /// The HNSW file matches the chunk table (every live chunk is in it, and it was
    /// written for the current corpus version).
    pub consistent: bool,
    /// Dump name of the HNSW files in the index directory.
    pub hnsw_file: Option<String>,
    /// Points in the HNSW graph.
    pub hnsw_points: usize,
    /// Chunks in the store.
    pub live_chunks: usize,
    /// HNSW points whose chunk was removed.
    pub dead_points: usize,
    /// `dead_points / hnsw_points`.
    pub dead_fraction: f64,
    /// Corpus version the HNSW file was written for.
    pub hnsw_corpus_version: Option<u64>,
    /// Dense search backend in use: `exact` or `hnsw`.
    pub dense_backend: String,
    /// What was wrong, if anything (and what was done about it).
    pub problems: Vec<String>,
    /// Whether the graph was rebuilt from stored vectors while opening.
    pub rebuilt: bool,
}

/// The dense index in use for searching.
pub struct Dense {
    exact: Option<ExactIndex>,
    hnsw: Option<HnswIndex>,
    live: HashSet<u64>,
    health: IndexHealth,
}

/// HNSW parameters from the configuration.
pub fn hnsw_params(cfg: &Config) -> HnswParams {
    HnswParams {
        max_connections: cfg.hnsw_m,
        ef_construction: cfg.hnsw_ef_construction,
        ef_search: cfg.hnsw_ef_search,
    }
}

const META_DUMP: &str = "hnsw_dump";
const META_VERSION: &str = "hnsw_corpus_version";

/// The chunk row ids in the store, as graph point ids.
fn live_ids(store: &Store) -> Result<HashSet<u64>, IndexError> {
    Ok(store
        .chunk_row_ids()?
        .into_iter()
        .map(|i| i as u64)
        .collect())
}

/// A health record with what the store records about the HNSW file: its dump name and
/// the corpus version it was written for.
fn recorded_health(store: &Store, live_chunks: usize) -> Result<IndexHealth, IndexError> {
    Ok(IndexHealth {
        live_chunks,
        hnsw_file: store.meta(META_DUMP)?,
        hnsw_corpus_version: store.meta(META_VERSION)?.and_then(|v| v.parse().ok()),
        ..Default::default()
    })
}

/// Look at the HNSW file recorded in the store and compare it with the chunk table.
/// Returns the loaded graph (when loadable) and its health.
pub fn inspect(
    store: &Store,
    dir: &Path,
    cfg: &Config,
) -> Result<(Option<HnswIndex>, IndexHealth), IndexError> {
    let live = live_ids(store)?;
    let mut h = recorded_health(store, live.len())?;
    let version = store.corpus_version()?;
    let graph = match &h.hnsw_file {
        None if live.is_empty() => None,
        None => {
            h.problems.push("no HNSW file recorded".into());
            None
        }
        Some(name) => match HnswIndex::load(dir, name, &hnsw_params(cfg)) {
            Ok(g) => Some(g),
            Err(e) => {
                h.problems.push(format!("HNSW file unreadable: {e}"));
                None
            }
        },
    };
    if let Some(g) = &graph {
        graph_health(g, &live, version, &mut h);
    }
    h.consistent = h.problems.is_empty();
    Ok((graph, h))
}

/// [`inspect`] from the HNSW manifest alone (points, files present at their recorded
/// lengths, the corpus version it was written for), for `status`: milliseconds at any
/// size. A graph saved at the current corpus version holds every live chunk (it is saved
/// only once they are all in), so its dead points are its points beyond the live ones.
pub fn inspect_summary(store: &Store, dir: &Path) -> Result<IndexHealth, IndexError> {
    let live = store.chunk_count()?;
    let version = store.corpus_version()?;
    let mut h = recorded_health(store, live)?;
    match &h.hnsw_file {
        None if live == 0 => {}
        None => h.problems.push("no HNSW file recorded".into()),
        Some(name) => match HnswIndex::summary(dir, name) {
            Err(e) => h.problems.push(format!("HNSW file unreadable: {e}")),
            Ok(sum) => {
                h.hnsw_points = sum.count;
                h.dead_points = sum.count.saturating_sub(live);
                h.dead_fraction = h.dead_points as f64 / sum.count.max(1) as f64;
                if h.hnsw_corpus_version != Some(version) {
                    h.problems.push(format!(
                        "HNSW written for corpus version {:?}, store is at {version}",
                        h.hnsw_corpus_version
                    ));
                } else if sum.count < live {
                    let missing = live - sum.count;
                    h.problems
                        .push(format!("{missing} chunk(s) missing from the HNSW graph"));
                }
            }
        },
    }
    h.consistent = h.problems.is_empty();
    Ok(h)
}

/// Compares a graph with the live chunk rows and the corpus version: points, dead share and
/// problems go into `h`.
fn graph_health(g: &HnswIndex, live: &HashSet<u64>, version: u64, h: &mut IndexHealth) {
    let ids: HashSet<u64> = g.ids().into_iter().collect();
    h.hnsw_points = ids.len();
    let missing = live.difference(&ids).count();
    h.dead_points = ids.difference(live).count();
    h.dead_fraction = if ids.is_empty() {
        0.0
    } else {
        h.dead_points as f64 / ids.len() as f64
    };
    if missing > 0 {
        h.problems
            .push(format!("{missing} chunk(s) missing from the HNSW graph"));
    }
    if h.hnsw_corpus_version != Some(version) {
        h.problems.push(format!(
            "HNSW written for corpus version {:?}, store is at {version}",
            h.hnsw_corpus_version
        ));
    }
}

impl Dense {
    /// Open the dense index for searching: exact below `exact_threshold` chunks, HNSW
    /// otherwise. An inconsistent HNSW file is rebuilt from the stored vectors (and
    /// saved, when `save` is true).
    pub fn open(
        store: &Store,
        dir: &Path,
        cfg: &Config,
        dim: usize,
        save: bool,
    ) -> Result<Self, IndexError> {
        let live = live_ids(store)?;
        let mut dense = Dense {
            exact: None,
            hnsw: None,
            live,
            health: IndexHealth::default(),
        };
        if dense.live.len() < cfg.exact_threshold {
            // Exact search needs no graph; only the recorded version is checked here
            // (`attest status` inspects the graph itself).
            dense.exact = Some(exact_from_store(store, dim)?);
            let version = store.corpus_version()?;
            let mut h = recorded_health(store, dense.live.len())?;
            h.dense_backend = "exact".into();
            if !dense.live.is_empty() && h.hnsw_corpus_version != Some(version) {
                h.problems.push(format!(
                    "HNSW written for corpus version {:?}, store is at {version}",
                    h.hnsw_corpus_version
                ));
            }
            h.consistent = h.problems.is_empty();
            dense.health = h;
        } else {
            let (graph, mut health) = inspect(store, dir, cfg)?;
            health.dense_backend = "hnsw".into();
            dense.hnsw = if health.consistent { graph } else { None };
            if dense.hnsw.is_none() {
                dense.hnsw = Some(rebuild(store, dir, cfg, dim, save)?);
                health.rebuilt = true;
            }
            dense.health = health;
        }
        Ok(dense)
    }

    /// Make sure an HNSW graph is loaded (from its file when consistent, else rebuilt in
    /// memory from the stored vectors), e.g. to measure its recall against exact search.
    pub fn ensure_graph(
        &mut self,
        store: &Store,
        dir: &Path,
        cfg: &Config,
        dim: usize,
    ) -> Result<(), IndexError> {
        if self.hnsw.is_some() {
            return Ok(());
        }
        let (graph, health) = inspect(store, dir, cfg)?;
        self.hnsw = match graph {
            Some(g) if health.consistent => Some(g),
            _ => Some(rebuild(store, dir, cfg, dim, false)?),
        };
        Ok(())
    }

    /// An index with no vectors (searches find nothing), for an engine that only writes
    /// until its first [`Dense::update`].
    pub fn empty() -> Self {
        Dense {
            exact: None,
            hnsw: None,
            live: HashSet::new(),
            health: IndexHealth::default(),
        }
    }

    /// Bring the HNSW file up to date after the store changed (ingest): insert the chunks
    /// it lacks (reading only their vectors), or rebuild when the dead share is too high,
    /// the file is unusable or `force` is set (repair); then save it and record its dump
    /// name and corpus version. The health returned is the saved graph's, computed in
    /// memory (a graph of a million points is not read back).
    pub fn update(
        store: &Store,
        dir: &Path,
        cfg: &Config,
        dim: usize,
        force: bool,
    ) -> Result<IndexHealth, IndexError> {
        let (graph, before) = inspect(store, dir, cfg)?;
        let usable = graph.filter(|_| !force && before.dead_fraction <= cfg.rebuild_dead_fraction);
        let g = match usable {
            Some(mut g) => {
                let have: HashSet<u64> = g.ids().into_iter().collect();
                let mut new_ids: Vec<i64> = store
                    .chunk_row_ids()?
                    .into_iter()
                    .filter(|id| !have.contains(&(*id as u64)))
                    .collect();
                if new_ids.is_empty() && before.consistent {
                    return Ok(before);
                }
                new_ids.sort_unstable();
                let vectors = store.vectors_by_ids(&new_ids)?;
                let new: Vec<(u64, Vec<f32>)> = new_ids
                    .iter()
                    .zip(vectors)
                    .filter_map(|(id, v)| Some((*id as u64, v?)))
                    .collect();
                if !new.is_empty() {
                    let pts: Vec<(u64, &[f32])> =
                        new.iter().map(|(i, v)| (*i, v.as_slice())).collect();
                    g.insert(&pts)?;
                }
                save(store, dir, &g)?;
                g
            }
            None => rebuild(store, dir, cfg, dim, true)?,
        };
        let live = live_ids(store)?;
        let mut h = recorded_health(store, live.len())?;
        graph_health(&g, &live, store.corpus_version()?, &mut h);
        h.consistent = h.problems.is_empty();
        Ok(h)
    }

    /// Top-`k` live chunks by cosine similarity: (chunk row id, cosine), best first.
    pub fn search(&self, query: &[f32], k: usize) -> Vec<(i64, f32)> {
        let live = &self.live;
        let keep = |id: u64| live.contains(&id);
        let hits = match (&self.exact, &self.hnsw) {
            (Some(ex), _) => ex.search(query, k, &keep),
            (None, Some(g)) => g.search(query, k, &keep),
            (None, None) => Vec::new(),
        };
        hits.into_iter().map(|(i, s)| (i as i64, s)).collect()
    }

    /// [`Self::search`] among chunks where `keep(row)` is also true.
    pub fn search_filtered(
        &self,
        query: &[f32],
        k: usize,
        keep: &(dyn Fn(i64) -> bool + Sync),
    ) -> Vec<(i64, f32)> {
        let live = &self.live;
        let keep = |id: u64| live.contains(&id) && keep(id as i64);
        let hits = match (&self.exact, &self.hnsw) {
            (Some(ex), _) => ex.search(query, k, &keep),
            (None, Some(g)) => g.search(query, k, &keep),
            (None, None) => Vec::new(),
        };
        hits.into_iter().map(|(i, s)| (i as i64, s)).collect()
    }

    /// Exact top-`k` (brute force over the stored vectors), regardless of the backend.
    pub fn search_exact(
        &self,
        store: &Store,
        dim: usize,
        query: &[f32],
        k: usize,
    ) -> Result<Vec<(i64, f32)>, IndexError> {
        let live = &self.live;
        let keep = |id: u64| live.contains(&id);
        let hits = match &self.exact {
            Some(ex) => ex.search(query, k, &keep),
            None => exact_from_store(store, dim)?.search(query, k, &keep),
        };
        Ok(hits.into_iter().map(|(i, s)| (i as i64, s)).collect())
    }

    /// HNSW top-`k`, regardless of the backend (for measuring its recall).
    pub fn search_hnsw(&self, query: &[f32], k: usize) -> Option<Vec<(i64, f32)>> {
        let live = &self.live;
        let keep = |id: u64| live.contains(&id);
        self.hnsw.as_ref().map(|g| {
            g.search(query, k, &keep)
                .into_iter()
                .map(|(i, s)| (i as i64, s))
                .collect()
        })
    }

    /// Health found when opening.
    pub fn health(&self) -> &IndexHealth {
        &self.health
    }

    /// `exact` or `hnsw`.
    pub fn backend(&self) -> &str {
        &self.health.dense_backend
    }
}

/// An exact index over every stored vector.
fn exact_from_store(store: &Store, dim: usize) -> Result<ExactIndex, IndexError> {
    let vectors = store.all_vectors()?;
    let rows = vectors.iter().map(|(id, v)| (*id as u64, v.as_slice()));
    Ok(ExactIndex::from_rows(dim, rows)?)
}

fn rebuild(
    store: &Store,
    dir: &Path,
    cfg: &Config,
    dim: usize,
    persist: bool,
) -> Result<HnswIndex, IndexError> {
    let vectors = store.all_vectors()?;
    let pts: Vec<(u64, &[f32])> = vectors
        .iter()
        .map(|(i, v)| (*i as u64, v.as_slice()))
        .collect();
    let g = HnswIndex::build(dim, &hnsw_params(cfg), &pts)?;
    if persist {
        save(store, dir, &g)?;
    }
    Ok(g)
}

/// Base name of the HNSW dump files in the index directory.
pub const DUMP_BASENAME: &str = "hnsw";

/// Save the graph (atomically replacing the previous dump) and record the dump name and
/// the corpus version it reflects.
fn save(store: &Store, dir: &Path, g: &HnswIndex) -> Result<(), IndexError> {
    let version = store.corpus_version()?;
    let name = g.save(dir, DUMP_BASENAME)?;
    store.set_meta(META_DUMP, &name)?;
    store.set_meta(META_VERSION, &version.to_string())?;
    Ok(())
}
