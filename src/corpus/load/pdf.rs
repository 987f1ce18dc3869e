//! PDF loading: structural checks and the inflate budget before any parser sees the
//! bytes, text by `pdftotext` or by `pdf-extract` in an isolated worker (a thread, or a
//! time- and memory-limited subprocess of the `attest` binary), then assembly into stored
//! text and layout.

use std::io::{self, Read};
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Once, OnceLock};
use std::thread;
use std::time::Duration;

use super::{
    collapse_ws, file_stem, find, form, read_limited, scan, Budget, Deadline, LoadError,
    LoadOptions, LoadedDoc, SourceKind,
};
use crate::corpus::layout::Shortfall;
use crate::corpus::ocr::OcrMode;
use crate::corpus::pdflayout;
use crate::corpus::pdftext::{self, PdfExtractor, PopplerFail, PopplerLimits};
use crate::corpus::{firstpage, glue};

/// Name of the worker thread that runs PDF extraction (the panic hook keys on it).
const PDF_THREAD_NAME: &str = "attest-pdf-extract";

/// Stack size of the PDF worker thread: the extractor recurses on nested objects.
const PDF_STACK_BYTES: usize = 64 * 1024 * 1024;

/// How far from the start the `%PDF-` header may be, and from the end `%%EOF`.
const PDF_MARKER_WINDOW: usize = 1024;

/// Why an isolated job did not return a value.
#[derive(Debug)]
pub(super) enum WorkerError {
    /// The job panicked (message).
    Panicked(String),
    /// No result within the timeout; the thread was abandoned or the process killed.
    TimedOut,
    /// The worker process ran out of its address space.
    OutOfMemory,
    /// The worker thread or process could not be started.
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

/// Run `job` on a fresh big-stack thread, catching panics, and wait at most `timeout`.
pub(super) fn run_isolated<T, F>(job: F, timeout: Duration) -> Result<T, WorkerError>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
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
        Ok(Ok(value)) => Ok(value),
        Ok(Err(payload)) => Err(WorkerError::Panicked(crate::caught::panic_message(
            payload.as_ref(),
        ))),
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

/// Budgets the PDF extraction job enforces itself.
#[derive(Debug, Clone, Copy)]
struct PdfLimits {
    inflated: u64,
    text: u64,
}

/// What the extraction job found.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct PdfText {
    /// The text of each page.
    pages: Vec<String>,
    title: Option<String>,
    /// The authors page 1 prints (read with `pdftotext` only).
    #[serde(default)]
    authors: Vec<String>,
}

/// Why the extraction job found nothing.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub(super) enum PdfFail {
    /// The extractor returned an error.
    Corrupt(String),
    /// The extractor panicked (message).
    Panicked(String),
    /// A budget was exceeded.
    Over(Budget),
}

/// Whether the Flate streams of `bytes` inflate to more than `limit` bytes in total.
///
/// Every `stream` keyword of the raw file is found; a stream whose dictionary (the bytes
/// since the preceding `obj`) names a Flate filter and is not an image is inflated into
/// a counter, as zlib or, failing that, raw deflate (as the extractor does). Memory stays
/// constant; work stops at `limit` inflated bytes.
fn inflates_beyond(bytes: &[u8], limit: u64) -> bool {
    const DICT_WINDOW: usize = 64 * 1024;
    let mut total = 0u64;
    let mut from = 0;
    while let Some(at) = find(bytes, from, b"stream") {
        from = at + 6;
        if bytes[..at].ends_with(b"end") {
            continue;
        }
        let data = match &bytes[from..] {
            [b'\r', b'\n', ..] => from + 2,
            [b'\n' | b'\r', ..] => from + 1,
            _ => continue,
        };
        let window = &bytes[at.saturating_sub(DICT_WINDOW)..at];
        let dict = match window.windows(3).rposition(|w| w == b"obj") {
            Some(p) => &window[p..],
            None => window,
        };
        let flate = dict.windows(3).any(|w| w == b"/Fl");
        let image = dict.windows(6).any(|w| w == b"/Image");
        if !flate || image {
            continue;
        }
        let left = limit.saturating_sub(total).saturating_add(1);
        let mut zlib = flate2::read::ZlibDecoder::new(&bytes[data..]).take(left);
        let n = match io::copy(&mut zlib, &mut io::sink()) {
            Ok(n) => n,
            Err(_) => {
                let mut raw = flate2::read::DeflateDecoder::new(&bytes[data..]).take(left);
                io::copy(&mut raw, &mut io::sink()).unwrap_or(0)
            }
        };
        total = total.saturating_add(n);
        if total > limit {
            return true;
        }
    }
    false
}

/// The `pdf-extract` job: inflate budget, the text of each page, title.
fn extract_pdf(bytes: &[u8], limits: PdfLimits) -> Result<PdfText, PdfFail> {
    if inflates_beyond(bytes, limits.inflated) {
        return Err(PdfFail::Over(Budget::Inflated {
            limit: limits.inflated,
        }));
    }
    let pages = pdf_extract::extract_text_from_mem_by_pages(bytes)
        .map_err(|e| PdfFail::Corrupt(e.to_string()))?;
    let total: usize = pages.iter().map(String::len).sum();
    if total as u64 > limits.text.saturating_mul(4) {
        return Err(PdfFail::Over(Budget::Text { limit: limits.text }));
    }
    let title = pdf_extract::Document::load_metadata_mem(bytes)
        .ok()
        .and_then(|m| m.title)
        .map(|t| collapse_ws(&t))
        .filter(|t| !t.is_empty());
    Ok(PdfText {
        pages,
        title,
        authors: Vec::new(),
    })
}

/// The hidden first argument that turns the `attest` binary into a PDF worker process.
pub const PDF_WORKER_ARG: &str = "__attest-pdf-worker";

/// The executable that serves as PDF worker, once [`pdf_worker_entry`] registered one.
pub(super) static WORKER_EXE: OnceLock<PathBuf> = OnceLock::new();

/// Call first thing in `main`. With [`PDF_WORKER_ARG`] as the first argument the process
/// is a PDF worker: it extracts one PDF, prints the result as JSON and returns
/// `Some(exit code)`. Otherwise it registers the running executable as the worker and
/// returns `None`: from then on each PDF is extracted in a subprocess whose address space
/// is limited to [`LoadOptions::pdf_memory_bytes`] and which is killed at its time limit.
/// Without this call (library use, unit tests) extraction runs on an in-process thread.
pub fn pdf_worker_entry() -> Option<i32> {
    let mut args = std::env::args_os().skip(1);
    if args.next().as_deref() != Some(std::ffi::OsStr::new(PDF_WORKER_ARG)) {
        if let Ok(exe) = std::env::current_exe() {
            let _ = WORKER_EXE.set(exe);
        }
        return None;
    }
    let rest: Vec<String> = args.map(|a| a.to_string_lossy().into_owned()).collect();
    Some(worker_main(&rest))
}

/// What a worker process does with its PDF.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum WorkerJob {
    /// Extract the text of every page with `pdf-extract` ([`PdfText`]).
    Text,
    /// Read the fillable form's fields ([`form::read`]).
    Form,
}

impl WorkerJob {
    fn as_arg(self) -> &'static str {
        match self {
            WorkerJob::Text => "text",
            WorkerJob::Form => "form",
        }
    }
}

/// The worker process: `PATH MAX_FILE_BYTES MAX_INFLATED MAX_TEXT MEMORY_BYTES [JOB]`.
fn worker_main(args: &[String]) -> i32 {
    let [path, numbers @ ..] = args else {
        eprintln!(
            "usage: attest {PDF_WORKER_ARG} PATH MAX_FILE MAX_INFLATED MAX_TEXT MEMORY [JOB]"
        );
        return 2;
    };
    let job = match numbers.get(4).map(String::as_str) {
        None | Some("text") => WorkerJob::Text,
        Some("form") => WorkerJob::Form,
        Some(other) => {
            eprintln!("attest {PDF_WORKER_ARG}: unknown job {other:?}");
            return 2;
        }
    };
    let numbers: Vec<u64> = numbers
        .iter()
        .take(4)
        .filter_map(|n| n.parse().ok())
        .collect();
    let [max_file, inflated, text, memory] = numbers[..] else {
        eprintln!("attest {PDF_WORKER_ARG}: expected four numbers");
        return 2;
    };
    limit_address_space(memory);
    let bytes = read_limited(Path::new(path), max_file).map_err(|e| PdfFail::Corrupt(e.reason()));
    let mut out = io::stdout().lock();
    let written = match job {
        WorkerJob::Text => {
            let limits = PdfLimits { inflated, text };
            let reply = bytes.and_then(|b| in_thread(move || extract_pdf(&b, limits)));
            serde_json::to_writer(&mut out, &reply)
        }
        WorkerJob::Form => {
            let reply = bytes.and_then(|b| in_thread(move || form::read_bytes(&b)));
            serde_json::to_writer(&mut out, &reply)
        }
    };
    match written {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("attest {PDF_WORKER_ARG}: {e}");
            2
        }
    }
}

/// Run a worker job on a thread of this (already limited) process, panics caught.
fn in_thread<T: Send + 'static>(
    job: impl FnOnce() -> Result<T, PdfFail> + Send + 'static,
) -> Result<T, PdfFail> {
    match run_isolated(job, Duration::MAX) {
        Ok(r) => r,
        Err(WorkerError::Panicked(m)) => Err(PdfFail::Panicked(m)),
        Err(e) => Err(PdfFail::Corrupt(format!("{e:?}"))),
    }
}

/// Cap this process's address space (best effort; unsupported platforms keep none).
fn limit_address_space(bytes: u64) {
    #[cfg(unix)]
    {
        use rustix::process::{setrlimit, Resource, Rlimit};
        let limit = Rlimit {
            current: Some(bytes),
            maximum: Some(bytes),
        };
        if let Err(e) = setrlimit(Resource::As, limit) {
            eprintln!("attest {PDF_WORKER_ARG}: cannot limit memory: {e}");
        }
    }
}

/// Read at most `cap` bytes from `r` into memory and discard the rest; `None` when
/// there was more.
fn read_capped(mut r: impl Read, cap: u64) -> Option<Vec<u8>> {
    let mut buf = Vec::new();
    let _ = (&mut r).take(cap).read_to_end(&mut buf);
    let rest = io::copy(&mut r, &mut io::sink()).unwrap_or(0);
    (rest == 0).then_some(buf)
}

/// Run `job` on one PDF in a worker process (see [`pdf_worker_entry`]), killing it at
/// `timeout`.
pub(super) fn run_worker_process<T: serde::de::DeserializeOwned>(
    exe: &Path,
    path: &Path,
    opts: &LoadOptions,
    timeout: Duration,
    job: WorkerJob,
) -> Result<Result<T, PdfFail>, WorkerError> {
    let mut child = std::process::Command::new(exe)
        .arg(PDF_WORKER_ARG)
        .arg(path)
        .args(
            [
                opts.max_file_bytes,
                opts.max_inflated_bytes,
                opts.max_text_bytes,
                opts.pdf_memory_bytes,
            ]
            .map(|n| n.to_string()),
        )
        .arg(job.as_arg())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(WorkerError::Spawn)?;
    // JSON escapes at most 6 bytes per text byte.
    let out_cap = opts
        .max_text_bytes
        .saturating_mul(6)
        .saturating_add(1 << 20);
    let stdout = child
        .stdout
        .take()
        .map(|o| thread::spawn(move || read_capped(o, out_cap)));
    let stderr = child
        .stderr
        .take()
        .map(|e| thread::spawn(move || read_capped(e, 1 << 16)));
    let deadline = Deadline::after(timeout);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if deadline.expired() => break None,
            Ok(None) => thread::sleep(Duration::from_millis(5)),
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(WorkerError::Spawn(e));
            }
        }
    };
    if status.is_none() {
        let _ = child.kill();
        let _ = child.wait();
    }
    let out = stdout.and_then(|h| h.join().ok()).flatten();
    let err = stderr
        .and_then(|h| h.join().ok())
        .flatten()
        .unwrap_or_default();
    let status = status.ok_or(WorkerError::TimedOut)?;
    let err = String::from_utf8_lossy(&err);
    if err.contains("memory allocation of") {
        return Err(WorkerError::OutOfMemory);
    }
    if !status.success() {
        let last = err.lines().last().unwrap_or("no message");
        return Err(WorkerError::Panicked(format!("worker {status}: {last}")));
    }
    let Some(out) = out else {
        return Ok(Err(PdfFail::Over(Budget::Text {
            limit: opts.max_text_bytes,
        })));
    };
    serde_json::from_slice(&out)
        .map_err(|e| WorkerError::Panicked(format!("unreadable worker reply ({e})")))
}

/// Extract a PDF's text page by page with the configured extractor (see [`pdftext`]),
/// then assemble clean stored text and its layout ([`pdflayout::assemble`]).
pub(super) fn load_pdf(
    path: &Path,
    bytes: Vec<u8>,
    opts: &LoadOptions,
    deadline: Deadline,
) -> Result<LoadedDoc, LoadError> {
    pdf_sanity_check(&bytes).map_err(|reason| pdf_error(path, reason))?;
    // Before any parser sees it (the form reader expands object streams too).
    if inflates_beyond(&bytes, opts.max_inflated_bytes) {
        return Err(LoadError::OverBudget {
            path: path.to_path_buf(),
            budget: Budget::Inflated {
                limit: opts.max_inflated_bytes,
            },
        });
    }
    let poppler = match opts.pdf_extractor {
        PdfExtractor::Auto => pdftext::poppler().is_some(),
        PdfExtractor::Pdftotext => true,
        PdfExtractor::PdfExtract => false,
    };
    // Each stage gets what is left of the file's time, so three stages never take three
    // times the file's limit.
    let form = form::read(
        path,
        &bytes,
        opts,
        opts.pdf_timeout.min(deadline.remaining()),
    );
    deadline.check(path)?;
    let timeout = opts.pdf_timeout.min(deadline.remaining());
    let (mut found, extractor) = if poppler {
        let version = pdftext::poppler().map_or("not installed", |(_, v)| v.as_str());
        let name = format!("pdftotext {version} -layout");
        (poppler_pages(path, &bytes, opts, timeout)?, name)
    } else {
        let name = format!("pdf-extract {}", PDF_EXTRACT_VERSION);
        (pdf_extract_pages(path, bytes, opts, timeout)?, name)
    };
    deadline.check(path)?;
    let read = scan::read_blank_pages(path, &mut found.pages, opts, deadline)?;
    let (text, mut layout) = pdflayout::assemble_with_fields(&found.pages, &form.pages);
    let form_note = form.note.map(|n| format!("; {n}")).unwrap_or_default();
    layout.extractor = Some(format!(
        "{extractor} + attest-layout {}{form_note}",
        pdflayout::LAYOUT_VERSION
    ));
    scan::record(&text, &mut layout, &read);
    layout.shortfall = shortfall(&found.pages, &text, &layout.pages);
    layout.authors = std::mem::take(&mut found.authors);
    if text.len() as u64 > opts.max_text_bytes {
        return Err(LoadError::OverBudget {
            path: path.to_path_buf(),
            budget: Budget::Text {
                limit: opts.max_text_bytes,
            },
        });
    }
    if text.trim().is_empty() {
        return Err(pdf_error(path, no_text_reason(found.pages.len(), opts)));
    }
    Ok(LoadedDoc {
        key: String::new(),
        title: found.title.unwrap_or_else(|| file_stem(path)),
        text,
        kind: SourceKind::Pdf,
        layout,
    })
}

/// Least letters and digits a page's text layer holds for a loss on it to be reported.
const SHORTFALL_MIN_HELD: usize = 200;

/// The pages whose stored text keeps fewer than half the letters and digits the extractor
/// read from them (`starts`: where each page starts in `text`).
fn shortfall(pages: &[String], text: &str, starts: &[usize]) -> Vec<Shortfall> {
    let count = |s: &str| s.chars().filter(|c| c.is_alphanumeric()).count();
    pages
        .iter()
        .enumerate()
        .filter_map(|(i, raw)| {
            let held = count(raw);
            let from = *starts.get(i)?;
            let to = starts.get(i + 1).copied().unwrap_or(text.len());
            let kept = count(text.get(from..to)?);
            (held >= SHORTFALL_MIN_HELD && kept * 2 < held).then_some(Shortfall {
                page: i + 1,
                kept,
                held,
            })
        })
        .collect()
}

/// The `pdf-extract` version in `Cargo.lock` (recorded with each document's extractor).
const PDF_EXTRACT_VERSION: &str = "0.12.1";

fn pdf_error(path: &Path, reason: String) -> LoadError {
    LoadError::Pdf {
        path: path.to_path_buf(),
        reason,
    }
}

/// Why a PDF with `pages` pages gave no text.
fn no_text_reason(pages: usize, opts: &LoadOptions) -> String {
    let why = if scan::available(opts) {
        "OCR found no words either"
    } else if opts.ocr == OcrMode::Off {
        "a scanned image without a text layer? OCR is off"
    } else {
        "a scanned image without a text layer? install tesseract-ocr to read it by OCR"
    };
    match pages {
        0 => "corrupt PDF (no pages found)".to_string(),
        1 => format!("no extractable text on page 1 ({why})"),
        n => format!("no extractable text on pages 1-{n} ({why})"),
    }
}

/// The pages of a PDF from `pdftotext`, after the inflate budget check.
fn poppler_pages(
    path: &Path,
    bytes: &[u8],
    opts: &LoadOptions,
    timeout: Duration,
) -> Result<PdfText, LoadError> {
    let over = |budget: Budget| LoadError::OverBudget {
        path: path.to_path_buf(),
        budget,
    };
    if inflates_beyond(bytes, opts.max_inflated_bytes) {
        return Err(over(Budget::Inflated {
            limit: opts.max_inflated_bytes,
        }));
    }
    let limits = PopplerLimits {
        timeout,
        memory_bytes: opts.pdf_memory_bytes,
        // -layout pads columns with spaces: allow for it before assembly shrinks them.
        output_bytes: opts.max_text_bytes.saturating_mul(8),
    };
    let pages = pdftext::pages(path, limits).map_err(|fail| match fail {
        PopplerFail::Encrypted => pdf_error(
            path,
            "encrypted PDF (a password is needed to read its text)".into(),
        ),
        PopplerFail::Corrupt(msg) => pdf_error(path, format!("truncated or corrupt PDF ({msg})")),
        PopplerFail::TimedOut => LoadError::PdfTimeout {
            path: path.to_path_buf(),
            secs: timeout.as_secs_f64(),
        },
        PopplerFail::TooMuchText => over(Budget::Text {
            limit: opts.max_text_bytes,
        }),
        PopplerFail::OutOfMemory => over(Budget::Memory {
            limit: opts.pdf_memory_bytes,
        }),
        PopplerFail::Spawn(msg) => pdf_error(path, format!("could not run pdftotext ({msg})")),
    })?;
    let stem = file_stem(path);
    let title = pdftext::title(path, limits).filter(|t| !firstpage::says_nothing(t, &stem));
    let title = title.map(|t| firstpage::venue_cut(t, pages.first().map_or("", String::as_str)));
    let (pages, printed) = rejoin_pieces(path, pages, title.as_deref(), limits);
    let page_one = pages.first().map_or("", String::as_str);
    let title = firstpage::choose_title(title, printed.title, page_one);
    Ok(PdfText {
        pages,
        title,
        authors: printed.authors,
    })
}

/// `pages` with the pieces of words the extractor split at a change of font (small
/// capitals) written as one word again, as the word boxes show them touching, and the
/// title and authors page 1 prints ([`firstpage::read`]). Without word boxes (an extractor failure)
/// the pages are kept as they are.
fn rejoin_pieces(
    path: &Path,
    pages: Vec<String>,
    known: Option<&str>,
    limits: PopplerLimits,
) -> (Vec<String>, firstpage::FirstPage) {
    let Ok(boxes) = pdftext::word_boxes(path, 1, pages.len().max(1), limits) else {
        return (pages, firstpage::FirstPage::default());
    };
    let words = crate::corpus::forms::parse_bbox(&boxes);
    let printed = words
        .first()
        .map(|(h, w)| firstpage::read(*h, w, known))
        .unwrap_or_default();
    let pages = pages
        .into_iter()
        .enumerate()
        .map(|(i, page)| match words.get(i) {
            Some((_, w)) => glue::rejoin(&page, &glue::glued(w)),
            None => page,
        })
        .collect();
    (pages, printed)
}

/// The pages of a PDF from `pdf-extract`, in an isolated, time- and memory-limited
/// worker: a subprocess when one is registered ([`pdf_worker_entry`]), else a thread.
fn pdf_extract_pages(
    path: &Path,
    bytes: Vec<u8>,
    opts: &LoadOptions,
    timeout: Duration,
) -> Result<PdfText, LoadError> {
    if is_encrypted(&bytes) {
        return Err(pdf_error(
            path,
            "encrypted PDF (a password is needed to read its text)".into(),
        ));
    }
    let limits = PdfLimits {
        inflated: opts.max_inflated_bytes,
        text: opts.max_text_bytes,
    };
    let outcome = match WORKER_EXE.get() {
        Some(exe) => run_worker_process(exe, path, opts, timeout, WorkerJob::Text),
        None => run_isolated(move || extract_pdf(&bytes, limits), timeout),
    };
    let over = |budget: Budget| LoadError::OverBudget {
        path: path.to_path_buf(),
        budget,
    };
    match outcome {
        Ok(Ok(found)) => Ok(found),
        Ok(Err(PdfFail::Corrupt(msg))) => {
            Err(pdf_error(path, format!("truncated or corrupt PDF ({msg})")))
        }
        Ok(Err(PdfFail::Panicked(msg))) | Err(WorkerError::Panicked(msg)) => Err(pdf_error(
            path,
            format!("corrupt or unsupported PDF (extractor panicked: {msg})"),
        )),
        Ok(Err(PdfFail::Over(budget))) => Err(over(budget)),
        Err(WorkerError::OutOfMemory) => Err(over(Budget::Memory {
            limit: opts.pdf_memory_bytes,
        })),
        Err(WorkerError::TimedOut) => Err(LoadError::PdfTimeout {
            path: path.to_path_buf(),
            secs: timeout.as_secs_f64(),
        }),
        Err(WorkerError::Spawn(e)) => Err(pdf_error(
            path,
            format!("could not start extraction worker ({e})"),
        )),
    }
}

/// Whether the PDF's trailer names an `/Encrypt` dictionary.
fn is_encrypted(bytes: &[u8]) -> bool {
    let tail = &bytes[bytes.len().saturating_sub(64 * 1024)..];
    find(tail, 0, b"/Encrypt").is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn isolated_worker_times_out_and_catches_panics() {
        let slow = run_isolated(
            || thread::sleep(Duration::from_secs(5)),
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
    fn inflate_budget_counts_flate_streams_but_not_images() {
        use std::io::Write;
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        z.write_all(&[b' '; 10_000]).unwrap();
        let data = z.finish().unwrap();
        let stream = |dict: &str| {
            let mut v = format!("4 0 obj\n<< {dict} >>\nstream\n").into_bytes();
            v.extend_from_slice(&data);
            v.extend_from_slice(b"\nendstream\nendobj\n");
            v
        };
        let flate = stream("/Filter /FlateDecode");
        assert!(inflates_beyond(&flate, 9_999));
        assert!(!inflates_beyond(&flate, 10_000));
        assert!(!inflates_beyond(
            &stream("/Subtype /Image /Filter /FlateDecode"),
            10
        ));
        assert!(!inflates_beyond(&stream("/Length 5"), 10));
    }
}
