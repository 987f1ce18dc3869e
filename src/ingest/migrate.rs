//! Copying a corpus to another backend (`attest migrate`): every file's documents, text,
//! layout, chunks and vectors as stored, so nothing is read from disk or embedded again.
//!
//! The copy goes file by file through the target's own [`Records::apply_file`], the write
//! an ingest makes, so the target is what an ingest of the same files would have built.
//! Every document is checked as it is read ([`crate::store::export::RawDoc::checked`]): a
//! damaged one stops the copy with its name, and the source is never written. A file the
//! target already holds in the same state (same file record and document hashes) is
//! skipped, so an interrupted copy resumes where it stopped, and a copy run again after
//! the source changed rewrites only the files that changed. A target that holds files the
//! source does not is refused (the copy never mixes two corpora) unless told to prune them. The QA memory is not
//! copied (its answers are tied to the source's corpus version).

use std::path::Path;
use std::time::Instant;

use serde::Serialize;

use crate::config::Config;
use crate::engine::{open_existing_store, open_store};
use crate::error::Error;
use crate::store::{Store, StoreError};

/// What a migration did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct MigrateReport {
    /// Where the corpus came from (database file, or server URL and prefix).
    pub from: String,
    /// Where it went.
    pub to: String,
    /// Files in the source.
    pub files: usize,
    /// Files copied.
    pub copied: usize,
    /// Files the target already held in the same state (an earlier, interrupted run).
    pub already_there: usize,
    /// Documents and chunks in the target afterwards.
    pub documents: usize,
    /// Chunks in the target afterwards.
    pub chunks: usize,
    /// Files the target held that the source does not, removed (`prune`).
    pub pruned: usize,
    /// Source declarations copied.
    pub declarations: usize,
    /// The target's corpus version afterwards.
    pub corpus_version: u64,
    /// Milliseconds spent building the target's dense index (SQLite targets).
    pub index_ms: u64,
    /// Milliseconds in all.
    pub total_ms: u64,
}

/// Copy the corpus `from` names into the backend `to` names (created when absent, with
/// the source's model and dimension). A target holding files the source does not is
/// refused, unless `prune`, which removes them (bringing an earlier copy up to date after
/// the source pruned files). `progress` sees the report after every file.
pub fn migrate(
    from: &Config,
    to: &Config,
    prune: bool,
    progress: &mut dyn FnMut(&MigrateReport),
) -> Result<MigrateReport, Error> {
    let t0 = Instant::now();
    let source = open_existing_store(from)?;
    let (Some(model), Some(dim)) = (source.model_id()?, source.dimension()?) else {
        return Err(StoreError::NoIndex {
            path: source.location().to_path_buf(),
        }
        .into());
    };
    let _locks = locks(from, to)?;
    let mut target = open_store(to, &model, dim, true)?;
    let mut report = MigrateReport {
        from: source.location().display().to_string(),
        to: target.location().display().to_string(),
        ..MigrateReport::default()
    };
    if same_place(source.location(), target.location()) {
        return Err(Error::Usage(format!(
            "{}: the source and the target of a migration are the same corpus",
            report.to
        )));
    }
    let files = source.stored_files()?;
    report.pruned = foreign_files(&mut target, &files, prune)?;
    report.files = files.len();
    for path in &files {
        if copy_file(&source, &mut target, path)? {
            report.copied += 1;
        } else {
            report.already_there += 1;
        }
        progress(&report);
    }
    for (root, meta) in source.source_decls()? {
        target.set_source_decl(&root, &meta)?;
        report.declarations += 1;
    }
    target.settle()?;
    let ti = Instant::now();
    if !target.searches_dense() {
        crate::index::Dense::update(&target, &to.index, to, dim, false)?;
    }
    report.index_ms = ti.elapsed().as_millis() as u64;
    report.documents = target.document_count()?;
    report.chunks = target.chunk_count()?;
    report.corpus_version = target.corpus_version()?;
    report.total_ms = t0.elapsed().as_millis() as u64;
    Ok(report)
}

/// Copy file `path` unless the target holds it in the same state; `true` when copied.
fn copy_file(source: &Store, target: &mut Store, path: &str) -> Result<bool, Error> {
    let state = source.file_state(path)?;
    let held = target.docs_of_file(path)?;
    if state.is_some() && target.file_state(path)? == state {
        let hashes = |docs: &[crate::store::StoredDoc]| {
            docs.iter()
                .map(|d| (d.key.clone(), d.content_hash.clone()))
                .collect::<Vec<_>>()
        };
        if hashes(&held) == hashes(&source.docs_of_file(path)?) {
            return Ok(false);
        }
    }
    let docs = source.export_file(path)?;
    let remove: Vec<i64> = held.iter().map(|d| d.id).collect();
    let file = state
        .as_ref()
        .map(|(size, mtime, hash)| (path, *size, *mtime, hash.as_str()));
    target.apply_file(file, &remove, &docs)?;
    Ok(true)
}

/// The files the target holds and the source does not: removed with `prune` (how many),
/// else an error naming the first.
fn foreign_files(target: &mut Store, files: &[String], prune: bool) -> Result<usize, Error> {
    let known: std::collections::HashSet<&str> = files.iter().map(String::as_str).collect();
    let foreign: Vec<String> = target
        .stored_files()?
        .into_iter()
        .filter(|f| !known.contains(f.as_str()))
        .collect();
    match foreign.first() {
        Some(first) if !prune => Err(Error::Usage(format!(
            "{}: the target already holds {} file(s) the source does not (first: {first}); \
             migrate into an empty index or another Milvus prefix, or add --prune to remove \
             them (an earlier copy of this corpus whose source pruned files)",
            target.location().display(),
            foreign.len()
        ))),
        _ => {
            for f in &foreign {
                target.remove_file(f)?;
            }
            Ok(foreign.len())
        }
    }
}

/// The ingest locks of both sides (one when they share an index directory), so no ingest
/// writes either while the copy runs.
fn locks(from: &Config, to: &Config) -> Result<Vec<std::fs::File>, Error> {
    let mut held = vec![super::lock_index(&from.index)?];
    if !same_place(&from.index, &to.index) {
        held.push(super::lock_index(&to.index)?);
    }
    Ok(held)
}

/// Whether two locations name the same place (paths compared once resolved).
fn same_place(a: &Path, b: &Path) -> bool {
    let resolve = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    resolve(a) == resolve(b)
}
