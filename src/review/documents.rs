//! What each document of a submission is: its role (a plan, a report, a land register, a
//! map, or other), read from the last role word of its file name, else of its title, else
//! of its opening; the version it states in its opening ("Document version: Version 2.1",
//! "SUPERSEDED by Version 2.1") when its file name states none; and, for a land register's
//! official copy, its title number and the proprietors its proprietorship register names
//! (never the proprietor of a charge).

use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

use super::versions::Version;

/// Bytes of a document's opening (its first page's head) read for its role, version,
/// date of issue and the codes that name it.
pub const OPENING_BYTES: usize = 2_000;

/// What a document is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// A project plan or design document.
    Plan,
    /// A report: baseline, monitoring, verification, assessment.
    Report,
    /// An official copy of a land register.
    Register,
    /// A map or boundary file.
    Map,
    /// Anything else (letters, minutes, forms).
    Other,
}

impl Role {
    /// The name, as the JSON output spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Plan => "plan",
            Role::Report => "report",
            Role::Register => "register",
            Role::Map => "map",
            Role::Other => "other",
        }
    }
}

/// Phrases naming each role, longest first within a role.
const ROLE_WORDS: &[(Role, &[&str])] = &[
    (
        Role::Register,
        &[
            "register of title",
            "official copy",
            "land registry",
            "register",
        ],
    ),
    (
        Role::Map,
        &["boundary map", "map", "maps", "kml", "shapefile"],
    ),
    (
        Role::Report,
        &[
            "report",
            "monitoring",
            "baseline",
            "verification",
            "validation",
            "assessment",
        ],
    ),
    (
        Role::Plan,
        &["design document", "project description", "plan", "pdd"],
    ),
];

/// The role of a document from `source`'s file name, else `title`, else the opening of
/// `text`: the role whose phrase stands last ("baseline_report" is a report, "monitoring
/// plan" a plan).
pub fn role(source: &str, title: &str, text: &str) -> Role {
    let file = source.rsplit(['/', '\\']).next().unwrap_or(source);
    let stem = file.rsplit_once('.').map_or(file, |(s, _)| s);
    let head = opening(text, 500);
    [stem, title, head]
        .iter()
        .find_map(|t| last_role(t))
        .unwrap_or(Role::Other)
}

fn last_role(text: &str) -> Option<Role> {
    let words = crate::text::words(text).join(" ");
    let padded = format!(" {words} ");
    ROLE_WORDS
        .iter()
        .flat_map(|(r, ps)| ps.iter().map(move |p| (*r, *p)))
        .filter_map(|(r, p)| padded.rfind(&format!(" {p} ")).map(|i| (i, r)))
        .max_by_key(|(i, _)| *i)
        .map(|(_, r)| r)
}

/// The first `bytes` of `text`, cut back to a character boundary.
pub fn opening(text: &str, bytes: usize) -> &str {
    let mut end = bytes.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum VersionFrom {
    /// The file name (`plan_v2.pdf`, `plan (draft).docx`).
    FileName,
    /// A line of the document's opening.
    Text,
}

/// The version a document is, as the review shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
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
    /// The document's name across its versions.
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
    if let Some(v) = super::versions::of(source) {
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

/// A land register's title: its number and the proprietors its proprietorship register
/// names.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RegisterTitle {
    /// The title number ("CU482917"), when stated.
    pub title_number: Option<String>,
    /// Proprietors, as written.
    pub proprietors: Vec<String>,
}

static TITLE_NUMBER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\btitle\s+(?:number|no\.?)\s*:?\s*([A-Z]{1,3}\s?\d{3,8})\b")
        .expect("static pattern")
});

/// The title of a register's official copy: the title number and the names after
/// "PROPRIETOR:" between the proprietorship register's heading and the next register's
/// (the charges register's proprietors hold charges, not the land).
pub fn register(text: &str) -> RegisterTitle {
    let title_number = TITLE_NUMBER.captures(text).map(|c| c[1].to_string());
    let mut proprietors = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        let lower = line.trim().to_lowercase();
        let heading = lower.ends_with("register") && lower.split_whitespace().count() <= 4;
        if heading {
            inside = lower.contains("proprietorship");
            continue;
        }
        if !inside {
            continue;
        }
        if let Some(i) = lower.find("proprietor:") {
            let rest = &line[i + "proprietor:".len()..];
            if let Some((s, e)) = crate::value::names::name_at(rest.trim_start()) {
                let rest = rest.trim_start();
                let name = rest[s..e].to_string();
                if !proprietors.contains(&name) {
                    proprietors.push(name);
                }
            }
        }
    }
    RegisterTitle {
        title_number,
        proprietors,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_come_from_the_last_role_word_of_the_name_title_or_opening() {
        assert_eq!(
            role("x/baseline_report_AE-2022-117.md", "", ""),
            Role::Report
        );
        assert_eq!(role("x/monitoring_plan.pdf", "", ""), Role::Plan);
        assert_eq!(role("x/project_plan_v2.1_current.md", "", ""), Role::Plan);
        assert_eq!(
            role("x/official_copy_register_CU482917.txt", "", ""),
            Role::Register
        );
        assert_eq!(role("x/site_map.pdf", "", ""), Role::Map);
        assert_eq!(
            role("x/letter_consent.txt", "Letter", "Dear Sirs"),
            Role::Other
        );
        // No role word in the name: the title, then the opening.
        assert_eq!(
            role("x/doc1.pdf", "Monitoring Report MR1", ""),
            Role::Report
        );
        assert_eq!(
            role(
                "x/doc2.pdf",
                "doc2",
                "HM Land Registry\nOfficial copy of register of title"
            ),
            Role::Register
        );
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

    #[test]
    fn a_register_lists_the_proprietors_of_its_proprietorship_register_only() {
        let text = "Title number CU482917   Edition date 21.06.2021\n\nA: Property Register\n\n1 The Freehold land.\n\nB: Proprietorship Register\n\nTitle absolute\n\n1 (21 June 2021) PROPRIETOR: HOLLIN GILL ESTATES LIMITED (Co. Regn. No.\n07736412) of Low Hollin Farm.\n\nC: Charges Register\n\n4 (21 June 2021) Proprietor: NORTHERN COUNTIES BANK PLC (Co. Regn. No.\n";
        let t = register(text);
        assert_eq!(t.title_number.as_deref(), Some("CU482917"));
        assert_eq!(t.proprietors, ["HOLLIN GILL ESTATES LIMITED"]);
    }
}
