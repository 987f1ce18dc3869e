//! End-to-end ingest throughput against the bi-encoder's own, measured in one sitting.
//!
//! Each round ingests a folder into a fresh index (loading, chunking, embedding, writing
//! and the dense index: the whole `ingest` call) and then embeds the embed bench's 256
//! texts of the length nearest the folder's mean chunk length. It prints both rates in
//! model tokens per second (special tokens included), their ratio, and the pages or files
//! per second of the ingest; the median over the rounds goes to `target/ingest-ratio.json`.
//!
//! Run: `cargo bench --bench ingest [-- DIR]` (default `../shared/data/realdocs/docs`, else
//! `corpus/`; `ATTEST_BENCH_ROUNDS`, default 3; `ATTEST_BENCH_PRECISION`, default the precision
//! a new index gets). Needs `models/fetch.sh` first.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use attest::config::Config;
use attest::engine::{Access, Engine};
use attest::ingest::{ingest, IngestOptions};
use attest::models::{Embed, MiniLm};

mod common;

/// One round's figures: tokens/s of the ingest and of the bare bi-encoder, and the
/// ingest's wall time.
struct Round {
    ingest_tps: f64,
    embed_tps: f64,
    ingest_s: f64,
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with("--"))
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let real = root.join("../shared/data/realdocs/docs");
            if real.is_dir() {
                real
            } else {
                root.join("corpus")
            }
        });
    let rounds: usize = std::env::var("ATTEST_BENCH_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    let cfg = Config::default();
    // The precision a new index gets (`auto`) unless `ATTEST_BENCH_PRECISION` names one.
    let precision = std::env::var("ATTEST_BENCH_PRECISION")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(attest::models::default_precision);
    let mut model = MiniLm::load_at(&root.join("models/all-MiniLM-L6-v2"), precision)
        .expect("models/all-MiniLM-L6-v2 (run models/fetch.sh)");
    println!("bi-encoder {} ({precision})", model.model_id());
    model.batch_tokens = cfg.embed_batch_tokens.max(1);
    let model = Arc::new(model);
    let mut all = Vec::new();
    for r in 0..rounds {
        let (tps, secs, per_chunk, pages) = ingest_once(&dir, &cfg, model.clone());
        let embed_tps = embed_once(&model, per_chunk);
        println!(
            "round {}: ingest {tps:.0} tokens/s ({secs:.2} s, {:.2} pages/s), embed {embed_tps:.0} tokens/s, ratio {:.3}",
            r + 1,
            pages as f64 / secs,
            tps / embed_tps
        );
        all.push(Round {
            ingest_tps: tps,
            embed_tps,
            ingest_s: secs,
        });
    }
    report(&dir, precision, &all);
}

/// Ingests `dir` into a fresh index: (tokens/s, wall seconds, mean tokens per chunk,
/// pages or files stored).
fn ingest_once(dir: &Path, cfg: &Config, model: Arc<MiniLm>) -> (f64, f64, f64, usize) {
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let mut cfg = cfg.clone();
    cfg.index = tmp.path().join("idx");
    let mut engine = Engine::open(cfg, model, Access::Write).expect("a fresh index");
    let t = Instant::now();
    let report =
        ingest(&mut engine, &[dir.to_path_buf()], &IngestOptions::default()).expect("the ingest");
    let secs = t.elapsed().as_secs_f64();
    let pages = pages_of(&engine).max(report.documents);
    let per_chunk = report.tokens_embedded as f64 / report.chunks_embedded.max(1) as f64;
    (report.tokens_embedded as f64 / secs, secs, per_chunk, pages)
}

/// Pages stored (a document without pages counts as one).
fn pages_of(engine: &Engine) -> usize {
    let store = engine.store();
    let docs = store.documents_page(0, 100_000).unwrap_or_default();
    docs.iter()
        .map(|d| {
            let text = store
                .document_text(&d.doc_id)
                .ok()
                .flatten()
                .unwrap_or_default();
            let layout = store.document_layout(&d.doc_id, &text).ok();
            layout.map(|l| l.pages.len().max(1)).unwrap_or(1)
        })
        .sum()
}

/// The embed bench's texts nearest `per_chunk` tokens, embedded once: tokens/s.
fn embed_once(model: &MiniLm, per_chunk: f64) -> f64 {
    let words = [16usize, 80, 160]
        .into_iter()
        .min_by_key(|w| ((*w as f64 * 1.2) - per_chunk).abs() as u64)
        .unwrap_or(160);
    let texts = common::texts(256, words);
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let t = Instant::now();
    let (_, tokens) = model.embed_counted(&refs).expect("embeddings");
    tokens as f64 / t.elapsed().as_secs_f64()
}

/// Prints and writes the medians.
fn report(dir: &Path, precision: attest::config::EmbedPrecision, rounds: &[Round]) {
    let median = |f: &dyn Fn(&Round) -> f64| {
        let mut v: Vec<f64> = rounds.iter().map(f).collect();
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(0.0)
    };
    let ratios = median(&|r| r.ingest_tps / r.embed_tps);
    let (i, e, s) = (
        median(&|r| r.ingest_tps),
        median(&|r| r.embed_tps),
        median(&|r| r.ingest_s),
    );
    println!(
        "median: ingest {i:.0} tokens/s, embed {e:.0} tokens/s, ratio {ratios:.3}, ingest {s:.2} s"
    );
    let json = serde_json::json!({
        "dir": dir.display().to_string(),
        "precision": precision.to_string(),
        "rounds": rounds.len(),
        "ingest_tokens_per_s": i,
        "embed_tokens_per_s": e,
        "ratio": ratios,
        "ingest_s": s,
    });
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/ingest-ratio.json");
    let _ = std::fs::write(out, serde_json::to_string_pretty(&json).unwrap_or_default());
}
