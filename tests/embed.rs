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
