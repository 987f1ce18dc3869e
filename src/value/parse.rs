//! Typed candidates in a quote: dates, durations, percentages, areas, identifiers and
//! names, each with its byte span inside the quote. Nothing here decides which field a
//! candidate belongs to (`review::fields::extract` does); a candidate that cannot be read safely
//! (an ambiguous or impossible date, a two-digit year) comes back as a rejection.

use std::sync::LazyLock;

use regex::Regex;

use super::{DateOrder, RejectReason, Value};
use crate::lexicon::{self, Class};

/// A typed value found in a quote, or a reason it cannot be one.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// Byte offset in the quote.
    pub start: usize,
    /// End byte offset (exclusive).
    pub end: usize,
    /// The value, or why the text is not one.
    pub value: Result<Value, (RejectReason, String)>,
    /// Unit as written (`ha`, `acres`, `%`, `years`).
    pub unit: Option<String>,
}

fn re(p: &str) -> Regex {
    Regex::new(p).expect("static pattern")
}

/// Month names and abbreviations as a pattern's alternation.
static MONTH_ALT: LazyLock<String> =
    LazyLock::new(|| lexicon::alternation(&[Class::Month, Class::MonthAbbreviation]));

static ISO: LazyLock<Regex> = LazyLock::new(|| re(r"\b(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})\b"));
static NUMERIC: LazyLock<Regex> =
    LazyLock::new(|| re(r"\b(\d{1,2})([/.\-])(\d{1,2})([/.\-])(\d{4}|\d{2})\b"));
/// A date in a form's boxes: two-digit month and day and a four-digit year, one space
/// apart ("01 31 2018").
static BOXED: LazyLock<Regex> = LazyLock::new(|| re(r"\b(\d{2}) (\d{2}) ((?:19|20)\d{2})\b"));
static DAY_MONTH: LazyLock<Regex> = LazyLock::new(|| {
    re(&format!(
        r"(?i)\b(\d{{1,2}})(?:st|nd|rd|th)?(?:\s+(?:day\s+)?of)?\s+({})\.?,?\s+(\d{{4}})\b",
        *MONTH_ALT
    ))
});
static MONTH_DAY: LazyLock<Regex> = LazyLock::new(|| {
    re(&format!(
        r"(?i)\b({})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b",
        *MONTH_ALT
    ))
});
static MONTH_YEAR: LazyLock<Regex> =
    LazyLock::new(|| re(&format!(r"(?i)\b({})\.?,?\s+(\d{{4}})\b", *MONTH_ALT)));
static NUMBER: &str = r"(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)";
static PERCENT: LazyLock<Regex> =
    LazyLock::new(|| re(&format!(r"(?i){NUMBER}\s*(%|percent\b|per\s+cent\b)")));
static AREA: LazyLock<Regex> = LazyLock::new(|| {
    re(&format!(
        r"(?i){NUMBER}\)?\s*(?:\|\s*)?(hectares?\b|ha\b|acres?\b|km²|km2\b|sq\.?\s?km\b|square\s+kilomet(?:re|er)s?\b|m²|m2\b|sq\.?\s?m\b|square\s+met(?:re|er)s?\b)"
    ))
});
/// A phrase of number words as a pattern (no group): number words, tens and scales,
/// joined by spaces, hyphens or "and" (`fourteen`, `twenty-five`, `one hundred and ten`).
static WORD_NUM: LazyLock<String> = LazyLock::new(|| {
    let w = lexicon::alternation(&[Class::Number, Class::Tens, Class::Scale]);
    format!(r"(?:{w})(?:(?:\s+|\s*-\s*)(?:and\s+)?(?:{w}))*")
});
static DURATION: LazyLock<Regex> = LazyLock::new(|| {
    re(&format!(
        r"(?i)\b(?:({w})\s*\((\d+)\)|(\d+(?:\.\d+)?)|({w}))\s*(?:-|\s)?\s*(years?|yrs?|months?)\b",
        w = *WORD_NUM
    ))
});
static DAYS: LazyLock<Regex> = LazyLock::new(|| {
    re(&format!(
        r"(?i)\b(?:({w})\s*\((\d+)\)|(\d+)|({w}))\s*(?:-|\s)?\s*(?:(calendar|business|working)\s+|-)?(days?|weeks?)\b",
        w = *WORD_NUM
    ))
});
static YEAR_MONTH: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(?:19|20|21)\d\d[-/.](?:0?[1-9]|1[0-2])$"));
static IDENT: LazyLock<Regex> =
    LazyLock::new(|| re(r"^[A-Za-z0-9](?:[A-Za-z0-9\-–_/.]*[A-Za-z0-9])?"));

fn leap(y: i32) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

/// Days in month `m` of year `y`.
pub fn month_days(y: i32, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap(y) => 29,
        _ => 28,
    }
}

/// A calendar date, or why `y-m-d` is not one.
fn date(y: i64, m: i64, d: i64) -> Result<Value, (RejectReason, String)> {
    let bad = |why: String| Err((RejectReason::InvalidDate, why));
    if !(1900..=2200).contains(&y) {
        return bad(format!("year {y} is outside 1900-2200"));
    }
    let (y, m) = (y as i32, m as u32);
    if !(1..=12).contains(&m) {
        return bad(format!("month {m} does not exist"));
    }
    if d < 1 || d as u32 > month_days(y, m) {
        return bad(format!("day {d} does not exist in {y}-{m:02}"));
    }
    Ok(Value::Date {
        year: y,
        month: m,
        day: d as u32,
    })
}

/// The month (1–12) a month name or abbreviation names: see [`lexicon::month_number`].
pub fn month_number(s: &str) -> Option<i64> {
    lexicon::month_number(s).map(i64::from)
}

fn num(s: &str) -> i64 {
    s.parse().unwrap_or(-1)
}

/// A numeric `a/b/yyyy` date read with `order`; ambiguous when both readings are dates
/// and no order is known.
fn numeric_date(
    a: i64,
    b: i64,
    y: &str,
    order: Option<DateOrder>,
) -> Result<Value, (RejectReason, String)> {
    if y.len() == 2 {
        return Err((
            RejectReason::AmbiguousDate,
            "two-digit year: the century is not stated".into(),
        ));
    }
    let y = num(y);
    let dmy = date(y, b, a);
    let mdy = date(y, a, b);
    match (dmy, mdy) {
        (Ok(v), Err(_)) | (Err(_), Ok(v)) => Ok(v),
        (Err(e), Err(_)) => Err(e),
        (Ok(d), Ok(m)) if d == m => Ok(d),
        (Ok(d), Ok(m)) => match order {
            Some(DateOrder::Dmy) => Ok(d),
            Some(DateOrder::Mdy) => Ok(m),
            _ => Err((
                RejectReason::AmbiguousDate,
                "day and month can be read either way; set --date-order".into(),
            )),
        },
    }
}

fn overlaps(taken: &[(usize, usize)], s: usize, e: usize) -> bool {
    taken.iter().any(|&(a, b)| s < b && a < e)
}

/// Every date in `quote`, unambiguous forms first; month-and-year without a day is a
/// rejection (`incomplete_date`).
pub fn dates(quote: &str, order: Option<DateOrder>) -> Vec<Candidate> {
    let mut out: Vec<Candidate> = Vec::new();
    let mut taken: Vec<(usize, usize)> = Vec::new();
    let mut push = |s: usize, e: usize, value, out: &mut Vec<Candidate>| {
        if !overlaps(&taken, s, e) {
            taken.push((s, e));
            out.push(Candidate {
                start: s,
                end: e,
                value,
                unit: None,
            });
        }
    };
    for c in ISO.captures_iter(quote) {
        let m = c.get(0).unwrap();
        push(
            m.start(),
            m.end(),
            date(num(&c[1]), num(&c[2]), num(&c[3])),
            &mut out,
        );
    }
    for c in NUMERIC.captures_iter(quote) {
        let m = c.get(0).unwrap();
        if c[2] != c[4] {
            continue;
        }
        let v = numeric_date(num(&c[1]), num(&c[3]), &c[5], order);
        push(m.start(), m.end(), v, &mut out);
    }
    for c in BOXED.captures_iter(quote) {
        let m = c.get(0).unwrap();
        let v = numeric_date(num(&c[1]), num(&c[2]), &c[3], order);
        push(m.start(), m.end(), v, &mut out);
    }
    for c in DAY_MONTH.captures_iter(quote) {
        let m = c.get(0).unwrap();
        let v = date(num(&c[3]), month_number(&c[2]).unwrap_or(0), num(&c[1]));
        push(m.start(), m.end(), v, &mut out);
    }
    for c in MONTH_DAY.captures_iter(quote) {
        let m = c.get(0).unwrap();
        let v = date(num(&c[3]), month_number(&c[1]).unwrap_or(0), num(&c[2]));
        push(m.start(), m.end(), v, &mut out);
    }
    for c in MONTH_YEAR.captures_iter(quote) {
        let m = c.get(0).unwrap();
        let why = (
            RejectReason::IncompleteDate,
            "a month and year without a day".to_string(),
        );
        push(m.start(), m.end(), Err(why), &mut out);
    }
    out.sort_by_key(|c| c.start);
    out
}

/// The date order a text's unambiguous numeric dates show (`31/12/2030` → day first),
/// or `None` when it has none or they disagree.
pub fn infer_order(text: &str) -> Option<DateOrder> {
    let (mut dmy, mut mdy) = (false, false);
    let written = NUMERIC
        .captures_iter(text)
        .filter(|c| c[2] == c[4] && c[5].len() == 4)
        .map(|c| (num(&c[1]), num(&c[3]), num(&c[5])));
    let boxed = BOXED
        .captures_iter(text)
        .map(|c| (num(&c[1]), num(&c[2]), num(&c[3])));
    for (a, b, y) in written.chain(boxed) {
        // Only a real date decides: 31/04/2021 shows no order.
        if a > 12 && date(y, b, a).is_ok() {
            dmy = true;
        } else if b > 12 && date(y, a, b).is_ok() {
            mdy = true;
        }
    }
    match (dmy, mdy) {
        (true, false) => Some(DateOrder::Dmy),
        (false, true) => Some(DateOrder::Mdy),
        _ => None,
    }
}

/// Why the number at `[start, end)` of `quote` cannot be read safely, if it cannot: it
/// continues a number written with space, apostrophe or comma groups or a decimal comma
/// (`1 250`, `1'250`, `5,5`), or its dot may be a thousands separator (`1.250`).
fn unsafe_number(quote: &str, start: usize, number: &str) -> Option<(RejectReason, String)> {
    let before: Vec<char> = quote[..start].chars().rev().take(2).collect();
    let grouped = before.len() == 2
        && before[1].is_ascii_digit()
        && matches!(
            before[0],
            ' ' | '\u{a0}' | '\u{202f}' | '\u{2009}' | '\u{200b}' | '\'' | '’' | ',' | '.'
        );
    let continues = before
        .first()
        .is_some_and(|c| c.is_ascii_digit() || matches!(c, '\u{200b}' | '.'));
    if grouped || continues {
        return Some((
            RejectReason::NotAValue,
            "part of a longer number (digit groups or a decimal comma): not read".into(),
        ));
    }
    let european = number.split_once('.').is_some_and(|(int, frac)| {
        frac.len() == 3 && !int.contains(',') && (1..=3).contains(&int.len())
    });
    european.then(|| {
        (
            RejectReason::NotAValue,
            format!("{number}: the dot may be a thousands separator; not read"),
        )
    })
}

/// `1,250.5` → 1250.5.
pub fn number(s: &str) -> Option<f64> {
    s.replace(',', "")
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
}

/// The value of a phrase of number words: [`crate::figure::number_phrase`], the one
/// reader of written-out numbers.
fn word_number(s: &str) -> Option<f64> {
    crate::figure::number_phrase(s).map(|v| v as f64)
}

/// Every percentage (`20%`, `20 percent`), out of range when not within 0–100.
pub fn percentages(quote: &str) -> Vec<Candidate> {
    PERCENT
        .captures_iter(quote)
        .map(|c| {
            let m = c.get(0).unwrap();
            let value = match number(&c[1]) {
                Some(v) if (0.0..=100.0).contains(&v) => Ok(Value::Number(v)),
                Some(v) => Err((
                    RejectReason::OutOfRange,
                    format!("{v}% is not within 0-100"),
                )),
                None => Err((RejectReason::NotAValue, "not a number".into())),
            };
            let value = unsafe_number(quote, m.start(), &c[1]).map_or(value, Err);
            Candidate {
                start: m.start(),
                end: m.end(),
                value,
                unit: Some("%".into()),
            }
        })
        .collect()
}

/// Hectares in one `unit` as written.
fn hectares_per(unit: &str) -> f64 {
    let u = unit.to_lowercase();
    if u.starts_with("ac") {
        0.404_685_642_24
    } else if u.contains("km") || u.contains("kilomet") {
        100.0
    } else if u.starts_with("ha") || u.starts_with("hect") {
        1.0
    } else {
        0.0001
    }
}

/// Every area with a unit, in hectares (acres, km² and m² converted).
pub fn areas(quote: &str) -> Vec<Candidate> {
    AREA.captures_iter(quote)
        .map(|c| {
            let m = c.get(0).unwrap();
            let unit = c[2].to_string();
            let value = match number(&c[1]) {
                Some(v) if v > 0.0 => {
                    let ha = v * hectares_per(&unit);
                    Ok(Value::Number((ha * 100.0).round() / 100.0))
                }
                _ => Err((
                    RejectReason::OutOfRange,
                    "an area must be above zero".into(),
                )),
            };
            let value = unsafe_number(quote, m.start(), &c[1]).map_or(value, Err);
            Candidate {
                start: m.start(),
                end: m.end(),
                value,
                unit: Some(unit),
            }
        })
        .collect()
}

/// Every duration (`10 years`, `ten (10) years`, `30-year`, `120 months`), in years.
pub fn durations(quote: &str) -> Vec<Candidate> {
    DURATION
        .captures_iter(quote)
        .map(|c| {
            let m = c.get(0).unwrap();
            let n = c
                .get(2)
                .or(c.get(3))
                .and_then(|g| number(g.as_str()))
                .or_else(|| c.get(4).and_then(|g| word_number(g.as_str())));
            let unit = c[5].to_lowercase();
            let months = unit.starts_with("month");
            let value = match n {
                Some(v) => {
                    let years = if months { v / 12.0 } else { v };
                    if years > 0.0 && years <= 200.0 {
                        Ok(Value::Number((years * 100.0).round() / 100.0))
                    } else {
                        Err((
                            RejectReason::OutOfRange,
                            format!("{years} years is not a plausible period"),
                        ))
                    }
                }
                None => Err((RejectReason::NotAValue, "not a number".into())),
            };
            let digits = c.get(3).map_or("", |g| g.as_str());
            let value = match digits {
                "" => value,
                d => unsafe_number(quote, m.start(), d).map_or(value, Err),
            };
            Candidate {
                start: m.start(),
                end: m.end(),
                value,
                unit: Some(if months {
                    "months".into()
                } else {
                    "years".into()
                }),
            }
        })
        .collect()
}

/// The unit a duration field is read in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DurationUnit {
    /// Years (months are converted: `120 months` is 10).
    Years,
    /// Days (weeks are converted: `2 weeks` is 14); `calendar`, `business` or `working`
    /// stays in the unit as written.
    Days,
}

/// Every duration of `unit` in the quote: [`durations`] for years; `60 calendar days`,
/// `thirty (30) days`, `30-day`, `2 weeks` for days (at most ten years of days).
pub fn durations_in(quote: &str, unit: DurationUnit) -> Vec<Candidate> {
    if unit == DurationUnit::Years {
        return durations(quote);
    }
    DAYS.captures_iter(quote)
        .map(|c| {
            let m = c.get(0).unwrap();
            let n = c
                .get(2)
                .or(c.get(3))
                .and_then(|g| number(g.as_str()))
                .or_else(|| c.get(1).or(c.get(4)).and_then(|g| word_number(g.as_str())));
            let weeks = c[6].to_ascii_lowercase().starts_with("week");
            let kind = c.get(5).map(|k| k.as_str().to_ascii_lowercase());
            let value = match n.map(|v| if weeks { v * 7.0 } else { v }) {
                Some(v) if v > 0.0 && v <= 3653.0 => Ok(Value::Number(v)),
                Some(v) => Err((
                    RejectReason::OutOfRange,
                    format!("{v} days is not a plausible period"),
                )),
                None => Err((RejectReason::NotAValue, "not a number".into())),
            };
            let digits = c.get(3).map_or("", |g| g.as_str());
            let value = match digits {
                "" => value,
                d => unsafe_number(quote, m.start(), d).map_or(value, Err),
            };
            let unit = match (weeks, kind) {
                (true, _) => "weeks".to_string(),
                (false, Some(k)) => format!("{k} days"),
                (false, None) => "days".to_string(),
            };
            Candidate {
                start: m.start(),
                end: m.end(),
                value,
                unit: Some(unit),
            }
        })
        .collect()
}

/// The identifier token at the start of `rest` (offset `at` in the quote).
pub fn identifier_at(rest: &str, at: usize) -> Option<Candidate> {
    let m = IDENT.find(rest)?;
    let mut tok = m.as_str().trim_end_matches(['.', '/', '-', '–', '_']);
    // "VCS 1234": a registry prefix in letters, a space, then the number.
    if tok.len() <= 6 && tok.bytes().all(|b| b.is_ascii_uppercase()) {
        if let Some(next) = rest[tok.len()..]
            .strip_prefix(' ')
            .and_then(|r| IDENT.find(r))
        {
            if next.as_str().starts_with(|c: char| c.is_ascii_digit()) {
                let n = next.as_str().trim_end_matches(['.', '/', '-', '–', '_']);
                tok = &rest[..tok.len() + 1 + n.len()];
            }
        }
    }
    let end = at + tok.len();
    let value = if tok.len() == 4
        && tok.bytes().all(|b| b.is_ascii_digit())
        && (1900..=2100).contains(&num(tok))
    {
        Err((
            RejectReason::BareYear,
            "a bare year is never a project identifier".into(),
        ))
    } else if !tok.bytes().any(|b| b.is_ascii_digit()) {
        Err((
            RejectReason::NotAValue,
            "an identifier has at least one digit".into(),
        ))
    } else if NUMERIC.is_match(tok) || ISO.is_match(tok) || YEAR_MONTH.is_match(tok) {
        Err((
            RejectReason::NotAValue,
            "a date is not an identifier".into(),
        ))
    } else if tok.len() < 2 {
        Err((
            RejectReason::NotAValue,
            "too short to be an identifier".into(),
        ))
    } else {
        Ok(Value::Text(tok.to_string()))
    };
    Some(Candidate {
        start: at,
        end,
        value,
        unit: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(c: &[Candidate]) -> Result<Value, RejectReason> {
        assert_eq!(c.len(), 1, "{c:?}");
        c[0].value.clone().map_err(|e| e.0)
    }

    fn d(y: i32, m: u32, day: u32) -> Result<Value, RejectReason> {
        Ok(Value::Date {
            year: y,
            month: m,
            day,
        })
    }

    #[test]
    fn the_figure_reader_and_the_duration_reader_read_number_words_alike() {
        let phrases = [
            ("fourteen", 14),
            ("seventeen", 17),
            ("twenty-five", 25),
            ("twenty five", 25),
            ("thirty", 30),
            ("ninety", 90),
            ("one hundred", 100),
            ("one hundred and ten", 110),
            ("two hundred", 200),
        ];
        for (phrase, v) in phrases {
            let days = format!("within {phrase} days");
            assert_eq!(
                crate::figure::figure_keys(&days),
                [format!("{v} day")],
                "{phrase}"
            );
            let read = one(&durations_in(&days, DurationUnit::Days));
            assert_eq!(read, Ok(Value::Number(v as f64)), "{phrase}");
            let years = format!("for {phrase} years");
            assert_eq!(
                crate::figure::figure_keys(&years),
                [format!("{v} year")],
                "{phrase}"
            );
            assert_eq!(
                one(&durations(&years)),
                Ok(Value::Number(v as f64)),
                "{phrase}"
            );
            assert_eq!(word_number(phrase), Some(v as f64), "{phrase}");
        }
        // Both read no number in words that are none.
        assert_eq!(word_number("seventy times"), None);
        assert!(durations_in("within some days", DurationUnit::Days).is_empty());
    }

    #[test]
    fn the_month_readers_agree() {
        for w in ["January", "jan.", "Sept", "sep", "DECEMBER", "May", "mar"] {
            let m = crate::lexicon::month_number(w);
            assert!(m.is_some(), "{w}");
            assert_eq!(month_number(w), m.map(i64::from), "{w}");
            let period = crate::period::periods(&format!("{w} 2024"));
            assert_eq!(period.first().and_then(|p| p.month), m, "{w}");
        }
    }

    #[test]
    fn dates_in_every_written_form_with_day_first_decided_by_order_or_form() {
        assert_eq!(one(&dates("on 31/12/2030", None)), d(2030, 12, 31));
        assert_eq!(one(&dates("on 12/31/2030", None)), d(2030, 12, 31));
        assert_eq!(
            one(&dates("on 05/06/2021", None)),
            Err(RejectReason::AmbiguousDate)
        );
        assert_eq!(
            one(&dates("on 05/06/2021", Some(DateOrder::Dmy))),
            d(2021, 6, 5)
        );
        assert_eq!(
            one(&dates("on 05/06/2021", Some(DateOrder::Mdy))),
            d(2021, 5, 6)
        );
        assert_eq!(one(&dates("on 05/05/2021", None)), d(2021, 5, 5));
        assert_eq!(one(&dates("2021-03-15", None)), d(2021, 3, 15));
        assert_eq!(one(&dates("the 15th of March 2021", None)), d(2021, 3, 15));
        assert_eq!(one(&dates("March 15, 2021", None)), d(2021, 3, 15));
        assert_eq!(one(&dates("1 Sept. 2020", None)), d(2020, 9, 1));
        assert_eq!(
            one(&dates("31/02/2021", None)),
            Err(RejectReason::InvalidDate)
        );
        assert_eq!(one(&dates("29/02/2024", None)), d(2024, 2, 29));
        assert_eq!(
            one(&dates("15/03/21", None)),
            Err(RejectReason::AmbiguousDate)
        );
        assert_eq!(
            one(&dates("in March 2021", None)),
            Err(RejectReason::IncompleteDate)
        );
        assert!(dates("from 1 July 2020 to 30 June 2050", None).len() == 2);
    }

    #[test]
    fn dates_in_a_forms_boxes_are_read_by_the_order_they_allow() {
        assert_eq!(
            one(&dates("Covering Period 01 31 2018", None)),
            d(2018, 1, 31)
        );
        assert_eq!(one(&dates("Date 02 16 2018", None)), d(2018, 2, 16));
        // Either order reads: only the document's order decides.
        assert_eq!(
            one(&dates("From: 03 04 2018", None)),
            Err(RejectReason::AmbiguousDate)
        );
        assert_eq!(
            one(&dates("From: 03 04 2018", Some(DateOrder::Mdy))),
            d(2018, 3, 4)
        );
        // Counts in a row are no date: three digits, a year out of range, a bad month.
        assert!(dates("120 14 2018", None).is_empty());
        assert!(dates("12 14 1234", None).is_empty());
        assert!(dates("13 14 2018", None).iter().all(|c| c.value.is_err()));
    }

    #[test]
    fn date_order_is_inferred_only_when_the_unambiguous_dates_agree() {
        assert_eq!(
            infer_order("Period 02 01 2030 through 02 28 2030"),
            Some(DateOrder::Mdy)
        );
        assert_eq!(
            infer_order("signed 31/12/2030 and 01/02/2021"),
            Some(DateOrder::Dmy)
        );
        assert_eq!(infer_order("signed 12/31/2030"), Some(DateOrder::Mdy));
        assert_eq!(infer_order("31/12/2030 and 12/31/2030"), None);
        assert_eq!(infer_order("01/02/2021"), None);
    }

    #[test]
    fn numbers_with_units_convert_and_check_their_range() {
        assert_eq!(
            one(&areas("covers 3,089 acres")),
            Ok(Value::Number(1250.07))
        );
        assert_eq!(one(&areas("1,250 ha")), Ok(Value::Number(1250.0)));
        assert_eq!(one(&areas("Total | 1,250 | ha")), Ok(Value::Number(1250.0)));
        assert_eq!(one(&areas("12.5 km²")), Ok(Value::Number(1250.0)));
        for grouped in [
            "area 1 250 ha",
            "area 1'250 ha",
            "area 1\u{202f}250 ha",
            "1.250 ha",
        ] {
            assert!(areas(grouped).iter().all(|c| c.value.is_err()), "{grouped}");
        }
        assert!(percentages("5,5 %").iter().all(|c| c.value.is_err()));
        assert_eq!(infer_order("visit on 31/04/2021 and 05/06/2021"), None);
        assert_eq!(
            one(&percentages("leakage is 20 %")),
            Ok(Value::Number(20.0))
        );
        assert_eq!(
            one(&percentages("120 percent")),
            Err(RejectReason::OutOfRange)
        );
        assert_eq!(one(&durations("a 30-year period")), Ok(Value::Number(30.0)));
        assert_eq!(one(&durations("ten (10) years")), Ok(Value::Number(10.0)));
        assert_eq!(one(&durations("forty years")), Ok(Value::Number(40.0)));
        assert_eq!(one(&durations("120 months")), Ok(Value::Number(10.0)));
        let days = |q: &str| one(&durations_in(q, DurationUnit::Days));
        assert_eq!(
            days("no later than 60 calendar days after"),
            Ok(Value::Number(60.0))
        );
        assert_eq!(days("within thirty (30) days"), Ok(Value::Number(30.0)));
        assert_eq!(days("a 30-day extension"), Ok(Value::Number(30.0)));
        assert_eq!(days("sixty days"), Ok(Value::Number(60.0)));
        assert_eq!(days("2 weeks"), Ok(Value::Number(14.0)));
        assert_eq!(
            days("10 business days")
                .map(|_| durations_in("10 business days", DurationUnit::Days)[0]
                    .unit
                    .clone()),
            Ok(Some("business days".into()))
        );
        assert!(durations_in("6 years", DurationUnit::Days).is_empty());
        assert!(days("40000 days").is_err());
        assert_eq!(one(&durations("0 years")), Err(RejectReason::OutOfRange));
    }

    #[test]
    fn identifiers_are_never_bare_years_or_dates() {
        let id = |s: &str| identifier_at(s, 0).map(|c| c.value.map_err(|e| e.0));
        assert_eq!(id("VCS-1234."), Some(Ok(Value::Text("VCS-1234".into()))));
        assert_eq!(id("2023"), Some(Err(RejectReason::BareYear)));
        assert_eq!(
            id("VCS 1234 (formerly"),
            Some(Ok(Value::Text("VCS 1234".into())))
        );
        assert_eq!(id("2019-11"), Some(Err(RejectReason::NotAValue)));
        assert_eq!(
            id("FAA–2020–0686."),
            Some(Ok(Value::Text("FAA–2020–0686".into())))
        );
        assert_eq!(id("4521"), Some(Ok(Value::Text("4521".into()))));
        assert_eq!(id("pending"), Some(Err(RejectReason::NotAValue)));
        assert_eq!(id("15/03/2021"), Some(Err(RejectReason::NotAValue)));
    }
}
