//! Compose: a cite-only, extractive answer from verified evidence.
//!
//! Every sentence of the answer is a verbatim quote (or one sentence of a quote) followed
//! by the ids of the items that state it: `quote text [E1, E4].` The only edits are the
//! citation, a final full stop in place of the quote's own closing `.`, `;`, `:` or `,`,
//! and full-width brackets around marker-like text inside the quote (`［E2］`, see
//! [`super::gate::neutralise_markers`]).
//!
//! * Items arrive ranked (step, relevance, chunk rank, position); at most `max_items`
//!   statements per research step are used.
//! * Near-duplicates merge into one sentence citing all their ids: a span inside another
//!   span of the same document, or content words overlapping by [`DUPLICATE_JACCARD`] or
//!   more with the same figures. A sentence cites the members whose quotes hold it (and
//!   near-duplicates); a member that holds only part of it is listed as unused. A partial
//!   overlap with an item already used is left out.
//! * Conflicts: two items about the same thing (content words, numbers aside,
//!   overlapping by [`CONFLICT_JACCARD`] or more) from different documents or different
//!   places of one document, whose figures in a unit and bound they share (`30 days`, `7
//!   years`) differ, neither set containing the other, are set side by side in one
//!   paragraph, both cited, and listed in `conflicts` — unless their structure says they
//!   are about different things (table rows with different stubs, see [`super::subject`]).
//! * Paragraphs: one per research step and source document (the aspect), in order of
//!   their best item; sentences within a paragraph by relevance.
//!
//! The result depends only on its input: same items, same bytes.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::corpus::segment::sentences;
use crate::text::{content_words, figures};

/// Content-word Jaccard at or above which two quotes are the same statement.
pub const DUPLICATE_JACCARD: f64 = 0.8;
/// Content-word Jaccard (numbers aside) at or above which two quotes with different
/// figures are read as a conflict.
pub const CONFLICT_JACCARD: f64 = 0.3;

/// What compose needs of an item.
#[derive(Debug, Clone)]
pub struct Item {
    /// Run-local id (`E1`).
    pub id: String,
    /// Document id.
    pub doc_id: String,
    /// Research step.
    pub step: usize,
    /// The quote.
    pub quote: String,
    /// Span in the document.
    pub start: usize,
    /// End of the span.
    pub end: usize,
}

/// One sentence of the answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sentence {
    /// The sentence as it appears in the answer, citations included.
    pub text: String,
    /// Ids it cites.
    pub citations: Vec<String>,
}

/// Two items that give different figures for the same thing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Conflict {
    /// The items, higher-ranked first.
    pub ids: Vec<String>,
    /// The figures each states, in the same order.
    pub figures: Vec<Vec<String>>,
    /// Which source governs, and why (set by `authority::rule`, when the sources are
    /// known).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ruling: Option<crate::source::govern::Ruling>,
}

/// The composed answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Composition {
    /// Paragraphs joined by blank lines.
    pub answer: String,
    /// Every sentence with its citations, in answer order.
    pub sentences: Vec<Sentence>,
    /// Ids cited, in first-cited order.
    pub cited: Vec<String>,
    /// Items not used: (id, why).
    pub unused: Vec<(String, String)>,
    /// Conflicting figures presented side by side.
    pub conflicts: Vec<Conflict>,
}

fn jaccard(a: &HashSet<String>, b: &HashSet<String>) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    a.intersection(b).count() as f64 / a.union(b).count() as f64
}

fn without_numbers(quote: &str) -> HashSet<String> {
    content_words(quote)
        .into_iter()
        .filter(|w| {
            !w.chars().all(|c| c.is_ascii_digit()) && crate::figure::word_value(w).is_none()
        })
        .collect()
}

/// `s` with every run of whitespace as one space.
pub(crate) fn flat(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// One answer sentence per sentence of the group's lead quote. Each cites the lead, the
/// members whose quotes contain it, and near-duplicate members that share most of its
/// content words.
fn cite(items: &[Item], g: &Group) -> Vec<Sentence> {
    let quote = &items[g.lead].quote;
    let mut spans = sentences(quote);
    if spans.is_empty() {
        spans.push(crate::corpus::Span::new(0, quote.len()));
    }
    let single = spans.len() == 1;
    spans
        .into_iter()
        .map(|s| {
            let piece = s.slice(quote);
            let (body, end) = match piece.chars().last() {
                Some(c @ ('?' | '!')) => (&piece[..piece.len() - c.len_utf8()], c),
                Some('.' | ';' | ':' | ',') => (&piece[..piece.len() - 1], '.'),
                _ => (piece, '.'),
            };
            // Text quoted from a document never carries a citation: marker-like text in
            // the quote is shown with full-width brackets.
            // On one line: a sentence a PDF spaced over a blank line is one sentence, not
            // two paragraphs.
            let body = flat(&super::gate::neutralise_markers(body.trim_end()));
            let body = body.as_str();
            let words: HashSet<String> = content_words(body).into_iter().collect();
            let ids: Vec<String> = g
                .members
                .iter()
                .filter(|&&(m, near)| {
                    m == g.lead
                        || flat(&super::gate::neutralise_markers(&items[m].quote))
                            .contains(&flat(body))
                        || (near
                            && (single
                                || jaccard(
                                    &words,
                                    &content_words(&items[m].quote).into_iter().collect(),
                                ) >= 0.5))
                })
                .map(|&(m, _)| items[m].id.clone())
                .collect();
            Sentence {
                text: format!("{body} [{}]{end}", ids.join(", ")),
                citations: ids,
            }
        })
        .collect()
}

struct Group {
    lead: usize,
    /// Items merged into the group (the lead first), and whether each merged as a
    /// near-duplicate (rather than by span containment).
    members: Vec<(usize, bool)>,
    words: HashSet<String>,
}

/// Compose the answer from `items` (by step, best first), using at most `max_items`
/// distinct statements per research step.
pub fn compose(items: &[Item], max_items: usize) -> Composition {
    compose_diverse(items, max_items, usize::MAX)
}

/// [`compose`], with at most `max_per_document` statements from one document in a step,
/// and a document's second statement only after every document's first (a multi-hop
/// step's answer then spans the documents it verified).
pub fn compose_diverse(items: &[Item], max_items: usize, max_per_document: usize) -> Composition {
    let mut unused = Vec::new();
    let groups = group(items, max_items, max_per_document, &mut unused);
    let (paired, conflicts) = pair_conflicts(items, &groups);
    let paragraphs = paragraphs(items, &groups, &paired);
    let (answer, sentences, cited) = write(items, &groups, &paragraphs);
    for g in &groups {
        for &(m, _) in &g.members {
            if !cited.contains(&items[m].id) {
                unused.push((
                    items[m].id.clone(),
                    format!("part of a sentence quoted from {}", items[g.lead].id),
                ));
            }
        }
    }
    Composition {
        answer,
        sentences,
        cited,
        unused,
        conflicts,
    }
}

/// The order items are considered in: as given, or (with a per-document cap) by step,
/// then rank within the document and step, so every document's best item comes first.
fn consider_order(items: &[Item], max_per_document: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..items.len()).collect();
    if max_per_document != usize::MAX {
        let mut seen: HashMap<(usize, &str), usize> = HashMap::new();
        let rank: Vec<usize> = items
            .iter()
            .map(|it| {
                let n = seen.entry((it.step, it.doc_id.as_str())).or_insert(0);
                *n += 1;
                *n - 1
            })
            .collect();
        order.sort_by_key(|&i| (items[i].step, rank[i], i));
    }
    order
}

/// Group items into statements: an item inside another's span (same document) or a
/// near-duplicate of it joins its group; an overlapping one, or one beyond the caps, is
/// unused (with why).
fn group(
    items: &[Item],
    max_items: usize,
    max_per_document: usize,
    unused: &mut Vec<(String, String)>,
) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    for i in consider_order(items, max_per_document) {
        let it = &items[i];
        let words: HashSet<String> = content_words(&it.quote).into_iter().collect();
        match join(items, &mut groups, i, &words) {
            Joined::Merged => continue,
            Joined::Overlaps(other) => {
                unused.push((it.id.clone(), format!("overlaps {other}, already quoted")));
                continue;
            }
            Joined::New => {}
        }
        let in_step = |g: &&Group| items[g.lead].step == it.step;
        if groups.iter().filter(in_step).count() >= max_items {
            unused.push((
                it.id.clone(),
                format!("beyond the {max_items} statements of step {}", it.step),
            ));
            continue;
        }
        let same_doc = |g: &&Group| in_step(g) && items[g.lead].doc_id == it.doc_id;
        if groups.iter().filter(same_doc).count() >= max_per_document {
            unused.push((
                it.id.clone(),
                format!(
                    "beyond {max_per_document} statements from one document in step {}",
                    it.step
                ),
            ));
            continue;
        }
        groups.push(Group {
            lead: i,
            members: vec![(i, false)],
            words,
        });
    }
    groups
}

/// What became of an item offered to the groups.
enum Joined {
    /// It joined a group.
    Merged,
    /// It overlaps a group's lead (this id) without being inside it.
    Overlaps(String),
    /// It starts a group (if the caps allow).
    New,
}

/// Offer item `i` (content words `words`) to the groups.
fn join(items: &[Item], groups: &mut [Group], i: usize, words: &HashSet<String>) -> Joined {
    let it = &items[i];
    let mut overlaps = None;
    for g in groups.iter_mut() {
        let lead = &items[g.lead];
        let same_doc = lead.doc_id == it.doc_id;
        let contains = same_doc
            && ((lead.start <= it.start && it.end <= lead.end)
                || (it.start <= lead.start && lead.end <= it.end));
        let near = jaccard(&g.words, words) >= DUPLICATE_JACCARD
            && figures(&lead.quote) == figures(&it.quote);
        if contains || near {
            g.members.push((i, !contains));
            return Joined::Merged;
        }
        if same_doc && it.start < lead.end && lead.start < it.end {
            overlaps = Some(lead.id.clone());
        }
    }
    overlaps.map_or(Joined::New, Joined::Overlaps)
}

/// Conflicts: pair each group with the first later group that speaks of the same thing
/// (in another document or another place of the same one) with different figures.
/// Returns each group's partner and the conflicts.
fn pair_conflicts(items: &[Item], groups: &[Group]) -> (Vec<Option<usize>>, Vec<Conflict>) {
    let mut paired: Vec<Option<usize>> = vec![None; groups.len()];
    let mut conflicts = Vec::new();
    let lead = |g: usize| &items[groups[g].lead];
    for a in 0..groups.len() {
        let fa = figures(&lead(a).quote);
        if paired[a].is_some() || fa.is_empty() {
            continue;
        }
        let (ua, wa) = (unit_values(&lead(a).quote), without_numbers(&lead(a).quote));
        for b in a + 1..groups.len() {
            if paired[b].is_some() || overlap(lead(a), lead(b)) {
                continue;
            }
            let ub = unit_values(&lead(b).quote);
            let wb = without_numbers(&lead(b).quote);
            let same_doc = lead(a).doc_id == lead(b).doc_id;
            if differ(&ua, &ub)
                && jaccard(&wa, &wb) >= CONFLICT_JACCARD
                && super::subject::same_subject(&lead(a).quote, &lead(b).quote, same_doc)
            {
                paired[a] = Some(b);
                paired[b] = Some(a);
                conflicts.push(Conflict {
                    ids: vec![lead(a).id.clone(), lead(b).id.clone()],
                    figures: vec![fa.clone(), figures(&lead(b).quote)],
                    ruling: None,
                });
                break;
            }
        }
    }
    (paired, conflicts)
}

/// Two items from the same place of one document.
fn overlap(a: &Item, b: &Item) -> bool {
    a.doc_id == b.doc_id && a.start < b.end && b.start < a.end
}

type UnitValues = std::collections::BTreeMap<(String, crate::figure::Bound), HashSet<String>>;

/// The values a quote states per unit and bound.
fn unit_values(quote: &str) -> UnitValues {
    let mut out = UnitValues::new();
    for f in crate::figure::figures_of(quote) {
        out.entry((f.unit, f.bound)).or_default().insert(f.value);
    }
    out
}

/// Whether two quotes state different values in a unit and bound they share (neither
/// set of values containing the other: "30 days" vs "60 days", not a minimum vs a
/// maximum).
fn differ(a: &UnitValues, b: &UnitValues) -> bool {
    a.iter().any(|(k, va)| {
        b.get(k)
            .is_some_and(|vb| !va.is_subset(vb) && !vb.is_subset(va))
    })
}

/// A paragraph: its aspect (step and document, or `None` for a conflict pair) and the
/// groups it holds.
type Paragraph = (Option<(usize, String)>, Vec<usize>);

/// Paragraphs: a conflict pair is its own paragraph; other groups gather by (step,
/// document) in order of their best group.
fn paragraphs(items: &[Item], groups: &[Group], paired: &[Option<usize>]) -> Vec<Paragraph> {
    let mut out: Vec<Paragraph> = Vec::new();
    for g in 0..groups.len() {
        match paired[g] {
            Some(other) if other < g => continue, // placed with its partner
            Some(other) => out.push((None, vec![g, other])),
            None => {
                let lead = &items[groups[g].lead];
                let key = (lead.step, lead.doc_id.clone());
                match out.iter_mut().find(|(k, _)| k.as_ref() == Some(&key)) {
                    Some((_, members)) => members.push(g),
                    None => out.push((Some(key), vec![g])),
                }
            }
        }
    }
    out
}

/// The text (paragraphs joined by blank lines), its sentences and the ids cited in
/// first-cited order.
fn write(
    items: &[Item],
    groups: &[Group],
    paragraphs: &[Paragraph],
) -> (String, Vec<Sentence>, Vec<String>) {
    let mut text = Vec::new();
    let mut all = Vec::new();
    let mut cited: Vec<String> = Vec::new();
    for (_, members) in paragraphs {
        let mut para = Vec::new();
        for &g in members {
            let s = cite(items, &groups[g]);
            para.extend(s.iter().map(|s| s.text.clone()));
            for id in s.iter().flat_map(|s| &s.citations) {
                if !cited.contains(id) {
                    cited.push(id.clone());
                }
            }
            all.extend(s);
        }
        text.push(para.join(" "));
    }
    (text.join("\n\n"), all, cited)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::gate::{check, GateConfig};

    fn item(id: &str, doc: &str, quote: &str, start: usize) -> Item {
        Item {
            id: id.into(),
            doc_id: doc.into(),
            step: 1,
            quote: quote.into(),
            start,
            end: start + quote.len(),
        }
    }

    #[test]
    fn sentences_are_quotes_with_their_citations_and_pass_the_gate() {
        let items = vec![
            item(
                "E1",
                "a",
                "Client records must be retained for seven years after the last date of service.",
                0,
            ),
            item(
                "E2",
                "b",
                "Requests for records are answered within 30 days; the clinic logs each request.",
                0,
            ),
        ];
        let c = compose(&items, 6);
        assert_eq!(c.sentences.len(), 2);
        assert_eq!(
            c.sentences[0].text,
            "Client records must be retained for seven years after the last date of service [E1]."
        );
        assert_eq!(c.cited, vec!["E1", "E2"]);
        assert_eq!(
            c.answer.split("\n\n").count(),
            2,
            "one paragraph per document"
        );
        let known = ["E1", "E2"].iter().map(|s| s.to_string()).collect();
        let g = check(&c.answer, &known, &GateConfig::default());
        assert!(g.passed, "{:?}", g.violations);
    }

    #[test]
    fn near_duplicates_merge_and_contained_spans_merge() {
        let q = "Client records must be retained for seven years after the last date of service.";
        let items = vec![
            item("E1", "a", q, 0),
            item("E2", "b", q, 40),
            item("E3", "a", "Client records must be retained", 0),
        ];
        let c = compose(&items, 6);
        assert_eq!(c.sentences.len(), 1);
        // E3 holds only part of the sentence: merged, not cited for all of it.
        assert_eq!(c.sentences[0].citations, vec!["E1", "E2"]);
        assert!(c.answer.ends_with("[E1, E2]."));
        assert_eq!(
            c.unused,
            vec![(
                "E3".to_string(),
                "part of a sentence quoted from E1".to_string()
            )]
        );
    }

    #[test]
    fn a_contained_item_is_cited_only_on_the_sentence_it_holds() {
        let lead =
            "Records are kept seven years. This rule covers billing files and housing files.";
        let items = vec![
            item("E1", "a", lead, 0),
            item("E2", "a", "Records are kept seven years.", 0),
        ];
        let c = compose(&items, 6);
        assert_eq!(c.sentences.len(), 2);
        assert_eq!(c.sentences[0].citations, vec!["E1", "E2"]);
        assert_eq!(c.sentences[1].citations, vec!["E1"]);
    }

    #[test]
    fn conflicting_figures_sit_side_by_side() {
        let items = vec![
            item(
                "E1",
                "manual",
                "A youth assessment must be completed within 60 days of the first visit.",
                0,
            ),
            item(
                "E2",
                "manual",
                "Crisis calls are returned within one hour by the on-call clinician.",
                200,
            ),
            item(
                "E3",
                "bulletin",
                "A youth assessment must be completed within 30 days of the first visit.",
                0,
            ),
        ];
        let c = compose(&items, 6);
        assert_eq!(c.conflicts.len(), 1, "{c:?}");
        assert_eq!(c.conflicts[0].ids, vec!["E1", "E3"]);
        assert_eq!(c.conflicts[0].figures, vec![vec!["60 day"], vec!["30 day"]]);
        let first = c.answer.split("\n\n").next().unwrap();
        assert!(
            first.contains("[E1]") && first.contains("[E3]"),
            "{}",
            c.answer
        );
    }

    #[test]
    fn the_budget_and_partial_overlaps_leave_items_unused() {
        let items = vec![
            item(
                "E1",
                "a",
                "Counties must retain client records for seven years.",
                0,
            ),
            item(
                "E2",
                "a",
                "records for seven years. Minors' records are kept longer.",
                30,
            ),
            item(
                "E3",
                "c",
                "Grievances are answered within thirty days by the Department.",
                0,
            ),
        ];
        let c = compose(&items, 1);
        assert_eq!(c.cited, vec!["E1"]);
        assert_eq!(c.unused.len(), 2);
        assert!(c.unused[0].1.contains("overlaps E1"));
        assert!(c.unused[1].1.contains("beyond the 1 statements of step 1"));
    }

    #[test]
    fn a_per_document_cap_spreads_statements_over_documents() {
        let items = vec![
            item(
                "E1",
                "a",
                "Shirley Temple starred as Corliss Archer in the comedy film.",
                0,
            ),
            item(
                "E2",
                "a",
                "The film opened in New York in October to good reviews.",
                100,
            ),
            item(
                "E3",
                "a",
                "Its sequel followed four years later with the same star.",
                200,
            ),
            item(
                "E4",
                "b",
                "Shirley Temple later served as the Chief of Protocol.",
                0,
            ),
        ];
        // Each document's best statement before any document's second.
        let c = compose_diverse(&items, 2, 2);
        assert_eq!(c.cited, vec!["E1", "E4"]);
        let c = compose_diverse(&items, 3, 2);
        assert_eq!(c.cited, vec!["E1", "E2", "E4"]);
        assert!(c.unused[0].1.contains("beyond the 3 statements"));
        let c = compose_diverse(&items, 4, 2);
        assert_eq!(c.cited, vec!["E1", "E2", "E4"]);
        assert!(
            c.unused[0].1.contains("from one document"),
            "{:?}",
            c.unused
        );
        assert_eq!(compose(&items, 3).cited, vec!["E1", "E2", "E3"]);
    }

    #[test]
    fn figures_ignore_section_numbers_and_read_number_words() {
        assert_eq!(figures("kept for seven years under § 5897"), vec!["7 year"]);
        assert_eq!(figures("within 30 days (Section 9)"), vec!["30 day"]);
        assert_eq!(figures("not less than seven (7) years"), vec!["7 year"]);
        assert_eq!(
            figures("Effective April 1, 2019, within 30 calendar days; 5% of claims"),
            vec!["30 day", "5 percent"]
        );
        assert!(figures("no figures here").is_empty());
    }
}
