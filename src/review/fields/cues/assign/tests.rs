use super::*;
use crate::review::fields::{catalogue, values};

/// One example: a catalogue field, a quote (with the label it sits under, if any), the
/// candidate as written, and the rule that decides it (`None`: the field's value).
type Example = (
    &'static str,
    &'static str,
    Option<&'static str>,
    &'static str,
    Option<FieldRule>,
);

/// Examples of every rule.
const FIELD_EXAMPLES: &[Example] = &[
    (
        "leakage_percentage",
        "Leakage falls by 38% after the first year.",
        None,
        "38%",
        Some(FieldRule::ChangeAmount),
    ),
    (
        "buffer_pool_percentage",
        "| Buffer pool | 20% | 15% |",
        Some("Item | Registry maximum | Project"),
        "20%",
        Some(FieldRule::UnderLimitColumn),
    ),
    (
        "buffer_pool_percentage",
        "| Buffer pool | 20% | 15% |",
        Some("Item | Registry maximum | Project"),
        "15%",
        None,
    ),
    (
        "buffer_pool_percentage",
        "Leakage is estimated at 12% of emission reductions.",
        None,
        "12%",
        Some(FieldRule::OtherFieldCue),
    ),
    (
        "buffer_pool_percentage",
        "About 45% of the households keep cattle.",
        None,
        "45%",
        Some(FieldRule::NoCue),
    ),
    (
        "crediting_period_start",
        "The crediting period runs from 1 January 2020 to 31 December 2049.",
        None,
        "31 December 2049",
        Some(FieldRule::OtherRangeEnd),
    ),
    (
        "crediting_period_start",
        "The crediting period runs from 1 January 2020 to 31 December 2049.",
        None,
        "1 January 2020",
        None,
    ),
    (
        "buffer_pool_percentage",
        "The buffer contribution must be at least 10% of the credits issued.",
        None,
        "10%",
        Some(FieldRule::LimitOrCondition),
    ),
    (
        "buffer_pool_percentage",
        "The neighbouring Reed Marsh project deposits 25% of its credits in the buffer pool.",
        None,
        "25%",
        Some(FieldRule::OtherSubject),
    ),
    (
        "buffer_pool_percentage",
        "The project deposits 15% of its verified credits in the buffer pool.",
        None,
        "15%",
        None,
    ),
];

/// The rule that decides candidate `raw` of `quote` for catalogue field `field`.
fn deciding_rule(field: &str, quote: &str, context: Option<&str>, raw: &str) -> Option<FieldRule> {
    let spec = catalogue()
        .into_iter()
        .find(|f| f.name == field)
        .unwrap_or_else(|| panic!("no catalogue field {field}"));
    let lower = quote.to_ascii_lowercase();
    let markers = super::super::markers(&spec, &lower);
    let cands = match spec.ty {
        FieldType::Date => values::dates(quote, None),
        FieldType::Duration => values::durations_in(quote, spec.duration_unit()),
        FieldType::Percentage => values::percentages(quote),
        _ => values::areas(quote),
    };
    let mut scene = Scene {
        spec: &spec,
        quote,
        markers: &markers,
        context,
        orphans: 0,
    };
    let gap = super::super::MAX_GAP;
    let (_, verdict) = verdicts(&mut scene, cands, gap)
        .into_iter()
        .find(|(c, _)| &quote[c.start..c.end] == raw)
        .unwrap_or_else(|| panic!("{raw:?} is no candidate of {quote:?}"));
    verdict.map(|v| match v {
        Verdict::Dropped(r) | Verdict::SetAside(r, _, _) => r,
    })
}

#[test]
fn every_field_rule_decides_its_examples() {
    for (field, quote, context, raw, rule) in FIELD_EXAMPLES {
        assert_eq!(
            deciding_rule(field, quote, *context, raw),
            *rule,
            "{field}: {raw:?} in {quote:?}"
        );
    }
    for rule in FieldRule::ALL {
        assert!(
            FIELD_EXAMPLES.iter().any(|e| e.4 == Some(rule)),
            "{rule:?} has no example"
        );
    }
}
