//! Multiple choice: pick one of the question's answer choices from the verified evidence,
//! or abstain when the evidence cannot decide.
//!
//! Evidence speaks to a choice only when it is **about the question's subject**: of the
//! question's subject words (its content words less question scaffolding, units and bound
//! words) at most a third are missing from the quote's sentence and the item's section and
//! title, none is replaced *in the sentence itself* by another qualifier ("billing
//! records" for "client records": a heading naming the asked subject does not bind a
//! sentence that names another), and no title modifier (`deputy`, `assistant`, `acting`,
//! …) the question lacks stands before them. Then:
//!
//! * A choice with a figure (`7 years`; a bare `90` takes the unit the question asks for,
//!   "how many **hours**") is **supported** when the sentence states that figure, in the
//!   same unit, in the clause that shares most subject words among the clauses stating
//!   that unit, with the bound the question asks for (a "minimum" question is never
//!   answered from a maximum, or from a figure stated without a bound); it is **ruled
//!   out** when such a sentence states another value in that unit and bound.
//! * A choice without a figure is supported when the sentence holds its content words
//!   (all of them, or at least half and two or more) and, when the question asks who or
//!   which one holds a role ("Who is the deputy director?"), states the choice in that
//!   role (see [`role`]: "NAME is the deputy director", not "NAME reports to the deputy
//!   director", nor a heading naming the role).
//!
//! Exactly one supported choice is selected; none or several leave the selection
//! undecided (abstain), and every ruling-out item is cited on its choice's line.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use super::Choice;
use crate::corpus::segment::sentences;
use crate::figure::{figures_of, number_values, Bound, Figure};
use crate::lexicon::{self, Class};
use crate::text::content_words;

pub mod role;

/// What the evidence says of one choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// An item about the question's subject states it.
    Supported,
    /// An item about the question's subject states otherwise.
    RuledOut,
    /// No item about the question's subject speaks to it.
    Undecided,
}

impl Verdict {
    /// The name JSON uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Supported => "supported",
            Verdict::RuledOut => "ruled_out",
            Verdict::Undecided => "undecided",
        }
    }
}

/// What the evidence says of one choice.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChoiceVerdict {
    /// The label (`A`).
    pub label: String,
    /// The choice text.
    pub text: String,
    /// Supported, ruled out or undecided.
    pub verdict: Verdict,
    /// Items that support it (for `supported`) or rule it out (for `ruled_out`).
    pub citations: Vec<String>,
    /// The line printed for it, citations included.
    pub line: String,
}

/// The selection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Selection {
    /// The selected label, or `None` when the evidence cannot decide.
    pub selected: Option<String>,
    /// One verdict per choice, in the question's order.
    pub choices: Vec<ChoiceVerdict>,
}

/// A verified item as the selection reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct ChoiceItem {
    /// Its id (`E1`).
    pub id: String,
    /// The quote.
    pub quote: String,
    /// Its section path, label and document title: they may name the subject.
    pub context: String,
}

/// Words of a question that ask rather than name its subject (other stop words stay in
/// the subject).
const SCAFFOLD: &[Class] = &[Class::Scaffold, Class::ScaffoldValue, Class::ScaffoldChoice];

/// Title modifiers that make another person or office of the same head word.
const MODIFIERS: &[&str] = &[
    "deputy",
    "assistant",
    "acting",
    "vice",
    "associate",
    "interim",
    "former",
    "co",
    "sub",
    "under",
    "lieutenant",
    "honorary",
];

/// Verbs the documents use for the same act, read as one word.
fn canonical_word(w: &str) -> String {
    match w {
        "kept" | "keep" | "maintain" | "maintained" | "preserve" | "preserved" | "store"
        | "stored" | "retained" | "retain" | "hold" | "held" => "retain".into(),
        _ => w.to_string(),
    }
}

pub(super) fn words_of(text: &str) -> HashSet<String> {
    content_words(text)
        .into_iter()
        .map(|w| canonical_word(&w))
        .collect()
}

/// What the question asks: its subject words, the unit it counts in and its bound.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Asked {
    pub(super) subject: HashSet<String>,
    /// The question's content words in order, for the words that qualify a subject.
    sequence: Vec<String>,
    modifiers: HashSet<String>,
    unit: Option<String>,
    bound: Bound,
    /// The role whose holder the question asks for, if it asks for one.
    role: Option<role::Role>,
}

pub(super) fn asked(question: &str) -> Asked {
    let lower = question.to_lowercase();
    let all: Vec<String> = crate::text::words(&lower);
    let unit = all
        .iter()
        .map(|w| w.trim_end_matches('s'))
        .find(|w| crate::figure::UNITS.contains(w) && *w != "time")
        .map(str::to_string)
        .or_else(|| {
            all.iter()
                .any(|w| w == "percentage" || w == "percent")
                .then(|| "percent".to_string())
        });
    let has = |p: &str| format!(" {} ", all.join(" ")).contains(&format!(" {p} "));
    let bounds = |classes: &[Class], word: &str| {
        has(word)
            || classes
                .iter()
                .any(|c| lexicon::words(*c).iter().any(|p| has(p)))
    };
    let bound = if bounds(&[Class::BoundMin, Class::BoundAbbreviationMin], "least") {
        Bound::Min
    } else if bounds(&[Class::BoundMax, Class::BoundAbbreviationMax], "most") {
        Bound::Max
    } else {
        Bound::Exact
    };
    let subject = words_of(question)
        .into_iter()
        .filter(|w| {
            !lexicon::is_any(SCAFFOLD, w)
                && !crate::figure::UNITS.contains(&w.trim_end_matches('s'))
                && !w.chars().all(|c| c.is_ascii_digit())
        })
        .collect();
    let modifiers = all
        .iter()
        .filter(|w| MODIFIERS.contains(&w.as_str()))
        .cloned()
        .collect();
    Asked {
        subject,
        sequence: content_words(question)
            .iter()
            .map(|w| canonical_word(w))
            .collect(),
        modifiers,
        unit,
        bound,
        role: role::asked_role(question),
    }
}

/// The same word, read loosely: equal, or the shorter one, less at most its last letter,
/// starting the other, five letters or more ("notify" and "notification", "individual"
/// and "individuals"; not "billing" and "billion").
pub(super) fn same_word(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let n = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    n >= 5 && n + 1 >= a.chars().count().min(b.chars().count())
}

/// Whether `sentence` (with the item's context) is about the question's subject: at
/// most a third of the subject words missing, no word missing from the sentence itself
/// replaced there by another qualifier ("billing records" for "client records", whatever
/// the heading above says), and no title modifier the question lacks ("the deputy
/// director" is not "the director").
pub(super) fn about(a: &Asked, sentence: &str, context: &str) -> bool {
    let missing_from = |text: &str| -> HashSet<&String> {
        let have: Vec<String> = words_of(text).into_iter().collect();
        let found = |w: &str| have.iter().any(|h| same_word(h, w));
        a.subject.iter().filter(|w| !found(w)).collect()
    };
    let missing = missing_from(&format!("{sentence} {context}"));
    if missing.len() * 3 > a.subject.len() || competing(a, sentence, &missing_from(sentence)) {
        return false;
    }
    let ws = crate::text::words(sentence);
    !ws.windows(2).any(|p| {
        MODIFIERS.contains(&p[0].as_str())
            && !a.modifiers.contains(&p[0])
            && a.subject
                .contains(&canonical_word(&crate::text::stem(&p[1])))
    })
}

/// Whether a word the question puts before one of its subject words is missing from
/// the sentence, and another word the question lacks stands there instead.
fn competing(a: &Asked, sentence: &str, missing: &HashSet<&String>) -> bool {
    let sent: Vec<String> = content_words(sentence)
        .iter()
        .map(|w| canonical_word(w))
        .collect();
    let in_question = |w: &str| a.sequence.iter().any(|q| same_word(q, w));
    a.sequence.windows(2).any(|q| {
        missing.contains(&q[0])
            && sent
                .windows(2)
                .any(|p| same_word(&p[1], &q[1]) && !in_question(&p[0]))
    })
}

/// The clause of `text` around byte `at`: cut at `;`, `,` (not inside a number) and the
/// words that join two statements.
pub(super) fn clause_at(text: &str, at: usize) -> &str {
    let b = text.as_bytes();
    let is_cut = |i: usize| {
        (matches!(b[i], b';' | b',')
            && !(i > 0
                && b[i - 1].is_ascii_digit()
                && b.get(i + 1).is_some_and(u8::is_ascii_digit)))
            || [" and ", " while ", " whereas ", " but "]
                .iter()
                .any(|w| b[i..].starts_with(w.as_bytes()))
    };
    let start = (0..at)
        .rev()
        .find(|&i| text.is_char_boundary(i) && is_cut(i))
        .map_or(0, |i| i + 1);
    let end = (at..b.len())
        .find(|&i| text.is_char_boundary(i) && is_cut(i))
        .unwrap_or(b.len());
    &text[start..end]
}

/// The figures in `unit` a sentence about the subject states for it: of those with the
/// asked bound, the ones whose clause shares most subject words.
fn stated(a: &Asked, sentence: &str, unit: &str) -> Vec<Figure> {
    let text = crate::figure::normalise(sentence).into_owned();
    let figs: Vec<(usize, Figure)> = figures_of(&text)
        .into_iter()
        .filter(|f| f.unit == unit && (a.bound == Bound::Exact || f.bound == a.bound))
        .map(|f| {
            let c = words_of(clause_at(&text, f.start));
            (c.intersection(&a.subject).count(), f)
        })
        .collect();
    let best = figs.iter().map(|(n, _)| *n).max().unwrap_or(0);
    figs.into_iter()
        .filter(|(n, _)| *n == best)
        .map(|(_, f)| f)
        .collect()
}

/// The figure a choice names: its own (`7 years`), or a bare number in the unit the
/// question asks for.
fn choice_figure(a: &Asked, choice: &str) -> Option<String> {
    if let Some(f) = figures_of(choice).first() {
        return Some(f.key());
    }
    let n = number_values(choice, true);
    match (n.len(), &a.unit) {
        (1, Some(u)) => n.first().map(|v| format!("{v} {u}")),
        _ => None,
    }
}

fn holds_words(sentence: &str, choice: &str) -> bool {
    let want: Vec<String> = content_words(choice);
    if want.is_empty() {
        return false;
    }
    let have: HashSet<String> = content_words(sentence).into_iter().collect();
    let n = want.iter().filter(|w| have.contains(*w)).count();
    n == want.len() || (n >= 2 && n * 2 >= want.len())
}

/// The verdict one item gives a choice, if it speaks to it.
fn judge(a: &Asked, item: &ChoiceItem, choice: &str) -> Option<Verdict> {
    let mut out = None;
    for sp in sentences(&item.quote) {
        let sent = sp.slice(&item.quote);
        if !about(a, sent, &item.context) {
            continue;
        }
        let v = if let Some(key) = choice_figure(a, choice) {
            let unit = key.split_once(' ').map_or("", |x| x.1);
            let st = stated(a, sent, unit);
            if st.iter().any(|f| f.key() == key) {
                Some(Verdict::Supported)
            } else {
                (!st.is_empty()).then_some(Verdict::RuledOut)
            }
        } else if !number_values(choice, true).is_empty() {
            // A bare number without a unit to read it in: only its exact value counts.
            let want = number_values(choice, true);
            want.is_subset(&number_values(sent, true))
                .then_some(Verdict::Supported)
        } else {
            let in_role = a
                .role
                .as_ref()
                .is_none_or(|r| role::states_in_role(sent, choice, r));
            (holds_words(sent, choice) && in_role).then_some(Verdict::Supported)
        };
        out = match (out, v) {
            (Some(Verdict::Supported), _) | (_, Some(Verdict::Supported)) => {
                Some(Verdict::Supported)
            }
            (o, None) => o,
            (_, v) => v,
        };
    }
    out
}

/// Select among `choices` of `question` with the verified `items`, best first.
pub fn select(question: &str, choices: &[Choice], items: &[ChoiceItem]) -> Selection {
    let a = asked(question);
    let verdicts: Vec<ChoiceVerdict> = choices.iter().map(|c| verdict(&a, c, items)).collect();
    let supported: Vec<&ChoiceVerdict> = verdicts
        .iter()
        .filter(|v| v.verdict == Verdict::Supported)
        .collect();
    Selection {
        selected: (supported.len() == 1).then(|| supported[0].label.clone()),
        choices: verdicts,
    }
}

fn verdict(a: &Asked, c: &Choice, items: &[ChoiceItem]) -> ChoiceVerdict {
    let judged: Vec<(&ChoiceItem, Option<Verdict>)> =
        items.iter().map(|it| (it, judge(a, it, &c.text))).collect();
    let by = |want: Verdict| -> Vec<String> {
        judged
            .iter()
            .filter(|(_, v)| *v == Some(want))
            .map(|(it, _)| it.id.clone())
            .collect()
    };
    let (sup, out) = (by(Verdict::Supported), by(Verdict::RuledOut));
    let (verdict, citations, line) = if !sup.is_empty() {
        let mut line = format!(
            "({}) {}: supported by [{}]",
            c.label,
            c.text,
            sup.join(", ")
        );
        if !out.is_empty() {
            line.push_str(&format!("; contradicted by [{}]", out.join(", ")));
        }
        (Verdict::Supported, sup, line)
    } else if !out.is_empty() {
        let line = format!(
            "({}) {}: ruled out, the evidence states otherwise [{}]",
            c.label,
            c.text,
            out.join(", ")
        );
        (Verdict::RuledOut, out, line)
    } else {
        let line = format!(
            "({}) {}: no verified evidence about the question's subject speaks to it",
            c.label, c.text
        );
        (Verdict::Undecided, Vec::new(), line)
    };
    ChoiceVerdict {
        label: c.label.clone(),
        text: c.text.clone(),
        verdict,
        citations,
        line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ch(label: &str, text: &str) -> Choice {
        Choice {
            label: label.into(),
            text: text.into(),
        }
    }

    fn it(id: &str, quote: &str) -> ChoiceItem {
        ChoiceItem {
            id: id.into(),
            quote: quote.into(),
            context: String::new(),
        }
    }

    fn pick(q: &str, choices: &[(&str, &str)], items: &[ChoiceItem]) -> Selection {
        let cs: Vec<Choice> = choices.iter().map(|(l, t)| ch(l, t)).collect();
        select(q, &cs, items)
    }

    #[test]
    fn one_supported_choice_is_selected_and_the_others_ruled_out() {
        let items = vec![it(
            "E1",
            "Every client record shall be retained for not less than seven (7) years.",
        )];
        let s = pick(
            "How long must a client record be retained?",
            &[("A", "5 years"), ("B", "7 years"), ("C", "purple")],
            &items,
        );
        assert_eq!(s.selected.as_deref(), Some("B"));
        assert_eq!(s.choices[0].verdict, Verdict::RuledOut);
        assert_eq!(s.choices[1].citations, vec!["E1"]);
        assert_eq!(s.choices[2].verdict, Verdict::Undecided);
        assert!(s.choices[1].line.contains("[E1]"));
    }

    #[test]
    fn conflicting_or_silent_evidence_abstains() {
        let items = vec![
            it("E1", "Records are kept for 7 years."),
            it("E2", "Records are kept for 10 years."),
        ];
        let q = "How long are records kept?";
        let s = pick(q, &[("A", "7 years"), ("B", "10 years")], &items);
        assert_eq!(s.selected, None, "two supported: cannot decide");
        assert!(s.choices[0].line.contains("contradicted by [E2]"), "{s:?}");
        let s = pick(q, &[("A", "purple"), ("B", "green")], &items);
        assert_eq!(s.selected, None);
    }

    #[test]
    fn evidence_about_another_subject_never_decides() {
        let items = vec![
            it("E1", "Billing records must be retained for 10 years."),
            it("E2", "Client records must be retained for 7 years."),
        ];
        let s = pick(
            "How long must client records be retained?",
            &[("A", "5 years"), ("B", "10 years")],
            &items,
        );
        assert_eq!(s.selected, None, "{s:?}");
        assert_eq!(s.choices[1].verdict, Verdict::RuledOut);
        assert_eq!(s.choices[1].citations, vec!["E2"]);
        // One sentence, two subjects: the clause binds the figure.
        let one = vec![it(
            "E1",
            "Client records are kept for 7 years, and billing records for 10 years.",
        )];
        let s = pick(
            "How long are client records kept?",
            &[("A", "7 years"), ("B", "10 years")],
            &one,
        );
        assert_eq!(s.selected.as_deref(), Some("A"), "{s:?}");
    }

    fn under(id: &str, quote: &str, heading: &str) -> ChoiceItem {
        ChoiceItem {
            context: heading.into(),
            ..it(id, quote)
        }
    }

    #[test]
    fn a_heading_never_binds_a_sentence_that_names_another_subject() {
        let q = "How long must client records be retained?";
        let choices = [("A", "5 years"), ("B", "10 years")];
        for quote in [
            "Billing records must be retained for 10 years after the claim is paid.",
            "Payroll records are kept for 10 years.",
        ] {
            let s = pick(q, &choices, &[under("E1", quote, "1. Client records")]);
            assert_eq!(s.selected, None, "{quote}: {s:?}");
        }
        // A sentence that names no other subject takes it from its heading.
        let s = pick(
            q,
            &choices,
            &[under(
                "E1",
                "They must be retained for 10 years.",
                "1. Client records",
            )],
        );
        assert_eq!(s.selected.as_deref(), Some("B"), "{s:?}");
        // Its subject named in the sentence, a heading about another does not matter.
        let s = pick(
            "How long are visitor logs kept?",
            &[("A", "1 year"), ("B", "3 years")],
            &[under(
                "E1",
                "Visitor logs are kept for 3 years, and incident logs for 1 year.",
                "2. Incident logs",
            )],
        );
        assert_eq!(s.selected.as_deref(), Some("B"), "{s:?}");
    }

    #[test]
    fn a_person_is_chosen_only_when_stated_in_the_asked_role() {
        let q = "Who is the deputy director of the clinic?";
        let choices = [("A", "Ana Ruiz"), ("B", "Omar Haddad")];
        for quote in [
            "Send the form to Ana Ruiz or to the deputy director of the clinic.",
            "Ana Ruiz reports to the deputy director of the clinic.",
        ] {
            let s = pick(q, &choices, &[it("E1", quote)]);
            assert_eq!(s.selected, None, "{quote}: {s:?}");
        }
        let s = pick(
            q,
            &choices,
            &[under(
                "E1",
                "Ana Ruiz leads the intake team.",
                "Deputy director of the clinic",
            )],
        );
        assert_eq!(s.selected, None, "a heading states no role: {s:?}");
        for quote in [
            "Ana Ruiz is the deputy director of the clinic.",
            "The clinic's deputy director, Ana Ruiz, chairs the panel.",
        ] {
            let s = pick(q, &choices, &[it("E1", quote)]);
            assert_eq!(s.selected.as_deref(), Some("A"), "{quote}: {s:?}");
        }
    }

    #[test]
    fn bounds_units_and_offices_must_match() {
        let min = vec![it("E1", "Violations carry a minimum fine of $5,000.")];
        let s = pick(
            "What is the maximum fine for a violation?",
            &[("A", "$5,000"), ("B", "$10,000")],
            &min,
        );
        assert_eq!(s.selected, None, "{s:?}");
        let s = pick(
            "What is the minimum fine for a violation?",
            &[("A", "$5,000"), ("B", "$10,000")],
            &min,
        );
        assert_eq!(s.selected.as_deref(), Some("A"), "{s:?}");
        let days = vec![it(
            "E1",
            "Notice must be given within 90 days of discovery.",
        )];
        let s = pick(
            "Within how many hours must notice be given?",
            &[("A", "90"), ("B", "60")],
            &days,
        );
        assert_eq!(s.selected, None, "{s:?}");
        let s = pick(
            "Within how many days must notice be given?",
            &[("A", "90"), ("B", "60")],
            &days,
        );
        assert_eq!(s.selected.as_deref(), Some("A"), "{s:?}");
        let dir = vec![it("E1", "Jane Smith is the director of the program.")];
        let s = pick(
            "Who is the deputy director of the program?",
            &[("A", "Jane Smith"), ("B", "John Doe")],
            &dir,
        );
        assert_eq!(s.selected, None, "{s:?}");
        let dep = vec![it(
            "E1",
            "Jane Smith is the deputy director of the program.",
        )];
        let s = pick(
            "Who is the director of the program?",
            &[("A", "Jane Smith"), ("B", "John Doe")],
            &dep,
        );
        assert_eq!(s.selected, None, "{s:?}");
        let s = pick(
            "Who is the deputy director of the program?",
            &[("A", "Jane Smith"), ("B", "John Doe")],
            &dep,
        );
        assert_eq!(s.selected.as_deref(), Some("A"), "{s:?}");
    }
}
