//! Dense (embedding) vector indexes.
//!
//! * [`HnswIndex`]: an approximate nearest-neighbour graph built with `hnsw_rs`, persisted as
//!   `hnsw_rs` dump files plus a small checksummed manifest, committed atomically.
//! * [`ExactIndex`]: brute-force cosine search over a flat row-major matrix, used for small
//!   corpora and as ground truth for [`recall_at_k`].
//!
//! Vectors are L2-normalised `f32`, so cosine similarity is the dot product. Ids are `u64`
//! (SQLite rowids of chunks). All result lists are sorted by descending similarity, ties by
//! ascending id.
//!
//! # Notes on `hnsw_rs` 0.3.5 (what this module works around)
//!
//! * `Hnsw::new` calls `std::process::exit(1)` when `max_nb_connection > 256`, and dumps store
//!   it as a `u8` (256 would become 0), so [`HnswParams::validate`] accepts `2..=255`.
//! * `file_dump` refuses graphs whose `max_layer` is not exactly 16 (`NB_LAYER_MAX`), so the
//!   layer count is fixed at [`MAX_LAYERS`].
//! * `file_dump` returns the basename it actually used: it appends a random `-NNNN` suffix when
//!   the files exist and the graph came from a reload (reloaded graphs are flagged as
//!   "mmapped" and never overwrite). We record whatever it returns in the manifest.
//! * `DistDot` asserts `1 - dot >= 0`, which fails (panics) for near-duplicate unit vectors
//!   because of rounding; `DistCosine` is safe but computes three `f64` sums per call. We use a
//!   private distance, `UnitDot` = `max(0, 1 - dot)`, with the same autovectorisable kernel as
//!   [`ExactIndex`] (so graph and exact scores are bit-identical). It never returns NaN, which
//!   `hnsw_rs` would otherwise turn into a panic when ordering candidates.
//! * Loading: `HnswIo::load_hnsw` returns an `Hnsw<'b, ..>` that borrows the `HnswIo` (for
//!   optional mmap data). We own both in `OwnedHnsw`: the loader lives in a `Box` whose raw
//!   pointer is kept until the graph has been dropped (mmap is never enabled, so point data is
//!   owned anyway). The loader also *panics* (`unwrap`/`assert!`) or even calls
//!   `process::exit` on truncated or corrupt files, so every dump is fully validated (structure
//!   and checksum) before `hnsw_rs` sees it, and the load runs under `catch_unwind`.
//! * `search_filter` applies the filter while walking the base layer (filtered-out nodes are
//!   still traversed, the answer is post-filtered) but (a) it can return fewer than `k` hits
//!   (kept nodes unreachable from where the beam goes; the non-kept entry point can occupy a
//!   slot) and (b) with a filter it never takes the beam's early exit, so it is slow: on 20k
//!   clustered 384-d points it took 4 ms (50 % kept) to 65 ms (0.5 % kept) per query, against
//!   0.8 ms for an unfiltered search and 0.2-3.4 ms for an exact scan of the kept points.
//!   [`HnswIndex::search`] therefore never uses it: it estimates the kept fraction `f` from a
//!   sample of ids, then either scans the kept points exactly or runs an *unfiltered* search
//!   with `ef = max(ef_search, k, 2k/f)` and post-filters, whichever its cost model says is
//!   cheaper, and falls back to an exact scan whenever the graph yields fewer than `k` kept
//!   hits. So the result always has `min(k, kept)` entries.
//! * Parallel insertion into an *empty* graph can race on the entry point and leave points
//!   without neighbours, so the first points of a new graph are inserted serially.
//! * There is no deletion: callers rebuild (or filter out dead ids at search time).

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashSet};
use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufReader, Read, Write};
use std::mem::ManuallyDrop;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use hnsw_rs::anndists::dist::distances::Distance;
use hnsw_rs::api::AnnT;
use hnsw_rs::filter::FilterT;
use hnsw_rs::hnsw::{Hnsw, Point, PointId};
use hnsw_rs::hnswio::HnswIo;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::caught::panic_message;
use crate::models::dot;

/// Number of HNSW layers. `hnsw_rs` can only dump graphs created with exactly 16 layers.
pub const MAX_LAYERS: usize = 16;

/// Largest accepted `max_connections` (`hnsw_rs` stores it as a `u8` in dumps).
pub const MAX_CONNECTIONS_LIMIT: usize = 255;

pub use crate::models::NORM_TOLERANCE;

/// Suffix of the manifest file that commits a saved [`HnswIndex`] (`<basename>.hnsw.meta`).
pub const MANIFEST_SUFFIX: &str = ".hnsw.meta";

/// Errors of the dense index module. Every file-related variant carries the path involved.
#[derive(Debug, thiserror::Error)]
pub enum DenseError {
    /// An I/O operation on `path` failed.
    #[error("I/O error on {}: {source}", .path.display())]
    Io {
        /// File or directory involved.
        path: PathBuf,
        /// Underlying error.
        source: io::Error,
    },
    /// No saved index (manifest or dump file) exists at `path`.
    #[error("no dense index dump at {}", .path.display())]
    Missing {
        /// The file that was expected.
        path: PathBuf,
    },
    /// A saved index exists but is corrupt, truncated or inconsistent.
    #[error("cannot load dense index from {}: {reason}", .path.display())]
    Load {
        /// Offending file.
        path: PathBuf,
        /// What was wrong.
        reason: String,
    },
    /// Writing a dump failed inside `hnsw_rs` or its output did not verify.
    #[error("cannot save dense index to {}: {reason}", .path.display())]
    Save {
        /// Target directory or file.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
    /// A vector does not have the index dimension.
    #[error("vector dimension mismatch: expected {expected}, got {got}")]
    Dimension {
        /// Dimension of the index.
        expected: usize,
        /// Length of the offending vector.
        got: usize,
    },
    /// A vector is not finite or not L2-normalised.
    #[error("invalid vector for id {id}: {reason}")]
    InvalidVector {
        /// Point id.
        id: u64,
        /// What was wrong.
        reason: String,
    },
    /// The id is already stored in the index (or repeated within the batch).
    #[error("duplicate point id {id}")]
    DuplicateId {
        /// The repeated id.
        id: u64,
    },
    /// Invalid [`HnswParams`] or dimension.
    #[error("invalid HNSW parameters: {reason}")]
    InvalidParams {
        /// What was wrong.
        reason: String,
    },
    /// The dump basename is not a plain file-name stem.
    #[error("invalid dump basename {basename:?}: {reason}")]
    InvalidBasename {
        /// The rejected basename.
        basename: String,
        /// Why it was rejected.
        reason: &'static str,
    },
}

impl DenseError {
    fn io(path: &Path, source: io::Error) -> Self {
        if source.kind() == io::ErrorKind::NotFound {
            DenseError::Missing {
                path: path.to_path_buf(),
            }
        } else {
            DenseError::Io {
                path: path.to_path_buf(),
                source,
            }
        }
    }

    fn load(path: &Path, reason: impl Into<String>) -> Self {
        DenseError::Load {
            path: path.to_path_buf(),
            reason: reason.into(),
        }
    }
}

/// HNSW construction and search parameters.
///
/// Defaults: `max_connections` (M) = 16 neighbours per node (32 on the base layer),
/// `ef_construction` = 200, `ef_search` = 100. The number of layers is fixed at
/// [`MAX_LAYERS`] (16). Missing fields deserialise to their defaults.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct HnswParams {
    /// Neighbours kept per node and layer (M); `2..=255`. Baked into the graph at build time.
    pub max_connections: usize,
    /// Beam width while inserting; larger = better graph, slower build. Baked into the graph.
    pub ef_construction: usize,
    /// Beam width while searching (raised to `k` when smaller); larger = better recall.
    pub ef_search: usize,
}

impl Default for HnswParams {
    fn default() -> Self {
        HnswParams {
            max_connections: 16,
            ef_construction: 200,
            ef_search: 100,
        }
    }
}

impl HnswParams {
    /// Checks the limits documented on each field.
    pub fn validate(&self) -> Result<(), DenseError> {
        let bad = |reason: String| Err(DenseError::InvalidParams { reason });
        if !(2..=MAX_CONNECTIONS_LIMIT).contains(&self.max_connections) {
            return bad(format!(
                "max_connections must be in 2..={MAX_CONNECTIONS_LIMIT}, got {}",
                self.max_connections
            ));
        }
        if self.ef_construction == 0 {
            return bad("ef_construction must be >= 1".into());
        }
        if self.ef_search == 0 {
            return bad("ef_search must be >= 1".into());
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// Kernels and top-k selection shared by both indexes.
// ---------------------------------------------------------------------------------------------

/// `hnsw_rs` distance for unit vectors: `max(0, 1 - dot)`. Never negative, never NaN.
#[derive(Debug, Default, Clone, Copy)]
struct UnitDot;

impl Distance<f32> for UnitDot {
    fn eval(&self, va: &[f32], vb: &[f32]) -> f32 {
        (1.0 - dot(va, vb)).max(0.0)
    }
}

/// Type-name suffix under which `hnsw_rs` records [`UnitDot`] in dumps.
const DIST_NAME: &str = "UnitDot";

/// A scored id ordered so that the *worst* hit is the maximum (lowest score, then highest id).
#[derive(Debug, Clone, Copy)]
struct Scored {
    score: f32,
    id: u64,
}

impl PartialEq for Scored {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Scored {}
impl PartialOrd for Scored {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Scored {
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .score
            .total_cmp(&self.score)
            .then(self.id.cmp(&other.id))
    }
}

/// Most hits a [`TopK`] allocates room for up front (a safety cap: `k` comes from callers).
const MAX_PREALLOCATED_HITS: usize = 4096;

/// Bounded max-heap keeping the best `k` hits.
struct TopK {
    k: usize,
    heap: BinaryHeap<Scored>,
}

impl TopK {
    fn new(k: usize) -> Self {
        TopK {
            k,
            heap: BinaryHeap::with_capacity(k.min(MAX_PREALLOCATED_HITS) + 1),
        }
    }

    #[inline]
    fn offer(&mut self, id: u64, score: f32) {
        if self.k == 0 || score.is_nan() {
            return;
        }
        let s = Scored { score, id };
        if self.heap.len() < self.k {
            self.heap.push(s);
        } else if let Some(mut worst) = self.heap.peek_mut() {
            if s < *worst {
                *worst = s;
            }
        }
    }

    fn merge(mut self, other: TopK) -> TopK {
        for s in other.heap {
            self.offer(s.id, s.score);
        }
        self
    }

    fn into_sorted(self) -> Vec<(u64, f32)> {
        self.heap
            .into_sorted_vec()
            .into_iter()
            .map(|s| (s.id, s.score))
            .collect()
    }
}

/// Sorts hits by descending score, ties by ascending id.
pub(crate) fn sort_hits(hits: &mut [(u64, f32)]) {
    hits.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
}

/// Work (rows x dim) above which a scan is split over rayon.
const PARALLEL_SCAN_WORK: usize = 1 << 18;

/// Top-`k` over rows `0..n`, where `score(i)` yields `Some((id, score))` for kept rows.
/// Splits into row blocks processed by rayon when `n * dim` is large.
fn top_k_rows<F>(n: usize, dim: usize, k: usize, score: F) -> Vec<(u64, f32)>
where
    F: Fn(usize) -> Option<(u64, f32)> + Sync,
{
    if k == 0 || n == 0 {
        return Vec::new();
    }
    let scan = |range: std::ops::Range<usize>| {
        let mut top = TopK::new(k);
        for i in range {
            if let Some((id, s)) = score(i) {
                top.offer(id, s);
            }
        }
        top
    };
    if n.saturating_mul(dim.max(1)) < PARALLEL_SCAN_WORK {
        return scan(0..n).into_sorted();
    }
    let block = (PARALLEL_SCAN_WORK / 4 / dim.max(1)).max(256);
    let blocks = n.div_ceil(block);
    (0..blocks)
        .into_par_iter()
        .map(|b| scan(b * block..((b + 1) * block).min(n)))
        .reduce(|| TopK::new(k), TopK::merge)
        .into_sorted()
}

// ---------------------------------------------------------------------------------------------
// ExactIndex
// ---------------------------------------------------------------------------------------------

/// Exact (brute-force) cosine search over a flat row-major matrix; used for small corpora and
/// to measure HNSW recall. Scores are raw dot products (= cosine for unit vectors).
#[derive(Clone)]
pub struct ExactIndex {
    dim: usize,
    ids: Vec<u64>,
    data: Vec<f32>,
}

impl fmt::Debug for ExactIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ExactIndex")
            .field("dim", &self.dim)
            .field("len", &self.ids.len())
            .finish()
    }
}

impl ExactIndex {
    /// Creates an empty index for vectors of length `dim`.
    ///
    /// # Panics
    /// If `dim == 0`.
    pub fn new(dim: usize) -> Self {
        assert!(dim > 0, "ExactIndex dimension must be > 0");
        ExactIndex {
            dim,
            ids: Vec::new(),
            data: Vec::new(),
        }
    }

    /// An index over `rows` (id, vector), refusing `dim == 0` and vectors of another
    /// length instead of panicking.
    pub fn from_rows<'a>(
        dim: usize,
        rows: impl IntoIterator<Item = (u64, &'a [f32])>,
    ) -> Result<Self, DenseError> {
        if dim == 0 {
            return Err(DenseError::InvalidParams {
                reason: "dimension must be > 0".into(),
            });
        }
        let mut index = ExactIndex::new(dim);
        for (id, v) in rows {
            if v.len() != dim {
                return Err(DenseError::Dimension {
                    expected: dim,
                    got: v.len(),
                });
            }
            index.push(id, v);
        }
        Ok(index)
    }

    /// Vector dimension.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Appends a row. Ids are not deduplicated.
    ///
    /// # Panics
    /// If `v.len() != self.dim()`.
    pub fn push(&mut self, id: u64, v: &[f32]) {
        assert_eq!(v.len(), self.dim, "ExactIndex::push: dimension mismatch");
        self.ids.push(id);
        self.data.extend_from_slice(v);
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// True when there are no rows.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Every stored id, in row order.
    pub fn ids(&self) -> &[u64] {
        &self.ids
    }

    /// Removes every row whose id is in `dead` (order of the remaining rows is kept).
    pub fn remove_ids(&mut self, dead: &HashSet<u64>) {
        if dead.is_empty() {
            return;
        }
        let dim = self.dim;
        let mut w = 0;
        for r in 0..self.ids.len() {
            if dead.contains(&self.ids[r]) {
                continue;
            }
            if w != r {
                self.ids[w] = self.ids[r];
                self.data.copy_within(r * dim..(r + 1) * dim, w * dim);
            }
            w += 1;
        }
        self.ids.truncate(w);
        self.data.truncate(w * dim);
    }

    /// Top-`k` rows by dot product among ids where `keep(id)` is true, sorted by descending
    /// score, ties by ascending id. Returns `min(k, kept rows)` hits (rows whose score is NaN
    /// are skipped). A query of the wrong length yields an empty list (logged).
    pub fn search(
        &self,
        query: &[f32],
        k: usize,
        keep: &(dyn Fn(u64) -> bool + Sync),
    ) -> Vec<(u64, f32)> {
        if query.len() != self.dim {
            tracing::warn!(
                expected = self.dim,
                got = query.len(),
                "ExactIndex::search: query dimension mismatch"
            );
            return Vec::new();
        }
        let dim = self.dim;
        top_k_rows(self.ids.len(), dim, k, |i| {
            let id = self.ids[i];
            if keep(id) {
                Some((id, dot(query, &self.data[i * dim..(i + 1) * dim])))
            } else {
                None
            }
        })
    }
}

/// Recall@k of `approx` against `exact` result lists: the fraction of the first
/// `min(k, exact.len())` exact ids that appear among the first `k` approximate ids
/// (1.0 when the exact list is empty).
pub fn recall_at_k(exact: &[(u64, f32)], approx: &[(u64, f32)], k: usize) -> f64 {
    let truth = &exact[..k.min(exact.len())];
    if truth.is_empty() {
        return 1.0;
    }
    let found: HashSet<u64> = approx.iter().take(k).map(|h| h.0).collect();
    truth.iter().filter(|h| found.contains(&h.0)).count() as f64 / truth.len() as f64
}

// ---------------------------------------------------------------------------------------------
// Owned hnsw_rs graph (built or loaded)
// ---------------------------------------------------------------------------------------------

type Graph = Hnsw<'static, f32, UnitDot>;
type GraphPoint = Arc<Point<'static, f32>>;

/// Whether neighbour lists are topped up with pruned candidates (better connectivity).
const KEEP_PRUNED: bool = false;

/// An `hnsw_rs` graph together with the `HnswIo` it was loaded from (if any), plus a flat
/// table of its points (`Arc`s into the graph) for exact scans and re-scoring.
///
/// `Hnsw::load_hnsw` ties the graph's lifetime to the loader because points *may* borrow
/// mmapped data owned by it. We never enable mmap, but to stay sound regardless we keep the
/// loader alive at a stable heap address (raw pointer from `Box::into_raw`) and free it only
/// after the graph and the point table have been dropped (see `Drop`). Nothing with the
/// `'static` lifetime ever leaves this struct.
struct OwnedHnsw {
    hnsw: ManuallyDrop<Graph>,
    /// All points, layer by layer, in rank order; `offsets[l]` is the first index of layer `l`.
    points: Vec<GraphPoint>,
    offsets: [usize; MAX_LAYERS + 1],
    loader: Option<NonNull<HnswIo>>,
}

// SAFETY: `Graph` and `Arc<Point>` are Send + Sync (asserted below). The loader is only ever
// touched in `load` (before the struct exists) and in `drop` (exclusive access), so sharing
// `&OwnedHnsw` across threads never accesses it, and moving the struct moves ownership of a
// `HnswIo`, which is `Send` (asserted below).
unsafe impl Send for OwnedHnsw {}
// SAFETY: see above.
unsafe impl Sync for OwnedHnsw {}

const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    const fn send<T: Send>() {}
    send_sync::<Graph>();
    send_sync::<GraphPoint>();
    send::<HnswIo>();
};

impl OwnedHnsw {
    fn from_graph(mut hnsw: Graph) -> Self {
        hnsw.set_extend_candidates(false);
        hnsw.set_keeping_pruned(KEEP_PRUNED);
        let mut owned = OwnedHnsw {
            hnsw: ManuallyDrop::new(hnsw),
            points: Vec::new(),
            offsets: [0; MAX_LAYERS + 1],
            loader: None,
        };
        owned.refresh_points();
        owned
    }

    fn new(params: &HnswParams, capacity: usize) -> Self {
        Self::from_graph(Hnsw::new(
            params.max_connections,
            capacity,
            MAX_LAYERS,
            params.ef_construction,
            UnitDot,
        ))
    }

    /// Loads `<dir>/<base>.hnsw.{graph,data}` (which must already have been validated).
    fn load(dir: &Path, base: &str) -> Result<Self, String> {
        let loader: *mut HnswIo = Box::into_raw(Box::new(HnswIo::new(dir, base)));
        let result = catch_unwind(AssertUnwindSafe(|| {
            // SAFETY: `loader` comes from `Box::into_raw`: valid, aligned and not aliased.
            // The graph may borrow it for `'static`; we keep the allocation alive and
            // untouched until the graph has been dropped (`Drop for OwnedHnsw`).
            let io: &'static mut HnswIo = unsafe { &mut *loader };
            io.load_hnsw::<f32, UnitDot>()
        }));
        let free_loader = || {
            // SAFETY: no graph borrowing the loader exists any more (the load failed and
            // everything it created was dropped), and the pointer is freed exactly once.
            unsafe { drop(Box::from_raw(loader)) }
        };
        match result {
            Ok(Ok(hnsw)) => {
                let mut owned = Self::from_graph(hnsw);
                owned.loader = NonNull::new(loader);
                Ok(owned)
            }
            Ok(Err(e)) => {
                free_loader();
                Err(format!("hnsw_rs load failed: {e:#}"))
            }
            Err(panic) => {
                free_loader();
                Err(format!(
                    "hnsw_rs load panicked: {}",
                    panic_message(panic.as_ref())
                ))
            }
        }
    }

    fn graph(&self) -> &Graph {
        &self.hnsw
    }

    /// Rebuilds the flat point table after inserts.
    fn refresh_points(&mut self) {
        let indexation = self.hnsw.get_point_indexation();
        let mut points = Vec::with_capacity(self.hnsw.get_nb_point());
        for l in 0..MAX_LAYERS {
            self.offsets[l] = points.len();
            if indexation.get_layer_nb_point(l) > 0 {
                points.extend(indexation.get_layer_iterator(l));
            }
        }
        self.offsets[MAX_LAYERS] = points.len();
        self.points = points;
    }

    /// Vector of the point with internal id `p_id`.
    fn vector(&self, p_id: PointId) -> Option<&[f32]> {
        let layer = usize::from(p_id.0);
        let rank = usize::try_from(p_id.1).ok()?;
        if layer >= MAX_LAYERS {
            return None;
        }
        let idx = self.offsets[layer] + rank;
        if idx >= self.offsets[layer + 1] {
            return None;
        }
        Some(self.points[idx].get_v())
    }
}

impl Drop for OwnedHnsw {
    fn drop(&mut self) {
        self.points.clear();
        // SAFETY: `hnsw` is dropped exactly once, here, and never used afterwards.
        unsafe { ManuallyDrop::drop(&mut self.hnsw) };
        if let Some(loader) = self.loader.take() {
            // SAFETY: the graph that borrowed the loader is gone; the pointer came from
            // `Box::into_raw` and is freed exactly once.
            unsafe { drop(Box::from_raw(loader.as_ptr())) };
        }
    }
}

// ---------------------------------------------------------------------------------------------
// HnswIndex
// ---------------------------------------------------------------------------------------------

/// Points inserted one by one when a graph is empty, before switching to `parallel_insert`.
const SERIAL_SEED_POINTS: usize = 256;
/// Batches smaller than this are inserted serially.
const PARALLEL_INSERT_MIN: usize = 64;
/// Allocation hint (points) of a new graph with no or few points: `hnsw_rs` grows past it.
const EMPTY_GRAPH_CAPACITY: usize = 1024;
/// Ids sampled to estimate the fraction of points a filter keeps.
const KEEP_SAMPLE: usize = 1024;
/// Planner cost of an `hnsw_rs` search per unit of `ef`, in "one scanned 384-d row" units
/// (measured: ef=100 on 20k clustered 384-d points ~ 0.8 ms, a full exact scan ~ 6 ms).
const GRAPH_COST_PER_EF: f64 = 40.0;
/// Planner cost of one `keep(id)` call in a linear scan, in the same units.
const KEEP_CALL_COST: f64 = 0.05;
/// With a filter keeping a fraction `f` of the points, the unfiltered graph search fetches
/// `OVERFETCH * k / f` candidates before post-filtering (expected kept = `OVERFETCH * k`).
const OVERFETCH: f64 = 2.0;

/// Which algorithm answered a search (for tests and tracing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Route {
    Exact,
    Graph,
    GraphFiltered,
    ExactFallback,
}

/// How a search should be executed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Plan {
    /// Cost-based choice between `Graph { fallback: true, .. }` and `Exact`
    /// (what [`HnswIndex::search`] uses).
    Auto,
    /// HNSW search with beam width `max(ef, k)` (`ef == 0`: `ef_search`), post-filtered;
    /// `filtered` uses `hnsw_rs`'s own filtered search instead (tests and measurements only:
    /// it is far slower, see the module notes). With `fallback`, an exact scan answers when
    /// the graph yields fewer than `k` kept hits.
    Graph {
        ef: usize,
        filtered: bool,
        fallback: bool,
    },
    /// Exact scan over all points.
    Exact,
}

/// An HNSW graph over (id, vector) points, persisted as `hnsw_rs` dump files in a directory.
///
/// Searching is `&self` and thread-safe; inserting needs `&mut self`.
pub struct HnswIndex {
    dim: usize,
    params: HnswParams,
    /// A beam width set by [`HnswIndex::set_ef_search`]: used as is, not grown with size.
    fixed_ef: Option<usize>,
    ids: HashSet<u64>,
    graph: OwnedHnsw,
}

/// Points up to which the configured `ef_search` is the beam width; past it the beam
/// grows in proportion to the graph (see [`scaled_ef`]).
pub const EF_SCALE_POINTS: usize = 100_000;

/// Largest beam width [`scaled_ef`] gives.
pub const EF_MAX: usize = 4096;

/// The beam width for a graph of `points` points: `ef_search` up to [`EF_SCALE_POINTS`],
/// then `ef_search` times the number of started multiples of it, at most [`EF_MAX`] (and
/// never below `ef_search`). Measured on 384-d vectors (`examples/hnsw_recall.rs`): a fixed
/// beam of 128 gives recall@10 0.991 at 100k points and 0.679 at 1M; 1,024 gives 0.963 at 1M.
pub fn scaled_ef(ef_search: usize, points: usize) -> usize {
    let grown = ef_search.saturating_mul(points.div_ceil(EF_SCALE_POINTS).max(1));
    grown.min(EF_MAX).max(ef_search)
}

impl fmt::Debug for HnswIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HnswIndex")
            .field("dim", &self.dim)
            .field("len", &self.len())
            .field("params", &self.params)
            .finish()
    }
}

/// What a saved graph's manifest says: its points and dimension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DumpSummary {
    /// Points in the graph (removed chunks' included).
    pub count: usize,
    /// Vector dimension.
    pub dim: usize,
}

impl HnswIndex {
    /// The manifest of the graph saved under `basename`, its files checked for presence
    /// and length only: no checksum, nothing loaded, so it costs the same at any size.
    /// [`HnswIndex::load`] checks everything.
    pub fn summary(dir: &Path, basename: &str) -> Result<DumpSummary, DenseError> {
        validate_basename(basename)?;
        let manifest_path = dir.join(format!("{basename}{MANIFEST_SUFFIX}"));
        let m = Manifest::read(&manifest_path)?;
        match &m.dump {
            Some(files) => {
                let (graph_path, data_path) = dump_paths(dir, &files.base);
                for (path, sum) in [(&graph_path, files.graph), (&data_path, files.data)] {
                    let len = std::fs::metadata(path)
                        .map_err(|e| DenseError::io(path, e))?
                        .len();
                    if len != sum.len {
                        let why = format!("{len} bytes, the manifest says {}", sum.len);
                        return Err(DenseError::load(path, why));
                    }
                }
            }
            None if m.count != 0 => {
                return Err(DenseError::load(
                    &manifest_path,
                    "count > 0 but no dump files",
                ))
            }
            None => {}
        }
        Ok(DumpSummary {
            count: m.count,
            dim: m.dim,
        })
    }
}

impl HnswIndex {
    /// Builds a graph over `points` (inserted in parallel). The graph's allocation hint is
    /// twice the initial size so later [`insert`](Self::insert)s grow cheaply.
    ///
    /// Errors on invalid params, `dim == 0`, wrong-length, non-finite or non-normalised
    /// vectors, and duplicate ids.
    pub fn build(
        dim: usize,
        params: &HnswParams,
        points: &[(u64, &[f32])],
    ) -> Result<Self, DenseError> {
        let mut index = Self::with_capacity(dim, params, points.len())?;
        index.insert(points)?;
        tracing::debug!(dim, n = index.len(), "built HNSW index");
        Ok(index)
    }

    /// An empty graph sized for `points` points (twice that, so later inserts grow
    /// cheaply), to be filled by [`insert`](Self::insert) in batches.
    pub fn with_capacity(
        dim: usize,
        params: &HnswParams,
        points: usize,
    ) -> Result<Self, DenseError> {
        params.validate()?;
        if dim == 0 {
            return Err(DenseError::InvalidParams {
                reason: "dimension must be > 0".into(),
            });
        }
        let capacity = points.saturating_mul(2).max(EMPTY_GRAPH_CAPACITY);
        Ok(HnswIndex {
            dim,
            params: params.clone(),
            fixed_ef: None,
            ids: HashSet::new(),
            graph: OwnedHnsw::new(params, capacity),
        })
    }

    /// Adds more points (incremental ingest). The whole batch is validated first; on error
    /// nothing is inserted. Ids must be new.
    pub fn insert(&mut self, points: &[(u64, &[f32])]) -> Result<(), DenseError> {
        let mut batch_ids = HashSet::with_capacity(points.len());
        let mut data: Vec<(&[f32], usize)> = Vec::with_capacity(points.len());
        for &(id, v) in points {
            check_vector(self.dim, id, v)?;
            if self.ids.contains(&id) || !batch_ids.insert(id) {
                return Err(DenseError::DuplicateId { id });
            }
            let origin = usize::try_from(id).map_err(|_| DenseError::InvalidVector {
                id,
                reason: "id does not fit in usize on this platform".into(),
            })?;
            data.push((v, origin));
        }
        if data.is_empty() {
            return Ok(());
        }
        let hnsw = self.graph.graph();
        let mut rest = &data[..];
        if hnsw.get_nb_point() == 0 {
            // Avoid the entry-point race of parallel insertion into an empty graph.
            let seed = rest.len().min(SERIAL_SEED_POINTS);
            for &(v, id) in &rest[..seed] {
                hnsw.insert_slice((v, id));
            }
            rest = &rest[seed..];
        }
        if rest.len() >= PARALLEL_INSERT_MIN {
            hnsw.parallel_insert_slice(&rest.to_vec());
        } else {
            for &(v, id) in rest {
                hnsw.insert_slice((v, id));
            }
        }
        self.ids.extend(batch_ids);
        self.graph.refresh_points();
        debug_assert_eq!(self.graph.points.len(), self.ids.len());
        Ok(())
    }

    /// Number of stored points.
    pub fn len(&self) -> usize {
        self.graph.points.len()
    }

    /// True when no point is stored.
    pub fn is_empty(&self) -> bool {
        self.graph.points.is_empty()
    }

    /// Vector dimension.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Effective parameters. After [`load`](Self::load), `max_connections` and
    /// `ef_construction` are the values the graph was built with.
    pub fn params(&self) -> &HnswParams {
        &self.params
    }

    /// Fixes the search beam width (clamped to at least 1): it no longer grows with the
    /// graph's size.
    pub fn set_ef_search(&mut self, ef_search: usize) {
        self.fixed_ef = Some(ef_search.max(1));
    }

    /// The beam width searches use: the fixed one, or `ef_search` scaled to the graph's
    /// size ([`scaled_ef`]).
    pub fn beam(&self) -> usize {
        self.fixed_ef
            .unwrap_or_else(|| scaled_ef(self.params.ef_search, self.len()))
    }

    /// Every stored point id, ascending.
    pub fn ids(&self) -> Vec<u64> {
        let mut ids: Vec<u64> = self.ids.iter().copied().collect();
        ids.sort_unstable();
        ids
    }

    /// Top-`k` by cosine among points where `keep(id)` is true, sorted by descending
    /// similarity, ties by ascending id. Always returns `min(k, number of kept points)` hits.
    ///
    /// Plan: the kept fraction `f` is estimated by calling `keep` on up to 1024 sampled ids.
    /// Then either an exact scan of the kept points (small index, or selective filter: cheaper
    /// by the cost model), or an *unfiltered* HNSW search with
    /// `ef = max(ef_search, k, 2k/f)` whose candidates are post-filtered. Scores are
    /// recomputed exactly (same kernel as [`ExactIndex`]). If the graph yields fewer than `k`
    /// kept hits, the answer comes from an exact scan. `keep` may be called once per stored
    /// point, so it should be cheap (e.g. a `HashSet` lookup).
    ///
    /// The query is normalised if its norm is off; a query of the wrong length, non-finite or
    /// zero yields an empty list (logged).
    pub fn search(
        &self,
        query: &[f32],
        k: usize,
        keep: &(dyn Fn(u64) -> bool + Sync),
    ) -> Vec<(u64, f32)> {
        self.search_with(query, k, keep, Plan::Auto).0
    }

    fn search_with(
        &self,
        query: &[f32],
        k: usize,
        keep: &(dyn Fn(u64) -> bool + Sync),
        plan: Plan,
    ) -> (Vec<(u64, f32)>, Route) {
        if k == 0 || self.is_empty() {
            return (Vec::new(), Route::Exact);
        }
        let Some(q) = self.prepare_query(query) else {
            return (Vec::new(), Route::Exact);
        };
        let plan = match plan {
            Plan::Auto => self.plan(k, keep),
            other => other,
        };
        match plan {
            Plan::Auto | Plan::Exact => (self.exact_scan(&q, k, keep), Route::Exact),
            Plan::Graph {
                ef,
                filtered,
                fallback,
            } => {
                let ef = if ef == 0 { self.beam() } else { ef };
                let hits = self.graph_search(&q, k, keep, ef, filtered);
                if hits.len() < k && fallback {
                    tracing::debug!(
                        got = hits.len(),
                        k,
                        "HNSW returned too few kept points; exact fallback"
                    );
                    return (self.exact_scan(&q, k, keep), Route::ExactFallback);
                }
                let route = if filtered {
                    Route::GraphFiltered
                } else {
                    Route::Graph
                };
                (hits, route)
            }
        }
    }

    /// Validates the query and returns a unit-norm copy.
    fn prepare_query(&self, query: &[f32]) -> Option<Vec<f32>> {
        if query.len() != self.dim {
            tracing::warn!(
                expected = self.dim,
                got = query.len(),
                "HnswIndex::search: query dimension mismatch"
            );
            return None;
        }
        let norm2 = dot(query, query);
        if !norm2.is_finite() || norm2 <= 0.0 {
            tracing::warn!("HnswIndex::search: query is zero or not finite");
            return None;
        }
        if (norm2 - 1.0).abs() <= NORM_TOLERANCE {
            Some(query.to_vec())
        } else {
            let inv = 1.0 / norm2.sqrt();
            Some(query.iter().map(|x| x * inv).collect())
        }
    }

    /// Cost-based choice between the graph and an exact scan.
    fn plan(&self, k: usize, keep: &(dyn Fn(u64) -> bool + Sync)) -> Plan {
        let n = self.len();
        let pts = &self.graph.points;
        let s = n.min(KEEP_SAMPLE);
        let hits = (0..s)
            .filter(|j| keep(pts[j * n / s].get_origin_id() as u64))
            .count();
        let frac = hits as f64 / s as f64;
        if hits == 0 || frac * n as f64 <= k as f64 {
            return Plan::Exact;
        }
        // Unfiltered beam, wide enough to hold ~OVERFETCH * k kept points, then post-filter.
        let ef = (self.beam().max(k) as f64).max(OVERFETCH * k as f64 / frac);
        let graph_cost = ef * GRAPH_COST_PER_EF;
        let exact_cost = n as f64 * (KEEP_CALL_COST + frac);
        let plan = if graph_cost >= exact_cost || ef >= n as f64 {
            Plan::Exact
        } else {
            Plan::Graph {
                ef: ef.ceil() as usize,
                filtered: false,
                fallback: true,
            }
        };
        tracing::trace!(n, frac, graph_cost, exact_cost, ?plan, "dense search plan");
        plan
    }

    fn exact_scan(
        &self,
        q: &[f32],
        k: usize,
        keep: &(dyn Fn(u64) -> bool + Sync),
    ) -> Vec<(u64, f32)> {
        let pts = &self.graph.points;
        top_k_rows(pts.len(), self.dim, k, |i| {
            let p = &pts[i];
            let id = p.get_origin_id() as u64;
            if keep(id) {
                Some((id, dot(q, p.get_v())))
            } else {
                None
            }
        })
    }

    fn graph_search(
        &self,
        q: &[f32],
        k: usize,
        keep: &(dyn Fn(u64) -> bool + Sync),
        ef: usize,
        filtered: bool,
    ) -> Vec<(u64, f32)> {
        let ef = ef.max(k);
        let hnsw = self.graph.graph();
        let neighbours = if filtered {
            let filter = |id: &usize| keep(*id as u64);
            hnsw.search_filter(q, ef, ef, Some(&filter as &dyn FilterT))
        } else {
            hnsw.search(q, ef, ef)
        };
        let mut seen = HashSet::with_capacity(neighbours.len());
        let mut hits: Vec<(u64, f32)> = neighbours
            .iter()
            .filter_map(|n| {
                let id = n.d_id as u64;
                if !keep(id) || !seen.insert(id) {
                    return None;
                }
                Some((id, dot(q, self.graph.vector(n.p_id)?)))
            })
            .collect();
        sort_hits(&mut hits);
        hits.truncate(k);
        hits
    }

    /// Writes the index into `dir` (created if missing) under `basename`; returns the basename
    /// to pass to [`load`](Self::load) (always `basename` itself).
    ///
    /// Crash safety: the graph is dumped by `hnsw_rs` into fresh, uniquely named files
    /// `<basename>.g<token>.hnsw.{graph,data}` (a half-written dump is never referenced), then
    /// fsynced, re-read to verify structure and compute xxh64 checksums. The commit point is
    /// the manifest `<basename>.hnsw.meta` (dump name, sizes, checksums, dim, count, params),
    /// written to a hidden temporary file, fsynced and atomically renamed over the previous
    /// one; the directory is fsynced. Only then are older generations and stale temporaries of
    /// this basename deleted. A reader therefore sees either the old or the new complete
    /// index. Single writer per basename assumed.
    pub fn save(&self, dir: &Path, basename: &str) -> Result<String, DenseError> {
        validate_basename(basename)?;
        fs::create_dir_all(dir).map_err(|e| DenseError::io(dir, e))?;
        let token = unique_token();
        let manifest = Manifest {
            format: MANIFEST_FORMAT.to_string(),
            dim: self.dim,
            count: self.len(),
            max_connections: self.params.max_connections,
            ef_construction: self.params.ef_construction,
            dump: match self.is_empty() {
                true => None,
                false => Some(self.dump(dir, &format!("{basename}.g{token}"))?),
            },
        };
        let manifest_path = dir.join(format!("{basename}{MANIFEST_SUFFIX}"));
        let tmp_path = dir.join(format!(".{basename}{MANIFEST_SUFFIX}.tmp-{token}"));
        let write_tmp = || -> io::Result<()> {
            let mut f = File::create(&tmp_path)?;
            f.write_all(manifest.render().as_bytes())?;
            f.sync_all()
        };
        if let Err(e) = write_tmp().and_then(|()| fs::rename(&tmp_path, &manifest_path)) {
            let _ = fs::remove_file(&tmp_path);
            if let Some(d) = &manifest.dump {
                remove_dump_files(dir, &d.base);
            }
            return Err(DenseError::io(&manifest_path, e));
        }
        sync_dir(dir);
        collect_garbage(
            dir,
            basename,
            manifest.dump.as_ref().map(|d| d.base.as_str()),
        );
        tracing::info!(dir = %dir.display(), basename, n = self.len(), "saved HNSW index");
        Ok(basename.to_string())
    }

    /// Dumps the (non-empty) graph with `hnsw_rs` under the basename `requested` in `dir`,
    /// fsyncs the files and re-reads them to verify them and take their checksums. On
    /// error the files are removed.
    fn dump(&self, dir: &Path, requested: &str) -> Result<DumpFiles, DenseError> {
        let save_err = |reason: String| DenseError::Save {
            path: dir.to_path_buf(),
            reason,
        };
        let dumped = catch_unwind(AssertUnwindSafe(|| {
            self.graph.graph().file_dump(dir, requested)
        }));
        let used = match dumped {
            Ok(Ok(used)) => used,
            Ok(Err(e)) => {
                remove_dump_files(dir, requested);
                return Err(save_err(format!("hnsw_rs file_dump failed: {e:#}")));
            }
            Err(p) => {
                remove_dump_files(dir, requested);
                return Err(save_err(format!(
                    "hnsw_rs file_dump panicked: {}",
                    panic_message(p.as_ref())
                )));
            }
        };
        self.verify_dump(dir, &used)
            .inspect_err(|_| remove_dump_files(dir, &used))
            .map_err(|e| save_err(format!("written dump did not verify: {e}")))
    }

    /// Makes the dump `base` in `dir` durable and loadable (level scale reset, fsync) and
    /// validates it completely; returns its files and checksums.
    fn verify_dump(&self, dir: &Path, base: &str) -> Result<DumpFiles, DenseError> {
        let (graph_path, data_path) = dump_paths(dir, base);
        reset_level_scale(&graph_path)?;
        sync_file(&graph_path)?;
        sync_file(&data_path)?;
        let expect = Expected {
            dim: self.dim,
            count: self.len(),
            graph: None,
            data: None,
        };
        let v = validate_dump(&graph_path, &data_path, &expect)?;
        Ok(DumpFiles {
            base: base.to_string(),
            graph: v.graph,
            data: v.data,
        })
    }

    /// Loads an index saved by [`save`](Self::save). `params.ef_search` is used for searching;
    /// `max_connections`/`ef_construction` come from the dump (a mismatch is logged).
    ///
    /// Missing manifest or dump files give [`DenseError::Missing`]; truncated, corrupt or
    /// inconsistent files give [`DenseError::Load`]. Files are validated completely (sizes,
    /// checksums, structure) before `hnsw_rs` parses them, and its loader runs under
    /// `catch_unwind`, so a bad dump never panics or aborts the process.
    pub fn load(dir: &Path, basename: &str, params: &HnswParams) -> Result<Self, DenseError> {
        params.validate()?;
        validate_basename(basename)?;
        let manifest_path = dir.join(format!("{basename}{MANIFEST_SUFFIX}"));
        let mut attempt = 0;
        loop {
            let manifest = Manifest::read(&manifest_path)?;
            match Self::load_manifest(dir, &manifest_path, &manifest, params) {
                // A concurrent save may have replaced the manifest and deleted the files we
                // were about to read: retry with the new manifest.
                Err(DenseError::Missing { .. })
                    if attempt < 2
                        && Manifest::read(&manifest_path).ok().as_ref() != Some(&manifest) =>
                {
                    attempt += 1;
                }
                other => return other,
            }
        }
    }

    fn load_manifest(
        dir: &Path,
        manifest_path: &Path,
        m: &Manifest,
        params: &HnswParams,
    ) -> Result<Self, DenseError> {
        let effective = HnswParams {
            max_connections: m.max_connections,
            ef_construction: m.ef_construction,
            ef_search: params.ef_search,
        };
        effective
            .validate()
            .map_err(|e| DenseError::load(manifest_path, e.to_string()))?;
        if effective.max_connections != params.max_connections
            || effective.ef_construction != params.ef_construction
        {
            tracing::info!(
                stored_m = m.max_connections,
                stored_ef_construction = m.ef_construction,
                "HNSW dump was built with different parameters; using the stored ones"
            );
        }
        let Some(files) = &m.dump else {
            if m.count != 0 {
                return Err(DenseError::load(
                    manifest_path,
                    "count > 0 but no dump files",
                ));
            }
            return Ok(HnswIndex {
                dim: m.dim,
                params: effective.clone(),
                fixed_ef: None,
                ids: HashSet::new(),
                graph: OwnedHnsw::new(&effective, EMPTY_GRAPH_CAPACITY),
            });
        };
        let (graph, ids) = Self::load_dump(dir, m, files)?;
        tracing::info!(dir = %dir.display(), base = %files.base, n = m.count, "loaded HNSW index");
        Ok(HnswIndex {
            dim: m.dim,
            params: effective,
            fixed_ef: None,
            ids,
            graph,
        })
    }

    /// Validates the dump `files` against the manifest `m`, loads it with `hnsw_rs` and
    /// checks what was loaded (point count, dimension, unique ids); returns the graph and
    /// its ids.
    fn load_dump(
        dir: &Path,
        m: &Manifest,
        files: &DumpFiles,
    ) -> Result<(OwnedHnsw, HashSet<u64>), DenseError> {
        let (graph_path, data_path) = dump_paths(dir, &files.base);
        let expect = Expected {
            dim: m.dim,
            count: m.count,
            graph: Some(files.graph),
            data: Some(files.data),
        };
        validate_dump(&graph_path, &data_path, &expect)?;
        let graph =
            OwnedHnsw::load(dir, &files.base).map_err(|r| DenseError::load(&graph_path, r))?;
        if graph.points.len() != m.count || graph.graph().get_nb_point() != m.count {
            return Err(DenseError::load(
                &graph_path,
                format!(
                    "loaded {} points, manifest says {}",
                    graph.points.len(),
                    m.count
                ),
            ));
        }
        let mut ids = HashSet::with_capacity(m.count);
        for p in &graph.points {
            if p.get_v().len() != m.dim {
                return Err(DenseError::load(
                    &data_path,
                    "loaded vector has wrong dimension",
                ));
            }
            let id = p.get_origin_id() as u64;
            if !ids.insert(id) {
                return Err(DenseError::load(
                    &graph_path,
                    format!("duplicate point id {id}"),
                ));
            }
        }
        Ok((graph, ids))
    }
}

/// Checks length, finiteness and unit norm of a vector to be stored.
fn check_vector(dim: usize, id: u64, v: &[f32]) -> Result<(), DenseError> {
    if v.len() != dim {
        return Err(DenseError::Dimension {
            expected: dim,
            got: v.len(),
        });
    }
    if v.iter().any(|x| !x.is_finite()) {
        return Err(DenseError::InvalidVector {
            id,
            reason: "non-finite component".into(),
        });
    }
    let norm2 = dot(v, v);
    if (norm2 - 1.0).abs() > NORM_TOLERANCE {
        return Err(DenseError::InvalidVector {
            id,
            reason: format!("not L2-normalised (|v|^2 = {norm2})"),
        });
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Persistence helpers: naming, manifest, fsync, garbage collection
// ---------------------------------------------------------------------------------------------

/// Longest dump basename accepted (a safety cap; file names allow 255 bytes and the dump
/// files add a generation token and suffixes).
const MAX_BASENAME_BYTES: usize = 128;

fn validate_basename(basename: &str) -> Result<(), DenseError> {
    let bad = |reason| {
        Err(DenseError::InvalidBasename {
            basename: basename.to_string(),
            reason,
        })
    };
    if basename.is_empty() || basename.len() > MAX_BASENAME_BYTES {
        return bad("must be 1..=128 bytes");
    }
    if basename.starts_with('.') {
        return bad("must not start with '.'");
    }
    if !basename
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
    {
        return bad("only ASCII letters, digits, '_', '-' and '.' are allowed");
    }
    Ok(())
}

/// A token unique per call within this machine (time, pid, counter), lowercase hex.
fn unique_token() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    let count = COUNTER.fetch_add(1, AtomicOrdering::Relaxed);
    format!("{nanos:x}{:x}{count:x}", std::process::id())
}

fn dump_paths(dir: &Path, base: &str) -> (PathBuf, PathBuf) {
    (
        dir.join(format!("{base}.hnsw.graph")),
        dir.join(format!("{base}.hnsw.data")),
    )
}

fn remove_dump_files(dir: &Path, base: &str) {
    let (g, d) = dump_paths(dir, base);
    let _ = fs::remove_file(g);
    let _ = fs::remove_file(d);
}

fn sync_file(path: &Path) -> Result<(), DenseError> {
    OpenOptions::new()
        .write(true)
        .open(path)
        .and_then(|f| f.sync_all())
        .map_err(|e| DenseError::io(path, e))
}

/// Byte offset of the level-scale `f64` in a v4 graph dump (after magic, mode, max_conn).
const LEVEL_SCALE_OFFSET: u64 = 4 + 1 + 1;

/// `hnsw_rs` 0.3.5 dumps the *absolute* level-sampling scale (`1/ln M`) but its loader
/// multiplies the default scale by the stored value, so every save/load cycle shrinks the
/// scale (`(1/ln M)^cycles`) and points inserted after a reload stop reaching upper layers.
/// We never modify the scale, so the correct stored factor is 1.0: patch it in place.
fn reset_level_scale(graph_path: &Path) -> Result<(), DenseError> {
    use std::io::{Seek, SeekFrom};
    let io_err = |e| DenseError::io(graph_path, e);
    let mut f = OpenOptions::new()
        .read(true)
        .write(true)
        .open(graph_path)
        .map_err(io_err)?;
    let mut magic = [0u8; 4];
    f.read_exact(&mut magic).map_err(io_err)?;
    if u32::from_ne_bytes(magic) != MAGIC_DESCR_V4 {
        return Err(DenseError::load(
            graph_path,
            "unexpected hnsw_rs dump format",
        ));
    }
    f.seek(SeekFrom::Start(LEVEL_SCALE_OFFSET))
        .map_err(io_err)?;
    f.write_all(&1.0f64.to_ne_bytes()).map_err(io_err)
}

/// Best-effort fsync of a directory so renames in it are durable (no-op where unsupported).
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Err(e) = File::open(dir).and_then(|f| f.sync_all()) {
        tracing::warn!(dir = %dir.display(), error = %e, "could not fsync directory");
    }
    #[cfg(not(unix))]
    let _ = dir;
}

/// If `name` is one of our dump generation files, `<basename>.g<hex>[-<digits>].hnsw.{graph,data}`,
/// returns its `hnsw_rs` basename.
fn is_generation_file(name: &str, basename: &str) -> Option<String> {
    let rest = name.strip_prefix(basename)?.strip_prefix(".g")?;
    let stem = rest
        .strip_suffix(".hnsw.graph")
        .or_else(|| rest.strip_suffix(".hnsw.data"))?;
    let (hex, suffix) = match stem.split_once('-') {
        Some((hex, suffix)) if !suffix.is_empty() => (hex, suffix),
        Some(_) => return None,
        None => (stem, ""),
    };
    let hex_ok = !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit());
    let suffix_ok = suffix.bytes().all(|b| b.is_ascii_digit());
    (hex_ok && suffix_ok).then(|| format!("{basename}.g{stem}"))
}

/// Deletes older dump generations and stale temporary manifests of `basename`.
fn collect_garbage(dir: &Path, basename: &str, current: Option<&str>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let tmp_prefix = format!(".{basename}{MANIFEST_SUFFIX}.tmp-");
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let stale = match is_generation_file(name, basename) {
            Some(base) => Some(base.as_str()) != current,
            None => name.starts_with(&tmp_prefix),
        };
        if stale {
            if let Err(e) = fs::remove_file(entry.path()) {
                tracing::warn!(file = %entry.path().display(), error = %e, "could not remove stale dump file");
            }
        }
    }
}

/// Length and xxh64 (seed 0) of a dump file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSum {
    len: u64,
    xxh64: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct DumpFiles {
    /// `hnsw_rs` basename of the `.hnsw.graph` / `.hnsw.data` pair.
    base: String,
    graph: FileSum,
    data: FileSum,
}

/// The commit record of a saved index, stored as JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Manifest {
    /// [`MANIFEST_FORMAT`].
    format: String,
    dim: usize,
    count: usize,
    max_connections: usize,
    ef_construction: usize,
    /// `None` for an empty index (hnsw_rs cannot dump a graph without points).
    dump: Option<DumpFiles>,
}

/// Format tag of the JSON manifest.
const MANIFEST_FORMAT: &str = "attest-dense-hnsw 2";
/// First line of the text manifest that earlier versions wrote. It is not read: such a
/// dump is reported unreadable, and the index rebuilds the graph from the stored vectors.
const OLD_MANIFEST_MAGIC: &str = "attest-dense-hnsw 1";
/// Largest manifest read (a safety cap: a real one is a few hundred bytes).
const MANIFEST_MAX_BYTES: u64 = 64 * 1024;

impl Manifest {
    fn render(&self) -> String {
        let mut text = serde_json::to_string_pretty(self)
            .expect("a manifest of strings and integers always serialises");
        text.push('\n');
        text
    }

    fn read(path: &Path) -> Result<Self, DenseError> {
        let file = File::open(path).map_err(|e| DenseError::io(path, e))?;
        let mut bytes = Vec::new();
        file.take(MANIFEST_MAX_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| DenseError::io(path, e))?;
        if bytes.len() as u64 > MANIFEST_MAX_BYTES {
            return Err(DenseError::load(path, "manifest too large"));
        }
        Self::parse(&bytes)
            .map_err(|reason| DenseError::load(path, format!("bad manifest: {reason}")))
    }

    fn parse(bytes: &[u8]) -> Result<Self, String> {
        if bytes.starts_with(OLD_MANIFEST_MAGIC.as_bytes()) {
            return Err(format!(
                "written in the text format of an earlier version ({OLD_MANIFEST_MAGIC:?}); the graph is rebuilt from the stored vectors"
            ));
        }
        let mut de = serde_json::Deserializer::from_slice(bytes);
        let m: Manifest = serde_path_to_error::deserialize(&mut de)
            .map_err(|e| format!("at {}: {}", e.path(), e.inner()))?;
        de.end().map_err(|e| format!("trailing content: {e}"))?;
        m.check()?;
        Ok(m)
    }

    /// The checks serde cannot express.
    fn check(&self) -> Result<(), String> {
        if self.format != MANIFEST_FORMAT {
            return Err(format!("unknown format {:?}", self.format));
        }
        if self.dim == 0 {
            return Err("dim must be > 0".into());
        }
        if (self.count == 0) != self.dump.is_none() {
            return Err("count and dump disagree".into());
        }
        if let Some(d) = &self.dump {
            if d.base.is_empty() || d.base.contains(['/', '\\']) || d.base.starts_with('.') {
                return Err("bad dump name".into());
            }
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// Dump validation (mirrors hnsw_rs 0.3.5 hnswio.rs, format v4, DumpMode::Full, native endian)
// ---------------------------------------------------------------------------------------------

const MAGIC_DESCR_V4: u32 = 0x002a_6779;
const MAGIC_LAYER: u32 = 0x000a_676f;
const MAGIC_POINT: u32 = 0x000a_678f;
const MAGIC_DATA: u32 = 0xa67f_0000;
const USIZE: u64 = std::mem::size_of::<usize>() as u64;
/// Bytes of one neighbour record: origin id, layer, rank, distance.
const NEIGHBOUR_BYTES: u64 = USIZE + 1 + 4 + 4;

/// Read buffer of a dump file (64 KiB: a design choice, not tuned).
const DUMP_READ_BUFFER: usize = 1 << 16;
/// Longest type name accepted in a dump (a safety cap: `hnsw_rs` writes Rust type paths of
/// a few dozen bytes).
const MAX_DUMP_NAME_BYTES: usize = 256;
/// Most point ids preallocated while validating a dump (a safety cap: the count comes from
/// the file).
const MAX_PREALLOCATED_POINTS: usize = 1 << 24;

/// What a dump must contain.
struct Expected {
    dim: usize,
    count: usize,
    graph: Option<FileSum>,
    data: Option<FileSum>,
}

/// Checksums of a validated dump.
struct Validated {
    graph: FileSum,
    data: FileSum,
}

/// Sequential reader over a dump file that hashes everything read and knows how many bytes
/// remain, so that no count read from the file can trigger a huge allocation.
struct DumpReader {
    path: PathBuf,
    inner: BufReader<File>,
    hasher: xxhash_rust::xxh64::Xxh64,
    len: u64,
    pos: u64,
}

impl DumpReader {
    fn open(path: &Path, expected: Option<FileSum>) -> Result<Self, DenseError> {
        let file = File::open(path).map_err(|e| DenseError::io(path, e))?;
        let len = file.metadata().map_err(|e| DenseError::io(path, e))?.len();
        if let Some(sum) = expected {
            if sum.len != len {
                return Err(DenseError::load(
                    path,
                    format!(
                        "file is {len} bytes, manifest says {} (truncated or replaced)",
                        sum.len
                    ),
                ));
            }
        }
        Ok(DumpReader {
            path: path.to_path_buf(),
            inner: BufReader::with_capacity(DUMP_READ_BUFFER, file),
            hasher: xxhash_rust::xxh64::Xxh64::new(0),
            len,
            pos: 0,
        })
    }

    fn corrupt(&self, what: impl fmt::Display) -> DenseError {
        DenseError::load(&self.path, format!("{what} (at byte {})", self.pos))
    }

    fn remaining(&self) -> u64 {
        self.len - self.pos
    }

    fn bytes(&mut self, out: &mut [u8]) -> Result<(), DenseError> {
        if (out.len() as u64) > self.remaining() {
            return Err(self.corrupt("unexpected end of file (truncated)"));
        }
        self.inner
            .read_exact(out)
            .map_err(|e| DenseError::io(&self.path, e))?;
        self.hasher.update(out);
        self.pos += out.len() as u64;
        Ok(())
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], DenseError> {
        let mut b = [0u8; N];
        self.bytes(&mut b)?;
        Ok(b)
    }

    fn u8(&mut self) -> Result<u8, DenseError> {
        Ok(self.array::<1>()?[0])
    }
    fn u32(&mut self) -> Result<u32, DenseError> {
        Ok(u32::from_ne_bytes(self.array()?))
    }
    fn i32(&mut self) -> Result<i32, DenseError> {
        Ok(i32::from_ne_bytes(self.array()?))
    }
    fn u64(&mut self) -> Result<u64, DenseError> {
        Ok(u64::from_ne_bytes(self.array()?))
    }
    fn f64(&mut self) -> Result<f64, DenseError> {
        Ok(f64::from_ne_bytes(self.array()?))
    }
    fn usize(&mut self) -> Result<usize, DenseError> {
        Ok(usize::from_ne_bytes(self.array()?))
    }

    /// A count of items of at least `item_bytes` bytes each that must fit in the rest of the file.
    fn count(&mut self, item_bytes: u64, what: &str) -> Result<usize, DenseError> {
        let n = self.usize()?;
        if (n as u64).saturating_mul(item_bytes.max(1)) > self.remaining() {
            return Err(self.corrupt(format!("{what} count {n} exceeds file size")));
        }
        Ok(n)
    }

    fn string(&mut self, what: &str) -> Result<String, DenseError> {
        let n = self.usize()?;
        if n > MAX_DUMP_NAME_BYTES {
            return Err(self.corrupt(format!("{what} length {n} > {MAX_DUMP_NAME_BYTES}")));
        }
        let mut b = vec![0u8; n];
        self.bytes(&mut b)?;
        String::from_utf8(b).map_err(|_| self.corrupt(format!("{what} is not UTF-8")))
    }

    /// Checks end of file and the checksum; returns the file's sum.
    fn finish(mut self, expected: Option<FileSum>) -> Result<FileSum, DenseError> {
        if self.remaining() != 0 {
            return Err(self.corrupt("trailing bytes after dump"));
        }
        let mut probe = [0u8; 1];
        if self
            .inner
            .read(&mut probe)
            .map_err(|e| DenseError::io(&self.path, e))?
            != 0
        {
            return Err(self.corrupt("file grew while reading"));
        }
        let sum = FileSum {
            len: self.len,
            xxh64: self.hasher.digest(),
        };
        if let Some(exp) = expected {
            if exp.xxh64 != sum.xxh64 {
                return Err(DenseError::load(
                    &self.path,
                    "checksum mismatch (file corrupted)",
                ));
            }
        }
        Ok(sum)
    }
}

/// Fully validates an `hnsw_rs` dump pair so that `HnswIo::load_hnsw` cannot hit one of its
/// panics, out-of-bounds reads or `process::exit` paths, and checks sizes and checksums
/// against the manifest when given.
fn validate_dump(
    graph_path: &Path,
    data_path: &Path,
    exp: &Expected,
) -> Result<Validated, DenseError> {
    let mut g = DumpReader::open(graph_path, exp.graph)?;
    let mut d = DumpReader::open(data_path, exp.data)?;
    let dim = read_description(&mut g, exp)?;
    let (layer_len, origins) = read_layers(&mut g, exp.count)?;
    read_entry_point(&mut g, &layer_len)?;
    let graph = g.finish(exp.graph)?;
    read_vectors(&mut d, dim, &origins)?;
    let data = d.finish(exp.data)?;
    Ok(Validated { graph, data })
}

/// The graph file's description: magic, dump mode, parameters, point count and dimension
/// (which must be the expected ones), distance and data type. Returns the dimension.
fn read_description(g: &mut DumpReader, exp: &Expected) -> Result<usize, DenseError> {
    if g.u32()? != MAGIC_DESCR_V4 {
        return Err(g.corrupt("bad description magic"));
    }
    if g.u8()? != 1 {
        return Err(g.corrupt("dump mode is not Full"));
    }
    let max_conn = g.u8()?;
    if max_conn < 2 {
        return Err(g.corrupt(format!("max_nb_connection {max_conn} < 2")));
    }
    // Level-sampling scale factor: any value is harmless to the loader (we write 1.0).
    let _level_scale = g.f64()?;
    if usize::from(g.u8()?) != MAX_LAYERS {
        return Err(g.corrupt("layer count is not 16"));
    }
    if g.usize()? == 0 {
        return Err(g.corrupt("ef_construction is 0"));
    }
    let nb_point = g.usize()?;
    if nb_point != exp.count {
        return Err(g.corrupt(format!("{nb_point} points, expected {}", exp.count)));
    }
    let dim = g.usize()?;
    if dim != exp.dim {
        return Err(g.corrupt(format!("dimension {dim}, expected {}", exp.dim)));
    }
    let dist = g.string("distance name")?;
    if dist.rsplit("::").next() != Some(DIST_NAME) {
        return Err(g.corrupt(format!("distance {dist:?} is not {DIST_NAME}")));
    }
    if g.string("type name")? != "f32" {
        return Err(g.corrupt("data type is not f32"));
    }
    Ok(dim)
}

/// The graph file's layers: every point where its id says, `nb_point` in all, and every
/// neighbour inside its layer. Returns the layer sizes and the points' origin ids in
/// dump order.
fn read_layers(
    g: &mut DumpReader,
    nb_point: usize,
) -> Result<([usize; MAX_LAYERS], Vec<usize>), DenseError> {
    if usize::from(g.u8()?) != MAX_LAYERS {
        return Err(g.corrupt("indexation layer count is not 16"));
    }
    let min_point_bytes = 4 + USIZE + 1 + 4 + MAX_LAYERS as u64 * USIZE;
    let mut layer_len = [0usize; MAX_LAYERS];
    let mut max_rank_ref = [-1i64; MAX_LAYERS];
    let mut origins: Vec<usize> = Vec::with_capacity(nb_point.min(MAX_PREALLOCATED_POINTS));
    for (l, len) in layer_len.iter_mut().enumerate() {
        if g.u32()? != MAGIC_LAYER {
            return Err(g.corrupt(format!("bad magic at layer {l}")));
        }
        *len = g.count(min_point_bytes, "layer point")?;
        for r in 0..*len {
            origins.push(read_point(g, l, r, &mut max_rank_ref)?);
        }
    }
    if origins.len() != nb_point {
        return Err(g.corrupt(format!(
            "{} points in layers, header says {nb_point}",
            origins.len()
        )));
    }
    for (l, (&max_rank, &len)) in max_rank_ref.iter().zip(&layer_len).enumerate() {
        if max_rank >= len as i64 {
            return Err(g.corrupt(format!("neighbour points past the end of layer {l}")));
        }
    }
    Ok((layer_len, origins))
}

/// One point record, expected at rank `r` of layer `l`, with its neighbour lists; raises
/// `max_rank_ref[layer]` to the highest rank its neighbours refer to. Returns its origin id.
fn read_point(
    g: &mut DumpReader,
    l: usize,
    r: usize,
    max_rank_ref: &mut [i64; MAX_LAYERS],
) -> Result<usize, DenseError> {
    if g.u32()? != MAGIC_POINT {
        return Err(g.corrupt("bad point magic"));
    }
    let origin = g.usize()?;
    let (pl, pr) = (g.u8()?, g.i32()?);
    if usize::from(pl) != l || usize::try_from(pr).ok() != Some(r) {
        return Err(g.corrupt(format!("point id ({pl},{pr}) stored at ({l},{r})")));
    }
    for _ in 0..MAX_LAYERS {
        let nb = g.count(NEIGHBOUR_BYTES, "neighbour")?;
        for _ in 0..nb {
            let _origin = g.usize()?;
            let (nl, nr) = (g.u8()?, g.i32()?);
            let dist = f32::from_ne_bytes(g.array()?);
            if usize::from(nl) >= MAX_LAYERS || nr < 0 || dist.is_nan() {
                return Err(g.corrupt(format!("bad neighbour ({nl},{nr})")));
            }
            let m = &mut max_rank_ref[usize::from(nl)];
            *m = (*m).max(i64::from(nr));
        }
    }
    Ok(origin)
}

/// The graph file's entry point, which must be a stored point.
fn read_entry_point(g: &mut DumpReader, layer_len: &[usize; MAX_LAYERS]) -> Result<(), DenseError> {
    let _entry_origin = g.usize()?;
    let (el, er) = (g.u8()?, g.i32()?);
    let entry_ok = usize::from(el) < MAX_LAYERS
        && usize::try_from(er).is_ok_and(|r| r < layer_len[usize::from(el)]);
    if !entry_ok {
        return Err(g.corrupt(format!("bad entry point ({el},{er})")));
    }
    Ok(())
}

/// The data file: header, then one finite vector of `dim` values per point, in the
/// graph's order (`origins`).
fn read_vectors(d: &mut DumpReader, dim: usize, origins: &[usize]) -> Result<(), DenseError> {
    if d.u32()? != MAGIC_DATA {
        return Err(d.corrupt("bad data magic"));
    }
    if d.usize()? != dim {
        return Err(d.corrupt("data dimension differs from graph"));
    }
    let vec_bytes = (dim as u64).saturating_mul(4);
    if vec_bytes.saturating_mul(origins.len() as u64) > d.remaining() {
        return Err(d.corrupt("data file too short for the declared points"));
    }
    let mut buf = vec![0u8; dim * 4];
    for &origin in origins {
        if d.u32()? != MAGIC_DATA {
            return Err(d.corrupt("bad vector magic"));
        }
        if d.u64()? != origin as u64 {
            return Err(d.corrupt("vector id differs from graph order"));
        }
        if d.u64()? != vec_bytes {
            return Err(d.corrupt("bad vector byte length"));
        }
        d.bytes(&mut buf)?;
        if buf
            .chunks_exact(4)
            .any(|c| !f32::from_ne_bytes([c[0], c[1], c[2], c[3]]).is_finite())
        {
            return Err(d.corrupt("non-finite vector component"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests_support {
    use super::*;

    /// SplitMix64: tiny deterministic generator for test data.
    pub struct Rng(pub u64);
    impl Rng {
        pub fn next_u64(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }
        pub fn unit(&mut self) -> f64 {
            (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
        }
        pub fn gauss(&mut self) -> f32 {
            let u1 = self.unit().max(1e-300);
            let u2 = self.unit();
            ((-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()) as f32
        }
    }

    pub fn normalise(v: &mut [f32]) {
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter_mut().for_each(|x| *x /= n);
    }

    pub fn uniform(n: usize, dim: usize, seed: u64) -> Vec<Vec<f32>> {
        let mut rng = Rng(seed);
        (0..n)
            .map(|_| {
                let mut v: Vec<f32> = (0..dim).map(|_| rng.gauss()).collect();
                normalise(&mut v);
                v
            })
            .collect()
    }

    /// Points around `centres` random unit centres (chosen by `centre_seed`): each point is a
    /// centre plus isotropic Gaussian noise of norm ~`noise`, normalised. Data and queries
    /// drawn with the same `centre_seed` share the clusters, as text embeddings of a corpus
    /// and of questions about it do.
    pub fn clustered(
        n: usize,
        dim: usize,
        centres: usize,
        noise: f32,
        centre_seed: u64,
        seed: u64,
    ) -> Vec<Vec<f32>> {
        let cs = uniform(centres, dim, centre_seed);
        let mut rng = Rng(seed);
        let scale = noise / (dim as f32).sqrt();
        (0..n)
            .map(|_| {
                let c = &cs[(rng.next_u64() % centres as u64) as usize];
                let mut v: Vec<f32> = c.iter().map(|x| x + scale * rng.gauss()).collect();
                normalise(&mut v);
                v
            })
            .collect()
    }

    /// Ids are spread out (not 0..n) to catch id/position confusion.
    pub fn id_of(i: usize) -> u64 {
        1000 + 7 * i as u64
    }

    pub fn pairs(vs: &[Vec<f32>]) -> Vec<(u64, &[f32])> {
        vs.iter()
            .enumerate()
            .map(|(i, v)| (id_of(i), v.as_slice()))
            .collect()
    }

    pub fn exact_of(dim: usize, vs: &[Vec<f32>]) -> ExactIndex {
        let mut e = ExactIndex::new(dim);
        for (i, v) in vs.iter().enumerate() {
            e.push(id_of(i), v);
        }
        e
    }

    /// Cheaper construction for functional tests (graph quality is not what they test).
    pub fn fast() -> HnswParams {
        HnswParams {
            ef_construction: 48,
            ..HnswParams::default()
        }
    }

    pub fn all(_: u64) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::tests_support::*;
    use super::*;
    use proptest::prelude::*;
    use std::time::Instant;

    #[test]
    fn the_beam_grows_with_the_graph_past_the_scale_point_and_is_bounded() {
        assert_eq!(scaled_ef(128, 0), 128);
        assert_eq!(scaled_ef(128, EF_SCALE_POINTS), 128);
        assert_eq!(scaled_ef(128, EF_SCALE_POINTS + 1), 256);
        assert_eq!(scaled_ef(128, 1_000_000), 1280);
        assert_eq!(scaled_ef(128, 100_000_000), EF_MAX);
        assert_eq!(scaled_ef(5000, 10), 5000, "never below the configured beam");
        assert_eq!(scaled_ef(usize::MAX, usize::MAX), usize::MAX);
    }

    #[test]
    fn a_fixed_beam_overrides_the_scaled_one() {
        let vs = clustered(50, 8, 3, 0.8, 7, 1);
        let mut idx = HnswIndex::build(8, &fast(), &pairs(&vs)).unwrap();
        assert_eq!(idx.beam(), fast().ef_search);
        idx.set_ef_search(7);
        assert_eq!(idx.beam(), 7);
    }

    fn assert_sorted(hits: &[(u64, f32)]) {
        for w in hits.windows(2) {
            assert!(
                w[0].1 > w[1].1 || (w[0].1 == w[1].1 && w[0].0 < w[1].0),
                "not sorted: {w:?}"
            );
        }
    }

    /// The dump checksums of existing manifests were written by a hand-written XXH64 (seed
    /// 0); these are its values, which the `xxhash-rust` crate was checked against before
    /// it replaced it, one-shot and streamed.
    #[test]
    fn xxh64_crate_gives_the_former_hand_written_values() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i * 31 % 251) as u8).collect();
        let cases: [(&[u8], u64); 7] = [
            (b"", 0xef46_db37_51d8_e999),
            (b"abc", 0x44bc_2cf5_ad77_0999),
            (&data[..1], 0xe934_a84a_db05_2768),
            (&data[..31], 0x5836_f086_07db_da19),
            (&data[..32], 0xb3f0_ec9d_8d21_6dea),
            (&data[..33], 0xc480_db42_8c35_ab3e),
            (&data, 0xd1be_e8e4_f060_3bbf),
        ];
        for (input, want) in cases {
            assert_eq!(xxhash_rust::xxh64::xxh64(input, 0), want);
            for split in [1usize, 3, 7, 31, 32, 33, 100] {
                let mut h = xxhash_rust::xxh64::Xxh64::new(0);
                for c in input.chunks(split) {
                    h.update(c);
                }
                assert_eq!(h.digest(), want, "{} bytes, split {split}", input.len());
            }
        }
    }

    #[test]
    fn dot_matches_naive() {
        let mut rng = Rng(5);
        for n in [0usize, 1, 7, 8, 9, 16, 383, 384] {
            let a: Vec<f32> = (0..n).map(|_| rng.gauss()).collect();
            let b: Vec<f32> = (0..n).map(|_| rng.gauss()).collect();
            let naive: f64 = a
                .iter()
                .zip(&b)
                .map(|(x, y)| f64::from(*x) * f64::from(*y))
                .sum();
            assert!((f64::from(dot(&a, &b)) - naive).abs() < 1e-4, "n={n}");
        }
    }

    #[test]
    fn params_validation() {
        assert!(HnswParams::default().validate().is_ok());
        for m in [0, 1, 256, 1000] {
            let p = HnswParams {
                max_connections: m,
                ..HnswParams::default()
            };
            assert!(
                matches!(p.validate(), Err(DenseError::InvalidParams { .. })),
                "m={m}"
            );
        }
        let p: HnswParams = serde_json_like_default();
        assert_eq!(p, HnswParams::default());
    }

    /// `#[serde(default)]` check without a JSON dependency: deserialize from an empty map.
    fn serde_json_like_default() -> HnswParams {
        use serde::de::value::{Error, MapDeserializer};
        let empty: Vec<(String, usize)> = Vec::new();
        HnswParams::deserialize(MapDeserializer::<_, Error>::new(empty.into_iter())).unwrap()
    }

    #[test]
    fn build_search_finds_own_id_first() {
        let dim = 48;
        let vs = clustered(2000, dim, 20, 0.8, 7, 1);
        let idx = HnswIndex::build(dim, &fast(), &pairs(&vs)).unwrap();
        assert_eq!(idx.len(), vs.len());
        assert_eq!(idx.dim(), dim);
        for i in (0..vs.len()).step_by(37) {
            for plan in [
                Plan::Auto,
                Plan::Graph {
                    ef: 0,
                    filtered: false,
                    fallback: false,
                },
            ] {
                let (hits, _) = idx.search_with(&vs[i], 5, &all, plan);
                assert_eq!(hits.len(), 5);
                assert_eq!(hits[0].0, id_of(i), "{plan:?}");
                assert!((hits[0].1 - 1.0).abs() < 1e-4);
                assert_sorted(&hits);
            }
        }
    }

    #[test]
    fn rejects_bad_input() {
        let dim = 8;
        let mut v = vec![0.0f32; dim];
        v[0] = 1.0;
        let p = HnswParams::default();
        let e = HnswIndex::build(dim, &p, &[(1, &v[..4])]).unwrap_err();
        assert!(matches!(
            e,
            DenseError::Dimension {
                expected: 8,
                got: 4
            }
        ));
        let e = HnswIndex::build(dim, &p, &[(1, &v), (1, &v)]).unwrap_err();
        assert!(matches!(e, DenseError::DuplicateId { id: 1 }));
        let twice: Vec<f32> = v.iter().map(|x| x * 2.0).collect();
        assert!(matches!(
            HnswIndex::build(dim, &p, &[(1, &twice)]),
            Err(DenseError::InvalidVector { id: 1, .. })
        ));
        let mut nan = v.clone();
        nan[1] = f32::NAN;
        assert!(HnswIndex::build(dim, &p, &[(1, &nan)]).is_err());
        let mut idx = HnswIndex::build(dim, &p, &[(1, &v)]).unwrap();
        assert!(matches!(
            idx.insert(&[(1, &v)]),
            Err(DenseError::DuplicateId { id: 1 })
        ));
        // Queries: wrong length / zero -> empty; unnormalised -> normalised.
        assert!(idx.search(&v[..3], 1, &all).is_empty());
        assert!(idx.search(&[0.0; 8], 1, &all).is_empty());
        assert_eq!(idx.search(&twice, 1, &all), vec![(1, 1.0)]);
        assert!(idx.search(&v, 0, &all).is_empty());
    }

    #[test]
    fn identical_vectors_do_not_panic() {
        // DistDot would assert on 1 - dot < 0 here; UnitDot clamps.
        let dim = 16;
        let v = uniform(1, dim, 3).remove(0);
        let pts: Vec<(u64, &[f32])> = (0..300).map(|i| (i as u64, v.as_slice())).collect();
        let idx = HnswIndex::build(dim, &fast(), &pts).unwrap();
        let (hits, _) = idx.search_with(
            &v,
            10,
            &all,
            Plan::Graph {
                ef: 0,
                filtered: false,
                fallback: false,
            },
        );
        assert_eq!(hits.len(), 10);
        assert!(hits.iter().all(|h| (h.1 - 1.0).abs() < 1e-5));
        assert_sorted(&hits);
        let ids: Vec<u64> = idx.search(&v, 10, &all).iter().map(|h| h.0).collect();
        assert_eq!(ids, (0..10).collect::<Vec<_>>());
    }

    #[test]
    fn filtered_search_returns_k_when_90_percent_filtered() {
        let dim = 32;
        let vs = clustered(3000, dim, 30, 0.8, 7, 2);
        let idx = HnswIndex::build(dim, &fast(), &pairs(&vs)).unwrap();
        let exact = exact_of(dim, &vs);
        let keep = |id: u64| (id / 7) % 10 == 3; // 10% of ids kept
        let k = 10;
        let hnsw_filter = Plan::Graph {
            ef: 0,
            filtered: true,
            fallback: false,
        };
        let overfetch = Plan::Graph {
            ef: 2 * k * 10,
            filtered: false,
            fallback: true,
        };
        let (mut recall_filter, mut recall_overfetch) = (0.0, 0.0);
        let queries = clustered(30, dim, 30, 0.8, 7, 99);
        for q in &queries {
            let truth = exact.search(q, k, &keep);
            assert_eq!(truth.len(), k);
            for plan in [Plan::Auto, Plan::Exact, hnsw_filter, overfetch] {
                let (hits, route) = idx.search_with(q, k, &keep, plan);
                if plan == hnsw_filter {
                    recall_filter += recall_at_k(&truth, &hits, k);
                    // hnsw_rs alone may come up short; with fallback we never do.
                    assert!(hits.len() <= k);
                } else {
                    assert_eq!(hits.len(), k, "{plan:?} via {route:?}");
                }
                if plan == overfetch {
                    recall_overfetch += recall_at_k(&truth, &hits, k);
                }
                assert!(hits.iter().all(|h| keep(h.0)));
                assert_sorted(&hits);
            }
            assert_eq!(idx.search(q, k, &keep), truth);
        }
        let n = queries.len() as f64;
        let (recall_filter, recall_overfetch) = (recall_filter / n, recall_overfetch / n);
        eprintln!(
            "10% kept, recall@10: hnsw_rs search_filter {recall_filter:.3}, over-fetch {recall_overfetch:.3}"
        );
        assert!(
            recall_filter >= 0.9,
            "hnsw_rs filtered recall {recall_filter}"
        );
        assert!(
            recall_overfetch >= 0.9,
            "over-fetch recall {recall_overfetch}"
        );

        // Fewer kept points than k: all of them, best first.
        let few = |id: u64| id == id_of(5) || id == id_of(2999);
        let hits = idx.search(&vs[5], k, &few);
        assert_eq!(
            hits.iter().map(|h| h.0).collect::<Vec<_>>(),
            vec![id_of(5), id_of(2999)]
        );
        assert!(idx.search(&vs[5], k, &|_| false).is_empty());
    }

    #[test]
    fn graph_short_result_falls_back_to_exact() {
        // A filter keeping only ids unreachable through the unfiltered beam: the graph answers
        // with < k kept hits and Auto must fall back to an exact scan.
        let dim = 16;
        let vs = clustered(2000, dim, 10, 0.5, 7, 4);
        let idx = HnswIndex::build(dim, &fast(), &pairs(&vs)).unwrap();
        let q = &vs[0];
        let exact = exact_of(dim, &vs);
        // Keep the 50 points *farthest* from q: graph search (unfiltered) never reaches them.
        let far: HashSet<u64> = {
            let mut all_hits = exact.search(&q.iter().map(|x| -x).collect::<Vec<_>>(), 50, &all);
            all_hits.truncate(50);
            all_hits.into_iter().map(|h| h.0).collect()
        };
        let keep = |id: u64| far.contains(&id);
        let (graph_hits, _) = idx.search_with(
            q,
            10,
            &keep,
            Plan::Graph {
                ef: 0,
                filtered: false,
                fallback: false,
            },
        );
        assert!(graph_hits.len() < 10);
        let (hits, route) = idx.search_with(
            q,
            10,
            &keep,
            Plan::Graph {
                ef: 0,
                filtered: false,
                fallback: true,
            },
        );
        assert_eq!(route, Route::ExactFallback);
        assert_eq!(hits, exact.search(q, 10, &keep));
        assert_eq!(idx.search(q, 10, &keep), hits);
    }

    #[test]
    fn save_load_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let dim = 24;
        let vs = clustered(1500, dim, 15, 0.8, 7, 6);
        let idx = HnswIndex::build(dim, &fast(), &pairs(&vs)).unwrap();
        let base = idx.save(dir.path(), "dense").unwrap();
        assert_eq!(base, "dense");
        let loaded = HnswIndex::load(dir.path(), &base, &HnswParams::default()).unwrap();
        assert_eq!(loaded.len(), idx.len());
        assert_eq!(loaded.dim(), dim);
        assert_eq!(loaded.ids(), idx.ids());
        assert_eq!(loaded.params(), idx.params());
        let keep_odd = |id: u64| id % 2 == 1;
        for q in uniform(20, dim, 7).iter().chain(vs.iter().take(5)) {
            for plan in [
                Plan::Auto,
                Plan::Graph {
                    ef: 0,
                    filtered: false,
                    fallback: false,
                },
                Plan::Graph {
                    ef: 0,
                    filtered: true,
                    fallback: false,
                },
            ] {
                assert_eq!(
                    idx.search_with(q, 10, &all, plan).0,
                    loaded.search_with(q, 10, &all, plan).0
                );
                assert_eq!(
                    idx.search_with(q, 10, &keep_odd, plan).0,
                    loaded.search_with(q, 10, &keep_odd, plan).0
                );
            }
        }
        // Saving again (from a loaded graph, which hnsw_rs refuses to overwrite) replaces the
        // previous generation and leaves exactly one dump pair plus the manifest.
        assert_eq!(loaded.save(dir.path(), "dense").unwrap(), "dense");
        let mut names: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names.len(), 3, "{names:?}");
        assert!(names.contains(&"dense.hnsw.meta".to_string()));
        let again = HnswIndex::load(dir.path(), "dense", &HnswParams::default()).unwrap();
        assert_eq!(again.ids(), idx.ids());
    }

    #[test]
    fn save_load_empty_index() {
        let dir = tempfile::tempdir().unwrap();
        let idx = HnswIndex::build(4, &HnswParams::default(), &[]).unwrap();
        assert!(idx.is_empty());
        idx.save(dir.path(), "empty").unwrap();
        let mut loaded = HnswIndex::load(dir.path(), "empty", &HnswParams::default()).unwrap();
        assert!(loaded.is_empty());
        assert_eq!(loaded.dim(), 4);
        assert!(loaded.search(&[1.0, 0.0, 0.0, 0.0], 3, &all).is_empty());
        loaded.insert(&[(9, &[0.0, 1.0, 0.0, 0.0])]).unwrap();
        assert_eq!(
            loaded.search(&[0.0, 1.0, 0.0, 0.0], 3, &all),
            vec![(9, 1.0)]
        );
    }

    #[test]
    fn insert_after_load_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let dim = 32;
        let vs = clustered(1200, dim, 12, 0.8, 7, 8);
        let (first, second) = vs.split_at(1000);
        let idx = HnswIndex::build(dim, &fast(), &pairs(first)).unwrap();
        idx.save(dir.path(), "inc").unwrap();
        let mut loaded = HnswIndex::load(dir.path(), "inc", &HnswParams::default()).unwrap();
        let more: Vec<(u64, &[f32])> = second
            .iter()
            .enumerate()
            .map(|(i, v)| (id_of(1000 + i), v.as_slice()))
            .collect();
        loaded.insert(&more).unwrap();
        assert_eq!(loaded.len(), 1200);
        for (i, v) in second.iter().enumerate().step_by(9) {
            let (hits, _) = loaded.search_with(
                v,
                3,
                &all,
                Plan::Graph {
                    ef: 0,
                    filtered: false,
                    fallback: false,
                },
            );
            assert_eq!(hits[0].0, id_of(1000 + i));
        }
        // And the grown graph round-trips.
        loaded.save(dir.path(), "inc").unwrap();
        let again = HnswIndex::load(dir.path(), "inc", &HnswParams::default()).unwrap();
        assert_eq!(again.ids(), loaded.ids());
        let q = &second[7];
        assert_eq!(again.search(q, 5, &all), loaded.search(q, 5, &all));
    }

    #[test]
    fn reloaded_graph_keeps_level_distribution() {
        // Points inserted after a reload must still be promoted to upper layers with
        // probability ~1/M (hnsw_rs would shrink the level scale on every reload).
        let dir = tempfile::tempdir().unwrap();
        let dim = 8;
        let vs = uniform(4000, dim, 14);
        let (first, second) = vs.split_at(500);
        let mut idx = HnswIndex::build(dim, &fast(), &pairs(first)).unwrap();
        for _ in 0..3 {
            idx.save(dir.path(), "lv").unwrap();
            idx = HnswIndex::load(dir.path(), "lv", &fast()).unwrap();
        }
        let upper_before = idx.len() - idx.graph.offsets[1];
        let more: Vec<(u64, &[f32])> = second
            .iter()
            .enumerate()
            .map(|(i, v)| (id_of(500 + i), v.as_slice()))
            .collect();
        idx.insert(&more).unwrap();
        let promoted = idx.len() - idx.graph.offsets[1] - upper_before;
        // Expected 3500 / 16 ~ 219.
        assert!((120..=330).contains(&promoted), "promoted {promoted}");
    }

    fn saved_fixture() -> (tempfile::TempDir, DumpFiles) {
        let dir = tempfile::tempdir().unwrap();
        let dim = 8;
        let vs = uniform(300, dim, 10);
        let idx = HnswIndex::build(dim, &fast(), &pairs(&vs)).unwrap();
        idx.save(dir.path(), "x").unwrap();
        let m = Manifest::read(&dir.path().join("x.hnsw.meta")).unwrap();
        (dir, m.dump.unwrap())
    }

    fn load_x(dir: &Path) -> Result<HnswIndex, DenseError> {
        HnswIndex::load(dir, "x", &HnswParams::default())
    }

    /// Rewrites the manifest so that it matches the (tampered) files on disk; this bypasses
    /// the checksum and exercises the structural validation in front of hnsw_rs.
    fn reseal(dir: &Path) {
        let path = dir.join("x.hnsw.meta");
        let mut m = Manifest::read(&path).unwrap();
        let d = m.dump.as_mut().unwrap();
        let (g, dp) = dump_paths(dir, &d.base);
        let sum = |p: &Path| {
            let b = fs::read(p).unwrap();
            FileSum {
                len: b.len() as u64,
                xxh64: xxhash_rust::xxh64::xxh64(&b, 0),
            }
        };
        d.graph = sum(&g);
        d.data = sum(&dp);
        fs::write(&path, m.render()).unwrap();
    }

    #[test]
    fn load_missing_dump_is_err() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(
            load_x(dir.path()),
            Err(DenseError::Missing { .. })
        ));
        assert!(matches!(
            load_x(&dir.path().join("nope")),
            Err(DenseError::Missing { .. })
        ));
        let (dir, files) = saved_fixture();
        fs::remove_file(dump_paths(dir.path(), &files.base).1).unwrap();
        assert!(matches!(
            load_x(dir.path()),
            Err(DenseError::Missing { .. })
        ));
        assert!(matches!(
            HnswIndex::load(dir.path(), "../x", &HnswParams::default()),
            Err(DenseError::InvalidBasename { .. })
        ));
    }

    #[test]
    fn load_truncated_or_corrupt_dump_is_err() {
        type Tamper = fn(&mut Vec<u8>);
        // (name, tamper graph (else data), tamper)
        let cases: &[(&str, bool, Tamper)] = &[
            ("truncate graph", true, |b| b.truncate(b.len() / 2)),
            ("truncate graph by 1", true, |b| {
                b.pop();
            }),
            ("truncate data", false, |b| b.truncate(b.len() - 10)),
            ("empty data", false, |b| b.clear()),
            ("flip graph byte", true, |b| {
                let i = b.len() / 3;
                b[i] ^= 0x40
            }),
            ("flip data byte", false, |b| {
                let i = b.len() / 2;
                b[i] ^= 0x01
            }),
            ("garbage graph", true, |b| {
                b.iter_mut().for_each(|x| *x = 0xAB)
            }),
            ("append to data", false, |b| b.extend_from_slice(&[0; 16])),
            ("graph magic", true, |b| b[0] ^= 1),
            ("graph max_conn zero", true, |b| {
                // max_nb_connection byte right after magic + dump mode
                b[5] = 0;
            }),
            ("huge neighbour count", true, |b| {
                // first layer's first point: after description + nb_layer + layer magic + count
                let pos = find(b, &MAGIC_POINT.to_ne_bytes()).unwrap() + 4 + 8 + 1 + 4;
                b[pos..pos + 8].copy_from_slice(&u64::MAX.to_ne_bytes());
            }),
            ("neighbour rank out of range", true, |b| {
                let pos = find(b, &MAGIC_POINT.to_ne_bytes()).unwrap() + 4 + 8 + 1 + 4;
                let nb = u64::from_ne_bytes(b[pos..pos + 8].try_into().unwrap());
                assert!(nb > 0);
                let rank = pos + 8 + 8 + 1;
                b[rank..rank + 4].copy_from_slice(&1_000_000i32.to_ne_bytes());
            }),
            ("data vector length", false, |b| {
                let pos = 4 + 8 + 4 + 8;
                b[pos..pos + 8].copy_from_slice(&4u64.to_ne_bytes());
            }),
            ("data nan", false, |b| {
                let pos = 4 + 8 + 4 + 8 + 8;
                b[pos..pos + 4].copy_from_slice(&f32::NAN.to_ne_bytes());
            }),
        ];
        fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
            hay.windows(needle.len()).position(|w| w == needle)
        }
        for &(name, graph, tamper) in cases {
            // A flipped bit inside a float may be structurally valid: only the checksum sees it.
            let structural = !name.starts_with("flip");
            for resealed in [false, true] {
                if resealed && !structural {
                    continue;
                }
                let (dir, files) = saved_fixture();
                let (g, d) = dump_paths(dir.path(), &files.base);
                let path = if graph { g } else { d };
                let mut bytes = fs::read(&path).unwrap();
                tamper(&mut bytes);
                fs::write(&path, &bytes).unwrap();
                if resealed {
                    reseal(dir.path());
                }
                match load_x(dir.path()) {
                    Err(DenseError::Load { path: p, reason }) => {
                        assert_eq!(p, path, "{name}: {reason}");
                    }
                    other => {
                        panic!("{name} (resealed={resealed}): expected Load error, got {other:?}")
                    }
                }
            }
        }
    }

    #[test]
    fn load_corrupt_manifest_is_err() {
        type Edit = fn(&str) -> String;
        let cases: &[(&str, Edit)] = &[
            ("empty", |_| String::new()),
            ("truncated", |s| s[..s.len() / 2].to_string()),
            ("trailing", |s| format!("{s}{{}}")),
            ("bad dim", |s| s.replace("\"dim\": 8", "\"dim\": \"x\"")),
            ("no dim", |s| s.replace("\"dim\": 8,", "")),
            ("unknown field", |s| {
                s.replace("\"dim\": 8", "\"dim\": 8, \"extra\": 1")
            }),
            ("format", |s| {
                s.replace(MANIFEST_FORMAT, "attest-dense-hnsw 9")
            }),
            ("wrong count", |s| {
                s.replace("\"count\": 300", "\"count\": 301")
            }),
            ("wrong dim", |s| s.replace("\"dim\": 8", "\"dim\": 9")),
            ("bad m", |s| {
                s.replace("\"max_connections\": 16", "\"max_connections\": 300")
            }),
            ("hash", |s| {
                let i = s.find("\"xxh64\": ").unwrap() + 9;
                let c = if &s[i..i + 1] == "1" { "2" } else { "1" };
                format!("{}{}{}", &s[..i], c, &s[i + 1..])
            }),
            ("binary", |_| "\u{0}\u{1}\u{2}".to_string()),
            ("old text format", |_| {
                "attest-dense-hnsw 1\ndim 8\ncount 300\nmax_connections 16\nef_construction 200\ndump -\nend\n".to_string()
            }),
        ];
        for &(name, f) in cases {
            let (dir, _) = saved_fixture();
            let p = dir.path().join("x.hnsw.meta");
            let text = fs::read_to_string(&p).unwrap();
            let edited = f(&text);
            assert_ne!(edited, text, "{name}: the edit changes the manifest");
            fs::write(&p, edited).unwrap();
            match load_x(dir.path()) {
                Err(DenseError::Load { reason, .. }) => {
                    if name == "old text format" {
                        assert!(reason.contains("earlier version"), "{reason}");
                    }
                }
                other => panic!("{name}: expected a Load error, got {other:?}"),
            }
        }
    }

    #[test]
    fn generation_file_matching() {
        assert_eq!(
            is_generation_file("dense.g1a2b.hnsw.graph", "dense").as_deref(),
            Some("dense.g1a2b")
        );
        assert_eq!(
            is_generation_file("dense.g1a2b-42.hnsw.data", "dense").as_deref(),
            Some("dense.g1a2b-42")
        );
        for other in [
            "dense.hnsw.meta",
            "dense.v2.g1a.hnsw.graph",
            "dense.g.hnsw.graph",
            "dense.gxyz.hnsw.graph",
            "dense.g1a-.hnsw.graph",
            "dense2.g1a.hnsw.graph",
        ] {
            assert_eq!(is_generation_file(other, "dense"), None, "{other}");
        }
    }

    #[test]
    fn exact_remove_ids() {
        let dim = 4;
        let vs = uniform(10, dim, 11);
        let mut e = exact_of(dim, &vs);
        let dead: HashSet<u64> = [id_of(0), id_of(3), id_of(9)].into_iter().collect();
        e.remove_ids(&dead);
        assert_eq!(e.len(), 7);
        for (i, v) in vs.iter().enumerate() {
            let hits = e.search(v, 1, &all);
            if dead.contains(&id_of(i)) {
                assert_ne!(hits[0].0, id_of(i));
            } else {
                assert_eq!(hits[0].0, id_of(i));
                assert!((hits[0].1 - 1.0).abs() < 1e-5);
            }
        }
    }

    /// Naive reference: every kept row, sorted by (score desc, id asc), f64 scores.
    fn naive(
        rows: &[(u64, Vec<f32>)],
        q: &[f32],
        k: usize,
        keep: &dyn Fn(u64) -> bool,
    ) -> Vec<(u64, f64)> {
        let mut all: Vec<(u64, f64)> = rows
            .iter()
            .filter(|(id, _)| keep(*id))
            .map(|(id, v)| {
                (
                    *id,
                    v.iter()
                        .zip(q)
                        .map(|(a, b)| f64::from(*a) * f64::from(*b))
                        .sum(),
                )
            })
            .collect();
        all.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        all.truncate(k);
        all
    }

    /// Same top-k up to ties: same length, same scores, and every returned id scores at least
    /// the reference's k-th score.
    fn assert_same_topk(
        got: &[(u64, f32)],
        want: &[(u64, f64)],
        rows: &[(u64, Vec<f32>)],
        q: &[f32],
    ) {
        const EPS: f64 = 1e-4;
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(want) {
            assert!((f64::from(g.1) - w.1).abs() < EPS, "{got:?} vs {want:?}");
        }
        if let Some(last) = want.last() {
            for g in got {
                let v = &rows.iter().find(|r| r.0 == g.0).unwrap().1;
                let s: f64 = v
                    .iter()
                    .zip(q)
                    .map(|(a, b)| f64::from(*a) * f64::from(*b))
                    .sum();
                assert!(s >= last.1 - EPS);
            }
        }
        assert_sorted(got);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn exact_search_matches_naive(
            dim in 1usize..40,
            n in 0usize..80,
            k in 0usize..20,
            seed in any::<u64>(),
            modulus in 1u64..5,
        ) {
            let mut rng = Rng(seed);
            let rows: Vec<(u64, Vec<f32>)> = (0..n)
                .map(|i| ((rng.next_u64() % 1000) * 1000 + i as u64, (0..dim).map(|_| rng.gauss()).collect()))
                .collect();
            let q: Vec<f32> = (0..dim).map(|_| rng.gauss()).collect();
            let mut e = ExactIndex::new(dim);
            for (id, v) in &rows {
                e.push(*id, v);
            }
            let keep = move |id: u64| id.is_multiple_of(modulus);
            let got = e.search(&q, k, &keep);
            let want = naive(&rows, &q, k, &keep);
            assert_same_topk(&got, &want, &rows, &q);
        }
    }

    #[test]
    fn exact_parallel_path_matches_naive() {
        let dim = 64;
        let vs = uniform(9000, dim, 12);
        assert!(vs.len() * dim >= PARALLEL_SCAN_WORK);
        let e = exact_of(dim, &vs);
        let rows: Vec<(u64, Vec<f32>)> = vs
            .iter()
            .enumerate()
            .map(|(i, v)| (id_of(i), v.clone()))
            .collect();
        let keep = |id: u64| !id.is_multiple_of(3);
        for q in uniform(5, dim, 13) {
            let got = e.search(&q, 25, &keep);
            assert_same_topk(&got, &naive(&rows, &q, 25, &keep), &rows, &q);
        }
        // Exact ties are broken by ascending id, deterministically.
        let mut t = ExactIndex::new(2);
        for id in [5u64, 3, 9, 1] {
            t.push(id, &[1.0, 0.0]);
        }
        assert_eq!(
            t.search(&[1.0, 0.0], 3, &all),
            vec![(1, 1.0), (3, 1.0), (5, 1.0)]
        );
    }

    /// Mean recall@10 of the graph (forced, unfiltered, no fallback) against exact search,
    /// and the mean query time in ms.
    fn measure_recall(idx: &HnswIndex, exact: &ExactIndex, queries: &[Vec<f32>]) -> (f64, f64) {
        let graph = Plan::Graph {
            ef: 0,
            filtered: false,
            fallback: false,
        };
        let truth: Vec<_> = queries.iter().map(|q| exact.search(q, 10, &all)).collect();
        let t = Instant::now();
        let approx: Vec<_> = queries
            .iter()
            .map(|q| idx.search_with(q, 10, &all, graph).0)
            .collect();
        let ms = t.elapsed().as_secs_f64() * 1000.0 / queries.len() as f64;
        let total: f64 = truth
            .iter()
            .zip(&approx)
            .map(|(t, a)| recall_at_k(t, a, 10))
            .sum();
        (total / queries.len() as f64, ms)
    }

    /// Builds over `data` with default params and reports recall@10 per `ef_search`.
    fn recall_report(
        label: &str,
        data: &[Vec<f32>],
        queries: &[Vec<f32>],
        efs: &[usize],
    ) -> Vec<f64> {
        let dim = data[0].len();
        let t = Instant::now();
        let mut idx = HnswIndex::build(dim, &HnswParams::default(), &pairs(data)).unwrap();
        let build_s = t.elapsed().as_secs_f64();
        let exact = exact_of(dim, data);
        efs.iter()
            .map(|&ef| {
                idx.set_ef_search(ef);
                let (r, ms) = measure_recall(&idx, &exact, queries);
                eprintln!("{label} n={} ef_search={ef}: recall@10 = {r:.4} (build {build_s:.2}s, {ms:.2} ms/query)", data.len());
                r
            })
            .collect()
    }

    #[test]
    fn hnsw_recall_at_10_on_5000_384d() {
        // Clustered data (50 centres + noise, queries from the same clusters) resembles text
        // embeddings; uniform random 384-d vectors are the hard case (see the ignored test).
        let dim = 384;
        let data = clustered(5000, dim, 50, 1.0, 7, 21);
        let queries = clustered(100, dim, 50, 1.0, 7, 22);
        let idx = HnswIndex::build(dim, &HnswParams::default(), &pairs(&data)).unwrap();
        let exact = exact_of(dim, &data);
        let (recall, ms) = measure_recall(&idx, &exact, &queries);
        eprintln!("clustered n=5000 dim=384: recall@10 = {recall:.4} ({ms:.2} ms/query)");
        assert!(recall >= 0.98, "clustered recall {recall}");

        // The planner picks the graph here (unfiltered, and over-fetching for a 90% filter)
        // and an exact scan for a 1% filter; all return exactly k kept hits.
        let q = &queries[0];
        assert_eq!(idx.search_with(q, 10, &all, Plan::Auto).1, Route::Graph);
        let most = |id: u64| id % 10 != 3;
        let (hits, route) = idx.search_with(q, 10, &most, Plan::Auto);
        assert_eq!(route, Route::Graph);
        assert_eq!(hits.len(), 10);
        assert!(hits.iter().all(|h| most(h.0)));
        let rare = |id: u64| id % 100 == 3;
        let (hits, route) = idx.search_with(q, 10, &rare, Plan::Auto);
        assert_eq!(route, Route::Exact);
        assert_eq!(hits, exact.search(q, 10, &rare));
    }

    #[test]
    #[ignore = "measurement (~30 s in the test profile); run with --ignored --nocapture"]
    fn hnsw_recall_measurement() {
        let dim = 384;
        let efs = [50, 100, 200, 400];
        recall_report(
            "uniform",
            &uniform(5000, dim, 31),
            &uniform(100, dim, 32),
            &efs,
        );
        for (centres, noise) in [(50, 1.0f32), (50, 2.0), (500, 1.0), (500, 2.0)] {
            let label = format!("clustered centres={centres} noise={noise}");
            let data = clustered(5000, dim, centres, noise, 7, 41);
            let queries = clustered(100, dim, centres, noise, 7, 42);
            recall_report(&label, &data, &queries, &efs);
        }
    }
}
