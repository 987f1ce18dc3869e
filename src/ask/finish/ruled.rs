//! The answer follows its ruling.
//!
//! * **Floors and exact values meet.** Compose sets side by side two items that state
//!   different values in one unit *and bound*; a value below a floor ("five years"
//!   against "not less than ten (10) years") or above a ceiling, or a floor above a
//!   ceiling, is a difference too: two cited items about the same thing (content words,
//!   numbers aside, overlapping by [`CONFLICT_JACCARD`] or more; not one place of one
//!   document) whose figures in one unit no value can meet are listed in `conflicts`, and
//!   the ruling decides which governs. An item already in a difference is a side of its
//!   ruling already.
//! * **The value is the governing one.** When a ruling names the governing sides and the
//!   answer's value comes from another side (or states another side's figure), the
//!   `answer_value` is read from the first governing item that states the governing
//!   figure, and the sentences quoting the governing items lead the answer (their
//!   paragraph first, them first in it); the others follow, as the ruling says, as what
//!   also applies. The reordered text passes the Evidence Gate again or the composed order
//!   stands; the cited items are then numbered again in answer order (`E1` first). When the governing figure cannot be placed in its quote, the answer states
//!   no value rather than the one the ruling set aside.
//! * **An undecided contradiction is never `high`**: when no rule decides between sides
//!   that contradict and the answer's value is one of them.

use std::collections::HashSet;

use crate::answer::{Answer, AnswerValue, EvidenceItem};
use crate::ask::select::Numbered;
use crate::ask::AskOptions;
use crate::evidence::compose::{Composition, Conflict, CONFLICT_JACCARD};
use crate::figure::{figures_of, normalise, Bound, Figure};
use crate::source::govern::{Relation, Ruling};

/// Content words of a quote, numbers and number words aside.
fn thing_words(quote: &str) -> HashSet<String> {
    crate::text::content_words(quote)
        .into_iter()
        .filter(|w| {
            !w.chars().any(|c| c.is_ascii_digit()) && crate::figure::word_value(w).is_none()
        })
        .collect()
}

/// Whether two figures in one unit and different bounds can both hold: a value below a
/// floor, above a ceiling, or a floor above a ceiling cannot.
fn meet(a: &Figure, b: &Figure) -> bool {
    let (Ok(x), Ok(y)) = (a.value.parse::<f64>(), b.value.parse::<f64>()) else {
        return true;
    };
    match (a.bound, b.bound) {
        (Bound::Min, Bound::Exact) | (Bound::Exact, Bound::Max) | (Bound::Min, Bound::Max) => {
            x <= y
        }
        (Bound::Exact, Bound::Min) | (Bound::Max, Bound::Exact) | (Bound::Max, Bound::Min) => {
            y <= x
        }
        _ => true,
    }
}

/// Whether two quotes state figures in one unit and different bounds that cannot both
/// hold.
fn cannot_meet(a: &str, b: &str) -> bool {
    let (fa, fb) = (figures_of(&normalise(a)), figures_of(&normalise(b)));
    fa.iter().any(|x| {
        fb.iter()
            .any(|y| x.unit == y.unit && x.bound != y.bound && !meet(x, y))
    })
}

/// Whether two items are one place of one document.
fn same_place(a: &EvidenceItem, b: &EvidenceItem) -> bool {
    a.doc_id == b.doc_id && a.start < b.end && b.start < a.end
}

/// The differences compose does not pair (see the module doc), among the items `cited`,
/// appended to `conflicts`.
pub(super) fn bound_differences(
    evidence: &[EvidenceItem],
    cited: &[String],
    conflicts: &mut Vec<Conflict>,
) {
    let items: Vec<&EvidenceItem> = evidence.iter().filter(|e| cited.contains(&e.id)).collect();
    let words: Vec<HashSet<String>> = items.iter().map(|e| thing_words(&e.quote)).collect();
    for i in 0..items.len() {
        for j in i + 1..items.len() {
            let (a, b) = (items[i], items[j]);
            let taken = |id: &String| conflicts.iter().any(|c| c.ids.contains(id));
            if taken(&a.id) || taken(&b.id) || same_place(a, b) {
                continue;
            }
            let union = words[i].union(&words[j]).count().max(1);
            let overlap = words[i].intersection(&words[j]).count() as f64 / union as f64;
            if overlap >= CONFLICT_JACCARD && cannot_meet(&a.quote, &b.quote) {
                conflicts.push(Conflict {
                    ids: vec![a.id.clone(), b.id.clone()],
                    figures: vec![
                        crate::text::figures(&a.quote),
                        crate::text::figures(&b.quote),
                    ],
                    ruling: None,
                });
            }
        }
    }
}

/// The ruling the answer's value is set aside by: one naming governing sides, where the
/// value's item is another side or the value is another side's figure, in the value's
/// unit.
fn overruling<'a>(answer: &'a Answer, v: &AnswerValue) -> Option<&'a Ruling> {
    let unit = v.normalised.split_once(' ').map(|x| x.1)?;
    answer
        .conflicts
        .iter()
        .filter_map(|c| c.ruling.as_ref())
        .filter(|r| !r.governing.is_empty() && !r.governing.contains(&v.evidence_id))
        .find(|r| {
            let governs_unit = r.sides.iter().any(|s| {
                r.governing.contains(&s.id) && s.figure.split_once(' ').map(|x| x.1) == Some(unit)
            });
            let other = r
                .sides
                .iter()
                .any(|s| s.id == v.evidence_id || s.figure == v.normalised);
            governs_unit && other
        })
}

/// The governing figure `key` placed in item `e`'s quote as an answer value of type
/// `ty`: the typed value over the figure when one reads it there, else the figure as
/// written.
fn place(
    e: &EvidenceItem,
    key: &str,
    ty: crate::frame::AnswerType,
    family: Option<crate::frame::UnitFamily>,
) -> Option<AnswerValue> {
    if normalise(&e.quote) != e.quote.as_str() {
        return None;
    }
    let f = figures_of(&e.quote).into_iter().find(|f| f.key() == key)?;
    let (s, end) = crate::source::govern::written_span(&e.quote, &f)?;
    let typed = ty
        .accepts()
        .iter()
        .flat_map(|t| crate::value::typed::find(&e.quote, *t, family))
        .find(|v| v.start < end && s < v.end && v.normalised == key);
    let (s, end, normalised) = match typed {
        Some(v) => (v.start, v.end, v.normalised),
        None => (s, end, key.to_string()),
    };
    Some(AnswerValue {
        ty,
        normalised,
        raw: e.quote.get(s..end)?.to_string(),
        evidence_id: e.id.clone(),
        start: e.start + s,
        end: e.start + end,
        cell: None,
    })
}

/// What following the ruling did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Followed {
    /// No ruling sets the value aside.
    Unchanged,
    /// The value and the lead sentences are the governing source's.
    Governing,
    /// The governing figure could not be placed: no value is stated.
    Withdrawn,
}

/// Make `answer`'s value and lead the governing ones (see the module doc). `composition`
/// and `numbered` re-check the reordered text.
pub(super) fn follow(
    answer: &mut Answer,
    frame: &crate::frame::Frame,
    composition: &Composition,
    numbered: &mut Numbered,
    opts: &AskOptions,
) -> Followed {
    let Some(v) = answer.answer_value.clone() else {
        return Followed::Unchanged;
    };
    let Some(r) = overruling(answer, &v).cloned() else {
        return Followed::Unchanged;
    };
    let family = frame.unit_family.or(Some(crate::frame::UnitFamily::Count));
    let placed = r
        .sides
        .iter()
        .filter(|s| r.governing.contains(&s.id))
        .find_map(|s| {
            let e = answer.evidence.iter().find(|e| e.id == s.id)?;
            place(e, &s.figure, frame.answer_type, family)
        });
    let Some(value) = placed else {
        answer.answer_value = None;
        return Followed::Withdrawn;
    };
    answer.answer_value = Some(value);
    lead_with(answer, &r.governing, composition, numbered, opts);
    Followed::Governing
}

/// Indices of `answer`'s sentences, by paragraph (a blank line between two sentences
/// starts a new one).
fn paragraphs(answer: &Answer) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = Vec::new();
    let mut pos = 0;
    for (i, s) in answer.sentences.iter().enumerate() {
        let at = answer.answer[pos..].find(&s.text).map(|k| pos + k);
        let broke = at.is_some_and(|a| answer.answer[pos..a].contains("\n\n"));
        match out.last_mut() {
            Some(p) if !broke => p.push(i),
            _ => out.push(vec![i]),
        }
        if let Some(a) = at {
            pos = a + s.text.len();
        }
    }
    out
}

/// The text of sentences `order` of `answer`, by paragraph.
fn text_of(answer: &Answer, paras: &[Vec<usize>]) -> String {
    paras
        .iter()
        .map(|p| {
            p.iter()
                .map(|&i| answer.sentences[i].text.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// Put the sentences citing one of `ids` first: their paragraph first, and them first in
/// it, in their order; keep the new text only when it passes the gate again, then number
/// the cited items again in answer order (see [`renumber`]).
fn lead_with(
    answer: &mut Answer,
    ids: &[String],
    composition: &Composition,
    numbered: &mut Numbered,
    opts: &AskOptions,
) {
    let cites = |i: &usize| {
        answer.sentences[*i]
            .citations
            .iter()
            .any(|c| ids.contains(c))
    };
    let mut paras = paragraphs(answer);
    let Some(p) = paras.iter().position(|p| p.iter().any(cites)) else {
        return;
    };
    let first = paras.remove(p);
    let (lead, rest): (Vec<usize>, Vec<usize>) = first.into_iter().partition(cites);
    paras.insert(0, lead.into_iter().chain(rest).collect());
    let order: Vec<usize> = paras.iter().flatten().copied().collect();
    let again = Composition {
        answer: text_of(answer, &paras),
        sentences: order.iter().map(|&i| answer.sentences[i].clone()).collect(),
        ..composition.clone()
    };
    if !crate::ask::compose::gate(&again, numbered, opts).passed {
        return;
    }
    answer.sentences = again.sentences;
    // The sentences are now in order: paragraph `n` holds the next `paras[n].len()`.
    let mut k = 0;
    let paras: Vec<Vec<usize>> = paras
        .iter()
        .map(|p| {
            k += p.len();
            (k - p.len()..k).collect()
        })
        .collect();
    renumber(answer, numbered);
    answer.answer = text_of(answer, &paras);
    let renamed = Composition {
        answer: answer.answer.clone(),
        sentences: answer.sentences.clone(),
        cited: first_cited(answer),
        ..composition.clone()
    };
    answer.gate = crate::ask::compose::gate(&renamed, numbered, opts);
}

/// The ids the sentences of `answer` cite, in first-cited order.
fn first_cited(answer: &Answer) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in answer.sentences.iter().flat_map(|s| &s.citations) {
        if !out.contains(c) {
            out.push(c.clone());
        }
    }
    out
}

/// `sentence` with the ids of its closing citation (`… [E2, E1].`) renamed.
fn renamed_sentence(text: &str, rename: &dyn Fn(&str) -> String) -> String {
    let Some(at) = text.rfind(" [") else {
        return text.to_string();
    };
    let Some(close) = text[at..].find(']').map(|k| at + k) else {
        return text.to_string();
    };
    let ids: Vec<String> = text[at + 2..close].split(", ").map(rename).collect();
    format!("{} [{}]{}", &text[..at], ids.join(", "), &text[close + 1..])
}

/// Number the cited items again in answer order (`E1` first, as compose numbers them;
/// items not cited keep their ids): in `numbered`, the sentences, the evidence list, the
/// differences and their rulings, and the answer's value.
fn renumber(answer: &mut Answer, numbered: &mut Numbered) {
    let map = numbered.renumber(&first_cited(answer));
    let rename = |id: &str| map.get(id).cloned().unwrap_or_else(|| id.to_string());
    for s in answer.sentences.iter_mut() {
        s.text = renamed_sentence(&s.text, &rename);
        s.citations = s.citations.iter().map(|c| rename(c)).collect();
    }
    for e in answer.evidence.iter_mut() {
        e.id = rename(&e.id);
    }
    let number = |id: &str| id[1..].parse::<usize>().unwrap_or(usize::MAX);
    for c in answer.conflicts.iter_mut() {
        let mut sides: Vec<(String, Vec<String>)> = c
            .ids
            .iter()
            .map(|i| rename(i))
            .zip(std::mem::take(&mut c.figures))
            .collect();
        sides.sort_by_key(|(id, _)| number(id));
        (c.ids, c.figures) = sides.into_iter().unzip();
        c.ruling = c.ruling.as_ref().map(|r| r.renamed(rename));
    }
    answer.evidence.sort_by_key(|e| number(&e.id));
    if let Some(v) = answer.answer_value.as_mut() {
        v.evidence_id = rename(&v.evidence_id);
    }
}

/// Whether the answer's value is a side of a contradiction no rule decides.
pub(super) fn undecided(answer: &Answer) -> bool {
    let Some(v) = &answer.answer_value else {
        return false;
    };
    answer
        .conflicts
        .iter()
        .filter_map(|c| c.ruling.as_ref())
        .any(|r| {
            r.relation == Relation::Contradiction
                && r.governing.is_empty()
                && r.sides.iter().any(|s| s.id == v.evidence_id)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(id: &str, doc: &str, quote: &str) -> EvidenceItem {
        serde_json::from_value(serde_json::json!({
            "id": id, "evidence_key": "", "doc_id": doc, "source": doc, "title": doc,
            "chunk_id": "", "quote": quote, "start": 100, "end": 100 + quote.len(),
            "line": 1, "kind": "statement", "score": 1.0, "step": 1, "content_hash": ""
        }))
        .unwrap()
    }

    #[test]
    fn a_value_below_a_floor_or_above_a_ceiling_is_a_difference() {
        let faq = item("E1", "faq", "Client files are kept for five years.");
        let act = item(
            "E2",
            "act",
            "Client files shall be kept for not less than ten (10) years.",
        );
        let mut conflicts = Vec::new();
        let ids = vec!["E1".to_string(), "E2".to_string()];
        bound_differences(&[faq.clone(), act], &ids, &mut conflicts);
        assert_eq!(conflicts.len(), 1);
        assert_eq!(conflicts[0].ids, ids);
        let cap = item("E2", "act", "A grant for a project is up to $10,000.");
        let big = item("E1", "faq", "A grant for a project is $25,000.");
        let mut conflicts = Vec::new();
        bound_differences(&[big, cap], &ids, &mut conflicts);
        assert_eq!(conflicts.len(), 1, "above a ceiling");
        // A value the floor allows, and a floor below a ceiling, meet.
        for (a, b) in [
            (
                "Client files are kept for twelve years.",
                "Client files shall be kept for not less than ten (10) years.",
            ),
            (
                "Notice is given at least 30 days ahead.",
                "Notice is given not more than 60 days ahead.",
            ),
        ] {
            let mut conflicts = Vec::new();
            bound_differences(
                &[item("E1", "a", a), item("E2", "b", b)],
                &ids,
                &mut conflicts,
            );
            assert!(conflicts.is_empty(), "{a} / {b}");
        }
        // Another thing, or one already in a difference, is not paired.
        let other = item(
            "E2",
            "act",
            "Visitor badges expire after not less than ten (10) years.",
        );
        let mut conflicts = Vec::new();
        bound_differences(&[faq, other], &ids, &mut conflicts);
        assert!(conflicts.is_empty());
    }

    #[test]
    fn a_closing_citation_is_renamed_and_the_quote_left_alone() {
        let map = |id: &str| match id {
            "E1" => "E2".to_string(),
            "E2" => "E1".to_string(),
            other => other.to_string(),
        };
        assert_eq!(
            renamed_sentence("Fees rose by 5 ［E1］ points [E1, E2, E3].", &map),
            "Fees rose by 5 ［E1］ points [E2, E1, E3]."
        );
        assert_eq!(renamed_sentence("No citation.", &map), "No citation.");
    }

    #[test]
    fn the_governing_figure_is_placed_as_the_document_writes_it() {
        let e = item(
            "E2",
            "act",
            "Client files shall be kept for not less than ten (10) years.",
        );
        let v = place(&e, "10 year", crate::frame::AnswerType::Duration, None).unwrap();
        assert_eq!(v.evidence_id, "E2");
        assert_eq!(v.normalised, "10 year");
        assert!(v.raw.ends_with("years"), "{}", v.raw);
        assert_eq!(&e.quote[v.start - 100..v.end - 100], v.raw);
        assert!(place(&e, "7 year", crate::frame::AnswerType::Duration, None).is_none());
    }
}
