//! [`ExactIndex`]: brute-force cosine search over a flat row-major matrix, and
//! [`recall_at_k`] against it.

use std::collections::HashSet;
use std::fmt;

use super::{top_k_rows, DenseError};
use crate::models::dot;

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
