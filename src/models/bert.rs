//! A BERT encoder on candle, tuned for CPU inference.
//!
//! Weights load from a Hugging Face directory (`config.json`, `model.safetensors`).
//! Sequences are packed without padding: the linear layers run as one candle matmul
//! over every token of the batch, and attention runs per sequence in
//! [`kernels::attention`], so no compute is spent on pad tokens and no mask is needed.
//! Bias, GELU, residual and layer norm are fused into single passes.

use std::path::{Path, PathBuf};

use candle_core::{
    CpuStorage, CustomOp1, DType, Device, InplaceOp1, InplaceOp2, Layout, Shape, Tensor,
};
use serde::Deserialize;

use super::int8::QuantLinear;
use super::kernels::{self, SeqSpan};
use super::ModelError;
use crate::config::EmbedPrecision;

/// The subset of a Hugging Face BERT `config.json` the encoder needs.
#[derive(Debug, Clone, Deserialize)]
pub struct BertConfig {
    /// Width of every token vector.
    pub hidden_size: usize,
    /// Number of transformer layers.
    pub num_hidden_layers: usize,
    /// Attention heads per layer.
    pub num_attention_heads: usize,
    /// Width of the feed-forward layer.
    pub intermediate_size: usize,
    /// Longest sequence the position table covers.
    pub max_position_embeddings: usize,
    /// Number of token types (segments).
    #[serde(default = "default_type_vocab")]
    pub type_vocab_size: usize,
    /// Layer norm epsilon.
    #[serde(default = "default_eps")]
    pub layer_norm_eps: f64,
    /// Activation; only `gelu` (erf) is supported.
    #[serde(default = "default_act")]
    pub hidden_act: String,
    /// Vocabulary size.
    pub vocab_size: usize,
}

fn default_type_vocab() -> usize {
    2
}
fn default_eps() -> f64 {
    1e-12
}
fn default_act() -> String {
    "gelu".into()
}

impl BertConfig {
    /// Read and validate `config.json`.
    pub fn from_file(path: &Path) -> Result<Self, ModelError> {
        let text = std::fs::read_to_string(path).map_err(|source| ModelError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let cfg: BertConfig = serde_json::from_str(&text).map_err(|e| ModelError::Config {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })?;
        if cfg.hidden_act != "gelu" {
            return Err(ModelError::Config {
                path: path.to_path_buf(),
                reason: format!(
                    "unsupported hidden_act {:?} (only \"gelu\")",
                    cfg.hidden_act
                ),
            });
        }
        if cfg.hidden_size == 0 {
            return Err(ModelError::Config {
                path: path.to_path_buf(),
                reason: "hidden_size is 0".into(),
            });
        }
        if cfg.num_attention_heads == 0 || !cfg.hidden_size.is_multiple_of(cfg.num_attention_heads)
        {
            return Err(ModelError::Config {
                path: path.to_path_buf(),
                reason: "hidden_size is not a multiple of num_attention_heads".into(),
            });
        }
        Ok(cfg)
    }
}

/// A linear layer's weights for `x · W` (no bias): f32 through candle's gemm, or 8-bit.
enum Linear {
    F32(Tensor),
    Int8(QuantLinear),
}

impl Linear {
    /// From weights in `(inputs, outputs)` layout, quantised for [`EmbedPrecision::Int8`].
    fn new(w: Tensor, precision: EmbedPrecision) -> Result<Self, ModelError> {
        match precision {
            EmbedPrecision::F32 => Ok(Linear::F32(w)),
            EmbedPrecision::Int8 => {
                let (k, n) = w.dims2().map_err(candle("weight shape"))?;
                let data = w
                    .flatten_all()
                    .and_then(|t| t.to_vec1::<f32>())
                    .map_err(candle("reading weight"))?;
                Ok(Linear::Int8(QuantLinear::from_kn(&data, k, n)))
            }
        }
    }

    /// `x · W` for `x` of shape `(rows, inputs)`.
    fn forward(&self, x: &Tensor, what: &'static str) -> Result<Tensor, ModelError> {
        match self {
            Linear::F32(w) => x.matmul(w).map_err(candle(what)),
            Linear::Int8(q) => x.apply_op1_no_bwd(&QuantMatmul(q)).map_err(candle(what)),
        }
    }
}

/// `x · W` on 8-bit weights, as a candle op over the contiguous input.
struct QuantMatmul<'a>(&'a QuantLinear);

impl CustomOp1 for QuantMatmul<'_> {
    fn name(&self) -> &'static str {
        "int8-matmul"
    }
    fn cpu_fwd(&self, s: &CpuStorage, l: &Layout) -> candle_core::Result<(CpuStorage, Shape)> {
        let x = contiguous_f32(s, l)?;
        let (rows, k) = l.shape().dims2()?;
        if k != self.0.inputs() {
            candle_core::bail!("{k} inputs for a layer of {}", self.0.inputs());
        }
        let n = self.0.outputs();
        let mut out = vec![0f32; rows * n];
        self.0.matmul(x, rows, &mut out);
        Ok((CpuStorage::F32(out), Shape::from((rows, n))))
    }
}

struct Layer {
    qkv_w: Linear, // (hidden, 3 * hidden), transposed for x @ w
    qkv_b: Vec<f32>,
    out_w: Linear, // (hidden, hidden)
    out_b: Vec<f32>,
    ln1_g: Vec<f32>,
    ln1_b: Vec<f32>,
    inter_w: Linear, // (hidden, intermediate)
    inter_b: Vec<f32>,
    down_w: Linear, // (intermediate, hidden)
    down_b: Vec<f32>,
    ln2_g: Vec<f32>,
    ln2_b: Vec<f32>,
}

/// A loaded BERT encoder (no pooler).
pub struct BertEncoder {
    cfg: BertConfig,
    word: Vec<f32>,
    position: Vec<f32>,
    token_type: Vec<f32>,
    emb_ln_g: Vec<f32>,
    emb_ln_b: Vec<f32>,
    layers: Vec<Layer>,
    weights: PathBuf,
    precision: EmbedPrecision,
}

/// Output of [`BertEncoder::forward`]: the last hidden state of every token, packed.
pub struct Hidden {
    /// Row-major `(total_tokens, hidden)` values.
    pub data: Vec<f32>,
    /// Where each input sequence's rows are.
    pub seqs: Vec<SeqSpan>,
    /// Row width.
    pub hidden: usize,
}

impl Hidden {
    /// The rows of sequence `i` (`None` when there is no such sequence or the data is
    /// shorter than its span).
    pub fn rows(&self, i: usize) -> Option<&[f32]> {
        let s = self.seqs.get(i)?;
        self.data
            .get(s.start * self.hidden..(s.start + s.len) * self.hidden)
    }
}

/// Tensors in a safetensors file, with an optional name prefix such as `bert.`.
pub struct WeightFile {
    st: candle_core::safetensors::MmapedSafetensors,
    path: PathBuf,
    prefix: String,
}

impl WeightFile {
    /// Memory-map `path`; names are looked up with and without `prefix`.
    pub fn open(path: &Path, prefix: &str) -> Result<Self, ModelError> {
        if !path.is_file() {
            return Err(ModelError::Missing {
                path: path.to_path_buf(),
            });
        }
        // SAFETY: the file is mapped read-only; attest never writes model files while
        // they are open, and the mapping is checked by the safetensors header parser.
        let st =
            unsafe { candle_core::safetensors::MmapedSafetensors::new(path) }.map_err(|e| {
                ModelError::Weights {
                    path: path.to_path_buf(),
                    name: String::new(),
                    reason: e.to_string(),
                }
            })?;
        Ok(WeightFile {
            st,
            path: path.to_path_buf(),
            prefix: prefix.to_string(),
        })
    }

    /// Load tensor `name` (trying `prefix + name` first) as f32 with the expected shape.
    pub fn get(&self, name: &str, shape: &[usize]) -> Result<Tensor, ModelError> {
        let err = |reason: String| ModelError::Weights {
            path: self.path.clone(),
            name: name.to_string(),
            reason,
        };
        let full = format!("{}{}", self.prefix, name);
        let t = self
            .st
            .load(&full, &Device::Cpu)
            .or_else(|_| self.st.load(name, &Device::Cpu))
            .map_err(|_| err("tensor not found".into()))?
            .to_dtype(DType::F32)
            .map_err(|e| err(e.to_string()))?;
        if t.dims() != shape {
            return Err(err(format!("shape {:?}, expected {:?}", t.dims(), shape)));
        }
        Ok(t)
    }

    /// Load tensor `name` as a flat vector.
    pub fn vec(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>, ModelError> {
        let t = self.get(name, shape)?;
        t.flatten_all()
            .and_then(|t| t.to_vec1::<f32>())
            .map_err(|e| ModelError::Candle {
                context: format!("reading {name}"),
                source: e,
            })
    }

    /// Whether tensor `name` exists (with or without the prefix).
    pub fn has(&self, name: &str) -> bool {
        let full = format!("{}{}", self.prefix, name);
        self.st.get(&full).is_ok() || self.st.get(name).is_ok()
    }
}

fn candle(context: &str) -> impl Fn(candle_core::Error) -> ModelError + '_ {
    move |source| ModelError::Candle {
        context: context.to_string(),
        source,
    }
}

/// Transpose a `(out, in)` linear weight into a contiguous `(in, out)` matrix.
fn transposed(t: Tensor) -> Result<Tensor, ModelError> {
    t.t()
        .and_then(|t| t.contiguous())
        .map_err(candle("transposing weight"))
}

impl BertEncoder {
    /// Load an encoder from `dir/config.json` and `dir/model.safetensors`.
    pub fn load(dir: &Path) -> Result<Self, ModelError> {
        Self::load_at(dir, EmbedPrecision::F32)
    }

    /// [`Self::load`] with the linear layers at `precision`. Int8 is fast on CPUs with
    /// VNNI or AVX2; elsewhere the portable kernel computes the same integers, slowly
    /// (an index embedded at int8 stays readable on any CPU).
    pub fn load_at(dir: &Path, precision: EmbedPrecision) -> Result<Self, ModelError> {
        let cfg = BertConfig::from_file(&dir.join("config.json"))?;
        let weights = dir.join("model.safetensors");
        let wf = WeightFile::open(&weights, "bert.")?;
        if precision == EmbedPrecision::Int8
            && super::int8::kernel() == super::int8::Kernel::Portable
        {
            tracing::warn!(
                "this CPU has neither VNNI nor AVX2: int8 embedding runs on the portable kernel, slower than f32"
            );
        }
        Self::from_weights(cfg, &wf, precision)
    }

    /// The precision the linear layers run at.
    pub fn precision(&self) -> EmbedPrecision {
        self.precision
    }

    /// Build from an open weight file, the linear layers at `precision`.
    pub fn from_weights(
        cfg: BertConfig,
        wf: &WeightFile,
        precision: EmbedPrecision,
    ) -> Result<Self, ModelError> {
        let lin = |t: Tensor| transposed(t).and_then(|w| Linear::new(w, precision));
        let h = cfg.hidden_size;
        let i = cfg.intermediate_size;
        let e = "embeddings.";
        let word = wf.vec(&format!("{e}word_embeddings.weight"), &[cfg.vocab_size, h])?;
        let position = wf.vec(
            &format!("{e}position_embeddings.weight"),
            &[cfg.max_position_embeddings, h],
        )?;
        let token_type = wf.vec(
            &format!("{e}token_type_embeddings.weight"),
            &[cfg.type_vocab_size, h],
        )?;
        let emb_ln_g = wf.vec(&format!("{e}LayerNorm.weight"), &[h])?;
        let emb_ln_b = wf.vec(&format!("{e}LayerNorm.bias"), &[h])?;
        let mut layers = Vec::with_capacity(cfg.num_hidden_layers);
        for l in 0..cfg.num_hidden_layers {
            let p = format!("encoder.layer.{l}.");
            let q = wf.get(&format!("{p}attention.self.query.weight"), &[h, h])?;
            let k = wf.get(&format!("{p}attention.self.key.weight"), &[h, h])?;
            let v = wf.get(&format!("{p}attention.self.value.weight"), &[h, h])?;
            let qkv = Tensor::cat(&[&q, &k, &v], 0).map_err(candle("concatenating qkv"))?;
            let mut qkv_b = wf.vec(&format!("{p}attention.self.query.bias"), &[h])?;
            qkv_b.extend(wf.vec(&format!("{p}attention.self.key.bias"), &[h])?);
            qkv_b.extend(wf.vec(&format!("{p}attention.self.value.bias"), &[h])?);
            layers.push(Layer {
                qkv_w: lin(qkv)?,
                qkv_b,
                out_w: lin(wf.get(&format!("{p}attention.output.dense.weight"), &[h, h])?)?,
                out_b: wf.vec(&format!("{p}attention.output.dense.bias"), &[h])?,
                ln1_g: wf.vec(&format!("{p}attention.output.LayerNorm.weight"), &[h])?,
                ln1_b: wf.vec(&format!("{p}attention.output.LayerNorm.bias"), &[h])?,
                inter_w: lin(wf.get(&format!("{p}intermediate.dense.weight"), &[i, h])?)?,
                inter_b: wf.vec(&format!("{p}intermediate.dense.bias"), &[i])?,
                down_w: lin(wf.get(&format!("{p}output.dense.weight"), &[h, i])?)?,
                down_b: wf.vec(&format!("{p}output.dense.bias"), &[h])?,
                ln2_g: wf.vec(&format!("{p}output.LayerNorm.weight"), &[h])?,
                ln2_b: wf.vec(&format!("{p}output.LayerNorm.bias"), &[h])?,
            });
        }
        Ok(BertEncoder {
            cfg,
            word,
            position,
            token_type,
            emb_ln_g,
            emb_ln_b,
            layers,
            weights: wf.path.clone(),
            precision,
        })
    }

    /// The model configuration.
    pub fn config(&self) -> &BertConfig {
        &self.cfg
    }

    /// Run the encoder over a batch of token id sequences (with optional token type ids),
    /// returning the last hidden state of every token. Sequences may differ in length.
    pub fn forward(
        &self,
        ids: &[&[u32]],
        type_ids: Option<&[&[u32]]>,
    ) -> Result<Hidden, ModelError> {
        let h = self.cfg.hidden_size;
        let mut seqs = Vec::with_capacity(ids.len());
        let mut total = 0usize;
        for s in ids {
            if s.len() > self.cfg.max_position_embeddings {
                return Err(ModelError::Input(format!(
                    "sequence of {} tokens exceeds the model's {} positions",
                    s.len(),
                    self.cfg.max_position_embeddings
                )));
            }
            seqs.push(SeqSpan {
                start: total,
                len: s.len(),
            });
            total += s.len();
        }
        if total == 0 {
            return Ok(Hidden {
                data: Vec::new(),
                seqs,
                hidden: h,
            });
        }
        let x = self.embed_tokens(ids, type_ids, &seqs, total)?;
        let mut x = Tensor::from_vec(x, (total, h), &Device::Cpu).map_err(candle("embeddings"))?;
        for layer in &self.layers {
            x = self.layer(layer, &x, &seqs)?;
        }
        let data = x
            .flatten_all()
            .and_then(|t| t.to_vec1::<f32>())
            .map_err(candle("reading hidden states"))?;
        if data.len() != total * h {
            return Err(ModelError::output(
                &self.weights.display().to_string(),
                format!("{total} x {h} hidden values"),
                format!("{} values", data.len()),
            ));
        }
        Ok(Hidden {
            data,
            seqs,
            hidden: h,
        })
    }

    /// The input embeddings of every token (`total` rows, packed as `seqs` say): word +
    /// position + token type, then layer norm. Token ids and types outside the model's
    /// tables are input errors.
    fn embed_tokens(
        &self,
        ids: &[&[u32]],
        type_ids: Option<&[&[u32]]>,
        seqs: &[SeqSpan],
        total: usize,
    ) -> Result<Vec<f32>, ModelError> {
        let h = self.cfg.hidden_size;
        let mut x = vec![0f32; total * h];
        let eps = self.cfg.layer_norm_eps as f32;
        for ((si, s), span) in ids.iter().enumerate().zip(seqs) {
            for (pos, &tok) in s.iter().enumerate() {
                let tok = tok as usize;
                if tok >= self.cfg.vocab_size {
                    return Err(ModelError::Input(format!(
                        "token id {tok} outside the vocabulary"
                    )));
                }
                let tt = match type_ids {
                    Some(t) => t.get(si).and_then(|t| t.get(pos)).copied().ok_or_else(|| {
                        ModelError::Input(format!(
                            "no token type for token {pos} of sequence {}",
                            si + 1
                        ))
                    })? as usize,
                    None => 0,
                };
                if tt >= self.cfg.type_vocab_size {
                    return Err(ModelError::Input(format!(
                        "token type {tt} outside the model's range"
                    )));
                }
                let row = &mut x[(span.start + pos) * h..(span.start + pos + 1) * h];
                let w = &self.word[tok * h..(tok + 1) * h];
                let p = &self.position[pos * h..(pos + 1) * h];
                let t = &self.token_type[tt * h..(tt + 1) * h];
                for (((r, a), b), c) in row.iter_mut().zip(w).zip(p).zip(t) {
                    *r = a + b + c;
                }
                kernels::layer_norm_row(row, &self.emb_ln_g, &self.emb_ln_b, eps);
            }
        }
        Ok(x)
    }

    fn layer(&self, l: &Layer, x: &Tensor, seqs: &[SeqSpan]) -> Result<Tensor, ModelError> {
        let eps = self.cfg.layer_norm_eps as f32;
        let qkv = l.qkv_w.forward(x, "qkv projection")?;
        let ctx = qkv
            .apply_op1_no_bwd(&Attention {
                bias: &l.qkv_b,
                seqs,
                heads: self.cfg.num_attention_heads,
            })
            .map_err(candle("attention"))?;
        let h1 = l.out_w.forward(&ctx, "attention output")?;
        h1.inplace_op2(
            x,
            &AddNorm {
                bias: &l.out_b,
                gamma: &l.ln1_g,
                beta: &l.ln1_b,
                eps,
            },
        )
        .map_err(candle("attention layer norm"))?;
        let inter = l.inter_w.forward(&h1, "intermediate")?;
        inter
            .inplace_op1(&BiasGelu { bias: &l.inter_b })
            .map_err(candle("gelu"))?;
        let out = l.down_w.forward(&inter, "output projection")?;
        out.inplace_op2(
            &h1,
            &AddNorm {
                bias: &l.down_b,
                gamma: &l.ln2_g,
                beta: &l.ln2_b,
                eps,
            },
        )
        .map_err(candle("output layer norm"))?;
        Ok(out)
    }

    /// Path of the weight file this encoder was loaded from.
    pub fn weights_path(&self) -> &Path {
        &self.weights
    }
}

/// Borrow the contiguous f32 data of a custom-op input.
fn contiguous_f32<'a>(s: &'a CpuStorage, l: &Layout) -> candle_core::Result<&'a [f32]> {
    let data = match s {
        CpuStorage::F32(v) => v.as_slice(),
        _ => candle_core::bail!("expected f32 storage"),
    };
    match l.contiguous_offsets() {
        Some((a, b)) => Ok(&data[a..b]),
        None => candle_core::bail!("expected a contiguous tensor"),
    }
}

struct Attention<'a> {
    bias: &'a [f32],
    seqs: &'a [SeqSpan],
    heads: usize,
}

impl CustomOp1 for Attention<'_> {
    fn name(&self) -> &'static str {
        "packed-attention"
    }
    fn cpu_fwd(&self, s: &CpuStorage, l: &Layout) -> candle_core::Result<(CpuStorage, Shape)> {
        let qkv = contiguous_f32(s, l)?;
        let (n, w3) = l.shape().dims2()?;
        let mut out = vec![0f32; n * w3 / 3];
        kernels::attention(qkv, self.bias, self.seqs, self.heads, &mut out);
        Ok((CpuStorage::F32(out), Shape::from((n, w3 / 3))))
    }
}

struct BiasGelu<'a> {
    bias: &'a [f32],
}

/// Mutable contiguous f32 data of an in-place op's destination.
fn contiguous_f32_mut<'a>(s: &'a mut CpuStorage, l: &Layout) -> candle_core::Result<&'a mut [f32]> {
    let data = match s {
        CpuStorage::F32(v) => v.as_mut_slice(),
        _ => candle_core::bail!("expected f32 storage"),
    };
    match l.contiguous_offsets() {
        Some((a, b)) => Ok(&mut data[a..b]),
        None => candle_core::bail!("expected a contiguous tensor"),
    }
}

impl InplaceOp1 for BiasGelu<'_> {
    fn name(&self) -> &'static str {
        "bias-gelu"
    }
    fn cpu_fwd(&self, s: &mut CpuStorage, l: &Layout) -> candle_core::Result<()> {
        kernels::bias_gelu(contiguous_f32_mut(s, l)?, self.bias);
        Ok(())
    }
}

struct AddNorm<'a> {
    bias: &'a [f32],
    gamma: &'a [f32],
    beta: &'a [f32],
    eps: f32,
}

impl InplaceOp2 for AddNorm<'_> {
    fn name(&self) -> &'static str {
        "bias-residual-layernorm"
    }
    fn cpu_fwd(
        &self,
        s1: &mut CpuStorage,
        l1: &Layout,
        s2: &CpuStorage,
        l2: &Layout,
    ) -> candle_core::Result<()> {
        let res = contiguous_f32(s2, l2)?;
        let x = contiguous_f32_mut(s1, l1)?;
        if res.len() != x.len() {
            candle_core::bail!("residual shape mismatch");
        }
        kernels::bias_residual_layer_norm(x, self.bias, res, self.gamma, self.beta, self.eps);
        Ok(())
    }
}
