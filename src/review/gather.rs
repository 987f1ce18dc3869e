//! Research per requirement: the requirement text (with its accepted evidence), then one
//! question per field it asks for, each run through `ask`'s retrieve → extract → verify
//! over the scoped index; every verified candidate (not only the ones an answer would
//! cite) is kept, best first, and numbered once for the whole review. Then the typed
//! fields of each verified quote ([`super::fields::extract`]), with spans moved from the
//! quote to the document.

use std::collections::{BTreeMap, HashMap};

use crate::answer::EvidenceItem;
use crate::ask::{ask, item_of};
use crate::engine::Engine;
use crate::error::Error;
use crate::evidence::verify::{Reason, Verdict};

use super::checklist::{field_question, Requirement};
use super::fields::{self, DateOrder, Extraction, FieldSpec, FieldType};
use super::{DocumentInfo, FieldValue, RejectedValue, ReviewOptions};
use crate::profile::Profile;

/// Words of a research query at most (longer requirement texts are cut at a word).
const MAX_QUERY_WORDS: usize = 120;

/// The research state of one review: evidence ids, documents seen, stage timings.
pub struct Gatherer<'a> {
    engine: &'a Engine,
    opts: &'a ReviewOptions,
    ids: HashMap<String, String>,
    docs: BTreeMap<String, (DocumentInfo, String)>,
    stages: BTreeMap<String, f64>,
}

impl<'a> Gatherer<'a> {
    /// A gatherer over `engine`'s index.
    pub fn new(engine: &'a Engine, opts: &'a ReviewOptions) -> Self {
        Gatherer {
            engine,
            opts,
            ids: HashMap::new(),
            docs: BTreeMap::new(),
            stages: BTreeMap::new(),
        }
    }

    /// The research queries of `req`: its text (with accepted evidence), then one
    /// question per distinct field question.
    pub fn queries(req: &Requirement) -> Vec<String> {
        let mut first = req.text.clone();
        if let Some(a) = &req.accepted_evidence {
            first = format!("{first} {a}");
        }
        let first: String = first
            .split_whitespace()
            .take(MAX_QUERY_WORDS)
            .collect::<Vec<_>>()
            .join(" ");
        let mut qs = vec![first];
        for f in &req.fields {
            let q = field_question(f);
            if !qs.contains(&q) {
                qs.push(q);
            }
        }
        qs
    }

    /// Verified evidence for `req`, best first, with review-wide ids. Documents whose
    /// title or path names one of the requirement's document hints come first.
    pub fn gather(&mut self, req: &Requirement) -> Result<Vec<EvidenceItem>, Error> {
        let mut items: Vec<EvidenceItem> = Vec::new();
        for q in Self::queries(req) {
            self.opts.cancel.check()?;
            let run = ask(self.engine, &q, &self.opts.ask)?;
            for (stage, v) in &run.answer.metrics.timings_ms {
                if matches!(stage.as_str(), "retrieve" | "extract" | "verify") {
                    *self.stages.entry(stage.clone()).or_default() += v;
                }
            }
            let mut kept: Vec<(EvidenceItem, f64)> = run
                .candidates
                .iter()
                .filter(|c| c.same_quote_as.is_none())
                .filter_map(|c| {
                    let item = item_of(&c.id, &c.verdict, Vec::new());
                    let weight = accept(req, &c.verdict, &item)?;
                    Some((item, weight))
                })
                .collect();
            kept.sort_by(|a, b| b.1.total_cmp(&a.1));
            for (item, _) in kept.into_iter().take(self.opts.per_query.max(1)) {
                if !items.iter().any(|i| i.evidence_key == item.evidence_key) {
                    items.push(item);
                }
            }
        }
        if !req.fields.is_empty() {
            self.opts.cancel.check()?;
            let scope = self.opts.ask.scope.clone();
            let in_scope = |d: &str| scope.as_ref().is_none_or(|s| s.contains(d));
            for item in super::scan::scan(self.engine, req, &in_scope)? {
                let overlaps = items
                    .iter()
                    .any(|i| i.doc_id == item.doc_id && i.start < item.end && item.start < i.end);
                if !overlaps {
                    items.push(item);
                }
            }
        }
        for item in super::head::items(self.engine, req, &items)? {
            if !items.iter().any(|i| i.evidence_key == item.evidence_key) {
                items.push(item);
            }
        }
        let hinted = |e: &EvidenceItem| {
            req.documents.iter().any(|h| {
                let h = h.to_lowercase();
                e.title.to_lowercase().contains(&h) || e.source.to_lowercase().contains(&h)
            })
        };
        items.sort_by(|a, b| hinted(b).cmp(&hinted(a)).then(b.score.total_cmp(&a.score)));
        for item in &mut items {
            item.id = self.id_of(&item.evidence_key);
            item.step = 1;
        }
        Ok(items)
    }

    fn id_of(&mut self, key: &str) -> String {
        let next = format!("E{}", self.ids.len() + 1);
        self.ids.entry(key.to_string()).or_insert(next).clone()
    }

    /// The date order for document `doc_id`: the review's, else the one its unambiguous
    /// dates show, else none.
    fn order_of(&mut self, item: &EvidenceItem) -> Result<Option<DateOrder>, Error> {
        if !self.docs.contains_key(&item.doc_id) {
            let text = self
                .engine
                .store()
                .document_text(&item.doc_id)?
                .unwrap_or_default();
            let stored = self.engine.store().profile_json_of(&item.doc_id)?;
            let profile = Profile::stored(
                stored.as_deref().unwrap_or(""),
                &item.title,
                &item.source,
                &text,
            );
            let info = DocumentInfo {
                doc_id: item.doc_id.clone(),
                source: item.source.clone(),
                title: item.title.clone(),
                date_order: self.opts.date_order.or(profile.date_order),
                role: profile.role,
                version: profile.version,
                superseded_by: None,
                register: profile.register,
            };
            self.docs.insert(item.doc_id.clone(), (info, text));
        }
        Ok(self.docs[&item.doc_id].0.date_order)
    }

    /// Typed field values (and rejected candidates) of `req`'s fields in `evidence`.
    /// A value's span is checked against the stored document before it is kept.
    pub fn fields(
        &mut self,
        req: &Requirement,
        evidence: &[EvidenceItem],
    ) -> Result<(Vec<FieldValue>, Vec<RejectedValue>), Error> {
        let mut found: Vec<FieldValue> = Vec::new();
        let mut rejected = Vec::new();
        for item in evidence {
            let order = self.order_of(item)?;
            for spec in &req.fields {
                let mut x = extract_in_context(spec, item, order);
                if x.found.is_empty() {
                    x.found.extend(super::head::dated(spec, item, order));
                }
                for v in x.found {
                    let value = FieldValue::in_item(spec, item, (v.start, v.end), &v.value, v.unit);
                    if !self.verbatim(&value) || found.iter().any(|f| same(f, &value)) {
                        continue;
                    }
                    match self.register_part(&value) {
                        Some(why) if spec.ty == FieldType::Name => {
                            rejected.push(aside(&value, why));
                        }
                        _ => found.push(value),
                    }
                }
                rejected.extend(x.rejected.into_iter().map(|r| RejectedValue {
                    name: spec.name.clone(),
                    raw: r.raw,
                    reason: r.reason,
                    note: r.note,
                    evidence: item.id.clone(),
                    start: item.start + r.start,
                    end: item.start + r.end,
                    source: item.source.clone(),
                }));
            }
        }
        Ok((found, rejected))
    }

    /// Why a name at `v` in a land register is no owner: it stands in the charges
    /// register (a lender holding a charge, "Proprietor: … BANK PLC"), the last register
    /// heading before it.
    fn register_part(&self, v: &FieldValue) -> Option<String> {
        let (_, text) = self.docs.get(&v.doc_id)?;
        // The last register heading line before the value ("C: Charges Register"); a
        // mention in an entry ("referred to in the Property Register") is no heading.
        let last = text.get(..v.start)?.lines().rev().find_map(|l| {
            let l = l.trim().to_lowercase();
            let l = l
                .split_once(':')
                .filter(|(p, _)| p.len() <= 2)
                .map_or(l.as_str(), |(_, r)| r.trim());
            [
                "charges register",
                "proprietorship register",
                "property register",
            ]
            .into_iter()
            .find(|h| l == *h)
        })?;
        (last == "charges register").then(|| {
            "stands in the charges register: the proprietor of a charge, not of the land".into()
        })
    }

    /// The date order of document `doc_id` once [`Gatherer::fields`] has read it.
    pub fn order_cached(&self, doc_id: &str) -> Option<DateOrder> {
        self.docs.get(doc_id).and_then(|(d, _)| d.date_order)
    }

    /// The stored text of document `doc_id`, when it supplied evidence.
    pub fn text_of(&self, doc_id: &str) -> Option<String> {
        self.docs.get(doc_id).map(|(_, t)| t.clone())
    }

    /// Whether the document's stored text holds `v.raw` at `[v.start, v.end)`.
    pub fn holds(&self, v: &FieldValue) -> bool {
        self.verbatim(v)
    }

    /// Whether the document's stored text holds `v.raw` at `[v.start, v.end)`.
    fn verbatim(&self, v: &FieldValue) -> bool {
        self.docs
            .get(&v.doc_id)
            .and_then(|(_, text)| text.get(v.start..v.end))
            .is_some_and(|t| t == v.raw)
    }

    /// The version of document `doc_id` as versions of one document compare.
    pub fn version_key(&self, doc_id: &str) -> Option<crate::profile::Version> {
        let (info, _) = self.docs.get(doc_id)?;
        info.version.as_ref().map(|v| v.key.clone())
    }

    /// Documents that supplied evidence, by source, each with the later version of it
    /// the review also read.
    pub fn documents(&self) -> Vec<DocumentInfo> {
        let mut d: Vec<DocumentInfo> = self.docs.values().map(|(i, _)| i.clone()).collect();
        d.sort_by(|a, b| a.source.cmp(&b.source));
        let keys: Vec<Option<crate::profile::Version>> = d
            .iter()
            .map(|i| i.version.as_ref().map(|v| v.key.clone()))
            .collect();
        for i in 0..d.len() {
            let Some(k) = &keys[i] else { continue };
            let later = (0..d.len())
                .filter(|&j| {
                    keys[j]
                        .as_ref()
                        .is_some_and(|o| o.document == k.document && o.rank > k.rank)
                })
                .max_by(|&a, &b| {
                    keys[a]
                        .as_ref()
                        .map(|v| &v.rank)
                        .cmp(&keys[b].as_ref().map(|v| &v.rank))
                });
            d[i].superseded_by = later.map(|j| d[j].source.clone());
        }
        d
    }

    /// Milliseconds of the research stages summed over every query.
    pub fn stage_ms(&self) -> BTreeMap<String, f64> {
        self.stages
            .iter()
            .map(|(k, v)| (k.clone(), (v * 100.0).round() / 100.0))
            .collect()
    }
}

/// The values of `spec` in `item`'s quote, read under its label, else under its section.
fn extract_in_context(
    spec: &FieldSpec,
    item: &EvidenceItem,
    order: Option<DateOrder>,
) -> Extraction {
    let x = fields::extract(spec, &item.quote, item.label.as_deref(), order);
    match &item.section {
        Some(section) if x.found.is_empty() && item.label.as_deref() != Some(section) => {
            let y = fields::extract(spec, &item.quote, Some(section), order);
            if y.found.is_empty() {
                x
            } else {
                y
            }
        }
        _ => x,
    }
}

/// Words a quote needs to be evidence on its own (a shorter one must state a field value).
const MIN_EVIDENCE_WORDS: usize = 3;

/// Whether a candidate of the research is evidence for `req`, with its ranking weight.
/// Verbatim and complete is required, and text the injection guard flags is never
/// evidence. Then: what `ask` verified; or what states a value of
/// one of the requirement's fields under that field's cue or label (the cue is the
/// relevance); or what sits in a section whose title names the requirement's category
/// ("Stakeholder Consultation" under `5 Stakeholder Consultation`). A fragment of fewer
/// than three words counts only when it states a value.
fn accept(req: &Requirement, v: &Verdict, item: &EvidenceItem) -> Option<f64> {
    let reason = v.rejected.as_ref().map(|r| r.reason);
    if matches!(reason, Some(Reason::NotVerbatim | Reason::IncompleteQuote)) {
        return None;
    }
    if crate::guard::screen(&item.quote).is_some() {
        return None; // instruction-like text in a document is data, never evidence
    }
    if crate::evidence::provision::is_contents_entry(&item.quote) {
        return None; // a table of contents names a section; it shows nothing
    }
    let states = req.fields.iter().any(|f| {
        let x = extract_in_context(f, item, Some(fields::DateOrder::Dmy));
        !x.found.is_empty() || !x.rejected.is_empty()
    });
    let words = crate::text::word_count(&item.quote);
    if words < MIN_EVIDENCE_WORDS && !states {
        return None;
    }
    let score = v.relevance.score;
    if reason.is_none() {
        return Some(score + 1.0);
    }
    if states {
        return Some(score + 0.5);
    }
    section_names(item.section.as_deref(), &req.category).then_some(score)
}

/// Whether the section path's last heading holds every content word of `category`.
fn section_names(section: Option<&str>, category: &str) -> bool {
    let want = crate::text::content_words(category);
    let Some(section) = section else { return false };
    let last = section.rsplit(" > ").next().unwrap_or(section);
    let have = crate::text::content_words(last);
    !want.is_empty() && want.iter().all(|w| have.contains(w))
}

/// The same value of the same field stated by the same document.
fn same(a: &FieldValue, b: &FieldValue) -> bool {
    a.name == b.name && a.doc_id == b.doc_id && a.value == b.value
}

/// A value set aside with `note`, as another subject's.
fn aside(v: &FieldValue, note: String) -> RejectedValue {
    RejectedValue {
        name: v.name.clone(),
        raw: v.raw.clone(),
        reason: super::fields::RejectReason::OtherSubject,
        note,
        evidence: v.evidence.clone(),
        start: v.start,
        end: v.end,
        source: v.source.clone(),
    }
}
