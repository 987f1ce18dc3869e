//! Versions of one arXiv preprint: files named by their arXiv identifier and version
//! (`2206.10883v1.pdf`, `2206.10883v3.pdf`, `hep-th_9901001v2.pdf`) are one paper; the
//! highest version is current and every other is superseded by it, so a library that
//! holds two versions answers from one.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;

/// A file stem that is an arXiv identifier with a version: the current scheme
/// (`YYMM.NNNNN`) or the old one (`archive/YYMMNNN`, saved with `_` or `-` for `/`).
static VERSIONED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:arxiv[_.:-]?)?(\d{4}\.\d{4,5}|[a-z][a-z.-]*[_-]?\d{7})v(\d{1,3})$")
        .expect("arXiv version pattern")
});

/// The arXiv identifier and version a path's file name carries.
pub fn version_of(path: &str) -> Option<(String, u32)> {
    let name = path.rsplit(['/', '\\']).next()?;
    let stem = name
        .rsplit_once('.')
        .map_or(name, |(s, _)| s)
        .to_lowercase();
    let c = VERSIONED.captures(&stem)?;
    Some((c[1].to_string(), c[2].parse().ok()?))
}

/// Each path that an arXiv version among `paths` supersedes, with the path of the
/// highest version of its paper.
pub fn superseded<'a>(paths: &[&'a str]) -> Vec<(&'a str, &'a str)> {
    let mut papers: BTreeMap<String, Vec<(u32, &'a str)>> = BTreeMap::new();
    for p in paths {
        if let Some((id, v)) = version_of(p) {
            papers.entry(id).or_default().push((v, p));
        }
    }
    let mut out = Vec::new();
    for versions in papers.values() {
        let Some(&(top, current)) = versions.iter().max_by_key(|x| (x.0, x.1)) else {
            continue;
        };
        out.extend(
            versions
                .iter()
                .filter(|(v, p)| *v < top || (*v == top && *p != current))
                .map(|(_, p)| (*p, current)),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arxiv_file_names_give_identifier_and_version() {
        assert_eq!(
            version_of("papers/2206.10883v3.pdf"),
            Some(("2206.10883".into(), 3))
        );
        assert_eq!(
            version_of("arXiv-1703.01234v12.PDF"),
            Some(("1703.01234".into(), 12))
        );
        assert_eq!(
            version_of("hep-th_9901001v2.pdf"),
            Some(("hep-th_9901001".into(), 2))
        );
        assert_eq!(version_of("2206.10883.pdf"), None);
        assert_eq!(version_of("report-2021v2.pdf"), None);
        assert_eq!(version_of("paper.pdf"), None);
    }

    #[test]
    fn the_highest_version_supersedes_the_others() {
        let paths = [
            "a/2206.10883v1.pdf",
            "b/2206.10883v3.pdf",
            "a/2206.10883v2.pdf",
            "a/1901.00001v1.pdf",
        ];
        let mut s = superseded(&paths);
        s.sort();
        assert_eq!(
            s,
            vec![
                ("a/2206.10883v1.pdf", "b/2206.10883v3.pdf"),
                ("a/2206.10883v2.pdf", "b/2206.10883v3.pdf"),
            ]
        );
    }

    #[test]
    fn the_same_version_twice_keeps_one_current() {
        let s = superseded(&["x/2206.10883v2.pdf", "y/2206.10883v2.pdf"]);
        assert_eq!(s.len(), 1);
        assert_ne!(s[0].0, s[0].1);
    }
}
