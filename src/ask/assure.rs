//! How sure an answer is: the signals a finished answer carries (how its question's frame
//! was met, the lead item's relevance, how much of the question its quotes word, the
//! retrieval, whether its sources differ) and a logistic model over them that gives the
//! probability that the answer is right. The weights are fitted by
//! `scripts/fit_assurance.py` on development question sets and kept in `assurance.toml`.
//! The probability is reported with every answer (`assurance.probability`); when the
//! file holds `[levels]`, an answer the frame rules rate `high` stays `high` only when
//! its probability reaches the bound chosen on the validation split (see
//! `docs/fitting.md`).

use std::sync::LazyLock;

use serde::Deserialize;

pub use crate::answer::{Signals, ValueCheck};

/// Inputs of the model ([`Signals::features`]).
pub const FEATURES: usize = 9;

/// The fitted model: weights over [`Signals::features`] and a bias, and the bounds on
/// its probability that cut the confidence levels when they are fitted.
#[derive(Debug, Clone, Deserialize)]
pub struct Model {
    /// One weight per feature.
    pub weights: Vec<f64>,
    /// The bias.
    pub bias: f64,
    /// The bounds of the levels, chosen on the validation split; `None`: the levels are
    /// the rule-based ones.
    #[serde(default)]
    pub levels: Option<Levels>,
}

/// Where the fitted probability bounds the confidence levels.
#[derive(Debug, Clone, Copy, Deserialize)]
pub struct Levels {
    /// The least probability of a `high` answer: on the validation answers, those at or
    /// above it that may be high were right nine times in ten (above 1: no bound did).
    pub high_from: f64,
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
        logistic(self.bias, &self.weights, &s.features())
    }

    /// The confidence level of an answer with these signals whose frame rules give it
    /// `rule`: `high` only when the fitted probability reaches the validated bound as
    /// well (and never for an answer that states no value, takes more than one step, or
    /// whose sources differ); the other levels as the rules give them. With no fitted
    /// levels, `rule` stands.
    pub fn level(&self, s: &Signals, rule: crate::answer::Confidence) -> crate::answer::Confidence {
        use crate::answer::Confidence;
        let Some(l) = self.levels else {
            return rule;
        };
        let may_be_high = s.value && s.one_step && !s.differ;
        match rule {
            Confidence::High if !may_be_high || self.probability(s) < l.high_from => {
                Confidence::Medium
            }
            other => other,
        }
    }
}

/// Inputs of the value model ([`ValueCheck::features`]).
pub const VALUE_FEATURES: usize = 10;

/// The fitted value model: the probability that a value read for a question is the value
/// asked for, and the bound below which the answer does not name it.
#[derive(Debug, Clone, Deserialize)]
pub struct ValueModel {
    /// One weight per feature.
    pub weights: Vec<f64>,
    /// The bias.
    pub bias: f64,
    /// The least probability at which a value is named.
    pub bound: f64,
    /// The least probability at which a one-step value question whose value is not named
    /// is still answered, its quotes cited without a value (at most `bound`).
    pub answer_from: f64,
}

static VALUE_MODEL: LazyLock<ValueModel> = LazyLock::new(|| {
    let m: ValueModel = toml::from_str(include_str!("value.toml")).expect("value.toml");
    assert_eq!(
        m.weights.len(),
        VALUE_FEATURES,
        "value.toml: one weight per feature"
    );
    assert!(
        m.answer_from <= m.bound,
        "value.toml: answer_from above bound"
    );
    m
});

/// The compiled-in value model.
pub fn value_model() -> &'static ValueModel {
    &VALUE_MODEL
}

impl ValueModel {
    /// The probability that the checked value is the one asked for.
    pub fn probability(&self, c: &ValueCheck) -> f64 {
        logistic(self.bias, &self.weights, &c.features())
    }
}

/// Check the value `answer` names for a question of type `ty` (see [`ValueCheck`]);
/// `None` when it names none.
pub fn check(
    answer: &crate::answer::Answer,
    ty: crate::frame::AnswerType,
    one_step: bool,
    bound: f64,
) -> Option<ValueCheck> {
    use crate::frame::AnswerType as T;
    let v = answer.answer_value.as_ref()?;
    let pos = answer.evidence.iter().position(|e| e.id == v.evidence_id)?;
    let read: Vec<std::collections::HashSet<String>> = answer
        .evidence
        .iter()
        .map(|e| {
            crate::value::typed::find(&e.quote, ty, None)
                .into_iter()
                .map(|f| f.normalised)
                .collect()
        })
        .collect();
    let rivals: std::collections::HashSet<&String> = read
        .iter()
        .flatten()
        .filter(|n| **n != v.normalised)
        .collect();
    let mut c = ValueCheck {
        value: v.clone(),
        given: true,
        name: matches!(v.ty, T::Person | T::Organisation | T::Location),
        precise: matches!(
            v.ty,
            T::Date | T::Period | T::Duration | T::Time | T::Percentage | T::Phone | T::Email
        ),
        money: v.ty == T::Money,
        relevance: answer.evidence[pos].score,
        first: pos == 0,
        agree: read.iter().filter(|r| r.contains(&v.normalised)).count(),
        rivals: rivals.len(),
        coverage: coverage(&answer.question, &[answer.evidence[pos].quote.as_str()]),
        cell: v.cell.is_some(),
        one_step,
        probability: 0.0,
    };
    c.probability = value_model().probability(&c);
    c.given = c.probability >= bound;
    Some(c)
}

fn logistic(bias: f64, weights: &[f64], x: &[f64]) -> f64 {
    let z: f64 = bias + weights.iter().zip(x).map(|(w, x)| w * x).sum::<f64>();
    1.0 / (1.0 + (-z).exp())
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
    #[test]
    fn the_default_value_bound_is_the_fitted_one() {
        let cfg = crate::config::Config::default();
        assert_eq!(cfg.min_value_probability, value_model().bound);
        assert_eq!(cfg.min_value_answer_probability, value_model().answer_from);
    }

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
            value_check: None,
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
    fn a_fitted_bound_keeps_high_for_probable_valued_answers_only() {
        use crate::answer::Confidence::{High, Low, Medium};
        let m = |high_from: f64| Model {
            levels: Some(Levels { high_from }),
            ..model().clone()
        };
        let sure = signals(true, 0.95);
        let p = m(0.0).probability(&sure);
        assert_eq!(m(p).level(&sure, High), High);
        assert_eq!(m(p + 0.01).level(&sure, High), Medium);
        assert_eq!(m(0.0).level(&signals(false, 0.95), High), Medium);
        let differ = Signals {
            differ: true,
            ..signals(true, 0.95)
        };
        assert_eq!(m(0.0).level(&differ, High), Medium);
        assert_eq!(m(p).level(&sure, Low), Low);
        let none = Model {
            levels: None,
            ..model().clone()
        };
        assert_eq!(none.level(&signals(false, 0.1), High), High);
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
