//! The fitted relevance model: whether a candidate addresses the question, as a logistic
//! regression over the signals the verifier computes (see [`Features`]).
//!
//! The weights and the threshold are data, in `relevance.toml` beside this file, written by
//! `scripts/fit_relevance.py` from public question sets (see `docs/fitting.md`): no weight
//! or threshold is chosen by hand or from one document. The model reads absolute signals
//! (how close the quote and its chunk are to the question, how many of the question's
//! words it holds) and relative ones (how far the candidate stands below the best
//! candidate of the same question), so that a passage which is plainly the best answer in
//! a document written in another register than the question still counts, while a
//! question no passage is near is still turned away.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

/// The model's inputs for one candidate.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Features {
    /// Bi-encoder cosine between question and quote (read with its heading when short).
    pub cosine: f64,
    /// Share of the question's content words the quote holds (1 when it states the very
    /// identifier, row or kind of value asked for).
    pub coverage: f64,
    /// Cosine between question and the chunk the quote came from (or its label).
    pub context_cosine: f64,
    /// `cosine` minus the best cosine among the question's scored candidates (≤ 0).
    pub cosine_gap: f64,
    /// `context_cosine` minus the best among the question's scored candidates (≤ 0).
    pub context_gap: f64,
    /// Reciprocal rank of the chunk in its retrieval (1, 1/2, 1/3, …).
    pub chunk_rank: f64,
    /// Natural logarithm of the quote's words.
    pub words: f64,
    /// 1 when the quote states a value of the type the question asks for, else 0.
    pub type_match: f64,
}

/// The feature names, in the order of [`Features::values`] (the weight file's keys).
pub const FEATURE_NAMES: [&str; 8] = [
    "cosine",
    "coverage",
    "context_cosine",
    "cosine_gap",
    "context_gap",
    "chunk_rank",
    "words",
    "type_match",
];

impl Features {
    /// The values, in [`FEATURE_NAMES`] order.
    pub fn values(&self) -> [f64; 8] {
        [
            self.cosine,
            self.coverage,
            self.context_cosine,
            self.cosine_gap,
            self.context_gap,
            self.chunk_rank,
            self.words,
            self.type_match,
        ]
    }
}

/// The weight file as written by the fitting script.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ModelFile {
    threshold: f64,
    bias: f64,
    weights: BTreeMap<String, f64>,
    #[serde(default)]
    #[allow(dead_code)]
    fitted_on: BTreeMap<String, toml::Value>,
}

/// A logistic relevance model and the probability from which a candidate passes.
#[derive(Debug, Clone, PartialEq)]
pub struct RelevanceModel {
    bias: f64,
    weights: [f64; 8],
    /// Minimum probability of relevance, chosen on the validation split.
    pub threshold: f64,
}

impl RelevanceModel {
    /// Parse a weight file: every feature weighted exactly once, all numbers finite.
    pub fn parse(text: &str) -> Result<Self, String> {
        let file: ModelFile = toml::from_str(text).map_err(|e| e.to_string())?;
        let mut weights = [0.0; 8];
        for (name, w) in &file.weights {
            let i = FEATURE_NAMES
                .iter()
                .position(|n| n == name)
                .ok_or_else(|| format!("unknown feature {name:?}"))?;
            weights[i] = *w;
        }
        if file.weights.len() != FEATURE_NAMES.len() {
            return Err(format!(
                "{} weights for {} features",
                file.weights.len(),
                FEATURE_NAMES.len()
            ));
        }
        let finite = weights.iter().chain([&file.bias, &file.threshold]);
        if !finite.into_iter().all(|x| x.is_finite()) {
            return Err("a weight, the bias or the threshold is not finite".into());
        }
        Ok(RelevanceModel {
            bias: file.bias,
            weights,
            threshold: file.threshold,
        })
    }

    /// The probability that a candidate with `f` addresses the question.
    pub fn probability(&self, f: &Features) -> f64 {
        let z: f64 = self.bias
            + self
                .weights
                .iter()
                .zip(f.values())
                .map(|(w, x)| w * x)
                .sum::<f64>();
        1.0 / (1.0 + (-z).exp())
    }
}

/// The model the engine ships (`relevance.toml`, compiled in).
pub fn model() -> &'static RelevanceModel {
    static MODEL: OnceLock<RelevanceModel> = OnceLock::new();
    MODEL.get_or_init(|| {
        RelevanceModel::parse(include_str!("relevance.toml"))
            .unwrap_or_else(|e| panic!("src/evidence/relevance.toml: {e}"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_weights_parse_and_order_candidates_by_their_signals() {
        let m = model();
        assert!(m.threshold > 0.0 && m.threshold < 1.0, "{}", m.threshold);
        let near = Features {
            cosine: 0.7,
            coverage: 1.0,
            context_cosine: 0.6,
            chunk_rank: 1.0,
            words: 3.0,
            ..Features::default()
        };
        let far = Features {
            cosine: 0.1,
            coverage: 0.0,
            context_cosine: 0.1,
            cosine_gap: -0.6,
            context_gap: -0.5,
            chunk_rank: 0.2,
            words: 3.0,
            type_match: 0.0,
        };
        assert!(m.probability(&near) >= m.threshold);
        assert!(m.probability(&far) < m.threshold);
    }

    #[test]
    fn the_default_minimum_relevance_is_the_fitted_threshold() {
        let cfg = crate::config::Config::default();
        assert_eq!(cfg.min_relevance, model().threshold);
        assert_eq!(
            super::super::verify::RelevanceConfig::default().min_relevance,
            model().threshold
        );
    }

    #[test]
    fn a_weight_file_missing_a_feature_or_with_a_nan_is_refused() {
        let all = FEATURE_NAMES
            .iter()
            .map(|n| format!("{n} = 1.0"))
            .collect::<Vec<_>>()
            .join("\n");
        let ok = format!("threshold = 0.5\nbias = 0.0\n[weights]\n{all}\n");
        assert!(RelevanceModel::parse(&ok).is_ok());
        let missing = ok.replace("words = 1.0\n", "");
        assert!(RelevanceModel::parse(&missing)
            .unwrap_err()
            .contains("7 weights"));
        let unknown = ok.replace("words = 1.0", "word = 1.0");
        assert!(RelevanceModel::parse(&unknown)
            .unwrap_err()
            .contains("unknown feature"));
        let nan = ok.replace("bias = 0.0", "bias = nan");
        assert!(RelevanceModel::parse(&nan)
            .unwrap_err()
            .contains("not finite"));
    }
}
