//! Stage 3b for checkbox questions: "Is the AMENDED box ticked?" is answered by the form
//! field that states that box's state ("AMENDED (A) (check box): not ticked", stored by
//! [`crate::corpus::forms`]), never by the printed page, which shows a ticked box's mark
//! but nothing for an empty one.
//!
//! The field answers when every word of its caption is a word of the question; of several
//! such fields the one whose caption names the most of the question leads. Two fields
//! named equally well that disagree are ambiguous: nothing is claimed.

use std::collections::HashSet;

use super::Decision;
use crate::ask::select::Numbered;
use crate::corpus::forms::{BOX_MARK, OPTION_MARK};
use crate::frame::Frame;
use crate::value::typed::AnswerType;

/// Words that name a box; a question about a box's state names one ("a background
/// check", "checked by the supervisor" are not about a box).
const BOX_WORDS: &[&str] = &["box", "boxes", "checkbox", "checkboxes", "tickbox"];

/// Words of a caption that need not be in the question.
const IGNORED: &[&str] = &[
    "the", "a", "an", "of", "or", "and", "to", "for", "if", "on", "in",
];

/// Whether `f` asks whether a box is ticked.
pub(super) fn asks_box(f: &Frame) -> bool {
    f.answer_type == AnswerType::YesNo
        && f.qualifiers.iter().any(|w| BOX_WORDS.contains(&w.as_str()))
}

/// The lower-case words of `text` (letters and digits).
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The decision for a checkbox question: the verified form field that states the state
/// of the box the question names, or what is missing; `None` for other questions.
pub(super) fn decide(f: &Frame, n: &Numbered) -> Option<Decision> {
    if !asks_box(f) {
        return None;
    }
    let asked: HashSet<String> = f.qualifiers.iter().flat_map(|q| words(q)).collect();
    let mut named: Vec<(usize, &String, bool)> = n
        .verified()
        .filter_map(|(id, v)| {
            // A radio button's option is a box too ("Is the Single box checked?").
            let quote = &v.candidate.quote;
            let (caption, state) = quote
                .split_once(BOX_MARK)
                .or_else(|| quote.split_once(OPTION_MARK))?;
            let ticked = match state.trim() {
                "ticked" => true,
                "not ticked" => false,
                _ => return None,
            };
            let mine: Vec<String> = words(caption)
                .into_iter()
                .filter(|w| !IGNORED.contains(&w.as_str()))
                .collect();
            let all = !mine.is_empty() && mine.iter().all(|w| asked.contains(w));
            all.then_some((mine.len(), id, ticked))
        })
        .collect();
    named.sort_by_key(|(k, _, _)| std::cmp::Reverse(*k));
    let Some(&(best, lead, state)) = named.first() else {
        // The printed page shows a ticked box's mark but nothing for an empty one:
        // passages about boxes never say which state this one is in.
        return Some(Decision {
            unmet: vec![
                "no form field read from the documents states whether this box is ticked"
                    .to_string(),
            ],
            ..Decision::default()
        });
    };
    if named.iter().any(|(k, _, s)| *k == best && *s != state) {
        return Some(Decision {
            unmet: vec!["two boxes the question names equally well disagree".to_string()],
            ..Decision::default()
        });
    }
    Some(Decision {
        keep: Some(vec![lead.clone()]),
        ..Decision::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_yes_no_questions_that_name_a_box_are_box_questions() {
        for q in [
            "Is the Individual/sole proprietor box checked on line 3a?",
            "Was the AMENDED (A) box ticked?",
            "Are the checkboxes in Step 1 marked?",
        ] {
            assert!(asks_box(&crate::frame::frame(q)), "{q}");
        }
        for q in [
            "Does the policy require a background check?",
            "Was the application checked by the supervisor?",
            "Which box is ticked?",
            "How many boxes of records are kept?",
        ] {
            assert!(!asks_box(&crate::frame::frame(q)), "{q}");
        }
    }
}
