//! The question frame: what a question asks for, read before research by fixed rules.
//!
//! - **Answer type** (a closed enum, [`AnswerType`]): from the question's wording, by the
//!   first rule of an ordered table of named rules that fires ([`TypeRule::ALL`]) —
//!   yes/no (opens with an auxiliary verb), telephone and email (named), percentage, a
//!   unit or a price named, a measure or a count named, "number of", "how long", "how
//!   many", money, a limit, a time of day, a date, a period, an identifier, a person, an
//!   organisation, a definition, an obligation, an explanation, a list; otherwise free
//!   text. The frame records the rule (`type_rule`), and every rule carries examples
//!   that one test runs (`examples.rs`). The words the rules read are lexicon classes.
//! - **Focus**: the question's content words less its scaffold (question words, the
//!   type's own words, words that only point at a place in a form such as `column` or
//!   `line`), the named things and the periods — what the answer must be about.
//! - **Constraints**: named things (capitalised words not opening the question, quoted
//!   strings), periods ([`crate::period`]), a bound (`minimum`/`at least` vs
//!   `maximum`/`up to`), an order (`first`/`latest`), the role of a date (effective,
//!   application, expiry, deadline, issue, signature: the first of [`DateRole::ASKED`]
//!   whose words the question uses), the unit a duration is counted in.
//!
//! `ask` checks an answer against the frame (see `ask::decide`); `--explain` and `--json`
//! show it as `question_frame`.

use serde::{Deserialize, Serialize};

use crate::lexicon::{self, Class};

pub use crate::value::typed::{AnswerType, UnitFamily};

mod answer_type;
mod examples;
mod focus;

use answer_type::answer_type;
pub use answer_type::TypeRule;
use focus::{composite, either, entities, focus, head, without_exclusions};

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
    /// The rule of the answer-type table that gave it (see [`TypeRule`]).
    #[serde(default)]
    pub type_rule: TypeRule,
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

/// Whether `q` points at a document itself: "this" followed, within the next two words,
/// by a document noun (lexicon class `document_noun`) ("this Form W-9", "this NICS report").
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
        .position(|n| lexicon::is(Class::DocumentNoun, n))?;
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

/// Whether `text` states something rather than asks: no question mark, and no asking
/// word or request ("name", "list", "give", "describe" …) opens it.
pub fn is_statement(text: &str) -> bool {
    let w = lower_words(asking_text(text));
    let request = w.first().is_some_and(|x| lexicon::is(Class::Request, x));
    !text.trim_end().ends_with('?') && !w.first().is_some_and(|x| asks(x)) && !request
}

/// Words that ask: a wh-word or an auxiliary opening a yes/no question.
fn asks(x: &str) -> bool {
    lexicon::is_any(&[Class::WhWord, Class::Auxiliary], x)
}

/// Whether `x` opens a framing phrase (lexicon class `framing`).
fn framing(x: &str) -> bool {
    lexicon::is(Class::Framing, x)
}

/// The question proper: after a leading framing phrase that ends in a comma ("In the
/// Head of Household table on page 4, what is …" reads from "what"; "For an OTP device
/// whose nonce …, how often …" from "how"), else the whole question.
fn asking_text(question: &str) -> &str {
    let opens = lower_words(question).first().is_some_and(|x| framing(x));
    if !opens {
        return question;
    }
    // "…, for how long must …": a preposition may lead the asking words.
    let asking = |rest: &str| {
        let w = lower_words(rest);
        w.first().is_some_and(|x| asks(x))
            || (w.first().is_some_and(|x| framing(x)) && w.get(1).is_some_and(|x| asks(x)))
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

/// The bound asked for: a minimum or a maximum (see [`Extreme`]), by a bound phrase
/// (lexicon classes `bound_min`, `bound_max`) or a superlative. A superlative that
/// describes a thing ("the highest paying job") is no bound on the value asked for, and
/// a bound phrase before the question's own figure ("for up to 10 guests") is its
/// condition.
fn extreme(w: &[String]) -> Option<Extreme> {
    let s = format!(" {} ", w.join(" "));
    let figure = |x: &str| {
        x.chars().any(|c| c.is_ascii_digit())
            && x.chars().all(|c| c.is_ascii_digit() || ",.$%".contains(c))
    };
    let bound = |p: &str| {
        let Some(at) = s.find(&format!(" {p} ")) else {
            return false;
        };
        let next = s[at + p.len() + 2..].split(' ').next().unwrap_or("");
        let describes = w
            .windows(2)
            .any(|x| x[0] == p && x[1].ends_with("ing") && x[1].len() > 5);
        !describes && !figure(next) && lexicon::number_value(next).is_none()
    };
    let asks = |cs: &[Class]| cs.iter().flat_map(|c| lexicon::words(*c)).any(|p| bound(p));
    if asks(&[Class::BoundMin, Class::SuperlativeMin]) {
        Some(Extreme::Min)
    } else if asks(&[Class::BoundMax, Class::SuperlativeMax]) {
        Some(Extreme::Max)
    } else {
        None
    }
}

/// The order asked for: the first or the latest (lexicon classes `order_first`,
/// `order_latest`).
fn order(w: &[String]) -> Option<Order> {
    let s = format!(" {} ", w.join(" "));
    let asks = |c: Class| {
        lexicon::words(c)
            .iter()
            .any(|p| s.contains(&format!(" {p} ")))
    };
    if asks(Class::OrderFirst) {
        Some(Order::First)
    } else if asks(Class::OrderLatest) {
        Some(Order::Latest)
    } else {
        None
    }
}

/// The snake-case name serde gives `v` (an enum of the frame or of a rule table).
pub(crate) fn json_name<T: Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

impl Frame {
    /// One line saying what the question asks for and which rule of the answer-type
    /// table read it, with the constraints it carries ("--explain").
    pub fn describe(&self) -> String {
        let mut parts = vec![format!(
            "asks for {} (rule {})",
            self.answer_type.noun(),
            self.type_rule.name()
        )];
        if let Some(f) = self.unit_family {
            parts.push(format!("unit family {}", json_name(&f)));
        }
        if let Some(u) = &self.unit {
            parts.push(format!("unit {u}"));
        }
        if !self.focus.is_empty() {
            parts.push(format!("focus: {}", self.focus.join(", ")));
        }
        if !self.entities.is_empty() {
            parts.push(format!("named: {}", self.entities.join(", ")));
        }
        if !self.periods.is_empty() {
            parts.push(format!("periods: {}", self.periods.join(", ")));
        }
        let named = [
            ("bound", self.extreme.map(|x| json_name(&x))),
            ("order", self.order.map(|x| json_name(&x))),
            ("date role", self.date_role.map(|x| json_name(&x))),
        ];
        for (what, v) in named {
            if let Some(v) = v {
                parts.push(format!("{what} {v}"));
            }
        }
        parts.join("; ")
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
    let entities = entities(question);
    let either = either(question, &entities);
    let asking = lower_words(asking_text(question));
    let ((answer_type, unit_family, unit), type_rule) =
        answer_type(&answer_type::Asked::new(&asking, either));
    let periods: Vec<String> = crate::period::periods(question)
        .into_iter()
        .map(|p| p.text)
        .collect();
    let date_role = matches!(answer_type, AnswerType::Date)
        .then(|| DateRole::asked(&w))
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
    let head = head(&asking, &focus);
    Frame {
        itself: points_at_document(question),
        either,
        composite: composite(&w, &focus),
        head,
        figures: figures(question),
        qualifiers: w.clone(),
        answer_type,
        type_rule,
        unit_family,
        unit,
        focus,
        entities,
        periods,
        extreme: extreme(&w),
        order: order(&w),
        date_role,
    }
}

/// Figures and codes `question` quotes (three characters or more, with a digit, not a
/// period), lower case.
fn figures(question: &str) -> Vec<String> {
    question
        .split_whitespace()
        .map(|x| {
            x.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .filter(|x| x.chars().any(|c| c.is_ascii_digit()) && x.len() >= 3)
        .filter(|x| crate::period::periods(x).is_empty())
        .collect()
}

impl DateRole {
    /// The roles in the order a question is tested for them: the first whose words it
    /// uses is the role of the date it asks for.
    pub const ASKED: [DateRole; 7] = [
        DateRole::Expiry,
        DateRole::Effective,
        DateRole::Application,
        DateRole::Signature,
        DateRole::Issue,
        DateRole::Founding,
        DateRole::Deadline,
    ];

    /// The role of the date a question (lower-case words `w`) asks for: the first of
    /// [`DateRole::ASKED`] whose words it uses.
    pub fn asked(w: &[String]) -> Option<DateRole> {
        DateRole::ASKED.into_iter().find(|r| r.asked_in(w))
    }

    /// Whether a question (lower-case words `w`) asks for a date of this role.
    fn asked_in(self, w: &[String]) -> bool {
        let any = |l: &[&str]| w.iter().any(|x| l.iter().any(|p| x.starts_with(p)));
        match self {
            DateRole::Expiry => {
                any(&["expir", "cease", "terminat", "lapse", "sunset", "repeal"])
                    || w.iter().any(|x| x == "end" || x == "ends")
            }
            DateRole::Effective => {
                any(&["effective"]) || w.windows(2).any(|p| p[0] == "into" && p[1] == "force")
            }
            DateRole::Application => applies(w),
            DateRole::Signature => any(&["sign"]),
            DateRole::Issue => any(&["issu", "publish", "releas", "adopt"]),
            DateRole::Founding => any(&[
                "founded",
                "establish",
                "built",
                "constructed",
                "incorporated",
            ]),
            DateRole::Deadline => {
                w.first().is_some_and(|x| x == "by")
                    || any(&["due", "deadline", "submit", "receive", "file", "filed"])
            }
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn statements_are_told_from_questions() {
        assert!(is_statement(
            "0-dimensional biomaterials show inductive properties."
        ));
        assert!(!is_statement("What do biomaterials show"));
        assert!(!is_statement("Name three best sellers from Arthur Hailey."));
        assert!(!is_statement("Do biomaterials show inductive properties."));
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
}
