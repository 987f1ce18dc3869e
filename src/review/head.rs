//! A document's head: a full date standing alone on a line of a document's opening (a
//! cover's "April 16, 2018") is the date the document was issued. A field that asks when
//! a document was published, issued or released reads it there, from the documents whose
//! title names most of what the requirement names; no other date of the document is
//! read this way.

use crate::answer::EvidenceItem;
use crate::engine::Engine;
use crate::error::Error;

use super::checklist::Requirement;
use super::fields::{self, DateOrder, Extracted, FieldSpec, FieldType};

use crate::profile::{Profile, OPENING_BYTES};

/// Share of the requirement's named words a document's title must name.
const TITLE_SHARE: f64 = 0.5;

/// Field-name words that ask for a document's date of issue.
const ISSUE_WORDS: &[&str] = &[
    "publication",
    "published",
    "issue",
    "issued",
    "release",
    "released",
    "edition",
];

/// Whether `spec` asks when a document was issued (`framework_publication_date`).
pub fn asks_issue(spec: &FieldSpec) -> bool {
    spec.ty == FieldType::Date && spec.name.split('_').any(|w| ISSUE_WORDS.contains(&w))
}

/// The head lines of the documents among `evidence` that `req` names best (title share of
/// its named words, at least [`TITLE_SHARE`]), when one of its fields asks for a date of
/// issue: the first line of each opening that is one full date.
pub fn items(
    engine: &Engine,
    req: &Requirement,
    evidence: &[EvidenceItem],
) -> Result<Vec<EvidenceItem>, Error> {
    if !req.fields.iter().any(asks_issue) {
        return Ok(Vec::new());
    }
    let things = super::subject::thing_words(&req.text);
    if things.is_empty() {
        return Ok(Vec::new());
    }
    let mut docs: Vec<(&str, f64)> = Vec::new();
    for e in evidence {
        if docs.iter().any(|(d, _)| *d == e.doc_id) {
            continue;
        }
        let file = e.source.rsplit(['/', '\\']).next().unwrap_or(&e.source);
        let title = format!("{} {file}", e.title).to_lowercase();
        let named = things
            .iter()
            .filter(|w| super::fields::names_word(&title, w))
            .count();
        docs.push((&e.doc_id, named as f64 / things.len() as f64));
    }
    let best = docs.iter().map(|(_, s)| *s).fold(0.0_f64, f64::max);
    let mut out = Vec::new();
    for (doc, _) in docs
        .into_iter()
        .filter(|(_, s)| *s >= TITLE_SHARE && *s >= best)
    {
        let Some(text) = engine.store().document_text(doc)? else {
            continue;
        };
        let stored = engine.store().profile_json_of(doc)?;
        let (title, source) = evidence
            .iter()
            .find(|e| e.doc_id == doc)
            .map_or(("", ""), |e| (e.title.as_str(), e.source.as_str()));
        let profile = Profile::stored(stored.as_deref().unwrap_or(""), title, source, &text);
        if let Some((s, e)) = profile.issued {
            out.extend(super::scan::item_at(engine, doc, s, e)?);
        }
    }
    Ok(out)
}

/// The date of issue `spec` takes from `item` when the item is such a head line.
pub fn dated(spec: &FieldSpec, item: &EvidenceItem, order: Option<DateOrder>) -> Option<Extracted> {
    if !asks_issue(spec) || item.start >= OPENING_BYTES {
        return None;
    }
    let c = fields::values::dates(&item.quote, order)
        .into_iter()
        .find(|c| c.start == 0 && c.end == item.quote.len())?;
    let value = c.value.ok()?;
    Some(Extracted {
        start: 0,
        end: item.quote.len(),
        raw: item.quote.clone(),
        value,
        unit: None,
    })
}
