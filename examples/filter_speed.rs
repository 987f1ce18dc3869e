//! Search p50 with and without a source filter, alternating in one sitting:
//! `cargo run --release --example filter_speed -- INDEX_DIR KEY=VALUE [ROUNDS]`.
//! Each round runs every query once unfiltered and once filtered (hybrid, k = 10).

use attest::authority::{restrict, Filter, FilterSpec};
use attest::config::Config;
use attest::engine::Engine;
use attest::retrieve::{search_in, Mode};

const QUERIES: &[&str] = &[
    "How long must records be retained?",
    "notification of a breach to individuals",
    "who may request an amendment",
    "penalties for violations",
    "time limit to file a complaint",
    "what must a notice of privacy practices contain",
    "business associate contract",
    "access to protected health information",
    "hearing before an administrative law judge",
    "training of the workforce",
];

fn p50(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let cfg = Config {
        index: args
            .get(1)
            .cloned()
            .unwrap_or_else(|| ".attest".into())
            .into(),
        ..Config::default()
    };
    let spec = FilterSpec {
        conditions: vec![args
            .get(2)
            .cloned()
            .unwrap_or_else(|| "source_type=regulation".into())],
        ..FilterSpec::default()
    };
    let rounds: usize = args.get(3).and_then(|r| r.parse().ok()).unwrap_or(5);
    let engine = Engine::open_with_default_model(cfg, false)?;
    let filter = Filter::parse(&spec).map_err(anyhow::Error::msg)?;
    let t = std::time::Instant::now();
    let catalog = attest::authority::Catalog::load(&engine)?;
    eprintln!(
        "catalog {} docs in {:.1} ms",
        catalog.documents.len(),
        t.elapsed().as_secs_f64() * 1e3
    );
    let t = std::time::Instant::now();
    let once = restrict(&engine, None, &filter)?;
    eprintln!("restrict in {:.1} ms", t.elapsed().as_secs_f64() * 1e3);
    drop(once);
    let (mut plain, mut filtered) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        for q in QUERIES {
            let t = std::time::Instant::now();
            search_in(&engine, q, Mode::Hybrid, 10, None)?;
            plain.push(t.elapsed().as_secs_f64() * 1e3);
            let t = std::time::Instant::now();
            let scope = restrict(&engine, None, &filter)?.map(|x| x.0);
            search_in(&engine, q, Mode::Hybrid, 10, scope.as_ref())?;
            filtered.push(t.elapsed().as_secs_f64() * 1e3);
        }
    }
    println!(
        "unfiltered p50 {:.2} ms, filtered p50 {:.2} ms (filter resolved per query), {} queries",
        p50(plain),
        p50(filtered),
        QUERIES.len() * rounds
    );
    Ok(())
}
