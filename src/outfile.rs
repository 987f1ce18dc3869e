//! Output files the CLI writes at a path the user names (`attest ask --audit FILE`).
//!
//! One rule for every such file: it is written atomically (a temporary file in the
//! destination's directory, synced, then renamed over the destination), so a crash never
//! leaves half a file, and only where that is safe:
//! - a new path is created, a regular file is replaced (keeping its permissions);
//! - a symbolic link is followed (relative targets against the link's directory, dangling
//!   links included) and its target is written atomically, so the link itself stays;
//! - a directory, character or block device, FIFO or socket is refused with
//!   [`OutputError::NotRegular`], naming the path: renaming over them would destroy a
//!   device node or a pipe a reader waits on, and writing into them is not a file.

use std::fmt;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Symbolic links followed at most, as the kernel's `ELOOP` limit.
const MAX_LINKS: usize = 40;

/// What occupies a path that an output file refuses to replace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Occupant {
    /// A directory.
    Directory,
    /// A character device (`/dev/null`, `/dev/full`, a terminal).
    CharDevice,
    /// A block device.
    BlockDevice,
    /// A named pipe.
    Fifo,
    /// A Unix domain socket.
    Socket,
    /// Anything else that is not a regular file.
    Other,
}

impl Occupant {
    fn of(ft: fs::FileType) -> Self {
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileTypeExt;
            if ft.is_char_device() {
                return Occupant::CharDevice;
            }
            if ft.is_block_device() {
                return Occupant::BlockDevice;
            }
            if ft.is_fifo() {
                return Occupant::Fifo;
            }
            if ft.is_socket() {
                return Occupant::Socket;
            }
        }
        if ft.is_dir() {
            Occupant::Directory
        } else {
            Occupant::Other
        }
    }
}

impl fmt::Display for Occupant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Occupant::Directory => "a directory",
            Occupant::CharDevice => "a character device",
            Occupant::BlockDevice => "a block device",
            Occupant::Fifo => "a FIFO (named pipe)",
            Occupant::Socket => "a socket",
            Occupant::Other => "not a regular file",
        })
    }
}

/// Why an output file was not written.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// The path (or the target of the symbolic link at it) is not a regular file.
    #[error("{}{}: is {occupant}; output files are written only to regular files or new paths", path.display(), via(path, target))]
    NotRegular {
        /// The path as given.
        path: PathBuf,
        /// Where its symbolic links lead (equal to `path` without links).
        target: PathBuf,
        /// What is there.
        occupant: Occupant,
    },
    /// Symbolic links at the path do not end.
    #[error("{}: too many levels of symbolic links", path.display())]
    SymlinkLoop {
        /// The path as given.
        path: PathBuf,
    },
    /// The file system refused an operation.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path concerned (the temporary file's directory or the destination).
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

/// ` (-> target)` when a symbolic link led elsewhere.
fn via(path: &Path, target: &Path) -> String {
    if path == target {
        String::new()
    } else {
        format!(" (-> {})", target.display())
    }
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> OutputError + '_ {
    move |source| OutputError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The regular file or new path that writing `path` replaces: symbolic links followed,
/// anything else refused.
pub fn resolve(path: &Path) -> Result<PathBuf, OutputError> {
    let mut p = path.to_path_buf();
    for _ in 0..=MAX_LINKS {
        let meta = match fs::symlink_metadata(&p) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(p),
            Err(e) => return Err(io(&p)(e)),
        };
        let ft = meta.file_type();
        if ft.is_symlink() {
            let link = fs::read_link(&p).map_err(io(&p))?;
            p = match p.parent() {
                Some(dir) => dir.join(link),
                None => link,
            };
        } else if ft.is_file() {
            return Ok(p);
        } else {
            return Err(OutputError::NotRegular {
                path: path.to_path_buf(),
                target: p,
                occupant: Occupant::of(ft),
            });
        }
    }
    Err(OutputError::SymlinkLoop {
        path: path.to_path_buf(),
    })
}

/// Check that `path` can take an output file (see [`resolve`]) and that its directory
/// exists, before any work is done for it.
pub fn check(path: &Path) -> Result<(), OutputError> {
    let target = resolve(path)?;
    let dir = parent(&target);
    match fs::metadata(dir) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(m) => Err(OutputError::NotRegular {
            path: dir.to_path_buf(),
            target: dir.to_path_buf(),
            occupant: Occupant::of(m.file_type()),
        }),
        Err(e) => Err(io(dir)(e)),
    }
}

fn parent(p: &Path) -> &Path {
    match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// Write `bytes` to `path` atomically under the rules of this module.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), OutputError> {
    let target = resolve(path)?;
    let dir = parent(&target);
    let existing = fs::metadata(&target).ok().map(|m| m.permissions());
    let mut builder = tempfile::Builder::new();
    builder.prefix(".attest-").suffix(".tmp");
    #[cfg(unix)]
    {
        // The mode of a new file, less the umask (as any newly created file).
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder.tempfile_in(dir).map_err(io(dir))?;
    tmp.write_all(bytes).map_err(io(tmp.path()))?;
    if let Some(perms) = existing {
        tmp.as_file()
            .set_permissions(perms)
            .map_err(io(tmp.path()))?;
    }
    tmp.as_file().sync_all().map_err(io(tmp.path()))?;
    tmp.persist(&target).map_err(|e| io(&target)(e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_paths_and_regular_files_are_written_and_replaced() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("a.json");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"two");
        // No temporary file is left behind.
        assert_eq!(fs::read_dir(d.path()).unwrap().count(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_are_written_through_relative_and_dangling_included() {
        let d = tempfile::tempdir().unwrap();
        fs::create_dir(d.path().join("sub")).unwrap();
        let link = d.path().join("link.json");
        std::os::unix::fs::symlink("sub/target.json", &link).unwrap();
        write_atomic(&link, b"x").unwrap();
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read(d.path().join("sub/target.json")).unwrap(), b"x");
        let lp = d.path().join("loop");
        std::os::unix::fs::symlink("loop", &lp).unwrap();
        assert!(matches!(
            write_atomic(&lp, b"x"),
            Err(OutputError::SymlinkLoop { .. })
        ));
    }

    #[test]
    fn directories_are_refused_by_name() {
        let d = tempfile::tempdir().unwrap();
        let e = write_atomic(d.path(), b"x").unwrap_err();
        assert!(matches!(
            e,
            OutputError::NotRegular {
                occupant: Occupant::Directory,
                ..
            }
        ));
        assert!(e.to_string().contains(&d.path().display().to_string()));
        assert!(check(&d.path().join("missing/a.json")).is_err());
        assert!(check(&d.path().join("a.json")).is_ok());
    }
}
