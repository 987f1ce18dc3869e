//! DOCX loader: the stored text of a Word document plus its [`Layout`].
//!
//! The text is the body of `word/document.xml` in reading order: each non-empty
//! paragraph is one block, each table row one line (`cell | cell | …`), blocks are
//! separated by a blank line. Headings come from paragraph styles (`word/styles.xml`)
//! or direct outline levels, table rows are labelled with their header row (and the
//! caption above the table), and pages come from the page breaks Word recorded
//! (`w:lastRenderedPageBreak`, `<w:br w:type="page"/>`, `w:pageBreakBefore`).
//!
//! Entities are never resolved beyond XML's five predefined ones and numeric character
//! references: a DOCTYPE is ignored, any other entity reference in content (such as an
//! XXE `&xxe;`) makes the part fail with [`DocxError::Xml`], and an attribute value
//! holding one is ignored as if absent.

use std::collections::HashMap;
use std::io::{Cursor, Read};

use quick_xml::events::{BytesRef, BytesStart, Event};
use quick_xml::{Reader, XmlVersion};

use super::layout::{Cell, Heading, LabelKind, Labelled, Layout};

/// Names the method and version that produced the text; bump when the output changes.
const EXTRACTOR: &str = "attest-docx 2 (quick-xml 0.42)";
/// How many `w:basedOn` links are followed when looking for a style's outline level.
const MAX_STYLE_CHAIN: usize = 16;

/// Limits while reading a DOCX (a zip bomb stops at them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DocxLimits {
    /// Most bytes one zip entry may inflate to.
    pub max_entry_bytes: u64,
    /// Most bytes all the entries read may inflate to together.
    pub max_total_bytes: u64,
    /// Most entries the zip may list.
    pub max_entries: usize,
    /// Most bytes of stored text (table-row labels count too).
    pub max_text_bytes: u64,
}

impl Default for DocxLimits {
    fn default() -> Self {
        const MIB: u64 = 1 << 20;
        DocxLimits {
            max_entry_bytes: 64 * MIB,
            max_total_bytes: 256 * MIB,
            max_entries: 10_000,
            max_text_bytes: 16 * MIB,
        }
    }
}

/// What a DOCX holds: its stored text, its title and the layout of the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocxText {
    /// The body text: paragraphs and table rows, blocks separated by `"\n\n"`.
    pub text: String,
    /// `dc:title` from `docProps/core.xml`, else the first Title-styled paragraph.
    pub title: Option<String>,
    /// Pages, headings and labelled table rows, as byte offsets into `text`.
    pub layout: Layout,
}

/// Why a DOCX could not be read. Messages leave out the file's path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DocxError {
    /// The bytes are not a readable zip archive.
    #[error("not a zip archive: {0}")]
    NotZip(String),
    /// The zip has no `word/document.xml`.
    #[error("no word/document.xml in the zip: not a Word document")]
    NoDocument,
    /// A zip entry could not be inflated (corrupt, encrypted, unsupported method).
    #[error("cannot read {part} from the zip: {reason}")]
    Damaged {
        /// The zip entry.
        part: String,
        /// What went wrong.
        reason: String,
    },
    /// A limit of [`DocxLimits`] was reached.
    #[error("{what} is over the limit of {limit}")]
    TooLarge {
        /// What grew too large.
        what: String,
        /// The limit it reached.
        limit: u64,
    },
    /// A part is not well-formed XML (or uses an entity that is not resolved).
    #[error("malformed XML in {part}: {reason}")]
    Xml {
        /// The zip entry.
        part: String,
        /// What is wrong and where (byte offset in the part).
        reason: String,
    },
    /// The document has no text.
    #[error("the document has no text")]
    Empty,
}

/// Read a `.docx` file's stored text, title and layout.
pub fn docx_text(bytes: &[u8], limits: &DocxLimits) -> Result<DocxText, DocxError> {
    let mut package = Package::open(bytes, limits)?;
    let document = package
        .read("word/document.xml")?
        .ok_or(DocxError::NoDocument)?;
    let styles = match package.read("word/styles.xml")? {
        Some(xml) => parse_styles(&xml)?,
        None => Styles::default(),
    };
    let core_title = match package.read("docProps/core.xml")? {
        Some(xml) => parse_core_title(&xml)?,
        None => None,
    };
    let blocks = parse_body(&document, &styles)?;
    let doc = assemble(blocks, limits)?;
    if doc.out.text.is_empty() {
        return Err(DocxError::Empty);
    }
    Ok(doc.finish(core_title))
}

// ---------------------------------------------------------------------------------
// The zip package

/// The zip archive with a running count of inflated bytes.
struct Package<'a> {
    zip: zip::ZipArchive<Cursor<&'a [u8]>>,
    limits: DocxLimits,
    inflated: u64,
}

impl<'a> Package<'a> {
    fn open(bytes: &'a [u8], limits: &DocxLimits) -> Result<Self, DocxError> {
        let zip = zip::ZipArchive::new(Cursor::new(bytes))
            .map_err(|e| DocxError::NotZip(e.to_string()))?;
        if zip.len() > limits.max_entries {
            return Err(DocxError::TooLarge {
                what: format!("the zip's entry count ({})", zip.len()),
                limit: limits.max_entries as u64,
            });
        }
        Ok(Package {
            zip,
            limits: *limits,
            inflated: 0,
        })
    }

    /// The text of entry `name`, `None` when the zip has no such entry. Inflation stops
    /// at the limits whatever sizes the zip declares.
    fn read(&mut self, name: &str) -> Result<Option<String>, DocxError> {
        let damaged = |reason: String| DocxError::Damaged {
            part: name.to_string(),
            reason,
        };
        let entry = match self.zip.by_name(name) {
            Ok(entry) => entry,
            Err(zip::result::ZipError::FileNotFound) => return Ok(None),
            Err(e) => return Err(damaged(e.to_string())),
        };
        let left = self.limits.max_total_bytes.saturating_sub(self.inflated);
        let cap = self.limits.max_entry_bytes.min(left);
        let mut buf = Vec::new();
        entry
            .take(cap.saturating_add(1))
            .read_to_end(&mut buf)
            .map_err(|e| damaged(e.to_string()))?;
        let got = buf.len() as u64;
        if got > self.limits.max_entry_bytes {
            return Err(DocxError::TooLarge {
                what: format!("{name} (inflated)"),
                limit: self.limits.max_entry_bytes,
            });
        }
        if got > left {
            return Err(DocxError::TooLarge {
                what: "the inflated size of the zip's entries".into(),
                limit: self.limits.max_total_bytes,
            });
        }
        self.inflated += got;
        decode_part(name, buf).map(Some)
    }
}

/// A part's bytes as text: UTF-8 (BOM dropped) or UTF-16 with a BOM.
fn decode_part(name: &str, buf: Vec<u8>) -> Result<String, DocxError> {
    let utf16 = |bytes: &[u8], unit: fn([u8; 2]) -> u16| {
        let units = bytes.chunks_exact(2).map(|c| unit([c[0], c[1]]));
        char::decode_utf16(units)
            .collect::<Result<String, _>>()
            .ok()
    };
    let text = match buf.as_slice() {
        [0xFF, 0xFE, rest @ ..] => utf16(rest, u16::from_le_bytes),
        [0xFE, 0xFF, rest @ ..] => utf16(rest, u16::from_be_bytes),
        _ => match String::from_utf8(buf) {
            Ok(s) => Some(s.strip_prefix('\u{feff}').map(str::to_string).unwrap_or(s)),
            Err(e) => {
                let at = e.utf8_error().valid_up_to();
                return Err(xml_error(name, format!("not UTF-8 at byte {at}")));
            }
        },
    };
    text.ok_or_else(|| xml_error(name, "not valid UTF-16".into()))
}

fn xml_error(part: &str, reason: String) -> DocxError {
    DocxError::Xml {
        part: part.to_string(),
        reason,
    }
}

// ---------------------------------------------------------------------------------
// XML helpers

/// Reads events from one part, turning errors into [`DocxError::Xml`] with the position.
struct Events<'x> {
    part: &'static str,
    reader: Reader<&'x [u8]>,
    depth: usize,
}

impl<'x> Events<'x> {
    fn new(part: &'static str, xml: &'x str) -> Self {
        let mut reader = Reader::from_str(xml);
        reader.config_mut().check_end_names = true;
        reader.config_mut().expand_empty_elements = false;
        Events {
            part,
            reader,
            depth: 0,
        }
    }

    /// The next event; `None` at the end of a well-formed part.
    fn next(&mut self) -> Result<Option<Event<'x>>, DocxError> {
        match self.reader.read_event() {
            Ok(Event::Eof) if self.depth > 0 => Err(self.error("unexpected end of part".into())),
            Ok(Event::Eof) => Ok(None),
            Ok(event) => {
                match &event {
                    Event::Start(_) => self.depth += 1,
                    Event::End(_) => self.depth = self.depth.saturating_sub(1),
                    _ => {}
                }
                Ok(Some(event))
            }
            Err(e) => {
                let at = self.reader.error_position();
                Err(self.error(format!("{e} (at byte {at})")))
            }
        }
    }

    fn error(&self, reason: String) -> DocxError {
        xml_error(self.part, reason)
    }

    /// The text of an entity or character reference; unknown entities are an error.
    fn reference(&self, r: &BytesRef) -> Result<String, DocxError> {
        let at = self.reader.buffer_position();
        match r.resolve_char_ref() {
            Ok(Some(c)) => return Ok(c.to_string()),
            Ok(None) => {}
            Err(e) => return Err(self.error(format!("{e} (before byte {at})"))),
        }
        match quick_xml::escape::resolve_predefined_entity(r) {
            Some(s) => Ok(s.to_string()),
            None => Err(self.error(format!("unresolved entity &{}; (before byte {at})", &**r))),
        }
    }
}

/// The local name of an element (`w:p` → `p`).
fn local<'e>(e: &'e BytesStart<'_>) -> &'e str {
    e.local_name().into_inner()
}

/// The value of the attribute with local name `name` (`w:val` → `val`).
fn attr(e: &BytesStart, name: &str) -> Option<String> {
    e.attributes()
        .with_checks(false)
        .flatten()
        .find(|a| a.key.local_name().as_ref() == name)
        .and_then(|a| a.normalized_value(XmlVersion::Implicit1_0).ok())
        .map(|v| v.into_owned())
}

/// Whether an on/off property (`<w:tblHeader/>`, `w:val="true"`) is on.
fn is_on(e: &BytesStart) -> bool {
    !matches!(attr(e, "val").as_deref(), Some("0" | "false" | "off"))
}

/// The value of an outline level element (0 = top heading, 9 = body text).
fn outline_value(e: &BytesStart) -> Option<u8> {
    attr(e, "val")?.trim().parse().ok()
}

/// The heading level of an outline level value (`0` → 1); 9 and up is body text.
fn heading_level(outline: u8) -> Option<u8> {
    (outline < 9).then_some(outline + 1)
}

// ---------------------------------------------------------------------------------
// docProps/core.xml and word/styles.xml

/// `dc:title` from `docProps/core.xml`, whitespace-normalised; `None` when blank.
fn parse_core_title(xml: &str) -> Result<Option<String>, DocxError> {
    let mut events = Events::new("docProps/core.xml", xml);
    let mut title = Marked::default();
    let mut in_title = 0usize;
    while let Some(event) = events.next()? {
        match event {
            Event::Start(e) if in_title > 0 || local(&e) == "title" => in_title += 1,
            Event::End(_) if in_title > 0 => in_title -= 1,
            Event::Text(t) if in_title > 0 => title.push_collapsed(&t.xml10_content()),
            Event::CData(t) if in_title > 0 => title.push_collapsed(&t.xml10_content()),
            Event::GeneralRef(r) => {
                let s = events.reference(&r)?;
                if in_title > 0 {
                    title.push_collapsed(&s);
                }
            }
            _ => {}
        }
    }
    title.trim_end();
    Ok((!title.text.is_empty()).then_some(title.text))
}

/// What a style says about the paragraphs or runs in it.
#[derive(Debug, Default, Clone)]
struct Style {
    name: String,
    based_on: Option<String>,
    /// Its outline level (0 = top, 9 = body text).
    outline: Option<u8>,
    /// Whether its run properties hide text (`w:vanish`, `w:specVanish`), when they say.
    vanish: Option<bool>,
}

/// The styles of `word/styles.xml` by style id (paragraph and character styles share
/// one id space), and whether the document defaults hide text.
#[derive(Debug, Default)]
struct Styles {
    by_id: HashMap<String, Style>,
    default_vanish: bool,
}

/// The heading level a style name implies: Title → 1, "heading N" → N.
fn level_of_name(name: &str) -> Option<u8> {
    let name = name.trim().to_ascii_lowercase();
    if name == "title" {
        return Some(1);
    }
    let n: u8 = name.strip_prefix("heading")?.trim().parse().ok()?;
    (1..=9).contains(&n).then_some(n)
}

impl Styles {
    /// The name of style `id` (the id itself when styles.xml does not define it).
    fn name<'s>(&'s self, id: &'s str) -> &'s str {
        self.by_id.get(id).map_or(id, |s| s.name.as_str())
    }

    /// The heading level of paragraphs in style `id`, following `w:basedOn` for the
    /// outline level.
    fn level(&self, id: &str) -> Option<u8> {
        if let Some(level) = level_of_name(self.name(id)) {
            return Some(level);
        }
        let mut style = self.by_id.get(id)?;
        for _ in 0..MAX_STYLE_CHAIN {
            if let Some(outline) = style.outline {
                return heading_level(outline);
            }
            style = self.by_id.get(style.based_on.as_deref()?)?;
        }
        None
    }

    /// Whether style `id` hides its text, by the nearest style of its `w:basedOn` chain
    /// that says; `None` when none does. A chain longer than [`MAX_STYLE_CHAIN`] hides.
    fn vanish(&self, id: &str) -> Option<bool> {
        let mut style = self.by_id.get(id)?;
        for _ in 0..MAX_STYLE_CHAIN {
            if let Some(vanish) = style.vanish {
                return Some(vanish);
            }
            style = self.by_id.get(style.based_on.as_deref()?)?;
        }
        Some(true)
    }

    fn is_title(&self, id: &str) -> bool {
        self.name(id).trim().eq_ignore_ascii_case("title")
    }

    fn is_caption(&self, id: &str) -> bool {
        self.name(id).trim().eq_ignore_ascii_case("caption")
    }
}

/// Whether `e` is a hiding run property (`w:vanish`, `w:specVanish`) and its value.
fn vanish_of(e: &BytesStart) -> Option<bool> {
    matches!(local(e), "vanish" | "specVanish").then(|| is_on(e))
}

/// The styles of `word/styles.xml`: names, `w:basedOn`, outline levels, and whether a
/// style's own run properties (or the document defaults') hide text.
fn parse_styles(xml: &str) -> Result<Styles, DocxError> {
    let mut events = Events::new("word/styles.xml", xml);
    let mut styles = Styles::default();
    let mut current: Option<(String, Style)> = None;
    // The open elements' local names, to tell a style's own `w:rPr` from others.
    let mut path: Vec<String> = Vec::new();
    while let Some(event) = events.next()? {
        match &event {
            Event::Start(e) | Event::Empty(e) => {
                let in_rpr = |owner: &[&str]| {
                    path.len() > owner.len()
                        && path.last().is_some_and(|l| l == "rPr")
                        && path[path.len() - 1 - owner.len()..path.len() - 1] == *owner
                };
                if let Some(vanish) = vanish_of(e) {
                    match current.as_mut() {
                        Some((_, s)) if in_rpr(&["style"]) => s.vanish = Some(vanish),
                        None if in_rpr(&["docDefaults", "rPrDefault"]) => {
                            styles.default_vanish = vanish
                        }
                        _ => {}
                    }
                }
                style_property(e, &mut current);
            }
            Event::End(e) if e.local_name().as_ref() == "style" => {
                if let Some((id, style)) = current.take() {
                    styles.by_id.insert(id, style);
                }
            }
            Event::GeneralRef(r) => {
                events.reference(r)?;
            }
            _ => {}
        }
        match &event {
            Event::Start(e) => path.push(local(e).to_string()),
            Event::End(_) => {
                path.pop();
            }
            _ => {}
        }
    }
    Ok(styles)
}

/// Note what element `e` says about the style being read (a new `w:style` starts one).
fn style_property(e: &BytesStart, current: &mut Option<(String, Style)>) {
    match (local(e), current.as_mut()) {
        ("style", _) => *current = Some((attr(e, "styleId").unwrap_or_default(), Style::default())),
        ("name", Some((_, s))) => s.name = attr(e, "val").unwrap_or_default(),
        ("basedOn", Some((_, s))) => s.based_on = attr(e, "val"),
        ("outlineLvl", Some((_, s))) => s.outline = outline_value(e),
        _ => {}
    }
}

// ---------------------------------------------------------------------------------
// Text with page-break marks

/// Text with the offsets at which new pages start.
#[derive(Debug, Default, Clone)]
struct Marked {
    text: String,
    breaks: Vec<usize>,
}

impl Marked {
    /// Append `s`, collapsing whitespace runs to one space and dropping leading ones.
    fn push_collapsed(&mut self, s: &str) {
        for c in s.chars() {
            if c.is_whitespace() {
                if !self.text.is_empty() && !self.text.ends_with(' ') {
                    self.text.push(' ');
                }
            } else {
                self.text.push(c);
            }
        }
    }

    /// A new page starts where the next text goes.
    fn mark_page(&mut self) {
        self.breaks.push(self.text.len());
    }

    /// Drop a trailing space, keeping marks inside the text.
    fn trim_end(&mut self) {
        let len = self.text.trim_end().len();
        self.text.truncate(len);
        for b in &mut self.breaks {
            *b = (*b).min(len);
        }
    }

    /// Append `other` after `sep`. The separator is left out when either side is empty
    /// (unless `keep_empty`), and marks at the end of `self` move past it, so a page
    /// that starts at the end of one piece starts at the next piece's first byte.
    fn append(&mut self, sep: &str, other: Marked, keep_empty: bool) {
        let old = self.text.len();
        if other.text.is_empty() && !keep_empty {
            self.breaks.extend(other.breaks.iter().map(|_| old));
            return;
        }
        let skip = sep == " " && self.text.ends_with(' ');
        if (!self.text.is_empty() || keep_empty) && !skip {
            self.text.push_str(sep);
        }
        let base = self.text.len();
        // Marks are ascending, so the ones at the old end are the last ones.
        for b in self.breaks.iter_mut().rev().take_while(|b| **b == old) {
            *b = base;
        }
        self.breaks.extend(other.breaks.iter().map(|b| b + base));
        self.text.push_str(&other.text);
    }
}

// ---------------------------------------------------------------------------------
// word/document.xml: the body as paragraphs and tables

/// Elements whose content is left out: `mc:Fallback` repeats its `mc:Choice`,
/// `w:moveFrom` is the old place of moved text, `*Change` hold superseded properties.
const SKIPPED: &[&str] = &[
    "Fallback",
    "moveFrom",
    "pPrChange",
    "rPrChange",
    "sectPrChange",
    "tblPrChange",
    "trPrChange",
    "tcPrChange",
    "tblGridChange",
];

/// A finished body block.
#[derive(Debug)]
enum Block {
    Para(Para),
    Table(Vec<Row>),
}

/// A paragraph being read or finished.
#[derive(Debug, Default)]
struct Para {
    text: Marked,
    style: Option<String>,
    /// A direct outline level (0 = top, 9 = body text).
    outline: Option<u8>,
    level: Option<u8>,
    is_title: bool,
    is_caption: bool,
}

/// A table row: its cells' texts and whether it repeats as a header.
#[derive(Debug, Default)]
struct Row {
    cells: Vec<Marked>,
    header: bool,
}

impl Row {
    fn is_blank(&self) -> bool {
        self.cells.iter().all(|c| c.text.is_empty())
    }

    /// The row as one line: cells joined with `" | "`.
    fn line(self) -> Marked {
        let mut line = Marked::default();
        for (i, cell) in self.cells.into_iter().enumerate() {
            line.append(" | ", cell, i > 0);
        }
        line
    }
}

/// The cells of a row written as `line` at byte `start`, under `columns`; none when the
/// row's cells do not line up with the columns one to one.
fn row_cells(line: &str, start: usize, columns: &[String]) -> Vec<Cell> {
    let mut spans = Vec::new();
    let mut at = 0;
    for piece in line.split(" | ") {
        let lead = piece.len() - piece.trim_start().len();
        spans.push((at + lead, at + lead + piece.trim().len()));
        at += piece.len() + 3;
    }
    if spans.len() != columns.len() {
        return Vec::new();
    }
    spans
        .into_iter()
        .zip(columns)
        .map(|((a, b), column)| Cell {
            start: start + a,
            end: start + b,
            column: column.clone(),
        })
        .collect()
}

/// A table nested in a cell (or a paragraph) as flat text: rows joined by a space.
fn flatten_table(rows: Vec<Row>) -> Marked {
    let mut out = Marked::default();
    for row in rows {
        let blank = row.is_blank();
        let mut line = row.line();
        if blank {
            line.text.clear();
        }
        out.append(" ", line, false);
    }
    out
}

/// An open element of the body that collects text.
#[derive(Debug)]
enum Frame {
    Para(Para),
    Table(Vec<Row>),
    Row(Row),
    Cell(Marked),
}

impl Frame {
    /// The frame as flat text, for when it ends up inside something else.
    fn into_marked(self) -> Marked {
        match self {
            Frame::Para(p) => p.text,
            Frame::Cell(m) => m,
            Frame::Row(r) => r.line(),
            Frame::Table(rows) => flatten_table(rows),
        }
    }
}

/// A run (`w:r`) being read: its depth in the part and what its own properties say.
#[derive(Debug)]
struct Run {
    depth: usize,
    /// Inside its own `w:rPr`.
    in_props: bool,
    /// Its direct `w:vanish` / `w:specVanish`, when it has one.
    vanish: Option<bool>,
    /// Its character style (`w:rStyle`).
    style: Option<String>,
    /// Whether its paragraph's style (or the document defaults) hides text.
    para_hides: bool,
}

/// Reads the body of `word/document.xml` into blocks.
struct BodyReader<'s> {
    styles: &'s Styles,
    stack: Vec<Frame>,
    blocks: Vec<Block>,
    /// The open runs, outermost first (a text box in a run holds runs of its own).
    runs: Vec<Run>,
    /// The depth of the element the current event is about (the root is 1).
    depth: usize,
    /// Depth inside a left-out element (see [`SKIPPED`]).
    skip: usize,
    /// Depth inside `w:t` (text) elements.
    in_text: usize,
    /// Depth inside property elements (`w:pPr`, `w:rPr`, …), whose `w:tab`s are stops.
    in_props: usize,
}

fn parse_body(xml: &str, styles: &Styles) -> Result<Vec<Block>, DocxError> {
    let mut events = Events::new("word/document.xml", xml);
    let mut body = BodyReader {
        styles,
        stack: Vec::new(),
        blocks: Vec::new(),
        runs: Vec::new(),
        depth: 0,
        skip: 0,
        in_text: 0,
        in_props: 0,
    };
    while let Some(event) = events.next()? {
        if body.skip > 0 {
            match event {
                Event::Start(_) => body.skip += 1,
                Event::End(_) => body.skip -= 1,
                _ => {}
            }
            continue;
        }
        // `events.depth` counts the open elements: a start tag's own element is in it.
        body.depth = match event {
            Event::Start(_) => events.depth,
            _ => events.depth + 1,
        };
        match event {
            Event::Start(e) => body.start(&e),
            Event::Empty(e) => body.empty(&e),
            Event::End(e) => body.end(e.local_name().as_ref()),
            Event::Text(t) if body.in_text > 0 => body.push_text(&t.xml10_content()),
            Event::CData(t) if body.in_text > 0 => body.push_text(&t.xml10_content()),
            Event::GeneralRef(r) => {
                let s = events.reference(&r)?;
                if body.in_text > 0 {
                    body.push_text(&s);
                }
            }
            _ => {}
        }
    }
    while let Some(frame) = body.stack.pop() {
        body.finish(frame);
    }
    Ok(body.blocks)
}

impl BodyReader<'_> {
    fn para(&mut self) -> Option<&mut Para> {
        self.stack.iter_mut().rev().find_map(|f| match f {
            Frame::Para(p) => Some(p),
            _ => None,
        })
    }

    /// Text shown in the current paragraph; none inside a hidden run.
    fn push_text(&mut self, s: &str) {
        if self.hidden() {
            return;
        }
        if let Some(p) = self.para() {
            p.text.push_collapsed(s);
        }
    }

    /// Whether the text being read is hidden (see [`hides`]): any open run hides it, so
    /// a text box anchored in a hidden run is hidden too.
    fn hidden(&self) -> bool {
        self.runs.iter().any(|r| hides(r, self.styles))
    }

    /// A start tag: open frames, note properties, count text depth.
    fn start(&mut self, e: &BytesStart) {
        match local(e) {
            "p" => self.stack.push(Frame::Para(Para::default())),
            "tbl" => self.stack.push(Frame::Table(Vec::new())),
            "tr" => self.stack.push(Frame::Row(Row::default())),
            "tc" => self.stack.push(Frame::Cell(Marked::default())),
            "r" => self.open_run(),
            "t" => self.in_text += 1,
            name if SKIPPED.contains(&name) => self.skip = 1,
            "pPr" | "rPr" | "tblPr" | "trPr" | "tcPr" | "sectPr" | "tblGrid" => {
                if local(e) == "rPr" {
                    self.run_props(true);
                }
                self.in_props += 1
            }
            _ => self.empty(e),
        }
    }

    /// A run opens, inheriting what its paragraph's style says about hiding text.
    fn open_run(&mut self) {
        let styles = self.styles;
        let para_style = self.para().and_then(|p| p.style.clone());
        let para_hides = para_style
            .and_then(|s| styles.vanish(&s))
            .unwrap_or(styles.default_vanish);
        self.runs.push(Run {
            depth: self.depth,
            in_props: false,
            vanish: None,
            style: None,
            para_hides,
        });
    }

    /// The innermost run, when the current element is its own property element's child
    /// (`w:r/w:rPr/*`), not a property of something nested in the run.
    fn run_property_target(&mut self) -> Option<&mut Run> {
        let depth = self.depth;
        self.runs
            .last_mut()
            .filter(|r| r.in_props && depth == r.depth + 2)
    }

    /// The innermost run's own `w:rPr` opens or closes.
    fn run_props(&mut self, open: bool) {
        let depth = self.depth;
        if let Some(run) = self.runs.last_mut().filter(|r| depth == r.depth + 1) {
            run.in_props = open;
        }
    }

    /// An empty element (or the start of one whose content does not matter).
    fn empty(&mut self, e: &BytesStart) {
        let name = local(e);
        if let Some(vanish) = vanish_of(e) {
            if let Some(run) = self.run_property_target() {
                run.vanish = Some(vanish);
            }
            return;
        }
        if name == "rStyle" {
            let style = attr(e, "val");
            if let Some(run) = self.run_property_target() {
                run.style = style;
            }
            return;
        }
        match name {
            "pStyle" => {
                let style = attr(e, "val");
                if let Some(p) = self.para() {
                    p.style = style;
                }
            }
            "outlineLvl" => {
                let outline = outline_value(e);
                if let Some(p) = self.para() {
                    p.outline = outline;
                }
            }
            "pageBreakBefore" if is_on(e) => self.mark_page(),
            "tblHeader" if is_on(e) => {
                if let Some(Frame::Row(row)) = self.stack.last_mut() {
                    row.header = true;
                }
            }
            _ if self.in_props > 0 => {}
            "tab" | "ptab" | "cr" => self.push_text(" "),
            "noBreakHyphen" => self.push_text("-"),
            "lastRenderedPageBreak" => self.mark_page(),
            "br" => {
                self.push_text(" ");
                if attr(e, "type").as_deref() == Some("page") && !self.hidden() {
                    self.mark_page();
                }
            }
            // An empty paragraph or cell still opens and closes.
            "p" | "tbl" | "tr" | "tc" => {
                self.start(e);
                self.end(name);
            }
            _ => {}
        }
    }

    fn mark_page(&mut self) {
        if let Some(p) = self.para() {
            p.text.mark_page();
        }
    }

    /// An end tag: close the matching frame.
    fn end(&mut self, name: &str) {
        let frame = match (name, self.stack.last()) {
            ("p", Some(Frame::Para(_)))
            | ("tbl", Some(Frame::Table(_)))
            | ("tr", Some(Frame::Row(_)))
            | ("tc", Some(Frame::Cell(_))) => self.stack.pop(),
            _ => None,
        };
        match name {
            "t" => self.in_text = self.in_text.saturating_sub(1),
            "r" => {
                let depth = self.depth;
                if self.runs.last().is_some_and(|r| r.depth == depth) {
                    self.runs.pop();
                }
            }
            "pPr" | "rPr" | "tblPr" | "trPr" | "tcPr" | "sectPr" | "tblGrid" => {
                if name == "rPr" {
                    self.run_props(false);
                }
                self.in_props = self.in_props.saturating_sub(1)
            }
            _ => {}
        }
        if let Some(frame) = frame {
            self.finish(frame);
        }
    }

    /// Hand a closed frame to the one around it, or to the body.
    fn finish(&mut self, frame: Frame) {
        let frame = match frame {
            Frame::Para(mut p) => {
                p.text.trim_end();
                self.resolve_style(&mut p);
                Frame::Para(p)
            }
            other => other,
        };
        match (self.stack.last_mut(), frame) {
            (None, Frame::Para(p)) => self.blocks.push(Block::Para(p)),
            (None, Frame::Table(rows)) => self.blocks.push(Block::Table(rows)),
            (None, other) => self.blocks.push(Block::Para(Para {
                text: other.into_marked(),
                ..Para::default()
            })),
            (Some(Frame::Table(rows)), Frame::Row(row)) => rows.push(row),
            (Some(Frame::Table(rows)), other) => rows.push(Row {
                cells: vec![other.into_marked()],
                header: false,
            }),
            (Some(Frame::Row(row)), other) => row.cells.push(other.into_marked()),
            (Some(Frame::Cell(cell)), other) => cell.append(" ", other.into_marked(), false),
            (Some(Frame::Para(p)), other) => {
                p.text.append(" ", other.into_marked(), false);
                p.text.push_collapsed(" ");
            }
        }
    }

    fn resolve_style(&self, p: &mut Para) {
        let style = p.style.as_deref();
        p.level = match p.outline {
            Some(outline) => heading_level(outline),
            None => style.and_then(|s| self.styles.level(s)),
        };
        p.is_title = style.is_some_and(|s| self.styles.is_title(s));
        p.is_caption = style.is_some_and(|s| self.styles.is_caption(s));
    }
}

/// Whether `run` is hidden text (`w:vanish`: stored in the file, but neither shown nor
/// printed by Word), which is never evidence. The run's own property decides when it has
/// one (`w:val="0"` shows it); otherwise the text is hidden when its character style, its
/// paragraph's style or the document defaults hide it (each style by the nearest of its
/// `w:basedOn` chain that says). Word combines styles that both hide as shown again; this
/// rule keeps such text out, so hidden text never gets in.
fn hides(run: &Run, styles: &Styles) -> bool {
    run.vanish.unwrap_or_else(|| {
        run.para_hides
            || run
                .style
                .as_deref()
                .and_then(|s| styles.vanish(s))
                .unwrap_or(false)
    })
}

// ---------------------------------------------------------------------------------
// Text and layout

/// The stored text being assembled, with its headings and labels.
#[derive(Debug, Default)]
struct Doc {
    out: Marked,
    headings: Vec<Heading>,
    labels: Vec<Labelled>,
    label_bytes: u64,
    style_title: Option<String>,
    max_text: u64,
}

impl Doc {
    /// Append a block or row after `sep`; its span when it has text.
    fn push(&mut self, sep: &str, piece: Marked) -> Result<Option<(usize, usize)>, DocxError> {
        let piece_len = piece.text.len();
        self.out.append(sep, piece, false);
        self.check_size()?;
        let end = self.out.text.len();
        Ok((piece_len > 0).then_some((end - piece_len, end)))
    }

    fn check_size(&self) -> Result<(), DocxError> {
        let used = (self.out.text.len() as u64).saturating_add(self.label_bytes);
        if used > self.max_text {
            return Err(DocxError::TooLarge {
                what: "the document's text".into(),
                limit: self.max_text,
            });
        }
        Ok(())
    }

    fn paragraph(&mut self, p: Para) -> Result<(), DocxError> {
        let Some((start, end)) = self.push("\n\n", p.text)? else {
            return Ok(());
        };
        let title = &self.out.text[start..end];
        if p.is_title && self.style_title.is_none() {
            self.style_title = Some(title.to_string());
        }
        if let Some(level) = p.level {
            self.headings.push(Heading {
                start,
                end,
                level,
                title: title.to_string(),
            });
        }
        Ok(())
    }

    /// Append a table's rows, labelling each non-header row with the header (and
    /// `caption`).
    fn table(&mut self, rows: Vec<Row>, caption: Option<&str>) -> Result<(), DocxError> {
        let marked = rows.iter().any(|r| r.header);
        let mut header: Vec<&str> = Vec::new();
        // Each column's header cells, top to bottom (multi-level headers).
        let mut columns: Vec<Vec<&str>> = Vec::new();
        for (i, row) in rows.iter().enumerate() {
            if row.header || (!marked && i == 0) {
                header.extend(row.cells.iter().map(|c| c.text.as_str()));
                for (k, c) in row.cells.iter().enumerate() {
                    if columns.len() <= k {
                        columns.resize(k + 1, Vec::new());
                    }
                    if !c.text.trim().is_empty() {
                        columns[k].push(c.text.trim());
                    }
                }
            }
        }
        let columns: Vec<String> = columns.iter().map(|c| c.join(" ")).collect();
        header.retain(|h| !h.is_empty());
        let mut label = header.join(" | ");
        if let Some(caption) = caption {
            label = if label.is_empty() {
                caption.to_string()
            } else {
                format!("{caption}: {label}")
            };
        }
        let mut sep = "\n\n";
        for (i, row) in rows.into_iter().enumerate() {
            let is_header = row.header || (!marked && i == 0);
            let line = if row.is_blank() {
                Marked {
                    text: String::new(),
                    breaks: row
                        .cells
                        .into_iter()
                        .flat_map(|c| c.breaks)
                        .map(|_| 0)
                        .collect(),
                }
            } else {
                row.line()
            };
            let Some((start, end)) = self.push(sep, line)? else {
                continue;
            };
            sep = "\n";
            if !is_header && !label.is_empty() {
                self.label_bytes += label.len() as u64;
                self.check_size()?;
                let cells = row_cells(&self.out.text[start..end], start, &columns);
                self.labels.push(Labelled {
                    start,
                    end,
                    kind: LabelKind::Row,
                    label: label.clone(),
                    cells,
                });
            }
        }
        Ok(())
    }

    /// The page starts: 0, then each mark moved past whitespace; marks at the very end
    /// (an empty last page) are dropped.
    fn pages(&self) -> Vec<usize> {
        let text = &self.out.text;
        let mut pages = vec![0];
        for &b in &self.out.breaks {
            let rest = &text[b..];
            let at = b + (rest.len() - rest.trim_start().len());
            if at < text.len() {
                pages.push(at);
            }
        }
        pages.sort_unstable();
        pages.dedup();
        pages
    }

    fn finish(self, core_title: Option<String>) -> DocxText {
        let layout = Layout {
            extractor: Some(EXTRACTOR.to_string()),
            pages: self.pages(),
            headings: self.headings,
            labels: self.labels,
            ocr: None,
            source_map: None,
            shortfall: Vec::new(),
            authors: Vec::new(),
        };
        DocxText {
            text: self.out.text,
            title: core_title.or(self.style_title),
            layout,
        }
    }
}

/// The caption a paragraph gives a table right after it: its text when it is
/// Caption-styled or starts with "Table ".
fn caption_of(p: &Para) -> Option<String> {
    let text = p.text.text.as_str();
    (!text.is_empty() && (p.is_caption || text.starts_with("Table "))).then(|| text.to_string())
}

/// Lay the blocks out as the stored text.
fn assemble(blocks: Vec<Block>, limits: &DocxLimits) -> Result<Doc, DocxError> {
    let mut doc = Doc {
        max_text: limits.max_text_bytes,
        ..Doc::default()
    };
    let mut caption: Option<String> = None;
    for block in blocks {
        match block {
            Block::Para(p) if p.text.text.is_empty() => doc.paragraph(p)?,
            Block::Para(p) => {
                caption = caption_of(&p);
                doc.paragraph(p)?;
            }
            Block::Table(rows) => doc.table(rows, caption.take().as_deref())?,
        }
    }
    Ok(doc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use zip::write::SimpleFileOptions;

    const W: &str = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";

    const STYLES: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">
  <w:style w:type="paragraph" w:styleId="Normal"><w:name w:val="Normal"/></w:style>
  <w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/></w:style>
  <w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/>
    <w:pPr><w:outlineLvl w:val="0"/></w:pPr></w:style>
  <w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/>
    <w:basedOn w:val="Heading1"/><w:pPr><w:outlineLvl w:val="1"/></w:pPr></w:style>
  <w:style w:type="paragraph" w:styleId="MyHead"><w:name w:val="My Head"/>
    <w:basedOn w:val="Heading2"/></w:style>
  <w:style w:type="paragraph" w:styleId="Legende"><w:name w:val="caption"/></w:style>
  <w:style w:type="paragraph" w:styleId="ListParagraph"><w:name w:val="List Paragraph"/>
    <w:pPr><w:tabs><w:tab w:val="left" w:pos="720"/></w:tabs></w:pPr></w:style>
</w:styles>"#;

    fn document(body: &str) -> String {
        format!(
            r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="{W}"><w:body>{body}<w:sectPr><w:pgSz w:w="12240"/></w:sectPr></w:body></w:document>"#
        )
    }

    fn zip_of(parts: &[(&str, &str)]) -> Vec<u8> {
        let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
        for (name, content) in parts {
            zip.start_file(*name, SimpleFileOptions::default()).unwrap();
            zip.write_all(content.as_bytes()).unwrap();
        }
        zip.finish().unwrap().into_inner()
    }

    fn docx(body: &str) -> Vec<u8> {
        zip_of(&[
            ("word/document.xml", &document(body)),
            ("word/styles.xml", STYLES),
        ])
    }

    fn p(text: &str) -> String {
        format!(r#"<w:p><w:r><w:t xml:space="preserve">{text}</w:t></w:r></w:p>"#)
    }

    fn ps(style: &str, text: &str) -> String {
        format!(
            r#"<w:p><w:pPr><w:pStyle w:val="{style}"/></w:pPr><w:r><w:t>{text}</w:t></w:r></w:p>"#
        )
    }

    fn cell(text: &str) -> String {
        format!("<w:tc><w:tcPr/>{}</w:tc>", p(text))
    }

    fn row(cells: &[&str]) -> String {
        let cells: String = cells.iter().map(|c| cell(c)).collect();
        format!("<w:tr>{cells}</w:tr>")
    }

    fn load(bytes: &[u8]) -> DocxText {
        let doc = docx_text(bytes, &DocxLimits::default()).unwrap();
        doc.layout.check(&doc.text).unwrap();
        doc
    }

    fn span(doc: &DocxText, start: usize, end: usize) -> &str {
        &doc.text[start..end]
    }

    #[test]
    fn headings_paragraphs_and_a_list() {
        let list_item = |t: &str| {
            format!(
                r#"<w:p><w:pPr><w:pStyle w:val="ListParagraph"/><w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr></w:pPr><w:r><w:t>{t}</w:t></w:r></w:p>"#
            )
        };
        let body = [
            ps("Title", "Annual  Report"),
            ps("Heading1", "1 Scope"),
            p("  The   scope is\tbroad. "),
            "<w:p/><w:p><w:pPr><w:pStyle w:val=\"Normal\"/></w:pPr></w:p>".to_string(),
            ps("Heading2", "1.1 Details"),
            list_item("first item"),
            list_item("second item"),
            ps("MyHead", "1.2 Inherited"),
            r#"<w:p><w:pPr><w:outlineLvl w:val="0"/></w:pPr><w:r><w:t>2 Direct</w:t></w:r></w:p>"#
                .to_string(),
            r#"<w:p><w:r><w:t>a</w:t><w:tab/><w:t>b</w:t><w:br/><w:t>c</w:t><w:noBreakHyphen/><w:t>d</w:t></w:r></w:p>"#.to_string(),
        ]
        .concat();
        let doc = load(&docx(&body));
        assert_eq!(
            doc.text,
            "Annual Report\n\n1 Scope\n\nThe scope is broad.\n\n1.1 Details\n\nfirst item\n\n\
             second item\n\n1.2 Inherited\n\n2 Direct\n\na b c-d"
        );
        let got: Vec<(u8, &str)> = doc
            .layout
            .headings
            .iter()
            .map(|h| (h.level, span(&doc, h.start, h.end)))
            .collect();
        assert_eq!(
            got,
            [
                (1, "Annual Report"),
                (1, "1 Scope"),
                (2, "1.1 Details"),
                (2, "1.2 Inherited"),
                (1, "2 Direct")
            ]
        );
        assert!(doc
            .layout
            .headings
            .iter()
            .all(|h| h.title == span(&doc, h.start, h.end)));
        assert_eq!(doc.title.as_deref(), Some("Annual Report"));
        assert_eq!(doc.layout.pages, [0]);
        assert_eq!(doc.layout.extractor.as_deref(), Some(EXTRACTOR));
        let at = doc.text.find("second").unwrap();
        assert_eq!(doc.layout.section_path(at), ["1 Scope", "1.1 Details"]);
    }

    #[test]
    fn table_rows_are_lines_labelled_with_header_and_caption() {
        let table = format!(
            "<w:tbl><w:tblPr/><w:tblGrid/>{}{}{}</w:tbl>",
            row(&["Item", "Cost"]),
            row(&["Apples", "3"]),
            row(&["Pears", ""]),
        );
        let body = [
            p("Before."),
            ps("Legende", "Costs of fruit"),
            "<w:p/>".to_string(),
            table.clone(),
            p("Table 2 Second"),
            table,
            p("After."),
        ]
        .concat();
        let doc = load(&docx(&body));
        assert_eq!(
            doc.text,
            "Before.\n\nCosts of fruit\n\nItem | Cost\nApples | 3\nPears | \n\n\
             Table 2 Second\n\nItem | Cost\nApples | 3\nPears | \n\nAfter."
        );
        let labels: Vec<(&str, &str)> = doc
            .layout
            .labels
            .iter()
            .map(|l| (span(&doc, l.start, l.end), l.label.as_str()))
            .collect();
        assert_eq!(
            labels,
            [
                ("Apples | 3", "Costs of fruit: Item | Cost"),
                ("Pears | ", "Costs of fruit: Item | Cost"),
                ("Apples | 3", "Table 2 Second: Item | Cost"),
                ("Pears | ", "Table 2 Second: Item | Cost"),
            ]
        );
        assert!(doc.layout.labels.iter().all(|l| l.kind == LabelKind::Row));
        let cells: Vec<(&str, &str)> = doc.layout.labels[1]
            .cells
            .iter()
            .map(|c| (span(&doc, c.start, c.end), c.column.as_str()))
            .collect();
        assert_eq!(cells, [("Pears", "Item"), ("", "Cost")]);
        let at = doc.text.find("Apples").unwrap();
        assert_eq!(doc.layout.label_for(at, at + 6).unwrap().label, labels[0].1);
    }

    #[test]
    fn marked_header_rows_nested_tables_and_merged_cells() {
        let header = |cells: &[&str]| {
            row(cells).replacen("<w:tr>", "<w:tr><w:trPr><w:tblHeader/></w:trPr>", 1)
        };
        let nested = format!("<w:tbl>{}{}</w:tbl>", row(&["x", "y"]), row(&["z", ""]));
        let table = format!(
            "<w:tbl>{}{}{}<w:tr>{}<w:tc>{}{}</w:tc></w:tr><w:tr><w:tc/><w:tc><w:p/></w:tc></w:tr></w:tbl>",
            header(&["Year", ""]),
            header(&["", "Total"]),
            row(&["2020", "5"]),
            cell("2021"),
            p("see"),
            nested,
        );
        let doc = load(&docx(&[p("Intro"), table].concat()));
        assert_eq!(
            doc.text,
            "Intro\n\nYear | \n | Total\n2020 | 5\n2021 | see x | y z | "
        );
        let labels: Vec<(&str, &str)> = doc
            .layout
            .labels
            .iter()
            .map(|l| (span(&doc, l.start, l.end), l.label.as_str()))
            .collect();
        assert_eq!(
            labels,
            [
                ("2020 | 5", "Year | Total"),
                ("2021 | see x | y z | ", "Year | Total")
            ]
        );
    }

    #[test]
    fn page_breaks_start_pages_where_the_next_text_goes() {
        let body = [
            p("Page one."),
            // Explicit break at the end of a paragraph: page 2 starts at the next one.
            r#"<w:p><w:r><w:t>Still one.</w:t><w:br w:type="page"/></w:r></w:p>"#.to_string(),
            // Word's rendered break at its start, duplicating the explicit one.
            r#"<w:p><w:r><w:lastRenderedPageBreak/><w:t>Page two.</w:t></w:r></w:p>"#
                .to_string(),
            // A rendered break inside a paragraph.
            r#"<w:p><w:r><w:t xml:space="preserve">End of two </w:t></w:r><w:r><w:lastRenderedPageBreak/><w:t>top of three.</w:t></w:r></w:p>"#.to_string(),
            // An empty paragraph holding only a page break.
            r#"<w:p><w:r><w:br w:type="page"/></w:r></w:p>"#.to_string(),
            format!("<w:tbl>{}{}</w:tbl>", row(&["H", "I"]), row(&["page", "four"])),
            r#"<w:p><w:pPr><w:pageBreakBefore/></w:pPr><w:r><w:t>Page five.</w:t></w:r></w:p>"#
                .to_string(),
            r#"<w:p><w:r><w:br w:type="page"/></w:r></w:p>"#.to_string(),
        ]
        .concat();
        let doc = load(&docx(&body));
        let at = |s: &str| doc.text.find(s).unwrap();
        assert_eq!(
            doc.layout.pages,
            [
                0,
                at("Page two."),
                at("top of three."),
                at("H | I"),
                at("Page five.")
            ]
        );
        assert_eq!(doc.layout.page_of(at("Still one.")), Some(1));
        assert_eq!(doc.layout.page_of(at("Page two.")), Some(2));
        assert_eq!(doc.layout.page_of(at("End of two")), Some(2));
        assert_eq!(doc.layout.page_of(at("top of three")), Some(3));
        assert_eq!(doc.layout.page_of(at("page | four")), Some(4));
        assert_eq!(doc.layout.page_of(doc.text.len() - 1), Some(5));
    }

    #[test]
    fn revisions_fallbacks_text_boxes_and_tab_stops() {
        let body = [
            // Old formatting (Heading1) in pPrChange and a direct "body text" level.
            r#"<w:p><w:pPr><w:pStyle w:val="Normal"/><w:tabs><w:tab w:val="left" w:pos="720"/></w:tabs><w:pPrChange w:id="1"><w:pPr><w:pStyle w:val="Heading1"/></w:pPr></w:pPrChange></w:pPr><w:r><w:t>Plain</w:t></w:r></w:p>"#,
            r#"<w:p><w:pPr><w:pStyle w:val="Heading1"/><w:outlineLvl w:val="9"/></w:pPr><w:r><w:t>Not a heading</w:t></w:r></w:p>"#,
            r#"<w:p><w:moveFrom w:id="2"><w:r><w:t>moved away</w:t></w:r></w:moveFrom><w:del w:id="3"><w:r><w:delText>deleted</w:delText></w:r></w:del><w:ins w:id="4"><w:r><w:t>inserted</w:t></w:r></w:ins><w:r><w:instrText> PAGE </w:instrText></w:r></w:p>"#,
            r#"<w:p><w:r><w:t>Shape:</w:t></w:r><w:r><mc:AlternateContent xmlns:mc="m"><mc:Choice Requires="wps"><w:drawing><w:txbxContent><w:p><w:r><w:t>boxed</w:t></w:r></w:p><w:p><w:r><w:t>text</w:t></w:r></w:p></w:txbxContent></w:drawing></mc:Choice><mc:Fallback><w:pict><w:txbxContent><w:p><w:r><w:t>boxed</w:t></w:r></w:p></w:txbxContent></w:pict></mc:Fallback></mc:AlternateContent></w:r><w:r><w:t>after</w:t></w:r></w:p>"#,
        ]
        .concat();
        let doc = load(&docx(&body));
        assert_eq!(
            doc.text,
            "Plain\n\nNot a heading\n\ninserted\n\nShape: boxed text after"
        );
        assert!(doc.layout.headings.is_empty());
    }

    /// A run with run properties `props` and text `text`.
    fn run(props: &str, text: &str) -> String {
        format!(r#"<w:r><w:rPr>{props}</w:rPr><w:t xml:space="preserve">{text}</w:t></w:r>"#)
    }

    #[test]
    fn hidden_runs_are_not_text_whoever_hides_them() {
        let styles = STYLES.replace(
            "</w:styles>",
            r#"<w:style w:type="character" w:styleId="Secret"><w:name w:val="Secret"/><w:rPr><w:vanish/></w:rPr></w:style>
  <w:style w:type="character" w:styleId="SecretToo"><w:name w:val="Secret Too"/><w:basedOn w:val="Secret"/></w:style>
  <w:style w:type="character" w:styleId="Shown"><w:name w:val="Shown"/><w:basedOn w:val="Secret"/><w:rPr><w:vanish w:val="false"/></w:rPr></w:style>
  <w:style w:type="paragraph" w:styleId="Notes"><w:name w:val="Notes"/><w:rPr><w:vanish/></w:rPr></w:style>
  <w:style w:type="paragraph" w:styleId="Redlined"><w:name w:val="Redlined"/><w:rPr><w:rPrChange w:id="1"><w:rPr><w:vanish/></w:rPr></w:rPrChange></w:rPr></w:style>
</w:styles>"#,
        );
        let body = [
            format!("<w:p>{}{}{}</w:p>", run("", "Vendors "), run("<w:vanish/>", "with three carts "), run("", "pay $40.")),
            format!("<w:p>{}{}</w:p>", run(r#"<w:rStyle w:val="SecretToo"/>"#, "Inherited 17 hidden. "), run(r#"<w:rStyle w:val="Shown"/>"#, "Shown again.")),
            format!("<w:p>{}{}</w:p>", run(r#"<w:specVanish/>"#, "Special 19. "), run(r#"<w:vanish w:val="0"/>"#, "Explicitly visible.")),
            format!(r#"<w:p><w:pPr><w:pStyle w:val="Notes"/></w:pPr>{}{}</w:p>"#, run("", "Style hidden 23. "), run(r#"<w:vanish w:val="off"/>"#, "Unhidden in a hidden style.")),
            // The paragraph mark's properties hide the mark, not the text; superseded
            // properties hide nothing.
            format!(r#"<w:p><w:pPr><w:rPr><w:vanish/></w:rPr></w:pPr>{}</w:p>"#, run("", "Mark hidden, text shown.")),
            format!(r#"<w:p><w:pPr><w:pStyle w:val="Redlined"/></w:pPr>{}{}</w:p>"#, run(r#"<w:rPrChange w:id="2"><w:rPr><w:vanish/></w:rPr></w:rPrChange>"#, "Was hidden once. "), run("", "Still shown.")),
            // A text box in a hidden run is hidden; one in a shown run is not.
            format!(r#"<w:p><w:r><w:rPr><w:vanish/></w:rPr><w:drawing><w:txbxContent>{}</w:txbxContent></w:drawing></w:r><w:r><w:drawing><w:txbxContent>{}</w:txbxContent></w:drawing></w:r></w:p>"#, p("Boxed 29 hidden."), p("Boxed shown.")),
            format!("<w:p>{}<w:r><w:rPr><w:vanish/></w:rPr><w:br w:type=\"page\"/><w:tab/></w:r>{}</w:p>", run("", "One"), run("", "Two")),
        ]
        .concat();
        let bytes = zip_of(&[
            ("word/document.xml", &document(&body)),
            ("word/styles.xml", &styles),
        ]);
        let doc = load(&bytes);
        assert_eq!(
            doc.text,
            "Vendors pay $40.\n\nShown again.\n\nExplicitly visible.\n\nUnhidden in a hidden style.\n\n\
             Mark hidden, text shown.\n\nWas hidden once. Still shown.\n\nBoxed shown.\n\nOneTwo"
        );
        assert_eq!(
            doc.layout.pages,
            vec![0],
            "a hidden page break starts no page"
        );
        // Document defaults that hide make every run without its own say hidden.
        let hidden_default = STYLES.replacen(
            "<w:style ",
            r#"<w:docDefaults><w:rPrDefault><w:rPr><w:vanish/></w:rPr></w:rPrDefault></w:docDefaults><w:style "#,
            1,
        );
        let body = format!(
            "<w:p>{}{}</w:p>",
            run("", "Default hidden. "),
            run(r#"<w:vanish w:val="0"/>"#, "Own say.")
        );
        let bytes = zip_of(&[
            ("word/document.xml", &document(&body)),
            ("word/styles.xml", &hidden_default),
        ]);
        assert_eq!(load(&bytes).text, "Own say.");
    }

    #[test]
    fn title_comes_from_core_xml_then_a_title_paragraph() {
        let core = r#"<?xml version="1.0"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator>Me</dc:creator><dc:title> Fish &amp; Chips
  Report </dc:title></cp:coreProperties>"#;
        let body = document(&[ps("Title", "Styled title"), p("Text")].concat());
        let with_core = zip_of(&[
            ("word/document.xml", &body),
            ("word/styles.xml", STYLES),
            ("docProps/core.xml", core),
        ]);
        assert_eq!(
            load(&with_core).title.as_deref(),
            Some("Fish & Chips Report")
        );
        let blank_core = core.replace(" Fish &amp; Chips\n  Report ", " ");
        let styled = zip_of(&[
            ("word/document.xml", &body),
            ("word/styles.xml", STYLES),
            ("docProps/core.xml", &blank_core),
        ]);
        assert_eq!(load(&styled).title.as_deref(), Some("Styled title"));
        assert_eq!(load(&docx(&p("No title"))).title, None);
    }

    #[test]
    fn entities_decode_and_unknown_ones_fail() {
        let doc = load(&docx(&p(
            "Fish &amp; chips &lt;3 &#x41;&#66; &quot;ok&apos;",
        )));
        assert_eq!(doc.text, "Fish & chips <3 AB \"ok'");
        let xxe = format!(
            r#"<?xml version="1.0"?><!DOCTYPE w:document [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><w:document xmlns:w="{W}"><w:body><w:p><w:r><w:t>a &xxe; b</w:t></w:r></w:p></w:body></w:document>"#
        );
        let bytes = zip_of(&[("word/document.xml", &xxe)]);
        match docx_text(&bytes, &DocxLimits::default()) {
            Err(DocxError::Xml { part, reason }) => {
                assert_eq!(part, "word/document.xml");
                assert!(reason.contains("xxe"), "{reason}");
            }
            other => panic!("expected an Xml error, got {other:?}"),
        }
    }

    #[test]
    fn bad_packages_are_refused() {
        let limits = DocxLimits::default();
        assert!(matches!(
            docx_text(b"%PDF-1.7 not a zip", &limits),
            Err(DocxError::NotZip(_))
        ));
        assert!(matches!(docx_text(b"", &limits), Err(DocxError::NotZip(_))));
        let no_doc = zip_of(&[("word/styles.xml", STYLES), ("other.txt", "hi")]);
        assert_eq!(docx_text(&no_doc, &limits), Err(DocxError::NoDocument));
        let empty = docx(r#"<w:p/><w:p><w:r><w:t xml:space="preserve">   </w:t></w:r></w:p>"#);
        assert_eq!(docx_text(&empty, &limits), Err(DocxError::Empty));
        let names: Vec<String> = (0..5).map(|i| format!("f{i}.xml")).collect();
        let mut parts: Vec<(&str, &str)> = names.iter().map(|n| (n.as_str(), "x")).collect();
        let doc = document(&p("x"));
        parts.push(("word/document.xml", &doc));
        let few = DocxLimits {
            max_entries: 3,
            ..limits
        };
        assert!(matches!(
            docx_text(&zip_of(&parts), &few),
            Err(DocxError::TooLarge { limit: 3, .. })
        ));
        assert!(DocxError::NoDocument
            .to_string()
            .contains("word/document.xml"));
    }

    #[test]
    fn malformed_xml_names_the_part_and_position() {
        for xml in [
            format!(r#"<w:document xmlns:w="{W}"><w:body><w:p></w:r></w:body></w:document>"#),
            format!(r#"<w:document xmlns:w="{W}"><w:body><w:p><w:r><w:t>cut"#),
            "<w:document <<>>".to_string(),
        ] {
            let bytes = zip_of(&[("word/document.xml", &xml)]);
            match docx_text(&bytes, &DocxLimits::default()) {
                Err(DocxError::Xml { part, reason }) => {
                    assert_eq!(part, "word/document.xml");
                    assert!(
                        reason.contains("byte") || reason.contains("end"),
                        "{reason}"
                    );
                }
                other => panic!("expected an Xml error for {xml}, got {other:?}"),
            }
        }
        let bad_styles = zip_of(&[
            ("word/document.xml", &document(&p("x"))),
            ("word/styles.xml", "<w:styles><w:style></w:styles>"),
        ]);
        assert!(matches!(
            docx_text(&bad_styles, &DocxLimits::default()),
            Err(DocxError::Xml { part, .. }) if part == "word/styles.xml"
        ));
    }

    /// A zip whose document.xml is `size` bytes: a valid start, then zeros.
    fn bomb(size: usize) -> Vec<u8> {
        let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let options = SimpleFileOptions::default().large_file(size >= u32::MAX as usize);
        zip.start_file("word/document.xml", options).unwrap();
        let head = document(&p("boom"));
        zip.write_all(head.as_bytes()).unwrap();
        let zeros = vec![0u8; 1 << 20];
        let mut left = size - head.len();
        while left > 0 {
            let n = left.min(zeros.len());
            zip.write_all(&zeros[..n]).unwrap();
            left -= n;
        }
        zip.finish().unwrap().into_inner()
    }

    #[test]
    fn a_zip_bomb_stops_at_the_entry_limit() {
        let bytes = bomb(300 << 20);
        assert!(bytes.len() < 1 << 20, "compressed to {} bytes", bytes.len());
        let started = std::time::Instant::now();
        let err = docx_text(&bytes, &DocxLimits::default()).unwrap_err();
        assert!(
            matches!(&err, DocxError::TooLarge { what, limit } if what.contains("word/document.xml") && *limit == 64 << 20),
            "{err:?}"
        );
        assert!(started.elapsed().as_secs() < 10);
    }

    #[test]
    fn lying_declared_sizes_do_not_get_past_the_limits() {
        let mut bytes = bomb(4 << 20);
        // Claim 100 bytes inflated in the local header and the central directory.
        for (sig, at) in [(b"PK\x03\x04", 22), (b"PK\x01\x02", 24)] {
            let pos = bytes.windows(4).position(|w| w == sig).unwrap();
            bytes[pos + at..pos + at + 4].copy_from_slice(&100u32.to_le_bytes());
        }
        let small = DocxLimits {
            max_entry_bytes: 1 << 20,
            ..DocxLimits::default()
        };
        let err = docx_text(&bytes, &small).unwrap_err();
        assert!(
            matches!(err, DocxError::TooLarge { .. } | DocxError::Damaged { .. }),
            "{err:?}"
        );
        // A declared size far above the real one must not make anyone allocate it.
        let mut bytes = docx(&p("small"));
        for (sig, at) in [(b"PK\x03\x04", 22), (b"PK\x01\x02", 24)] {
            let pos = bytes.windows(4).position(|w| w == sig).unwrap();
            bytes[pos + at..pos + at + 4].copy_from_slice(&0xFFFF_FFF0u32.to_le_bytes());
        }
        match docx_text(&bytes, &DocxLimits::default()) {
            Ok(doc) => assert_eq!(doc.text, "small"),
            Err(err) => assert!(matches!(err, DocxError::Damaged { .. }), "{err:?}"),
        }
        let total = DocxLimits {
            max_total_bytes: 1 << 20,
            ..DocxLimits::default()
        };
        let err = docx_text(&bomb(2 << 20), &total).unwrap_err();
        assert!(
            matches!(&err, DocxError::TooLarge { limit, .. } if *limit == 1 << 20),
            "{err:?}"
        );
        let text = DocxLimits {
            max_text_bytes: 10,
            ..DocxLimits::default()
        };
        let err = docx_text(&docx(&p("more than ten bytes")), &text).unwrap_err();
        assert!(
            matches!(err, DocxError::TooLarge { limit: 10, .. }),
            "{err:?}"
        );
    }

    #[test]
    fn a_large_document_loads_in_linear_time() {
        let para =
            r#"<w:p><w:r><w:lastRenderedPageBreak/><w:t>Some words here, é.</w:t></w:r></w:p>"#;
        let table = format!("<w:tbl>{}</w:tbl>", row(&["h", "i"]).repeat(2000));
        let body = [para.repeat(100_000), table].concat();
        let started = std::time::Instant::now();
        let doc = load(&docx(&body));
        assert_eq!(doc.layout.pages.len(), 100_000);
        assert_eq!(doc.layout.labels.len(), 1999);
        assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
        let depth = 50_000;
        let open = "<w:tbl><w:tr><w:tc><w:p><w:r><w:t>x</w:t></w:r></w:p>".repeat(depth);
        let deep = load(&docx(
            &[open, "</w:tc></w:tr></w:tbl>".repeat(depth)].concat(),
        ));
        assert_eq!(deep.text.len(), 2 * depth - 1);
    }

    fn sample() -> Vec<u8> {
        let core = r#"<cp:coreProperties xmlns:cp="c" xmlns:dc="d"><dc:title>T</dc:title></cp:coreProperties>"#;
        let body = [
            ps("Heading1", "Über straße"),
            p("Ünïcödé text — with dashes"),
            format!("<w:tbl>{}{}</w:tbl>", row(&["Ä", "B"]), row(&["é", "ø"])),
            r#"<w:p><w:r><w:lastRenderedPageBreak/><w:t>après</w:t></w:r></w:p>"#.to_string(),
        ]
        .concat();
        zip_of(&[
            ("word/document.xml", &document(&body)),
            ("word/styles.xml", STYLES),
            ("docProps/core.xml", core),
        ])
    }

    #[test]
    fn every_truncation_fails_cleanly() {
        let bytes = sample();
        assert_eq!(load(&bytes).layout.pages.len(), 2);
        for len in 0..bytes.len() {
            if let Ok(doc) = docx_text(&bytes[..len], &DocxLimits::default()) {
                doc.layout.check(&doc.text).unwrap();
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn corrupted_bytes_never_panic(flips in proptest::collection::vec((0usize..1 << 16, 0u8..=255), 1..8)) {
            let mut bytes = sample();
            for (at, byte) in flips {
                let i = at % bytes.len();
                bytes[i] = byte;
            }
            if let Ok(doc) = docx_text(&bytes, &DocxLimits::default()) {
                doc.layout.check(&doc.text).unwrap();
            }
        }

        #[test]
        fn any_body_xml_lays_out_inside_its_text(body in "(<w:p>|</w:p>|<w:tbl>|</w:tbl>|<w:tr>|</w:tr>|<w:tc>|</w:tc>|<w:t>|</w:t>|<w:br w:type=\"page\"/>|<w:lastRenderedPageBreak/>|<w:p/>|<w:tc/>| |é|x|\t){0,40}") {
            let bytes = zip_of(&[("word/document.xml", &document(&body))]);
            if let Ok(doc) = docx_text(&bytes, &DocxLimits::default()) {
                doc.layout.check(&doc.text).unwrap();
                for w in doc.layout.pages.windows(2) {
                    proptest::prop_assert!(w[0] < w[1]);
                }
            }
        }
    }

    /// Whitespace runs collapsed to one space.
    fn collapse(s: &str) -> String {
        s.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    #[test]
    #[ignore = "needs /work/shared/data/realdocs"]
    fn real_va_lighthouse_rfi() {
        let root = std::path::Path::new("/work/shared/data/realdocs");
        let bytes = std::fs::read(root.join("docs/va-lighthouse-rfi-2018.docx")).unwrap();
        let doc = load(&bytes);
        println!(
            "title: {:?}\nlayout: {:#?}\n----\n{}\n----",
            doc.title, doc.layout, doc.text
        );
        let paragraphs =
            std::fs::read_to_string(root.join("text/va-lighthouse-rfi-2018.paragraphs.txt"))
                .unwrap();
        let mut from = 0;
        for line in paragraphs.lines() {
            let (page, para) = line.split_once("] ").unwrap();
            let page: usize = page.trim_start_matches("[p").parse().unwrap();
            let para = collapse(para);
            let at = from + doc.text[from..].find(&para).expect(&para);
            assert_eq!(doc.layout.page_of(at), Some(page), "{para}");
            from = at;
        }
        let questions = std::fs::read_to_string(root.join("questions.jsonl")).unwrap();
        for line in questions.lines() {
            let q: serde_json::Value = serde_json::from_str(line).unwrap();
            if q["doc"] != "va-lighthouse-rfi-2018.docx" || q["answerable"] != true {
                continue;
            }
            let evidence = collapse(q["evidence_text"].as_str().unwrap());
            let at = collapse(&doc.text).find(&evidence);
            let page = at
                .and_then(|_| doc.text.find(&evidence))
                .and_then(|a| doc.layout.page_of(a));
            println!(
                "{} found={} page={page:?} expected={}",
                q["id"],
                at.is_some(),
                q["page"]
            );
            assert!(at.is_some(), "{evidence}");
            assert_eq!(page, q["page"].as_u64().map(|p| p as usize));
        }
    }
}
