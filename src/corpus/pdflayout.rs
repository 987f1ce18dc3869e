//! PDF text assembly: turns the `pdftotext -layout` text of each page into clean stored
//! text — running headers and footers dropped, multi-column prose read column by column,
//! prose lines joined into paragraphs, table rows and form values kept on their own lines —
//! and the [`Layout`] (pages, headings, labelled rows and values) that describes it.

use super::layout::{LabelKind, Layout};

mod blocks;
mod columns;
mod kinds;
mod running;
mod tables;

use blocks::{build_blocks, Block, Output};
use columns::{join_hanging_stubs, reorder};
use kinds::{line_kind, mark_forms};
use running::drop_running_lines;
use tables::{mark_tables, Table};

/// Version of the assembly rules, recorded with each document's extractor.
pub const LAYOUT_VERSION: u32 = 9;

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

/// A cell of an output line: its byte span in the line and its column header.
type CellAt = (usize, usize, String);

#[cfg(test)]
mod tests {
    use super::kinds::heading_level;
    use super::tables::{is_amount, is_year};
    use super::*;
    use crate::corpus::layout::Labelled;
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
