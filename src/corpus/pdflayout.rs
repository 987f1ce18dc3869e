//! PDF text assembly: turns the `pdftotext -layout` text of each page into clean stored
//! text — running headers and footers dropped, multi-column prose read column by column,
//! prose lines joined into paragraphs, table rows and form values kept on their own lines —
//! and the [`Layout`] (pages, headings, labelled rows and values) that describes it.

use super::layout::{Cell, Heading, LabelKind, Labelled, Layout, CAPTION_WORDS};
use super::tablehead::{self, is_no_value, HeadLine, Leaves};

/// Version of the assembly rules, recorded with each document's extractor.
pub const LAYOUT_VERSION: u32 = 9;

/// Lines at the top and at the bottom of a page searched for running headers and footers.
const BAND: usize = 3;
/// Widest character column searched for a gutter (keeps very long lines linear).
const MAX_WIDTH: usize = 400;
/// Deepest nesting of column splits.
const MAX_DEPTH: usize = 6;
/// Slack, in characters, when matching cell columns.
const ALIGN: usize = 3;

/// Turn the `pdftotext -layout` text of each page into clean stored text and its layout.
pub fn assemble(pages: &[String]) -> (String, Layout) {
    assemble_with_fields(pages, &[])
}

/// [`assemble`], with each page's form fields before the page's text (`fields[i]` for
/// page `i + 1`: label and "label: value" line), each line a labelled value.
pub fn assemble_with_fields(
    pages: &[String],
    fields: &[Vec<(String, String)>],
) -> (String, Layout) {
    let mut lines: Vec<Vec<Seg>> = pages.iter().map(|p| page_lines(p)).collect();
    drop_running_lines(&mut lines);
    let mut out = Output::default();
    for (i, page) in lines.into_iter().enumerate() {
        let mut ordered = Vec::new();
        reorder(page, 0, &mut ordered);
        join_hanging_stubs(&mut ordered);
        out.start_page();
        // Before the page's own text: after it, the fields would read as part of the
        // page's last section.
        for block in fields
            .get(i)
            .map_or_else(Vec::new, |f| field_blocks(i + 1, f))
        {
            out.push_block(block);
        }
        let kinds = classify(&ordered);
        for block in build_blocks(&ordered, &kinds) {
            out.push_block(block);
        }
    }
    out.finish()
}

/// A page's form fields as blocks: a plain line saying what follows, then one labelled
/// "label: value" line per field, each its own paragraph (a sentence of its own).
fn field_blocks(page: usize, fields: &[(String, String)]) -> Vec<Block> {
    if fields.is_empty() {
        return Vec::new();
    }
    let mut blocks = vec![Block::line(
        format!("Form fields on page {page}, as filled in:"),
        None,
    )];
    for (label, line) in fields {
        let tag = (LabelKind::Value, label.clone(), Vec::new());
        blocks.push(Block::line(line.clone(), Some(tag)));
    }
    blocks
}

/// A line (or the part of one) placed at a character column.
#[derive(Clone, Debug, Default)]
struct Seg {
    /// Character column of the first character.
    col: usize,
    /// The characters, without leading or trailing spaces; whitespace is a plain space.
    chars: Vec<char>,
    /// First line of a column read after another column (indentation is not comparable).
    part_start: bool,
    /// Blank only in this column: the line holds text in another column.
    hollow: bool,
}

impl Seg {
    /// A segment of `chars` starting at column `col`, trimmed.
    fn new(col: usize, chars: &[char]) -> Seg {
        let lead = chars.iter().take_while(|c| **c == ' ').count();
        let trail = chars[lead..]
            .iter()
            .rev()
            .take_while(|c| **c == ' ')
            .count();
        Seg {
            col: col + lead,
            chars: chars[lead..chars.len() - trail].to_vec(),
            ..Seg::default()
        }
    }

    fn is_blank(&self) -> bool {
        self.chars.is_empty()
    }

    fn end(&self) -> usize {
        self.col + self.chars.len()
    }

    /// Whether column `x` holds a visible character.
    fn occupied(&self, x: usize) -> bool {
        x >= self.col && x < self.end() && self.chars[x - self.col] != ' '
    }

    /// The parts left and right of column `x`.
    fn split_at(&self, x: usize) -> (Seg, Seg) {
        let cut = x.saturating_sub(self.col).min(self.chars.len());
        let hollow = |mut s: Seg| {
            s.hollow = s.is_blank() && (self.hollow || !self.is_blank());
            s
        };
        (
            hollow(Seg::new(self.col, &self.chars[..cut])),
            hollow(Seg::new(self.col + cut, &self.chars[cut..])),
        )
    }

    /// The text with runs of spaces collapsed.
    fn text(&self) -> String {
        collapse(&self.chars.iter().collect::<String>())
    }
}

/// `s` with whitespace runs collapsed to one space and no leading or trailing space.
fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The lines of one page, whitespace and control characters turned into spaces.
fn page_lines(page: &str) -> Vec<Seg> {
    page.split('\n')
        .map(|l| {
            let chars: Vec<char> = l
                .chars()
                .map(|c| {
                    if c.is_whitespace() || c.is_control() {
                        ' '
                    } else {
                        c
                    }
                })
                .collect();
            let mut chars = chars;
            blank_leaders(&mut chars);
            Seg::new(0, &chars)
        })
        .collect()
}

/// Dots of a leader in a run of at least this many.
const LEADER_DOTS: usize = 4;

/// Turn dot leaders (`Robbery. . . . . . 102.1`, `Contents ........ 5`: four dots or
/// more, each next to the last or one or two spaces apart) into spaces, so the columns they lead
/// to stay apart and the stored text holds no dots that say nothing.
fn blank_leaders(chars: &mut [char]) {
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '.' {
            i += 1;
            continue;
        }
        let (mut p, mut dots) = (i, 0);
        while p < chars.len() && chars[p] == '.' {
            dots += 1;
            p += 1;
            // One or two spaces apart ("Total . .  .  .  .").
            let spaces = chars[p..].iter().take(3).take_while(|c| **c == ' ').count();
            if spaces <= 2 && chars.get(p + spaces) == Some(&'.') {
                p += spaces;
            }
        }
        if dots >= LEADER_DOTS {
            chars[i..p].iter_mut().for_each(|c| *c = ' ');
        }
        i = p.max(i + 1);
    }
}

/// Indexes of the first and last [`BAND`] non-blank lines of a page.
fn band(page: &[Seg]) -> Vec<usize> {
    let filled: Vec<usize> = (0..page.len()).filter(|&i| !page[i].is_blank()).collect();
    let mut idx: Vec<usize> = filled.iter().take(BAND).copied().collect();
    idx.extend(filled.iter().rev().take(BAND));
    idx.sort_unstable();
    idx.dedup();
    idx
}

/// Normalised form of a header line: digits → `#`, whitespace collapsed, lower-cased.
fn normalise(s: &Seg) -> String {
    let t: String = s
        .text()
        .chars()
        .map(|c| if c.is_ascii_digit() { '#' } else { c })
        .collect();
    t.to_lowercase()
}

/// Whether a line is a lone page number or folio (`3`, `- 3 -`, `Page 3 of 10`, `iv`).
fn is_folio(s: &Seg) -> bool {
    let t = s.text().to_lowercase();
    let t = t.strip_prefix("page").unwrap_or(&t);
    let t = t.trim_matches(|c: char| c == '-' || c == '–' || c == '—' || c == ' ');
    let (num, of) = match t.split_once(" of ") {
        Some((a, b)) => (a.trim(), Some(b.trim())),
        None => (t, None),
    };
    let digits = |x: &str| !x.is_empty() && x.len() <= 6 && x.chars().all(|c| c.is_ascii_digit());
    let roman = !num.is_empty() && num.len() <= 4 && num.chars().all(|c| "ivxl".contains(c));
    (digits(num) || (roman && of.is_none())) && of.is_none_or(digits)
}

/// Fewest cells holding figures that make a line a table's data row: its figures are
/// data even when another page's row has the same shape (`$0 - 24,999  1,000  1,011`).
const DATA_ROW_FIGURES: usize = 3;

/// Whether a line is a data row (see [`DATA_ROW_FIGURES`]).
fn is_data_row(seg: &Seg) -> bool {
    let figures = cells(seg)
        .iter()
        .filter(|(_, t)| t.chars().any(|c| c.is_ascii_digit()))
        .count();
    figures >= DATA_ROW_FIGURES
}

/// Blank out running headers, footers and folios (rule: recurs in the band on at least
/// half the pages with text, and on at least 2; a data row is not one, whatever its
/// shape).
fn drop_running_lines(pages: &mut [Vec<Seg>]) {
    drop_stamps(pages);
    let bands: Vec<Vec<usize>> = pages
        .iter()
        .map(|p| {
            band(p)
                .into_iter()
                .filter(|&i| !is_data_row(&p[i]))
                .collect()
        })
        .collect();
    let mut counts: std::collections::HashMap<String, usize> = Default::default();
    for (page, idx) in pages.iter().zip(&bands) {
        let mut seen: Vec<String> = idx.iter().map(|&i| normalise(&page[i])).collect();
        seen.sort();
        seen.dedup();
        for n in seen {
            *counts.entry(n).or_default() += 1;
        }
    }
    let with_text = bands.iter().filter(|b| !b.is_empty()).count();
    for (page, idx) in pages.iter_mut().zip(&bands) {
        for &i in idx {
            let n = counts.get(&normalise(&page[i])).copied().unwrap_or(0);
            if (n >= 2 && n * 2 >= with_text) || is_folio(&page[i]) {
                page[i] = Seg::default();
            }
        }
    }
}

/// Blank out margin stamps: the same whole line anywhere on at least half the pages
/// with text, and on at least 3.
fn drop_stamps(pages: &mut [Vec<Seg>]) {
    let mut counts: std::collections::HashMap<String, usize> = Default::default();
    for page in pages.iter() {
        let mut seen: Vec<String> = page
            .iter()
            .filter(|l| !l.is_blank())
            .map(Seg::text)
            .collect();
        seen.sort();
        seen.dedup();
        for n in seen {
            *counts.entry(n).or_default() += 1;
        }
    }
    let with_text = pages
        .iter()
        .filter(|p| p.iter().any(|l| !l.is_blank()))
        .count();
    for line in pages.iter_mut().flatten() {
        let n = counts.get(&line.text()).copied().unwrap_or(0);
        if n >= 3 && n * 2 >= with_text && !line.is_blank() {
            *line = Seg::default();
        }
    }
}

/// Character counts of a stretch of text: words, visible, letters, lower-case letters.
type Counts = [usize; 4];

/// Whether counted text reads as running prose: several words, mostly letters, lower case.
fn is_prose(c: Counts) -> bool {
    let [words, visible, letters, lower] = c;
    words >= 3 && visible >= 12 && letters * 10 >= visible * 6 && lower * 2 >= letters
}

/// Prefix counts of a segment: entry `k` counts its first `k` characters.
fn profile(seg: &Seg) -> Vec<Counts> {
    let mut acc = [0; 4];
    let mut out = vec![acc];
    let mut prev = ' ';
    for &c in &seg.chars {
        acc[0] += usize::from(c != ' ' && prev == ' ');
        acc[1] += usize::from(c != ' ');
        acc[2] += usize::from(c.is_alphabetic());
        acc[3] += usize::from(c.is_lowercase());
        out.push(acc);
        prev = c;
    }
    out
}

/// Counts over a run of lines that leave one column blank.
#[derive(Default, Clone, Copy)]
struct Run {
    first: Option<usize>,
    last: usize,
    filled: usize,
    both: usize,
    prose: usize,
}

impl Run {
    /// Add line `i` (segment `seg`, prefix counts `prof`), the gutter being column `x`.
    fn add(&mut self, i: usize, seg: &Seg, prof: &[Counts], x: usize) {
        if seg.is_blank() {
            return;
        }
        self.first.get_or_insert(i);
        self.last = i;
        self.filled += 1;
        let cut = x.saturating_sub(seg.col).min(seg.chars.len());
        let (left, total) = (prof[cut], prof[seg.chars.len()]);
        let right: Counts = std::array::from_fn(|k| total[k] - left[k]);
        if left[1] > 0 && right[1] > 0 {
            let wide = !seg.occupied(x + 1) || (x > 0 && !seg.occupied(x - 1));
            self.both += 1;
            self.prose += usize::from(wide && is_prose(left) && is_prose(right));
        }
    }

    /// Whether the run separates two columns of prose.
    fn is_gutter(&self) -> bool {
        self.prose >= 3 && self.prose * 2 >= self.both && self.both * 3 >= self.filled
    }
}

/// The best gutter `(column, first line, end line)` among `lines`, if any.
fn find_gutter(lines: &[Seg]) -> Option<(usize, usize, usize)> {
    let prof: Vec<Vec<Counts>> = lines.iter().map(profile).collect();
    let lo = lines
        .iter()
        .filter(|l| !l.is_blank())
        .map(|l| l.col)
        .min()?;
    let hi = lines.iter().map(Seg::end).max()?.min(lo + MAX_WIDTH);
    let mut best: Option<(usize, usize, usize, usize)> = None;
    for x in lo + 1..hi {
        let mut run = Run::default();
        for i in 0..=lines.len() {
            if i < lines.len() && !lines[i].occupied(x) {
                run.add(i, &lines[i], &prof[i], x);
                continue;
            }
            let better = run.is_gutter() && best.is_none_or(|b| run.prose > b.0);
            if let Some(first) = run.first.filter(|_| better) {
                best = Some((run.prose, x, first, run.last + 1));
            }
            run = Run::default();
        }
    }
    best.map(|(_, x, s, e)| (x, s, e))
}

/// Join a table row's stub printed on a line of its own to the line of its values below:
/// "Violent crime" over "467.9  69.1  398.8" (a line of figures only, three or more,
/// right of the stub), or a stub wrapped over two lines ("Murder and nonnegligent" over
/// "manslaughter  10.0  0.9  9.1"). One row, the figures at their columns.
fn join_hanging_stubs(lines: &mut Vec<Seg>) {
    let mut i = 0;
    while i + 1 < lines.len() {
        if let Some(joined) = hanging(&lines[i], &lines[i + 1]) {
            lines[i] = joined;
            lines.remove(i + 1);
        } else if let Some(joined) =
            footnoted(&lines[i], &lines[i + 1]).and_then(|stub| hanging(&stub, lines.get(i + 2)?))
        {
            // A footnote mark printed between them ("Stolen property", "1", figures)
            // stays with the stub: "Stolen property 1".
            lines[i] = joined;
            lines.drain(i + 1..i + 3);
        }
        i += 1;
    }
}

/// Line `stub` with the footnote mark of line `mark` (one or two digits alone) after it.
fn footnoted(stub: &Seg, mark: &Seg) -> Option<Seg> {
    let m = mark.text();
    if m.is_empty() || m.len() > 2 || !m.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut chars = stub.chars.clone();
    chars.push(' ');
    chars.extend(m.chars());
    Some(Seg {
        chars,
        ..stub.clone()
    })
}

/// Line `stub` joined to line `row` below it (see [`join_hanging_stubs`]), if it hangs.
fn hanging(stub: &Seg, row: &Seg) -> Option<Seg> {
    let worded = |s: &Seg| s.chars.first().is_some_and(|c| c.is_alphabetic());
    let stub_cells = cells(stub);
    let text = stub.text();
    if !worded(stub) || stub_cells.len() != 1 || text.ends_with(['.', ':', ';', ',']) {
        return None;
    }
    let row_cells = cells(row);
    let (lead, figures_at) = if worded(row) {
        (row_cells.first()?.1.clone(), row_cells.get(1)?.0)
    } else {
        (String::new(), row.col)
    };
    let figures: Vec<&str> = row_cells
        .iter()
        .skip(usize::from(!lead.is_empty()))
        .flat_map(|(_, t)| t.split(' '))
        .collect();
    let all_figures = figures.len() >= 3 && figures.iter().all(|t| tablehead::is_value(t));
    // A wrapped stub goes on at the stub's column or indented.
    let wraps = lead.is_empty() || row.col >= stub.col;
    let mut chars: Vec<char> = text.chars().collect();
    if !lead.is_empty() {
        chars.push(' ');
        chars.extend(lead.chars());
    }
    if !all_figures || !wraps || stub.col + chars.len() + 2 > figures_at || row.part_start {
        return None;
    }
    chars.resize(figures_at - stub.col, ' ');
    chars.extend(&row.chars[figures_at - row.col..]);
    Some(Seg {
        col: stub.col,
        chars,
        ..stub.clone()
    })
}

/// Append `lines` to `out` in reading order, splitting prose columns at gutters.
fn reorder(lines: Vec<Seg>, depth: usize, out: &mut Vec<Seg>) {
    let gutter = if depth < MAX_DEPTH && lines.len() >= 3 {
        find_gutter(&lines)
    } else {
        None
    };
    let Some((x, s, e)) = gutter else {
        out.extend(lines);
        return;
    };
    let mut before = lines;
    let after = before.split_off(e);
    let mid = before.split_off(s);
    let (left, right): (Vec<Seg>, Vec<Seg>) = mid.iter().map(|l| l.split_at(x)).unzip();
    reorder(before, depth + 1, out);
    for (i, part) in [left, right].into_iter().enumerate() {
        let at = out.len();
        reorder(part, depth + 1, out);
        if let Some(first) = out[at..].iter_mut().find(|l| !l.is_blank()) {
            first.part_start = i > 0 || s > 0;
        }
    }
    let at = out.len();
    reorder(after, depth + 1, out);
    if let Some(first) = out[at..].iter_mut().find(|l| !l.is_blank()) {
        first.part_start = true;
    }
}

/// The cells of a line: runs of text between runs of two or more spaces or dot leaders,
/// as `(column, text)`.
fn cells(seg: &Seg) -> Vec<(usize, String)> {
    let c = &seg.chars;
    let is_gap = |i: usize| {
        let run = |ch: char| c[i..].iter().take_while(|x| **x == ch).count();
        (c[i] == ' ' && run(' ') >= 2) || (c[i] == '.' && run('.') >= 4)
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        let start = i;
        while i < c.len() && !is_gap(i) {
            i += 1;
        }
        let text = collapse(&c[start..i].iter().collect::<String>());
        if !text.is_empty() {
            out.push((seg.col + start, text));
        }
        while i < c.len() && (c[i] == ' ' || c[i] == '.') && is_gap(i) {
            let ch = c[i];
            i += c[i..].iter().take_while(|x| **x == ch).count();
        }
    }
    out
}

/// What a line is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Blank,
    Prose,
    Heading(u8),
    /// `Label: value` on one line.
    Colon,
    /// A line of field labels, the next line holding their values.
    FormLabel,
    FormValue,
    /// A table row of table `n`.
    Row(usize),
    /// The continuation of the row above (a wrapped cell).
    RowCont(usize),
}

/// A table: where its data rows start and their label.
#[derive(Clone, Debug)]
struct Table {
    first_data: usize,
    /// One past its last line.
    end: usize,
    label: String,
    /// Its header lines, top to bottom: each line's words and its phrases (runs of words
    /// split at wide gaps), each with its character columns `[from, to)`.
    headers: Vec<HeaderLine>,
    /// The columns read by order, when the header words gather into as many leaves as
    /// the rows have values (see [`super::tablehead`]).
    leaves: Option<Leaves>,
}

/// Line kinds plus the tables they belong to.
struct Kinds {
    kinds: Vec<Kind>,
    tables: Vec<Table>,
    cells: Vec<Vec<(usize, String)>>,
}

/// Classify every line of a page in reading order.
fn classify(lines: &[Seg]) -> Kinds {
    let cells: Vec<Vec<(usize, String)>> = lines.iter().map(cells).collect();
    let mut kinds: Vec<Kind> = lines
        .iter()
        .map(|l| {
            if l.is_blank() {
                Kind::Blank
            } else {
                Kind::Prose
            }
        })
        .collect();
    mark_forms(&cells, &mut kinds);
    let tables = mark_tables(lines, &cells, &mut kinds);
    for i in 0..lines.len() {
        if kinds[i] == Kind::Prose {
            kinds[i] = line_kind(lines, &kinds, i);
        }
    }
    Kinds {
        kinds,
        tables,
        cells,
    }
}

/// Whether cell columns `a` and `b` line up.
fn aligned(a: usize, b: usize) -> bool {
    a.abs_diff(b) <= ALIGN
}

/// Mark label lines whose values sit on the line below at the same columns.
fn mark_forms(cells: &[Vec<(usize, String)>], kinds: &mut [Kind]) {
    let multi = |i: usize| cells.get(i).is_some_and(|c| c.len() >= 2);
    let label_like = |c: &[(usize, String)]| {
        c.len() >= 2
            && c.iter().all(|(_, t)| {
                !t.chars().any(|ch| ch.is_ascii_digit()) && t.chars().any(char::is_alphabetic)
            })
    };
    for i in 0..cells.len().saturating_sub(1) {
        let (label, value) = (&cells[i], &cells[i + 1]);
        let short = value.iter().all(|(_, v)| v.split(' ').count() <= 6);
        let fits = !value.is_empty()
            && short
            && value
                .iter()
                .all(|(v, _)| label.iter().any(|(l, _)| aligned(*l, *v)));
        let alone = (i == 0 || !multi(i - 1)) && !multi(i + 2);
        if label_like(label) && fits && alone && kinds[i] == Kind::Prose {
            kinds[i] = Kind::FormLabel;
            kinds[i + 1] = Kind::FormValue;
        }
    }
}

/// Mark blocks of aligned multi-cell lines as table rows; returns the tables.
fn mark_tables(lines: &[Seg], cells: &[Vec<(usize, String)>], kinds: &mut [Kind]) -> Vec<Table> {
    let mut tables: Vec<Table> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if kinds[i] != Kind::Prose || cells[i].len() < 2 {
            i += 1;
            continue;
        }
        let (end, conts) = table_extent(cells, kinds, i);
        let rows: Vec<usize> = (i..end).filter(|k| !conts.contains(k)).collect();
        let wide = rows.iter().any(|&k| cells[k].len() >= 3);
        let columns = |k: usize| cells[k][1..].iter().map(|c| c.0).collect::<Vec<_>>();
        let lined_up = rows.windows(2).any(|w| {
            let b = columns(w[1]);
            columns(w[0])
                .iter()
                .any(|a| b.iter().any(|b| aligned(*a, *b)))
        });
        if (!wide && !lined_up) || heads_data_below(cells, kinds, i, end) {
            i += 1;
            continue;
        }
        let t = tables.len();
        for (k, kind) in kinds.iter_mut().enumerate().take(end).skip(i) {
            *kind = if conts.contains(&k) {
                Kind::RowCont(t)
            } else {
                Kind::Row(t)
            };
        }
        // The table above continues here after blank lines, or after a line that broke
        // it (a folio printed inside it) when this block's columns are its columns.
        let prev = tables.last().filter(|p| {
            kinds[p.end..i].iter().all(|k| *k == Kind::Blank)
                || same_columns(cells, p, i)
                || same_leaves(lines, kinds, p, &rows)
        });
        let above = headers_above(lines, cells, kinds, &rows);
        let mut table = table_label(lines, cells, kinds, &rows, prev, &above);
        for k in above {
            kinds[k] = Kind::Row(t);
        }
        table.end = end;
        tables.push(table);
        i = end;
    }
    tables
}

/// Whether the block of lines `i..end` holds no digit and data rows follow within
/// [`HEADER_LINES_ABOVE`] lines: it is the header of the table below (read by
/// [`headers_above`]), not a table of its own.
fn heads_data_below(cells: &[Vec<(usize, String)>], kinds: &[Kind], i: usize, end: usize) -> bool {
    let digit = |k: usize| {
        cells[k]
            .iter()
            .any(|(_, t)| t.chars().any(|c| c.is_ascii_digit()))
    };
    if (i..end).any(digit) {
        return false;
    }
    (end..cells.len().min(end + HEADER_LINES_ABOVE))
        .filter(|&k| kinds[k] == Kind::Prose && cells[k].len() >= 2)
        .any(|k| cells[k].iter().any(|(_, t)| is_amount(t)))
}

/// Whether the block of `rows` goes on with table `p` read by order: at most two lines
/// of text between them, and most rows have as many values as `p` has leaves.
fn same_leaves(lines: &[Seg], kinds: &[Kind], p: &Table, rows: &[usize]) -> bool {
    let Some(leaves) = &p.leaves else {
        return false;
    };
    let between = kinds[p.end..rows[0]]
        .iter()
        .filter(|k| **k != Kind::Blank)
        .count();
    let n = leaves.columns.len();
    let fitting = rows
        .iter()
        .filter(|&&k| tablehead::value_counts(&lines[k].text()).contains(&n))
        .count();
    between <= 2 && 2 * fitting > rows.len()
}

/// Whether line `i` has the columns of table `p`'s first data row: as many cells, each
/// starting where the row's does.
fn same_columns(cells: &[Vec<(usize, String)>], p: &Table, i: usize) -> bool {
    let Some(row) = cells.get(p.first_data) else {
        return false;
    };
    row.len() == cells[i].len()
        && row
            .iter()
            .zip(&cells[i])
            .all(|((a, _), (b, _))| aligned(*a, *b))
}

/// End of the table block starting at line `i`, and its continuation lines.
fn table_extent(cells: &[Vec<(usize, String)>], kinds: &[Kind], i: usize) -> (usize, Vec<usize>) {
    let (mut j, mut prev, mut conts) = (i, i, Vec::new());
    while j < cells.len() && kinds[j] == Kind::Prose {
        if cells[j].len() >= 2 {
            prev = j;
        } else if cells[j].len() == 1
            && cells[prev][1..]
                .iter()
                .any(|(c, t)| aligned(*c, cells[j][0].0) && !is_figure(t))
        {
            conts.push(j);
        } else {
            break;
        }
        j += 1;
    }
    (j, conts)
}

/// The label of a table's data rows: caption plus header lines (before the first row
/// holding a digit); a headerless block continues the previous table's label.
fn table_label(
    lines: &[Seg],
    cells: &[Vec<(usize, String)>],
    kinds: &[Kind],
    rows: &[usize],
    prev: Option<&Table>,
    above: &[usize],
) -> Table {
    let first = rows[0];
    let first_data = first_data(cells, rows);
    let inherited = prev.filter(|p| first_data == first && !p.label.is_empty() && above.is_empty());
    if let Some(p) = inherited {
        return Table {
            first_data,
            end: 0,
            label: p.label.clone(),
            headers: p.headers.clone(),
            leaves: p.leaves.clone(),
        };
    }
    let mut parts: Vec<String> = Vec::new();
    let top = above.first().copied().unwrap_or(first);
    if let Some(t) = caption(lines, kinds, top) {
        parts.push(t);
    }
    let header: Vec<usize> = above
        .iter()
        .copied()
        .chain(first.max(first_data.saturating_sub(3))..first_data.min(lines.len()))
        .collect();
    parts.extend(header.iter().map(|&k| lines[k].text()));
    let headers: Vec<HeaderLine> = header
        .into_iter()
        .map(|k| HeaderLine {
            words: line_words(&lines[k]),
            phrases: cells[k]
                .iter()
                .map(|(c, t)| (*c, c + t.chars().count(), t.clone()))
                .collect(),
        })
        .collect();
    let data: Vec<String> = rows
        .iter()
        .filter(|&&k| k >= first_data)
        .map(|&k| lines[k].text())
        .collect();
    let heads: Vec<HeadLine> = headers
        .iter()
        .map(|h| HeadLine {
            words: &h.words,
            phrases: &h.phrases,
        })
        .collect();
    Table {
        first_data,
        end: 0,
        label: collapse(&parts.join(" ")),
        leaves: tablehead::table_leaves(&heads, &data),
        headers,
    }
}

/// Non-blank lines searched above a table's header for its numbered caption, past its
/// headnote ("[In thousands. Based on …]").
const CAPTION_REACH: usize = 8;

/// Whether line text opens with a caption word and a number ("Table 3-1", "Figure 2.").
fn is_numbered_caption(t: &str) -> bool {
    let mut words = t.split_whitespace();
    let (Some(first), Some(second)) = (words.next(), words.next()) else {
        return false;
    };
    CAPTION_WORDS.contains(&first.to_lowercase().as_str())
        && second.starts_with(|c: char| c.is_ascii_digit() || c.is_ascii_uppercase())
        && second.chars().any(|c| c.is_ascii_digit())
}

/// The caption of a table whose header starts at line `top`: a numbered caption line
/// within [`CAPTION_REACH`] lines of text above (past a headnote), else the line right
/// above when it is short and ends no sentence. Never a line of another table.
fn caption(lines: &[Seg], kinds: &[Kind], top: usize) -> Option<String> {
    let above: Vec<usize> = (0..top)
        .rev()
        .filter(|&k| kinds[k] != Kind::Blank)
        .take_while(|&k| matches!(kinds[k], Kind::Prose | Kind::Heading(_)))
        .take(CAPTION_REACH)
        .collect();
    let short = |k: usize| {
        let t = lines[k].text();
        (t.split(' ').count() <= 12 && !t.ends_with(['.', ',', ';'])).then_some(t)
    };
    let next = above.first().and_then(|&k| short(k));
    match above
        .iter()
        .find(|&&k| is_numbered_caption(&lines[k].text()))
    {
        // A short line right above the header ("American" over "Indian/Alaskan")
        // heads columns; it follows the caption.
        Some(&k) if Some(&k) != above.first() => Some(
            [Some(lines[k].text()), next]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(" "),
        ),
        Some(&k) => Some(lines[k].text()),
        None => next,
    }
}

/// The first data row among a table block's `rows`: a row with digits in half its cells
/// or more ("Under 18" heads a column, a line of years only heads columns too), or any
/// amount ("37,499.96"); with none, the second row.
fn first_data(cells: &[Vec<(usize, String)>], rows: &[usize]) -> usize {
    // Ranges a header line opens ("$10,000 -") and the line below closes ("19,999").
    let opens = |k: usize| {
        let open = cells[k]
            .iter()
            .filter(|(_, t)| t.ends_with(" -") || t.ends_with(" –"))
            .count();
        2 * open >= cells[k].len()
    };
    let closes = |k: usize| rows.iter().any(|&r| r + 1 == k && opens(r));
    let digit = |k: usize| {
        if opens(k) || closes(k) {
            return false;
        }
        // A cell opening with a word ("Under 18") heads a column.
        let with = cells[k]
            .iter()
            .filter(|(_, t)| {
                let worded = t.starts_with(char::is_alphabetic);
                (t.chars().any(|c| c.is_ascii_digit()) && !worded) || is_no_value(t)
            })
            .count();
        let years = cells[k].iter().all(|(_, t)| is_year(t));
        (with > 0 && 2 * with >= cells[k].len() && !years)
            || cells[k].iter().any(|(_, t)| is_amount(t))
    };
    match rows.iter().copied().find(|&k| digit(k)) {
        Some(d) => d,
        None => rows.get(1).copied().unwrap_or(usize::MAX),
    }
}

/// Whether a cell is a figure (digits, separators, signs): no text wraps out of it, so a
/// line below it is not its continuation.
fn is_figure(t: &str) -> bool {
    t.chars().any(|c| c.is_ascii_digit())
        && t.split_whitespace().all(|w| {
            w.chars()
                .all(|c| c.is_ascii_digit() || ",.$%()-–+".contains(c))
        })
}

/// Whether a cell is an amount no header writes: digits grouped by thousands
/// (`37,499.96`, `$1,250`) or with decimals (`920.68`), optionally signed or bracketed.
fn is_amount(t: &str) -> bool {
    let body = t
        .trim()
        .trim_start_matches(['$', '€', '£', '(', '-', '+', '−'])
        .trim_end_matches([')', '%']);
    let digits = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    let (whole, decimals) = match body.split_once('.') {
        Some((w, d)) => (w, Some(d)),
        None => (body, None),
    };
    let groups: Vec<&str> = whole.split(',').collect();
    let grouped = groups.len() >= 2
        && (1..=3).contains(&groups[0].len())
        && digits(groups[0])
        && groups[1..].iter().all(|g| g.len() == 3 && digits(g));
    let plain = groups.len() == 1 && digits(whole);
    match decimals {
        Some(d) => digits(d) && (grouped || plain),
        None => grouped,
    }
}

/// Most header lines read above a table that has none of its own.
const HEADER_LINES_ABOVE: usize = 6;

/// The header lines above a table block whose first row is data (`rows`): the lines
/// right above it, across at most two blank lines, that hold no amount, end no sentence
/// and are column headers (cells of four words or fewer), when one of them has two cells
/// or more ("DOCUMENT NO.  DATE  PAYEE NAME …" over "POSTED", "START  END"). Top to
/// bottom; empty when there are none.
fn headers_above(
    lines: &[Seg],
    cells: &[Vec<(usize, String)>],
    kinds: &[Kind],
    rows: &[usize],
) -> Vec<usize> {
    let first = rows[0];
    if first_data(cells, rows) != first {
        return Vec::new();
    }
    let mut out = Vec::new();
    let (mut k, mut blanks) = (first, 0);
    while k > 0 && out.len() < HEADER_LINES_ABOVE {
        k -= 1;
        match kinds[k] {
            Kind::Blank => {
                blanks += 1;
                if blanks > 2 {
                    break;
                }
                continue;
            }
            Kind::Row(_) | Kind::RowCont(_) => break,
            _ => blanks = 0,
        }
        let header = !cells[k].is_empty()
            && cells[k]
                .iter()
                .all(|(_, t)| !is_amount(t) && t.split(' ').count() <= 4)
            && !lines[k].text().ends_with(['.', ';', ',', ':']);
        if !header {
            break;
        }
        out.push(k);
    }
    out.reverse();
    if out.iter().any(|&k| cells[k].len() >= 2) {
        out
    } else {
        Vec::new()
    }
}

/// Whether a cell is a year as a column header writes it: `2010`, `2010e` (estimated),
/// `2009-10`, `2009–2010`.
fn is_year(t: &str) -> bool {
    let year = |y: &str| {
        y.len() == 4
            && y.bytes().all(|b| b.is_ascii_digit())
            && (1800..2200).contains(&y.parse::<u32>().unwrap_or(0))
    };
    let t = t.trim();
    let body = t.trim_end_matches(|c: char| c.is_ascii_lowercase() || c == '*');
    match body.split_once(['-', '–', '/']) {
        Some((a, b)) => {
            year(a) && (year(b) || (b.len() == 2 && b.bytes().all(|c| c.is_ascii_digit())))
        }
        None => year(body) && t.len() - body.len() <= 1,
    }
}

/// The words of a line, each with its character columns `[from, to)`.
fn line_words(seg: &Seg) -> Vec<CellAt> {
    let mut out = Vec::new();
    let mut i = 0;
    let c = &seg.chars;
    while i < c.len() {
        if c[i] == ' ' {
            i += 1;
            continue;
        }
        let from = i;
        while i < c.len() && c[i] != ' ' {
            i += 1;
        }
        let word: String = c[from..i].iter().collect();
        out.push((seg.col + from, seg.col + i, word));
    }
    out
}

/// Farthest a header word may stand from a cell (in characters) and still head it.
const HEADER_REACH: usize = 6;

/// Farthest a group header ("Female" over "Total" and "Under 18") may stand from a cell.
const GROUP_REACH: usize = 12;

/// One header line of a table.
#[derive(Clone, Debug)]
struct HeaderLine {
    words: Vec<CellAt>,
    phrases: Vec<CellAt>,
}

/// The gap in characters between the ranges `[a, b)` and `[from, to)` (0 when they
/// overlap).
fn gap((a, b): (usize, usize), (from, to): (usize, usize)) -> usize {
    if to <= a {
        a - to
    } else {
        from.saturating_sub(b)
    }
}

/// The cells of a data row stored as `text` (the line's `cells`, with their character
/// columns) with their byte spans in `text` and their column headers, read line by line
/// from `headers`: a sparse line (half as many phrases as cells or fewer) above every
/// full one holds group headers, each heading the cells nearest to it within
/// [`GROUP_REACH`]; on other lines each word heads the cell it overlaps most, or the
/// nearest within [`HEADER_REACH`].
fn row_cells(text: &str, cells: &[(usize, String)], headers: &[HeaderLine]) -> Vec<CellAt> {
    let mut spans = Vec::with_capacity(cells.len());
    let mut at = 0;
    for (_, t) in cells {
        let Some(i) = text[at..].find(t.as_str()) else {
            return Vec::new();
        };
        spans.push((at + i, at + i + t.len()));
        at += i + t.len();
    }
    let ranges: Vec<(usize, usize)> = cells
        .iter()
        .map(|(col, t)| (*col, col + t.chars().count()))
        .collect();
    let mut columns: Vec<Vec<&str>> = vec![Vec::new(); cells.len()];
    // Sparse lines below a full header line continue its wrapped headers ("DATE" over
    // "POSTED"): their words head the nearest cell, like a full line's.
    let mut full_seen = false;
    for line in headers {
        let sparse = line.phrases.len() * 2 <= cells.len();
        full_seen |= !sparse;
        if sparse && !full_seen {
            // The stub (the first cell) names the row and has no group.
            for (k, r) in ranges.iter().enumerate().skip(1) {
                let near = line
                    .phrases
                    .iter()
                    .map(|(f, t, p)| (gap(*r, (*f, *t)), p))
                    .min_by_key(|(g, _)| *g)
                    .filter(|(g, _)| *g <= GROUP_REACH);
                if let Some((_, p)) = near {
                    columns[k].push(p);
                }
            }
            continue;
        }
        for (from, to, word) in &line.words {
            let w = (*from, *to);
            // Overlapping several cells, the word heads the one it overlaps most.
            let overlap = |&(a, b): &(usize, usize)| b.min(*to).saturating_sub(a.max(*from));
            let nearest = (0..ranges.len())
                .min_by_key(|&k| (gap(ranges[k], w), std::cmp::Reverse(overlap(&ranges[k])), k));
            if let Some(k) = nearest.filter(|&k| gap(ranges[k], w) <= HEADER_REACH) {
                columns[k].push(word);
            }
        }
    }
    spans
        .into_iter()
        .zip(columns)
        .map(|((s, e), words)| (s, e, words.join(" ")))
        .collect()
}

/// Kind of a line that is neither a table row nor a form line.
fn line_kind(lines: &[Seg], kinds: &[Kind], i: usize) -> Kind {
    let text = lines[i].text();
    let open = |k: usize| k >= lines.len() || kinds[k] == Kind::Blank || lines[k].part_start;
    let prev_open = i == 0 || kinds[i - 1] == Kind::Blank || lines[i].part_start;
    let next_open = open(i + 1);
    let indented_next = !open(i + 1) && lines[i + 1].col >= lines[i].col + 2;
    if let Some(l) = heading_level(&text, prev_open && (next_open || indented_next)) {
        return Kind::Heading(l);
    }
    let colon = |k: usize| k < lines.len() && colon_label(&lines[k].text()).is_some();
    let gap = |k: usize| k >= lines.len() || (kinds[k] == Kind::Blank && !lines[k].hollow);
    if colon_label(&text).is_some()
        && (i == 0 || gap(i - 1) || colon(i - 1))
        && (gap(i + 1) || colon(i + 1))
    {
        return Kind::Colon;
    }
    Kind::Prose
}

/// The label of a `Label: value` line.
fn colon_label(text: &str) -> Option<&str> {
    let (label, value) = text.split_once(':')?;
    let words = label.split(' ').count();
    let upper = label.chars().next().is_some_and(char::is_uppercase);
    (upper && words <= 5 && !value.trim().is_empty()).then_some(label.trim())
}

/// Whether a word looks capitalised (short words do not count against a title).
fn title_word(w: &str) -> bool {
    w.chars().filter(|c| c.is_alphabetic()).count() < 4
        || !w.chars().next().is_some_and(char::is_lowercase)
}

/// Heading level of a line, if it is a heading; `alone` = stands between blank lines.
fn heading_level(t: &str, alone: bool) -> Option<u8> {
    let words: Vec<&str> = t.split(' ').collect();
    if t.is_empty() || words.len() > 12 {
        return None;
    }
    if t.starts_with('§') && (words.len() <= 3 || !t.ends_with(['.', ',', ';'])) {
        return Some(1);
    }
    if t.ends_with(['.', ',', ';', ':']) {
        return None;
    }
    if let Some(l) = numbered_level(&words) {
        return Some(l);
    }
    let letters = t.chars().filter(|c| c.is_alphabetic()).count();
    let visible = t.chars().filter(|c| *c != ' ').count();
    if letters >= 2 && !t.chars().any(char::is_lowercase) && letters * 2 >= visible {
        return Some(1);
    }
    if alone && stepped(&words) {
        return Some(2);
    }
    let upper_start = t.chars().next().is_some_and(char::is_uppercase);
    // A title-case line with a figure is a caption, footer or form line ("Cat. No. 10231X
    // Form W-9 (Rev. 3-2024)"), not a section.
    let figure = t.chars().any(|c| c.is_ascii_digit());
    (alone && upper_start && !figure && words.len() <= 10 && words.iter().all(|w| title_word(w)))
        .then_some(2)
}

/// Words that open the title of a numbered step or schedule of a form.
const STEP_WORDS: &[&str] = &["Step", "Schedule", "Exhibit", "Attachment", "Worksheet"];

/// Whether `words` (a line standing alone) title a form's numbered step or schedule:
/// the keyword, a number or letter ("2(b)—Multiple", "A"), and title-case words
/// ("Step 2(b)—Multiple Jobs Worksheet (Keep for your records.)").
fn stepped(words: &[&str]) -> bool {
    let [first, id, ..] = words else {
        return false;
    };
    let numbered = id.chars().next().is_some_and(|c| c.is_ascii_digit())
        || (id.chars().count() == 1 && id.chars().all(|c| c.is_ascii_uppercase()));
    let long: Vec<&&str> = words[2..]
        .iter()
        .take_while(|w| !w.starts_with('('))
        .filter(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= 4)
        .collect();
    STEP_WORDS.contains(first) && numbered && long.iter().all(|w| title_word(w))
}

/// Level of a numbered heading (`2.1 Scope` → 2, `Part II` → 1).
fn numbered_level(words: &[&str]) -> Option<u8> {
    let rest = words.get(1..).unwrap_or_default();
    let first = words[0];
    let keyword = [
        "Section", "Part", "PART", "Appendix", "APPENDIX", "Chapter", "CHAPTER",
    ];
    if keyword.contains(&first) {
        let id = rest.first()?;
        let ok = id
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit() || c.is_uppercase());
        return (ok && id.chars().count() <= 6).then_some(1);
    }
    let comps: Vec<&str> = first.trim_end_matches('.').split('.').collect();
    let numeric = comps
        .iter()
        .all(|c| !c.is_empty() && c.len() <= 3 && c.bytes().all(|b| b.is_ascii_digit()));
    let starts_upper = rest.first()?.chars().next().is_some_and(char::is_uppercase);
    let body = rest.join(" ");
    let clean = !body.contains(". ") && !body.contains(", ") && !body.contains("; ");
    let long: Vec<&&str> = rest
        .iter()
        .filter(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= 4)
        .collect();
    let titled = long.iter().filter(|w| title_word(w)).count() * 2 >= long.len();
    let ok = numeric && comps[0].len() <= 2 && starts_upper && clean && titled && rest.len() <= 10;
    ok.then(|| u8::try_from(comps.len()).unwrap_or(u8::MAX))
}

/// A cell of an output line: its byte span in the line and its column header.
type CellAt = (usize, usize, String);

/// What labels an output line: the kind, the label and (table rows) the cells.
type Tag = (LabelKind, String, Vec<CellAt>);

/// One output line and its label.
type OutLine = (String, Option<Tag>);

/// A paragraph, heading, table or form: lines joined by `\n`, blocks by `\n\n`.
#[derive(Debug, Default)]
struct Block {
    lines: Vec<OutLine>,
    heading: Option<u8>,
}

impl Block {
    fn line(text: String, label: Option<Tag>) -> Block {
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
fn build_blocks(lines: &[Seg], k: &Kinds) -> Vec<Block> {
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
struct Output {
    text: String,
    layout: Layout,
    starts: Vec<Option<usize>>,
}

impl Output {
    fn start_page(&mut self) {
        self.starts.push(None);
    }

    /// Append a block; the first block of a page records where the page starts.
    fn push_block(&mut self, block: Block) {
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
    fn finish(mut self) -> (String, Layout) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn run(pages: &[&str]) -> (String, Layout) {
        let pages: Vec<String> = pages.iter().map(|p| p.to_string()).collect();
        let (text, layout) = assemble(&pages);
        layout.check(&text).unwrap();
        (text, layout)
    }

    fn label_of<'a>(text: &str, layout: &'a Layout, needle: &str) -> Option<&'a Labelled> {
        let at = text.find(needle)?;
        layout.label_for(at, at + needle.len())
    }

    #[test]
    fn running_headers_footers_and_folios_are_dropped() {
        let body = [
            "Alpha text.",
            "Bravo words.",
            "Charlie prose.",
            "Delta lines.",
        ];
        let page = |n: usize| {
            format!(
                "Form W-4 (2025)        Page {n}\n\n{}\n\n- {n} -\n",
                body[n - 1]
            )
        };
        let pages: Vec<String> = (1..=4).map(page).collect();
        let refs: Vec<&str> = pages.iter().map(String::as_str).collect();
        let (text, layout) = run(&refs);
        assert!(!text.contains("Form W-4"), "{text}");
        assert!(!text.contains("- 2 -"), "{text}");
        assert!(text.contains("Charlie prose."));
        assert_eq!(layout.pages.len(), 4);
    }

    #[test]
    fn data_rows_of_the_same_shape_on_every_page_are_kept() {
        // Each page opens and closes with a row whose figures differ only in their
        // digits: the rows are data, not running headers.
        let page = |n: usize| {
            format!(
                "Table {n}. Withholding by wage\n\n\
                 $0 - 24,999       {n},000     {n},011     {n},022\n\
                 $25,000 - 49,999  {n},037     {n},048     {n},059\n\
                 $50,000 - 74,999  {n},074     {n},085     {n},096\n\n\
                 Report of page {n}\n"
            )
        };
        let pages: Vec<String> = (1..=4).map(page).collect();
        let refs: Vec<&str> = pages.iter().map(String::as_str).collect();
        let (text, _) = run(&refs);
        for n in 1..=4 {
            assert!(
                text.contains(&format!("$0 - 24,999 {n},000 {n},011")),
                "{text}"
            );
            assert!(
                text.contains(&format!("$50,000 - 74,999 {n},074")),
                "{text}"
            );
        }
        assert!(!text.contains("Report of page"), "{text}");
    }

    #[test]
    fn a_numbered_caption_above_a_headnote_labels_the_table() {
        let page = "Table 7. Wages by State: 2010\n\
                    [In dollars. Based on the survey of 1,200 firms; see the source for\n\
                    details and for the notes on the methods used in this table]\n\n\
                    State          Mean        Median\n\
                    Ohio           41,200      38,100\n\
                    Iowa           39,800      36,900\n";
        let (text, layout) = run(&[page]);
        let row = label_of(&text, &layout, "Iowa").expect("a labelled row");
        assert!(
            row.label.starts_with("Table 7. Wages by State: 2010"),
            "{}",
            row.label
        );
        assert!(row.label.contains("Median"), "{}", row.label);
    }

    #[test]
    fn a_lone_amount_under_a_leadered_form_line_is_its_value() {
        // The lines of a filed summary page: a leadered line, comb marks, the amount.
        let lines = [
            (0, "7.     Total Disbursements (from Line 31)............"),
            (86, "\u{25b2}                 ,"),
            (104, "\u{25b2}            ."),
            (111, "101224.65"),
            (117, "\u{25b2}                         ,"),
        ];
        let mut page = String::new();
        for (col, line) in lines {
            page.push_str(&format!("{}{line}\n", " ".repeat(col)));
        }
        page.insert_str(page.find('\n').unwrap(), &format!("{},", " ".repeat(33)));
        page.push_str("\n8.     Cash on Hand at Close of Reporting Period\n");
        let page = page.as_str();
        let (text, layout) = run(&[page]);
        let value = label_of(&text, &layout, "101224.65").expect("a labelled value");
        assert_eq!(value.kind, LabelKind::Value);
        assert_eq!(value.label, "7. Total Disbursements (from Line 31)");
    }

    #[test]
    fn two_columns_are_read_left_column_first() {
        let rows = [
            (
                "The quick brown fox jumps over",
                "Second column starts with this",
            ),
            (
                "the lazy dog and keeps running",
                "sentence which continues down",
            ),
            (
                "through the field until evening.",
                "the page until it finally ends.",
            ),
            (
                "Then it sleeps under the oak",
                "Nothing else is written on the",
            ),
            (
                "tree near the old river bank.",
                "right side of this page at all.",
            ),
        ];
        let page: String = rows
            .iter()
            .map(|(l, r)| format!("{l:<40}   {r}\n"))
            .collect();
        let (text, _) = run(&[&page]);
        assert!(text.contains("The quick brown fox jumps over the lazy dog and keeps running"));
        assert!(text.contains("Second column starts with this sentence which continues down"));
        assert!(text.find("tree near").unwrap() < text.find("Second column").unwrap());
    }

    #[test]
    fn tables_keep_rows_and_label_them_with_headers() {
        let page = "ESTIMATED COSTS\n\
                    Action        Labor cost      Parts cost     Total\n\
                    Test A        40 hours        $0             $3,400\n\
                    Test B        10 hours        $50            $900\n";
        let (text, layout) = run(&[page]);
        assert!(
            text.contains("Test A 40 hours $0 $3,400\nTest B 10 hours $50 $900"),
            "{text}"
        );
        let l = label_of(&text, &layout, "Test B 10 hours").unwrap();
        assert_eq!(l.kind, LabelKind::Row);
        assert_eq!(
            l.label,
            "ESTIMATED COSTS Action Labor cost Parts cost Total"
        );
        let cells: Vec<(&str, &str)> = l
            .cells
            .iter()
            .map(|c| (&text[c.start..c.end], c.column.as_str()))
            .collect();
        assert_eq!(
            cells,
            [
                ("Test B", "Action"),
                ("10 hours", "Labor cost"),
                ("$50", "Parts cost"),
                ("$900", "Total")
            ]
        );
        assert!(layout.check(&text).is_ok());
    }

    #[test]
    fn two_level_headers_head_each_cell_and_words_go_to_the_nearest_cell() {
        let page = [
            "                  Male               Female",
            "Offense     Total   Under 18   Total   Under 18",
            "Robbery     95.1    20.3       11.2    2.5",
            "Burglary    190.0   40.1       30.5    6.0",
        ]
        .join("\n");
        let page = page.as_str();
        let (text, layout) = run(&[page]);
        let l = label_of(&text, &layout, "Robbery 95.1").unwrap();
        let column = |v: &str| {
            l.cells
                .iter()
                .find(|c| &text[c.start..c.end] == v)
                .map(|c| c.column.clone())
        };
        assert_eq!(column("2.5").as_deref(), Some("Female Under 18"));
        assert_eq!(column("95.1").as_deref(), Some("Male Total"));
        assert_eq!(column("Robbery").as_deref(), Some("Offense"));
        assert_eq!(l.stub(&text), Some("Robbery"));
    }

    #[test]
    fn dot_leaders_become_space_and_ellipses_stay() {
        let mut c: Vec<char> = "Robbery. . . . . . 102.1 etc... 5".chars().collect();
        blank_leaders(&mut c);
        assert_eq!(
            collapse(&c.iter().collect::<String>()),
            "Robbery 102.1 etc... 5"
        );
        let mut c: Vec<char> = "Contents........5".chars().collect();
        blank_leaders(&mut c);
        assert_eq!(collapse(&c.iter().collect::<String>()), "Contents 5");
    }

    #[test]
    fn a_line_of_years_heads_columns() {
        let page = [
            "World Production Capacity:",
            "                      Fused aluminum oxide      Silicon carbide",
            "                        2009      2010e          2009      2010e",
            "Norway                   —         —            80,000    80,000",
            "China                  700,000   700,000        455,000   455,000",
        ]
        .join("\n");
        let (text, layout) = run(&[page.as_str()]);
        let l = label_of(&text, &layout, "Norway").unwrap();
        let columns: Vec<&str> = l.cells.iter().map(|c| c.column.as_str()).collect();
        assert_eq!(
            columns,
            [
                "",
                "Fused aluminum oxide 2009",
                "Fused aluminum oxide 2010e",
                "Silicon carbide 2009",
                "Silicon carbide 2010e"
            ]
        );
        assert!(is_year("2009-10") && is_year("2010e") && !is_year("80,000") && !is_year("18"));
    }

    #[test]
    fn a_header_above_a_blank_line_heads_a_table_of_data_rows() {
        let page = [
            "REF NO.      DATE         PAYEE               OBLIGATION/SERVICE          AMOUNT ($)",
            "                                          DATES",
            "             POSTED",
            "                                         START         END",
            "",
            "                          LEE, ANN                                        1,200.00",
            "                          ROE, BOB                                          950.50",
            "",
            "  AB1001     04/02/2020   ACME LTD      01/03/2020   02/03/2020           310.00",
            "  AB1002     05/02/2020   BETA LLC      03/03/2020   04/03/2020           120.25",
            "                                                                                  B-17",
            "  AB1003     06/02/2020   GAMMA SA      05/03/2020   06/03/2020          99.10",
        ]
        .join("\n");
        let (text, layout) = run(&[page.as_str()]);
        let l = label_of(&text, &layout, "AB1002").unwrap();
        let columns: Vec<&str> = l.cells.iter().map(|c| c.column.as_str()).collect();
        // A folio printed inside the table does not end it.
        let after = label_of(&text, &layout, "AB1003").unwrap();
        assert_eq!(after.cells[4].column, "OBLIGATION/SERVICE END");
        assert_eq!(
            columns,
            [
                "REF NO.",
                "DATE POSTED",
                "PAYEE",
                "DATES START",
                "OBLIGATION/SERVICE END",
                "AMOUNT ($)"
            ],
            "{text}"
        );
        assert!(is_amount("1,200.00") && is_amount("950.50") && !is_amount("2019"));
        assert!(!is_amount("18") && !is_amount("B-1191") && is_amount("$1,250"));
    }

    #[test]
    fn form_values_get_their_label() {
        let page = "Intro line of the form.\n\n\
                    Other names used            Date of birth\n\
                    Prince H Smith              7/1/2017\n\n\
                    Status: approved\n";
        let (text, layout) = run(&[page]);
        assert!(text.contains("Other names used Date of birth\nPrince H Smith\n7/1/2017"));
        let l = label_of(&text, &layout, "7/1/2017").unwrap();
        assert_eq!(
            (l.kind, l.label.as_str()),
            (LabelKind::Value, "Date of birth")
        );
        let l = label_of(&text, &layout, "Status: approved").unwrap();
        assert_eq!(l.label, "Status");
    }

    #[test]
    fn paragraphs_join_lines_and_undo_hyphenation() {
        let page = "By signing the filled-\nout form, you agree to law 113-\n274 and  more.\n\
                    • A bullet item that wraps\nonto a second line.\n";
        let (text, _) = run(&[page]);
        assert!(text.contains("By signing the filledout form, you agree to law 113-274 and more."));
        assert!(
            text.contains("\n\n• A bullet item that wraps onto a second line."),
            "{text}"
        );
    }

    #[test]
    fn headings_are_found_with_levels() {
        let page = "1.8. Project Start Date\nThe project starts soon.\n\nPART II\n\n\
                    Title Case Alone\n\nsome prose follows here.\n";
        let (text, layout) = run(&[page]);
        let found: Vec<(u8, &str)> = layout
            .headings
            .iter()
            .map(|h| (h.level, h.title.as_str()))
            .collect();
        assert_eq!(
            found,
            vec![
                (2, "1.8. Project Start Date"),
                (1, "PART II"),
                (2, "Title Case Alone")
            ]
        );
        let h = &layout.headings[0];
        assert_eq!(&text[h.start..h.end], "1.8. Project Start Date");
        // A form's numbered step is a heading; a footer with a figure is not.
        assert_eq!(
            heading_level(
                "Step 2(b)—Multiple Jobs Worksheet (Keep for your records.)",
                true
            ),
            Some(2)
        );
        assert_eq!(
            heading_level("Cat. No. 10231X Form W-9 (Rev. 3-2024)", true),
            None
        );
        assert_eq!(
            heading_level("Step 3 of the process is simple here", true),
            None
        );
    }

    #[test]
    fn page_offsets_cover_empty_pages() {
        let (text, layout) = run(&["First page.", "", "  \n ", "Last page."]);
        assert_eq!(text, "First page.\n\nLast page.");
        assert_eq!(layout.pages, vec![0, 13, 13, 13]);
        assert_eq!(layout.page_of(13), Some(4));
        assert!(layout.extractor.is_none());
        let (text, layout) = run(&["Only.", ""]);
        assert_eq!(layout.pages, vec![0, text.len()]);
    }

    #[test]
    fn large_documents_assemble_quickly() {
        let line = "word ".repeat(16);
        let page: String = (0..60)
            .map(|i| format!("{line}{i:<20}   {line}\n"))
            .collect();
        let pages = vec![page; 300];
        let t = std::time::Instant::now();
        let (text, layout) = assemble(&pages);
        assert!(layout.check(&text).is_ok());
        assert!(t.elapsed().as_secs_f64() < 6.0, "{:?}", t.elapsed());
    }

    proptest! {
        #[test]
        fn never_panics_and_output_is_clean(
            pages in proptest::collection::vec("([a-zA-Zé€漢 .\\-•:\t\r0-9]{0,30}\n?){0,30}", 0..5),
            long in 0usize..3000,
        ) {
            let mut pages = pages;
            pages.push(format!("{}  x", "ab ".repeat(long)));
            let (text, layout) = assemble(&pages);
            prop_assert!(layout.check(&text).is_ok());
            prop_assert!(layout.pages.windows(2).all(|w| w[0] <= w[1]));
            prop_assert_eq!(layout.pages.len(), pages.len());
            prop_assert!(!text.contains("  "));
            for line in text.split('\n') {
                prop_assert_eq!(line, line.trim());
                prop_assert!(!line.contains(['\t', '\r']));
            }
        }
    }
}
