//! [`OwnedHnsw`]: an `hnsw_rs` graph (built or loaded) owned together with the loader it
//! borrows from, and a flat table of its points for exact scans and re-scoring.

use std::mem::ManuallyDrop;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::ptr::NonNull;
use std::sync::Arc;

use hnsw_rs::hnsw::{Hnsw, Point, PointId};
use hnsw_rs::hnswio::HnswIo;

use super::{HnswParams, UnitDot, MAX_LAYERS};
use crate::caught::panic_message;

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
pub(super) struct OwnedHnsw {
    hnsw: ManuallyDrop<Graph>,
    /// All points, layer by layer, in rank order; `offsets[l]` is the first index of layer `l`.
    pub(super) points: Vec<GraphPoint>,
    pub(super) offsets: [usize; MAX_LAYERS + 1],
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

    pub(super) fn new(params: &HnswParams, capacity: usize) -> Self {
        Self::from_graph(Hnsw::new(
            params.max_connections,
            capacity,
            MAX_LAYERS,
            params.ef_construction,
            UnitDot,
        ))
    }

    /// Loads `<dir>/<base>.hnsw.{graph,data}` (which must already have been validated).
    pub(super) fn load(dir: &Path, base: &str) -> Result<Self, String> {
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

    pub(super) fn graph(&self) -> &Graph {
        &self.hnsw
    }

    /// Rebuilds the flat point table after inserts.
    pub(super) fn refresh_points(&mut self) {
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
    pub(super) fn vector(&self, p_id: PointId) -> Option<&[f32]> {
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
