//! What a viewer needs of the stored documents: the text around a span with the span's
//! byte and UTF-16 offsets, page and section; the documents of the index; and the
//! re-check of an evidence item the service served against today's index (drift).

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Component, Path};
use std::sync::Mutex;

use serde::Serialize;
use utoipa::ToSchema;

use super::{lock, Service, ServiceError, Versioned};
use crate::answer::EvidenceItem;
use crate::store::Store;
use crate::store::{QuoteAt, QuoteChecker};

/// Evidence items remembered for `GET /v1/evidence/{key}` and `evidence_ids`.
pub const EVIDENCE_LOG_CAPACITY: usize = 50_000;

/// Bytes of context on each side of a span in a document view.
const CONTEXT_BYTES: usize = 6_000;

/// Longest span a document view marks, in bytes.
const MAX_SPAN_BYTES: usize = 256 * 1024;

/// Most documents listed at once.
pub const MAX_LISTED: usize = 10_000;

/// The evidence items the service served, by evidence key, oldest dropped first.
pub struct EvidenceLog {
    items: Mutex<(HashMap<String, EvidenceItem>, VecDeque<String>)>,
    capacity: usize,
}

impl EvidenceLog {
    /// An empty log of at most `capacity` items.
    pub fn new(capacity: usize) -> Self {
        EvidenceLog {
            items: Mutex::new((HashMap::new(), VecDeque::new())),
            capacity: capacity.max(1),
        }
    }

    /// Remember `items`.
    pub fn record(&self, items: &[EvidenceItem]) {
        let mut g = lock(&self.items);
        let (map, order) = &mut *g;
        for item in items {
            if map
                .insert(item.evidence_key.clone(), item.clone())
                .is_none()
            {
                order.push_back(item.evidence_key.clone());
            }
            while order.len() > self.capacity {
                if let Some(old) = order.pop_front() {
                    map.remove(&old);
                }
            }
        }
    }

    /// The item served under `key`.
    pub fn get(&self, key: &str) -> Option<EvidenceItem> {
        lock(&self.items).0.get(key).cloned()
    }
}

/// A document of the index.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct DocumentSummary {
    /// Document id.
    pub doc_id: String,
    /// Path shown to users.
    pub source: String,
    /// Title.
    pub title: String,
}

/// The stored text of a document around a span.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct DocumentView {
    /// Document id.
    pub doc_id: String,
    /// Path shown to users.
    pub source: String,
    /// Title.
    pub title: String,
    /// Length of the document text in bytes.
    pub length: usize,
    /// The span, in bytes of the document text.
    pub start: usize,
    /// End of the span (exclusive).
    pub end: usize,
    /// The text of the span.
    pub quote: String,
    /// Where the span lies in the file on disk, in bytes of the file (text and Markdown:
    /// the bytes whose rendering is the span); absent for rendered formats.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_start: Option<usize>,
    /// End of the span in the file (exclusive).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_end: Option<usize>,
    /// Why the span has no span of the file: `rendered`, `not_recorded` or `unaligned`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_span_absent: Option<String>,
    /// 1-based page of the span's start, when the source has pages.
    pub page: Option<usize>,
    /// Innermost section title at the span's start.
    pub section: Option<String>,
    /// The text around the span.
    pub excerpt: String,
    /// Where the excerpt starts in the document, in bytes.
    pub excerpt_start: usize,
    /// Where it ends (exclusive).
    pub excerpt_end: usize,
    /// Whether text precedes the excerpt.
    pub truncated_before: bool,
    /// Whether text follows it.
    pub truncated_after: bool,
    /// The span inside `excerpt`, in UTF-16 code units (what a browser's strings count).
    pub utf16_start: usize,
    /// End of the span inside `excerpt`, in UTF-16 code units.
    pub utf16_end: usize,
}

/// Whether an evidence item still stands in today's index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Drift {
    /// The quote is at its span and the document is unchanged.
    Holds,
    /// The quote is at its span; the document changed elsewhere.
    DocumentChanged,
    /// The span no longer holds the quote.
    QuoteChanged,
    /// The document is no longer indexed.
    DocumentMissing,
}

impl Drift {
    /// Whether the quote no longer stands at its span (a citation of it cannot be checked).
    pub fn quote_gone(self) -> bool {
        matches!(self, Drift::QuoteChanged | Drift::DocumentMissing)
    }

    /// The snake-case name, as in `GET /v1/evidence/{key}`.
    pub fn name(self) -> &'static str {
        match self {
            Drift::Holds => "holds",
            Drift::DocumentChanged => "document_changed",
            Drift::QuoteChanged => "quote_changed",
            Drift::DocumentMissing => "document_missing",
        }
    }
}

/// What `store` holds today at `item`'s span.
fn drift(store: &Store, item: &EvidenceItem) -> Result<Drift, ServiceError> {
    let at = QuoteChecker::new(store).check(
        &item.doc_id,
        item.start,
        item.end,
        &item.quote,
        Some(&item.content_hash),
    )?;
    Ok(match at {
        QuoteAt::Holds => Drift::Holds,
        QuoteAt::DocumentChanged => Drift::DocumentChanged,
        QuoteAt::QuoteChanged => Drift::QuoteChanged,
        QuoteAt::DocumentMissing => Drift::DocumentMissing,
    })
}

/// An evidence item re-checked against today's index.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct EvidenceCheck {
    /// The key.
    pub evidence_key: String,
    /// What the index says at the item's span today.
    pub status: Drift,
    /// The item as served.
    #[schema(value_type = Object)]
    pub item: EvidenceItem,
}

impl Service {
    /// Document `doc_id` around `start..end` (the document's beginning without a span).
    pub fn document(
        &self,
        doc_id: &str,
        start: Option<usize>,
        end: Option<usize>,
    ) -> Result<Versioned<DocumentView>, ServiceError> {
        self.run(|e| view(e.store(), doc_id, start, end))
    }

    /// Up to [`MAX_LISTED`] documents of the index, in ingest order.
    pub fn documents(&self) -> Result<Versioned<Vec<DocumentSummary>>, ServiceError> {
        self.run(|e| {
            let docs = e.store().documents_page(0, MAX_LISTED)?;
            Ok(docs
                .into_iter()
                .map(|d| DocumentSummary {
                    doc_id: d.doc_id,
                    source: d.source,
                    title: d.title,
                })
                .collect())
        })
    }

    /// The whole stored text of document `doc_id`.
    pub fn document_text(&self, doc_id: &str) -> Result<Versioned<String>, ServiceError> {
        self.run(|e| {
            e.store().document_text(doc_id)?.ok_or_else(|| {
                ServiceError::NotFound(format!("no document {doc_id:?} in the index"))
            })
        })
    }

    /// Re-check the evidence item served under `key` against today's index.
    pub fn evidence(&self, key: &str) -> Result<Versioned<EvidenceCheck>, ServiceError> {
        let item = self.evidence.get(key).ok_or_else(|| {
            ServiceError::NotFound(format!(
                "evidence key {key:?} was not served by this server"
            ))
        })?;
        self.run(|e| {
            Ok(EvidenceCheck {
                evidence_key: key.to_string(),
                status: drift(e.store(), &item)?,
                item: item.clone(),
            })
        })
    }

    /// The served items of `items` whose quote no longer holds at its span in today's
    /// index (changed or removed), with their drift, read at one corpus version.
    pub fn stale(&self, items: &[EvidenceItem]) -> Result<Vec<(String, Drift)>, ServiceError> {
        if items.is_empty() {
            return Ok(Vec::new());
        }
        let r = self.run(|e| {
            let mut out = Vec::new();
            for item in items {
                let d = drift(e.store(), item)?;
                if d.quote_gone() {
                    out.push((item.evidence_key.clone(), d));
                }
            }
            Ok(out)
        })?;
        Ok(r.value)
    }

    /// The items served under `keys`; an unknown key is an error naming it.
    pub fn served(&self, keys: &[String]) -> Result<Vec<EvidenceItem>, ServiceError> {
        keys.iter()
            .map(|k| {
                self.evidence.get(k).ok_or_else(|| {
                    ServiceError::BadRequest(format!(
                        "evidence_ids: {k:?} was not served by this server"
                    ))
                })
            })
            .collect()
    }
}

/// The view of `doc_id` around `start..end`.
fn view(
    store: &Store,
    doc_id: &str,
    start: Option<usize>,
    end: Option<usize>,
) -> Result<DocumentView, ServiceError> {
    let doc = store
        .document_by_id(doc_id)?
        .ok_or_else(|| ServiceError::NotFound(format!("no document {doc_id:?} in the index")))?;
    let text = store
        .document_text(doc_id)?
        .ok_or_else(|| ServiceError::NotFound(format!("no document {doc_id:?} in the index")))?;
    let (start, end) = span(&text, start, end)?;
    let layout = store.document_layout(doc_id, &text)?;
    let from = floor_boundary(&text, start.saturating_sub(CONTEXT_BYTES));
    let to = ceil_boundary(&text, (end + CONTEXT_BYTES).min(text.len()));
    let utf16 = |a: usize, b: usize| text[a..b].encode_utf16().count();
    let file = layout.file_span(start, end);
    Ok(DocumentView {
        doc_id: doc.doc_id,
        source: doc.source,
        title: doc.title,
        length: text.len(),
        start,
        end,
        quote: text[start..end].to_string(),
        file_start: file.file_start,
        file_end: file.file_end,
        file_span_absent: file.file_span_absent.map(|w| w.as_str().to_string()),
        page: layout.page_of(start),
        section: layout.section_of(start).map(str::to_string),
        excerpt: text[from..to].to_string(),
        excerpt_start: from,
        excerpt_end: to,
        truncated_before: from > 0,
        truncated_after: to < text.len(),
        utf16_start: utf16(from, start),
        utf16_end: utf16(from, end),
    })
}

/// The span asked for, checked against `text`: in range, on character boundaries, not
/// longer than [`MAX_SPAN_BYTES`]; none is the empty span at the start.
fn span(
    text: &str,
    start: Option<usize>,
    end: Option<usize>,
) -> Result<(usize, usize), ServiceError> {
    let start = start.unwrap_or(0);
    let end = end.unwrap_or(start);
    let bad = |why: &str| {
        Err(ServiceError::BadRequest(format!(
            "span {start}..{end}: {why} (the document has {} bytes)",
            text.len()
        )))
    };
    if start > end || end > text.len() {
        return bad("out of range");
    }
    if !text.is_char_boundary(start) || !text.is_char_boundary(end) {
        return bad("not on character boundaries");
    }
    if end - start > MAX_SPAN_BYTES {
        return bad("longer than a view shows");
    }
    Ok((start, end))
}

fn floor_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn ceil_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

/// The ids of the documents whose source or path is one of `scope` or under it. Each
/// entry is read as `attest ask --scope` reads a path, without touching the file system:
/// `.` and `..` resolved lexically, a relative path taken from the server's working
/// directory (and also matched as written against the paths shown, which are relative
/// to the ingest's working directory); `/` is everything.
pub fn ids_under(store: &Store, scope: &[String]) -> Result<HashSet<String>, ServiceError> {
    let roots = roots_of(scope);
    let under = |p: &str| roots.iter().any(|r| path_under(p, r));
    let mut ids = HashSet::new();
    let mut after = 0;
    loop {
        let page = store.documents_page(after, 1000)?;
        let Some(last) = page.last() else { break };
        after = last.id;
        for d in page {
            if under(&d.source) || under(&d.path) {
                ids.insert(d.doc_id);
            }
        }
    }
    if ids.is_empty() {
        let asked: Vec<&str> = scope.iter().map(|s| s.trim()).collect();
        return Err(ServiceError::BadRequest(format!(
            "scope: no indexed document under {}",
            asked.join(", ")
        )));
    }
    Ok(ids)
}

/// The paths `scope` names (see [`ids_under`]).
fn roots_of(scope: &[String]) -> Vec<String> {
    let cwd = std::env::current_dir()
        .ok()
        .map(|c| c.canonicalize().unwrap_or(c));
    let mut roots = Vec::new();
    for s in scope.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
        let p = Path::new(s);
        let written = lexical(p);
        if !written.is_empty() {
            roots.push(written);
        }
        if let (true, Some(c)) = (p.is_relative(), &cwd) {
            roots.push(lexical(&c.join(p)));
        }
    }
    roots
}

/// `p` with `.`, `..` and repeated separators resolved as text (`..` at the root stays
/// at the root); `/` for the root.
fn lexical(p: &Path) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut absolute = false;
    for c in p.components() {
        match c {
            Component::RootDir => absolute = true,
            Component::CurDir | Component::Prefix(_) => {}
            Component::ParentDir => {
                if parts.last().is_some_and(|l| l != "..") {
                    parts.pop();
                } else if !absolute {
                    parts.push("..".into());
                }
            }
            Component::Normal(x) => parts.push(x.to_string_lossy().into_owned()),
        }
    }
    let joined = parts.join("/");
    if absolute {
        format!("/{joined}")
    } else {
        joined
    }
}

/// Whether `path` is `root` or under it, by whole components.
fn path_under(path: &str, root: &str) -> bool {
    if root == "/" {
        return path.starts_with('/');
    }
    path == root || path.strip_prefix(root).is_some_and(|r| r.starts_with('/'))
}

#[cfg(test)]
mod scope_tests {
    use super::*;

    #[test]
    fn scopes_are_read_like_cli_paths() {
        let l = |s: &str| lexical(Path::new(s));
        assert_eq!(l("./c1"), "c1");
        assert_eq!(l("c1/"), "c1");
        assert_eq!(l("/"), "/");
        assert_eq!(l("/a/./b/../c//d/"), "/a/c/d");
        assert_eq!(l("/.."), "/");
        assert_eq!(l("../x"), "../x");
        assert!(path_under("/a/b", "/"));
        assert!(path_under("/a/b", "/a"));
        assert!(!path_under("/ab", "/a"));
        assert!(!path_under("c1x/d.md", "c1"));
        let cwd = std::env::current_dir().unwrap().canonicalize().unwrap();
        let roots = roots_of(&["./c1".into()]);
        assert_eq!(roots, ["c1".to_string(), lexical(&cwd.join("c1"))]);
    }
}
