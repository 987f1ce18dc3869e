//! Digit groups and the marks between them: how a run such as `1.250.000`, `1.000,50`,
//! `35 000` or `1.250` is read (the rules are in the parent module's docs).

use super::{canonical, digits, touch, NumberFormat, Reading, Tok};

/// A mark between two digit groups.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mark {
    /// `.`
    Point,
    /// `,`
    Comma,
    /// A space or an apostrophe: only ever a group mark.
    Group,
}

impl Mark {
    /// The format in which this mark is the decimal one.
    fn as_decimal(self) -> NumberFormat {
        match self {
            Mark::Point => NumberFormat::Point,
            Mark::Comma => NumberFormat::Comma,
            Mark::Group => NumberFormat::Unknown,
        }
    }

    /// The format in which this mark groups digits.
    fn as_group(self) -> NumberFormat {
        match self {
            Mark::Point => NumberFormat::Comma,
            Mark::Comma => NumberFormat::Point,
            Mark::Group => NumberFormat::Unknown,
        }
    }
}

/// A run of digit groups: the token index of each group and the marks between them.
#[derive(Debug)]
pub(super) struct Run {
    groups: Vec<usize>,
    marks: Vec<Mark>,
}

impl Run {
    /// The token after the run.
    pub(super) fn end(&self) -> usize {
        self.groups.last().map_or(0, |g| g + 1)
    }

    /// Whether the run is one group of digits, without marks.
    pub(super) fn single(&self) -> bool {
        self.marks.is_empty()
    }
}

/// The format a number's shape shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Shown {
    /// The format.
    pub(super) format: NumberFormat,
    /// Shown by its grouping (`1.250.000`, `1.000,50`): it holds on its own. A lone
    /// decimal (`4.2`, `5,5`) may be a section or list number, and counts only when the
    /// number is a quantity (a unit or currency with it).
    pub(super) by_groups: bool,
}

/// The run of digit groups that starts at token `i` (digits).
pub(super) fn run_at(t: &[Tok], i: usize, text: &str) -> Run {
    let mut run = Run {
        groups: vec![i],
        marks: Vec::new(),
    };
    while let Some((mark, g)) = next_group(t, &run, text) {
        run.marks.push(mark);
        run.groups.push(g);
    }
    run
}

/// The mark and the group token that continue `run`, if any.
fn next_group(t: &[Tok], run: &Run, text: &str) -> Option<(Mark, usize)> {
    let last = *run.groups.last()?;
    let sep = t.get(last + 1)?;
    let mark = match sep.text.as_str() {
        "." => Some(Mark::Point),
        "," => Some(Mark::Comma),
        "'" | "\u{2019}" => Some(Mark::Group),
        _ => None,
    };
    if let Some(mark) = mark {
        let g = t.get(last + 2).filter(|g| digits(g))?;
        let glued = touch(&t[last], sep) && touch(sep, g);
        let fits = match mark {
            // `2019,2020`: a comma before four digits or more parts two numbers.
            Mark::Comma => g.text.len() <= 3,
            Mark::Group => g.text.len() == 3,
            Mark::Point => true,
        };
        return (glued && fits).then_some((mark, last + 2));
    }
    // `35 000 000`: groups of three after one space, from a first group of at most three
    // digits, with no other mark before.
    let gap = &text[t[last].end..sep.start];
    let mut gap_chars = gap.chars();
    let spaced = matches!(
        (gap_chars.next(), gap_chars.next()),
        (Some(' ' | '\u{a0}' | '\u{202f}' | '\u{2009}'), None)
    );
    let plain = run.marks.iter().all(|m| *m == Mark::Group) && t[run.groups[0]].text.len() <= 3;
    (spaced && plain && digits(sep) && sep.text.len() == 3).then_some((Mark::Group, last + 1))
}

/// The value of `run` read in `fmt`, how surely it is read, and the format its shape
/// shows, if it shows one.
pub(super) fn read(
    t: &[Tok],
    run: &Run,
    text: &str,
    fmt: NumberFormat,
) -> (String, Reading, Option<Shown>) {
    let g: Vec<&str> = run.groups.iter().map(|&k| t[k].text.as_str()).collect();
    let decimal: Vec<(usize, Mark)> = run
        .marks
        .iter()
        .copied()
        .enumerate()
        .filter(|(_, m)| *m != Mark::Group)
        .collect();
    let unread = || {
        let (a, b) = (t[run.groups[0]].start, t[run.end() - 1].end);
        (text[a..b].to_string(), Reading::Unread, None)
    };
    let Some(&(at, last)) = decimal.last() else {
        // Spaces and apostrophes only: groups of three, checked as the run was read.
        return (canonical(&g.concat()), Reading::Exact, None);
    };
    let grouped =
        |upto: usize| upto <= 1 || (g[0].len() <= 3 && g[1..upto].iter().all(|x| x.len() == 3));
    let shown = |format: NumberFormat, by_groups: bool| Some(Shown { format, by_groups });
    let mixed = decimal.iter().any(|(_, m)| *m != last);
    let twice = decimal.iter().filter(|(_, m)| *m == last).count() > 1;
    let is_last = at + 1 == run.marks.len();
    if mixed {
        // `1.000,50`: the last mark is the decimal one, once, after groups of three.
        if twice || !is_last || !grouped(at + 1) {
            return unread();
        }
        return (
            decimal_value(&g, at),
            Reading::Exact,
            shown(last.as_decimal(), true),
        );
    }
    if twice {
        // `1.250.000`: a mark used twice groups digits.
        if !grouped(g.len()) {
            return unread();
        }
        let value = canonical(&g.concat());
        return (value, Reading::Exact, shown(last.as_group(), true));
    }
    if !is_last || !grouped(at + 1) {
        return unread();
    }
    let (int, frac) = (g[0], g[at + 1]);
    // After space groups (`35 000,50`) the mark is decimal; so it is before other than
    // three digits, after a first group of four digits or more, or after a leading zero.
    if at > 0 || frac.len() != 3 || int.len() > 3 || int.starts_with('0') {
        let by_groups = at > 0;
        return (
            decimal_value(&g, at),
            Reading::Exact,
            shown(last.as_decimal(), by_groups),
        );
    }
    ambiguous(&g, last, fmt)
}

/// One mark before three digits (`1.250`, `1,250`), read in `fmt`: the decimal mark of
/// the format is decimal, the other groups digits; with no format a comma groups (the
/// English default) and a dot stays ambiguous.
fn ambiguous(g: &[&str], mark: Mark, fmt: NumberFormat) -> (String, Reading, Option<Shown>) {
    let as_decimal = decimal_value(g, 0);
    let as_groups = canonical(&g.concat());
    match (fmt, mark) {
        (NumberFormat::Point, Mark::Point) | (NumberFormat::Comma, Mark::Comma) => {
            (as_decimal, Reading::Exact, None)
        }
        (_, Mark::Comma) | (NumberFormat::Comma, Mark::Point) => (as_groups, Reading::Exact, None),
        _ => (
            format!("{as_decimal}|{as_groups}"),
            Reading::Ambiguous,
            None,
        ),
    }
}

/// Groups `..=at` as the integer part, the group after `at` as the decimals.
fn decimal_value(g: &[&str], at: usize) -> String {
    canonical(&format!("{}.{}", g[..=at].concat(), g[at + 1..].concat()))
}
