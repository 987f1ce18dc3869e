//! Which of a passage's values the question binds to: the values are ranked by an
//! ordered table of named rules ([`BindRule::ALL`], each with examples one test runs),
//! the order of writing breaking ties.
//!
//! A sentence often states several values of the asked type; the first one written is
//! not the answer for that reason alone. Of the values of a quote:
//! - a range ("from X to Y", "between X and Y", "X–Y") states a floor and a ceiling;
//! - a value stated with the asked bound ("up to a maximum of …" for a maximum) comes
//!   before a plain one (a rate, a default);
//! - a part counted out of a total ("seven members, two of whom are appointed …") binds
//!   to the words of its own relative clause: it answers when the question says what
//!   that clause says of it, and the total answers otherwise;
//! - a figure the question itself states is the condition it asks under ("a fence lower
//!   than 2 metres"), never its answer;
//! - a value stated for a period that does not meet the period the question asks about
//!   ("since 2024" for "before 2024"), or marked as a former one ("until 31 March 2021 …
//!   was", "previously"), is not the asked period's.

use crate::figure::Bound;
use crate::frame::{Extreme, Frame};
use crate::value::typed::{AnswerType, Found, UnitFamily};

/// Read the ranges of `quote` among its values `vs` (in order of position): the first
/// end of "from X to Y", "between X and Y" or "X–Y" is a floor, the second a ceiling.
pub(super) fn ranges(quote: &str, vs: &mut [Found]) {
    for i in 1..vs.len() {
        let (a, b) = (&vs[i - 1], &vs[i]);
        if a.bound != Bound::Exact || b.bound != Bound::Exact || a.end > b.start {
            continue;
        }
        let gap = quote[a.end..b.start].trim().to_lowercase();
        let lead = last_words(&quote[..a.start], 4);
        // "increased from $60 to $80" tells a change, not a range.
        let change = CHANGE_WORDS
            .iter()
            .any(|c| lead.split(' ').any(|w| w.starts_with(c)));
        let opened = match gap.as_str() {
            "to" | "through" | "-" | "–" | "—" => !lead.ends_with("between"),
            "and" => lead.ends_with("between"),
            _ => false,
        };
        if opened && !change {
            vs[i - 1].bound = Bound::Min;
            vs[i].bound = Bound::Max;
        }
    }
}

/// Phrases right before a value that make it a ceiling, beyond those every figure is
/// read with (`crate::figure::bound_of`).
const CEILING_BEFORE: &[&str] = &[
    "not exceed",
    "cannot exceed",
    "never exceed",
    "capped at",
    "limited to",
    "a cap of",
    "a ceiling of",
    "no higher than",
    "no greater than",
];
/// Phrases right before a value that make it a floor.
const FLOOR_BEFORE: &[&str] = &["a floor of", "no lower than", "no fewer than"];
/// Words of a clause's subject that make the value its copula states a ceiling ("the
/// maximum number of … is 120") …
const CEILING_SUBJECT: &[&str] = &[
    "maximum", "max", "highest", "largest", "most", "cap", "ceiling",
];
/// … or a floor.
const FLOOR_SUBJECT: &[&str] = &["minimum", "min", "lowest", "smallest", "least", "floor"];
/// Verbs that state a clause's subject as the value after them.
const COPULAS: &[&str] = &["is", "are", "was", "were", "be", "remains"];

/// Give the plainly stated values of `quote` the bound their wording sets: a phrase such
/// as "may not exceed" right before it, or a subject such as "the maximum number of
/// swimmers" that a copula right before it states.
pub(super) fn refine(quote: &str, vs: &mut [Found]) {
    for v in vs.iter_mut().filter(|v| v.bound == Bound::Exact) {
        let tail = last_words(&quote[..v.start], 5);
        let ends = |l: &[&str]| l.iter().any(|p| tail.ends_with(p));
        if ends(CEILING_BEFORE) {
            v.bound = Bound::Max;
            continue;
        }
        if ends(FLOOR_BEFORE) {
            v.bound = Bound::Min;
            continue;
        }
        let from = quote[..v.start]
            .rfind(['.', ';', ',', ':'])
            .map_or(0, |i| i + 1);
        let words = crate::text::words(&quote[from..v.start].to_lowercase());
        let Some((last, subject)) = words.split_last() else {
            continue;
        };
        if !COPULAS.contains(&last.as_str()) {
            continue;
        }
        let has = |l: &[&str]| subject.iter().any(|w| l.contains(&w.as_str()));
        match (has(CEILING_SUBJECT), has(FLOOR_SUBJECT)) {
            (true, false) => v.bound = Bound::Max,
            (false, true) => v.bound = Bound::Min,
            _ => {}
        }
    }
}

/// Word beginnings that make "from X to Y" a change of value rather than a range.
const CHANGE_WORDS: &[&str] = &[
    "increas", "decreas", "rais", "rose", "reduc", "cut", "chang", "went", "grew", "fell", "lower",
    "amend", "adjust",
];

/// The last `n` words of `text`, lower case, joined by spaces.
fn last_words(text: &str, n: usize) -> String {
    let words: Vec<String> = crate::text::words(&text.to_lowercase());
    words[words.len().saturating_sub(n)..].join(" ")
}

/// Order `vs` (values of `quote` that answer `f`'s type) so that the one the question
/// binds to comes first (see the module doc); the order of position breaks ties.
pub(super) fn rank(f: &Frame, quote: &str, vs: &mut Vec<Found>) {
    let ks = keys(f, quote, vs);
    let mut keyed: Vec<(Key, Found)> = ks.into_iter().zip(vs.drain(..)).collect();
    keyed.sort_by_key(|(k, v)| (*k, v.start));
    vs.extend(keyed.into_iter().map(|(_, v)| v));
}

/// Whether the question's wording, not the order of writing, puts the first of `vs`
/// (ranked by [`rank`]) ahead of the second: a rule of [`BindRule`] sets them apart.
/// True for a single value.
pub(super) fn decisive(f: &Frame, quote: &str, vs: &[Found]) -> bool {
    let ks = keys(f, quote, vs);
    ks.len() < 2 || ks[0] < ks[1]
}

/// A named rule of the binding table: what puts one value of a quote ahead of another,
/// in the order [`BindRule::ALL`] compares them; the order of writing breaks ties.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum BindRule {
    /// A value stated under the condition the question states leads.
    AskedCondition,
    /// A value stated with the asked bound (a maximum for "the maximum …") leads.
    AskedBound,
    /// For "when", a date its role's cue stands right before, then any date, then a
    /// length of time.
    DateRoleCue,
    /// A part whose own clause says what is asked leads; otherwise the total leads.
    AskedPart,
    /// A value whose own clause says what is asked leads.
    OwnClause,
}

impl BindRule {
    /// Questions, quotes and the value (as written) the rule puts first: what the
    /// table's test runs.
    #[cfg(test)]
    fn examples(self) -> &'static [(&'static str, &'static str, &'static str)] {
        match self {
            BindRule::AskedCondition => &[(
                "How many failed attempts may be allowed if attack detection is implemented?",
                "No more than 5 failed attempts, or 10 if attack detection is implemented.",
                "10",
            )],
            BindRule::AskedBound => &[
                (
                    "What is the maximum charge for certified transcripts?",
                    "Certified transcripts cost $3 per page, capped at a maximum of $45.",
                    "$45",
                ),
                (
                    "What is the highest licence fee?",
                    "Licence fees range from $80 to $900 depending on the vessel.",
                    "$900",
                ),
            ],
            BindRule::DateRoleCue => &[(
                "When does the permit expire?",
                "This permit is valid from 1 March 2025 and expires on 28 February 2030.",
                "28 February 2030",
            )],
            BindRule::AskedPart => &[
                (
                    "How many committee members are elected by the staff?",
                    "The committee has eleven members, four of whom are elected by the staff.",
                    "four",
                ),
                (
                    "How many electric buses does the fleet have?",
                    "The fleet has 40 buses, including 12 electric buses.",
                    "12",
                ),
            ],
            BindRule::OwnClause => &[(
                "How many trustees are appointed by the County Commission?",
                "Six trustees are elected by the voters, and three are appointed by the County Commission.",
                "three",
            )],
        }
    }

    /// Every rule, in the order they are compared.
    pub const ALL: [BindRule; 5] = [
        BindRule::AskedCondition,
        BindRule::AskedBound,
        BindRule::DateRoleCue,
        BindRule::AskedPart,
        BindRule::OwnClause,
    ];
}

/// A value's rank before its position: one entry per rule of [`BindRule::ALL`], lower
/// first.
type Key = [u8; 5];

/// The [`Key`] of each of `vs`.
fn keys(f: &Frame, quote: &str, vs: &[Found]) -> Vec<Key> {
    let parts: Vec<Part> = vs.iter().map(|v| part_of(quote, vs, v)).collect();
    let asked = |p: &Part| match p {
        Part::Of(clause) => says_of(f, clause),
        _ => false,
    };
    let any_part_asked = parts.iter().any(asked);
    vs.iter()
        .zip(&parts)
        .map(|(v, p)| {
            BindRule::ALL.map(|r| match r {
                BindRule::AskedCondition => u8::from(!under_asked_condition(f, quote, vs, v)),
                BindRule::AskedBound => {
                    u8::from(f.extreme.is_some_and(|e| v.bound != asked_bound(e)))
                }
                BindRule::DateRoleCue => when_key(f, quote, v),
                BindRule::AskedPart => match p {
                    Part::Of(_) if asked(p) => 0,
                    Part::Of(_) => 2,
                    Part::Total if any_part_asked => 2,
                    _ => 1,
                },
                // Counts side by side, each with its own clause ("six are elected …, and
                // three are appointed by …"): the one whose clause says what is asked
                // leads.
                BindRule::OwnClause => u8::from(!says_of(f, &own_clause(quote, v).to_lowercase())),
            })
        })
        .collect()
}

/// The rule of [`BindRule::ALL`] that puts the first of `vs` (ranked by [`rank`]) ahead
/// of the second, if any rule does.
#[cfg(test)]
fn deciding_rule(f: &Frame, quote: &str, vs: &[Found]) -> Option<BindRule> {
    let ks = keys(f, quote, vs);
    let (a, b) = (ks.first()?, ks.get(1)?);
    BindRule::ALL
        .into_iter()
        .zip(a.iter().zip(b))
        .find(|(_, (x, y))| x != y)
        .filter(|(_, (x, y))| x < y)
        .map(|(r, _)| r)
}

/// The content words of the condition question `f` states ("… allowed if presentation
/// attack detection is implemented?"); empty when it states none (a leading "when" asks
/// for a time, not a condition).
fn asked_condition(f: &Frame) -> Vec<&str> {
    let q = &f.qualifiers;
    let Some(at) = q
        .iter()
        .skip(1)
        .position(|w| crate::lexicon::is(crate::lexicon::Class::ConditionOpener, w))
    else {
        return Vec::new();
    };
    q[at + 2..]
        .iter()
        .map(String::as_str)
        .filter(|w| !crate::lexicon::is(crate::lexicon::Class::Stop, w))
        .collect()
}

/// Whether value `v` of `quote` is stated under the condition the question states: a
/// condition opener follows it before any other value of `vs` and the clause, and the
/// words after it hold half the question's condition words or more ("no more than 5
/// attempts, or 10 if PAD meeting the requirements is implemented": 10, for the question
/// that asks under that condition).
fn under_asked_condition(f: &Frame, quote: &str, vs: &[Found], v: &Found) -> bool {
    let asked = asked_condition(f);
    if asked.is_empty() {
        return false;
    }
    let next = vs
        .iter()
        .map(|x| x.start)
        .filter(|&s| s >= v.end)
        .min()
        .unwrap_or(quote.len());
    let tail = &quote[v.end..next];
    let tail = &tail[..tail.find([';', '.']).unwrap_or(tail.len())];
    let words = crate::text::words(&tail.to_lowercase());
    let Some(k) = words
        .iter()
        .position(|w| crate::lexicon::is(crate::lexicon::Class::ConditionOpener, w))
    else {
        return false;
    };
    let own = super::context::stems(&words[k + 1..].join(" "));
    let held = asked
        .iter()
        .filter(|w| super::context::has_word(&own, w))
        .count();
    held * 2 >= asked.len()
}

/// For a "when" question, how closely value `v` of `quote` answers it: a date its role's
/// cue stands right before ("expires on 28 February 2030" for "When does it expire?")
/// leads, then any other date, then a length of time ("valid for five years"), which
/// fixes a time only through an event. 0 for every value of other questions.
fn when_key(f: &Frame, quote: &str, v: &Found) -> u8 {
    if f.answer_type != AnswerType::Date {
        return 0;
    }
    if v.unit.is_some() {
        return 2;
    }
    let Some(role) = f.date_role else {
        return 1;
    };
    let words = crate::text::words(&quote[..v.start].to_lowercase());
    let before = &words[words.len().saturating_sub(3)..];
    u8::from(!super::when::cued(role, before))
}

/// Whether count `v` of `quote` counts something other than what question `f` asks how
/// many of: the words right after it name a thing ("one communicative intent") and none
/// of the next four is the asked noun or its other number ("18,420 utterances" answers
/// "how many utterances"). A count followed by no such word ("the total is 18,420.",
/// "18,420 in all", a verb: "48,982, making it …") is kept, and so is one the asked noun
/// states just before ("a population of 48,982", "utterances: 18,420").
pub(super) fn counts_other(f: &Frame, quote: &str, v: &Found) -> bool {
    use crate::lexicon::{self, Class};
    let (Some(head), None) = (f.head.as_deref(), v.unit.as_deref()) else {
        return false;
    };
    if f.answer_type != AnswerType::Quantity || f.unit_family != Some(UnitFamily::Count) {
        return false;
    }
    let after: Vec<String> = crate::text::words(&quote[v.end..].to_lowercase())
        .into_iter()
        .take(4)
        .collect();
    let Some(next) = after.first() else {
        return false;
    };
    // The asked noun states the count when only linking words stand between them ("a
    // population of 48,982", "utterances: 18,420", "the number of seats is 120"), not
    // when a clause of its own does ("1,150 slices annotated by two operators").
    let before = crate::text::words(&quote[..v.start].to_lowercase());
    let stated_of = before
        .iter()
        .rev()
        .take(4)
        .position(|w| same_noun(w, head))
        .is_some_and(|k| {
            before
                .iter()
                .rev()
                .take(k)
                .all(|w| LINKING.contains(&w.as_str()))
        });
    // A past participle follows the count as a verb when a preposition or nothing comes
    // after it ("18,420 collected in 2020"), and so does an "-ing" form after a comma
    // ("48,982, making it …"); either right before a noun modifies the counted noun
    // ("14,205 labelled call sequences", "14,736 training utterances"), and the thing
    // counted is named after it.
    let comma = quote[v.end..].trim_start().starts_with(',');
    let then_noun = after
        .get(1)
        .is_some_and(|w| w.chars().all(char::is_alphabetic) && !lexicon::is(Class::Stop, w));
    if next.ends_with("ed") && then_noun && !comma {
        return !stated_of && !after[1..].iter().any(|w| same_noun(w, head));
    }
    let verb = next.ends_with("ed") || (comma && next.ends_with("ing"));
    // "8 per day": a rate of what is named before, not a count of another thing.
    let names_thing = next.chars().all(char::is_alphabetic)
        && !lexicon::is(Class::Stop, next)
        && next != "per"
        && !verb;
    names_thing && !stated_of && !after.iter().any(|w| same_noun(w, head))
}

/// Words that may stand between a counted noun and the count that states it.
const LINKING: &[&str] = &[
    "of",
    "is",
    "was",
    "were",
    "are",
    "at",
    "totalled",
    "totaled",
    "total",
    "totals",
    "numbered",
    "numbers",
    "reached",
    "stood",
    "about",
    "approximately",
    "around",
    "some",
    "nearly",
    "over",
    "roughly",
    "to",
    "be",
    "been",
    "stands",
    "limited",
    "capped",
    "set",
    "fixed",
    "restricted",
    "exceed",
    "than",
    "more",
    "less",
    "fewer",
    "most",
    "least",
    "maximum",
    "minimum",
    "up",
    "shall",
    "may",
    "must",
    "not",
    "no",
    "should",
    "will",
    "under",
    "below",
    "above",
];

/// Whether `a` and `b` are one noun, singular or plural ("utterance", "utterances";
/// "species"; "parties", "party").
fn same_noun(a: &str, b: &str) -> bool {
    let stem = |w: &str| {
        let w = w.to_lowercase();
        if let Some(s) = w.strip_suffix("ies") {
            format!("{s}y")
        } else if let Some(s) = w
            .strip_suffix("es")
            .filter(|s| s.ends_with(['s', 'x', 'h']))
        {
            s.to_string()
        } else {
            w.strip_suffix('s')
                .filter(|s| !s.ends_with('s'))
                .unwrap_or(&w)
                .to_string()
        }
    };
    a.eq_ignore_ascii_case(b) || stem(a) == stem(b)
}

/// The bound a value must carry to be the asked extreme.
fn asked_bound(e: Extreme) -> Bound {
    match e {
        Extreme::Min => Bound::Min,
        Extreme::Max => Bound::Max,
    }
}

/// What a value is in a count of parts: a part of a total with the clause that says
/// what the part is, the total a part is counted out of, or neither.
#[derive(Debug, PartialEq)]
enum Part {
    /// A part ("two of whom are appointed by the mayor"), with its clause.
    Of(String),
    /// The total a later value of its sentence is a part of.
    Total,
    /// Neither.
    Alone,
}

/// Words after a value that make it a part of the total before it.
const PART_AFTER: &[&str] = &["of whom", "of which", "of them", "out of which"];
/// Words before a value that make it a part of the total before them.
const PART_BEFORE: &[&str] = &["including", "among them", "of whom", "of which"];

/// What `v` is in the counts of parts of `quote` (see [`Part`]).
fn part_of(quote: &str, vs: &[Found], v: &Found) -> Part {
    if let Some(clause) = part_clause(quote, v) {
        let total_before = vs
            .iter()
            .any(|t| t.end <= v.start && same_sentence(quote, t.end, v.start));
        if total_before {
            return Part::Of(clause);
        }
    }
    let has_part_after = vs.iter().any(|p| {
        p.start >= v.end && same_sentence(quote, v.end, p.start) && part_clause(quote, p).is_some()
    });
    if has_part_after {
        Part::Total
    } else {
        Part::Alone
    }
}

/// The clause of a part: from the value to the end of its clause, when the value is
/// written as a part ("two of whom are appointed", "including 3 appointed …").
fn part_clause(quote: &str, v: &Found) -> Option<String> {
    let after = quote[v.end..].trim_start().to_lowercase();
    let before = last_words(&quote[..v.start], 2);
    let is_part = PART_AFTER.iter().any(|p| after.starts_with(p))
        || PART_BEFORE.iter().any(|p| before.ends_with(p));
    if !is_part {
        return None;
    }
    let rest = &quote[v.start..];
    let end = rest.find([',', ';', '.', ')']).unwrap_or(rest.len());
    Some(rest[..end].to_lowercase())
}

/// The clause `v` stands in: from the comma, semicolon or sentence end before it to the
/// one after it (a point between digits is no end).
fn own_clause<'q>(quote: &'q str, v: &Found) -> &'q str {
    let end_at = |i: usize, c: char| {
        matches!(c, ',' | ';' | ':')
            || (c == '.' && !quote[i + 1..].starts_with(|d: char| d.is_ascii_digit()))
    };
    let from = quote[..v.start]
        .char_indices()
        .rev()
        .find(|&(i, c)| end_at(i, c))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let to = quote[v.end..]
        .char_indices()
        .find(|&(i, c)| end_at(v.end + i, c))
        .map_or(quote.len(), |(i, _)| v.end + i);
    &quote[from..to]
}

/// Whether no sentence or clause boundary other than a comma stands between `a` and `b`.
fn same_sentence(quote: &str, a: usize, b: usize) -> bool {
    !quote[a..b].contains(['.', ';'])
}

/// Whether `clause` (a part's) says a word the question's focus asks about, beyond the
/// counted thing's own noun (the question's head).
fn says_of(f: &Frame, clause: &str) -> bool {
    let words: Vec<String> = crate::text::words(clause)
        .iter()
        .map(|w| crate::text::stem(w))
        .collect();
    f.focus
        .iter()
        .filter(|w| f.head.as_deref() != Some(w.as_str()))
        .any(|w| words.contains(&crate::text::stem(w)))
}

/// Whether value `v` restates a figure the question states itself (the condition it asks
/// under): the same number, in the question's own words.
pub(super) fn stated_by_question(f: &Frame, quote: &str, v: &Found) -> bool {
    let question = f.qualifiers.join(" ");
    let asked: Vec<String> = crate::figure::numbers(&question)
        .into_iter()
        .map(|n| n.value)
        .collect();
    if asked.is_empty() {
        return false;
    }
    crate::figure::numbers(&quote[v.start..v.end])
        .first()
        .is_some_and(|n| asked.contains(&n.value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::frame;
    use crate::value::typed::{find, AnswerType, UnitFamily};

    fn ranked(q: &str, quote: &str, ty: AnswerType, fam: Option<UnitFamily>) -> Vec<String> {
        let f = frame(q);
        let mut vs = find(quote, ty, fam);
        refine(quote, &mut vs);
        ranges(quote, &mut vs);
        vs.retain(|v| !stated_by_question(&f, quote, v));
        rank(&f, quote, &mut vs);
        vs.iter()
            .map(|v| quote[v.start..v.end].to_string())
            .collect()
    }

    #[test]
    fn a_count_of_another_thing_does_not_answer_how_many() {
        let f = frame("How many utterances does the corpus contain?");
        let other = |quote: &str, v: &str| {
            let i = quote.find(v).unwrap();
            let found = find(quote, AnswerType::Quantity, Some(UnitFamily::Count));
            let v = found.iter().find(|x| x.start == i).unwrap();
            counts_other(&f, quote, v)
        };
        assert!(other("each labelled with one communicative intent", "one"));
        assert!(!other("The corpus contains 18,420 utterances.", "18,420"));
        assert!(!other(
            "It holds 18,420 transcribed radio utterances.",
            "18,420"
        ));
        assert!(!other("The utterances number 18,420.", "18,420"));
        assert!(!other("Utterances are limited to 80 per speaker.", "80"));
        // A count qualified right after the figure still counts what it names; a count
        // in a clause of its own after the asked noun does not.
        let split = "It is split into 14,736 training and 1,842 test utterances.";
        assert!(other(split, "14,736") && !other(split, "1,842"));
        let f = frame("How many slices was the model trained on?");
        let quote = "It was trained on 1,150 slices annotated by two operators.";
        let found = find(quote, AnswerType::Quantity, Some(UnitFamily::Count));
        let two = found
            .iter()
            .find(|x| &quote[x.start..x.end] == "two")
            .unwrap();
        assert!(counts_other(&f, quote, two));
        let f = frame("What was the city's population in 2010?");
        let quote = "The census reported a population of 48,982, making it the third city.";
        let found = find(quote, AnswerType::Quantity, Some(UnitFamily::Count));
        let v = found
            .iter()
            .find(|x| &quote[x.start..x.end] == "48,982")
            .unwrap();
        assert!(!counts_other(&f, quote, v));
        let f = frame("How many species does the dataset cover?");
        let quote = "The dataset holds 14,205 labelled call sequences from nine sites.";
        let found = find(quote, AnswerType::Quantity, Some(UnitFamily::Count));
        let v = found
            .iter()
            .find(|x| x.start == quote.find("14,205").unwrap());
        assert!(counts_other(&f, quote, v.unwrap()));
        let quote = "The dataset holds 23 recorded species.";
        let found = find(quote, AnswerType::Quantity, Some(UnitFamily::Count));
        assert!(!counts_other(&f, quote, &found[0]));
        assert!(same_noun("species", "species") && same_noun("parties", "party"));
    }

    #[test]
    fn a_value_under_the_condition_the_question_states_leads() {
        let quote = "The system shall allow no more than 5 consecutive failed attempts, or 10 \
                     consecutive failed attempts if presentation attack detection is implemented.";
        let q = "How many consecutive failed attempts may be allowed if presentation attack \
                 detection is implemented?";
        let count = Some(UnitFamily::Count);
        assert_eq!(ranked(q, quote, AnswerType::Quantity, count)[0], "10");
        let plain = "How many consecutive failed attempts may be allowed?";
        assert_eq!(ranked(plain, quote, AnswerType::Quantity, count)[0], "5");
    }

    #[test]
    fn a_value_with_the_asked_bound_leads_a_rate_written_before_it() {
        let q = "What is the maximum charge for certified transcripts?";
        let quote = "Certified transcripts cost $3 per page, capped at a maximum of $45.";
        assert_eq!(ranked(q, quote, AnswerType::Money, None)[0], "$45");
        // Asked plainly, the first written still leads.
        let q = "What do certified transcripts cost?";
        assert_eq!(ranked(q, quote, AnswerType::Money, None)[0], "$3");
    }

    #[test]
    fn wording_around_a_plain_value_sets_its_bound() {
        let quote = "For safety reasons the maximum number of riders on the lift at one \
                     time is 40.";
        let q = "What is the maximum number of riders?";
        assert_eq!(
            ranked(q, quote, AnswerType::Quantity, Some(UnitFamily::Count))[0],
            "40"
        );
        let quote = "A single donation may not exceed $2,000.";
        let mut vs = find(quote, AnswerType::Money, None);
        refine(quote, &mut vs);
        assert_eq!(vs[0].bound, Bound::Max);
        let quote = "The smallest lot allowed is 600 square metres.";
        let mut vs = find(quote, AnswerType::Quantity, Some(UnitFamily::Area));
        refine(quote, &mut vs);
        assert_eq!(vs[0].bound, Bound::Min);
    }

    #[test]
    fn a_range_is_read_as_a_floor_and_a_ceiling() {
        let quote = "Licence fees range from $80 to $900 depending on the vessel.";
        let q = "What is the highest licence fee?";
        assert_eq!(ranked(q, quote, AnswerType::Money, None)[0], "$900");
        let q = "What is the minimum licence fee?";
        assert_eq!(ranked(q, quote, AnswerType::Money, None)[0], "$80");
        let between = "Deposits are between $100 and $250.";
        let mut vs = find(between, AnswerType::Money, None);
        ranges(between, &mut vs);
        assert_eq!(
            vs.iter().map(|v| v.bound).collect::<Vec<_>>(),
            [Bound::Min, Bound::Max]
        );
    }

    #[test]
    fn a_part_answers_when_the_question_says_what_its_clause_says() {
        let quote = "The committee has eleven members, four of whom are elected by the staff.";
        let part = "How many committee members are elected by the staff?";
        let count = Some(UnitFamily::Count);
        assert_eq!(ranked(part, quote, AnswerType::Quantity, count)[0], "four");
        let total = "How many members does the committee have?";
        assert_eq!(
            ranked(total, quote, AnswerType::Quantity, count)[0],
            "eleven"
        );
        let including = "The fleet has 40 buses, including 12 electric buses.";
        let q = "How many electric buses does the fleet have?";
        assert_eq!(ranked(q, including, AnswerType::Quantity, count)[0], "12");
    }

    #[test]
    fn every_binding_rule_puts_its_own_examples_first() {
        for rule in BindRule::ALL {
            assert!(!rule.examples().is_empty(), "{rule:?} has no example");
            for (q, quote, first) in rule.examples() {
                let f = frame(q);
                let (ty, fam) = (f.answer_type, f.unit_family.or(Some(UnitFamily::Count)));
                let mut vs = find(quote, ty, fam);
                refine(quote, &mut vs);
                ranges(quote, &mut vs);
                vs.retain(|v| !stated_by_question(&f, quote, v));
                rank(&f, quote, &mut vs);
                let got: Vec<&str> = vs.iter().map(|v| &quote[v.start..v.end]).collect();
                assert_eq!(got.first(), Some(first), "{rule:?}: {q} / {got:?}");
                assert_eq!(deciding_rule(&f, quote, &vs), Some(rule), "{q}");
            }
        }
    }

    #[test]
    fn a_figure_the_question_states_is_its_condition_not_its_answer() {
        let quote = "Groups of more than 25 children need 3 supervisors.";
        let q = "How many supervisors do groups of more than 25 children need?";
        let got = ranked(q, quote, AnswerType::Quantity, Some(UnitFamily::Count));
        assert_eq!(got, ["3"]);
    }
}
