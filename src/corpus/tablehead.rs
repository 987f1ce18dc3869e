//! Multi-level table headers read by order, for tables whose data columns do not line up
//! with their headers (a statistical abstract's rows set closer than its header, a tax
//! table whose column headers are ranges written over two lines).
//!
//! The header lines' words are gathered into leaf columns: words of different lines
//! whose character ranges overlap or touch belong to one leaf ("Under 18" over "years"),
//! words of one line apart by a space to different leaves. A line above the leaves whose
//! phrases each stand over an equal share of them ("Total  Male  Female" over nine
//! leaves), or whose one phrase spans several, holds group headers. When the leaves are
//! as many as the values of the table's rows (one more: the stub's header), every value
//! of a row is headed by the leaf of its rank, whatever its character column.

/// A word or phrase of a header line and its character columns `[from, to)`.
pub(super) type Placed = (usize, usize, String);

/// The columns of a table read by order: the stub's header and each value column's
/// header (group headers first, then the leaf's words top to bottom).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Leaves {
    /// The header of the stub column (what names the rows), possibly empty.
    pub stub: String,
    /// One header per value column, left to right.
    pub columns: Vec<String>,
}

/// One header line: its words and its phrases (runs of words split at wide gaps).
pub(super) struct HeadLine<'a> {
    pub words: &'a [Placed],
    pub phrases: &'a [Placed],
}

/// The leaves of header `lines` (top to bottom) for rows of `n` values, when the words
/// gather into `n` leaves (`n + 1` for rows with a stub: the first heads the stub).
pub(super) fn leaves(lines: &[HeadLine], n: usize, stubbed: bool) -> Option<Leaves> {
    if n < 2 || lines.is_empty() {
        return None;
    }
    // Leaf lines are read bottom up until a line holds group headers.
    let mut clusters: Vec<Cluster> = Vec::new();
    let mut first_group = lines.len();
    for (k, line) in lines.iter().enumerate().rev() {
        let joined = join_phrases(clusters.clone());
        let grouped = value_leaves(&joined, n, stubbed).and_then(|v| groups_of(line, v, n));
        if k + 1 < lines.len() && grouped.is_some() {
            first_group = k + 1;
            break;
        }
        for w in open_ranges(line.words) {
            add_word(&mut clusters, k, &w);
        }
        first_group = k;
    }
    let clusters = join_phrases(clusters);
    let values = value_leaves(&clusters, n, stubbed)?;
    let stub_cluster = stubbed;
    let mut heads: Vec<Vec<String>> = vec![Vec::new(); n];
    let mut stub: Vec<String> = Vec::new();
    for line in &lines[..first_group] {
        let Some((before, groups)) = groups_of(line, values, n) else {
            continue;
        };
        stub.extend(before);
        for (g, name) in groups {
            heads[g].push(name);
        }
    }
    stub.extend(stub_cluster.then(|| clusters[0].text()));
    let columns = values
        .iter()
        .zip(heads)
        .map(|(c, mut h)| {
            h.push(c.text());
            h.join(" ")
        })
        .collect();
    Some(Leaves {
        stub: stub.join(" "),
        columns,
    })
}

/// The clusters heading values when they are `n` (rows without a stub) or `n + 1` (rows
/// with a stub: the first heads it).
fn value_leaves(clusters: &[Cluster], n: usize, stubbed: bool) -> Option<&[Cluster]> {
    match (clusters.len(), stubbed) {
        (m, false) if m == n => Some(clusters),
        (m, true) if m == n + 1 => Some(&clusters[1..]),
        _ => None,
    }
}

/// The words of a line with a lone dash joined to the word before it: `$10,000 -` opens
/// a range the line below closes.
fn open_ranges(words: &[Placed]) -> Vec<Placed> {
    let mut out: Vec<Placed> = Vec::with_capacity(words.len());
    for w in words {
        match out.last_mut() {
            Some(last) if matches!(w.2.as_str(), "-" | "–" | "—") => {
                last.1 = w.1;
                last.2 = format!("{} {}", last.2, w.2);
            }
            _ => out.push(w.clone()),
        }
    }
    out
}

/// Words of several header lines gathered into one leaf.
#[derive(Clone, Debug)]
struct Cluster {
    from: usize,
    to: usize,
    /// (line, from, word)
    words: Vec<(usize, usize, String)>,
}

impl Cluster {
    /// The leaf's words, line by line, left to right.
    fn text(&self) -> String {
        let mut w = self.words.clone();
        w.sort_by_key(|(line, from, _)| (*line, *from));
        w.into_iter().map(|x| x.2).collect::<Vec<_>>().join(" ")
    }
}

/// Add word `w` of line `line` to the clusters it overlaps or touches (merging them),
/// most overlapped first, or as a cluster of its own; clusters stay sorted left to right.
/// Two figures of one line never share a leaf (`109,999 120,000` head two columns).
fn add_word(clusters: &mut Vec<Cluster>, line: usize, w: &Placed) {
    let (from, to) = (w.0, w.1);
    let overlap = |c: &Cluster| c.to.min(to) as isize - c.from.max(from) as isize;
    let mut merged = Cluster {
        from,
        to,
        words: vec![(line, from, w.2.clone())],
    };
    let mut meeting: Vec<usize> = (0..clusters.len())
        .filter(|&i| overlap(&clusters[i]) >= 0)
        .collect();
    meeting.sort_by_key(|&i| std::cmp::Reverse(overlap(&clusters[i])));
    let mut taken = Vec::new();
    for i in meeting {
        if clashes(&merged, &clusters[i]) {
            continue;
        }
        let c = &clusters[i];
        merged.from = merged.from.min(c.from);
        merged.to = merged.to.max(c.to);
        merged.words.extend(c.words.iter().cloned());
        taken.push(i);
    }
    taken.sort_unstable();
    for i in taken.into_iter().rev() {
        clusters.remove(i);
    }
    let at = clusters.partition_point(|c| c.from < merged.from);
    clusters.insert(at, merged);
}

/// Join neighbouring clusters that are words of one line a space apart, no other line
/// holding words over either ("Offense charged"): one phrase.
fn join_phrases(mut clusters: Vec<Cluster>) -> Vec<Cluster> {
    let line_of = |c: &Cluster| {
        let l = c.words[0].0;
        c.words.iter().all(|w| w.0 == l).then_some(l)
    };
    let mut i = 0;
    while i + 1 < clusters.len() {
        let (a, b) = (&clusters[i], &clusters[i + 1]);
        let one_line = line_of(a).is_some() && line_of(a) == line_of(b);
        if one_line && b.from == a.to + 1 && !clashes(a, b) {
            let b = clusters.remove(i + 1);
            let a = &mut clusters[i];
            a.to = b.to;
            a.words.extend(b.words);
        } else {
            i += 1;
        }
    }
    clusters
}

/// Whether clusters `a` and `b` hold figures of one line each.
fn clashes(a: &Cluster, b: &Cluster) -> bool {
    let figure = |w: &str| w.starts_with(|c: char| c.is_ascii_digit() || c == '$');
    a.words
        .iter()
        .any(|(la, _, wa)| figure(wa) && b.words.iter().any(|(lb, _, wb)| lb == la && figure(wb)))
}

/// The phrases left of the leaves (the stub's header) and each leaf's group header.
type Groups = (Vec<String>, Vec<(usize, String)>);

/// The group headers of `line` over value leaves `values` (`n` of them, or the leaves
/// so far), with the phrases left of them (the stub's header): the phrases stand each
/// over an equal share of the leaves, at its middle, or one phrase spans two leaves or
/// more. `None`: the line holds leaf words.
fn groups_of(line: &HeadLine, values: &[Cluster], n: usize) -> Option<Groups> {
    let first = values.first()?;
    let (before, over): (Vec<&Placed>, Vec<&Placed>) =
        line.phrases.iter().partition(|p| p.1 <= first.from);
    let before: Vec<String> = before.into_iter().map(|p| p.2.clone()).collect();
    let m = values.len();
    if over.is_empty() || m < 2 {
        return None;
    }
    let spans = |p: &Placed| values.iter().filter(|c| p.0 < c.to && c.from < p.1).count();
    if let [p] = over.as_slice() {
        return (spans(p) >= 2 && m == n)
            .then(|| (before, (0..m).map(|g| (g, p.2.clone())).collect()));
    }
    let share = m / over.len();
    if m != n || !m.is_multiple_of(over.len()) || share < 2 {
        return None;
    }
    let mut out = Vec::new();
    for (i, p) in over.iter().enumerate() {
        let part = &values[i * share..(i + 1) * share];
        let middle = (p.0 + p.1) / 2;
        let (lo, hi) = (part[0].from, part[share - 1].to);
        // A group stands over its share and over no leaf of another.
        let strays = values
            .iter()
            .enumerate()
            .any(|(j, c)| j / share != i && p.0 < c.to && c.from < p.1);
        if middle < lo || middle > hi || strays {
            return None;
        }
        out.extend((i * share..(i + 1) * share).map(|g| (g, p.2.clone())));
    }
    Some((before, out))
}

/// A token of a data row: its byte span in the row's text.
type Token = (usize, usize);

/// The cells of a data row stored as `text` read by order against `leaves`: the row's
/// last values (numbers, marks of no value), as many as there are leaves, are the
/// leaves' values, counted from the right; the text before them is the stub, figures
/// included (`$0 - 9,999`, `Sex offenses 2`). `None` when the row has fewer values.
pub(super) fn ordered_cells(text: &str, leaves: &Leaves) -> Option<Vec<Placed>> {
    let n = leaves.columns.len();
    if !value_counts(text).contains(&n) {
        return None;
    }
    let tokens = tokens(text);
    let values = &tokens[tokens.len() - n..];
    let stub_end = tokens[..tokens.len() - n].last().map_or(0, |t| t.1);
    let mut out = Vec::with_capacity(n + 1);
    if stub_end > 0 {
        out.push((0, stub_end, leaves.stub.clone()));
    }
    for ((s, e), column) in values.iter().zip(&leaves.columns) {
        out.push((*s, *e, column.clone()));
    }
    Some(out)
}

/// The value counts a data row stored as `text` may have: its trailing run of values,
/// that run less a range opening it (`$0 - 9,999`) and less a mark of one or two digits
/// opening it after words (a footnote, `Sex offenses 2`).
pub(super) fn value_counts(text: &str) -> Vec<usize> {
    let tokens = tokens(text);
    let run = tokens
        .iter()
        .rev()
        .take_while(|(s, e)| is_value(&text[*s..*e]))
        .count();
    let first = tokens.len() - run;
    let dash = |k: usize| {
        tokens
            .get(k)
            .is_some_and(|(s, e)| matches!(&text[*s..*e], "-" | "–" | "—"))
    };
    let mut out = vec![run];
    if run >= 4 && dash(first + 1) {
        out.push(run - 3);
    }
    let footnote = tokens.get(first).is_some_and(|(s, e)| {
        let t = &text[*s..*e];
        t.len() <= 2 && t.bytes().all(|b| b.is_ascii_digit())
    });
    if run >= 3 && footnote && first > 0 {
        out.push(run - 1);
    }
    out
}

/// The leaves of header `lines` for a table whose data rows are `rows` (their stored
/// texts): the value count most rows may have for which the header words gather into
/// as many leaves.
pub(super) fn table_leaves(lines: &[HeadLine], rows: &[String]) -> Option<Leaves> {
    let mut counts: std::collections::BTreeMap<usize, usize> = Default::default();
    for r in rows {
        for n in value_counts(r) {
            *counts.entry(n).or_default() += 1;
        }
    }
    let widths: Vec<usize> = rows.iter().map(|r| tokens(r).len()).collect();
    // Rows have a stub when most hold more tokens than `n` values.
    let stubbed = |n: usize| 2 * widths.iter().filter(|w| **w > n).count() > rows.len();
    let mut ranked: Vec<(usize, usize)> = counts.into_iter().filter(|(n, _)| *n >= 2).collect();
    ranked.sort_by_key(|(n, rows)| (std::cmp::Reverse(*rows), std::cmp::Reverse(*n)));
    ranked
        .iter()
        .find_map(|(n, _)| leaves(lines, *n, stubbed(*n)))
}

/// Whitespace-separated tokens of `text`.
fn tokens(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                out.push((s, i));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, text.len()));
    }
    out
}

/// Marks a statistical table writes in a cell without a value: a dash (zero), `NA`,
/// `(X)` (not applicable), `(D)` (withheld), `(Z)` (rounds to zero), an ellipsis.
pub(super) const NO_VALUE: &[&str] = &[
    "—", "–", "-", "NA", "(NA)", "X", "(X)", "(D)", "(Z)", "(S)", "…", "...", "n/a",
];

/// Whether a cell holds only marks of missing values ("— —": two cells the layout did
/// not tell apart).
pub(super) fn is_no_value(t: &str) -> bool {
    let parts: Vec<&str> = t.split_whitespace().collect();
    !parts.is_empty() && parts.iter().all(|p| NO_VALUE.contains(p))
}

/// Whether a token is a table value: a number (signed, bracketed, with a currency or a
/// percent sign, grouped by thousands) or a mark of no value.
pub(super) fn is_value(t: &str) -> bool {
    if NO_VALUE.contains(&t) {
        return true;
    }
    let body = t
        .trim_start_matches(['$', '€', '£', '(', '-', '+', '−'])
        .trim_end_matches([')', '%']);
    !body.is_empty()
        && body.starts_with(|c: char| c.is_ascii_digit())
        && body
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b',' || b == b'.')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Words and phrases of a header line written as text (columns are characters).
    fn placed(line: &str) -> (Vec<Placed>, Vec<Placed>) {
        let chars: Vec<char> = line.chars().collect();
        let runs = |gap: usize| {
            let mut out = Vec::new();
            let mut i = 0;
            while i < chars.len() {
                if chars[i] == ' ' {
                    i += 1;
                    continue;
                }
                let from = i;
                let mut spaces = 0;
                while i < chars.len() && spaces < gap {
                    spaces = if chars[i] == ' ' { spaces + 1 } else { 0 };
                    i += 1;
                }
                let to = i - spaces;
                out.push((from, to, chars[from..to].iter().collect::<String>()));
            }
            out
        };
        (runs(1), runs(2))
    }

    /// A line holding each text at its character column.
    fn line(parts: &[(usize, &str)]) -> String {
        let mut out = String::new();
        for (col, text) in parts {
            while out.len() < *col {
                out.push(' ');
            }
            out.push_str(text);
        }
        out
    }

    fn read(lines: &[&str], n: usize) -> Option<Leaves> {
        let placed: Vec<(Vec<Placed>, Vec<Placed>)> = lines.iter().map(|l| placed(l)).collect();
        let heads: Vec<HeadLine> = placed
            .iter()
            .map(|(w, p)| HeadLine {
                words: w,
                phrases: p,
            })
            .collect();
        leaves(&heads, n, true)
    }

    #[test]
    fn stacked_leaves_under_groups_are_read_by_order() {
        let lines = [
            line(&[(23, "Total"), (52, "Male")]),
            line(&[
                (1, "Offense"),
                (22, "Under 18 18 years"),
                (50, "Under 18 18 years"),
            ]),
            line(&[
                (16, "Total"),
                (25, "years and over"),
                (44, "Total"),
                (53, "years and over"),
            ]),
        ];
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let l = read(&lines, 6).unwrap();
        assert_eq!(l.stub, "Offense");
        assert_eq!(
            l.columns,
            [
                "Total Total",
                "Total Under 18 years",
                "Total 18 years and over",
                "Male Total",
                "Male Under 18 years",
                "Male 18 years and over"
            ]
        );
        // Rows of another width are not read against these leaves.
        assert!(read(&["   a   b   c"], 5).is_none());
    }

    #[test]
    fn ranges_over_two_lines_and_a_spanning_group_head_their_columns() {
        let l = read(
            &[
                "Higher Job      Lower Job Annual Wage",
                " Annual        $0 -   $10,000 - $20,000 -",
                "  Wage        9,999    19,999    29,999",
            ],
            3,
        )
        .unwrap();
        assert_eq!(l.stub, "Higher Job Annual Wage");
        assert_eq!(
            l.columns,
            [
                "Lower Job Annual Wage $0 - 9,999",
                "Lower Job Annual Wage $10,000 - 19,999",
                "Lower Job Annual Wage $20,000 - 29,999"
            ]
        );
    }

    #[test]
    fn a_stacked_word_over_one_leaf_is_no_group() {
        let l = read(
            &[
                "                                   American",
                "  Offense                       Indian/Alaskan",
                "              Total   White       Native",
            ],
            3,
        )
        .unwrap();
        assert_eq!(
            l.columns,
            ["Total", "White", "American Indian/Alaskan Native"]
        );
        assert_eq!(l.stub, "Offense");
    }

    #[test]
    fn rows_are_cut_into_a_stub_and_values_by_order() {
        let leaves = Leaves {
            stub: "Job".into(),
            columns: vec!["a".into(), "b".into(), "c".into()],
        };
        let cells = |t: &str| {
            ordered_cells(t, &leaves).map(|c| {
                c.into_iter()
                    .map(|(s, e, col)| (t[s..e].to_string(), col))
                    .collect::<Vec<_>>()
            })
        };
        assert_eq!(
            cells("$100,000 - 124,999 1,950 4,350 6,150").unwrap(),
            [
                ("$100,000 - 124,999".to_string(), "Job".to_string()),
                ("1,950".into(), "a".into()),
                ("4,350".into(), "b".into()),
                ("6,150".into(), "c".into())
            ]
        );
        assert_eq!(cells("Sex offenses 2 61.5 – 50.7").unwrap()[2].0, "–");
        assert!(cells("Robbery 102.1 25.5").is_none());
        // Figures beyond a range or a footnote are no stub: the row is not read so.
        assert!(cells("1 2 3 4 5 6").is_none());
        assert!(cells("California 98 452 41 181 35 007").is_none());
        assert_eq!(value_counts("Robbery 102.1 25.5"), [2]);
        assert_eq!(value_counts("$0 - 9,999 $0 $450 $850 $1,000"), [7, 4]);
        assert_eq!(value_counts("Sex offenses 2 61.5 10.7 50.7"), [4, 3]);
        assert_eq!(value_counts("Kentucky 264,140 12,155 14,847"), [3]);
    }
}
