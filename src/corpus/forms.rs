//! Fillable PDF forms (AcroForm): each field's name, tooltip, value or checkbox state and
//! where its widget sits, read from the form itself rather than from the printed page.
//!
//! `pdftotext` prints a filled value where its widget is drawn but nothing for a box that
//! is not ticked, so "was box 3 ticked?" could only ever be answered "yes". Here every
//! widget becomes one [`Field`]: ticked, not ticked, a value, or not filled in. The loader
//! names each field by the caption printed next to it ([`caption`]), else its tooltip
//! (`/TU`), else its name (`/T`), and stores the fields as labelled "label: value" lines
//! before the page's own text. Reading runs in the bounded PDF worker of the
//! loader: the parser is `lopdf`, pinned in `Cargo.toml`.

use std::collections::HashMap;

use lopdf::{Dictionary, Document, Object, ObjectId};
use serde::{Deserialize, Serialize};

/// At most this many fields are read from one file; the rest are ignored.
pub const MAX_FIELDS: usize = 20_000;
/// Field trees deeper than this are not followed (a loop guard as much as a limit).
const MAX_DEPTH: usize = 32;
/// Values longer than this are cut (at a character boundary) before they are stored.
const MAX_VALUE_CHARS: usize = 2_000;

/// What a box's stored line writes between its caption and its state:
/// "Individual/sole proprietor (check box): not ticked".
pub const BOX_MARK: &str = " (check box): ";
/// The same for one button of a radio group.
pub const OPTION_MARK: &str = " (option): ";

/// What kind of field a widget belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum FieldKind {
    /// A text box.
    Text,
    /// A checkbox.
    Check,
    /// One button of a radio group.
    Radio,
    /// A list or combo box.
    Choice,
}

/// What a field holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum FieldValue {
    /// A text or choice value.
    Text(String),
    /// A text or choice field left empty.
    Empty,
    /// A checkbox or radio button: ticked or not.
    Ticked(bool),
}

impl FieldValue {
    /// The value as stored text: the value itself, "not filled in", "ticked", "not ticked".
    pub fn as_text(&self) -> &str {
        match self {
            FieldValue::Text(t) => t,
            FieldValue::Empty => "not filled in",
            FieldValue::Ticked(true) => "ticked",
            FieldValue::Ticked(false) => "not ticked",
        }
    }
}

/// One widget of a form field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Field {
    /// 1-based page the widget is drawn on.
    pub page: usize,
    /// The widget's rectangle in PDF points: left, bottom, right, top.
    pub rect: [f32; 4],
    /// The field's last name component (`/T`), without `[0]` indices.
    pub name: String,
    /// The field's tooltip (`/TU`), whitespace-collapsed.
    pub tooltip: Option<String>,
    /// Text, checkbox, radio button or choice.
    pub kind: FieldKind,
    /// Its value or state.
    pub value: FieldValue,
    /// Its page is upright (not rotated, its media box at the origin), so its rectangle
    /// is in the coordinates `pdftotext -bbox` prints and a caption can be read beside
    /// it; on other pages the field is named by its tooltip or name instead, never by
    /// words that may belong to a neighbour.
    #[serde(default)]
    pub upright: bool,
}

/// What a field inherits from its ancestors in the field tree.
#[derive(Clone, Default)]
struct Inherited {
    name: String,
    tooltip: Option<String>,
    ft: Option<Vec<u8>>,
    ff: i64,
    value: Option<Object>,
}

/// Every widget of the form in `bytes`, in field-tree order; an empty list when the
/// file has no form. An error says why the file could not be parsed.
pub fn read_fields(bytes: &[u8]) -> Result<Vec<Field>, String> {
    let doc = Document::load_mem(bytes).map_err(|e| e.to_string())?;
    let Some(fields) = form_roots(&doc) else {
        return Ok(Vec::new());
    };
    let mut walk = Walk {
        doc: &doc,
        pages: annotation_pages(&doc),
        page_ids: doc
            .get_pages()
            .into_iter()
            .map(|(n, id)| (id, n as usize))
            .collect(),
        seen: Default::default(),
        visits: 0,
        out: Vec::new(),
    };
    for root in fields {
        walk.visit(root, &Inherited::default(), 0);
    }
    walk.orphans();
    let upright = upright_pages(&doc);
    for f in &mut walk.out {
        f.upright = upright.contains(&f.page);
    }
    Ok(walk.out)
}

/// Pages not rotated whose media box starts at the origin.
fn upright_pages(doc: &Document) -> std::collections::HashSet<usize> {
    let zero = |o: &Object| o.as_float().is_ok_and(|v| v == 0.0);
    doc.get_pages()
        .into_iter()
        .filter(|(_, id)| {
            let rotate = inherited(doc, *id, b"Rotate").and_then(|o| o.as_i64().ok());
            let media = inherited(doc, *id, b"MediaBox").and_then(|o| o.as_array().ok());
            rotate.unwrap_or(0).rem_euclid(360) == 0
                && media.is_some_and(|m| m.len() == 4 && zero(&m[0]) && zero(&m[1]))
        })
        .map(|(n, _)| n as usize)
        .collect()
}

/// A page attribute, from the page or the nearest ancestor in the page tree that has it.
fn inherited<'d>(doc: &'d Document, page: ObjectId, key: &[u8]) -> Option<&'d Object> {
    let mut node = doc.get_dictionary(page).ok()?;
    for _ in 0..MAX_DEPTH {
        if let Ok(v) = node.get(key) {
            return doc.dereference(v).ok().map(|(_, o)| o);
        }
        let parent = node.get(b"Parent").ok()?.as_reference().ok()?;
        node = doc.get_dictionary(parent).ok()?;
    }
    None
}

/// The `/Fields` array of the catalog's `/AcroForm`, when there is one.
fn form_roots(doc: &Document) -> Option<Vec<&Object>> {
    let form = doc.catalog().ok()?.get(b"AcroForm").ok()?;
    let form = doc.dereference(form).ok()?.1.as_dict().ok()?;
    let fields = doc.dereference(form.get(b"Fields").ok()?).ok()?.1;
    Some(fields.as_array().ok()?.iter().collect())
}

/// Page number (1-based) of every annotation listed in a page's `/Annots`.
fn annotation_pages(doc: &Document) -> HashMap<ObjectId, usize> {
    let mut map = HashMap::new();
    for (number, id) in doc.get_pages() {
        let Ok(page) = doc.get_dictionary(id) else {
            continue;
        };
        let Some(annots) = page
            .get(b"Annots")
            .ok()
            .and_then(|a| doc.dereference(a).ok())
            .and_then(|(_, a)| a.as_array().ok())
        else {
            continue;
        };
        for a in annots {
            if let Object::Reference(r) = a {
                map.insert(*r, number as usize);
            }
        }
    }
    map
}

/// A walk over the field tree: every node is visited once (a tree whose kids point back
/// at their ancestors is read as far as it is a tree), at most [`MAX_VISITS`] nodes.
struct Walk<'a> {
    doc: &'a Document,
    /// Page number of each annotation a page lists.
    pages: HashMap<ObjectId, usize>,
    /// Page number of each page object.
    page_ids: HashMap<ObjectId, usize>,
    seen: std::collections::HashSet<ObjectId>,
    visits: usize,
    out: Vec<Field>,
}

/// Nodes of the field tree visited at most (fields, their kids and widgets).
const MAX_VISITS: usize = 4 * MAX_FIELDS;

impl Walk<'_> {
    /// Widgets a page lists in `/Annots` that the form's `/Fields` does not reach (forms
    /// whose `/Fields` is empty or incomplete), each with what its `/Parent` chain gives.
    fn orphans(&mut self) {
        let doc = self.doc;
        let mut ids: Vec<(ObjectId, usize)> = self.pages.iter().map(|(k, v)| (*k, *v)).collect();
        ids.sort_by_key(|(id, page)| (*page, *id));
        for (id, _) in ids {
            if self.seen.contains(&id) || self.out.len() >= MAX_FIELDS {
                continue;
            }
            let Ok(dict) = doc.get_dictionary(id) else {
                continue;
            };
            if dict.get(b"Subtype").and_then(Object::as_name).ok() != Some(b"Widget".as_slice()) {
                continue;
            }
            self.seen.insert(id);
            let inherited = ancestors(doc, dict)
                .iter()
                .rev()
                .fold(Inherited::default(), |acc, d| inherit(doc, d, &acc));
            let here = inherit(doc, dict, &inherited);
            if let Some(field) = widget(self, Some(id), dict, &here) {
                self.out.push(field);
            }
        }
    }

    /// Visit one node of the field tree: a field (with `/Kids`), or a widget (a leaf).
    fn visit(&mut self, node: &Object, parent: &Inherited, depth: usize) {
        self.visits += 1;
        if depth > MAX_DEPTH || self.out.len() >= MAX_FIELDS || self.visits > MAX_VISITS {
            return;
        }
        let doc = self.doc;
        let Ok((id, obj)) = doc.dereference(node) else {
            return;
        };
        if id.is_some_and(|id| !self.seen.insert(id)) {
            return;
        }
        let Ok(dict) = obj.as_dict() else {
            return;
        };
        let here = inherit(doc, dict, parent);
        let kids = dict
            .get(b"Kids")
            .ok()
            .and_then(|k| doc.dereference(k).ok())
            .and_then(|(_, k)| k.as_array().ok())
            .filter(|k| !k.is_empty());
        match kids {
            Some(kids) => {
                for kid in kids {
                    self.visit(kid, &here, depth + 1);
                }
            }
            None => {
                if let Some(field) = widget(self, id, dict, &here) {
                    self.out.push(field);
                }
            }
        }
    }
}

/// The `/Parent` chain of `dict`, nearest first (at most [`MAX_DEPTH`], no repeats).
fn ancestors<'a>(doc: &'a Document, dict: &'a Dictionary) -> Vec<&'a Dictionary> {
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut at = dict;
    while out.len() < MAX_DEPTH {
        let Some(parent) = at.get(b"Parent").ok().and_then(|p| p.as_reference().ok()) else {
            break;
        };
        let Ok(d) = doc.get_dictionary(parent) else {
            break;
        };
        if !seen.insert(parent) {
            break;
        }
        out.push(d);
        at = d;
    }
    out
}

/// The inheritable entries of `dict` over its parent's.
fn inherit(doc: &Document, dict: &Dictionary, parent: &Inherited) -> Inherited {
    let text = |key: &[u8]| {
        dict.get(key)
            .ok()
            .and_then(|o| doc.dereference(o).ok())
            .and_then(|(_, o)| lopdf::decode_text_string(o).ok())
            .map(|t| collapse(&t))
            .filter(|t| !t.is_empty())
    };
    let resolved = |key: &[u8]| {
        dict.get(key)
            .ok()
            .and_then(|o| doc.dereference(o).ok())
            .map(|(_, o)| o.clone())
    };
    Inherited {
        name: text(b"T").map_or_else(|| parent.name.clone(), |t| short_name(&t)),
        tooltip: text(b"TU").or_else(|| parent.tooltip.clone()),
        ft: resolved(b"FT")
            .and_then(|o| o.as_name().ok().map(<[u8]>::to_vec))
            .or_else(|| parent.ft.clone()),
        ff: resolved(b"Ff")
            .and_then(|o| o.as_i64().ok())
            .unwrap_or(parent.ff),
        value: resolved(b"V").or_else(|| parent.value.clone()),
    }
}

/// A leaf of the field tree as a [`Field`]; `None` for push buttons, signatures and
/// widgets on no page.
fn widget(
    walk: &Walk,
    id: Option<ObjectId>,
    dict: &Dictionary,
    field: &Inherited,
) -> Option<Field> {
    let doc = walk.doc;
    let page = id
        .and_then(|id| walk.pages.get(&id).copied())
        .or_else(|| {
            let p = dict.get(b"P").ok()?.as_reference().ok()?;
            walk.page_ids.get(&p).copied()
        })
        .filter(|p| *p >= 1)?;
    let rect = rect_of(doc, dict)?;
    let (kind, value) = match field.ft.as_deref()? {
        b"Btn" if field.ff & (1 << 16) != 0 => return None, // a push button
        b"Btn" => {
            let radio = field.ff & (1 << 15) != 0;
            let kind = if radio {
                FieldKind::Radio
            } else {
                FieldKind::Check
            };
            (kind, FieldValue::Ticked(button_on(doc, dict, field)))
        }
        b"Tx" => (FieldKind::Text, text_value(field.value.as_ref())),
        b"Ch" => (FieldKind::Choice, text_value(field.value.as_ref())),
        _ => return None,
    };
    Some(Field {
        page,
        rect,
        name: field.name.clone(),
        tooltip: field.tooltip.clone(),
        kind,
        value,
        upright: true,
    })
}

/// Whether a checkbox or radio button is on: its appearance state `/AS` names an "on"
/// appearance (anything but `Off`); without `/AS`, the field's value `/V` does.
fn button_on(doc: &Document, dict: &Dictionary, field: &Inherited) -> bool {
    let state = dict
        .get(b"AS")
        .ok()
        .and_then(|o| doc.dereference(o).ok())
        .and_then(|(_, o)| o.as_name().ok().map(<[u8]>::to_vec));
    match state {
        Some(s) => s != b"Off",
        None => field
            .value
            .as_ref()
            .and_then(|v| v.as_name().ok())
            .is_some_and(|v| v != b"Off"),
    }
}

/// A text or choice value (a multiple choice joined with ", ").
fn text_value(value: Option<&Object>) -> FieldValue {
    let text = match value {
        Some(Object::Array(items)) => items
            .iter()
            .filter_map(|o| lopdf::decode_text_string(o).ok())
            .collect::<Vec<_>>()
            .join(", "),
        Some(o @ Object::String(..)) => lopdf::decode_text_string(o).unwrap_or_default(),
        Some(Object::Name(n)) => String::from_utf8_lossy(n).into_owned(),
        _ => String::new(),
    };
    let text = collapse(&text);
    if text.is_empty() {
        return FieldValue::Empty;
    }
    let cut: String = text.chars().take(MAX_VALUE_CHARS).collect();
    FieldValue::Text(cut)
}

/// A widget's `/Rect`, normalised so that left < right and bottom < top.
fn rect_of(doc: &Document, dict: &Dictionary) -> Option<[f32; 4]> {
    let arr = doc
        .dereference(dict.get(b"Rect").ok()?)
        .ok()?
        .1
        .as_array()
        .ok()?;
    let n: Vec<f32> = arr.iter().filter_map(|o| o.as_float().ok()).collect();
    let [a, b, c, d] = n[..] else {
        return None;
    };
    if ![a, b, c, d].iter().all(|v| v.is_finite()) {
        return None;
    }
    Some([a.min(c), b.min(d), a.max(c), b.max(d)])
}

/// A field name's last component without XFA's `[0]` indices.
fn short_name(t: &str) -> String {
    let t = t.rsplit('.').find(|p| !p.is_empty()).unwrap_or(t);
    let mut out = String::new();
    let mut depth = 0usize;
    for c in t.chars() {
        match c {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            c if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// Whitespace runs as one space, trimmed.
fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A word printed on a page, in top-left page coordinates (points), as `pdftotext -bbox`
/// reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct Word {
    /// Left, top, right, bottom.
    pub bbox: [f32; 4],
    /// The word.
    pub text: String,
}

/// One page's printed words and widgets, prepared for [`caption`].
#[derive(Debug, Default)]
pub struct PageWords {
    /// Words outside every widget (a filled value is never a caption).
    free: Vec<Word>,
    /// The page's widgets in top-left coordinates.
    widgets: Vec<[f32; 4]>,
    height: f32,
}

impl PageWords {
    /// Prepare a page of `height` points with its `words` and its widgets' PDF rectangles.
    pub fn new(height: f32, words: Vec<Word>, rects: &[[f32; 4]]) -> PageWords {
        let widgets: Vec<[f32; 4]> = rects.iter().map(|r| top_left(*r, height)).collect();
        let free = words
            .into_iter()
            .filter(|w| !widgets.iter().any(|b| inside(w, b)))
            .collect();
        PageWords {
            free,
            widgets,
            height,
        }
    }
}

/// The caption printed next to a widget: for a box, the words right of it on its line
/// (else left of it); for a text or choice field, the words left of it on its line, else
/// the line just above it.
pub fn caption(field: &Field, page: &PageWords) -> Option<String> {
    if !field.upright {
        return None;
    }
    let r = top_left(field.rect, page.height);
    let row: Vec<&Word> = page
        .free
        .iter()
        .filter(|w| {
            let mid = (w.bbox[1] + w.bbox[3]) / 2.0;
            mid >= r[1] - 2.0 && mid <= r[3] + 2.0
        })
        .collect();
    let right = || run_right(&row, r[2], &page.widgets);
    let left = || run_left(&row, r[0]);
    let found = match field.kind {
        FieldKind::Check | FieldKind::Radio => right().or_else(left),
        FieldKind::Text | FieldKind::Choice => left()
            .filter(|c| c.ends_with(':') || c.split(' ').count() <= LEFT_CAPTION_WORDS)
            .or_else(|| line_above(&page.free, r)),
    };
    found.filter(|c| c.chars().any(char::is_alphanumeric))
}

/// A PDF rectangle (left, bottom, right, top; origin bottom-left) in top-left
/// coordinates (left, top, right, bottom).
fn top_left(rect: [f32; 4], height: f32) -> [f32; 4] {
    [rect[0], height - rect[3], rect[2], height - rect[1]]
}

/// Whether a word's centre lies inside a (top-left) rectangle.
fn inside(w: &Word, r: &[f32; 4]) -> bool {
    let (x, y) = ((w.bbox[0] + w.bbox[2]) / 2.0, (w.bbox[1] + w.bbox[3]) / 2.0);
    x >= r[0] && x <= r[2] && y >= r[1] && y <= r[3]
}

/// Words that form a phrase: consecutive words closer than this many points.
const PHRASE_GAP: f32 = 9.0;
/// The first caption word starts within this many points of the widget.
const CAPTION_REACH: f32 = 24.0;
/// A caption has at most this many words.
const CAPTION_WORDS: usize = 14;

/// The phrase starting just right of `x`, up to the next widget on the line.
fn run_right(row: &[&Word], x: f32, widgets: &[[f32; 4]]) -> Option<String> {
    let mut words: Vec<&Word> = row
        .iter()
        .copied()
        .filter(|w| w.bbox[0] >= x - 1.0)
        .collect();
    words.sort_by(|a, b| a.bbox[0].total_cmp(&b.bbox[0]));
    let first = words.first()?;
    if first.bbox[0] - x > CAPTION_REACH {
        return None;
    }
    let line = (first.bbox[1], first.bbox[3]);
    let stop = widgets
        .iter()
        .filter(|b| b[0] > x + 1.0 && b[1] < line.1 && b[3] > line.0)
        .map(|b| b[0])
        .fold(f32::INFINITY, f32::min);
    let mut taken = vec![*first];
    for w in words[1..].iter().filter(|w| same_line(first, w)) {
        let prev = taken[taken.len() - 1];
        if w.bbox[0] - prev.bbox[2] > PHRASE_GAP || w.bbox[2] > stop || taken.len() >= CAPTION_WORDS
        {
            break;
        }
        taken.push(w);
    }
    Some(join_words(&taken))
}

/// A longer phrase left of a text field is the end of a paragraph line, not its caption
/// (unless it ends with a colon).
const LEFT_CAPTION_WORDS: usize = 6;

/// Whether `w`'s vertical centre lies within `first`'s line.
fn same_line(first: &Word, w: &Word) -> bool {
    let mid = (w.bbox[1] + w.bbox[3]) / 2.0;
    mid >= first.bbox[1] && mid <= first.bbox[3]
}

/// The phrase ending just left of `x`.
fn run_left(row: &[&Word], x: f32) -> Option<String> {
    let mut words: Vec<&Word> = row
        .iter()
        .copied()
        .filter(|w| w.bbox[2] <= x + 1.0)
        .collect();
    words.sort_by(|a, b| b.bbox[2].total_cmp(&a.bbox[2]));
    let last = words.first()?;
    if x - last.bbox[2] > CAPTION_REACH {
        return None;
    }
    let mut taken = vec![*last];
    for w in words[1..].iter().filter(|w| same_line(last, w)) {
        let next = taken[taken.len() - 1];
        if next.bbox[0] - w.bbox[2] > PHRASE_GAP || taken.len() >= CAPTION_WORDS {
            break;
        }
        taken.push(w);
    }
    taken.reverse();
    Some(join_words(&taken))
}

/// The words of the nearest line above a (top-left) rectangle that overlap it sideways.
fn line_above(words: &[Word], r: [f32; 4]) -> Option<String> {
    let above: Vec<&Word> = words
        .iter()
        .filter(|w| w.bbox[3] <= r[1] + 2.0 && w.bbox[3] >= r[1] - 16.0)
        .filter(|w| w.bbox[2] > r[0] && w.bbox[0] < r[2])
        .collect();
    let bottom = above
        .iter()
        .map(|w| w.bbox[3])
        .fold(f32::NEG_INFINITY, f32::max);
    let mut line: Vec<&Word> = above
        .into_iter()
        .filter(|w| (w.bbox[3] - bottom).abs() < 3.0)
        .collect();
    line.sort_by(|a, b| a.bbox[0].total_cmp(&b.bbox[0]));
    line.truncate(CAPTION_WORDS);
    (!line.is_empty()).then(|| join_words(&line))
}

fn join_words(words: &[&Word]) -> String {
    words
        .iter()
        .map(|w| w.text.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The stored line of a field under `label`: "label: value", with the kind of a box
/// ("(check box)", "(option)") before its state.
pub fn line(field: &Field, label: &str) -> String {
    let mark = match field.kind {
        FieldKind::Check => BOX_MARK,
        FieldKind::Radio => OPTION_MARK,
        FieldKind::Text | FieldKind::Choice => ": ",
    };
    format!("{label}{mark}{}", field.value.as_text())
}

/// The label a field is stored under: its caption, else its tooltip, else its name.
pub fn label(field: &Field, caption: Option<String>) -> String {
    let label = caption
        .or_else(|| field.tooltip.clone())
        .unwrap_or_else(|| field.name.clone());
    let label = label.trim_end_matches([':', ' ']).to_string();
    if label.is_empty() {
        "Unnamed field".to_string()
    } else {
        label
    }
}

/// Parse `pdftotext -bbox` output: per page, its height and its words.
pub fn parse_bbox(html: &str) -> Vec<(f32, Vec<Word>)> {
    let mut pages: Vec<(f32, Vec<Word>)> = Vec::new();
    for line in html.lines() {
        let line = line.trim();
        if line.starts_with("<page ") {
            pages.push((attr(line, "height").unwrap_or(792.0), Vec::new()));
        } else if let (true, Some(page)) = (line.starts_with("<word "), pages.last_mut()) {
            let Some((attrs, text)) = line.split_once('>') else {
                continue;
            };
            let text = text.strip_suffix("</word>").unwrap_or(text);
            let nums = ["xMin", "yMin", "xMax", "yMax"].map(|k| attr(attrs, k));
            if let [Some(a), Some(b), Some(c), Some(d)] = nums {
                page.1.push(Word {
                    bbox: [a, b, c, d],
                    text: unescape(text),
                });
            }
        }
    }
    pages
}

/// The number in `name="…"` of an HTML tag's attributes.
fn attr(tag: &str, name: &str) -> Option<f32> {
    let key = format!(" {name}=\"");
    let at = tag.find(&key)? + key.len();
    let end = tag[at..].find('"')? + at;
    tag[at..end].parse().ok().filter(|v: &f32| v.is_finite())
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(x0: f32, y0: f32, x1: f32, text: &str) -> Word {
        Word {
            bbox: [x0, y0, x1, y0 + 10.0],
            text: text.into(),
        }
    }

    fn field(kind: FieldKind, rect: [f32; 4]) -> Field {
        Field {
            page: 1,
            rect,
            name: "c1_1".into(),
            tooltip: None,
            kind,
            value: FieldValue::Ticked(false),
            upright: true,
        }
    }

    #[test]
    fn a_box_is_captioned_by_the_words_right_of_it_up_to_the_next_box() {
        // Two boxes on one line (PDF y 100..110 on a 800-point page: top-left y 690..700).
        let a = [70.0, 100.0, 80.0, 110.0];
        let b = [180.0, 100.0, 190.0, 110.0];
        let words = vec![
            word(84.0, 690.0, 130.0, "Individual/sole"),
            word(133.0, 690.0, 170.0, "proprietor"),
            word(194.0, 690.0, 204.0, "C"),
            word(207.0, 690.0, 260.0, "corporation"),
            word(84.0, 650.0, 130.0, "Elsewhere"),
        ];
        let page = PageWords::new(800.0, words, &[a, b]);
        let got = caption(&field(FieldKind::Check, a), &page);
        assert_eq!(got.as_deref(), Some("Individual/sole proprietor"));
        let got = caption(&field(FieldKind::Check, b), &page);
        assert_eq!(got.as_deref(), Some("C corporation"));
    }

    #[test]
    fn a_text_field_is_captioned_left_of_it_or_by_the_line_above() {
        let f = [150.0, 100.0, 300.0, 112.0]; // top-left y 688..700
        let left = vec![
            word(90.0, 690.0, 140.0, "Name:"),
            word(160.0, 690.0, 200.0, "Smith"),
        ];
        let got = caption(
            &field(FieldKind::Text, f),
            &PageWords::new(800.0, left, &[f]),
        );
        assert_eq!(
            got.as_deref(),
            Some("Name:"),
            "the filled value is not a caption"
        );
        let above = vec![
            word(150.0, 676.0, 190.0, "1"),
            word(194.0, 676.0, 260.0, "Telephone"),
        ];
        let got = caption(
            &field(FieldKind::Text, f),
            &PageWords::new(800.0, above, &[f]),
        );
        assert_eq!(got.as_deref(), Some("1 Telephone"));
        let empty = PageWords::new(800.0, Vec::new(), &[f]);
        assert_eq!(caption(&field(FieldKind::Text, f), &empty), None);
    }

    #[test]
    fn labels_fall_back_to_tooltip_then_name() {
        let mut f = field(FieldKind::Check, [0.0; 4]);
        assert_eq!(label(&f, Some("Box 3:".into())), "Box 3");
        f.tooltip = Some("Amended report".into());
        assert_eq!(label(&f, None), "Amended report");
        f.tooltip = None;
        assert_eq!(label(&f, None), "c1_1");
        assert_eq!(short_name("topmostSubform[0].c1_1[3]"), "c1_1");
    }

    #[test]
    fn bbox_output_is_parsed_per_page() {
        let html = "<doc>\n<page width=\"612.000000\" height=\"792.000000\">\n\
            <word xMin=\"72.0\" yMin=\"70.5\" xMax=\"96.6\" yMax=\"83.3\">A&amp;B</word>\n\
            <word xMin=\"NaN\" yMin=\"70.5\" xMax=\"96.6\" yMax=\"83.3\">bad</word>\n</page>\n\
            <page width=\"612\" height=\"1008\">\n</page>\n</doc>";
        let pages = parse_bbox(html);
        assert_eq!(pages.len(), 2);
        assert_eq!(pages[0].0, 792.0);
        assert_eq!(
            pages[0].1,
            vec![Word {
                bbox: [72.0, 70.5, 96.6, 83.3],
                text: "A&B".into()
            }]
        );
        assert_eq!(pages[1].0, 1008.0);
    }

    #[test]
    fn values_read_as_stated() {
        assert_eq!(FieldValue::Ticked(false).as_text(), "not ticked");
        assert_eq!(FieldValue::Ticked(true).as_text(), "ticked");
        assert_eq!(FieldValue::Empty.as_text(), "not filled in");
        let long = Object::string_literal("x".repeat(5000));
        assert!(
            matches!(text_value(Some(&long)), FieldValue::Text(t) if t.len() == MAX_VALUE_CHARS)
        );
        assert_eq!(
            text_value(Some(&Object::string_literal("  "))),
            FieldValue::Empty
        );
        assert_eq!(text_value(None), FieldValue::Empty);
    }

    /// A one-page PDF whose form has `fields` (built by each caller from the page id).
    fn pdf_with(fields: impl FnOnce(&mut Document, ObjectId) -> Vec<Object>) -> Vec<u8> {
        pdf_with_pages(lopdf::Dictionary::new(), fields)
    }

    /// [`pdf_with`], its page tree's root also holding `extra` (inherited by the page).
    fn pdf_with_pages(
        extra: lopdf::Dictionary,
        fields: impl FnOnce(&mut Document, ObjectId) -> Vec<Object>,
    ) -> Vec<u8> {
        use lopdf::dictionary;
        let mut doc = Document::with_version("1.5");
        let pages_id = doc.new_object_id();
        let page_id = doc.add_object(dictionary! {
            "Type" => "Page",
            "Parent" => pages_id,
            "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
        });
        let roots = fields(&mut doc, page_id);
        let mut pages =
            dictionary! { "Type" => "Pages", "Kids" => vec![page_id.into()], "Count" => 1 };
        pages.extend(&extra);
        doc.objects.insert(pages_id, Object::Dictionary(pages));
        let catalog = doc.add_object(dictionary! {
            "Type" => "Catalog",
            "Pages" => pages_id,
            "AcroForm" => dictionary! { "Fields" => roots },
        });
        doc.trailer.set("Root", catalog);
        let mut bytes = Vec::new();
        doc.save_to(&mut bytes).unwrap();
        bytes
    }

    #[test]
    fn a_field_tree_that_loops_back_is_read_once() {
        use lopdf::dictionary;
        let bytes = pdf_with(|doc, page| {
            let parent = doc.new_object_id();
            let widget = doc.add_object(dictionary! {
                "Subtype" => "Widget", "Parent" => parent, "P" => page,
                "Rect" => vec![10.into(), 10.into(), 20.into(), 20.into()], "AS" => "Yes",
            });
            // The parent lists its widget, itself and its widget again.
            let kids: Vec<Object> = vec![widget.into(), parent.into(), widget.into()];
            let field = dictionary! { "FT" => "Btn", "T" => Object::string_literal("agree"), "Kids" => kids };
            doc.objects.insert(parent, Object::Dictionary(field));
            vec![parent.into(), parent.into()]
        });
        let fields = read_fields(&bytes).unwrap();
        assert_eq!(fields.len(), 1, "{fields:?}");
        assert_eq!(fields[0].name, "agree");
        assert_eq!(fields[0].page, 1);
        assert_eq!(fields[0].value, FieldValue::Ticked(true));
    }

    #[test]
    fn widgets_without_a_page_or_a_finite_rectangle_are_skipped() {
        use lopdf::dictionary;
        let bytes = pdf_with(|doc, page| {
            let nan = doc.add_object(dictionary! {
                "FT" => "Tx", "T" => Object::string_literal("nan"), "P" => page,
                "Rect" => vec![Object::Real(f32::NAN), 0.into(), 1.into(), 1.into()],
            });
            let nowhere = doc.add_object(dictionary! {
                "FT" => "Tx", "T" => Object::string_literal("nowhere"),
                "Rect" => vec![0.into(), 0.into(), 1.into(), 1.into()],
            });
            let push = doc.add_object(dictionary! {
                "FT" => "Btn", "Ff" => 1 << 16, "T" => Object::string_literal("submit"), "P" => page,
                "Rect" => vec![0.into(), 0.into(), 1.into(), 1.into()],
            });
            let ok = doc.add_object(dictionary! {
                "FT" => "Tx", "T" => Object::string_literal("name"), "P" => page,
                "V" => Object::string_literal("Ann"),
                "Rect" => vec![30.into(), 700.into(), 200.into(), 712.into()],
            });
            vec![nan.into(), nowhere.into(), push.into(), ok.into()]
        });
        let fields = read_fields(&bytes).unwrap();
        let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["name"]);
        assert_eq!(fields[0].value, FieldValue::Text("Ann".into()));
    }

    #[test]
    fn a_field_on_a_rotated_page_is_not_captioned_by_its_neighbours() {
        use lopdf::dictionary;
        let widget = |doc: &mut Document, page: ObjectId| {
            vec![doc
                .add_object(dictionary! {
                    "FT" => "Btn", "T" => Object::string_literal("c1"), "TU" => Object::string_literal("Exempt payee"),
                    "P" => page, "AS" => "Yes",
                    "Rect" => vec![70.into(), 100.into(), 80.into(), 110.into()],
                })
                .into()]
        };
        let upright = read_fields(&pdf_with(widget)).unwrap();
        assert!(upright[0].upright);
        let rotated = dictionary! { "Rotate" => 90 };
        let fields = read_fields(&pdf_with_pages(rotated, widget)).unwrap();
        assert!(!fields[0].upright, "Rotate inherited from the page tree");
        // Words beside where the rectangle would be upright are not its caption.
        let page = PageWords::new(
            800.0,
            vec![word(82.0, 691.0, 140.0, "Other")],
            &[fields[0].rect],
        );
        assert_eq!(caption(&fields[0], &page), None);
        assert_eq!(label(&fields[0], None), "Exempt payee");
        assert!(caption(&upright[0], &page).is_some());
    }

    #[test]
    fn a_file_without_a_form_has_no_fields_and_garbage_is_an_error() {
        assert_eq!(
            read_fields(&pdf_with(|_, _| Vec::new())).unwrap(),
            Vec::new()
        );
        assert!(read_fields(b"not a pdf").is_err());
    }
}
