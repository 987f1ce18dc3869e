//! The one check that a quote still holds at its span: the document is read back from the
//! store (its content hash checked by [`Store::document_text`]) and its bytes
//! `start..end` must be the quote, byte for byte. Used by verify, the QA memory, the
//! audit replay and the evaluations.

use std::collections::HashMap;

use super::{Store, StoreError};

/// What a stored document says at a quote's span.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuoteAt {
    /// The bytes at the span are the quote, and the document hashes to `expected_hash`
    /// (when one was given).
    Holds,
    /// The bytes at the span are the quote but the document's content hash differs from
    /// the expected one: the document changed elsewhere.
    DocumentChanged,
    /// The bytes at the span are not the quote (or the span is out of range or not on
    /// character boundaries).
    QuoteChanged,
    /// The document is no longer in the index.
    DocumentMissing,
}

impl QuoteAt {
    /// Whether the quote stands at its span (the document may have changed elsewhere).
    pub fn stands(self) -> bool {
        matches!(self, QuoteAt::Holds | QuoteAt::DocumentChanged)
    }
}

/// Checks quotes against the store, reading (and hashing) each document once.
pub struct QuoteChecker<'s> {
    store: &'s Store,
    docs: HashMap<String, Option<(String, String)>>,
}

impl<'s> QuoteChecker<'s> {
    /// A checker over `store`.
    pub fn new(store: &'s Store) -> Self {
        QuoteChecker {
            store,
            docs: HashMap::new(),
        }
    }

    /// The document's text and sha256, read once.
    fn document(&mut self, doc_id: &str) -> Result<Option<&(String, String)>, StoreError> {
        if !self.docs.contains_key(doc_id) {
            let entry = self.store.document_text(doc_id)?.map(|t| {
                let h = crate::store::sha256_hex(t.as_bytes());
                (t, h)
            });
            self.docs.insert(doc_id.to_string(), entry);
        }
        Ok(self.docs[doc_id].as_ref())
    }

    /// What document `doc_id` holds at `start..end` compared with `quote`; when
    /// `expected_hash` is given, a document whose content hash differs is
    /// [`QuoteAt::DocumentChanged`] even though the quote stands.
    pub fn check(
        &mut self,
        doc_id: &str,
        start: usize,
        end: usize,
        quote: &str,
        expected_hash: Option<&str>,
    ) -> Result<QuoteAt, StoreError> {
        let Some((text, hash)) = self.document(doc_id)? else {
            return Ok(QuoteAt::DocumentMissing);
        };
        Ok(if text.get(start..end) != Some(quote) {
            QuoteAt::QuoteChanged
        } else if expected_hash.is_some_and(|h| h != hash) {
            QuoteAt::DocumentChanged
        } else {
            QuoteAt::Holds
        })
    }

    /// The document's text, when it is in the index.
    pub fn text(&mut self, doc_id: &str) -> Result<Option<&str>, StoreError> {
        Ok(self.document(doc_id)?.map(|(t, _)| t.as_str()))
    }
}

impl Store {
    /// Whether document `doc_id` holds `quote` at `start..end` (see [`QuoteChecker`] to
    /// check many quotes).
    pub fn quote_at(
        &self,
        doc_id: &str,
        start: usize,
        end: usize,
        quote: &str,
    ) -> Result<QuoteAt, StoreError> {
        QuoteChecker::new(self).check(doc_id, start, end, quote, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quote_holds_changes_or_its_document_is_missing() {
        let tmp = tempfile::tempdir().unwrap();
        let e = crate::engine::sample_engine(tmp.path());
        let store = e.store();
        let hit = store
            .lexical_search(
                &crate::store::LexQuery {
                    terms: vec!["retained".into()],
                },
                1,
            )
            .unwrap();
        let c = store.chunks_by_ids(&[hit[0].0]).unwrap().remove(0);
        let text = store.document_text(&c.doc_id).unwrap().unwrap();
        let start = c.span.start;
        let q = &text[start..start + 10];
        let mut k = QuoteChecker::new(store);
        let hash = crate::store::sha256_hex(text.as_bytes());
        assert_eq!(
            k.check(&c.doc_id, start, start + 10, q, Some(&hash))
                .unwrap(),
            QuoteAt::Holds
        );
        assert_eq!(
            k.check(&c.doc_id, start, start + 10, q, Some("00"))
                .unwrap(),
            QuoteAt::DocumentChanged
        );
        assert!(QuoteAt::DocumentChanged.stands());
        assert_eq!(
            k.check(&c.doc_id, start + 1, start + 11, q, None).unwrap(),
            QuoteAt::QuoteChanged
        );
        assert_eq!(
            k.check(&c.doc_id, text.len(), text.len() + 5, q, None)
                .unwrap(),
            QuoteAt::QuoteChanged
        );
        assert_eq!(
            store.quote_at("no-such-doc", 0, 1, "x").unwrap(),
            QuoteAt::DocumentMissing
        );
        assert!(!QuoteAt::QuoteChanged.stands());
    }
}
