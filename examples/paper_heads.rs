//! The title and authors ingest reads from each file, without indexing or embedding:
//! `cargo run --release --example paper_heads -- FILE…` prints one JSON line per file
//! (`file`, `title`, `authors`, and for a PDF the metadata title `meta` and the title
//! page 1 prints, `printed`), for checking paper metadata against a hand-written list.

use std::path::Path;
use std::time::Duration;

use attest::corpus::firstpage;
use attest::corpus::forms::parse_bbox;
use attest::corpus::load::{load_file, LoadOptions};
use attest::corpus::pdftext::{self, PopplerLimits};

fn main() -> anyhow::Result<()> {
    let opts = LoadOptions::default();
    let limits = PopplerLimits {
        timeout: Duration::from_secs(60),
        memory_bytes: 2 << 30,
        output_bytes: 64 << 20,
    };
    for arg in std::env::args().skip(1) {
        let path = Path::new(&arg);
        let mut line = match load_file(path, &opts) {
            Ok(docs) => match docs.first() {
                Some(d) => serde_json::json!({
                    "file": arg, "title": d.title, "authors": d.layout.authors,
                }),
                None => serde_json::json!({ "file": arg, "error": "no document" }),
            },
            Err(e) => serde_json::json!({ "file": arg, "error": e.to_string() }),
        };
        if arg.ends_with(".pdf") {
            line["meta"] = pdftext::title(path, limits).into();
            let boxes = pdftext::word_boxes(path, 1, 1, limits).unwrap_or_default();
            let printed = parse_bbox(&boxes)
                .first()
                .map(|(h, w)| firstpage::read(*h, w, None))
                .unwrap_or_default();
            line["printed"] = printed.title.into();
        }
        println!("{line}");
    }
    Ok(())
}
