//! The value of an answer type in a quote: every span of `quote` that states a value of
//! the type a question expects (a date, a duration, money, a telephone number, …), with
//! its normalised form and its bound. The spans are byte ranges of the quote, so a value
//! is always verbatim; the readers below are the same for `ask` and `review`.

use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use super::{parse, Value};
use crate::figure::{self, Bound};

/// What kind of value a question expects (the closed set `question_frame` reports).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerType {
    /// A calendar date (day, or month and year).
    Date,
    /// A span of time named by its ends ("01/01/2018 through 01/31/2018", "May to June").
    Period,
    /// A length of time ("7 years", "60 days").
    Duration,
    /// A time of day ("11 pm", "18:00"), normalised to 24-hour `HH:MM`.
    Time,
    /// An amount of money.
    Money,
    /// A percentage.
    Percentage,
    /// A quantity with a unit of a [`UnitFamily`] (a count is a quantity of things).
    Quantity,
    /// A person's name.
    Person,
    /// An organisation's name.
    Organisation,
    /// A place.
    Location,
    /// A telephone or fax number.
    Phone,
    /// An email address.
    Email,
    /// An identifier (a docket, form, case or registration number, a code).
    Identifier,
    /// Yes or no.
    YesNo,
    /// A list of things.
    List,
    /// What a term means.
    Definition,
    /// What someone must, may or must not do.
    Obligation,
    /// Why or how something is.
    Explanation,
    /// Any other text.
    Text,
}

impl AnswerType {
    /// The value types that answer a question of this type (an organisation may be
    /// named by a person's name, a period by a date).
    pub fn accepts(self) -> &'static [AnswerType] {
        match self {
            AnswerType::Period => &[AnswerType::Period, AnswerType::Date],
            AnswerType::Person => &[AnswerType::Person],
            AnswerType::Organisation => &[AnswerType::Organisation, AnswerType::Person],
            AnswerType::Date => &[AnswerType::Date],
            AnswerType::Duration => &[AnswerType::Duration],
            AnswerType::Time => &[AnswerType::Time],
            AnswerType::Money => &[AnswerType::Money],
            AnswerType::Percentage => &[AnswerType::Percentage],
            AnswerType::Quantity => &[AnswerType::Quantity],
            AnswerType::Location => &[AnswerType::Location, AnswerType::Organisation],
            AnswerType::Phone => &[AnswerType::Phone],
            AnswerType::Email => &[AnswerType::Email],
            AnswerType::Identifier => &[AnswerType::Identifier],
            _ => &[],
        }
    }

    /// Whether an answer of this type is one value read from a quote (not free text).
    pub fn is_value(self) -> bool {
        !matches!(
            self,
            AnswerType::YesNo
                | AnswerType::List
                | AnswerType::Definition
                | AnswerType::Obligation
                | AnswerType::Explanation
                | AnswerType::Text
        )
    }

    /// How the type reads in a sentence ("a telephone number").
    pub fn noun(self) -> &'static str {
        match self {
            AnswerType::Date => "a date",
            AnswerType::Period => "a period",
            AnswerType::Duration => "a length of time",
            AnswerType::Time => "a time of day",
            AnswerType::Money => "an amount of money",
            AnswerType::Percentage => "a percentage",
            AnswerType::Quantity => "a quantity",
            AnswerType::Person => "a person's name",
            AnswerType::Organisation => "an organisation's name",
            AnswerType::Location => "a place",
            AnswerType::Phone => "a telephone number",
            AnswerType::Email => "an email address",
            AnswerType::Identifier => "an identifier",
            AnswerType::YesNo => "a yes or no",
            AnswerType::List => "a list",
            AnswerType::Definition => "a definition",
            AnswerType::Obligation => "an obligation",
            AnswerType::Explanation => "an explanation",
            AnswerType::Text => "a statement",
        }
    }
}

/// The unit family of a quantity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnitFamily {
    /// Hectares, acres, square metres.
    Area,
    /// Metres, miles, feet.
    Length,
    /// Kilograms, tonnes, pounds (weight).
    Mass,
    /// Litres, gallons, cubic metres.
    Volume,
    /// Degrees.
    Temperature,
    /// Kilobytes, megabytes, gigabytes (a file or submission size).
    Data,
    /// Watts, kilowatts, megawatts (a rating or a capacity).
    Power,
    /// Joules, kilowatt-hours, megawatt-hours.
    Energy,
    /// Hertz and its multiples.
    Frequency,
    /// Pascals, bars, psi.
    Pressure,
    /// Metres per second, kilometres per hour, knots.
    Speed,
    /// Parts per million or billion.
    Ratio,
    /// Mass per volume (mg/m³, µg/m³, mg/l).
    Concentration,
    /// A number of things.
    Count,
}

impl UnitFamily {
    /// The families a unit measures (every one but [`UnitFamily::Count`]).
    pub const MEASURES: [UnitFamily; 13] = [
        UnitFamily::Area,
        UnitFamily::Length,
        UnitFamily::Mass,
        UnitFamily::Volume,
        UnitFamily::Temperature,
        UnitFamily::Data,
        UnitFamily::Power,
        UnitFamily::Energy,
        UnitFamily::Frequency,
        UnitFamily::Pressure,
        UnitFamily::Speed,
        UnitFamily::Ratio,
        UnitFamily::Concentration,
    ];

    /// The family a key of `units.toml` names (`mass`, `power`).
    pub fn from_key(key: &str) -> Option<UnitFamily> {
        Some(match key {
            "area" => UnitFamily::Area,
            "length" => UnitFamily::Length,
            "mass" => UnitFamily::Mass,
            "volume" => UnitFamily::Volume,
            "temperature" => UnitFamily::Temperature,
            "data" => UnitFamily::Data,
            "power" => UnitFamily::Power,
            "energy" => UnitFamily::Energy,
            "frequency" => UnitFamily::Frequency,
            "pressure" => UnitFamily::Pressure,
            "speed" => UnitFamily::Speed,
            "ratio" => UnitFamily::Ratio,
            "concentration" => UnitFamily::Concentration,
            _ => return None,
        })
    }
}

/// A value found in a quote.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    /// Byte offset in the quote.
    pub start: usize,
    /// End byte offset (exclusive).
    pub end: usize,
    /// The normalised form (ISO date, number with its unit, digits of a phone number).
    pub normalised: String,
    /// The unit, when the value has one (`year`, `dollar`, `percent`, `ha`).
    pub unit: Option<String>,
    /// Whether it is stated as a floor, a ceiling or plainly.
    pub bound: Bound,
}

fn re(p: &str) -> Regex {
    Regex::new(p).expect("static pattern")
}

static PHONE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?:\+?1[\s.\-–])?(?:\(\d{3}\)\s?|\b\d{3}[\s.\-–])?\b\d{3}[.\-–]\d{4}\b"));
/// A name written as a form or a data export lists it: `Kelly,Edward,A.` (surname,
/// given name, optional initial; no spaces).
static LISTED_NAME: LazyLock<Regex> =
    LazyLock::new(|| re(r"\b[A-Z][a-zA-Z'\-]+,[A-Z][a-zA-Z'\-]+(?:,[A-Z]\.?)?"));
static CENTURY: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)\b(?:(early|mid|late)[\s-]+)?(\d{1,2})(?:st|nd|rd|th)[\s-]+century\b")
});
static EMAIL: LazyLock<Regex> =
    LazyLock::new(|| re(r"\b[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,}\b"));
static IDENT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"\b(?:[A-Za-z]{1,8}[.\-–/]?)?\d[A-Za-z0-9]*(?:[.\-–/][A-Za-z0-9]+)*\b|\b[A-Z]{2,}\.[A-Z]{2,}\b",
    )
});
static QUANTITY: LazyLock<Regex> = LazyLock::new(|| {
    re(&format!(
        r"(?i)\b(\d{{1,3}}(?:,\d{{3}})+(?:\.\d+)?|\d+(?:\.\d+)?)\s?(?:\|\s*)?({})",
        crate::lexicon::units::alternation()
    ))
});
/// What follows a mass that makes it a mass per volume ("10 kg per m3", "5 mg/Nm³"): a
/// concentration or a density, not a mass.
static PER_VOLUME: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)^\s*(?:/|per\s+)(?:cubic|n?m3|n?m³|l\b|litre|liter)"));

/// Every value of type `ty` (of unit family `family`, for quantities) in `quote`.
pub fn find(quote: &str, ty: AnswerType, family: Option<UnitFamily>) -> Vec<Found> {
    let mut out = match ty {
        AnswerType::Date => dates(quote),
        AnswerType::Period => periods(quote),
        AnswerType::Duration => figures(quote, &TIME_UNITS),
        AnswerType::Time => clock_times(quote),
        AnswerType::Money => money(quote),
        AnswerType::Percentage => figures(quote, &["percent"]),
        AnswerType::Quantity => quantities(quote, family.unwrap_or(UnitFamily::Count)),
        AnswerType::Phone => matches(quote, &PHONE, |m| {
            m.chars().filter(char::is_ascii_digit).collect()
        }),
        AnswerType::Email => matches(quote, &EMAIL, str::to_lowercase),
        AnswerType::Identifier => identifiers(quote),
        AnswerType::Person => {
            let mut v = names(quote, ty);
            v.extend(listed_names(quote));
            v
        }
        AnswerType::Organisation | AnswerType::Location => names(quote, ty),
        _ => Vec::new(),
    };
    out.retain(|f| !apparatus(quote, f.start, f.end));
    out.sort_by_key(|f| (f.start, f.end));
    out.dedup_by_key(|f| (f.start, f.end));
    out
}

/// Words after which a date is a citation's record of when a source was seen ("Archived
/// July 6, 2011", "Retrieved 3 May 2020", "accessed on …"), not a date the text states.
const SEEN_WORDS: &[&str] = &["archived", "retrieved", "accessed", "viewed", "downloaded"];

/// Whether the value at `start..end` belongs to a citation's apparatus, never to what the
/// text states: a number in a numeric citation bracket (`[44, 52]`, also when the quote
/// starts inside it: `44, 52], …`), or a date a citation records a source was seen on.
fn apparatus(quote: &str, start: usize, end: usize) -> bool {
    let citation_list = |s: &str| s.chars().all(|c| c.is_ascii_digit() || " ,;–-".contains(c));
    let closes = quote[end..]
        .find(']')
        .is_some_and(|i| citation_list(&quote[end..end + i]));
    let opens = quote[..start]
        .rfind('[')
        .is_some_and(|i| citation_list(&quote[i + 1..start]));
    let numeric = quote[start..end].chars().all(|c| c.is_ascii_digit());
    let before: Vec<String> = crate::text::words(&quote[..start]);
    let seen = before
        .iter()
        .rev()
        .take(3)
        .any(|w| SEEN_WORDS.contains(&w.as_str()));
    (numeric && (closes || opens)) || superscript(quote, start, end) || seen
}

/// Whether the digits at `start..end` are a superscript citation as PDF text flattens it:
/// a run of figures set without spaces, glued to the word or full stop before it
/// ("networks.32,33 An"), or a list of them ("32,33", "5–7") opening the quote or a
/// sentence before a capital. A figure grouped by thousands ("1,234 patients") is none.
fn superscript(quote: &str, start: usize, end: usize) -> bool {
    let part = |c: char| c.is_ascii_digit() || ",–-".contains(c);
    if start >= end || !quote[start..end].chars().all(part) {
        return false;
    }
    let from = quote[..start].trim_end_matches(part).len();
    let to = end
        + quote[end..]
            .find(|c: char| !part(c))
            .unwrap_or(quote.len() - end);
    let run = quote[from..to].trim_end_matches([',', '-', '–']);
    let groups: Vec<&str> = run.split(',').collect();
    let thousands = groups.len() > 1 && groups[1..].iter().all(|g| g.len() == 3);
    let listed = !thousands && (groups.len() > 1 || run.contains(['–', '-']));
    let before = quote[..from].chars().next_back();
    let glued = before.is_some_and(|c| c.is_alphabetic() || c == '.' || c == ')');
    let head = quote[..from].trim_end();
    let opens = head.is_empty() || head.ends_with(['.', '!', '?']);
    let capital = quote[to..]
        .strip_prefix(' ')
        .and_then(|r| r.chars().next())
        .is_some_and(char::is_uppercase);
    !thousands && (glued && (before != Some('.') || capital) || listed && opens && capital)
}

/// The unit a time of day carries in [`Found::unit`], which sets it apart from a date
/// and a length of time.
pub const CLOCK: &str = "time of day";

static CLOCK_TIME: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:([01]?\d|2[0-3]):([0-5]\d)|(1[0-2]|0?[1-9])(?:[:.]([0-5]\d))?\s?(a\.m\.|am|p\.m\.|pm)(?:\W|$)|(noon|midday|midnight))",
    )
});

/// Times of day: `11 pm`, `9.30 a.m.`, `18:00`, `noon`, normalised to `HH:MM`. A dotted
/// pair without am/pm ("3.45") is a decimal unless its hour and minutes read as a clock
/// with a colon; so only `HH:MM` with a colon, or a figure with am/pm, is a time.
fn clock_times(quote: &str) -> Vec<Found> {
    CLOCK_TIME
        .captures_iter(quote)
        .filter_map(|c| {
            let m = c.get(0)?;
            let (h, min, end) = if let Some(h) = c.get(1) {
                let next = quote[m.end()..].chars().next();
                if next.is_some_and(|n| n.is_ascii_digit() || n == ':') {
                    return None;
                }
                (
                    h.as_str().parse::<u32>().ok()?,
                    c[2].parse::<u32>().ok()?,
                    m.end(),
                )
            } else if let Some(h) = c.get(3) {
                let pm = c[5].to_lowercase().starts_with('p');
                let h12 = h.as_str().parse::<u32>().ok()? % 12;
                let min = c.get(4).map_or(Some(0), |x| x.as_str().parse().ok())?;
                (h12 + if pm { 12 } else { 0 }, min, c.get(5)?.end())
            } else {
                let w = c[6].to_lowercase();
                (if w == "midnight" { 0 } else { 12 }, 0, m.end())
            };
            Some(Found {
                start: m.start(),
                end,
                normalised: format!("{h:02}:{min:02}"),
                unit: Some(CLOCK.to_string()),
                bound: Bound::Exact,
            })
        })
        .collect()
}

/// Units of time a duration is counted in.
/// Whether `unit` is a unit of time (`day`, `year`, …) as values carry it.
pub fn is_time_unit(unit: &str) -> bool {
    TIME_UNITS.contains(&unit)
}

const TIME_UNITS: [&str; 8] = [
    "day", "week", "month", "year", "decade", "century", "hour", "minute",
];

/// Figures of `quote` in one of `units`, when the quote's normalised form keeps its
/// offsets (NFKC changed nothing); else none.
fn figures(quote: &str, units: &[&str]) -> Vec<Found> {
    if figure::normalise(quote) != quote {
        return Vec::new();
    }
    figure::figures_of(quote)
        .into_iter()
        .filter(|f| units.contains(&f.unit.as_str()))
        .map(|f| {
            let end = unit_end(quote, f.end, &f.unit);
            // A number the quote's own format leaves ambiguous is refused, as dates are.
            let normalised = match f.reading {
                figure::Reading::Exact => f.key(),
                _ => format!("ambiguous: {}", &quote[f.start..end]),
            };
            Found {
                start: f.start,
                end,
                normalised,
                unit: Some(f.unit.clone()),
                bound: f.bound,
            }
        })
        .collect()
}

/// The end of the unit word `unit` written after a number ending at `end` (through
/// fillers and a restating `(7)`), or `end` when the number carries its unit.
fn unit_end(quote: &str, end: usize, unit: &str) -> usize {
    let window = &quote[end..quote.len().min(end + 48)];
    let lower = window.to_lowercase();
    if lower.len() != window.len() {
        return end;
    }
    let stem = unit.get(..unit.len().min(4)).unwrap_or(unit);
    let mut at = 0;
    for w in lower.split_inclusive(|c: char| !c.is_alphanumeric()) {
        let word = w.trim_end_matches(|c: char| !c.is_alphanumeric());
        if word.starts_with(stem) {
            return end + at + word.len();
        }
        at += w.len();
    }
    end
}

/// Every match of `pattern`, normalised by `norm`.
fn matches(quote: &str, pattern: &Regex, norm: impl Fn(&str) -> String) -> Vec<Found> {
    pattern
        .find_iter(quote)
        .map(|m| Found {
            start: m.start(),
            end: m.end(),
            normalised: norm(m.as_str()),
            unit: None,
            bound: Bound::Exact,
        })
        .collect()
}

/// Full dates (ISO) and months of a year (`2023-03`); an ambiguous numeric date is kept
/// only when both readings are one date.
fn dates(quote: &str) -> Vec<Found> {
    let mut out: Vec<Found> = parse::dates(quote, None)
        .into_iter()
        .filter_map(|c| {
            let normalised = match c.value {
                Ok(v @ Value::Date { .. }) => v.to_json().as_str()?.to_string(),
                Err((super::RejectReason::IncompleteDate, _)) => {
                    month_year(&quote[c.start..c.end])?
                }
                Err((super::RejectReason::AmbiguousDate, _)) => {
                    format!("ambiguous: {}", &quote[c.start..c.end])
                }
                _ => return None,
            };
            Some(Found {
                start: c.start,
                end: c.end,
                normalised,
                unit: None,
                bound: Bound::Exact,
            })
        })
        .collect();
    // "the late 12th Century": a date of a century, `late C12`.
    for c in CENTURY.captures_iter(quote) {
        let (m, n) = (c.get(0).expect("match"), &c[2]);
        if out.iter().any(|f| f.start < m.end() && m.start() < f.end) {
            continue;
        }
        let part = c.get(1).map(|p| format!("{} ", p.as_str().to_lowercase()));
        out.push(Found {
            start: m.start(),
            end: m.end(),
            normalised: format!("{}C{n}", part.unwrap_or_default()),
            unit: None,
            bound: Bound::Exact,
        });
    }
    for p in crate::period::periods(quote) {
        let (Some(year), Some(month)) = (p.year, p.month) else {
            continue;
        };
        let Some(start) = quote.find(&p.text) else {
            continue;
        };
        let end = start + p.text.len();
        if !out.iter().any(|f| f.start < end && start < f.end) {
            out.push(Found {
                start,
                end,
                normalised: format!("{year:04}-{month:02}"),
                unit: None,
                bound: Bound::Exact,
            });
        }
    }
    out
}

/// `March 2023` → `2023-03`.
fn month_year(raw: &str) -> Option<String> {
    let p = crate::period::periods(raw).into_iter().next()?;
    Some(format!("{:04}-{:02}", p.year?, p.month?))
}

/// A period: two dates joined by `to`, `through`, `until`, `-` (or `From: … To: …`),
/// or a year, quarter or fiscal year named as one.
fn periods(quote: &str) -> Vec<Found> {
    let ds = dates(quote);
    let mut out = Vec::new();
    for w in ds.windows(2) {
        let gap = quote[w[0].end..w[1].start].trim().to_lowercase();
        let gap = gap.trim_start_matches(',').trim();
        let joined = [
            "to", "through", "thru", "until", "till", "-", "–", "and", "to:",
        ]
        .iter()
        .any(|j| gap == *j || gap.ends_with(&format!(" {j}")) || gap == format!("{j}:"));
        if joined {
            out.push(Found {
                start: w[0].start,
                end: w[1].end,
                normalised: format!("{}/{}", w[0].normalised, w[1].normalised),
                unit: None,
                bound: Bound::Exact,
            });
        }
    }
    out
}

/// Amounts with a currency (`$5,000`, `EUR 35 000 000`, `50 dollars`) and, without one,
/// numbers written as money: with cents (`1,112.00`).
fn money(quote: &str) -> Vec<Found> {
    let mut out = figures(quote, &["dollar", "euro", "pound"]);
    // "4 $" on a form is line 4 and an empty amount field, not four dollars.
    out.retain(|f| {
        let raw = &quote[f.start..f.end];
        let line_number = raw.len() <= 2 && raw.bytes().all(|b| b.is_ascii_digit());
        !(line_number && quote[f.end..].trim_start().starts_with('$'))
    });
    static CENTS: LazyLock<Regex> =
        LazyLock::new(|| re(r"(?:^|[^\d.,])((?:\d{1,3}(?:,\d{3})+|\d+)\.\d{2})\b"));
    for c in CENTS.captures_iter(quote) {
        let m = c.get(1).expect("group");
        if !out.iter().any(|f| f.start <= m.start() && m.end() <= f.end) {
            out.push(Found {
                start: m.start(),
                end: m.end(),
                normalised: format!("{} dollar", figure::canonical(&m.as_str().replace(',', ""))),
                unit: Some("dollar".into()),
                bound: Bound::Exact,
            });
        }
    }
    out
}

/// Quantities of `family`: areas, lengths, masses, volumes and temperatures by their
/// unit; counts are numbers that are not years, dates, money, percentages or parts of
/// identifiers.
fn quantities(quote: &str, family: UnitFamily) -> Vec<Found> {
    if family == UnitFamily::Count {
        return counts(quote);
    }
    let nums = if figure::normalise(quote) == quote {
        figure::numbers(quote)
    } else {
        Vec::new()
    };
    QUANTITY
        .captures_iter(quote)
        .filter(|c| unit_family(&c[2]) == Some(family))
        .filter(|c| {
            let end = c.get(0).expect("match").end();
            family != UnitFamily::Mass || !PER_VOLUME.is_match(&quote[end..])
        })
        .map(|c| {
            let (m, at) = (c.get(0).expect("match"), c.get(1).expect("digits").start());
            let unit = written_unit(&c[2]);
            // The number whole, as the number reader reads it (`1.250.000 ha`).
            let n = nums
                .iter()
                .find(|n| n.unit.is_none() && n.start <= at && at < n.end);
            let start = n.map_or(m.start(), |n| n.start.min(m.start()));
            let normalised = match n {
                Some(n) if n.reading != figure::Reading::Exact => {
                    format!("ambiguous: {}", &quote[start..m.end()])
                }
                Some(n) => format!("{} {unit}", n.value),
                None => format!("{} {unit}", figure::canonical(&c[1].replace(',', ""))),
            };
            Found {
                start,
                end: m.end(),
                normalised,
                unit: Some(unit),
                bound: figure::bound_of(quote, start, m.end()),
            }
        })
        .collect()
}

/// The unit as a normalised value writes it: an exact spelling as written (`MW`), any
/// other in lower case, blanks single.
fn written_unit(spelling: &str) -> String {
    let exact = crate::lexicon::units::unit_written(spelling)
        .is_some_and(|u| u.exact.iter().any(|e| e == spelling));
    let s = if exact {
        spelling.to_string()
    } else {
        spelling.to_lowercase()
    };
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The unit a word of a question names (`kg`, `kilograms`, `tonnes`, `MW`), as its
/// canonical spelling, with its family.
pub fn named_unit(word: &str) -> Option<(UnitFamily, &'static str)> {
    let u = crate::lexicon::units::unit_named(word)?;
    Some((UnitFamily::from_key(&u.family)?, u.unit.as_str()))
}

/// The unit a value is written in, or a question names.
fn unit_of(spelling: &str) -> Option<&'static crate::lexicon::units::Unit> {
    crate::lexicon::units::unit_written(spelling)
        .or_else(|| crate::lexicon::units::unit_named(spelling))
}

/// `value` (a normalised quantity, `2 t`) in unit `to` (`kg`): `2000 kg`; `None` when
/// either unit is not known, has no size, or the two are of different families.
pub fn convert(value: &str, to: &str) -> Option<String> {
    let (number, unit) = value.split_once(' ')?;
    let from = unit_of(unit)?;
    let to = unit_of(to)?;
    if from.family != to.family {
        return None;
    }
    if from.unit == to.unit {
        return Some(value.to_string());
    }
    let n: f64 = number.replace(',', "").parse().ok()?;
    let x = n * from.size? / to.size?;
    // Six significant decimals at most: a conversion never invents precision.
    let text = format!("{x:.6}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    Some(format!("{} {}", figure::canonical(text), to.unit))
}

/// The family of a written unit.
fn unit_family(unit: &str) -> Option<UnitFamily> {
    UnitFamily::from_key(&crate::lexicon::units::unit_written(unit)?.family)
}

/// Numbers that count things: digits (separators allowed) or number words, not a year,
/// a date, money, a percentage or a part of an identifier or telephone number.
fn counts(quote: &str) -> Vec<Found> {
    if figure::normalise(quote) != quote {
        return Vec::new();
    }
    let taken: Vec<(usize, usize)> = dates(quote)
        .into_iter()
        .chain(money(quote))
        .chain(figures(quote, &["percent"]))
        .chain(find(quote, AnswerType::Phone, None))
        .chain(find(quote, AnswerType::Duration, None))
        // "8 miles", "40 hectares": a measure, not a count.
        .chain(
            UnitFamily::MEASURES
                .into_iter()
                .flat_map(|fam| quantities(quote, fam)),
        )
        .map(|f| (f.start, f.end))
        .collect();
    figure::numbers(quote)
        .into_iter()
        .filter(|n| n.unit.is_none() && n.reading == figure::Reading::Exact)
        .filter(|n| !taken.iter().any(|&(s, e)| s < n.end && n.start < e))
        .filter(|n| !glued(quote, n.start, n.end) && !in_name(quote, n.start, n.end))
        .filter(|n| !reference(quote, n.start))
        .filter(|n| !measured(&quote[n.end..]) && !an_age(&quote[..n.start]))
        .filter(|n| !time_of_day(quote, n.start, n.end))
        .filter(|n| !day_of_month(quote, n.start, n.end) && !section_label(quote, n.start, n.end))
        // A year is written without a thousands separator ("1,842 test utterances" counts).
        .filter(|n| {
            let year = (1800..=2100).contains(&n.value.parse::<u32>().unwrap_or(0));
            !(n.value.len() == 4 && year && !quote[n.start..n.end].contains([',', '.', ' ']))
        })
        .map(|n| Found {
            start: n.start,
            end: n.end,
            normalised: n.value.clone(),
            unit: None,
            // "at least 64 characters": a minimum, not the count itself.
            bound: figure::bound_of(quote, n.start, n.end),
        })
        .collect()
}

/// Whether the number at `start..end` is the day of a date written without its year ("1
/// April", "April 1", "30th June"): a day of the month, never a count of things.
fn day_of_month(quote: &str, start: usize, end: usize) -> bool {
    let word = |s: &str| {
        s.split(|c: char| !c.is_alphabetic())
            .find(|w| !w.is_empty())
            .map(str::to_string)
    };
    let after = quote[end..].trim_start_matches(['s', 't', 'n', 'd', 'r', 'h']);
    let after = after.strip_prefix(' ').and_then(word);
    let before = quote[..start]
        .strip_suffix(' ')
        .and_then(|b| b.rsplit(|c: char| !c.is_alphabetic()).next())
        .map(str::to_string);
    let month = |w: Option<String>| {
        w.is_some_and(|w| w.len() >= 3 && parse::month_number(&w).is_some() && w != "may")
    };
    let day = quote[start..end]
        .parse::<u32>()
        .is_ok_and(|d| (1..=31).contains(&d));
    day && (month(after) || month(before))
}

/// Whether the number at `start..end` labels a section or paragraph ("1.1 The name of
/// the Club is …", "4. Passenger dues"): a dotted number opening the quote or a line,
/// followed by a capitalised word, numbers a provision and counts nothing.
fn section_label(quote: &str, start: usize, end: usize) -> bool {
    let opens = quote[..start].trim_end_matches([' ', '\t']).is_empty()
        || quote[..start].trim_end_matches([' ', '\t']).ends_with('\n');
    let rest = &quote[end..];
    let dotted = quote[start..end].contains('.') || rest.starts_with(". ");
    let capital = rest
        .trim_start_matches('.')
        .trim_start()
        .starts_with(|c: char| c.is_uppercase());
    opens && dotted && capital
}

/// Whether the number at `start..end` tells a time of day (`6 am`, `9.30 p.m.`, `18:00`,
/// `7 o'clock`): a clock reading, never a count of things.
fn time_of_day(quote: &str, start: usize, end: usize) -> bool {
    let after = quote[end..]
        .trim_start_matches([' ', '\u{a0}'])
        .to_lowercase();
    let clock = [
        "am",
        "a.m.",
        "pm",
        "p.m.",
        "o'clock",
        "o’clock",
        "hrs",
        "h ",
    ]
    .iter()
    .any(|m| {
        after.strip_prefix(m).is_some_and(|rest| {
            m.ends_with(['.', ' ']) || !rest.starts_with(|c: char| c.is_alphanumeric())
        })
    });
    let colon = |s: &str| {
        let mut b = s.bytes();
        b.next() == Some(b':') && b.next().is_some_and(|d| d.is_ascii_digit())
    };
    let before = quote[..start]
        .strip_suffix(':')
        .is_some_and(|b| b.ends_with(|c: char| c.is_ascii_digit()));
    clock || colon(&quote[end..]) || before
}

/// What opens the text after a number that makes the number a measure ("eight miles",
/// "12 MW", "40 percent"), not a count.
static MEASURED: LazyLock<Regex> = LazyLock::new(|| {
    re(&format!(
        r"(?i)^[ \u{{a0}}](?:percent\b|per cent\b|{})",
        crate::lexicon::units::alternation()
    ))
});

/// Whether `before` (the text before a number) ends with a word of age ("aged 18",
/// "children under the age of 5"): the number is an age, a length of time, not a count.
fn an_age(before: &str) -> bool {
    let words = crate::text::words(&before.to_lowercase());
    let last: Vec<&str> = words.iter().rev().take(3).map(String::as_str).collect();
    matches!(last.first(), Some(&("aged" | "age" | "ages")))
        || (last.first() == Some(&"of") && last.get(1) == Some(&"age"))
}

/// Whether `after` (the text after a number) opens with a unit of measure.
fn measured(after: &str) -> bool {
    MEASURED.is_match(after)
}

/// Whether the number at `start..end` is glued to letters or more digits (a code, a
/// section number such as `4(b)`, `DHAW2019`).
fn glued(quote: &str, start: usize, end: usize) -> bool {
    let before = quote[..start].chars().next_back();
    let after = quote[end..].chars().next();
    let joins = |c: char| matches!(c, '-' | '–' | '—' | '/' | '.');
    // "5.2.2": a section number's parts, not "5.2" ending a sentence.
    let dotted = quote[end..]
        .strip_prefix('.')
        .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()));
    before.is_some_and(|c| c.is_alphanumeric() || joins(c))
        || after.is_some_and(|c| c.is_alphabetic() || c == '(' || (joins(c) && c != '.'))
        || dotted
}

/// Words after which a number names a part or a reference, not a count ("Section 5",
/// "RFC 20", "Table 3", "page 12").
const REFERENCE_WORDS: &[&str] = &[
    "section",
    "sections",
    "article",
    "articles",
    "art",
    "rfc",
    "table",
    "figure",
    "fig",
    "page",
    "pages",
    "p",
    "pp",
    "line",
    "lines",
    "step",
    "version",
    "no",
    "nos",
    "chapter",
    "part",
    "annex",
    "appendix",
    "item",
    "paragraph",
    "schedule",
    "title",
    "volume",
    "vol",
    "edition",
    "rev",
    "level",
    "phase",
    "tier",
    "grade",
    "class",
    "form",
    "exhibit",
];

/// Whether the number at `start` names a reference: after one of [`REFERENCE_WORDS`] or
/// `§`, or inside square brackets (`[RFC 20]`, `[12]`).
fn reference(quote: &str, start: usize) -> bool {
    let before = quote[..start].trim_end();
    let prev = before
        .rsplit(|c: char| c.is_whitespace())
        .next()
        .unwrap_or("")
        .trim_matches(|c: char| !c.is_alphanumeric() && c != '§')
        .to_lowercase();
    let bracket = before
        .rfind('[')
        .is_some_and(|o| !before[o..].contains(']'));
    prev.ends_with('§') || REFERENCE_WORDS.contains(&prev.as_str()) || bracket
}

/// Whether the number at `start..end` is part of a name (`Boeing 737 MAX`, `Flight
/// 302)`): a capitalised word right before it and a capitalised word or `)` right after.
fn in_name(quote: &str, start: usize, end: usize) -> bool {
    let before = quote[..start].trim_end();
    let prev = before.rsplit(char::is_whitespace).next().unwrap_or("");
    let after = quote[end..].trim_start();
    let next = after.split(char::is_whitespace).next().unwrap_or("");
    let caps = next.len() >= 2 && next.chars().all(|c| c.is_ascii_uppercase());
    caps || (before.len() < start
        && prev.chars().next().is_some_and(char::is_uppercase)
        && prev.chars().all(char::is_alphabetic)
        && (next.starts_with(')') || next.chars().next().is_some_and(char::is_uppercase)))
}

/// Identifiers: tokens with a digit (`FAA–2020–0686`, `C00029447`, `36C10B18Q2600`,
/// `22202`) or dotted capitals (`ID.SC`), not dates, money or plain small numbers.
fn identifiers(quote: &str) -> Vec<Found> {
    let dates: Vec<(usize, usize)> = dates(quote).into_iter().map(|f| (f.start, f.end)).collect();
    IDENT
        .find_iter(quote)
        .filter(|m| !dates.iter().any(|&(s, e)| s < m.end() && m.start() < e))
        .filter(|m| {
            !quote[..m.start()].ends_with(':')
                && !quote[..m.start()].ends_with(|c: char| c.is_ascii_digit())
        })
        .filter(|m| {
            let t = m.as_str();
            let digits = t.chars().filter(char::is_ascii_digit).count();
            let letters = t.chars().any(char::is_alphabetic);
            // An amount ("11000.00", "2,534,821.88") counts; it identifies nothing.
            let amount = !letters
                && t.bytes()
                    .all(|b| b.is_ascii_digit() || b == b'.' || b == b',')
                && (t.contains(',') || t.split('.').nth(1).is_some_and(|d| d.len() == 2));
            // "3X" (a form's name) is too short to identify anything.
            ((letters && t.chars().count() >= 4) || digits >= 5) && !amount
        })
        .map(|m| Found {
            start: m.start(),
            end: m.end(),
            normalised: m.as_str().replace(['–', '—'], "-"),
            unit: None,
            bound: Bound::Exact,
        })
        .collect()
}

/// Titles, roles and kinds of places or organisations: a run of capitalised words
/// holding one is an office or an institution, not a person's name.
const ROLES: &[&str] = &[
    "hotel",
    "resort",
    "company",
    "university",
    "college",
    "school",
    "hospital",
    "museum",
    "church",
    "club",
    "stadium",
    "airport",
    "bank",
    "name",
    "signature",
    "center",
    "centre",
    "director",
    "officer",
    "manager",
    "president",
    "secretary",
    "treasurer",
    "chair",
    "chairman",
    "minister",
    "commissioner",
    "administrator",
    "specialist",
    "counsel",
    "form",
    "act",
    "section",
    "part",
    "article",
    "regulation",
    "table",
    "figure",
    "office",
    "executive",
    "department",
    "agency",
    "committee",
    "board",
    "council",
    "union",
    "commission",
    "parliament",
    "ministry",
    "government",
    "republic",
    "kingdom",
    "states",
    "nations",
    "court",
    "institute",
    "association",
    "authority",
    "foundation",
    "corporation",
    "inc",
    "ltd",
    "llc",
    "information",
    "business",
    "confidential",
    "contact",
    "data",
    "system",
    "systems",
    "service",
    "services",
    "program",
    "programme",
    "report",
    "plan",
    "policy",
    "security",
    "management",
];

/// Two words or more, letters only (initials and hyphens allowed), none a role word nor a
/// word no personal name holds ([`Class::Impersonal`]: "Definitions", "Lane"), not
/// opening as a place's name does ([`Class::PlacePrefix`]: "Lower Orrin"), and no
/// function word after the first ("Abstract We", "Definitions For": a heading run on
/// into the text).
fn person_like(raw: &str) -> bool {
    use crate::lexicon::{self, Class};
    let words: Vec<&str> = raw.split_whitespace().collect();
    let bare = |w: &str| w.trim_matches(|c: char| !c.is_alphabetic()).to_lowercase();
    words.len() >= 2
        && words.iter().all(|w| {
            w.chars()
                .all(|c| c.is_alphabetic() || matches!(c, '.' | '-' | '\'' | '’' | ','))
        })
        && !words.iter().any(|w| {
            let b = bare(w);
            ROLES.contains(&b.as_str()) || lexicon::is(Class::Impersonal, &b)
        })
        && !lexicon::is(Class::PlacePrefix, &bare(words[0]))
        && !words[1..].iter().any(|w| {
            let b = bare(w);
            lexicon::is(Class::Stop, &b) && !super::names::joins_personal_name(&b)
        })
}

/// Names listed as `Surname,Given,I.`, normalised to `given i surname`.
fn listed_names(quote: &str) -> Vec<Found> {
    LISTED_NAME
        .find_iter(quote)
        .map(|m| {
            let parts: Vec<&str> = m.as_str().split(',').collect();
            let mut order: Vec<&str> = parts[1..].to_vec();
            order.push(parts[0]);
            Found {
                start: m.start(),
                end: m.end(),
                normalised: super::names::normalise(&order.join(" ")),
                unit: None,
                bound: Bound::Exact,
            }
        })
        .collect()
}

/// Names: runs of capitalised words at word starts that are not generic role words.
fn names(quote: &str, ty: AnswerType) -> Vec<Found> {
    let mut out: Vec<Found> = Vec::new();
    let mut at = 0;
    while at < quote.len() {
        let rest = &quote[at..];
        let starts_word = quote[..at]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_alphanumeric());
        if starts_word && rest.starts_with(|c: char| c.is_uppercase()) {
            if let Some((s, e)) = super::names::name_at(rest) {
                let raw = &rest[s..e];
                let shape = ty != AnswerType::Person || person_like(raw);
                if shape
                    && raw.split_whitespace().count() >= 2
                    && super::names::not_a_name(raw).is_none()
                {
                    out.push(Found {
                        start: at + s,
                        end: at + e,
                        normalised: super::names::normalise(raw),
                        unit: None,
                        bound: Bound::Exact,
                    });
                    at += e.max(1);
                    continue;
                }
            }
        }
        at += rest.chars().next().map_or(1, char::len_utf8);
    }
    out
}

#[cfg(test)]
mod tests {

    #[test]
    fn units_of_every_family_are_read_and_converted_within_it() {
        let q = |text: &str, fam: UnitFamily| {
            find(text, AnswerType::Quantity, Some(fam))
                .into_iter()
                .map(|f| f.normalised)
                .collect::<Vec<_>>()
        };
        let plant = "The plant has a capacity of 49.9 MW and a 2.3 MWh battery; dust stays \
                     below 5 mg/Nm³ and 10 kg per m3 of fill is used.";
        assert_eq!(q(plant, UnitFamily::Power), ["49.9 MW"]);
        assert_eq!(q(plant, UnitFamily::Energy), ["2.3 MWh"]);
        assert_eq!(q(plant, UnitFamily::Concentration), ["5 mg/nm³"]);
        // A mass per volume is no mass; a megawatt is no milliwatt.
        assert!(q(plant, UnitFamily::Mass).is_empty());
        assert!(q("a 5 mW laser", UnitFamily::Power).is_empty());
        assert_eq!(
            q("Maximum working pressure 16 bar.", UnitFamily::Pressure),
            ["16 bar"]
        );
        assert_eq!(convert("2.3 MWh", "kWh").as_deref(), Some("2300 kWh"));
        assert_eq!(convert("5 mg/nm³", "µg/m3").as_deref(), Some("5000 µg/m3"));
        assert_eq!(convert("16 bar", "kPa").as_deref(), Some("1600 kPa"));
        assert_eq!(convert("2 t", "kg").as_deref(), Some("2000 kg"));
        // Never across families, never a unit of no fixed size.
        assert_eq!(convert("2 MW", "MWh"), None);
        assert_eq!(convert("3 gallons", "l"), None);
        // A figure before a unit is a measure, not a count.
        let counts = find(
            "It emits 40 ppm and runs 12 MW units.",
            AnswerType::Quantity,
            None,
        );
        assert!(counts.is_empty(), "{counts:?}");
    }

    #[test]
    fn times_of_day_read_on_a_24_hour_clock() {
        let times = |q: &str| {
            find(q, AnswerType::Time, None)
                .into_iter()
                .map(|f| f.normalised)
                .collect::<Vec<_>>()
        };
        assert_eq!(times("The south gate must be locked at 11 pm."), ["23:00"]);
        assert_eq!(
            times("Open 9.30 a.m. to 18:00, closed at midnight"),
            ["09:30", "18:00", "00:00"]
        );
        assert_eq!(
            times("12 am is midnight; 12 pm is noon"),
            ["00:00", "00:00", "12:00", "12:00"]
        );
        assert!(times("a ratio of 3:1, grade 3.45 and 12:30:15 elapsed").is_empty());
        assert!(times("Version 2.10 ships 14 programs").is_empty());
    }

    #[test]
    fn a_citation_bracket_or_a_record_of_access_states_no_value() {
        let values = |q: &str, ty: AnswerType| {
            find(q, ty, Some(UnitFamily::Count))
                .into_iter()
                .map(|f| f.normalised)
                .collect::<Vec<_>>()
        };
        assert!(
            values(
                "44, 52], the corpus holds 9 summaries",
                AnswerType::Quantity
            ) == ["9"]
        );
        assert!(values("as in [3, 12] we train 4 models", AnswerType::Quantity) == ["4"]);
        // Superscript citations flattened into the text.
        assert_eq!(
            values(
                "32,33 An intrinsic method trains 5 models",
                AnswerType::Quantity
            ),
            ["5"]
        );
        assert_eq!(
            values(
                "as shown in networks.12,14 We trained 6 models",
                AnswerType::Quantity
            ),
            ["6"]
        );
        assert_eq!(
            values("1,234 Patients were enrolled", AnswerType::Quantity),
            ["1234"]
        );
        assert_eq!(
            values("The trial enrolled 7 patients.", AnswerType::Quantity),
            ["7"]
        );
        assert!(values("Archived July 6, 2011 at the archive", AnswerType::Date).is_empty());
        assert_eq!(
            values(
                "The holiday was first held on July 4, 1977.",
                AnswerType::Date
            ),
            ["1977-07-04"]
        );
    }

    #[test]
    fn days_of_dates_and_section_labels_count_nothing() {
        let counts = |q: &str| {
            find(q, AnswerType::Quantity, Some(UnitFamily::Count))
                .into_iter()
                .map(|f| f.normalised)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            counts("Reporting period (1 April to 30 June 2025): 14 crossings"),
            ["14"]
        );
        assert_eq!(counts("Since April 1 we opened 3 depots"), ["3"]);
        assert_eq!(
            counts("1.1 The name of the Club is the Rowing Club"),
            Vec::<String>::new()
        );
        assert_eq!(counts("4. Members elect 9 trustees"), ["9"]);
        // "may" the verb is no month.
        assert_eq!(counts("Up to 5 may be added"), ["5"]);
    }

    use super::*;

    fn raw(q: &str, ty: AnswerType, fam: Option<UnitFamily>) -> Vec<String> {
        find(q, ty, fam)
            .into_iter()
            .map(|f| q[f.start..f.end].to_string())
            .collect()
    }

    #[test]
    fn a_form_line_number_before_an_empty_dollar_field_is_no_amount() {
        assert!(find("505 for more information 4 $", AnswerType::Money, None).is_empty());
        assert_eq!(
            find("Enter $22,500 on line 2", AnswerType::Money, None).len(),
            1
        );
    }

    #[test]
    fn each_type_reads_its_own_values_and_nothing_else() {
        let q = "Call (202) 512-5017 or 867-5309 by March 1, 2024; the fee is $5,000 and 12.5% applies for 7 years to 40 hectares of 3 farms.";
        assert_eq!(
            raw(q, AnswerType::Phone, None),
            ["(202) 512-5017", "867-5309"]
        );
        assert_eq!(raw(q, AnswerType::Date, None), ["March 1, 2024"]);
        assert_eq!(raw(q, AnswerType::Money, None), ["$5,000"]);
        assert_eq!(raw(q, AnswerType::Percentage, None), ["12.5%"]);
        assert_eq!(raw(q, AnswerType::Duration, None), ["7 years"]);
        assert_eq!(
            raw(q, AnswerType::Quantity, Some(UnitFamily::Area)),
            ["40 hectares"]
        );
        assert!(raw(q, AnswerType::Quantity, Some(UnitFamily::Length)).is_empty());
        let counts = raw(q, AnswerType::Quantity, Some(UnitFamily::Count));
        assert!(
            counts.contains(&"3".to_string())
                && !counts
                    .iter()
                    .any(|c| c.contains("2024") || c.contains("512") || c == "40" || c == "7"),
            "{counts:?}"
        );
        let near = raw(
            "It is 8 miles (13 km) east of Hiawatha and has 12 lakes.",
            AnswerType::Quantity,
            Some(UnitFamily::Count),
        );
        assert_eq!(near, ["12"]);
        assert!(raw(q, AnswerType::Email, None).is_empty());
        let listed = find("Print Name: Kelly,Edward,A.,,", AnswerType::Person, None);
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].normalised, "edward a kelly");
    }

    #[test]
    fn an_institution_is_no_person() {
        let q = "Signed for the Council of the European Union by K. EDTSTADLER, the President.";
        assert!(!raw(q, AnswerType::Person, None).contains(&"European Union".to_string()));
        let q = "Except for Confidential Business Information, contact Marisol Cruz Cain.";
        assert_eq!(raw(q, AnswerType::Person, None), ["Marisol Cruz Cain"]);
    }

    #[test]
    fn a_heading_run_into_text_or_a_street_is_no_person() {
        let people = |q: &str| raw(q, AnswerType::Person, None);
        assert!(people("Abstract We propose a sensor built by the group.").is_empty());
        assert!(people("1. Definitions For the purposes of this ordinance").is_empty());
        assert!(people("Deliveries are made at Wharf Lane before noon.").is_empty());
        assert_eq!(
            people("The report was signed by Ana van der Berg on Monday."),
            ["Ana van der Berg"]
        );
        assert_eq!(people("Will Smith chaired the panel."), ["Will Smith"]);
        assert!(people("Signed at Lower Orrin on 2 May.").is_empty());
    }

    #[test]
    fn an_age_is_no_count() {
        let q = "Full members are members aged 18 or over; under the age of 5 no fee is due. The club has 120 members.";
        let found: Vec<&str> = find(q, AnswerType::Quantity, Some(UnitFamily::Count))
            .iter()
            .map(|f| &q[f.start..f.end])
            .collect();
        assert_eq!(found, ["120"]);
    }

    #[test]
    fn references_and_section_numbers_are_no_counts() {
        let q =
            "as described in Section 5.2.2 and [RFC 20]; see Table 3 and page 12, and 40 agencies";
        let found: Vec<&str> = find(q, AnswerType::Quantity, Some(UnitFamily::Count))
            .iter()
            .map(|f| &q[f.start..f.end])
            .collect();
        assert_eq!(found, ["40"]);
    }

    #[test]
    fn money_in_a_whole_provision() {
        let q = "Non-compliance with the prohibition shall be subject to administrative fines of up to EUR 35 000 000 or, if the offender is an undertaking, up to 7 % of its total worldwide annual turnover, whichever is higher.";
        assert_eq!(raw(q, AnswerType::Money, None), ["EUR 35 000 000"]);
        assert_eq!(
            raw(
                "Parcel | 212 | ha",
                AnswerType::Quantity,
                Some(UnitFamily::Area)
            ),
            ["212 | ha"]
        );
    }

    #[test]
    fn money_periods_identifiers_and_names() {
        assert_eq!(
            raw(
                "STAFF TRANSPORTATION 1,112.00 AIRFARE",
                AnswerType::Money,
                None
            ),
            ["1,112.00"]
        );
        assert_eq!(
            raw("a fine of up to EUR 35 000 000", AnswerType::Money, None),
            ["EUR 35 000 000"]
        );
        assert_eq!(
            find("a fine of up to EUR 35 000 000", AnswerType::Money, None)[0].bound,
            Bound::Max
        );
        assert_eq!(
            raw(
                "We conducted our work from May 2023 to June 2023 in accordance",
                AnswerType::Period,
                None
            ),
            ["May 2023 to June 2023"]
        );
        assert_eq!(
            raw(
                "Docket No. FAA–2020–0686; Product Identifier 2020–NM–108–AD",
                AnswerType::Identifier,
                None
            )[0],
            "FAA–2020–0686"
        );
        assert_eq!(
            raw(
                "Supply Chain Risk Management (ID.SC)",
                AnswerType::Identifier,
                None
            ),
            ["ID.SC"]
        );
        assert!(raw("see page 4 of 12", AnswerType::Identifier, None).is_empty());
        assert!(raw("▲ 11000.00", AnswerType::Identifier, None).is_empty());
        assert!(raw("total 2,534,821.88", AnswerType::Identifier, None).is_empty());
        assert_eq!(raw("ZIP 20006", AnswerType::Identifier, None), ["20006"]);
        assert_eq!(
            raw("see 45 CFR 164.404", AnswerType::Identifier, None),
            ["164.404"]
        );
        assert_eq!(
            raw(
                "contact: Marisol Cruz Cain, Director",
                AnswerType::Person,
                None
            ),
            ["Marisol Cruz Cain"]
        );
        assert_eq!(
            raw("write to ops@example.org today", AnswerType::Email, None),
            ["ops@example.org"]
        );
    }
}
