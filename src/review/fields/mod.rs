//! Typed field values read from verified quotes, each with its exact byte span inside the
//! quote. A value belongs to a field only when a cue of that field introduces it: the
//! nearest cue before it in the same sentence (or right after it, as in "a 30-year
//! crediting period"), or the label it sits under (a form prompt, a column header) when
//! the quote itself names no field. Cues of the other fields and of things that are not
//! the field ("signed on", "buffer zone", "uncertainty") compete, so a value goes to the
//! nearest one or to none. Better missing than wrong: a threshold ("leakage of >10%"), a
//! generic name ("The Project"), a bare year as an identifier and an ambiguous date are
//! rejected with a reason, never taken.
//!
//! [`values`] finds typed candidates; [`names`] reads and compares names.

use serde::{Deserialize, Serialize};

pub use crate::value::names;
pub use crate::value::parse as values;
pub use crate::value::{Agreement, DateOrder, RejectReason, Severity, Value};

mod cues;

pub use cues::{catalogue, FieldRule};
pub(crate) use cues::{event_words, names_cue, names_word, sentence_around};
pub use values::infer_order;

/// The type of a field's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FieldType {
    /// A calendar date (ISO 8601 in output).
    Date,
    /// A period, in years.
    Duration,
    /// A percentage (20 for 20 %).
    Percentage,
    /// An area, in hectares.
    Area,
    /// A person or organisation, as written.
    Name,
    /// `ownership`, `lease` or `other`.
    Tenure,
    /// An identifier, as written.
    Identifier,
}

impl FieldType {
    /// The name, as checklists spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            FieldType::Date => "date",
            FieldType::Duration => "duration",
            FieldType::Percentage => "percentage",
            FieldType::Area => "area",
            FieldType::Name => "name",
            FieldType::Tenure => "tenure",
            FieldType::Identifier => "identifier",
        }
    }

    /// The type a checklist names (`date`, `duration`/`years`, `percentage`/`percent`,
    /// `area`, `name`/`person`/`organisation`, `tenure`, `identifier`/`id`).
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s.trim().to_ascii_lowercase().as_str() {
            "date" => FieldType::Date,
            "duration" | "years" | "period" => FieldType::Duration,
            "percentage" | "percent" => FieldType::Percentage,
            "area" => FieldType::Area,
            "name" | "person" | "organisation" | "organization" => FieldType::Name,
            "tenure" => FieldType::Tenure,
            "identifier" | "id" => FieldType::Identifier,
            _ => return None,
        })
    }

    pub(crate) fn numeric(self) -> bool {
        matches!(
            self,
            FieldType::Duration | FieldType::Percentage | FieldType::Area
        )
    }
}

/// Which date of a range a field takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Position {
    /// Any date its cue introduces.
    Any,
    /// The start of a range ("from …", the first of two).
    RangeStart,
    /// The end of a range ("to …", "until …", the second of two).
    RangeEnd,
}

/// A field to extract: name, type, the phrases that introduce it.
#[derive(Debug, Clone)]
pub struct FieldSpec {
    /// Field name (`project_start_date`).
    pub name: String,
    /// Value type.
    pub ty: FieldType,
    /// Lower-case phrases that introduce a value of this field.
    pub cues: Vec<String>,
    /// Which date of a range, for range fields.
    pub position: Position,
    /// A pattern identifiers must match (from the checklist).
    pub pattern: Option<regex::Regex>,
    /// Unit declared by the checklist.
    pub unit: Option<String>,
    /// The value is a rule the documents set (a deadline, a retention period), so "must",
    /// "no later than" and "within" state it rather than make it a limit.
    pub rule: bool,
    /// For rule fields: only extensions of a deadline ("may extend the time … by no more
    /// than 30 days"), only the deadline itself, or either (`None`).
    pub extension: Option<bool>,
    /// For rule fields: words of what the requirement is about ("audit logs"); the
    /// value's sentence must name one of them. Empty: no such test.
    pub subject: Vec<String>,
    /// For rule fields: what the requirement's period is counted from ("after the end of
    /// each calendar year" → end, calendar, year); a value counted from something else
    /// ("after discovery of a breach") is another rule. Empty: no such test.
    pub event: Vec<String>,
    /// Codes a declared field's name starts with that name its document, not the value
    /// (`w4` of `w4_omb_number`, `faa` of `faa_docket_number`): a value counts only from
    /// a document whose title names each of them.
    pub documents: Vec<String>,
    /// For a deadline date: the act it is set for, as the requirement words it ("the date
    /// by which the FAA must receive comments" → receive, comments). A date no cue
    /// introduces is the field's when its sentence names these words before it and "by",
    /// "before" or "no later than" sets it.
    pub act: Vec<String>,
}

impl FieldSpec {
    /// The unit a duration is read in: days when the checklist declares days or the name
    /// ends in `_days`, else years.
    pub fn duration_unit(&self) -> values::DurationUnit {
        let days = self
            .unit
            .as_deref()
            .is_some_and(|u| matches!(u.trim().to_ascii_lowercase().as_str(), "day" | "days"))
            || self.name.ends_with("_days");
        if days {
            values::DurationUnit::Days
        } else {
            values::DurationUnit::Years
        }
    }
}

/// A value taken, with its span inside the quote.
#[derive(Debug, Clone)]
pub struct Extracted {
    /// Byte offset in the quote.
    pub start: usize,
    /// End byte offset (exclusive).
    pub end: usize,
    /// The quote's bytes at `[start, end)`.
    pub raw: String,
    /// The typed value.
    pub value: Value,
    /// Unit as written.
    pub unit: Option<String>,
}

/// A candidate not taken.
#[derive(Debug, Clone)]
pub struct Rejection {
    /// Byte offset in the quote.
    pub start: usize,
    /// End byte offset (exclusive).
    pub end: usize,
    /// The quote's bytes at `[start, end)`.
    pub raw: String,
    /// Why.
    pub reason: RejectReason,
    /// Explanation.
    pub note: String,
}

/// What one quote yields for one field.
#[derive(Debug, Clone, Default)]
pub struct Extraction {
    /// Values taken.
    pub found: Vec<Extracted>,
    /// Candidates not taken.
    pub rejected: Vec<Rejection>,
}

impl Extraction {
    fn take(&mut self, quote: &str, c: values::Candidate) {
        let raw = quote[c.start..c.end].to_string();
        match c.value {
            Ok(value) => {
                if !self
                    .found
                    .iter()
                    .any(|f| f.start == c.start && f.end == c.end)
                {
                    self.found.push(Extracted {
                        start: c.start,
                        end: c.end,
                        raw,
                        value,
                        unit: c.unit,
                    });
                }
            }
            Err((reason, note)) => {
                if !self
                    .rejected
                    .iter()
                    .any(|r| r.start == c.start && r.reason == reason)
                {
                    self.rejected.push(Rejection {
                        start: c.start,
                        end: c.end,
                        raw,
                        reason,
                        note,
                    });
                }
            }
        }
    }
}

/// The values of field `spec` that `quote` states. `context` is the label the quote sits
/// under (form prompt, column headers), consulted when the quote names no field itself.
pub fn extract(
    spec: &FieldSpec,
    quote: &str,
    context: Option<&str>,
    order: Option<DateOrder>,
) -> Extraction {
    let mut x = Extraction::default();
    let lower = quote.to_ascii_lowercase();
    let markers = cues::markers(spec, &lower);
    match spec.ty {
        FieldType::Name => cues::names(spec, quote, &markers, context, &mut x),
        FieldType::Identifier => cues::identifiers(spec, quote, &markers, context, &mut x),
        FieldType::Tenure => cues::tenure(spec, quote, &markers, context, &mut x),
        ty => {
            let cands = match ty {
                FieldType::Date => values::dates(quote, order),
                FieldType::Duration => values::durations_in(quote, spec.duration_unit()),
                FieldType::Percentage => values::percentages(quote),
                _ => values::areas(quote),
            };
            cues::owned(spec, quote, &markers, context, cands, &mut x);
        }
    }
    x
}

/// `raw` read whole as a value of `spec` (a generator's proposal): the value and its unit,
/// or why it is not one. The same readers and rules as [`extract`], without the cues.
pub fn parse(
    spec: &FieldSpec,
    raw: &str,
    order: Option<DateOrder>,
) -> Result<(Value, Option<String>), (RejectReason, String)> {
    let raw = raw.trim();
    let not = || {
        (
            RejectReason::NotAValue,
            format!("\"{raw}\" is not a {} as a whole", spec.ty.as_str()),
        )
    };
    let whole = |cands: Vec<values::Candidate>| {
        let c = cands
            .into_iter()
            .find(|c| c.start == 0 && c.end == raw.len())
            .ok_or_else(not)?;
        c.value.map(|v| (v, c.unit))
    };
    match spec.ty {
        FieldType::Date => whole(values::dates(raw, order)),
        FieldType::Duration => whole(values::durations_in(raw, spec.duration_unit())),
        FieldType::Percentage => whole(values::percentages(raw)),
        FieldType::Area => whole(values::areas(raw)),
        FieldType::Name => match names::name_at(raw) {
            Some((0, e)) if e == raw.len() => match names::not_a_name(raw) {
                Some(why) => Err(why),
                None => Ok((Value::Text(raw.to_string()), None)),
            },
            _ => Err(not()),
        },
        FieldType::Identifier => {
            let c = values::identifier_at(raw, 0)
                .filter(|c| c.end == raw.len())
                .ok_or_else(not)?;
            let v = c.value?;
            match (&v, &spec.pattern) {
                (Value::Text(t), Some(p)) if !p.is_match(t) => Err((
                    RejectReason::PatternMismatch,
                    format!("does not match the pattern {}", p.as_str()),
                )),
                _ => Ok((v, None)),
            }
        }
        FieldType::Tenure => cues::tenure_class(raw)
            .map(|c| (Value::Text(c.into()), None))
            .ok_or_else(not),
    }
}

/// Tolerances of cross-document comparisons.
#[derive(Debug, Clone, Copy)]
pub struct Tolerance {
    /// Relative tolerance of numbers (0.05 = 5 %).
    pub relative: f64,
    /// Days two dates may differ.
    pub days: i64,
}

impl Default for Tolerance {
    fn default() -> Self {
        Tolerance {
            relative: 0.05,
            days: 0,
        }
    }
}

/// Compare two values of type `ty` within `tol`, with a note saying what was compared.
pub fn compare(ty: FieldType, a: &Value, b: &Value, tol: &Tolerance) -> (Agreement, String) {
    let differ = |note: String| (Agreement::Disagree(Severity::Error), note);
    match (a, b) {
        (Value::Date { .. }, Value::Date { .. }) => {
            let d = (a.days().unwrap_or(0) - b.days().unwrap_or(0)).abs();
            if d <= tol.days {
                (
                    Agreement::Agree,
                    format!("{d} day(s) apart, within {} day(s)", tol.days),
                )
            } else {
                differ(format!("{d} day(s) apart"))
            }
        }
        (Value::Number(x), Value::Number(y)) => {
            let rel = (x - y).abs() / x.abs().max(y.abs()).max(f64::MIN_POSITIVE);
            let pct = (rel * 1000.0).round() / 10.0;
            // Areas compare within the relative tolerance (units were converted); years and
            // percentages as stated must be equal (20 and 21 years differ).
            let within = if ty == FieldType::Area {
                rel <= tol.relative
            } else {
                (x - y).abs() < 1e-9
            };
            if within || x == y {
                (
                    Agreement::Agree,
                    if x == y {
                        "equal".to_string()
                    } else {
                        format!("{pct}% apart, within {}%", tol.relative * 100.0)
                    },
                )
            } else {
                differ(if ty == FieldType::Area {
                    format!("{pct}% apart, beyond {}%", tol.relative * 100.0)
                } else {
                    format!("{x} and {y} differ")
                })
            }
        }
        (Value::Text(x), Value::Text(y)) if ty == FieldType::Name => names::compare(x, y),
        (Value::Text(x), Value::Text(y)) if ty == FieldType::Identifier => {
            if normalise_identifier(x) == normalise_identifier(y) {
                (
                    Agreement::Agree,
                    "the same identifier after normalisation".into(),
                )
            } else {
                differ(format!("\"{x}\" and \"{y}\" are different identifiers"))
            }
        }
        (Value::Text(x), Value::Text(y)) if x.eq_ignore_ascii_case(y) => {
            (Agreement::Agree, "equal".into())
        }
        _ => differ(format!("{a:?} and {b:?} differ")),
    }
}

/// A name for comparison (case, punctuation and honorifics removed).
pub fn normalise_name(s: &str) -> String {
    names::normalise(s)
}

/// An identifier for comparison: letters and digits only, upper-case.
pub fn normalise_identifier(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_uppercase)
        .collect()
}

#[cfg(test)]
mod tests;
