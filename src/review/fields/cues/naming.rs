//! Names and identifiers a cue introduces: right after it (past connecting words), after
//! a copula, before it in apposition, or under the quote's label.

use super::label::label_spans;
use super::{connectors, value_starts, Marker};
use crate::review::fields::values::{identifier_at, Candidate};
use crate::review::fields::{names, Extraction, FieldSpec, RejectReason, Value};

/// Names a cue introduces (right after it, or right before "(the Lessor)"), or the whole
/// quote when its label introduces the field.
pub fn names(
    spec: &FieldSpec,
    quote: &str,
    markers: &[Marker],
    context: Option<&str>,
    x: &mut Extraction,
) {
    let take = |s: usize, e: usize, x: &mut Extraction| {
        let raw = &quote[s..e];
        let value = match names::not_a_name(raw) {
            Some(why) => Err(why),
            None => Ok(Value::Text(raw.to_string())),
        };
        x.take(
            quote,
            Candidate {
                start: s,
                end: e,
                value,
                unit: None,
            },
        );
    };
    let mine: Vec<&Marker> = markers
        .iter()
        .filter(|m| m.fields.contains(&spec.name))
        .collect();
    for m in mine.iter().filter(|m| !former(quote, m.start)) {
        let possessive = quote[m.end..].starts_with(['\'', '’']);
        // A role and its holder in apposition: "Contracting Officer, Mark Junda".
        let comma = usize::from(quote[m.end..].starts_with(", "));
        let direct = (!possessive).then_some(m.end + comma);
        for at in [direct, copula_after(quote, m.end)].into_iter().flatten() {
            let at = at + connectors(&quote[at..]);
            if let Some((s, e)) = names::name_at(&quote[at..]) {
                take(at + s, at + e, x);
                break;
            }
        }
        if let Some((s, e)) = name_before(quote, m.start) {
            take(s, e, x);
        }
    }
    if markers.is_empty() {
        for (s, e) in label_spans(spec, quote, context) {
            if let Some((ns, ne)) = names::name_at(&quote[s..e]).filter(|(_, ne)| s + ne == e) {
                take(s + ns, s + ne, x);
            }
        }
    }
}

/// Whether the cue at `at` names a former holder ("previously owned by", "the former
/// landowner", "owned until 2018 by").
fn former(quote: &str, at: usize) -> bool {
    let lower = quote.to_ascii_lowercase();
    let before: Vec<&str> = lower[..at].split_whitespace().rev().take(3).collect();
    let after: Vec<&str> = lower[at..].split_whitespace().take(4).collect();
    let words = [
        "previously",
        "formerly",
        "former",
        "originally",
        "previous",
        "prior",
        "once",
        "until",
        "late",
        "deceased",
    ];
    before
        .iter()
        .chain(after.iter())
        .any(|w| words.contains(&w.trim_matches(|c: char| !c.is_alphanumeric())))
}

/// The end of the first ` is `, ` are `, ` was ` or `:` within a few words after `at`
/// in the same clause ("the owner of the parcel is …").
fn copula_after(quote: &str, at: usize) -> Option<usize> {
    let rest = &quote[at..];
    let mut end = rest
        .find(['.', ',', ';', '(', '\n'])
        .unwrap_or(rest.len())
        .min(60);
    while !rest.is_char_boundary(end) {
        end -= 1;
    }
    let clause = &rest[..end];
    let lower = clause.to_ascii_lowercase();
    [" is ", " are ", " was ", ": "]
        .iter()
        .filter_map(|c| lower.find(c).map(|i| i + c.len()))
        .min()
        .map(|i| at + i)
}

/// The name right before a cue in brackets or after a comma (`João Pereira ("the
/// Lessor")`, `Maria Santos, the landowner`): the capitalised run ending just before.
fn name_before(quote: &str, cue: usize) -> Option<(usize, usize)> {
    let lead = quote[..cue].trim_end_matches(|c: char| c.is_whitespace() || matches!(c, '"' | '“'));
    let lead = lead
        .strip_suffix("the")
        .or_else(|| lead.strip_suffix("The"))
        .unwrap_or(lead);
    let mut lead = lead.trim_end();
    for filler in [
        "referred to as",
        "hereinafter called",
        "hereinafter",
        "being",
        "as",
    ] {
        if let Some(l) = lead
            .strip_suffix(filler)
            .filter(|l| l.ends_with([' ', '(']))
        {
            lead = l.trim_end();
            break;
        }
    }
    let party = lead.strip_suffix('(').or_else(|| lead.strip_suffix(','))?;
    let lower = party.to_ascii_lowercase();
    let start = [" between ", " and ", " by ", "; ", ". ", ": "]
        .iter()
        .filter_map(|m| lower.rfind(m).map(|i| i + m.len()))
        .max()
        .unwrap_or(0);
    let (s, e) = names::name_at(&party[start..])?;
    Some((start + s, start + e))
}

/// Identifiers a cue introduces; with a pattern, only a token that matches it.
pub fn identifiers(
    spec: &FieldSpec,
    quote: &str,
    markers: &[Marker],
    context: Option<&str>,
    x: &mut Extraction,
) {
    let starts = value_starts(spec, quote, markers, context, true);
    for at in starts {
        let Some(mut c) = identifier_at(&quote[at..], at) else {
            continue;
        };
        if let (Ok(Value::Text(t)), Some(p)) = (&c.value, &spec.pattern) {
            if !p.is_match(t) {
                c.value = Err((
                    RejectReason::PatternMismatch,
                    format!("does not match the pattern {}", p.as_str()),
                ));
            }
        }
        x.take(quote, c);
    }
}
