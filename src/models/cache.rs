//! A bounded cache of embeddings in front of a bi-encoder, for a long-running server: the
//! same quote, candidate sentence or question is embedded once. Keyed by the exact text
//! (no hash can collide); the oldest entries go first once the byte budget is spent.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use super::{Embed, ModelError};

/// Bytes an entry costs besides its text and vector (map and queue bookkeeping).
const ENTRY_OVERHEAD: usize = 96;

/// An [`Embed`] that remembers what its inner model computed.
pub struct CachedEmbed {
    inner: Arc<dyn Embed>,
    cache: Mutex<Entries>,
}

#[derive(Default)]
struct Entries {
    map: HashMap<String, Arc<[f32]>>,
    order: VecDeque<String>,
    bytes: usize,
    budget: usize,
    hits: u64,
    misses: u64,
}

impl Entries {
    fn insert(&mut self, text: &str, v: Arc<[f32]>) {
        let cost = text.len() + v.len() * 4 + ENTRY_OVERHEAD;
        if cost > self.budget || self.map.contains_key(text) {
            return;
        }
        while self.bytes + cost > self.budget {
            let Some(old) = self.order.pop_front() else {
                break;
            };
            if let Some(ov) = self.map.remove(&old) {
                self.bytes -= old.len() + ov.len() * 4 + ENTRY_OVERHEAD;
            }
        }
        self.bytes += cost;
        self.order.push_back(text.to_string());
        self.map.insert(text.to_string(), v);
    }
}

impl CachedEmbed {
    /// `inner` behind a cache of at most `budget_bytes`.
    pub fn new(inner: Arc<dyn Embed>, budget_bytes: usize) -> Self {
        CachedEmbed {
            inner,
            cache: Mutex::new(Entries {
                budget: budget_bytes,
                ..Entries::default()
            }),
        }
    }

    /// (hits, misses, bytes held) so far.
    pub fn stats(&self) -> (u64, u64, usize) {
        let c = self.lock();
        (c.hits, c.misses, c.bytes)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Entries> {
        self.cache.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Embed for CachedEmbed {
    fn model_id(&self) -> &str {
        self.inner.model_id()
    }

    fn dim(&self) -> usize {
        self.inner.dim()
    }

    fn count_tokens(&self, text: &str) -> usize {
        self.inner.count_tokens(text)
    }

    fn embed_unchecked(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, ModelError> {
        let mut out: Vec<Option<Vec<f32>>> = Vec::with_capacity(texts.len());
        let mut missing: Vec<&str> = Vec::new();
        {
            let mut c = self.lock();
            for t in texts {
                let hit = c.map.get(*t).map(|v| v.to_vec());
                if hit.is_some() {
                    c.hits += 1;
                } else if !missing.contains(t) {
                    c.misses += 1;
                    missing.push(t);
                }
                out.push(hit);
            }
        }
        if !missing.is_empty() {
            // Checked here, so that nothing malformed is ever cached.
            let vectors = self.inner.embed(&missing)?;
            let mut c = self.lock();
            let fresh: Vec<(&str, Arc<[f32]>)> = missing
                .iter()
                .zip(vectors)
                .map(|(t, v)| (*t, Arc::from(v)))
                .collect();
            for (t, v) in &fresh {
                c.insert(t, v.clone());
            }
            let fresh: HashMap<&str, Arc<[f32]>> = fresh.into_iter().collect();
            for (slot, t) in out.iter_mut().zip(texts) {
                if slot.is_none() {
                    *slot = fresh.get(t).map(|v| v.to_vec());
                }
            }
        }
        Ok(out.into_iter().map(Option::unwrap_or_default).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::HashEmbedder;

    #[test]
    fn cached_vectors_equal_fresh_ones_and_the_budget_holds() {
        let inner: Arc<dyn Embed> = Arc::new(HashEmbedder::new(64));
        let c = CachedEmbed::new(inner.clone(), 3 * (64 * 4 + ENTRY_OVERHEAD + 12));
        let texts = [
            "alpha one",
            "beta two",
            "alpha one",
            "gamma three",
            "delta four",
        ];
        let got = c.embed(&texts).unwrap();
        let want = inner.embed(&texts).unwrap();
        assert_eq!(got, want);
        let again = c.embed(&["beta two", "delta four"]).unwrap();
        assert_eq!(again, inner.embed(&["beta two", "delta four"]).unwrap());
        let (hits, misses, bytes) = c.stats();
        assert_eq!(misses, 4, "one miss per distinct text");
        assert!(hits >= 2);
        assert!(bytes <= 3 * (64 * 4 + ENTRY_OVERHEAD + 12), "{bytes}");
        // The oldest entry was dropped to stay within the budget.
        assert!(!c.lock().map.contains_key("alpha one"));
    }
}
