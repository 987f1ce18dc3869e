//! Keeping the index in step with folders (`attest watch`, `attest serve --watch`): the
//! roots are ingested once, then watched (inotify and its kin, through `notify`); a burst
//! of changes is gathered until the folders are quiet for the debounce time, and the
//! roots are ingested again with pruning. Each such run is an ordinary [`ingest`]:
//! unchanged files are skipped by size and time, changed ones replaced in one
//! transaction each, files gone are removed, and readers see either the corpus version
//! before the run or the one after it.
//!
//! Events inside the index directory (when it lies under a watched folder) are ignored,
//! so the index's own writes never trigger a run. A watcher whose event queue overflowed
//! asks for a rescan: the next run reads the roots as a whole anyway.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use notify::{EventKind, RecursiveMode, Watcher};
use serde::Serialize;

use super::{display_path, ingest, IngestOptions, IngestReport};
use crate::cancel::Cancel;
use crate::engine::Engine;
use crate::error::Error;

/// How a watch gathers changes.
#[derive(Debug, Clone)]
pub struct WatchOptions {
    /// A burst of changes ends when the folders have been quiet this long.
    pub debounce: Duration,
    /// A burst that never quiets is ingested after this long anyway.
    pub max_wait: Duration,
    /// Show progress bars (a terminal) or progress lines (a log) during each run.
    pub progress: bool,
}

impl Default for WatchOptions {
    fn default() -> Self {
        WatchOptions {
            debounce: Duration::from_millis(500),
            max_wait: Duration::from_secs(10),
            progress: false,
        }
    }
}

/// One run of a watch: what changed and what the ingest did.
#[derive(Debug, Clone, Serialize)]
pub struct WatchRun {
    /// The first run (the roots as found when the watch started), else a burst of changes.
    pub initial: bool,
    /// The paths the file system reported changed (display form, sorted, at most
    /// [`MAX_LISTED`]); empty for the first run.
    pub changed: Vec<String>,
    /// How many paths changed in all.
    pub changed_count: usize,
    /// Milliseconds from the burst's first event to the end of the ingest.
    pub latency_ms: u64,
    /// The ingest's report.
    pub report: IngestReport,
}

/// Changed paths listed in a [`WatchRun`], at most.
pub const MAX_LISTED: usize = 20;

/// Watch `roots` until `cancel` is raised: ingest them, then again after every burst of
/// changes, calling `on_run` after each run and `on_error` when a run fails (the watch
/// goes on; the next change tries again).
pub fn watch(
    engine: &mut Engine,
    roots: &[PathBuf],
    opts: &WatchOptions,
    cancel: &Cancel,
    mut on_run: impl FnMut(&WatchRun),
    mut on_error: impl FnMut(&Error),
) -> Result<(), Error> {
    let roots = canonical_roots(roots)?;
    let index = engine
        .dir()
        .canonicalize()
        .unwrap_or_else(|_| engine.dir().to_path_buf());
    let (tx, rx) = mpsc::channel();
    let mut watcher = notify::recommended_watcher(tx).map_err(|e| watch_error(&roots[0], e))?;
    for root in &roots {
        watcher
            .watch(root, RecursiveMode::Recursive)
            .map_err(|e| watch_error(root, e))?;
    }
    let ingest_opts = IngestOptions {
        prune: true,
        progress: opts.progress,
        ..IngestOptions::default()
    };
    let first = Instant::now();
    match ingest(engine, &roots, &ingest_opts) {
        Ok(report) => on_run(&run_of(true, BTreeSet::new(), first, report)),
        Err(e) => on_error(&e),
    }
    while let Some((changed, since)) = next_burst(&rx, &index, opts, cancel) {
        match ingest(engine, &roots, &ingest_opts) {
            Ok(report) => on_run(&run_of(false, changed, since, report)),
            Err(e) => on_error(&e),
        }
    }
    Ok(())
}

/// The roots, canonical; a root that does not exist is an error naming it.
fn canonical_roots(roots: &[PathBuf]) -> Result<Vec<PathBuf>, Error> {
    if roots.is_empty() {
        return Err(Error::Usage(
            "nothing to watch: name a file or folder".into(),
        ));
    }
    roots
        .iter()
        .map(|r| {
            r.canonicalize().map_err(|e| Error::Watch {
                path: r.clone(),
                reason: e.to_string(),
            })
        })
        .collect()
}

fn watch_error(path: &Path, e: notify::Error) -> Error {
    Error::Watch {
        path: path.to_path_buf(),
        reason: e.to_string(),
    }
}

fn run_of(
    initial: bool,
    changed: BTreeSet<PathBuf>,
    since: Instant,
    report: IngestReport,
) -> WatchRun {
    WatchRun {
        initial,
        changed_count: changed.len(),
        changed: changed
            .iter()
            .take(MAX_LISTED)
            .map(|p| display_path(p))
            .collect(),
        latency_ms: since.elapsed().as_millis() as u64,
        report,
    }
}

/// How often the watch looks at its cancel flag while waiting.
const POLL: Duration = Duration::from_millis(200);

/// Wait for the next burst of changes outside `index`: the paths and the time of its
/// first event; `None` once `cancel` is raised (or the watcher is gone).
fn next_burst(
    rx: &mpsc::Receiver<notify::Result<notify::Event>>,
    index: &Path,
    opts: &WatchOptions,
    cancel: &Cancel,
) -> Option<(BTreeSet<PathBuf>, Instant)> {
    let mut changed = BTreeSet::new();
    let mut since: Option<Instant> = None;
    loop {
        if cancel.is_cancelled() {
            return None;
        }
        let wait = match since {
            None => POLL,
            Some(_) => opts.debounce.min(POLL),
        };
        match rx.recv_timeout(wait) {
            Ok(event) => {
                if relevant(event, index, &mut changed) && since.is_none() {
                    since = Some(Instant::now());
                }
                continue;
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => return None,
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        let Some(first) = since else { continue };
        if quiet_for(rx, index, &mut changed, opts.debounce) || first.elapsed() >= opts.max_wait {
            return Some((changed, first));
        }
    }
}

/// Drain events for up to `debounce`: true when none relevant arrived in that time.
fn quiet_for(
    rx: &mpsc::Receiver<notify::Result<notify::Event>>,
    index: &Path,
    changed: &mut BTreeSet<PathBuf>,
    debounce: Duration,
) -> bool {
    let until = Instant::now() + debounce;
    let mut quiet = true;
    while let Some(left) = until.checked_duration_since(Instant::now()) {
        match rx.recv_timeout(left) {
            Ok(event) => quiet &= !relevant(event, index, changed),
            Err(_) => break,
        }
    }
    quiet
}

/// Record the paths of `event` outside `index`; whether it changed anything there (an
/// error or an overflow counts: the next run reads everything).
fn relevant(
    event: notify::Result<notify::Event>,
    index: &Path,
    changed: &mut BTreeSet<PathBuf>,
) -> bool {
    let Ok(event) = event else {
        return true;
    };
    if matches!(event.kind, EventKind::Access(_)) {
        return false;
    }
    if event.need_rescan() {
        return true;
    }
    let mut any = false;
    for p in event.paths {
        if !p.starts_with(index) {
            changed.insert(p);
            any = true;
        }
    }
    any
}
