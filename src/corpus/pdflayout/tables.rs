//! Tables: blocks of aligned multi-cell lines, their caption and header lines (also a
//! header above a headerless block), where their data rows start, and each data cell's
//! column header.

use super::{aligned, collapse, CellAt, Kind, Seg};
use crate::corpus::layout::CAPTION_WORDS;
use crate::corpus::tablehead::{self, is_no_value, HeadLine, Leaves};

/// A table: where its data rows start and their label.
#[derive(Clone, Debug)]
pub(super) struct Table {
    pub(super) first_data: usize,
    /// One past its last line.
    end: usize,
    pub(super) label: String,
    /// Its header lines, top to bottom: each line's words and its phrases (runs of words
    /// split at wide gaps), each with its character columns `[from, to)`.
    pub(super) headers: Vec<HeaderLine>,
    /// The columns read by order, when the header words gather into as many leaves as
    /// the rows have values (see [`tablehead`]).
    pub(super) leaves: Option<Leaves>,
}

/// Mark blocks of aligned multi-cell lines as table rows; returns the tables.
pub(super) fn mark_tables(
    lines: &[Seg],
    cells: &[Vec<(usize, String)>],
    kinds: &mut [Kind],
) -> Vec<Table> {
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
pub(super) fn is_amount(t: &str) -> bool {
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
pub(super) fn is_year(t: &str) -> bool {
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
pub(super) struct HeaderLine {
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
pub(super) fn row_cells(
    text: &str,
    cells: &[(usize, String)],
    headers: &[HeaderLine],
) -> Vec<CellAt> {
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
