//! Int8 matrix multiply for the linear layers of a small BERT encoder.
//!
//! # Math
//!
//! A linear layer computes `y = x · W` with `x` of shape `(rows, k)` and `W` of
//! shape `(k, n)`. Both operands are quantised symmetrically to 8 bits:
//!
//! * weights, once, per output column `c`: `sw[c] = max_i |W[i][c]| / 127` and
//!   `qw[i][c] = round(W[i][c] / sw[c])` in `[-127, 127]` (i8);
//! * activations, on the fly, per row `r`: `sx[r] = max_i |x[r][i]| / 127` and
//!   `qx[r][i] = round(x[r][i] / sx[r])` in `[-127, 127]`, stored shifted as
//!   `ux = qx + 128` (u8) because the VNNI instruction `vpdpbusd` multiplies
//!   unsigned bytes by signed bytes.
//!
//! The integer accumulator is `acc = Σ_i ux[i]·qw[i][c] = Σ_i qx[i]·qw[i][c] +
//! 128·colsum[c]` with `colsum[c] = Σ_i qw[i][c]`, so the output is
//! `y[r][c] = ((acc - 128·colsum[c]) as f32) · (sx[r] · sw[c])`. All kernels use
//! exactly this integer sum and this f32 expression (same operation order), so
//! they give bit-identical results.
//!
//! # Layout
//!
//! Output columns are grouped in panels of 16 (the last panel is zero padded).
//! Inside a panel the `k` inputs are grouped by 4 (`k` is zero padded to a
//! multiple of 4); group `g` of panel `p` is 64 contiguous bytes, column `j`
//! owning bytes `4j..4j+4` = `qw[4g..4g+4][16p + j]`. One `vpdpbusd` with a
//! broadcast of 4 activation bytes therefore advances 16 column accumulators by
//! 4 inputs. Panels are stored one after the other (`k4 · 64` bytes each).
//! Quantised activations of a block of rows are kept row-major with the row
//! length padded to `k4 · 4` (pad value 128, i.e. zero).
//!
//! The AVX-512 micro-kernel holds 8 rows × 48 columns (24 zmm) of i32
//! accumulators; the AVX-VNNI one 6 rows × 16 columns (12 ymm).
//!
//! The AVX2 kernel (no VNNI) must not use `vpmaddubsw`, whose i16 saturation
//! would change the sums. It multiplies i16 by i16 with `vpmaddwd` (exact) and
//! uses the signed activations `qx = ux - 128` directly, so its accumulator is
//! `Σ qx·qw = acc - 128·colsum` exactly and it skips the correction; the f32
//! expression is unchanged. Its weights are widened lazily (on first use, or
//! at construction if it is the detected kernel) into a second layout of
//! `2 · panels · k4 · 64` bytes: panels of 8 columns, inside a panel `k4 · 2`
//! pairs of inputs, pair `h` being 16 contiguous i16 with column `j` owning
//! `qw[2h..2h+2][8p + j]`. Each task converts a strip of 6 activation rows to
//! i16; a `vpmaddwd` of a broadcast pair (`set1_epi32`) with one pair of the
//! panel, then a `vpaddd`, advances 8 column accumulators by 2 inputs. The
//! micro-kernel holds 6 rows × 16 columns (12 ymm of accumulators; with 2
//! weight vectors, the broadcast and the product it uses all 16 ymm, so a
//! wider tile would spill).
//!
//! Rows are split
//! into blocks of at most 64 (at least 8) that run in parallel with rayon;
//! each task quantises its rows once into a reused buffer, then for every
//! strip of rows runs the micro-kernel over all column tiles (weights come
//! from L2, at most `1536 · 384` bytes per layer here).
//!
//! # Non-finite values and limits
//!
//! A row of `x` containing NaN or ±inf yields an all-NaN output row (never a
//! panic); a weight column containing NaN or ±inf yields NaN in that output
//! column. A zero row (or column) yields zeros. Subnormal magnitudes are
//! handled but lose precision. `k` is limited to 65536 so the i32 accumulators
//! cannot overflow.

use rayon::prelude::*;
use std::sync::OnceLock;

/// Output columns per packed panel (one zmm of i32).
const NB: usize = 16;
/// Output columns per panel of the i16 layout of [`Kernel::Avx2`] (one ymm).
const NB2: usize = 8;
/// Bytes of one 4-input group of a panel.
const GROUP_BYTES: usize = 4 * NB;
/// Maximum rows per rayon task.
const ROW_BLOCK: usize = 64;
/// Largest supported `k` (keeps the i32 accumulators exact).
const MAX_K: usize = 1 << 16;

/// SIMD kernel used by [`QuantLinear::matmul`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// 512-bit `vpdpbusd` (AVX-512 VNNI).
    Avx512Vnni,
    /// 256-bit `vpdpbusd` (AVX-VNNI).
    AvxVnni,
    /// 256-bit `vpmaddwd` on i16-widened operands (AVX2 without VNNI).
    Avx2,
    /// Portable scalar code (auto-vectorised by the compiler).
    Portable,
}

impl std::fmt::Display for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Kernel::Avx512Vnni => "AVX-512 VNNI",
            Kernel::AvxVnni => "AVX-VNNI",
            Kernel::Avx2 => "AVX2",
            Kernel::Portable => "portable",
        })
    }
}

/// Kernel that `matmul` uses on this CPU (detected once).
pub fn kernel() -> Kernel {
    static KERNEL: OnceLock<Kernel> = OnceLock::new();
    *KERNEL.get_or_init(|| {
        if supported(Kernel::Avx512Vnni) {
            Kernel::Avx512Vnni
        } else if supported(Kernel::AvxVnni) {
            Kernel::AvxVnni
        } else if supported(Kernel::Avx2) {
            Kernel::Avx2
        } else {
            Kernel::Portable
        }
    })
}

/// Whether `kern` can run on this CPU.
fn supported(kern: Kernel) -> bool {
    match kern {
        Kernel::Portable => true,
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx512Vnni => {
            is_x86_feature_detected!("avx512f")
                && is_x86_feature_detected!("avx512bw")
                && is_x86_feature_detected!("avx512vl")
                && is_x86_feature_detected!("avx512vnni")
        }
        #[cfg(target_arch = "x86_64")]
        Kernel::AvxVnni => is_x86_feature_detected!("avx2") && is_x86_feature_detected!("avxvnni"),
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2 => is_x86_feature_detected!("avx2"),
        #[cfg(not(target_arch = "x86_64"))]
        _ => false,
    }
}

/// Weights of one linear layer `y = x · W` quantised to i8 with one scale per
/// output column (symmetric, `scale = max|w_col| / 127`).
#[derive(Debug, Clone)]
pub struct QuantLinear {
    k: usize,
    n: usize,
    /// `k` rounded up to a multiple of 4, divided by 4.
    k4: usize,
    /// Number of 16-column panels.
    panels: usize,
    /// `panels · k4 · 64` bytes, see the module docs.
    packed: Vec<i8>,
    /// Per-column scales, padded with zeros to `panels · 16`.
    scales: Vec<f32>,
    /// Per-column sums of the quantised weights, padded with zeros.
    colsums: Vec<i32>,
    /// The weights widened to i16 for [`Kernel::Avx2`] (8-column panels of
    /// input pairs, see the module docs); built on first use.
    wide: OnceLock<Vec<i16>>,
}

impl QuantLinear {
    /// Quantises row-major f32 weights of shape `(k, n)` (`x · W` layout).
    ///
    /// Panics if `w.len() != k * n` or `k > 65536`.
    pub fn from_kn(w: &[f32], k: usize, n: usize) -> QuantLinear {
        assert_eq!(Some(w.len()), k.checked_mul(n), "weights must be k * n");
        assert!(k <= MAX_K, "k = {k} exceeds {MAX_K}");
        let (k4, panels) = (k.div_ceil(4), n.div_ceil(NB));
        let mut packed = vec![0i8; panels * k4 * GROUP_BYTES];
        let mut scales = vec![0f32; panels * NB];
        let mut colsums = vec![0i32; panels * NB];
        for c in 0..n {
            let col = || (0..k).map(|i| w[i * n + c]);
            let max_bits = col().fold(0u32, |m, v| m.max(v.to_bits() & 0x7fff_ffff));
            let maxabs = f32::from_bits(max_bits);
            if !maxabs.is_finite() {
                scales[c] = f32::NAN;
                continue;
            }
            scales[c] = maxabs / 127.0;
            let base = (c / NB) * k4 * GROUP_BYTES + (c % NB) * 4;
            let mut sum = 0i32;
            for (i, v) in col().enumerate() {
                let q = quantise(v, maxabs);
                packed[base + (i / 4) * GROUP_BYTES + i % 4] = q as i8;
                sum += q;
            }
            colsums[c] = sum;
        }
        let q = QuantLinear {
            k,
            n,
            k4,
            panels,
            packed,
            scales,
            colsums,
            wide: OnceLock::new(),
        };
        if kernel() == Kernel::Avx2 {
            q.wide();
        }
        q
    }

    /// The i16 weight layout of [`Kernel::Avx2`], built on first call.
    fn wide(&self) -> &[i16] {
        self.wide.get_or_init(|| {
            let (k2, plen) = (self.k4 * 2, self.k4 * GROUP_BYTES);
            let panels8 = self.n.div_ceil(NB2);
            let mut wide = vec![0i16; panels8 * k2 * 2 * NB2];
            for (p, panel) in wide.chunks_exact_mut(k2 * 2 * NB2).enumerate() {
                let src = &self.packed[(p / 2) * plen..];
                for (h, pair) in panel.chunks_exact_mut(2 * NB2).enumerate() {
                    for (j, d) in pair.chunks_exact_mut(2).enumerate() {
                        // Column 8p + j, inputs 2h and 2h + 1 in the i8 layout.
                        let at = (h / 2) * GROUP_BYTES + ((p % 2) * NB2 + j) * 4 + (h % 2) * 2;
                        d[0] = i16::from(src[at]);
                        d[1] = i16::from(src[at + 1]);
                    }
                }
            }
            wide
        })
    }

    /// Number of inputs `k`.
    pub fn inputs(&self) -> usize {
        self.k
    }

    /// Number of outputs `n`.
    pub fn outputs(&self) -> usize {
        self.n
    }

    /// `out (rows × n) = x (rows × k) · W`, both row-major.
    ///
    /// Activations are quantised per row on the fly; row blocks run in
    /// parallel with rayon. Panics if the slice lengths do not match.
    pub fn matmul(&self, x: &[f32], rows: usize, out: &mut [f32]) {
        self.matmul_using(kernel(), x, rows, out);
    }

    /// [`matmul`](Self::matmul) with an explicit kernel (for tests and
    /// benchmarks); falls back to [`Kernel::Portable`] if `kern` is not
    /// supported by this CPU. All kernels give bit-identical results.
    pub fn matmul_using(&self, kern: Kernel, x: &[f32], rows: usize, out: &mut [f32]) {
        assert_eq!(
            Some(x.len()),
            rows.checked_mul(self.k),
            "x must be rows * k"
        );
        assert_eq!(
            Some(out.len()),
            rows.checked_mul(self.n),
            "out must be rows * n"
        );
        if rows == 0 || self.n == 0 {
            return;
        }
        if self.k == 0 {
            out.fill(0.0);
            return;
        }
        let kern = if supported(kern) {
            kern
        } else {
            Kernel::Portable
        };
        let kp = self.k4 * 4;
        // Small batches: shrink the blocks so every thread gets some rows.
        let tasks = rayon::current_num_threads() * 4;
        let rb = rows.div_ceil(tasks).next_multiple_of(8).clamp(8, ROW_BLOCK);
        out.par_chunks_mut(rb * self.n)
            .zip(x.par_chunks(rb * self.k))
            .for_each_init(
                || (Vec::new(), Vec::new()),
                |(qa, sx): &mut (Vec<u8>, Vec<f32>), (o, xb)| {
                    let m = xb.len() / self.k;
                    qa.resize(m * kp, 128);
                    sx.resize(m, 0.0);
                    let (qa, sx) = (&mut qa[..m * kp], &mut sx[..m]);
                    quantise_block(kern, xb, self.k, qa, sx);
                    self.run_block(kern, qa, sx, o);
                },
            );
    }

    /// Multiplies one block of quantised rows into `out`.
    fn run_block(&self, kern: Kernel, qa: &[u8], sx: &[f32], out: &mut [f32]) {
        match kern {
            // SAFETY: `matmul_using` only passes SIMD kernels that `supported`
            // detected on this CPU, so the target features are available.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512Vnni => unsafe { x86::block_512(self, qa, sx, out) },
            // SAFETY: as above, AVX2 + AVX-VNNI were detected.
            #[cfg(target_arch = "x86_64")]
            Kernel::AvxVnni => unsafe { x86::block_256(self, qa, sx, out) },
            // SAFETY: as above, AVX2 was detected.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { x86::block_avx2(self, self.wide(), qa, sx, out) },
            _ => portable_block(self, qa, sx, out),
        }
    }
}

/// Quantises `v` with row/column maximum `maxabs` to `[-127, 127]`.
#[inline]
fn quantise(v: f32, maxabs: f32) -> i32 {
    if maxabs == 0.0 {
        return 0;
    }
    ((v / maxabs) * 127.0)
        .round_ties_even()
        .clamp(-127.0, 127.0) as i32
}

/// `round_ties_even(t) + 128` as u8 for finite `|t| <= 127.5`, branch-free.
///
/// Adding 1.5·2^23 puts the rounded integer in the low mantissa bits (the FP
/// add rounds to nearest-even); its low byte XOR 0x80 is the shifted value.
/// Equivalent to the saturating `as` cast, which LLVM does not vectorise.
#[inline(always)]
fn to_u8(t: f32) -> u8 {
    const MAGIC: f32 = 12_582_912.0;
    ((t.clamp(-127.0, 127.0) + MAGIC).to_bits() as u8) ^ 0x80
}

/// Quantises rows of length `k` from `x` into `qa` (row length `qa.len() /
/// sx.len()`) and their scales into `sx`, compiled for the kernel's ISA.
fn quantise_block(kern: Kernel, x: &[f32], k: usize, qa: &mut [u8], sx: &mut [f32]) {
    match kern {
        // SAFETY: `matmul_using` passes only kernels detected by `supported`.
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx512Vnni => unsafe { x86::quantise_512(x, k, qa, sx) },
        // SAFETY: as above (AVX2 detected).
        #[cfg(target_arch = "x86_64")]
        Kernel::AvxVnni | Kernel::Avx2 => unsafe { x86::quantise_256(x, k, qa, sx) },
        _ => quantise_rows(x, k, qa, sx),
    }
}

/// Portable body of [`quantise_block`] (the same IEEE operations on every ISA).
#[inline(always)]
fn quantise_rows(x: &[f32], k: usize, qa: &mut [u8], sx: &mut [f32]) {
    let kp = qa.len() / sx.len().max(1);
    let rows = x.chunks_exact(k).zip(qa.chunks_exact_mut(kp));
    for ((row, q), s) in rows.zip(sx.iter_mut()) {
        *s = quantise_row(row, q);
    }
}

/// Quantises one activation row into `q` (u8, shifted by 128, padded with
/// 128) and returns its scale; NaN if the row holds a non-finite value.
#[inline(always)]
fn quantise_row(row: &[f32], q: &mut [u8]) -> f32 {
    let max_bits = row
        .iter()
        .fold(0u32, |m, v| m.max(v.to_bits() & 0x7fff_ffff));
    let maxabs = f32::from_bits(max_bits);
    let (body, pad) = q.split_at_mut(row.len());
    pad.fill(128);
    if !maxabs.is_finite() {
        body.fill(128);
        return f32::NAN;
    }
    if maxabs > 1e-30 {
        // Fast path: multiply by the (finite) inverse scale.
        let inv = 127.0 / maxabs;
        for (d, &v) in body.iter_mut().zip(row) {
            *d = to_u8(v * inv);
        }
    } else {
        for (d, &v) in body.iter_mut().zip(row) {
            *d = to_u8((v / maxabs) * 127.0);
        }
    }
    maxabs / 127.0
}

/// Dequantises one integer accumulator (shared by all kernels' semantics).
#[inline]
fn dequant(acc: i32, colsum: i32, sx: f32, sw: f32) -> f32 {
    (acc.wrapping_sub(colsum.wrapping_mul(128))) as f32 * (sx * sw)
}

/// Portable kernel: one row × one 16-column panel at a time.
fn portable_block(q: &QuantLinear, qa: &[u8], sx: &[f32], out: &mut [f32]) {
    let (kp, plen) = (q.k4 * 4, q.k4 * GROUP_BYTES);
    for ((arow, &s), orow) in qa.chunks_exact(kp).zip(sx).zip(out.chunks_exact_mut(q.n)) {
        for p in 0..q.panels {
            let acc = dot_panel(arow, &q.packed[p * plen..(p + 1) * plen]);
            let col0 = p * NB;
            let valid = (q.n - col0).min(NB);
            for (j, o) in orow[col0..col0 + valid].iter_mut().enumerate() {
                let c = col0 + j;
                *o = dequant(acc[j], q.colsums[c], s, q.scales[c]);
            }
        }
    }
}

/// Integer dot products of one quantised row with the 16 columns of a panel.
#[inline]
fn dot_panel(arow: &[u8], panel: &[i8]) -> [i32; NB] {
    let mut acc = [0i32; NB];
    let (groups, _) = panel.as_chunks::<GROUP_BYTES>();
    for (a4, w64) in arow.as_chunks::<4>().0.iter().zip(groups) {
        // Per-group partial sums fit i32 trivially; this form vectorises well.
        let mut part = [0i32; NB];
        for (j, p) in part.iter_mut().enumerate() {
            *p = i32::from(a4[0]) * i32::from(w64[4 * j])
                + i32::from(a4[1]) * i32::from(w64[4 * j + 1])
                + i32::from(a4[2]) * i32::from(w64[4 * j + 2])
                + i32::from(a4[3]) * i32::from(w64[4 * j + 3]);
        }
        for (acc_j, p) in acc.iter_mut().zip(part) {
            *acc_j = acc_j.wrapping_add(p);
        }
    }
    acc
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    //! VNNI and AVX2 micro-kernels. Every function here requires its target
    //! features.

    use super::QuantLinear;
    use super::{GROUP_BYTES, NB, NB2};
    use std::arch::x86_64::*;

    /// Rows per AVX-512 micro-tile.
    const MR512: usize = 8;
    /// Panels (of 16 columns) per AVX-512 micro-tile.
    const NP512: usize = 3;
    /// Rows per AVX-VNNI micro-tile.
    const MR256: usize = 6;
    /// Rows per AVX2 micro-tile.
    const MR2: usize = 6;
    /// Panels (of 8 columns) per AVX2 micro-tile.
    const NP2: usize = 2;

    /// Splits a row block into micro-tile row strips and calls `strip(m, a, sx, out)`.
    #[inline(always)]
    fn for_strips(
        q: &QuantLinear,
        mr: usize,
        qa: &[u8],
        sx: &[f32],
        out: &mut [f32],
        mut strip: impl FnMut(usize, &[u8], &[f32], &mut [f32]),
    ) {
        let kp = q.k4 * 4;
        let strips = qa
            .chunks(mr * kp)
            .zip(sx.chunks(mr))
            .zip(out.chunks_mut(mr * q.n));
        for ((a, s), o) in strips {
            strip(s.len(), a, s, o);
        }
    }

    /// Activation quantisation compiled for AVX-512.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    pub(super) fn quantise_512(x: &[f32], k: usize, qa: &mut [u8], sx: &mut [f32]) {
        super::quantise_rows(x, k, qa, sx);
    }

    /// Activation quantisation compiled for AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) fn quantise_256(x: &[f32], k: usize, qa: &mut [u8], sx: &mut [f32]) {
        super::quantise_rows(x, k, qa, sx);
    }

    /// AVX-512 VNNI kernel for one block of quantised rows.
    #[target_feature(enable = "avx512f,avx512vnni")]
    pub(super) fn block_512(q: &QuantLinear, qa: &[u8], sx: &[f32], out: &mut [f32]) {
        for_strips(q, MR512, qa, sx, out, |m, a, s, o| match m {
            8 => strip_512::<8>(q, a, s, o),
            7 => strip_512::<7>(q, a, s, o),
            6 => strip_512::<6>(q, a, s, o),
            5 => strip_512::<5>(q, a, s, o),
            4 => strip_512::<4>(q, a, s, o),
            3 => strip_512::<3>(q, a, s, o),
            2 => strip_512::<2>(q, a, s, o),
            _ => strip_512::<1>(q, a, s, o),
        });
    }

    /// All column tiles of one strip of `M` rows.
    #[target_feature(enable = "avx512f,avx512vnni")]
    fn strip_512<const M: usize>(q: &QuantLinear, a: &[u8], sx: &[f32], out: &mut [f32]) {
        let mut p0 = 0;
        while p0 + NP512 <= q.panels {
            tile_512::<M, NP512>(q, a, sx, out, p0);
            p0 += NP512;
        }
        match q.panels - p0 {
            2 => tile_512::<M, 2>(q, a, sx, out, p0),
            1 => tile_512::<M, 1>(q, a, sx, out, p0),
            _ => {}
        }
    }

    /// Micro-kernel: `M` rows × `P` panels starting at panel `p0`.
    #[target_feature(enable = "avx512f,avx512vnni")]
    fn tile_512<const M: usize, const P: usize>(
        q: &QuantLinear,
        a: &[u8],
        sx: &[f32],
        out: &mut [f32],
        p0: usize,
    ) {
        let (k4, n) = (q.k4, q.n);
        let (kp, plen) = (k4 * 4, k4 * GROUP_BYTES);
        assert!(a.len() >= M * kp && sx.len() >= M && out.len() >= M * n);
        let w = q.packed[p0 * plen..(p0 + P) * plen].as_ptr();
        let ap = a.as_ptr();
        let mut acc = [[_mm512_setzero_si512(); P]; M];
        for g in 0..k4 {
            let mut wv = [_mm512_setzero_si512(); P];
            for (p, v) in wv.iter_mut().enumerate() {
                // SAFETY: panel p0 + p has k4 groups of 64 bytes inside the
                // slice bounds-checked above; loadu has no alignment need.
                *v = unsafe { _mm512_loadu_si512(w.add(p * plen + g * GROUP_BYTES).cast()) };
            }
            for (r, acc_r) in acc.iter_mut().enumerate() {
                // SAFETY: r < M and 4g + 4 <= kp, so the 4 bytes lie inside
                // `a` (asserted to hold M * kp bytes); read_unaligned is used.
                let b = unsafe { ap.add(r * kp + g * 4).cast::<i32>().read_unaligned() };
                let bv = _mm512_set1_epi32(b);
                for (acc_rp, &wp) in acc_r.iter_mut().zip(&wv) {
                    *acc_rp = _mm512_dpbusd_epi32(*acc_rp, bv, wp);
                }
            }
        }
        for (p, col0) in (0..P).map(|p| (p, (p0 + p) * NB)) {
            let valid = (n - col0).min(NB);
            let mask: __mmask16 = u16::MAX >> (NB - valid);
            // SAFETY: scales and colsums are padded to panels * 16 entries.
            let (sw, cs) = unsafe {
                (
                    _mm512_loadu_ps(q.scales.as_ptr().add(col0)),
                    _mm512_loadu_si512(q.colsums.as_ptr().add(col0).cast()),
                )
            };
            let shift = _mm512_slli_epi32::<7>(cs);
            for (r, acc_r) in acc.iter().enumerate() {
                let v = _mm512_cvtepi32_ps(_mm512_sub_epi32(acc_r[p], shift));
                let y = _mm512_mul_ps(v, _mm512_mul_ps(_mm512_set1_ps(sx[r]), sw));
                // SAFETY: row r < M, columns col0..col0 + valid < n, and
                // out holds M * n floats; masked lanes are not written.
                unsafe { _mm512_mask_storeu_ps(out.as_mut_ptr().add(r * n + col0), mask, y) };
            }
        }
    }

    /// AVX-VNNI (256-bit) kernel for one block of quantised rows.
    #[target_feature(enable = "avx2,avxvnni")]
    pub(super) fn block_256(q: &QuantLinear, qa: &[u8], sx: &[f32], out: &mut [f32]) {
        for_strips(q, MR256, qa, sx, out, |m, a, s, o| {
            for p in 0..q.panels {
                match m {
                    6 => tile_256::<6>(q, a, s, o, p),
                    5 => tile_256::<5>(q, a, s, o, p),
                    4 => tile_256::<4>(q, a, s, o, p),
                    3 => tile_256::<3>(q, a, s, o, p),
                    2 => tile_256::<2>(q, a, s, o, p),
                    _ => tile_256::<1>(q, a, s, o, p),
                }
            }
        });
    }

    /// Micro-kernel: `M` rows × one 16-column panel `p` (two ymm halves).
    #[target_feature(enable = "avx2,avxvnni")]
    fn tile_256<const M: usize>(q: &QuantLinear, a: &[u8], sx: &[f32], out: &mut [f32], p: usize) {
        let (k4, n) = (q.k4, q.n);
        let (kp, plen) = (k4 * 4, k4 * GROUP_BYTES);
        assert!(a.len() >= M * kp && sx.len() >= M && out.len() >= M * n);
        let w = q.packed[p * plen..(p + 1) * plen].as_ptr();
        let ap = a.as_ptr();
        let mut acc = [[_mm256_setzero_si256(); 2]; M];
        for g in 0..k4 {
            // SAFETY: group g of panel p is 64 bytes inside the checked slice.
            let (w0, w1) = unsafe {
                let base = w.add(g * GROUP_BYTES).cast::<__m256i>();
                (_mm256_loadu_si256(base), _mm256_loadu_si256(base.add(1)))
            };
            for (r, acc_r) in acc.iter_mut().enumerate() {
                // SAFETY: r < M and 4g + 4 <= kp, inside `a` (asserted above).
                let b = unsafe { ap.add(r * kp + g * 4).cast::<i32>().read_unaligned() };
                let bv = _mm256_set1_epi32(b);
                acc_r[0] = _mm256_dpbusd_avx_epi32(acc_r[0], bv, w0);
                acc_r[1] = _mm256_dpbusd_avx_epi32(acc_r[1], bv, w1);
            }
        }
        let col0 = p * NB;
        let valid = (n - col0).min(NB);
        for h in 0..2 {
            let c = col0 + 8 * h;
            // SAFETY: scales and colsums are padded to panels * 16 entries.
            let (sw, cs) = unsafe {
                (
                    _mm256_loadu_ps(q.scales.as_ptr().add(c)),
                    _mm256_loadu_si256(q.colsums.as_ptr().add(c).cast()),
                )
            };
            let shift = _mm256_slli_epi32::<7>(cs);
            for (r, acc_r) in acc.iter().enumerate() {
                let v = _mm256_cvtepi32_ps(_mm256_sub_epi32(acc_r[h], shift));
                let y = _mm256_mul_ps(v, _mm256_mul_ps(_mm256_set1_ps(sx[r]), sw));
                let mut tmp = [0f32; 8];
                // SAFETY: tmp holds 8 floats; storeu has no alignment need.
                unsafe { _mm256_storeu_ps(tmp.as_mut_ptr(), y) };
                let take = valid.saturating_sub(8 * h).min(8);
                if take == 0 {
                    break;
                }
                out[r * n + c..r * n + c + take].copy_from_slice(&tmp[..take]);
            }
        }
    }
    /// AVX2 kernel (no VNNI) for one block of quantised rows; `wide` is
    /// [`QuantLinear::wide`].
    #[target_feature(enable = "avx2")]
    pub(super) fn block_avx2(
        q: &QuantLinear,
        wide: &[i16],
        qa: &[u8],
        sx: &[f32],
        out: &mut [f32],
    ) {
        // Signed activations of one strip: qx = ux - 128 as i16.
        let mut a16 = vec![0i16; MR2 * q.k4 * 4];
        for_strips(q, MR2, qa, sx, out, |m, a, s, o| {
            for (d, &u) in a16.iter_mut().zip(a) {
                *d = i16::from(u) - 128;
            }
            match m {
                6 => strip_avx2::<6>(q, wide, &a16, s, o),
                5 => strip_avx2::<5>(q, wide, &a16, s, o),
                4 => strip_avx2::<4>(q, wide, &a16, s, o),
                3 => strip_avx2::<3>(q, wide, &a16, s, o),
                2 => strip_avx2::<2>(q, wide, &a16, s, o),
                _ => strip_avx2::<1>(q, wide, &a16, s, o),
            }
        });
    }

    /// All column tiles of one strip of `M` rows (AVX2).
    #[target_feature(enable = "avx2")]
    fn strip_avx2<const M: usize>(
        q: &QuantLinear,
        wide: &[i16],
        a: &[i16],
        sx: &[f32],
        out: &mut [f32],
    ) {
        let panels8 = q.n.div_ceil(NB2);
        let mut p0 = 0;
        while p0 + NP2 <= panels8 {
            tile_avx2::<M, NP2>(q, wide, a, sx, out, p0);
            p0 += NP2;
        }
        match panels8 - p0 {
            2 => tile_avx2::<M, 2>(q, wide, a, sx, out, p0),
            1 => tile_avx2::<M, 1>(q, wide, a, sx, out, p0),
            _ => {}
        }
    }

    /// Micro-kernel: `M` rows × `P` 8-column panels from panel `p0`, on
    /// signed i16 activations `a` (rows of `k4 · 4`) and i16 weights `wide`.
    #[target_feature(enable = "avx2")]
    fn tile_avx2<const M: usize, const P: usize>(
        q: &QuantLinear,
        wide: &[i16],
        a: &[i16],
        sx: &[f32],
        out: &mut [f32],
        p0: usize,
    ) {
        let (k2, n) = (q.k4 * 2, q.n);
        let (kp, plen) = (k2 * 2, k2 * 2 * NB2);
        assert!(a.len() >= M * kp && sx.len() >= M && out.len() >= M * n);
        let w = wide[p0 * plen..(p0 + P) * plen].as_ptr();
        let ap = a.as_ptr();
        let mut acc = [[_mm256_setzero_si256(); P]; M];
        for h in 0..k2 {
            let mut wv = [_mm256_setzero_si256(); P];
            for (p, v) in wv.iter_mut().enumerate() {
                // SAFETY: panel p0 + p has k2 pairs of 16 i16 inside the
                // slice bounds-checked above; loadu has no alignment need.
                *v = unsafe { _mm256_loadu_si256(w.add(p * plen + h * 2 * NB2).cast()) };
            }
            for (r, acc_r) in acc.iter_mut().enumerate() {
                // SAFETY: r < M and 2h + 2 <= kp, so the two i16 lie inside
                // `a` (asserted to hold M * kp); read_unaligned is used.
                let b = unsafe { ap.add(r * kp + h * 2).cast::<i32>().read_unaligned() };
                let bv = _mm256_set1_epi32(b);
                for (acc_rp, &wp) in acc_r.iter_mut().zip(&wv) {
                    // Exact: |2 · 127 · 127| fits i32, as does the total.
                    *acc_rp = _mm256_add_epi32(*acc_rp, _mm256_madd_epi16(bv, wp));
                }
            }
        }
        for (p, col0) in (0..P).map(|p| (p, (p0 + p) * NB2)) {
            let valid = (n - col0).min(NB2);
            // SAFETY: scales are padded to panels * 16 >= panels8 * 8 entries.
            let sw = unsafe { _mm256_loadu_ps(q.scales.as_ptr().add(col0)) };
            for (r, acc_r) in acc.iter().enumerate() {
                // acc_r[p] already equals acc - 128 · colsum (signed inputs).
                let v = _mm256_cvtepi32_ps(acc_r[p]);
                let y = _mm256_mul_ps(v, _mm256_mul_ps(_mm256_set1_ps(sx[r]), sw));
                let dst = &mut out[r * n + col0..r * n + col0 + valid];
                if valid == NB2 {
                    // SAFETY: dst holds 8 floats; storeu has no alignment need.
                    unsafe { _mm256_storeu_ps(dst.as_mut_ptr(), y) };
                } else {
                    let mut tmp = [0f32; NB2];
                    // SAFETY: tmp holds 8 floats.
                    unsafe { _mm256_storeu_ps(tmp.as_mut_ptr(), y) };
                    dst.copy_from_slice(&tmp[..valid]);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Small deterministic PRNG (xorshift64*).
    struct Rng(u64);

    impl Rng {
        fn next_u64(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }

        /// Uniform in [0, 1).
        fn uniform(&mut self) -> f32 {
            (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
        }

        /// Approximately standard normal (sum of 4 uniforms).
        fn gauss(&mut self) -> f32 {
            ((0..4).map(|_| self.uniform()).sum::<f32>() - 2.0) * 3f32.sqrt()
        }

        fn vec(&mut self, len: usize) -> Vec<f32> {
            (0..len).map(|_| self.gauss()).collect()
        }
    }

    fn reference(x: &[f32], w: &[f32], rows: usize, k: usize, n: usize) -> Vec<f32> {
        let mut out = vec![0f32; rows * n];
        for r in 0..rows {
            for i in 0..k {
                let xv = x[r * k + i];
                for c in 0..n {
                    out[r * n + c] += xv * w[i * n + c];
                }
            }
        }
        out
    }

    fn simd_kernels() -> Vec<Kernel> {
        [Kernel::Avx512Vnni, Kernel::AvxVnni, Kernel::Avx2]
            .into_iter()
            .filter(|&k| supported(k))
            .collect()
    }

    #[test]
    fn simd_matches_portable_bitwise() {
        let mut rng = Rng(0x1234_5678_9abc_def1);
        for &k in &[1, 3, 5, 384, 1536] {
            for &n in &[1, 17, 384, 1152, 1536] {
                for &rows in &[1, 3, 7, 64, 67] {
                    let w = rng.vec(k * n);
                    let x = rng.vec(rows * k);
                    let q = QuantLinear::from_kn(&w, k, n);
                    let mut want = vec![0f32; rows * n];
                    q.matmul_using(Kernel::Portable, &x, rows, &mut want);
                    for kern in simd_kernels() {
                        let mut got = vec![f32::NAN; rows * n];
                        q.matmul_using(kern, &x, rows, &mut got);
                        let same = got
                            .iter()
                            .zip(&want)
                            .all(|(a, b)| a.to_bits() == b.to_bits());
                        assert!(same, "{kern:?} differs: k={k} n={n} rows={rows}");
                    }
                }
            }
        }
    }

    #[test]
    fn close_to_f32_reference() {
        let mut rng = Rng(42);
        for &(rows, k, n) in &[(7, 384, 1152), (5, 1536, 384), (3, 5, 17), (9, 384, 384)] {
            let w = rng.vec(k * n);
            let x = rng.vec(rows * k);
            let want = reference(&x, &w, rows, k, n);
            let q = QuantLinear::from_kn(&w, k, n);
            let mut got = vec![0f32; rows * n];
            q.matmul(&x, rows, &mut got);
            for (g, r) in got.chunks(n).zip(want.chunks(n)) {
                let dot: f64 = g.iter().zip(r).map(|(a, b)| f64::from(a * b)).sum();
                let ng: f64 = g.iter().map(|a| f64::from(a * a)).sum();
                let nr: f64 = r.iter().map(|a| f64::from(a * a)).sum();
                let cos = dot / (ng.sqrt() * nr.sqrt());
                assert!(cos >= 0.999, "cosine {cos} for k={k} n={n}");
            }
        }
    }

    #[test]
    fn zero_and_non_finite_rows() {
        let (k, n, rows) = (37, 21, 4);
        let mut rng = Rng(7);
        let w = rng.vec(k * n);
        let mut x = rng.vec(rows * k);
        x[..k].fill(0.0);
        x[k + 3] = f32::NAN;
        x[2 * k + 5] = f32::INFINITY;
        let q = QuantLinear::from_kn(&w, k, n);
        for kern in simd_kernels().into_iter().chain([Kernel::Portable]) {
            let mut out = vec![0f32; rows * n];
            q.matmul_using(kern, &x, rows, &mut out);
            assert!(out[..n].iter().all(|&v| v == 0.0), "{kern:?}: zero row");
            assert!(
                out[n..3 * n].iter().all(|v| v.is_nan()),
                "{kern:?}: NaN rows"
            );
            assert!(
                out[3 * n..].iter().all(|v| v.is_finite()),
                "{kern:?}: finite row"
            );
        }
    }

    #[test]
    fn degenerate_shapes_and_weights() {
        let q = QuantLinear::from_kn(&[], 0, 3);
        let mut out = vec![1f32; 6];
        q.matmul(&[], 2, &mut out);
        assert_eq!(out, vec![0.0; 6]);
        let q = QuantLinear::from_kn(&[0.0, f32::NAN, 0.0, 1.0], 2, 2);
        assert_eq!((q.inputs(), q.outputs()), (2, 2));
        let mut out = vec![0f32; 2];
        q.matmul(&[1.0, 1.0], 1, &mut out);
        assert_eq!(out[0], 0.0);
        assert!(out[1].is_nan());
    }

    #[test]
    fn to_u8_rounds_ties_to_even() {
        let mut rng = Rng(99);
        let ties = [
            -127.0, -2.5, -1.5, -0.5, -0.0, 0.0, 0.5, 1.5, 2.5, 126.5, 127.0,
        ];
        let random = (0..10_000).map(|_| (rng.uniform() - 0.5) * 254.0);
        for t in ties.into_iter().chain(random) {
            let want = (t.round_ties_even() as i32 + 128) as u8;
            assert_eq!(to_u8(t), want, "t = {t}");
        }
    }

    /// Per-kernel throughput: `cargo test --release -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn kernel_speeds() {
        let (rows, k, n) = (4096, 384, 1152);
        let mut rng = Rng(5);
        let (w, x) = (rng.vec(k * n), rng.vec(rows * k));
        let q = QuantLinear::from_kn(&w, k, n);
        let mut out = vec![0f32; rows * n];
        for kern in simd_kernels().into_iter().chain([Kernel::Portable]) {
            q.matmul_using(kern, &x, rows, &mut out);
            let t = std::time::Instant::now();
            let reps = 5;
            for _ in 0..reps {
                q.matmul_using(kern, &x, rows, &mut out);
            }
            let gops = 2.0 * (rows * k * n * reps) as f64 / t.elapsed().as_secs_f64() / 1e9;
            println!("{kern}: {gops:.1} GOP/s ({rows}x{k}x{n})");
        }
    }

    #[test]
    #[should_panic(expected = "x must be rows * k")]
    fn length_mismatch_panics() {
        let q = QuantLinear::from_kn(&[1.0; 6], 2, 3);
        q.matmul(&[1.0; 3], 2, &mut [0.0; 6]);
    }
}
