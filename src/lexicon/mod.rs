//! The project's one reading of English words, as data: every word class the stages read
//! text with (stop words, question scaffolding, number and month words, abbreviations,
//! bound, period and exemption phrases, generic role words) is listed once, in
//! `english.toml`, compiled into the binary and parsed on first use. A leaf: it imports
//! nothing from the crate, and every stage may use it.
//!
//! Units of measure are listed the same way, in `units.toml` (see [`units`]).
//!
//! Classes are matched exactly: a caller lower-cases (or not, for the classes written as
//! they appear, such as [`Class::Abbreviation`]) before asking.

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use serde::Deserialize;

pub mod units;

/// The data file, part of the source.
const ENGLISH: &str = include_str!("english.toml");

/// A word class of `english.toml` (its table name in brackets).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Class {
    /// Function words dropped from lexical queries (`stop`).
    Stop,
    /// Question-framing words that are never content: wh-words, verbs of asking
    /// (`scaffold`).
    Scaffold,
    /// Words a question uses to say what kind of value it asks for (`scaffold_value`).
    ScaffoldValue,
    /// Further words a multiple-choice question frames itself with (`scaffold_choice`).
    ScaffoldChoice,
    /// Further words the question frame reads as asking, not naming (`scaffold_frame`).
    ScaffoldFrame,
    /// Words of a checklist requirement that say how it is put (`scaffold_requirement`).
    ScaffoldRequirement,
    /// Number words zero to nineteen, in order (`number`).
    Number,
    /// Tens from twenty to ninety, in order (`tens`).
    Tens,
    /// Scale words from hundred, in order (`scale`).
    Scale,
    /// Ordinal words from first, in order (`ordinal`).
    Ordinal,
    /// Month names, in calendar order (`month`).
    Month,
    /// Month abbreviations (`month_abbreviation`).
    MonthAbbreviation,
    /// Weekday names (`weekday`).
    Weekday,
    /// Tokens, as written, after which a full stop never ends a sentence (`abbreviation`).
    Abbreviation,
    /// Abbreviations that end a name with their full stop (`name_suffix`).
    NameSuffix,
    /// Tokens, as written, that end no sentence before a number
    /// (`abbreviation_before_number`).
    AbbreviationBeforeNumber,
    /// Words a full stop shortens before a reference number (`numbering_abbreviation`).
    NumberingAbbreviation,
    /// Phrases bounding a figure from below (`bound_min`).
    BoundMin,
    /// Phrases bounding a figure from above (`bound_max`).
    BoundMax,
    /// Strict comparisons from below: "more than" (`bound_more`).
    BoundMore,
    /// Strict comparisons from above: "less than" (`bound_less`).
    BoundLess,
    /// Phrases making a date or period the latest allowed (`bound_deadline`).
    BoundDeadline,
    /// Phrases making a date the earliest allowed (`bound_start`).
    BoundStart,
    /// The abbreviation of a lower bound: "min" (`bound_abbreviation_min`).
    BoundAbbreviationMin,
    /// The abbreviation of an upper bound: "max" (`bound_abbreviation_max`).
    BoundAbbreviationMax,
    /// Words marking a value as one that no longer holds (`former`).
    Former,
    /// Words tying a length of time to an event after it: "after", "ago"
    /// (`time_anchor`).
    TimeAnchor,
    /// Words making a length of time recur: "every" (`recurrence`).
    Recurrence,
    /// Words closing a period at a date (`until`).
    Until,
    /// Words marking a value as the one that holds now (`current`).
    Current,
    /// Phrases exempting a group from a fee, duty or rule (`exempting`).
    Exempting,
    /// Honorifics and titles before a name (`honorific`).
    Honorific,
    /// Words no personal name holds: document parts, street heads (`impersonal`).
    Impersonal,
    /// Words naming a role, never a person or organisation (`generic_role`).
    GenericRole,
    /// Words that open a place's name and never a person's ("Lower Orrin", "North
    /// Haven", "Port Talbot") (`place_prefix`).
    PlacePrefix,
    /// Words making a value another thing's than the one asked about: a previous
    /// notice, a neighbouring project (`other_one`).
    OtherOne,
    /// Verbs by which one thing takes the place of another: "supersedes", "replaces",
    /// "repealing" (`supersession`).
    Supersession,
    /// Words that open the condition a value holds under: "if", "unless"
    /// (`condition_opener`).
    ConditionOpener,
    /// Plural nouns without a plural "-s": "people", "children" (`irregular_plural`).
    IrregularPlural,
    /// Words that make a question ask for money (`money_word`).
    MoneyWord,
    /// Phrases that make a question ask for money (`money_phrase`).
    MoneyPhrase,
    /// Words that, after "how much", ask for a price (`cost_word`).
    CostWord,
    /// Currencies a question asks its value in ("in USD") (`currency_name`).
    CurrencyName,
    /// Words before "number" or "code" that make it an identifier (`identifier_head`).
    IdentifierHead,
    /// Nouns naming an organisation as the thing asked for (`organisation_noun`).
    OrganisationNoun,
    /// Nouns naming a person as the thing asked for (`person_noun`).
    PersonNoun,
    /// Words that make "how long is …" ask for a time (`lasting`).
    Lasting,
    /// Words naming a limit (`limit_word`).
    LimitWord,
    /// Units of time, singular (`time_unit`).
    TimeUnit,
    /// Auxiliary verbs that open a yes/no question (`auxiliary`).
    Auxiliary,
    /// Words that open a framing phrase before the question proper (`framing`).
    Framing,
    /// The interrogative words (`wh_word`).
    WhWord,
    /// Verbs that open a request put as a command ("Name …", "List …") (`request`).
    Request,
    /// Nouns naming a document ("this report") (`document_noun`).
    DocumentNoun,
    /// Prepositions that open where or when something is (`place_preposition`).
    PlacePreposition,
    /// Superlatives asking for the least value ("lowest") (`superlative_min`).
    SuperlativeMin,
    /// Superlatives asking for the greatest value ("highest") (`superlative_max`).
    SuperlativeMax,
    /// Words asking for the first of several values (`order_first`).
    OrderFirst,
    /// Words asking for the latest of several values (`order_latest`).
    OrderLatest,
    /// Words that make a question ask for a percentage (`percent_word`).
    PercentWord,
    /// Words of an author's affiliation or address, never of a personal name: a
    /// university, a department, a country's common words (`affiliation`).
    Affiliation,
    /// Words only a paper's first page prints: "Abstract", "Keywords", "thesis"
    /// (`paper_front`).
    PaperFront,
    /// Words of the label a journal sets above a paper's title: "Research Article",
    /// "Original Paper", "Open Access" (`article_label`).
    ArticleLabel,
}

impl Class {
    /// Every class, in declaration order.
    pub const ALL: [Class; 63] = [
        Class::Stop,
        Class::Scaffold,
        Class::ScaffoldValue,
        Class::ScaffoldChoice,
        Class::ScaffoldFrame,
        Class::ScaffoldRequirement,
        Class::Number,
        Class::Tens,
        Class::Scale,
        Class::Ordinal,
        Class::Month,
        Class::MonthAbbreviation,
        Class::Weekday,
        Class::Abbreviation,
        Class::NameSuffix,
        Class::AbbreviationBeforeNumber,
        Class::NumberingAbbreviation,
        Class::BoundMin,
        Class::BoundMax,
        Class::BoundMore,
        Class::BoundLess,
        Class::BoundDeadline,
        Class::BoundStart,
        Class::BoundAbbreviationMin,
        Class::BoundAbbreviationMax,
        Class::Former,
        Class::TimeAnchor,
        Class::Recurrence,
        Class::Until,
        Class::Current,
        Class::Exempting,
        Class::Honorific,
        Class::Impersonal,
        Class::GenericRole,
        Class::PlacePrefix,
        Class::OtherOne,
        Class::Supersession,
        Class::ConditionOpener,
        Class::IrregularPlural,
        Class::MoneyWord,
        Class::MoneyPhrase,
        Class::CostWord,
        Class::CurrencyName,
        Class::IdentifierHead,
        Class::OrganisationNoun,
        Class::PersonNoun,
        Class::Lasting,
        Class::LimitWord,
        Class::TimeUnit,
        Class::Auxiliary,
        Class::Framing,
        Class::WhWord,
        Class::Request,
        Class::DocumentNoun,
        Class::PlacePreposition,
        Class::SuperlativeMin,
        Class::SuperlativeMax,
        Class::OrderFirst,
        Class::OrderLatest,
        Class::PercentWord,
        Class::Affiliation,
        Class::PaperFront,
        Class::ArticleLabel,
    ];

    /// The class's table name in `english.toml`.
    pub fn key(self) -> &'static str {
        match self {
            Class::Stop => "stop",
            Class::Scaffold => "scaffold",
            Class::ScaffoldValue => "scaffold_value",
            Class::ScaffoldChoice => "scaffold_choice",
            Class::ScaffoldFrame => "scaffold_frame",
            Class::ScaffoldRequirement => "scaffold_requirement",
            Class::Number => "number",
            Class::Tens => "tens",
            Class::Scale => "scale",
            Class::Ordinal => "ordinal",
            Class::Month => "month",
            Class::MonthAbbreviation => "month_abbreviation",
            Class::Weekday => "weekday",
            Class::Abbreviation => "abbreviation",
            Class::NameSuffix => "name_suffix",
            Class::AbbreviationBeforeNumber => "abbreviation_before_number",
            Class::NumberingAbbreviation => "numbering_abbreviation",
            Class::BoundMin => "bound_min",
            Class::BoundMax => "bound_max",
            Class::BoundMore => "bound_more",
            Class::BoundLess => "bound_less",
            Class::BoundDeadline => "bound_deadline",
            Class::BoundStart => "bound_start",
            Class::BoundAbbreviationMin => "bound_abbreviation_min",
            Class::BoundAbbreviationMax => "bound_abbreviation_max",
            Class::Former => "former",
            Class::TimeAnchor => "time_anchor",
            Class::Recurrence => "recurrence",
            Class::Until => "until",
            Class::Current => "current",
            Class::Exempting => "exempting",
            Class::Honorific => "honorific",
            Class::Impersonal => "impersonal",
            Class::GenericRole => "generic_role",
            Class::PlacePrefix => "place_prefix",
            Class::OtherOne => "other_one",
            Class::Supersession => "supersession",
            Class::ConditionOpener => "condition_opener",
            Class::IrregularPlural => "irregular_plural",
            Class::MoneyWord => "money_word",
            Class::MoneyPhrase => "money_phrase",
            Class::CostWord => "cost_word",
            Class::CurrencyName => "currency_name",
            Class::IdentifierHead => "identifier_head",
            Class::OrganisationNoun => "organisation_noun",
            Class::PersonNoun => "person_noun",
            Class::Lasting => "lasting",
            Class::LimitWord => "limit_word",
            Class::TimeUnit => "time_unit",
            Class::Auxiliary => "auxiliary",
            Class::Framing => "framing",
            Class::WhWord => "wh_word",
            Class::Request => "request",
            Class::DocumentNoun => "document_noun",
            Class::PlacePreposition => "place_preposition",
            Class::SuperlativeMin => "superlative_min",
            Class::SuperlativeMax => "superlative_max",
            Class::OrderFirst => "order_first",
            Class::OrderLatest => "order_latest",
            Class::PercentWord => "percent_word",
            Class::Affiliation => "affiliation",
            Class::PaperFront => "paper_front",
            Class::ArticleLabel => "article_label",
        }
    }
}

/// One table of `english.toml`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    source: String,
    words: Vec<String>,
}

/// One class, read: its words in file order and as a set.
struct Read {
    source: &'static str,
    words: Vec<&'static str>,
    set: HashSet<&'static str>,
}

/// The parsed file: one [`Read`] per class, in [`Class::ALL`] order.
static LEXICON: LazyLock<Vec<Read>> = LazyLock::new(|| parse(ENGLISH));

/// Reads `text` (the lexicon's format); panics on an error, as the file is part of the
/// source and a unit test parses it.
fn parse(text: &str) -> Vec<Read> {
    let mut tables: HashMap<String, Table> =
        toml::from_str(text).unwrap_or_else(|e| panic!("src/lexicon/english.toml: {e}"));
    let known: HashSet<&str> = Class::ALL.iter().map(|c| c.key()).collect();
    if let Some(k) = tables.keys().find(|k| !known.contains(k.as_str())) {
        panic!("src/lexicon/english.toml: unknown class [{k}]");
    }
    Class::ALL
        .iter()
        .map(|c| {
            let table = tables
                .remove(c.key())
                .unwrap_or_else(|| panic!("src/lexicon/english.toml: no class [{}]", c.key()));
            let words: Vec<&'static str> = table
                .words
                .into_iter()
                .map(|w| &*Box::leak(w.into_boxed_str()))
                .collect();
            let set = words.iter().copied().collect();
            let source = Box::leak(table.source.into_boxed_str());
            Read { source, words, set }
        })
        .collect()
}

/// The read class: [`Class::ALL`] lists the classes in declaration order, so a class's
/// discriminant is its index (a unit test holds them to it).
fn read(class: Class) -> &'static Read {
    &LEXICON[class as usize]
}

/// The words of `class`, in file order.
pub fn words(class: Class) -> &'static [&'static str] {
    &read(class).words
}

/// Where the words of `class` come from: a published list, or "project" when written
/// here.
pub fn source(class: Class) -> &'static str {
    read(class).source
}

/// Whether `w` (exactly as given) is a word of `class`.
pub fn is(class: Class, w: &str) -> bool {
    read(class).set.contains(w)
}

/// Whether `w` is a word of any of `classes`.
pub fn is_any(classes: &[Class], w: &str) -> bool {
    classes.iter().any(|c| is(*c, w))
}

/// The words of `classes`, longest first, as a regular-expression alternation (no
/// group): `september|january|…`. Characters special to a pattern are escaped.
pub fn alternation(classes: &[Class]) -> String {
    let mut all: Vec<&str> = classes.iter().flat_map(|c| words(*c)).copied().collect();
    all.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    all.dedup();
    all.iter()
        .map(|w| {
            w.chars()
                .map(|c| {
                    if "\\.+*?()|[]{}^$#&-~ ".contains(c) {
                        format!("\\{c}")
                    } else {
                        c.to_string()
                    }
                })
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("|")
}

/// The value of one number word (`seven` → 7, `ninety` → 90), scales aside; `w` lower
/// case.
pub fn number_value(w: &str) -> Option<u64> {
    if let Some(i) = words(Class::Number).iter().position(|x| *x == w) {
        return Some(i as u64);
    }
    words(Class::Tens)
        .iter()
        .position(|x| *x == w)
        .map(|i| (i as u64 + 2) * 10)
}

/// The power of ten a scale word stands for (`hundred` → 2, `thousand` → 3, `million`
/// → 6); `w` lower case.
pub fn scale_power(w: &str) -> Option<u32> {
    let i = words(Class::Scale).iter().position(|x| *x == w)? as u32;
    Some(if i == 0 { 2 } else { 3 * i })
}

/// The number (1-based) of an ordinal word (`third` → 3); `w` lower case.
pub fn ordinal_value(w: &str) -> Option<u8> {
    let i = words(Class::Ordinal).iter().position(|x| *x == w)?;
    Some(i as u8 + 1)
}

/// The month (1–12) a month name or abbreviation names, in any case, with or without a
/// full stop after it (`March`, `sept.`, `Dec`); `None` for anything else.
pub fn month_number(w: &str) -> Option<u8> {
    let w = w.to_lowercase();
    let w = w.trim_end_matches('.');
    let months = words(Class::Month);
    if let Some(i) = months.iter().position(|m| *m == w) {
        return Some(i as u8 + 1);
    }
    if !is(Class::MonthAbbreviation, w) {
        return None;
    }
    months
        .iter()
        .position(|m| m.starts_with(w))
        .map(|i| i as u8 + 1)
}

/// The name (lower case) of month `m` (1–12).
pub fn month_name(m: u8) -> Option<&'static str> {
    words(Class::Month)
        .get(usize::from(m).checked_sub(1)?)
        .copied()
}

#[cfg(test)]
mod tests;
