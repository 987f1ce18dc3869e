//! Models behind ML-free traits: the bi-encoder ([`Embed`]) and its implementations.
//!
//! [`MiniLm`] is the real all-MiniLM-L6-v2 bi-encoder on candle ([`bert`], [`kernels`]);
//! [`HashEmbedder`] is a deterministic fake for fast unit tests. The optional generator
//! ([`generate::Generate`]) runs quantized GGUF models ([`generate`], [`gguf_tokenizer`]).

pub mod bert;
pub mod cache;
pub mod cross;
pub mod generate;
pub mod gguf_tokenizer;
pub mod int8;
pub mod kernels;
#[cfg(test)]
mod misbehaving;

use std::path::{Path, PathBuf};

use tokenizers::{Tokenizer, TruncationDirection, TruncationParams, TruncationStrategy};

/// Errors from loading or running a model. Each carries the file or input it concerns.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// A model file does not exist.
    #[error("{}: model file not found (run models/fetch.sh to fetch the bundled models)", path.display())]
    Missing {
        /// The missing file.
        path: PathBuf,
    },
    /// No model directory was found in any of the places searched.
    #[error("model directory {name} not found; looked in {tried} (run models/fetch.sh, or set ATTEST_MODEL_DIR)")]
    NotFound {
        /// Model directory name.
        name: String,
        /// The candidate paths, comma-separated.
        tried: String,
    },
    /// Reading a model file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// `config.json` is malformed or describes an unsupported model.
    #[error("{}: invalid model config: {reason}", path.display())]
    Config {
        /// The config file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A weight tensor is missing or has the wrong shape.
    #[error("{}: weight {name:?}: {reason}", path.display())]
    Weights {
        /// The safetensors file.
        path: PathBuf,
        /// Tensor name.
        name: String,
        /// What is wrong.
        reason: String,
    },
    /// The tokenizer file could not be loaded or used.
    #[error("{}: tokenizer: {reason}", path.display())]
    Tokenizer {
        /// The tokenizer file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A candle operation failed.
    #[error("{context}: {source}")]
    Candle {
        /// What was being computed.
        context: String,
        /// The candle error.
        source: candle_core::Error,
    },
    /// The input cannot be encoded.
    #[error("invalid model input: {0}")]
    Input(String),
    /// A GGUF file is truncated, malformed or cannot be loaded.
    #[error("{}: GGUF model: {reason}", path.display())]
    Gguf {
        /// The GGUF file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A model returned the wrong number of outputs, the wrong shape or non-finite values.
    #[error("model {model} returned {got}, expected {expected}")]
    Output {
        /// The model's identifier.
        model: String,
        /// What the caller needed (e.g. `3 vectors of dimension 384`).
        expected: String,
        /// What the model returned.
        got: String,
    },
    /// A GGUF file's `general.architecture` is not one the generator runs.
    #[error("{}: unsupported GGUF architecture {arch:?} (supported: llama, qwen2, qwen3, gemma3)", path.display())]
    UnsupportedArchitecture {
        /// The GGUF file.
        path: PathBuf,
        /// The architecture it declares.
        arch: String,
    },
}

impl ModelError {
    /// A [`ModelError::Output`] of `model`.
    pub fn output(model: &str, expected: impl Into<String>, got: impl Into<String>) -> Self {
        ModelError::Output {
            model: model.to_string(),
            expected: expected.into(),
            got: got.into(),
        }
    }
}

/// A bi-encoder: text in, L2-normalised vector out.
///
/// Implementations provide [`Embed::embed_unchecked`]; callers use [`Embed::embed`], which
/// checks what the model returned (one finite vector of [`Embed::dim`] values per text), so
/// a misbehaving model is a [`ModelError::Output`], never a panic downstream.
pub trait Embed: Send + Sync {
    /// Stable model identifier stored in the index (e.g. `all-MiniLM-L6-v2`).
    fn model_id(&self) -> &str;
    /// Output dimension.
    fn dim(&self) -> usize;
    /// The model's vectors for `texts`, as computed (unchecked; see [`Embed::embed`]).
    fn embed_unchecked(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, ModelError>;
    /// Number of model tokens in `text` (without special tokens), for chunk budgets.
    fn count_tokens(&self, text: &str) -> usize;
    /// Embed texts; one unit-length vector per text, in input order. A wrong number of
    /// vectors, a wrong dimension or a non-finite value is a [`ModelError::Output`].
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, ModelError> {
        let vectors = self.embed_unchecked(texts)?;
        check_vectors(self.model_id(), self.dim(), texts.len(), &vectors)?;
        Ok(vectors)
    }
    /// [`Embed::embed`], with the number of tokens the model read (special tokens and
    /// truncation included), for throughput figures. The default counts them apart.
    fn embed_counted(&self, texts: &[&str]) -> Result<(Vec<Vec<f32>>, usize), ModelError> {
        let vectors = self.embed(texts)?;
        let tokens = texts.iter().map(|t| self.count_tokens(t)).sum();
        Ok((vectors, tokens))
    }
}

/// Checks a bi-encoder's output: `n` vectors of `dim` finite values.
pub fn check_vectors(
    model: &str,
    dim: usize,
    n: usize,
    vectors: &[Vec<f32>],
) -> Result<(), ModelError> {
    let expected = || format!("{n} vector(s) of dimension {dim}");
    if vectors.len() != n {
        return Err(ModelError::output(
            model,
            expected(),
            format!("{} vector(s)", vectors.len()),
        ));
    }
    for (i, v) in vectors.iter().enumerate() {
        if v.len() != dim {
            return Err(ModelError::output(
                model,
                expected(),
                format!("a vector of dimension {} for text {}", v.len(), i + 1),
            ));
        }
        if v.iter().any(|x| !x.is_finite()) {
            return Err(ModelError::output(
                model,
                "finite vector components",
                format!("a non-finite component in the vector of text {}", i + 1),
            ));
        }
    }
    Ok(())
}

/// Checks a reranker's output: `n` finite scores.
pub fn check_scores(model: &str, n: usize, scores: &[f32]) -> Result<(), ModelError> {
    if scores.len() != n {
        return Err(ModelError::output(
            model,
            format!("{n} score(s)"),
            format!("{} score(s)", scores.len()),
        ));
    }
    if let Some(i) = scores.iter().position(|x| !x.is_finite()) {
        return Err(ModelError::output(
            model,
            "finite scores",
            format!("score {} for passage {}", scores[i], i + 1),
        ));
    }
    Ok(())
}

/// Name of the bundled bi-encoder directory under `models/`.
pub const MINILM: &str = "all-MiniLM-L6-v2";

/// Find a model directory: `explicit` if given, else `./models/NAME`, then the
/// `models/NAME` of the source tree the binary was built from.
pub fn locate(name: &str, explicit: Option<&Path>) -> Result<PathBuf, ModelError> {
    if let Some(p) = explicit {
        if p.is_dir() {
            return Ok(p.to_path_buf());
        }
        return Err(ModelError::NotFound {
            name: name.to_string(),
            tried: p.display().to_string(),
        });
    }
    let mut tried = vec![PathBuf::from("models").join(name)];
    tried.push(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("models")
            .join(name),
    );
    for p in &tried {
        if p.join("config.json").is_file() {
            return Ok(p.clone());
        }
    }
    Err(ModelError::NotFound {
        name: name.to_string(),
        tried: tried
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", "),
    })
}

/// Load a tokenizer with truncation at `max_len` tokens (special tokens included) and
/// no padding.
pub fn load_tokenizer(path: &Path, max_len: usize) -> Result<Tokenizer, ModelError> {
    let err = |reason: String| ModelError::Tokenizer {
        path: path.to_path_buf(),
        reason,
    };
    if !path.is_file() {
        return Err(ModelError::Missing {
            path: path.to_path_buf(),
        });
    }
    let mut tok = Tokenizer::from_file(path).map_err(|e| err(e.to_string()))?;
    tok.with_padding(None);
    tok.with_truncation(Some(TruncationParams {
        max_length: max_len,
        strategy: TruncationStrategy::LongestFirst,
        stride: 0,
        direction: TruncationDirection::Right,
    }))
    .map_err(|e| err(e.to_string()))?;
    Ok(tok)
}

/// The all-MiniLM-L6-v2 bi-encoder: BERT, mean pooling over all tokens, L2 norm.
pub struct MiniLm {
    encoder: bert::BertEncoder,
    tokenizer: Tokenizer,
    counter: Tokenizer,
    tokenizer_path: PathBuf,
    id: String,
    /// Maximum tokens per text, special tokens included.
    pub max_tokens: usize,
    /// Token budget of one forward pass (texts are packed without padding).
    pub batch_tokens: usize,
}

/// The precision a new index is embedded at under `embed_precision = "auto"`: int8 where
/// a SIMD int8 kernel runs (its parity with f32 is in `docs/figures.md`), else f32.
pub fn default_precision() -> crate::config::EmbedPrecision {
    match int8::kernel() {
        int8::Kernel::Portable => crate::config::EmbedPrecision::F32,
        _ => crate::config::EmbedPrecision::Int8,
    }
}

/// The precision that embedded an index recording bi-encoder `model_id` (as
/// [`MiniLm::load_at`] names it: `@int8` marks int8). An interrupted conversion,
/// recorded as `A -> B`, counts as its target.
pub fn precision_of_model_id(model_id: &str) -> crate::config::EmbedPrecision {
    let target = model_id.rsplit(" -> ").next().unwrap_or(model_id);
    if target.trim_end().ends_with("@int8") {
        crate::config::EmbedPrecision::Int8
    } else {
        crate::config::EmbedPrecision::F32
    }
}

impl MiniLm {
    /// Load from a model directory holding `config.json`, `tokenizer.json` and
    /// `model.safetensors`. The model id is the directory name.
    pub fn load(dir: &Path) -> Result<Self, ModelError> {
        Self::load_at(dir, crate::config::EmbedPrecision::F32)
    }

    /// [`Self::load`] with the linear layers at `precision`. The model id of an int8
    /// encoder is the directory name with `@int8` (an index records it, so vectors of
    /// the two precisions never mix in one index).
    pub fn load_at(
        dir: &Path,
        precision: crate::config::EmbedPrecision,
    ) -> Result<Self, ModelError> {
        /// Tokens per text: all-MiniLM-L6-v2 was trained on 256 (sentence-transformers
        /// `max_seq_length`), so parity with it truncates there.
        const MINILM_MAX_TOKENS: usize = 256;
        /// Tokens per batch until `embed_batch_tokens` sets it.
        const DEFAULT_BATCH_TOKENS: usize = 2048;
        let encoder = bert::BertEncoder::load_at(dir, precision)?;
        let max_tokens = MINILM_MAX_TOKENS.min(encoder.config().max_position_embeddings);
        let tokenizer_path = dir.join("tokenizer.json");
        let tokenizer = load_tokenizer(&tokenizer_path, max_tokens)?;
        let mut counter = tokenizer.clone();
        counter
            .with_truncation(None)
            .map_err(|e| ModelError::Tokenizer {
                path: tokenizer_path.clone(),
                reason: e.to_string(),
            })?;
        let mut id = dir
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| MINILM.to_string());
        if encoder.precision() != crate::config::EmbedPrecision::F32 {
            id = format!("{id}@{}", encoder.precision());
        }
        Ok(MiniLm {
            encoder,
            tokenizer,
            counter,
            tokenizer_path,
            id,
            max_tokens,
            batch_tokens: DEFAULT_BATCH_TOKENS,
        })
    }

    /// Load the bundled model from the standard locations (see [`locate`]).
    pub fn load_default(explicit: Option<&Path>) -> Result<Self, ModelError> {
        Self::load(&locate(MINILM, explicit)?)
    }

    /// [`Self::load_default`] at `precision`.
    pub fn load_default_at(
        explicit: Option<&Path>,
        precision: crate::config::EmbedPrecision,
    ) -> Result<Self, ModelError> {
        Self::load_at(&locate(MINILM, explicit)?, precision)
    }

    fn tokenize(&self, texts: &[&str]) -> Result<Vec<Vec<u32>>, ModelError> {
        let enc = self
            .tokenizer
            .encode_batch_fast(texts.to_vec(), true)
            .map_err(|e| ModelError::Tokenizer {
                path: self.tokenizer_path.clone(),
                reason: e.to_string(),
            })?;
        Ok(enc.into_iter().map(|e| e.get_ids().to_vec()).collect())
    }

    /// Embed already tokenised sequences (with special tokens), in input order.
    ///
    /// Sequences are sorted by length and packed into batches of up to `batch_tokens`
    /// tokens; batches run two at a time, so that one keeps the cores busy while the
    /// other is in a step that runs on one (each batch's kernels are parallel as well).
    pub fn embed_ids(&self, ids: &[Vec<u32>]) -> Result<Vec<Vec<f32>>, ModelError> {
        use rayon::prelude::*;
        let mut order: Vec<usize> = (0..ids.len()).collect();
        order.sort_by_key(|&i| (ids[i].len(), i));
        let mut batches: Vec<&[usize]> = Vec::new();
        let mut start = 0;
        while start < order.len() {
            let mut end = start;
            let mut tokens = 0;
            while end < order.len()
                && (end == start || tokens + ids[order[end]].len() <= self.batch_tokens)
            {
                tokens += ids[order[end]].len();
                end += 1;
            }
            batches.push(&order[start..end]);
            start = end;
        }
        let pooled: Vec<Vec<Vec<f32>>> = batches
            .par_iter()
            .with_max_len(1)
            .map(|b| self.embed_batch(ids, b))
            .collect::<Result<_, _>>()?;
        let mut out: Vec<Vec<f32>> = vec![Vec::new(); ids.len()];
        for (b, vectors) in batches.iter().zip(pooled) {
            for (&oi, v) in b.iter().zip(vectors) {
                out[oi] = v;
            }
        }
        Ok(out)
    }

    /// One forward pass over the sequences `which` of `ids`: their pooled vectors.
    fn embed_batch(&self, ids: &[Vec<u32>], which: &[usize]) -> Result<Vec<Vec<f32>>, ModelError> {
        let batch: Vec<&[u32]> = which.iter().map(|&i| ids[i].as_slice()).collect();
        let hidden = self.encoder.forward(&batch, None)?;
        (0..batch.len())
            .map(|bi| {
                let rows = hidden.rows(bi).ok_or_else(|| {
                    ModelError::output(
                        &self.id,
                        format!("hidden states for {} sequence(s)", batch.len()),
                        format!("none for sequence {}", bi + 1),
                    )
                })?;
                Ok(mean_pool_normalise(rows, hidden.hidden))
            })
            .collect()
    }
}

/// Mean of the rows (width `dim`), scaled to unit length.
pub fn mean_pool_normalise(rows: &[f32], dim: usize) -> Vec<f32> {
    if dim == 0 {
        return Vec::new();
    }
    let mut v = vec![0f32; dim];
    let n = rows.len() / dim;
    for row in rows.chunks_exact(dim) {
        for (a, b) in v.iter_mut().zip(row) {
            *a += b;
        }
    }
    if n > 0 {
        v.iter_mut().for_each(|a| *a /= n as f32);
    }
    normalise(&mut v);
    v
}

/// Scale `v` to unit L2 length (left as is when it is all zeros).
pub fn normalise(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}

impl Embed for MiniLm {
    fn model_id(&self) -> &str {
        &self.id
    }
    fn dim(&self) -> usize {
        self.encoder.config().hidden_size
    }
    fn embed_unchecked(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, ModelError> {
        let ids = self.tokenize(texts)?;
        self.embed_ids(&ids)
    }
    fn count_tokens(&self, text: &str) -> usize {
        match self.counter.encode_fast(text, false) {
            Ok(e) => e.get_ids().len(),
            Err(_) => text.split_whitespace().count(),
        }
    }
    fn embed_counted(&self, texts: &[&str]) -> Result<(Vec<Vec<f32>>, usize), ModelError> {
        let ids = self.tokenize(texts)?;
        let tokens = ids.iter().map(Vec::len).sum();
        let vectors = self.embed_ids(&ids)?;
        check_vectors(self.model_id(), self.dim(), texts.len(), &vectors)?;
        Ok((vectors, tokens))
    }
}

/// A deterministic stand-in bi-encoder for unit tests: feature hashing of lower-cased
/// words (and their 4-character prefixes) into `dim` buckets, L2-normalised. Texts
/// sharing words get high cosine; no model files are needed.
pub struct HashEmbedder {
    dim: usize,
    id: String,
}

impl HashEmbedder {
    /// A fake embedder with `dim` dimensions and model id `hash-<dim>`.
    pub fn new(dim: usize) -> Self {
        HashEmbedder {
            dim,
            id: format!("hash-{dim}"),
        }
    }
}

fn fnv1a(s: &str) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for b in s.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

impl Embed for HashEmbedder {
    fn model_id(&self) -> &str {
        &self.id
    }
    fn dim(&self) -> usize {
        self.dim
    }
    fn embed_unchecked(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, ModelError> {
        Ok(texts
            .iter()
            .map(|t| {
                let mut v = vec![0f32; self.dim];
                for w in t
                    .split(|c: char| !c.is_alphanumeric())
                    .filter(|w| !w.is_empty())
                {
                    let w = w.to_lowercase();
                    let prefix: String = w.chars().take(4).collect();
                    for (feature, weight) in [(w.as_str(), 1.0f32), (prefix.as_str(), 0.5)] {
                        let h = fnv1a(feature);
                        let sign = if h >> 63 == 0 { 1.0 } else { -1.0 };
                        v[(h % self.dim as u64) as usize] += sign * weight;
                    }
                }
                if v.iter().all(|x| *x == 0.0) {
                    v[0] = 1.0;
                }
                normalise(&mut v);
                v
            })
            .collect())
    }
    fn count_tokens(&self, text: &str) -> usize {
        text.split_whitespace().count()
    }
}

/// Stored vectors must satisfy `| |v|^2 - 1 | <= NORM_TOLERANCE`: unit vectors up to
/// float rounding (the bi-encoder normalises its outputs).
pub const NORM_TOLERANCE: f32 = 1e-3;

/// Independent accumulators of [`dot`]: eight `f32` lanes fill one AVX register.
const LANES: usize = 8;

/// Cosine of two unit vectors (their dot product), over the common length of `a` and
/// `b`. A kernel: `LANES` independent accumulators (so it autovectorises) and a fixed
/// reduction order, so the result is deterministic for given inputs; the dense indexes
/// and every cosine in the pipeline use it, so their scores agree bit for bit.
#[inline]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0.0f32; LANES];
    let mut ca = a.chunks_exact(LANES);
    let mut cb = b.chunks_exact(LANES);
    for (x, y) in (&mut ca).zip(&mut cb) {
        for i in 0..LANES {
            acc[i] += x[i] * y[i];
        }
    }
    let mut tail = 0.0f32;
    for (x, y) in ca.remainder().iter().zip(cb.remainder()) {
        tail += x * y;
    }
    ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7])) + tail
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_index_model_id_names_its_precision() {
        use crate::config::EmbedPrecision::{Int8, F32};
        assert_eq!(precision_of_model_id("all-MiniLM-L6-v2"), F32);
        assert_eq!(precision_of_model_id("all-MiniLM-L6-v2@int8"), Int8);
        assert_eq!(precision_of_model_id("hash-384"), F32);
        // An interrupted conversion counts as what it converts to.
        assert_eq!(precision_of_model_id("m -> m@int8"), Int8);
        assert_eq!(precision_of_model_id("m@int8 -> m"), F32);
    }

    #[test]
    fn hash_embedder_is_deterministic_unit_length_and_similarity_aware() {
        let e = HashEmbedder::new(64);
        let v = e
            .embed(&[
                "county records retention",
                "records retention county",
                "ocean waves",
            ])
            .unwrap();
        let n: f32 = v[0].iter().map(|x| x * x).sum();
        assert!((n - 1.0).abs() < 1e-5);
        assert_eq!(v[0], e.embed(&["county records retention"]).unwrap()[0]);
        assert!(dot(&v[0], &v[1]) > 0.99);
        assert!(dot(&v[0], &v[2]) < 0.5);
    }

    #[test]
    fn mean_pool_normalise_averages_rows() {
        let v = mean_pool_normalise(&[1.0, 0.0, 3.0, 0.0], 2);
        assert_eq!(v, vec![1.0, 0.0]);
    }
}
