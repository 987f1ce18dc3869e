//! Values a document states only through others: a period's length in years from its
//! start and end dates ("from 01/01/2022 to 31/12/2031" is ten years). The derived value
//! cites the whole range, verbatim, and is taken only when the dates span whole years,
//! counted with the end day included (31/12/2031 ends the tenth year) or excluded
//! (01/01/2032); anything else stays missing rather than rounded. A length the same
//! document states beside the range must agree with it, or both values are reported.

use crate::answer::EvidenceItem;

use super::checklist::Requirement;
use super::fields::{self, FieldType, Value};
use super::FieldValue;

/// `(year, month, day)` of an ISO date value.
fn ymd(v: &FieldValue) -> Option<(i32, u32, u32)> {
    let s = v.value.as_str()?;
    let mut it = s.split('-');
    let y = it.next()?.parse().ok()?;
    let m = it.next()?.parse().ok()?;
    let d = it.next()?.parse().ok()?;
    Some((y, m, d))
}

/// The day after `(y, m, d)`.
fn next_day((y, m, d): (i32, u32, u32)) -> (i32, u32, u32) {
    if d < fields::values::month_days(y, m) {
        (y, m, d + 1)
    } else if m < 12 {
        (y, m + 1, 1)
    } else {
        (y + 1, 1, 1)
    }
}

/// Whole years from `start` to `end`, the end day included or excluded; `None` when the
/// span is not whole years.
fn whole_years(start: (i32, u32, u32), end: (i32, u32, u32)) -> Option<i32> {
    let after = next_day(end);
    [after, end]
        .into_iter()
        .find(|e| (e.1, e.2) == (start.1, start.2) && e.0 > start.0)
        .map(|e| e.0 - start.0)
}

/// Years fields of `req` (`x_years` beside `x_start` and `x_end`) derived from a start
/// and an end date stated in one evidence item: when no value states the field, or when
/// the range's document states a length that differs from the range's (both are then
/// kept, and the cross-document check reports them).
pub fn years_from_ranges(
    req: &Requirement,
    evidence: &[EvidenceItem],
    found: &[FieldValue],
) -> Vec<FieldValue> {
    let mut out = Vec::new();
    for spec in req.fields.iter().filter(|f| f.ty == FieldType::Duration) {
        let Some(stem) = spec.name.strip_suffix("_years") else {
            continue;
        };
        let of = |suffix: &str| {
            let name = format!("{stem}_{suffix}");
            found.iter().filter(move |f| f.name == name)
        };
        for s in of("start") {
            let Some(e) = of("end").find(|e| e.evidence == s.evidence && e.start > s.end) else {
                continue;
            };
            let (Some(a), Some(b)) = (ymd(s), ymd(e)) else {
                continue;
            };
            let Some(item) = evidence.iter().find(|i| i.id == s.evidence) else {
                continue;
            };
            let Some(years) = whole_years(a, b) else {
                continue;
            };
            let span = (s.start - item.start, e.end - item.start);
            if item.quote.get(span.0..span.1).is_none() {
                continue;
            }
            // A length the document states beside its range must agree with it: an equal
            // one needs no second value, a different one is kept beside it, so the check
            // reports the disagreement.
            let stated: Vec<&FieldValue> = found
                .iter()
                .filter(|f| f.name == spec.name && f.doc_id == s.doc_id)
                .collect();
            let agrees = |f: &&FieldValue| f.value.as_f64() == Some(years as f64);
            if !stated.is_empty() && stated.iter().all(agrees) {
                continue;
            }
            if stated.is_empty() && found.iter().any(|f| f.name == spec.name) {
                continue;
            }
            let v = Value::Number(years as f64);
            let unit = Some("years (from the dates)".to_string());
            out.push(FieldValue::in_item(spec, item, span, &v, unit));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_years_count_the_end_day_in_or_out_and_nothing_else() {
        assert_eq!(whole_years((2022, 1, 1), (2031, 12, 31)), Some(10));
        assert_eq!(whole_years((2022, 1, 1), (2032, 1, 1)), Some(10));
        assert_eq!(whole_years((2020, 3, 1), (2040, 2, 29)), Some(20));
        assert_eq!(whole_years((2022, 1, 1), (2031, 6, 30)), None);
        assert_eq!(whole_years((2022, 1, 1), (2021, 12, 31)), None);
    }
}
