//! Binding and non-binding text within a document, and citations at the finest level
//! the text numbers.
//!
//! [`non_binding`] finds the parts of a text that do not bind, from its structure:
//!
//! * an act's **preamble**: from "THE EUROPEAN PARLIAMENT …", "Having regard to" or
//!   "Whereas" to the enacting formula "HAVE ADOPTED THIS REGULATION:" (directive,
//!   decision), with each numbered **recital** after "Whereas:" a part of its own
//!   ("(2)");
//!   its head before the preamble (publication header, title) and its closing formula and
//!   signatures ("Done at Brussels, …" up to an annex) bind nothing either;
//! * "WHEREAS" clauses before "NOW, THEREFORE" (resolutions);
//! * paragraphs opening with "Note:", "Editorial Note:", "Note to paragraph …",
//!   "[Comment: …]", "Example:", and a CFR part's "Authority:" / "Source:" notes and
//!   amendment citations ("[60 FR 1234, Jan. 3, 1995]");
//! * sections headed "Summary", "Background", "Preamble", "Recitals", "Explanatory
//!   note", "Notes", "Examples";
//! * provisions the text says are repealed (see [`repealed`]).
//!
//! [`provision_path`] reads the paragraph labels between a section's start and a place in
//! it — "2." then "(b)" give `(2)(b)`; CFR's "(a)", "(1)", "(i)", "(A)" nest — so a quote
//! is cited as "Article 521(2)(b)" or "§ 164.404(b)", not only by its section.

use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

/// Why a part of a text does not bind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NonBinding {
    /// A numbered recital of an act's preamble, or a "WHEREAS" clause.
    Recital,
    /// The rest of a preamble: citations ("Having regard to …") and the enacting formula.
    Preamble,
    /// A note, comment or editorial note.
    Note,
    /// An example or illustration.
    Example,
    /// A summary or background section.
    Summary,
    /// An amendment citation or source note.
    Citation,
    /// An act's head before its preamble: publication header and title.
    Head,
    /// An act's closing formula and signatures ("Done at Brussels, …").
    Signature,
    /// A provision the text says is repealed ("[Repealed]", "This section was repealed
    /// effective …"): it binds no more.
    Repealed,
}

impl NonBinding {
    /// The kind in words.
    pub fn as_str(self) -> &'static str {
        match self {
            NonBinding::Recital => "recital",
            NonBinding::Preamble => "preamble",
            NonBinding::Note => "note",
            NonBinding::Example => "example",
            NonBinding::Summary => "summary",
            NonBinding::Citation => "citation",
            NonBinding::Head => "title",
            NonBinding::Signature => "signature",
            NonBinding::Repealed => "repealed",
        }
    }
}

/// A part of a text that does not bind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Part {
    /// Start byte.
    pub start: usize,
    /// End byte (exclusive).
    pub end: usize,
    /// Why it does not bind.
    pub kind: NonBinding,
    /// Its number, for a recital ("(2)").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

/// A regex from a pattern written in this module tree (a bad one is a bug).
pub(super) fn re(p: &str) -> Regex {
    Regex::new(p).expect("static pattern")
}

static ENACTING: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?im)^[ \t]*(?:HAVE|HAS) ADOPTED THIS (?:REGULATION|DIRECTIVE|DECISION)\b[^\n]*")
});
static PREAMBLE_START: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?m)^[ \t]*(?:THE EUROPEAN PARLIAMENT|THE COUNCIL|THE EUROPEAN COMMISSION|Having regard to|Whereas)",
    )
});
static DONE_AT: LazyLock<Regex> = LazyLock::new(|| re(r"(?m)^[ \t]*Done at [A-Z]"));
static ANNEX_LINE: LazyLock<Regex> = LazyLock::new(|| re(r"(?m)^[ \t]*ANNEX\b"));
static WHEREAS_LINE: LazyLock<Regex> = LazyLock::new(|| re(r"(?m)^[ \t]*Whereas\s*:"));
static RECITAL_LABEL: LazyLock<Regex> = LazyLock::new(|| re(r"(?m)^[ \t]*\((\d{1,4})\)"));
static WHEREAS_CLAUSE: LazyLock<Regex> = LazyLock::new(|| re(r"(?m)^[ \t]*WHEREAS\b"));
static NOW_THEREFORE: LazyLock<Regex> = LazyLock::new(|| re(r"(?im)^[ \t]*NOW,? THEREFORE\b"));
static NOTE_OPENER: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?im)^[ \t]*(?:(?:editorial |editor's )?notes?(?: to (?:paragraph|§)[^:\n]{0,40})?\s*[:.—-]|\[comment:|authority:|source:|examples?(?: \d+)?\s*[:.—-]|illustration\s*[:.—-])",
    )
});
/// A source note of amendments ("[65 FR 82798, Dec. 28, 2000, as amended at …]"), which
/// may wrap over lines.
static AMENDMENT: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?m)^[ \t]*\[\d+ FR \d+[^\]\[]{0,2000}\][ \t\r]*$"));
/// A footnote citing the Official Journal ("( 1 ) OJ C 105, 11.4.2012, p. 1 .").
static OJ_FOOTNOTE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?m)^[ \t]*\(\s*(\d{1,3})\s*\)\s*OJ [A-Z]{1,2}\b[^\n]*"));

/// Section titles whose whole section does not bind, with the kind.
const NON_BINDING_SECTIONS: &[(&str, NonBinding)] = &[
    ("summary", NonBinding::Summary),
    ("executive summary", NonBinding::Summary),
    ("background", NonBinding::Summary),
    ("preamble", NonBinding::Preamble),
    ("recitals", NonBinding::Recital),
    ("explanatory note", NonBinding::Note),
    ("explanatory memorandum", NonBinding::Note),
    ("notes", NonBinding::Note),
    ("examples", NonBinding::Example),
];

/// Openings of section headings that sum up the rest of a document: a paper's abstract
/// and conclusions, and the section its figure and table captions are gathered in. They
/// restate what the body states in detail.
const SUMMARY_HEADING_OPENINGS: &[&str] = &[
    "abstract",
    "conclusion",
    "concluding remarks",
    "figures and tables",
];

/// End of the paragraph holding byte `at`: the next blank line, or the end.
fn paragraph_end(text: &str, at: usize) -> usize {
    text[at..].find("\n\n").map_or(text.len(), |i| at + i)
}

/// An act's preamble: its citations and, after "Whereas:", each numbered recital.
fn preamble(text: &str, out: &mut Vec<Part>) {
    let Some(enact) = ENACTING.find(text) else {
        return;
    };
    let start = PREAMBLE_START
        .find(&text[..enact.start()])
        .map_or(enact.start(), |m| {
            m.start() + (m.as_str().len() - m.as_str().trim_start().len())
        });
    if start > 0 {
        out.push(Part {
            start: 0,
            end: start,
            kind: NonBinding::Head,
            label: None,
        });
    }
    if let Some(done) = DONE_AT.find(&text[enact.end()..]) {
        let from = enact.end() + done.start();
        let end = ANNEX_LINE
            .find(&text[from..])
            .map_or(text.len(), |m| from + m.start());
        out.push(Part {
            start: from,
            end,
            kind: NonBinding::Signature,
            label: None,
        });
    }
    let whereas = WHEREAS_LINE
        .find(&text[start..enact.start()])
        .map(|m| start + m.end());
    let recitals_from = whereas.unwrap_or(enact.start());
    out.push(Part {
        start,
        end: recitals_from,
        kind: NonBinding::Preamble,
        label: None,
    });
    let labels: Vec<(usize, String)> = RECITAL_LABEL
        .captures_iter(&text[recitals_from..enact.start()])
        .map(|c| {
            (
                recitals_from + c.get(0).unwrap().start(),
                format!("({})", &c[1]),
            )
        })
        .collect();
    for (i, (at, label)) in labels.iter().enumerate() {
        let end = labels.get(i + 1).map_or(enact.start(), |x| x.0);
        let at = *at + (text[*at..].len() - text[*at..].trim_start().len());
        out.push(Part {
            start: at,
            end,
            kind: NonBinding::Recital,
            label: Some(label.clone()),
        });
    }
    out.push(Part {
        start: enact.start(),
        end: enact.end(),
        kind: NonBinding::Preamble,
        label: None,
    });
}

/// "WHEREAS" clauses before "NOW, THEREFORE".
fn whereas_clauses(text: &str, out: &mut Vec<Part>) {
    let Some(now) = NOW_THEREFORE.find(text) else {
        return;
    };
    let starts: Vec<usize> = WHEREAS_CLAUSE
        .find_iter(&text[..now.start()])
        .map(|m| m.start())
        .collect();
    for (i, &s) in starts.iter().enumerate() {
        let end = starts.get(i + 1).copied().unwrap_or(now.start());
        out.push(Part {
            start: s,
            end,
            kind: NonBinding::Recital,
            label: None,
        });
    }
}

/// Notes, comments, examples and amendment citations, each to its paragraph's end (a
/// `[Comment: …]` to its closing bracket).
fn notes(text: &str, out: &mut Vec<Part>) {
    for m in NOTE_OPENER.find_iter(text) {
        let opener = m.as_str().trim_start().to_lowercase();
        let kind = match opener.starts_with("example") || opener.starts_with("illustration") {
            true => NonBinding::Example,
            false => NonBinding::Note,
        };
        let end = match opener.starts_with("[comment") {
            true => text[m.start()..]
                .find(']')
                .map_or(text.len(), |i| m.start() + i + 1),
            false => paragraph_end(text, m.start()),
        };
        out.push(Part {
            start: m.start(),
            end,
            kind,
            label: None,
        });
    }
    for m in AMENDMENT.find_iter(text) {
        out.push(Part {
            start: m.start(),
            end: m.end(),
            kind: NonBinding::Citation,
            label: None,
        });
    }
    for c in OJ_FOOTNOTE.captures_iter(text) {
        let m = c.get(0).expect("a match");
        out.push(Part {
            start: m.start(),
            end: m.end(),
            kind: NonBinding::Note,
            label: Some(format!("footnote ({})", &c[1])),
        });
    }
}

/// Whole sections whose heading says they do not bind. `headings` are (start, level,
/// title) in text order.
fn sections(text: &str, headings: &[(usize, u8, String)], out: &mut Vec<Part>) {
    for (i, (start, level, title)) in headings.iter().enumerate() {
        let name = title
            .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ' ' || c == '#')
            .trim()
            .trim_end_matches(['.', ':'])
            .to_lowercase();
        let summary = SUMMARY_HEADING_OPENINGS.iter().any(|o| name.starts_with(o));
        let kind = match NON_BINDING_SECTIONS.iter().find(|(n, _)| *n == name) {
            Some((_, kind)) => *kind,
            None if summary => NonBinding::Summary,
            None => continue,
        };
        let end = headings[i + 1..]
            .iter()
            .find(|(_, l, _)| l <= level)
            .map_or(text.len(), |h| h.0);
        out.push(Part {
            start: *start,
            end,
            kind,
            label: None,
        });
    }
}

/// A statement that a provision is repealed, revoked or deleted: such a word opening a
/// line (after a label: "(b) Repealed.") or a sentence, or in a bracket opening a line
/// ("[Repealed by …]"), followed by what a repeal note says next (an end, "by", "effective",
/// "on", a date) so that "Revoked licences must …" is no note; or a provision naming
/// itself ("This section was repealed …", "This subsection has been revoked").
static REPEAL: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?im)(?:^[ \t>]*(?P<label>\(\w{1,4}\)[ \t]*|\d{1,3}(?:\.\d+)*\.?[ \t]+)?[\[(]?|[.;][ \t]+)(?:repealed|revoked|rescinded|deleted)\b(?:[ \t]*(?:[.\]),;:]|$)|[ \t]+(?:by|effective|on|as of|with effect|in[ \t]+\d|\d))|\bth(?:is|e present) (?:section|subsection|article|paragraph|subparagraph|provision|clause|subdivision)\b[^.\n]{0,40}?\b(?:was|were|has been|have been|is hereby|is|stands) (?:repealed|revoked|rescinded|deleted)\b",
    )
});
/// A heading that says its provision is repealed: in brackets ("§ 12. [Repealed]",
/// "12.3 Paper copies (repealed)"), after a dash at its end ("Section 4 — Repealed"), or
/// as its only words after its number ("§ 12. Repealed.").
static REPEALED_HEADING: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)[\[(]\s*(?:repealed|revoked|deleted)\b|\s[—–-]\s*(?:repealed|revoked|deleted)\.?\s*$")
});
static REPEALED_ALONE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)^[\s.:—–-]*(?:repealed|revoked|deleted)\.?\s*$"));

/// Whether heading `title` says its provision is repealed.
fn repealed_heading(title: &str) -> bool {
    let rest = heading_citation(title).map_or("", |c| &title.trim()[c.len()..]);
    REPEALED_HEADING.is_match(title) || REPEALED_ALONE.is_match(rest)
}

/// The sentence of `text` around byte `at` (from the last full stop or line break before
/// it to the next one).
fn sentence_around(text: &str, at: usize) -> &str {
    let from = text[..at].rfind(['\n', '.']).map_or(0, |i| i + 1);
    let to = text[at..].find(['\n', '.']).map_or(text.len(), |i| at + i);
    &text[from..to]
}

/// Provisions the text says are repealed: the section under a heading that cites a
/// provision or is not the document's first (a title), when its heading is marked
/// repealed or its body states the repeal; the labelled paragraph a statement opens
/// ("(b) Repealed."); the paragraph of a provision naming itself repealed when no
/// heading stands before it. A statement under the title or before any heading ends the
/// document itself (its dates say so), and a sunset ("shall remain in effect until …,
/// and as of that date is repealed") repeals nothing yet.
pub fn repealed(text: &str, headings: &[(usize, u8, String)], out: &mut Vec<Part>) {
    let provision = |i: usize| i > 0 || heading_citation(&headings[i].2).is_some();
    let section = |i: usize| {
        let (start, level, _) = &headings[i];
        let end = headings[i + 1..]
            .iter()
            .find(|(_, l, _)| l <= level)
            .map_or(text.len(), |h| h.0);
        (*start, end)
    };
    let mut spans: Vec<(usize, usize)> = (0..headings.len())
        .filter(|&i| provision(i) && repealed_heading(&headings[i].2))
        .map(section)
        .collect();
    for c in REPEAL.captures_iter(text) {
        let m = c.get(0).expect("a match");
        let sentence = sentence_around(text, m.end() - 1).to_lowercase();
        if sentence.contains("until") || sentence.contains("remain") {
            continue;
        }
        let line_start = text[..m.start()].rfind('\n').map_or(0, |i| i + 1);
        let labelled = c.name("label").is_some();
        let explicit = m.as_str().to_lowercase().starts_with("th");
        let under = headings.iter().rposition(|h| h.0 <= m.start());
        spans.push(match under {
            _ if labelled => (line_start, paragraph_end(text, line_start)),
            Some(i) if provision(i) => section(i),
            None if explicit => {
                let from = text[..m.start()].rfind("\n\n").map_or(0, |i| i + 2);
                (from, paragraph_end(text, m.start()))
            }
            _ => continue,
        });
    }
    out.extend(spans.into_iter().map(|(start, end)| Part {
        start,
        end,
        kind: NonBinding::Repealed,
        label: None,
    }));
}

/// The parts of `text` that do not bind, in text order (see the module documentation).
pub fn non_binding(text: &str, headings: &[(usize, u8, String)]) -> Vec<Part> {
    let mut out = Vec::new();
    preamble(text, &mut out);
    whereas_clauses(text, &mut out);
    notes(text, &mut out);
    sections(text, headings, &mut out);
    repealed(text, headings, &mut out);
    out.retain(|p| p.start < p.end && p.end <= text.len());
    out.sort_by_key(|p| (p.start, std::cmp::Reverse(p.end)));
    out
}

/// The non-binding part holding the span `start..end` (most of it), if one does.
pub fn part_at(parts: &[Part], start: usize, end: usize) -> Option<&Part> {
    let len = end.saturating_sub(start).max(1);
    parts
        .iter()
        .filter(|p| {
            let overlap = end.min(p.end).saturating_sub(start.max(p.start));
            overlap * 2 >= len || (p.start <= start && start < p.end && end <= p.end)
        })
        .min_by_key(|p| p.end - p.start)
}

/// The kind of a paragraph label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LabelKind {
    /// "1." (an EU article's paragraph).
    Numbered,
    /// "(1)".
    Digit,
    /// "(a)".
    Lower,
    /// "(i)".
    Roman,
    /// "(A)".
    Upper,
}

static LABEL_RUN: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(?:(\d{1,3})\.[ \t\n]|((?:\((?:\d{1,3}|[a-z]{1,4}|[A-Z]{1,2})\))+))"));
static ONE_LABEL: LazyLock<Regex> = LazyLock::new(|| re(r"\((\d{1,3}|[a-z]{1,4}|[A-Z]{1,2})\)"));

fn is_roman(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| matches!(c, 'i' | 'v' | 'x' | 'l'))
}

/// The kind of label `s` (inside its brackets), given the labels open before it: "(i)"
/// after "(h)" is a letter, else a Roman numeral; so are "(v)" after "(u)" and "(x)"
/// after "(w)".
fn kind_of(s: &str, open: &[(LabelKind, String)]) -> LabelKind {
    if s.chars().all(|c| c.is_ascii_digit()) {
        return LabelKind::Digit;
    }
    if s.chars().all(|c| c.is_ascii_uppercase()) {
        return LabelKind::Upper;
    }
    if !is_roman(s) {
        return LabelKind::Lower;
    }
    let follows_letter = open.iter().any(|(k, l)| {
        *k == LabelKind::Lower
            && l.len() == 1
            && s.len() == 1
            && (l.as_bytes()[0] + 1) == s.as_bytes()[0]
    });
    let roman_open = open.iter().any(|(k, _)| *k == LabelKind::Roman);
    match (follows_letter, roman_open) {
        (true, false) => LabelKind::Lower,
        _ => LabelKind::Roman,
    }
}

/// Open `label` of `kind`: close every label opened since the last one of its kind.
fn open_label(open: &mut Vec<(LabelKind, String)>, kind: LabelKind, label: String) {
    if let Some(k) = open.iter().position(|(x, _)| *x == kind) {
        open.truncate(k);
    }
    open.push((kind, label));
}

/// The paragraph labels open at byte `at` of the section that starts at `section_start`,
/// as a citation suffix: `(2)(b)`, `(a)(26)(ii)`; empty when the text numbers none.
pub fn provision_path(text: &str, section_start: usize, at: usize) -> String {
    let (from, to) = (section_start.min(text.len()), at.min(text.len()));
    let mut open: Vec<(LabelKind, String)> = Vec::new();
    let mut line_start = from;
    while line_start <= to {
        let line = &text[line_start..];
        let trimmed = line.trim_start_matches([' ', '\t']);
        if let Some(c) = LABEL_RUN.captures(trimmed) {
            if let Some(n) = c.get(1) {
                open.clear();
                open.push((LabelKind::Numbered, n.as_str().to_string()));
            } else {
                for l in ONE_LABEL.captures_iter(&c[2]) {
                    let kind = kind_of(&l[1], &open);
                    open_label(&mut open, kind, l[1].to_string());
                }
            }
        }
        match text[line_start..to].find('\n') {
            Some(i) => line_start += i + 1,
            None => break,
        }
    }
    open.iter().map(|(_, l)| format!("({l})")).collect()
}

static CITATION_HEAD: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^((?:Article|Art\.|Section|Sec\.|Rule|Regulation|Annex|§+)\s*[0-9IVXLC][\w.\-]*|[0-9]+(?:\.[0-9]+)+[a-z]?)",
    )
});

/// The part of a section heading that cites it ("Article 521", "§ 164.404",
/// "9.40.140"), when it starts with one.
pub fn heading_citation(title: &str) -> Option<String> {
    CITATION_HEAD
        .captures(title.trim())
        .map(|c| c[1].trim_end_matches('.').to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const ACT: &str = "REGULATION (EU) No 1/2013\n\nTHE EUROPEAN PARLIAMENT AND THE COUNCIL,\n\nHaving regard to the Treaty,\n\nWhereas:\n\n(1)\n\nThe G-20 called for efforts.\n\n(2)\n\nA rule book should apply to all firms.\n\nHAVE ADOPTED THIS REGULATION:\n\nArticle 1\n\nFirms shall hold capital.\n\nDone at Brussels, 26 June 2013.\n\nFor the Council\n\nANNEX I\n\nList of activities\n";

    #[test]
    fn an_acts_preamble_and_each_recital_do_not_bind_and_its_articles_do() {
        let parts = non_binding(ACT, &[]);
        let at = |s: &str| {
            let i = ACT.find(s).unwrap();
            part_at(&parts, i, i + s.len()).map(|p| (p.kind, p.label.clone()))
        };
        assert_eq!(
            at("A rule book should apply"),
            Some((NonBinding::Recital, Some("(2)".into())))
        );
        assert_eq!(
            at("The G-20 called"),
            Some((NonBinding::Recital, Some("(1)".into())))
        );
        assert_eq!(
            at("Having regard to the Treaty"),
            Some((NonBinding::Preamble, None))
        );
        assert_eq!(at("Firms shall hold capital."), None);
        assert_eq!(at("For the Council"), Some((NonBinding::Signature, None)));
        assert_eq!(at("List of activities"), None);
        assert_eq!(
            at("REGULATION (EU) No 1/2013"),
            Some((NonBinding::Head, None))
        );
    }

    #[test]
    fn notes_comments_examples_citations_and_summary_sections_do_not_bind() {
        let text = "(a) Waste is solid.\n\n[Comment: This is a comment.] (b) Other.\n\nNote: a note here.\n\nExample: one.\n\n[60 FR 1234, Jan. 3, 1995]\n\n[65 FR 82798, Dec. 28, 2000, as\namended at 67 FR 53266, Aug.\n14, 2002]\r\n\r\n( 1 ) OJ C 105, 11.4.2012, p. 1 .\n\n# Summary\n\nIt sums up.\n\n# Rules\n\nStaff must act.\n";
        let heads = vec![
            (text.find("# Summary").unwrap(), 1u8, "Summary".to_string()),
            (text.find("# Rules").unwrap(), 1u8, "Rules".to_string()),
        ];
        let parts = non_binding(text, &heads);
        let kind = |s: &str| {
            let i = text.find(s).unwrap();
            part_at(&parts, i, i + s.len()).map(|p| p.kind)
        };
        assert_eq!(kind("This is a comment."), Some(NonBinding::Note));
        assert_eq!(kind("(b) Other."), None);
        assert_eq!(kind("a note here."), Some(NonBinding::Note));
        assert_eq!(kind("one."), Some(NonBinding::Example));
        assert_eq!(kind("60 FR 1234"), Some(NonBinding::Citation));
        assert_eq!(kind("amended at 67 FR 53266"), Some(NonBinding::Citation));
        assert_eq!(kind("OJ C 105, 11.4.2012"), Some(NonBinding::Note));
        assert_eq!(kind("It sums up."), Some(NonBinding::Summary));
        assert_eq!(kind("Staff must act."), None);
        assert_eq!(kind("Waste is solid."), None);
        let whereas = "WHEREAS the town grew;\nWHEREAS roads wore;\nNOW, THEREFORE, BE IT RESOLVED that roads be paved.";
        let p = non_binding(whereas, &[]);
        assert_eq!(p.len(), 2);
        assert!(part_at(&p, whereas.find("roads be").unwrap(), whereas.len()).is_none());
    }

    /// The kind of part holding `s` in `text` with headings `heads` (each heading line).
    fn kind_in(text: &str, heads: &[&str], s: &str) -> Option<NonBinding> {
        let heads: Vec<(usize, u8, String)> = heads
            .iter()
            .map(|h| {
                let title = h.trim_start_matches('#').trim().to_string();
                (text.find(h).unwrap(), h.matches('#').count() as u8, title)
            })
            .collect();
        let parts = non_binding(text, &heads);
        let i = text.find(s).unwrap();
        part_at(&parts, i, i + s.len()).map(|p| p.kind)
    }

    #[test]
    fn a_provision_said_to_be_repealed_binds_no_more() {
        let text = "# Licensing Act 2001\n\n## Section 3 Paper copies\n\nEach clerk must keep paper copies of every licence. This section was repealed effective March 1, 2014.\n\n## Section 4 Fees\n\nEach applicant shall pay the fee.\n\n## Section 5 Hours\n\n(a) Offices must open at nine.\n\n(b) Repealed by Act 2012, c. 4.\n\n## Section 6 Notices [Repealed]\n\nNotices shall be posted weekly.\n\n## Section 7 Sunset\n\nStaff must file reports. This section shall remain in effect only until January 1, 2030, and as of that date is repealed.\n\n## Section 8 Licences\n\nRevoked licences must be returned within 10 days.\n";
        let heads = [
            "# Licensing Act 2001",
            "## Section 3 Paper copies",
            "## Section 4 Fees",
            "## Section 5 Hours",
            "## Section 6 Notices [Repealed]",
            "## Section 7 Sunset",
            "## Section 8 Licences",
        ];
        let k = |s: &str| kind_in(text, &heads, s);
        assert_eq!(k("Each clerk must keep"), Some(NonBinding::Repealed));
        assert_eq!(k("Each applicant shall pay"), None);
        assert_eq!(k("(b) Repealed by Act"), Some(NonBinding::Repealed));
        assert_eq!(k("Offices must open at nine."), None);
        assert_eq!(
            k("Notices shall be posted weekly."),
            Some(NonBinding::Repealed)
        );
        assert_eq!(k("Staff must file reports."), None);
        assert_eq!(k("Revoked licences must be returned"), None);
        for marked in [
            "§ 12. Repealed.",
            "12.3 Paper copies (repealed)",
            "Section 4 — Repealed",
        ] {
            assert!(repealed_heading(marked), "{marked}");
        }
        for plain in [
            "Records to be deleted",
            "Fees - deleted items",
            "§ 12. Repeal of Act",
        ] {
            assert!(!repealed_heading(plain), "{plain}");
        }
        // A status line under the title ends the document (its dates), not a provision.
        let act = "# Records Act 1998\n\nRepealed effective January 1, 2016.\n\nStaff must keep records.\n";
        assert_eq!(
            kind_in(act, &["# Records Act 1998"], "Staff must keep"),
            None
        );
        // With no heading, a provision naming itself repealed is its paragraph.
        let plain =
            "Staff must log calls.\n\nClerks must stamp forms. This paragraph has been revoked.\n";
        assert_eq!(
            kind_in(plain, &[], "Clerks must stamp"),
            Some(NonBinding::Repealed)
        );
        assert_eq!(kind_in(plain, &[], "Staff must log calls."), None);
    }

    #[test]
    fn provisions_are_cited_at_the_finest_numbered_level() {
        let eu = "Article 521\n\n1. This Regulation shall enter into force.\n\n2. It shall apply from 1 January 2014, except:\n\n(a)\n\nArticle 8, from 2015;\n\n(b)\n\nArticle 413(1), from 2016;\n";
        let at = |t: &str, s: &str| provision_path(t, 0, t.find(s).unwrap());
        assert_eq!(at(eu, "This Regulation shall enter"), "(1)");
        assert_eq!(at(eu, "Article 413(1), from"), "(2)(b)");
        assert_eq!(at(eu, "It shall apply"), "(2)");
        let cfr = "§ 261.4 Exclusions.\n(a) Materials.\n(1)(i) Domestic sewage.\n(ii) Mixtures.\n(b) Solid wastes.\n(1) Household waste.\n(h) Hazard.\n(i) Item i as a letter.\n";
        assert_eq!(at(cfr, "Mixtures"), "(a)(1)(ii)");
        assert_eq!(at(cfr, "Household waste"), "(b)(1)");
        assert_eq!(at(cfr, "Item i as"), "(i)");
        assert_eq!(at(cfr, "Exclusions"), "");
        assert_eq!(
            heading_citation("Article 521").as_deref(),
            Some("Article 521")
        );
        assert_eq!(
            heading_citation("§ 164.404 Notification to individuals.").as_deref(),
            Some("§ 164.404")
        );
        assert_eq!(
            heading_citation("9.40.140 Client records").as_deref(),
            Some("9.40.140")
        );
        assert_eq!(heading_citation("Client records"), None);
    }
}
