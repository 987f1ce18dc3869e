//! Rates: a question asking for an amount per period ("annual limit", "per hour") is
//! answered by a value stated per that period, never by one stated per another ("2
//! kg/h" is no annual limit). A value whose period the text right after it does not
//! state is left to the other rules.

use crate::frame::{Frame, UnitFamily};
use crate::value::typed::Found;

/// The period a rate is counted per.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Per {
    Hour,
    Day,
    Week,
    Month,
    Year,
}

/// Words of a question that ask for an amount per period, one word each.
const ASKED_ONE: &[(&str, Per)] = &[
    ("hourly", Per::Hour),
    ("daily", Per::Day),
    ("weekly", Per::Week),
    ("monthly", Per::Month),
    ("annual", Per::Year),
    ("annually", Per::Year),
    ("yearly", Per::Year),
];

/// Period nouns after "per", "a" or "an", and after a slash (`kg/h`, `t/yr`).
const NOUNS: &[(&str, Per)] = &[
    ("h", Per::Hour),
    ("hr", Per::Hour),
    ("hour", Per::Hour),
    ("d", Per::Day),
    ("day", Per::Day),
    ("wk", Per::Week),
    ("week", Per::Week),
    ("mo", Per::Month),
    ("month", Per::Month),
    ("a", Per::Year),
    ("y", Per::Year),
    ("yr", Per::Year),
    ("year", Per::Year),
    ("annum", Per::Year),
];

/// The period a noun names, with its plural ("hours").
fn noun(w: &str) -> Option<Per> {
    let w = w
        .trim_end_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    let one = w.strip_suffix('s').filter(|s| s.len() > 1).unwrap_or(&w);
    NOUNS.iter().find(|(n, _)| *n == one).map(|(_, p)| *p)
}

/// The period question `f` asks an amount per: a word ("annual") or "per <period>".
fn asked(f: &Frame) -> Option<Per> {
    let q = &f.qualifiers;
    let one = q
        .iter()
        .find_map(|w| ASKED_ONE.iter().find(|(a, _)| a == w).map(|(_, p)| *p));
    one.or_else(|| {
        q.windows(2)
            .find(|p| p[0] == "per" && p[1].len() > 1)
            .and_then(|p| noun(&p[1]))
    })
}

/// The period the text right after a value states it per: `/h`, `per year`, `a day`,
/// `per annum`; `None` when it states none there.
fn stated(after: &str) -> Option<Per> {
    let t = after.trim_start();
    if let Some(rest) = t.strip_prefix('/') {
        let w: String = rest.chars().take_while(|c| c.is_alphabetic()).collect();
        return noun(&w);
    }
    let mut words = t.split_whitespace();
    match (words.next()?.to_lowercase().as_str(), words.next()) {
        ("per" | "a" | "an" | "each" | "every", Some(w)) if w.len() > 1 => noun(w),
        (w, _) => ASKED_ONE
            .iter()
            .find(|(a, _)| w.trim_end_matches(|c: char| !c.is_alphanumeric()) == *a)
            .map(|(_, p)| *p),
    }
}

/// Whether value `v` of `quote` is stated per another period than the one `f` asks for;
/// or, asked for a length, is a speed (a length per period: "30 km/h").
pub(super) fn other_period(f: &Frame, quote: &str, v: &Found) -> bool {
    let after = quote.get(v.end..).unwrap_or("");
    let cut = after.char_indices().nth(24).map_or(after.len(), |(i, _)| i);
    let have = stated(&after[..cut]);
    match asked(f) {
        Some(want) => have.is_some_and(|h| h != want),
        None => f.unit_family == Some(UnitFamily::Length) && have.is_some(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::frame;

    fn other(q: &str, quote: &str, value: &str) -> bool {
        let start = quote.find(value).unwrap();
        let v = Found {
            start,
            end: start + value.len(),
            normalised: String::new(),
            unit: None,
            bound: crate::figure::Bound::Exact,
        };
        other_period(&frame(q), quote, &v)
    }

    #[test]
    fn a_rate_per_another_period_is_not_the_asked_one() {
        let q = "What is the annual dust limit for the dryer in tonnes per year?";
        assert!(other(q, "Dust shall not exceed 0.9 kg/h.", "0.9 kg"));
        assert!(!other(q, "Dust shall not exceed 9.8 t/yr.", "9.8 t"));
        let q = "What is the hourly fee for the hall?";
        assert!(other(q, "The hall costs $300 per day.", "$300"));
        assert!(!other(q, "The hall costs $40 an hour.", "$40"));
        assert!(other(q, "The hall costs $40 a week.", "$40"));
    }

    #[test]
    fn a_speed_is_no_length() {
        let q = "What is the maximum length of the haul trucks?";
        assert!(other(
            q,
            "Trucks shall not exceed 30 km/h on site.",
            "30 km"
        ));
        assert!(!other(q, "Trucks shall not exceed 18 m in length.", "18 m"));
    }

    #[test]
    fn no_rate_asked_or_none_stated_leaves_the_value() {
        assert!(!other(
            "What is the dust limit for the dryer?",
            "Dust shall not exceed 0.9 kg/h.",
            "0.9 kg"
        ));
        assert!(!other(
            "What is the annual fee?",
            "The fee is $40, payable each January.",
            "$40"
        ));
        assert!(!other(
            "How many hours per calendar year may the generator run?",
            "It shall not run for more than 200 hours in any calendar year.",
            "200 hours"
        ));
    }
}
