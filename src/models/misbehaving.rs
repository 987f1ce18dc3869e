//! Models that misbehave, behind the model traits, and tests that every library entry
//! point turns their output into a [`ModelError::Output`] naming the model, never a panic.

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;

use super::cross::Rerank;
use super::{Embed, HashEmbedder, ModelError};
use crate::config::Config;
use crate::engine::{sample_engine, Engine};
use crate::error::Error;
use crate::evidence::extract::extract;
use crate::evidence::verify::{verify, RelevanceConfig};
use crate::ingest::{ingest, IngestOptions};
use crate::retrieve::multi::{retrieve, KeywordPrf, MultiOptions};
use crate::retrieve::{search, ChunkView, Mode};

/// How a fake model's output is wrong.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fault {
    /// One output fewer than inputs.
    TooFew,
    /// One output more than inputs.
    TooMany,
    /// Vectors one dimension short (bi-encoder only).
    WrongDimension,
    /// A NaN in the first output.
    NotANumber,
}

const FAULTS: [Fault; 4] = [
    Fault::TooFew,
    Fault::TooMany,
    Fault::WrongDimension,
    Fault::NotANumber,
];

/// [`HashEmbedder`] (same model id, so it opens the same index) with a [`Fault`].
pub struct BadEmbedder {
    inner: HashEmbedder,
    fault: Fault,
}

impl BadEmbedder {
    pub fn new(dim: usize, fault: Fault) -> Self {
        BadEmbedder {
            inner: HashEmbedder::new(dim),
            fault,
        }
    }
}

impl Embed for BadEmbedder {
    fn model_id(&self) -> &str {
        self.inner.model_id()
    }
    fn dim(&self) -> usize {
        self.inner.dim()
    }
    fn embed_unchecked(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, ModelError> {
        let mut v = self.inner.embed_unchecked(texts)?;
        match self.fault {
            Fault::TooFew => {
                v.pop();
            }
            Fault::TooMany => v.push(vec![0.0; self.dim()]),
            Fault::WrongDimension => v.iter_mut().for_each(|x| {
                x.pop();
            }),
            Fault::NotANumber => {
                if let Some(x) = v.first_mut().and_then(|x| x.first_mut()) {
                    *x = f32::NAN;
                }
            }
        }
        Ok(v)
    }
    fn count_tokens(&self, text: &str) -> usize {
        self.inner.count_tokens(text)
    }
}

/// A reranker scoring by passage length, with a [`Fault`].
pub struct BadReranker(pub Fault);

impl Rerank for BadReranker {
    fn model_id(&self) -> &str {
        "bad-reranker"
    }
    fn score_unchecked(&self, _query: &str, passages: &[&str]) -> Result<Vec<f32>, ModelError> {
        let mut s: Vec<f32> = passages.iter().map(|p| p.len() as f32).collect();
        match self.0 {
            Fault::TooFew => {
                s.pop();
            }
            Fault::TooMany | Fault::WrongDimension => s.push(0.0),
            Fault::NotANumber => {
                if let Some(x) = s.first_mut() {
                    *x = f32::NAN;
                }
            }
        }
        Ok(s)
    }
}

/// Asserts that `r` is a [`ModelError::Output`] of `model`.
#[track_caller]
fn assert_output_error<T: std::fmt::Debug>(r: Result<T, Error>, model: &str, what: &str) {
    match r {
        Err(Error::Model(ModelError::Output { model: m, .. })) if m == model => {}
        other => panic!("{what}: expected an output error of {model}, got {other:?}"),
    }
}

/// The sample index opened with a misbehaving bi-encoder.
fn sample_with(dir: &Path, fault: Fault) -> Engine {
    drop(sample_engine(dir));
    let cfg = Config {
        index: dir.join("idx"),
        ..Config::default()
    };
    Engine::open(cfg, Arc::new(BadEmbedder::new(128, fault)), false).unwrap()
}

#[test]
fn the_embed_check_passes_good_output_and_names_the_model_on_bad() {
    let good = HashEmbedder::new(16);
    assert_eq!(good.embed(&["a", "b"]).unwrap().len(), 2);
    assert!(good.embed(&[]).unwrap().is_empty());
    for fault in FAULTS {
        let e = BadEmbedder::new(16, fault).embed(&["a", "b"]).unwrap_err();
        assert!(matches!(&e, ModelError::Output { model, .. } if model == "hash-16"));
        assert!(e.to_string().contains("hash-16"), "{e}");
    }
}

#[test]
fn search_and_retrieve_refuse_a_misbehaving_bi_encoder() {
    for fault in FAULTS {
        let tmp = tempfile::tempdir().unwrap();
        let e = sample_with(tmp.path(), fault);
        for mode in [Mode::Dense, Mode::Hybrid] {
            let r = search(&e, "client records retention", mode, 3);
            assert_output_error(r, "hash-128", &format!("search {mode} {fault:?}"));
        }
        assert!(search(&e, "client records retention", Mode::Lexical, 3).is_ok());
        let r = retrieve(
            &e,
            "How long must client records be retained?",
            &KeywordPrf::default(),
            &HashSet::new(),
            None,
            &MultiOptions::default(),
        );
        assert_output_error(r, "hash-128", &format!("retrieve {fault:?}"));
    }
}

#[test]
fn retrieve_and_verify_refuse_a_misbehaving_cross_encoder() {
    let tmp = tempfile::tempdir().unwrap();
    let e = sample_engine(tmp.path());
    let q = "How long must client records be retained?";
    let rows = e
        .store()
        .chunks_by_ids(&e.store().chunk_row_ids().unwrap())
        .unwrap();
    let chunks: Vec<ChunkView> = rows.iter().map(ChunkView::from).collect();
    let cands = extract(e.store(), &chunks, 1).unwrap();
    assert!(!cands.is_empty());
    for fault in [Fault::TooFew, Fault::TooMany, Fault::NotANumber] {
        let rr = BadReranker(fault);
        let r = retrieve(
            &e,
            q,
            &KeywordPrf::default(),
            &HashSet::new(),
            Some(&rr),
            &MultiOptions::default(),
        );
        assert_output_error(r, "bad-reranker", &format!("retrieve {fault:?}"));
        let r = verify(
            e.store(),
            q,
            &crate::frame::frame(q),
            cands.clone(),
            e.embedder(),
            Some(&rr),
            &RelevanceConfig::default(),
        );
        assert_output_error(r, "bad-reranker", &format!("verify {fault:?}"));
    }
}

#[test]
fn verify_refuses_a_misbehaving_bi_encoder() {
    let tmp = tempfile::tempdir().unwrap();
    let e = sample_engine(tmp.path());
    let rows = e
        .store()
        .chunks_by_ids(&e.store().chunk_row_ids().unwrap())
        .unwrap();
    let chunks: Vec<ChunkView> = rows.iter().map(ChunkView::from).collect();
    let cands = extract(e.store(), &chunks, 1).unwrap();
    for fault in FAULTS {
        let bad = BadEmbedder::new(128, fault);
        let r = verify(
            e.store(),
            "How long must client records be retained?",
            &crate::frame::frame("How long must client records be retained?"),
            cands.clone(),
            &bad,
            None,
            &RelevanceConfig::default(),
        );
        assert_output_error(r, "hash-128", &format!("verify {fault:?}"));
    }
}

#[test]
fn ingest_fails_on_a_misbehaving_bi_encoder_and_writes_nothing_wrong() {
    for fault in FAULTS {
        let tmp = tempfile::tempdir().unwrap();
        let doc = tmp.path().join("a.md");
        std::fs::write(
            &doc,
            "# A\n\nCounties shall keep records.\n\nMore text here.\n",
        )
        .unwrap();
        let cfg = Config {
            index: tmp.path().join("idx"),
            ..Config::default()
        };
        let mut e = Engine::open(cfg, Arc::new(BadEmbedder::new(64, fault)), true).unwrap();
        let r = ingest(&mut e, &[doc], &IngestOptions::default());
        assert_output_error(r, "hash-64", &format!("ingest {fault:?}"));
        assert_eq!(e.store().chunk_count().unwrap(), 0, "{fault:?}");
    }
}
