//! Reading a side from its text: the figure as the document writes it, and whether the
//! text states the value as current or former.
//!
//! **Former.** The nearest time marker before the figure in its own clause decides (or,
//! with none there, a marker opening the sentence: "Until 31 March 2019, …"; or, with
//! none before it, one after it in its clause: "… $10,000 until 2019"):
//! "previously", "formerly", "former", "originally", "used to", "no longer" mark a former
//! value; "until", "till", "before", "prior to" followed by a day mark a value in force
//! until that day (a year alone: its last day); "now", "currently", "presently", "today",
//! "since", "from", "effective", "as of" mark a current one. "Until" without a day
//! ("until the client turns 25") marks nothing.

use super::{bound_in, Date, Side, SourceType, Tense};
use crate::figure::Figure;
use crate::lexicon::{self, Class};

impl Side {
    /// The side item `id` of `source` states by figure `f` of `text` (normalised): its
    /// value, its bound (a period of keeping read as a floor), the figure as written and
    /// its tense; catalog facts are left at their defaults for the caller to fill in.
    /// `None` when the value is not a number.
    pub fn read(id: &str, source: &str, binding: bool, text: &str, f: &Figure) -> Option<Side> {
        Some(Side {
            id: id.to_string(),
            source: source.to_string(),
            source_type: SourceType::Other,
            authority: 0,
            effective_from: None,
            superseded_by: None,
            binding,
            value: f.value.parse().ok()?,
            unit: f.unit.clone(),
            bound: bound_in(text, f.start, f.end, &f.unit),
            raw: written(text, f),
            tense: tense_at(text, f.start, f.end),
        })
    }
}

/// Words looked through after a figure's number for its unit word.
const UNIT_LOOKAHEAD: usize = 4;

/// Figure `f` as `text` writes it: from its number (or the number in words that a
/// restating `(10)` follows: `ten (10) years`) to the end of its unit word. Empty when
/// `f` is not a figure of `text`.
pub fn written(text: &str, f: &Figure) -> String {
    written_span(text, f).map_or_else(String::new, |(s, e)| text[s..e].to_string())
}

/// The byte span of [`written`] in `text`.
pub fn written_span(text: &str, f: &Figure) -> Option<(usize, usize)> {
    text.get(f.start..f.end)?;
    let before = text[..f.start].trim_end();
    let start = before
        .strip_suffix('(')
        .and_then(|head| {
            crate::figure::numbers(text)
                .into_iter()
                .filter(|n| n.words && n.value == f.value && n.end <= head.len())
                .find(|n| text[n.end..head.len()].trim().is_empty())
                .map(|n| n.start)
        })
        .unwrap_or(f.start);
    if text[f.start..f.end].contains(['$', '€', '£', '%']) {
        return Some((start, f.end)); // the number carries its unit
    }
    let stem: String = f.unit.chars().take(4).collect();
    let mut at = f.end;
    for w in text[f.end..]
        .split_inclusive(|c: char| !c.is_alphanumeric())
        .take(UNIT_LOOKAHEAD * 2)
    {
        let word = w.trim_end_matches(|c: char| !c.is_alphanumeric());
        if !word.is_empty() && word.to_lowercase().starts_with(&stem) {
            return Some((start, at + word.len()));
        }
        at += w.len();
    }
    Some((start, f.end))
}

/// Where a time marker stands and what it says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Marker {
    Current,
    Former,
    Until(Date),
}

/// The markers of `text` in order: (byte offset, marker).
fn markers(text: &str) -> Vec<(usize, Marker)> {
    let lower = text.to_ascii_lowercase();
    let words: Vec<(usize, &str)> = word_spans(&lower);
    let mut out = Vec::new();
    for (k, &(at, w)) in words.iter().enumerate() {
        let next = words.get(k + 1).map(|x| x.1);
        let after = |n: usize| words.get(k + n).map_or(lower.len(), |x| x.0);
        let m = match w {
            _ if lexicon::is(Class::Former, w) => Some(Marker::Former),
            "used" | "no" if matches!((w, next), ("used", Some("to")) | ("no", Some("longer"))) => {
                Some(Marker::Former)
            }
            _ if lexicon::is(Class::Until, w) => day_at(&text[after(1)..]).map(Marker::Until),
            "prior" if next == Some("to") => day_at(&text[after(2)..]).map(Marker::Until),
            "as" if matches!(next, Some("of" | "from")) => Some(Marker::Current),
            _ if lexicon::is(Class::Current, w) => Some(Marker::Current),
            _ => None,
        };
        if let Some(m) = m {
            out.push((at, m));
        }
    }
    out
}

/// Words of an ASCII-lowered text with their offsets.
fn word_spans(lower: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in lower
        .char_indices()
        .chain(std::iter::once((lower.len(), ' ')))
    {
        match (c.is_alphanumeric(), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push((s, &lower[s..i]));
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// The day `rest` starts with: a date in any written form, a month and year (its first
/// day), or a year alone (its last day). A numeric date whose day and month could be read
/// either way is not read: a ruling's span is never guessed.
fn day_at(rest: &str) -> Option<Date> {
    let rest = rest.trim_start();
    if let Some(d) = crate::source::date_at_start(rest, None) {
        return Some(d);
    }
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let year_alone = digits.len() == 4
        && !rest[4..]
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric());
    year_alone
        .then(|| Date::new(digits.parse().ok()?, 12, 31))
        .flatten()
}

/// Whether byte `i` of `text` cuts a clause: `;`, `:`, a comma not inside a number nor
/// before a year ("April 1, 2019"), or a word joining two statements.
fn cuts(text: &str, i: usize) -> bool {
    let b = text.as_bytes();
    let digit = |k: usize| b.get(k).is_some_and(u8::is_ascii_digit);
    match b[i] {
        b';' | b':' => true,
        b',' => {
            !(i > 0
                && digit(i - 1)
                && (digit(i + 1) || (b.get(i + 1) == Some(&b' ') && digit(i + 2))))
        }
        _ => [" and ", " but ", " while ", " whereas "]
            .iter()
            .any(|w| b[i..].starts_with(w.as_bytes())),
    }
}

/// The sentence of `text` around bytes `start..end`: (its start, its end).
fn sentence_around(text: &str, start: usize, end: usize) -> (usize, usize) {
    let is_end =
        |w: &[u8]| matches!(w[0], b'.' | b'!' | b'?' | b'\n') && w[1].is_ascii_whitespace();
    let b = text.as_bytes();
    let s = (1..start.min(b.len()))
        .rev()
        .find(|&i| is_end(&b[i - 1..=i]))
        .map_or(0, |i| i + 1);
    let e = (end..b.len().saturating_sub(1))
        .find(|&i| is_end(&b[i..=i + 1]))
        .unwrap_or(b.len());
    (s, e)
}

/// Whether the figure at `start..end` of `text` is stated as current or former (see the
/// module doc).
pub fn tense_at(text: &str, start: usize, end: usize) -> Tense {
    let (s, e) = sentence_around(text, start, end);
    let ok = |i: usize| text.is_char_boundary(i) && cuts(text, i);
    let clause_start = (s..start).rev().find(|&i| ok(i)).map_or(s, |i| i + 1);
    let clause_end = (end..e).find(|&i| ok(i)).unwrap_or(e);
    let before = markers(&text[clause_start..start]);
    let head = &text[s..clause_start];
    let first_word = head.len() - head.trim_start().len();
    let opening = markers(head)
        .into_iter()
        .filter(|(at, _)| *at == first_word)
        .collect::<Vec<_>>();
    let after = markers(&text[end..clause_end])
        .into_iter()
        .filter(|(_, m)| *m != Marker::Current)
        .collect::<Vec<_>>();
    let chosen = before
        .last()
        .or(opening.first())
        .or(after.first())
        .map(|x| x.1);
    match chosen {
        Some(Marker::Former) => Tense::Former,
        Some(Marker::Until(d)) => Tense::Until(d),
        Some(Marker::Current) | None => Tense::Current,
    }
}

/// The day of the run (UTC).
pub fn today() -> Date {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    civil_from_days(i64::try_from(secs / 86_400).unwrap_or(0))
}

/// The calendar day `z` days after 1970-01-01 (H. Hinnant's civil-from-days).
fn civil_from_days(z: i64) -> Date {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    Date {
        year: i32::try_from(year).unwrap_or(i32::MAX),
        month: u32::try_from(month).unwrap_or(1),
        day: u32::try_from(day).unwrap_or(1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figure::figures_of;

    fn first(text: &str, value: &str) -> Figure {
        figures_of(text)
            .into_iter()
            .find(|f| f.value == value)
            .unwrap_or_else(|| panic!("no {value} in {text}"))
    }

    fn tense(text: &str, value: &str) -> Tense {
        let f = first(text, value);
        tense_at(text, f.start, f.end)
    }

    #[test]
    fn a_figure_is_shown_as_the_document_writes_it() {
        let w = |t: &str, v: &str| written(t, &first(t, v));
        assert_eq!(w("kept for seven years after", "7"), "seven years");
        assert_eq!(w("not less than ten (10) years.", "10"), "ten (10) years");
        assert_eq!(w("a fine of $5,000 per day", "5000"), "$5,000");
        assert_eq!(w("within 30 calendar days", "30"), "30 calendar days");
        assert_eq!(w("at 12.5% a year", "12.5"), "12.5%");
    }

    #[test]
    fn a_value_stated_as_past_is_former_and_a_current_one_is_not() {
        let day = |s: &str| s.parse::<Date>().unwrap();
        for t in [
            "The programme previously offered grants of up to $10,000.",
            "Formerly, members paid 40 dollars a year.",
            "Until 31 March 2019, records were kept for 5 years; they are now kept for 8 years.",
            "Grants of up to $10,000 were offered until 2018.",
            "Prior to January 1, 2020, the fee was 30 dollars.",
        ] {
            let v = figures_of(t).first().unwrap().value.clone();
            assert!(tense(t, &v).former_on(day("2024-06-01")), "{t}");
        }
        let mixed = "Grants previously capped at $10,000 are now up to $25,000.";
        assert_eq!(tense(mixed, "10000"), Tense::Former);
        assert_eq!(tense(mixed, "25000"), Tense::Current);
        let split =
            "Until 31 March 2019, records were kept for 5 years; they are now kept for 8 years.";
        assert_eq!(tense(split, "8"), Tense::Current);
        for t in [
            "Records must be kept for seven years or until the client turns 25.",
            "The programme offers grants of up to $25,000.",
            "Effective April 1, 2019, all client records must be retained for 10 years.",
        ] {
            let v = figures_of(t).first().unwrap().value.clone();
            assert!(!tense(t, &v).former_on(day("2024-06-01")), "{t}");
        }
        // A day not yet past keeps the value current.
        let t = "Until 31 March 2030, the fee is 30 dollars.";
        assert!(!tense(t, "30").former_on(day("2024-06-01")));
        assert!(tense(t, "30").former_on(day("2031-01-01")));
    }

    #[test]
    fn days_since_the_epoch_are_calendar_days() {
        let d = |z| civil_from_days(z).to_string();
        assert_eq!(d(0), "1970-01-01");
        assert_eq!(d(19_783), "2024-03-01");
        assert_eq!(d(11_016), "2000-02-29");
    }
}
