//! A paper's identifiers as its first page prints them: its arXiv identifier (or the one
//! its file name carries), its DOI, and the year a preprint server's stamp, a copyright
//! line or the journal's running head above the title gives.

use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

/// Bytes of the opening read for identifiers (about a first page).
const OPENING: usize = 6000;

/// A paper's identifiers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PaperIds {
    /// Its arXiv identifier with version, when it states or its file name carries one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arxiv: Option<String>,
    /// Its DOI (`10.…/…`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doi: Option<String>,
    /// The year it was published or posted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub year: Option<u16>,
}

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("paper identifier pattern")
}

/// A preprint server's stamp: `arXiv:2206.10883v3 [cs.CL] 21 Jun 2022`.
static ARXIV: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\barxiv:\s?(\d{4}\.\d{4,5}(?:v\d{1,3})?|[a-z][a-z.-]*/\d{7}(?:v\d{1,3})?)(?:\s*\[[^\]\n]{1,20}\]\s*\d{1,2}\s+[a-z]{3,9}\.?\s+((?:19|20)\d{2}))?",
    )
});

static DOI: LazyLock<Regex> = LazyLock::new(|| re(r"\b(10\.\d{4,9}/[^\s,;\x22<>\]]+)"));

/// A copyright line's year: `© 2014`, `Copyright 2007`, `(c) 2019`.
static COPYRIGHT: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)(?:©|\(c\)|copyright)\s*(?:©\s*)?((?:19|20)\d{2})\b"));

static YEAR: LazyLock<Regex> = LazyLock::new(|| re(r"\b((?:19|20)\d{2})\b"));

/// The identifiers of the paper titled `title` at `source` with stored `text`, when it
/// has any: none for a document that is no paper (no authors read from its first page,
/// no arXiv identifier).
pub fn read(source: &str, title: &str, text: &str, has_authors: bool) -> Option<PaperIds> {
    let opening = crate::profile::opening(text, OPENING);
    let stamp = ARXIV.captures(opening);
    let arxiv = stamp
        .as_ref()
        .map(|c| c[1].to_string())
        .or_else(|| crate::source::arxiv::version_of(source).map(|(id, v)| format!("{id}v{v}")));
    if !has_authors && arxiv.is_none() {
        return None;
    }
    let doi = DOI
        .captures(opening)
        .map(|c| c[1].trim_end_matches(['.', ')', '(']).to_string());
    let year = stamp
        .as_ref()
        .and_then(|c| c.get(2))
        .or_else(|| COPYRIGHT.captures(opening).and_then(|c| c.get(1)))
        .map(|m| m.as_str())
        .or_else(|| head_year(opening, title))
        .and_then(|y| y.parse().ok());
    Some(PaperIds { arxiv, doi, year })
}

/// The one year the lines above the title print (a journal's running head: "BMC Health
/// Services Research 2014, 14:1"); none when they print none or several.
fn head_year<'a>(opening: &'a str, title: &str) -> Option<&'a str> {
    let first: Vec<String> = crate::text::words(&title.to_lowercase())
        .into_iter()
        .take(3)
        .collect();
    let lower = opening.to_lowercase();
    let at = (!first.is_empty())
        .then(|| lower.find(&first.join(" ")))
        .flatten()?;
    let years: Vec<&str> = YEAR
        .captures_iter(&opening[..at])
        .map(|c| c.get(1).map_or("", |m| m.as_str()))
        .collect();
    match years.as_slice() {
        [y] => Some(y),
        [y, rest @ ..] if rest.iter().all(|r| r == y) => Some(y),
        _ => None,
    }
}

/// How a researcher cites a paper by `authors` (as its first page prints them) and
/// `year`: "Byron 2023", "Byron and Hopper 2023", "Byron et al. 2023" (surnames as
/// printed, a name set in capitals in title case); none without authors.
pub fn citation(authors: &[String], year: Option<u16>) -> Option<String> {
    let surname = |name: &String| -> Option<String> {
        let last = name.split_whitespace().last()?;
        if last.chars().any(char::is_lowercase) {
            return Some(last.to_string());
        }
        let mut c = last.chars();
        let first = c.next()?;
        Some(first.to_string() + &c.as_str().to_lowercase())
    };
    let names = match authors {
        [] => return None,
        [a] => surname(a)?,
        [a, b] => format!("{} and {}", surname(a)?, surname(b)?),
        [a, ..] => format!("{} et al.", surname(a)?),
    };
    Some(match year {
        Some(y) => format!("{names} {y}"),
        None => names,
    })
}

/// The citation of the document whose stored profile is `json` ([`citation`]).
pub fn citation_of(json: Option<&str>) -> Option<String> {
    let p: crate::profile::Profile = serde_json::from_str(json?).ok()?;
    citation(&p.authors, p.paper.and_then(|x| x.year))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_papers_stamp_doi_and_running_head_give_its_identifiers() {
        let stamped = "Multi-LexSum: Real-World Summaries\nZejiang Shen\n\
                       arXiv:2206.10883v3 [cs.CL] 21 Jun 2022\nAbstract";
        assert_eq!(
            read(
                "p/paper.pdf",
                "Multi-LexSum: Real-World Summaries",
                stamped,
                true
            ),
            Some(PaperIds {
                arxiv: Some("2206.10883v3".into()),
                doi: None,
                year: Some(2022)
            })
        );
        let journal = "Agyeman-Duah et al. BMC Health Services Research 2014, 14:1\n\
                       http://www.biomedcentral.com/1472-6963/14/1\nUnderstanding the barriers \
                       to quality\nAbstract In 2009 and 2011 we … doi:10.1186/1472-6963-14-1.";
        let ids = read(
            "b.pdf",
            "Understanding the barriers to quality",
            journal,
            true,
        )
        .unwrap();
        assert_eq!(ids.doi.as_deref(), Some("10.1186/1472-6963-14-1"));
        assert_eq!(ids.year, Some(2014));
        // Two years above the title, no copyright line: no year.
        let two = "Vol. 3 (2019) reprinted 2021\nA Title Here\n";
        assert_eq!(read("c.pdf", "A Title Here", two, true).unwrap().year, None);
        let copy = "A Title Here\nAda Byron\nCopyright © 2007 ACM 978-1-59593";
        assert_eq!(
            read("c.pdf", "A Title Here", copy, true).unwrap().year,
            Some(2007)
        );
        // No authors and no arXiv identifier: no paper.
        assert_eq!(
            read("r.pdf", "Annual Report", "Annual Report 2019", false),
            None
        );
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            citation(&names(&["Kyle Lo"]), Some(2020)).as_deref(),
            Some("Lo 2020")
        );
        assert_eq!(
            citation(&names(&["Ada Byron", "Grace B. Hopper"]), None).as_deref(),
            Some("Byron and Hopper")
        );
        assert_eq!(
            citation(
                &names(&["LEANA GOLUBCHIK", "S. Khanna", "A. Zhu"]),
                Some(2000)
            )
            .as_deref(),
            Some("Golubchik et al. 2000")
        );
        assert_eq!(citation(&[], Some(2000)), None);
        // The file name's identifier.
        assert_eq!(
            read("x/2301.00001v2.pdf", "T", "T", false)
                .unwrap()
                .arxiv
                .as_deref(),
            Some("2301.00001v2")
        );
    }
}
