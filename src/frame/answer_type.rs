//! The answer type of a question, with the unit family and the unit it counts in, read
//! from its wording by the first rule that fires (the order the module root lists):
//! yes/no, telephone, email, percentage, a measure (a quantity, a duration, money), then
//! a date, a name, an identifier or text.

use super::{AnswerType, UnitFamily, AUXILIARIES, FAMILY_UNITS, TIME};

/// Words that make a question ask for money.
const MONEY: &[&str] = &[
    "cost",
    "costs",
    "fee",
    "fees",
    "fine",
    "fines",
    "penalty",
    "price",
    "budget",
    "funding",
    "salary",
    "wage",
    "payment",
    "paid",
    "pay",
    "airfare",
    "fare",
    "disbursements",
    "receipts",
    "cash",
    "revenue",
    "expenditure",
    "expenditures",
    "spent",
    "spend",
    "dollars",
    "euros",
    "charge",
    "allocate",
    "allocated",
    "grant",
    "grants",
    "worth",
    "premium",
    "rent",
    "tuition",
    "turnover",
    "debt",
    "dividend",
    "dividends",
    "profit",
    "profits",
    "income",
    "capex",
];

/// Words before `number`, `no.` or `code` that make it an identifier.
const IDENTIFIER_HEADS: &[&str] = &[
    "identification",
    "identifier",
    "docket",
    "case",
    "file",
    "registration",
    "permit",
    "license",
    "licence",
    "solicitation",
    "contract",
    "account",
    "serial",
    "reference",
    "tracking",
    "zip",
    "postal",
    "isbn",
    "issn",
    "policy",
    "project",
    "document",
    "form",
    "rfi",
    "catalog",
    "catalogue",
    "part",
    "model",
    "tax",
    "ein",
    "tin",
    "control",
    "omb",
];

/// Words naming an organisation as the thing asked for.
const ORGANISATIONS: &[&str] = &[
    "company",
    "agency",
    "organisation",
    "organization",
    "firm",
    "bank",
    "department",
    "office",
    "entity",
    "authority",
    "body",
    "court",
    "committee",
    "institution",
    "provider",
    "providers",
    "publisher",
    "contractor",
    "vendor",
    "lender",
];

/// Words naming a person as the thing asked for.
const PEOPLE: &[&str] = &[
    "person",
    "officer",
    "director",
    "president",
    "treasurer",
    "secretary",
    "contact",
    "manager",
    "chair",
    "signatory",
    "author",
    "owner",
    "employee",
    "practitioner",
];

/// The answer type (with a unit family and unit) of a question's lower-case words.
pub(super) fn answer_type(w: &[String]) -> (AnswerType, Option<UnitFamily>, Option<String>) {
    let s = format!(" {} ", w.join(" "));
    let has = |p: &str| s.contains(&format!(" {p} "));
    let any = |l: &[&str]| w.iter().any(|x| l.contains(&x.as_str()));
    // The unit counted: the word after `how many` (through one filler such as
    // `calendar`), or a time word anywhere for `how long`.
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
        Some(next) => next
            .iter()
            .find(|x| TIME.contains(x))
            .map(|x| x.to_string()),
        None => w
            .iter()
            .map(|x| x.trim_end_matches('s'))
            .find(|x| TIME.contains(x))
            .map(str::to_string),
    };
    let first = w.first().map_or("", String::as_str);
    if AUXILIARIES.contains(&first) {
        return (AnswerType::YesNo, None, None);
    }
    if any(&["telephone", "phone", "fax"]) {
        return (AnswerType::Phone, None, None);
    }
    if any(&["email", "e-mail"]) {
        return (AnswerType::Email, None, None);
    }
    if any(&["percentage", "percent"])
        || has("what share")
        || has("what proportion")
        || has("interest rate")
    {
        return (AnswerType::Percentage, None, Some("percent".into()));
    }
    measured_type(w, first, &counted, time_unit)
}

/// Words that make "how long is …" ask for a time: something lasts, holds or is kept.
const STATES: &[&str] = &[
    "take",
    "takes",
    "took",
    "last",
    "lasts",
    "lasted",
    "period",
    "term",
    "valid",
    "effective",
    "open",
    "active",
    "available",
    "retained",
    "kept",
    "stored",
    "suspended",
    "closed",
    "eligible",
    "binding",
    "enforced",
    "good",
    "delay",
    "wait",
    "stay",
    "notice",
    "review",
    "process",
    "processing",
    "training",
    "course",
    "program",
    "programme",
];

/// Whether "how long" asks for a length ("How long is the bridge?"): after a form of
/// "to be", with no time word or word of lasting (see [`STATES`]) in view. "For how
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
            .any(|x| TIME.contains(&x.trim_end_matches('s')) || STATES.contains(&x.as_str()))
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

/// The type of a question that asks for a measure (a quantity, a duration, money), and
/// else [`named_type`].
fn measured_type(
    w: &[String],
    first: &str,
    counted: &Option<Vec<&str>>,
    time_unit: Option<String>,
) -> (AnswerType, Option<UnitFamily>, Option<String>) {
    let s = format!(" {} ", w.join(" "));
    let has = |p: &str| s.contains(&format!(" {p} "));
    let any = |l: &[&str]| w.iter().any(|x| l.contains(&x.as_str()));
    if let Some(t) = unit_or_price(w) {
        return t;
    }
    if let Some(f) = family_asked(w) {
        return (AnswerType::Quantity, Some(f), None);
    }
    if counted_by_name(w, first) {
        return (AnswerType::Quantity, Some(UnitFamily::Count), None);
    }
    // "What is the number of …", "What was the total number of …": the number asked is
    // the head; "which apiary is exempt from the limits on the number of colonies" asks
    // for an apiary.
    let number_of = w
        .windows(3)
        .take(5)
        .find(|p| p[0] == "number" && p[1] == "of")
        .map(|p| p[2].trim_end_matches('s').to_string());
    if number_of_one(w) && first != "how" {
        return (AnswerType::Identifier, None, None);
    }
    if let Some(n) = &number_of {
        if TIME.contains(&n.as_str()) {
            return (AnswerType::Duration, None, Some(n.clone()));
        }
        if matches!(first, "what" | "which") {
            return (AnswerType::Quantity, Some(UnitFamily::Count), None);
        }
    }
    if how_long_a_thing(w) {
        return (AnswerType::Quantity, Some(UnitFamily::Length), None);
    }
    if has("how long")
        || has("how often")
        || has("what length of time")
        || has("what time limit")
        || has("what time period")
        || (has("how many") && time_unit.is_some())
        || any(&["duration"])
    {
        return (
            AnswerType::Duration,
            None,
            time_unit.filter(|_| !has("how long")),
        );
    }
    if has("how many") || has("how much") || has("what quantity") {
        return how_many_type(w, counted);
    }
    if asks_money(w, first) {
        return (AnswerType::Money, None, None);
    }
    if limit_asked(w, first) {
        return match time_unit {
            Some(u) => (AnswerType::Duration, None, Some(u)),
            None => (AnswerType::Quantity, Some(UnitFamily::Count), None),
        };
    }
    named_type(w, first)
}

/// The type of a "how many", "how much" or "what quantity" question: a quantity of the
/// unit family its counted words name, money for "how much" or a currency, else a count.
fn how_many_type(
    w: &[String],
    counted: &Option<Vec<&str>>,
) -> (AnswerType, Option<UnitFamily>, Option<String>) {
    let s = format!(" {} ", w.join(" "));
    let has = |p: &str| s.contains(&format!(" {p} "));
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
    if has("how much") {
        return (AnswerType::Money, None, None);
    }
    (AnswerType::Quantity, Some(UnitFamily::Count), None)
}

/// The type of a question that names the unit it asks in ("in kg", "how many tonnes":
/// a value in another unit of that family is converted to it) or asks a price by "how
/// much" ("How much does a permit for a fence lower than 2 metres cost?": the measure is
/// the condition the price is asked under).
fn unit_or_price(w: &[String]) -> Option<(AnswerType, Option<UnitFamily>, Option<String>)> {
    if let Some((f, unit)) = unit_asked(w) {
        return Some((AnswerType::Quantity, Some(f), Some(unit.to_string())));
    }
    let s = format!(" {} ", w.join(" "));
    let cost = w.iter().any(|x| COST_WORDS.contains(&x.as_str()));
    ((s.contains(" how much ") && cost) || in_currency(w)).then_some((
        AnswerType::Money,
        None,
        None,
    ))
}

/// Whether the question asks its value in a currency ("in USD", "in euros", "in
/// dollars"): an amount of money.
fn in_currency(w: &[String]) -> bool {
    w.windows(2).any(|p| {
        p[0] == "in"
            && matches!(
                p[1].as_str(),
                "usd" | "eur" | "gbp" | "chf" | "jpy" | "euros" | "euro" | "dollars" | "sterling"
            )
    })
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

/// Words that say a price is asked ("how much does … cost").
const COST_WORDS: &[&str] = &[
    "cost", "costs", "charge", "charged", "charges", "fee", "fees", "pay", "paid", "price",
];

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

/// Words that name a limit: what is asked for is a number.
const LIMITS: &[&str] = &["limit", "limits", "maximum", "minimum", "cap", "ceiling"];

/// Whether a "what"/"which" question asks for a limit by name ("What page limit is
/// requested?", "What is the minimum length of a password?"): a limit word among its
/// first five words, and no kind or type of it asked for.
fn limit_asked(w: &[String], first: &str) -> bool {
    matches!(first, "what" | "which")
        && w.iter().take(5).any(|x| LIMITS.contains(&x.as_str()))
        && !w
            .iter()
            .any(|x| matches!(x.as_str(), "type" | "kind" | "types" | "kinds"))
}

/// The type of a question that asks for a date, a name, an identifier or text.
fn named_type(w: &[String], first: &str) -> (AnswerType, Option<UnitFamily>, Option<String>) {
    let s = format!(" {} ", w.join(" "));
    let has = |p: &str| s.contains(&format!(" {p} "));
    let any = |l: &[&str]| w.iter().any(|x| l.contains(&x.as_str()));
    if time_of_day_asked(w) {
        return (AnswerType::Time, None, None);
    }
    if has("what date")
        || has("which date")
        || first == "when"
        || has("what year")
        || has("which year")
        || has("what month")
        || has("what day")
        || (matches!(first, "what" | "which" | "on" | "by") && any(&["date"]))
    {
        return (AnswerType::Date, None, None);
    }
    if has("what period") || has("which period") || has("what time period") {
        return (AnswerType::Period, None, None);
    }
    if identifier(w)
        && !(first == "which"
            && w.get(1)
                .is_some_and(|x| !IDENTIFIER_HEADS.contains(&x.as_str())))
    {
        return (AnswerType::Identifier, None, None);
    }
    if first == "who"
        || first == "whom"
        || first == "whose"
        || has("what name")
        || has("whose name")
        // "What full name …", "What other name …"
        || (matches!(first, "which" | "what") && w.get(2).is_some_and(|x| x == "name"))
        || (matches!(first, "which" | "what")
            && w.get(1).is_some_and(|x| PEOPLE.contains(&x.as_str())))
    {
        return (AnswerType::Person, None, None);
    }
    if matches!(first, "which" | "what")
        && w.get(1)
            .is_some_and(|x| ORGANISATIONS.contains(&x.as_str()))
    {
        return (AnswerType::Organisation, None, None);
    }
    if has("mean") || has("define") || has("defined") || has("definition") {
        return (AnswerType::Definition, None, None);
    }
    if (first == "what" && w.get(1).is_some_and(|x| x == "must" || x == "shall"))
        || has("is required")
        || has("are required")
    {
        return (AnswerType::Obligation, None, None);
    }
    if first == "why" || first == "how" {
        return (AnswerType::Explanation, None, None);
    }
    if has("what are")
        || has("which are")
        || (first == "which"
            && w.get(1)
                .is_some_and(|x| x.ends_with('s') && !x.ends_with("ss")))
    {
        return (AnswerType::List, None, None);
    }
    (AnswerType::Text, None, None)
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
    let named = |x: &str| match x {
        "temperature" => Some(UnitFamily::Temperature),
        "area" | "acreage" => Some(UnitFamily::Area),
        "weight" | "mass" => Some(UnitFamily::Mass),
        "volume" => Some(UnitFamily::Volume),
        "distance" | "height" | "depth" | "width" | "length" | "thickness" | "diameter"
        | "radius" | "elevation" | "altitude" => Some(UnitFamily::Length),
        "megabytes" | "gigabytes" | "kilobytes" | "bytes" => Some(UnitFamily::Data),
        "pressure" => Some(UnitFamily::Pressure),
        "speed" | "velocity" => Some(UnitFamily::Speed),
        _ => None,
    };
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
    w.iter()
        .take(7)
        .take_while(|x| !PLACE_WORDS.contains(&x.as_str()))
        .find_map(|x| named(x))
}

/// Phrases that ask for an amount of money.
const MONEY_PHRASES: &[&str] = &[
    "what amount",
    "which amount",
    "maximum amount",
    "minimum amount",
    "total amount",
    "amount of money",
    "contract value",
    "estimated value",
    "dollar value",
    "market value",
    "total value",
];

/// Whether a "what"/"which" question (lower-case words `w`, first word `first`) asks for
/// money: a money word or phrase, and not for a type or kind of it.
fn asks_money(w: &[String], first: &str) -> bool {
    let s = format!(" {} ", w.join(" "));
    let any = |l: &[&str]| w.iter().any(|x| l.contains(&x.as_str()));
    let phrase = MONEY_PHRASES.iter().any(|p| s.contains(&format!(" {p} ")));
    matches!(first, "what" | "which")
        && (any(MONEY) || phrase)
        && !any(&["type", "kind", "types", "kinds"])
}

/// Whether a question (lower-case words `w`, first word `first`) asks for a count by
/// name: "a population of what", "what was the Permit count", "what capacity", "what
/// value" when the question names figures (a table's row and column).
fn counted_by_name(w: &[String], first: &str) -> bool {
    let any = |l: &[&str]| w.iter().any(|x| l.contains(&x.as_str()));
    let of_what = w.windows(2).any(|p| p[0] == "of" && p[1] == "what");
    let what = matches!(first, "what" | "which");
    let s = format!(" {} ", w.join(" "));
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

/// Prepositions that open where or when something is, after what is asked for.
const PLACE_WORDS: &[&str] = &[
    "in", "at", "on", "between", "from", "near", "within", "inside",
];

/// Whether the question asks for an identifier: `… number`, `… no.`, `… code`,
/// `identifier`, `ISBN`, a ZIP code.
fn identifier(w: &[String]) -> bool {
    w.iter()
        .any(|x| matches!(x.as_str(), "identifier" | "isbn" | "issn" | "zip"))
        || w.windows(2).any(|p| {
            matches!(p[1].as_str(), "number" | "no" | "code" | "id")
                && (IDENTIFIER_HEADS.contains(&p[0].as_str()) || p[0] == "what" || p[0] == "which")
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::{frame, Extreme};

    fn ty(q: &str) -> AnswerType {
        frame(q).answer_type
    }

    #[test]
    fn units_of_every_family_and_times_of_day_are_asked_for() {
        let fam = |q: &str| {
            let f = frame(q);
            (f.answer_type, f.unit_family, f.unit)
        };
        let q = AnswerType::Quantity;
        assert_eq!(
            fam("What is the output in MW?"),
            (q, Some(UnitFamily::Power), Some("MW".into()))
        );
        assert_eq!(
            fam("What is the dust limit in mg/m³?"),
            (q, Some(UnitFamily::Concentration), Some("mg/m3".into()))
        );
        assert_eq!(
            fam("How many megawatt-hours are stored?").1,
            Some(UnitFamily::Energy)
        );
        assert_eq!(
            fam("What is the maximum pressure of the vessel?").1,
            Some(UnitFamily::Pressure)
        );
        // "How many trees per hectare": trees are counted.
        assert_eq!(
            fam("How many trees are planted per hectare?").1,
            Some(UnitFamily::Count)
        );
        assert_eq!(
            ty("What time must the south gate be locked?"),
            AnswerType::Time
        );
        assert_eq!(ty("At what time does the office open?"), AnswerType::Time);
        assert_eq!(
            frame("At what time is the gate locked?").focus,
            ["gate", "locked"]
        );
        assert_eq!(
            frame("How many megawatt-hours can the battery store?").focus,
            ["battery", "store"]
        );
        assert_ne!(
            ty("Within what time must a complaint be filed?"),
            AnswerType::Time
        );
        assert_ne!(ty("What time limit applies to appeals?"), AnswerType::Time);
        assert_eq!(ty("What was the turnover in EUR?"), AnswerType::Money);
        assert_eq!(ty("What dividend was paid per share?"), AnswerType::Money);
    }

    #[test]
    fn a_framing_phrase_an_amount_and_a_number_of_one_thing_are_read() {
        assert_eq!(
            ty("In the Estimated Costs table, what is the cost on U.S. operators for the test?"),
            AnswerType::Money
        );
        assert_eq!(
            ty("According to the disclaimer, do these statistics represent sales?"),
            AnswerType::YesNo
        );
        assert_eq!(
            ty("On line 2 of the worksheet, what amount is entered?"),
            AnswerType::Money
        );
        assert_eq!(
            ty("What was the number of the previous Lighthouse RFI archived on FBO?"),
            AnswerType::Identifier
        );
        assert_eq!(
            ty("What is the solicitation number of this (second) RFI?"),
            AnswerType::Identifier
        );
        assert_eq!(
            ty("For an OTP device whose nonce is based on a clock, how often must it change?"),
            AnswerType::Duration
        );
        assert_eq!(
            ty("What is the number of the employees on site?"),
            AnswerType::Quantity
        );
        assert_eq!(
            frame("If the highest paying job pays weekly, how many pay periods are entered?")
                .extreme,
            None
        );
        let f = frame("What is the maximum submission size?");
        assert_eq!(
            (f.answer_type, f.unit_family, f.extreme),
            (
                AnswerType::Quantity,
                Some(UnitFamily::Data),
                Some(Extreme::Max)
            )
        );
        assert_eq!(
            frame("What is the highest fine?").extreme,
            Some(Extreme::Max)
        );
    }

    #[test]
    fn named_things_side_by_side_are_alternatives() {
        let f = frame("Who died first, Bryce Courtenay or Juan Carlos Onetti?");
        assert!(f.either);
        assert_eq!(f.answer_type, AnswerType::Text);
        assert!(frame("Are Ferocactus and Silene both types of plant?").either);
        assert!(!frame("Did Edward Kelly sign the report of the Springfield office?").either);
        let f = frame("How long is the bridge that connects Copenhagen and Malmo?");
        assert_eq!(
            (f.answer_type, f.unit_family),
            (AnswerType::Quantity, Some(UnitFamily::Length))
        );
        assert_eq!(
            ty("How long is the retention period in years?"),
            AnswerType::Duration
        );
        // What is done to a thing lasts; "for how long" asks for a time.
        for q in [
            "For how long are moorings on the east pier assigned?",
            "How long are moorings on the east pier assigned?",
            "How long are inspection reports kept by the clerk?",
            "For how long is the bridge closed?",
        ] {
            assert_eq!(ty(q), AnswerType::Duration, "{q}");
        }
        let f = frame("How long is the trail named after the founder?");
        assert_eq!(f.unit_family, Some(UnitFamily::Length));
        // A length asked by name is a measure, whatever bound it carries.
        let f = frame("What is the maximum length of the haul trucks allowed on site?");
        assert_eq!(f.unit_family, Some(UnitFamily::Length));
        assert_eq!(
            ty("What length of time may a permit holder appeal?"),
            AnswerType::Duration
        );
        assert_eq!(
            frame("Under the county code, for how long must a client record be retained?")
                .head
                .as_deref(),
            Some("record")
        );
        assert_eq!(
            ty("How long is this medical release authorization valid?"),
            AnswerType::Duration
        );
    }

    #[test]
    fn a_limit_asked_by_name_is_a_number() {
        assert_eq!(
            ty("What page limit is requested for responses?"),
            AnswerType::Quantity
        );
        assert_eq!(
            ty("What is the minimum length of a password?"),
            AnswerType::Quantity
        );
        assert_eq!(
            ty("What is the maximum number of days of suspension?"),
            AnswerType::Duration
        );
        assert_eq!(
            ty("What is the minimum fine for a breach?"),
            AnswerType::Money
        );
        assert_ne!(
            ty("What type of limit applies to grants?"),
            AnswerType::Quantity
        );
    }

    #[test]
    fn a_table_s_figure_and_a_numbered_item_are_read() {
        assert_eq!(
            ty("In Table 3, what is the Female 'Total' column value for vandalism?"),
            AnswerType::Quantity
        );
        assert_eq!(
            ty("In Table 3, what is the value for a higher paying job of $0 - 9,999?"),
            AnswerType::Quantity
        );
        let f = frame("In Figure 1, what is strategic objective 3.6?");
        assert!(f.numbers_item("3.6: Explore a federal cyber insurance backstop"));
        assert!(!f.numbers_item("3.61: Another objective") && !f.numbers_item("See 3.6 below"));
    }

    #[test]
    fn answer_types_follow_the_wording() {
        assert_eq!(
            ty("What is the treasurer's telephone number?"),
            AnswerType::Phone
        );
        assert_eq!(
            ty("What value applies when the higher paying job earns $0 - 9,999?"),
            AnswerType::Quantity
        );
        assert_eq!(ty("What is the value of the shares?"), AnswerType::Text);
        assert_eq!(
            ty("How long must client records be retained?"),
            AnswerType::Duration
        );
        assert_eq!(
            ty("How many days does the agency have to respond?"),
            AnswerType::Duration
        );
        assert_eq!(
            ty("How many checks were denied in Texas?"),
            AnswerType::Quantity
        );
        assert_eq!(
            ty("How many hectares does the project cover?"),
            AnswerType::Quantity
        );
        assert_eq!(
            frame("How many hectares does the project cover?").unit_family,
            Some(UnitFamily::Area)
        );
        assert_eq!(
            ty("What is the minimum fine for a prohibited practice?"),
            AnswerType::Money
        );
        assert_eq!(ty("How much funding did NIST allocate?"), AnswerType::Money);
        assert_eq!(
            ty("What percentage of payments must payers withhold?"),
            AnswerType::Percentage
        );
        assert_eq!(
            ty("On what date does the regulation expire?"),
            AnswerType::Date
        );
        assert_eq!(ty("When did the director resign?"), AnswerType::Date);
        assert_eq!(
            ty("What period does this report cover?"),
            AnswerType::Period
        );
        assert_eq!(
            ty("What docket number is assigned to the AD?"),
            AnswerType::Identifier
        );
        assert_eq!(
            ty("What is the committee's ZIP code?"),
            AnswerType::Identifier
        );
        assert_eq!(ty("Who is the contracting officer?"), AnswerType::Person);
        assert_eq!(
            ty("What full name is entered on the form?"),
            AnswerType::Person
        );
        assert_eq!(
            ty("Which agency issued the order?"),
            AnswerType::Organisation
        );
        assert_eq!(
            ty("Do these statistics represent firearms sold?"),
            AnswerType::YesNo
        );
        assert_eq!(
            ty("How does the Regulation define a confiscation order?"),
            AnswerType::Definition
        );
        assert_eq!(
            ty("Why does the guide prefer federal loans?"),
            AnswerType::Explanation
        );
        assert_eq!(ty("What happens to the money obtained?"), AnswerType::Text);
    }
}
