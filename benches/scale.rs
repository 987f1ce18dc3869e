//! The scale curve: what one index costs at 10k, 100k and 1M chunks.
//!
//! For each size a deterministic synthetic corpus (`attest::eval::synth`) is written and
//! ingested into a fresh index. The bench then reports:
//!
//! - ingest time split by stage;
//! - database and HNSW file sizes and peak RSS;
//! - search p50/p95 (lexical, dense, hybrid) and HNSW recall@10 against exact search;
//! - `ask` p50, and `status` and `status --deep` time;
//! - the time to re-ingest one changed file.
//!
//! **The embedder.** Every stage runs for real except embedding. Vectors come from a fast
//! deterministic stand-in behind the `Embed` trait (feature hashing of words, as
//! `HashEmbedder`). Chunks are still cut by the real tokenizer's counts. The embedding
//! stage is measured on a real sample: 512 chunks of the corpus through all-MiniLM-L6-v2.
//! Its cost at each size is extrapolated from that sample, and the figures say so.
//!
//! Run: `cargo bench --bench scale -- 10000 100000 1000000` (sizes in chunks; default
//! 10000). Results accumulate in `target/scale/results.json`; every run redraws
//! `target/scale/scale.svg` from all sizes measured. `ATTEST_SCALE_DIR` sets where corpora
//! and indexes go (default `target/scale`; 1M chunks take about 6 GB).
//!
//! `ATTEST_SCALE_REINGEST=1` re-measures only the re-ingest of one changed file, on the
//! index an earlier run left at each size (its other figures are kept).
//! `ATTEST_SCALE_SEARCH=1` re-measures search, `ask`, `status` and the time to open the
//! index on it; with `ATTEST_SCALE_BACKEND=milvus`, on a copy of it in fresh Milvus
//! collections (`attest migrate`, timed as `migrate_s`).
//!
//! `ATTEST_SCALE_STEPS` names the steps after the ingest that run (`open`, `search`, `found`,
//! `ask`, `status`, `reingest`, `embed`; all by default) and `ATTEST_SCALE_QUERIES` caps the
//! queries timed and questions asked: a Milvus run at 1M chunks, where the local server
//! takes tens of seconds per search, measures what it can in a session.
//!
//! `ATTEST_SCALE_BACKEND=milvus` (with `ATTEST_MILVUS_URL`, e.g. from `scripts/milvus.sh
//! start`) measures the Milvus backend instead: each size goes into fresh collections, the
//! results into `results-milvus.json` and `scale-milvus.svg`; `status --deep` is not timed
//! and the server's own peak RSS is read from `/proc` when `ATTEST_MILVUS_PID` names it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use attest::ask::{ask, AskOptions};
use attest::config::Config;
use attest::engine::{Access, Engine};
use attest::eval::synth::{generate, Planted, SynthSpec};
use attest::eval::{eval_search, Query, SEARCH_MODES};
use attest::ingest::{ingest, IngestOptions, IngestReport};
use attest::models::{Embed, HashEmbedder, MiniLm, ModelError};
use serde_json::{json, Value};

/// Words per synthetic document.
const WORDS_PER_DOC: usize = 3_000;
/// Queries timed per mode, and questions asked (a quarter of each on Milvus, whose local
/// server is pure Python and takes seconds per search at 100k chunks).
const QUERIES: usize = 200;
const ASKED: usize = 40;

/// [`QUERIES`] or [`ASKED`] for the backend measured, at most `ATTEST_SCALE_QUERIES`.
fn how_many(n: usize) -> usize {
    let n = if milvus() { n / 4 } else { n };
    let cap = std::env::var("ATTEST_SCALE_QUERIES").ok();
    cap.and_then(|c| c.parse().ok())
        .map_or(n, |c: usize| n.min(c.max(1)))
}

/// Whether a step after the ingest runs: `ATTEST_SCALE_STEPS` lists them (`open`, `search`,
/// `found`, `ask`, `status`, `reingest`, `embed`, comma-separated); all run when unset.
fn step(name: &str) -> bool {
    std::env::var("ATTEST_SCALE_STEPS").map_or(true, |s| s.split(',').any(|x| x.trim() == name))
}

/// Real token counts (chunk boundaries as in production), hashed vectors.
struct ScaleEmbedder {
    counter: Arc<MiniLm>,
    vectors: HashEmbedder,
}

impl Embed for ScaleEmbedder {
    fn model_id(&self) -> &str {
        "scale-hash-384"
    }
    fn dim(&self) -> usize {
        384
    }
    fn embed_unchecked(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, ModelError> {
        self.vectors.embed_unchecked(texts)
    }
    fn count_tokens(&self, text: &str) -> usize {
        self.counter.count_tokens(text)
    }
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.replace('_', "").parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![10_000]
    } else {
        sizes
    };
    let work = std::env::var_os("ATTEST_SCALE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/scale"));
    std::fs::create_dir_all(&work).expect("the scale folder");
    let model = Arc::new(
        MiniLm::load(&root.join("models/all-MiniLM-L6-v2"))
            .expect("models/all-MiniLM-L6-v2 (run models/fetch.sh)"),
    );
    let per_doc = chunks_per_doc(&work, &model);
    let results = work.join(if milvus() {
        "results-milvus.json"
    } else {
        "results.json"
    });
    let mut all: BTreeMap<String, Value> = std::fs::read(&results)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    for n in sizes {
        let again = std::env::var_os("ATTEST_SCALE_REINGEST").is_some();
        if again || std::env::var_os("ATTEST_SCALE_SEARCH").is_some() {
            let before = all.remove(&format!("{n:08}")).unwrap_or_else(|| json!({}));
            let after = if again {
                reingest_again(&work, &model, n, before)
            } else {
                search_again(&work, &model, n, before)
            };
            all.insert(format!("{n:08}"), after);
            let text = serde_json::to_string_pretty(&all).unwrap_or_default();
            std::fs::write(&results, text).expect("results.json");
            continue;
        }
        let figures = measure(&work, &model, n, per_doc);
        println!(
            "{}",
            serde_json::to_string_pretty(&figures).unwrap_or_default()
        );
        all.insert(format!("{n:08}"), figures);
        let text = serde_json::to_string_pretty(&all).unwrap_or_default();
        std::fs::write(&results, text).expect("results.json");
    }
    table(&all);
    plot(
        &all,
        &work.join(if milvus() {
            "scale-milvus.svg"
        } else {
            "scale.svg"
        }),
    );
}

/// Whether the Milvus backend is measured.
fn milvus() -> bool {
    std::env::var("ATTEST_SCALE_BACKEND").is_ok_and(|b| b == "milvus")
}

/// Peak RSS of the Milvus server, in MiB (`ATTEST_MILVUS_PID`), when known.
fn server_peak_rss_mib() -> Option<f64> {
    let pid = std::env::var("ATTEST_MILVUS_PID").ok()?;
    let status = std::fs::read_to_string(format!("/proc/{}/status", pid.trim())).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

/// Chunks per synthetic document, from a 40-document sample ingested for real.
fn chunks_per_doc(work: &Path, model: &Arc<MiniLm>) -> f64 {
    let dir = work.join("calibrate");
    let _ = std::fs::remove_dir_all(&dir);
    let spec = SynthSpec {
        documents: 40,
        words_per_document: WORDS_PER_DOC,
        fact_every: 0,
        seed: 1,
    };
    generate(&spec, &dir.join("docs")).expect("the sample corpus");
    let (engine, report) = ingest_fresh(&dir, model);
    drop(engine);
    let _ = std::fs::remove_dir_all(&dir);
    report.chunks as f64 / 40.0
}

/// A fresh index under `dir/index` with the scale embedder, ingested from `dir/docs`.
fn ingest_fresh(dir: &Path, model: &Arc<MiniLm>) -> (Engine, IngestReport) {
    let mut cfg = Config {
        index: dir.join("index"),
        ..Config::default()
    };
    if milvus() {
        cfg = milvus_config(dir);
    }
    let _ = std::fs::remove_dir_all(&cfg.index);
    let embedder = ScaleEmbedder {
        counter: model.clone(),
        vectors: HashEmbedder::new(384),
    };
    let mut engine = Engine::open(cfg, Arc::new(embedder), Access::Write).expect("an index");
    let report =
        ingest(&mut engine, &[dir.join("docs")], &IngestOptions::default()).expect("the ingest");
    (engine, report)
}

/// Fresh Milvus collections at `ATTEST_MILVUS_URL` (local lock files in `dir/milvus`).
fn milvus_config(dir: &Path) -> Config {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() % 1_000_000_000)
        .unwrap_or(0);
    Config {
        index: dir.join("milvus"),
        backend: attest::config::BackendKind::Milvus,
        milvus_url: std::env::var("ATTEST_MILVUS_URL").expect("ATTEST_MILVUS_URL"),
        milvus_prefix: format!("scale_{}_{nanos}", std::process::id()),
        ..Config::default()
    }
}

/// Every figure of one size.
fn measure(work: &Path, model: &Arc<MiniLm>, n: usize, per_doc: f64) -> Value {
    let dir = work.join(format!("n{n}"));
    let docs = ((n as f64 / per_doc).ceil() as usize).max(1);
    let facts = corpus(&dir, docs);
    reset_peak_rss();
    let t = Instant::now();
    let (mut engine, report) = ingest_fresh(&dir, model);
    let ingest_s = t.elapsed().as_secs_f64();
    let rss_ingest = peak_rss_mib();
    let phase = |name: &str| eprintln!("{n}: {name} done at {:.0} s", t.elapsed().as_secs_f64());
    phase("ingest");
    let open_s = step("open").then(|| open_reader(&engine, model));
    engine.ensure_graph().expect("the HNSW graph");
    let search = step("search").then(|| search_figures(&engine, &facts));
    phase("search");
    let ask_ms = step("ask").then(|| ask_figures(&engine, &facts));
    phase("ask");
    let (status_ms, deep_ms) = step("status").then(|| status_figures(&engine)).unzip();
    phase("status");
    let reingest_ms = step("reingest").then(|| reingest_one(&mut engine, &dir, &facts));
    phase("re-ingest");
    let embed = step("embed").then(|| embed_sample(&engine, model, report.chunks));
    phase("embedding sample");
    json!({
        "chunks": report.chunks,
        "documents": report.documents,
        "ingest": {
            "wall_s": ingest_s,
            "load_chunk_s": report.load_ms as f64 / 1000.0,
            "embed_stand_in_s": report.embed_ms as f64 / 1000.0,
            "write_s": report.write_ms as f64 / 1000.0,
            "hnsw_build_s": report.index_ms as f64 / 1000.0,
            "tokens": report.tokens_embedded,
        },
        "embedding_extrapolated": embed,
        "sizes_mib": file_sizes(&dir.join("index")),
        "peak_rss_mib": {
            "ingest": rss_ingest,
            "after_queries": peak_rss_mib(),
            "server": server_peak_rss_mib(),
        },
        "search": search,
        "ask_ms": ask_ms,
        "open_reader_s": open_s,
        "status_ms": status_ms,
        "status_deep_ms": deep_ms,
        "reingest_one_file_ms": reingest_ms,
    })
}

/// The corpus of `docs` documents under `dir/docs`, generated once (the planted facts are
/// kept beside it).
fn corpus(dir: &Path, docs: usize) -> Vec<Planted> {
    let facts_file = dir.join("facts.json");
    let spec = SynthSpec {
        documents: docs,
        words_per_document: WORDS_PER_DOC,
        fact_every: (docs / QUERIES).max(1),
        seed: 42,
    };
    let cached = std::fs::read(&facts_file)
        .ok()
        .and_then(|b| serde_json::from_slice::<(usize, Vec<Planted>)>(&b).ok())
        .filter(|(n, _)| *n == docs);
    if let Some((_, facts)) = cached {
        return facts;
    }
    let _ = std::fs::remove_dir_all(dir);
    let t = Instant::now();
    let facts = generate(&spec, &dir.join("docs")).expect("the corpus");
    eprintln!(
        "generated {docs} documents in {:.1} s",
        t.elapsed().as_secs_f64()
    );
    let text = serde_json::to_vec(&(docs, &facts)).unwrap_or_default();
    std::fs::write(&facts_file, text).expect("facts.json");
    facts
}

/// Search latency per mode, HNSW recall@10 (the graph is built in memory below the exact
/// threshold), and how often the planted sentence is among the top 10 hits.
fn search_figures(engine: &Engine, facts: &[Planted]) -> Value {
    let queries: Vec<Query> = facts
        .iter()
        .take(how_many(QUERIES))
        .enumerate()
        .map(|(i, f)| Query {
            id: i.to_string(),
            text: f.question.clone(),
            answers: vec![f.answer.clone()],
        })
        .collect();
    let eval = eval_search(engine, &queries, "planted", 10, &SEARCH_MODES).expect("search");
    let found = |mode| {
        let hits = facts.iter().take(how_many(QUERIES)).filter(|f| {
            let r = attest::retrieve::search(engine, &f.question, mode, 10);
            r.is_ok_and(|h| h.hits.iter().any(|c| c.chunk.text.contains(&f.sentence)))
        });
        hits.count() as f64 / queries.len().max(1) as f64
    };
    let mut v = serde_json::to_value(&eval).unwrap_or_default();
    // With hashed vectors the dense ranking means little; lexical shows the planted fact
    // is findable.
    if step("found") {
        v["planted_found_at_10"] = json!({
            "lexical": found(attest::retrieve::Mode::Lexical),
            "hybrid": found(attest::retrieve::Mode::Hybrid),
        });
    }
    v
}

/// Seconds to open the index for reading, as every `attest search` or `ask` process does
/// (the dense index loaded from its files).
fn open_reader(engine: &Engine, model: &Arc<MiniLm>) -> f64 {
    let embedder = ScaleEmbedder {
        counter: model.clone(),
        vectors: HashEmbedder::new(384),
    };
    let t = Instant::now();
    let reader = Engine::open(engine.config().clone(), Arc::new(embedder), Access::Read);
    let secs = t.elapsed().as_secs_f64();
    drop(reader.expect("a reader"));
    secs
}

/// `ask` p50 and p95 in milliseconds over the first planted questions, without memory.
fn ask_figures(engine: &Engine, facts: &[Planted]) -> Value {
    let mut opts = AskOptions::from_config(engine.config());
    opts.memory = false;
    opts.generate = false;
    let mut ms: Vec<f64> = facts
        .iter()
        .take(how_many(ASKED))
        .map(|f| {
            let t = Instant::now();
            let _ = ask(engine, &f.question, &opts);
            t.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    ms.sort_by(f64::total_cmp);
    json!({
        "p50": attest::eval::percentile(&ms, 50.0),
        "p95": attest::eval::percentile(&ms, 95.0),
    })
}

/// `status` and `status --deep`, each as the command runs it (opening the index).
fn status_figures(engine: &Engine) -> (f64, f64) {
    let cfg = engine.config();
    let time = |deep| {
        let t = Instant::now();
        attest::status::status(cfg, deep).expect("status");
        t.elapsed().as_secs_f64() * 1000.0
    };
    (time(false), if milvus() { f64::NAN } else { time(true) })
}

/// The planted facts of the corpus an earlier run left in `dir`.
fn facts_of(dir: &Path) -> Vec<Planted> {
    let facts_file = std::fs::read(dir.join("facts.json")).expect("an earlier run's corpus");
    let (_, facts): (usize, Vec<Planted>) = serde_json::from_slice(&facts_file).expect("facts");
    facts
}

/// Search, `ask` and `status` again on the index an earlier run left at size `n`; on
/// Milvus, that SQLite index is first copied into fresh collections (`attest migrate`),
/// and the copy is timed.
fn search_again(work: &Path, model: &Arc<MiniLm>, n: usize, mut before: Value) -> Value {
    let dir = work.join(format!("n{n}"));
    let facts = facts_of(&dir);
    let mut cfg = Config {
        index: dir.join("index"),
        ..Config::default()
    };
    if milvus() {
        let to = milvus_config(&dir);
        let t = Instant::now();
        let r = attest::ingest::migrate::migrate(&cfg, &to, false, &mut |_| {}).expect("the copy");
        before["migrate_s"] = json!(t.elapsed().as_secs_f64());
        before["chunks"] = json!(r.chunks);
        before["documents"] = json!(r.documents);
        eprintln!(
            "{n}: copied into Milvus in {:.0} s",
            t.elapsed().as_secs_f64()
        );
        cfg = to;
    }
    let embedder = ScaleEmbedder {
        counter: model.clone(),
        vectors: HashEmbedder::new(384),
    };
    let t = Instant::now();
    let engine = Engine::open(cfg, Arc::new(embedder), Access::Read).expect("the index");
    before["open_reader_s"] = json!(t.elapsed().as_secs_f64());
    if step("search") {
        before["search"] = search_figures(&engine, &facts);
    }
    if step("ask") {
        before["ask_ms"] = ask_figures(&engine, &facts);
    }
    if step("status") {
        before["status_ms"] = json!(status_figures(&engine).0);
    }
    before["peak_rss_mib"]["server"] = json!(server_peak_rss_mib());
    before
}

/// Opens the index an earlier run left at size `n` and times two re-ingests of one changed
/// file (the first may still fold the chunks an older version left beside the graph).
fn reingest_again(work: &Path, model: &Arc<MiniLm>, n: usize, mut before: Value) -> Value {
    let dir = work.join(format!("n{n}"));
    let facts = facts_of(&dir);
    let cfg = Config {
        index: dir.join("index"),
        ..Config::default()
    };
    let embedder = ScaleEmbedder {
        counter: model.clone(),
        vectors: HashEmbedder::new(384),
    };
    let t = Instant::now();
    let mut engine = Engine::open(cfg, Arc::new(embedder), Access::Write).expect("the index");
    let open_s = t.elapsed().as_secs_f64();
    let first = reingest_one(&mut engine, &dir, &facts);
    let second = reingest_one(&mut engine, &dir, &facts);
    eprintln!("{n}: open {open_s:.1} s, re-ingests {first:.0} ms then {second:.0} ms");
    before["reingest_one_file_ms"] = json!(second);
    before["reingest_open_s"] = json!(open_s);
    before
}

/// Appends a sentence to the first fact's file and ingests the corpus again: the time of
/// the whole `ingest` call (walk, compare, one file re-read and written, dense update).
fn reingest_one(engine: &mut Engine, dir: &Path, facts: &[Planted]) -> f64 {
    let Some(f) = facts.first() else {
        return 0.0;
    };
    let path = dir.join("docs").join(&f.file);
    let mut text = std::fs::read_to_string(&path).expect("the fact's file");
    text.push_str("\nThis section was amended after the first ingest.\n");
    std::fs::write(&path, text).expect("the fact's file");
    let t = Instant::now();
    let report = ingest(engine, &[dir.join("docs")], &IngestOptions::default()).expect("ingest");
    assert_eq!(report.updated, 1, "one document changed");
    t.elapsed().as_secs_f64() * 1000.0
}

/// The real bi-encoder on 512 chunks of the corpus: tokens/s, and the embedding time this
/// size would take at that rate (extrapolated, not run).
fn embed_sample(engine: &Engine, model: &MiniLm, chunks: usize) -> Value {
    let store = engine.store();
    let ids: Vec<i64> = store
        .chunk_row_ids()
        .expect("ids")
        .into_iter()
        .take(512)
        .collect();
    let rows = store.chunks_by_ids(&ids).expect("chunks");
    let texts: Vec<&str> = rows.iter().map(|r| r.text.as_str()).collect();
    let t = Instant::now();
    let (_, tokens) = model.embed_counted(&texts).expect("embeddings");
    let secs = t.elapsed().as_secs_f64();
    let per_chunk = secs / texts.len().max(1) as f64;
    json!({
        "sample_chunks": texts.len(),
        "tokens_per_s": tokens as f64 / secs,
        "estimated_s": per_chunk * chunks as f64,
    })
}

/// Sizes of the index's files in MiB: the database (with its WAL) and the dense files.
fn file_sizes(index: &Path) -> Value {
    let mut db = 0u64;
    let mut dense = 0u64;
    for e in std::fs::read_dir(index).into_iter().flatten().flatten() {
        let len = e.metadata().map(|m| m.len()).unwrap_or(0);
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with("attest.sqlite3") {
            db += len;
        } else if name.starts_with("hnsw.") {
            dense += len;
        }
    }
    let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
    json!({ "database": mib(db), "dense": mib(dense) })
}

/// Resets the peak resident set size (Linux: `clear_refs` 5); ignored elsewhere.
fn reset_peak_rss() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// Peak resident set size in MiB (`VmHWM`), 0 where unknown.
fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

/// Prints the table of docs/figures.md: one row per size.
fn table(all: &BTreeMap<String, Value>) {
    println!("| chunks | ingest (s) | load+chunk / write / HNSW (s) | embedding, extrapolated (s) | DB / dense (MiB) | peak RSS (MiB) | lexical / dense / hybrid p50 (ms) | hybrid p95 (ms) | recall@10 | ask p50 (ms) | open for reading (s) | status / --deep (ms) | re-ingest 1 file (ms) |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for v in all.values() {
        let f = |p: &str| v.pointer(p).and_then(Value::as_f64).unwrap_or(f64::NAN);
        println!(
            "| {} | {:.1} | {:.1} / {:.1} / {:.1} | {:.0} | {:.0} / {:.0} | {:.0} | {:.1} / {:.1} / {:.1} | {:.1} | {:.3} | {:.0} | {:.2} | {:.0} / {:.0} | {:.0} |",
            f("/chunks"), f("/ingest/wall_s"), f("/ingest/load_chunk_s"), f("/ingest/write_s"),
            f("/ingest/hnsw_build_s"), f("/embedding_extrapolated/estimated_s"),
            f("/sizes_mib/database"), f("/sizes_mib/dense"), f("/peak_rss_mib/after_queries"),
            f("/search/modes/lexical/p50_ms"), f("/search/modes/dense/p50_ms"),
            f("/search/modes/hybrid/p50_ms"), f("/search/modes/hybrid/p95_ms"),
            f("/search/hnsw_recall_at_k"), f("/ask_ms/p50"), f("/open_reader_s"), f("/status_ms"),
            f("/status_deep_ms"), f("/reingest_one_file_ms"),
        );
    }
}

/// Draws search and ask p50 against chunks (log-log) into `out` (SVG).
fn plot(all: &BTreeMap<String, Value>, out: &Path) {
    use plotters::prelude::*;
    let series: [(&str, &str, RGBColor); 5] = [
        ("lexical p50", "/search/modes/lexical/p50_ms", BLUE),
        ("dense p50", "/search/modes/dense/p50_ms", RED),
        ("hybrid p50", "/search/modes/hybrid/p50_ms", GREEN),
        ("ask p50", "/ask_ms/p50", BLACK),
        ("re-ingest 1 file", "/reingest_one_file_ms", MAGENTA),
    ];
    let points = |p: &str| -> Vec<(f64, f64)> {
        all.values()
            .filter_map(|v| Some((v["chunks"].as_f64()?, v.pointer(p)?.as_f64()?.max(0.01))))
            .collect()
    };
    let xs: Vec<f64> = all.values().filter_map(|v| v["chunks"].as_f64()).collect();
    let ymax = series
        .iter()
        .flat_map(|s| points(s.1))
        .map(|p| p.1)
        .fold(1.0, f64::max);
    let (x0, x1) = (
        xs.iter().copied().fold(f64::MAX, f64::min) / 2.0,
        xs.iter().copied().fold(1.0, f64::max) * 2.0,
    );
    let root = SVGBackend::new(out, (900, 560)).into_drawing_area();
    let _ = root.fill(&WHITE);
    let Ok(mut chart) = ChartBuilder::on(&root)
        .caption(
            "attest at scale: latency (ms) by chunks in the index",
            ("sans-serif", 20),
        )
        .margin(16)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d((x0..x1).log_scale(), (0.05..ymax * 2.0).log_scale())
    else {
        return;
    };
    let _ = chart.configure_mesh().x_desc("chunks").y_desc("ms").draw();
    for (name, p, colour) in series {
        let pts = points(p);
        let drawn = chart.draw_series(LineSeries::new(pts.clone(), colour.stroke_width(2)));
        if let Ok(d) = drawn {
            d.label(name)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], colour));
        }
        let _ = chart.draw_series(pts.into_iter().map(|q| Circle::new(q, 3, colour.filled())));
    }
    let _ = chart
        .configure_series_labels()
        .background_style(WHITE)
        .border_style(BLACK)
        .draw();
    let _ = root.present();
}
