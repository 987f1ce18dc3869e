//! Provisions a question names ("Article 92(1)(a)", "40 CFR 261.5", "§ 5897(b)", "section
//! 9.40.140") and whether an item's provision is in one, or its quote names one.
//!
//! A question that names a provision asks about that provision: an answer from another
//! one (Article 13 for a question about Article 12, § 261.4 for § 261.5) answers a
//! question the documents come close to but were not asked.

use std::sync::LazyLock;

use regex::Regex;

use super::binding::re;

/// Kinds of provision, compared by kind: a question's "40 CFR 261.4" is the section a
/// heading cites as "§ 261.4".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// "Article 12", "Art. 5".
    Article,
    /// "§ 261.4", "section 9.40.140", "40 CFR 261.4", a heading "9.40.140".
    Section,
    /// "Annex II".
    Annex,
}

/// One provision: its kind, number and the labels below it ("(1)", "(a)").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named {
    /// Kind of provision.
    pub family: Family,
    /// Its number as written ("92", "261.4", "II").
    pub number: String,
    /// Labels below the number, without parentheses: ["1", "a"].
    pub path: Vec<String>,
    /// As the text writes it.
    pub text: String,
}

static ARTICLE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\bArt(?:icle|\.)\s*(\d+[a-z]?)((?:\(\w{1,6}\))*)"));
static SECTION: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?:§+|\bsec(?:tion|\.)|\bC\.?F\.?R\.?(?:\s*§+)?)\s*(\d+(?:\.\d+)*[a-z]?)((?:\(\w{1,6}\))*)",
    )
});
static ANNEX: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\bAnnex\s+([IVXLC]+|\d+)\b"));
static DOTTED: LazyLock<Regex> = LazyLock::new(|| re(r"^(\d+(?:\.\d+)+[a-z]?)((?:\(\w{1,6}\))*)"));
static LABEL: LazyLock<Regex> = LazyLock::new(|| re(r"\((\w{1,6})\)"));
/// Words before a provision that leave it out of what is asked ("apart from Article 24").
static EXCLUDED: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:apart from|aside from|except(?: for| in| under)?|other than|excluding|not counting|besides|but not|outside(?: of)?|save)\s+(?:the\s+|in\s+|under\s+)?$",
    )
});

fn named(family: Family, c: &regex::Captures<'_>) -> Named {
    let path = c
        .get(2)
        .map(|m| {
            LABEL
                .captures_iter(m.as_str())
                .map(|l| l[1].to_string())
                .collect()
        })
        .unwrap_or_default();
    Named {
        family,
        number: c[1].to_string(),
        path,
        text: c[0].trim().to_string(),
    }
}

/// The provisions `question` names, in order; one it leaves out ("apart from Article
/// 24", "other than § 5") is not asked about.
pub fn named_in(question: &str) -> Vec<Named> {
    let mut out: Vec<(usize, Named)> = Vec::new();
    for (family, pattern) in [
        (Family::Article, &*ARTICLE),
        (Family::Section, &*SECTION),
        (Family::Annex, &*ANNEX),
    ] {
        out.extend(
            pattern
                .captures_iter(question)
                .map(|c| (c.get(0).map_or(0, |m| m.start()), named(family, &c)))
                .filter(|(at, _)| !EXCLUDED.is_match(&question[..*at])),
        );
    }
    out.sort_by_key(|(at, _)| *at);
    out.into_iter().map(|(_, n)| n).collect()
}

/// An item's provision as the labeller writes it ("Article 521(2)(b)", "§ 261.4(a)(26)",
/// "9.40.140(a)"); `None` for labels alone ("(3)").
pub fn parse_provision(p: &str) -> Option<Named> {
    let p = p.trim();
    for (family, pattern) in [
        (Family::Article, &*ARTICLE),
        (Family::Section, &*SECTION),
        (Family::Annex, &*ANNEX),
        (Family::Section, &*DOTTED),
    ] {
        if let Some(c) = pattern
            .captures(p)
            .filter(|c| c.get(0).is_some_and(|m| m.start() == 0))
        {
            return Some(named(family, &c));
        }
    }
    None
}

impl Named {
    /// Whether `other` is this provision, a part of it or the provision holding it (the
    /// same kind and number, one path a prefix of the other; "Section 2" also holds
    /// "2.1").
    pub fn meets(&self, other: &Named) -> bool {
        let n = self.path.len().min(other.path.len());
        let below = |a: &str, b: &str| {
            b.len() > a.len() + 1
                && b[..a.len()].eq_ignore_ascii_case(a)
                && b.as_bytes()[a.len()] == b'.'
        };
        // "Section 2" holds "2.1"; a section cited to a point holds only its own number.
        let held = self.path.is_empty() && below(&self.number, &other.number);
        self.family == other.family
            && (held || self.number.eq_ignore_ascii_case(&other.number))
            && self.path[..n]
                .iter()
                .zip(&other.path[..n])
                .all(|(a, b)| a.eq_ignore_ascii_case(b))
    }

    /// Whether `quote` names this provision (by kind and number: "Article 413(1), which
    /// shall apply…" names Article 413(1)).
    pub fn named_by(&self, quote: &str) -> bool {
        named_in(quote)
            .iter()
            .any(|n| n.family == self.family && n.number.eq_ignore_ascii_case(&self.number))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(q: &str) -> Named {
        let mut n = named_in(q);
        assert_eq!(n.len(), 1, "{q}: {n:?}");
        n.remove(0)
    }

    #[test]
    fn articles_sections_and_cfr_citations_are_read_with_their_labels() {
        let a = one("What ratio does Article 92(1)(a) of Regulation (EU) No 575/2013 require?");
        assert_eq!((a.family, a.number.as_str()), (Family::Article, "92"));
        assert_eq!(a.path, vec!["1", "a"]);
        let s = one("Under 40 CFR 261.4(f), how many days?");
        assert_eq!((s.family, s.number.as_str()), (Family::Section, "261.4"));
        assert_eq!(s.path, vec!["f"]);
        assert_eq!(one("What does § 5897 of the Act allow?").number, "5897");
        assert_eq!(
            one("What does section 9.40.140 require?").number,
            "9.40.140"
        );
        // Parts, regulations and directives by number are not provisions.
        assert!(named_in("Which provision of 40 CFR Part 261 Subpart A applies?").is_empty());
        assert!(named_in("Regulation (EU) 2016/679 and Directive 95/46/EC").is_empty());
        assert!(named_in("Which articles apply?").is_empty());
        assert!(named_in("From what date does it apply (apart from Article 24)?").is_empty());
        assert!(named_in("What applies, other than § 5, to wipes?").is_empty());
        assert_eq!(
            named_in("Except as Article 3 says, what does Article 4 require?").len(),
            2
        );
    }

    #[test]
    fn an_items_provision_meets_the_named_one_when_one_path_holds_the_other() {
        let q = one("Under 40 CFR 261.4(a), for how long?");
        let item = |p: &str| parse_provision(p).unwrap();
        assert!(q.meets(&item("§ 261.4(a)(26)(ii)")));
        assert!(q.meets(&item("§ 261.4")));
        assert!(!q.meets(&item("§ 261.4(b)(18)")));
        assert!(!q.meets(&item("§ 261.41(a)")));
        assert!(one("section 9.40.140").meets(&item("9.40.140(a)")));
        assert!(!one("Article 12").meets(&item("Article 13(2)")));
        assert!(one("Article 12").meets(&item("Article 12(1)")));
        assert!(parse_provision("(3)").is_none());
        assert!(one("What does Section 2 say?").meets(&item("2.1(a)")));
        assert!(!one("What does Section 2 say?").meets(&item("21.1")));
    }

    #[test]
    fn a_quote_names_a_provision_by_kind_and_number() {
        let q = one("From what date does Article 413(1) apply?");
        assert!(q.named_by("Article 413(1), which shall apply from 1 January 2016;"));
        assert!(!q.named_by("Article 41 applies from 2015."));
        assert!(!q.named_by("Section 413 of the Act."));
        let s = one("What does 40 CFR 261.5 require?");
        assert!(s.named_by("as defined in § 261.5 of this part"));
        assert!(!s.named_by("as defined in § 261.51"));
    }
}
