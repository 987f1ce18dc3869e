//! The real bi-encoder reproduces sentence-transformers' vectors.

use attest::models::{dot, Embed};
use serde::Deserialize;

#[derive(Deserialize)]
struct Reference {
    items: Vec<Item>,
}

#[derive(Deserialize)]
struct Item {
    text: String,
    n_tokens: usize,
    embedding: Vec<f32>,
}

fn reference() -> Reference {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/minilm_reference.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn minilm_matches_sentence_transformers_reference_vectors() {
    let model = super::common::minilm();
    let r = reference();
    let texts: Vec<&str> = r.items.iter().map(|i| i.text.as_str()).collect();
    // Embedded together (packed batch) and one at a time: both must match.
    let batch = model.embed(&texts).unwrap();
    let mut worst = f32::INFINITY;
    for (item, got) in r.items.iter().zip(&batch) {
        let mut want = item.embedding.clone();
        attest::models::normalise(&mut want);
        let cos = dot(got, &want);
        worst = worst.min(cos);
        assert!(cos >= 0.9999, "cosine {cos} for {:?}", item.text);
        let single = &model.embed(&[item.text.as_str()]).unwrap()[0];
        assert!(
            dot(single, &want) >= 0.9999,
            "single-text cosine for {:?}",
            item.text
        );
        assert_eq!(
            model.count_tokens(&item.text) + 2,
            item.n_tokens,
            "token count of {:?}",
            item.text
        );
    }
    eprintln!("lowest cosine to the sentence-transformers reference: {worst:.7}");
}

#[test]
fn minilm_truncates_long_texts_at_256_tokens() {
    let model = super::common::minilm();
    let long = "county ".repeat(2000);
    let v = model.embed(&[long.as_str(), "short text"]).unwrap();
    assert_eq!(v.len(), 2);
    assert_eq!(v[0].len(), 384);
    let norm: f32 = v[0].iter().map(|x| x * x).sum();
    assert!((norm - 1.0).abs() < 1e-4);
    assert!(
        model.count_tokens(&long) >= 2000,
        "token counting is not truncated"
    );
}

#[test]
fn minilm_embeds_empty_batch_and_empty_text() {
    let model = super::common::minilm();
    assert!(model.embed(&[]).unwrap().is_empty());
    let v = model.embed(&[""]).unwrap();
    assert_eq!(v[0].len(), 384);
}

#[test]
fn int8_minilm_keeps_the_direction_of_every_reference_vector() {
    use attest::config::EmbedPrecision;
    let dir = super::common::model_dir();
    // Every CPU runs int8 (without VNNI or AVX2 on the portable kernel, same integers).
    let int8 = attest::models::MiniLm::load_at(&dir, EmbedPrecision::Int8).unwrap();
    assert_eq!(int8.model_id(), "all-MiniLM-L6-v2@int8");
    let f32_model = super::common::minilm();
    let r = reference();
    let mut texts: Vec<String> = r.items.iter().map(|i| i.text.clone()).collect();
    // Prose of every length the corpus chunks have, besides the reference texts.
    for f in super::cli::sample_files().iter().take(6) {
        let body = std::fs::read_to_string(f).unwrap();
        let words: Vec<&str> = body.split_whitespace().collect();
        for n in [3usize, 20, 60, 150] {
            texts.push(words.iter().take(n).copied().collect::<Vec<_>>().join(" "));
        }
    }
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let (q, f) = (int8.embed(&refs).unwrap(), f32_model.embed(&refs).unwrap());
    let mut worst = f32::INFINITY;
    for ((text, a), b) in refs.iter().zip(&q).zip(&f) {
        let cos = dot(a, b);
        worst = worst.min(cos);
        assert!(cos >= 0.99, "int8 vs f32 cosine {cos} for {text:?}");
    }
    for (item, got) in r.items.iter().zip(&q) {
        let mut want = item.embedding.clone();
        attest::models::normalise(&mut want);
        let cos = dot(got, &want);
        assert!(
            cos >= 0.99,
            "int8 vs sentence-transformers {cos} for {:?}",
            item.text
        );
    }
    eprintln!(
        "lowest int8 cosine to f32 over {} texts: {worst:.5}",
        refs.len()
    );
}

#[test]
fn an_index_refuses_vectors_of_another_precision_until_it_is_reembedded() {
    use super::cli::attest;
    let dir = tempfile::tempdir().unwrap();
    let idx = dir.path().join("idx");
    let files: Vec<_> = super::cli::sample_files().into_iter().take(3).collect();
    let run = |idx: &std::path::Path, precision: Option<&str>, args: &[&str]| {
        let mut c = attest(idx);
        match precision {
            Some(p) => c.env("ATTEST_EMBED_PRECISION", p),
            None => c.env_remove("ATTEST_EMBED_PRECISION"),
        };
        c.args(args).output().unwrap()
    };
    let ok = |out: &std::process::Output| {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let mut ingest = vec!["ingest", "--json"];
    let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    ingest.extend(names.iter().map(String::as_str));
    ok(&run(&idx, Some("f32"), &ingest));
    let status =
        |idx: &std::path::Path| ok(&run(idx, None, &["status", "--json"]))["model"].clone();
    assert_eq!(status(&idx), "all-MiniLM-L6-v2");
    let search = &["search", "--json", "intake assessment"];
    // `auto` (the default) reads an index at the precision it records.
    ok(&run(&idx, None, search));
    // Asking an f32 index with the int8 encoder is refused, naming the way out.
    let refused = run(&idx, Some("int8"), search);
    assert!(!refused.status.success());
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        err.contains("all-MiniLM-L6-v2@int8") && err.contains("--reembed"),
        "{err}"
    );
    let r = ok(&run(&idx, Some("int8"), &["ingest", "--reembed", "--json"]));
    assert_eq!(r["from"], "all-MiniLM-L6-v2", "{r}");
    assert_eq!(r["to"], "all-MiniLM-L6-v2@int8", "{r}");
    assert_eq!(r["files"], 3, "{r}");
    assert!(r["chunks"].as_u64().unwrap() > 3, "{r}");
    // Now int8, and `auto`, read it and find the same documents; f32 is refused.
    let hits = ok(&run(&idx, Some("int8"), search)).to_string();
    assert!(hits.contains("intake"), "{hits}");
    let hits = ok(&run(&idx, None, search)).to_string();
    assert!(hits.contains("intake"), "{hits}");
    assert!(!run(&idx, Some("f32"), search).status.success());
    // Converting again does nothing.
    let r = ok(&run(&idx, Some("int8"), &["ingest", "--reembed", "--json"]));
    assert_eq!(r["chunks"], 0, "{r}");
    // A new index under `auto` is embedded at the fastest precision this CPU runs.
    let fresh = dir.path().join("fresh");
    ok(&run(&fresh, None, &ingest));
    let want = match attest::models::default_precision() {
        attest::config::EmbedPrecision::Int8 => "all-MiniLM-L6-v2@int8",
        attest::config::EmbedPrecision::F32 => "all-MiniLM-L6-v2",
    };
    assert_eq!(status(&fresh), want);
}
