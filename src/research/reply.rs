//! Yes/no replies: "Yes" or "No" to a yes/no question, decided by the verified evidence,
//! or no reply when no verified sentence states the question's proposition.
//!
//! A sentence **speaks to** the question when it holds the question's subject (its
//! subject words as the choice reader reads them, less the auxiliaries that open the
//! question): at most a third of them missing from the sentence and its item's context,
//! and at least half of those its context does not hold in the sentence itself (a
//! question naming the paper or section leaves those words to the item's title and
//! section). A verb of the question the sentence
//! puts otherwise ("use" and "need") is one of the missing third, not another subject. Its stance is read in the clause that holds
//! most of them: the clause agrees when it is negated exactly when the question is ("Do
//! they use X?" and "we use X"; "Is X done without Y?" and "X is done without Y"), and
//! disagrees otherwise ("the model does not need X"). "Not only" and "not just" deny
//! nothing.
//!
//! The first item, in the answer's citation order, that speaks to the question decides
//! the reply; every item whose stance differs is listed as pointing the other way.
//!
//! Word overlap cannot read everything a question may turn on, so some get no reply:
//! a question that quantifies over all of something ("all", "every", "any other"),
//! excludes ("other than", "besides", "only") or compares ("better", "more than",
//! "outperform", "lead to", "help") is not decided by a sentence that merely names its
//! subject; and a clause that itself asks ("we examine whether …", "the degree to which
//! …") states nothing either way.

use serde::{Deserialize, Serialize};

use super::choice::{asked, clause_at, same_word, words_of, Asked, ChoiceItem};
use crate::corpus::segment::sentences;
use crate::lexicon::{self, Class};

/// The reply to a yes/no question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reply {
    /// The deciding item states the question's proposition.
    Yes,
    /// The deciding item states its denial.
    No,
}

impl Reply {
    /// The word the answer opens with.
    pub fn word(self) -> &'static str {
        match self {
            Reply::Yes => "Yes",
            Reply::No => "No",
        }
    }

    fn flip(self) -> Reply {
        match self {
            Reply::Yes => Reply::No,
            Reply::No => Reply::Yes,
        }
    }
}

/// What the verified evidence replies to a yes/no question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct YesNo {
    /// The reply, or `None` when no verified sentence speaks to the question.
    pub reply: Option<Reply>,
    /// The item that decides it.
    pub deciding: Option<String>,
    /// Items whose stance is the other reply.
    pub against: Vec<String>,
    /// The line printed for it, citations included.
    pub line: String,
}

/// Phrases that make a question quantify, exclude or compare (see the module doc).
const UNDECIDABLE: &[&str] = &[
    "all",
    "every",
    "each",
    "any other",
    "other than",
    "besides",
    "apart from",
    "except",
    "only",
    "solely",
    "exclusively",
    "better",
    "worse",
    "more",
    "less",
    "than",
    "outperform",
    "outperforms",
    "improve",
    "improves",
    "help",
    "helps",
    "hurt",
    "hurts",
    "lead to",
    "leads to",
    "separately",
    "always",
    "never",
];

/// Phrases that make a clause ask rather than state.
const ASKING: &[&str] = &[
    "whether",
    "degree to which",
    "extent to which",
    "the question of",
    "if and how",
];

/// Whether the lower-case `text` holds `phrase` as whole words.
fn holds_phrase(text: &str, phrase: &str) -> bool {
    let ws = crate::text::words(text);
    let p: Vec<&str> = phrase.split(' ').collect();
    ws.windows(p.len())
        .any(|w| w.iter().zip(&p).all(|(a, b)| a == b))
}

/// Whether `question` turns on what word overlap cannot read.
fn undecidable(question: &str) -> bool {
    let lower = question.to_lowercase();
    UNDECIDABLE.iter().any(|p| holds_phrase(&lower, p))
}

/// Whether `clause` asks rather than states.
fn asks(clause: &str) -> bool {
    let lower = clause.to_lowercase();
    clause.contains('?') || ASKING.iter().any(|p| holds_phrase(&lower, p))
}

/// Whether `text` denies what it states: a negation, "not only" and "not just" read past.
fn denies(text: &str) -> bool {
    let lower = text.to_lowercase();
    let plain = ["not only", "not just", "not merely", "not limited to"]
        .iter()
        .fold(lower, |t, p| t.replace(p, " "));
    crate::evidence::claims::negated(&plain)
}

/// The clauses of `sentence`, in order (cut as the choice reader cuts them).
fn clauses(sentence: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < sentence.len() {
        let c = clause_at(sentence, at);
        let end = c.as_ptr() as usize - sentence.as_ptr() as usize + c.len();
        out.push(c);
        at = (end + 1..=sentence.len())
            .find(|&i| sentence.is_char_boundary(i))
            .unwrap_or(sentence.len());
    }
    out
}

/// How many of the subject words `text` holds (read loosely, see `same_word`).
fn shared(a: &Asked, text: &str) -> usize {
    let have = words_of(text);
    a.subject
        .iter()
        .filter(|w| have.iter().any(|h| same_word(h, w)))
        .count()
}

/// Whether `sentence` speaks to the question: at most a third of the subject missing
/// from it and its context, at least half (`need`) in it.
fn speaks(a: &Asked, sentence: &str, context: &str, need: usize) -> bool {
    let n = a.subject.len();
    let missing = n - shared(a, &format!("{sentence} {context}"));
    missing * 3 <= n && shared(a, sentence) >= need
}

/// The stance one item takes, if a sentence of it speaks to the question: the sentence
/// holding most subject words decides, read in its clause holding most.
fn stance(a: &Asked, item: &ChoiceItem, question_denies: bool) -> Option<Reply> {
    // Words naming the item's document or section ("In the MapReduce paper, does …")
    // are said by its context; half of the rest must be in the sentence.
    let context = words_of(&item.context);
    let rest = a
        .subject
        .iter()
        .filter(|w| !context.iter().any(|c| same_word(c, w)))
        .count();
    let need = rest.div_ceil(2).max(1);
    let best = sentences(&item.quote)
        .into_iter()
        .map(|sp| sp.slice(&item.quote))
        .filter(|s| speaks(a, s, &item.context, need))
        .map(|s| (shared(a, s), s))
        .fold(None::<(usize, &str)>, |b, x| match b {
            Some(b) if b.0 >= x.0 => Some(b),
            _ => Some(x),
        })?;
    let clause = clauses(best.1)
        .into_iter()
        .fold(None::<(usize, &str)>, |b, c| {
            let n = shared(a, c);
            match b {
                Some(b) if b.0 >= n => Some(b),
                _ => Some((n, c)),
            }
        })
        .map_or(best.1, |(_, c)| c);
    if asks(clause) || asks(best.1) {
        return None;
    }
    Some(if denies(clause) == question_denies {
        Reply::Yes
    } else {
        Reply::No
    })
}

/// Reply to the yes/no `question` from the verified `items`, in citation order.
pub fn reply(question: &str, items: &[ChoiceItem]) -> YesNo {
    let mut a = asked(question);
    a.subject.retain(|w| !lexicon::is(Class::Auxiliary, w));
    let denied = denies(question);
    let stances: Vec<(&ChoiceItem, Reply)> = if a.subject.is_empty() || undecidable(question) {
        Vec::new()
    } else {
        items
            .iter()
            .filter_map(|it| stance(&a, it, denied).map(|s| (it, s)))
            .collect()
    };
    let Some((first, r)) = stances.first().copied() else {
        return YesNo {
            reply: None,
            deciding: None,
            against: Vec::new(),
            line: "No reply: no verified sentence states or denies what the question asks".into(),
        };
    };
    let against: Vec<String> = stances
        .iter()
        .filter(|(_, s)| *s == r.flip())
        .map(|(it, _)| it.id.clone())
        .collect();
    let mut line = format!("{} [{}]", r.word(), first.id);
    if !against.is_empty() {
        line.push_str(&format!(
            "; pointing the other way: [{}]",
            against.join(", ")
        ));
    }
    YesNo {
        reply: Some(r),
        deciding: Some(first.id.clone()),
        against,
        line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(id: &str, quote: &str) -> ChoiceItem {
        ChoiceItem {
            id: id.into(),
            quote: quote.into(),
            context: String::new(),
        }
    }

    #[test]
    fn a_sentence_stating_the_proposition_replies_yes() {
        let r = reply(
            "Do they use pretrained word embeddings?",
            &[item(
                "E1",
                "We initialise the model with pretrained word embeddings.",
            )],
        );
        assert_eq!(r.reply, Some(Reply::Yes));
        assert_eq!(r.deciding.as_deref(), Some("E1"));
        assert_eq!(r.line, "Yes [E1]");
    }

    #[test]
    fn a_denial_in_the_clause_that_states_it_replies_no() {
        let r = reply(
            "Does the model need citation information at inference?",
            &[item(
                "E1",
                "The encoder reads titles only; the model does not need citation \
                 information at inference.",
            )],
        );
        assert_eq!(r.reply, Some(Reply::No));
    }

    #[test]
    fn a_negation_in_another_clause_does_not_flip_the_reply() {
        let r = reply(
            "Is the corpus annotated by experts?",
            &[item(
                "E1",
                "The corpus is annotated by experts, but no crowd workers were hired.",
            )],
        );
        assert_eq!(r.reply, Some(Reply::Yes));
    }

    #[test]
    fn not_only_denies_nothing() {
        let r = reply(
            "Is the method evaluated on speech data?",
            &[item(
                "E1",
                "The method is evaluated not only on text but on speech data as well.",
            )],
        );
        assert_eq!(r.reply, Some(Reply::Yes));
    }

    #[test]
    fn a_negated_question_agrees_with_a_negated_sentence() {
        let r = reply(
            "Is the parser trained without gold trees?",
            &[item("E1", "The parser is trained without gold trees.")],
        );
        assert_eq!(r.reply, Some(Reply::Yes));
    }

    #[test]
    fn items_of_the_other_stance_are_listed_and_the_first_decides() {
        let r = reply(
            "Do the authors release the dataset?",
            &[
                item(
                    "E1",
                    "The authors release the dataset under an open licence.",
                ),
                item("E2", "The dataset is not released by the authors."),
            ],
        );
        assert_eq!(r.reply, Some(Reply::Yes));
        assert_eq!(r.against, vec!["E2".to_string()]);
        assert!(
            r.line.contains("pointing the other way: [E2]"),
            "{}",
            r.line
        );
    }

    #[test]
    fn questions_that_quantify_exclude_or_compare_get_no_reply() {
        for q in [
            "Are all generated examples fluent sentences?",
            "Do they evaluate on datasets other than RACE?",
            "Does the larger model lead to better translation quality?",
            "Do they evaluate only on English data?",
        ] {
            let r = reply(
                q,
                &[item(
                    "E1",
                    "The generated examples are fluent sentences; the larger model is \
                     evaluated on RACE and English data for translation quality.",
                )],
            );
            assert_eq!(r.reply, None, "{q}");
        }
    }

    #[test]
    fn a_clause_that_asks_states_nothing() {
        let r = reply(
            "Does incorporating user traits improve the task?",
            &[item(
                "E1",
                "We explore whether incorporating user traits changes the task.",
            )],
        );
        assert_eq!(r.reply, None);
        let r = reply(
            "Does incorporating user traits change the task?",
            &[item(
                "E1",
                "We explore whether incorporating user traits changes the task.",
            )],
        );
        assert_eq!(r.reply, None);
    }

    #[test]
    fn words_naming_the_paper_are_left_to_its_title() {
        let it = ChoiceItem {
            id: "E1".into(),
            quote: "Disabling backup tasks makes the sort program take 44% longer.".into(),
            context: "MapReduce: Simplified Data Processing on Large Clusters".into(),
        };
        let r = reply(
            "In the MapReduce data processing paper on large clusters, does disabling \
             backup tasks slow the sort program?",
            &[it],
        );
        assert_eq!(r.reply, Some(Reply::Yes));
    }

    #[test]
    fn evidence_about_something_else_gives_no_reply() {
        let r = reply(
            "Do they use crowdsourcing for the captions?",
            &[item(
                "E1",
                "The images were taken from a public photo archive.",
            )],
        );
        assert_eq!(r.reply, None);
        assert!(r.deciding.is_none() && r.against.is_empty());
    }
}
