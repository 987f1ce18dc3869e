//! Ingest: walk roots, load files, split into sentences and chunks, embed, and store —
//! one transaction per file, incrementally.
//!
//! A file whose size and modification time match the stored record is skipped unread
//! (with `--verify` or `--repair`, only when the sha256 of its bytes matches too).
//! Otherwise it is loaded and each of its documents compared by content hash: unchanged
//! documents are kept as they are, changed ones replaced, new ones added, and documents
//! that disappeared from the file removed. Stored files under an ingested root that are no
//! longer readable regular files the walk includes (deleted, ignored, replaced by a
//! directory, device or FIFO) are reported as `missing` and removed only with `--prune`. A
//! file that fails to load, chunk or embed within its budgets is reported with its reason
//! and nothing stored for it is touched.

pub mod migrate;
mod pipeline;
pub mod reembed;
mod reuse;
pub mod watch;

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, UNIX_EPOCH};

use serde::Serialize;

use crate::config::Config;
use crate::corpus::chunk::{chunk_until, Chunking};
use crate::corpus::load::{
    file_sha256, load_file_until, skipped, walk, Budget, Deadline, LoadError, LoadOptions,
    LoadedDoc, SkipReason, SourceKind,
};
use crate::corpus::segment::{sentences, LineIndex};
use crate::engine::Engine;
use crate::error::Error;
use crate::store::{
    doc_id, key_path, layout_json, path_key, sha256_hex, NewChunk, NewDoc, StoreError,
};

/// Options for one ingest run.
#[derive(Debug, Clone, Default)]
pub struct IngestOptions {
    /// Remove documents of files that are gone from an ingested root.
    pub prune: bool,
    /// Show a progress bar (only drawn when stderr is a terminal).
    pub progress: bool,
    /// Re-read every document the deep check finds damaged, even when its file's size
    /// and time are unchanged, and rebuild the full-text and dense indexes.
    pub repair: bool,
    /// Hash the bytes of every file whose size and time are unchanged and re-read those
    /// that differ from what was ingested.
    pub verify: bool,
    /// Ingest only share `k` of `n` of the files (by [`shard_of`] their path), as writer
    /// `k` of `n` concurrent ingests into one backend that allows it.
    pub shard: Option<(u64, u64)>,
}

/// The share (of `n`) that the file with store key `key` belongs to.
pub fn shard_of(key: &str, n: u64) -> u64 {
    xxhash_rust::xxh64::xxh64(key.as_bytes(), 0) % n.max(1)
}

/// Whether the file with store key `key` is this run's to ingest.
fn in_share(key: &str, shard: Option<(u64, u64)>) -> bool {
    shard.is_none_or(|(k, n)| shard_of(key, n) == k)
}

/// A file that could not be ingested.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Failure {
    /// The path as given or found.
    pub path: String,
    /// Why it failed.
    pub reason: String,
}

/// A file under an ingested folder that was not read, and why.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SkippedFile {
    /// The file or folder as found.
    pub path: String,
    /// Why it was not read.
    #[serde(flatten)]
    pub reason: SkipReason,
}

/// A file read as another format than its extension names, because its content is that
/// format (HTML saved as `.txt`).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ReadAs {
    /// The file as found.
    pub path: String,
    /// The format it was read as.
    pub format: SourceKind,
}

/// Summary of an ingest run (the `--json` output).
#[derive(Debug, Clone, Serialize, Default)]
pub struct IngestReport {
    /// Documents added.
    pub added: usize,
    /// Documents whose content changed and were replaced.
    pub updated: usize,
    /// Documents found unchanged.
    pub unchanged: usize,
    /// Documents removed (gone from a changed file, or pruned).
    pub removed: usize,
    /// Files gone from an ingested root (removed only with `--prune`).
    pub missing: Vec<String>,
    /// Files that failed, with reasons.
    pub failed: Vec<Failure>,
    /// Files and folders under an ingested folder that were not read (unsupported type,
    /// hidden, excluded by an ignore file), at most [`crate::corpus::load::MAX_SKIPPED`].
    pub skipped: Vec<SkippedFile>,
    /// How many were skipped in all (more than `skipped` lists when over the cap).
    pub skipped_total: usize,
    /// Files read as the format their content is rather than the one their name says.
    pub read_as: Vec<ReadAs>,
    /// Documents stored with pages that keep much less text than their file holds.
    pub partly_read: Vec<Failure>,
    /// Documents in the index after the run.
    pub documents: usize,
    /// Chunks in the index after the run.
    pub chunks: usize,
    /// Corpus version after the run.
    pub corpus_version: u64,
    /// Chunks the bi-encoder embedded in this run.
    pub chunks_embedded: usize,
    /// Chunks stored in this run with the vector of a text embedded before (in this run
    /// or stored), not embedded again.
    pub chunks_reused: usize,
    /// Wall time of the run in milliseconds.
    pub total_ms: u64,
    /// Time spent in the bi-encoder in milliseconds.
    pub embed_ms: u64,
    /// Model tokens the bi-encoder read in this run (special tokens included).
    pub tokens_embedded: usize,
    /// Time spent loading and chunking files, summed over files (they load in parallel,
    /// beside embedding, so this can exceed the wall time) in milliseconds.
    pub load_ms: u64,
    /// Time spent writing files to the store in milliseconds.
    pub write_ms: u64,
    /// Time spent updating the dense index in milliseconds.
    pub index_ms: u64,
}

/// Display form of a path: relative to the working directory when under it.
pub fn display_path(canonical: &Path) -> String {
    let cwd = std::env::current_dir()
        .ok()
        .and_then(|c| c.canonicalize().ok());
    let shown = match cwd {
        Some(c) => canonical
            .strip_prefix(&c)
            .unwrap_or(canonical)
            .to_path_buf(),
        None => canonical.to_path_buf(),
    };
    shown.to_string_lossy().replace('\\', "/")
}

struct Pending {
    path: String,
    /// The path as the walk found it (failures are reported under it).
    shown: PathBuf,
    size: u64,
    mtime_ns: i64,
    /// Time already spent on the file (loading and chunking).
    spent: Duration,
    file_hash: String,
    /// Documents added, updated and removed once the file is written.
    counts: [usize; 3],
    remove: Vec<i64>,
    docs: Vec<NewDoc>,
    /// Per document: texts to embed, one per chunk.
    embed_texts: Vec<Vec<String>>,
    /// The [`crate::store::embed_hash`] of each text to embed, all documents in order.
    embed_hashes: Vec<crate::store::EmbedHash>,
    /// Vectors the store already holds for some of those hashes (texts embedded before).
    stored_vectors: HashMap<crate::store::EmbedHash, Vec<f32>>,
    /// Chunks whose vector was reused instead of embedded, once embedding is done.
    reused: usize,
}

impl Pending {
    /// A loaded file with nothing to write yet.
    fn new(state: FileState) -> Self {
        let FileState {
            file,
            spent,
            file_hash,
        } = state;
        Pending {
            path: file.key,
            shown: file.found.shown,
            size: file.size,
            mtime_ns: file.mtime_ns,
            spent,
            file_hash,
            counts: [0; 3],
            remove: Vec::new(),
            docs: Vec::new(),
            embed_texts: Vec::new(),
            embed_hashes: Vec::new(),
            stored_vectors: HashMap::new(),
            reused: 0,
        }
    }
}

/// Meta key of the chunk budget (and overlap) the stored chunks were cut with.
const BUDGET_KEY: &str = "chunk_tokens";

/// How `cfg` cuts documents.
pub fn chunking(cfg: &Config) -> Chunking {
    Chunking {
        budget: cfg.chunk_tokens.max(1),
        overlap: cfg.chunk_overlap,
    }
}

/// What [`BUDGET_KEY`] records: the budget, with ` without overlap` when it is off (an
/// index cut before the setting existed records the budget alone, and had overlap).
fn chunking_key(cfg: &Config) -> String {
    let shape = chunking(cfg);
    if shape.overlap {
        shape.budget.to_string()
    } else {
        format!("{} without overlap", shape.budget)
    }
}

/// Ingest `roots` into the engine's index.
///
/// A bi-encoder that returns the wrong number of vectors, a wrong dimension or
/// non-finite values fails the run ([`crate::models::ModelError::Output`]): files written
/// before stay written, and the dense index is brought up to date when next opened.
pub fn ingest(
    engine: &mut Engine,
    roots: &[PathBuf],
    opts: &IngestOptions,
) -> Result<IngestReport, Error> {
    let t0 = Instant::now();
    let _lock = match opts.shard {
        None => lock_index(engine.dir())?,
        Some((k, n)) => {
            engine.store_mut().set_writer(k, n)?;
            lock_file(engine.dir(), &format!("ingest-{k}of{n}.lock"))?
        }
    };
    let mut report = IngestReport::default();
    let repair = plan_repair(engine, opts.repair)?;
    if opts.repair && !engine.store().searches_dense() {
        // Repaired vectors keep their ids: until the rebuild at the end, the graph is stale.
        crate::index::mark_stale(engine.store())?;
    }
    let cfg = engine.config().clone();
    let mut walked = walk_roots(engine, roots, &repair, &mut report)?;
    walked
        .files
        .retain(|f| in_share(&path_key(&f.canonical), opts.shard));
    // A changed chunk budget or overlap re-chunks (and re-embeds) every document met in
    // this run.
    let rechunk = engine
        .store()
        .meta(BUDGET_KEY)?
        .is_some_and(|b| b != chunking_key(&cfg));
    let mut lost = BTreeSet::new();
    let check = Recheck {
        rechunk,
        verify: opts.verify,
        repair: &repair,
    };
    let to_load = changed_files(engine, &walked.files, &check, &mut lost, &mut report)?;
    let stage = (rechunk, &repair);
    let embedded = pipeline::run(
        engine,
        to_load,
        stage,
        &mut lost,
        opts.progress,
        &mut report,
    )?;
    drop_unrepaired(engine, &repair, &mut report)?;
    report_missing(
        engine,
        &walked,
        &lost,
        (opts.prune, opts.shard),
        &mut report,
    )?;
    if report.failed.is_empty() || !rechunk {
        engine.store().set_meta(BUDGET_KEY, &chunking_key(&cfg))?;
    }
    engine.store().settle()?;
    let ti = Instant::now();
    engine.refresh_dense_with(true, opts.repair)?;
    report.index_ms = ti.elapsed().as_millis() as u64;
    report.documents = engine.store().document_count()?;
    report.chunks = engine.store().chunk_count()?;
    report.corpus_version = engine.store().corpus_version()?;
    report.embed_ms = embedded.time.as_millis() as u64;
    report.tokens_embedded = embedded.tokens;
    report.total_ms = t0.elapsed().as_millis() as u64;
    // Files are compared as they finish loading: the lists read in path order.
    report.failed.sort_by(|a, b| a.path.cmp(&b.path));
    report.partly_read.sort_by(|a, b| a.path.cmp(&b.path));
    report.read_as.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(report)
}

/// The files of a run: canonical roots, every file found under them (plus those a repair
/// re-reads) and the directories the walk could not read.
struct Walked {
    roots: Vec<PathBuf>,
    files: Vec<Found>,
    /// Nothing under these counts as gone.
    unreadable: Vec<PathBuf>,
}

/// A file the walk found: its canonical path (its identity) and the path it was found at
/// (a symlink's own path), under which it is reported.
#[derive(Debug, Clone)]
struct Found {
    canonical: PathBuf,
    shown: PathBuf,
}

/// Canonicalises and records the roots (so later runs can find files that vanished) and
/// walks them; roots and paths that cannot be read become failures.
fn walk_roots(
    engine: &Engine,
    roots: &[PathBuf],
    repair: &Repair,
    report: &mut IngestReport,
) -> Result<Walked, Error> {
    let mut canon_roots = Vec::new();
    for r in roots {
        match r.canonicalize() {
            Ok(c) => canon_roots.push(c),
            Err(e) => report.failed.push(Failure {
                path: r.display().to_string(),
                reason: e.to_string(),
            }),
        }
    }
    let (files, walk_errors) = walk(&canon_roots);
    let (passed, total) = skipped(&canon_roots, &files);
    report.skipped_total = total;
    report.skipped = passed
        .into_iter()
        .map(|s| SkippedFile {
            path: display_path(&s.path),
            reason: s.reason,
        })
        .collect();
    // One identity per file, however it was reached (through a symlink or named twice).
    let mut files: Vec<Found> = files
        .into_iter()
        .map(|f| Found {
            canonical: f.canonicalize().unwrap_or_else(|_| f.clone()),
            shown: f,
        })
        .collect();
    files.extend(repair.files.iter().map(|k| Found {
        canonical: key_path(k),
        shown: key_path(k),
    }));
    files.sort_by(|a, b| a.canonical.cmp(&b.canonical));
    files.dedup_by(|a, b| a.canonical == b.canonical);
    // Directories the walk could not read or enter (a loop): what is stored under them is
    // not known to be gone. A device, FIFO or dangling link is gone.
    let unreadable: Vec<PathBuf> = walk_errors
        .iter()
        .map(|e| e.path().to_path_buf())
        .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.is_dir()))
        .collect();
    for e in walk_errors {
        report.failed.push(Failure {
            path: display_path(e.path()),
            reason: e.reason(),
        });
    }
    for r in &canon_roots {
        engine.store().add_root(&path_key(r))?;
    }
    Ok(Walked {
        roots: canon_roots,
        files,
        unreadable,
    })
}

/// A file to load: where it was found, its store key, size and modification time (ns).
struct ToLoad {
    found: Found,
    key: String,
    size: u64,
    mtime_ns: i64,
}

/// What makes a file whose size and mtime match its record be read again.
struct Recheck<'a> {
    /// A new chunk budget: every file.
    rechunk: bool,
    /// `--verify`: files whose bytes no longer hash to the recorded sha256.
    verify: bool,
    /// `--repair`: the files of damaged documents.
    repair: &'a Repair,
}

/// The files that need loading: new, or size or mtime changed, or recorded without a
/// hash of their bytes (or as [`Recheck`] says). Documents of the others count as
/// unchanged. A file that can no longer be stat'ed is a failure and goes into `lost`.
fn changed_files(
    engine: &Engine,
    files: &[Found],
    check: &Recheck<'_>,
    lost: &mut BTreeSet<String>,
    report: &mut IngestReport,
) -> Result<Vec<ToLoad>, Error> {
    let mut to_load = Vec::new();
    for f in files {
        let key = path_key(&f.canonical);
        let meta = match std::fs::metadata(&f.canonical) {
            Ok(m) => m,
            Err(e) => {
                use std::io::ErrorKind;
                if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::PermissionDenied) {
                    lost.insert(key);
                }
                report.failed.push(Failure {
                    path: display_path(&f.shown),
                    reason: e.to_string(),
                });
                continue;
            }
        };
        let mtime_ns = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map(|d| d.as_nanos() as i64)
            .unwrap_or(0);
        if let Some((size, mtime, hash)) = engine.store().file_state(&key)? {
            let same = size == meta.len()
                && mtime == mtime_ns
                && !hash.is_empty()
                && !check.rechunk
                && !check.repair.files.contains(&key)
                && (!check.verify || file_sha256(&f.canonical).ok() == Some(hash));
            if same {
                report.unchanged += engine.store().docs_of_file(&key)?.len();
                continue;
            }
        }
        to_load.push(ToLoad {
            found: f.clone(),
            key,
            size: meta.len(),
            mtime_ns,
        });
    }
    Ok(to_load)
}

/// A loaded file: what was to load, the time spent, and the sha256 of its bytes with its
/// chunked documents, or why it failed.
struct Loaded {
    file: ToLoad,
    spent: Duration,
    result: Result<(String, Vec<Chunked>), LoadError>,
}

/// Compares a loaded file's documents with the stored ones by content hash: what to
/// remove and what to write (and embed). A load failure becomes a failure, reported under
/// the path the file was found at (`None`); a file that is no longer a readable regular
/// file goes into `lost` as well.
fn compare_loaded(
    engine: &Engine,
    loaded: Loaded,
    rechunk: bool,
    repair: &Repair,
    lost: &mut BTreeSet<String>,
    report: &mut IngestReport,
) -> Result<Option<Pending>, Error> {
    let Loaded {
        file,
        spent,
        result,
    } = loaded;
    match result {
        Ok((file_hash, docs)) => {
            let named = crate::corpus::load::source_kind(&file.found.canonical).ok();
            if let Some((doc, ..)) = docs.first().filter(|(d, ..)| Some(d.kind) != named) {
                report.read_as.push(ReadAs {
                    path: display_path(&file.found.shown),
                    format: doc.kind,
                });
            }
            for (doc, ..) in docs.iter().filter(|(d, ..)| !d.layout.shortfall.is_empty()) {
                report.partly_read.push(Failure {
                    path: display_path(&file.found.shown),
                    reason: shortfall_reason(&doc.layout.shortfall),
                });
            }
            let state = FileState {
                file,
                spent,
                file_hash,
            };
            compare_file(engine, state, docs, rechunk, repair, report).map(Some)
        }
        Err(e) => {
            if is_gone(&e) {
                lost.insert(file.key);
            }
            report.failed.push(Failure {
                path: display_path(&file.found.shown),
                reason: e.reason(),
            });
            Ok(None)
        }
    }
}

/// What pages lost, in words: "page 2 keeps 12 of 840 letters and digits its text layer
/// holds; …".
fn shortfall_reason(pages: &[crate::corpus::layout::Shortfall]) -> String {
    let each: Vec<String> = pages
        .iter()
        .map(|p| format!("page {} keeps {} of {}", p.page, p.kept, p.held))
        .collect();
    format!(
        "{} letters and digits its text layer holds (stored as far as it was read)",
        each.join(", ")
    )
}

/// Whether a load error says the file is no longer there as a readable regular file (not
/// a transient read error, nor anything about its content).
fn is_gone(e: &LoadError) -> bool {
    use std::io::ErrorKind;
    match e {
        LoadError::NotRegular { .. } => true,
        LoadError::Io { source, .. } => {
            matches!(
                source.kind(),
                ErrorKind::NotFound | ErrorKind::PermissionDenied
            )
        }
        _ => false,
    }
}

/// A loaded file: what was loaded, the time spent on it and the sha256 of its bytes.
struct FileState {
    file: ToLoad,
    spent: Duration,
    file_hash: String,
}

/// One file's changes: its documents unchanged (counted), updated or added (to write),
/// and gone (to remove).
fn compare_file(
    engine: &Engine,
    file: FileState,
    docs: Vec<Chunked>,
    rechunk: bool,
    repair: &Repair,
    report: &mut IngestReport,
) -> Result<Pending, Error> {
    let mut p = Pending::new(file);
    let (key, mtime_ns) = (p.path.clone(), p.mtime_ns);
    let stored: HashMap<String, (i64, String)> = engine
        .store()
        .docs_of_file(&key)?
        .into_iter()
        .map(|d| (d.doc_id, (d.id, d.content_hash)))
        .collect();
    let source = display_path(&key_path(&key));
    let mut present = BTreeSet::new();
    for (d, chunks, texts) in docs {
        let id = doc_id(&key, &d.key);
        let hash = sha256_hex(d.text.as_bytes());
        present.insert(id.clone());
        let same_layout = || {
            let stored = engine.store().layout_json_of(&id).ok().flatten();
            stored.as_deref() == Some(layout_json(&d.layout).as_str())
        };
        match stored.get(&id) {
            Some((row, h))
                if *h == hash && !rechunk && !repair.docs.contains(row) && same_layout() =>
            {
                report.unchanged += 1;
                continue;
            }
            Some((row, _)) => {
                p.counts[1] += 1;
                p.remove.push(*row);
            }
            None => p.counts[0] += 1,
        }
        let mut profile = crate::profile::Profile::of(&d.title, &source, &d.text);
        profile.authors = d.layout.authors.clone();
        let has_authors = !profile.authors.is_empty();
        profile.paper = crate::profile::paper::read(&source, &d.title, &d.text, has_authors);
        p.docs.push(NewDoc {
            path: key.clone(),
            key: d.key,
            source: source.clone(),
            source_meta: profile.to_json(),
            title: d.title,
            kind: d.kind,
            text: d.text,
            layout: d.layout,
            mtime_ns,
            chunks,
        });
        p.embed_texts.push(texts);
    }
    for (id, (row, _)) in &stored {
        if !present.contains(id) {
            p.counts[2] += 1;
            p.remove.push(*row);
        }
    }
    p.embed_hashes = p
        .embed_texts
        .iter()
        .flatten()
        .map(|t| crate::store::embed_hash(t))
        .collect();
    p.stored_vectors = engine.store().vectors_by_embed_hash(&p.embed_hashes)?;
    Ok(p)
}

/// Writes one file's changes in one transaction and counts its documents added, updated
/// and removed; whether they were written. Rows that clash with what is stored make that
/// file a failure and the run goes on.
fn write_file(engine: &mut Engine, p: &Pending, report: &mut IngestReport) -> Result<bool, Error> {
    let written = engine.store_mut().apply_file(
        Some((&p.path, p.size, p.mtime_ns, &p.file_hash)),
        &p.remove,
        &p.docs,
    );
    match written {
        Ok(_) => {
            let [added, updated, removed] = p.counts;
            report.added += added;
            report.updated += updated;
            report.removed += removed;
            Ok(true)
        }
        Err(StoreError::Sqlite { source, .. })
            if source.sqlite_error_code() == Some(rusqlite::ErrorCode::ConstraintViolation) =>
        {
            report.failed.push(Failure {
                path: display_path(&p.shown),
                reason: format!("not stored: {source}"),
            });
            Ok(false)
        }
        Err(e) => Err(e.into()),
    }
}

/// Stored files under the roots of this run that are gone: not a regular file the walk
/// included (deleted, now ignored or hidden, replaced by a directory, a device, a FIFO or
/// a dangling link) or no longer readable (`lost`), unless they sit under a directory the
/// walk could not read. Removed with `prune`, else reported as missing.
fn report_missing(
    engine: &mut Engine,
    walked: &Walked,
    lost: &BTreeSet<String>,
    (prune, shard): (bool, Option<(u64, u64)>),
    report: &mut IngestReport,
) -> Result<(), Error> {
    let seen: BTreeSet<String> = walked
        .files
        .iter()
        .map(|f| path_key(&f.canonical))
        .filter(|k| !lost.contains(k))
        .collect();
    for stored in engine.store().stored_files()? {
        let stored_path = key_path(&stored);
        let under_root = walked.roots.iter().any(|r| stored_path.starts_with(r));
        let shadowed = walked.unreadable.iter().any(|u| stored_path.starts_with(u));
        let ours = in_share(&stored, shard);
        if under_root && ours && !seen.contains(&stored) && !shadowed {
            if prune {
                report.removed += engine.store_mut().remove_file(&stored)?;
            } else {
                report.missing.push(display_path(&stored_path));
            }
        }
    }
    Ok(())
}

/// What a repair re-reads: files (store keys) and document rows the deep check found
/// damaged.
#[derive(Debug, Default)]
struct Repair {
    files: BTreeSet<String>,
    docs: BTreeSet<i64>,
}

/// With `repair`, run the deep check, rebuild the full-text index when it disagrees with
/// the chunks, and return what must be re-read.
fn plan_repair(engine: &Engine, repair: bool) -> Result<Repair, Error> {
    if !repair {
        return Ok(Repair::default());
    }
    let problems = engine.store().deep_check()?;
    for p in &problems {
        tracing::warn!("repairing {p}");
    }
    if problems
        .iter()
        .any(|p| p.kind == crate::store::ProblemKind::Fulltext)
    {
        engine.store().rebuild_fulltext()?;
    }
    let (files, docs) = crate::store::check::repair_targets(&problems);
    Ok(Repair { files, docs })
}

/// Damaged documents a repair could not rewrite (their file is gone or failed) are
/// removed, so the index is sound again; each is reported as a failure.
fn drop_unrepaired(
    engine: &mut Engine,
    repair: &Repair,
    report: &mut IngestReport,
) -> Result<(), Error> {
    let rows: Vec<i64> = repair.docs.iter().copied().collect();
    let left = engine.store().documents_by_rows(&rows)?;
    if left.is_empty() {
        return Ok(());
    }
    let ids: Vec<i64> = left.iter().map(|d| d.id).collect();
    engine.store_mut().apply_file(None, &ids, &[])?;
    for d in left {
        report.removed += 1;
        report.failed.push(Failure {
            path: d.source,
            reason: "damaged in the index and its file could not be re-read; removed (ingest the file again to restore it)".into(),
        });
    }
    Ok(())
}

/// Take the index's ingest lock (an advisory file lock, released when the returned file
/// is dropped or the process ends), so two ingests never write the same index at once.
pub fn lock_index(dir: &Path) -> Result<std::fs::File, Error> {
    lock_file(dir, "ingest.lock")
}

/// Take the advisory lock on file `name` in `dir` (created with `dir` when absent).
fn lock_file(dir: &Path, name: &str) -> Result<std::fs::File, Error> {
    std::fs::create_dir_all(dir).map_err(|e| Error::Locked(format!("{}: {e}", dir.display())))?;
    let path = dir.join(name);
    let file = std::fs::File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| Error::Locked(format!("{}: {e}", path.display())))?;
    match try_lock_patiently(&file) {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(Error::Locked(format!(
            "{}: another attest ingest is writing this index",
            path.display()
        ))),
        Err(std::fs::TryLockError::Error(e)) => {
            Err(Error::Locked(format!("{}: {e}", path.display())))
        }
    }
}

/// `try_lock`, retried for up to 200 ms: `status` probes the lock with a momentary shared
/// lock ([`ingest_running`]), which must not make an ingest starting at that instant fail.
fn try_lock_patiently(file: &std::fs::File) -> Result<(), std::fs::TryLockError> {
    /// Attempts, and the pause between them.
    const ATTEMPTS: usize = 10;
    const PAUSE: std::time::Duration = std::time::Duration::from_millis(20);
    for _ in 0..ATTEMPTS {
        match file.try_lock() {
            Err(std::fs::TryLockError::WouldBlock) => std::thread::sleep(PAUSE),
            r => return r,
        }
    }
    file.try_lock()
}

/// Whether an ingest holds the lock of the index in `dir` now, probed without waiting
/// (a shared lock taken and released at once; read-only, and `false` when no ingest ever
/// ran there).
pub fn ingest_running(dir: &Path) -> bool {
    let Ok(file) = std::fs::File::open(dir.join("ingest.lock")) else {
        return false;
    };
    matches!(
        file.try_lock_shared(),
        Err(std::fs::TryLockError::WouldBlock)
    )
}

/// The loader limits of a configuration.
pub fn load_options(cfg: &Config) -> LoadOptions {
    LoadOptions {
        max_file_bytes: cfg.max_file_bytes,
        pdf_timeout: Duration::from_secs(cfg.pdf_timeout_secs),
        max_text_bytes: cfg.max_text_bytes,
        max_inflated_bytes: cfg.max_inflated_bytes,
        pdf_memory_bytes: cfg.pdf_memory_bytes,
        file_timeout: Duration::from_secs(cfg.file_timeout_secs),
        pdf_extractor: cfg.pdf_extractor,
        ocr: cfg.ocr,
        max_chunks_per_file: cfg.max_chunks_per_file,
    }
}

/// A loaded document with its chunks and the texts to embed for them.
type Chunked = (LoadedDoc, Vec<NewChunk>, Vec<String>);

/// Load one file and chunk its documents, all within `opts.file_timeout` and
/// `opts.max_chunks_per_file`; with the sha256 of the file's bytes.
pub fn load_and_chunk(
    path: &Path,
    opts: &LoadOptions,
    shape: Chunking,
    count: &dyn Fn(&str) -> usize,
) -> Result<(String, Vec<Chunked>), LoadError> {
    let deadline = Deadline::after(opts.file_timeout);
    let file = load_file_until(path, opts, deadline)?;
    let mut out = Vec::with_capacity(file.docs.len());
    let mut total = 0usize;
    for d in file.docs {
        let (chunks, texts) =
            chunk_doc_until(&d, shape, count, &deadline).ok_or_else(|| LoadError::TimedOut {
                path: path.to_path_buf(),
                secs: opts.file_timeout.as_secs_f64(),
            })?;
        total += chunks.len();
        out.push((d, chunks, texts));
    }
    if total > opts.max_chunks_per_file {
        return Err(LoadError::OverBudget {
            path: path.to_path_buf(),
            budget: Budget::Chunks {
                limit: opts.max_chunks_per_file,
                count: total,
            },
        });
    }
    Ok((file.sha256, out))
}

/// Split a document into chunks and the texts to embed for them. The embedded text of
/// a chunk is the document title and the section path at the chunk's start, each on its
/// own line, followed by the chunk (a line the chunk starts with is not repeated).
pub fn chunk_doc(
    d: &LoadedDoc,
    shape: Chunking,
    count: &dyn Fn(&str) -> usize,
) -> (Vec<NewChunk>, Vec<String>) {
    chunk_doc_until(d, shape, count, &Deadline::never()).expect("no deadline")
}

/// [`chunk_doc`] that gives up (`None`) once `deadline` has passed.
fn chunk_doc_until(
    d: &LoadedDoc,
    shape: Chunking,
    count: &dyn Fn(&str) -> usize,
    deadline: &Deadline,
) -> Option<(Vec<NewChunk>, Vec<String>)> {
    let sents = d.layout.split_sentences(&d.text, sentences(&d.text));
    if deadline.expired() {
        return None;
    }
    let lines = LineIndex::new(&d.text);
    let spans = chunk_until(&d.text, &sents, shape, count, deadline)?;
    let mut chunks = Vec::with_capacity(spans.len());
    let mut texts = Vec::with_capacity(spans.len());
    for c in spans {
        let body = c.span.slice(&d.text);
        texts.push(embedded_text(d, c.span.start, body));
        chunks.push(NewChunk {
            span: c.span,
            lines: lines.range(c.span),
            tokens: c.tokens,
            vector: Vec::new(),
            injection: crate::guard::screen(body),
            context: chunk_context(d, c.span.start, c.span.end, body),
            embed_hash: None,
        });
    }
    Some((chunks, texts))
}

/// Most bytes of a chunk's context (a bound on what one chunk adds to the full-text
/// index; a long table's headers fit many times over).
pub const MAX_CONTEXT_BYTES: usize = 2048;

/// The context searched beside a chunk's text: the section path at its start and the
/// labels of the rows and values it holds (table captions and column headers, form
/// prompts), one per line, each only when the body does not already hold it, cut to
/// [`MAX_CONTEXT_BYTES`] on a character boundary.
fn chunk_context(d: &LoadedDoc, start: usize, end: usize, body: &str) -> String {
    let section = d.layout.section_path(start).join(" > ");
    let mut out = String::new();
    let heads = std::iter::once(section.as_str()).chain(d.layout.labels_within(start, end));
    for head in heads {
        if !head.is_empty() && !body.contains(head) {
            out.push_str(head);
            out.push('\n');
        }
    }
    let mut cut = out.len().min(MAX_CONTEXT_BYTES);
    while !out.is_char_boundary(cut) {
        cut -= 1;
    }
    out.truncate(cut);
    out.trim_end().to_string()
}

/// What is embedded for a chunk starting at `start`: title, section path, body.
fn embedded_text(d: &LoadedDoc, start: usize, body: &str) -> String {
    embedded_text_of(&d.title, &d.layout, start, body)
}

/// [`embedded_text`] from a document's title and layout (as stored).
fn embedded_text_of(
    title: &str,
    layout: &crate::corpus::layout::Layout,
    start: usize,
    body: &str,
) -> String {
    let title = title.trim();
    let section = layout.section_path(start).join(" > ");
    let mut text = String::with_capacity(title.len() + section.len() + body.len() + 2);
    for head in [title, section.as_str()] {
        if !head.is_empty() && !body.starts_with(head) && !text.contains(head) {
            text.push_str(head);
            text.push('\n');
        }
    }
    text.push_str(body);
    text
}

/// A progress bar over the bytes of the files being loaded and chunked, naming the
/// file in hand; it ticks on its own so a long file still shows progress. Hidden (but
/// counting, for [`crate::progress::Ticker`]) when stderr is not a terminal.
fn load_bar(enabled: bool, bytes: u64) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if !enabled || !std::io::stderr().is_terminal() || bytes == 0 {
        return hidden_bar(bytes);
    }
    let bar = indicatif::ProgressBar::new(bytes);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{spinner} {bar:40} {bytes}/{total_bytes} loaded ({elapsed}) {wide_msg}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

/// A bar that draws nothing but counts `len` units.
fn hidden_bar(len: u64) -> indicatif::ProgressBar {
    indicatif::ProgressBar::with_draw_target(Some(len), indicatif::ProgressDrawTarget::hidden())
}

/// A progress bar over the chunks embedded, its length growing as files are queued.
fn progress_bar(enabled: bool) -> indicatif::ProgressBar {
    let bar = counter_bar(1, enabled, "chunks embedded");
    bar.set_length(0);
    bar
}

/// A progress bar on stderr for `len` units of work, hidden (but counting) when `enabled`
/// is false or stderr is not a terminal.
pub fn counter_bar(len: u64, enabled: bool, unit: &str) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if !enabled || !std::io::stderr().is_terminal() || len == 0 {
        return hidden_bar(len);
    }
    let bar = indicatif::ProgressBar::new(len);
    bar.set_style(crate::progress::bar_style(unit));
    bar
}

/// A log line every ten seconds for `bar` when stderr is not a terminal (see
/// [`crate::progress`]); `what` names the work, `label` what the bar counts.
pub fn ticker(
    enabled: bool,
    what: &str,
    label: &str,
    bar: &indicatif::ProgressBar,
) -> crate::progress::Ticker {
    crate::progress::Ticker::start(
        enabled,
        what,
        vec![crate::progress::Counter {
            label: label.to_string(),
            unit: crate::progress::Unit::Items,
            bar: bar.clone(),
        }],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::models::HashEmbedder;
    use std::collections::HashSet;
    use std::sync::Arc;

    fn engine(dir: &Path) -> Engine {
        let cfg = Config {
            index: dir.join("idx"),
            chunk_tokens: 30,
            ..Config::default()
        };
        Engine::open(cfg, Arc::new(HashEmbedder::new(64)), true).unwrap()
    }

    fn run(e: &mut Engine, root: &Path) -> IngestReport {
        ingest(e, &[root.to_path_buf()], &IngestOptions::default()).unwrap()
    }

    fn jsonl(lines: &[(&str, &str)]) -> String {
        lines
            .iter()
            .map(|(id, text)| {
                serde_json::json!({"_id": id, "title": format!("Doc {id}"), "text": text})
                    .to_string()
                    + "\n"
            })
            .collect()
    }

    #[test]
    fn a_second_ingest_on_the_same_index_is_refused_while_one_runs() {
        let tmp = tempfile::tempdir().unwrap();
        let e = engine(tmp.path());
        let held = lock_index(e.dir()).unwrap();
        let err = lock_index(e.dir()).unwrap_err().to_string();
        assert!(err.contains("another attest ingest"), "{err}");
        drop(held);
        assert!(lock_index(e.dir()).is_ok());
    }

    #[test]
    fn jsonl_documents_are_compared_one_by_one() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("c.jsonl");
        std::fs::write(
            &file,
            jsonl(&[
                ("a", "Alpha text."),
                ("b", "Beta text."),
                ("c", "Gamma text."),
            ]),
        )
        .unwrap();
        let mut e = engine(tmp.path());
        let r = run(&mut e, &file);
        assert_eq!((r.added, r.updated, r.unchanged, r.removed), (3, 0, 0, 0));
        let v1 = r.corpus_version;

        std::fs::write(
            &file,
            jsonl(&[
                ("a", "Alpha text."),
                ("b", "Beta text, revised."),
                ("d", "Delta text."),
            ]),
        )
        .unwrap();
        let r = run(&mut e, &file);
        assert_eq!((r.added, r.updated, r.unchanged, r.removed), (1, 1, 1, 1));
        assert_eq!(r.documents, 3);
        assert!(r.corpus_version > v1);
        assert_eq!(
            r.chunks_embedded, 2,
            "only the changed and the new document are embedded"
        );
    }

    #[test]
    fn chunk_row_ids_are_never_reused_so_the_hnsw_graph_never_serves_stale_vectors() {
        let tmp = tempfile::tempdir().unwrap();
        let docs = tmp.path().join("docs");
        std::fs::create_dir_all(&docs).unwrap();
        std::fs::write(docs.join("a.md"), "# A\n\nCounties shall keep records.\n").unwrap();
        std::fs::write(docs.join("b.md"), "# B\n\nZebras graze on the savanna.\n").unwrap();
        let mut e = engine(tmp.path());
        run(&mut e, &docs);
        let before: HashSet<i64> = e.store().chunk_row_ids().unwrap().into_iter().collect();
        // b.md holds the highest row ids; replacing it must not hand them out again.
        std::fs::write(docs.join("b.md"), "# B\n\nPenguins swim in cold water.\n").unwrap();
        let r = run(&mut e, &docs);
        assert_eq!(r.updated, 1);
        let after: HashSet<i64> = e.store().chunk_row_ids().unwrap().into_iter().collect();
        let new: Vec<&i64> = after.difference(&before).collect();
        assert!(!new.is_empty());
        assert!(new.iter().all(|id| **id > *before.iter().max().unwrap()));
        // The HNSW path finds the new text.
        let mut cfg = e.config().clone();
        cfg.exact_threshold = 0;
        drop(e);
        let e = Engine::open(cfg, Arc::new(HashEmbedder::new(64)), false).unwrap();
        assert_eq!(e.dense_backend(), "hnsw");
        let v = e.embed_query("Penguins swim in cold water").unwrap();
        let top = e.dense_search(&v, 1).unwrap()[0].0;
        let row = &e.store().chunks_by_ids(&[top]).unwrap()[0];
        assert!(row.text.contains("Penguins"), "{}", row.text);
    }

    #[test]
    fn a_few_new_chunks_stay_beside_the_saved_graph_until_there_are_too_many() {
        let tmp = tempfile::tempdir().unwrap();
        let docs = tmp.path().join("docs");
        std::fs::create_dir_all(&docs).unwrap();
        let animals = [
            "otter", "heron", "badger", "lynx", "marten", "stoat", "vole", "wren",
        ];
        for i in 0..80 {
            let a = animals[i % animals.len()];
            let text = format!("# Note {i}\n\nThe {a} number {i} was seen near pond {i}.\n");
            std::fs::write(docs.join(format!("n{i:02}.md")), text).unwrap();
        }
        let cfg = Config {
            index: tmp.path().join("idx"),
            chunk_tokens: 30,
            exact_threshold: 0,
            ..Config::default()
        };
        let open = |create: bool| {
            Engine::open(cfg.clone(), Arc::new(HashEmbedder::new(64)), create).unwrap()
        };
        let mut e = open(true);
        let points = run(&mut e, &docs).chunks;
        let dump = |e: &Engine| e.store().meta("hnsw_max_id").unwrap();
        let first = dump(&e);
        assert!(first.is_some());
        let top_text = |e: &Engine, q: &str| {
            let v = e.embed_query(q).unwrap();
            let top = e.dense_search(&v, 1).unwrap()[0].0;
            e.store().chunks_by_ids(&[top]).unwrap()[0].text.clone()
        };
        // One new chunk: within the delta, the saved graph is left as it was, and the
        // graph in memory is searched on without being read again.
        let loaded = e.dense_arc().unwrap();
        std::fs::write(docs.join("p.md"), "# P\n\nPenguins swim in cold water.\n").unwrap();
        run(&mut e, &docs);
        assert_eq!(dump(&e), first);
        assert!(crate::index::same_graph(&loaded, &e.dense_arc().unwrap()));
        assert_eq!(e.index_health().delta_points, 1);
        assert!(e.index_health().consistent, "{:?}", e.index_health());
        assert!(top_text(&e, "Penguins swim in cold water").contains("Penguins"));
        let status = crate::status::status(&cfg, false).unwrap();
        assert!(status.index.consistent, "{:?}", status.index);
        assert_eq!(status.index.delta_points, 1);
        assert_eq!(open(false).index_health().delta_points, 1);
        // More new chunks than a twentieth of the graph: inserted and saved.
        assert!(delta_limit_for_test(points) < 8);
        for i in 0..8 {
            let text = format!("# Q{i}\n\nPuffin colony {i} nests on the cliffs.\n");
            std::fs::write(docs.join(format!("q{i}.md")), text).unwrap();
        }
        run(&mut e, &docs);
        assert_ne!(dump(&e), first);
        assert_eq!(e.index_health().delta_points, 0);
        assert!(top_text(&e, "Penguins swim in cold water").contains("Penguins"));
        let deep = crate::status::status(&cfg, true).unwrap();
        assert!(deep.index.consistent, "{:?}", deep.index);
    }

    fn delta_limit_for_test(points: usize) -> usize {
        crate::index::delta_limit(points)
    }

    #[test]
    fn a_new_chunk_budget_rechunks_documents_and_symlinked_files_count_once() {
        let tmp = tempfile::tempdir().unwrap();
        let docs = tmp.path().join("docs");
        std::fs::create_dir_all(&docs).unwrap();
        let long = "Counties shall keep records. ".repeat(40);
        std::fs::write(docs.join("a.md"), format!("# A\n\n{long}\n")).unwrap();
        std::os::unix::fs::symlink(docs.join("a.md"), tmp.path().join("link.md")).unwrap();
        let mut e = engine(tmp.path());
        let roots = [docs.clone(), tmp.path().join("link.md")];
        let r = ingest(&mut e, &roots, &IngestOptions::default()).unwrap();
        assert_eq!((r.added, r.documents), (1, 1), "one file, reached twice");
        let chunks_at_30 = r.chunks;
        drop(e);
        let cfg = Config {
            index: tmp.path().join("idx"),
            chunk_tokens: 200,
            ..Config::default()
        };
        let mut e = Engine::open(cfg, Arc::new(HashEmbedder::new(64)), true).unwrap();
        let r = run(&mut e, &docs);
        assert_eq!(r.updated, 1);
        assert!(r.chunks < chunks_at_30, "{} vs {chunks_at_30}", r.chunks);
        let r = run(&mut e, &docs);
        assert_eq!(r.unchanged, 1, "same budget again: nothing to do");
        drop(e);
        let cfg = Config {
            index: tmp.path().join("idx"),
            chunk_tokens: 30,
            chunk_overlap: false,
            ..Config::default()
        };
        let mut e = Engine::open(cfg, Arc::new(HashEmbedder::new(64)), true).unwrap();
        let r = run(&mut e, &docs);
        assert_eq!(r.updated, 1, "overlap turned off re-chunks");
        assert!(r.chunks < chunks_at_30, "{} vs {chunks_at_30}", r.chunks);
        assert_eq!(run(&mut e, &docs).unchanged, 1);
    }

    #[test]
    fn unchanged_files_are_skipped_without_bumping_the_version() {
        let tmp = tempfile::tempdir().unwrap();
        let docs = tmp.path().join("docs");
        std::fs::create_dir_all(&docs).unwrap();
        std::fs::write(docs.join("a.md"), "# A\n\nCounties shall keep records.\n").unwrap();
        let mut e = engine(tmp.path());
        let r1 = run(&mut e, &docs);
        let r2 = run(&mut e, &docs);
        assert_eq!(r2.unchanged, 1);
        assert_eq!(r2.corpus_version, r1.corpus_version);
        // Touching the file without changing it re-reads it but changes nothing.
        let f = std::fs::File::options()
            .append(true)
            .open(docs.join("a.md"))
            .unwrap();
        f.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(5))
            .unwrap();
        let r3 = ingest(&mut e, &[docs], &IngestOptions::default()).unwrap();
        assert_eq!((r3.unchanged, r3.updated), (1, 0));
        assert_eq!(r3.corpus_version, r1.corpus_version);
    }

    #[test]
    fn stored_chunks_are_verbatim_spans_that_cover_each_document() {
        let tmp = tempfile::tempdir().unwrap();
        let mut e = engine(tmp.path());
        let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus");
        run(&mut e, &corpus);
        let ids = e.store().chunk_row_ids().unwrap();
        let rows = e.store().chunks_by_ids(&ids).unwrap();
        let mut by_doc: HashMap<String, Vec<_>> = HashMap::new();
        for r in rows {
            by_doc.entry(r.doc_id.clone()).or_default().push(r);
        }
        // Every document file of the sample corpus, the review sample's PDF and DOCX among
        // them (its checklist and expected values are JSON, not documents).
        let documents = ignore::Walk::new(&corpus)
            .filter_map(Result::ok)
            .filter(|e| e.path().is_file())
            .filter(|e| e.path().extension().is_some_and(|x| x != "json"))
            .count();
        assert_eq!(by_doc.len(), documents);
        for (doc, chunks) in by_doc {
            let text = e.store().document_text(&doc).unwrap().unwrap();
            let mut covered = vec![false; text.len()];
            let mut last_start = None;
            for c in &chunks {
                assert_eq!(&text[c.span.start..c.span.end], c.text);
                assert!(
                    last_start.is_none_or(|s| s < c.span.start),
                    "chunks in order"
                );
                last_start = Some(c.span.start);
                covered[c.span.start..c.span.end]
                    .iter_mut()
                    .for_each(|b| *b = true);
            }
            for (i, b) in text.bytes().enumerate() {
                assert!(
                    covered[i] || b.is_ascii_whitespace(),
                    "byte {i} of {doc} not in any chunk"
                );
            }
        }
    }
}
