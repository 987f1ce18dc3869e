//! Cross-encoder reranking: Hugging Face `BertForSequenceClassification` on candle
//! (BERT encoder, pooler `tanh(W h_[CLS] + b)`, linear classifier), scoring
//! (query, passage) pairs encoded together with token type ids.
//!
//! Any such directory (`config.json`, `model.safetensors`, `tokenizer.json`) works, e.g.
//! ms-marco-MiniLM-L-6-v2 placed under `models/`; none ships with attest. The score of a
//! pair is its logit (one label), or `logit[1] - logit[0]` for two-label models.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use tokenizers::{EncodeInput, Tokenizer};

use super::bert::{BertConfig, BertEncoder, WeightFile};
use super::{dot, load_tokenizer, ModelError};

/// Scores (query, passage) pairs; higher means more relevant.
pub trait Rerank: Send + Sync {
    /// Model identifier (directory name).
    fn model_id(&self) -> &str;
    /// One score per passage, in input order.
    fn score(&self, query: &str, passages: &[&str]) -> Result<Vec<f32>, ModelError>;
}

#[derive(Deserialize)]
struct Head {
    #[serde(default)]
    architectures: Vec<String>,
    #[serde(default)]
    id2label: Option<serde_json::Map<String, serde_json::Value>>,
    #[serde(default)]
    num_labels: Option<usize>,
}

/// Whether `dir` holds a `BertForSequenceClassification` model.
pub fn is_cross_encoder(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join("config.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<Head>(&t).ok())
        .is_some_and(|h| {
            h.architectures
                .iter()
                .any(|a| a == "BertForSequenceClassification")
        })
}

/// The first cross-encoder directory under `models/` (working directory, then the source
/// tree), in name order.
pub fn find_cross_encoder() -> Option<PathBuf> {
    let roots = [
        PathBuf::from("models"),
        Path::new(env!("CARGO_MANIFEST_DIR")).join("models"),
    ];
    for root in roots {
        let Ok(rd) = std::fs::read_dir(&root) else {
            continue;
        };
        let mut dirs: Vec<PathBuf> = rd
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        dirs.sort();
        if let Some(d) = dirs.into_iter().find(|d| is_cross_encoder(d)) {
            return Some(d);
        }
    }
    None
}

/// A BERT cross-encoder.
pub struct CrossEncoder {
    encoder: BertEncoder,
    pooler_w: Vec<f32>, // (hidden, hidden), row = output unit
    pooler_b: Vec<f32>,
    cls_w: Vec<f32>, // (labels, hidden)
    cls_b: Vec<f32>,
    labels: usize,
    tokenizer: Tokenizer,
    tokenizer_path: PathBuf,
    id: String,
    /// Pairs per forward pass.
    pub batch: usize,
}

impl CrossEncoder {
    /// Load from a `BertForSequenceClassification` directory.
    pub fn load(dir: &Path) -> Result<Self, ModelError> {
        let cfg_path = dir.join("config.json");
        let cfg = BertConfig::from_file(&cfg_path)?;
        let head: Head =
            serde_json::from_str(&std::fs::read_to_string(&cfg_path).map_err(|source| {
                ModelError::Io {
                    path: cfg_path.clone(),
                    source,
                }
            })?)
            .map_err(|e| ModelError::Config {
                path: cfg_path.clone(),
                reason: e.to_string(),
            })?;
        let labels = head
            .num_labels
            .or_else(|| head.id2label.as_ref().map(|m| m.len()))
            .unwrap_or(1)
            .max(1);
        if labels > 2 {
            return Err(ModelError::Config {
                path: cfg_path,
                reason: format!("{labels} labels; a reranker needs 1 or 2"),
            });
        }
        let wf = WeightFile::open(&dir.join("model.safetensors"), "bert.")?;
        let h = cfg.hidden_size;
        let max_len = cfg.max_position_embeddings.min(512);
        let encoder = BertEncoder::from_weights(cfg, &wf)?;
        let tokenizer_path = dir.join("tokenizer.json");
        Ok(CrossEncoder {
            pooler_w: wf.vec("pooler.dense.weight", &[h, h])?,
            pooler_b: wf.vec("pooler.dense.bias", &[h])?,
            cls_w: wf.vec("classifier.weight", &[labels, h])?,
            cls_b: wf.vec("classifier.bias", &[labels])?,
            labels,
            tokenizer: load_tokenizer(&tokenizer_path, max_len)?,
            tokenizer_path,
            encoder,
            id: dir
                .file_name()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
            batch: 32,
        })
    }

    fn head(&self, cls: &[f32]) -> f32 {
        let h = cls.len();
        let pooled: Vec<f32> = (0..h)
            .map(|o| (dot(&self.pooler_w[o * h..(o + 1) * h], cls) + self.pooler_b[o]).tanh())
            .collect();
        let logit = |l: usize| dot(&self.cls_w[l * h..(l + 1) * h], &pooled) + self.cls_b[l];
        if self.labels == 1 {
            logit(0)
        } else {
            logit(1) - logit(0)
        }
    }
}

impl Rerank for CrossEncoder {
    fn model_id(&self) -> &str {
        &self.id
    }

    fn score(&self, query: &str, passages: &[&str]) -> Result<Vec<f32>, ModelError> {
        let mut out = Vec::with_capacity(passages.len());
        for group in passages.chunks(self.batch.max(1)) {
            let inputs: Vec<EncodeInput> = group.iter().map(|p| (query, *p).into()).collect();
            let enc = self
                .tokenizer
                .encode_batch_fast(inputs, true)
                .map_err(|e| ModelError::Tokenizer {
                    path: self.tokenizer_path.clone(),
                    reason: e.to_string(),
                })?;
            let ids: Vec<&[u32]> = enc.iter().map(|e| e.get_ids()).collect();
            let types: Vec<&[u32]> = enc.iter().map(|e| e.get_type_ids()).collect();
            let hidden = self.encoder.forward(&ids, Some(&types))?;
            for i in 0..group.len() {
                let rows = hidden.rows(i);
                out.push(self.head(&rows[..hidden.hidden]));
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tiny-cross-encoder")
    }

    #[derive(Deserialize)]
    struct Expected {
        pairs: Vec<(String, String)>,
        logits: Vec<f32>,
    }

    #[test]
    fn cross_encoder_matches_pytorch_logits() {
        let dir = fixture();
        assert!(is_cross_encoder(&dir));
        let ce = CrossEncoder::load(&dir).unwrap();
        let want: Expected =
            serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap())
                .unwrap();
        // Pairs one query at a time (as reranking scores them) ...
        for ((q, p), l) in want.pairs.iter().zip(&want.logits) {
            let got = ce.score(q, &[p.as_str()]).unwrap()[0];
            assert!(
                (got - l).abs() < 1e-4,
                "{q:?} / {p:?}: candle {got}, PyTorch {l}"
            );
        }
        // ... and batched with passages of different lengths.
        let q = &want.pairs[0].0;
        let passages: Vec<&str> = want.pairs[..2].iter().map(|p| p.1.as_str()).collect();
        let got = ce.score(q, &passages).unwrap();
        for (g, l) in got.iter().zip(&want.logits[..2]) {
            assert!((g - l).abs() < 1e-4, "batched: candle {g}, PyTorch {l}");
        }
    }

    #[test]
    fn the_bi_encoder_directory_is_not_a_cross_encoder() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(
            tmp.path().join("config.json"),
            r#"{"architectures": ["BertModel"]}"#,
        )
        .unwrap();
        assert!(!is_cross_encoder(tmp.path()));
        assert!(!is_cross_encoder(&tmp.path().join("missing")));
    }
}
