//! Embedding throughput by text length, comparable with `../shared/tools/pytorch_reference.py`
//! (same generated texts: 16, 80 and 160 words ≈ 25, 100 and 190 tokens; 256 texts per run).
//!
//! Run: `cargo bench --bench embed` (needs `models/fetch.sh` first). Criterion reports the
//! time per 256 texts and the throughput in texts/s ("elements"), for the f32 encoder and
//! the int8 one (`int8_…`); `ATTEST_BENCH_PRECISION=int8` runs one of them.

use std::hint::black_box;
use std::path::Path;

use attest::models::{Embed, MiniLm};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

mod common;
use common::texts;

fn bench(c: &mut Criterion) {
    use attest::config::EmbedPrecision;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/all-MiniLM-L6-v2");
    // `ATTEST_BENCH_PRECISION=int8` (or `f32`) runs one precision; both run otherwise.
    let only = std::env::var("ATTEST_BENCH_PRECISION").ok();
    let mut g = c.benchmark_group("embed");
    g.sample_size(10);
    for precision in [EmbedPrecision::F32, EmbedPrecision::Int8] {
        if only.as_deref().is_some_and(|p| p != precision.as_str()) {
            continue;
        }
        let model = MiniLm::load_at(&dir, precision)
            .expect("models/all-MiniLM-L6-v2 (run models/fetch.sh)");
        let prefix = match precision {
            EmbedPrecision::F32 => String::new(),
            EmbedPrecision::Int8 => "int8_".to_string(),
        };
        for words in [16usize, 80, 160] {
            let t = texts(256, words);
            let refs: Vec<&str> = t.iter().map(String::as_str).collect();
            let tokens = model.count_tokens(refs[0]) + 2;
            g.throughput(Throughput::Elements(refs.len() as u64));
            g.bench_function(format!("{prefix}{tokens}_tokens_x256"), |b| {
                b.iter(|| black_box(model.embed(black_box(&refs)).unwrap()))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
