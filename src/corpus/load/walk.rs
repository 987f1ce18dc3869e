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
