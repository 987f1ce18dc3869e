//! Generator throughput: prompt (prefill) and decode tokens/s of the bundled Gemma 3 270M
//! Q4_K_M on candle.
//!
//! Run: `cargo bench --bench generate` (needs `models/fetch.sh` first). Criterion reports
//! time per iteration and the throughput in tokens/s ("elements"): `prompt_N` runs one
//! forward pass over an N-token prompt; `decode_32` generates 32 tokens greedily after an
//! 8-token prompt (the prompt is under 5% of its time).

use std::hint::black_box;
use std::path::Path;

use attest::models::generate::{GenOptions, GgufGenerator};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

const TEXT: &str = "Counties shall provide community-based services to adults with severe \
mental illness, including crisis response, housing support and case management within the \
service area, and each county must document every assessment within sixty days. ";

fn bench(c: &mut Criterion) {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("models/gemma-3-270m/gemma-3-270m-q4_k_m.gguf");
    let mut model = GgufGenerator::load(&path).expect("Gemma 3 270M (run models/fetch.sh)");
    let mut g = c.benchmark_group("generate");
    g.sample_size(10);
    let all = model.tokenizer().encode(&TEXT.repeat(20), false).unwrap();
    let one = GenOptions {
        max_tokens: 1,
        ..GenOptions::default()
    };
    for n in [128usize, 512] {
        let prompt = all[..n].to_vec();
        g.throughput(Throughput::Elements(n as u64));
        g.bench_function(format!("prompt_{n}"), |b| {
            b.iter(|| black_box(model.generate_ids(black_box(&prompt), &one).unwrap()))
        });
    }
    // Counting keeps the model from ending early; the check makes sure it did not.
    let prompt = model.tokenizer().encode("1, 2, 3, 4,", false).unwrap();
    let decode = GenOptions {
        max_tokens: 32,
        ..GenOptions::default()
    };
    let got = model.generate_ids(&prompt, &decode).unwrap();
    assert_eq!(got.generated_tokens, 32, "{got:?}");
    g.throughput(Throughput::Elements(32));
    g.bench_function("decode_32", |b| {
        b.iter(|| black_box(model.generate_ids(black_box(&prompt), &decode).unwrap()))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
