//! Periods a text names, read with one grammar: calendar and fiscal years (`2023`,
//! `FY2023`, `FY23`, `FY 2022-23`, `CY2023`, `fiscal year 2023`), quarters (`2023Q1`,
//! `Q1 2023`, `first quarter of 2023`), months written out or abbreviated (`October
//! 2022`, `Oct. 2022`, `Sept 2022`, `1 Oct 2022`), numeric month and year (`10/2022`,
//! `2022-10`) and dates (`10/15/2022`: the year). A figure pinned to a period is answered
//! only from evidence that names that period.

use std::sync::OnceLock;

use regex::Regex;

use crate::lexicon::{self, Class};

/// What kind of year a period is counted in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum YearKind {
    /// A year named plainly (`2023`).
    Plain,
    /// A fiscal year (`FY2023`, `fiscal year 2023`).
    Fiscal,
    /// A calendar year named as such (`CY2023`, `calendar year 2023`).
    Calendar,
}

/// A period: a year, or a month or quarter of it, or a month alone.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Period {
    /// The year, when named.
    pub year: Option<u16>,
    /// The month (1–12), when named.
    pub month: Option<u8>,
    /// The quarter (1–4), when named.
    pub quarter: Option<u8>,
    /// Plain, fiscal or calendar.
    pub kind: YearKind,
    /// The text that named it.
    pub text: String,
}

impl Period {
    /// Whether `other` (named by the evidence) is this period (named by a question): the
    /// same year, the same month or quarter when this one names one, and no fiscal year
    /// answered by an explicit calendar year or the reverse.
    pub fn met_by(&self, other: &Period) -> bool {
        let kinds = !matches!(
            (self.kind, other.kind),
            (YearKind::Fiscal, YearKind::Calendar) | (YearKind::Calendar, YearKind::Fiscal)
        );
        let year = self.year.is_none() || self.year == other.year;
        let month = self.month.is_none() || self.month == other.month;
        let quarter = match (self.quarter, other.quarter, other.month) {
            (None, _, _) => true,
            (Some(q), Some(o), _) => q == o,
            (Some(q), None, Some(m)) => (m - 1) / 3 + 1 == q,
            _ => false,
        };
        kinds && year && month && quarter
    }

    /// Whether `other` names a different year (a quote about another period).
    pub fn other_year(&self, other: &Period) -> bool {
        matches!((self.year, other.year), (Some(a), Some(b)) if a != b)
    }
}

fn month_number(w: &str) -> Option<u8> {
    lexicon::month_number(w)
}

fn year_of(s: &str) -> Option<u16> {
    let v: u16 = s.parse().ok()?;
    match s.len() {
        2 => Some(2000 + v),
        4 if (1900..2100).contains(&v) => Some(v),
        _ => None,
    }
}

fn grammar() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        let month = lexicon::alternation(&[Class::Month, Class::MonthAbbreviation]);
        // A month alone is a month unless it is "may", the modal far more often.
        let alone = lexicon::words(Class::Month)
            .iter()
            .filter(|m| **m != "may")
            .copied()
            .collect::<Vec<_>>()
            .join("|");
        let ordinal = lexicon::alternation(&[Class::Ordinal]);
        Regex::new(&format!(
            r"(?ix)
            \b(?P<fy>fy|cy|fiscal\ year|calendar\ year)\s*'?(?P<fyy>\d{{4}}|\d{{2}})(?:\s*[-/–]\s*(?:\d{{4}}|\d{{2}}))?\b
            | \b(?P<qy>\d{{4}})\s*[-/ ]?\s*q(?P<qq>[1-4])\b
            | \bq(?P<q2>[1-4])\s*[-/ ]?\s*(?:fy\s*)?(?P<q2y>\d{{4}})\b
            | \b(?P<qw>{ordinal})\ quarter\ (?:of\ )?(?:fy\ ?|fiscal\ year\ )?(?P<qwy>\d{{4}})\b
            | \b(?:\d{{1,2}}\s+)?(?P<m>{month})\b\.?\s*(?:\d{{1,2}}(?:st|nd|rd|th)?,?\s*)?[-–,]?\s*(?P<my>\d{{4}})\b
            | \b(?P<mm>\d{{1,2}})[/.-](?:(?P<dd>\d{{1,2}})[/.-])?(?P<mmy>\d{{4}})\b
            | \b(?P<iy>\d{{4}})-(?P<im>\d{{2}})(?:-\d{{2}})?\b
            | \b(?P<y>(?:19|20)\d{{2}})\b
            | \b(?P<mo>{alone})\b"
        ))
        .expect("the period grammar compiles")
    })
}

/// The periods `text` names, in order.
pub fn periods(text: &str) -> Vec<Period> {
    let text = crate::figure::normalise(text);
    grammar()
        .captures_iter(&text)
        .filter(|c| {
            c.get(0)
                .is_some_and(|m| !in_number(&text, m.start(), m.end()))
        })
        .filter_map(|c| period_of(&c))
        .collect()
}

/// Whether `start..end` of `text` is part of a number such as a regulation's
/// "2018/1805" or a docket's "2019-0042": a slash and a digit next to it, or a hyphen
/// and three digits or more that are no year ("2009-10" and "2018-2019" are ranges).
fn in_number(text: &str, start: usize, end: usize) -> bool {
    let run = |s: &str| s.chars().take_while(char::is_ascii_digit).count();
    let after = &text[end..];
    let before = &text[..start];
    let slash = after.strip_prefix('/').is_some_and(|r| run(r) > 0)
        || before
            .strip_suffix('/')
            .is_some_and(|r| r.ends_with(|c: char| c.is_ascii_digit()));
    let docket = after.strip_prefix(['-', '–']).is_some_and(|r| {
        let n = run(r);
        let year = n == 4
            && r[..4]
                .parse::<u32>()
                .is_ok_and(|y| (1800..=2100).contains(&y));
        n >= 3 && !year
    });
    slash || docket
}

fn period_of(c: &regex::Captures<'_>) -> Option<Period> {
    let g = |n: &str| c.name(n).map(|m| m.as_str());
    let mut p = Period {
        year: None,
        month: None,
        quarter: None,
        kind: YearKind::Plain,
        text: c.get(0)?.as_str().to_string(),
    };
    if let (Some(k), Some(y)) = (g("fy"), g("fyy")) {
        p.year = year_of(y);
        let k = k.to_lowercase();
        p.kind = if k.starts_with('f') {
            YearKind::Fiscal
        } else {
            YearKind::Calendar
        };
    } else if let (Some(y), Some(q)) = (g("qy").or(g("q2y")), g("qq").or(g("q2"))) {
        p.year = year_of(y);
        p.quarter = q.parse().ok();
    } else if let (Some(w), Some(y)) = (g("qw"), g("qwy")) {
        p.year = year_of(y);
        let w = w.to_lowercase();
        p.quarter = lexicon::ordinal_value(&w).filter(|q| *q <= 4);
    } else if let (Some(m), Some(y)) = (g("m"), g("my")) {
        p.month = month_number(m);
        p.year = year_of(y);
    } else if let Some(y) = g("mmy") {
        p.year = year_of(y);
        // A full date's month is ambiguous (10/11/2022); month/year is not.
        if g("dd").is_none() {
            p.month = g("mm")
                .and_then(|m| m.parse().ok())
                .filter(|m| (1..=12).contains(m));
        }
    } else if let (Some(y), Some(m)) = (g("iy"), g("im")) {
        p.year = year_of(y);
        p.month = m.parse().ok().filter(|m| (1..=12).contains(m));
    } else if let Some(y) = g("y") {
        p.year = year_of(y);
    } else if let Some(m) = g("mo") {
        p.month = month_number(m);
    }
    (p.year.is_some() || p.month.is_some()).then_some(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(s: &str) -> Period {
        let p = periods(s);
        assert_eq!(p.len(), 1, "{s}: {p:?}");
        p[0].clone()
    }

    #[test]
    fn one_grammar_reads_every_written_period() {
        for (s, y, m, q, k) in [
            ("FY2023", 2023, None, None, YearKind::Fiscal),
            ("FY23", 2023, None, None, YearKind::Fiscal),
            ("FY 2022-23", 2022, None, None, YearKind::Fiscal),
            ("CY2023", 2023, None, None, YearKind::Calendar),
            ("fiscal year 2023", 2023, None, None, YearKind::Fiscal),
            ("2023Q1", 2023, None, Some(1), YearKind::Plain),
            ("Q3 2021", 2021, None, Some(3), YearKind::Plain),
            (
                "second quarter of 2020",
                2020,
                None,
                Some(2),
                YearKind::Plain,
            ),
            ("Oct. 2022", 2022, Some(10), None, YearKind::Plain),
            ("Sept 2022", 2022, Some(9), None, YearKind::Plain),
            ("October 15, 2022", 2022, Some(10), None, YearKind::Plain),
            ("1 Oct 2022", 2022, Some(10), None, YearKind::Plain),
            ("November - 2015", 2015, Some(11), None, YearKind::Plain),
            ("10/2022", 2022, Some(10), None, YearKind::Plain),
            ("2022-10", 2022, Some(10), None, YearKind::Plain),
            ("10/15/2022", 2022, None, None, YearKind::Plain),
            ("in 2023", 2023, None, None, YearKind::Plain),
        ] {
            let p = one(s);
            assert_eq!(
                (p.year, p.month, p.quarter, p.kind),
                (Some(y), m, q, k),
                "{s}"
            );
        }
        assert_eq!(one("in October").month, Some(10));
        assert!(periods("You may apply; section 9.40.170; 12 apples").is_empty());
        // A year inside a regulation's or a docket's number is no period.
        assert!(periods("Regulation (EU) 2018/1805 applies").is_empty());
        assert!(periods("Docket No. 2019-0042").is_empty());
        assert!(!periods("in 2018-2019").is_empty());
    }

    #[test]
    fn a_period_is_met_only_by_the_same_period() {
        let q = one("FY2023");
        assert!(q.met_by(&one("fiscal year 2023")));
        assert!(q.met_by(&one("2023")));
        assert!(!q.met_by(&one("CY2023")));
        assert!(!q.met_by(&one("FY2022")));
        let oct = one("Oct. 2022");
        assert!(oct.met_by(&one("October 2022")));
        assert!(!oct.met_by(&one("2022")));
        assert!(!oct.met_by(&one("November 2022")));
        let q1 = one("2023Q1");
        assert!(q1.met_by(&one("Q1 2023")));
        assert!(q1.met_by(&one("February 2023")));
        assert!(!q1.met_by(&one("2023")));
    }
}
