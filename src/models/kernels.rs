//! Fused CPU kernels for the transformer encoder.
//!
//! Matrix products go through candle (gemm); everything between them runs here on
//! contiguous row-major `f32` slices: bias + GELU, bias + residual + layer norm, and
//! unpadded multi-head attention over packed sequences. The loops are written so LLVM
//! vectorises them (`-C target-cpu=native`), which is where a plain candle BERT loses
//! most of its time on CPU (GELU, softmax and layer norm, not matmul).

use rayon::prelude::*;

/// Rows processed per parallel task in row-wise kernels.
const ROW_BLOCK: usize = 32;

/// `e^x` to about 2 ulp for `x` in `[-87, 88]`, written to vectorise (no table, no branch).
#[inline(always)]
pub fn exp(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    const LN2_HI: f32 = 0.693_145_75;
    const LN2_LO: f32 = 1.428_606_8e-6;
    // Magic constant 1.5 * 2^23 rounds to nearest integer in float arithmetic.
    const ROUND: f32 = 12_582_912.0;
    let x = x.clamp(-87.3, 88.3);
    // `t` holds round(x * log2 e) + 127 in its low mantissa bits.
    let t = x * LOG2E + (ROUND + 127.0);
    let n = t - (ROUND + 127.0);
    let r = x - n * LN2_HI - n * LN2_LO;
    // Minimax polynomial for e^r on [-ln2/2, ln2/2] (Cephes expf coefficients).
    let mut p = 1.987_569_1e-4_f32;
    p = p * r + 1.398_199_9e-3;
    p = p * r + 8.333_452e-3;
    p = p * r + 4.166_579_6e-2;
    p = p * r + 1.666_666_5e-1;
    p = p * r + 0.5;
    let e = p * r * r + r + 1.0;
    // 2^n built from the integer bits of `t` (no float-to-int conversion, so this
    // vectorises).
    let bits = (t.to_bits().wrapping_sub((ROUND + 127.0).to_bits() - 127)) << 23;
    e * f32::from_bits(bits)
}

/// The error function, `|error| < 1.5e-7` (Abramowitz & Stegun 7.1.26), vectorisable.
#[inline(always)]
pub fn erf(x: f32) -> f32 {
    let a = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * a);
    let mut p = 1.061_405_4_f32;
    p = p * t - 1.453_152_1;
    p = p * t + 1.421_413_7;
    p = p * t - 0.284_496_74;
    p = p * t + 0.254_829_6;
    let y = 1.0 - p * t * exp(-a * a);
    y.copysign(x)
}

/// Exact (erf-based) GELU, as in BERT's `hidden_act = "gelu"`.
#[inline(always)]
pub fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// `x[r] = gelu(x[r] + bias)` for every row `r` of width `bias.len()`.
pub fn bias_gelu(x: &mut [f32], bias: &[f32]) {
    let w = bias.len();
    x.par_chunks_mut(w * ROW_BLOCK).for_each(|block| {
        for row in block.chunks_exact_mut(w) {
            for (v, b) in row.iter_mut().zip(bias) {
                *v = gelu(*v + b);
            }
        }
    });
}

/// Sum with eight independent lanes, so the loop vectorises (a plain `f32` sum cannot be
/// reordered by the compiler and runs one element at a time).
#[inline]
pub fn sum(x: &[f32]) -> f32 {
    let mut acc = [0f32; 8];
    let chunks = x.chunks_exact(8);
    let tail = chunks.remainder();
    for c in chunks {
        for i in 0..8 {
            acc[i] += c[i];
        }
    }
    acc.iter().sum::<f32>() + tail.iter().sum::<f32>()
}

/// Maximum with eight independent lanes (vectorises); `-inf` for an empty slice.
#[inline]
pub fn max(x: &[f32]) -> f32 {
    let mut acc = [f32::NEG_INFINITY; 8];
    let chunks = x.chunks_exact(8);
    let tail = chunks.remainder();
    for c in chunks {
        for i in 0..8 {
            acc[i] = if c[i] > acc[i] { c[i] } else { acc[i] };
        }
    }
    acc.iter()
        .chain(tail)
        .copied()
        .fold(f32::NEG_INFINITY, f32::max)
}

/// Layer norm of one row in place: `(x - mean) / sqrt(var + eps) * gamma + beta`.
#[inline]
pub fn layer_norm_row(row: &mut [f32], gamma: &[f32], beta: &[f32], eps: f32) {
    let n = row.len() as f32;
    let mean = sum(row) / n;
    let mut acc = [0f32; 8];
    let chunks = row.chunks_exact(8);
    let tail: f32 = chunks
        .remainder()
        .iter()
        .map(|v| (v - mean) * (v - mean))
        .sum();
    for c in chunks {
        for i in 0..8 {
            acc[i] += (c[i] - mean) * (c[i] - mean);
        }
    }
    let var = (acc.iter().sum::<f32>() + tail) / n;
    let inv = 1.0 / (var + eps).sqrt();
    for ((v, g), b) in row.iter_mut().zip(gamma).zip(beta) {
        *v = (*v - mean) * inv * g + b;
    }
}

/// `x[r] = layer_norm(x[r] + bias + residual[r])` for every row of width `bias.len()`.
pub fn bias_residual_layer_norm(
    x: &mut [f32],
    bias: &[f32],
    residual: &[f32],
    gamma: &[f32],
    beta: &[f32],
    eps: f32,
) {
    let w = bias.len();
    x.par_chunks_mut(w * ROW_BLOCK)
        .zip(residual.par_chunks(w * ROW_BLOCK))
        .for_each(|(block, res)| {
            for (row, r) in block.chunks_exact_mut(w).zip(res.chunks_exact(w)) {
                for ((v, b), rv) in row.iter_mut().zip(bias).zip(r) {
                    *v += b + rv;
                }
                layer_norm_row(row, gamma, beta, eps);
            }
        });
}

/// One sequence inside a packed batch: rows `start..start + len` of the token matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeqSpan {
    /// First token row of the sequence.
    pub start: usize,
    /// Number of tokens (no padding anywhere).
    pub len: usize,
}

/// `dst (m x n) = lhs (m x k) * rhs (k x n)` on strided f32 data, single-threaded (callers
/// parallelise over sequences). Strides are in elements: `(row, column)`.
///
/// # Safety
/// Every index `i * rs + j * cs` addressed for each operand must lie inside its slice.
#[allow(clippy::too_many_arguments)]
unsafe fn small_gemm(
    m: usize,
    n: usize,
    k: usize,
    dst: &mut [f32],
    dst_rs: usize,
    lhs: &[f32],
    lhs_rs: usize,
    lhs_cs: usize,
    rhs: &[f32],
    rhs_rs: usize,
    rhs_cs: usize,
) {
    gemm::gemm(
        m,
        n,
        k,
        dst.as_mut_ptr(),
        1,
        dst_rs as isize,
        false,
        lhs.as_ptr(),
        lhs_cs as isize,
        lhs_rs as isize,
        rhs.as_ptr(),
        rhs_cs as isize,
        rhs_rs as isize,
        0.0,
        1.0,
        false,
        false,
        false,
        gemm::Parallelism::None,
    );
}

/// Multi-head self-attention over packed, unpadded sequences.
///
/// `qkv` holds one row of width `3 * hidden` per token (query, key, value projections
/// before their bias, which is added here). Each sequence attends only to its own tokens,
/// so no mask and no padding are needed. Writes the context vectors (width `hidden`)
/// into `out`, row for row. Per sequence and head, `Q K^T` and `P V` are small gemm calls
/// on strided views; the softmax between them is vectorised.
pub fn attention(qkv: &[f32], bias: &[f32], seqs: &[SeqSpan], heads: usize, out: &mut [f32]) {
    let w3 = bias.len();
    let hidden = w3 / 3;
    let hd = hidden / heads;
    let scale = 1.0 / (hd as f32).sqrt();
    assert_eq!(qkv.len() % w3, 0, "qkv rows");
    assert!(out.len() * 3 >= qkv.len(), "output rows");
    // Hand each sequence its own disjoint slice of `out`.
    let mut parts: Vec<(SeqSpan, &mut [f32])> = Vec::with_capacity(seqs.len());
    let mut rest = out;
    for s in seqs {
        let (mine, tail) = rest.split_at_mut(s.len * hidden);
        parts.push((*s, mine));
        rest = tail;
    }
    parts.into_par_iter().for_each(|(s, out)| {
        let l = s.len;
        if l == 0 {
            return;
        }
        // Biased projections of this sequence, queries pre-scaled.
        let mut x = qkv[s.start * w3..(s.start + l) * w3].to_vec();
        for row in x.chunks_exact_mut(w3) {
            for (v, b) in row.iter_mut().zip(bias) {
                *v += b;
            }
            for v in &mut row[..hidden] {
                *v *= scale;
            }
        }
        let mut scores = vec![0f32; l * l];
        for h in 0..heads {
            let (qo, ko, vo) = (h * hd, hidden + h * hd, 2 * hidden + h * hd);
            // SAFETY: rows i < l and columns < hd (offset by qo/ko/vo < w3) stay inside
            // `x` (l * w3), `scores` is l * l, and `out` rows i < l with columns
            // h * hd + j < hidden stay inside `out` (l * hidden).
            unsafe {
                // scores = Q_h (l x hd) * K_h^T (hd x l)
                small_gemm(l, l, hd, &mut scores, l, &x[qo..], w3, 1, &x[ko..], 1, w3);
            }
            for row in scores.chunks_exact_mut(l) {
                let inv = softmax(row);
                for p in row.iter_mut() {
                    *p *= inv;
                }
            }
            unsafe {
                // out_h = P (l x l) * V_h (l x hd)
                small_gemm(
                    l,
                    hd,
                    l,
                    &mut out[h * hd..],
                    hidden,
                    &scores,
                    l,
                    1,
                    &x[vo..],
                    w3,
                    1,
                );
            }
        }
    });
}

/// Softmax numerators in place; returns `1 / sum`.
#[inline(always)]
fn softmax(scores: &mut [f32]) -> f32 {
    let m = max(scores);
    for s in scores.iter_mut() {
        *s = exp(*s - m);
    }
    1.0 / sum(scores)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_matches_std_across_range() {
        let mut worst = 0f32;
        let mut x = -80.0f32;
        while x < 80.0 {
            let rel = ((exp(x) - x.exp()) / x.exp()).abs();
            worst = worst.max(rel);
            x += 0.0137;
        }
        assert!(worst < 3e-7, "worst relative error {worst}");
        assert_eq!(exp(-1000.0), (-87.3f32).exp().max(exp(-87.3)));
    }

    #[test]
    fn erf_matches_reference_values() {
        // Values of erf from tables.
        for (x, want) in [
            (0.0f32, 0.0f32),
            (0.5, 0.520_499_9),
            (1.0, 0.842_700_8),
            (-1.0, -0.842_700_8),
            (2.0, 0.995_322_3),
            (-3.5, -0.999_999_3),
        ] {
            assert!(
                (erf(x) - want).abs() < 3e-7,
                "erf({x}) = {} want {want}",
                erf(x)
            );
        }
    }

    #[test]
    fn lane_sum_and_max_match_sequential() {
        let x: Vec<f32> = (0..37).map(|i| ((i * 7919) % 23) as f32 - 11.0).collect();
        assert_eq!(sum(&x), x.iter().sum::<f32>());
        assert_eq!(max(&x), 11.0);
        assert_eq!(max(&[]), f32::NEG_INFINITY);
        assert_eq!(sum(&[]), 0.0);
    }

    #[test]
    fn layer_norm_row_centres_and_scales() {
        let mut row = vec![1.0, 2.0, 3.0, 4.0];
        layer_norm_row(&mut row, &[1.0; 4], &[0.0; 4], 1e-12);
        let mean: f32 = row.iter().sum::<f32>() / 4.0;
        let var: f32 = row.iter().map(|v| v * v).sum::<f32>() / 4.0;
        assert!(mean.abs() < 1e-6);
        assert!((var - 1.0).abs() < 1e-5);
    }

    /// Naive attention for one sequence, for comparison.
    fn naive(qkv: &[f32], bias: &[f32], l: usize, heads: usize) -> Vec<f32> {
        let w3 = bias.len();
        let hidden = w3 / 3;
        let hd = hidden / heads;
        let at = |i: usize, c: usize| qkv[i * w3 + c] + bias[c];
        let mut out = vec![0f32; l * hidden];
        for h in 0..heads {
            for i in 0..l {
                let s: Vec<f64> = (0..l)
                    .map(|j| {
                        (0..hd)
                            .map(|d| (at(i, h * hd + d) * at(j, hidden + h * hd + d)) as f64)
                            .sum::<f64>()
                            / (hd as f64).sqrt()
                    })
                    .collect();
                let m = s.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                let e: Vec<f64> = s.iter().map(|x| (x - m).exp()).collect();
                let z: f64 = e.iter().sum();
                for d in 0..hd {
                    out[i * hidden + h * hd + d] = (0..l)
                        .map(|j| e[j] / z * at(j, 2 * hidden + h * hd + d) as f64)
                        .sum::<f64>() as f32;
                }
            }
        }
        out
    }

    #[test]
    fn packed_attention_equals_naive_attention_for_any_head_width() {
        check_attention(2, 8, &[3, 1, 5]);
    }

    #[test]
    fn packed_attention_equals_naive_attention_for_32_wide_heads() {
        check_attention(3, 96, &[9, 1, 17, 8]);
    }

    fn check_attention(heads: usize, hidden: usize, lens: &[usize]) {
        let total: usize = lens.iter().sum();
        let mut seed = 7u32;
        let mut rnd = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as f32 / (1u32 << 24) as f32 - 0.5
        };
        let qkv: Vec<f32> = (0..total * 3 * hidden).map(|_| rnd() * 4.0).collect();
        let bias: Vec<f32> = (0..3 * hidden).map(|_| rnd()).collect();
        let mut seqs = Vec::new();
        let mut at = 0;
        for &l in lens {
            seqs.push(SeqSpan { start: at, len: l });
            at += l;
        }
        let mut out = vec![0f32; total * hidden];
        attention(&qkv, &bias, &seqs, heads, &mut out);
        for s in &seqs {
            let part = &qkv[s.start * 3 * hidden..(s.start + s.len) * 3 * hidden];
            let want = naive(part, &bias, s.len, heads);
            let got = &out[s.start * hidden..(s.start + s.len) * hidden];
            for (g, w) in got.iter().zip(&want) {
                assert!((g - w).abs() < 1e-5, "{g} vs {w}");
            }
        }
    }
}
