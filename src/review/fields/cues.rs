//! Which field a value belongs to: the field catalogue with the phrases that introduce
//! each field, the phrases that introduce something else (distractors), and the rules
//! that give a candidate to the field of the nearest phrase.

use super::values::Candidate;
use super::{Extraction, FieldSpec, FieldType};

mod assign;
mod catalogue;
mod label;
mod limits;
mod naming;
mod position;
mod rules;
mod subject;
mod tenure;

pub use assign::FieldRule;
pub use catalogue::catalogue;
use catalogue::{distractors, RULE_DISTRACTORS};
use label::{by_label, label_spans};
pub use naming::{identifiers, names};
pub(crate) use rules::event_words;
use rules::ruled;
pub use tenure::{tenure, tenure_class};

/// Bytes between a cue and the value it introduces, at most.
const MAX_GAP: usize = 160;
/// Bytes between an area cue and its value, at most (areas of other things are common).
const MAX_AREA_GAP: usize = 70;
/// Bytes between a percentage and a cue after it, at most.
const MAX_TRAILING_SHARE_GAP: usize = 110;
/// Words of a value read under its label at most (a longer quote must name its field).
const MAX_LABELLED_WORDS: usize = 6;
/// Words of a sentence whose one uncued value is read under its label, at most.
const MAX_LABELLED_SENTENCE_WORDS: usize = 20;
/// Bytes between a value and a cue after it ("30-year crediting period"), at most.
const MAX_TRAILING_GAP: usize = 50;

/// One occurrence of a phrase in the quote and the fields it introduces (none: a
/// distractor).
#[derive(Debug, Clone)]
pub struct Marker {
    start: usize,
    end: usize,
    fields: Vec<String>,
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}

/// Whether lower-case `lower` holds cue `phrase` at word boundaries.
pub(crate) fn names_cue(lower: &str, phrase: &str) -> bool {
    !find(lower, phrase).is_empty()
}

/// Occurrences of `phrase` in `lower` at word boundaries.
fn find(lower: &str, phrase: &str) -> Vec<(usize, usize)> {
    let bytes = lower.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = lower[from..].find(phrase) {
        let s = from + i;
        let e = s + phrase.len();
        let before = s == 0 || !is_word(bytes[s - 1]);
        let first = phrase.as_bytes()[0];
        let after = e >= bytes.len()
            || !is_word(bytes[e])
            || !is_word(*phrase.as_bytes().last().unwrap_or(&b' '));
        if (before || !is_word(first)) && after {
            out.push((s, e));
        }
        from = s + phrase.len().max(1);
    }
    out
}

/// Every cue of `spec`, of the catalogue fields of its type and of the distractors of its
/// type in `lower`; a phrase inside a longer one found at the same place is dropped.
pub fn markers(spec: &FieldSpec, lower: &str) -> Vec<Marker> {
    let mut phrases: Vec<(String, Option<String>)> = Vec::new();
    let mut add = |p: &str, f: Option<&str>| phrases.push((p.to_string(), f.map(str::to_string)));
    for c in &spec.cues {
        add(c, Some(&spec.name));
    }
    let unit = spec.duration_unit();
    for f in catalogue().iter().filter(|f| {
        f.ty == spec.ty
            && f.name != spec.name
            && (f.ty != FieldType::Duration || f.duration_unit() == unit)
    }) {
        for c in &f.cues {
            add(c, Some(&f.name));
        }
    }
    let distract = if spec.rule {
        RULE_DISTRACTORS
    } else {
        distractors(spec.ty)
    };
    for d in distract {
        add(d, None);
    }
    let mut found: Vec<Marker> = Vec::new();
    for (p, field) in &phrases {
        for (s, e) in find(lower, p) {
            match found.iter_mut().find(|m| m.start == s && m.end == e) {
                Some(m) => m.fields.extend(field.clone()),
                None => found.push(Marker {
                    start: s,
                    end: e,
                    fields: field.iter().cloned().collect(),
                }),
            }
        }
    }
    let all = found.clone();
    found.retain(|m| {
        !all.iter()
            .any(|o| o.start <= m.start && o.end >= m.end && (o.end - o.start) > (m.end - m.start))
    });
    found.sort_by_key(|m| (m.start, m.end));
    found
}

/// Whether `gap` (text between a cue and a value) crosses a sentence or paragraph.
fn crosses(gap: &str) -> bool {
    let b = gap.as_bytes();
    gap.contains("\n\n")
        || b.windows(3).any(|w| {
            (w[0].is_ascii_alphanumeric() || matches!(w[0], b')' | b'%' | b'"'))
                && matches!(w[1], b'.' | b'!' | b'?')
                && w[2].is_ascii_whitespace()
        })
}

/// Words that open a clause of their own between a cue and a value ("leakage applies
/// because harvest falls by 38%"): the value then belongs to that clause.
const CLAUSE_WORDS: &[&str] = &[
    "because",
    "since",
    "while",
    "whereas",
    "although",
    "though",
    "if",
    "unless",
    "when",
    "compared",
    "relative",
    "after",
    "before",
    "which",
    "who",
    "originally",
    "previously",
    "formerly",
    "initially",
    "earlier",
    "planned",
    "postponed",
    "proposed",
    "superseded",
    "replaced",
    "revised",
    "amended",
    "cancelled",
    "canceled",
    "other",
    "another",
    "neighbouring",
    "neighboring",
    "adjacent",
];
/// Words between a cue and its value, at most.
const MAX_GAP_WORDS: usize = 12;

/// Whether `gap` (cue to value) holds a clause of its own or too many words.
fn subordinate(gap: &str) -> bool {
    let words: Vec<String> = gap
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_ascii_lowercase()
        })
        .collect();
    words.len() > MAX_GAP_WORDS || words.iter().any(|w| CLAUSE_WORDS.contains(&w.as_str()))
}

/// The marker that introduces `[s, e)`: the nearest one before it in the sentence, else
/// one right after it in the same clause.
fn introducer<'m>(
    quote: &str,
    markers: &'m [Marker],
    s: usize,
    e: usize,
    max_gap: usize,
) -> Option<&'m Marker> {
    // "the 25-year crediting period": a cue right after the value names it, whatever came
    // before.
    let adjacent = markers.iter().find(|m| {
        !m.fields.is_empty()
            && m.start >= e
            && m.start - e <= 1
            && quote[e..m.start]
                .chars()
                .all(|c| c.is_whitespace() && c != '\n')
    });
    if adjacent.is_some() {
        return adjacent;
    }
    // "15% of the verified credits are deposited in the buffer pool": a share is often
    // named before what it is a share of.
    let trailing = if quote[s..e].ends_with('%') || quote[s..e].ends_with("cent") {
        MAX_TRAILING_SHARE_GAP
    } else {
        MAX_TRAILING_GAP
    };
    let before = markers
        .iter()
        .filter(|m| m.end <= s && s - m.end <= max_gap && !crosses(&quote[m.end..s]))
        .filter(|m| !subordinate(&quote[m.end..s]))
        .max_by_key(|m| (m.end, m.end - m.start));
    if before.is_some() {
        return before;
    }
    markers
        .iter()
        .filter(|m| m.start >= e && m.start - e <= trailing)
        .filter(|m| !subordinate(&quote[e..m.start]))
        .filter(|m| {
            !crosses(&quote[e..m.start]) && !quote[e..m.start].contains([',', ';', '(', ')'])
        })
        .min_by_key(|m| m.start)
}

/// Keep the candidates the field's cues (or its label) introduce, as the rules of
/// [`assign::FieldRule::ALL`] decide; rule fields are read by their own rules.
pub fn owned(
    spec: &FieldSpec,
    quote: &str,
    markers: &[Marker],
    context: Option<&str>,
    cands: Vec<Candidate>,
    x: &mut Extraction,
) {
    if spec.rule {
        return ruled(spec, quote, markers, cands, x);
    }
    let gap = if spec.ty == FieldType::Area {
        MAX_AREA_GAP
    } else {
        MAX_GAP
    };
    let mut scene = assign::Scene {
        spec,
        quote,
        markers,
        context,
        orphans: 0,
    };
    for (mut c, verdict) in assign::verdicts(&mut scene, cands, gap) {
        match verdict {
            Some(assign::Verdict::Dropped(_)) => continue,
            Some(assign::Verdict::SetAside(_, reason, note)) => c.value = Err((reason, note)),
            None => {}
        }
        x.take(quote, c);
    }
}

/// Openings of a sentence that names what the sentence before it describes.
const NAMING: &[&str] = &[
    "this is called",
    "this is known as",
    "this is referred to as",
    "these are called",
    "this is termed",
];

/// Whether the sentence after the value's names it as the field ("… withhold and pay to
/// the IRS 24% of such payments. This is called “backup withholding.”"): it opens with a
/// naming phrase and a cue of `spec` follows, while the value's sentence holds no other
/// number.
fn named_next(spec: &FieldSpec, quote: &str, s: usize, e: usize) -> bool {
    let (from, to) = sentence_around(quote, s, e);
    let next = quote[to..]
        .trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '.' | '!' | '?' | ';'))
        .to_lowercase();
    let Some(rest) = NAMING.iter().find_map(|n| next.strip_prefix(n)) else {
        return false;
    };
    let rest =
        rest.trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '"' | '“' | '‘' | '\''));
    let alone = !quote[from..s]
        .chars()
        .chain(quote[e..to].chars())
        .any(|c| c.is_ascii_digit());
    alone && spec.cues.iter().any(|c| rest.starts_with(c.as_str()))
}

/// The sentence of the quote that holds `[s, e)`, as byte offsets: it ends at a full stop
/// (or `!`, `?`, `;`) before a space, or at a blank line.
pub(crate) fn sentence_around(quote: &str, s: usize, e: usize) -> (usize, usize) {
    let b = quote.as_bytes();
    let stop = |i: usize| {
        i + 1 < b.len()
            && (b[i].is_ascii_alphanumeric() || matches!(b[i], b')' | b'"'))
            && matches!(b[i + 1], b'.' | b'!' | b'?' | b';')
            && b.get(i + 2).is_none_or(|c| c.is_ascii_whitespace())
    };
    let blank = |i: usize| b[i] == b'\n' && b.get(i + 1) == Some(&b'\n');
    let from = (0..s.saturating_sub(1))
        .rev()
        .find(|&i| stop(i) || blank(i))
        .map_or(0, |i| i + 2);
    let to = (e..b.len())
        .find(|&i| stop(i) || blank(i))
        .map_or(b.len(), |i| if blank(i) { i } else { i + 1 });
    (from.min(s), to.max(e))
}

/// Whether `lower` holds `w` as a word, or (for a word of more than five letters) a word
/// that starts with its first five: "records" names "record", "activities" "activity".
pub(crate) fn names_word(lower: &str, w: &str) -> bool {
    let stem: String = w.chars().take(5).collect();
    let short = stem.len() == w.len();
    lower.split(|c: char| !c.is_alphanumeric()).any(|t| {
        if short {
            t == w || (t.starts_with(w) && t.len() <= w.len() + 1)
        } else {
            t.starts_with(&stem)
        }
    })
}

/// Bytes of connecting words after a cue, before the value: `:`, `is`, `are`, `by`,
/// `the`, `name`, `number`, `no.`, `#`, `-`, `|`, quotes and brackets.
fn connectors(rest: &str) -> usize {
    let mut at = 0;
    loop {
        let r = &rest[at..];
        let trimmed = r.trim_start_matches(|c: char| {
            c.is_whitespace() || matches!(c, ':' | '-' | '|' | '#' | '(' | '"' | '“' | '=' | '–')
        });
        at += r.len() - trimmed.len();
        let word_end = trimmed
            .find(|c: char| !c.is_ascii_alphabetic() && c != '.' && c != '\'')
            .unwrap_or(trimmed.len());
        let w = trimmed[..word_end].to_ascii_lowercase();
        let joiner = [
            "is",
            "are",
            "was",
            "were",
            "by",
            "name",
            "names",
            "number",
            "no.",
            "no",
            "nr.",
            "id",
            "as",
            "'s",
            "s",
            "being",
            "be",
            "listed",
            "recorded",
            "registered",
            "named",
            "called",
            "identified",
            "reads",
        ];
        if !w.is_empty() && joiner.contains(&w.as_str()) && word_end < trimmed.len() {
            at += word_end;
            continue;
        }
        return at;
    }
}

/// Where values of `spec` may start: after each of its cues (past connecting words when
/// `connect`), or, when the quote names no field, at each span its label introduces.
fn value_starts(
    spec: &FieldSpec,
    quote: &str,
    markers: &[Marker],
    context: Option<&str>,
    connect: bool,
) -> Vec<usize> {
    let mut starts: Vec<usize> = markers
        .iter()
        .filter(|m| m.fields.contains(&spec.name))
        .map(|m| {
            m.end
                + if connect {
                    connectors(&quote[m.end..])
                } else {
                    0
                }
        })
        .collect();
    if markers.is_empty() {
        starts.extend(
            label_spans(spec, quote, context)
                .into_iter()
                .map(|(s, _)| s),
        );
    }
    starts
}
