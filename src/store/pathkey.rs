//! Lossless keys for file paths.
//!
//! The store keys files and documents by a string. A UTF-8 path is its own key; a path
//! that is not UTF-8 (e.g. Latin-1 `caf\xe9.md`) keeps its valid parts and writes each
//! byte that is not UTF-8 as a NUL followed by two hex digits. A real path never holds a
//! NUL, so two different paths never share a key (a lossy conversion would map both
//! `caf\xe9.md` and `caf\xe8.md` to `caf\u{fffd}.md`), and the path comes back from its key.

use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

/// The store key of `path` (the path itself when it is UTF-8).
pub fn path_key(path: &Path) -> String {
    let bytes = path.as_os_str().as_bytes();
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        for b in chunk.invalid() {
            out.push_str(&format!("\0{b:02x}"));
        }
    }
    out
}

/// The path a store key stands for (the inverse of [`path_key`]).
pub fn key_path(key: &str) -> PathBuf {
    if !key.contains('\0') {
        return PathBuf::from(key);
    }
    let mut out = Vec::with_capacity(key.len());
    let mut parts = key.split('\0');
    out.extend_from_slice(parts.next().unwrap_or_default().as_bytes());
    for part in parts {
        match part.get(..2).and_then(|h| u8::from_str_radix(h, 16).ok()) {
            Some(b) => {
                out.push(b);
                out.extend_from_slice(&part.as_bytes()[2..]);
            }
            None => out.extend_from_slice(part.as_bytes()),
        }
    }
    PathBuf::from(OsString::from_vec(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn latin1_names_get_distinct_keys_and_come_back() {
        let a = Path::new(std::ffi::OsStr::from_bytes(b"/d/a-caf\xe9.md"));
        let b = Path::new(std::ffi::OsStr::from_bytes(b"/d/a-caf\xe8.md"));
        assert_ne!(path_key(a), path_key(b));
        assert_eq!(key_path(&path_key(a)), a);
        assert_eq!(path_key(Path::new("/d/café.md")), "/d/café.md");
    }

    proptest! {
        #[test]
        fn keys_are_lossless(bytes in proptest::collection::vec(1u8..=255, 0..40)) {
            let p = PathBuf::from(OsString::from_vec(bytes));
            prop_assert_eq!(key_path(&path_key(&p)), p);
        }
    }
}
