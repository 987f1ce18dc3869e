//! The cue scan: besides the research queries, a review reads every line of the documents
//! in scope that holds a cue of one of the requirement's fields (found with FTS5 phrase
//! queries), so a value stated in a row, a form line or a long sentence that ranks low for
//! a question is still found. A line (or, in prose, the sentence holding the cue) becomes
//! an evidence item only when a field value, or a candidate rejected with a reason, is
//! read from it; its span is taken from the stored text, so it is verbatim by
//! construction, and it is checked again with every value.

use std::collections::HashMap;

use crate::answer::EvidenceItem;
use crate::corpus::layout::Layout;
use crate::corpus::segment::sentences;
use crate::engine::Engine;
use crate::error::Error;
use crate::evidence::extract::{evidence_key, Kind};
use crate::index::lexical::LexQuery;
use crate::store::{sha256_hex, ChunkRow};

use super::checklist::Requirement;
use super::fields::{self, FieldSpec};

/// Chunks read per cue phrase, at most.
const CHUNKS_PER_CUE: usize = 50;
/// Longest line read whole; a longer one is read sentence by sentence.
const MAX_LINE_BYTES: usize = 400;
/// Score of a scanned item (below every verified research item).
const SCAN_SCORE: f64 = 0.0;

/// A document's stored text and layout.
struct Doc {
    text: String,
    layout: Layout,
    hash: String,
}

/// Evidence items of `req`'s fields found by their cues in the documents `in_scope`
/// accepts.
pub fn scan(
    engine: &Engine,
    req: &Requirement,
    in_scope: &dyn Fn(&str) -> bool,
) -> Result<Vec<EvidenceItem>, Error> {
    let store = engine.store();
    let mut rows: Vec<i64> = Vec::new();
    for spec in &req.fields {
        for cue in &spec.cues {
            let Some(phrase) = LexQuery::phrase(cue) else {
                continue;
            };
            for (row, _) in store.lexical_search(&phrase, CHUNKS_PER_CUE)? {
                if !rows.contains(&row) {
                    rows.push(row);
                }
            }
        }
    }
    rows.sort_unstable();
    let mut docs: HashMap<String, Doc> = HashMap::new();
    let mut items = Vec::new();
    for chunk in store.chunks_by_ids(&rows)? {
        if !in_scope(&chunk.doc_id) {
            continue;
        }
        if !docs.contains_key(&chunk.doc_id) {
            let Some(text) = store.document_text(&chunk.doc_id)? else {
                continue;
            };
            let layout = store.document_layout(&chunk.doc_id, &text)?;
            let hash = sha256_hex(text.as_bytes());
            docs.insert(chunk.doc_id.clone(), Doc { text, layout, hash });
        }
        let doc = &docs[&chunk.doc_id];
        for (s, e) in pieces(doc, chunk.span.start, chunk.span.end) {
            if let Some(item) = item_of(&chunk, doc, s, e, &req.fields) {
                if !items
                    .iter()
                    .any(|i: &EvidenceItem| i.evidence_key == item.evidence_key)
                {
                    items.push(item);
                }
            }
        }
    }
    Ok(items)
}

/// The lines of `[start, end)` (trimmed), a long one cut into its sentences.
fn pieces(doc: &Doc, start: usize, end: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut at = start;
    for line in doc.text[start..end].split_inclusive('\n') {
        let (s, e) = trim(&doc.text, at, at + line.len());
        at += line.len();
        if s >= e {
            continue;
        }
        if e - s <= MAX_LINE_BYTES || doc.layout.label_for(s, e).is_some() {
            out.push((s, e));
        } else {
            for sp in sentences(&doc.text[s..e]) {
                let (a, b) = trim(&doc.text, s + sp.start, s + sp.end);
                if a < b {
                    out.push((a, b));
                }
            }
        }
    }
    out
}

fn trim(text: &str, s: usize, e: usize) -> (usize, usize) {
    let piece = &text[s..e];
    let lead = piece.len() - piece.trim_start().len();
    let body = piece.trim();
    (s + lead, s + lead + body.len())
}

/// The evidence item of the piece `[s, e)` when one of `specs` reads a value (or a
/// rejected candidate) from it.
fn item_of(
    chunk: &ChunkRow,
    doc: &Doc,
    s: usize,
    e: usize,
    specs: &[FieldSpec],
) -> Option<EvidenceItem> {
    let quote = &doc.text[s..e];
    if crate::guard::screen(quote).is_some()
        || crate::evidence::extract::is_instruction(quote)
        || crate::evidence::provision::is_contents_entry(quote)
    {
        return None;
    }
    let label = doc.layout.label_for(s, e).map(|l| l.label.clone());
    let section = doc.layout.section_of(s).map(str::to_string);
    let states = specs.iter().any(|spec| {
        let lower = quote.to_ascii_lowercase();
        let cued = |t: &str| spec.cues.iter().any(|c| t.contains(c.as_str()));
        (cued(&lower)
            || label
                .as_deref()
                .is_some_and(|l| cued(&l.to_ascii_lowercase())))
            && {
                let x = fields::extract(
                    spec,
                    quote,
                    label.as_deref().or(section.as_deref()),
                    Some(fields::DateOrder::Dmy),
                );
                !x.found.is_empty() || !x.rejected.is_empty()
            }
    });
    if !states {
        return None;
    }
    Some(evidence_item(chunk, doc, s, e, label, section))
}

/// The evidence item of `[s, e)` of document `doc_id` (a line the review reads on its
/// own, such as the date on a cover), `None` when no chunk holds it.
pub(super) fn item_at(
    engine: &Engine,
    doc_id: &str,
    s: usize,
    e: usize,
) -> Result<Option<EvidenceItem>, Error> {
    let store = engine.store();
    let Some(row) = store.chunk_row_at(doc_id, s)? else {
        return Ok(None);
    };
    let Some(chunk) = store.chunks_by_ids(&[row])?.into_iter().next() else {
        return Ok(None);
    };
    let Some(text) = store.document_text(doc_id)? else {
        return Ok(None);
    };
    if text.get(s..e).is_none() {
        return Ok(None);
    }
    let layout = store.document_layout(doc_id, &text)?;
    let hash = sha256_hex(text.as_bytes());
    let doc = Doc { text, layout, hash };
    let label = doc.layout.label_for(s, e).map(|l| l.label.clone());
    let section = doc.layout.section_of(s).map(str::to_string);
    Ok(Some(evidence_item(&chunk, &doc, s, e, label, section)))
}

fn evidence_item(
    chunk: &ChunkRow,
    doc: &Doc,
    s: usize,
    e: usize,
    label: Option<String>,
    section: Option<String>,
) -> EvidenceItem {
    let quote = &doc.text[s..e];
    let line = doc.text[..s].bytes().filter(|&b| b == b'\n').count() + 1;
    EvidenceItem {
        id: String::new(),
        evidence_key: evidence_key(&doc.hash, s, e),
        doc_id: chunk.doc_id.clone(),
        key: chunk.doc_key.clone(),
        source: chunk.source.clone(),
        title: chunk.title.clone(),
        chunk_id: chunk.chunk_id.clone(),
        quote: quote.to_string(),
        display: crate::answer::display_text(quote),
        start: s,
        end: e,
        line,
        page: doc.layout.page_of(s),
        section,
        label,
        kind: Kind::Statement,
        score: SCAN_SCORE,
        step: 1,
        content_hash: doc.hash.clone(),
        locations: Vec::new(),
        provision: None,
        non_binding: None,
        source_type: None,
        ocr: doc.layout.ocr_mark(&doc.text, s, e),
        cite: None,
        file: doc.layout.file_span(s, e),
    }
}
