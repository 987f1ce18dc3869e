//! Labels on an answer's evidence: the finest provision each quote stands in ("Article
//! 521(2)(b)"), whether its text binds (a recital, a note or a summary does not), and the
//! kind of source it comes from.

use std::collections::HashMap;

use crate::answer::{EvidenceItem, NonBindingAt};
use crate::corpus::layout::Layout;
use crate::engine::Engine;
use crate::error::Error;
use crate::source::binding::{
    heading_citation, non_binding, part_at, provision_path, NonBinding, Part,
};
use crate::source::SourceType;

/// A stored document as labelling and requirements read it: its text, layout and the
/// parts that do not bind.
pub struct DocView {
    /// The stored text.
    pub text: String,
    /// Its layout (pages, headings).
    pub layout: Layout,
    /// The parts that do not bind.
    pub parts: Vec<Part>,
}

impl DocView {
    /// The view of document `doc_id` (`None` when the index does not hold it).
    pub fn load(engine: &Engine, doc_id: &str) -> Result<Option<DocView>, Error> {
        Self::from_store(engine.store(), doc_id)
    }

    /// [`DocView::load`] from `store`.
    pub fn from_store(store: &crate::store::Store, doc_id: &str) -> Result<Option<DocView>, Error> {
        let Some(text) = store.document_text(doc_id)? else {
            return Ok(None);
        };
        let layout = store.document_layout(doc_id, &text).unwrap_or_default();
        let heads: Vec<(usize, u8, String)> = layout
            .headings
            .iter()
            .map(|h| (h.start, h.level, h.title.clone()))
            .collect();
        let parts = non_binding(&text, &heads);
        Ok(Some(DocView {
            text,
            layout,
            parts,
        }))
    }
}

/// The finest provision at byte `at` of a document: the nearest heading before it, or a
/// parent of that heading, that cites ("Article 521", "§ 164.404"), and the paragraph
/// labels open between the nearest heading and `at`.
/// A text that numbers its paragraphs but has no citing heading (a section stored as its
/// own file) gives the labels alone ("(b)(1)").
pub fn provision_at(text: &str, layout: &Layout, at: usize) -> Option<String> {
    let before: Vec<&crate::corpus::layout::Heading> =
        layout.headings.iter().filter(|h| h.start <= at).collect();
    // Labels never carry over a heading: the path is read from the last one.
    let from = before.last().map_or(0, |h| h.start);
    // The citing heading is the nearest one or one of its parents (each of a higher
    // level than the last), never a sibling's ("§ 3" does not cite its "Background").
    // Headings stacked with no text between them ("Article 1" over its subject line)
    // read as one.
    let mut cite = String::new();
    let mut level = u8::MAX;
    let mut next_start = usize::MAX;
    for h in before.iter().rev() {
        let stacked = text
            .get(h.end..next_start)
            .is_some_and(|t| t.trim().is_empty());
        next_start = h.start;
        if h.level >= level && !stacked {
            continue;
        }
        level = level.min(h.level);
        if let Some(c) = heading_citation(&h.title) {
            cite = c;
            break;
        }
    }
    let path = provision_path(text, from, at);
    let p = format!("{cite}{path}");
    (!p.is_empty()).then_some(p)
}

/// The provision the span `[start, end)` of document `d` stands in, and the non-binding
/// part it quotes, if any.
pub fn place_labels(
    d: &DocView,
    start: usize,
    end: usize,
) -> (Option<String>, Option<NonBindingAt>) {
    let part = part_at(&d.parts, start, end);
    let outside = part.is_some_and(|p| matches!(p.kind, NonBinding::Head | NonBinding::Signature));
    let provision = provision_at(&d.text, &d.layout, start).filter(|_| !outside);
    let non_binding = part.map(|p| NonBindingAt {
        kind: p.kind,
        label: p.label.clone(),
    });
    (provision, non_binding)
}

/// Label one item from its document's view and source type.
fn label_item(e: &mut EvidenceItem, d: &DocView, source_type: Option<SourceType>) {
    (e.provision, e.non_binding) = place_labels(d, e.start, e.end);
    e.source_type = source_type;
}

/// Label every item of `items` (each document read once).
pub fn label(engine: &Engine, items: &mut [EvidenceItem]) -> Result<(), Error> {
    if items.is_empty() {
        return Ok(());
    }
    let ids: Vec<String> = items.iter().map(|e| e.doc_id.clone()).collect();
    let types: HashMap<String, SourceType> = super::Catalog::load_only(engine, &ids)?
        .documents
        .into_iter()
        .map(|d| (d.doc_id, d.source_type.value))
        .collect();
    let mut views: HashMap<String, Option<DocView>> = HashMap::new();
    for e in items.iter_mut() {
        if !views.contains_key(&e.doc_id) {
            let v = DocView::load(engine, &e.doc_id)?;
            views.insert(e.doc_id.clone(), v);
        }
        if let Some(Some(d)) = views.get(&e.doc_id) {
            label_item(e, d, types.get(&e.doc_id).copied());
        }
    }
    Ok(())
}

/// Ids of the items whose quoted text does not bind (each document read once).
pub fn non_binding_ids(
    engine: &Engine,
    items: &[crate::evidence::compose::Item],
) -> Result<std::collections::HashSet<String>, Error> {
    let mut parts: HashMap<String, Vec<Part>> = HashMap::new();
    let mut out = std::collections::HashSet::new();
    for it in items {
        if !parts.contains_key(&it.doc_id) {
            let found = match DocView::load(engine, &it.doc_id)? {
                Some(v) => v.parts,
                None => Vec::new(),
            };
            parts.insert(it.doc_id.clone(), found);
        }
        if part_at(&parts[&it.doc_id], it.start, it.end).is_some() {
            out.insert(it.id.clone());
        }
    }
    Ok(out)
}
