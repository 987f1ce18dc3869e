//! Running headers, footers, folios and margin stamps: lines that recur across pages are
//! blanked before assembly (a data row never is).

use super::{cells, Seg};

/// Lines at the top and at the bottom of a page searched for running headers and footers.
const BAND: usize = 3;

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
/// half the pages with text, or on at least half the pages of one side — a book or
/// journal sets the left and right pages' heads apart, "40 CHARLES" and "CALCIUM WAVES IN
/// GLIA 41" — and on at least 2; a data row is not one, whatever its shape). Lines recur as furniture only beside other text: when nothing else would be
/// left (every page prints the same block), the first page with text keeps its lines.
pub(super) fn drop_running_lines(pages: &mut [Vec<Seg>]) {
    let first = pages
        .iter()
        .enumerate()
        .find(|(_, p)| p.iter().any(|l| !l.is_blank()))
        .map(|(i, p)| (i, p.clone()));
    drop_furniture(pages);
    let left = pages.iter().flatten().any(|l| !l.is_blank());
    if let (false, Some((i, page))) = (left, first) {
        pages[i] = page;
    }
}

fn drop_furniture(pages: &mut [Vec<Seg>]) {
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
    // Counts over all pages ([0]) and over the pages of each side ([1], [2]).
    let mut counts: std::collections::HashMap<String, [usize; 3]> = Default::default();
    let mut with_text = [0usize; 3];
    for (p, (page, idx)) in pages.iter().zip(&bands).enumerate() {
        let side = 1 + p % 2;
        if !idx.is_empty() {
            with_text[0] += 1;
            with_text[side] += 1;
        }
        let mut seen: Vec<String> = idx.iter().map(|&i| normalise(&page[i])).collect();
        seen.sort();
        seen.dedup();
        for n in seen {
            let c = counts.entry(n).or_default();
            c[0] += 1;
            c[side] += 1;
        }
    }
    for (p, (page, idx)) in pages.iter_mut().zip(&bands).enumerate() {
        let side = 1 + p % 2;
        for &i in idx {
            let n = counts
                .get(&normalise(&page[i]))
                .copied()
                .unwrap_or_default();
            let running = n[0] * 2 >= with_text[0] || n[side] * 2 >= with_text[side];
            if (n[0] >= 2 && running) || is_folio(&page[i]) {
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
