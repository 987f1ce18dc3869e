//! Dense lookup cost: exact (brute force) vs HNSW top-10 over synthetic clustered unit
//! vectors of dimension 384, at 5,000 and 50,000 points (design.md §4: exact search is
//! competitive below ~50k chunks). Run: `cargo bench --bench search`.

use std::hint::black_box;

use attest::index::dense::{ExactIndex, HnswIndex, HnswParams};
use criterion::{criterion_group, criterion_main, Criterion};

const DIM: usize = 384;

/// Deterministic clustered vectors (text embeddings cluster by topic).
fn vectors(n: usize, seed: u64) -> Vec<Vec<f32>> {
    let mut s = seed;
    let mut rnd = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 11) as f32 / (1u64 << 53) as f32 - 0.5
    };
    let centres: Vec<Vec<f32>> = (0..64).map(|_| (0..DIM).map(|_| rnd()).collect()).collect();
    (0..n)
        .map(|i| {
            let c = &centres[i % centres.len()];
            let mut v: Vec<f32> = c.iter().map(|x| x + 0.6 * rnd()).collect();
            let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            v.iter_mut().for_each(|x| *x /= norm);
            v
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let queries = vectors(64, 99);
    let mut g = c.benchmark_group("dense_top10");
    g.sample_size(20);
    for n in [5_000usize, 50_000] {
        let data = vectors(n, 7);
        let mut exact = ExactIndex::new(DIM);
        for (i, v) in data.iter().enumerate() {
            exact.push(i as u64, v);
        }
        let pts: Vec<(u64, &[f32])> = data
            .iter()
            .enumerate()
            .map(|(i, v)| (i as u64, v.as_slice()))
            .collect();
        let hnsw = HnswIndex::build(DIM, &HnswParams::default(), &pts).unwrap();
        let keep = |_: u64| true;
        g.bench_function(format!("exact_{n}"), |b| {
            let mut i = 0;
            b.iter(|| {
                i = (i + 1) % queries.len();
                black_box(exact.search(&queries[i], 10, &keep))
            })
        });
        g.bench_function(format!("hnsw_{n}"), |b| {
            let mut i = 0;
            b.iter(|| {
                i = (i + 1) % queries.len();
                black_box(hnsw.search(&queries[i], 10, &keep))
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
