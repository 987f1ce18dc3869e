//! The values of a quote that fit the frame: of an accepted type, the asked bound, unit
//! and date role, and none that the question states, another clause, condition or
//! definition holds, or another period sets (the rules of [`ValueRule`](super::excluded::ValueRule)).

use std::collections::HashSet;

use super::context::{has_word, stems};
use super::excluded::{excluded_by, Scene};
use super::{bind, when};
use crate::frame::{AnswerType, Extreme, Frame, UnitFamily};
use crate::lexicon::{self, Class};
use crate::value::typed::{self, Found};

/// Units a length is counted in when it is a length of text or code, not of space.
const SYMBOLS: &[&str] = &[
    "character",
    "characters",
    "digit",
    "digits",
    "bit",
    "bits",
    "letter",
    "letters",
    "word",
    "words",
    "page",
    "pages",
    "symbol",
    "symbols",
];

/// For a question asking a length by name ("the minimum length of a password"), the
/// counts of `quote` in symbols ("at least 8 characters", "32 bits"): a length of text
/// or code, which no unit of space measures.
fn symbol_lengths(f: &Frame, quote: &str) -> Vec<Found> {
    if f.unit_family != Some(UnitFamily::Length) || !f.qualifiers.iter().any(|w| w == "length") {
        return Vec::new();
    }
    typed::find(quote, AnswerType::Quantity, Some(UnitFamily::Count))
        .into_iter()
        .filter(|v| {
            let next = quote[v.end..].split_whitespace().next().unwrap_or("");
            let next = next.trim_end_matches(|c: char| !c.is_alphanumeric());
            SYMBOLS.contains(&next.to_lowercase().as_str())
        })
        .collect()
}

/// The values in `quote` that answer frame `f`: of an accepted type, bound, unit and
/// date role.
pub(super) fn values(f: &Frame, quote: &str) -> Vec<Found> {
    values_with(f, quote, Some(""))
}

/// The values of `quote` of a type that answers `f` (its own, and for some questions an
/// amount or a time limit as well), each with the bound its wording sets, before any
/// rule of [`ValueRule`](super::excluded::ValueRule) is applied.
pub(super) fn candidates(f: &Frame, quote: &str) -> Vec<Found> {
    let family = f.unit_family.or(Some(UnitFamily::Count));
    // "When must …?", "When does … acquire …?" are answered by a time limit ("within six
    // months") as well as a date; "When was the palace founded?" (past) by a date only.
    let past = matches!(
        f.qualifiers.get(1).map(String::as_str),
        Some("was" | "were" | "did")
    );
    let when: &[AnswerType] = match f.qualifiers.first().map(String::as_str) {
        Some("when") if !past => &[AnswerType::Duration, AnswerType::Time],
        // "What value applies …": a table's figure, an amount of money or a count.
        _ if asks_figure(f) => &[AnswerType::Money],
        // "What is the maximum deposit?": a limit asked by name may be an amount.
        _ if asks_limit(f) => &[AnswerType::Money, AnswerType::Percentage],
        _ => &[],
    };
    let mut found: Vec<Found> = f
        .answer_type
        .accepts()
        .iter()
        .chain(when)
        .flat_map(|t| {
            let mut vs = typed::find(quote, *t, family);
            bind::refine(quote, &mut vs);
            bind::ranges(quote, &mut vs);
            vs
        })
        .collect();
    found.extend(symbol_lengths(f, quote));
    found
}

/// The values of `quote` of the type `f` asks for (see [`values`]), with the date role's
/// cue read in the value's clause or in `heading` (a table row's header, a cell's
/// column); `None`: any date, whatever its role (a cell that is a value at all). Those
/// a rule of [`ValueRule`](super::excluded::ValueRule) excludes are left out; the rest
/// are ranked by what the question binds to.
pub(super) fn values_with(f: &Frame, quote: &str, heading: Option<&str>) -> Vec<Found> {
    let scene = Scene::new(f, quote, heading);
    let mut out: Vec<Found> = candidates(f, quote)
        .into_iter()
        .filter(|v| excluded_by(&scene, v).is_none())
        .collect();
    bind::rank(f, quote, &mut out);
    out
}

/// Whether `clause` defines a term ("\"Apiary\" means any site where one or more
/// Colonies are kept", "… is defined as …"): what it states describes the term, it sets
/// no value, so a value in it answers only a question asking what the term means.
pub(super) fn in_definition(f: &Frame, clause: &str) -> bool {
    if f.answer_type == AnswerType::Definition {
        return false;
    }
    let lower = clause.to_lowercase();
    let quoted_term = ["\" means ", "” means ", "\" shall mean ", "” shall mean "];
    quoted_term.iter().any(|p| lower.contains(p))
        || [" is defined as ", " are defined as ", " shall mean "]
            .iter()
            .any(|p| lower.contains(p))
}

/// Whether `v` is a length of time offered for a "when" question that fixes no point in
/// time (see [`when::fixes_time`]).
pub(super) fn bare_length_for_when(f: &Frame, quote: &str, v: &Found) -> bool {
    f.answer_type == AnswerType::Date
        && v.unit
            .as_deref()
            .is_some_and(|u| u != typed::CLOCK && typed::is_time_unit(u))
        && !when::fixes_time(quote, v.start, v.end)
}

/// Whether `f` asks for a figure by the word "value" or "figure" ("What value applies
/// when …?", "What is the figure for …?"), which may be a count or an amount.
fn asks_figure(f: &Frame) -> bool {
    let q: Vec<&str> = f.qualifiers.iter().take(4).map(String::as_str).collect();
    let figure = |w: &str| matches!(w, "value" | "figure");
    f.answer_type == AnswerType::Quantity
        && match q.as_slice() {
            ["what", w, ..] if figure(w) => true,
            ["what", "is" | "was", "the", w, ..] => figure(w),
            _ => false,
        }
}

/// Whether `f` asks for a limit by name ("What is the maximum deposit?") and reads it
/// as a count: the limit may be stated as an amount or a share as well.
fn asks_limit(f: &Frame) -> bool {
    f.answer_type == AnswerType::Quantity
        && f.unit_family.is_none_or(|u| u == UnitFamily::Count)
        && f.extreme.is_some()
        && matches!(
            f.qualifiers.first().map(String::as_str),
            Some("what" | "which")
        )
        && !f.qualifiers.iter().any(|w| w == "number" || w == "many")
}

/// Whether date `v` of `quote` plays role `r`: a cue of the role stands in its clause or
/// in `heading`; a preposition ("by", "before", "no later than") only right before the
/// value ("operated by U.S. operators" sets no deadline for the date of that clause).
pub(super) fn plays_role(r: crate::frame::DateRole, quote: &str, v: &Found, heading: &str) -> bool {
    let clause = clause_around(quote, v.start, v.end).to_lowercase();
    let before = quote[..v.start].to_lowercase();
    let before: Vec<&str> = before.split_whitespace().rev().take(6).collect();
    let before = before.into_iter().rev().collect::<Vec<_>>().join(" ");
    let heading = heading.to_lowercase();
    let cued = |text: &str, c: &str| {
        // A cue of one word begins a word ("by" is not in "Abbey").
        if c.contains(' ') {
            text.contains(c)
        } else {
            crate::text::words(text).iter().any(|w| w.starts_with(c))
        }
    };
    r.cues().iter().any(|c| {
        let preposition = PREPOSITION_CUES.contains(c);
        cued(&heading, c) || cued(&before, c) || (!preposition && cued(&clause, c))
    })
}

/// Role cues that are prepositions: they mark the value they stand before.
const PREPOSITION_CUES: &[&str] = &["by", "before", "no later", "not later", "within", "until"];

/// Whether a name read as the value only repeats the question's own words ("Contact
/// Information" for "Who is the contact for more information …?"): no answer.
pub(super) fn restates_question(f: &Frame, raw: &str) -> bool {
    if !matches!(f.answer_type, AnswerType::Person | AnswerType::Organisation) {
        return false;
    }
    let asked: HashSet<String> = f
        .asked_words()
        .iter()
        .map(|w| crate::text::stem(w))
        .collect();
    let words = crate::text::words(&raw.to_lowercase());
    !words.is_empty()
        && words
            .iter()
            .all(|w| crate::text::is_stopword(w) || asked.contains(&crate::text::stem(w)))
}

/// Whether value `v` stands in the condition a sentence of `quote` opens with ("For
/// look-up secrets that have less than 64 bits of entropy, the verifier SHALL …"): it
/// says when the provision applies, not the limit it sets.
pub(super) fn in_leading_condition(quote: &str, v: &Found) -> bool {
    let from = quote[..v.start].rfind(['.', ';']).map_or(0, |i| i + 1);
    let lead = quote[from..v.start].trim_start().to_lowercase();
    let opens = ["if ", "where ", "when ", "for ", "unless ", "in case "]
        .iter()
        .any(|o| lead.starts_with(o));
    // "For safety reasons the maximum … is 120": a prepositional opener has no verb of
    // its own, so a verb before the value is the main clause's, which states the value.
    let main_verb = lead.starts_with("for ")
        && crate::text::words(&lead)
            .iter()
            .skip(1)
            .any(|w| MAIN_VERBS.contains(&w.as_str()));
    opens && !lead.contains(',') && !main_verb || qualifies_subject(&lead, &quote[v.end..])
}

/// Verbs that carry a provision's main clause: before a value, they end a condition the
/// sentence opens with.
const MAIN_VERBS: &[&str] = &[
    "is", "are", "shall", "must", "may", "will", "should", "can", "cannot", "costs", "cost",
];

/// Words that bind a qualifier to the noun before it ("secrets with fewer than …").
const QUALIFIERS: &[&str] = &["with", "having", "containing", "whose"];

/// Whether a value read after `lead` (its sentence up to the value) qualifies the
/// sentence's subject rather than sets what the provision requires: `lead` binds it to a
/// noun ("Look-up secrets with fewer than") and names no verb a provision sets a value
/// with, and a modal verb follows it ("… bits of entropy SHALL be salted").
fn qualifies_subject(lead: &str, after: &str) -> bool {
    let words = crate::text::words(lead);
    let bound = words.iter().any(|w| QUALIFIERS.contains(&w.as_str()));
    let verb =
        |w: &String| MODALS.contains(&w.as_str()) || ["is", "are", "be"].contains(&w.as_str());
    let end = after.find(['.', ';']).unwrap_or(after.len());
    let modal_after = crate::text::words(&after[..end].to_lowercase())
        .iter()
        .any(|w| MODALS.contains(&w.as_str()));
    bound && !words.iter().any(verb) && modal_after
}

/// Modal verbs a provision sets its requirement with.
const MODALS: &[&str] = &["shall", "must", "should", "may", "will"];

/// Whether value `v` of `quote` holds under a condition written right after it that
/// the quote does not tie to the question: the quote itself names under half of the
/// question's focus (the words that name the asked case, "head of household", stand
/// only in the text before it, a sibling alternative's).
pub(super) fn other_condition(f: &Frame, quote: &str, v: &Found) -> bool {
    let after = quote[v.end..].trim_start().to_lowercase();
    // A condition past a clause boundary opens the next alternative ("enter 52; if it
    // pays every other week, enter 26").
    if after.starts_with([';', '.']) {
        return false;
    }
    let opens = crate::text::words(&after)
        .first()
        .is_some_and(|w| lexicon::is(Class::ConditionOpener, w));
    if !opens || f.focus.is_empty() {
        return false;
    }
    let own = stems(quote);
    let named = f.focus.iter().filter(|w| has_word(&own, w)).count();
    named * 2 < f.focus.len()
}

/// Whether `clause` marks its value as another one's than frame `f` asks about: a word
/// of [`Class::Former`] or [`Class::OtherOne`] the question does not use itself.
pub(super) fn other_one(f: &Frame, clause: &str) -> bool {
    let words = crate::text::words(&clause.to_lowercase());
    words.iter().any(|w| {
        lexicon::is_any(&[Class::Former, Class::OtherOne], w)
            && !f.focus.contains(w)
            && !f.qualifiers.contains(w)
    })
}

/// Whether value `v` of `quote` describes the thing its sentence says is replaced: a
/// verb of [`Class::Supersession`] stands before it in its clause, and what lies between
/// them attaches to the replaced thing — a relative clause or a participle after a comma
/// or bracket ("supersedes Permit R1, issued April 12, 2020, which remained in force
/// until …"),
/// with no "and" that starts a predicate of the sentence's own subject ("replaces R1 and
/// expires on …"). A question that itself asks about replacing, or names the replaced
/// thing ("When did R1 expire?"), is not judged so.
pub(super) fn of_replaced(f: &Frame, quote: &str, v: &Found) -> bool {
    if f.qualifiers
        .iter()
        .any(|w| lexicon::is(Class::Supersession, w))
    {
        return false;
    }
    let clause_start = quote[..v.start].rfind([';', '.']).map_or(0, |i| i + 1);
    let before = &quote[clause_start..v.start];
    let lower = before.to_lowercase();
    let words = crate::text::word_spans(&lower);
    let Some(&(at, _)) = words
        .iter()
        .rev()
        .find(|(s, e)| lexicon::is(Class::Supersession, &lower[*s..*e]))
    else {
        return false;
    };
    let between = &lower[at..];
    // A question that names the replaced thing itself asks for its values.
    let names_replaced = f
        .entities
        .iter()
        .chain(&f.figures)
        .any(|e| e.len() > 1 && between.contains(&e.to_lowercase()));
    if names_replaced {
        return false;
    }
    let words = crate::text::words(between);
    let relative = words
        .iter()
        .any(|w| matches!(w.as_str(), "which" | "whose" | "that"));
    // ", issued April 12, 2020", "(dated …)": a participle describing the replaced thing.
    let participle = between.split([',', '(']).skip(1).any(|rest| {
        rest.split_whitespace()
            .next()
            .is_some_and(|w| w.ends_with("ed") || w.ends_with("en"))
    });
    (relative || participle) && !words.iter().any(|w| w == "and")
}

/// Whether `clause` bounds its figures the other way from the extreme asked, and never
/// the asked way ([`Class::BoundMin`], [`Class::BoundMax`]): "at least the minimum
/// security strength (112 bits …)" gives no maximum length.
pub(super) fn opposite_bound(f: &Frame, clause: &str) -> bool {
    let c = clause.to_lowercase();
    let has = |class: Class| lexicon::words(class).iter().any(|p| c.contains(p));
    match f.extreme {
        Some(Extreme::Max) => has(Class::BoundMin) && !has(Class::BoundMax),
        Some(Extreme::Min) => has(Class::BoundMax) && !has(Class::BoundMin),
        None => false,
    }
}

/// The clause of `quote` around `start..end`: from the last `;` or sentence end before to
/// the next after.
pub(super) fn clause_around(quote: &str, start: usize, end: usize) -> &str {
    let from = quote[..start].rfind([';', '.']).map_or(0, |i| i + 1);
    let to = quote[end..].find([';']).map_or(quote.len(), |i| end + i);
    &quote[from..to]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::frame;

    fn raw(q: &str, quote: &str) -> Vec<String> {
        values(&frame(q), quote)
            .into_iter()
            .map(|v| quote[v.start..v.end].to_string())
            .collect()
    }

    #[test]
    fn a_part_counted_by_its_own_clause_answers_for_that_clause() {
        let quote = "Six trustees are elected at large by the voters of the District, and three \
                     are appointed by the Harlow County Commission, one of whom must reside in \
                     the unincorporated part of the District.";
        let got = raw(
            "How many library trustees are appointed by the County Commission?",
            quote,
        );
        assert_eq!(got.first().map(String::as_str), Some("three"), "{got:?}");
    }

    #[test]
    fn a_date_the_question_asks_after_or_before_bounds_the_answer() {
        let quote = "The board met on 3 March 2025 and will next meet on 14 May 2025.";
        let got = raw(
            "On what date is the next board meeting after 12 March 2025?",
            quote,
        );
        assert_eq!(got, ["14 May 2025"]);
        let got = raw(
            "On what date did the board meet before 1 April 2025?",
            quote,
        );
        assert_eq!(got, ["3 March 2025"]);
    }

    #[test]
    fn a_value_in_a_definition_answers_only_what_the_term_means() {
        let quote = "(a) \"Apiary\" means any site where one or more Colonies are kept; (b) \
                     No more than four (4) Colonies may be kept on a Plot.";
        let got = raw("How many colonies may be kept on a plot?", quote);
        assert!(!got.iter().any(|v| v == "one"), "{got:?}");
        assert!(got.iter().any(|v| v.starts_with("four")), "{got:?}");
    }

    #[test]
    fn a_limit_is_never_read_in_the_condition_a_provision_opens_with() {
        let q = "What is the maximum length of a look-up secret?";
        let quote = "For look-up secrets that have less than 64 bits of entropy, the verifier SHALL limit attempts.";
        assert!(raw(q, quote).is_empty());
        let quote = "Look-up secrets SHALL have no more than 64 characters.";
        assert_eq!(raw(q, quote), ["64"]);
        // A bound that qualifies the subject says which secrets, not how long.
        let quote = "Look-up secrets with fewer than 112 bits of entropy SHALL be salted.";
        assert!(raw(q, quote).is_empty());
        let quote = "Look-up secrets with a checksum SHALL be at most 20 characters long.";
        assert_eq!(raw(q, quote), ["20"]);
    }

    #[test]
    fn a_count_at_least_is_a_minimum_and_never_answers_a_maximum() {
        let q = "What is the maximum length that verifiers may allow for a memorized secret?";
        let quote = "Verifiers SHOULD permit memorized secrets at least 64 characters in length.";
        assert!(raw(q, quote).is_empty());
        let q = "What is the minimum length that verifiers may allow for a memorized secret?";
        assert_eq!(raw(q, quote), ["64"]);
    }

    #[test]
    fn a_value_under_another_condition_or_in_the_question_s_words_is_no_answer() {
        let q = "What amount is entered on line 2 if you are head of household?";
        assert!(raw(q, "$15,000 if you're single or married filing separately").is_empty());
        assert_eq!(raw(q, "$22,500 if you're head of household"), ["$22,500"]);
        let q = "Who is the contact for more information about this product?";
        assert!(raw(q, "Company Point of Contact Information").is_empty());
    }

    #[test]
    fn a_ceiling_never_answers_a_minimum_and_days_are_not_years() {
        let q = "a fine of up to EUR 35 000 000 or 7 % of turnover";
        assert!(raw("What is the minimum fine for a prohibited practice?", q).is_empty());
        assert_eq!(raw("What is the maximum fine?", q), ["EUR 35 000 000"]);
        let q = "A toll-free number must remain active for 90 days.";
        assert!(raw("How many years must the number remain active?", q).is_empty());
        assert_eq!(
            raw("How many days must the number remain active?", q),
            ["90 days"]
        );
    }

    #[test]
    fn a_founding_date_is_next_to_a_founding_word_and_may_be_a_century() {
        let q = "When was the palace founded?";
        assert_eq!(
            raw(
                q,
                "The founding of the palace dates back to the late 12th Century."
            ),
            ["late 12th Century"]
        );
        assert!(raw(q, "On January 24, 2017 the owner suffered a stroke.").is_empty());
    }

    #[test]
    fn a_date_of_one_role_is_not_a_date_of_another() {
        let q = "This Regulation shall apply from 19 December 2020.";
        assert!(raw("On what date does the regulation expire?", q).is_empty());
        assert_eq!(
            raw("From what date does the regulation apply?", q),
            ["19 December 2020"]
        );
        // "by" is a deadline's word, not two letters inside another word.
        let q = "The bulletin of the Abbey, dated June 12, 2020, lists them.";
        assert!(raw("By what date must comments be received?", q).is_empty());
        let q = "Comments must be received by September 21, 2020.";
        assert_eq!(
            raw("By what date must comments be received?", q),
            ["September 21, 2020"]
        );
        // A preposition sets the role of the value it stands before, not of every
        // date of its clause.
        let q = "On March 13, 2019, the FAA issued an order, which prohibits the operation \
                 of airplanes by U.S. operators.";
        assert!(raw("By what date must comments be received?", q).is_empty());
        // A figure asked by the word "value" is a count or an amount.
        let q = "What value applies when the job earns $10,000 - 19,999?";
        assert_eq!(raw(q, "The value is $1,020."), ["$1,020"]);
        assert_eq!(raw(q, "The value is 2,790."), ["2,790"]);
        let q = "Comments must reach us by the close of business on September 21, 2020.";
        assert_eq!(
            raw("By what date must comments be received?", q),
            ["September 21, 2020"]
        );
    }

    #[test]
    fn a_date_of_the_replaced_thing_or_of_another_event_is_no_answer() {
        let q = "When does licence L-7/R2 expire?";
        let replaced = "This licence replaces licence L-7/R1, which expired on 31 March 2025.";
        assert!(raw(q, replaced).is_empty());
        let issued = "It supersedes Permit P-1, issued April 12, 2020, in force until May 1, 2025.";
        assert!(raw("When does permit P-2 expire?", issued).is_empty());
        assert_eq!(
            raw("When did licence L-7/R1 expire?", replaced),
            ["31 March 2025"]
        );
        let own = "This licence replaces licence L-7/R1 and expires on 31 March 2035.";
        assert_eq!(raw(q, own), ["31 March 2035"]);
        let renewal =
            "An application for renewal must be lodged at least six months before expiry.";
        assert!(raw("When does the permit expire?", renewal).is_empty());
        assert_eq!(
            raw("When must an application for renewal be lodged?", renewal),
            ["six months"]
        );
        let notice = "The notice period ends 30 days after the notice is given.";
        assert_eq!(raw("When does the notice period end?", notice), ["30 days"]);
    }

    #[test]
    fn a_date_its_role_names_leads_a_term_and_other_dates_of_its_sentence() {
        let term = "This permit is valid for five (5) years from 1 March 2025 and expires on \
                    28 February 2030.";
        assert_eq!(
            raw("When does the permit expire?", term)[0],
            "28 February 2030"
        );
        assert_eq!(raw("When does the permit start?", term)[0], "1 March 2025");
    }
}
