//! Embedding nothing twice: the vectors of texts embedded earlier in a run, and the texts
//! queued for the bi-encoder, keyed by [`EmbedHash`].
//!
//! A text whose hash the store already holds takes the stored vector (looked up when its
//! file is compared). A text embedded earlier in the run takes the vector from this
//! cache; one queued but not yet embedded waits for it. The cache is bounded: when full
//! it starts afresh, and a text that finds nothing is embedded, so a bound costs time,
//! never a vector.

use std::collections::{HashMap, HashSet};

use crate::store::EmbedHash;

/// Most vectors the run keeps (about 50 MB of 384-dimensional vectors).
pub const MAX_CACHED: usize = 32_768;

/// Where a text's vector comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// A vector embedded before: take it.
    Known(Vec<f32>),
    /// The same text is queued for the bi-encoder: wait for its vector.
    Queued,
    /// Nobody embeds it yet: this text is to be embedded (and is now queued).
    Embed,
}

/// The run's vectors by text, and the texts queued for the bi-encoder.
#[derive(Debug, Default)]
pub struct RunCache {
    vectors: HashMap<EmbedHash, Vec<f32>>,
    queued: HashSet<EmbedHash>,
}

impl RunCache {
    /// Where the vector of a text with hash `h` comes from; `stored` holds the vectors the
    /// store already has for its file's texts. An `Embed` answer queues `h`.
    pub fn source(&mut self, h: &EmbedHash, stored: &HashMap<EmbedHash, Vec<f32>>) -> Source {
        if let Some(v) = stored.get(h).or_else(|| self.vectors.get(h)) {
            return Source::Known(v.clone());
        }
        if self.queued.contains(h) {
            return Source::Queued;
        }
        self.queued.insert(*h);
        Source::Embed
    }

    /// The vector of an embedded text, if the run still holds it.
    pub fn get(&self, h: &EmbedHash) -> Option<&Vec<f32>> {
        self.vectors.get(h)
    }

    /// Records the vector the bi-encoder gave for `h` (no longer queued).
    pub fn embedded(&mut self, h: EmbedHash, v: &[f32]) {
        self.queued.remove(&h);
        if self.vectors.len() >= MAX_CACHED {
            self.vectors.clear();
        }
        self.vectors.insert(h, v.to_vec());
    }

    /// `h` will not be embedded after all (its file failed): texts waiting for it are
    /// embedded themselves.
    pub fn dropped(&mut self, h: &EmbedHash) {
        self.queued.remove(h);
    }

    /// Vectors held.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.vectors.len()
    }

    /// Whether no vector is held.
    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.vectors.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::embed_hash;

    #[test]
    fn a_text_is_embedded_once_then_known_and_a_stored_vector_comes_first() {
        let mut cache = RunCache::default();
        let none = HashMap::new();
        let h = embed_hash("Title\nthe same boilerplate page");
        assert_eq!(cache.source(&h, &none), Source::Embed);
        assert_eq!(cache.source(&h, &none), Source::Queued);
        cache.embedded(h, &[0.6, 0.8]);
        assert_eq!(cache.source(&h, &none), Source::Known(vec![0.6, 0.8]));
        let stored = HashMap::from([(h, vec![1.0, 0.0])]);
        assert_eq!(cache.source(&h, &stored), Source::Known(vec![1.0, 0.0]));
    }

    #[test]
    fn a_dropped_text_is_embedded_by_the_next_that_asks() {
        let mut cache = RunCache::default();
        let none = HashMap::new();
        let h = embed_hash("a file that timed out");
        assert_eq!(cache.source(&h, &none), Source::Embed);
        cache.dropped(&h);
        assert_eq!(cache.source(&h, &none), Source::Embed);
    }

    #[test]
    fn texts_differing_only_in_whitespace_share_a_key_and_others_do_not() {
        assert_eq!(embed_hash("a  b\n c "), embed_hash("a b c"));
        assert_ne!(embed_hash("a b c"), embed_hash("a b C"));
        assert_ne!(embed_hash("ab c"), embed_hash("a bc"));
    }

    #[test]
    fn the_cache_is_bounded() {
        let mut cache = RunCache::default();
        for i in 0..MAX_CACHED + 10 {
            cache.embedded(embed_hash(&i.to_string()), &[1.0]);
        }
        assert!(cache.len() <= MAX_CACHED);
        assert!(!cache.is_empty());
    }
}
