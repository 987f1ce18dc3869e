//! Shared helpers for the integration tests.

use std::path::PathBuf;
use std::sync::OnceLock;

use attest::models::MiniLm;

/// The bundled model directory; tests that need it fail with a clear message when absent.
pub fn model_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("models/all-MiniLM-L6-v2");
    assert!(
        dir.join("model.safetensors").is_file(),
        "model files missing in {}: run models/fetch.sh first",
        dir.display()
    );
    dir
}

/// The real bi-encoder, loaded once per test binary.
pub fn minilm() -> &'static MiniLm {
    static M: OnceLock<MiniLm> = OnceLock::new();
    M.get_or_init(|| MiniLm::load(&model_dir()).expect("load all-MiniLM-L6-v2"))
}
pub mod docgen;
pub mod review_sample;
pub mod server;
