//! Ranking metrics over document ids, as in BEIR / pytrec_eval: nDCG@k with linear gain,
//! Recall@k, MRR@k, and whether all judged-relevant documents are in the top k.

use std::collections::HashMap;

/// Relevance judgments of one query: document id → graded relevance (> 0 is relevant).
pub type Judgments = HashMap<String, u32>;

/// nDCG@k: `sum_{i<k} rel_i / log2(i + 2)` over the ranking, divided by the same sum
/// over the ideal ordering of the judgments. 0 when nothing is judged relevant.
pub fn ndcg_at_k(ranked: &[String], qrels: &Judgments, k: usize) -> f64 {
    let dcg: f64 = ranked
        .iter()
        .take(k)
        .enumerate()
        .map(|(i, d)| *qrels.get(d).unwrap_or(&0) as f64 / ((i + 2) as f64).log2())
        .sum();
    let mut ideal: Vec<u32> = qrels.values().copied().filter(|r| *r > 0).collect();
    ideal.sort_unstable_by(|a, b| b.cmp(a));
    let idcg: f64 = ideal
        .iter()
        .take(k)
        .enumerate()
        .map(|(i, r)| *r as f64 / ((i + 2) as f64).log2())
        .sum();
    if idcg == 0.0 {
        0.0
    } else {
        dcg / idcg
    }
}

/// Share of the relevant documents found in the top k (0 when none is relevant).
pub fn recall_at_k(ranked: &[String], qrels: &Judgments, k: usize) -> f64 {
    let relevant = qrels.values().filter(|r| **r > 0).count();
    if relevant == 0 {
        return 0.0;
    }
    let found = ranked
        .iter()
        .take(k)
        .filter(|d| qrels.get(*d).is_some_and(|r| *r > 0))
        .count();
    found as f64 / relevant as f64
}

/// Reciprocal rank of the first relevant document in the top k (0 when none).
pub fn mrr_at_k(ranked: &[String], qrels: &Judgments, k: usize) -> f64 {
    ranked
        .iter()
        .take(k)
        .position(|d| qrels.get(d).is_some_and(|r| *r > 0))
        .map(|i| 1.0 / (i + 1) as f64)
        .unwrap_or(0.0)
}

/// Whether every relevant document is in the top k (e.g. both gold paragraphs of a
/// multi-hop question).
pub fn all_found_at_k(ranked: &[String], qrels: &Judgments, k: usize) -> bool {
    let relevant = qrels.values().filter(|r| **r > 0).count();
    relevant > 0 && recall_at_k(ranked, qrels, k) >= 1.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn judged(v: &[(&str, u32)]) -> Judgments {
        v.iter().map(|(d, r)| (d.to_string(), *r)).collect()
    }

    #[test]
    fn ndcg_by_hand() {
        // One relevant doc at rank 2: DCG = 1/log2(3), IDCG = 1/log2(2) = 1.
        let q = judged(&[("a", 1)]);
        let n = ndcg_at_k(&ids(&["x", "a", "y"]), &q, 10);
        assert!((n - 1.0 / 3f64.log2()).abs() < 1e-12);
        // Two relevant docs at ranks 1 and 3: (1 + 1/2) / (1 + 1/log2(3)).
        let q = judged(&[("a", 1), ("b", 1)]);
        let n = ndcg_at_k(&ids(&["a", "x", "b"]), &q, 10);
        assert!((n - 1.5 / (1.0 + 1.0 / 3f64.log2())).abs() < 1e-12);
        // Graded: relevance 2 at rank 2, 1 at rank 1; ideal puts 2 first.
        let q = judged(&[("a", 1), ("b", 2)]);
        let n = ndcg_at_k(&ids(&["a", "b"]), &q, 10);
        let want = (1.0 + 2.0 / 3f64.log2()) / (2.0 + 1.0 / 3f64.log2());
        assert!((n - want).abs() < 1e-12);
        // Cut-off: relevant at rank 3 with k = 2 scores 0.
        assert_eq!(
            ndcg_at_k(&ids(&["x", "y", "a"]), &judged(&[("a", 1)]), 2),
            0.0
        );
        assert_eq!(ndcg_at_k(&ids(&["a"]), &judged(&[]), 10), 0.0);
    }

    #[test]
    fn recall_mrr_and_all_found_by_hand() {
        let q = judged(&[("a", 1), ("b", 1), ("c", 0)]);
        let r = ids(&["c", "a", "x", "b"]);
        assert_eq!(recall_at_k(&r, &q, 2), 0.5);
        assert_eq!(recall_at_k(&r, &q, 4), 1.0);
        assert_eq!(mrr_at_k(&r, &q, 10), 0.5);
        assert_eq!(mrr_at_k(&r, &q, 1), 0.0);
        assert!(!all_found_at_k(&r, &q, 3));
        assert!(all_found_at_k(&r, &q, 4));
    }
}

/// Answers given at one confidence level and how many of them were right.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct LevelFigures {
    /// Answers given at this level.
    pub answered: usize,
    /// Of those, answers judged right.
    pub right: usize,
    /// `right / answered` (0 when none).
    pub share: f64,
}

/// A reliability table: per confidence level (`high`, `medium`, `low`), the answers
/// given and the share judged right. Abstentions (`insufficient`) are not answers and
/// are left out.
pub fn reliability(
    outcomes: impl IntoIterator<Item = (crate::answer::Confidence, bool)>,
) -> std::collections::BTreeMap<String, LevelFigures> {
    use crate::answer::Confidence;
    let mut table = std::collections::BTreeMap::new();
    for (level, right) in outcomes {
        if level == Confidence::Insufficient {
            continue;
        }
        let f: &mut LevelFigures = table.entry(level.as_str().to_string()).or_default();
        f.answered += 1;
        f.right += usize::from(right);
    }
    for f in table.values_mut() {
        f.share = f.right as f64 / f.answered.max(1) as f64;
    }
    table
}

/// The reliability table on one line: `high 12/13 (0.923)  medium …`.
pub fn reliability_line(table: &std::collections::BTreeMap<String, LevelFigures>) -> String {
    ["high", "medium", "low"]
        .iter()
        .filter_map(|l| {
            table
                .get(*l)
                .map(|f| format!("{l} {}/{} ({:.3})", f.right, f.answered, f.share))
        })
        .collect::<Vec<_>>()
        .join("  ")
}

#[cfg(test)]
mod reliability_tests {
    use super::*;
    use crate::answer::Confidence;

    #[test]
    fn reliability_counts_answers_per_level_and_leaves_out_abstentions() {
        let t = reliability([
            (Confidence::High, true),
            (Confidence::High, false),
            (Confidence::Low, true),
            (Confidence::Insufficient, false),
        ]);
        assert_eq!(t["high"].answered, 2);
        assert_eq!(t["high"].share, 0.5);
        assert_eq!(t["low"].right, 1);
        assert!(!t.contains_key("insufficient"));
        assert_eq!(reliability_line(&t), "high 1/2 (0.500)  low 1/1 (1.000)");
    }
}
