//! Multiple choice: pick one of the question's answer choices from the verified evidence,
//! or abstain when the evidence cannot decide.
//!
//! A choice is **supported** by a verified item when the item's quote contains the
//! choice's content words (all of them, or at least half and two or more) — figures
//! compared as figures, so "7 years" matches "seven (7) years". It is **ruled out** when an
//! item about the same thing (sharing the question's terms) states a different figure of
//! the same unit and no item supports it. Exactly one supported choice is selected;
//! none or several supported leave the selection undecided (abstain).

use serde::{Deserialize, Serialize};

use super::Choice;
use crate::text::content_words;
use crate::text::figures;

/// What the evidence says of one choice.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChoiceVerdict {
    /// The label (`A`).
    pub label: String,
    /// The choice text.
    pub text: String,
    /// `supported`, `ruled_out` or `undecided`.
    pub verdict: String,
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

fn supports(quote: &str, choice: &str) -> bool {
    let fc = figures(choice);
    if !fc.is_empty() {
        let fq = figures(quote);
        return fc.iter().all(|f| fq.contains(f));
    }
    let want: Vec<String> = content_words(choice);
    if want.is_empty() {
        return false;
    }
    let have: std::collections::HashSet<String> = content_words(quote).into_iter().collect();
    let n = want.iter().filter(|w| have.contains(*w)).count();
    n == want.len() || (n >= 2 && n * 2 >= want.len())
}

fn rules_out(quote: &str, choice: &str) -> bool {
    let fc = figures(choice);
    if fc.is_empty() {
        return false;
    }
    let fq = figures(quote);
    // Same unit, different number.
    fc.iter().any(|f| {
        let unit = f.split_once(' ').map_or("", |x| x.1);
        !fq.contains(f)
            && fq
                .iter()
                .any(|g| g.split_once(' ').map_or("", |x| x.1) == unit)
    })
}

/// Select among `choices` with the verified `items` (id, quote), best first.
pub fn select(choices: &[Choice], items: &[(String, String)]) -> Selection {
    let mut verdicts = Vec::new();
    for c in choices {
        let sup: Vec<String> = items
            .iter()
            .filter(|(_, q)| supports(q, &c.text))
            .map(|(id, _)| id.clone())
            .collect();
        let out: Vec<String> = items
            .iter()
            .filter(|(_, q)| rules_out(q, &c.text))
            .map(|(id, _)| id.clone())
            .collect();
        let (verdict, citations, line) = if !sup.is_empty() {
            (
                "supported",
                sup.clone(),
                format!(
                    "({}) {}: supported by [{}]",
                    c.label,
                    c.text,
                    sup.join(", ")
                ),
            )
        } else if !out.is_empty() {
            (
                "ruled_out",
                out.clone(),
                format!(
                    "({}) {}: ruled out, the evidence states otherwise [{}]",
                    c.label,
                    c.text,
                    out.join(", ")
                ),
            )
        } else {
            (
                "undecided",
                Vec::new(),
                format!(
                    "({}) {}: no verified evidence speaks to it",
                    c.label, c.text
                ),
            )
        };
        verdicts.push(ChoiceVerdict {
            label: c.label.clone(),
            text: c.text.clone(),
            verdict: verdict.into(),
            citations,
            line,
        });
    }
    let supported: Vec<&ChoiceVerdict> = verdicts
        .iter()
        .filter(|v| v.verdict == "supported")
        .collect();
    Selection {
        selected: (supported.len() == 1).then(|| supported[0].label.clone()),
        choices: verdicts,
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

    #[test]
    fn one_supported_choice_is_selected_and_the_others_ruled_out() {
        let items = vec![(
            "E1".to_string(),
            "Every client record shall be retained for not less than seven (7) years.".to_string(),
        )];
        let s = select(
            &[ch("A", "5 years"), ch("B", "7 years"), ch("C", "a decade")],
            &items,
        );
        assert_eq!(s.selected.as_deref(), Some("B"));
        assert_eq!(s.choices[0].verdict, "ruled_out");
        assert_eq!(s.choices[1].citations, vec!["E1"]);
        assert_eq!(s.choices[2].verdict, "undecided");
        assert!(s.choices[1].line.contains("[E1]"));
    }

    #[test]
    fn conflicting_or_silent_evidence_abstains() {
        let items = vec![
            (
                "E1".to_string(),
                "Records are kept for 7 years.".to_string(),
            ),
            (
                "E2".to_string(),
                "Records are kept for 10 years.".to_string(),
            ),
        ];
        let s = select(&[ch("A", "7 years"), ch("B", "10 years")], &items);
        assert_eq!(
            s.selected, None,
            "two supported: the evidence cannot decide"
        );
        let s = select(&[ch("A", "purple"), ch("B", "green")], &items);
        assert_eq!(s.selected, None);
    }
}
