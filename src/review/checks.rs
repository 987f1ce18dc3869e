//! Validation of one requirement's findings: structural checks (a crediting period's start
//! before its end, its length matching the stated years), comparisons of each field's
//! values across documents (every document's value listed with its evidence id), and the
//! status that follows. Nothing here re-reads a document: the values and their spans come
//! from the evidence items.

use serde::Serialize;

use crate::answer::EvidenceItem;
use crate::lexicon::{self, Class};

use super::checklist::{Requirement, ValidationType};
use super::fields::{self, Agreement, FieldType, RejectReason, Severity, Tolerance, Value};
use super::{FieldValue, RejectedValue};

/// Outcome of a requirement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReviewStatus {
    /// Verified evidence (and, where asked, consistent values) was found.
    Evidenced,
    /// No verified evidence, or no document states the value asked for.
    Missing,
    /// Documents state different values.
    Conflict,
    /// A person must look: a manual requirement, an ambiguous value, a failed
    /// structural check, or a value stated by one document where several must agree.
    NeedsReview,
}

impl ReviewStatus {
    /// The name, as the JSON spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            ReviewStatus::Evidenced => "evidenced",
            ReviewStatus::Missing => "missing",
            ReviewStatus::Conflict => "conflict",
            ReviewStatus::NeedsReview => "needs_review",
        }
    }
}

/// What a check compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckKind {
    /// A rule on the values themselves (order of dates, length of a period).
    Structural,
    /// One field's values across documents (or within one document).
    CrossDocument,
    /// The documents' values against the one the requirement text asks for.
    Requirement,
}

/// A check's result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckStatus {
    /// The values agree.
    Agree,
    /// The values disagree.
    Disagree,
    /// The rule holds.
    Pass,
    /// The rule fails.
    Fail,
}

impl CheckStatus {
    /// Whether the check found a problem.
    pub fn failed(self) -> bool {
        matches!(self, CheckStatus::Disagree | CheckStatus::Fail)
    }

    /// The name, as the JSON spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            CheckStatus::Agree => "agree",
            CheckStatus::Disagree => "disagree",
            CheckStatus::Pass => "pass",
            CheckStatus::Fail => "fail",
        }
    }
}

/// One value a check looked at.
#[derive(Debug, Clone, Serialize)]
pub struct CheckValue {
    /// Normalised value.
    pub value: serde_json::Value,
    /// As written.
    pub raw: String,
    /// Evidence item id.
    pub evidence: String,
    /// Source path.
    pub source: String,
}

/// A check performed.
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    /// What it compared.
    pub kind: CheckKind,
    /// The field (or rule) checked.
    pub field: String,
    /// Result.
    pub status: CheckStatus,
    /// How bad a failure is (`null` when it passed).
    pub severity: Option<Severity>,
    /// Every value looked at, with its evidence.
    pub values: Vec<CheckValue>,
    /// What was compared and found.
    pub note: String,
}

/// Status, reason and checks of one requirement.
#[derive(Debug, Clone)]
pub struct Checked {
    /// Status.
    pub status: ReviewStatus,
    /// Why.
    pub reason: String,
    /// Checks performed.
    pub checks: Vec<Check>,
    /// Fields asked for and not stated.
    pub missing_fields: Vec<String>,
}

fn check_value(f: &FieldValue) -> CheckValue {
    CheckValue {
        value: f.value.clone(),
        raw: f.raw.clone(),
        evidence: f.evidence.clone(),
        source: f.source.clone(),
    }
}

/// The value of `f` back as a typed value.
pub(super) fn typed(f: &FieldValue) -> Option<Value> {
    match (&f.value, f.ty) {
        (serde_json::Value::Number(n), _) => n.as_f64().map(Value::Number),
        (serde_json::Value::String(s), FieldType::Date) => {
            let mut it = s.split('-').map(|p| p.parse::<i64>().ok());
            let (y, m, d) = (it.next()??, it.next()??, it.next()??);
            Some(Value::Date {
                year: y as i32,
                month: m as u32,
                day: d as u32,
            })
        }
        (serde_json::Value::String(s), _) => Some(Value::Text(s.clone())),
        _ => None,
    }
}

/// Disagreeing pairs spelled out in a check's note, at most (the values are all listed).
const MAX_NOTES: usize = 5;
/// Values of one field compared pairwise, at most (a document repeating a figure
/// thousands of times must not make the review quadratic).
const MAX_COMPARED: usize = 200;

/// Compare the values of one field: every pair of distinct values; the worst result wins.
fn compare_field(name: &str, values: &[&FieldValue], tol: &Tolerance) -> Option<Check> {
    if values.len() < 2 {
        return None;
    }
    let mut worst: Option<Severity> = None;
    let mut notes = Vec::new();
    let mut disagreements = 0usize;
    let compared = &values[..values.len().min(MAX_COMPARED)];
    for (i, a) in compared.iter().enumerate() {
        for b in &compared[i + 1..] {
            let (Some(va), Some(vb)) = (typed(a), typed(b)) else {
                continue;
            };
            let (agreement, note) = fields::compare(a.ty, &va, &vb, tol);
            if let Agreement::Disagree(s) = agreement {
                worst = Some(match (worst, s) {
                    (Some(Severity::Error), _) | (_, Severity::Error) => Severity::Error,
                    _ => Severity::Warning,
                });
                if notes.len() < MAX_NOTES {
                    notes.push(format!(
                        "{} ({}) vs {} ({}): {note}",
                        a.raw, a.evidence, b.raw, b.evidence
                    ));
                }
                disagreements += 1;
            }
        }
    }
    let docs: std::collections::HashSet<&str> = values.iter().map(|v| v.doc_id.as_str()).collect();
    let note = if notes.is_empty() {
        format!(
            "{} values from {} document(s) agree",
            values.len(),
            docs.len()
        )
    } else if disagreements > notes.len() {
        format!(
            "{}; and {} more pair(s)",
            notes.join("; "),
            disagreements - notes.len()
        )
    } else {
        notes.join("; ")
    };
    Some(Check {
        kind: CheckKind::CrossDocument,
        field: name.to_string(),
        status: if worst.is_some() {
            CheckStatus::Disagree
        } else {
            CheckStatus::Agree
        },
        severity: worst,
        values: values.iter().map(|v| check_value(v)).collect(),
        note,
    })
}

fn date_of(f: &FieldValue) -> Option<(i32, u32, u32)> {
    match typed(f)? {
        Value::Date { year, month, day } => Some((year, month, day)),
        _ => None,
    }
}

/// Structural checks of a crediting period: start before end, and its length matching
/// the stated years (within a year), for every document that states both.
fn structural(fields: &[FieldValue]) -> Vec<Check> {
    let mut out = Vec::new();
    let of = |name: &'static str| fields.iter().filter(move |f| f.name == name);
    for s in of("crediting_period_start") {
        for e in of("crediting_period_end").filter(|e| e.doc_id == s.doc_id) {
            let (Some(a), Some(b)) = (date_of(s), date_of(e)) else {
                continue;
            };
            let ok = a < b;
            out.push(Check {
                kind: CheckKind::Structural,
                field: "crediting_period_start_before_end".into(),
                status: if ok {
                    CheckStatus::Pass
                } else {
                    CheckStatus::Fail
                },
                severity: (!ok).then_some(Severity::Error),
                values: vec![check_value(s), check_value(e)],
                note: format!(
                    "start {} {} end {}",
                    s.value,
                    if ok { "before" } else { "not before" },
                    e.value
                ),
            });
            let span = (b.0 - a.0) as f64
                + (b.1 as f64 - a.1 as f64) / 12.0
                + (b.2 as f64 - a.2 as f64) / 365.0;
            for y in of("crediting_period_years").filter(|y| y.doc_id == s.doc_id) {
                let Some(years) = y.value.as_f64() else {
                    continue;
                };
                let ok = (span - years).abs() <= 1.0;
                out.push(Check {
                    kind: CheckKind::Structural,
                    field: "crediting_period_length".into(),
                    status: if ok {
                        CheckStatus::Pass
                    } else {
                        CheckStatus::Fail
                    },
                    severity: (!ok).then_some(Severity::Warning),
                    values: vec![check_value(s), check_value(e), check_value(y)],
                    note: format!("{span:.1} years between the dates; {years} years stated"),
                });
            }
        }
    }
    out
}

/// How a requirement text bounds the value it asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bound {
    /// "at least ten years", "a minimum of 20%".
    AtLeast,
    /// "no later than 60 days", "within 30 days", "by no more than 30 days".
    AtMost,
    /// "six years".
    Exactly,
}

/// Phrases right before a number (an " of" after them aside: "minimum of") that make it
/// a lower bound…
const AT_LEAST: &[Class] = &[Class::BoundMin];
/// … or an upper bound, a deadline included.
const AT_MOST: &[Class] = &[Class::BoundMax, Class::BoundDeadline];

/// Whether `before` (lower case) ends with a phrase of `classes`, or with one and "of".
fn ends_with_bound(before: &str, classes: &[Class]) -> bool {
    let stem = before.strip_suffix(" of").unwrap_or(before);
    classes
        .iter()
        .flat_map(|c| lexicon::words(*c))
        .any(|w| before.ends_with(w) || stem.ends_with(w))
}

/// The one number of `spec`'s type the requirement text states, with its bound; `None`
/// when it states none or several.
fn asked(spec: &fields::FieldSpec, text: &str) -> Option<(f64, Bound, String)> {
    let cands = match spec.ty {
        FieldType::Duration => fields::values::durations_in(text, spec.duration_unit()),
        FieldType::Percentage => fields::values::percentages(text),
        _ => return None,
    };
    let ok: Vec<(f64, usize, usize)> = cands
        .iter()
        .filter_map(|c| match &c.value {
            Ok(Value::Number(n)) => Some((*n, c.start, c.end)),
            _ => None,
        })
        .collect();
    let &(n, s, e) = ok.first()?;
    if ok.iter().any(|o| o.0 != n) {
        return None;
    }
    let before = text[..s].trim_end().to_lowercase();
    let after = text[e..].trim_start().to_lowercase();
    let bound = if ends_with_bound(&before, AT_LEAST) || after.starts_with("or more") {
        Bound::AtLeast
    } else if ends_with_bound(&before, AT_MOST) || after.starts_with("or less") {
        Bound::AtMost
    } else {
        Bound::Exactly
    };
    Some((n, bound, text[s..e].to_string()))
}

/// The documents' values of each field against the one number the requirement text asks
/// for ("retained for at least ten years" against "6 years"): a value outside the bound
/// fails, so a person looks.
fn against_requirement(req: &Requirement, found: &[FieldValue]) -> Vec<Check> {
    let mut out = Vec::new();
    for spec in req.fields.iter().filter(|f| f.ty.numeric()) {
        let Some((want, bound, raw)) = asked(spec, &req.text) else {
            continue;
        };
        let values: Vec<&FieldValue> = found.iter().filter(|f| f.name == spec.name).collect();
        if values.is_empty() {
            continue;
        }
        let meets = |v: f64| match bound {
            Bound::AtLeast => v >= want - 1e-9,
            Bound::AtMost => v <= want + 1e-9,
            Bound::Exactly => (v - want).abs() < 1e-9,
        };
        let off: Vec<&&FieldValue> = values
            .iter()
            .filter(|v| v.value.as_f64().is_some_and(|x| !meets(x)))
            .collect();
        let ok = off.is_empty();
        out.push(Check {
            kind: CheckKind::Requirement,
            field: spec.name.clone(),
            status: if ok {
                CheckStatus::Pass
            } else {
                CheckStatus::Fail
            },
            severity: (!ok).then_some(Severity::Warning),
            values: values.iter().map(|v| check_value(v)).collect(),
            note: if ok {
                format!("the requirement asks for \"{raw}\"; the documents' values meet it")
            } else {
                let stated: Vec<String> = off
                    .iter()
                    .map(|v| format!("{} ({})", v.raw, v.evidence))
                    .collect();
                format!(
                    "the requirement asks for \"{raw}\"; the documents state {}",
                    stated.join(", ")
                )
            },
        });
    }
    out
}

/// Whether `quote` says the thing `category` names is absent or not done: a negation
/// within a few words before or after one of the category's words ("There is no grievance
/// mechanism", "A monitoring plan has not been prepared").
pub fn states_absence(quote: &str, category: &str) -> bool {
    let want = crate::text::content_words(category);
    let words: Vec<String> = quote
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
                .to_lowercase()
        })
        .collect();
    let negation = |w: &str| {
        matches!(
            w,
            "no" | "not" | "never" | "none" | "nor" | "without" | "neither" | "lacks" | "absent"
        ) || w.ends_with("n't")
    };
    words.iter().enumerate().any(|(i, w)| {
        let topical = crate::text::content_words(w)
            .iter()
            .any(|c| want.contains(c));
        topical
            && words[i.saturating_sub(4)..(i + 5).min(words.len())]
                .iter()
                .any(|x| negation(x))
    })
}

/// Validate one requirement's findings and give its status.
pub fn validate(
    req: &Requirement,
    evidence: &[EvidenceItem],
    found: &[FieldValue],
    rejected: &[RejectedValue],
    tol: &Tolerance,
) -> Checked {
    let mut checks = structural(found);
    let mut missing_fields = Vec::new();
    let mut single_document = Vec::new();
    let mut ambiguous = Vec::new();
    for spec in &req.fields {
        let values: Vec<&FieldValue> = found.iter().filter(|f| f.name == spec.name).collect();
        if values.is_empty() {
            missing_fields.push(spec.name.clone());
            if rejected
                .iter()
                .any(|r| r.name == spec.name && r.reason == RejectReason::AmbiguousDate)
            {
                ambiguous.push(spec.name.clone());
            }
            continue;
        }
        let docs: std::collections::HashSet<&str> =
            values.iter().map(|v| v.doc_id.as_str()).collect();
        if docs.len() < 2 {
            single_document.push(spec.name.clone());
        }
        checks.extend(compare_field(&spec.name, &values, tol));
    }
    checks.extend(against_requirement(req, found));
    let (status, reason) = status(
        req,
        evidence,
        &checks,
        &missing_fields,
        &single_document,
        &ambiguous,
    );
    Checked {
        status,
        reason,
        checks,
        missing_fields,
    }
}

/// The status of a requirement without fields that has evidence: evidenced, unless every
/// quote says the thing is absent or not done.
fn presence(req: &Requirement, evidence: &[EvidenceItem]) -> (ReviewStatus, String) {
    let n = evidence.len();
    let absent = evidence
        .iter()
        .filter(|e| states_absence(&e.quote, &req.category))
        .count();
    if absent == n {
        return (
            ReviewStatus::NeedsReview,
            format!("the evidence found says it is absent or not done ({n} item(s)); a person must look"),
        );
    }
    (
        ReviewStatus::Evidenced,
        format!("{} verified evidence item(s)", n - absent),
    )
}

/// The status rules, in order: manual → needs review; no evidence → missing; a
/// disagreement → conflict; a failed rule or an ambiguous value → needs review; then per
/// validation type.
fn status(
    req: &Requirement,
    evidence: &[EvidenceItem],
    checks: &[Check],
    missing: &[String],
    single: &[String],
    ambiguous: &[String],
) -> (ReviewStatus, String) {
    use ReviewStatus::*;
    let n = evidence.len();
    if req.validation_type == ValidationType::Manual {
        return (
            NeedsReview,
            format!("manual requirement: a person decides ({n} verified evidence item(s) found)"),
        );
    }
    if n == 0 {
        return (Missing, "no verified evidence in the documents".into());
    }
    let failed: Vec<&Check> = checks.iter().filter(|c| c.status.failed()).collect();
    if let Some(c) = failed.iter().find(|c| c.status == CheckStatus::Disagree) {
        return (
            Conflict,
            format!("{} disagrees across documents: {}", c.field, c.note),
        );
    }
    if let Some(c) = failed.first() {
        return (NeedsReview, format!("{} failed: {}", c.field, c.note));
    }
    if !req.validation_type.wants_fields() {
        return presence(req, evidence);
    }
    if req.fields.is_empty() {
        return (
            NeedsReview,
            "no field could be mapped to this requirement; declare its fields in the checklist"
                .into(),
        );
    }
    if !ambiguous.is_empty() {
        return (
            NeedsReview,
            format!(
                "ambiguous value for {}; set --date-order or check the source",
                ambiguous.join(", ")
            ),
        );
    }
    if missing.len() == req.fields.len() {
        let mut reason = format!(
            "verified evidence found, but no document states {}",
            missing.join(", ")
        );
        if let Some(said) = undetermined(req, evidence) {
            reason.push_str(&format!("; {said}"));
        }
        return (Missing, reason);
    }
    stated_status(req, missing, single)
}

/// Phrases that say a value is not set yet.
const UNDETERMINED: &[&str] = &[
    "not yet determined",
    "not yet been determined",
    "to be determined",
    "will be determined",
    "will be set",
    "will be fixed",
    "will be confirmed",
    "not yet known",
    "not yet set",
    "not yet decided",
    "not yet been set",
    "yet to be",
    "tbd",
    "tbc",
];
/// Characters of the quote a reason cites, at most.
const CITED: usize = 200;

/// The evidence item that says a field of `req` is not set yet ("The project start date
/// is not yet determined and will be set at validation"), as a finding for the reason.
fn undetermined(req: &Requirement, evidence: &[EvidenceItem]) -> Option<String> {
    let item = evidence.iter().find(|e| {
        let lower = e.quote.to_lowercase();
        UNDETERMINED.iter().any(|p| {
            lower.match_indices(p).any(|(i, _)| {
                let word_start = !lower[..i]
                    .chars()
                    .next_back()
                    .is_some_and(char::is_alphanumeric);
                word_start
                    && !lower[i + p.len()..]
                        .chars()
                        .next()
                        .is_some_and(char::is_alphanumeric)
            })
        }) && req
            .fields
            .iter()
            .any(|f| f.cues.iter().any(|c| fields::names_cue(&lower, c)))
    })?;
    let mut quote: String = item.display.chars().take(CITED).collect();
    if quote.len() < item.display.len() {
        quote.push('…');
    }
    Some(format!("{} says it is not set yet: \"{quote}\"", item.id))
}

/// The status of a field requirement with at least one value stated.
fn stated_status(
    req: &Requirement,
    missing: &[String],
    single: &[String],
) -> (ReviewStatus, String) {
    let stated: Vec<&str> = req
        .fields
        .iter()
        .map(|f| f.name.as_str())
        .filter(|f| !missing.iter().any(|m| m == f))
        .collect();
    if req.validation_type == ValidationType::CrossDocument
        && stated.iter().all(|f| single.iter().any(|s| s == f))
    {
        return (
            ReviewStatus::NeedsReview,
            format!(
                "only one document states {}; nothing to compare",
                stated.join(", ")
            ),
        );
    }
    let mut reason = format!("{} stated", stated.join(", "));
    if !missing.is_empty() {
        reason.push_str(&format!("; not stated: {}", missing.join(", ")));
    }
    (ReviewStatus::Evidenced, reason)
}
