//! The support check: is a sentence that is not itself a verbatim quote supported by the
//! evidence it cites? Two signals: content-word coverage (the share of the sentence's
//! content words found in the cited texts) and embedding similarity (the best cosine
//! between the sentence and any sentence of the cited texts). A sentence is supported
//! when both reach their thresholds.
//!
//! Default thresholds (coverage ≥ 0.40, similarity ≥ 0.66) were calibrated with
//! `attest eval attribution` on AttributionBench dev
//! (`../shared/data/attributionbench/dev.jsonl`, 1,198 balanced claims, all-MiniLM-L6-v2):
//! the grid point (coverage step 0.05, similarity step 0.02) with the best macro-F1, 0.688.

use std::collections::HashSet;

use serde::Serialize;

use crate::corpus::segment::sentences;
use crate::index::lexical::{is_stopword, words};
use crate::models::{dot, Embed, ModelError};

/// Thresholds of the support check.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SupportConfig {
    /// Minimum share of the sentence's content words present in the cited texts.
    pub min_coverage: f64,
    /// Minimum best cosine between the sentence and a cited sentence.
    pub min_similarity: f64,
}

impl Default for SupportConfig {
    fn default() -> Self {
        SupportConfig {
            min_coverage: 0.40,
            min_similarity: 0.66,
        }
    }
}

/// The two signals for one sentence.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SupportFeatures {
    /// Share of content words found in the cited texts (1 when there are none).
    pub coverage: f64,
    /// Best cosine with a cited sentence.
    pub similarity: f64,
}

impl SupportFeatures {
    /// Whether both signals reach `cfg`.
    pub fn supported(&self, cfg: &SupportConfig) -> bool {
        self.coverage >= cfg.min_coverage && self.similarity >= cfg.min_similarity
    }
}

/// A crude, deterministic normalisation so "records" matches "record" and "retained"
/// matches "retain": lower case, then a plural or past-tense ending is dropped.
fn norm(w: &str) -> String {
    for suffix in ["ies", "es", "ed", "s"] {
        if w.len() > suffix.len() + 3 && w.ends_with(suffix) {
            return w[..w.len() - suffix.len()].to_string();
        }
    }
    w.to_string()
}

/// Content words of `text`: no stop words, normalised.
pub fn content_words(text: &str) -> Vec<String> {
    words(text)
        .into_iter()
        .filter(|w| !is_stopword(w))
        .map(|w| norm(&w))
        .collect()
}

/// Share of `claim`'s distinct content words that occur in `sources`.
pub fn coverage(claim: &str, sources: &[&str]) -> f64 {
    let claim: HashSet<String> = content_words(claim).into_iter().collect();
    if claim.is_empty() {
        return 1.0;
    }
    let have: HashSet<String> = sources.iter().flat_map(|s| content_words(s)).collect();
    claim.iter().filter(|w| have.contains(*w)).count() as f64 / claim.len() as f64
}

/// The texts whose embeddings the similarity signal compares a claim with: every
/// sentence of every source.
pub fn source_sentences<'a>(sources: &[&'a str]) -> Vec<&'a str> {
    sources
        .iter()
        .flat_map(|s| sentences(s).into_iter().map(move |sp| sp.slice(s)))
        .collect()
}

/// Both signals for `claim` against `sources`.
pub fn features(
    embedder: &dyn Embed,
    claim: &str,
    sources: &[&str],
) -> Result<SupportFeatures, ModelError> {
    let sents = source_sentences(sources);
    let mut texts = vec![claim];
    texts.extend(&sents);
    let v = embedder.embed(&texts)?;
    Ok(features_from(&v[0], &v[1..], claim, sources))
}

/// Both signals from precomputed embeddings (`claim_vec`, and one vector per source
/// sentence as [`source_sentences`] lists them).
pub fn features_from(
    claim_vec: &[f32],
    sentence_vecs: &[Vec<f32>],
    claim: &str,
    sources: &[&str],
) -> SupportFeatures {
    let similarity = sentence_vecs
        .iter()
        .map(|s| dot(claim_vec, s) as f64)
        .fold(0.0, f64::max);
    SupportFeatures {
        coverage: coverage(claim, sources),
        similarity,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::HashEmbedder;

    #[test]
    fn coverage_counts_distinct_content_words_with_light_normalisation() {
        let src = ["Counties must retain client records for seven years."];
        assert_eq!(
            coverage("Client records are retained seven years", &src),
            1.0
        );
        let c = coverage("Client records are destroyed after ten years", &src);
        assert!((c - 3.0 / 5.0).abs() < 1e-12, "{c}");
        assert_eq!(coverage("the of and", &src), 1.0);
    }

    #[test]
    fn supported_needs_both_signals() {
        let e = HashEmbedder::new(256);
        let src = [
            "Counties must retain client records for seven years.",
            "Crisis calls need follow-up.",
        ];
        let yes = features(&e, "Counties retain client records for seven years.", &src).unwrap();
        let no = features(&e, "Housing payments go to landlords monthly.", &src).unwrap();
        let cfg = SupportConfig::default();
        assert!(yes.supported(&cfg), "{yes:?}");
        assert!(!no.supported(&cfg), "{no:?}");
        assert!(yes.similarity > no.similarity);
    }
}
