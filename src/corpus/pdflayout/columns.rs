//! Reading order: prose columns split at their gutter and read one after the other, and a
//! table row's stub printed on a line of its own joined to its values.

use super::{cells, Seg};
use crate::corpus::tablehead;

/// Widest character column searched for a gutter (keeps very long lines linear).
const MAX_WIDTH: usize = 400;

/// Deepest nesting of column splits.
const MAX_DEPTH: usize = 6;

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
pub(super) fn join_hanging_stubs(lines: &mut Vec<Seg>) {
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
pub(super) fn reorder(lines: Vec<Seg>, depth: usize, out: &mut Vec<Seg>) {
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
