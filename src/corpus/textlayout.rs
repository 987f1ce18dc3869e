//! The layout of text formats (Markdown, plain text, HTML rendered to text): headings
//! and table rows found in the stored text itself.
//!
//! Headings: Markdown `#` lines, numbered headings standing on their own line
//! (`1.8. Project Start Date`, `2.1 Scope`), `§ 5893. Definitions`, `Part II …`,
//! `Section 3 …`, and, for HTML, the `h1`–`h6` texts the renderer saw. Tables: a block of
//! consecutive `|`-separated lines (Markdown pipes, or HTML rows rendered as `a | b`) is a
//! table whose first line is the header; every other row is labelled with the header
//! (prefixed by a `Table …` caption on the line before the block).

use super::layout::{Cell, Heading, LabelKind, Labelled, Layout};

/// Most words in a heading line.
const MAX_HEADING_WORDS: usize = 12;

/// The byte span of each line of `text` (without its `\n` / `\r\n`).
fn lines(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        out.push((start, start + body.len()));
        start += line.len();
    }
    out
}

/// `s` with whitespace runs collapsed.
fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The level and title of a Markdown ATX heading line.
fn atx(line: &str) -> Option<(u8, String)> {
    let t = line.trim_start();
    let hashes = t.len() - t.trim_start_matches('#').len();
    let rest = &t[hashes..];
    if !(1..=6).contains(&hashes) || !rest.starts_with([' ', '\t']) {
        return None;
    }
    let title = collapse(rest.trim().trim_end_matches('#'));
    (!title.is_empty()).then_some((hashes as u8, title))
}

/// The level and title of a numbered or named heading line, e.g. `1.8. Project Start
/// Date` (level 2), `§ 5893. Definitions` (2), `PART II GENERAL` (1).
pub fn numbered(line: &str) -> Option<(u8, String)> {
    let t = collapse(line);
    let words: Vec<&str> = t.split(' ').collect();
    if words.len() < 2 || words.len() > MAX_HEADING_WORDS || t.ends_with([',', ';', ':']) {
        return None;
    }
    let first = words[0];
    let second_upper = words[1]
        .chars()
        .next()
        .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit());
    let level = if first == "§" || first.starts_with('§') {
        2
    } else if matches!(
        first.to_lowercase().as_str(),
        "part" | "chapter" | "article" | "appendix" | "annex"
    ) && second_upper
    {
        1
    } else if first.eq_ignore_ascii_case("section") && second_upper {
        2
    } else {
        let num = first.trim_end_matches('.');
        let parts: Vec<&str> = num.split('.').collect();
        let numeric = !num.is_empty()
            && parts.len() <= 6
            && parts
                .iter()
                .all(|p| !p.is_empty() && p.len() <= 3 && p.chars().all(|c| c.is_ascii_digit()));
        let starts_upper = words[1].chars().next().is_some_and(char::is_uppercase);
        if !numeric || !starts_upper || t.ends_with('.') {
            return None;
        }
        parts.len().min(6) as u8
    };
    Some((level, t))
}

/// Whether a numbered heading candidate is on a line of its own: a `§` line always (a
/// statute's section heading runs straight into its text), others between blank lines.
fn own_line(line: &str, text: &str, spans: &[(usize, usize)], i: usize) -> bool {
    line.trim_start().starts_with('§') || stands_alone(text, spans, i)
}

/// Whether line `i` stands alone: a blank line (or the text's edge) before and after.
fn stands_alone(text: &str, spans: &[(usize, usize)], i: usize) -> bool {
    let blank = |j: usize| text[spans[j].0..spans[j].1].trim().is_empty();
    (i == 0 || blank(i - 1)) && (i + 1 >= spans.len() || blank(i + 1))
}

/// The layout of a text format's stored text. `markdown` turns on `#` headings;
/// `html_headings` are the `h1`–`h6` (level, text) the HTML renderer saw, in order.
pub fn text_layout(text: &str, markdown: bool, html_headings: &[(u8, String)]) -> Layout {
    let spans = lines(text);
    let mut layout = Layout::default();
    let mut html = html_headings.iter().peekable();
    let mut fenced = false;
    for (i, &(start, end)) in spans.iter().enumerate() {
        let line = &text[start..end];
        if markdown && line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced || line.trim().is_empty() {
            continue;
        }
        let collapsed = collapse(line);
        let found = if html.peek().is_some_and(|(_, t)| *t == collapsed) {
            html.next().map(|(l, t)| (*l, t.clone()))
        } else if markdown {
            atx(line).or_else(|| numbered(line).filter(|_| own_line(line, text, &spans, i)))
        } else {
            numbered(line).filter(|_| own_line(line, text, &spans, i))
        };
        if let Some((level, title)) = found {
            let lead = line.len() - line.trim_start().len();
            let trimmed_end = start + line.trim_end().len();
            layout.headings.push(Heading {
                start: start + lead,
                end: trimmed_end,
                level,
                title,
            });
        }
    }
    layout.labels = table_rows(text, &spans);
    layout
}

/// Whether a line is a table row: `| a | b |` or `a | b`.
fn is_row(line: &str) -> bool {
    let t = line.trim();
    t.starts_with('|') || t.matches(" | ").count() >= 1
}

/// Whether a row is a Markdown separator (`|---|:---:|`).
fn is_rule(line: &str) -> bool {
    let t = line.trim();
    !t.is_empty() && t.contains('-') && t.chars().all(|c| "|-: \t".contains(c))
}

/// The cells of a row, trimmed, joined with ` | `.
fn cells(line: &str) -> String {
    let t = line.trim().trim_matches('|');
    t.split('|').map(str::trim).collect::<Vec<_>>().join(" | ")
}

/// The byte spans of a `|` row's cells (trimmed, relative to `line`; an empty cell is an
/// empty span where its text would be).
fn pipe_cells(line: &str) -> Vec<(usize, usize)> {
    let body_start = line.len() - line.trim_start().len();
    let body = line.trim();
    let inner = body.strip_prefix('|').unwrap_or(body);
    let from = body_start + (body.len() - inner.len());
    let inner = inner.strip_suffix('|').unwrap_or(inner);
    let mut out = Vec::new();
    let mut at = from;
    for piece in inner.split('|') {
        let lead = piece.len() - piece.trim_start().len();
        let t = piece.trim();
        out.push((at + lead, at + lead + t.len()));
        at += piece.len() + 1;
    }
    out
}

/// Labelled rows of every table block (at least a header and one row).
fn table_rows(text: &str, spans: &[(usize, usize)]) -> Vec<Labelled> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < spans.len() {
        let row = |j: usize| spans.get(j).is_some_and(|&(s, e)| is_row(&text[s..e]));
        if !row(i) {
            i += 1;
            continue;
        }
        let first = i;
        while row(i) {
            i += 1;
        }
        if i - first < 2 {
            continue;
        }
        let (hs, he) = spans[first];
        let mut label = cells(&text[hs..he]);
        let above = (first.saturating_sub(2)..first)
            .rev()
            .find(|&j| !text[spans[j].0..spans[j].1].trim().is_empty());
        if let Some(&(cs, ce)) = above.and_then(|j| spans.get(j)) {
            let caption = collapse(&text[cs..ce]);
            if caption.starts_with("Table ") {
                label = format!("{caption}: {label}");
            }
        }
        for &(s, e) in &spans[first + 1..i] {
            let line = &text[s..e];
            if is_rule(line) {
                continue;
            }
            let lead = line.len() - line.trim_start().len();
            let headers: Vec<&str> = pipe_cells(&text[hs..he])
                .into_iter()
                .map(|(a, b)| &text[hs + a..hs + b])
                .collect();
            let spans = pipe_cells(line);
            // A row with more cells than headers cannot say which column each is under.
            let cells = if spans.len() == headers.len() {
                spans
                    .iter()
                    .zip(&headers)
                    .map(|(&(a, b), h)| Cell {
                        start: s + a,
                        end: s + b,
                        column: collapse(h),
                    })
                    .collect()
            } else {
                Vec::new()
            };
            out.push(Labelled {
                start: s + lead,
                end: s + line.trim_end().len(),
                kind: LabelKind::Row,
                label: label.clone(),
                cells,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_and_numbered_headings_give_sections() {
        let text = "# Plan\n\nIntro text here.\n\n1.8. Project Start Date\n\n15/03/2021.\n\n## Land\n\n1. a list item.\n2. Another item\n";
        let layout = text_layout(text, true, &[]);
        let titles: Vec<&str> = layout.headings.iter().map(|h| h.title.as_str()).collect();
        assert_eq!(titles, vec!["Plan", "1.8. Project Start Date", "Land"]);
        let at = text.find("15/03").unwrap();
        assert_eq!(layout.section_of(at), Some("1.8. Project Start Date"));
        assert_eq!(
            layout.section_path(at),
            vec!["Plan", "1.8. Project Start Date"]
        );
        assert!(layout.check(text).is_ok());
    }

    #[test]
    fn statute_sections_and_parts_are_headings_but_sentences_are_not() {
        assert_eq!(numbered("§ 5893. Definitions.").map(|h| h.0), Some(2));
        assert_eq!(numbered("PART II GENERAL PROVISIONS").map(|h| h.0), Some(1));
        assert_eq!(numbered("2.1 Scope").map(|h| h.0), Some(2));
        assert!(numbered("2021 was a year of growth.").is_none());
        assert!(numbered("1. Enter the date.").is_none());
        assert!(numbered("3 apples").is_none());
    }

    #[test]
    fn table_rows_are_labelled_with_the_header_and_caption() {
        let text = "Table 2 Areas\n| Item | Value | Unit |\n|---|---|---|\n| Total Project Area | 1,200 | ha |\n| Buffer | 5 | % |\n\nAfter.";
        let layout = text_layout(text, true, &[]);
        assert_eq!(layout.labels.len(), 2);
        let row = &layout.labels[0];
        assert_eq!(
            &text[row.start..row.end],
            "| Total Project Area | 1,200 | ha |"
        );
        assert_eq!(row.label, "Table 2 Areas: Item | Value | Unit");
        let cells: Vec<(&str, &str)> = row
            .cells
            .iter()
            .map(|c| (&text[c.start..c.end], c.column.as_str()))
            .collect();
        assert_eq!(
            cells,
            [
                ("Total Project Area", "Item"),
                ("1,200", "Value"),
                ("ha", "Unit")
            ]
        );
        assert_eq!(row.stub(text), Some("Total Project Area"));
        assert!(layout.check(text).is_ok());
    }

    #[test]
    fn html_headings_are_matched_to_their_lines() {
        let text = "Report\n\nSome prose.\n\nResults and Outlook\n\nMore prose.";
        let layout = text_layout(
            text,
            false,
            &[(1, "Report".into()), (2, "Results and Outlook".into())],
        );
        assert_eq!(layout.headings.len(), 2);
        assert_eq!(
            layout.section_of(text.len() - 2),
            Some("Results and Outlook")
        );
    }
}
