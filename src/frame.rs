//! The question frame: what a question asks for, read before research by fixed rules.
//!
//! - **Answer type** (a closed enum, [`AnswerType`]): from the question's wording, first
//!   rule that fires — yes/no (opens with an auxiliary verb), telephone and email (named),
//!   percentage, duration (`how long`, `how many days`), a quantity of a unit family
//!   (`how many hectares`; `how many` anything else is a count), money (`how much`, or a
//!   money word: cost, fee, fine, penalty, price, budget …), date (`when`, `what date`,
//!   `what year`), period (`what period`), identifier (`… number`, `code`, `identifier`),
//!   person (`who`, `whose`, `what name`), organisation (`which company`, `agency` …),
//!   definition (`what does … mean`, `how … define`), obligation (`what must`), explanation
//!   (`why`, `how`), list (`what are`, `which` + plural); otherwise free text.
//! - **Focus**: the question's content words less its scaffold (question words, the
//!   type's own words, words that only point at a place in a form such as `column` or
//!   `line`), the named things and the periods — what the answer must be about.
//! - **Constraints**: named things (capitalised words not opening the question, quoted
//!   strings), periods ([`crate::period`]), a bound (`minimum`/`at least` vs
//!   `maximum`/`up to`), an order (`first`/`latest`), the role of a date (effective,
//!   application, expiry, deadline, issue, signature), the unit a duration is counted in.
//!
//! `ask` checks an answer against the frame (see `ask::decide`); `--explain` and `--json`
//! show it as `question_frame`.

use serde::{Deserialize, Serialize};

use crate::lexicon::{self, Class};

pub use crate::value::typed::{AnswerType, UnitFamily};

/// A bound a question asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Extreme {
    /// The least allowed or stated (`minimum`, `at least`, `no less than`).
    Min,
    /// The most allowed or stated (`maximum`, `up to`, `at most`).
    Max,
}

/// Which of several values a question asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    /// The first (`first`, `earliest`, `initial`).
    First,
    /// The last (`latest`, `last`, `most recent`, `current`).
    Latest,
}

/// What a date asked for marks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DateRole {
    /// When something takes effect or enters into force.
    Effective,
    /// When something applies from.
    Application,
    /// When something expires, ends or ceases.
    Expiry,
    /// When something is due (a deadline: `by what date`, `due`, `submit`).
    Deadline,
    /// When something was issued, published, released or adopted.
    Issue,
    /// When something was signed.
    Signature,
    /// When something was founded, established, built or opened.
    Founding,
}

impl DateRole {
    /// Word stems a passage stating a date of this role uses near it.
    pub fn cues(self) -> &'static [&'static str] {
        match self {
            DateRole::Effective => &["effective", "force", "takes effect", "commence"],
            // "apply from", "applies", "application" — never "applicable", "applicant".
            DateRole::Application => &["apply", "applies", "applied", "applying", "application"],
            DateRole::Expiry => &[
                "expir",
                "cease",
                "end",
                "terminat",
                "until",
                "repeal",
                "lapse",
                "sunset",
                "no longer",
            ],
            DateRole::Deadline => &[
                "by",
                "before",
                "no later",
                "not later",
                "due",
                "deadline",
                "within",
                "until",
            ],
            DateRole::Issue => &["issue", "publish", "release", "adopt", "done at", "dated"],
            DateRole::Signature => &["sign", "done at", "dated"],
            DateRole::Founding => &[
                "found",
                "establish",
                "built",
                "construct",
                "creat",
                "formed",
                "opened",
                "incorporat",
                "dates back",
                "date back",
                "since",
            ],
        }
    }
}

/// The typed frame of a question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Frame {
    /// The type of the expected answer.
    pub answer_type: AnswerType,
    /// The unit family, for quantities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit_family: Option<UnitFamily>,
    /// The unit the question counts in (`day`, `year`), when it names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
    /// What is asked about, in the question's words.
    pub focus: Vec<String>,
    /// Named things the answer must be about (people, places, documents, codes).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub entities: Vec<String>,
    /// Periods the answer must be about, as the question writes them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub periods: Vec<String>,
    /// A minimum or a maximum.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extreme: Option<Extreme>,
    /// The first or the latest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<Order>,
    /// What the date asked for marks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date_role: Option<DateRole>,
    /// Figures and codes the question quotes (`$365,000`, `DHAW20190045`), lower case:
    /// an item that states one is about the question.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub figures: Vec<String>,
    /// Every word of the question, lower case (what a passage's qualifiers are read
    /// against).
    #[serde(skip)]
    pub qualifiers: Vec<String>,
    /// The word naming what is asked for ("tuition" in "what was the average tuition at
    /// public colleges"): the last focus word before the first preposition or verb,
    /// participles aside.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
    /// The named things are compared or offered as alternatives ("Are A and B both …",
    /// "Who died first, A or B?"): a passage names one of them, not all.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub either: bool,
    /// The question describes what it asks about through something else (a relative
    /// clause, "who … and …", or five focus words or more): part of the description may
    /// be stated by another passage that links to the answer's (a bridge).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub composite: bool,
    /// The question asks about the document it is put to ("What revision date does this
    /// Form W-9 carry?"): see [`points_at_document`].
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub itself: bool,
}

/// Words naming a document, after which "this" points at the document itself ("What
/// period does this report cover?"): what such a question asks is printed in the
/// document's head (its title, revision, period, docket, folio).
const DOCUMENT_NOUNS: &[&str] = &[
    "form",
    "report",
    "notice",
    "document",
    "page",
    "release",
    "rule",
    "filing",
    "permit",
    "statement",
    "publication",
    "bulletin",
    "directive",
    "memo",
    "memorandum",
    "letter",
    "certificate",
    "circular",
    "manual",
    "plan",
    "order",
    "decision",
    "issue",
];

/// Whether `q` points at a document itself: "this" followed, within the next two words,
/// by one of [`DOCUMENT_NOUNS`] ("this Form W-9", "this NICS report").
pub fn points_at_document(q: &str) -> bool {
    document_pointed_at(q).is_some()
}

/// The words naming the document `q` points at (see [`points_at_document`]): those
/// between "this" and the document noun, and the codes right after it ("nics" of "this
/// NICS report"; "w", "9" of "this Form W-9"). `None` when `q` points at no document.
pub fn document_pointed_at(q: &str) -> Option<Vec<String>> {
    let w = crate::text::words(&q.to_lowercase());
    let i = w.iter().position(|x| x == "this")?;
    let rest = &w[i + 1..];
    let noun = rest
        .iter()
        .take(2)
        .position(|n| DOCUMENT_NOUNS.contains(&n.as_str()))?;
    let mut out: Vec<String> = rest[..noun].to_vec();
    out.extend(
        rest[noun + 1..]
            .iter()
            .take(2)
            .take_while(|x| x.len() == 1 || x.chars().any(|c| c.is_ascii_digit()))
            .cloned(),
    );
    Some(out)
}

impl Frame {
    /// Whether `text` opens with a dotted number the question names an item by ("3.6:
    /// Explore a federal cyber insurance backstop" for "what is strategic objective
    /// 3.6?"): it is the very item asked about.
    pub fn numbers_item(&self, text: &str) -> bool {
        let text = text.trim_start().to_lowercase();
        self.figures.iter().any(|x| {
            let dotted = x.contains('.')
                && x.split('.')
                    .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
            dotted
                && text
                    .strip_prefix(x.as_str())
                    .is_some_and(|rest| rest.starts_with([':', ' ', ')', '\t']))
        })
    }
}

/// Words that ask rather than name what is asked about: stop words and the question
/// scaffolding of the lexicon.
const SCAFFOLD: &[Class] = &[
    Class::Stop,
    Class::Scaffold,
    Class::ScaffoldValue,
    Class::ScaffoldFrame,
];

/// Whether `w` (lower case) is a word of [`SCAFFOLD`].
fn scaffold(w: &str) -> bool {
    lexicon::is_any(SCAFFOLD, w)
}

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

/// Words naming a measure rather than a unit (units are read from the unit lexicon,
/// `lexicon/units.toml`).
const FAMILY_UNITS: &[(&str, UnitFamily)] = &[
    ("square", UnitFamily::Area),
    ("area", UnitFamily::Area),
    ("length", UnitFamily::Length),
    ("weight", UnitFamily::Mass),
    ("volume", UnitFamily::Volume),
    ("temperature", UnitFamily::Temperature),
];

/// Units of time.
const TIME: &[&str] = &[
    "day", "week", "month", "year", "decade", "century", "hour", "minute", "second",
];

/// Auxiliary verbs that open a yes/no question.
const AUXILIARIES: &[&str] = &[
    "is", "are", "was", "were", "does", "do", "did", "can", "could", "may", "must", "shall",
    "should", "will", "would", "has", "have", "had",
];

/// Words that open a framing phrase before the question proper ("In the Estimated Costs
/// table, what …", "According to the disclaimer, do …").
const FRAMING: &[&str] = &[
    "in",
    "on",
    "under",
    "according",
    "for",
    "from",
    "at",
    "per",
    "within",
    "as",
    "based",
];

/// Whether `text` states something rather than asks: no question mark, and no asking
/// word or request ("name", "list", "give", "describe" …) opens it.
pub fn is_statement(text: &str) -> bool {
    let w = lower_words(asking_text(text));
    let request = w.first().is_some_and(|x| {
        matches!(
            x.as_str(),
            "name" | "list" | "give" | "describe" | "explain" | "state" | "identify" | "tell"
        )
    });
    !text.trim_end().ends_with('?') && !w.first().is_some_and(|x| asks(x)) && !request
}

/// Words that ask: a wh-word or an auxiliary opening a yes/no question.
fn asks(x: &str) -> bool {
    matches!(
        x,
        "what" | "which" | "who" | "whom" | "whose" | "when" | "where" | "how" | "why"
    ) || AUXILIARIES.contains(&x)
}

/// The question proper: after a leading framing phrase that ends in a comma ("In the
/// Head of Household table on page 4, what is …" reads from "what"; "For an OTP device
/// whose nonce …, how often …" from "how"), else the whole question.
fn asking_text(question: &str) -> &str {
    let opens = lower_words(question)
        .first()
        .is_some_and(|x| FRAMING.contains(&x.as_str()));
    if !opens {
        return question;
    }
    // "…, for how long must …": a preposition may lead the asking words.
    let asking = |rest: &str| {
        let w = lower_words(rest);
        w.first().is_some_and(|x| asks(x))
            || (w.first().is_some_and(|x| FRAMING.contains(&x.as_str()))
                && w.get(1).is_some_and(|x| asks(x)))
    };
    match question.split_once(',') {
        Some((_, rest)) if asking(rest) => rest,
        _ => question,
    }
}

/// The question's words, lower case, with `'s` dropped.
fn lower_words(question: &str) -> Vec<String> {
    question
        .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '.' || c == '\''))
        .map(|w| {
            w.trim_matches(|c: char| c == '.' || c == '\'' || c == '-')
                .trim_end_matches("'s")
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect()
}

/// The bound asked for: a minimum or a maximum (see [`Extreme`]).
fn extreme(w: &[String]) -> Option<Extreme> {
    let has = |p: &str| format!(" {} ", w.join(" ")).contains(&format!(" {p} "));
    // A superlative that describes a thing ("the highest paying job") is no bound on
    // the value asked for.
    let bound = |p: &str| {
        has(p)
            && !w
                .windows(2)
                .any(|x| x[0] == p && x[1].ends_with("ing") && x[1].len() > 5)
    };
    if ["minimum", "at least", "no less than", "lowest", "smallest"]
        .iter()
        .any(|p| bound(p))
    {
        Some(Extreme::Min)
    } else if [
        "maximum",
        "at most",
        "up to",
        "no more than",
        "highest",
        "largest",
    ]
    .iter()
    .any(|p| bound(p))
    {
        Some(Extreme::Max)
    } else {
        None
    }
}

impl Frame {
    /// The words the question asks about: its focus and the words of its named things.
    pub fn asked_words(&self) -> Vec<String> {
        self.focus
            .iter()
            .cloned()
            .chain(
                self.entities
                    .iter()
                    .flat_map(|e| crate::text::words(&e.to_lowercase())),
            )
            .collect()
    }
}

/// Read `question` into its frame.
pub fn frame(question: &str) -> Frame {
    let question = &without_exclusions(question);
    let w = lower_words(question);
    let (answer_type, unit_family, unit) = answer_type(&lower_words(asking_text(question)));
    let entities = entities(question);
    let periods: Vec<String> = crate::period::periods(question)
        .into_iter()
        .map(|p| p.text)
        .collect();
    let has = |p: &str| format!(" {} ", w.join(" ")).contains(&format!(" {p} "));
    let extreme = extreme(&w);
    let order = if ["first", "earliest", "initial"].iter().any(|p| has(p)) {
        Some(Order::First)
    } else if ["latest", "most recent", "last", "current"]
        .iter()
        .any(|p| has(p))
    {
        Some(Order::Latest)
    } else {
        None
    };
    let date_role = matches!(answer_type, AnswerType::Date)
        .then(|| date_role(&w))
        .flatten();
    // A provision the question cites ("40 CFR 261.7") is no word of what is asked.
    let cited: Vec<String> = periods
        .iter()
        .cloned()
        .chain(
            crate::source::named::named_in(question)
                .into_iter()
                .map(|n| n.text),
        )
        .collect();
    let focus = focus(&w, &entities, &cited, answer_type);
    let figures = question
        .split_whitespace()
        .map(|x| {
            x.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .filter(|x| x.chars().any(|c| c.is_ascii_digit()) && x.len() >= 3)
        .filter(|x| crate::period::periods(x).is_empty())
        .collect();
    let head = head(&lower_words(asking_text(question)), &focus);
    let either = either(question, &entities);
    // "Who died first, A or B?": the answer is one of the named things, not a name to
    // read from a passage.
    let answer_type = match answer_type {
        AnswerType::Person | AnswerType::Organisation if either => AnswerType::Text,
        t => t,
    };
    let composite = composite(&w, &focus);
    Frame {
        itself: points_at_document(question),
        either,
        composite,
        head,
        figures,
        qualifiers: w.clone(),
        answer_type,
        unit_family,
        unit,
        focus,
        entities,
        periods,
        extreme,
        order,
        date_role,
    }
}

/// Words that open a clause describing a thing ("the film that …", "the actor who …").
const RELATIVES: &[&str] = &["that", "who", "which", "whose", "whom", "where"];

/// Whether a question (lower-case words `w`, focus `focus`) describes what it asks about
/// through something else: a relative word after its opening words, or a long focus.
fn composite(w: &[String], focus: &[String]) -> bool {
    focus.len() >= 5 || w.iter().skip(2).any(|x| RELATIVES.contains(&x.as_str()))
}

/// The answer type (with a unit family and unit) of a question's lower-case words.
fn answer_type(w: &[String]) -> (AnswerType, Option<UnitFamily>, Option<String>) {
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

/// The role of the date asked for.
fn date_role(w: &[String]) -> Option<DateRole> {
    let any = |l: &[&str]| w.iter().any(|x| l.iter().any(|p| x.starts_with(p)));
    if any(&["expir", "cease", "terminat", "lapse", "sunset", "repeal"])
        || w.iter().any(|x| x == "end" || x == "ends")
    {
        Some(DateRole::Expiry)
    } else if any(&["effective"]) || w.windows(2).any(|p| p[0] == "into" && p[1] == "force") {
        Some(DateRole::Effective)
    } else if applies(w) {
        Some(DateRole::Application)
    } else if any(&["sign"]) {
        Some(DateRole::Signature)
    } else if any(&["issu", "publish", "releas", "adopt"]) {
        Some(DateRole::Issue)
    } else if any(&[
        "founded",
        "establish",
        "built",
        "constructed",
        "incorporated",
    ]) {
        Some(DateRole::Founding)
    } else if w.first().is_some_and(|x| x == "by")
        || any(&["due", "deadline", "submit", "receive", "file", "filed"])
    {
        Some(DateRole::Deadline)
    } else {
        None
    }
}

/// Words that open what a question leaves out ("apart from Article 24").
const EXCLUSIONS: &[&str] = &[
    "apart from",
    "except for",
    "except",
    "excluding",
    "other than",
    "not including",
    "aside from",
];

/// `question` without what it leaves out: a bracket or a clause up to the next comma or
/// bracket that opens with one of [`EXCLUSIONS`]. What is left out names neither what
/// is asked for nor what the answer must be about.
fn without_exclusions(question: &str) -> String {
    let lower = question.to_lowercase();
    let mut out = question.to_string();
    for x in EXCLUSIONS {
        let Some(at) = lower.find(&format!("{x} ")) else {
            continue;
        };
        if lower.len() != question.len() || !question.is_char_boundary(at) {
            return out;
        }
        let open = question[..at].trim_end().ends_with(['(', ',']);
        let start = if open {
            question[..at].trim_end().len() - 1
        } else {
            at
        };
        let rest = &question[at..];
        let end = at
            + rest.find([')', ',', '?', ';']).map_or(rest.len(), |i| {
                if rest[i..].starts_with(')') && open {
                    i + 1
                } else {
                    i
                }
            });
        out = format!("{}{}", question[..start].trim_end(), &question[end..]);
        break;
    }
    out
}

/// Whether the question asks when something applies: a word of "apply", not a topic
/// after a determiner ("its first report on the application of the Regulation" asks
/// for a report's deadline).
fn applies(w: &[String]) -> bool {
    w.iter().enumerate().any(|(i, x)| {
        x.starts_with("appl")
            && !(i > 0
                && matches!(
                    w[i - 1].as_str(),
                    "the" | "its" | "their" | "this" | "that" | "an" | "a"
                ))
    })
}

/// The strings `question` puts in quotes (an apostrophe inside a word is not one).
fn quoted(question: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for q in ['\'', '"', '‘', '“'] {
        let close = match q {
            '‘' => '’',
            '“' => '”',
            c => c,
        };
        let mut rest = question;
        while let Some(i) = rest.find(q) {
            let after = &rest[i + q.len_utf8()..];
            // An apostrophe inside a word is not a quote.
            if q == '\''
                && rest[..i]
                    .chars()
                    .next_back()
                    .is_some_and(char::is_alphanumeric)
            {
                rest = after;
                continue;
            }
            let Some(j) = after.find(close) else { break };
            let inner = after[..j].trim();
            if !inner.is_empty() && inner.split_whitespace().count() <= 8 {
                out.push(inner.to_string());
            }
            rest = &after[j + close.len_utf8()..];
        }
    }
    out
}

/// Named things: quoted strings, and runs of capitalised (or code-like) words that do
/// not open the question, less the question's own scaffold.
fn entities(question: &str) -> Vec<String> {
    let periods = crate::period::periods(question);
    // "40 CFR 261.7", "Article 12": a provision the question names is held to by
    // `ask::select::hold_to_named`, not a name the evidence must repeat.
    let cited = crate::source::named::named_in(question);
    let mut out: Vec<String> = quoted(question);
    let mut run: Vec<&str> = Vec::new();
    let words: Vec<&str> = question.split_whitespace().collect();
    for (i, raw) in words.iter().enumerate() {
        let w = raw.trim_matches(|c: char| !c.is_alphanumeric());
        // "Norway's capacity" names Norway.
        let w = w
            .strip_suffix("'s")
            .or_else(|| w.strip_suffix("’s"))
            .unwrap_or(w);
        // The first word is capitalised anyway: it names something only when the next
        // word is capitalised too and it neither asks nor frames ("Brown State Fishing
        // Lake is …").
        let next_capital = words
            .get(1)
            .and_then(|x| {
                x.trim_matches(|c: char| !c.is_alphanumeric())
                    .chars()
                    .next()
            })
            .is_some_and(char::is_uppercase);
        let lower = w.to_lowercase();
        let opens = i == 0
            && next_capital
            && !raw.ends_with([',', ':'])
            && !asks(&lower)
            && !AUXILIARIES.contains(&lower.as_str())
            && !FRAMING.contains(&lower.as_str())
            && !crate::text::is_stopword(&lower);
        let named = (i > 0 || opens)
            && !w.is_empty()
            && (w.chars().next().is_some_and(char::is_uppercase)
                || (w.chars().any(|c| c.is_ascii_digit()) && w.chars().any(char::is_alphabetic)))
            && !scaffold(&w.to_lowercase());
        if named {
            run.push(w);
        }
        let ends = !named || raw.ends_with([',', '?', ';', ':', ')']) || raw.ends_with("'s");
        if ends && !run.is_empty() {
            let e = run.join(" ");
            // A run inside a period the question names ("Oct." of "Oct. 2022") is the
            // period, not a named thing.
            let in_period = run
                .iter()
                .all(|r| periods.iter().any(|p| p.text.contains(r)));
            let in_citation = run.iter().all(|r| cited.iter().any(|c| c.text.contains(r)));
            if !out.iter().any(|o| o.contains(&e))
                && crate::period::periods(&e).is_empty()
                && !in_period
                && !in_citation
            {
                out.push(e);
            }
            run.clear();
        }
    }
    out
}

/// The focus: content words less scaffold, named things and periods.
/// Whether two named things of `question` stand side by side, joined by `and`, `or`,
/// `vs` or a comma (see [`Frame::either`]).
fn either(question: &str, entities: &[String]) -> bool {
    entities.windows(2).any(|p| {
        let (Some(a), Some(b)) = (question.find(p[0].as_str()), question.rfind(p[1].as_str()))
        else {
            return false;
        };
        let Some(between) = question.get(a + p[0].len()..b) else {
            return false;
        };
        let joint = between
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase();
        matches!(
            joint.as_str(),
            "and" | "or" | "vs" | "versus" | "and the" | "or the" | ""
        ) && between.len() < 12
    })
}

/// Words that end the phrase naming what is asked for.
const PHRASE_ENDS: &[&str] = &[
    "at", "for", "of", "in", "on", "by", "to", "from", "with", "when", "that", "which", "under",
    "per", "during", "should", "must", "may", "can", "is", "was", "are", "were", "does", "did",
    "do", "has", "have", "will", "shall", "would", "could", "if",
];

/// The head of the phrase asked for: the last focus word (not a participle) before the
/// first phrase end that follows one (see [`Frame::head`]).
fn head(w: &[String], focus: &[String]) -> Option<String> {
    // "How long are client records kept?": after an auxiliary, the last word is the
    // verb, not what is asked for.
    let inverted = w.iter().take(3).any(|x| AUXILIARIES.contains(&x.as_str()));
    let mut last: Option<&String> = None;
    for (i, x) in w.iter().enumerate() {
        if PHRASE_ENDS.contains(&x.as_str()) && last.is_some() {
            break;
        }
        let verb = inverted && i + 1 == w.len();
        let participle = verb || (x.len() > 4 && (x.ends_with("ed") || x.ends_with("ing")));
        if focus.contains(x) && !participle {
            last = Some(x);
        }
    }
    last.cloned()
}

fn focus(w: &[String], entities: &[String], periods: &[String], t: AnswerType) -> Vec<String> {
    let own: &[&str] = match t {
        AnswerType::Money => &["paid", "pay", "spent", "cost", "costs", "charged", "worth"],
        AnswerType::Date | AnswerType::Period => {
            &["posted", "dated", "occur", "happen", "take", "place"]
        }
        AnswerType::Quantity => &["count", "counts", "grand", "figures", "limit", "limits"],
        AnswerType::Duration => &["time", "limit", "limits", "within", "duration"],
        AnswerType::Time => &["time", "clock", "o'clock"],
        AnswerType::Person | AnswerType::Organisation => &["named"],
        _ => &[],
    };
    let named: Vec<String> = entities
        .iter()
        .chain(periods)
        .flat_map(|e| lower_words(e))
        .collect();
    let mut out: Vec<String> = Vec::new();
    for (i, x) in w.iter().enumerate() {
        // "… have in common?": what two things share, not a word they use; "what class
        // of instrument": an instrument is asked for, the class word only frames it.
        let in_common = x == "common" && i > 0 && w[i - 1] == "in";
        let kind_of = ["type", "kind", "sort", "class", "category"].contains(&x.as_str())
            && w.get(i + 1).is_some_and(|n| n == "of");
        // "how big", "how large", "how old": the degree asked, as "how long" and "how
        // many" are, not a word the passage uses.
        let degree = i > 0 && w[i - 1] == "how";
        let skip = in_common
            || kind_of
            || degree
            || scaffold(x)
            || own.contains(&x.as_str())
            || crate::text::is_stopword(x)
            || named.contains(x)
            || x.chars()
                .all(|c| c.is_ascii_digit() || c == '.' || c == ',')
            || crate::period::periods(x).iter().any(|p| p.month.is_some())
            || TIME.contains(&x.trim_end_matches('s'))
            || FAMILY_UNITS
                .iter()
                .any(|(u, _)| x.trim_end_matches('s') == *u)
            // A unit says what kind of value is asked ("how many megawatt-hours"), not a
            // word the passage must use; a letter or two is no unit in a question.
            || (x.chars().count() > 2 && crate::value::typed::named_unit(x).is_some());
        if !skip && !out.contains(x) {
            out.push(x.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn this_before_a_document_noun_points_at_the_document_itself() {
        assert!(frame("What revision date does this Form W-9 carry?").itself);
        assert!(frame("What period does this NICS report cover?").itself);
        assert!(frame("What page number is printed on this page of the report?").itself);
        assert!(!frame("What does this mean for the form?").itself);
        assert!(!frame("What revision date does Form W-9 carry?").itself);
        let named = |q: &str| document_pointed_at(q).unwrap();
        assert_eq!(
            named("What revision date does this Form W-9 carry?"),
            ["w", "9"]
        );
        assert_eq!(named("What period does this NICS report cover?"), ["nics"]);
        assert!(named("Who signed this notice of the rule?").is_empty());
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
    fn statements_are_told_from_questions() {
        assert!(is_statement(
            "0-dimensional biomaterials show inductive properties."
        ));
        assert!(!is_statement("What do biomaterials show"));
        assert!(!is_statement("Name three best sellers from Arthur Hailey."));
        assert!(!is_statement("Do biomaterials show inductive properties."));
    }

    #[test]
    fn composite_questions_and_measures_before_a_place() {
        assert!(frame("Who was known by his stage name Aladin and helped organizations improve their performance as a consultant?").composite);
        assert!(
            frame("What government position was held by the woman who portrayed Corliss Archer?")
                .composite
        );
        assert!(!frame("What is the treasurer's telephone number?").composite);
        assert!(!frame("Who is the treasurer?").composite);
        let f = frame("What football club plays in the area between the old toll gates?");
        assert_ne!(f.answer_type, AnswerType::Quantity);
        let f = frame("What is the total area of the project in hectares?");
        assert_eq!(f.unit_family, Some(UnitFamily::Area));
        let f = frame(
            "The Memphis Hustle are based in a suburb of a city with a population of what in 2010?",
        );
        assert_eq!(f.unit_family, Some(UnitFamily::Count));
        let f = frame("Brown State Fishing Lake is in a country with how many inhabitants?");
        // "State" is scaffold, so the run breaks there; the first word still names.
        assert_eq!(f.entities.first().map(String::as_str), Some("Brown"));
        assert!(!frame("In Table 324, how many arrests?")
            .entities
            .iter()
            .any(|e| e.starts_with("In")));
        assert!(!frame("What Permit count is shown?")
            .entities
            .iter()
            .any(|e| e.starts_with("What")));
        let f = frame("What was the Permit count for Kentucky?");
        assert_eq!(f.unit_family, Some(UnitFamily::Count));
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
    fn the_head_names_what_is_asked_for() {
        let h = |q: &str| frame(q).head;
        assert_eq!(
            h("What was the national average tuition at four-year public colleges?").as_deref(),
            Some("tuition")
        );
        assert_eq!(
            h("How many checks were denied in Texas?").as_deref(),
            Some("checks")
        );
        assert_eq!(h("What telephone number is entered?"), None);
        assert_eq!(
            h("How long are client records kept?").as_deref(),
            Some("records")
        );
    }

    #[test]
    fn what_a_question_leaves_out_frames_nothing() {
        assert_eq!(
            without_exclusions("From what date does it apply (apart from Article 24)?"),
            "From what date does it apply?"
        );
        assert_eq!(
            without_exclusions("Which fees apply, except for parking fees, to students?"),
            "Which fees apply, to students?"
        );
        let f =
            frame("From what date does Regulation (EU) 2018/1805 apply (apart from Article 24)?");
        assert!(!f.focus.contains(&"apart".to_string()));
        assert!(!f.entities.iter().any(|e| e.contains("Article")));
    }

    #[test]
    fn a_topic_is_not_the_date_s_role_and_a_number_s_year_no_period() {
        let f = frame(
            "By what date must the Commission submit its first report on the application of the Regulation?",
        );
        assert_eq!(f.date_role, Some(DateRole::Deadline));
        let f = frame("From what date does Regulation (EU) 2018/1805 apply?");
        assert_eq!(f.date_role, Some(DateRole::Application));
        assert!(f.periods.is_empty());
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

    #[test]
    fn constraints_and_focus_are_read() {
        let f = frame("On what date does the regulation expire?");
        assert_eq!(f.date_role, Some(DateRole::Expiry));
        assert_eq!(f.focus, ["regulation", "expire"]);
        // Words that only frame what is asked for are no focus.
        let f = frame("What class of instrument does Ravi Shankar play?");
        assert_eq!(f.focus, ["instrument", "play"]);
        let f = frame("Which actor do Gibson and Tati have in common?");
        assert_eq!(f.focus, ["actor"]);
        let f = frame("What is the minimum fine for a prohibited practice?");
        assert_eq!(f.extreme, Some(Extreme::Min));
        assert!(
            f.focus.contains(&"fine".to_string()) && f.focus.contains(&"prohibited".to_string())
        );
        let f = frame("How many NICS background checks were denied in Texas in November 2015?");
        assert_eq!(f.entities, ["NICS", "Texas"]);
        assert_eq!(f.periods, ["November 2015"]);
        assert_eq!(f.focus, ["background", "checks", "denied"]);
        let f = frame("What was Norway's silicon carbide capacity in 2010?");
        assert_eq!(f.entities, ["Norway"]);
        let f = frame("What is the treasurer's telephone number?");
        assert_eq!(f.focus, ["treasurer"]);
        let f = frame("What other name is listed under 'Other names used'?");
        assert!(
            f.entities.contains(&"Other names used".to_string()),
            "{:?}",
            f.entities
        );
        let f = frame("How many clients did the program serve in Oct. 2022?");
        assert!(f.entities.is_empty(), "{:?}", f.entities);
        let f = frame("How many days after discovery must notice be given?");
        assert_eq!(f.unit.as_deref(), Some("day"));
    }
}
