//! Versions of one document in a submission. A folder that holds "PDD_v1.pdf" and
//! "PDD_v2.pdf", or "Plan (draft).docx" and "Plan (updated).docx", holds one plan twice:
//! the earlier version's values are not the project's current ones, and a difference
//! between the two is a revision, not a conflict. Versions are read from file names: a
//! version number (`v2`, `version 1.3`, `rev 2`) or a word (`draft`, `old`, `outdated`,
//! `superseded` before `updated`, `revised`, `final`, `new`); the rest of the name, with
//! those removed, names the document.

use std::sync::LazyLock;

use regex::Regex;

use super::fields::RejectReason;
use super::{FieldValue, RejectedValue};

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
#[derive(Debug, Clone, PartialEq, Default)]
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

/// Values from an earlier version of a document whose later version the values also come
/// from are set aside as superseded, naming the later file.
pub fn current(
    fields: Vec<FieldValue>,
    version_of: &dyn Fn(&FieldValue) -> Option<Version>,
) -> (Vec<FieldValue>, Vec<RejectedValue>) {
    let versions: Vec<Option<Version>> = fields.iter().map(version_of).collect();
    let mut keep = Vec::new();
    let mut aside = Vec::new();
    for (i, f) in fields.iter().enumerate() {
        let newer = versions[i].as_ref().and_then(|v| {
            fields.iter().zip(&versions).find_map(|(g, w)| {
                let w = w.as_ref()?;
                (g.name == f.name && w.document == v.document && w.rank > v.rank)
                    .then_some(&g.source)
            })
        });
        match newer {
            Some(src) => aside.push(RejectedValue {
                name: f.name.clone(),
                raw: f.raw.clone(),
                reason: RejectReason::Superseded,
                note: format!(
                    "stated in an earlier version of the document; {} supersedes it",
                    src.rsplit('/').next().unwrap_or(src)
                ),
                evidence: f.evidence.clone(),
                start: f.start,
                end: f.end,
                source: f.source.clone(),
            }),
            None => keep.push(f.clone()),
        }
    }
    (keep, aside)
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
}
