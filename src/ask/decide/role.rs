//! The role a "who" question asks to be filled, and whether a name fills it.
//!
//! "Who is the chief executive?" asks for the holder of a role, not for any person a
//! passage names. A name answers it only when the passage states the role beside the
//! name: every word of the role within a few words of it, with no other person named in
//! between ("Chief Executive: Harriet Osei", "Harriet Osei has served as Chief Executive
//! since 2021"). A passage that names one person and another role ("the chair, Tom Reyes,
//! thanked the chief executive") does not name the chief executive.

use crate::frame::{AnswerType, Frame};
use crate::value::typed::{self, Found};

/// Verbs that link "who" to the role asked for ("who is", "who serves as").
const LINKS: &[&str] = &[
    "is", "was", "are", "were", "serves", "served", "acts", "acted",
];

/// Words that open the role's noun phrase.
const DETERMINERS: &[&str] = &["the", "a", "an", "its", "their", "his", "her", "our"];

/// How many words the role may stand from the name.
const NEAR: usize = 6;

/// The words of the role a "who" question asks to be filled ("Who is the chief
/// executive of Acme?" → `chief`, `executive`): up to four words after a linking verb
/// and a determiner, ending at the first word that is not part of a noun phrase.
pub(super) fn asked_role(f: &Frame) -> Option<Vec<String>> {
    if f.answer_type != AnswerType::Person {
        return None;
    }
    let q = &f.qualifiers;
    if !matches!(q.first().map(String::as_str), Some("who" | "whom")) {
        return None;
    }
    let mut i = 1;
    if !q.get(i).is_some_and(|w| LINKS.contains(&w.as_str())) {
        return None;
    }
    i += 1;
    if q.get(i).is_some_and(|w| w == "as") {
        i += 1;
    }
    if !q.get(i).is_some_and(|w| DETERMINERS.contains(&w.as_str())) {
        return None;
    }
    let role: Vec<String> = q[i + 1..]
        .iter()
        .take_while(|w| !crate::text::is_stopword(w) && w.chars().all(char::is_alphabetic))
        .take(4)
        .cloned()
        .collect();
    (!role.is_empty()).then_some(role)
}

/// Whether `text` (a table row's header, a cell's column) names every word of `role`.
pub(super) fn names_role(role: &[String], text: &str) -> bool {
    let have: Vec<String> = crate::text::words(&text.to_lowercase())
        .iter()
        .map(|w| crate::text::stem(w))
        .collect();
    role.iter()
        .all(|r| have.contains(&crate::text::stem(&r.to_lowercase())))
}

/// Whether name `v` of `quote` leaves `role` unfilled: some word of the role is not
/// within [`NEAR`] words of the name, or another person's name stands between the
/// role word and this one.
pub(super) fn unfilled(role: &[String], quote: &str, v: &Found) -> bool {
    let spans = crate::text::word_spans(quote);
    let Some(first) = spans.iter().position(|&(_, e)| e > v.start) else {
        return true;
    };
    let last = spans.iter().rposition(|&(s, _)| s < v.end).unwrap_or(first);
    let others: Vec<Found> = typed::find(quote, AnswerType::Person, None)
        .into_iter()
        .filter(|o| o.end <= v.start || o.start >= v.end)
        .collect();
    let stem = |w: &str| crate::text::stem(&w.to_lowercase());
    role.iter().any(|r| {
        let r = stem(r);
        let lo = first.saturating_sub(NEAR);
        let hi = (last + NEAR + 1).min(spans.len());
        !(lo..hi).any(|k| {
            let (s, e) = spans[k];
            let between = if e <= v.start {
                (e, v.start)
            } else {
                (v.end, s)
            };
            stem(&quote[s..e]) == r
                && !others
                    .iter()
                    .any(|o| o.start >= between.0 && o.end <= between.1)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn role(q: &str) -> Option<Vec<String>> {
        asked_role(&crate::frame::frame(q))
    }

    fn fills(q: &str, quote: &str) -> Vec<String> {
        let f = crate::frame::frame(q);
        let role = asked_role(&f).expect("a role is asked");
        typed::find(quote, AnswerType::Person, None)
            .into_iter()
            .filter(|v| !unfilled(&role, quote, v))
            .map(|v| quote[v.start..v.end].to_string())
            .collect()
    }

    #[test]
    fn a_role_is_read_after_who_a_link_and_a_determiner() {
        assert_eq!(
            role("Who is the chief executive of the company?"),
            Some(vec!["chief".into(), "executive".into()])
        );
        assert_eq!(
            role("Who serves as the corresponding author?"),
            Some(vec!["corresponding".into(), "author".into()])
        );
        assert_eq!(role("Who signed the permit?"), None);
        assert_eq!(role("When was the chief executive appointed?"), None);
    }

    #[test]
    fn a_name_fills_the_role_only_when_the_role_stands_beside_it() {
        let q = "Who is the chief executive?";
        assert_eq!(
            fills(q, "Chief Executive: Harriet Osei."),
            vec!["Harriet Osei".to_string()]
        );
        assert_eq!(
            fills(
                q,
                "Harriet Osei has served as Chief Executive since June 2021."
            ),
            vec!["Harriet Osei".to_string()]
        );
        assert!(fills(
            q,
            "The board chair, Tom Reyes, opened the meeting and later the whole board \
             thanked the departing chief executive for her service."
        )
        .is_empty());
    }
}
