//! Numbers and figures read as values, for every check that compares what two texts state.
//!
//! * A **number** is a run of digits with its thousands separators (`4,890`; `35 000 000`
//!   when every group after the first has three digits), its decimal part (`12.5`), a
//!   currency before it (`$`, `€`, `£`, `EUR`, `USD`, …), a scale word after it (`$5
//!   million`), or a run of number words (`seventy`, `twenty-five`, `one hundred and
//!   ten`). Digits glued to letters (`FY2023`, `E2`, `10m2`) are not numbers. Text is
//!   read after NFKC normalisation, so full-width digits (`２０２３`) are digits.
//!   Superscripts and subscripts as HTML is stored (`10^25`, `CO_2`) never fuse: `10^n`
//!   is read as a power of ten (n ≤ 30), any other power, exponent or index is no number;
//!   a footnote marker glued after a sentence-final period (`President.2 The`) is none.
//! * A **figure** is a number with its unit (`30 days` → `30 day`, `12.5%` → `12.5
//!   percent`, `$5,000` → `5000 dollar`, `seven (7) years` → `7 year`), and its
//!   [`Bound`]: `not less than`, `at least`, `minimum` make a minimum; `up to`, `not more
//!   than`, `maximum`, `within` a maximum.
//! * [`verbatim_part`]: a piece of a quote is verbatim only when it starts and ends on
//!   word boundaries and never inside a number (`$5` is not a part of `$5,000`, nor `5%`
//!   of `12.5%`, nor `1` of `10 years`).

use std::borrow::Cow;
use std::collections::BTreeSet;

use unicode_normalization::UnicodeNormalization;

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

/// A number in a text: its byte span (in the normalised text) and its value.
#[derive(Debug, Clone, PartialEq)]
pub struct Number {
    /// Start of the number (its currency sign or word included).
    pub start: usize,
    /// End of the number (its scale word and percent sign included).
    pub end: usize,
    /// The value in canonical decimal form (`5000`, `12.5`).
    pub value: String,
    /// A unit the number carries itself: a currency or `percent`.
    pub unit: Option<&'static str>,
    /// Whether it was written in words.
    pub words: bool,
}

/// A figure: a number with its unit and bound.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    /// Start of its number in the normalised text.
    pub start: usize,
    /// End of its unit.
    pub end: usize,
    /// The value (`7`, `12.5`).
    pub value: String,
    /// The unit, singular (`year`, `percent`, `dollar`).
    pub unit: String,
    /// Floor, ceiling or plain.
    pub bound: Bound,
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

const ONES: &[&str] = &[
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
];
const TENS: &[&str] = &[
    "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
];

/// The value of one number word (`seven` → 7, `ninety` → 90), scales aside.
pub fn word_value(w: &str) -> Option<u64> {
    if let Some(i) = ONES.iter().position(|x| *x == w) {
        return Some(i as u64);
    }
    TENS.iter()
        .position(|x| *x == w)
        .map(|i| (i as u64 + 2) * 10)
}

fn scale_value(w: &str) -> Option<u32> {
    match w {
        "hundred" => Some(2),
        "thousand" => Some(3),
        "million" => Some(6),
        "billion" => Some(9),
        "trillion" => Some(12),
        _ => None,
    }
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

/// Tokens: runs of alphanumerics, and every other non-space character alone.
fn tokens(text: &str) -> Vec<Tok> {
    let mut out: Vec<Tok> = Vec::new();
    let mut run: Option<usize> = None;
    for (i, c) in text.char_indices() {
        if c.is_alphanumeric() {
            run.get_or_insert(i);
            continue;
        }
        if let Some(s) = run.take() {
            out.push(Tok {
                start: s,
                end: i,
                text: text[s..i].to_lowercase(),
            });
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
        out.push(Tok {
            start: s,
            end: text.len(),
            text: text[s..].to_lowercase(),
        });
    }
    out
}

fn digits(t: &Tok) -> bool {
    !t.text.is_empty() && t.text.bytes().all(|b| b.is_ascii_digit())
}

/// Two tokens touch (no space between them).
fn touch(a: &Tok, b: &Tok) -> bool {
    a.end == b.start
}

/// The numeric part starting at token `i` (digits): the end token index (exclusive) and
/// the digits with a decimal point.
fn digit_number(t: &[Tok], i: usize, text: &str) -> (usize, String) {
    let mut int = t[i].text.clone();
    let mut j = i + 1;
    let mut spaced = int.len() <= 3;
    let mut comma = false;
    loop {
        let sep = t.get(j).map(|x| x.text.as_str());
        let next = t.get(j + 1);
        let three = next.is_some_and(|n| digits(n) && n.text.len() == 3);
        if sep == Some(",") && three {
            // `4,890`: a comma between digit groups, touching both.
            if touch(&t[j - 1], &t[j]) && touch(&t[j], &t[j + 1]) {
                int.push_str(&t[j + 1].text);
                comma = true;
                spaced = false;
                j += 2;
                continue;
            }
        }
        if spaced && !comma {
            // `35 000 000`: groups of three separated by a (narrow) space.
            if let Some(n) = t.get(j) {
                let gap = &text[t[j - 1].end..n.start];
                if digits(n)
                    && n.text.len() == 3
                    && !gap.is_empty()
                    && gap
                        .chars()
                        .all(|c| c == ' ' || c == '\u{a0}' || c == '\u{202f}')
                    && gap.chars().count() == 1
                {
                    int.push_str(&n.text);
                    j += 1;
                    continue;
                }
            }
        }
        break;
    }
    let mut value = int;
    if t.get(j).is_some_and(|x| x.text == ".")
        && t.get(j + 1).is_some_and(digits)
        && touch(&t[j - 1], &t[j])
        && touch(&t[j], &t[j + 1])
    {
        value.push('.');
        value.push_str(&t[j + 1].text);
        j += 2;
    }
    (j, value)
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

/// Whether the digits at token `i` are a superscript or subscript as the HTML renderer
/// writes them (`10^25`, `CO_2`): an exponent or index, not a number of their own.
fn scripted(t: &[Tok], i: usize) -> bool {
    i > 0 && matches!(t[i - 1].text.as_str(), "^" | "_") && touch(&t[i - 1], &t[i])
}

/// Words a period shortens before a reference number (`No.2`, `Art.5`, `Sec.3`).
pub const NUMBERING_ABBREVIATIONS: &[&str] = &[
    "no", "nos", "art", "arts", "sec", "sect", "secs", "para", "paras", "fig", "figs", "vol",
    "reg", "regs", "sch", "pt", "ch", "cl", "op", "pp", "rev", "ver", "tab", "app", "ann",
];

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
        && !NUMBERING_ABBREVIATIONS.contains(&word.text.as_str());
    if dot.text != "." || !touch(word, dot) || !touch(dot, &t[i]) || !wordy {
        return false;
    }
    let rest = &text[t[i].end..];
    let next = rest.trim_start();
    rest.is_empty()
        || (next.len() < rest.len() && next.chars().next().is_some_and(char::is_uppercase))
}

/// The numbers of `text` (already normalised: see [`normalise`]).
pub fn numbers(text: &str) -> Vec<Number> {
    let t = tokens(text);
    let mut out = Vec::new();
    let mut i = 0;
    while i < t.len() {
        if let Some((n, next)) = number_at(&t, i, text) {
            out.push(n);
            i = next;
        } else {
            i += 1;
        }
    }
    out
}

/// The number that starts at token `i`, and the token after it.
fn number_at(t: &[Tok], i: usize, text: &str) -> Option<(Number, usize)> {
    let tok = &t[i];
    let glued_before =
        i > 0 && touch(&t[i - 1], tok) && t[i - 1].text.chars().all(char::is_alphanumeric);
    let (mut end, value, words) = if digits(tok) {
        if glued_before || scripted(t, i) || footnote_marker(t, i, text) {
            return None;
        }
        let (mut end, mut value) = digit_number(t, i, text);
        // Digits glued to letters (`10m2`, `2023q1`) or a subscript (`10_2`) are an
        // identifier, not a number.
        if t.get(end).is_some_and(|n| {
            touch(&t[end - 1], n)
                && (n.text == "_" || n.text.chars().next().is_some_and(char::is_alphabetic))
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
                .filter(|e| *e <= 30 && value == "10")?;
            value = scaled("1", exp);
            end += 2;
        }
        (end, value, false)
    } else {
        let (end, v) = word_number(t, i)?;
        (end, v.to_string(), true)
    };
    let mut start = tok.start;
    let mut unit = None;
    // Currency before: `$5`, `EUR 35 000 000`, `US$ 10`.
    if i > 0 {
        if let Some(c) = currency(&t[i - 1].text) {
            unit = Some(c);
            start = t[i - 1].start;
        }
    }
    let mut value = canonical(&value);
    if let Some(e) = t
        .get(end)
        .and_then(|n| scale_value(&n.text))
        .filter(|e| *e >= 3)
    {
        value = scaled(&value, e);
        end += 1;
    }
    if t.get(end).is_some_and(|n| n.text == "%") {
        unit = Some("percent");
        end += 1;
    }
    Some((
        Number {
            start,
            end: t[end - 1].end,
            value,
            unit,
            words,
        },
        end,
    ))
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
    const MIN: &[&str] = &[
        "not less than",
        "no less than",
        "not fewer than",
        "no fewer than",
        "at least",
        "minimum",
        "min",
        "no earlier than",
        "not earlier than",
        "more than",
        "greater than",
        "in excess of",
    ];
    const MAX: &[&str] = &[
        "not more than",
        "no more than",
        "not to exceed",
        "not exceeding",
        "up to",
        "at most",
        "maximum",
        "max",
        "within",
        "no later than",
        "not later than",
        "less than",
        "fewer than",
    ];
    // The phrase ending last wins; of two ending together the longer ("not more than"
    // over "more than").
    let ends = |list: &[&str]| {
        list.iter()
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

/// The figures of `text` (normalised first), in order of appearance.
pub fn figures_of(text: &str) -> Vec<Figure> {
    let text = normalise(text);
    let t = tokens(&text);
    let nums = numbers(&text);
    let mut out = Vec::new();
    for (k, n) in nums.iter().enumerate() {
        // `seven (7) years`: the digits restate the words; the figure is read once.
        if n.words
            && nums
                .get(k + 1)
                .is_some_and(|m| m.value == n.value && text[n.end..m.start].trim() == "(")
        {
            continue;
        }
        let unit = n.unit.map(str::to_string).or_else(|| unit_after(&t, n.end));
        let Some(unit) = unit else { continue };
        let end = n.end;
        out.push(Figure {
            start: n.start,
            end,
            value: n.value.clone(),
            unit,
            bound: bound_of(&text, n.start, n.end),
        });
    }
    out
}

/// The unit after a number ending at byte `end`: through fillers and a restating `(7)`.
fn unit_after(t: &[Tok], end: usize) -> Option<String> {
    let mut j = t.iter().position(|x| x.start >= end)?;
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
    figures_of(text)
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
    scale_value(&word).is_some_and(|e| e >= 3) || matches!(word.as_str(), "bn" | "m" | "k")
}

/// Whether `piece` occurs in `quote` starting and ending on word boundaries, never inside
/// a number (see the module docs).
pub fn verbatim_part(quote: &str, piece: &str) -> bool {
    if piece.is_empty() {
        return false;
    }
    quote.match_indices(piece).any(|(s, _)| {
        let e = s + piece.len();
        !cuts(quote, s) && !cuts(quote, e) && !drops_qualifier(quote, e)
    })
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
    }
}
