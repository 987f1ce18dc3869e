//! Keeping the index in step with folders (`attest watch`, `attest serve --watch`): the
//! roots are ingested once, then watched (inotify and its kin, through `notify`); a burst
//! of changes is gathered until the folders are quiet for the debounce time, and the
//! roots are ingested again with pruning. Each such run is an ordinary [`ingest`]:
//! unchanged files are skipped by size and time, changed ones replaced in one
//! transaction each, files gone are removed, and readers see either the corpus version
//! before the run or the one after it.
//!
//! Each root is watched, and so is the folder holding it (without recursion): a file an
//! editor saves by renaming a new one over it, or a folder deleted and made again, is a
//! new inode, and only its parent sees it. Events outside the roots, and inside the index
//! directory (when it lies under a watched folder), are ignored, so neither the roots'
//! neighbours nor the index's own writes trigger a run. A watcher whose event queue overflowed
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
    /// How many paths changed in all (counted up to [`MAX_TRACKED`]).
    pub changed_count: usize,
    /// Milliseconds from the burst's first event to the end of the ingest.
    pub latency_ms: u64,
    /// The ingest's report.
    pub report: IngestReport,
}

/// Changed paths listed in a [`WatchRun`], at most.
pub const MAX_LISTED: usize = 20;

/// Changed paths a burst keeps, at most (its `changed_count` stops there).
pub const MAX_TRACKED: usize = 100_000;

/// Watch `roots` until `cancel` is raised: ingest them, then again after every burst of
/// changes, calling `on_run` after each run and `on_error` when a run fails. The watch
/// goes on after a failure, and tries again by itself after [`RETRY_FIRST`], doubling up
/// to [`RETRY_LAST`] while the runs keep failing (a manual `attest ingest` holding the
/// index, a disk full for a while), so a change is never left unread until the next one.
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
    let mut retry = Retry::new(tx.clone(), roots[0].clone());
    let mut watcher = notify::recommended_watcher(tx).map_err(|e| watch_error(&roots[0], e))?;
    for root in &roots {
        attach(&mut watcher, root)?;
    }
    let scope = Scope {
        index: &index,
        roots: &roots,
    };
    let ingest_opts = IngestOptions {
        prune: true,
        progress: opts.progress,
        ..IngestOptions::default()
    };
    let mut carried = BTreeSet::new();
    let mut burst = Some((BTreeSet::new(), Instant::now()));
    let mut initial = true;
    while let Some((mut changed, since)) = burst {
        // A root deleted and made again, or renamed over, is a new inode to watch; watch
        // it before the ingest reads it, so nothing written meanwhile is missed.
        for root in roots.iter().filter(|r| changed.contains(*r)) {
            if let Err(e) = attach(&mut watcher, root) {
                on_error(&e);
            }
        }
        changed.append(&mut carried);
        match ingest(engine, &roots, &ingest_opts) {
            Ok(report) => {
                retry.succeeded();
                on_run(&run_of(initial, changed, since, report));
            }
            Err(e) => {
                on_error(&e);
                retry.failed();
                carried = changed;
            }
        }
        initial = false;
        burst = next_burst(&rx, &scope, opts, cancel);
    }
    Ok(())
}

/// The first wait before a failed run is tried again, and the longest.
pub const RETRY_FIRST: Duration = Duration::from_secs(1);
pub const RETRY_LAST: Duration = Duration::from_secs(60);

/// Tries a failed run again: after a wait (doubling while runs fail), a made-up change
/// under the first root wakes the watch, which ingests its roots as a whole.
struct Retry {
    tx: mpsc::Sender<notify::Result<notify::Event>>,
    root: PathBuf,
    wait: Duration,
}

impl Retry {
    fn new(tx: mpsc::Sender<notify::Result<notify::Event>>, root: PathBuf) -> Retry {
        Retry {
            tx,
            root,
            wait: RETRY_FIRST,
        }
    }

    fn failed(&mut self) {
        let (tx, root, wait) = (self.tx.clone(), self.root.clone(), self.wait);
        std::thread::spawn(move || {
            std::thread::sleep(wait);
            let event = notify::Event::new(EventKind::Other).add_path(root);
            // The watch may have ended meanwhile: nobody to wake then.
            let _ = tx.send(Ok(event));
        });
        self.wait = (self.wait * 2).min(RETRY_LAST);
    }

    fn succeeded(&mut self) {
        self.wait = RETRY_FIRST;
    }
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

/// Watch `root` (a folder recursively) and, without recursion, the folder holding it: an
/// editor that saves a file by renaming a new one over it, or a root deleted and made
/// again, replaces the inode a watch follows, and only the parent sees the new one. A
/// root that no longer exists is left to the parent's watch (its ingest reports it
/// missing and removes nothing).
fn attach(watcher: &mut impl Watcher, root: &Path) -> Result<(), Error> {
    if let Some(parent) = root.parent() {
        // Best effort: a parent we may not watch leaves the root's own watch.
        let _ = watcher.watch(parent, RecursiveMode::NonRecursive);
    }
    match root.metadata() {
        Ok(m) if m.is_dir() => watcher
            .watch(root, RecursiveMode::Recursive)
            .map_err(|e| watch_error(root, e)),
        Ok(_) if root.parent().is_none() => watcher
            .watch(root, RecursiveMode::NonRecursive)
            .map_err(|e| watch_error(root, e)),
        _ => Ok(()),
    }
}

/// Which events concern a watch: those under one of its roots and outside its index.
struct Scope<'a> {
    index: &'a Path,
    roots: &'a [PathBuf],
}

impl Scope<'_> {
    fn covers(&self, p: &Path) -> bool {
        !p.starts_with(self.index) && self.roots.iter().any(|r| p.starts_with(r))
    }
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

/// Wait for the next burst of changes `scope` covers: the paths and the time of its
/// first event, once no covered change came for the debounce time (events it does not
/// cover, such as a neighbour's, neither start nor prolong a burst) or the burst is
/// `max_wait` old; `None` once `cancel` is raised (or the watcher is gone).
fn next_burst(
    rx: &mpsc::Receiver<notify::Result<notify::Event>>,
    scope: &Scope,
    opts: &WatchOptions,
    cancel: &Cancel,
) -> Option<(BTreeSet<PathBuf>, Instant)> {
    let mut changed = BTreeSet::new();
    let mut span: Option<(Instant, Instant)> = None;
    loop {
        if cancel.is_cancelled() {
            return None;
        }
        let wait = match span {
            None => POLL,
            Some((first, last)) => {
                let quiet = last.elapsed() >= opts.debounce;
                // A burst that never quiets (a log appended every 100 ms) still ends.
                if quiet || first.elapsed() >= opts.max_wait {
                    return Some((changed, first));
                }
                (opts.debounce - last.elapsed()).min(POLL)
            }
        };
        match rx.recv_timeout(wait) {
            Ok(event) => {
                if relevant(event, scope, &mut changed) {
                    let now = Instant::now();
                    span = Some((span.map_or(now, |(first, _)| first), now));
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => return None,
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
    }
}

/// Record the paths of `event` that `scope` covers; whether it changed anything there (an
/// error or an overflow counts: the next run reads everything).
fn relevant(
    event: notify::Result<notify::Event>,
    scope: &Scope,
    changed: &mut BTreeSet<PathBuf>,
) -> bool {
    tracing::trace!("watch event: {event:?}");
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
        if scope.covers(&p) {
            // Past the cap only the roots themselves are still noted (they are watched
            // again when they change); every run reads the roots whole anyway.
            if changed.len() < MAX_TRACKED || scope.roots.contains(&p) {
                changed.insert(p);
            }
            any = true;
        }
    }
    any
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_run_is_tried_again_later_and_the_wait_grows() {
        let (tx, rx) = mpsc::channel();
        let root = PathBuf::from("/docs");
        let mut retry = Retry::new(tx, root.clone());
        retry.failed();
        assert_eq!(retry.wait, RETRY_FIRST * 2);
        let event = rx.recv_timeout(RETRY_FIRST * 3).unwrap().unwrap();
        assert_eq!(event.paths, std::slice::from_ref(&root));
        let index = PathBuf::from("/idx");
        let roots = [root];
        let scope = Scope {
            index: &index,
            roots: &roots,
        };
        let mut changed = BTreeSet::new();
        assert!(
            relevant(Ok(event), &scope, &mut changed),
            "it wakes the watch"
        );
        for _ in 0..10 {
            retry.failed();
        }
        assert_eq!(retry.wait, RETRY_LAST);
        retry.succeeded();
        assert_eq!(retry.wait, RETRY_FIRST);
    }

    #[test]
    fn only_changes_under_a_root_and_outside_the_index_count() {
        let (index, roots) = (PathBuf::from("/d/idx"), [PathBuf::from("/d/docs")]);
        let scope = Scope {
            index: &index,
            roots: &roots,
        };
        let mut changed = BTreeSet::new();
        let ev = |p: &str| Ok(notify::Event::new(EventKind::Any).add_path(PathBuf::from(p)));
        assert!(!relevant(ev("/d/other.md"), &scope, &mut changed));
        assert!(!relevant(ev("/d/docs2/a.md"), &scope, &mut changed));
        assert!(relevant(ev("/d/docs/a.md"), &scope, &mut changed));
        assert!(relevant(ev("/d/docs"), &scope, &mut changed));
        let inside = Scope {
            index: &PathBuf::from("/d/docs/.attest"),
            roots: &roots,
        };
        assert!(!relevant(ev("/d/docs/.attest/x"), &inside, &mut changed));
        assert_eq!(changed.len(), 2);
    }
}
