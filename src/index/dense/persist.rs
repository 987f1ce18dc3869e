//! Saving and loading an [`HnswIndex`]: `hnsw_rs` dump files under unique generation names,
//! committed by an atomically replaced, checksummed manifest; older generations collected.

use std::collections::HashSet;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
use std::time::{SystemTime, UNIX_EPOCH};

use hnsw_rs::api::AnnT;
use serde::{Deserialize, Serialize};

use super::dumpcheck::{validate_dump, Expected, MAGIC_DESCR_V4};
use super::graph::OwnedHnsw;
use super::{DenseError, HnswIndex, HnswParams, EMPTY_GRAPH_CAPACITY, MANIFEST_SUFFIX};
use crate::caught::panic_message;

/// What a saved graph's manifest says: its points and dimension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DumpSummary {
    /// Points in the graph (removed chunks' included).
    pub count: usize,
    /// Vector dimension.
    pub dim: usize,
}

impl HnswIndex {
    /// The manifest of the graph saved under `basename`, its files checked for presence
    /// and length only: no checksum, nothing loaded, so it costs the same at any size.
    /// [`HnswIndex::load`] checks everything.
    pub fn summary(dir: &Path, basename: &str) -> Result<DumpSummary, DenseError> {
        validate_basename(basename)?;
        let manifest_path = dir.join(format!("{basename}{MANIFEST_SUFFIX}"));
        let m = Manifest::read(&manifest_path)?;
        match &m.dump {
            Some(files) => {
                let (graph_path, data_path) = dump_paths(dir, &files.base);
                for (path, sum) in [(&graph_path, files.graph), (&data_path, files.data)] {
                    let len = std::fs::metadata(path)
                        .map_err(|e| DenseError::io(path, e))?
                        .len();
                    if len != sum.len {
                        let why = format!("{len} bytes, the manifest says {}", sum.len);
                        return Err(DenseError::load(path, why));
                    }
                }
            }
            None if m.count != 0 => {
                return Err(DenseError::load(
                    &manifest_path,
                    "count > 0 but no dump files",
                ))
            }
            None => {}
        }
        Ok(DumpSummary {
            count: m.count,
            dim: m.dim,
        })
    }
}

impl HnswIndex {
    /// Writes the index into `dir` (created if missing) under `basename`; returns the basename
    /// to pass to [`load`](Self::load) (always `basename` itself).
    ///
    /// Crash safety: the graph is dumped by `hnsw_rs` into fresh, uniquely named files
    /// `<basename>.g<token>.hnsw.{graph,data}` (a half-written dump is never referenced), then
    /// fsynced, re-read to verify structure and compute xxh64 checksums. The commit point is
    /// the manifest `<basename>.hnsw.meta` (dump name, sizes, checksums, dim, count, params),
    /// written to a hidden temporary file, fsynced and atomically renamed over the previous
    /// one; the directory is fsynced. Only then are older generations and stale temporaries of
    /// this basename deleted. A reader therefore sees either the old or the new complete
    /// index. Single writer per basename assumed.
    pub fn save(&self, dir: &Path, basename: &str) -> Result<String, DenseError> {
        validate_basename(basename)?;
        fs::create_dir_all(dir).map_err(|e| DenseError::io(dir, e))?;
        let token = unique_token();
        let manifest = Manifest {
            format: MANIFEST_FORMAT.to_string(),
            dim: self.dim,
            count: self.len(),
            max_connections: self.params.max_connections,
            ef_construction: self.params.ef_construction,
            dump: match self.is_empty() {
                true => None,
                false => Some(self.dump(dir, &format!("{basename}.g{token}"))?),
            },
        };
        let manifest_path = dir.join(format!("{basename}{MANIFEST_SUFFIX}"));
        let tmp_path = dir.join(format!(".{basename}{MANIFEST_SUFFIX}.tmp-{token}"));
        let write_tmp = || -> io::Result<()> {
            let mut f = File::create(&tmp_path)?;
            f.write_all(manifest.render().as_bytes())?;
            f.sync_all()
        };
        if let Err(e) = write_tmp().and_then(|()| fs::rename(&tmp_path, &manifest_path)) {
            let _ = fs::remove_file(&tmp_path);
            if let Some(d) = &manifest.dump {
                remove_dump_files(dir, &d.base);
            }
            return Err(DenseError::io(&manifest_path, e));
        }
        sync_dir(dir);
        collect_garbage(
            dir,
            basename,
            manifest.dump.as_ref().map(|d| d.base.as_str()),
        );
        tracing::info!(dir = %dir.display(), basename, n = self.len(), "saved HNSW index");
        Ok(basename.to_string())
    }

    /// Dumps the (non-empty) graph with `hnsw_rs` under the basename `requested` in `dir`,
    /// fsyncs the files and re-reads them to verify them and take their checksums. On
    /// error the files are removed.
    fn dump(&self, dir: &Path, requested: &str) -> Result<DumpFiles, DenseError> {
        let save_err = |reason: String| DenseError::Save {
            path: dir.to_path_buf(),
            reason,
        };
        let dumped = catch_unwind(AssertUnwindSafe(|| {
            self.graph.graph().file_dump(dir, requested)
        }));
        let used = match dumped {
            Ok(Ok(used)) => used,
            Ok(Err(e)) => {
                remove_dump_files(dir, requested);
                return Err(save_err(format!("hnsw_rs file_dump failed: {e:#}")));
            }
            Err(p) => {
                remove_dump_files(dir, requested);
                return Err(save_err(format!(
                    "hnsw_rs file_dump panicked: {}",
                    panic_message(p.as_ref())
                )));
            }
        };
        self.verify_dump(dir, &used)
            .inspect_err(|_| remove_dump_files(dir, &used))
            .map_err(|e| save_err(format!("written dump did not verify: {e}")))
    }

    /// Makes the dump `base` in `dir` durable and loadable (level scale reset, fsync) and
    /// validates it completely; returns its files and checksums.
    fn verify_dump(&self, dir: &Path, base: &str) -> Result<DumpFiles, DenseError> {
        let (graph_path, data_path) = dump_paths(dir, base);
        reset_level_scale(&graph_path)?;
        sync_file(&graph_path)?;
        sync_file(&data_path)?;
        let expect = Expected {
            dim: self.dim,
            count: self.len(),
            graph: None,
            data: None,
        };
        let v = validate_dump(&graph_path, &data_path, &expect)?;
        Ok(DumpFiles {
            base: base.to_string(),
            graph: v.graph,
            data: v.data,
        })
    }

    /// Loads an index saved by [`save`](Self::save). `params.ef_search` is used for searching;
    /// `max_connections`/`ef_construction` come from the dump (a mismatch is logged).
    ///
    /// Missing manifest or dump files give [`DenseError::Missing`]; truncated, corrupt or
    /// inconsistent files give [`DenseError::Load`]. Files are validated completely (sizes,
    /// checksums, structure) before `hnsw_rs` parses them, and its loader runs under
    /// `catch_unwind`, so a bad dump never panics or aborts the process.
    pub fn load(dir: &Path, basename: &str, params: &HnswParams) -> Result<Self, DenseError> {
        params.validate()?;
        validate_basename(basename)?;
        let manifest_path = dir.join(format!("{basename}{MANIFEST_SUFFIX}"));
        let mut attempt = 0;
        loop {
            let manifest = Manifest::read(&manifest_path)?;
            match Self::load_manifest(dir, &manifest_path, &manifest, params) {
                // A concurrent save may have replaced the manifest and deleted the files we
                // were about to read: retry with the new manifest.
                Err(DenseError::Missing { .. })
                    if attempt < 2
                        && Manifest::read(&manifest_path).ok().as_ref() != Some(&manifest) =>
                {
                    attempt += 1;
                }
                other => return other,
            }
        }
    }

    fn load_manifest(
        dir: &Path,
        manifest_path: &Path,
        m: &Manifest,
        params: &HnswParams,
    ) -> Result<Self, DenseError> {
        let effective = HnswParams {
            max_connections: m.max_connections,
            ef_construction: m.ef_construction,
            ef_search: params.ef_search,
        };
        effective
            .validate()
            .map_err(|e| DenseError::load(manifest_path, e.to_string()))?;
        if effective.max_connections != params.max_connections
            || effective.ef_construction != params.ef_construction
        {
            tracing::info!(
                stored_m = m.max_connections,
                stored_ef_construction = m.ef_construction,
                "HNSW dump was built with different parameters; using the stored ones"
            );
        }
        let Some(files) = &m.dump else {
            if m.count != 0 {
                return Err(DenseError::load(
                    manifest_path,
                    "count > 0 but no dump files",
                ));
            }
            return Ok(HnswIndex {
                dim: m.dim,
                params: effective.clone(),
                fixed_ef: None,
                ids: HashSet::new(),
                graph: OwnedHnsw::new(&effective, EMPTY_GRAPH_CAPACITY),
            });
        };
        let (graph, ids) = Self::load_dump(dir, m, files)?;
        tracing::info!(dir = %dir.display(), base = %files.base, n = m.count, "loaded HNSW index");
        Ok(HnswIndex {
            dim: m.dim,
            params: effective,
            fixed_ef: None,
            ids,
            graph,
        })
    }

    /// Validates the dump `files` against the manifest `m`, loads it with `hnsw_rs` and
    /// checks what was loaded (point count, dimension, unique ids); returns the graph and
    /// its ids.
    fn load_dump(
        dir: &Path,
        m: &Manifest,
        files: &DumpFiles,
    ) -> Result<(OwnedHnsw, HashSet<u64>), DenseError> {
        let (graph_path, data_path) = dump_paths(dir, &files.base);
        let expect = Expected {
            dim: m.dim,
            count: m.count,
            graph: Some(files.graph),
            data: Some(files.data),
        };
        validate_dump(&graph_path, &data_path, &expect)?;
        let graph =
            OwnedHnsw::load(dir, &files.base).map_err(|r| DenseError::load(&graph_path, r))?;
        if graph.points.len() != m.count || graph.graph().get_nb_point() != m.count {
            return Err(DenseError::load(
                &graph_path,
                format!(
                    "loaded {} points, manifest says {}",
                    graph.points.len(),
                    m.count
                ),
            ));
        }
        let mut ids = HashSet::with_capacity(m.count);
        for p in &graph.points {
            if p.get_v().len() != m.dim {
                return Err(DenseError::load(
                    &data_path,
                    "loaded vector has wrong dimension",
                ));
            }
            let id = p.get_origin_id() as u64;
            if !ids.insert(id) {
                return Err(DenseError::load(
                    &graph_path,
                    format!("duplicate point id {id}"),
                ));
            }
        }
        Ok((graph, ids))
    }
}

// ---------------------------------------------------------------------------------------------
// Persistence helpers: naming, manifest, fsync, garbage collection
// ---------------------------------------------------------------------------------------------

/// Longest dump basename accepted (a safety cap; file names allow 255 bytes and the dump
/// files add a generation token and suffixes).
const MAX_BASENAME_BYTES: usize = 128;

fn validate_basename(basename: &str) -> Result<(), DenseError> {
    let bad = |reason| {
        Err(DenseError::InvalidBasename {
            basename: basename.to_string(),
            reason,
        })
    };
    if basename.is_empty() || basename.len() > MAX_BASENAME_BYTES {
        return bad("must be 1..=128 bytes");
    }
    if basename.starts_with('.') {
        return bad("must not start with '.'");
    }
    if !basename
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
    {
        return bad("only ASCII letters, digits, '_', '-' and '.' are allowed");
    }
    Ok(())
}

/// A token unique per call within this machine (time, pid, counter), lowercase hex.
fn unique_token() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    let count = COUNTER.fetch_add(1, AtomicOrdering::Relaxed);
    format!("{nanos:x}{:x}{count:x}", std::process::id())
}

fn dump_paths(dir: &Path, base: &str) -> (PathBuf, PathBuf) {
    (
        dir.join(format!("{base}.hnsw.graph")),
        dir.join(format!("{base}.hnsw.data")),
    )
}

fn remove_dump_files(dir: &Path, base: &str) {
    let (g, d) = dump_paths(dir, base);
    let _ = fs::remove_file(g);
    let _ = fs::remove_file(d);
}

fn sync_file(path: &Path) -> Result<(), DenseError> {
    OpenOptions::new()
        .write(true)
        .open(path)
        .and_then(|f| f.sync_all())
        .map_err(|e| DenseError::io(path, e))
}

/// Byte offset of the level-scale `f64` in a v4 graph dump (after magic, mode, max_conn).
const LEVEL_SCALE_OFFSET: u64 = 4 + 1 + 1;

/// `hnsw_rs` 0.3.5 dumps the *absolute* level-sampling scale (`1/ln M`) but its loader
/// multiplies the default scale by the stored value, so every save/load cycle shrinks the
/// scale (`(1/ln M)^cycles`) and points inserted after a reload stop reaching upper layers.
/// We never modify the scale, so the correct stored factor is 1.0: patch it in place.
fn reset_level_scale(graph_path: &Path) -> Result<(), DenseError> {
    use std::io::{Seek, SeekFrom};
    let io_err = |e| DenseError::io(graph_path, e);
    let mut f = OpenOptions::new()
        .read(true)
        .write(true)
        .open(graph_path)
        .map_err(io_err)?;
    let mut magic = [0u8; 4];
    f.read_exact(&mut magic).map_err(io_err)?;
    if u32::from_ne_bytes(magic) != MAGIC_DESCR_V4 {
        return Err(DenseError::load(
            graph_path,
            "unexpected hnsw_rs dump format",
        ));
    }
    f.seek(SeekFrom::Start(LEVEL_SCALE_OFFSET))
        .map_err(io_err)?;
    f.write_all(&1.0f64.to_ne_bytes()).map_err(io_err)
}

/// Best-effort fsync of a directory so renames in it are durable (no-op where unsupported).
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Err(e) = File::open(dir).and_then(|f| f.sync_all()) {
        tracing::warn!(dir = %dir.display(), error = %e, "could not fsync directory");
    }
    #[cfg(not(unix))]
    let _ = dir;
}

/// If `name` is one of our dump generation files, `<basename>.g<hex>[-<digits>].hnsw.{graph,data}`,
/// returns its `hnsw_rs` basename.
fn is_generation_file(name: &str, basename: &str) -> Option<String> {
    let rest = name.strip_prefix(basename)?.strip_prefix(".g")?;
    let stem = rest
        .strip_suffix(".hnsw.graph")
        .or_else(|| rest.strip_suffix(".hnsw.data"))?;
    let (hex, suffix) = match stem.split_once('-') {
        Some((hex, suffix)) if !suffix.is_empty() => (hex, suffix),
        Some(_) => return None,
        None => (stem, ""),
    };
    let hex_ok = !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit());
    let suffix_ok = suffix.bytes().all(|b| b.is_ascii_digit());
    (hex_ok && suffix_ok).then(|| format!("{basename}.g{stem}"))
}

/// Deletes older dump generations and stale temporary manifests of `basename`.
fn collect_garbage(dir: &Path, basename: &str, current: Option<&str>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let tmp_prefix = format!(".{basename}{MANIFEST_SUFFIX}.tmp-");
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let stale = match is_generation_file(name, basename) {
            Some(base) => Some(base.as_str()) != current,
            None => name.starts_with(&tmp_prefix),
        };
        if stale {
            if let Err(e) = fs::remove_file(entry.path()) {
                tracing::warn!(file = %entry.path().display(), error = %e, "could not remove stale dump file");
            }
        }
    }
}

/// Length and xxh64 (seed 0) of a dump file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileSum {
    pub(super) len: u64,
    pub(super) xxh64: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct DumpFiles {
    /// `hnsw_rs` basename of the `.hnsw.graph` / `.hnsw.data` pair.
    base: String,
    graph: FileSum,
    data: FileSum,
}

/// The commit record of a saved index, stored as JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Manifest {
    /// [`MANIFEST_FORMAT`].
    format: String,
    dim: usize,
    count: usize,
    max_connections: usize,
    ef_construction: usize,
    /// `None` for an empty index (hnsw_rs cannot dump a graph without points).
    dump: Option<DumpFiles>,
}

/// Format tag of the JSON manifest.
const MANIFEST_FORMAT: &str = "attest-dense-hnsw 2";

/// First line of the text manifest that earlier versions wrote. It is not read: such a
/// dump is reported unreadable, and the index rebuilds the graph from the stored vectors.
const OLD_MANIFEST_MAGIC: &str = "attest-dense-hnsw 1";

/// Largest manifest read (a safety cap: a real one is a few hundred bytes).
const MANIFEST_MAX_BYTES: u64 = 64 * 1024;

impl Manifest {
    fn render(&self) -> String {
        let mut text = serde_json::to_string_pretty(self)
            .expect("a manifest of strings and integers always serialises");
        text.push('\n');
        text
    }

    fn read(path: &Path) -> Result<Self, DenseError> {
        let file = File::open(path).map_err(|e| DenseError::io(path, e))?;
        let mut bytes = Vec::new();
        file.take(MANIFEST_MAX_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| DenseError::io(path, e))?;
        if bytes.len() as u64 > MANIFEST_MAX_BYTES {
            return Err(DenseError::load(path, "manifest too large"));
        }
        Self::parse(&bytes)
            .map_err(|reason| DenseError::load(path, format!("bad manifest: {reason}")))
    }

    fn parse(bytes: &[u8]) -> Result<Self, String> {
        if bytes.starts_with(OLD_MANIFEST_MAGIC.as_bytes()) {
            return Err(format!(
                "written in the text format of an earlier version ({OLD_MANIFEST_MAGIC:?}); the graph is rebuilt from the stored vectors"
            ));
        }
        let mut de = serde_json::Deserializer::from_slice(bytes);
        let m: Manifest = serde_path_to_error::deserialize(&mut de)
            .map_err(|e| format!("at {}: {}", e.path(), e.inner()))?;
        de.end().map_err(|e| format!("trailing content: {e}"))?;
        m.check()?;
        Ok(m)
    }

    /// The checks serde cannot express.
    fn check(&self) -> Result<(), String> {
        if self.format != MANIFEST_FORMAT {
            return Err(format!("unknown format {:?}", self.format));
        }
        if self.dim == 0 {
            return Err("dim must be > 0".into());
        }
        if (self.count == 0) != self.dump.is_none() {
            return Err("count and dump disagree".into());
        }
        if let Some(d) = &self.dump {
            if d.base.is_empty() || d.base.contains(['/', '\\']) || d.base.starts_with('.') {
                return Err("bad dump name".into());
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::dumpcheck::MAGIC_POINT;
    use super::super::tests_support::*;
    use super::*;

    fn saved_fixture() -> (tempfile::TempDir, DumpFiles) {
        let dir = tempfile::tempdir().unwrap();
        let dim = 8;
        let vs = uniform(300, dim, 10);
        let idx = HnswIndex::build(dim, &fast(), &pairs(&vs)).unwrap();
        idx.save(dir.path(), "x").unwrap();
        let m = Manifest::read(&dir.path().join("x.hnsw.meta")).unwrap();
        (dir, m.dump.unwrap())
    }

    fn load_x(dir: &Path) -> Result<HnswIndex, DenseError> {
        HnswIndex::load(dir, "x", &HnswParams::default())
    }

    /// Rewrites the manifest so that it matches the (tampered) files on disk; this bypasses
    /// the checksum and exercises the structural validation in front of hnsw_rs.
    fn reseal(dir: &Path) {
        let path = dir.join("x.hnsw.meta");
        let mut m = Manifest::read(&path).unwrap();
        let d = m.dump.as_mut().unwrap();
        let (g, dp) = dump_paths(dir, &d.base);
        let sum = |p: &Path| {
            let b = fs::read(p).unwrap();
            FileSum {
                len: b.len() as u64,
                xxh64: xxhash_rust::xxh64::xxh64(&b, 0),
            }
        };
        d.graph = sum(&g);
        d.data = sum(&dp);
        fs::write(&path, m.render()).unwrap();
    }

    #[test]
    fn load_missing_dump_is_err() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(
            load_x(dir.path()),
            Err(DenseError::Missing { .. })
        ));
        assert!(matches!(
            load_x(&dir.path().join("nope")),
            Err(DenseError::Missing { .. })
        ));
        let (dir, files) = saved_fixture();
        fs::remove_file(dump_paths(dir.path(), &files.base).1).unwrap();
        assert!(matches!(
            load_x(dir.path()),
            Err(DenseError::Missing { .. })
        ));
        assert!(matches!(
            HnswIndex::load(dir.path(), "../x", &HnswParams::default()),
            Err(DenseError::InvalidBasename { .. })
        ));
    }

    #[test]
    fn load_truncated_or_corrupt_dump_is_err() {
        type Tamper = fn(&mut Vec<u8>);
        // (name, tamper graph (else data), tamper)
        let cases: &[(&str, bool, Tamper)] = &[
            ("truncate graph", true, |b| b.truncate(b.len() / 2)),
            ("truncate graph by 1", true, |b| {
                b.pop();
            }),
            ("truncate data", false, |b| b.truncate(b.len() - 10)),
            ("empty data", false, |b| b.clear()),
            ("flip graph byte", true, |b| {
                let i = b.len() / 3;
                b[i] ^= 0x40
            }),
            ("flip data byte", false, |b| {
                let i = b.len() / 2;
                b[i] ^= 0x01
            }),
            ("garbage graph", true, |b| {
                b.iter_mut().for_each(|x| *x = 0xAB)
            }),
            ("append to data", false, |b| b.extend_from_slice(&[0; 16])),
            ("graph magic", true, |b| b[0] ^= 1),
            ("graph max_conn zero", true, |b| {
                // max_nb_connection byte right after magic + dump mode
                b[5] = 0;
            }),
            ("huge neighbour count", true, |b| {
                // first layer's first point: after description + nb_layer + layer magic + count
                let pos = find(b, &MAGIC_POINT.to_ne_bytes()).unwrap() + 4 + 8 + 1 + 4;
                b[pos..pos + 8].copy_from_slice(&u64::MAX.to_ne_bytes());
            }),
            ("neighbour rank out of range", true, |b| {
                let pos = find(b, &MAGIC_POINT.to_ne_bytes()).unwrap() + 4 + 8 + 1 + 4;
                let nb = u64::from_ne_bytes(b[pos..pos + 8].try_into().unwrap());
                assert!(nb > 0);
                let rank = pos + 8 + 8 + 1;
                b[rank..rank + 4].copy_from_slice(&1_000_000i32.to_ne_bytes());
            }),
            ("data vector length", false, |b| {
                let pos = 4 + 8 + 4 + 8;
                b[pos..pos + 8].copy_from_slice(&4u64.to_ne_bytes());
            }),
            ("data nan", false, |b| {
                let pos = 4 + 8 + 4 + 8 + 8;
                b[pos..pos + 4].copy_from_slice(&f32::NAN.to_ne_bytes());
            }),
        ];
        fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
            hay.windows(needle.len()).position(|w| w == needle)
        }
        for &(name, graph, tamper) in cases {
            // A flipped bit inside a float may be structurally valid: only the checksum sees it.
            let structural = !name.starts_with("flip");
            for resealed in [false, true] {
                if resealed && !structural {
                    continue;
                }
                let (dir, files) = saved_fixture();
                let (g, d) = dump_paths(dir.path(), &files.base);
                let path = if graph { g } else { d };
                let mut bytes = fs::read(&path).unwrap();
                tamper(&mut bytes);
                fs::write(&path, &bytes).unwrap();
                if resealed {
                    reseal(dir.path());
                }
                match load_x(dir.path()) {
                    Err(DenseError::Load { path: p, reason }) => {
                        assert_eq!(p, path, "{name}: {reason}");
                    }
                    other => {
                        panic!("{name} (resealed={resealed}): expected Load error, got {other:?}")
                    }
                }
            }
        }
    }

    #[test]
    fn load_corrupt_manifest_is_err() {
        type Edit = fn(&str) -> String;
        let cases: &[(&str, Edit)] = &[
            ("empty", |_| String::new()),
            ("truncated", |s| s[..s.len() / 2].to_string()),
            ("trailing", |s| format!("{s}{{}}")),
            ("bad dim", |s| s.replace("\"dim\": 8", "\"dim\": \"x\"")),
            ("no dim", |s| s.replace("\"dim\": 8,", "")),
            ("unknown field", |s| {
                s.replace("\"dim\": 8", "\"dim\": 8, \"extra\": 1")
            }),
            ("format", |s| {
                s.replace(MANIFEST_FORMAT, "attest-dense-hnsw 9")
            }),
            ("wrong count", |s| {
                s.replace("\"count\": 300", "\"count\": 301")
            }),
            ("wrong dim", |s| s.replace("\"dim\": 8", "\"dim\": 9")),
            ("bad m", |s| {
                s.replace("\"max_connections\": 16", "\"max_connections\": 300")
            }),
            ("hash", |s| {
                let i = s.find("\"xxh64\": ").unwrap() + 9;
                let c = if &s[i..i + 1] == "1" { "2" } else { "1" };
                format!("{}{}{}", &s[..i], c, &s[i + 1..])
            }),
            ("binary", |_| "\u{0}\u{1}\u{2}".to_string()),
            ("old text format", |_| {
                "attest-dense-hnsw 1\ndim 8\ncount 300\nmax_connections 16\nef_construction 200\ndump -\nend\n".to_string()
            }),
        ];
        for &(name, f) in cases {
            let (dir, _) = saved_fixture();
            let p = dir.path().join("x.hnsw.meta");
            let text = fs::read_to_string(&p).unwrap();
            let edited = f(&text);
            assert_ne!(edited, text, "{name}: the edit changes the manifest");
            fs::write(&p, edited).unwrap();
            match load_x(dir.path()) {
                Err(DenseError::Load { reason, .. }) => {
                    if name == "old text format" {
                        assert!(reason.contains("earlier version"), "{reason}");
                    }
                }
                other => panic!("{name}: expected a Load error, got {other:?}"),
            }
        }
    }

    #[test]
    fn generation_file_matching() {
        assert_eq!(
            is_generation_file("dense.g1a2b.hnsw.graph", "dense").as_deref(),
            Some("dense.g1a2b")
        );
        assert_eq!(
            is_generation_file("dense.g1a2b-42.hnsw.data", "dense").as_deref(),
            Some("dense.g1a2b-42")
        );
        for other in [
            "dense.hnsw.meta",
            "dense.v2.g1a.hnsw.graph",
            "dense.g.hnsw.graph",
            "dense.gxyz.hnsw.graph",
            "dense.g1a-.hnsw.graph",
            "dense2.g1a.hnsw.graph",
        ] {
            assert_eq!(is_generation_file(other, "dense"), None, "{other}");
        }
    }
}
