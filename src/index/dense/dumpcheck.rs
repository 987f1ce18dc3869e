//! Validation of `hnsw_rs` dump files (structure, sizes, checksums) before `hnsw_rs` reads
//! them: its loader panics or exits on truncated or corrupt files. Mirrors `hnsw_rs` 0.3.5
//! `hnswio.rs`: format v4, `DumpMode::Full`, native endian.

use std::fmt;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use super::persist::FileSum;
use super::{DenseError, DIST_NAME, MAX_LAYERS};

pub(super) const MAGIC_DESCR_V4: u32 = 0x002a_6779;

const MAGIC_LAYER: u32 = 0x000a_676f;

pub(super) const MAGIC_POINT: u32 = 0x000a_678f;

const MAGIC_DATA: u32 = 0xa67f_0000;

const USIZE: u64 = std::mem::size_of::<usize>() as u64;

/// Bytes of one neighbour record: origin id, layer, rank, distance.
const NEIGHBOUR_BYTES: u64 = USIZE + 1 + 4 + 4;

/// Read buffer of a dump file (64 KiB: a design choice, not tuned).
const DUMP_READ_BUFFER: usize = 1 << 16;

/// Longest type name accepted in a dump (a safety cap: `hnsw_rs` writes Rust type paths of
/// a few dozen bytes).
const MAX_DUMP_NAME_BYTES: usize = 256;

/// Most point ids preallocated while validating a dump (a safety cap: the count comes from
/// the file).
const MAX_PREALLOCATED_POINTS: usize = 1 << 24;

/// What a dump must contain.
pub(super) struct Expected {
    pub(super) dim: usize,
    pub(super) count: usize,
    pub(super) graph: Option<FileSum>,
    pub(super) data: Option<FileSum>,
}

/// Checksums of a validated dump.
pub(super) struct Validated {
    pub(super) graph: FileSum,
    pub(super) data: FileSum,
}

/// Sequential reader over a dump file that hashes everything read and knows how many bytes
/// remain, so that no count read from the file can trigger a huge allocation.
struct DumpReader {
    path: PathBuf,
    inner: BufReader<File>,
    hasher: xxhash_rust::xxh64::Xxh64,
    len: u64,
    pos: u64,
}

impl DumpReader {
    fn open(path: &Path, expected: Option<FileSum>) -> Result<Self, DenseError> {
        let file = File::open(path).map_err(|e| DenseError::io(path, e))?;
        let len = file.metadata().map_err(|e| DenseError::io(path, e))?.len();
        if let Some(sum) = expected {
            if sum.len != len {
                return Err(DenseError::load(
                    path,
                    format!(
                        "file is {len} bytes, manifest says {} (truncated or replaced)",
                        sum.len
                    ),
                ));
            }
        }
        Ok(DumpReader {
            path: path.to_path_buf(),
            inner: BufReader::with_capacity(DUMP_READ_BUFFER, file),
            hasher: xxhash_rust::xxh64::Xxh64::new(0),
            len,
            pos: 0,
        })
    }

    fn corrupt(&self, what: impl fmt::Display) -> DenseError {
        DenseError::load(&self.path, format!("{what} (at byte {})", self.pos))
    }

    fn remaining(&self) -> u64 {
        self.len - self.pos
    }

    fn bytes(&mut self, out: &mut [u8]) -> Result<(), DenseError> {
        if (out.len() as u64) > self.remaining() {
            return Err(self.corrupt("unexpected end of file (truncated)"));
        }
        self.inner
            .read_exact(out)
            .map_err(|e| DenseError::io(&self.path, e))?;
        self.hasher.update(out);
        self.pos += out.len() as u64;
        Ok(())
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], DenseError> {
        let mut b = [0u8; N];
        self.bytes(&mut b)?;
        Ok(b)
    }

    fn u8(&mut self) -> Result<u8, DenseError> {
        Ok(self.array::<1>()?[0])
    }
    fn u32(&mut self) -> Result<u32, DenseError> {
        Ok(u32::from_ne_bytes(self.array()?))
    }
    fn i32(&mut self) -> Result<i32, DenseError> {
        Ok(i32::from_ne_bytes(self.array()?))
    }
    fn u64(&mut self) -> Result<u64, DenseError> {
        Ok(u64::from_ne_bytes(self.array()?))
    }
    fn f64(&mut self) -> Result<f64, DenseError> {
        Ok(f64::from_ne_bytes(self.array()?))
    }
    fn usize(&mut self) -> Result<usize, DenseError> {
        Ok(usize::from_ne_bytes(self.array()?))
    }

    /// A count of items of at least `item_bytes` bytes each that must fit in the rest of the file.
    fn count(&mut self, item_bytes: u64, what: &str) -> Result<usize, DenseError> {
        let n = self.usize()?;
        if (n as u64).saturating_mul(item_bytes.max(1)) > self.remaining() {
            return Err(self.corrupt(format!("{what} count {n} exceeds file size")));
        }
        Ok(n)
    }

    fn string(&mut self, what: &str) -> Result<String, DenseError> {
        let n = self.usize()?;
        if n > MAX_DUMP_NAME_BYTES {
            return Err(self.corrupt(format!("{what} length {n} > {MAX_DUMP_NAME_BYTES}")));
        }
        let mut b = vec![0u8; n];
        self.bytes(&mut b)?;
        String::from_utf8(b).map_err(|_| self.corrupt(format!("{what} is not UTF-8")))
    }

    /// Checks end of file and the checksum; returns the file's sum.
    fn finish(mut self, expected: Option<FileSum>) -> Result<FileSum, DenseError> {
        if self.remaining() != 0 {
            return Err(self.corrupt("trailing bytes after dump"));
        }
        let mut probe = [0u8; 1];
        if self
            .inner
            .read(&mut probe)
            .map_err(|e| DenseError::io(&self.path, e))?
            != 0
        {
            return Err(self.corrupt("file grew while reading"));
        }
        let sum = FileSum {
            len: self.len,
            xxh64: self.hasher.digest(),
        };
        if let Some(exp) = expected {
            if exp.xxh64 != sum.xxh64 {
                return Err(DenseError::load(
                    &self.path,
                    "checksum mismatch (file corrupted)",
                ));
            }
        }
        Ok(sum)
    }
}

/// Fully validates an `hnsw_rs` dump pair so that `HnswIo::load_hnsw` cannot hit one of its
/// panics, out-of-bounds reads or `process::exit` paths, and checks sizes and checksums
/// against the manifest when given.
pub(super) fn validate_dump(
    graph_path: &Path,
    data_path: &Path,
    exp: &Expected,
) -> Result<Validated, DenseError> {
    let mut g = DumpReader::open(graph_path, exp.graph)?;
    let mut d = DumpReader::open(data_path, exp.data)?;
    let dim = read_description(&mut g, exp)?;
    let (layer_len, origins) = read_layers(&mut g, exp.count)?;
    read_entry_point(&mut g, &layer_len)?;
    let graph = g.finish(exp.graph)?;
    read_vectors(&mut d, dim, &origins)?;
    let data = d.finish(exp.data)?;
    Ok(Validated { graph, data })
}

/// The graph file's description: magic, dump mode, parameters, point count and dimension
/// (which must be the expected ones), distance and data type. Returns the dimension.
fn read_description(g: &mut DumpReader, exp: &Expected) -> Result<usize, DenseError> {
    if g.u32()? != MAGIC_DESCR_V4 {
        return Err(g.corrupt("bad description magic"));
    }
    if g.u8()? != 1 {
        return Err(g.corrupt("dump mode is not Full"));
    }
    let max_conn = g.u8()?;
    if max_conn < 2 {
        return Err(g.corrupt(format!("max_nb_connection {max_conn} < 2")));
    }
    // Level-sampling scale factor: any value is harmless to the loader (we write 1.0).
    let _level_scale = g.f64()?;
    if usize::from(g.u8()?) != MAX_LAYERS {
        return Err(g.corrupt("layer count is not 16"));
    }
    if g.usize()? == 0 {
        return Err(g.corrupt("ef_construction is 0"));
    }
    let nb_point = g.usize()?;
    if nb_point != exp.count {
        return Err(g.corrupt(format!("{nb_point} points, expected {}", exp.count)));
    }
    let dim = g.usize()?;
    if dim != exp.dim {
        return Err(g.corrupt(format!("dimension {dim}, expected {}", exp.dim)));
    }
    let dist = g.string("distance name")?;
    if dist.rsplit("::").next() != Some(DIST_NAME) {
        return Err(g.corrupt(format!("distance {dist:?} is not {DIST_NAME}")));
    }
    if g.string("type name")? != "f32" {
        return Err(g.corrupt("data type is not f32"));
    }
    Ok(dim)
}

/// The graph file's layers: every point where its id says, `nb_point` in all, and every
/// neighbour inside its layer. Returns the layer sizes and the points' origin ids in
/// dump order.
fn read_layers(
    g: &mut DumpReader,
    nb_point: usize,
) -> Result<([usize; MAX_LAYERS], Vec<usize>), DenseError> {
    if usize::from(g.u8()?) != MAX_LAYERS {
        return Err(g.corrupt("indexation layer count is not 16"));
    }
    let min_point_bytes = 4 + USIZE + 1 + 4 + MAX_LAYERS as u64 * USIZE;
    let mut layer_len = [0usize; MAX_LAYERS];
    let mut max_rank_ref = [-1i64; MAX_LAYERS];
    let mut origins: Vec<usize> = Vec::with_capacity(nb_point.min(MAX_PREALLOCATED_POINTS));
    for (l, len) in layer_len.iter_mut().enumerate() {
        if g.u32()? != MAGIC_LAYER {
            return Err(g.corrupt(format!("bad magic at layer {l}")));
        }
        *len = g.count(min_point_bytes, "layer point")?;
        for r in 0..*len {
            origins.push(read_point(g, l, r, &mut max_rank_ref)?);
        }
    }
    if origins.len() != nb_point {
        return Err(g.corrupt(format!(
            "{} points in layers, header says {nb_point}",
            origins.len()
        )));
    }
    for (l, (&max_rank, &len)) in max_rank_ref.iter().zip(&layer_len).enumerate() {
        if max_rank >= len as i64 {
            return Err(g.corrupt(format!("neighbour points past the end of layer {l}")));
        }
    }
    Ok((layer_len, origins))
}

/// One point record, expected at rank `r` of layer `l`, with its neighbour lists; raises
/// `max_rank_ref[layer]` to the highest rank its neighbours refer to. Returns its origin id.
fn read_point(
    g: &mut DumpReader,
    l: usize,
    r: usize,
    max_rank_ref: &mut [i64; MAX_LAYERS],
) -> Result<usize, DenseError> {
    if g.u32()? != MAGIC_POINT {
        return Err(g.corrupt("bad point magic"));
    }
    let origin = g.usize()?;
    let (pl, pr) = (g.u8()?, g.i32()?);
    if usize::from(pl) != l || usize::try_from(pr).ok() != Some(r) {
        return Err(g.corrupt(format!("point id ({pl},{pr}) stored at ({l},{r})")));
    }
    for _ in 0..MAX_LAYERS {
        let nb = g.count(NEIGHBOUR_BYTES, "neighbour")?;
        for _ in 0..nb {
            let _origin = g.usize()?;
            let (nl, nr) = (g.u8()?, g.i32()?);
            let dist = f32::from_ne_bytes(g.array()?);
            if usize::from(nl) >= MAX_LAYERS || nr < 0 || dist.is_nan() {
                return Err(g.corrupt(format!("bad neighbour ({nl},{nr})")));
            }
            let m = &mut max_rank_ref[usize::from(nl)];
            *m = (*m).max(i64::from(nr));
        }
    }
    Ok(origin)
}

/// The graph file's entry point, which must be a stored point.
fn read_entry_point(g: &mut DumpReader, layer_len: &[usize; MAX_LAYERS]) -> Result<(), DenseError> {
    let _entry_origin = g.usize()?;
    let (el, er) = (g.u8()?, g.i32()?);
    let entry_ok = usize::from(el) < MAX_LAYERS
        && usize::try_from(er).is_ok_and(|r| r < layer_len[usize::from(el)]);
    if !entry_ok {
        return Err(g.corrupt(format!("bad entry point ({el},{er})")));
    }
    Ok(())
}

/// The data file: header, then one finite vector of `dim` values per point, in the
/// graph's order (`origins`).
fn read_vectors(d: &mut DumpReader, dim: usize, origins: &[usize]) -> Result<(), DenseError> {
    if d.u32()? != MAGIC_DATA {
        return Err(d.corrupt("bad data magic"));
    }
    if d.usize()? != dim {
        return Err(d.corrupt("data dimension differs from graph"));
    }
    let vec_bytes = (dim as u64).saturating_mul(4);
    if vec_bytes.saturating_mul(origins.len() as u64) > d.remaining() {
        return Err(d.corrupt("data file too short for the declared points"));
    }
    let mut buf = vec![0u8; dim * 4];
    for &origin in origins {
        if d.u32()? != MAGIC_DATA {
            return Err(d.corrupt("bad vector magic"));
        }
        if d.u64()? != origin as u64 {
            return Err(d.corrupt("vector id differs from graph order"));
        }
        if d.u64()? != vec_bytes {
            return Err(d.corrupt("bad vector byte length"));
        }
        d.bytes(&mut buf)?;
        if buf
            .chunks_exact(4)
            .any(|c| !f32::from_ne_bytes([c[0], c[1], c[2], c[3]]).is_finite())
        {
            return Err(d.corrupt("non-finite vector component"));
        }
    }
    Ok(())
}
