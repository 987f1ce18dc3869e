//! Exemptions: a passage that exempts the asked case from what a value is stated for.
//!
//! "An annual card costs $25" states the general case; "Residents aged 65 or older are
//! exempt from the card fee" takes a group out of it. A question that names such a group
//! ("the card fee for residents aged 65 or older") asks about the exempt case: the
//! words it names beyond what the value's clause says are all named by a clause of an
//! exemption, and the exemption answers, with no value. A question naming no more than
//! the value's clause is the general case, and the value stands.

use std::collections::HashSet;

use crate::frame::Frame;
use crate::lexicon::{self, Class};

/// Whether `clause` exempts something: a phrase of [`Class::Exempting`], as whole words.
pub(super) fn exempts(clause: &str) -> bool {
    let lower = clause.to_lowercase();
    lexicon::words(Class::Exempting).iter().any(|p| {
        lower
            .match_indices(p)
            .any(|(i, _)| whole_word(&lower, i, i + p.len()))
    })
}

/// Whether `start..end` of `text` is not inside a longer word.
fn whole_word(text: &str, start: usize, end: usize) -> bool {
    let before = text[..start].chars().next_back();
    let after = text[end..].chars().next();
    !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
}

/// The clauses of `quote`: cut at sentence ends, semicolons and "except", "but",
/// "however", so that an exemption written after a value is a clause of its own.
pub(super) fn clauses(quote: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut from = 0;
    let lower = quote.to_lowercase();
    for (i, c) in quote.char_indices() {
        let cut_here = matches!(c, '.' | ';') && quote[i + 1..].starts_with(char::is_whitespace)
            || [" except ", " but ", " however"]
                .iter()
                .any(|w| lower[i..].starts_with(w));
        if cut_here && i > from {
            out.push(&quote[from..i]);
            from = i + 1;
        }
    }
    if from < quote.len() {
        out.push(&quote[from..]);
    }
    out
}

/// The stems of the words of `text`.
fn stems(text: &str) -> HashSet<String> {
    crate::text::words(&text.to_lowercase())
        .iter()
        .map(|w| crate::text::stem(w))
        .collect()
}

/// Whether `exemption` (a clause that exempts) covers the case question `f` asks about,
/// given `general` (the clause, section and label that state the value): the question's
/// focus words that `general` does not name are all named by the exemption, and there
/// is at least one.
pub(super) fn covers_asked(f: &Frame, general: &str, exemption: &str) -> bool {
    let (general, exemption) = (stems(general), stems(exemption));
    let extra: Vec<String> = f
        .focus
        .iter()
        .map(|w| crate::text::stem(&w.to_lowercase()))
        .filter(|w| !general.contains(w))
        .collect();
    !extra.is_empty() && extra.iter().all(|w| exemption.contains(w))
}

/// Whether `clause` exempts a subject question `f` names: a focus word of `f` stands
/// before the exempting phrase ("Veterans are exempt from the $40 fee" for "What fee do
/// veterans pay?") and is not a word of what the subject is exempt from.
pub(super) fn exempts_named(f: &Frame, clause: &str) -> bool {
    let lower = clause.to_lowercase();
    let Some(at) = lexicon::words(Class::Exempting)
        .iter()
        .filter_map(|p| lower.find(p))
        .min()
    else {
        return false;
    };
    let (subject, object) = (stems(&lower[..at]), stems(&lower[at..]));
    f.focus.iter().any(|w| {
        let w = crate::text::stem(&w.to_lowercase());
        subject.contains(&w) && !object.contains(&w)
    })
}

/// Phrases that say a value has not been set, decided or given.
const ABSENT: &[&str] = &[
    "not yet been",
    "has not been",
    "have not been",
    "not yet",
    "to be determined",
    "to be confirmed",
    "to be decided",
    "tbd",
    "tbc",
    "not been set",
    "not available",
    "not been allocated",
    "not been assigned",
    "pending",
];

/// Words that end the clause an absence phrase governs: what stands beyond them is said
/// of something else ("While the strategy has not yet been set, the program will …").
const CLAUSE_BREAKS: &[&str] = &[
    ",",
    ";",
    ":",
    " and ",
    " while ",
    " whilst ",
    " although ",
    " whereas ",
    " but ",
];

/// The stretch of `lower` (lower case) that an absence phrase at `at..end` governs: from
/// the last clause break before it to the first after it.
fn governed(lower: &str, at: usize, end: usize) -> &str {
    let from = CLAUSE_BREAKS
        .iter()
        .filter_map(|b| lower[..at].rfind(b).map(|i| i + b.len()))
        .max()
        .unwrap_or(0);
    let to = CLAUSE_BREAKS
        .iter()
        .filter_map(|b| lower[end..].find(b).map(|i| end + i))
        .min()
        .unwrap_or(lower.len());
    &lower[from..to]
}

/// Whether `clause` says that what question `f` asks for has not been set: an absence
/// phrase whose own clause (see [`governed`]) names the question's head (or, with none,
/// half of its focus): "the North depot has not yet been allocated an annual budget", not
/// "while the strategy has not yet been formalised, the program will have contracts".
pub(super) fn states_absent(f: &Frame, clause: &str) -> bool {
    if f.focus.is_empty() {
        return false;
    }
    let lower = clause.to_lowercase();
    ABSENT.iter().any(|p| {
        lower.match_indices(p).any(|(i, _)| {
            let end = i + p.len();
            whole_word(&lower, i, end) && names_asked(f, governed(&lower, i, end))
        })
    })
}

/// Whether `text` names the head of question `f` and half of its focus (half of its
/// focus alone when it has no head).
fn names_asked(f: &Frame, text: &str) -> bool {
    let words = stems(text);
    let has = |w: &String| words.contains(&crate::text::stem(&w.to_lowercase()));
    let half = f.focus.iter().filter(|w| has(w)).count() * 2 >= f.focus.len();
    half && f.head.as_ref().is_none_or(has)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::frame;

    #[test]
    fn an_exemption_naming_the_asked_group_covers_the_question() {
        let general = "A boat mooring permit costs $120 a season";
        let exemption = "Volunteer lifeguards are exempt from the mooring permit fee";
        assert!(exempts(exemption));
        let f = frame("What is the mooring permit fee for volunteer lifeguards?");
        assert!(covers_asked(&f, general, exemption));
        // The general case names nothing the value's clause does not.
        let f = frame("What does a boat mooring permit cost?");
        assert!(!covers_asked(&f, general, exemption));
        // Another group is not the exempt one.
        let f = frame("What is the mooring permit fee for commercial operators?");
        assert!(!covers_asked(&f, general, exemption));
        // Paying nothing and not being eligible exempt as "exempt" does.
        for x in [
            "Hire boats registered in the harbour pay no mooring charge",
            "Hire boats are not eligible for the seasonal rate",
        ] {
            assert!(exempts(x), "{x}");
        }
    }

    #[test]
    fn an_exemption_after_a_value_is_a_clause_of_its_own() {
        let quote = "The levy is 2% of turnover, except that registered charities are \
                     not subject to the levy.";
        let cs = clauses(quote);
        assert_eq!(cs.len(), 2);
        assert!(!exempts(cs[0]));
        assert!(exempts(cs[1]));
        assert!(!exempts("The exemptions office is on the second floor"));
    }

    #[test]
    fn a_statement_that_the_asked_value_is_not_set_is_read() {
        let f = frame("What is the annual budget of the North depot?");
        assert!(states_absent(
            &f,
            "The North depot has not yet been allocated an annual budget"
        ));
        assert!(!states_absent(
            &f,
            "The North depot has an annual budget of $40,000"
        ));
        assert!(!states_absent(
            &f,
            "The South yard has not yet been inspected"
        ));
        // The absence is said of another thing in a clause of its own.
        let f = frame("What is the estimated contract value for the Harbor program?");
        assert!(!states_absent(
            &f,
            "While the acquisition strategy for Harbor has not yet been formalized, the \
             agency envisions that the program will consist of multiple contracts"
        ));
        assert!(states_absent(
            &f,
            "The program is under review, and its contract value has not yet been estimated"
        ));
    }

    #[test]
    fn a_value_inside_an_exemption_is_not_the_exempt_subject_s_value() {
        let clause = "Veterans are exempt from the $40 fee";
        assert!(exempts_named(&frame("What fee do veterans pay?"), clause));
        assert!(!exempts_named(&frame("What is the fee?"), clause));
    }
}
