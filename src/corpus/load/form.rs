//! Fillable PDF forms at load time: the fields ([`forms::read_fields`]) are read in the
//! bounded PDF worker, named by the caption printed next to each widget (from
//! `pdftotext -bbox`), and become "label: value" lines stored before their page's text,
//! each a labelled value (`LabelKind::Value`); a box's line says "(check box)".
//!
//! A form that cannot be read does not fail the file: its text is still the page's text,
//! and the extractor string says the fields were not read and why.

use std::path::Path;
use std::time::Duration;

use super::{find, run_isolated, run_worker_process, LoadOptions, PdfFail, WorkerJob, WORKER_EXE};
use crate::corpus::forms::{self, Field};
use crate::corpus::pdftext::{self, PopplerLimits};

/// The `lopdf` version in `Cargo.lock` (recorded with each form's extractor).
pub const LOPDF_VERSION: &str = "0.42.0";

/// Pages with more widgets than this are named by tooltip or field name only (finding
/// captions costs words × widgets per field).
const MAX_CAPTIONED: usize = 2_000;

/// The fields of one file, ready for assembly.
#[derive(Debug, Default)]
pub struct FormLines {
    /// Per page (index 0 = page 1): the fields as (label, "label: value") in reading order.
    pub pages: Vec<Vec<(String, String)>>,
    /// What the extractor string adds: how many fields were read, or why none were.
    pub note: Option<String>,
}

/// The worker side: parse the form in `bytes`.
pub(super) fn read_bytes(bytes: &[u8]) -> Result<Vec<Field>, PdfFail> {
    forms::read_fields(bytes).map_err(PdfFail::Corrupt)
}

/// Read the form of the PDF at `path` (its bytes are `bytes`), if it has one.
pub fn read(path: &Path, bytes: &[u8], opts: &LoadOptions, timeout: Duration) -> FormLines {
    if find(bytes, 0, b"/AcroForm").is_none() {
        return FormLines::default();
    }
    let fields = match WORKER_EXE.get() {
        Some(exe) => run_worker_process::<Vec<Field>>(exe, path, opts, timeout, WorkerJob::Form),
        None => {
            let copy = bytes.to_vec();
            run_isolated(move || read_bytes(&copy), timeout)
        }
    };
    let fields = match fields {
        Ok(Ok(f)) => f,
        Ok(Err(fail)) => return not_read(format!("{fail:?}")),
        Err(e) => return not_read(format!("{e:?}")),
    };
    if fields.is_empty() {
        return FormLines::default();
    }
    let limits = PopplerLimits {
        timeout,
        memory_bytes: opts.pdf_memory_bytes,
        output_bytes: opts.max_text_bytes.saturating_mul(8),
    };
    let lines = lines_by_page(path, &fields, limits);
    let captioned = if pdftext::poppler().is_some() {
        "captions from pdftotext -bbox"
    } else {
        "named by tooltip or field name"
    };
    FormLines {
        pages: lines,
        note: Some(format!(
            "form fields: {} read by lopdf {LOPDF_VERSION}, {captioned}",
            fields.len()
        )),
    }
}

fn not_read(reason: String) -> FormLines {
    let reason: String = reason.chars().take(200).collect();
    FormLines {
        pages: Vec::new(),
        note: Some(format!("form fields not read ({reason})")),
    }
}

/// The fields as labelled lines per page, top to bottom and left to right; captions come
/// from the printed words around each widget when poppler is installed.
fn lines_by_page(
    path: &Path,
    fields: &[Field],
    limits: PopplerLimits,
) -> Vec<Vec<(String, String)>> {
    let first = fields.iter().map(|f| f.page).min().unwrap_or(1);
    let last = fields.iter().map(|f| f.page).max().unwrap_or(1);
    let boxes = pdftext::word_boxes(path, first, last, limits)
        .map(|html| forms::parse_bbox(&html))
        .unwrap_or_default();
    let mut ordered: Vec<&Field> = fields.iter().collect();
    ordered.sort_by(|a, b| {
        a.page
            .cmp(&b.page)
            .then(b.rect[3].total_cmp(&a.rect[3]))
            .then(a.rect[0].total_cmp(&b.rect[0]))
    });
    let mut rects: Vec<Vec<[f32; 4]>> = vec![Vec::new(); last];
    for f in fields {
        rects[f.page - 1].push(f.rect);
    }
    let boxes: Vec<Option<forms::PageWords>> = boxes
        .into_iter()
        .enumerate()
        .map(|(i, (height, words))| {
            let rects = rects.get(first - 1 + i)?;
            (rects.len() <= MAX_CAPTIONED).then(|| forms::PageWords::new(height, words, rects))
        })
        .collect();
    let mut pages: Vec<Vec<(String, String)>> = vec![Vec::new(); last];
    for f in ordered {
        let caption = boxes
            .get(f.page - first)
            .and_then(Option::as_ref)
            .and_then(|page| forms::caption(f, page));
        let label = forms::label(f, caption);
        let line = forms::line(f, &label);
        pages[f.page - 1].push((label, line));
    }
    pages
}
