//! Document loading: turn files on disk into [`LoadedDoc`]s whose `text` is
//! the exact string that quotes (byte spans) will point into.
//!
//! Markdown and plain text are stored byte-for-byte as they are on disk
//! (BOM and CRLF included), so a span in the stored text is also a span in
//! the file. HTML and PDF are converted to readable plain text; BEIR `jsonl`
//! files yield one document per line.

use std::collections::HashMap;
use std::fmt;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use super::docx;

pub mod form;
mod html;
mod htmltext;
mod pdf;
pub mod scan;
mod walk;
use super::layout::{Layout, SourceMap};
use super::mdinline;
use super::ocr::OcrMode;
use super::pdftext::PdfExtractor;
use super::textlayout;
use htmltext::html_to_text;
use pdf::load_pdf;
pub use pdf::{pdf_worker_entry, PDF_WORKER_ARG};
pub use walk::{skipped, walk, SkipReason, Skipped, MAX_SKIPPED};

/// File extensions (lower-case, without the dot) that [`load_file`] understands.
const SUPPORTED_EXTENSIONS: &[&str] = &[
    "md", "markdown", "txt", "html", "htm", "xml", "pdf", "docx", "jsonl", "png", "jpg", "jpeg",
    "tif", "tiff",
];

/// How many leading bytes of a text file are scanned for NUL bytes.
const BINARY_SNIFF_BYTES: usize = 8 * 1024;

/// Limits and options for loading.
#[derive(Debug, Clone)]
pub struct LoadOptions {
    /// Files larger than this many bytes are rejected with [`LoadError::TooLarge`] without being read.
    pub max_file_bytes: u64,
    /// Wall-clock limit for extracting the text of one PDF.
    pub pdf_timeout: Duration,
    /// Most text one file may yield, all its documents together ([`Budget::Text`]).
    pub max_text_bytes: u64,
    /// Most bytes a PDF's Flate streams (images excepted) may inflate to ([`Budget::Inflated`]).
    pub max_inflated_bytes: u64,
    /// Address-space limit of the PDF worker process ([`Budget::Memory`]); it applies when
    /// the worker runs as a subprocess (see [`pdf_worker_entry`]).
    pub pdf_memory_bytes: u64,
    /// Wall-clock limit for loading, segmenting and chunking one file ([`LoadError::TimedOut`]).
    pub file_timeout: Duration,
    /// Which PDF text extractor to use.
    pub pdf_extractor: PdfExtractor,
    /// Whether image-only PDF pages and image files are read by OCR.
    pub ocr: OcrMode,
    /// Most chunks one file's documents may make, all together ([`Budget::Chunks`]; checked
    /// by the caller that chunks them).
    pub max_chunks_per_file: usize,
}

impl Default for LoadOptions {
    /// 50 MiB per file, 30 s per PDF, 16 MiB of text, 256 MiB inflated, 2 GiB of
    /// worker memory, 300 s per file, 5,000 chunks per file.
    fn default() -> Self {
        Self {
            max_file_bytes: 50 * 1024 * 1024,
            pdf_timeout: Duration::from_secs(30),
            max_text_bytes: 16 * 1024 * 1024,
            max_inflated_bytes: 256 * 1024 * 1024,
            pdf_memory_bytes: 2 * 1024 * 1024 * 1024,
            file_timeout: Duration::from_secs(300),
            pdf_extractor: PdfExtractor::Auto,
            ocr: OcrMode::Auto,
            max_chunks_per_file: 5_000,
        }
    }
}

/// A point in time after which work on a file stops ([`LoadError::TimedOut`]).
#[derive(Debug, Clone, Copy)]
pub struct Deadline {
    at: Option<Instant>,
    limit: Duration,
}

impl Deadline {
    /// `limit` from now (a limit too large to represent never expires).
    pub fn after(limit: Duration) -> Self {
        Deadline {
            at: Instant::now().checked_add(limit),
            limit,
        }
    }

    /// The limit this deadline was set with.
    pub fn limit(&self) -> Duration {
        self.limit
    }

    /// A deadline that never expires.
    pub fn never() -> Self {
        Deadline {
            at: None,
            limit: Duration::MAX,
        }
    }

    /// Whether the deadline has passed.
    pub fn expired(&self) -> bool {
        self.at.is_some_and(|at| Instant::now() >= at)
    }

    /// Time left (zero once expired; `Duration::MAX` when it never expires).
    pub fn remaining(&self) -> Duration {
        self.at.map_or(Duration::MAX, |at| {
            at.saturating_duration_since(Instant::now())
        })
    }

    /// `Err(TimedOut)` for `path` once expired.
    pub fn check(&self, path: &Path) -> Result<(), LoadError> {
        if self.expired() {
            return Err(LoadError::TimedOut {
                path: path.to_path_buf(),
                secs: self.limit.as_secs_f64(),
            });
        }
        Ok(())
    }
}

/// A per-file resource budget that a file exceeded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Budget {
    /// The text extracted from the file is longer than `max_text_bytes`.
    Text {
        /// The budget in bytes.
        limit: u64,
    },
    /// A PDF's Flate streams inflate to more than `max_inflated_bytes`.
    Inflated {
        /// The budget in bytes.
        limit: u64,
    },
    /// HTML elements nest deeper than [`MAX_HTML_DEPTH`].
    HtmlDepth {
        /// The deepest nesting allowed.
        limit: usize,
        /// Byte offset of the start tag that went past it.
        byte_offset: usize,
    },
    /// The PDF worker ran out of its `pdf_memory_bytes` address space.
    Memory {
        /// The limit in bytes.
        limit: u64,
    },
    /// The file's documents make more chunks than `max_chunks_per_file`.
    Chunks {
        /// The budget in chunks.
        limit: usize,
        /// The chunks the file makes.
        count: usize,
    },
}

impl fmt::Display for Budget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Budget::Text { limit } => write!(
                f,
                "extracted text is over the {limit}-byte budget (max_text_bytes)"
            ),
            Budget::Inflated { limit } => write!(
                f,
                "PDF streams inflate to more than {limit} bytes (max_inflated_bytes)"
            ),
            Budget::HtmlDepth { limit, byte_offset } => write!(
                f,
                "HTML elements nest deeper than {limit} levels (at byte offset {byte_offset})"
            ),
            Budget::Memory { limit } => write!(
                f,
                "PDF extraction needed more than its {limit}-byte memory limit (pdf_memory_bytes)"
            ),
            Budget::Chunks { limit, count } => write!(
                f,
                "the file makes {count} chunks, over the {limit}-chunk budget (max_chunks_per_file)"
            ),
        }
    }
}

/// What kind of source a document came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SourceKind {
    /// `.md` / `.markdown`, stored verbatim.
    Markdown,
    /// `.txt`, stored verbatim.
    Text,
    /// `.html` / `.htm`, converted to plain text.
    Html,
    /// `.xml` (Formex, eCFR, USLM, Akoma Ntoso…), converted to plain text.
    Xml,
    /// `.pdf`, text extracted page by page (`pdftotext` or `pdf-extract`) and assembled.
    Pdf,
    /// `.docx`, text extracted from `word/document.xml`.
    Docx,
    /// `.jsonl` in BEIR corpus format, one document per line.
    Jsonl,
    /// `.png`, `.jpg`, `.tif` (and variants), read by OCR.
    Image,
}

impl SourceKind {
    /// The format's name as stored and shown (`html`, `pdf`, …).
    pub fn name(self) -> &'static str {
        match self {
            SourceKind::Markdown => "markdown",
            SourceKind::Text => "text",
            SourceKind::Html => "html",
            SourceKind::Xml => "xml",
            SourceKind::Pdf => "pdf",
            SourceKind::Docx => "docx",
            SourceKind::Jsonl => "jsonl",
            SourceKind::Image => "image",
        }
    }
}

/// One loaded document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedDoc {
    /// Identity within the file: `""` for single-document files, the BEIR `_id` for jsonl lines.
    pub key: String,
    /// Human title: first `# ` heading (md), `<title>`/first `<h1>` (html), PDF metadata
    /// title, the jsonl `title` (or `_id`); otherwise the file stem.
    pub title: String,
    /// The stored text that quote spans index into (verbatim for md/txt).
    pub text: String,
    /// Which format the document was loaded from.
    pub kind: SourceKind,
    /// Pages, headings, labels and extractor of `text`.
    pub layout: Layout,
}

/// Why a file (or walk entry) could not be loaded.
///
/// Every variant carries the offending path; `Display` reads
/// `"<path>: <reason>"`, e.g. `corpus/x.pdf: truncated PDF (no %%EOF marker)`.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be opened, stat'ed or read (missing, permissions, a directory...).
    Io {
        /// The path that failed.
        path: PathBuf,
        /// The underlying OS error.
        #[source]
        source: io::Error,
    },
    /// The path is not a regular file (a directory, device, FIFO or socket, also through
    /// a symlink); it is never opened.
    NotRegular {
        /// The path as found (a symlink's own path, not its target).
        path: PathBuf,
        /// What it is instead: `directory`, `character device`, `FIFO (named pipe)`...
        kind: &'static str,
    },
    /// The file is empty or contains only whitespace.
    Empty {
        /// The empty file.
        path: PathBuf,
    },
    /// A text-format file has a NUL byte in its first 8 KiB.
    Binary {
        /// The binary file.
        path: PathBuf,
    },
    /// A text-format file is not valid UTF-8.
    InvalidUtf8 {
        /// The offending file.
        path: PathBuf,
        /// Byte offset of the first invalid byte.
        byte_offset: usize,
    },
    /// The file is larger than [`LoadOptions::max_file_bytes`].
    TooLarge {
        /// The oversized file.
        path: PathBuf,
        /// Its size in bytes.
        size: u64,
        /// The limit it exceeded.
        limit: u64,
    },
    /// The extension is not one of the supported formats.
    Unsupported {
        /// The file.
        path: PathBuf,
        /// Its extension, lower-cased, without the dot (`""` when it has none).
        ext: String,
    },
    /// The PDF is not a PDF, is corrupt, made the extractor fail or panic, or has no text.
    Pdf {
        /// The PDF file.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
    /// The DOCX is not a zip, has no `word/document.xml`, is damaged, malformed or over a
    /// size limit while inflating.
    Docx {
        /// The DOCX file.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
    /// The XML is not well-formed or nests too deep.
    Xml {
        /// The XML file.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
    /// OCR could not read a page or an image file, or is needed but off or not installed.
    Ocr {
        /// The PDF or image file.
        path: PathBuf,
        /// What went wrong (with the page, when one page failed).
        reason: String,
    },
    /// PDF text extraction did not finish within [`LoadOptions::pdf_timeout`].
    PdfTimeout {
        /// The PDF file.
        path: PathBuf,
        /// The timeout that expired, in seconds.
        secs: f64,
    },
    /// The file went over a per-file budget (text, inflated streams, nesting, memory).
    OverBudget {
        /// The file.
        path: PathBuf,
        /// Which budget, and its limit.
        budget: Budget,
    },
    /// Loading, segmenting and chunking the file took longer than [`LoadOptions::file_timeout`].
    TimedOut {
        /// The file.
        path: PathBuf,
        /// The limit that expired, in seconds.
        secs: f64,
    },
    /// A BEIR jsonl line is malformed, duplicated or empty; the whole file is rejected.
    Json {
        /// The jsonl file.
        path: PathBuf,
        /// 1-based line number of the first bad line.
        line: usize,
        /// What is wrong with that line.
        reason: String,
    },
    /// Directory traversal failed here (symlink loop, unreadable directory entry...).
    Walk {
        /// Where the walk failed.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
}

impl LoadError {
    /// The file or directory this error is about.
    pub fn path(&self) -> &Path {
        match self {
            LoadError::Io { path, .. }
            | LoadError::NotRegular { path, .. }
            | LoadError::Empty { path }
            | LoadError::Binary { path }
            | LoadError::InvalidUtf8 { path, .. }
            | LoadError::TooLarge { path, .. }
            | LoadError::Unsupported { path, .. }
            | LoadError::Pdf { path, .. }
            | LoadError::Docx { path, .. }
            | LoadError::Xml { path, .. }
            | LoadError::Ocr { path, .. }
            | LoadError::PdfTimeout { path, .. }
            | LoadError::OverBudget { path, .. }
            | LoadError::TimedOut { path, .. }
            | LoadError::Json { path, .. }
            | LoadError::Walk { path, .. } => path,
        }
    }

    /// The human-readable message without the leading path.
    pub fn reason(&self) -> String {
        match self {
            LoadError::Io { source, .. } => format!("cannot read: {source}"),
            LoadError::NotRegular { kind, .. } => format!("not a regular file: {kind}"),
            LoadError::Empty { .. } => "empty document (no text)".to_string(),
            LoadError::Binary { .. } => {
                "binary file (NUL byte in the first 8 KiB), not text".to_string()
            }
            LoadError::InvalidUtf8 { byte_offset, .. } => {
                format!("invalid UTF-8 at byte offset {byte_offset}")
            }
            LoadError::TooLarge { size, limit, .. } => {
                format!("file is {size} bytes, over the {limit}-byte limit")
            }
            LoadError::Unsupported { ext, .. } => {
                let shown = if ext.is_empty() {
                    "no extension".to_string()
                } else {
                    format!(".{ext}")
                };
                format!(
                    "unsupported file type ({shown}; supported: {})",
                    SUPPORTED_EXTENSIONS.join(", ")
                )
            }
            LoadError::Pdf { reason, .. }
            | LoadError::Docx { reason, .. }
            | LoadError::Xml { reason, .. }
            | LoadError::Ocr { reason, .. } => reason.clone(),
            LoadError::PdfTimeout { secs, .. } => {
                format!("PDF text extraction timed out after {secs} s")
            }
            LoadError::OverBudget { budget, .. } => budget.to_string(),
            LoadError::TimedOut { secs, .. } => {
                format!("loading took longer than the {secs} s limit (file_timeout_secs)")
            }
            LoadError::Json { line, reason, .. } => format!("line {line}: {reason}"),
            LoadError::Walk { reason, .. } => reason.clone(),
        }
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path().display(), self.reason())
    }
}

/// Lower-cased extension of `path` (without the dot), or `""`.
fn extension(path: &Path) -> String {
    path.extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default()
}

/// Whether `path` has a supported extension (case-insensitive):
/// md, markdown, txt, html, htm, pdf, jsonl.
pub fn is_supported(path: &Path) -> bool {
    SUPPORTED_EXTENSIONS.contains(&extension(path).as_str())
}

/// Load one file into one or more documents (several only for jsonl), within
/// [`LoadOptions::file_timeout`] from now.
///
/// The size is checked from metadata before anything is read. Text formats
/// must be UTF-8 without NUL bytes near the start; md/txt text is kept
/// byte-for-byte. See [`LoadError`] for the failure cases.
pub fn load_file(path: &Path, opts: &LoadOptions) -> Result<Vec<LoadedDoc>, LoadError> {
    load_file_until(path, opts, Deadline::after(opts.file_timeout)).map(|f| f.docs)
}

/// A loaded file: its documents and the sha256 of the bytes they were read from.
#[derive(Debug, Clone)]
pub struct LoadedFile {
    /// The file's documents.
    pub docs: Vec<LoadedDoc>,
    /// Hex sha256 of the file's bytes as read.
    pub sha256: String,
}

/// [`load_file`] with an explicit deadline (the caller may spend the rest on chunking), and
/// the hash of the bytes read.
pub fn load_file_until(
    path: &Path,
    opts: &LoadOptions,
    deadline: Deadline,
) -> Result<LoadedFile, LoadError> {
    let named = source_kind(path)?;
    let bytes = read_limited(path, opts.max_file_bytes)?;
    let kind = content_kind(named, &bytes);
    let sha256 = hex::encode(Sha256::digest(&bytes));
    let mut docs = load_kind(path, kind, bytes, opts, deadline)?;
    for d in &mut docs {
        // Text the loader did not map onto the file's bytes is rendered from its structure.
        d.layout.source_map.get_or_insert(SourceMap::Rendered);
    }
    let total: u64 = docs.iter().map(|d| d.text.len() as u64).sum();
    if total > opts.max_text_bytes {
        return Err(LoadError::OverBudget {
            path: path.to_path_buf(),
            budget: Budget::Text {
                limit: opts.max_text_bytes,
            },
        });
    }
    deadline.check(path)?;
    Ok(LoadedFile { docs, sha256 })
}

/// The format a plain-text file's content shows, when it is not plain text: HTML (a
/// doctype or an `<html>`/`<head>`/`<body>` element before any prose), XML (a declaration
/// or a root element that is not HTML), or Markdown (it opens with an ATX heading and has
/// another, or has three). Other kinds are read as their extension names.
pub fn content_kind(named: SourceKind, bytes: &[u8]) -> SourceKind {
    if named != SourceKind::Text {
        return named;
    }
    let head = &bytes[..bytes.len().min(BINARY_SNIFF_BYTES)];
    let head = String::from_utf8_lossy(head);
    let head = head.trim_start_matches('\u{feff}').trim_start();
    let lower = head.to_ascii_lowercase();
    let is_html = |l: &str| {
        ["<!doctype html", "<html", "<head", "<body"]
            .iter()
            .any(|t| l.contains(t))
    };
    if lower.starts_with("<!doctype html") || lower.starts_with("<html") {
        return SourceKind::Html;
    }
    if lower.starts_with("<?xml") || lower.starts_with("<!--") || lower.starts_with("<!doctype") {
        return if is_html(&lower) {
            SourceKind::Html
        } else if lower.starts_with("<?xml") {
            SourceKind::Xml
        } else {
            named
        };
    }
    let mut lines = head.lines().filter(|l| !l.trim().is_empty());
    let atx = |l: &str| {
        let hashes = l.bytes().take_while(|&b| b == b'#').count();
        (1..=6).contains(&hashes) && l[hashes..].starts_with(' ') && l[hashes..].trim().len() > 1
    };
    let opens = lines.next().is_some_and(atx);
    let more = head.lines().filter(|l| atx(l)).count();
    if (opens && more >= 2) || more >= 3 {
        return SourceKind::Markdown;
    }
    named
}

/// The format of `path`, from its extension.
pub fn source_kind(path: &Path) -> Result<SourceKind, LoadError> {
    let ext = extension(path);
    Ok(match ext.as_str() {
        "md" | "markdown" => SourceKind::Markdown,
        "txt" => SourceKind::Text,
        "html" | "htm" => SourceKind::Html,
        "xml" => SourceKind::Xml,
        "pdf" => SourceKind::Pdf,
        "docx" => SourceKind::Docx,
        "jsonl" => SourceKind::Jsonl,
        e if scan::IMAGE_EXTENSIONS.contains(&e) => SourceKind::Image,
        _ => {
            return Err(LoadError::Unsupported {
                path: path.to_path_buf(),
                ext,
            })
        }
    })
}

/// The documents of a file of `kind` whose bytes are `bytes`.
fn load_kind(
    path: &Path,
    kind: SourceKind,
    bytes: Vec<u8>,
    opts: &LoadOptions,
    deadline: Deadline,
) -> Result<Vec<LoadedDoc>, LoadError> {
    if kind == SourceKind::Pdf {
        return load_pdf(path, bytes, opts, deadline).map(|d| vec![d]);
    }
    if kind == SourceKind::Docx {
        return load_docx(path, &bytes, opts).map(|d| vec![d]);
    }
    if kind == SourceKind::Image {
        return scan::load_image(path, opts, deadline).map(|d| vec![d]);
    }
    let text = decode_text(path, bytes)?;
    match kind {
        SourceKind::Markdown | SourceKind::Text => {
            if is_blank(&text) {
                return Err(LoadError::Empty {
                    path: path.to_path_buf(),
                });
            }
            let markdown = kind == SourceKind::Markdown;
            // Links and character references are stored rendered (see `mdinline`), with
            // the edits that map the stored text back onto the file's bytes.
            let (rendered, edits) = match markdown.then(|| mdinline::render_mapped(&text)) {
                Some((std::borrow::Cow::Owned(s), edits)) => (Some(s), edits),
                _ => (None, Vec::new()),
            };
            let text = rendered.unwrap_or(text);
            let title = if markdown {
                markdown_title(&text)
            } else {
                None
            };
            let mut layout = textlayout::text_layout(&text, markdown, &[]);
            layout.source_map = Some(SourceMap::Bytes { edits });
            Ok(vec![LoadedDoc {
                key: String::new(),
                title: title.unwrap_or_else(|| file_stem(path)),
                layout,
                text,
                kind,
            }])
        }
        SourceKind::Html => load_html(path, &text, deadline).map(|d| vec![d]),
        SourceKind::Jsonl => load_jsonl(path, &text, deadline),
        SourceKind::Xml => load_xml(path, &text, deadline).map(|d| vec![d]),
        SourceKind::Pdf | SourceKind::Docx | SourceKind::Image => unreachable!("handled above"),
    }
}

/// Check the nesting depth, then convert HTML to readable text.
fn load_html(path: &Path, source: &str, deadline: Deadline) -> Result<LoadedDoc, LoadError> {
    if let Some(byte_offset) = html::too_deep(source, MAX_HTML_DEPTH) {
        return Err(LoadError::OverBudget {
            path: path.to_path_buf(),
            budget: Budget::HtmlDepth {
                limit: MAX_HTML_DEPTH,
                byte_offset,
            },
        });
    }
    let (title, body, headings) =
        html_to_text(source, &deadline).ok_or_else(|| LoadError::TimedOut {
            path: path.to_path_buf(),
            secs: deadline.limit.as_secs_f64(),
        })?;
    if is_blank(&body) {
        return Err(LoadError::Empty {
            path: path.to_path_buf(),
        });
    }
    Ok(LoadedDoc {
        key: String::new(),
        title: title.unwrap_or_else(|| file_stem(path)),
        layout: textlayout::text_layout(&body, false, &headings),
        text: body,
        kind: SourceKind::Html,
    })
}

/// Convert an XML document to readable text (see [`super::xml`]).
fn load_xml(path: &Path, source: &str, deadline: Deadline) -> Result<LoadedDoc, LoadError> {
    let doc = super::xml::xml_to_text(source, MAX_HTML_DEPTH, &|| deadline.expired()).map_err(
        |e| match e {
            super::xml::XmlError::TimedOut => LoadError::TimedOut {
                path: path.to_path_buf(),
                secs: deadline.limit.as_secs_f64(),
            },
            other => LoadError::Xml {
                path: path.to_path_buf(),
                reason: other.to_string(),
            },
        },
    )?;
    if is_blank(&doc.text) {
        return Err(LoadError::Empty {
            path: path.to_path_buf(),
        });
    }
    let mut layout = textlayout::text_layout(&doc.text, false, &doc.headings);
    layout.extractor = Some(super::xml::EXTRACTOR.to_string());
    Ok(LoadedDoc {
        key: String::new(),
        title: doc.title.unwrap_or_else(|| file_stem(path)),
        text: doc.text,
        kind: SourceKind::Xml,
        layout,
    })
}

/// What a file that is not a regular file is, in words.
fn special_kind(ft: fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if ft.is_dir() {
        "directory"
    } else if ft.is_char_device() {
        "character device"
    } else if ft.is_block_device() {
        "block device"
    } else if ft.is_fifo() {
        "FIFO (named pipe)"
    } else if ft.is_socket() {
        "socket"
    } else {
        "special file"
    }
}

/// Open `path` for reading only when it is a regular file (following symlinks). Devices,
/// FIFOs and sockets could block, never end or act on being opened, so they are refused
/// from their metadata; the open itself does not block (a FIFO swapped in meanwhile) and
/// the open file is checked again.
pub fn open_regular(path: &Path) -> Result<(fs::File, fs::Metadata), LoadError> {
    use std::os::unix::fs::OpenOptionsExt;
    let io_err = |source: io::Error| LoadError::Io {
        path: path.to_path_buf(),
        source,
    };
    let not_regular = |meta: &fs::Metadata| LoadError::NotRegular {
        path: path.to_path_buf(),
        kind: special_kind(meta.file_type()),
    };
    let meta = fs::metadata(path).map_err(io_err)?;
    if !meta.is_file() {
        return Err(not_regular(&meta));
    }
    let flags = rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOCTTY;
    let file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(flags.bits() as i32)
        .open(path)
        .map_err(io_err)?;
    let meta = file.metadata().map_err(io_err)?;
    if !meta.is_file() {
        return Err(not_regular(&meta));
    }
    Ok((file, meta))
}

/// Hex sha256 of the bytes of the regular file at `path`, read as a stream.
pub fn file_sha256(path: &Path) -> Result<String, LoadError> {
    let (mut file, _) = open_regular(path)?;
    let mut hasher = Sha256::new();
    io::copy(&mut file, &mut hasher).map_err(|source| LoadError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(hex::encode(hasher.finalize()))
}

/// Open a regular file, size-check it, then read it (never more than `limit + 1` bytes).
fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>, LoadError> {
    let io_err = |source: io::Error| LoadError::Io {
        path: path.to_path_buf(),
        source,
    };
    let (file, meta) = open_regular(path)?;
    if meta.len() > limit {
        return Err(LoadError::TooLarge {
            path: path.to_path_buf(),
            size: meta.len(),
            limit,
        });
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(io_err)?;
    if bytes.len() as u64 > limit {
        // The file grew between stat and read.
        return Err(LoadError::TooLarge {
            path: path.to_path_buf(),
            size: bytes.len() as u64,
            limit,
        });
    }
    Ok(bytes)
}

/// Reject binary data and invalid UTF-8; otherwise return the bytes as a `String` unchanged.
fn decode_text(path: &Path, bytes: Vec<u8>) -> Result<String, LoadError> {
    let sniff = &bytes[..bytes.len().min(BINARY_SNIFF_BYTES)];
    if sniff.contains(&0) {
        return Err(LoadError::Binary {
            path: path.to_path_buf(),
        });
    }
    String::from_utf8(bytes).map_err(|e| LoadError::InvalidUtf8 {
        path: path.to_path_buf(),
        byte_offset: e.utf8_error().valid_up_to(),
    })
}

/// Whitespace-only (a lone BOM counts as whitespace here).
fn is_blank(text: &str) -> bool {
    text.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}')
        .is_empty()
}

/// File name without its extension, as the fallback title.
fn file_stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// Collapse all whitespace runs to single spaces and trim.
fn collapse_ws(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Text of the first level-1 ATX heading (`# Title`), ignoring fenced code blocks.
fn markdown_title(text: &str) -> Option<String> {
    let mut fence: Option<(char, usize)> = None;
    for raw in text.trim_start_matches('\u{feff}').lines() {
        let indent = raw.len() - raw.trim_start_matches(' ').len();
        let line = raw.trim_start_matches(' ').trim_end();
        if indent <= 3 {
            let fence_char = line.chars().next().filter(|c| *c == '`' || *c == '~');
            if let Some(c) = fence_char {
                let run = line.chars().take_while(|x| *x == c).count();
                if run >= 3 {
                    match fence {
                        None => fence = Some((c, run)),
                        Some((open, len)) if open == c && run >= len => fence = None,
                        Some(_) => {}
                    }
                    continue;
                }
            }
        }
        if fence.is_some() || indent > 3 {
            continue;
        }
        let Some(rest) = line.strip_prefix('#') else {
            continue;
        };
        if !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
            continue; // `##...` or `#tag`
        }
        // Drop an optional closing sequence of `#`s preceded by whitespace.
        let mut title = rest.trim();
        let stripped = title.trim_end_matches('#');
        if stripped.is_empty() || stripped.ends_with([' ', '\t']) {
            title = stripped.trim_end();
        }
        if !title.is_empty() {
            return Some(title.to_string());
        }
    }
    None
}

/// Deepest element nesting accepted in HTML (browsers stop nesting at 512 too): the
/// HTML parser's scope checks cost time proportional to the depth for every tag. The
/// depth is the one the HTML5 tree builder would build (see `load/html.rs`).
pub const MAX_HTML_DEPTH: usize = 512;

/// First index at or after `from` where `needle` starts.
fn find(hay: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    hay.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| from + p)
}

/// Extract a DOCX file's text and layout ([`docx::docx_text`]) within the text budget;
/// inflation stops at the inflate budget.
fn load_docx(path: &Path, bytes: &[u8], opts: &LoadOptions) -> Result<LoadedDoc, LoadError> {
    let limits = docx::DocxLimits {
        max_entry_bytes: opts.max_inflated_bytes,
        max_total_bytes: opts.max_inflated_bytes,
        max_text_bytes: opts.max_text_bytes,
        ..docx::DocxLimits::default()
    };
    let found = docx::docx_text(bytes, &limits).map_err(|e| match e {
        docx::DocxError::Empty => LoadError::Empty {
            path: path.to_path_buf(),
        },
        other => LoadError::Docx {
            path: path.to_path_buf(),
            reason: other.to_string(),
        },
    })?;
    Ok(LoadedDoc {
        key: String::new(),
        title: found.title.unwrap_or_else(|| file_stem(path)),
        text: found.text,
        kind: SourceKind::Docx,
        layout: found.layout,
    })
}

// ---------------------------------------------------------------------------
// BEIR jsonl
// ---------------------------------------------------------------------------

/// Parse a BEIR corpus file: one `{"_id", "title"?, "text"}` object per non-blank line.
fn load_jsonl(path: &Path, text: &str, deadline: Deadline) -> Result<Vec<LoadedDoc>, LoadError> {
    let json_err = |line: usize, reason: String| LoadError::Json {
        path: path.to_path_buf(),
        line,
        reason,
    };
    let mut docs = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (idx, raw) in text.split('\n').enumerate() {
        if idx % 1024 == 0 {
            deadline.check(path)?;
        }
        let line_no = idx + 1;
        let line = if idx == 0 {
            raw.trim_start_matches('\u{feff}')
        } else {
            raw
        };
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let value: serde_json::Value = serde_json::from_str(line)
            .map_err(|e| json_err(line_no, format!("not valid JSON ({e})")))?;
        let obj = value
            .as_object()
            .ok_or_else(|| json_err(line_no, "not a JSON object".to_string()))?;
        let field = |name: &str, required: bool| -> Result<String, LoadError> {
            match obj.get(name) {
                Some(serde_json::Value::String(s)) => Ok(s.clone()),
                None | Some(serde_json::Value::Null) if !required => Ok(String::new()),
                None => Err(json_err(line_no, format!("missing `{name}` field"))),
                Some(_) => Err(json_err(line_no, format!("`{name}` is not a string"))),
            }
        };
        let id = field("_id", true)?;
        let body = field("text", true)?;
        let title = field("title", false)?;
        if id.is_empty() {
            return Err(json_err(line_no, "empty `_id`".to_string()));
        }
        if let Some(first) = seen.get(&id) {
            return Err(json_err(
                line_no,
                format!("duplicate `_id` {id:?} (first on line {first})"),
            ));
        }
        let (title, body) = (title.trim(), body.trim());
        let stored = match (title.is_empty(), body.is_empty()) {
            (true, true) => return Err(json_err(line_no, format!("empty document {id:?}"))),
            (true, false) => body.to_string(),
            (false, true) => title.to_string(),
            (false, false) => format!("{title}\n\n{body}"),
        };
        seen.insert(id.clone(), line_no);
        docs.push(LoadedDoc {
            title: if title.is_empty() {
                id.clone()
            } else {
                title.to_string()
            },
            key: id,
            text: stored,
            kind: SourceKind::Jsonl,
            layout: Layout::default(),
        });
    }
    if docs.is_empty() {
        return Err(LoadError::Empty {
            path: path.to_path_buf(),
        });
    }
    Ok(docs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn opts() -> LoadOptions {
        LoadOptions::default()
    }

    fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).unwrap();
        }
        fs::write(&path, bytes).unwrap();
        path
    }

    fn load_one(path: &Path) -> LoadedDoc {
        let mut docs = load_file(path, &opts()).unwrap();
        assert_eq!(docs.len(), 1);
        docs.pop().unwrap()
    }

    /// A hand-assembled one-page PDF (Helvetica, one text object) with a correct xref.
    fn minimal_pdf(text: &str, title: &str) -> Vec<u8> {
        let content = format!("BT\n/F1 24 Tf\n72 712 Td\n({text}) Tj\nET\n");
        let objects = [
            "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] \
             /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>"
                .to_string(),
            format!(
                "<< /Length {} >>\nstream\n{content}endstream",
                content.len()
            ),
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_string(),
            format!("<< /Title ({title}) >>"),
        ];
        let mut pdf = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n".to_vec();
        let mut offsets = Vec::new();
        for (i, body) in objects.iter().enumerate() {
            offsets.push(pdf.len());
            write!(pdf, "{} 0 obj\n{body}\nendobj\n", i + 1).unwrap();
        }
        let xref_at = pdf.len();
        write!(pdf, "xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).unwrap();
        for off in offsets {
            writeln!(pdf, "{off:010} 00000 n ").unwrap();
        }
        write!(
            pdf,
            "trailer\n<< /Size {} /Root 1 0 R /Info 6 0 R >>\nstartxref\n{xref_at}\n%%EOF\n",
            objects.len() + 1
        )
        .unwrap();
        pdf
    }

    /// Replace the one occurrence of `from` by the same-length `to` (keeps xref offsets valid).
    fn swap_bytes(bytes: &[u8], from: &str, to: &str) -> Vec<u8> {
        assert_eq!(from.len(), to.len());
        let at = bytes
            .windows(from.len())
            .position(|w| w == from.as_bytes())
            .expect("pattern present");
        let mut out = bytes.to_vec();
        out[at..at + to.len()].copy_from_slice(to.as_bytes());
        out
    }

    #[test]
    fn markdown_keeps_exact_bytes_including_crlf_and_bom() {
        let dir = tempfile::tempdir().unwrap();
        let bytes = "\u{feff}# Café notes\r\n\r\nFirst line.  \r\nSecond\tline.\r\n";
        let path = write(dir.path(), "notes.md", bytes.as_bytes());
        let doc = load_one(&path);
        assert_eq!(doc.text.as_bytes(), bytes.as_bytes());
        assert_eq!(doc.title, "Café notes");
        assert_eq!(doc.key, "");
        assert_eq!(doc.kind, SourceKind::Markdown);
    }

    #[test]
    fn markdown_title_skips_code_fences_and_falls_back_to_stem() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            dir.path(),
            "guide.markdown",
            b"Intro\n\n```sh\n# not a title\n```\n\n## Sub\n\n# Real Title ##\n",
        );
        assert_eq!(load_one(&path).title, "Real Title");
        let path = write(dir.path(), "plain.md", b"no heading here\n#hashtag\n");
        assert_eq!(load_one(&path).title, "plain");
    }

    #[test]
    fn markdown_links_and_references_are_stored_rendered_text_files_verbatim() {
        let dir = tempfile::tempdir().unwrap();
        let md = b"# The [Act](https://x.org/act)\n\nSee paragraph &#40;c)(1) of [this section](s.md).\n";
        let doc = load_one(&write(dir.path(), "act.md", md));
        assert_eq!(
            doc.text,
            "# The Act\n\nSee paragraph (c)(1) of this section.\n"
        );
        assert_eq!(doc.title, "The Act");
        let txt = b"See paragraph &#40;c)(1) of [this](s.md).\n";
        let doc = load_one(&write(dir.path(), "act.txt", txt));
        assert_eq!(doc.text.as_bytes(), txt);
    }

    #[test]
    fn text_file_loads_verbatim_with_stem_title() {
        let dir = tempfile::tempdir().unwrap();
        let bytes = b"  leading spaces\nand trailing newline\n\n";
        let path = write(dir.path(), "Readme.TXT", bytes);
        let doc = load_one(&path);
        assert_eq!(doc.text.as_bytes(), bytes);
        assert_eq!(doc.title, "Readme");
        assert_eq!(doc.kind, SourceKind::Text);
    }

    #[test]
    fn html_drops_scripts_and_styles_keeps_structure_and_decodes_entities() {
        let dir = tempfile::tempdir().unwrap();
        let html = r#"<!DOCTYPE html><html><head><title> My   Page </title>
            <style>body { color: red }</style><script>var x = "<p>no</p>";</script></head>
            <body><noscript>enable js</noscript>
            <h1>Main &amp; Heading</h1><p>First   paragraph
            with <b>bold</b> text &lt;tag&gt; &eacute;t&eacute;.</p>
            <div>Second<br>line</div>
            <ul><li>one</li><li>two <i>items</i></li></ul>
            <template><p>hidden template</p></template><svg><text>svg text</text></svg>
            <table><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>
            <pre>code  keeps
  spacing</pre><p hidden>secret</p></body></html>"#;
        let path = write(dir.path(), "page.html", html.as_bytes());
        let doc = load_one(&path);
        assert_eq!(doc.title, "My Page");
        assert_eq!(doc.kind, SourceKind::Html);
        let expected = "Main & Heading\n\n\
            First paragraph with bold text <tag> été.\n\n\
            Second\nline\n\n\
            - one\n- two items\n\n\
            a | b\nc | d\n\n\
            code  keeps\n  spacing";
        assert_eq!(doc.text, expected);
    }

    #[test]
    fn html_superscripts_and_subscripts_never_fuse_with_the_text_before() {
        let dir = tempfile::tempdir().unwrap();
        let html = "<html><body><h2>E = mc<sup>2</sup></h2>\
            <p>Models trained with 10<sup>25</sup> operations.</p>\
            <p>The President<sup><a href=\"#fn2\">2</a></sup> signed on the 5<sup>th</sup>.</p>\
            <p>Emissions of CO<sub>2</sub> fell.</p><p>x<sup> </sup>y</p></body></html>";
        let path = write(dir.path(), "page.html", html.as_bytes());
        let doc = load_one(&path);
        let expected = "E = mc^2\n\n\
            Models trained with 10^25 operations.\n\n\
            The President^2 signed on the 5th.\n\n\
            Emissions of CO_2 fell.\n\nx y";
        assert_eq!(doc.text, expected);
        assert!(!doc.text.contains("1025"));
        assert_eq!(doc.layout.headings.len(), 1, "{:?}", doc.layout.headings);
    }

    #[test]
    fn html_title_falls_back_to_h1_then_stem() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            dir.path(),
            "a.htm",
            b"<body><p>intro</p><h1>The <em>H1</em></h1></body>",
        );
        let doc = load_one(&path);
        assert_eq!(doc.title, "The H1");
        assert_eq!(doc.text, "intro\n\nThe H1");
        let path = write(dir.path(), "b.htm", b"<p>just text</p>");
        assert_eq!(load_one(&path).title, "b");
    }

    #[test]
    fn html_without_readable_text_is_empty() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            dir.path(),
            "s.html",
            b"<html><head><title>T</title></head><body><script>x()</script> </body></html>",
        );
        let err = load_file(&path, &opts()).unwrap_err();
        assert!(matches!(err, LoadError::Empty { .. }), "{err}");
    }

    #[test]
    fn jsonl_loads_multiple_docs_with_titles() {
        let dir = tempfile::tempdir().unwrap();
        let body = concat!(
            r#"{"_id": "d1", "title": "First", "text": "  Alpha text. ", "metadata": {}}"#,
            "\n\n",
            r#"{"_id": "d2", "title": "", "text": "Beta text."}"#,
            "\r\n",
            r#"{"_id": "d3", "text": "Gamma."}"#,
            "\n"
        );
        let path = write(dir.path(), "corpus.jsonl", body.as_bytes());
        let docs = load_file(&path, &opts()).unwrap();
        assert_eq!(docs.len(), 3);
        assert_eq!(docs[0].key, "d1");
        assert_eq!(docs[0].title, "First");
        assert_eq!(docs[0].text, "First\n\nAlpha text.");
        assert_eq!(docs[1].title, "d2");
        assert_eq!(docs[1].text, "Beta text.");
        assert_eq!(docs[2].key, "d3");
        assert!(docs.iter().all(|d| d.kind == SourceKind::Jsonl));
    }

    #[test]
    fn jsonl_non_json_line_names_line_number() {
        let dir = tempfile::tempdir().unwrap();
        let body =
            "{\"_id\":\"a\",\"text\":\"ok\"}\n\nnot json at all\n{\"_id\":\"b\",\"text\":\"x\"}\n";
        let path = write(dir.path(), "bad.jsonl", body.as_bytes());
        let err = load_file(&path, &opts()).unwrap_err();
        match &err {
            LoadError::Json { line, .. } => assert_eq!(*line, 3),
            other => panic!("unexpected {other}"),
        }
        assert!(err
            .to_string()
            .contains("bad.jsonl: line 3: not valid JSON"));
    }

    #[test]
    fn jsonl_missing_id_is_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "noid.jsonl", b"{\"text\":\"hello\"}\n");
        let err = load_file(&path, &opts()).unwrap_err();
        assert!(matches!(err, LoadError::Json { line: 1, .. }), "{err}");
        assert!(err.reason().contains("missing `_id`"), "{err}");
    }

    #[test]
    fn jsonl_duplicate_id_and_empty_document_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            dir.path(),
            "dup.jsonl",
            b"{\"_id\":\"a\",\"text\":\"x\"}\n{\"_id\":\"a\",\"text\":\"y\"}\n",
        );
        let err = load_file(&path, &opts()).unwrap_err();
        assert!(matches!(err, LoadError::Json { line: 2, .. }), "{err}");
        assert!(err.reason().contains("duplicate"), "{err}");
        let path = write(
            dir.path(),
            "empty_doc.jsonl",
            b"{\"_id\":\"a\",\"title\":\" \",\"text\":\"\"}\n",
        );
        let err = load_file(&path, &opts()).unwrap_err();
        assert!(matches!(err, LoadError::Json { line: 1, .. }), "{err}");
        assert!(err.reason().contains("empty document"), "{err}");
    }

    #[test]
    fn empty_file_is_empty_error() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["e.md", "e.txt", "e.html", "e.jsonl"] {
            let path = write(dir.path(), name, b"");
            let err = load_file(&path, &opts()).unwrap_err();
            assert!(matches!(err, LoadError::Empty { .. }), "{name}: {err}");
        }
    }

    #[test]
    fn whitespace_only_file_is_empty_error() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["w.md", "w.txt", "w.jsonl"] {
            let path = write(dir.path(), name, "\u{feff} \r\n\t\n  \n".as_bytes());
            let err = load_file(&path, &opts()).unwrap_err();
            assert!(matches!(err, LoadError::Empty { .. }), "{name}: {err}");
            assert!(err.to_string().ends_with(": empty document (no text)"));
        }
    }

    #[test]
    fn binary_file_with_nul_bytes_is_rejected() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            dir.path(),
            "blob.txt",
            b"looks like text\0\x01\x02 but is not",
        );
        let err = load_file(&path, &opts()).unwrap_err();
        assert!(matches!(err, LoadError::Binary { .. }), "{err}");
    }

    #[test]
    fn invalid_utf8_reports_first_bad_byte_offset() {
        let dir = tempfile::tempdir().unwrap();
        // "héllo " is 7 bytes (é = 2), then a lone continuation byte.
        let mut bytes = "héllo ".as_bytes().to_vec();
        bytes.push(0x80);
        bytes.extend_from_slice(b"world");
        let path = write(dir.path(), "latin.md", &bytes);
        let err = load_file(&path, &opts()).unwrap_err();
        match err {
            LoadError::InvalidUtf8 { byte_offset, .. } => assert_eq!(byte_offset, 7),
            other => panic!("unexpected {other}"),
        }
    }

    #[test]
    fn too_large_file_is_rejected_before_reading() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "big.txt", &[b'a'; 100]);
        let small = LoadOptions {
            max_file_bytes: 99,
            ..LoadOptions::default()
        };
        let err = load_file(&path, &small).unwrap_err();
        match &err {
            LoadError::TooLarge { size, limit, .. } => assert_eq!((*size, *limit), (100, 99)),
            other => panic!("unexpected {other}"),
        }
        let exact = LoadOptions {
            max_file_bytes: 100,
            ..LoadOptions::default()
        };
        assert!(load_file(&path, &exact).is_ok());
    }

    #[test]
    fn missing_path_is_io_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nope.md");
        let err = load_file(&path, &opts()).unwrap_err();
        match &err {
            LoadError::Io { source, .. } => assert_eq!(source.kind(), io::ErrorKind::NotFound),
            other => panic!("unexpected {other}"),
        }
        assert_eq!(err.path(), path);
        assert!(err.to_string().starts_with(&path.display().to_string()));
    }

    #[test]
    fn directory_path_is_io_error() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("folder.md");
        fs::create_dir(&sub).unwrap();
        let err = load_file(&sub, &opts()).unwrap_err();
        assert!(matches!(err, LoadError::NotRegular { .. }), "{err}");
        assert_eq!(err.reason(), "not a regular file: directory");
    }

    #[test]
    fn unreadable_file_is_io_error() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "secret.md", b"# hidden\n");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o000)).unwrap();
        if fs::File::open(&path).is_ok() {
            // Running as root (or with CAP_DAC_OVERRIDE): permissions do not apply.
            eprintln!("skipping unreadable-file assertion: file is still readable");
            return;
        }
        let err = load_file(&path, &opts()).unwrap_err();
        match &err {
            LoadError::Io { source, .. } => {
                assert_eq!(source.kind(), io::ErrorKind::PermissionDenied)
            }
            other => panic!("unexpected {other}"),
        }
    }

    #[test]
    fn pdf_valid_minimal_extracts_text_and_title() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            dir.path(),
            "hello.pdf",
            &minimal_pdf("Hello PDF World", "Greeting Doc"),
        );
        let doc = load_one(&path);
        assert_eq!(doc.text, "Hello PDF World");
        assert_eq!(doc.title, "Greeting Doc");
        assert_eq!(doc.kind, SourceKind::Pdf);
    }

    #[test]
    fn pdf_truncated_at_half_is_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let bytes = minimal_pdf("Hello PDF World", "T");
        let path = write(dir.path(), "cut.pdf", &bytes[..bytes.len() / 2]);
        let err = load_file(&path, &opts()).unwrap_err();
        assert!(matches!(err, LoadError::Pdf { .. }), "{err}");
        assert!(err.to_string().contains("cut.pdf: truncated PDF"), "{err}");
    }

    #[test]
    fn pdf_broken_body_with_markers_is_error_not_panic() {
        let dir = tempfile::tempdir().unwrap();
        // Header and %%EOF present, so the extractor itself has to cope.
        let mut bytes = minimal_pdf("Hello", "T");
        let half = bytes.len() / 2;
        bytes.truncate(half);
        bytes.extend_from_slice(b"\n%%EOF\n");
        let cut = write(dir.path(), "cut_eof.pdf", &bytes);
        let bare = write(dir.path(), "bare.pdf", b"%PDF-1.5\n%%EOF\n");
        for path in [cut, bare] {
            let err = load_file(&path, &opts()).unwrap_err();
            assert!(matches!(err, LoadError::Pdf { .. }), "{err}");
            assert!(
                err.reason().starts_with("truncated or corrupt PDF ("),
                "{err}"
            );
        }
    }

    #[test]
    fn pdf_extractor_panic_becomes_pdf_error() {
        let dir = tempfile::tempdir().unwrap();
        // Same length, so the xref stays valid: the font now points at a missing object,
        // on which pdf-extract 0.12 panics instead of returning an error.
        let bytes = swap_bytes(&minimal_pdf("Hello", "T"), "/F1 5 0 R", "/F1 9 0 R");
        let path = write(dir.path(), "dangling.pdf", &bytes);
        let opts = LoadOptions {
            pdf_extractor: PdfExtractor::PdfExtract,
            ..opts()
        };
        let err = load_file(&path, &opts).unwrap_err();
        assert!(matches!(err, LoadError::Pdf { .. }), "{err}");
        assert!(err.reason().contains("extractor panicked"), "{err}");
    }

    #[test]
    fn pdf_without_text_or_pages_is_error() {
        let dir = tempfile::tempdir().unwrap();
        let bytes = minimal_pdf("Hello", "T");
        // A page whose content stream draws no text.
        let blank = swap_bytes(&bytes, "(Hello) Tj", "()      Tj");
        let path = write(dir.path(), "blank.pdf", &blank);
        let extract = LoadOptions {
            pdf_extractor: PdfExtractor::PdfExtract,
            ..opts()
        };
        for o in [&opts(), &extract] {
            let err = load_file(&path, o).unwrap_err();
            assert!(
                err.reason().contains("no extractable text on page 1"),
                "{err}"
            );
        }
        // No /Root: pdf-extract silently finds zero pages.
        let rootless = swap_bytes(&bytes, "/Root 1 0 R", "           ");
        let path = write(dir.path(), "rootless.pdf", &rootless);
        let err = load_file(&path, &extract).unwrap_err();
        assert!(err.reason().contains("no pages found"), "{err}");
        assert!(matches!(
            load_file(&path, &opts()),
            Err(LoadError::Pdf { .. })
        ));
    }

    #[test]
    fn pdf_garbage_bytes_are_not_a_pdf() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            dir.path(),
            "junk.pdf",
            b"\x89PNG\r\n\x1a\n definitely not a pdf \xff\xfe",
        );
        let err = load_file(&path, &opts()).unwrap_err();
        assert!(matches!(err, LoadError::Pdf { .. }), "{err}");
        assert!(err.reason().contains("missing %PDF- header"), "{err}");
    }

    #[test]
    fn html_too_deep_and_text_over_budget_are_budget_errors() {
        let dir = tempfile::tempdir().unwrap();
        let body = "<div>".repeat(MAX_HTML_DEPTH + 1);
        let path = write(dir.path(), "deep.html", body.as_bytes());
        let err = load_file(&path, &opts()).unwrap_err();
        assert!(
            matches!(
                err,
                LoadError::OverBudget {
                    budget: Budget::HtmlDepth { .. },
                    ..
                }
            ),
            "{err}"
        );
        let path = write(dir.path(), "t.md", b"# T\n\nSome text here.\n");
        let small = LoadOptions {
            max_text_bytes: 5,
            ..LoadOptions::default()
        };
        let err = load_file(&path, &small).unwrap_err();
        assert_eq!(
            err.reason(),
            "extracted text is over the 5-byte budget (max_text_bytes)"
        );
    }

    #[test]
    fn explicit_unsupported_file_is_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "slides.PPTX", b"PK\x03\x04");
        let err = load_file(&path, &opts()).unwrap_err();
        assert!(
            matches!(&err, LoadError::Unsupported { ext, .. } if ext == "pptx"),
            "{err}"
        );
        let (files, errors) = walk(std::slice::from_ref(&path));
        assert!(files.is_empty());
        assert_eq!(errors.len(), 1);
        assert!(matches!(errors[0], LoadError::Unsupported { .. }));
    }

    #[test]
    fn is_supported_is_case_insensitive() {
        for name in [
            "a.md",
            "a.MARKDOWN",
            "a.Txt",
            "a.HTML",
            "a.htm",
            "a.pdf",
            "a.JSONL",
            "scan.PNG",
            "scan.tiff",
        ] {
            assert!(is_supported(Path::new(name)), "{name}");
        }
        for name in ["a.doc", "a", "md", "a.md.bak"] {
            assert!(!is_supported(Path::new(name)), "{name}");
        }
    }

    #[test]
    fn walk_skips_hidden_ignored_and_unsupported_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, ".gitignore", b"ignored.md\nbuild/\n");
        write(root, "keep.md", b"x");
        write(root, "ignored.md", b"x");
        write(root, "build/out.txt", b"x");
        write(root, ".hidden.md", b"x");
        write(root, ".secret/inner.md", b"x");
        write(root, "image.gif", b"x");
        write(root, "sub/.ignore", b"*.txt\n");
        write(root, "sub/a.txt", b"x");
        write(root, "sub/b.html", b"x");
        let (files, errors) = walk(&[root.to_path_buf()]);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(files, vec![root.join("keep.md"), root.join("sub/b.html")]);
    }

    #[test]
    fn walk_reports_devices_and_fifos_under_the_path_found_without_opening_them() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, "keep.md", b"x");
        std::os::unix::fs::symlink("/dev/zero", root.join("zero.txt")).unwrap();
        std::os::unix::fs::symlink("/dev/null", root.join("null")).unwrap();
        let fifo = root.join("pipe.md");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo");
        let (files, errors) = walk(&[root.to_path_buf()]);
        assert_eq!(files, vec![root.join("keep.md")]);
        let found: Vec<(PathBuf, String)> = errors
            .iter()
            .map(|e| (e.path().to_path_buf(), e.reason()))
            .collect();
        let expected = [
            ("null", "not a regular file: character device"),
            ("pipe.md", "not a regular file: FIFO (named pipe)"),
            ("zero.txt", "not a regular file: character device"),
        ];
        let expected: Vec<(PathBuf, String)> = expected
            .iter()
            .map(|(n, r)| (root.join(n), r.to_string()))
            .collect();
        assert_eq!(found, expected);
        // Named explicitly, or loaded after a swap: refused, never opened (a FIFO would block).
        let (_, errors) = walk(std::slice::from_ref(&fifo));
        assert!(matches!(errors[..], [LoadError::NotRegular { .. }]));
        let err = load_file(&fifo, &opts()).unwrap_err();
        assert_eq!(err.reason(), "not a regular file: FIFO (named pipe)");
        assert!(file_sha256(&fifo).is_err());
    }

    #[test]
    fn walk_reports_symlink_loop_without_hanging() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, "sub/doc.md", b"x");
        std::os::unix::fs::symlink(root, root.join("sub/up")).unwrap();
        let (files, errors) = walk(&[root.to_path_buf()]);
        assert_eq!(files, vec![root.join("sub/doc.md")]);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(matches!(errors[0], LoadError::Walk { .. }), "{}", errors[0]);
        assert_eq!(errors[0].path(), root.join("sub/up"));
        assert!(errors[0].reason().contains("symlink loop"), "{}", errors[0]);
    }

    #[test]
    fn walk_output_is_sorted_and_deduplicated_across_roots() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for name in ["z.md", "a.txt", "m/b.pdf", "m/a.jsonl", "B.html"] {
            write(root, name, b"x");
        }
        let missing = root.join("missing");
        let (files, errors) = walk(&[
            root.join("z.md"),
            root.to_path_buf(),
            missing.clone(),
            root.join("m"),
        ]);
        let expected: Vec<PathBuf> = ["B.html", "a.txt", "m/a.jsonl", "m/b.pdf", "z.md"]
            .iter()
            .map(|n| root.join(n))
            .collect();
        assert_eq!(files, expected);
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].path(), missing);
    }
}
