//! Stage 3, select and number: every verdict gets a run-local id, verified items by
//! relevance first (E1 is the best), then rejected ones. Identical quotes (a document
//! repeating itself, or two documents quoting the same text) are one item with every
//! place kept as a location.

use std::collections::HashMap;

use crate::answer::Location;
use crate::evidence::compose::Item;
use crate::evidence::verify::{Reason, Verdict};

/// Verdicts with their ids.
pub(super) struct Numbered {
    /// (id, verdict), one per distinct quote, in id order.
    pub ided: Vec<(String, Verdict)>,
    /// Other places of an item's quote, by the item's id.
    pub locations: HashMap<String, Vec<Location>>,
    /// Verdicts collapsed into an item: (the item's id, verdict).
    pub collapsed: Vec<(String, Verdict)>,
}

/// Number `verdicts`: verified first, then by step, relevance, chunk rank and position.
pub(super) fn number(verdicts: Vec<Verdict>) -> Numbered {
    let mut order: Vec<usize> = (0..verdicts.len()).collect();
    order.sort_by(|&a, &b| {
        let (va, vb) = (&verdicts[a], &verdicts[b]);
        va.rejected
            .is_some()
            .cmp(&vb.rejected.is_some())
            .then(va.candidate.step.cmp(&vb.candidate.step))
            .then(vb.relevance.score.total_cmp(&va.relevance.score))
            .then(va.candidate.chunk_rank.cmp(&vb.candidate.chunk_rank))
            .then(va.candidate.start.cmp(&vb.candidate.start))
    });
    let (order, members) = collapse_identical(&verdicts, order);
    let mut contained: HashMap<usize, Vec<usize>> = HashMap::new();
    let order = collapse_contained(&verdicts, order, &mut contained);
    let mut n = Numbered {
        ided: Vec::with_capacity(order.len()),
        locations: HashMap::new(),
        collapsed: Vec::new(),
    };
    let mut slots: Vec<Option<Verdict>> = verdicts.into_iter().map(Some).collect();
    for (k, i) in order.into_iter().enumerate() {
        let id = format!("E{}", k + 1);
        for &m in members.get(&i).into_iter().flatten() {
            let v = slots[m].take().expect("each once");
            n.locations
                .entry(id.clone())
                .or_default()
                .push(Location::of(&v.candidate));
            n.collapsed.push((id.clone(), v));
        }
        // A quote inside this item's quote: the item holds it (not a location: a
        // location holds the item's whole quote).
        for &m in contained.get(&i).into_iter().flatten() {
            if let Some(v) = slots[m].take() {
                n.collapsed.push((id.clone(), v));
            }
        }
        n.ided.push((id, slots[i].take().expect("each once")));
    }
    n
}

/// Collapse verdicts whose quotes are identical and whose verdicts agree (verified, or
/// rejected for the same reason) into the first of them in `order`. Returns the kept
/// indexes in order and, per kept index, the indexes collapsed into it.
fn collapse_identical(
    verdicts: &[Verdict],
    order: Vec<usize>,
) -> (Vec<usize>, HashMap<usize, Vec<usize>>) {
    let mut first: HashMap<(Option<Reason>, &str), usize> = HashMap::new();
    let mut kept = Vec::new();
    let mut members: HashMap<usize, Vec<usize>> = HashMap::new();
    for i in order {
        let v = &verdicts[i];
        let key = (
            v.rejected.as_ref().map(|r| r.reason),
            v.candidate.quote.as_str(),
        );
        match first.get(&key) {
            Some(&lead) => members.entry(lead).or_default().push(i),
            None => {
                first.insert(key, i);
                kept.push(i);
            }
        }
    }
    (kept, members)
}

/// Collapse verified verdicts whose span lies inside another verified verdict's span of
/// the same document (a sentence, and the same sentence with one more) into the largest
/// such one, whose quote holds them: one item; the audit trail keeps each as collapsed
/// into it. Returns the kept indexes in order; `contained` gets, per kept index, the
/// indexes it holds.
fn collapse_contained(
    verdicts: &[Verdict],
    order: Vec<usize>,
    contained: &mut HashMap<usize, Vec<usize>>,
) -> Vec<usize> {
    let inside = |i: usize, j: usize| {
        let (a, b) = (&verdicts[i].candidate, &verdicts[j].candidate);
        i != j
            && verdicts[i].rejected.is_none()
            && verdicts[j].rejected.is_none()
            && a.doc_id == b.doc_id
            && b.start <= a.start
            && a.end <= b.end
            && (b.end - b.start) > (a.end - a.start)
    };
    let mut kept = Vec::with_capacity(order.len());
    for &i in &order {
        // The largest container among the kept-or-later items.
        let host = order
            .iter()
            .copied()
            .filter(|&j| inside(i, j))
            .max_by_key(|&j| verdicts[j].candidate.end - verdicts[j].candidate.start);
        match host {
            Some(j) => {
                let mut moved = contained.remove(&i).unwrap_or_default();
                moved.push(i);
                contained.entry(j).or_default().extend(moved);
            }
            None => kept.push(i),
        }
    }
    kept
}

impl Numbered {
    /// Every verdict, items and those collapsed into them (to number them again).
    pub fn into_verdicts(self) -> Vec<Verdict> {
        self.ided
            .into_iter()
            .chain(self.collapsed)
            .map(|(_, v)| v)
            .collect()
    }

    /// The verified items, in id order, as the composer takes them.
    pub fn items(&self) -> Vec<Item> {
        self.verified()
            .map(|(id, v)| Item {
                id: id.clone(),
                doc_id: v.candidate.doc_id.clone(),
                step: v.candidate.step,
                quote: v.candidate.quote.clone(),
                start: v.candidate.start,
                end: v.candidate.end,
            })
            .collect()
    }

    /// The verified (id, verdict) pairs.
    pub fn verified(&self) -> impl Iterator<Item = &(String, Verdict)> {
        self.ided.iter().filter(|(_, v)| v.rejected.is_none())
    }

    /// The verdict with id `id`.
    pub fn get(&self, id: &str) -> Option<&Verdict> {
        self.ided.iter().find(|(i, _)| i == id).map(|(_, v)| v)
    }

    /// Take `verdicts` (verified elsewhere) as items numbered right after `cited`, which
    /// must read E1, E2, … in order (else nothing is taken). Returns their ids and the
    /// old → new id map of the items renumbered after them.
    pub fn adopt(
        &mut self,
        cited: &[String],
        verdicts: Vec<Verdict>,
    ) -> (Vec<String>, HashMap<String, String>) {
        let in_order = cited
            .iter()
            .enumerate()
            .all(|(n, id)| *id == format!("E{}", n + 1));
        if !in_order || verdicts.is_empty() {
            return (Vec::new(), HashMap::new());
        }
        let taken: Vec<String> = (1..=verdicts.len()).map(|n| format!("S{n}")).collect();
        self.ided.extend(taken.iter().cloned().zip(verdicts));
        let mut first = cited.to_vec();
        first.extend(taken.iter().cloned());
        let rename = self.renumber(&first);
        let ids = taken.iter().map(|t| rename[t.as_str()].clone()).collect();
        (ids, rename)
    }

    /// Renumber so the answer reads E1, E2, … in order: the `cited` ids first, then the
    /// other verified items, then the rejected ones. Returns the old → new id map.
    pub fn renumber(&mut self, cited: &[String]) -> HashMap<String, String> {
        let mut names: Vec<String> = cited.to_vec();
        for (id, _) in &self.ided {
            if !names.contains(id) {
                names.push(id.clone());
            }
        }
        let rename: HashMap<String, String> = names
            .into_iter()
            .enumerate()
            .map(|(n, old)| (old, format!("E{}", n + 1)))
            .collect();
        for (id, _) in self.ided.iter_mut().chain(self.collapsed.iter_mut()) {
            *id = rename[id.as_str()].clone();
        }
        self.locations = std::mem::take(&mut self.locations)
            .into_iter()
            .map(|(id, l)| (rename[id.as_str()].clone(), l))
            .collect();
        self.ided
            .sort_by_key(|(id, _)| id[1..].parse::<usize>().unwrap_or(usize::MAX));
        rename
    }
}

/// Number `verdicts` (see [`number`]) and hold them to the provisions the question
/// names (see [`hold_to_named`]).
pub(super) fn number_held(
    engine: &crate::engine::Engine,
    stem: &str,
    verdicts: Vec<Verdict>,
) -> Result<(Numbered, NamedHold), crate::error::Error> {
    let mut n = number(verdicts);
    let held = hold_to_named(engine, stem, &mut n)?;
    Ok((n, held))
}

/// What [`hold_to_named`] found.
#[derive(Debug, Default)]
pub(super) struct NamedHold {
    /// Why nothing answers: the question names provisions no verified item is in or names.
    pub unmet: Option<String>,
}

/// Hold the answer to the provisions the question names ("Article 12", "40 CFR 261.5"):
/// a verified item counts when its provision meets a named one or its quote names one;
/// the others are rejected as not addressing the question. When none counts although
/// items cite provisions of the same kind, all are rejected and `unmet` says which
/// provisions the text found is in. A question that names none, or items whose
/// documents number no such provisions, are left alone.
pub(super) fn hold_to_named(
    engine: &crate::engine::Engine,
    stem: &str,
    numbered: &mut Numbered,
) -> Result<NamedHold, crate::error::Error> {
    use crate::source::named::{named_in, parse_provision};
    let named = named_in(stem);
    if named.is_empty() {
        return Ok(NamedHold::default());
    }
    let mut views: HashMap<String, Option<crate::authority::label::DocView>> = HashMap::new();
    let mut seen: Vec<(usize, bool, Option<String>)> = Vec::new();
    for (i, (_, v)) in numbered.ided.iter().enumerate() {
        if v.rejected.is_some() {
            continue;
        }
        let c = &v.candidate;
        if !views.contains_key(&c.doc_id) {
            let view = crate::authority::label::DocView::load(engine, &c.doc_id)?;
            views.insert(c.doc_id.clone(), view);
        }
        let provision = views[&c.doc_id]
            .as_ref()
            .and_then(|d| crate::authority::label::provision_at(&d.text, &d.layout, c.start));
        let parsed = provision.as_deref().and_then(parse_provision);
        let meets = named
            .iter()
            .any(|n| parsed.as_ref().is_some_and(|p| n.meets(p)) || n.named_by(&c.quote));
        let same_kind = parsed
            .as_ref()
            .is_some_and(|p| named.iter().any(|n| n.family == p.family));
        if meets || same_kind {
            seen.push((i, meets, provision));
        } else {
            seen.push((i, false, None));
        }
    }
    let any_meets = seen.iter().any(|(_, m, _)| *m);
    let any_kind = seen.iter().any(|(_, _, p)| p.is_some());
    if !any_meets && !any_kind {
        return Ok(NamedHold::default());
    }
    let asked: Vec<&str> = named.iter().map(|n| n.text.as_str()).collect();
    let mut found: Vec<String> = Vec::new();
    for (i, meets, provision) in seen {
        if meets {
            continue;
        }
        let v = &mut numbered.ided[i].1;
        let here = provision.clone().unwrap_or_else(|| "not numbered".into());
        v.rejected = Some(crate::evidence::verify::Rejection {
            reason: crate::evidence::verify::Reason::OutsideNamedProvision,
            rationale: format!(
                "in {here}, not in {} which the question names, nor naming it",
                asked.join(" or ")
            ),
        });
        if let Some(p) = provision.filter(|p| !found.contains(p)) {
            found.push(p);
        }
    }
    let unmet = (!any_meets).then(|| {
        found.truncate(6);
        format!(
            "the question names {}; no text found is in it or names it (the text found is in {})",
            asked.join(" and "),
            found.join(", ")
        )
    });
    Ok(NamedHold { unmet })
}
