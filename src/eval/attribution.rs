//! `attest eval attribution`: the support check ([`crate::evidence::support`]) on
//! AttributionBench-style rows (`claim`, `references[]`, `attribution_label`
//! `attributable` / `not attributable`): accuracy and macro-F1 at the configured
//! thresholds, and the thresholds that maximise macro-F1 on the file (its calibration).

use std::path::Path;

use serde::Serialize;

use crate::config::Config;
use crate::error::Error;
use crate::evidence::support::{features_from, source_sentences, SupportConfig, SupportFeatures};
use crate::models::Embed;

/// Calibration grid of `min_coverage`: 0 to 1 in steps of [`COVERAGE_STEP`].
const COVERAGE_STEPS: usize = 20;
/// Step of the `min_coverage` grid.
const COVERAGE_STEP: f64 = 0.05;
/// Calibration grid of `min_similarity`: 0 to 1 in steps of [`SIMILARITY_STEP`].
const SIMILARITY_STEPS: usize = 50;
/// Step of the `min_similarity` grid.
const SIMILARITY_STEP: f64 = 0.02;
/// A grid point replaces the best so far only when its macro-F1 is higher by more than
/// rounding noise, so ties keep the earlier (lower) thresholds.
const F1_EPSILON: f64 = 1e-12;

/// `attest eval attribution`: read the rows of `dataset` (at most `limit`) and evaluate
/// the support check with the bi-encoder of `cfg` at the default thresholds.
pub fn run(cfg: &Config, dataset: &Path, limit: Option<usize>) -> Result<AttributionReport, Error> {
    let mut rows = read_rows(dataset)?;
    super::truncate(&mut rows, limit);
    let model = crate::validate::support_model(cfg)?;
    evaluate(
        &model,
        &rows,
        &SupportConfig::default(),
        &dataset.display().to_string(),
    )
}

/// One labelled claim.
#[derive(Debug, Clone)]
pub struct Row {
    /// The claim.
    pub claim: String,
    /// Its evidence passages.
    pub references: Vec<String>,
    /// Gold label: attributable.
    pub attributable: bool,
}

/// Read an AttributionBench jsonl file.
pub fn read_rows(path: &Path) -> Result<Vec<Row>, Error> {
    let bad = |msg: String| Error::Usage(format!("{}: {msg}", path.display()));
    let text = std::fs::read_to_string(path).map_err(|e| bad(e.to_string()))?;
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v: serde_json::Value =
            serde_json::from_str(line).map_err(|e| bad(format!("line {}: {e}", i + 1)))?;
        let claim = v["claim"].as_str();
        let refs = v["references"].as_array();
        let label = v["attribution_label"].as_str();
        let (Some(claim), Some(refs), Some(label)) = (claim, refs, label) else {
            return Err(bad(format!(
                "line {}: expected claim, references[] and attribution_label",
                i + 1
            )));
        };
        let attributable = match label {
            "attributable" => true,
            "not attributable" => false,
            other => return Err(bad(format!("line {}: unknown label {other:?}", i + 1))),
        };
        rows.push(Row {
            claim: claim.to_string(),
            references: refs
                .iter()
                .filter_map(|r| r.as_str().map(str::to_string))
                .collect(),
            attributable,
        });
    }
    if rows.is_empty() {
        return Err(bad("no rows".into()));
    }
    Ok(rows)
}

/// Accuracy and macro-F1 of predictions against gold labels.
pub fn accuracy_macro_f1(pred: &[bool], gold: &[bool]) -> (f64, f64) {
    let n = gold.len().max(1) as f64;
    let acc = pred.iter().zip(gold).filter(|(p, g)| p == g).count() as f64 / n;
    let f1 = |positive: bool| {
        let tp = pred
            .iter()
            .zip(gold)
            .filter(|(p, g)| **p == positive && **g == positive)
            .count() as f64;
        let fp = pred
            .iter()
            .zip(gold)
            .filter(|(p, g)| **p == positive && **g != positive)
            .count() as f64;
        let fn_ = pred
            .iter()
            .zip(gold)
            .filter(|(p, g)| **p != positive && **g == positive)
            .count() as f64;
        if tp == 0.0 {
            0.0
        } else {
            2.0 * tp / (2.0 * tp + fp + fn_)
        }
    };
    (acc, (f1(true) + f1(false)) / 2.0)
}

/// The `attest eval attribution` report.
#[derive(Debug, Clone, Serialize)]
pub struct AttributionReport {
    /// Dataset file.
    pub dataset: String,
    /// Rows evaluated.
    pub questions: usize,
    /// Metrics at the thresholds in force.
    pub metrics: AttributionMetrics,
    /// The thresholds in force.
    pub thresholds: SupportConfig,
    /// The grid point with the best macro-F1 on this file, and its metrics.
    pub calibrated: (SupportConfig, AttributionMetrics),
}

/// Accuracy and macro-F1.
#[derive(Debug, Clone, Serialize)]
pub struct AttributionMetrics {
    /// Share of rows labelled correctly.
    pub accuracy: f64,
    /// Mean F1 of the two classes.
    pub macro_f1: f64,
}

/// Score every row and report at `cfg`, plus the calibrated grid optimum.
pub fn evaluate(
    embedder: &dyn Embed,
    rows: &[Row],
    cfg: &SupportConfig,
    dataset: &str,
) -> Result<AttributionReport, Error> {
    let mut feats: Vec<SupportFeatures> = Vec::with_capacity(rows.len());
    for r in rows {
        let refs: Vec<&str> = r.references.iter().map(String::as_str).collect();
        let sents = source_sentences(&refs);
        let mut texts = vec![r.claim.as_str()];
        texts.extend(&sents);
        let v = embedder.embed(&texts)?;
        feats.push(features_from(&v[0], &v[1..], &r.claim, &refs));
    }
    let gold: Vec<bool> = rows.iter().map(|r| r.attributable).collect();
    let at = |c: &SupportConfig| {
        let pred: Vec<bool> = feats.iter().map(|f| f.supported(c)).collect();
        let (accuracy, macro_f1) = accuracy_macro_f1(&pred, &gold);
        AttributionMetrics { accuracy, macro_f1 }
    };
    let mut best = (*cfg, at(cfg));
    for ci in 0..=COVERAGE_STEPS {
        for si in 0..=SIMILARITY_STEPS {
            let c = SupportConfig {
                min_coverage: ci as f64 * COVERAGE_STEP,
                min_similarity: si as f64 * SIMILARITY_STEP,
            };
            let m = at(&c);
            if m.macro_f1 > best.1.macro_f1 + F1_EPSILON {
                best = (c, m);
            }
        }
    }
    Ok(AttributionReport {
        dataset: dataset.to_string(),
        questions: rows.len(),
        metrics: at(cfg),
        thresholds: *cfg,
        calibrated: best,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accuracy_and_macro_f1_by_hand() {
        let gold = [true, true, false, false];
        let pred = [true, false, false, false];
        let (acc, f1) = accuracy_macro_f1(&pred, &gold);
        assert_eq!(acc, 0.75);
        // positive F1 = 2/(2+0+1) = 2/3; negative F1 = 4/(4+1+0) = 4/5.
        assert!((f1 - (2.0 / 3.0 + 0.8) / 2.0).abs() < 1e-12);
    }

    #[test]
    fn rows_are_read_with_clear_errors() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("a.jsonl");
        std::fs::write(&p, "{\"claim\": \"c\", \"references\": [\"r\"], \"attribution_label\": \"attributable\"}\n").unwrap();
        assert!(read_rows(&p).unwrap()[0].attributable);
        std::fs::write(&p, "{\"claim\": \"c\"}\n").unwrap();
        assert!(read_rows(&p).unwrap_err().to_string().contains("line 1"));
        std::fs::write(
            &p,
            "{\"claim\": \"c\", \"references\": [], \"attribution_label\": \"maybe\"}\n",
        )
        .unwrap();
        assert!(read_rows(&p)
            .unwrap_err()
            .to_string()
            .contains("unknown label"));
    }
}
