//! Roles: whether a sentence states a person or thing *in the role* a question asks
//! about.
//!
//! A question asks for the holder of a role when it reads "who is (the) ROLE …", "who
//! serves as ROLE …", "what is the name of the ROLE …", "what N is the ROLE …" or
//! "which (of the following) is the ROLE …" (not "what is the ROLE", which asks what, not
//! who or which one); the
//! role is its words up to the first preposition (`deputy director` in "Who is the
//! deputy director of the program?"). A sentence states a choice in that role when the
//! choice's words and the role's words stand in it linked only by a copula, an
//! appointment verb, a determiner or punctuation: "NAME is the ROLE", "NAME, ROLE",
//! "NAME serves as ROLE", "ROLE: NAME", "the ROLE is NAME", "the ROLE post is held by
//! NAME". Anything else between them ("NAME reports to the ROLE", "the ROLE and NAME")
//! binds nothing, and neither does a heading naming the role over a sentence that names
//! only the choice. A role stated in the past ("was", "formerly", "previously") answers
//! only a question asked in the past; a possessive after the role ("the ROLE's
//! assistant") names another role.

use crate::lexicon::{self, Class};

/// Words that link a role to its holder in a question.
const QUESTION_LINKS: &[&str] = &[
    "is",
    "was",
    "are",
    "were",
    "will",
    "be",
    "currently",
    "now",
    "serves",
    "served",
    "acts",
    "acted",
    "as",
    "holds",
    "held",
];

/// Determiners skipped before a role.
const DETERMINERS: &[&str] = &["the", "a", "an", "our", "its", "their", "his", "her"];

/// Words that end a role in a question.
const ROLE_ENDS: &[&str] = &[
    "of", "for", "at", "in", "on", "to", "with", "from", "under", "by", "and", "or", "who", "that",
    "since", "during", "as",
];

/// Words that may stand between a holder and the role after it ("NAME is the ROLE").
const LINKS_BEFORE_ROLE: &[&str] = &[
    "is",
    "was",
    "are",
    "were",
    "serves",
    "served",
    "acts",
    "acted",
    "as",
    "the",
    "a",
    "an",
    "our",
    "its",
    "their",
    "has",
    "have",
    "been",
    "had",
    "became",
    "becomes",
    "become",
    "remains",
    "remained",
    "currently",
    "now",
    "new",
    "appointed",
    "named",
    "elected",
    "will",
    "be",
    "also",
    "who",
    "which",
    "since",
];

/// Words that may stand between a role and the holder after it ("the ROLE is NAME").
const LINKS_AFTER_ROLE: &[&str] = &[
    "is",
    "was",
    "are",
    "were",
    "currently",
    "now",
    "remains",
    "remained",
    "has",
    "been",
    "position",
    "post",
    "office",
    "role",
    "seat",
    "held",
    "by",
    "filled",
    "occupied",
];

/// Words that put a link in the past.
const PAST: &[&str] = &[
    "was",
    "were",
    "served",
    "acted",
    "had",
    "formerly",
    "former",
    "previously",
    "once",
];

/// Words after a past link that make it an appointment still holding ("was appointed").
const STILL: &[&str] = &["appointed", "named", "elected"];

/// A role a question asks who or what holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Role {
    /// Its words, lower case, in order.
    pub words: Vec<String>,
    /// Whether the question asks in the past ("who was …").
    pub past: bool,
}

/// Longest role, in words: a longer run is a clause, not a role.
const MAX_ROLE_WORDS: usize = 5;

/// The role `question` asks the holder of, if it asks for one (see the module doc).
pub fn asked_role(question: &str) -> Option<Role> {
    let w = crate::text::words(question);
    // After "what N" or "which": a copula and a determiner ("which agency is the …", not
    // "which records are kept …").
    let is_link = |k: usize| {
        w.get(k)
            .is_some_and(|l| ["is", "was", "are", "were"].contains(&l.as_str()))
            && w.get(k + 1)
                .is_some_and(|d| DETERMINERS.contains(&d.as_str()))
    };
    let start = w.iter().enumerate().find_map(|(i, t)| match t.as_str() {
        "who" => Some(i + 1),
        "name" if w.get(i + 1).is_some_and(|n| n == "of") => Some(i + 2),
        // "what agency is …" (not "what is …"); "which of the following is …".
        "what" if !is_link(i + 1) && is_link(i + 2) => Some(i + 2),
        "which" => (i + 1..=i + 4).find(|&k| is_link(k)),
        _ => None,
    })?;
    let links: Vec<&String> = w[start..]
        .iter()
        .take_while(|t| QUESTION_LINKS.contains(&t.as_str()))
        .collect();
    let by_name = start >= 1 && w[start - 1] == "of";
    if links.is_empty() && !by_name {
        return None;
    }
    let past = links.iter().any(|t| PAST.contains(&t.as_str()));
    let words: Vec<String> = w[start + links.len()..]
        .iter()
        .skip_while(|t| DETERMINERS.contains(&t.as_str()))
        .take_while(|t| !ROLE_ENDS.contains(&t.as_str()))
        .cloned()
        .collect();
    let plain = words.iter().all(|t| t.chars().all(char::is_alphabetic));
    (!words.is_empty() && words.len() <= MAX_ROLE_WORDS && plain).then_some(Role { words, past })
}

/// Word positions where `want` stands in `have`, each word read loosely.
fn runs(have: &[String], want: &[String]) -> Vec<usize> {
    if want.is_empty() || want.len() > have.len() {
        return Vec::new();
    }
    (0..=have.len() - want.len())
        .filter(|&i| {
            want.iter().zip(&have[i..]).all(|(a, b)| {
                super::same_word(a, b) || crate::text::stem(a) == crate::text::stem(b)
            })
        })
        .collect()
}

/// Whether the words `between` a holder and its role link them in the asked tense (a
/// title before the holder's name links too: "the ROLE is Dr. NAME").
fn links(between: &[String], allowed: &[&str], role: &Role) -> bool {
    let linked = between
        .iter()
        .all(|t| allowed.contains(&t.as_str()) || lexicon::is(Class::Honorific, t));
    let past = between.iter().enumerate().any(|(i, t)| {
        PAST.contains(&t.as_str())
            && !between
                .get(i + 1)
                .is_some_and(|n| STILL.contains(&n.as_str()))
    });
    linked && (role.past || !past)
}

/// Whether `sentence` states `choice` in `role` (see the module doc).
pub fn states_in_role(sentence: &str, choice: &str, role: &Role) -> bool {
    let have = crate::text::words(sentence);
    let name: Vec<String> = crate::text::words(choice)
        .into_iter()
        .skip_while(|t| DETERMINERS.contains(&t.as_str()) || lexicon::is(Class::Honorific, t))
        .collect();
    let (n, r) = (name.len(), role.words.len());
    let names = runs(&have, &name);
    let roles: Vec<usize> = runs(&have, &role.words)
        .into_iter()
        // "the ROLE's assistant" names another role.
        .filter(|&j| have.get(j + r).is_none_or(|t| t != "s"))
        .collect();
    names.iter().any(|&i| {
        roles.iter().any(|&j| {
            if i + n <= j {
                links(&have[i + n..j], LINKS_BEFORE_ROLE, role)
            } else if j + r <= i {
                links(&have[j + r..i], LINKS_AFTER_ROLE, role)
            } else {
                false
            }
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn role(q: &str) -> Role {
        asked_role(q).unwrap_or_else(|| panic!("no role in {q:?}"))
    }

    #[test]
    fn a_question_asks_for_the_holder_of_a_role() {
        assert_eq!(
            role("Who is the deputy director of the program?").words,
            vec!["deputy", "director"]
        );
        assert_eq!(role("Who serves as treasurer?").words, vec!["treasurer"]);
        assert_eq!(
            role("What is the name of the chief privacy officer?").words,
            vec!["chief", "privacy", "officer"]
        );
        assert_eq!(
            role("Which agency is the lead agency for housing?").words,
            vec!["lead", "agency"]
        );
        assert!(role("Who was the first chair of the board?").past);
        assert_eq!(
            role("Which of the following is the records officer?").words,
            vec!["records", "officer"]
        );
        assert_eq!(asked_role("Who must approve a transfer?"), None);
        assert_eq!(asked_role("What is the penalty for late filing?"), None);
        assert_eq!(asked_role("Which records are kept for seven years?"), None);
        assert_eq!(asked_role("How long must records be kept?"), None);
    }

    #[test]
    fn a_holder_is_stated_in_the_role_only_through_a_link() {
        let r = role("Who is the deputy director?");
        for yes in [
            "Maria Lopez is the deputy director of the program.",
            "The deputy director is Dr. Maria Lopez.",
            "Deputy Director: Maria Lopez",
            "Questions go to the deputy director, Maria Lopez, by email.",
            "Maria Lopez, who was appointed deputy director in 2021, leads intake.",
            "The deputy director post is held by Maria Lopez.",
        ] {
            assert!(states_in_role(yes, "Maria Lopez", &r), "{yes}");
        }
        for no in [
            "Maria Lopez reports to the deputy director.",
            "The deputy director and Maria Lopez share an office.",
            "Maria Lopez is the director, and Tom Green is the deputy director.",
            "Maria Lopez is the deputy director's assistant.",
            "Maria Lopez was the deputy director until 2019.",
            "Maria Lopez leads the intake team.",
        ] {
            assert!(!states_in_role(no, "Maria Lopez", &r), "{no}");
        }
        let past = role("Who was the deputy director in 2018?");
        assert!(states_in_role(
            "Maria Lopez was the deputy director until 2019.",
            "Maria Lopez",
            &past
        ));
    }
}
