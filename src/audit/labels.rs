//! What an audit shows of each cited place beyond its quote — evidence key, source,
//! title, line, page, section, label, kind, provision, binding, source type, OCR mark and
//! the span in the file on disk — is derived again from the index, the way `ask` derives
//! it, and compared with what the audit records: a label the index does not give is a
//! `label_mismatch` (an FAQ relabelled as a statute's section fails). The file a span
//! points into is read too: bytes that no longer hash as they did at ingest are a
//! `file_changed` note.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use crate::answer::{display_text, EvidenceItem, Location};
use crate::authority::label::{place_labels, DocView};
use crate::corpus::segment::LineIndex;
use crate::corpus::Span;
use crate::error::Error;
use crate::evidence::extract::{evidence_key, kind_of, label_at};
use crate::source::{SourceRule, SourceType};
use crate::store::{Store, StoredDoc};

/// The labels of an evidence item an audit is checked on.
const ITEM_LABELS: &[&str] = &[
    "evidence_key",
    "key",
    "source",
    "title",
    "display",
    "line",
    "page",
    "section",
    "label",
    "kind",
    "provision",
    "non_binding",
    "source_type",
    "ocr",
];

/// The labels of another place of an item's quote.
const LOCATION_LABELS: &[&str] = &["evidence_key", "key", "source", "line", "page"];

/// The span in the file on disk: checked when the audit records it (audits written before
/// file spans do not).
const FILE_LABELS: &[&str] = &["file_start", "file_end", "file_span_absent"];

/// What the index holds of one cited document.
struct Indexed {
    doc: StoredDoc,
    view: DocView,
    lines: LineIndex,
    source_type: Option<SourceType>,
    /// Whether the file on disk is the one ingested (`None`: not checked yet).
    file_same: Option<Result<(), String>>,
}

/// The cited documents the index holds, read once each.
pub(super) struct Documents<'s> {
    store: &'s Store,
    docs: HashMap<String, Indexed>,
}

impl<'s> Documents<'s> {
    /// The documents `items` cite (their own and their other places'), with the source
    /// types the catalog gives them under `rules`.
    pub(super) fn load(
        store: &'s Store,
        rules: &[SourceRule],
        items: &[EvidenceItem],
    ) -> Result<Self, Error> {
        let mut ids: Vec<String> = items
            .iter()
            .flat_map(|e| std::iter::once(&e.doc_id).chain(e.locations.iter().map(|l| &l.doc_id)))
            .cloned()
            .collect();
        ids.sort();
        ids.dedup();
        let types: HashMap<String, SourceType> =
            crate::authority::Catalog::load_only_in(store, rules, &ids)?
                .documents
                .into_iter()
                .map(|d| (d.doc_id, d.source_type.value))
                .collect();
        let mut docs = HashMap::new();
        for id in ids {
            let (Some(doc), Some(view)) =
                (store.document_by_id(&id)?, DocView::from_store(store, &id)?)
            else {
                continue;
            };
            let indexed = Indexed {
                lines: LineIndex::new(&view.text),
                source_type: types.get(&id).copied(),
                file_same: None,
                doc,
                view,
            };
            docs.insert(id, indexed);
        }
        Ok(Documents { store, docs })
    }

    /// Where `item`'s labels differ from the index's, as messages (the quote must stand
    /// at its span: checked first).
    pub(super) fn item_differences(&self, item: &EvidenceItem, recorded: &Value) -> Vec<String> {
        let Some(ix) = self.docs.get(&item.doc_id) else {
            return Vec::new();
        };
        let derived = derive_item(item, ix);
        let derived = serde_json::to_value(&derived).unwrap_or(Value::Null);
        differences(recorded, &derived, ITEM_LABELS)
    }

    /// Where the labels of `place` (another place of `quote`) differ from the index's.
    pub(super) fn location_differences(&self, place: &Location, recorded: &Value) -> Vec<String> {
        let Some(ix) = self.docs.get(&place.doc_id) else {
            return Vec::new();
        };
        let derived = derive_location(place, ix);
        let derived = serde_json::to_value(&derived).unwrap_or(Value::Null);
        differences(recorded, &derived, LOCATION_LABELS)
    }

    /// Why the file of document `doc_id` is no longer the one its spans point into, when
    /// it is not (read and hashed once per document).
    pub(super) fn file_changed(&mut self, doc_id: &str) -> Option<String> {
        let store = self.store;
        let ix = self.docs.get_mut(doc_id)?;
        ix.file_same
            .get_or_insert_with(|| same_file(store, &ix.doc))
            .clone()
            .err()
    }
}

/// `item` with every label derived from its document `ix` as `ask` derives it.
fn derive_item(item: &EvidenceItem, ix: &Indexed) -> EvidenceItem {
    let (start, end) = (item.start, item.end);
    let (text, layout) = (&ix.view.text, &ix.view.layout);
    let mut e = item.clone();
    e.evidence_key = evidence_key(&item.content_hash, start, end);
    e.key = ix.doc.key.clone();
    e.source = ix.doc.source.clone();
    e.title = ix.doc.title.clone();
    e.display = display_text(&item.quote);
    e.line = ix.lines.line_of(start);
    e.page = layout.page_of(start);
    e.section = layout.section_of(start).map(str::to_string);
    e.label = label_at(text, layout, Span::new(start, end));
    e.kind = kind_of(&item.quote);
    (e.provision, e.non_binding) = place_labels(&ix.view, start, end);
    e.source_type = ix.source_type;
    e.ocr = layout.ocr_mark(text, start, end);
    e.file = layout.file_span(start, end);
    e
}

/// `place` with its labels derived from its document `ix`.
fn derive_location(place: &Location, ix: &Indexed) -> Location {
    let mut l = place.clone();
    l.evidence_key = evidence_key(&place.content_hash, place.start, place.end);
    l.key = ix.doc.key.clone();
    l.source = ix.doc.source.clone();
    l.line = ix.lines.line_of(place.start);
    l.page = ix.view.layout.page_of(place.start);
    l.file = ix.view.layout.file_span(place.start, place.end);
    l
}

/// The labels `names` (and the file span, when `recorded` has one) whose recorded value
/// is not the derived one; a label left out is null.
fn differences(recorded: &Value, derived: &Value, names: &[&str]) -> Vec<String> {
    let records_file = FILE_LABELS.iter().any(|n| recorded.get(n).is_some());
    let file: &[&str] = if records_file { FILE_LABELS } else { &[] };
    names
        .iter()
        .chain(file)
        .filter_map(|n| {
            let r = recorded.get(n).unwrap_or(&Value::Null);
            let d = derived.get(n).unwrap_or(&Value::Null);
            (r != d).then(|| format!("{n}: the audit shows {r}, the index gives {d}"))
        })
        .collect()
}

/// Whether the file of `doc` on disk still hashes to what was ingested (its spans point
/// into those bytes), or why not.
fn same_file(store: &Store, doc: &StoredDoc) -> Result<(), String> {
    let path = crate::store::key_path(&doc.path);
    let recorded = match store.file_state(&doc.path) {
        Ok(Some((_, _, hash))) if !hash.is_empty() => hash,
        _ => return Err("the index holds no hash of the file's bytes".into()),
    };
    match file_sha256(&path) {
        Ok(h) if h == recorded => Ok(()),
        Ok(_) => Err(format!(
            "{} changed since it was ingested: the span may no longer hold the quote (ingest it again)",
            path.display()
        )),
        Err(e) => Err(format!("{} cannot be read: {e}", path.display())),
    }
}

/// Hex sha256 of the file at `path`.
fn file_sha256(path: &Path) -> std::io::Result<String> {
    use sha2::{Digest, Sha256};
    let mut f = std::fs::File::open(path)?;
    let mut h = Sha256::new();
    std::io::copy(&mut f, &mut h)?;
    Ok(hex::encode(h.finalize()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn labels_left_out_are_null_and_file_spans_are_checked_when_recorded() {
        let derived =
            json!({"source": "faq.md", "section": null, "page": 3, "file_start": 4, "file_end": 9});
        // The same labels, one left out as null: no difference.
        let same = json!({"source": "faq.md", "page": 3});
        assert!(differences(&same, &derived, &["source", "section", "page"]).is_empty());
        // A relabelled source and an invented section.
        let forged = json!({"source": "statute.md", "section": "§ 1", "page": 3});
        let d = differences(&forged, &derived, &["source", "section", "page"]);
        assert_eq!(d.len(), 2, "{d:?}");
        assert!(
            d[0].starts_with("source: the audit shows \"statute.md\""),
            "{d:?}"
        );
        // A recorded file span must be the index's.
        let moved = json!({"source": "faq.md", "page": 3, "file_start": 5, "file_end": 9});
        let d = differences(&moved, &derived, &["source", "page"]);
        assert_eq!(d, ["file_start: the audit shows 5, the index gives 4"]);
    }
}
