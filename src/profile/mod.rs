//! What a document is, worked out once when it is ingested and stored with it: what it
//! says about itself as a source (type, jurisdiction, effective dates, what it
//! supersedes; [`crate::source::infer_in`]), its role (a plan, a report, a register …),
//! the version it is, the line of its opening that dates its issue, the order its
//! numeric dates are written in and, for a land register's official copy, its title.
//! `ask` (through the authority catalogue), `review` and `source` read this one profile
//! instead of reading the document again; a document stored before profiles existed is
//! profiled from its text when it is first read ([`Profile::stored`]).

use serde::{Deserialize, Serialize};

use crate::source::SourceMeta;
use crate::value::DateOrder;

pub mod paper;
pub mod register;
pub mod role;
pub mod version;

pub use register::RegisterTitle;
pub use role::Role;
pub use version::{DocVersion, Version, VersionFrom};

/// Bytes of a document's opening (its first page's head) read for its role, version,
/// date of issue and the codes that name it.
pub const OPENING_BYTES: usize = 2_000;

/// The reading of documents a profile was made by; a stored profile of an older reading
/// (0: stored before profiles) is made again from the document's text when read.
pub const READING: u32 = 1;

/// What one document is.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    /// The reading that made it ([`READING`]; 0: none, only the source fields are set).
    #[serde(default)]
    pub reading: u32,
    /// What it says, or was declared to be, about itself as a source.
    #[serde(flatten)]
    pub source: SourceMeta,
    /// Its role.
    #[serde(default)]
    pub role: Role,
    /// The version it is, when its file name or opening states one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<DocVersion>,
    /// The document's name across its versions (the key of `version`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    version_name: Option<Version>,
    /// Byte span of the opening's line that is one full date: the date it was issued.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issued: Option<(usize, usize)>,
    /// The order its own unambiguous numeric dates show (`None`: they show none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date_order: Option<DateOrder>,
    /// For a land register's official copy: its title number and proprietors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub register: Option<RegisterTitle>,
    /// Its authors, as its first page prints them (set at ingest from the layout).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub authors: Vec<String>,
    /// For a paper: its arXiv identifier, DOI and year (set at ingest).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paper: Option<paper::PaperIds>,
}

impl Profile {
    /// The profile of the document titled `title`, shown as `source`, with text `text`.
    pub fn of(title: &str, source: &str, text: &str) -> Profile {
        let role = role::role(source, title, text);
        let version = version::version_of(source, title, text);
        Profile {
            reading: READING,
            source: crate::source::infer_in(title, source, text),
            role,
            version_name: version.as_ref().map(|v| v.key.clone()),
            version,
            issued: head_date(text),
            date_order: crate::value::parse::infer_order(text),
            register: (role == Role::Register).then(|| register::register(text)),
            authors: Vec::new(),
            paper: None,
        }
    }

    /// The profile stored as `json` for the document (`title`, `source`, `text`): read
    /// back when it is of the current reading, else made again from the text (keeping
    /// nothing of an older one, whose fields a newer reading may read differently).
    pub fn stored(json: &str, title: &str, source: &str, text: &str) -> Profile {
        match serde_json::from_str::<Profile>(json) {
            Ok(mut p) if p.reading == READING => {
                if let (Some(v), Some(k)) = (p.version.as_mut(), p.version_name.as_ref()) {
                    v.key = k.clone();
                }
                p
            }
            _ => Profile::of(title, source, text),
        }
    }

    /// The profile as stored (JSON).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// The first `bytes` of `text`, cut back to a character boundary.
pub fn opening(text: &str, bytes: usize) -> &str {
    let mut end = bytes.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The span of the first line of `text`'s opening that is one full date, alone (a cover's
/// "April 16, 2018"): the date the document was issued.
pub fn head_date(text: &str) -> Option<(usize, usize)> {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        if at >= OPENING_BYTES {
            break;
        }
        let lead = line.len() - line.trim_start().len();
        let body = line.trim();
        let whole = crate::value::parse::dates(body, None)
            .into_iter()
            .any(|c| c.start == 0 && c.end == body.len() && c.value.is_ok());
        if whole {
            return Some((at + lead, at + lead + body.len()));
        }
        at += line.len();
    }
    None
}

/// The authors a stored profile's JSON records (none when it records none or does not
/// parse: a profile of an older reading).
pub fn stored_authors(json: Option<&str>) -> Vec<String> {
    json.and_then(|j| serde_json::from_str::<serde_json::Value>(j).ok())
        .and_then(|v| {
            v.get("authors")?.as_array().map(|a| {
                a.iter()
                    .filter_map(|x| x.as_str().map(str::to_string))
                    .collect()
            })
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_head_date_is_a_full_date_alone_on_an_opening_line() {
        let text = "Framework for Improving\n\nVersion 1.1\n\nApril 16, 2018\n\nNote: issued in February 2014.\n";
        let (s, e) = head_date(text).unwrap();
        assert_eq!(&text[s..e], "April 16, 2018");
        // A month and year, a year alone, or a date inside a sentence is no head date.
        assert!(head_date("June 2023\n\n2025\n\nIssued on August 3, 2020.\n").is_none());
        // Past the opening nothing is read.
        let far = format!("{}\nApril 16, 2018\n", "x".repeat(OPENING_BYTES + 10));
        assert!(head_date(&far).is_none());
    }

    #[test]
    fn a_profile_is_stored_and_read_back_whole() {
        let text = "Project Plan\n\nDocument version: Version 2.1\n\n12 March 2024\n\nThis plan supersedes the Interim Plan. Signed 25/12/2023.\n";
        let p = Profile::of("Project Plan", "docs/plan.md", text);
        assert_eq!(p.role, Role::Plan);
        assert_eq!(p.version.as_ref().map(|v| v.number.as_str()), Some("2.1"));
        let (s, e) = p.issued.unwrap();
        assert_eq!(&text[s..e], "12 March 2024");
        assert_eq!(p.date_order, Some(DateOrder::Dmy));
        let back = Profile::stored(&p.to_json(), "", "", "");
        assert_eq!(back, p);
        assert_eq!(back.version.unwrap().key, p.version.unwrap().key);
    }

    #[test]
    fn a_profile_of_an_older_reading_is_made_again_from_the_text() {
        // What ingest stored before profiles: the source fields only.
        let old = r#"{"source_type":{"value":"policy","origin":{"inferred":"x"}}}"#;
        let text = "Monitoring Report MR2\n\nVersion 3\n";
        let p = Profile::stored(old, "Monitoring Report MR2", "r.md", text);
        assert_eq!(p.reading, READING);
        assert_eq!(p.role, Role::Report);
        assert_eq!(p, Profile::of("Monitoring Report MR2", "r.md", text));
        // Unreadable JSON is no profile either.
        assert_eq!(
            Profile::stored("{", "t", "s.md", ""),
            Profile::of("t", "s.md", "")
        );
    }
}
