//! Stage 4, compose and gate: the verified items are composed into cited sentences
//! (spread over documents for multi-hop answers); sentences the Evidence Gate rejects are
//! dropped with the items they cite and the rest composed again; the items are renumbered
//! in citation order; the final text passes the gate and the verbatim invariant (every
//! sentence lies inside a quote it cites) or nothing is answered.

use std::collections::HashSet;

use super::select::Numbered;
use super::AskOptions;
use crate::evidence::compose::{compose_diverse, Composition, Item};
use crate::evidence::gate::{
    check, neutralise_markers, GateResult, Severity, Violation, ViolationKind,
};
use crate::research::Class;
use crate::text::word_count;

/// Statements one document contributes to a step of a multi-hop answer.
pub const MULTI_HOP_STATEMENTS_PER_DOCUMENT: usize = 2;
/// Compose-and-gate rounds before what still fails is withheld (each round drops the
/// items cited by failing sentences; three covers every rule of the gate once).
pub const GATE_ROUNDS: usize = 3;

/// The composed answer.
pub(super) struct Composed {
    /// The final composition, under the renumbered ids.
    pub composition: Composition,
    /// Items the gate rounds dropped: (renumbered id, why).
    pub dropped: Vec<(String, String)>,
}

/// Compose `numbered`'s verified items (only those in `keep`, in its order, when given)
/// for a question of `class`, drop what the gate rejects, and renumber `numbered` in
/// citation order. Items are composed in `order` (lower first, stable; see
/// `ask::composing_order`): text that does not bind (a recital, a note, a summary) after
/// the text that binds, so an answer leads with the rule and shows the rest as context.
pub(super) fn compose(
    numbered: &mut Numbered,
    class: Class,
    keep: Option<&[String]>,
    order: &std::collections::HashMap<String, u8>,
    opts: &AskOptions,
) -> Composed {
    let mut items = numbered.items();
    // A multi-hop answer spans documents: when every verified item comes from one
    // document (a question scoped to one paper), a cap per document only cuts it short.
    let one_document = items.windows(2).all(|p| p[0].doc_id == p[1].doc_id);
    let per_doc = if class == Class::MultiHop && !one_document {
        MULTI_HOP_STATEMENTS_PER_DOCUMENT
    } else {
        usize::MAX
    };
    let mut dropped: Vec<(String, String)> = Vec::new();
    if let Some(keep) = keep {
        dropped = items
            .iter()
            .filter(|i| !keep.contains(&i.id))
            .map(|i| {
                let why = "not about what the question asks, or beyond the value's support \
                           (see question_frame)";
                (i.id.clone(), why.to_string())
            })
            .collect();
        items = keep
            .iter()
            .filter_map(|id| items.iter().find(|i| i.id == *id).cloned())
            .collect();
    }
    items.sort_by_key(|i| order.get(&i.id).copied().unwrap_or(0));
    let mut first = compose_diverse(&items, opts.max_statements, per_doc);
    for _ in 0..GATE_ROUNDS {
        let drop = failing_items(&first, &items, opts);
        if drop.is_empty() {
            break;
        }
        items.retain(|i| !drop.iter().any(|(id, _)| *id == i.id));
        dropped.extend(drop);
        first = compose_diverse(&items, opts.max_statements, per_doc);
    }
    // Compose again under the new ids (the same items in the same order give the same
    // text).
    let rename = numbered.renumber(&first.cited);
    for it in items.iter_mut() {
        it.id = rename[it.id.as_str()].clone();
    }
    for (id, _) in dropped.iter_mut() {
        *id = rename[id.as_str()].clone();
    }
    Composed {
        composition: compose_diverse(&items, opts.max_statements, per_doc),
        dropped,
    }
}

/// The summary sides of the answer's differences (see `authority::summary`), taken into
/// `numbered` right after the cited items; their ids. None when the answer states no
/// difference or its gate failed.
pub(super) fn add_summaries(
    engine: &crate::engine::Engine,
    question: &str,
    composed: &mut Composed,
    numbered: &mut Numbered,
    gate_passed: bool,
    opts: &AskOptions,
) -> Result<Vec<String>, crate::error::Error> {
    use crate::authority::summary::{summary_sides, Difference, Look};
    let c = &composed.composition;
    if !gate_passed || c.conflicts.is_empty() {
        return Ok(Vec::new());
    }
    let quote = |id: &String| numbered.get(id).map(|v| v.candidate.quote.clone());
    let differences: Vec<Difference> = c
        .conflicts
        .iter()
        .filter_map(|k| {
            let unit = k.figures.iter().flatten().next()?.split_once(' ')?.1;
            Some(Difference {
                unit: unit.to_string(),
                quotes: k.ids.iter().filter_map(quote).collect(),
            })
        })
        .collect();
    let cited_docs: HashSet<String> = c
        .cited
        .iter()
        .filter_map(|id| numbered.get(id).map(|v| v.candidate.doc_id.clone()))
        .collect();
    let look = Look {
        question,
        cited_docs: &cited_docs,
        scope: opts.scope.as_deref(),
        relevance: &opts.relevance,
        reranker: opts.rerank.then(|| engine.reranker()).flatten(),
    };
    let found = summary_sides(engine, &differences, &look)?;
    let (ids, rename) = numbered.adopt(&c.cited, found);
    let renamed = |id: &mut String| {
        if let Some(n) = rename.get(id.as_str()) {
            *id = n.clone();
        }
    };
    for (id, _) in composed
        .composition
        .unused
        .iter_mut()
        .chain(composed.dropped.iter_mut())
    {
        renamed(id);
    }
    Ok(ids)
}

/// The items to drop after a gate failure: those cited by a sentence with an error, and
/// for too low a citation density the longest cited quote (it carries the fewest
/// citations per word). Empty when the gate passes.
fn failing_items(c: &Composition, items: &[Item], opts: &AskOptions) -> Vec<(String, String)> {
    let cited: HashSet<String> = c.cited.iter().cloned().collect();
    let g = check(&c.answer, &cited, &opts.gate);
    if g.passed {
        return Vec::new();
    }
    let mut drop: Vec<(String, String)> = Vec::new();
    for v in g
        .violations
        .iter()
        .filter(|v| v.severity == Severity::Error)
    {
        let why = format!("dropped by the gate: {}", v.message);
        if let Some(sent) = &v.sentence {
            for s in &c.sentences {
                if sent.contains(sentence_body(&s.text)) || s.text.contains(sent.as_str()) {
                    drop.extend(s.citations.iter().map(|id| (id.clone(), why.clone())));
                }
            }
        } else if v.kind == ViolationKind::LowCitationDensity {
            if let Some(it) = items
                .iter()
                .filter(|i| cited.contains(&i.id))
                .max_by_key(|i| (word_count(&i.quote), std::cmp::Reverse(i.id.clone())))
            {
                drop.push((it.id.clone(), why));
            }
        }
    }
    drop
}

/// The gate on the composed text, plus the verbatim invariant: every sentence, less its
/// citation and final mark, lies inside the quote of an item it cites (the others it
/// cites hold it too, or are near-duplicates merged into it).
pub(super) fn gate(c: &Composition, numbered: &Numbered, opts: &AskOptions) -> GateResult {
    let cited: HashSet<String> = c.cited.iter().cloned().collect();
    let mut gate = check(&c.answer, &cited, &opts.gate);
    for s in &c.sentences {
        let body = sentence_body(&s.text);
        let inside = s.citations.iter().any(|id| {
            numbered.get(id).is_some_and(|v| {
                // Whitespace apart: a sentence spaced over lines is shown on one.
                let quote = crate::evidence::compose::flat(&neutralise_markers(&v.candidate.quote));
                crate::figure::verbatim_part(&quote, &crate::evidence::compose::flat(body))
            })
        });
        if !inside {
            gate.passed = false;
            gate.violations.push(Violation::error(
                ViolationKind::NotVerbatim,
                None,
                Some(s.text.clone()),
                "the sentence is not inside the quote of any item it cites".into(),
            ));
        }
    }
    gate
}

/// A composed sentence less its citation and final mark: the part that must be verbatim.
pub fn sentence_body(sentence: &str) -> &str {
    match sentence.rfind(" [") {
        Some(i) => &sentence[..i],
        None => sentence,
    }
}
