//! Layout: what a loader knows about a document's stored text beyond its bytes — which
//! page each byte is on, the headings that open sections, the labels of table rows and
//! form values, and which extractor produced the text.
//!
//! Every offset is a byte offset into the stored text, so a quote's page and section are
//! looked up from its span. [`Layout::check`] refuses a layout that does not fit its text.

use serde::{Deserialize, Serialize};

/// A heading: the line `[start, end)` of the stored text that opens a section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Heading {
    /// First byte of the heading line.
    pub start: usize,
    /// One past its last byte.
    pub end: usize,
    /// Nesting level, 1 = top.
    pub level: u8,
    /// The heading as a reader names the section, e.g. `1.8 Project Start Date`.
    pub title: String,
}

/// Words that open a numbered caption ("Table 324. Arrests by Sex and Age: 2009") and
/// that a question names a table or figure by ("In Table 324, …").
pub const CAPTION_WORDS: &[&str] = &["table", "figure", "exhibit", "chart", "schedule"];

/// What a labelled span is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LabelKind {
    /// A table row; the label holds the column headers (and the caption).
    Row,
    /// A form value; the label is the prompt or field name it answers.
    Value,
}

/// A span whose meaning comes from a label printed elsewhere (a row under its column
/// headers, a value under its prompt).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Labelled {
    /// First byte of the row or value.
    pub start: usize,
    /// One past its last byte.
    pub end: usize,
    /// Row or value.
    pub kind: LabelKind,
    /// The headers, caption or prompt, whitespace-normalised.
    pub label: String,
    /// A table row's cells in reading order, each under its column header (empty for
    /// form values, and for rows whose columns could not be told apart).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cells: Vec<Cell>,
}

/// One cell of a labelled table row: its span and the header(s) of its column.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cell {
    /// First byte of the cell's text.
    pub start: usize,
    /// One past its last byte.
    pub end: usize,
    /// The column's header lines, top to bottom, joined by a space (multi-level headers
    /// included); empty when the column has none.
    pub column: String,
}

impl Labelled {
    /// The row's stub: the text of its first cell (what names the row), when it has
    /// cells.
    pub fn stub<'a>(&self, text: &'a str) -> Option<&'a str> {
        self.cells.first().and_then(|c| text.get(c.start..c.end))
    }
}

/// One word read by OCR: its span in the stored text and Tesseract's confidence (0–100).
/// Stored as `[start, end, conf]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "(usize, usize, u8)", into = "(usize, usize, u8)")]
pub struct OcrWord {
    /// First byte of the word.
    pub start: usize,
    /// One past its last byte.
    pub end: usize,
    /// Confidence, 0–100.
    pub conf: u8,
}

impl From<(usize, usize, u8)> for OcrWord {
    fn from((start, end, conf): (usize, usize, u8)) -> Self {
        OcrWord { start, end, conf }
    }
}

impl From<OcrWord> for (usize, usize, u8) {
    fn from(w: OcrWord) -> Self {
        (w.start, w.end, w.conf)
    }
}

/// Text that OCR read: by which engine, on which pages, and every word's confidence.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OcrText {
    /// The OCR engine and its version, e.g. `tesseract 5.3.0`.
    pub engine: String,
    /// The 1-based pages read by OCR (every page of an image file).
    pub pages: Vec<usize>,
    /// The words placed in the stored text, in text order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub words: Vec<OcrWord>,
}

/// Words below this confidence are flagged wherever a quote holds them.
pub const OCR_LOW_CONFIDENCE: u8 = 60;

/// What a quote owes to OCR: the engine, and its words below [`OCR_LOW_CONFIDENCE`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OcrMark {
    /// The OCR engine and its version.
    pub engine: String,
    /// The lowest confidence of a word in the quote (100 when no word was placed).
    pub min_confidence: u8,
    /// The quote's words below the threshold, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub low_confidence: Vec<String>,
}

/// The layout of one document's stored text.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layout {
    /// The extractor and its version when the text was converted (PDF, DOCX), e.g.
    /// `pdftotext 22.02.0 (-layout) + attest-layout 1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extractor: Option<String>,
    /// Byte offset at which each page starts (page 1 first, ascending); empty when the
    /// source has no pages.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pages: Vec<usize>,
    /// Headings in text order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub headings: Vec<Heading>,
    /// Labelled rows and values in text order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<Labelled>,
    /// What OCR read, when some of the text came from it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ocr: Option<OcrText>,
    /// How the text maps onto the bytes of its file; `None` in an index stored before
    /// source maps were kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_map: Option<SourceMap>,
    /// Pages whose stored text keeps much less than the extractor read from them (what
    /// assembly dropped as running heads, furniture or noise was most of the page).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shortfall: Vec<Shortfall>,
    /// The authors the first page prints under the title (PDF), in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub authors: Vec<String>,
}

/// A page whose stored text keeps much less than its text layer holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shortfall {
    /// The 1-based page.
    pub page: usize,
    /// Letters and digits the stored text keeps from the page.
    pub kept: usize,
    /// Letters and digits the extractor read from the page.
    pub held: usize,
}

/// Why a layout does not fit its text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("layout does not fit its text: {0}")]
pub struct LayoutMismatch(pub String);

impl Layout {
    /// True when the layout says nothing.
    pub fn is_empty(&self) -> bool {
        self.extractor.is_none()
            && self.pages.is_empty()
            && self.headings.is_empty()
            && self.labels.is_empty()
            && self.ocr.is_none()
            && self.source_map.is_none()
    }

    /// Where the stored span `[start, end)` lies in the file on disk, or why no span of
    /// the file can be given (see [`SourceMap::file_span`]).
    pub fn file_span(&self, start: usize, end: usize) -> FileSpan {
        FileSpan::from(match &self.source_map {
            None => Err(NoFileSpan::NotRecorded),
            Some(map) => map.file_span(start, end),
        })
    }

    /// What the span `[start, end)` owes to OCR, when it lies on a page OCR read.
    pub fn ocr_mark(&self, text: &str, start: usize, end: usize) -> Option<OcrMark> {
        let ocr = self.ocr.as_ref()?;
        let page = self.page_of(start).unwrap_or(1);
        if !ocr.pages.contains(&page) {
            return None;
        }
        let first = ocr.words.partition_point(|w| w.end <= start);
        let inside: Vec<&OcrWord> = ocr.words[first..]
            .iter()
            .take_while(|w| w.start < end)
            .collect();
        Some(OcrMark {
            engine: ocr.engine.clone(),
            min_confidence: inside.iter().map(|w| w.conf).min().unwrap_or(100),
            low_confidence: inside
                .iter()
                .filter(|w| w.conf < OCR_LOW_CONFIDENCE)
                .filter_map(|w| text.get(w.start..w.end).map(str::to_string))
                .collect(),
        })
    }

    /// The 1-based page that byte `at` is on, when the source has pages.
    pub fn page_of(&self, at: usize) -> Option<usize> {
        if self.pages.is_empty() {
            return None;
        }
        Some(self.pages.partition_point(|&p| p <= at).max(1))
    }

    /// Index of the last heading that starts at or before `at`.
    fn heading_before(&self, at: usize) -> Option<usize> {
        self.headings
            .partition_point(|h| h.start <= at)
            .checked_sub(1)
    }

    /// The section path at byte `at`: the titles of the enclosing headings, outermost
    /// first (each heading closes the ones at its level or deeper).
    pub fn section_path(&self, at: usize) -> Vec<&str> {
        let Some(last) = self.heading_before(at) else {
            return Vec::new();
        };
        let mut path: Vec<&Heading> = Vec::new();
        for h in &self.headings[..=last] {
            while path.last().is_some_and(|p| p.level >= h.level) {
                path.pop();
            }
            path.push(h);
        }
        path.into_iter().map(|h| h.title.as_str()).collect()
    }

    /// The innermost section title at byte `at`.
    pub fn section_of(&self, at: usize) -> Option<&str> {
        self.heading_before(at)
            .map(|i| self.headings[i].title.as_str())
    }

    /// The labelled row or value that contains the span `[start, end)`, or that the span
    /// lies inside of.
    pub fn label_for(&self, start: usize, end: usize) -> Option<&Labelled> {
        let i = self.labels.partition_point(|l| l.start <= start);
        let l = self.labels.get(i.checked_sub(1)?)?;
        (end <= l.end || start == l.start).then_some(l)
    }

    /// The labels of the rows and values that `[start, end)` holds or starts inside,
    /// each once, in text order.
    pub fn labels_within(&self, start: usize, end: usize) -> Vec<&str> {
        let first = self.labels.partition_point(|l| l.end <= start);
        let mut out: Vec<&str> = Vec::new();
        for l in self.labels[first..].iter().take_while(|l| l.start < end) {
            if !l.label.is_empty() && !out.contains(&l.label.as_str()) {
                out.push(&l.label);
            }
        }
        out
    }

    /// Whether `[start, end)` is (inside) a heading line.
    pub fn is_heading(&self, start: usize, end: usize) -> bool {
        self.heading_before(start)
            .is_some_and(|i| end <= self.headings[i].end)
    }

    /// `sents` (sentence spans of `text`, in order) cut wherever a heading, a labelled row
    /// or value starts or ends inside one, so no sentence runs across table rows, form
    /// values or headings. Pieces are trimmed; empty ones are dropped.
    pub fn split_sentences(
        &self,
        text: &str,
        sents: Vec<crate::corpus::Span>,
    ) -> Vec<crate::corpus::Span> {
        use crate::corpus::Span;
        if self.labels.is_empty() && self.headings.is_empty() {
            return sents;
        }
        let mut cuts: Vec<usize> = self
            .labels
            .iter()
            .flat_map(|l| [l.start, l.end])
            .chain(self.headings.iter().flat_map(|h| [h.start, h.end]))
            .collect();
        cuts.sort_unstable();
        cuts.dedup();
        let mut out = Vec::with_capacity(sents.len());
        for s in sents {
            let from = cuts.partition_point(|&c| c <= s.start);
            let mut start = s.start;
            for &c in cuts[from..].iter().take_while(|&&c| c < s.end) {
                push_trimmed(text, Span::new(start, c), &mut out);
                start = c;
            }
            push_trimmed(text, Span::new(start, s.end), &mut out);
        }
        out
    }

    /// Check that every offset is inside `text`, on a character boundary, and in order.
    pub fn check(&self, text: &str) -> Result<(), LayoutMismatch> {
        let ok = |at: usize| at <= text.len() && text.is_char_boundary(at);
        if let Some(p) = self.pages.iter().find(|&&p| !ok(p)) {
            return Err(LayoutMismatch(format!("page start {p} is not in the text")));
        }
        if self.pages.windows(2).any(|w| w[0] > w[1]) {
            return Err(LayoutMismatch("page starts are out of order".into()));
        }
        let spans = self
            .headings
            .iter()
            .map(|h| (h.start, h.end, "heading"))
            .chain(self.labels.iter().map(|l| (l.start, l.end, "label")));
        for (start, end, what) in spans {
            if start > end || !ok(start) || !ok(end) {
                return Err(LayoutMismatch(format!(
                    "{what} [{start}, {end}) is not a span of the text"
                )));
            }
        }
        for l in &self.labels {
            let outside = l.cells.iter().any(|c| {
                c.start > c.end || c.start < l.start || c.end > l.end || !ok(c.start) || !ok(c.end)
            });
            if outside || l.cells.windows(2).any(|w| w[0].end > w[1].start) {
                return Err(LayoutMismatch(format!(
                    "a cell of the row [{}, {}) is outside it or out of order",
                    l.start, l.end
                )));
            }
        }
        if let Some(ocr) = &self.ocr {
            check_ocr(ocr, text, self.pages.len().max(1))?;
        }
        if let Some(map) = &self.source_map {
            map.check(text)?;
        }
        let sorted = |v: Vec<usize>| v.windows(2).all(|w| w[0] <= w[1]);
        if !sorted(self.headings.iter().map(|h| h.start).collect())
            || !sorted(self.labels.iter().map(|l| l.start).collect())
        {
            return Err(LayoutMismatch("headings or labels are out of order".into()));
        }
        Ok(())
    }
}

/// OCR words must be spans of `text` in order, without overlap, and OCR pages real pages.
fn check_ocr(ocr: &OcrText, text: &str, pages: usize) -> Result<(), LayoutMismatch> {
    if let Some(p) = ocr.pages.iter().find(|&&p| p == 0 || p > pages) {
        return Err(LayoutMismatch(format!(
            "OCR page {p} is not a page of the text"
        )));
    }
    let ok = |at: usize| at <= text.len() && text.is_char_boundary(at);
    if let Some(w) = ocr
        .words
        .iter()
        .find(|w| w.start >= w.end || !ok(w.start) || !ok(w.end))
    {
        return Err(LayoutMismatch(format!(
            "OCR word [{}, {}) is not a span of the text",
            w.start, w.end
        )));
    }
    if ocr.words.windows(2).any(|w| w[0].end > w[1].start) || ocr.words.iter().any(|w| w.conf > 100)
    {
        return Err(LayoutMismatch(
            "OCR words overlap, are out of order or have a confidence above 100".into(),
        ));
    }
    Ok(())
}

/// What an edit of a rendering is to the spans around it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum EditKind {
    /// Opens a construct that renders only whole (a link's `[` or `![`): a span of the
    /// file holds it only with its closing edit.
    #[serde(rename = "o")]
    Open,
    /// Closes one (a link's `](destination)`).
    #[serde(rename = "c")]
    Close,
    /// Renders on its own (a character reference, an HTML tag).
    #[serde(rename = "a")]
    Atom,
}

/// One place where the stored text is not the file's bytes: stored bytes `[at, at + len)`
/// are the rendering of the file's bytes `[file_at, file_at + file_len)`. Stored as
/// `[at, len, file_at, file_len, kind]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    from = "(usize, usize, usize, usize, EditKind)",
    into = "(usize, usize, usize, usize, EditKind)"
)]
pub struct Edit {
    /// First stored byte of the rendering.
    pub at: usize,
    /// Its length in stored bytes (0 when it renders to nothing).
    pub len: usize,
    /// First byte of what it renders in the file.
    pub file_at: usize,
    /// Length of that in the file's bytes (never 0).
    pub file_len: usize,
    /// Open, close or atom.
    pub kind: EditKind,
}

impl From<(usize, usize, usize, usize, EditKind)> for Edit {
    fn from((at, len, file_at, file_len, kind): (usize, usize, usize, usize, EditKind)) -> Self {
        Edit {
            at,
            len,
            file_at,
            file_len,
            kind,
        }
    }
}

impl From<Edit> for (usize, usize, usize, usize, EditKind) {
    fn from(e: Edit) -> Self {
        (e.at, e.len, e.file_at, e.file_len, e.kind)
    }
}

impl Edit {
    /// One past its last stored byte.
    fn end(&self) -> usize {
        self.at + self.len
    }

    /// One past the last file byte it renders.
    fn file_end(&self) -> usize {
        self.file_at + self.file_len
    }
}

/// How a document's stored text maps onto the bytes of its file on disk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "of", rename_all = "snake_case")]
pub enum SourceMap {
    /// The text is the file's bytes but for `edits`, in text order (a text file has none;
    /// a Markdown file's are its rendered links, character references and tags). Between
    /// edits, stored bytes and file bytes are the same.
    Bytes {
        /// The places where rendering changed the bytes.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        edits: Vec<Edit>,
    },
    /// The text is rendered from the file's structure (HTML, XML, PDF, DOCX, JSON lines,
    /// OCR) and no map to its bytes is kept.
    Rendered,
}

/// Why a stored span has no span of its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoFileSpan {
    /// The text is rendered from the file's structure; no map to its bytes is kept.
    Rendered,
    /// The index stored the document before source maps were kept.
    NotRecorded,
    /// The span starts or ends inside rendered markup it cuts (part of a link), so no
    /// span of the file renders to it.
    Unaligned,
}

impl NoFileSpan {
    /// The name, as the JSON spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            NoFileSpan::Rendered => "rendered",
            NoFileSpan::NotRecorded => "not_recorded",
            NoFileSpan::Unaligned => "unaligned",
        }
    }
}

/// Where a quote lies in the file on disk: bytes `[file_start, file_end)` of the file,
/// whose rendering is the quote, or why no such span is given.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileSpan {
    /// First byte in the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_start: Option<usize>,
    /// One past the last byte in the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_end: Option<usize>,
    /// Why there is no span of the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_span_absent: Option<NoFileSpan>,
}

impl From<Result<(usize, usize), NoFileSpan>> for FileSpan {
    fn from(r: Result<(usize, usize), NoFileSpan>) -> Self {
        match r {
            Ok((s, e)) => FileSpan {
                file_start: Some(s),
                file_end: Some(e),
                file_span_absent: None,
            },
            Err(why) => FileSpan {
                file_span_absent: Some(why),
                ..FileSpan::default()
            },
        }
    }
}

impl FileSpan {
    /// The span of the file, when there is one.
    pub fn span(&self) -> Option<(usize, usize)> {
        self.file_start.zip(self.file_end)
    }
}

impl SourceMap {
    /// The map of a text stored as its file's bytes.
    pub fn identity() -> Self {
        SourceMap::Bytes { edits: Vec::new() }
    }

    /// The span of the file whose rendering is the stored span `[start, end)`. Each end
    /// may lie before, between or after edits that render to nothing there; the span is
    /// the shortest of those choices in which every opening edit it holds has its closing
    /// edit and no closing edit comes without its opening one. An end inside an edit's
    /// rendering, or a span that keeps only part of a link, has none.
    pub fn file_span(&self, start: usize, end: usize) -> Result<(usize, usize), NoFileSpan> {
        let SourceMap::Bytes { edits } = self else {
            return Err(NoFileSpan::Rendered);
        };
        if start > end {
            return Err(NoFileSpan::Unaligned);
        }
        let (starts, ends) = (places(edits, start)?, places(edits, end)?);
        let mut best: Option<(usize, usize)> = None;
        for &fs in &starts {
            for &fe in ends.iter().filter(|&&fe| fe >= fs) {
                let shorter = best.is_none_or(|(a, b)| fe - fs < b - a);
                if shorter && balanced(edits, fs, fe) {
                    best = Some((fs, fe));
                }
            }
        }
        best.ok_or(NoFileSpan::Unaligned)
    }

    /// Edits in text order, not overlapping, each on character boundaries of `text`, with
    /// the bytes between them the same length in the text and the file.
    pub fn check(&self, text: &str) -> Result<(), LayoutMismatch> {
        let SourceMap::Bytes { edits } = self else {
            return Ok(());
        };
        let ok = |at: usize| at <= text.len() && text.is_char_boundary(at);
        let (mut end, mut file_end) = (0, 0);
        for e in edits {
            let fits = e.at >= end && ok(e.at) && ok(e.end());
            let aligned = fits && e.file_at == file_end + (e.at - end);
            let shape = e.file_len > 0 && (e.kind == EditKind::Atom || e.len == 0);
            if !(aligned && shape) {
                return Err(LayoutMismatch(format!(
                    "source map edit [{}, {}) does not fit the text",
                    e.at,
                    e.end()
                )));
            }
            (end, file_end) = (e.end(), e.file_end());
        }
        Ok(())
    }
}

/// The file offsets stored offset `at` may stand for: before, between and after the edits
/// that render to nothing at `at`, in file order. An offset inside an edit's rendering
/// stands for none.
fn places(edits: &[Edit], at: usize) -> Result<Vec<usize>, NoFileSpan> {
    let i = edits.partition_point(|e| e.at < at);
    let base = match i.checked_sub(1).map(|k| &edits[k]) {
        Some(prev) if prev.end() > at => return Err(NoFileSpan::Unaligned),
        Some(prev) => prev.file_end() + (at - prev.end()),
        None => at,
    };
    let mut out = vec![base];
    out.extend(
        edits[i..]
            .iter()
            .take_while(|e| e.at == at && e.len == 0)
            .map(Edit::file_end),
    );
    Ok(out)
}

/// Whether the edits inside file bytes `[fs, fe)` pair up: every opening edit closed,
/// no closing edit before its opening one.
fn balanced(edits: &[Edit], fs: usize, fe: usize) -> bool {
    let first = edits.partition_point(|e| e.file_at < fs);
    let mut depth = 0usize;
    for e in edits[first..].iter().take_while(|e| e.file_end() <= fe) {
        match e.kind {
            EditKind::Open => depth += 1,
            EditKind::Close => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return false,
            },
            EditKind::Atom => {}
        }
    }
    depth == 0
}

/// Push `span` shrunk past surrounding whitespace, unless nothing is left.
fn push_trimmed(text: &str, span: crate::corpus::Span, out: &mut Vec<crate::corpus::Span>) {
    let piece = &text[span.start..span.end];
    let lead = piece.len() - piece.trim_start().len();
    let body = piece.trim();
    if !body.is_empty() {
        let start = span.start + lead;
        out.push(crate::corpus::Span::new(start, start + body.len()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn heading(start: usize, level: u8, title: &str) -> Heading {
        Heading {
            start,
            end: start + title.len(),
            level,
            title: title.into(),
        }
    }

    #[test]
    fn pages_sections_and_labels_are_looked_up_by_offset() {
        let layout = Layout {
            extractor: None,
            pages: vec![0, 100, 250],
            headings: vec![
                heading(0, 1, "1 Project"),
                heading(40, 2, "1.1 Scope"),
                heading(120, 2, "1.8 Start Date"),
                heading(200, 1, "2 Land"),
            ],
            labels: vec![Labelled {
                start: 140,
                end: 151,
                kind: LabelKind::Value,
                label: "Start date".into(),
                cells: Vec::new(),
            }],
            ocr: None,
            source_map: None,
            shortfall: Vec::new(),
            authors: Vec::new(),
        };
        assert_eq!(layout.page_of(0), Some(1));
        assert_eq!(layout.page_of(99), Some(1));
        assert_eq!(layout.page_of(100), Some(2));
        assert_eq!(layout.page_of(9999), Some(3));
        assert_eq!(layout.section_of(10), Some("1 Project"));
        assert_eq!(
            layout.section_path(130),
            vec!["1 Project", "1.8 Start Date"]
        );
        assert_eq!(layout.section_path(210), vec!["2 Land"]);
        assert_eq!(
            layout.label_for(140, 151).map(|l| l.label.as_str()),
            Some("Start date")
        );
        assert_eq!(
            layout.label_for(141, 150).map(|l| l.kind),
            Some(LabelKind::Value)
        );
        assert!(layout.label_for(130, 151).is_none());
        assert!(layout.label_for(152, 160).is_none());
        assert!(layout.is_heading(120, 134));
        assert!(!layout.is_heading(120, 140));
        assert_eq!(Layout::default().page_of(5), None);
    }

    #[test]
    fn labels_within_a_span_are_listed_once_in_order() {
        let row = |start: usize, label: &str| Labelled {
            start,
            end: start + 10,
            kind: LabelKind::Row,
            label: label.into(),
            cells: Vec::new(),
        };
        let layout = Layout {
            labels: vec![
                row(0, "Single"),
                row(20, "Head of Household"),
                row(40, "Head of Household"),
                row(60, "Married"),
            ],
            ..Layout::default()
        };
        // A span starting inside a row names it; rows it reaches name theirs once.
        assert_eq!(layout.labels_within(25, 55), ["Head of Household"]);
        assert_eq!(
            layout.labels_within(5, 65),
            ["Single", "Head of Household", "Married"]
        );
        assert!(layout.labels_within(10, 20).is_empty());
        assert!(layout.labels_within(70, 90).is_empty());
    }

    #[test]
    fn sentences_are_cut_at_rows_and_headings() {
        use crate::corpus::Span;
        let text = "Header row\nAlaska 209 3,062\nAlabama 18,870 23,022\nAfter.";
        let row = |a: &str| {
            let start = text.find(a).unwrap();
            Labelled {
                start,
                end: start + a.len(),
                kind: LabelKind::Row,
                label: "Header row".into(),
                cells: Vec::new(),
            }
        };
        let layout = Layout {
            labels: vec![row("Alaska 209 3,062"), row("Alabama 18,870 23,022")],
            ..Layout::default()
        };
        let pieces = layout.split_sentences(text, vec![Span::new(0, text.len())]);
        let got: Vec<&str> = pieces.iter().map(|s| s.slice(text)).collect();
        assert_eq!(
            got,
            vec![
                "Header row",
                "Alaska 209 3,062",
                "Alabama 18,870 23,022",
                "After."
            ]
        );
        let plain = Layout::default().split_sentences(text, vec![Span::new(0, 5)]);
        assert_eq!(plain, vec![Span::new(0, 5)]);
    }

    proptest::proptest! {
        /// Cutting sentences at labelled rows keeps every piece a trimmed span of the text,
        /// in order, inside its sentence, and no piece runs across a row boundary.
        #[test]
        fn split_sentences_keeps_span_invariants(
            lines in proptest::collection::vec("[a-zé0-9 ,.]{0,30}", 1..12),
            labelled in proptest::collection::vec(proptest::bool::ANY, 12),
        ) {
            use crate::corpus::Span;
            let text = lines.join("\n");
            let mut layout = Layout::default();
            let mut at = 0;
            for (i, line) in lines.iter().enumerate() {
                let body = line.trim();
                let lead = line.len() - line.trim_start().len();
                if labelled[i] && !body.is_empty() {
                    layout.labels.push(Labelled {
                        start: at + lead,
                        end: at + lead + body.len(),
                        kind: LabelKind::Row,
                        label: "h".into(),
                        cells: Vec::new(),
                    });
                }
                at += line.len() + 1;
            }
            proptest::prop_assert!(layout.check(&text).is_ok());
            let sents = crate::corpus::segment::sentences(&text);
            let pieces = layout.split_sentences(&text, sents.clone());
            let mut last = 0;
            for p in &pieces {
                let piece = &text[p.start..p.end];
                proptest::prop_assert!(!piece.is_empty() && piece.trim() == piece);
                proptest::prop_assert!(p.start >= last);
                last = p.end;
                proptest::prop_assert!(sents.iter().any(|s: &Span| s.start <= p.start && p.end <= s.end));
                for l in &layout.labels {
                    let crosses = |b: usize| p.start < b && b < p.end;
                    proptest::prop_assert!(!crosses(l.start) && !crosses(l.end));
                }
            }
        }
    }

    /// `See [the Act](u) now.` stored as `See the Act now.`.
    fn link_map() -> SourceMap {
        let edit = |at, file_at, file_len, kind| Edit {
            at,
            len: 0,
            file_at,
            file_len,
            kind,
        };
        SourceMap::Bytes {
            edits: vec![
                edit(4, 4, 1, EditKind::Open),
                edit(11, 12, 4, EditKind::Close),
            ],
        }
    }

    #[test]
    fn file_spans_take_whole_links_or_stay_inside_their_text() {
        let file = "See [the Act](u) now.";
        let map = link_map();
        let text = "See the Act now.";
        assert!(map.check(text).is_ok());
        let at = |s: &str| {
            let start = text.find(s).unwrap();
            map.file_span(start, start + s.len())
                .map(|(a, b)| &file[a..b])
        };
        assert_eq!(at("See the Act"), Ok("See [the Act](u)"));
        assert_eq!(at("the Act now."), Ok("[the Act](u) now."));
        assert_eq!(at("the Act"), Ok("the Act"));
        assert_eq!(at("he A"), Ok("he A"));
        assert_eq!(at("now."), Ok("now."));
        assert_eq!(at(text), Ok(file));
        // A span that keeps part of the link's text and text outside it cuts the link.
        assert_eq!(at("Act now."), Err(NoFileSpan::Unaligned));
        assert_eq!(at("See the"), Err(NoFileSpan::Unaligned));
    }

    #[test]
    fn adjacent_links_and_replaced_characters_map_apart() {
        // `[a](x)[b](y) &amp; c` stored as `ab & c`.
        let file = "[a](x)[b](y) &amp; c";
        let edit = |at, len, file_at, file_len, kind| Edit {
            at,
            len,
            file_at,
            file_len,
            kind,
        };
        let map = SourceMap::Bytes {
            edits: vec![
                edit(0, 0, 0, 1, EditKind::Open),
                edit(1, 0, 2, 4, EditKind::Close),
                edit(1, 0, 6, 1, EditKind::Open),
                edit(2, 0, 8, 4, EditKind::Close),
                edit(3, 1, 13, 5, EditKind::Atom),
            ],
        };
        let text = "ab & c";
        assert!(map.check(text).is_ok());
        let at = |a: usize, b: usize| map.file_span(a, b).map(|(x, y)| &file[x..y]);
        assert_eq!(at(0, 1), Ok("a"));
        assert_eq!(at(1, 2), Ok("b"));
        assert_eq!(at(0, 2), Ok("[a](x)[b](y)"));
        assert_eq!(at(3, 4), Ok("&amp;"));
        assert_eq!(at(0, 6), Ok(file));
        assert_eq!(at(2, 6), Ok(" &amp; c"));
    }

    #[test]
    fn text_files_map_to_themselves_and_other_formats_say_why_not() {
        let identity = Layout {
            source_map: Some(SourceMap::identity()),
            ..Layout::default()
        };
        assert_eq!(identity.file_span(3, 9).span(), Some((3, 9)));
        let rendered = Layout {
            source_map: Some(SourceMap::Rendered),
            ..Layout::default()
        };
        assert_eq!(
            rendered.file_span(3, 9).file_span_absent,
            Some(NoFileSpan::Rendered)
        );
        let old = Layout::default().file_span(3, 9);
        assert_eq!(old.file_span_absent, Some(NoFileSpan::NotRecorded));
        assert_eq!(old.span(), None);
    }

    #[test]
    fn source_maps_round_trip_and_misfits_are_refused() {
        let layout = Layout {
            source_map: Some(link_map()),
            ..Layout::default()
        };
        let json = serde_json::to_string(&layout).unwrap();
        assert_eq!(
            json,
            r#"{"source_map":{"of":"bytes","edits":[[4,0,4,1,"o"],[11,0,12,4,"c"]]}}"#
        );
        let back: Layout = serde_json::from_str(&json).unwrap();
        assert_eq!(back, layout);
        assert!(layout.check("See the Act now.").is_ok());
        // Edits past the text, out of order, or whose file offsets do not follow.
        assert!(layout.check("See the").is_err());
        let edit = |at, file_at| Edit {
            at,
            len: 0,
            file_at,
            file_len: 1,
            kind: EditKind::Atom,
        };
        for edits in [vec![edit(5, 5), edit(2, 6)], vec![edit(2, 3)]] {
            let bad = SourceMap::Bytes { edits };
            assert!(bad.check("See the Act now.").is_err());
        }
        let text: Layout = serde_json::from_str(r#"{"source_map":{"of":"bytes"}}"#).unwrap();
        assert_eq!(text.source_map, Some(SourceMap::identity()));
    }

    #[test]
    fn check_refuses_offsets_outside_the_text_or_inside_a_character() {
        let text = "été\nplain text here";
        let mut layout = Layout {
            pages: vec![0, 5],
            ..Layout::default()
        };
        assert!(layout.check(text).is_ok());
        layout.pages = vec![0, 1];
        assert!(layout.check(text).is_err(), "offset 1 is inside 'é'");
        layout.pages = vec![0, 500];
        assert!(layout.check(text).is_err());
        layout.pages = vec![5, 0];
        assert!(layout.check(text).is_err());
        layout.pages.clear();
        layout.headings = vec![heading(6, 1, "plain text here")];
        layout.headings[0].end = 99;
        assert!(layout.check(text).is_err());
    }
}
