//! `attest ingest --reembed`: every stored chunk embedded again by the bi-encoder in use
//! (another precision, or another model), from the documents the index stores, so that an
//! index converts without its files and never holds vectors of two encoders.
//!
//! While it runs, the index records the model it is converting from and to (`A -> B`), which
//! neither encoder accepts: an interrupted conversion leaves an index that refuses
//! questions until `--reembed` runs again, never one that mixes vectors. Each file's
//! documents are replaced in one transaction, as an ingest replaces a changed file. The QA
//! memory, keyed by question vectors of the old encoder, is cleared.

use std::time::Instant;

use serde::Serialize;

use super::{embedded_text_of, lock_index};
use crate::config::Config;
use crate::error::Error;
use crate::models::Embed;
use crate::store::{embed_hash, NewDoc, Store, StoreError};

/// Texts per bi-encoder call.
const GROUP: usize = 256;

/// What a conversion did.
#[derive(Debug, Default, Clone, Serialize)]
pub struct ReembedReport {
    /// The encoder the index was embedded with.
    pub from: String,
    /// The encoder it is embedded with now.
    pub to: String,
    /// Files whose documents were embedded again.
    pub files: usize,
    /// Chunks embedded again.
    pub chunks: usize,
    /// Model tokens read.
    pub tokens: usize,
    /// Answers dropped from the QA memory.
    pub memory_cleared: usize,
    /// Wall time in milliseconds.
    pub total_ms: u64,
}

/// Embeds every chunk of the index at `cfg.index` again with `embedder` and records it as
/// the index's encoder. An index already embedded by it is left as it is.
pub fn reembed(cfg: &Config, embedder: &dyn Embed) -> Result<ReembedReport, Error> {
    let t0 = Instant::now();
    let _lock = lock_index(&cfg.index)?;
    let mut store = crate::engine::open_existing_store(cfg)?;
    if store.is_read_only() {
        return Err(StoreError::ReadOnly {
            path: store.location().to_path_buf(),
            reason: "re-embedding writes every vector".into(),
        }
        .into());
    }
    let stored = store.model_id()?.unwrap_or_default();
    // An interrupted conversion recorded `A -> B`: it converts from A again.
    let from = stored.split(" -> ").next().unwrap_or_default().to_string();
    let to = embedder.model_id().to_string();
    let mut report = ReembedReport {
        from: from.clone(),
        to: to.clone(),
        ..ReembedReport::default()
    };
    if stored == to && store.dimension()? == Some(embedder.dim()) {
        report.total_ms = t0.elapsed().as_millis() as u64;
        return Ok(report);
    }
    store.set_meta("model_id", &format!("{from} -> {to}"))?;
    for path in store.stored_files()? {
        convert_file(&mut store, &path, embedder, &mut report)?;
    }
    for row in store.memory_rows()? {
        store.forget(row.0)?;
        report.memory_cleared += 1;
    }
    store.set_meta("dimension", &embedder.dim().to_string())?;
    store.set_meta("model_id", &to)?;
    report.total_ms = t0.elapsed().as_millis() as u64;
    Ok(report)
}

/// Replaces the documents of one stored file with the same documents embedded again.
fn convert_file(
    store: &mut Store,
    path: &str,
    embedder: &dyn Embed,
    report: &mut ReembedReport,
) -> Result<(), Error> {
    let mut docs = store.export_file(path)?;
    let rows: Vec<i64> = store.docs_of_file(path)?.iter().map(|d| d.id).collect();
    let state = store.file_state(path)?;
    for d in &mut docs {
        embed_doc(d, embedder, report)?;
    }
    let file = state
        .as_ref()
        .map(|(size, mtime, hash)| (path, *size, *mtime, hash.as_str()));
    store.apply_file(file, &rows, &docs)?;
    report.files += 1;
    Ok(())
}

/// Sets every chunk's vector (and the hash of the text it was embedded from) anew.
fn embed_doc(
    d: &mut NewDoc,
    embedder: &dyn Embed,
    report: &mut ReembedReport,
) -> Result<(), Error> {
    let texts: Vec<String> = d
        .chunks
        .iter()
        .map(|c| embedded_text_of(&d.title, &d.layout, c.span.start, c.span.slice(&d.text)))
        .collect();
    for (part, chunks) in texts.chunks(GROUP).zip(d.chunks.chunks_mut(GROUP)) {
        let refs: Vec<&str> = part.iter().map(String::as_str).collect();
        let (vectors, tokens) = embedder.embed_counted(&refs)?;
        report.tokens += tokens;
        for ((c, v), text) in chunks.iter_mut().zip(vectors).zip(part) {
            c.vector = v;
            c.embed_hash = Some(embed_hash(text));
            report.chunks += 1;
        }
    }
    Ok(())
}
