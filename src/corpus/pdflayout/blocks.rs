//! Output: a page's lines built into paragraphs (joined, dehyphenated), headings, tables
//! and forms, each line with its label, then written into the stored text and its layout.

use super::kinds::colon_label;
use super::tables::{is_amount, row_cells};
use super::{collapse, CellAt, Kind, Kinds, Seg};
use crate::corpus::layout::{Cell, Heading, LabelKind, Labelled, Layout};
use crate::corpus::tablehead;

/// What labels an output line: the kind, the label and (table rows) the cells.
type Tag = (LabelKind, String, Vec<CellAt>);

/// One output line and its label.
type OutLine = (String, Option<Tag>);

/// A paragraph, heading, table or form: lines joined by `\n`, blocks by `\n\n`.
#[derive(Debug, Default)]
pub(super) struct Block {
    lines: Vec<OutLine>,
    heading: Option<u8>,
}

impl Block {
    pub(super) fn line(text: String, label: Option<Tag>) -> Block {
        Block {
            lines: vec![(text, label)],
            heading: None,
        }
    }
}

/// Whether a line opens a list item (`•`, `–`, `(a)`, `1.`).
fn is_bullet(text: &str) -> bool {
    let first = text.split(' ').next().unwrap_or_default();
    let marks = ["•", "–", "-", "—", "▪", "●", "◦", "*", "", "o"];
    let inner = first.strip_prefix('(').and_then(|f| f.strip_suffix(')'));
    let numbered = first.strip_suffix(['.', ')']).is_some_and(|n| {
        (1..=2).contains(&n.len()) && n.chars().all(|c| c.is_ascii_alphanumeric())
    });
    marks.contains(&first)
        || inner.is_some_and(|n| (1..=3).contains(&n.len()) && n.chars().all(char::is_alphanumeric))
        || (numbered && text.len() > first.len())
}

/// Whether a paragraph ends a sentence.
fn ends_sentence(text: &str) -> bool {
    let t = text.trim_end_matches(['”', '’', '"', '\'', ')']);
    t.ends_with(['.', ':', ';', '!', '?'])
}

/// Append line `next` to paragraph `text`, undoing end-of-line hyphenation.
fn join(text: &mut String, next: &str) {
    let next_lower = next.chars().next().is_some_and(char::is_lowercase);
    if let Some(stem) = text.strip_suffix('-').filter(|s| !s.ends_with('-')) {
        let word: String = stem
            .chars()
            .rev()
            .take_while(|c| c.is_alphanumeric())
            .collect();
        let letters = word.chars().count() >= 2 && word.chars().all(char::is_alphabetic);
        if letters && next_lower {
            text.pop();
            text.push_str(next);
            return;
        }
        if !word.is_empty() {
            text.push_str(next);
            return;
        }
    }
    let dash = text.strip_suffix(['–', '—']);
    if dash.is_some_and(|s| s.chars().last().is_some_and(char::is_alphanumeric)) {
        text.push_str(next);
        return;
    }
    text.push(' ');
    text.push_str(next);
}

/// A paragraph being assembled.
#[derive(Default)]
struct Para {
    text: String,
    col: usize,
}

impl Para {
    fn flush(&mut self, blocks: &mut Vec<Block>) {
        if !self.text.is_empty() {
            blocks.push(Block::line(std::mem::take(&mut self.text), None));
        }
    }

    /// Add a prose line, starting a new paragraph at a bullet or an indent.
    fn add(&mut self, seg: &Seg, blocks: &mut Vec<Block>) {
        let text = seg.text();
        if !self.text.is_empty() {
            let brk = is_bullet(&text)
                || if seg.part_start {
                    ends_sentence(&self.text)
                } else {
                    seg.col >= self.col + 2
                };
            if brk {
                self.flush(blocks);
            }
        }
        if self.text.is_empty() {
            self.text = text;
        } else {
            join(&mut self.text, &text);
        }
        self.col = seg.col;
    }
}

/// The blocks of one page in reading order.
pub(super) fn build_blocks(lines: &[Seg], k: &Kinds) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut para = Para::default();
    let mut i = 0;
    while i < lines.len() {
        let open_sentence = !para.text.is_empty() && !ends_sentence(&para.text);
        let skip = k.kinds[i] == Kind::Blank && lines[i].hollow && open_sentence;
        if !matches!(k.kinds[i], Kind::Prose) && !skip {
            para.flush(&mut blocks);
        }
        match k.kinds[i] {
            Kind::Blank => {}
            Kind::Prose => match lone_amount(lines, k, i) {
                Some(label) => {
                    para.flush(&mut blocks);
                    blocks.push(Block::line(
                        lines[i].text(),
                        Some((LabelKind::Value, label, Vec::new())),
                    ));
                }
                None => para.add(&lines[i], &mut blocks),
            },
            Kind::Heading(level) => blocks.push(Block {
                heading: Some(level),
                ..Block::line(lines[i].text(), None)
            }),
            Kind::Colon => {
                let text = lines[i].text();
                let label = colon_label(&text).unwrap_or_default().to_string();
                blocks.push(Block::line(
                    text,
                    Some((LabelKind::Value, label, Vec::new())),
                ));
            }
            Kind::FormLabel => {
                let has_values = k.kinds.get(i + 1) == Some(&Kind::FormValue);
                blocks.push(form_block(k, i, has_values));
                i += usize::from(has_values);
            }
            Kind::FormValue => blocks.push(Block::line(lines[i].text(), None)),
            Kind::Row(t) | Kind::RowCont(t) => {
                let end = (i..lines.len())
                    .find(|&j| !matches!(k.kinds[j], Kind::Row(u) | Kind::RowCont(u) if u == t))
                    .unwrap_or(lines.len());
                blocks.push(table_block(lines, k, i, end, t));
                i = end;
                continue;
            }
        }
        i += 1;
    }
    para.flush(&mut blocks);
    blocks
}

/// Lines above a lone amount searched for the label it fills in.
const LONE_LABEL_REACH: usize = 6;

/// Lines of a lone amount's label, at most.
const LONE_LABEL_LINES: usize = 3;

/// Whether `t` holds letters or digits.
fn has_text(t: &str) -> bool {
    t.chars().any(char::is_alphanumeric)
}

/// For prose line `i` that holds one amount and nothing else but marks ("101224.65",
/// "▲ 2942627.29"): the label it fills in, a form's printed line above it past blank and
/// mark-only lines ("7. Total Disbursements (from Line 31)" of a summary page), its
/// wrapped lines joined; `None` when a line above holds an amount first (a column of
/// figures), or for any other line.
fn lone_amount(lines: &[Seg], k: &Kinds, i: usize) -> Option<String> {
    let text = lines[i].text();
    let body = text.trim_matches(|c: char| !c.is_alphanumeric() && c != '$');
    if body.contains(' ') || !is_amount(body) {
        return None;
    }
    let mut label: Vec<String> = Vec::new();
    for j in (i.saturating_sub(LONE_LABEL_REACH)..i).rev() {
        let t = lines[j].text();
        if k.kinds[j] == Kind::Blank || !has_text(&t) {
            if label.is_empty() {
                continue;
            }
            break;
        }
        // A printed line split by its leaders into cells ("7." | "Total Disbursements")
        // reads as a row of words, not of figures.
        let worded = matches!(
            k.kinds[j],
            Kind::Prose | Kind::Heading(_) | Kind::Row(_) | Kind::RowCont(_)
        );
        if !worded || t.split(' ').any(is_amount) {
            if label.is_empty() {
                return None;
            }
            break;
        }
        if label.len() == LONE_LABEL_LINES {
            break;
        }
        label.push(t.trim_end_matches([' ', ',', '.', '▲', '▼']).to_string());
    }
    label.reverse();
    let label = collapse(&label.join(" "));
    (label.chars().filter(|c| c.is_alphabetic()).count() >= 4).then_some(label)
}

/// A label line and, when present, each value cell below it on its own line.
fn form_block(k: &Kinds, i: usize, has_values: bool) -> Block {
    let labels = &k.cells[i];
    let text = collapse(
        &labels
            .iter()
            .map(|c| c.1.as_str())
            .collect::<Vec<_>>()
            .join(" "),
    );
    let mut block = Block::line(text, None);
    if has_values {
        for (col, value) in &k.cells[i + 1] {
            let label = labels
                .iter()
                .min_by_key(|(c, _)| c.abs_diff(*col))
                .map(|l| l.1.clone());
            block.lines.push((
                value.clone(),
                label.map(|l| (LabelKind::Value, l, Vec::new())),
            ));
        }
    }
    block
}

/// Rows `start..end` of table `t`, one line each, wrapped cells appended to their row.
fn table_block(lines: &[Seg], k: &Kinds, start: usize, end: usize, t: usize) -> Block {
    let table = &k.tables[t];
    let mut block = Block::default();
    for (j, line) in lines.iter().enumerate().take(end).skip(start) {
        let text = line.text();
        match (k.kinds[j], block.lines.last_mut()) {
            (Kind::RowCont(_), Some(last)) => {
                last.0.push(' ');
                last.0.push_str(&text);
            }
            _ => {
                let data = j >= table.first_data && !table.label.is_empty();
                let label = data.then(|| {
                    let ordered = table
                        .leaves
                        .as_ref()
                        .and_then(|l| tablehead::ordered_cells(&text, l));
                    let cells =
                        ordered.unwrap_or_else(|| row_cells(&text, &k.cells[j], &table.headers));
                    (LabelKind::Row, table.label.clone(), cells)
                });
                block.lines.push((text, label));
            }
        }
    }
    block
}

/// The stored text and layout being written.
#[derive(Default)]
pub(super) struct Output {
    text: String,
    layout: Layout,
    starts: Vec<Option<usize>>,
}

impl Output {
    pub(super) fn start_page(&mut self) {
        self.starts.push(None);
    }

    /// Append a block; the first block of a page records where the page starts.
    pub(super) fn push_block(&mut self, block: Block) {
        let lines: Vec<OutLine> = block
            .lines
            .into_iter()
            .filter(|l| !l.0.is_empty())
            .collect();
        if lines.is_empty() {
            return;
        }
        if !self.text.is_empty() {
            self.text.push_str("\n\n");
        }
        if let Some(s @ None) = self.starts.last_mut() {
            *s = Some(self.text.len());
        }
        for (j, (line, label)) in lines.into_iter().enumerate() {
            if j > 0 {
                self.text.push('\n');
            }
            let start = self.text.len();
            self.text.push_str(&line);
            let end = self.text.len();
            if let Some(level) = block.heading {
                let title = line.clone();
                self.layout.headings.push(Heading {
                    start,
                    end,
                    level,
                    title,
                });
            }
            if let Some((kind, label, cells)) = label {
                let cells = cells
                    .into_iter()
                    .map(|(s, e, column)| Cell {
                        start: start + s,
                        end: start + e,
                        column,
                    })
                    .collect();
                self.layout.labels.push(Labelled {
                    start,
                    end,
                    kind,
                    label,
                    cells,
                });
            }
        }
    }

    /// The text and layout; a page without text starts where the next text starts.
    pub(super) fn finish(mut self) -> (String, Layout) {
        let mut next = self.text.len();
        let mut pages = vec![0; self.starts.len()];
        for (i, s) in self.starts.iter().enumerate().rev() {
            next = s.unwrap_or(next);
            pages[i] = next;
        }
        self.layout.pages = pages;
        (self.text, self.layout)
    }
}
