//! Walking roots for loadable files (the `ignore` crate: hidden and ignored entries
//! skipped, symlinks followed, loops and special files reported as errors).

use std::fs;
use std::path::{Path, PathBuf};

use super::{extension, is_supported, special_kind, LoadError};

/// Turn an `ignore` walk error into a [`LoadError`] naming the right path.
fn walk_error(err: ignore::Error, fallback: &Path) -> LoadError {
    match err {
        ignore::Error::WithPath { path, err } => match *err {
            ignore::Error::Io(source) => LoadError::Io { path, source },
            ignore::Error::Loop { ancestor, child } => loop_error(ancestor, child),
            other => walk_error(other, &path),
        },
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            walk_error(*err, fallback)
        }
        ignore::Error::Loop { ancestor, child } => loop_error(ancestor, child),
        ignore::Error::Partial(mut errs) if errs.len() == 1 => walk_error(errs.remove(0), fallback),
        ignore::Error::Io(source) => LoadError::Io {
            path: fallback.to_path_buf(),
            source,
        },
        other => LoadError::Walk {
            path: fallback.to_path_buf(),
            reason: other.to_string(),
        },
    }
}

fn loop_error(ancestor: PathBuf, child: PathBuf) -> LoadError {
    LoadError::Walk {
        reason: format!(
            "symlink loop: links back to ancestor directory {}",
            ancestor.display()
        ),
        path: child,
    }
}

/// Collect loadable files under `roots` (files or directories).
///
/// Directories are walked recursively following symlinks, skipping hidden
/// entries, `.gitignore`/`.ignore`d files (no git repository needed) and,
/// silently, unsupported extensions. An explicitly named file is taken even
/// if hidden, but an unsupported one is an [`LoadError::Unsupported`] error.
/// Devices, FIFOs and sockets (also behind symlinks, whatever their name) are
/// [`LoadError::NotRegular`] errors under the path found, never opened.
/// Symlink loops, unreadable directories and missing roots become errors;
/// the walk always continues. Paths come back sorted and de-duplicated.
pub fn walk(roots: &[PathBuf]) -> (Vec<PathBuf>, Vec<LoadError>) {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for root in roots {
        let meta = match fs::metadata(root) {
            Ok(m) => m,
            Err(source) => {
                errors.push(LoadError::Io {
                    path: root.clone(),
                    source,
                });
                continue;
            }
        };
        if !meta.is_dir() {
            if !meta.is_file() {
                errors.push(LoadError::NotRegular {
                    path: root.clone(),
                    kind: special_kind(meta.file_type()),
                });
            } else if is_supported(root) {
                files.push(root.clone());
            } else {
                errors.push(LoadError::Unsupported {
                    path: root.clone(),
                    ext: extension(root),
                });
            }
            continue;
        }
        let walker = ignore::WalkBuilder::new(root)
            .standard_filters(true)
            .require_git(false)
            .follow_links(true)
            .sort_by_file_name(|a, b| a.cmp(b))
            .build();
        for entry in walker {
            match entry {
                Ok(entry) => {
                    if let Some(err) = entry.error() {
                        // e.g. a malformed .gitignore line: the walk goes on.
                        tracing::warn!("{}: {err}", entry.path().display());
                    }
                    match entry.file_type() {
                        Some(t) if t.is_file() && is_supported(entry.path()) => {
                            files.push(entry.into_path());
                        }
                        Some(t) if !t.is_file() && !t.is_dir() => {
                            errors.push(LoadError::NotRegular {
                                kind: special_kind(t),
                                path: entry.into_path(),
                            })
                        }
                        _ => {}
                    }
                }
                Err(err) => errors.push(walk_error(err, root)),
            }
        }
    }
    files.sort();
    files.dedup();
    (files, errors)
}

/// Most skipped files listed from one ingest (the walk goes on; the rest are counted).
pub const MAX_SKIPPED: usize = 10_000;

/// Why a file under an ingested folder was not read.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "reason", content = "detail", rename_all = "snake_case")]
pub enum SkipReason {
    /// A hidden file or folder (its name starts with a dot); a folder is listed once.
    Hidden,
    /// A file type no loader reads; the lower-cased extension (`""` when it has none).
    Unsupported(String),
    /// Excluded by a `.gitignore` or `.ignore` file.
    Ignored,
}

impl std::fmt::Display for SkipReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SkipReason::Hidden => f.write_str("hidden"),
            SkipReason::Unsupported(ext) if ext.is_empty() => {
                f.write_str("unsupported file type (no extension)")
            }
            SkipReason::Unsupported(ext) => write!(f, "unsupported file type (.{ext})"),
            SkipReason::Ignored => f.write_str("excluded by an ignore file"),
        }
    }
}

/// A file or folder under an ingested folder that was not read, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// The file or folder as found under its root.
    pub path: PathBuf,
    /// Why it was not read.
    pub reason: SkipReason,
}

fn is_hidden(name: &std::ffi::OsStr) -> bool {
    name.to_str().is_some_and(|n| n.starts_with('.'))
}

/// What [`walk`] passed over under the folders among `roots`: every regular file it did
/// not return in `taken` (unsupported, or excluded by an ignore file) and every hidden
/// entry (a hidden folder once, not descended). At most [`MAX_SKIPPED`] are listed; the
/// second value counts all of them. Errors were reported by [`walk`] and are not repeated.
pub fn skipped(roots: &[PathBuf], taken: &[PathBuf]) -> (Vec<Skipped>, usize) {
    use std::sync::{Arc, Mutex};
    let taken: std::collections::HashSet<&Path> = taken.iter().map(PathBuf::as_path).collect();
    let hidden = Arc::new(Mutex::new(Vec::new()));
    let mut out = Vec::new();
    let mut total = 0usize;
    for root in roots.iter().filter(|r| r.is_dir()) {
        let seen = Arc::clone(&hidden);
        let walker = ignore::WalkBuilder::new(root)
            .standard_filters(false)
            .follow_links(true)
            .sort_by_file_name(|a, b| a.cmp(b))
            .filter_entry(move |e| {
                let keep = e.depth() == 0 || !is_hidden(e.file_name());
                if !keep {
                    if let Ok(mut v) = seen.lock() {
                        v.push(e.path().to_path_buf());
                    }
                }
                keep
            })
            .build();
        for entry in walker.flatten() {
            if !entry.file_type().is_some_and(|t| t.is_file()) || taken.contains(entry.path()) {
                continue;
            }
            let reason = if is_supported(entry.path()) {
                SkipReason::Ignored
            } else {
                SkipReason::Unsupported(extension(entry.path()))
            };
            total += 1;
            if out.len() < MAX_SKIPPED {
                out.push(Skipped {
                    path: entry.into_path(),
                    reason,
                });
            }
        }
    }
    let hidden = hidden.lock().map(|v| v.clone()).unwrap_or_default();
    total += hidden.len();
    let room = MAX_SKIPPED.saturating_sub(out.len());
    out.extend(hidden.into_iter().take(room).map(|path| Skipped {
        path,
        reason: SkipReason::Hidden,
    }));
    out.sort_by(|a, b| a.path.cmp(&b.path));
    (out, total)
}
