//! The value filter as a table of named rules ([`ValueRule::ALL`]): a value of the asked
//! type that a rule excludes is not the answer, and the first rule that excludes it says
//! why. Each rule carries examples (a question, a quote, the value it sets aside) that one
//! test runs.

use serde::Serialize;

use super::fit::{self, clause_around};
use super::{bind, rate, role, when};
use crate::figure::Bound;
use crate::frame::{Extreme, Frame};
use crate::value::typed::Found;

/// What the rules read a value against: the frame, the quote, and the heading its date
/// role's cue may stand in (a table row's header; `None`: any role).
pub(super) struct Scene<'a> {
    /// The question's frame.
    pub f: &'a Frame,
    /// The quote the value is read from.
    pub quote: &'a str,
    /// The heading a date role's cue may stand in.
    pub heading: Option<&'a str>,
    /// The role a name must fill ("the deputy director"), unless the heading names it.
    role: Option<Vec<String>>,
}

impl<'a> Scene<'a> {
    /// The scene of `quote` for frame `f` under `heading`.
    pub fn new(f: &'a Frame, quote: &'a str, heading: Option<&'a str>) -> Self {
        let role = role::asked_role(f).filter(|r| !heading.is_some_and(|h| role::names_role(r, h)));
        Scene {
            f,
            quote,
            heading,
            role,
        }
    }
}

/// A named rule of the value filter, in the order [`ValueRule::ALL`] tries them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ValueRule {
    /// The question states the figure itself: its condition, not its answer.
    StatedByQuestion,
    /// A floor for a maximum asked, or a ceiling for a minimum.
    OppositeExtreme,
    /// A length of time in another unit than the one asked ("days" for "how many years").
    OtherTimeUnit,
    /// Its clause marks it as another thing's or a former one ("previous", "formerly").
    OtherOne,
    /// It describes the thing its sentence says is replaced.
    OfReplaced,
    /// A length of time told relative to the very event whose date is asked.
    RelativeToAskedEvent,
    /// It holds for a span of time the asked span does not meet.
    OutsideAskedPeriod,
    /// A date on the wrong side of a date the question sets as a bound.
    BeyondAskedDate,
    /// A length of time that fixes no point in time, for a "when" question.
    BareLengthForWhen,
    /// It stands in a definition, for a question that asks no meaning.
    InDefinition,
    /// A count of another thing than the one asked how many of.
    CountsOther,
    /// A name that only repeats the question's own words.
    RestatesQuestion,
    /// It holds under a condition written after it that the quote does not tie to the
    /// question.
    OtherCondition,
    /// A value per another period than the one asked, or a speed for a length.
    RateOfOtherPeriod,
    /// For a bound asked, it stands in the condition its provision opens with.
    LeadingCondition,
    /// Its clause bounds figures the other way from the extreme asked.
    OppositeBound,
    /// A date no cue of the asked role marks.
    OtherDateRole,
    /// A name not tied to the role asked for.
    UnfilledRole,
}

impl ValueRule {
    /// Every rule, in the order they are tried.
    pub const ALL: [ValueRule; 18] = [
        ValueRule::StatedByQuestion,
        ValueRule::OppositeExtreme,
        ValueRule::OtherTimeUnit,
        ValueRule::OtherOne,
        ValueRule::OfReplaced,
        ValueRule::RelativeToAskedEvent,
        ValueRule::OutsideAskedPeriod,
        ValueRule::BeyondAskedDate,
        ValueRule::BareLengthForWhen,
        ValueRule::InDefinition,
        ValueRule::CountsOther,
        ValueRule::RestatesQuestion,
        ValueRule::OtherCondition,
        ValueRule::RateOfOtherPeriod,
        ValueRule::LeadingCondition,
        ValueRule::OppositeBound,
        ValueRule::OtherDateRole,
        ValueRule::UnfilledRole,
    ];

    /// The rule's name, as notes show it.
    pub fn name(self) -> String {
        crate::frame::json_name(&self)
    }

    /// Why a value the rule excludes does not answer, in a phrase.
    pub fn describe(self) -> &'static str {
        match self {
            ValueRule::StatedByQuestion => "the question states it as its condition",
            ValueRule::OppositeExtreme => "it is a bound the other way from the one asked",
            ValueRule::OtherTimeUnit => "it is counted in another unit of time than asked",
            ValueRule::OtherOne => "its clause marks it as another thing's or a former one",
            ValueRule::OfReplaced => "it describes the thing its sentence says is replaced",
            ValueRule::RelativeToAskedEvent => {
                "it is a length of time before or after the asked event itself"
            }
            ValueRule::OutsideAskedPeriod => "it holds for another period than the one asked",
            ValueRule::BeyondAskedDate => "it falls on the wrong side of the question's date",
            ValueRule::BareLengthForWhen => "a length of time that fixes no point in time",
            ValueRule::InDefinition => "it stands in a definition",
            ValueRule::CountsOther => "it counts another thing than the one asked",
            ValueRule::RestatesQuestion => "it only repeats the question's words",
            ValueRule::OtherCondition => "it holds under a condition the question does not ask",
            ValueRule::RateOfOtherPeriod => "it is stated per another period than asked",
            ValueRule::LeadingCondition => "it stands in the condition its provision opens with",
            ValueRule::OppositeBound => "its clause bounds it the other way from the one asked",
            ValueRule::OtherDateRole => "no word of the asked date's role marks it",
            ValueRule::UnfilledRole => "it is not tied to the role asked for",
        }
    }

    /// Whether the rule excludes value `v` of the scene's quote.
    fn excludes(self, s: &Scene, v: &Found) -> bool {
        let (f, quote) = (s.f, s.quote);
        let clause = || clause_around(quote, v.start, v.end);
        match self {
            ValueRule::StatedByQuestion => bind::stated_by_question(f, quote, v),
            ValueRule::OppositeExtreme => match f.extreme {
                Some(Extreme::Min) => v.bound == Bound::Max,
                Some(Extreme::Max) => v.bound == Bound::Min,
                None => false,
            },
            ValueRule::OtherTimeUnit => match (&f.unit, &v.unit) {
                (Some(u), Some(vu)) if f.answer_type == crate::frame::AnswerType::Duration => {
                    vu != u
                }
                _ => false,
            },
            ValueRule::OtherOne => fit::other_one(f, clause()),
            ValueRule::OfReplaced => fit::of_replaced(f, quote, v),
            ValueRule::RelativeToAskedEvent => when::relative_to_asked_event(f, quote, v),
            ValueRule::OutsideAskedPeriod => when::outside(f, clause()),
            ValueRule::BeyondAskedDate => when::beyond_asked_date(f, v),
            ValueRule::BareLengthForWhen => fit::bare_length_for_when(f, quote, v),
            ValueRule::InDefinition => fit::in_definition(f, clause()),
            ValueRule::CountsOther => bind::counts_other(f, quote, v),
            ValueRule::RestatesQuestion => fit::restates_question(f, &quote[v.start..v.end]),
            ValueRule::OtherCondition => fit::other_condition(f, quote, v),
            ValueRule::RateOfOtherPeriod => rate::other_period(f, quote, v),
            ValueRule::LeadingCondition => {
                f.extreme.is_some() && fit::in_leading_condition(quote, v)
            }
            ValueRule::OppositeBound => v.bound == Bound::Exact && fit::opposite_bound(f, clause()),
            ValueRule::OtherDateRole => match (s.heading, f.date_role) {
                (Some(h), Some(r)) => !fit::plays_role(r, quote, v, h),
                _ => false,
            },
            ValueRule::UnfilledRole => s.role.as_ref().is_some_and(|r| role::unfilled(r, quote, v)),
        }
    }
}

/// For each rule of the value filter, questions, quotes and the value of the quote (as
/// written) it sets aside: what the table's test runs.
#[cfg(test)]
const VALUE_EXAMPLES: &[(ValueRule, &str, &str, &str)] = &[
    (
        ValueRule::StatedByQuestion,
        "How many marshals are required for an event of 5,000 people?",
        "An event of 5,000 people requires 12 marshals.",
        "5,000",
    ),
    (
        ValueRule::OppositeExtreme,
        "What is the minimum fine for a prohibited practice?",
        "a fine of up to EUR 35 000 000 or 7 % of turnover",
        "EUR 35 000 000",
    ),
    (
        ValueRule::OtherTimeUnit,
        "How many years must the number remain active?",
        "A toll-free number must remain active for 90 days.",
        "90 days",
    ),
    (
        ValueRule::OtherOne,
        "What is the application fee?",
        "The previous fee was $120; the fee is now $150.",
        "$120",
    ),
    (
        ValueRule::OfReplaced,
        "When does licence L-7/R2 expire?",
        "This licence replaces licence L-7/R1, which expired on 31 March 2025.",
        "31 March 2025",
    ),
    (
        ValueRule::RelativeToAskedEvent,
        "When does the permit expire?",
        "An application for renewal must be lodged at least six months before expiry.",
        "six months",
    ),
    (
        ValueRule::OutsideAskedPeriod,
        "What was the fee in 2022?",
        "Since 1 January 2024 the fee is $150.",
        "$150",
    ),
    (
        ValueRule::BeyondAskedDate,
        "On what date is the next board meeting after 12 March 2025?",
        "The board met on 3 March 2025 and will next meet on 14 May 2025.",
        "3 March 2025",
    ),
    (
        ValueRule::BareLengthForWhen,
        "When does the licence expire?",
        "The licence is valid for five years.",
        "five years",
    ),
    (
        ValueRule::InDefinition,
        "How many colonies may be kept on a plot?",
        "\"Apiary\" means any site where one or more Colonies are kept.",
        "one",
    ),
    (
        ValueRule::CountsOther,
        "How many utterances does the corpus contain?",
        "The corpus has 12 annotators and 18,420 utterances.",
        "12",
    ),
    (
        ValueRule::RestatesQuestion,
        "Which agency issued the permit?",
        "The permit was issued by the Permit Agency.",
        "Permit Agency",
    ),
    (
        ValueRule::OtherCondition,
        "What amount is entered on line 2 if you are head of household?",
        "$15,000 if you're single or married filing separately",
        "$15,000",
    ),
    (
        ValueRule::RateOfOtherPeriod,
        "What is the annual fee?",
        "The fee is $20 per month.",
        "$20",
    ),
    (
        ValueRule::LeadingCondition,
        "What is the maximum length of a look-up secret?",
        "For look-up secrets that have less than 64 bits of entropy, the verifier SHALL limit attempts.",
        "64",
    ),
    (
        ValueRule::OppositeBound,
        "What is the maximum key length in bits?",
        "The key length shall be no less than the security strength, currently 112 bits.",
        "112",
    ),
    (
        ValueRule::OtherDateRole,
        "On what date does the regulation expire?",
        "This Regulation shall apply from 19 December 2020.",
        "19 December 2020",
    ),
    (
        ValueRule::UnfilledRole,
        "Who is the treasurer of the club?",
        "Maria Lopez chairs the finance committee and the audit panel of the club, whose treasurer resigned in May.",
        "Maria Lopez",
    ),
];

/// The first rule of [`ValueRule::ALL`] that excludes value `v`, if any.
pub(super) fn excluded_by(s: &Scene, v: &Found) -> Option<ValueRule> {
    ValueRule::ALL.into_iter().find(|r| r.excludes(s, v))
}

/// The values of the asked type `quote` states that a rule sets aside for frame `f`,
/// each as written with the rule: why a passage about the question names no value.
pub(crate) fn set_aside(f: &Frame, quote: &str) -> Vec<(String, ValueRule)> {
    let scene = Scene::new(f, quote, Some(""));
    fit::candidates(f, quote)
        .into_iter()
        .filter_map(|v| excluded_by(&scene, &v).map(|r| (quote[v.start..v.end].to_string(), r)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::frame;

    #[test]
    fn every_value_rule_sets_aside_the_value_of_its_own_examples() {
        let mut failed = Vec::new();
        for rule in ValueRule::ALL {
            let examples: Vec<_> = VALUE_EXAMPLES.iter().filter(|e| e.0 == rule).collect();
            assert!(!examples.is_empty(), "{rule:?} has no example");
            for (_, q, quote, value) in examples {
                let f = frame(q);
                let all = fit::candidates(&f, quote);
                let Some(v) = all.iter().find(|v| &quote[v.start..v.end] == *value) else {
                    let read: Vec<&str> = all.iter().map(|v| &quote[v.start..v.end]).collect();
                    failed.push(format!(
                        "{rule:?}: {value:?} is not read in {quote:?}: {read:?}"
                    ));
                    continue;
                };
                let got = excluded_by(&Scene::new(&f, quote, Some("")), v);
                if got != Some(rule) {
                    failed.push(format!("{rule:?}: {value:?} of {quote:?} is {got:?}"));
                }
            }
        }
        assert!(failed.is_empty(), "{failed:#?}");
    }
}
