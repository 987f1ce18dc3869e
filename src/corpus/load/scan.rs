//! Scanned sources: image-only PDF pages and image files, read by OCR ([`super::ocr`]).
//!
//! A PDF page whose text layer holds fewer than [`ocr::MIN_TEXT_CHARS`] characters is
//! rendered and read; its OCR text replaces the empty page before assembly. An image file
//! is read page by page (a multi-page TIFF has several). Either way the layout records
//! which pages OCR read, with every word's confidence ([`OcrText`]), and the extractor
//! says `tesseract …`. A page OCR cannot read (time or memory limit, unreadable image) is
//! an error naming the file and the page: a document is never stored with a page missing.

use std::path::Path;

use rayon::prelude::*;

use super::{Budget, Deadline, LoadError, LoadOptions, LoadedDoc, SourceKind};
use crate::corpus::layout::{Layout, OcrText};
use crate::corpus::ocr::{self, OcrMode, OcrPage};
use crate::corpus::pdflayout;
use crate::corpus::pdftext::PopplerFail;

/// Image file extensions read by OCR.
pub const IMAGE_EXTENSIONS: &[&str] = &["png", "jpg", "jpeg", "tif", "tiff"];

/// Whether OCR can run: enabled and Tesseract installed.
pub fn available(opts: &LoadOptions) -> bool {
    opts.ocr == OcrMode::Auto && ocr::tesseract().is_some()
}

/// Whether a page's text layer is too thin to be the page's text.
fn is_blank_page(text: &str) -> bool {
    text.chars().filter(|c| !c.is_whitespace()).count() < ocr::MIN_TEXT_CHARS
}

/// The error for page `page` of `path` that OCR could not read.
fn ocr_error(path: &Path, page: Option<usize>, fail: PopplerFail, opts: &LoadOptions) -> LoadError {
    let at = page.map(|p| format!("page {p}: ")).unwrap_or_default();
    let reason = match fail {
        PopplerFail::TimedOut => "ran past its time limit".to_string(),
        PopplerFail::TooMuchText => "printed more text than a page holds".to_string(),
        PopplerFail::OutOfMemory => {
            return LoadError::OverBudget {
                path: path.to_path_buf(),
                budget: Budget::Memory {
                    limit: opts.pdf_memory_bytes,
                },
            }
        }
        PopplerFail::Encrypted => "the file is encrypted".to_string(),
        PopplerFail::Corrupt(msg) | PopplerFail::Spawn(msg) => msg,
    };
    LoadError::Ocr {
        path: path.to_path_buf(),
        reason: format!("{at}OCR failed ({reason})"),
    }
}

/// Read the blank pages of a PDF by OCR, in place: returns the pages read (1-based) with
/// their words. Nothing is read when OCR is off or Tesseract is not installed.
pub fn read_blank_pages(
    path: &Path,
    pages: &mut [String],
    opts: &LoadOptions,
    deadline: Deadline,
) -> Result<Vec<(usize, OcrPage)>, LoadError> {
    if !available(opts) || crate::corpus::pdftext::poppler().is_none() {
        return Ok(Vec::new());
    }
    let blank: Vec<usize> = (0..pages.len())
        .filter(|&i| is_blank_page(&pages[i]))
        .collect();
    let read: Vec<Result<(usize, OcrPage), LoadError>> = blank
        .par_iter()
        .map(|&i| {
            deadline.check(path)?;
            let limits = ocr::limits(
                opts.pdf_timeout.min(deadline.remaining()),
                opts.pdf_memory_bytes,
            );
            ocr::pdf_page(path, i + 1, limits)
                .map(|page| (i + 1, page))
                .map_err(|f| ocr_error(path, Some(i + 1), f, opts))
        })
        .collect();
    let read: Vec<(usize, OcrPage)> = read.into_iter().collect::<Result<_, _>>()?;
    for (p, page) in &read {
        if !page.text.trim().is_empty() {
            pages[p - 1] = page.text.clone();
        }
    }
    Ok(read
        .into_iter()
        .filter(|(_, p)| !p.words.is_empty())
        .collect())
}

/// Record in `layout` what OCR read (`read`, from [`read_blank_pages`] or an image file).
pub fn record(text: &str, layout: &mut Layout, read: &[(usize, OcrPage)]) {
    if read.is_empty() {
        return;
    }
    let engine = ocr::engine_name();
    let pages: Vec<usize> = read.iter().map(|(p, _)| *p).collect();
    let shown: Vec<String> = pages.iter().map(usize::to_string).collect();
    let before = layout.extractor.take().unwrap_or_default();
    let ocr_part = format!(
        "{engine} (OCR at {} dpi of page{} {})",
        ocr::DPI,
        if pages.len() == 1 { "" } else { "s" },
        shown.join(", ")
    );
    layout.extractor = Some(if before.is_empty() {
        ocr_part
    } else {
        format!("{before}; {ocr_part}")
    });
    layout.ocr = Some(OcrText {
        engine,
        words: ocr::place_words(text, &layout.pages, read),
        pages,
    });
}

/// Load an image file by OCR: its pages assembled as PDF pages are.
pub fn load_image(
    path: &Path,
    opts: &LoadOptions,
    deadline: Deadline,
) -> Result<LoadedDoc, LoadError> {
    if opts.ocr == OcrMode::Off {
        return Err(LoadError::Ocr {
            path: path.to_path_buf(),
            reason: "an image file needs OCR, which is off (ocr = \"off\")".into(),
        });
    }
    if ocr::tesseract().is_none() {
        return Err(LoadError::Ocr {
            path: path.to_path_buf(),
            reason:
                "an image file needs OCR: tesseract is not installed (scripts/setup.sh installs it)"
                    .into(),
        });
    }
    let limits = ocr::limits(
        opts.pdf_timeout.min(deadline.remaining()),
        opts.pdf_memory_bytes,
    );
    let read = ocr::image_pages(path, limits).map_err(|f| ocr_error(path, None, f, opts))?;
    let texts: Vec<String> = read.iter().map(|p| p.text.clone()).collect();
    let (text, mut layout) = pdflayout::assemble(&texts);
    if text.trim().is_empty() {
        return Err(LoadError::Ocr {
            path: path.to_path_buf(),
            reason: "OCR found no text in the image".into(),
        });
    }
    let read: Vec<(usize, OcrPage)> = read
        .into_iter()
        .enumerate()
        .map(|(i, p)| (i + 1, p))
        .filter(|(_, p)| !p.words.is_empty())
        .collect();
    record(&text, &mut layout, &read);
    layout.extractor = Some(format!(
        "{} (OCR at {} dpi) + attest-layout {}",
        ocr::engine_name(),
        ocr::DPI,
        pdflayout::LAYOUT_VERSION
    ));
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(LoadedDoc {
        key: String::new(),
        title: stem,
        text,
        kind: SourceKind::Image,
        layout,
    })
}
