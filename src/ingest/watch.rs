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
//!
//! The index folder and its database file are held by identity ([`IndexAnchor`]): when
//! either is deleted or replaced while the watch runs, the watch stops with an error
//! instead of writing on into a deleted database that no other command reads.

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
use crate::store::DB_FILE;

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
/// It stops with [`Error::Watch`] naming the index when the index folder or its database
/// is deleted or replaced under it (see [`IndexAnchor`]); a run that wrote into it then is
/// not reported as done.
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
    let mut anchor = IndexAnchor::new(engine.dir());
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
        anchor.check()?;
        let result = ingest(engine, &roots, &ingest_opts);
        anchor.check()?;
        match result {
            Ok(report) => {
                anchor.hold();
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
        burst = next_burst(&rx, &scope, opts, cancel, &anchor)?;
    }
    Ok(())
}

/// A file's identity: its device and inode (elsewhere than Unix, only that it exists),
/// with its birth time where the file system keeps one (an inode freed by a deletion is
/// soon given to the next file made).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileId(u64, u64, Option<std::time::SystemTime>);

fn file_id(path: &Path) -> Option<FileId> {
    let meta = std::fs::metadata(path).ok()?;
    let born = meta.created().ok();
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some(FileId(meta.dev(), meta.ino(), born))
    }
    #[cfg(not(unix))]
    {
        Some(FileId(0, 0, born))
    }
}

/// The index a watch writes to, held by the identity of its folder and of its database
/// file (when the backend keeps one there). An open database goes on writing into its
/// file after the file is deleted, and a later run would make the folder again with only
/// its graph and lock; so when either is gone or is another file, the watch stops.
#[derive(Debug)]
pub struct IndexAnchor {
    dir: PathBuf,
    held: Vec<(PathBuf, FileId)>,
}

impl IndexAnchor {
    /// Hold the index in `dir` as it is now (see [`IndexAnchor::hold`]).
    pub fn new(dir: &Path) -> IndexAnchor {
        let mut anchor = IndexAnchor {
            dir: dir.to_path_buf(),
            held: Vec::new(),
        };
        anchor.hold();
        anchor
    }

    /// Note the folder and the database file, if nothing is held yet (a backend whose
    /// folder holds only the ingest lock makes it during the first run).
    pub fn hold(&mut self) {
        if !self.held.is_empty() {
            return;
        }
        for path in [self.dir.clone(), self.dir.join(DB_FILE)] {
            if let Some(id) = file_id(&path) {
                self.held.push((path, id));
            }
        }
    }

    /// `Err` naming the index when a held folder or file was deleted or replaced.
    pub fn check(&self) -> Result<(), Error> {
        for (i, (path, id)) in self.held.iter().enumerate() {
            if file_id(path) == Some(*id) {
                continue;
            }
            let what = if i == 0 {
                "the index folder".to_string()
            } else {
                format!("the index database {DB_FILE}")
            };
            return Err(Error::Watch {
                path: self.dir.clone(),
                reason: format!(
                    "{what} was deleted or replaced while the watch ran; the watch stops \
                     rather than write into an index no other command reads (start the \
                     watch again to build the index anew)"
                ),
            });
        }
        Ok(())
    }
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

/// A burst of changes: the paths and the time of its first event.
type Burst = (BTreeSet<PathBuf>, Instant);

/// Wait for the next burst of changes `scope` covers, once no covered change came for
/// the debounce time (events it does not cover, such as a neighbour's, neither start nor
/// prolong a burst) or the burst is `max_wait` old; `None` once `cancel` is raised (or
/// the watcher is gone); `Err` when `anchor` finds the index gone while waiting.
fn next_burst(
    rx: &mpsc::Receiver<notify::Result<notify::Event>>,
    scope: &Scope,
    opts: &WatchOptions,
    cancel: &Cancel,
    anchor: &IndexAnchor,
) -> Result<Option<Burst>, Error> {
    let mut changed = BTreeSet::new();
    let mut span: Option<(Instant, Instant)> = None;
    loop {
        if cancel.is_cancelled() {
            return Ok(None);
        }
        let wait = match span {
            None => POLL,
            Some((first, last)) => {
                let quiet = last.elapsed() >= opts.debounce;
                // A burst that never quiets (a log appended every 100 ms) still ends.
                if quiet || first.elapsed() >= opts.max_wait {
                    return Ok(Some((changed, first)));
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
            Err(mpsc::RecvTimeoutError::Disconnected) => return Ok(None),
            // A quiet moment: the index folder may have been deleted meanwhile.
            Err(mpsc::RecvTimeoutError::Timeout) => anchor.check()?,
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
    fn an_index_deleted_or_replaced_under_the_anchor_is_seen() {
        let tmp = tempfile::tempdir().unwrap();
        let idx = tmp.path().join("idx");
        // Nothing yet: nothing held, nothing to find gone; the first run makes it.
        let mut anchor = IndexAnchor::new(&idx);
        assert!(anchor.check().is_ok());
        std::fs::create_dir_all(&idx).unwrap();
        std::fs::write(idx.join(DB_FILE), "db").unwrap();
        anchor.hold();
        assert!(anchor.check().is_ok());
        // The folder deleted: gone, even once it is made again with a new database.
        std::fs::remove_dir_all(&idx).unwrap();
        let err = anchor.check().unwrap_err().to_string();
        assert!(
            err.contains("the index folder was deleted or replaced"),
            "{err}"
        );
        std::fs::create_dir_all(&idx).unwrap();
        std::fs::write(idx.join(DB_FILE), "db").unwrap();
        anchor.hold();
        assert!(
            anchor.check().is_err(),
            "holding again keeps the first identity"
        );
        // The database file alone replaced.
        let anchor = IndexAnchor::new(&idx);
        assert!(anchor.check().is_ok());
        std::fs::write(idx.join("new"), "db2").unwrap();
        std::fs::rename(idx.join("new"), idx.join(DB_FILE)).unwrap();
        let err = anchor.check().unwrap_err().to_string();
        assert!(
            err.contains(&format!("the index database {DB_FILE}")),
            "{err}"
        );
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
