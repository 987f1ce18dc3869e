//! The version a document is: from its file name (a number, `v2`, `rev 1.3`, or a word,
//! `draft` before `updated`), else from a line of its opening ("Document version: Version
//! 2.1", "SUPERSEDED by Version 2.1"). The rest of the name, without version marks, names
//! the document across its versions.

use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use super::{opening, OPENING_BYTES};

static NUMBERED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:^|[^a-z])(?:v|ver|version|rev|revision)[ _.\-]?(\d{1,3}(?:[._]\d{1,3}){0,2})(?:$|[^0-9a-z])")
        .expect("static pattern")
});

/// Words of a file name that place a version before (−1) or after (+1) the plain one.
const VERSION_WORDS: &[(&str, i32)] = &[
    ("draft", -1),
    ("old", -1),
    ("outdated", -1),
    ("superseded", -1),
    ("previous", -1),
    ("updated", 1),
    ("revised", 1),
    ("final", 1),
    ("new", 1),
    ("current", 1),
];

/// A file's document and its place among that document's versions.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Version {
    /// The name without version marks, lower case, words joined by one space.
    pub document: String,
    /// Version numbers, then the word's rank.
    pub rank: (Vec<u32>, i32),
}

/// The version a file name states, if any.
pub fn of(source: &str) -> Option<Version> {
    let file = source.rsplit(['/', '\\']).next().unwrap_or(source);
    let stem = file
        .rsplit_once('.')
        .map_or(file, |(s, _)| s)
        .to_lowercase();
    let mut numbers = Vec::new();
    let mut rest = stem.clone();
    if let Some(c) = NUMBERED.captures(&stem) {
        numbers = c[1]
            .split(['.', '_'])
            .filter_map(|n| n.parse().ok())
            .collect();
        let m = c.get(0).unwrap();
        rest = format!("{} {}", &stem[..m.start()], &stem[m.end()..]);
    }
    let mut word = 0;
    let mut words = Vec::new();
    for w in rest
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        match VERSION_WORDS.iter().find(|(v, _)| *v == w) {
            Some((_, r)) => word = *r,
            None => words.push(w),
        }
    }
    if numbers.is_empty() && word == 0 {
        return None;
    }
    Some(Version {
        document: words.join(" "),
        rank: (numbers, word),
    })
}

/// A version line: "Version 2.1", "Document version | Version 1.0", "Rev. 3".
static VERSION_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?im)^[\s|*#>_]*(?:document\s+)?(?:version|revision|rev\.)\s*(?:no\.?|number)?\s*[:|]?[\s|*]*(?:version\s+|v\s?)?(\d{1,3}(?:\.\d{1,3}){0,2})\b",
    )
    .expect("static pattern")
});

/// A statement that a later version replaces this one.
static SUPERSEDED_BY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\bsuperseded\s+by\b").expect("static pattern"));

/// The version a document states in its opening, with the span of the line that states
/// it: a version number, ranked below every other version of the document when the
/// opening says it is superseded.
pub fn in_text(title: &str, text: &str) -> Option<(Version, (usize, usize))> {
    let head = opening(text, OPENING_BYTES);
    let superseded = SUPERSEDED_BY.find(head);
    let numbered = VERSION_LINE.captures(head);
    let (numbers, span) = match (&numbered, superseded) {
        (Some(c), _) => {
            let m = c.get(0).expect("whole match");
            let numbers = c[1].split('.').filter_map(|n| n.parse().ok()).collect();
            (numbers, (m.start(), m.end()))
        }
        (None, Some(m)) => (Vec::new(), (m.start(), m.end())),
        (None, None) => return None,
    };
    let (s, e) = trimmed(head, span);
    let version = Version {
        document: identity(title),
        rank: (numbers, if superseded.is_some() { -2 } else { 0 }),
    };
    Some((version, (s, e)))
}

fn trimmed(text: &str, (s, e): (usize, usize)) -> (usize, usize) {
    let piece = &text[s..e];
    let lead = piece.len()
        - piece
            .trim_start_matches(|c: char| c.is_whitespace() || "|*#>_".contains(c))
            .len();
    (s + lead, e)
}

/// A title as the name of a document across its versions: its words without what stands
/// in brackets (a template's number) and without version marks ("Project Plan (Template
/// PP-3, v3.0) Version 2" → "project plan"); other numbers stay ("Monitoring Report MR1"
/// and "… MR2" are two documents).
fn identity(title: &str) -> String {
    let mut plain = String::new();
    let mut depth = 0usize;
    for c in title.chars() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth = depth.saturating_sub(1),
            c if depth == 0 => plain.push(c),
            _ => {}
        }
    }
    let words = crate::text::words(&plain.replace('.', "_"));
    let mut out: Vec<String> = Vec::new();
    let mut skip_number = false;
    for w in words {
        let mark = matches!(w.as_str(), "version" | "rev" | "revision" | "v");
        let versioned =
            w.starts_with('v') && w[1..].chars().next().is_some_and(|c| c.is_ascii_digit());
        let number = w.chars().all(|c| c.is_ascii_digit());
        if mark || versioned {
            skip_number = true;
        } else if !(skip_number && number) {
            out.push(w);
            skip_number = false;
        }
    }
    out.join(" ")
}

/// Where a document's version was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VersionFrom {
    /// The file name (`plan_v2.pdf`, `plan (draft).docx`).
    FileName,
    /// A line of the document's opening.
    Text,
}

/// The version a document is, as the review shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DocVersion {
    /// Version numbers joined with dots (empty when only a word or a statement places it).
    pub number: String,
    /// The document says a later version supersedes it, or its name calls it a draft,
    /// old or superseded.
    pub earlier: bool,
    /// Where it was read.
    pub from: VersionFrom,
    /// The line that states it, as written (text versions).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quote: Option<String>,
    /// Byte span of that line in the document's text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub span: Option<(usize, usize)>,
    /// The document's name across its versions (stored in the profile beside it).
    #[serde(skip)]
    pub key: Version,
}

/// The version of a document: from its file name, else from its opening's lines.
pub fn version_of(source: &str, title: &str, text: &str) -> Option<DocVersion> {
    let shown = |v: &Version| {
        v.rank
            .0
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(".")
    };
    if let Some(v) = of(source) {
        return Some(DocVersion {
            number: shown(&v),
            earlier: v.rank.1 < 0,
            from: VersionFrom::FileName,
            quote: None,
            span: None,
            key: v,
        });
    }
    let (v, (s, e)) = in_text(title, text)?;
    Some(DocVersion {
        number: shown(&v),
        earlier: v.rank.1 < 0,
        from: VersionFrom::Text,
        quote: Some(text[s..e].to_string()),
        span: Some((s, e)),
        key: v,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_read_from_file_names() {
        let v = |s: &str| of(s).map(|v| (v.document, v.rank));
        assert_eq!(v("docs/PDD_v2.pdf"), Some(("pdd".into(), (vec![2], 0))));
        assert_eq!(v("PDD v1.3.docx"), Some(("pdd".into(), (vec![1, 3], 0))));
        assert_eq!(
            v("Project Plan (updated).pdf"),
            Some(("project plan".into(), (vec![], 1)))
        );
        assert_eq!(
            v("project-plan-draft.md"),
            Some(("project plan".into(), (vec![], -1)))
        );
        assert_eq!(v("monitoring_report_2021.pdf"), None);
        assert_eq!(v("review.pdf"), None);
        assert!(of("plan_v2.pdf").unwrap().rank > of("plan_v1.pdf").unwrap().rank);
        assert!(of("plan (updated).pdf").unwrap().rank > of("plan draft.pdf").unwrap().rank);
    }

    #[test]
    fn versions_and_supersession_are_read_from_the_opening() {
        let v2 = "# Plan (Template PP-3, v3.0)\n\n| Document version | Version 2.1 (current version) — supersedes Version 1.0 |\n";
        let (v, (s, e)) = in_text("Plan (Template PP-3, v3.0)", v2).unwrap();
        assert_eq!(v.rank, (vec![2, 1], 0));
        assert!(v2[s..e].starts_with("Document version"), "{:?}", &v2[s..e]);
        let v1 = "# Plan (Template PP-2, v2.2)\n\n> Document status: SUPERSEDED by Version 2.1.\n\n| Document version | Version 1.0 — draft |\n";
        let (w, _) = in_text("Plan (Template PP-2, v2.2)", v1).unwrap();
        assert_eq!(w.rank, (vec![1, 0], -2));
        // One document across its versions, whatever its template's number.
        assert_eq!(v.document, w.document);
        assert_eq!(identity("Plan (Template PP-3, v3.0) Version 2.1"), "plan");
        assert_ne!(
            identity("Monitoring Report MR1"),
            identity("Monitoring Report MR2")
        );
        assert!(v.rank > w.rank);
        // A standard's or a methodology's version inside a line is not the document's.
        assert!(in_text("Plan", "Standard: NUCR Standard v2.2\nMethodology v1.3\n").is_none());
        let (n, _) = in_text(
            "Framework",
            "Framework for Improving\n\nVersion 1.1\n\nApril 16, 2018\n",
        )
        .unwrap();
        assert_eq!(n.rank, (vec![1, 1], 0));
    }
}
