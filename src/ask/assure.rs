//! How sure an answer is: the signals a finished answer carries (how its question's frame
//! was met, the lead item's relevance, how much of the question its quotes word, the
//! retrieval, whether its sources differ) and a logistic model over them that gives the
//! probability that the answer is right. The weights are fitted by
//! `scripts/fit_assurance.py` on development question sets and kept in `assurance.toml`.
//! The probability is reported with every answer (`assurance.probability`); confidence
//! levels and abstention are not read from it yet: on the validation questions no bound
//! on it separates answers that are right nine times in ten (see `docs/fitting.md`).

use std::sync::LazyLock;

use serde::Deserialize;

pub use crate::answer::Signals;

/// Inputs of the model ([`Signals::features`]).
pub const FEATURES: usize = 9;

/// The fitted model: weights over [`Signals::features`] and a bias.
#[derive(Debug, Clone, Deserialize)]
pub struct Model {
    /// One weight per feature.
    pub weights: Vec<f64>,
    /// The bias.
    pub bias: f64,
}

static MODEL: LazyLock<Model> = LazyLock::new(|| {
    let m: Model = toml::from_str(include_str!("assurance.toml")).expect("assurance.toml");
    assert_eq!(
        m.weights.len(),
        FEATURES,
        "assurance.toml: one weight per feature"
    );
    m
});

/// The compiled-in model.
pub fn model() -> &'static Model {
    &MODEL
}

impl Model {
    /// The probability that an answer with these signals is right.
    pub fn probability(&self, s: &Signals) -> f64 {
        let z: f64 = self.bias
            + self
                .weights
                .iter()
                .zip(s.features())
                .map(|(w, x)| w * x)
                .sum::<f64>();
        1.0 / (1.0 + (-z).exp())
    }
}

/// Share of `question`'s content words that `quotes` hold (1 when it has none).
pub fn coverage(question: &str, quotes: &[&str]) -> f64 {
    let want = crate::text::content_words(question);
    if want.is_empty() {
        return 1.0;
    }
    let have: std::collections::HashSet<String> = quotes
        .iter()
        .flat_map(|q| crate::text::content_words(q))
        .collect();
    want.iter().filter(|w| have.contains(*w)).count() as f64 / want.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signals(value: bool, relevance: f64) -> Signals {
        Signals {
            value,
            no_value: !value,
            precise: value,
            one_step: true,
            statements: 2,
            retrieval: 0.5,
            lead_relevance: relevance,
            coverage: 0.5,
            differ: false,
            probability: 0.0,
        }
    }

    #[test]
    fn the_model_loads_with_one_finite_weight_per_feature() {
        let m = model();
        assert_eq!(m.weights.len(), FEATURES);
        assert!(m.weights.iter().all(|w| w.is_finite()) && m.bias.is_finite());
    }

    #[test]
    fn a_relevant_precise_value_is_surer_than_an_unvalued_stray_passage() {
        let m = model();
        let sure = m.probability(&signals(true, 0.9));
        let unsure = m.probability(&signals(false, 0.1));
        assert!(
            sure > unsure && (0.0..=1.0).contains(&sure),
            "{sure} <= {unsure}"
        );
    }

    #[test]
    fn coverage_counts_the_question_words_the_quotes_hold() {
        let c = coverage(
            "When does the licence expire?",
            &["The licence expires in May."],
        );
        assert!(c > 0.0 && c <= 1.0);
        assert_eq!(coverage("", &["anything"]), 1.0);
        assert_eq!(coverage("licence", &["no match here"]), 0.0);
    }
}
