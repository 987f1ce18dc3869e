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
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Once};
use std::thread;
use std::time::Duration;

/// File extensions (lower-case, without the dot) that [`load_file`] understands.
const SUPPORTED_EXTENSIONS: &[&str] = &["md", "markdown", "txt", "html", "htm", "pdf", "jsonl"];

/// How many leading bytes of a text file are scanned for NUL bytes.
const BINARY_SNIFF_BYTES: usize = 8 * 1024;

/// Name of the worker thread that runs PDF extraction (the panic hook keys on it).
const PDF_THREAD_NAME: &str = "attest-pdf-extract";

/// Stack size of the PDF worker thread: the extractor recurses on nested objects.
const PDF_STACK_BYTES: usize = 64 * 1024 * 1024;

/// How far from the start the `%PDF-` header may be, and from the end `%%EOF`.
const PDF_MARKER_WINDOW: usize = 1024;

/// Limits and options for loading.
#[derive(Debug, Clone)]
pub struct LoadOptions {
    /// Files larger than this many bytes are rejected with [`LoadError::TooLarge`] without being read.
    pub max_file_bytes: u64,
    /// Wall-clock limit for extracting the text of one PDF.
    pub pdf_timeout: Duration,
}

impl Default for LoadOptions {
    /// 50 MiB per file, 30 seconds per PDF.
    fn default() -> Self {
        Self {
            max_file_bytes: 50 * 1024 * 1024,
            pdf_timeout: Duration::from_secs(30),
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
    /// `.pdf`, text extracted with `pdf-extract`.
    Pdf,
    /// `.jsonl` in BEIR corpus format, one document per line.
    Jsonl,
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
    /// PDF text extraction did not finish within [`LoadOptions::pdf_timeout`].
    PdfTimeout {
        /// The PDF file.
        path: PathBuf,
        /// The timeout that expired, in seconds.
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
            | LoadError::Empty { path }
            | LoadError::Binary { path }
            | LoadError::InvalidUtf8 { path, .. }
            | LoadError::TooLarge { path, .. }
            | LoadError::Unsupported { path, .. }
            | LoadError::Pdf { path, .. }
            | LoadError::PdfTimeout { path, .. }
            | LoadError::Json { path, .. }
            | LoadError::Walk { path, .. } => path,
        }
    }

    /// The human-readable message without the leading path.
    pub fn reason(&self) -> String {
        match self {
            LoadError::Io { source, .. } => format!("cannot read: {source}"),
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
            LoadError::Pdf { reason, .. } => reason.clone(),
            LoadError::PdfTimeout { secs, .. } => {
                format!("PDF text extraction timed out after {secs} s")
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

/// Load one file into one or more documents (several only for jsonl).
///
/// The size is checked from metadata before anything is read. Text formats
/// must be UTF-8 without NUL bytes near the start; md/txt text is kept
/// byte-for-byte. See [`LoadError`] for the failure cases.
pub fn load_file(path: &Path, opts: &LoadOptions) -> Result<Vec<LoadedDoc>, LoadError> {
    let ext = extension(path);
    let kind = match ext.as_str() {
        "md" | "markdown" => SourceKind::Markdown,
        "txt" => SourceKind::Text,
        "html" | "htm" => SourceKind::Html,
        "pdf" => SourceKind::Pdf,
        "jsonl" => SourceKind::Jsonl,
        _ => {
            return Err(LoadError::Unsupported {
                path: path.to_path_buf(),
                ext,
            })
        }
    };
    let bytes = read_limited(path, opts.max_file_bytes)?;
    if kind == SourceKind::Pdf {
        return load_pdf(path, bytes, opts.pdf_timeout).map(|d| vec![d]);
    }
    let text = decode_text(path, bytes)?;
    match kind {
        SourceKind::Markdown | SourceKind::Text => {
            if is_blank(&text) {
                return Err(LoadError::Empty {
                    path: path.to_path_buf(),
                });
            }
            let title = if kind == SourceKind::Markdown {
                markdown_title(&text)
            } else {
                None
            };
            Ok(vec![LoadedDoc {
                key: String::new(),
                title: title.unwrap_or_else(|| file_stem(path)),
                text,
                kind,
            }])
        }
        SourceKind::Html => {
            let (title, body) = html_to_text(&text);
            if is_blank(&body) {
                return Err(LoadError::Empty {
                    path: path.to_path_buf(),
                });
            }
            Ok(vec![LoadedDoc {
                key: String::new(),
                title: title.unwrap_or_else(|| file_stem(path)),
                text: body,
                kind,
            }])
        }
        SourceKind::Jsonl => load_jsonl(path, &text),
        SourceKind::Pdf => unreachable!("handled above"),
    }
}

/// Stat, size-check, then read a regular file (never more than `limit + 1` bytes).
fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>, LoadError> {
    let io_err = |source: io::Error| LoadError::Io {
        path: path.to_path_buf(),
        source,
    };
    let meta = fs::metadata(path).map_err(io_err)?;
    if meta.is_dir() {
        return Err(io_err(io::Error::new(
            io::ErrorKind::IsADirectory,
            "is a directory",
        )));
    }
    if !meta.is_file() {
        // FIFOs, sockets and devices could block or never end.
        return Err(io_err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file",
        )));
    }
    if meta.len() > limit {
        return Err(LoadError::TooLarge {
            path: path.to_path_buf(),
            size: meta.len(),
            limit,
        });
    }
    let file = fs::File::open(path).map_err(io_err)?;
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

// ---------------------------------------------------------------------------
// HTML
// ---------------------------------------------------------------------------

/// Elements whose whole subtree is not readable text.
const HTML_DROPPED: &[&str] = &[
    "head", "script", "style", "noscript", "template", "svg", "math", "iframe", "object", "embed",
    "canvas", "title",
];

/// How many line breaks an element forces around itself (0 = inline).
fn html_block_breaks(name: &str, list_depth: usize) -> u8 {
    match name {
        "p" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "blockquote" | "pre" | "table" | "dl"
        | "section" | "article" | "header" | "footer" | "nav" | "main" | "aside" | "figure"
        | "hr" | "address" | "details" | "form" | "fieldset" | "menu" | "body" => 2,
        // Top-level lists stand apart; nested lists continue their parent item.
        "ul" | "ol" => {
            if list_depth == 0 {
                2
            } else {
                1
            }
        }
        "div" | "li" | "tr" | "dt" | "dd" | "caption" | "figcaption" | "summary" | "legend"
        | "option" | "thead" | "tbody" | "tfoot" => 1,
        _ => 0,
    }
}

/// What goes between the previous piece of inline text and the next one.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sep {
    None,
    Space,
    Cell,
}

/// Accumulates readable text while walking the DOM.
struct HtmlText {
    out: String,
    /// Newlines owed before the next text (0..=2).
    breaks: u8,
    sep: Sep,
    /// List-item marker owed before the next text.
    prefix: Option<String>,
    pre_depth: usize,
    list_depth: usize,
}

impl HtmlText {
    fn new() -> Self {
        Self {
            out: String::new(),
            breaks: 0,
            sep: Sep::None,
            prefix: None,
            pre_depth: 0,
            list_depth: 0,
        }
    }

    fn block(&mut self, n: u8) {
        if n > 0 {
            self.breaks = self.breaks.max(n);
            self.sep = Sep::None;
        }
    }

    fn at_line_start(&self) -> bool {
        self.out.is_empty() || self.out.ends_with('\n')
    }

    /// Emit owed breaks, marker or separator before new content.
    fn flush(&mut self) {
        if self.breaks > 0 {
            if !self.out.is_empty() {
                for _ in 0..self.breaks {
                    self.out.push('\n');
                }
            }
            self.breaks = 0;
            self.sep = Sep::None;
        }
        if let Some(p) = self.prefix.take() {
            self.out.push_str(&p);
            self.sep = Sep::None;
        }
        match std::mem::replace(&mut self.sep, Sep::None) {
            Sep::None => {}
            Sep::Space => {
                if !self.at_line_start() {
                    self.out.push(' ');
                }
            }
            Sep::Cell => {
                if !self.at_line_start() {
                    self.out.push_str(" | ");
                }
            }
        }
    }

    fn text(&mut self, s: &str) {
        if s.is_empty() {
            return;
        }
        if self.pre_depth > 0 {
            self.flush();
            self.out.push_str(s);
            return;
        }
        if s.starts_with(char::is_whitespace) && self.sep == Sep::None {
            self.sep = Sep::Space;
        }
        let mut words = s.split_whitespace().peekable();
        while let Some(word) = words.next() {
            self.flush();
            self.out.push_str(word);
            if words.peek().is_some() {
                self.sep = Sep::Space;
            }
        }
        if s.ends_with(char::is_whitespace) && self.sep == Sep::None {
            self.sep = Sep::Space;
        }
    }

    fn open(&mut self, name: &str) {
        match name {
            "br" => {
                if self.pre_depth > 0 {
                    self.out.push('\n');
                } else {
                    self.breaks = (self.breaks + 1).min(2);
                    self.sep = Sep::None;
                }
                return;
            }
            "td" | "th" => {
                if self.breaks == 0 && !self.at_line_start() {
                    self.sep = Sep::Cell;
                }
                return;
            }
            _ => {}
        }
        self.block(html_block_breaks(name, self.list_depth));
        match name {
            "pre" => self.pre_depth += 1,
            "ul" | "ol" => self.list_depth += 1,
            "li" => {
                let indent = "  ".repeat(self.list_depth.saturating_sub(1));
                self.prefix = Some(format!("{indent}- "));
            }
            _ => {}
        }
    }

    fn close(&mut self, name: &str) {
        match name {
            "pre" => self.pre_depth = self.pre_depth.saturating_sub(1),
            "ul" | "ol" => self.list_depth = self.list_depth.saturating_sub(1),
            // An item without text leaves no dangling marker.
            "li" => self.prefix = None,
            _ => {}
        }
        self.block(html_block_breaks(name, self.list_depth));
    }

    /// Trim line ends, keep at most one blank line in a row, trim the whole.
    fn finish(self) -> String {
        let mut result = String::with_capacity(self.out.len());
        let mut blank_run = 0usize;
        for line in self.out.lines() {
            let line = line.trim_end();
            if line.is_empty() {
                blank_run += 1;
                if blank_run > 1 || result.is_empty() {
                    continue;
                }
            } else {
                blank_run = 0;
            }
            result.push_str(line);
            result.push('\n');
        }
        result.trim_end().to_string()
    }
}

/// Collapse all whitespace runs to single spaces and trim.
fn collapse_ws(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Convert an HTML document to `(title, readable text)`.
fn html_to_text(source: &str) -> (Option<String>, String) {
    let doc = scraper::Html::parse_document(source);
    let title = ["title", "h1"].iter().find_map(|sel| {
        let selector = scraper::Selector::parse(sel).expect("static selector");
        doc.select(&selector)
            .map(|el| collapse_ws(&el.text().collect::<String>()))
            .find(|t| !t.is_empty())
    });

    // Iterative pre-order walk (deeply nested markup must not overflow the stack).
    let mut w = HtmlText::new();
    let root = doc.tree.root();
    let mut node = root;
    'walk: loop {
        let mut descend = true;
        match node.value() {
            scraper::Node::Text(t) => w.text(t),
            scraper::Node::Element(el) => {
                if HTML_DROPPED.contains(&el.name()) || el.attr("hidden").is_some() {
                    descend = false;
                } else {
                    w.open(el.name());
                }
            }
            scraper::Node::Document | scraper::Node::Fragment => {}
            _ => descend = false, // comments, doctype, processing instructions
        }
        if descend {
            if let Some(child) = node.first_child() {
                node = child;
                continue;
            }
        }
        // Close `node` (if it was opened) and climb until a sibling exists.
        loop {
            if let scraper::Node::Element(el) = node.value() {
                if descend {
                    w.close(el.name());
                }
            }
            descend = true; // ancestors were all opened
            if node.id() == root.id() {
                break 'walk;
            }
            if let Some(next) = node.next_sibling() {
                node = next;
                break;
            }
            match node.parent() {
                Some(parent) => node = parent,
                None => break 'walk,
            }
        }
    }
    (title, w.finish())
}

// ---------------------------------------------------------------------------
// PDF
// ---------------------------------------------------------------------------

/// Why an isolated job did not return a value.
#[derive(Debug)]
enum WorkerError {
    /// The job returned an error.
    Failed(String),
    /// The job panicked (message).
    Panicked(String),
    /// No result within the timeout; the thread was abandoned.
    TimedOut,
    /// The worker thread could not be started.
    Spawn(io::Error),
}

/// Route panics of the PDF worker thread to `tracing` instead of stderr;
/// every other thread keeps the previously installed hook.
fn install_quiet_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if thread::current().name() == Some(PDF_THREAD_NAME) {
                tracing::debug!("PDF extractor panicked: {info}");
            } else {
                previous(info);
            }
        }));
    });
}

/// Best-effort text of a panic payload.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".to_string()
    }
}

/// Run `job` on a fresh big-stack thread, catching panics, and wait at most `timeout`.
fn run_isolated<T, F>(job: F, timeout: Duration) -> Result<T, WorkerError>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, String> + Send + 'static,
{
    install_quiet_panic_hook();
    let (tx, rx) = mpsc::sync_channel(1);
    thread::Builder::new()
        .name(PDF_THREAD_NAME.to_string())
        .stack_size(PDF_STACK_BYTES)
        .spawn(move || {
            let result = panic::catch_unwind(AssertUnwindSafe(job));
            // The receiver is gone if we timed out; nothing to do then.
            let _ = tx.send(result);
        })
        .map_err(WorkerError::Spawn)?;
    match rx.recv_timeout(timeout) {
        Ok(Ok(Ok(value))) => Ok(value),
        Ok(Ok(Err(msg))) => Err(WorkerError::Failed(msg)),
        Ok(Err(payload)) => Err(WorkerError::Panicked(panic_message(payload.as_ref()))),
        Err(mpsc::RecvTimeoutError::Timeout) => Err(WorkerError::TimedOut),
        Err(mpsc::RecvTimeoutError::Disconnected) => Err(WorkerError::Panicked(
            "worker thread ended without a result".to_string(),
        )),
    }
}

/// Cheap structural checks before handing bytes to the extractor.
fn pdf_sanity_check(bytes: &[u8]) -> Result<(), String> {
    let head = &bytes[..bytes.len().min(PDF_MARKER_WINDOW)];
    if !head.windows(5).any(|w| w == b"%PDF-") {
        return Err("not a PDF (missing %PDF- header)".to_string());
    }
    let tail = &bytes[bytes.len().saturating_sub(PDF_MARKER_WINDOW)..];
    if !tail.windows(5).any(|w| w == b"%%EOF") {
        return Err("truncated PDF (no %%EOF marker)".to_string());
    }
    Ok(())
}

/// Form feeds become blank lines, trailing spaces go, 3+ newlines become 2, trim.
fn normalize_pdf_text(raw: &str) -> String {
    let raw = raw.replace("\r\n", "\n").replace('\x0c', "\n\n");
    let mut out = String::with_capacity(raw.len());
    let mut newlines = 0usize;
    for line in raw.split('\n') {
        let line = line.trim_end();
        if line.is_empty() {
            newlines += 1;
            continue;
        }
        if !out.is_empty() {
            out.push_str(if newlines >= 2 { "\n\n" } else { "\n" });
        }
        out.push_str(line);
        newlines = 1;
    }
    out.trim().to_string()
}

/// Extract a PDF's text (and metadata title) in an isolated, time-limited worker.
fn load_pdf(path: &Path, bytes: Vec<u8>, timeout: Duration) -> Result<LoadedDoc, LoadError> {
    let pdf_err = |reason: String| LoadError::Pdf {
        path: path.to_path_buf(),
        reason,
    };
    pdf_sanity_check(&bytes).map_err(pdf_err)?;
    let job = move || {
        let raw = pdf_extract::extract_text_from_mem(&bytes).map_err(|e| e.to_string())?;
        let text = normalize_pdf_text(&raw);
        // Tell "no pages at all" (broken structure) from "pages without text".
        let pages = if text.is_empty() {
            pdf_extract::Document::load_mem(&bytes)
                .map(|d| d.get_pages().len())
                .unwrap_or(0)
        } else {
            0
        };
        let title = pdf_extract::Document::load_metadata_mem(&bytes)
            .ok()
            .and_then(|m| m.title)
            .map(|t| collapse_ws(&t))
            .filter(|t| !t.is_empty());
        Ok((text, title, pages))
    };
    let (text, title, pages) = match run_isolated(job, timeout) {
        Ok(v) => v,
        Err(WorkerError::Failed(msg)) => {
            return Err(pdf_err(format!("truncated or corrupt PDF ({msg})")))
        }
        Err(WorkerError::Panicked(msg)) => {
            return Err(pdf_err(format!(
                "corrupt or unsupported PDF (extractor panicked: {msg})"
            )))
        }
        Err(WorkerError::TimedOut) => {
            tracing::warn!(
                "PDF extraction of {} abandoned after {:?}; its thread keeps running",
                path.display(),
                timeout
            );
            return Err(LoadError::PdfTimeout {
                path: path.to_path_buf(),
                secs: timeout.as_secs_f64(),
            });
        }
        Err(WorkerError::Spawn(e)) => {
            return Err(pdf_err(format!("could not start extraction thread ({e})")))
        }
    };
    if text.is_empty() {
        return Err(pdf_err(if pages == 0 {
            "corrupt PDF (no pages found)".to_string()
        } else {
            format!("no extractable text in {pages} page(s) (scanned image?)")
        }));
    }
    Ok(LoadedDoc {
        key: String::new(),
        title: title.unwrap_or_else(|| file_stem(path)),
        text,
        kind: SourceKind::Pdf,
    })
}

// ---------------------------------------------------------------------------
// BEIR jsonl
// ---------------------------------------------------------------------------

/// Parse a BEIR corpus file: one `{"_id", "title"?, "text"}` object per non-blank line.
fn load_jsonl(path: &Path, text: &str) -> Result<Vec<LoadedDoc>, LoadError> {
    let json_err = |line: usize, reason: String| LoadError::Json {
        path: path.to_path_buf(),
        line,
        reason,
    };
    let mut docs = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (idx, raw) in text.split('\n').enumerate() {
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
        });
    }
    if docs.is_empty() {
        return Err(LoadError::Empty {
            path: path.to_path_buf(),
        });
    }
    Ok(docs)
}

// ---------------------------------------------------------------------------
// Walking
// ---------------------------------------------------------------------------

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
            if is_supported(root) {
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
                    let is_file = entry.file_type().is_some_and(|t| t.is_file());
                    if is_file && is_supported(entry.path()) {
                        files.push(entry.into_path());
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
    fn html_nested_lists_are_indented() {
        let (_, text) = html_to_text(
            "<p>Intro</p><ol><li>a<ul><li>b</li></ul></li><li><p>c</p></li><li></li></ol>tail",
        );
        // A <p> inside an item keeps paragraph spacing (a "loose" list item).
        assert_eq!(text, "Intro\n\n- a\n  - b\n\n- c\n\ntail");
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
        assert!(matches!(err, LoadError::Io { .. }), "{err}");
        assert!(err.reason().contains("directory"), "{err}");
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
        let err = load_file(&path, &opts()).unwrap_err();
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
        let err = load_file(&path, &opts()).unwrap_err();
        assert!(
            err.reason().contains("no extractable text in 1 page"),
            "{err}"
        );
        // No /Root: the extractor silently finds zero pages.
        let rootless = swap_bytes(&bytes, "/Root 1 0 R", "           ");
        let path = write(dir.path(), "rootless.pdf", &rootless);
        let err = load_file(&path, &opts()).unwrap_err();
        assert!(err.reason().contains("no pages found"), "{err}");
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
    fn pdf_text_normalization() {
        let raw = "\n\nPage one  \nline two\t\n\n\n\n\x0cPage two\r\n\n";
        assert_eq!(normalize_pdf_text(raw), "Page one\nline two\n\nPage two");
    }

    #[test]
    fn isolated_worker_times_out_and_catches_panics() {
        let slow = run_isolated(
            || {
                thread::sleep(Duration::from_secs(5));
                Ok(())
            },
            Duration::from_millis(50),
        );
        assert!(matches!(slow, Err(WorkerError::TimedOut)), "{slow:?}");
        let boom = run_isolated::<(), _>(|| panic!("kaboom"), Duration::from_secs(5));
        match boom {
            Err(WorkerError::Panicked(msg)) => assert_eq!(msg, "kaboom"),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn explicit_unsupported_file_is_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "report.DOCX", b"PK\x03\x04");
        let err = load_file(&path, &opts()).unwrap_err();
        assert!(
            matches!(&err, LoadError::Unsupported { ext, .. } if ext == "docx"),
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
        write(root, "image.png", b"x");
        write(root, "sub/.ignore", b"*.txt\n");
        write(root, "sub/a.txt", b"x");
        write(root, "sub/b.html", b"x");
        let (files, errors) = walk(&[root.to_path_buf()]);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(files, vec![root.join("keep.md"), root.join("sub/b.html")]);
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
