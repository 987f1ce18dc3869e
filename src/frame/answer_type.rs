//! The answer type of a question, with the unit family and the unit it counts in, read
//! from its wording by an ordered table of named rules ([`TypeRule::ALL`]): the first
//! rule that fires types the question, and the frame records which one it was. Each
//! rule carries examples (`examples.rs`), and one test runs them all.

use serde::{Deserialize, Serialize};

use super::{AnswerType, UnitFamily, FAMILY_UNITS};
use crate::lexicon::{self, Class};

/// An answer type with the unit family and the unit it is counted in.
pub(super) type Typed = (AnswerType, Option<UnitFamily>, Option<String>);

/// The asking part of a question, read once for the type rules.
pub(super) struct Asked<'a> {
    /// Its words, lower case.
    w: &'a [String],
    /// The words joined, with a space at either end (for phrase tests).
    s: String,
    /// Its first word.
    first: &'a str,
    /// The two words after "how many", singular, when it asks "how many".
    counted: Option<Vec<&'a str>>,
    /// The unit of time it counts in: among the words counted, or anywhere.
    time_unit: Option<String>,
    /// Whether it offers named things as alternatives ("A or B?").
    either: bool,
}

impl<'a> Asked<'a> {
    /// Reads the lower-case words `w` of a question's asking part; `either` when it
    /// offers named alternatives.
    pub(super) fn new(w: &'a [String], either: bool) -> Self {
        let counted = w
            .windows(2)
            .position(|p| p[0] == "how" && p[1] == "many")
            .map(|i| {
                w.iter()
                    .skip(i + 2)
                    .take(2)
                    .map(|x| x.trim_end_matches('s'))
                    .collect::<Vec<_>>()
            });
        let time_unit = match &counted {
            Some(next) => next.iter().find(|x| time_word(x)).map(|x| x.to_string()),
            None => w
                .iter()
                .map(|x| x.trim_end_matches('s'))
                .find(|x| time_word(x))
                .map(str::to_string),
        };
        Asked {
            w,
            s: format!(" {} ", w.join(" ")),
            first: w.first().map_or("", String::as_str),
            counted,
            time_unit,
            either,
        }
    }

    /// Whether the words hold the phrase `p`.
    fn has(&self, p: &str) -> bool {
        self.s.contains(&format!(" {p} "))
    }

    /// Whether a word is one of `l`.
    fn any(&self, l: &[&str]) -> bool {
        self.w.iter().any(|x| l.contains(&x.as_str()))
    }

    /// Whether a word is of lexicon class `c`.
    fn any_of(&self, c: Class) -> bool {
        self.w.iter().any(|x| lexicon::is(c, x))
    }

    /// Whether the question opens with "what" or "which".
    fn what(&self) -> bool {
        matches!(self.first, "what" | "which")
    }
}

/// Whether `x` (singular, lower case) is a unit of time.
pub(super) fn time_word(x: &str) -> bool {
    lexicon::is(Class::TimeUnit, x)
}

/// A named rule of the answer-type table, in the order [`TypeRule::ALL`] tries them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TypeRule {
    /// An auxiliary verb opens the question: yes or no.
    Auxiliary,
    /// A telephone or fax number is named.
    Telephone,
    /// An email address is named.
    Email,
    /// A percentage, share, proportion or rate is named.
    Percentage,
    /// A unit is named after "in" or "how many": a quantity in it.
    UnitNamed,
    /// "How much" with a word of cost, or a currency after "in": money.
    PriceAsked,
    /// A measure is named near the start (area, weight, temperature …).
    MeasureNamed,
    /// "How" and an adjective of measure ("how wide", "how heavy").
    MeasureAsked,
    /// A count is named (population, capacity, a table's value).
    CountNamed,
    /// "The number of the …" one thing: an identifier.
    NumberOfOne,
    /// "The number of" units of time: a duration.
    NumberOfTime,
    /// "What is the number of" things: a count.
    NumberOfThings,
    /// "How long is" a thing that does not last: a length.
    LengthOfThing,
    /// "How long", "how often", a duration named: a duration.
    HowLong,
    /// "How many", "how much", "what quantity": a quantity, money or count.
    HowMany,
    /// A word or phrase of money: money.
    MoneyNamed,
    /// A limit named: a number (a duration when a unit of time is named).
    LimitNamed,
    /// "What time" (not a span): a time of day.
    TimeOfDay,
    /// "When", "what date", "what year": a date.
    DateAsked,
    /// "What period": a period.
    PeriodAsked,
    /// A number, code or identifier of a thing: an identifier.
    IdentifierAsked,
    /// A person or organisation asked among named alternatives: one of them, as text.
    Alternatives,
    /// "Who", "whose", "what name", "which officer": a person.
    PersonAsked,
    /// "Which company", "which agency": an organisation.
    OrganisationAsked,
    /// "Mean", "define": a definition.
    DefinitionAsked,
    /// "What must", "is required": an obligation.
    ObligationAsked,
    /// "Why" or "how": an explanation.
    ExplanationAsked,
    /// "What are", "which" and a plural: a list.
    ListAsked,
    /// No rule above fired: text.
    #[default]
    Otherwise,
}

impl TypeRule {
    /// Every rule, in the order they are tried.
    pub const ALL: [TypeRule; 29] = [
        TypeRule::Auxiliary,
        TypeRule::Telephone,
        TypeRule::Email,
        TypeRule::Percentage,
        TypeRule::UnitNamed,
        TypeRule::PriceAsked,
        TypeRule::MeasureNamed,
        TypeRule::MeasureAsked,
        TypeRule::CountNamed,
        TypeRule::NumberOfOne,
        TypeRule::NumberOfTime,
        TypeRule::NumberOfThings,
        TypeRule::LengthOfThing,
        TypeRule::HowLong,
        TypeRule::HowMany,
        TypeRule::MoneyNamed,
        TypeRule::LimitNamed,
        TypeRule::TimeOfDay,
        TypeRule::DateAsked,
        TypeRule::PeriodAsked,
        TypeRule::IdentifierAsked,
        TypeRule::Alternatives,
        TypeRule::PersonAsked,
        TypeRule::OrganisationAsked,
        TypeRule::DefinitionAsked,
        TypeRule::ObligationAsked,
        TypeRule::ExplanationAsked,
        TypeRule::ListAsked,
        TypeRule::Otherwise,
    ];

    /// The rule's name, as `--json` and `--explain` show it.
    pub fn name(self) -> String {
        super::json_name(&self)
    }

    /// The type the rule gives `q`, or `None` when it does not fire.
    fn fire(self, q: &Asked) -> Option<Typed> {
        let plain = |t: AnswerType| Some((t, None, None));
        let when = |c: bool, t: AnswerType| if c { plain(t) } else { None };
        match self {
            TypeRule::Auxiliary => when(lexicon::is(Class::Auxiliary, q.first), AnswerType::YesNo),
            TypeRule::Telephone => when(q.any(&["telephone", "phone", "fax"]), AnswerType::Phone),
            TypeRule::Email => when(q.any(&["email", "e-mail"]), AnswerType::Email),
            TypeRule::Percentage => percentage(q),
            TypeRule::UnitNamed => unit_asked(q.w)
                .map(|(f, unit)| (AnswerType::Quantity, Some(f), Some(unit.to_string()))),
            TypeRule::PriceAsked => when(price_asked(q), AnswerType::Money),
            TypeRule::MeasureNamed => {
                family_asked(q.w).map(|f| (AnswerType::Quantity, Some(f), None))
            }
            TypeRule::MeasureAsked => {
                measure_asked(q).map(|f| (AnswerType::Quantity, Some(f), None))
            }
            TypeRule::CountNamed => counted_by_name(q).then(count),
            TypeRule::NumberOfOne => when(
                number_of_one(q.w) && q.first != "how",
                AnswerType::Identifier,
            ),
            TypeRule::NumberOfTime => number_of(q)
                .filter(|n| time_word(n))
                .map(|n| (AnswerType::Duration, None, Some(n))),
            TypeRule::NumberOfThings => (number_of(q).is_some() && q.what()).then(count),
            TypeRule::LengthOfThing => how_long_a_thing(q.w).then_some((
                AnswerType::Quantity,
                Some(UnitFamily::Length),
                None,
            )),
            TypeRule::HowLong => how_long(q),
            TypeRule::HowMany => (q.has("how many") || q.has("how much") || q.has("what quantity"))
                .then(|| how_many_type(q)),
            TypeRule::MoneyNamed => when(asks_money(q), AnswerType::Money),
            TypeRule::LimitNamed => limit_asked(q).then(|| match &q.time_unit {
                Some(u) => (AnswerType::Duration, None, Some(u.clone())),
                None => count(),
            }),
            rule => named_rule(rule, q),
        }
    }
}

/// A count.
fn count() -> Typed {
    (AnswerType::Quantity, Some(UnitFamily::Count), None)
}

/// The rules of [`TypeRule::ALL`] that type a question asking for a date, a name, an
/// identifier or text.
fn named_rule(rule: TypeRule, q: &Asked) -> Option<Typed> {
    let fires = match rule {
        TypeRule::TimeOfDay => time_of_day_asked(q.w),
        TypeRule::DateAsked => date_asked(q),
        TypeRule::PeriodAsked => {
            q.has("what period") || q.has("which period") || q.has("what time period")
        }
        TypeRule::IdentifierAsked => identifier_asked(q),
        TypeRule::Alternatives => q.either && (person_asked(q) || organisation_asked(q)),
        TypeRule::PersonAsked => person_asked(q),
        TypeRule::OrganisationAsked => organisation_asked(q),
        TypeRule::DefinitionAsked => ["mean", "define", "defined", "definition"]
            .iter()
            .any(|p| q.has(p)),
        TypeRule::ObligationAsked => {
            (q.first == "what" && q.w.get(1).is_some_and(|x| x == "must" || x == "shall"))
                || q.has("is required")
                || q.has("are required")
        }
        TypeRule::ExplanationAsked => matches!(q.first, "why" | "how"),
        TypeRule::ListAsked => {
            q.has("what are")
                || q.has("which are")
                || (q.first == "which"
                    && q.w
                        .get(1)
                        .is_some_and(|x| x.ends_with('s') && !x.ends_with("ss")))
        }
        _ => true,
    };
    fires.then_some((rule_type(rule), None, None))
}

/// The type a rule of [`named_rule`] gives.
fn rule_type(rule: TypeRule) -> AnswerType {
    match rule {
        TypeRule::TimeOfDay => AnswerType::Time,
        TypeRule::DateAsked => AnswerType::Date,
        TypeRule::PeriodAsked => AnswerType::Period,
        TypeRule::IdentifierAsked => AnswerType::Identifier,
        TypeRule::PersonAsked => AnswerType::Person,
        TypeRule::OrganisationAsked => AnswerType::Organisation,
        TypeRule::DefinitionAsked => AnswerType::Definition,
        TypeRule::ObligationAsked => AnswerType::Obligation,
        TypeRule::ExplanationAsked => AnswerType::Explanation,
        TypeRule::ListAsked => AnswerType::List,
        _ => AnswerType::Text,
    }
}

/// The answer type of a question's asking part, with the rule of [`TypeRule::ALL`] that
/// gave it.
pub(super) fn answer_type(q: &Asked) -> (Typed, TypeRule) {
    TypeRule::ALL
        .into_iter()
        .find_map(|r| r.fire(q).map(|t| (t, r)))
        .unwrap_or(((AnswerType::Text, None, None), TypeRule::Otherwise))
}

/// A percentage: named, or a share, proportion or rate asked.
fn percentage(q: &Asked) -> Option<Typed> {
    let asked = q.any_of(Class::PercentWord)
        || q.has("what share")
        || q.has("what proportion")
        || q.has("interest rate");
    asked.then(|| (AnswerType::Percentage, None, Some("percent".into())))
}

/// "What is the number of …", "What was the total number of …": the singular of the
/// word counted, when "number of" is among the first words.
fn number_of(q: &Asked) -> Option<String> {
    q.w.windows(3)
        .take(5)
        .find(|p| p[0] == "number" && p[1] == "of")
        .map(|p| p[2].trim_end_matches('s').to_string())
}

/// A duration: "how long", "how often", "what time limit", "how many" units of time, or
/// "duration" named; the unit is the one counted, unless "how long" asks.
fn how_long(q: &Asked) -> Option<Typed> {
    let asked = q.has("how long")
        || q.has("how often")
        || q.has("what length of time")
        || q.has("what time limit")
        || q.has("what time period")
        || (q.has("how many") && q.time_unit.is_some())
        || q.any(&["duration"]);
    let unit = q.time_unit.clone().filter(|_| !q.has("how long"));
    asked.then_some((AnswerType::Duration, None, unit))
}

/// Whether "when", "what date", "what year", "what month" or "what day" asks, or a
/// "what"/"which"/"on"/"by" question names a date.
fn date_asked(q: &Asked) -> bool {
    [
        "what date",
        "which date",
        "what year",
        "which year",
        "what month",
        "what day",
    ]
    .iter()
    .any(|p| q.has(p))
        || q.first == "when"
        || (matches!(q.first, "what" | "which" | "on" | "by") && q.any(&["date"]))
}

/// An identifier asked, unless "which" opens on a thing that is no identifier's head
/// ("which apiary number …" is read as an apiary).
fn identifier_asked(q: &Asked) -> bool {
    identifier(q.w)
        && !(q.first == "which"
            && q.w
                .get(1)
                .is_some_and(|x| !lexicon::is(Class::IdentifierHead, x)))
}

/// "Who", "whom", "whose", "what name", "what full name", "which officer".
fn person_asked(q: &Asked) -> bool {
    matches!(q.first, "who" | "whom" | "whose")
        || q.has("what name")
        || q.has("whose name")
        || (q.what() && q.w.get(2).is_some_and(|x| x == "name"))
        || (q.what()
            && q.w
                .get(1)
                .is_some_and(|x| lexicon::is(Class::PersonNoun, x)))
}

/// "Which company", "what agency".
fn organisation_asked(q: &Asked) -> bool {
    q.what()
        && q.w
            .get(1)
            .is_some_and(|x| lexicon::is(Class::OrganisationNoun, x))
}

/// Whether "how long" asks for a length ("How long is the bridge?"): after a form of
/// "to be", with no time word or word of lasting (lexicon class `lasting`) in view. "For how
/// long" asks for a time, and so does a passive after the subject ("how long are permits
/// issued", "… kept", "… held"): what is done to a thing lasts, its size does not.
fn how_long_a_thing(w: &[String]) -> bool {
    let s = format!(" {} ", w.join(" "));
    let Some(at) = w.windows(3).position(|p| {
        p[0] == "how" && p[1] == "long" && ["is", "are", "was", "were"].contains(&p[2].as_str())
    }) else {
        return false;
    };
    // The participle ends the question or comes before its agent or its span ("kept by
    // the clerk", "issued for"), not before a name ("the trail named after …").
    let rest = &w[at + 3..];
    let passive = rest.iter().enumerate().any(|(i, x)| {
        let participle = (x.len() > 4 && x.ends_with("ed"))
            || ["kept", "held", "given", "paid"].contains(&x.as_str());
        let after = rest.get(i + 1).map(String::as_str);
        participle && matches!(after, None | Some("for" | "by" | "under"))
    });
    !s.contains(" for how long ")
        && !passive
        && !w
            .iter()
            .any(|x| time_word(x.trim_end_matches('s')) || lexicon::is(Class::Lasting, x))
}

/// Whether the question asks for the number of one thing ("the number of the previous
/// RFI", "the solicitation number of this RFI"): an identifier, not a count of things.
fn number_of_one(w: &[String]) -> bool {
    let plural = |x: &String| {
        x.ends_with('s') && !["ss", "us", "is"].iter().any(|e| x.ends_with(e)) && x.len() > 3
    };
    w.windows(5).any(|p| {
        p[0] == "number"
            && p[1] == "of"
            && matches!(p[2].as_str(), "the" | "this" | "that" | "its")
            && ![&p[3], &p[4]].iter().any(|x| plural(x))
    })
}

/// The type of a "how many", "how much" or "what quantity" question: a quantity of the
/// unit family its counted words name, money for "how much" or a currency, else a count.
fn how_many_type(q: &Asked) -> Typed {
    let (w, counted) = (q.w, &q.counted);
    // "How many pounds does it cost": a currency, unless a weight is asked.
    let weighed = w
        .iter()
        .any(|x| matches!(x.as_str(), "weigh" | "weighs" | "weight" | "heavy"));
    let currency = counted
        .as_ref()
        .is_some_and(|c| c.iter().any(|x| ["dollar", "euro", "pound"].contains(x)));
    if currency && !weighed {
        return (AnswerType::Money, None, None);
    }
    // "How many trees per hectare?" counts trees: after "how many" only the words
    // counted name the unit.
    let named = match counted {
        Some(c) => family_unit_named(&c.iter().map(|x| x.to_string()).collect::<Vec<_>>()),
        None => family_unit_named(w),
    };
    if let Some(f) = named {
        return (AnswerType::Quantity, Some(f), None);
    }
    if q.has("how much") {
        return (AnswerType::Money, None, None);
    }
    (AnswerType::Quantity, Some(UnitFamily::Count), None)
}

/// Whether the question asks a price by "how much" ("How much does a permit for a fence
/// lower than 2 metres cost?": the measure is the condition the price is asked under) or
/// asks its value in a currency ("in USD", "in euros").
fn price_asked(q: &Asked) -> bool {
    (q.has("how much") && q.any_of(Class::CostWord))
        || q.w
            .windows(2)
            .any(|p| p[0] == "in" && lexicon::is(Class::CurrencyName, &p[1]))
}

/// The family of a unit word the question names, not written after one of its own
/// figures (a unit there is its condition: "more than 5 hectares").
fn family_unit_named(w: &[String]) -> Option<UnitFamily> {
    w.iter().enumerate().find_map(|(i, x)| {
        let after_figure = i > 0 && w[i - 1].chars().any(|c| c.is_ascii_digit());
        if after_figure {
            return None;
        }
        FAMILY_UNITS
            .iter()
            .find(|(u, _)| x.trim_end_matches('s') == *u || x.starts_with(u))
            .map(|(_, f)| *f)
            .or_else(|| {
                // A unit of another family spelt out ("how many megawatts"); a letter or
                // two ("m", "t") is too short to be read as one in a question.
                let long = x.chars().count() > 2;
                long.then(|| crate::value::typed::named_unit(x))
                    .flatten()
                    .map(|(f, _)| f)
            })
    })
}

/// The unit a question asks its value in: "in kg", "in square metres", or the unit
/// counted by "how many" ("how many tonnes"); `None` for a unit written after one of the
/// question's own figures (a condition).
fn unit_asked(w: &[String]) -> Option<(UnitFamily, &'static str)> {
    w.iter().enumerate().find_map(|(i, x)| {
        let prev = i.checked_sub(1).map(|j| w[j].as_str());
        let prev2 = i.checked_sub(2).map(|j| w[j].as_str());
        let asked = prev == Some("in") || (prev == Some("many") && prev2 == Some("how"));
        // "in mg/m³": the words split at the slash are one unit.
        let whole = w.get(i + 1).map(|next| format!("{x}/{next}"));
        let named = whole
            .and_then(|u| crate::value::typed::named_unit(&u))
            .or_else(|| crate::value::typed::named_unit(x));
        asked.then_some(named).flatten()
    })
}

/// Whether a "what"/"which" question asks for a limit by name ("What page limit is
/// requested?", "What is the minimum length of a password?"): a limit word among its
/// first five words, and no kind or type of it asked for.
fn limit_asked(q: &Asked) -> bool {
    q.what()
        && q.w.iter().take(5).any(|x| lexicon::is(Class::LimitWord, x))
        && !q.any(&["type", "kind", "types", "kinds"])
}

/// Whether the question asks for a time of day ("At what time must the gate be locked?",
/// "What time does the office open?"): "what time" or "which time", not a span ("within
/// what time", "what time limit", "what time period", "what time of year").
fn time_of_day_asked(w: &[String]) -> bool {
    w.windows(2).enumerate().any(|(i, p)| {
        let before = i.checked_sub(1).map(|j| w[j].as_str());
        let after = w.get(i + 2).map(String::as_str);
        matches!(p[0].as_str(), "what" | "which")
            && p[1] == "time"
            && !matches!(before, Some("within" | "in" | "for"))
            && !matches!(
                after,
                Some("limit" | "limits" | "period" | "periods" | "frame" | "of" | "span" | "scale")
            )
    })
}

/// The unit family of a measure the question names near its start (`temperature`,
/// `area`, `weight`, `volume`, `distance`).
fn family_asked(w: &[String]) -> Option<UnitFamily> {
    let first = w.first()?.as_str();
    if !matches!(first, "what" | "which") {
        return None;
    }
    let named = |x: &str| crate::lexicon::units::measure_named(x).and_then(UnitFamily::from_key);
    // "the maximum submission size", "the file size limit": a size in bytes.
    let data = w.windows(2).any(|p| {
        p[1] == "size"
            && matches!(
                p[0].as_str(),
                "file" | "submission" | "attachment" | "upload" | "document" | "email" | "message"
            )
    });
    if data {
        return Some(UnitFamily::Data);
    }
    // "What length of time …" asks for a duration.
    if w.windows(3)
        .any(|p| p[0] == "length" && p[1] == "of" && p[2] == "time")
    {
        return None;
    }
    // The measure names what is asked for, before any place or time it is asked about
    // ("what football club plays in the area between …" asks for a club).
    let asked: Vec<&String> = w
        .iter()
        .take(7)
        .take_while(|x| !lexicon::is(Class::PlacePreposition, x))
        .collect();
    asked.iter().enumerate().find_map(|(i, x)| {
        let pair = asked.get(i + 1).map(|y| format!("{x} {y}"));
        pair.as_deref().and_then(named).or_else(|| named(x))
    })
}

/// "How" and an adjective of measure ("how wide", "how heavy"): the family of a measure
/// the question names, else the adjective's; not when it names money ("how high is the
/// fee").
fn measure_asked(q: &Asked) -> Option<UnitFamily> {
    if q.first != "how" || q.any_of(Class::MoneyWord) {
        return None;
    }
    let by = crate::lexicon::units::measure_asked_by(q.w.get(1)?)?;
    let named =
        q.w.iter()
            .find_map(|x| crate::lexicon::units::measure_named(x));
    UnitFamily::from_key(named.unwrap_or(by))
}

/// Whether a "what"/"which" question asks for money: a money word or phrase (lexicon
/// classes `money_word`, `money_phrase`), and not for a type or kind of it.
fn asks_money(q: &Asked) -> bool {
    let phrase = lexicon::words(Class::MoneyPhrase).iter().any(|p| q.has(p));
    q.what()
        && (q.any_of(Class::MoneyWord) || phrase)
        && !q.any(&["type", "kind", "types", "kinds"])
}

/// Whether a question asks for a count by
/// name: "a population of what", "what was the Permit count", "what capacity", "what
/// value" when the question names figures (a table's row and column).
fn counted_by_name(q: &Asked) -> bool {
    let (w, s, any) = (q.w, &q.s, |l: &[&str]| q.any(l));
    let of_what = w.windows(2).any(|p| p[0] == "of" && p[1] == "what");
    let what = q.what();
    // "What value applies when …", "what is the value for …", "in Table 3, what is the
    // Female 'Total' column value for …": a table's figure.
    let cell_value = w
        .windows(2)
        .any(|p| matches!(p[0].as_str(), "column" | "row" | "cell" | "table") && p[1] == "value");
    let value = ([
        "what value",
        "what is the value",
        "what figure",
        "what is the figure",
    ]
    .iter()
    .any(|p| s.contains(&format!(" {p} ")))
        && w.iter().any(|x| x.chars().any(|c| c.is_ascii_digit())))
        || (cell_value && s.contains(" what "));
    (any(&["population"]) && (what || of_what))
        || (what && any(&["count", "tally", "headcount", "capacity", "consumption"]))
        || value
}

/// Whether the question asks for an identifier: `… number`, `… no.`, `… code`,
/// `identifier`, `ISBN`, a ZIP code.
fn identifier(w: &[String]) -> bool {
    w.iter()
        .any(|x| matches!(x.as_str(), "identifier" | "isbn" | "issn" | "zip"))
        || w.windows(2).any(|p| {
            matches!(p[1].as_str(), "number" | "no" | "code" | "id")
                && (lexicon::is(Class::IdentifierHead, &p[0]) || p[0] == "what" || p[0] == "which")
        })
}

#[cfg(test)]
mod tests;
