//! Search indexes over the stored chunks: the dense index (HNSW file beside the database,
//! or exact brute force) and the lexical query builder for the FTS5 table.
//!
//! The HNSW graph cannot delete points, so removed chunks stay in it as dead points and
//! are filtered at search time; the graph is rebuilt from the stored vectors when the
//! dead share passes `rebuild_dead_fraction`, when its files are missing or unreadable, or
//! when it no longer matches the chunk table.
//!
//! Chunk row ids only grow, so the chunks an ingest adds lie above the graph's highest
//! point. While they are few ([`delta_limit`]), an ingest leaves the saved graph alone and
//! searches read them exactly beside it (the delta): re-ingesting one file of a million
//! chunks then neither loads nor rewrites the graph.

pub mod dense;
pub mod lexical;

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;

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
    /// Corpus version the HNSW file, with the chunks above its highest point, was written
    /// for.
    pub hnsw_corpus_version: Option<u64>,
    /// Chunks above the graph's highest point, searched exactly beside it (see
    /// [`delta_limit`]).
    pub delta_points: usize,
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
    /// The graph, shared with the index it was refreshed from.
    hnsw: Option<Arc<HnswIndex>>,
    /// Chunks above the graph's highest point, searched exactly beside it.
    delta: Option<ExactIndex>,
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
/// The graph's highest point id when it was saved.
const META_MAX_ID: &str = "hnsw_max_id";

/// Most chunks kept beside the graph.
pub const DELTA_MAX: usize = 20_000;

/// Most chunks kept beside a graph of `points` points, searched exactly, before an ingest
/// inserts them into it and saves it: a twentieth of the graph, at most [`DELTA_MAX`].
pub fn delta_limit(points: usize) -> usize {
    (points / 20).min(DELTA_MAX)
}

/// Marks the dense index as not matching the store (until it is rebuilt or saved), before
/// a change it cannot see, such as vectors rewritten under their own ids (`--repair`).
pub fn mark_stale(store: &Store) -> Result<(), IndexError> {
    Ok(store.set_meta(META_VERSION, "stale")?)
}

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
    let version = store.corpus_version()?;
    let mut h = summary_health(store, dir)?;
    if h.hnsw_file.is_some() && h.problems.is_empty() && h.hnsw_corpus_version != Some(version) {
        h.problems.push(format!(
            "HNSW written for corpus version {:?}, store is at {version}",
            h.hnsw_corpus_version
        ));
    }
    h.consistent = h.problems.is_empty();
    Ok(h)
}

/// [`inspect_summary`] without comparing corpus versions. The chunks above the highest
/// point the store recorded for the graph are its delta; the graph holds every other live
/// chunk (it is saved only once they are all in), so its dead points are its points
/// beyond them.
fn summary_health(store: &Store, dir: &Path) -> Result<IndexHealth, IndexError> {
    let live = store.chunk_count()?;
    let mut h = recorded_health(store, live)?;
    match &h.hnsw_file {
        None if live == 0 => {}
        None => h.problems.push("no HNSW file recorded".into()),
        Some(name) => match HnswIndex::summary(dir, name) {
            Err(e) => h.problems.push(format!("HNSW file unreadable: {e}")),
            Ok(sum) => {
                h.delta_points = match recorded_max_id(store)? {
                    Some(max) => store
                        .chunk_row_ids()?
                        .into_iter()
                        .filter(|id| *id as u64 > max)
                        .count(),
                    None => 0,
                };
                let held = live - h.delta_points;
                h.hnsw_points = sum.count;
                h.dead_points = sum.count.saturating_sub(held);
                h.dead_fraction = h.dead_points as f64 / sum.count.max(1) as f64;
                if sum.count < held {
                    let missing = held - sum.count;
                    h.problems
                        .push(format!("{missing} chunk(s) missing from the HNSW graph"));
                }
                delta_problem(&mut h);
            }
        },
    }
    h.consistent = h.problems.is_empty();
    Ok(h)
}

/// More chunks above the graph than are ever kept beside it (an ingest inserts them first).
fn delta_problem(h: &mut IndexHealth) {
    let limit = delta_limit(h.hnsw_points);
    if h.delta_points > limit {
        h.problems.push(format!(
            "{} chunk(s) above the HNSW graph, more than the {limit} kept beside it",
            h.delta_points
        ));
    }
}

/// The graph's highest point id, as recorded when it was saved.
fn recorded_max_id(store: &Store) -> Result<Option<u64>, IndexError> {
    Ok(store.meta(META_MAX_ID)?.and_then(|v| v.parse().ok()))
}

/// Compares a graph with the live chunk rows and the corpus version: points, dead share and
/// problems go into `h`.
fn graph_health(g: &HnswIndex, live: &HashSet<u64>, version: u64, h: &mut IndexHealth) {
    let ids: HashSet<u64> = g.ids().into_iter().collect();
    let top = ids.iter().max().copied();
    h.hnsw_points = ids.len();
    h.delta_points = live.iter().filter(|i| top.is_none_or(|t| **i > t)).count();
    let missing = live
        .iter()
        .filter(|i| top.is_some_and(|t| **i <= t) && !ids.contains(i))
        .count();
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
    delta_problem(h);
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
            delta: None,
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
            dense.hnsw = if health.consistent {
                graph.map(Arc::new)
            } else {
                None
            };
            if dense.hnsw.is_none() {
                dense.hnsw = Some(Arc::new(rebuild(store, dir, cfg, dim, save)?));
                health.rebuilt = true;
                health.delta_points = 0;
            }
            if health.delta_points > 0 {
                dense.delta = Some(delta_from_store(store, dim, dense.hnsw.as_deref())?);
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
            Some(g) if health.consistent => Some(Arc::new(g)),
            _ => Some(Arc::new(rebuild(store, dir, cfg, dim, false)?)),
        };
        Ok(())
    }

    /// An index with no vectors (searches find nothing), for an engine that only writes
    /// until its first [`Dense::update`].
    pub fn empty() -> Self {
        Dense {
            exact: None,
            hnsw: None,
            delta: None,
            live: HashSet::new(),
            health: IndexHealth::default(),
        }
    }

    /// Bring the HNSW file up to date after the store changed (ingest): leave it as it is
    /// when few chunks were added ([`delta_limit`]); else insert the chunks it lacks
    /// (reading only their vectors), or rebuild when the dead share is too high, the file
    /// is unusable or `force` is set (repair); then save it and record its dump name and
    /// corpus version. The health returned is the saved graph's, computed in memory (a
    /// graph of a million points is not read back).
    pub fn update(
        store: &Store,
        dir: &Path,
        cfg: &Config,
        dim: usize,
        force: bool,
    ) -> Result<Updated, IndexError> {
        if !force {
            if let Some(health) = keep_delta(store, dir, cfg)? {
                return Ok(Updated {
                    health,
                    graph: None,
                });
            }
        }
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
                    return Ok(Updated {
                        health: before,
                        graph: Some(g),
                    });
                }
                new_ids.sort_unstable();
                let new = stored_vectors(store, &new_ids)?;
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
        Ok(Updated {
            health: h,
            graph: Some(g),
        })
    }

    /// The dense index for searching after [`Dense::update`], without reading the graph
    /// file again: the updated graph, or (when the update left the file alone) the graph
    /// of `previous`, with the chunks above it searched beside it. Falls back to
    /// [`Dense::open`] when neither fits.
    pub fn after_update(
        store: &Store,
        dir: &Path,
        cfg: &Config,
        dim: usize,
        updated: Updated,
        previous: Option<&Dense>,
    ) -> Result<Dense, IndexError> {
        let live = live_ids(store)?;
        let graph = match updated.graph {
            Some(g) => Some(Arc::new(g)),
            None => previous.and_then(|p| p.hnsw.clone()),
        };
        let Some(graph) = graph.filter(|_| live.len() >= cfg.exact_threshold) else {
            return Dense::open(store, dir, cfg, dim, true);
        };
        let mut health = updated.health;
        graph_health(&graph, &live, store.corpus_version()?, &mut health);
        health.consistent = health.problems.is_empty();
        if !health.consistent {
            return Dense::open(store, dir, cfg, dim, true);
        }
        health.dense_backend = "hnsw".into();
        let delta = if health.delta_points > 0 {
            Some(delta_from_store(store, dim, Some(&graph))?)
        } else {
            None
        };
        Ok(Dense {
            exact: None,
            hnsw: Some(graph),
            delta,
            live,
            health,
        })
    }

    /// Top-`k` live chunks by cosine similarity: (chunk row id, cosine), best first.
    pub fn search(&self, query: &[f32], k: usize) -> Vec<(i64, f32)> {
        let live = &self.live;
        self.search_kept(query, k, &|id: u64| live.contains(&id))
    }

    /// [`Self::search`] among chunks where `keep(row)` is also true.
    pub fn search_filtered(
        &self,
        query: &[f32],
        k: usize,
        keep: &(dyn Fn(i64) -> bool + Sync),
    ) -> Vec<(i64, f32)> {
        let live = &self.live;
        self.search_kept(query, k, &|id: u64| live.contains(&id) && keep(id as i64))
    }

    /// Top-`k` among points where `keep` is true: exact, or the graph's hits merged with
    /// the delta's.
    fn search_kept(
        &self,
        query: &[f32],
        k: usize,
        keep: &(dyn Fn(u64) -> bool + Sync),
    ) -> Vec<(i64, f32)> {
        let mut hits = match (&self.exact, &self.hnsw) {
            (Some(ex), _) => ex.search(query, k, keep),
            (None, Some(g)) => g.search(query, k, keep),
            (None, None) => Vec::new(),
        };
        if let (None, Some(d)) = (&self.exact, &self.delta) {
            hits.extend(d.search(query, k, keep));
            dense::sort_hits(&mut hits);
            hits.truncate(k);
        }
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

/// Whether `a` and `b` search the same graph in memory (one was refreshed from the other).
#[cfg(test)]
pub(crate) fn same_graph(a: &Dense, b: &Dense) -> bool {
    match (&a.hnsw, &b.hnsw) {
        (Some(x), Some(y)) => Arc::ptr_eq(x, y),
        _ => false,
    }
}

/// What [`Dense::update`] did: the health of the dense index, and the graph when the
/// update had it in memory (inserted into, rebuilt, or found complete).
pub struct Updated {
    /// Health of the graph and its delta.
    pub health: IndexHealth,
    graph: Option<HnswIndex>,
}

/// The stored vectors of chunk rows `ids` (rows gone meanwhile are left out), as graph
/// points.
fn stored_vectors(store: &Store, ids: &[i64]) -> Result<Vec<(u64, Vec<f32>)>, IndexError> {
    Ok(ids
        .iter()
        .zip(store.vectors_by_ids(ids)?)
        .filter_map(|(id, v)| Some((*id as u64, v?)))
        .collect())
}

/// An exact index over the stored vectors above `graph`'s highest point.
fn delta_from_store(
    store: &Store,
    dim: usize,
    graph: Option<&HnswIndex>,
) -> Result<ExactIndex, IndexError> {
    let top = graph.and_then(|g| g.ids().last().copied());
    let ids: Vec<i64> = store
        .chunk_row_ids()?
        .into_iter()
        .filter(|id| top.is_none_or(|t| *id as u64 > t))
        .collect();
    let rows = stored_vectors(store, &ids)?;
    Ok(ExactIndex::from_rows(
        dim,
        rows.iter().map(|(i, v)| (*i, v.as_slice())),
    )?)
}

/// When the saved graph holds every live chunk up to its highest point, few of its points
/// are dead and few chunks lie above it: the corpus version is recorded for the graph
/// with those chunks beside it, and the graph is neither loaded nor saved. `None` when
/// the graph must be updated (or was never saved with its highest point).
fn keep_delta(store: &Store, dir: &Path, cfg: &Config) -> Result<Option<IndexHealth>, IndexError> {
    let recorded = store
        .meta(META_VERSION)?
        .and_then(|v| v.parse::<u64>().ok());
    if recorded.is_none() || recorded_max_id(store)?.is_none() {
        return Ok(None);
    }
    let mut h = summary_health(store, dir)?;
    let keep = h.problems.is_empty()
        && h.hnsw_points > 0
        && h.delta_points <= delta_limit(h.hnsw_points)
        && h.dead_fraction <= cfg.rebuild_dead_fraction;
    if !keep {
        return Ok(None);
    }
    let version = store.corpus_version()?;
    store.set_meta(META_VERSION, &version.to_string())?;
    h.hnsw_corpus_version = Some(version);
    h.consistent = true;
    Ok(Some(h))
}

/// An exact index over every stored vector.
/// An exact index over every stored vector.
pub fn exact_from_store(store: &Store, dim: usize) -> Result<ExactIndex, IndexError> {
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
    let ids = store.chunk_row_ids()?;
    let mut g = HnswIndex::with_capacity(dim, &hnsw_params(cfg), ids.len())?;
    // In batches: the graph keeps its own copy of each vector, so the stored vectors are
    // never all held a second time.
    for batch in ids.chunks(REBUILD_BATCH) {
        let rows = stored_vectors(store, batch)?;
        let pts: Vec<(u64, &[f32])> = rows.iter().map(|(i, v)| (*i, v.as_slice())).collect();
        g.insert(&pts)?;
    }
    if persist {
        save(store, dir, &g)?;
    }
    Ok(g)
}

/// Vectors read from the store and inserted at a time when the graph is rebuilt.
const REBUILD_BATCH: usize = 50_000;

/// Base name of the HNSW dump files in the index directory.
pub const DUMP_BASENAME: &str = "hnsw";

/// Save the graph (atomically replacing the previous dump) and record the dump name and
/// the corpus version it reflects.
fn save(store: &Store, dir: &Path, g: &HnswIndex) -> Result<(), IndexError> {
    let version = store.corpus_version()?;
    let name = g.save(dir, DUMP_BASENAME)?;
    store.set_meta(META_DUMP, &name)?;
    let top = g.ids().last().copied().unwrap_or(0);
    store.set_meta(META_MAX_ID, &top.to_string())?;
    store.set_meta(META_VERSION, &version.to_string())?;
    Ok(())
}
