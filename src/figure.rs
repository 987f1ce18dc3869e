//! Numbers and figures read as values, for every check that compares what two texts state.
//! This is the one number reader of the engine: values, answers and the gate read here.
//!
//! * A **number** is a run of digit groups with its marks (`4,890`; `35 000 000` when every
//!   group after the first has three digits; `1.250.000`; `1.000,50`; `12.5`; `5,5`), a
//!   currency before it (`$`, `€`, `£`, `EUR`, `USD`, …), a scale after it (`$5 million`,
//!   `EUR 2.5 Mio`, `$3bn`, `€5k` — `k`, `m` and `b` only after a currency), or a run of
//!   number words (`seventy`, `twenty-five`, `one hundred and ten`). A number restated in
//!   brackets (`ten (10)`, `10 (ten)`) is one number. Digits glued to letters (`FY2023`,
//!   `E2`, `10m2`) are not numbers. Text is read after NFKC normalisation, so full-width
//!   digits (`２０２３`) are digits. Superscripts and subscripts as HTML is stored (`10^25`,
//!   `CO_2`) never fuse: `10^n` is read as a power of ten (n ≤ 30), any other power,
//!   exponent or index is no number; a footnote marker glued after a sentence-final period
//!   (`President.2 The`) is none.
//! * **Marks** are read by the shape of the run first: a mark used twice groups digits
//!   (`1.250.000`), of two marks the last is the decimal one (`1.000,50`, `1,000.50`), a
//!   mark before one, two or four digits or after a lone `0` is decimal (`5,5`, `12.50`,
//!   `0.250`). One mark before three digits (`1.250`, `1,250`) is ambiguous in isolation
//!   and is read in the text's [`NumberFormat`], which its unambiguous numbers show; where
//!   they show none (or both), a comma groups (the engine's English default) and a dot is
//!   left [`Reading::Ambiguous`]: the value lists both readings (`1.25|1250`) and equals
//!   only a number written as ambiguously. A run of marks that is no number's shape
//!   (`5.2.2`, `31.12.2030`) is [`Reading::Unread`]: its value is the text as written.
//! * A **figure** is a number with its unit (`30 days` → `30 day`, `12.5%` → `12.5
//!   percent`, `$5,000` → `5000 dollar`, `seven (7) years` → `7 year`), and its
//!   [`Bound`]: `not less than`, `at least`, `minimum` make a minimum; `up to`, `not more
//!   than`, `maximum`, `within` a maximum.
//! * [`verbatim_part`]: a piece of a quote is verbatim only when it starts and ends on
//!   word boundaries and never inside a number (`$5` is not a part of `$5,000`, nor `5%`
//!   of `12.5%`, nor `1` of `10 years`, nor `EUR 35` of `EUR 35 000 000`).

use std::borrow::Cow;
use std::collections::BTreeSet;

use unicode_normalization::UnicodeNormalization;

use crate::lexicon::{self, Class};

mod marks;

/// Text in NFKC form when it has anything but ASCII (full-width digits become digits).
pub fn normalise(text: &str) -> Cow<'_, str> {
    if text.is_ascii() {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(text.nfkc().collect())
    }
}

/// Whether a figure is a floor, a ceiling, or plainly stated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Bound {
    /// Stated as it is.
    Exact,
    /// `not less than`, `at least`, `minimum`, `or more`.
    Min,
    /// `up to`, `not more than`, `maximum`, `not to exceed`, `within`, `or less`.
    Max,
}

/// How surely a number's value was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reading {
    /// One value, in canonical decimal form (`5000`, `12.5`).
    Exact,
    /// Two values the text allows, both listed (`1.25|1250`): one mark before three digits
    /// in a text that shows no format, or words and digits that disagree (`ten (12)`).
    Ambiguous,
    /// No number's shape (`5.2.2`, `1,2,3`): the value is the text as written.
    Unread,
}

/// How a text writes its decimals, as its unambiguous numbers show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NumberFormat {
    /// A decimal point; commas group digits (`1,250.50`).
    Point,
    /// A decimal comma; dots group digits (`1.250,50`).
    Comma,
    /// Not shown, or shown both ways.
    Unknown,
}

impl NumberFormat {
    /// The format `text`'s unambiguous numbers show (normalised first): one mark used
    /// twice, two marks, or a mark before other than three digits. `Unknown` when they
    /// show none or disagree.
    pub fn of(text: &str) -> NumberFormat {
        let text = normalise(text);
        let shown: BTreeSet<NumberFormat> =
            scan(&text, NumberFormat::Unknown).1.into_iter().collect();
        match (shown.len(), shown.first()) {
            (1, Some(f)) => *f,
            _ => NumberFormat::Unknown,
        }
    }

    /// This format where it is known, else `other`.
    pub fn or(self, other: NumberFormat) -> NumberFormat {
        match self {
            NumberFormat::Unknown => other,
            known => known,
        }
    }
}

/// A number in a text: its byte span (in the normalised text) and its value.
#[derive(Debug, Clone, PartialEq)]
pub struct Number {
    /// Start of the number (its currency sign or word included).
    pub start: usize,
    /// End of the number (its scale word and percent sign included).
    pub end: usize,
    /// The value in canonical decimal form (`5000`, `12.5`); see [`Reading`] for the others.
    pub value: String,
    /// A unit the number carries itself: a currency or `percent`.
    pub unit: Option<&'static str>,
    /// Whether it was written in words only.
    pub words: bool,
    /// How surely the value was read.
    pub reading: Reading,
}

/// A figure: a number with its unit and bound.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    /// Start of its number in the normalised text.
    pub start: usize,
    /// End of its unit.
    pub end: usize,
    /// The value (`7`, `12.5`; see [`Reading`]).
    pub value: String,
    /// The unit, singular (`year`, `percent`, `dollar`).
    pub unit: String,
    /// Floor, ceiling or plain.
    pub bound: Bound,
    /// How surely the value was read.
    pub reading: Reading,
}

impl Figure {
    /// `value unit`, the form figures are compared in (`7 year`).
    pub fn key(&self) -> String {
        format!("{} {}", self.value, self.unit)
    }
}

/// Units a figure is counted in (singular; a plural `s` is dropped).
pub const UNITS: &[&str] = &[
    "day", "week", "month", "year", "decade", "century", "hour", "minute", "percent", "time",
    "session", "visit", "attempt", "dollar", "euro", "pound", "hectare", "acre",
];

/// Words between a number and its unit that do not change it.
const UNIT_FILLERS: &[&str] = &["calendar", "business", "consecutive", "full", "working"];

/// The value of one number word (`seven` → 7, `ninety` → 90), scales aside: see
/// [`lexicon::number_value`].
pub fn word_value(w: &str) -> Option<u64> {
    lexicon::number_value(w)
}

fn scale_value(w: &str) -> Option<u32> {
    lexicon::scale_power(w)
}

/// Abbreviations of a scale (`EUR 2.5 Mio`, `$3bn`): always a scale after digits.
const SCALE_ABBREVIATIONS: &[(&str, u32)] =
    &[("mio", 6), ("mln", 6), ("mn", 6), ("bn", 9), ("mrd", 9)];

/// Letters that are a scale only right after a currency (`$5k`, `€2 m`, `$1.2b`): alone,
/// `5k` or `10m` may be a distance.
const CURRENCY_SCALES: &[(&str, u32)] = &[("k", 3), ("m", 6), ("b", 9)];

/// The power of ten a word after digits scales them by: `thousand`, `million`, …, an
/// abbreviation, or (after a currency, `money`) `k`, `m`, `b`.
fn scale_of(w: &str, money: bool) -> Option<u32> {
    let abbreviated = |list: &[(&str, u32)]| list.iter().find(|(a, _)| *a == w).map(|x| x.1);
    scale_value(w)
        .filter(|e| *e >= 3)
        .or_else(|| abbreviated(SCALE_ABBREVIATIONS))
        .or_else(|| abbreviated(CURRENCY_SCALES).filter(|_| money))
}

/// Currency signs and codes, and the unit they stand for.
fn currency(s: &str) -> Option<&'static str> {
    match s {
        "$" | "usd" | "us$" | "dollar" | "dollars" => Some("dollar"),
        "€" | "eur" | "euro" | "euros" => Some("euro"),
        "£" | "gbp" | "pound" | "pounds" => Some("pound"),
        _ => None,
    }
}

/// A word of `text` (normalised): its span and lower-case form.
#[derive(Debug, Clone)]
struct Tok {
    start: usize,
    end: usize,
    text: String,
}

/// Tokens: runs of alphanumerics, and every other non-space character alone. Digits with
/// a scale glued after them (`5k`, `3bn`) are two tokens that touch.
fn tokens(text: &str) -> Vec<Tok> {
    let mut out: Vec<Tok> = Vec::new();
    let mut run: Option<usize> = None;
    for (i, c) in text.char_indices() {
        if c.is_alphanumeric() {
            run.get_or_insert(i);
            continue;
        }
        if let Some(s) = run.take() {
            push_run(&mut out, text, s, i);
        }
        if !c.is_whitespace() {
            out.push(Tok {
                start: i,
                end: i + c.len_utf8(),
                text: c.to_string(),
            });
        }
    }
    if let Some(s) = run {
        push_run(&mut out, text, s, text.len());
    }
    out
}

/// The run of alphanumerics `text[s..e]` as a token, or two when it is digits and a
/// scale glued to them.
fn push_run(out: &mut Vec<Tok>, text: &str, s: usize, e: usize) {
    let lower = text[s..e].to_lowercase();
    let split = lower.find(|c: char| !c.is_ascii_digit()).filter(|&k| {
        k > 0
            && lower.len() == e - s
            && scale_of(&lower[k..], true).is_some()
            && !lower[k..].contains(|c: char| c.is_ascii_digit())
    });
    match split {
        Some(k) => {
            out.push(Tok {
                start: s,
                end: s + k,
                text: lower[..k].to_string(),
            });
            out.push(Tok {
                start: s + k,
                end: e,
                text: lower[k..].to_string(),
            });
        }
        None => out.push(Tok {
            start: s,
            end: e,
            text: lower,
        }),
    }
}

fn digits(t: &Tok) -> bool {
    !t.text.is_empty() && t.text.bytes().all(|b| b.is_ascii_digit())
}

/// Two tokens touch (no space between them).
fn touch(a: &Tok, b: &Tok) -> bool {
    a.end == b.start
}

/// Canonical decimal form: no leading zeros in the integer part, no trailing zeros (or
/// point) in the fraction.
pub fn canonical(v: &str) -> String {
    let (int, frac) = v.split_once('.').unwrap_or((v, ""));
    let int = int.trim_start_matches('0');
    let int = if int.is_empty() { "0" } else { int };
    let frac = frac.trim_end_matches('0');
    if frac.is_empty() {
        int.to_string()
    } else {
        format!("{int}.{frac}")
    }
}

/// `v` × 10^`exp`, in canonical form.
fn scaled(v: &str, exp: u32) -> String {
    let (int, frac) = v.split_once('.').unwrap_or((v, ""));
    let mut digits = format!("{int}{frac}");
    let point = int.len() + exp as usize;
    while digits.len() < point {
        digits.push('0');
    }
    canonical(&format!("{}.{}", &digits[..point], &digits[point..]))
}

/// A run of number words from token `i`: the end token index and the value.
fn word_number(t: &[Tok], i: usize) -> Option<(usize, u64)> {
    let mut total: u64 = 0;
    let mut current: u64 = 0;
    let mut j = i;
    let mut last = None;
    let mut any = false;
    while let Some(tok) = t.get(j) {
        let w = tok.text.as_str();
        if let Some(v) = word_value(w) {
            current = current.saturating_add(v);
            any = true;
        } else if let Some(e) = scale_value(w).filter(|_| any) {
            let m = 10u64.saturating_pow(e);
            if e == 2 {
                current = current.max(1).saturating_mul(m);
            } else {
                total = total.saturating_add(current.max(1).saturating_mul(m));
                current = 0;
            }
        } else if (w == "-" || w == "and")
            && any
            && t.get(j + 1).is_some_and(|n| word_value(&n.text).is_some())
        {
            // `twenty-five`, `one hundred and ten`
        } else {
            break;
        }
        last = Some(j);
        j += 1;
    }
    let end = last? + 1;
    any.then_some((end, total.saturating_add(current)))
}

/// The value of a phrase of number words as a whole (`fourteen`, `twenty-five`, `one
/// hundred and ten`, `hundred`): the one reader of written-out numbers, which
/// `value::parse` reads durations with too. `None` when any of `phrase` is no number
/// word.
pub fn number_phrase(phrase: &str) -> Option<u64> {
    let mut t = tokens(&normalise(phrase));
    // A scale alone counts one of it ("hundred years").
    if t.first().is_some_and(|x| scale_value(&x.text).is_some()) {
        t.insert(
            0,
            Tok {
                start: 0,
                end: 0,
                text: "one".into(),
            },
        );
    }
    let (end, v) = word_number(&t, 0)?;
    (end == t.len()).then_some(v)
}

/// Whether the digits at token `i` are a superscript or subscript as the HTML renderer
/// writes them (`10^25`, `CO_2`): an exponent or index, not a number of their own.
fn scripted(t: &[Tok], i: usize) -> bool {
    i > 0 && matches!(t[i - 1].text.as_str(), "^" | "_") && touch(&t[i - 1], &t[i])
}

/// Whether the digits at token `i` are a footnote marker glued after a sentence-final
/// period, as PDF text has them (`… the President.2 The bill …`): at most three digits
/// after `word.` (a word of three letters or more, no numbering abbreviation), then the
/// end of the text or a space and a capital.
fn footnote_marker(t: &[Tok], i: usize, text: &str) -> bool {
    if i < 2 || t[i].text.len() > 3 {
        return false;
    }
    let (word, dot) = (&t[i - 2], &t[i - 1]);
    let wordy = word.text.chars().count() >= 3
        && word.text.chars().all(char::is_alphabetic)
        && !lexicon::is(Class::NumberingAbbreviation, &word.text);
    if dot.text != "." || !touch(word, dot) || !touch(dot, &t[i]) || !wordy {
        return false;
    }
    let rest = &text[t[i].end..];
    let next = rest.trim_start();
    rest.is_empty()
        || (next.len() < rest.len() && next.chars().next().is_some_and(char::is_uppercase))
}

/// The numbers of `text` (already normalised: see [`normalise`]), read in the format
/// its own numbers show ([`NumberFormat::of`]).
pub fn numbers(text: &str) -> Vec<Number> {
    numbers_in(text, NumberFormat::of(text))
}

/// The numbers of `text` (already normalised), with one mark before three digits read
/// in `fmt` (see the module docs).
pub fn numbers_in(text: &str, fmt: NumberFormat) -> Vec<Number> {
    scan(text, fmt).0
}

/// The numbers of `text` read in `fmt`, and the formats their shapes show (a lone
/// decimal only when its number is a quantity).
fn scan(text: &str, fmt: NumberFormat) -> (Vec<Number>, Vec<NumberFormat>) {
    let t = tokens(text);
    let mut out = Vec::new();
    let mut shown = Vec::new();
    let mut i = 0;
    while i < t.len() {
        let Some((n, next, s)) = number_at(&t, i, text, fmt) else {
            i += 1;
            continue;
        };
        if let Some(s) = s {
            if s.by_groups || n.unit.is_some() || unit_after(&t, n.end).is_some() {
                shown.push(s.format);
            }
        }
        out.push(n);
        i = next;
    }
    (merge_restated(text, out), shown)
}

/// Numbers restated in brackets as one: `ten (10)`, `10 (ten)`, spanning both. When the
/// two disagree (`ten (12)`) the number is ambiguous.
fn merge_restated(text: &str, nums: Vec<Number>) -> Vec<Number> {
    let mut out: Vec<Number> = Vec::with_capacity(nums.len());
    for n in nums {
        let restates = out.last().is_some_and(|p| {
            p.words != n.words
                && text[p.end..n.start].trim() == "("
                && text[n.end..].trim_start().starts_with(')')
        });
        let Some(prev) = out.last_mut().filter(|_| restates) else {
            out.push(n);
            continue;
        };
        prev.end = n.end + text[n.end..].find(')').map_or(0, |k| k + 1);
        prev.unit = prev.unit.or(n.unit);
        prev.words = false;
        if prev.value != n.value {
            let mut both: Vec<&str> = prev.value.split('|').chain(n.value.split('|')).collect();
            both.sort_by(|a, b| by_magnitude(a, b));
            both.dedup();
            prev.value = both.join("|");
            prev.reading = Reading::Ambiguous;
        } else if n.reading != Reading::Exact {
            prev.reading = n.reading;
        }
    }
    out
}

/// Two values ordered by size (text order when either is not a decimal).
fn by_magnitude(a: &str, b: &str) -> std::cmp::Ordering {
    match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(x), Ok(y)) => x.total_cmp(&y),
        _ => a.cmp(b),
    }
}

/// Whether the token before `i` is a word glued to it (`FY2023`, `E2`).
fn glued_before(t: &[Tok], i: usize) -> bool {
    i > 0 && touch(&t[i - 1], &t[i]) && t[i - 1].text.chars().all(char::is_alphanumeric)
}

/// The digits at token `i` read in `fmt`: the token after them, the value, its reading
/// and the format their shape shows. `money`: a currency stands before them, so a glued
/// `k`, `m` or `b` is a scale.
fn digits_at(
    t: &[Tok],
    i: usize,
    text: &str,
    fmt: NumberFormat,
    money: bool,
) -> Option<(usize, String, Reading, Option<marks::Shown>)> {
    if glued_before(t, i) || scripted(t, i) || footnote_marker(t, i, text) {
        return None;
    }
    let run = marks::run_at(t, i, text);
    let (mut value, reading, shown) = marks::read(t, &run, text, fmt);
    let mut end = run.end();
    // Digits glued to letters (`10m2`, `2023q1`) or a subscript (`10_2`) are an
    // identifier, not a number; a glued scale (`$5k`) is read by the caller.
    if t.get(end).is_some_and(|n| {
        touch(&t[end - 1], n)
            && (n.text == "_"
                || (n.text.chars().next().is_some_and(char::is_alphabetic)
                    && scale_of(&n.text, money).is_none()))
    }) {
        return None;
    }
    if t.get(end)
        .is_some_and(|n| n.text == "^" && touch(&t[end - 1], n))
    {
        // `10^25` is 10 to the 25th; any other power is no value we read.
        let exp = t
            .get(end + 1)
            .filter(|e| digits(e) && touch(&t[end], e))
            .and_then(|e| e.text.parse::<u32>().ok())
            .filter(|e| *e <= 30 && value == "10" && run.single())?;
        value = scaled("1", exp);
        end += 2;
    }
    Some((end, value, reading, shown))
}

/// The number that starts at token `i` read in `fmt`, the token after it, and the format
/// its shape shows.
fn number_at(
    t: &[Tok],
    i: usize,
    text: &str,
    fmt: NumberFormat,
) -> Option<(Number, usize, Option<marks::Shown>)> {
    // Currency before: `$5`, `EUR 35 000 000`, `US$ 10`.
    let money = i.checked_sub(1).and_then(|k| currency(&t[k].text));
    let (mut end, mut value, reading, words, shown) = if digits(&t[i]) {
        let (end, value, reading, shown) = digits_at(t, i, text, fmt, money.is_some())?;
        (end, value, reading, false, shown)
    } else {
        let (end, v) = word_number(t, i)?;
        (end, v.to_string(), Reading::Exact, true, None)
    };
    let start = if money.is_some() {
        t[i - 1].start
    } else {
        t[i].start
    };
    let scale = t.get(end).and_then(|n| scale_of(&n.text, money.is_some()));
    if let Some(e) = scale.filter(|_| reading != Reading::Unread) {
        value = value
            .split('|')
            .map(|v| scaled(v, e))
            .collect::<Vec<_>>()
            .join("|");
        end += 1;
    }
    let mut unit = money;
    if t.get(end).is_some_and(|n| n.text == "%") {
        unit = Some("percent");
        end += 1;
    }
    let number = Number {
        start,
        end: t[end - 1].end,
        value,
        unit,
        words,
        reading,
    };
    Some((number, end, shown))
}

/// The bound words right before a number (up to four words back) or right after it.
pub fn bound_of(text: &str, start: usize, end: usize) -> Bound {
    let before: Vec<String> = text[..start]
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let tail = before[before.len().saturating_sub(4)..].join(" ");
    let after: Vec<String> = text[end..]
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(3)
        .map(str::to_lowercase)
        .collect();
    let after = after.join(" ");
    const MIN: &[Class] = &[
        Class::BoundMin,
        Class::BoundMore,
        Class::BoundStart,
        Class::BoundAbbreviationMin,
    ];
    const MAX: &[Class] = &[
        Class::BoundMax,
        Class::BoundLess,
        Class::BoundDeadline,
        Class::BoundAbbreviationMax,
    ];
    // The phrase ending last wins; of two ending together the longer ("not more than"
    // over "more than").
    let ends = |classes: &[Class]| {
        classes
            .iter()
            .flat_map(|c| lexicon::words(*c))
            .filter_map(|p| tail.rfind(p).map(|i| (i + p.len(), p.len())))
            .max()
    };
    let (min, max) = (ends(MIN), ends(MAX));
    match (min, max) {
        (Some(a), Some(b)) => return if a >= b { Bound::Min } else { Bound::Max },
        (Some(_), None) => return Bound::Min,
        (None, Some(_)) => return Bound::Max,
        _ => {}
    }
    if after.contains("or more") || after.contains("or longer") {
        Bound::Min
    } else if after.contains("or less") || after.contains("or fewer") {
        Bound::Max
    } else {
        Bound::Exact
    }
}

/// The figures of `text` (normalised first), in order of appearance, read in the format
/// its own numbers show.
pub fn figures_of(text: &str) -> Vec<Figure> {
    let text = normalise(text);
    figures_in(&text, NumberFormat::of(&text))
}

/// The figures of `text` (normalised first) with its numbers read in `fmt`.
pub fn figures_in(text: &str, fmt: NumberFormat) -> Vec<Figure> {
    let text = normalise(text);
    let t = tokens(&text);
    let mut out = Vec::new();
    for n in numbers_in(&text, fmt) {
        let unit = n.unit.map(str::to_string).or_else(|| unit_after(&t, n.end));
        let Some(unit) = unit else { continue };
        out.push(Figure {
            start: n.start,
            end: n.end,
            value: n.value,
            unit,
            bound: bound_of(&text, n.start, n.end),
            reading: n.reading,
        });
    }
    out
}

/// The unit after a number ending at byte `end`: through the period of a scale's
/// abbreviation (`2,5 Mio. EUR`), fillers and a restating `(7)`.
fn unit_after(t: &[Tok], end: usize) -> Option<String> {
    let mut j = t.iter().position(|x| x.start >= end)?;
    let abbreviated = j > 0
        && SCALE_ABBREVIATIONS
            .iter()
            .any(|(a, _)| *a == t[j - 1].text.as_str());
    if abbreviated && t[j].text == "." {
        j += 1;
    }
    while t
        .get(j)
        .is_some_and(|x| UNIT_FILLERS.contains(&x.text.as_str()))
    {
        j += 1;
    }
    if t.get(j).is_some_and(|x| x.text == ")") {
        j += 1;
    }
    if t.get(j).is_some_and(|x| x.text == "(")
        && t.get(j + 1).is_some_and(digits)
        && t.get(j + 2).is_some_and(|x| x.text == ")")
    {
        j += 3;
    }
    let w = t.get(j)?.text.as_str();
    if w == "per" && t.get(j + 1).is_some_and(|x| x.text == "cent") {
        return Some("percent".into());
    }
    if let Some(c) = currency(w) {
        return Some(c.into());
    }
    let w = match w {
        "centuries" => "century",
        "ha" => "hectare",
        _ => w.strip_suffix('s').unwrap_or(w),
    };
    UNITS.contains(&w).then(|| w.to_string())
}

/// The figures `text` states as `value unit` keys, sorted and distinct.
pub fn figure_keys(text: &str) -> Vec<String> {
    figure_keys_in(text, NumberFormat::of(text))
}

/// The figures of `text` read in `fmt`, as `value unit` keys, sorted and distinct.
pub fn figure_keys_in(text: &str, fmt: NumberFormat) -> Vec<String> {
    figures_in(text, fmt)
        .into_iter()
        .map(|f| f.key())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

/// The values of every number in `text` written in digits (and, with `with_words`, in
/// words), canonical.
pub fn number_values(text: &str, with_words: bool) -> BTreeSet<String> {
    let text = normalise(text);
    numbers(&text)
        .into_iter()
        .filter(|n| with_words || !n.words)
        .map(|n| n.value)
        .collect()
}

/// Whether a cut at byte `at` of `text` falls inside a word or a number.
fn cuts(text: &str, at: usize) -> bool {
    let before = text[..at].chars().next_back();
    let after = text[at..].chars().next();
    let (Some(b), Some(a)) = (before, after) else {
        return false;
    };
    if b.is_alphanumeric() && a.is_alphanumeric() {
        return true;
    }
    let numeric = |c: char| c.is_ascii_digit() || c.is_numeric();
    let money = |c: char| matches!(c, '$' | '€' | '£' | '¥');
    // `$|5`, `5|%`, `5|,000`, `12|.5`, `12.|5`
    if money(b) && numeric(a) || numeric(b) && matches!(a, '%' | '‰') {
        return true;
    }
    let b2 = text[..at].chars().rev().nth(1);
    let a2 = text[at..].chars().nth(1);
    if numeric(b) && matches!(a, ',' | '.') && a2.is_some_and(numeric) {
        return true;
    }
    if matches!(b, ',' | '.') && numeric(a) && b2.is_some_and(numeric) {
        return true;
    }
    // `10|^25`, `10^|25`, `CO|_2`
    matches!(a, '^' | '_') && b.is_alphanumeric() || matches!(b, '^' | '_') && a.is_alphanumeric()
}

/// Whether the end of a piece at byte `end` drops what makes its last number what it
/// is: a percent sign or a scale word after a space (`12.5 %`, `$5 million`).
fn drops_qualifier(text: &str, end: usize) -> bool {
    if !text[..end].ends_with(|c: char| c.is_ascii_digit()) {
        return false;
    }
    let rest = text[end..].trim_start();
    if rest.starts_with('%') {
        return true;
    }
    let word: String = rest
        .chars()
        .take_while(|c| c.is_alphabetic())
        .collect::<String>()
        .to_lowercase();
    scale_of(&word, true).is_some()
}

/// Whether `piece` occurs in `quote` starting and ending on word boundaries, never inside
/// a number (see the module docs).
pub fn verbatim_part(quote: &str, piece: &str) -> bool {
    !verbatim_spans(quote, piece).is_empty()
}

/// Every place `[start, end)` where `piece` occurs in `quote` starting and ending on word
/// boundaries, never inside a number (its digit groups, currency, scale, percent sign or
/// a restatement in brackets: `EUR 35` is no part of `EUR 35 000 000`).
pub fn verbatim_spans(quote: &str, piece: &str) -> Vec<(usize, usize)> {
    if piece.is_empty() {
        return Vec::new();
    }
    let spans: Vec<(usize, usize)> = numbers_in(quote, NumberFormat::Unknown)
        .into_iter()
        .map(|n| (n.start, n.end))
        .collect();
    let inside = |at: usize| spans.iter().any(|&(s, e)| s < at && at < e);
    quote
        .match_indices(piece)
        .map(|(s, _)| (s, s + piece.len()))
        .filter(|&(s, e)| {
            !cuts(quote, s)
                && !cuts(quote, e)
                && !drops_qualifier(quote, e)
                && !inside(s)
                && !inside(e)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_read_whole() {
        let v = |s: &str| number_values(s, true).into_iter().collect::<Vec<_>>();
        assert_eq!(v("served 4,890 clients"), vec!["4890"]);
        assert_eq!(v("a fine of EUR 35 000 000 or 7 %"), vec!["35000000", "7"]);
        assert_eq!(v("rate of 12.5% in 2023"), vec!["12.5", "2023"]);
        assert_eq!(v("$5 million"), vec!["5000000"]);
        assert_eq!(v("$1.5 billion"), vec!["1500000000"]);
        assert_eq!(v("seventy-five years"), vec!["75"]);
        assert_eq!(v("one hundred and ten days"), vec!["110"]);
        assert_eq!(v("FY2023 and E2 and 10m2"), Vec::<String>::new());
        assert_eq!(v("２０２３"), vec!["2023"]);
        assert_eq!(v("between 2019 and 2020"), vec!["2019", "2020"]);
        assert_eq!(v("007"), vec!["7"]);
    }

    #[test]
    fn scripts_and_footnote_markers_never_fuse_into_a_number() {
        let v = |s: &str| number_values(s, true).into_iter().collect::<Vec<_>>();
        assert_eq!(
            v("trained with 10^25 operations"),
            vec!["10000000000000000000000000"]
        );
        assert_eq!(v("a 2^10 table"), Vec::<String>::new());
        assert_eq!(v("10^99 steps"), Vec::<String>::new());
        assert_eq!(v("CO_2 and 10_2"), Vec::<String>::new());
        assert_eq!(k_of("10^3 years"), vec!["1000 year"]);
        assert!(!v("10^25 operations").contains(&"1025".to_string()));
        assert!(!v("10^25 operations").contains(&"25".to_string()));
        assert_eq!(
            v("signed by the President.2 The bill"),
            Vec::<String>::new()
        );
        assert_eq!(v("signed by the President.2"), Vec::<String>::new());
        assert_eq!(v("see No.2 The list"), vec!["2"]);
        assert_eq!(v("rate of 5.2 The next"), vec!["5.2"]);
        assert_eq!(v("the Act.2 (b) applies"), vec!["2"]);
        assert!(!verbatim_part("about 10^25 operations", "about 10"));
        assert!(!verbatim_part("about 10^25 operations", "25 operations"));
        assert!(verbatim_part(
            "about 10^25 operations",
            "about 10^25 operations"
        ));
    }

    /// Each number of `s` as (raw text, value, reading).
    fn read(s: &str) -> Vec<(String, String, Reading)> {
        numbers(s)
            .into_iter()
            .map(|n| (s[n.start..n.end].to_string(), n.value, n.reading))
            .collect()
    }

    fn one(s: &str) -> (String, String, Reading) {
        let all = read(s);
        assert_eq!(all.len(), 1, "{s}: {all:?}");
        all[0].clone()
    }

    #[test]
    fn grouping_and_decimal_marks_are_read_by_shape_then_by_the_texts_format() {
        let exact = |raw: &str, v: &str| (raw.to_string(), v.to_string(), Reading::Exact);
        // A mark used twice groups; of two marks the last is decimal.
        assert_eq!(
            one("a fee of EUR 2.400.000"),
            exact("EUR 2.400.000", "2400000")
        );
        assert_eq!(one("paid 3,750,000 in all"), exact("3,750,000", "3750000"));
        assert_eq!(
            one("costs EUR 7.000,25 now"),
            exact("EUR 7.000,25", "7000.25")
        );
        assert_eq!(one("costs $7,000.25 now"), exact("$7,000.25", "7000.25"));
        assert_eq!(one("costs 12 500,75 EUR"), exact("12 500,75", "12500.75"));
        assert_eq!(one("a rate of 3,5 %"), exact("3,5 %", "3.5"));
        assert_eq!(one("a rate of 0.375"), exact("0.375", "0.375"));
        assert_eq!(one("CHF 4'500"), exact("4'500", "4500"));
        // One mark before three digits: the text's own format decides.
        assert_eq!(
            one("a fine of 3.600"),
            ("3.600".into(), "3.6|3600".into(), Reading::Ambiguous)
        );
        assert_eq!(one("a fine of 3,600"), exact("3,600", "3600"));
        let v = |s: &str| read(s).into_iter().map(|x| x.1).collect::<Vec<_>>();
        assert_eq!(
            v("a fine of 3.600 and a cap of 1.000.000"),
            ["3600", "1000000"]
        );
        assert_eq!(v("a fine of 3.600 and a rate of 2.5 %"), ["3.6", "2.5"]);
        assert_eq!(v("a fine of 3,600 and a rate of 2,5 %"), ["3.6", "2.5"]);
        assert_eq!(v("a fine of 3,600 and 1,250,000 more"), ["3600", "1250000"]);
        // Evidence both ways leaves the text's format unknown.
        assert_eq!(
            v("3.600 in 1,5 % and 7,5 % and 2.5 %"),
            ["3.6|3600", "1.5", "7.5", "2.5"]
        );
        // A lone decimal is evidence only with a unit: section 4.2 shows nothing.
        assert_eq!(
            v("see section 4.2 on the fine of 3.600"),
            ["4.2", "3.6|3600"]
        );
        assert_eq!(
            NumberFormat::of("rule 4.2 and rule 7.1"),
            NumberFormat::Unknown
        );
        assert_eq!(NumberFormat::of("EUR 1.000,00"), NumberFormat::Comma);
        assert_eq!(NumberFormat::of("5.5 percent"), NumberFormat::Point);
        // No number's shape: read as written, never cut into numbers.
        assert_eq!(
            one("see 5.2.2 below"),
            ("5.2.2".into(), "5.2.2".into(), Reading::Unread)
        );
        assert_eq!(v("on 31.12.2030"), ["31.12.2030"]);
        assert_eq!(v("the years 2019,2020 and 2021"), ["2019", "2020", "2021"]);
    }

    #[test]
    fn scale_words_and_abbreviations_are_part_of_the_number() {
        let k = |s: &str| figure_keys(s);
        assert_eq!(k("a budget of EUR 4.5 Mio"), ["4500000 euro"]);
        assert_eq!(k("a budget of EUR 4,5 Mio. in total"), ["4500000 euro"]);
        assert_eq!(k("4,5 Mio. EUR"), ["4500000 euro"]);
        assert_eq!(k("raised $3bn"), ["3000000000 dollar"]);
        assert_eq!(k("raised $ 2.5 bn"), ["2500000000 dollar"]);
        assert_eq!(k("a grant of €40k"), ["40000 euro"]);
        assert_eq!(k("a grant of £12m"), ["12000000 pound"]);
        assert_eq!(k("seven thousand dollars"), ["7000 dollar"]);
        assert_eq!(k("12 thousand euros"), ["12000 euro"]);
        // `k` and `m` alone may be a distance: no number.
        assert!(number_values("a 5k run over 10m", true).is_empty());
        assert_eq!(one("EUR 2.5 Mio").0, "EUR 2.5 Mio");
    }

    #[test]
    fn a_number_restated_in_brackets_is_one_number() {
        assert_eq!(
            one("for eight (8) years"),
            ("eight (8)".into(), "8".into(), Reading::Exact)
        );
        assert_eq!(
            one("for 8 (eight) years"),
            ("8 (eight)".into(), "8".into(), Reading::Exact)
        );
        assert_eq!(
            one("for eight (9) years"),
            ("eight (9)".into(), "8|9".into(), Reading::Ambiguous)
        );
        let f = &figures_of("retained for twelve (12) months")[0];
        assert_eq!((f.key(), f.start), ("12 month".to_string(), 13));
        assert_eq!(figure_keys("for eight (9) years"), ["8|9 year"]);
        assert_eq!(figure_keys("within five (5) business days"), ["5 day"]);
    }

    fn k_of(s: &str) -> Vec<String> {
        figure_keys(s)
    }

    #[test]
    fn figures_carry_units_and_bounds() {
        let k = |s: &str| figure_keys(s);
        assert_eq!(k("a minimum fine of $5,000."), vec!["5000 dollar"]);
        assert_eq!(k("not less than seven (7) years"), vec!["7 year"]);
        assert_eq!(k("12.5% of claims"), vec!["12.5 percent"]);
        assert_eq!(k("five per cent"), vec!["5 percent"]);
        assert_eq!(k("seventy years"), vec!["70 year"]);
        assert_eq!(k("7 decades"), vec!["7 decade"]);
        assert_eq!(k("within 30 calendar days"), vec!["30 day"]);
        assert_eq!(k("kept for seven years under § 5897"), vec!["7 year"]);
        assert_eq!(k("EUR 35 000 000"), vec!["35000000 euro"]);
        let b = |s: &str| figures_of(s)[0].bound;
        assert_eq!(b("a minimum fine of $5,000"), Bound::Min);
        assert_eq!(b("fines of up to EUR 35 000 000"), Bound::Max);
        assert_eq!(b("not less than seven (7) years"), Bound::Min);
        assert_eq!(b("within 60 days of discovery"), Bound::Max);
        assert_eq!(b("for 10 years"), Bound::Exact);
        assert_eq!(b("for 10 years or more"), Bound::Min);
        assert_eq!(b("not later than 10 days"), Bound::Max);
        assert_eq!(b("not earlier than 10 days"), Bound::Min);
        assert_eq!(b("not more than 7 years"), Bound::Max);
        assert_eq!(b("more than $150 billion"), Bound::Min);
        assert_eq!(b("no more than $150 billion"), Bound::Max);
        assert_eq!(b("no fewer than 7 sessions"), Bound::Min);
    }

    #[test]
    fn a_part_never_cuts_a_number_or_a_word() {
        let q = "Violations carry a minimum fine of $5,000. Keep for 10 years; 4,890 served; 12.5% rate.";
        for bad in [
            "a minimum fine of $5",
            "Keep for 1",
            "4",
            "served; 12",
            "5% rate",
            "12.5",
            "minimum fine of $",
            "iolations carry",
        ] {
            assert!(!verbatim_part(q, bad), "{bad}");
        }
        for ok in [
            "a minimum fine of $5,000",
            "Keep for 10 years",
            "4,890 served",
            "12.5% rate",
            "Violations carry",
        ] {
            assert!(verbatim_part(q, ok), "{ok}");
        }
        assert!(!verbatim_part("a fine of $5 million", "a fine of $5"));
        assert!(!verbatim_part("a rate of 12.5 %", "a rate of 12.5"));
        for (q, bad) in [
            ("a fine of EUR 35 000 000.", "a fine of EUR 35"),
            ("a fee of EUR 4.000,50 a month", "a fee of EUR 4"),
            ("a fee of EUR 4.000,50 a month", "000,50 a month"),
            ("kept for ten (10) years", "10) years"),
            ("a budget of EUR 4.5 Mio", "a budget of EUR 4.5"),
            ("raised $3bn", "raised $3"),
        ] {
            assert!(!verbatim_part(q, bad), "{bad}");
        }
        assert!(verbatim_part(
            "a fee of EUR 4.000,50 a month",
            "a fee of EUR 4.000,50"
        ));
    }
}
