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
use super::{check_scores, dot, load_tokenizer, ModelError};

/// Scores (query, passage) pairs; higher means more relevant.
///
/// Implementations provide [`Rerank::score_unchecked`]; callers use [`Rerank::score`],
/// which checks that the model returned one finite score per passage.
pub trait Rerank: Send + Sync {
    /// Model identifier (directory name).
    fn model_id(&self) -> &str;
    /// The model's scores for the pairs, as computed (unchecked; see [`Rerank::score`]).
    fn score_unchecked(&self, query: &str, passages: &[&str]) -> Result<Vec<f32>, ModelError>;
    /// One score per passage, in input order. A wrong number of scores or a non-finite
    /// one is a [`ModelError::Output`].
    fn score(&self, query: &str, passages: &[&str]) -> Result<Vec<f32>, ModelError> {
        let scores = self.score_unchecked(query, passages)?;
        check_scores(self.model_id(), passages.len(), &scores)?;
        Ok(scores)
    }
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
        /// Longest (query, passage) pair in tokens: BERT's position table.
        const CROSS_MAX_TOKENS: usize = 512;
        /// Pairs scored per forward pass.
        const CROSS_BATCH: usize = 32;
        let wf = WeightFile::open(&dir.join("model.safetensors"), "bert.")?;
        let h = cfg.hidden_size;
        let max_len = cfg.max_position_embeddings.min(CROSS_MAX_TOKENS);
        let encoder = BertEncoder::from_weights(cfg, &wf, crate::config::EmbedPrecision::F32)?;
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
            batch: CROSS_BATCH,
        })
    }

    /// The pair's score from the hidden state of its `[CLS]` token: pooler, classifier,
    /// then the logit (one label) or `logit[1] - logit[0]` (two labels).
    fn head(&self, cls: &[f32]) -> Result<f32, ModelError> {
        let h = self.pooler_b.len();
        if cls.len() != h || h == 0 {
            return Err(ModelError::output(
                &self.id,
                format!("a [CLS] state of width {h}"),
                format!("width {}", cls.len()),
            ));
        }
        let pooled: Vec<f32> = self
            .pooler_w
            .chunks_exact(h)
            .zip(&self.pooler_b)
            .map(|(w, b)| (dot(w, cls) + b).tanh())
            .collect();
        let logits: Vec<f32> = self
            .cls_w
            .chunks_exact(h)
            .zip(&self.cls_b)
            .map(|(w, b)| dot(w, &pooled) + b)
            .collect();
        match logits.as_slice() {
            [l] => Ok(*l),
            [l0, l1] => Ok(l1 - l0),
            _ => Err(ModelError::output(
                &self.id,
                format!("{} label logit(s)", self.labels),
                format!("{} logit(s)", logits.len()),
            )),
        }
    }
}

impl Rerank for CrossEncoder {
    fn model_id(&self) -> &str {
        &self.id
    }

    fn score_unchecked(&self, query: &str, passages: &[&str]) -> Result<Vec<f32>, ModelError> {
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
                let cls = hidden
                    .rows(i)
                    .and_then(|rows| rows.get(..hidden.hidden))
                    .ok_or_else(|| {
                        ModelError::output(
                            &self.id,
                            format!("a [CLS] state for each of {} pair(s)", group.len()),
                            format!("none for pair {}", i + 1),
                        )
                    })?;
                out.push(self.head(cls)?);
            }
        }
        Ok(out)
    }
}

/// Test support: the tiny random cross-encoder of `tests/fixtures/tiny-cross-encoder`,
/// whose weights are generated here exactly as `make_tiny_cross_encoder.py` generates them
/// for PyTorch (so no weights are stored in the repository).
#[cfg(test)]
pub(crate) mod tiny {
    use std::collections::HashMap;
    use std::path::{Path, PathBuf};

    use candle_core::{Device, Tensor};

    /// The fixture directory (config, tokenizer, expected logits).
    pub fn fixture() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tiny-cross-encoder")
    }

    /// xorshift64*, uniform in [-0.5, 0.5).
    struct Gen(u64);

    impl Gen {
        fn value(&mut self) -> f64 {
            let mut s = self.0;
            s ^= s >> 12;
            s ^= s << 25;
            s ^= s >> 27;
            self.0 = s;
            let out = s.wrapping_mul(0x2545_F491_4F6C_DD1D);
            (out >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        }
    }

    fn shape(name: &str, c: &serde_json::Value) -> Vec<usize> {
        let g = |k: &str| c[k].as_u64().unwrap() as usize;
        let (h, i) = (g("hidden_size"), g("intermediate_size"));
        let weight = name.ends_with(".weight");
        if name.contains("word_embeddings") {
            vec![g("vocab_size"), h]
        } else if name.contains("position_embeddings") {
            vec![g("max_position_embeddings"), h]
        } else if name.contains("token_type_embeddings") {
            vec![g("type_vocab_size"), h]
        } else if name.contains("LayerNorm") {
            vec![h]
        } else if name.contains("intermediate.dense") {
            if weight {
                vec![i, h]
            } else {
                vec![i]
            }
        } else if name.contains("layer.")
            && name.contains(".output.dense")
            && !name.contains("attention")
        {
            if weight {
                vec![h, i]
            } else {
                vec![h]
            }
        } else if name.starts_with("classifier") {
            if weight {
                vec![1, h]
            } else {
                vec![1]
            }
        } else if weight {
            vec![h, h]
        } else {
            vec![h]
        }
    }

    /// Write the model into `dir` (config, tokenizer and generated `model.safetensors`).
    pub fn build(dir: &Path) {
        let fx = fixture();
        let cfg: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(fx.join("config.json")).unwrap())
                .unwrap();
        let expected: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(fx.join("expected.json")).unwrap())
                .unwrap();
        let mut gen = Gen(expected["seed"].as_u64().unwrap());
        let mut names: Vec<String> = expected["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap().to_string())
            .collect();
        names.sort();
        let mut tensors = HashMap::new();
        for name in names {
            let shape = shape(&name, &cfg);
            let n: usize = shape.iter().product();
            let layer_norm_weight = name.contains("LayerNorm") && name.ends_with("weight");
            let values: Vec<f32> = (0..n)
                .map(|_| {
                    let v = gen.value();
                    (if layer_norm_weight {
                        1.0 + 0.2 * v
                    } else {
                        0.6 * v
                    }) as f32
                })
                .collect();
            tensors.insert(name, Tensor::from_vec(values, shape, &Device::Cpu).unwrap());
        }
        std::fs::create_dir_all(dir).unwrap();
        candle_core::safetensors::save(&tensors, dir.join("model.safetensors")).unwrap();
        for f in ["config.json", "tokenizer.json"] {
            std::fs::copy(fx.join(f), dir.join(f)).unwrap();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize)]
    struct Expected {
        pairs: Vec<(String, String)>,
        logits: Vec<f32>,
    }

    #[test]
    fn cross_encoder_matches_pytorch_logits() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("tiny-cross-encoder");
        tiny::build(&dir);
        assert!(is_cross_encoder(&dir));
        let ce = CrossEncoder::load(&dir).unwrap();
        let want: Expected = serde_json::from_str(
            &std::fs::read_to_string(tiny::fixture().join("expected.json")).unwrap(),
        )
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
