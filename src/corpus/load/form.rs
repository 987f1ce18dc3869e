//! Fillable PDF forms at load time: the fields ([`forms::read_fields`]) are read in the
//! bounded PDF worker, named by the caption printed next to each widget (from
//! `pdftotext -bbox`), and become "label: value" lines stored before their page's text,
//! each a labelled value (`LabelKind::Value`); a box's line says "(check box)".
//!
//! A form that cannot be read does not fail the file: its text is still the page's text,
//! and the extractor string says the fields were not read and why.

use std::path::Path;
use std::time::Duration;

use super::pdf::{run_isolated, run_worker_process, PdfFail, WorkerJob, WORKER_EXE};
use super::{find, LoadOptions};
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

/// Whether the PDF may have a form: it names `/AcroForm`, or its catalog (where
/// `/AcroForm` lives) is not written plainly, so it sits compressed inside an object
/// stream where no byte search sees it. Only those are parsed.
fn may_have_form(bytes: &[u8]) -> bool {
    if find(bytes, 0, b"/AcroForm").is_some() {
        return true;
    }
    find(bytes, 0, b"/ObjStm").is_some() && !catalog_is_plain(bytes)
}

/// Whether the object the last `/Root N G R` names is written as `N G obj` in the file.
fn catalog_is_plain(bytes: &[u8]) -> bool {
    let mut last = None;
    let mut at = 0;
    while let Some(i) = find(bytes, at, b"/Root") {
        last = Some(i + b"/Root".len());
        at = i + 1;
    }
    let Some(start) = last else { return false };
    let tail = &bytes[start..bytes.len().min(start + 64)];
    let words: Vec<&[u8]> = tail
        .split(|b| b.is_ascii_whitespace())
        .filter(|w| !w.is_empty())
        .take(3)
        .collect();
    let [n, g, r] = words[..] else { return false };
    let digits = |w: &[u8]| !w.is_empty() && w.iter().all(u8::is_ascii_digit);
    if !digits(n) || !digits(g) || !r.starts_with(b"R") {
        return false;
    }
    let head = [n, b" ", g, b" obj"].concat();
    let mut from = 0;
    while let Some(i) = find(bytes, from, &head) {
        // `13 0 obj` must not be the end of `113 0 obj`.
        if i == 0 || !bytes[i - 1].is_ascii_digit() {
            return true;
        }
        from = i + 1;
    }
    false
}

/// Read the form of the PDF at `path` (its bytes are `bytes`), if it has one.
pub fn read(path: &Path, bytes: &[u8], opts: &LoadOptions, timeout: Duration) -> FormLines {
    if !may_have_form(bytes) {
        return FormLines::default();
    }
    let started = std::time::Instant::now();
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
    // The captions share the form's time: what the field read left of it.
    let limits = PopplerLimits {
        timeout: timeout.saturating_sub(started.elapsed()),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_form_is_looked_for_only_where_one_may_be() {
        assert!(may_have_form(
            b"1 0 obj << /Type /Catalog /AcroForm 5 0 R >>"
        ));
        // No object streams: a catalog without /AcroForm is in plain sight.
        assert!(!may_have_form(
            b"1 0 obj << /Type /Catalog >> trailer << /Root 1 0 R >>"
        ));
        // Object streams, but the catalog is plain: no form.
        let plain = b"113 0 obj << /Type /ObjStm >> 13 0 obj << /Type /Catalog >> /Root 13 0 R";
        assert!(!may_have_form(plain));
        // The catalog only inside an object stream (`113 0 obj` is another object).
        let hidden = b"113 0 obj << /Type /ObjStm /N 1 >> stream ... trailer << /Root 13 0 R >>";
        assert!(may_have_form(hidden));
        // A /Root that cannot be read: parse, to be sure.
        assert!(may_have_form(b"<< /Type /ObjStm >> /Root garbage"));
    }
}
