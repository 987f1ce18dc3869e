//! HNSW recall@10 against exact search by `ef_search`, on an index built by
//! `benches/scale.rs` (its planted questions, embedded by the same hashing stand-in).
//!
//! Run: `cargo run --release --example hnsw_recall -- target/scale/n1000000 [EF…]`
//! (default EF: 0 64 128 256 512 1024; 0 is the default beam, `ef_search` = 128 grown
//! with the graph's size by `scaled_ef`, and must come first). Prints recall@10 and the
//! mean lookup time per beam width.

use std::collections::HashSet;
use std::path::PathBuf;
use std::time::Instant;

use attest::index::dense::{ExactIndex, HnswIndex};
use attest::models::{Embed, HashEmbedder};
use attest::store::Store;

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(
        args.next()
            .expect("the scale folder, e.g. target/scale/n1000000"),
    );
    let efs: Vec<usize> = args.filter_map(|a| a.parse().ok()).collect();
    let efs = if efs.is_empty() {
        vec![0, 64, 128, 256, 512, 1024]
    } else {
        efs
    };
    let facts: (usize, Vec<serde_json::Value>) =
        serde_json::from_slice(&std::fs::read(dir.join("facts.json")).expect("facts.json"))
            .expect("facts");
    let questions: Vec<&str> = facts
        .1
        .iter()
        .filter_map(|f| f["question"].as_str())
        .collect();
    let queries = HashEmbedder::new(384)
        .embed(&questions)
        .expect("query vectors");
    let index = dir.join("index");
    let store = Store::open_existing(&index).expect("the index");
    let t = Instant::now();
    let vectors = store.all_vectors().expect("vectors");
    let exact = ExactIndex::from_rows(384, vectors.iter().map(|(i, v)| (*i as u64, v.as_slice())))
        .expect("exact index");
    drop(vectors);
    eprintln!("exact index in {:.1} s", t.elapsed().as_secs_f64());
    let all = |_: u64| true;
    let truth: Vec<HashSet<u64>> = queries
        .iter()
        .map(|q| exact.search(q, 10, &all).into_iter().map(|x| x.0).collect())
        .collect();
    let t = Instant::now();
    let mut graph = HnswIndex::load(
        &index,
        "hnsw",
        &attest::index::hnsw_params(&Default::default()),
    )
    .expect("the graph");
    eprintln!("graph loaded in {:.1} s", t.elapsed().as_secs_f64());
    for ef in efs {
        if ef > 0 {
            // A fixed beam: `ef` as given, not grown with the graph.
            graph.set_ef_search(ef);
        }
        let beam = graph.beam();
        let t = Instant::now();
        let hit: usize = queries
            .iter()
            .zip(&truth)
            .map(|(q, want)| {
                graph
                    .search(q, 10, &all)
                    .iter()
                    .filter(|x| want.contains(&x.0))
                    .count()
            })
            .sum();
        let ms = t.elapsed().as_secs_f64() * 1000.0 / queries.len() as f64;
        println!(
            "ef {ef} (beam {beam}): recall@10 {:.3}, {ms:.2} ms per lookup",
            hit as f64 / (10 * queries.len()) as f64
        );
    }
}
