//! Every part of every indexed document that does not bind (recitals, preamble, notes,
//! summaries…), as `attest ask` labels them: `cargo run --release --example
//! nonbinding_parts -- INDEX_DIR` prints one line per part and the counts by kind.

use std::collections::BTreeMap;

use attest::authority::label::DocView;
use attest::config::Config;
use attest::engine::Engine;

fn main() -> anyhow::Result<()> {
    let index = std::env::args().nth(1).unwrap_or_else(|| ".attest".into());
    let cfg = Config {
        index: index.into(),
        ..Config::default()
    };
    let engine = Engine::open_with_default_model(cfg, false)?;
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for d in attest::authority::Catalog::load(&engine)?.documents {
        let Some(view) = DocView::load(&engine, &d.doc_id)? else {
            continue;
        };
        let text = &view.text;
        for p in view.parts.iter().cloned() {
            *counts.entry(p.kind.as_str()).or_default() += 1;
            let excerpt: String = text[p.start..p.end]
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            let excerpt: String = excerpt.chars().take(100).collect();
            let label = p.label.unwrap_or_default();
            println!("{}\t{}\t{label}\t{excerpt}", d.source, p.kind.as_str());
        }
    }
    println!("{counts:?}");
    Ok(())
}
