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

use super::documents::OPENING_BYTES;

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
        if let Some((s, e)) = head_date(&text) {
            out.extend(super::scan::item_at(engine, doc, s, e)?);
        }
    }
    Ok(out)
}

/// The span of the first line of `text`'s opening that is one full date, alone.
fn head_date(text: &str) -> Option<(usize, usize)> {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        if at >= OPENING_BYTES {
            break;
        }
        let lead = line.len() - line.trim_start().len();
        let body = line.trim();
        let whole = fields::values::dates(body, None)
            .into_iter()
            .any(|c| c.start == 0 && c.end == body.len() && c.value.is_ok());
        if whole {
            return Some((at + lead, at + lead + body.len()));
        }
        at += line.len();
    }
    None
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_head_date_is_a_full_date_alone_on_an_opening_line() {
        let text = "Framework for Improving\n\nVersion 1.1\n\nApril 16, 2018\n\nNote: issued in February 2014.\n";
        let (s, e) = head_date(text).unwrap();
        assert_eq!(&text[s..e], "April 16, 2018");
        // A month and year, a year alone, or a date inside a sentence is no head date.
        assert!(head_date("June 2023\n\n2025\n\nIssued on August 3, 2020.\n").is_none());
        // Past the opening nothing is read.
        let far = format!("{}\nApril 16, 2018\n", "x".repeat(OPENING_BYTES + 10));
        assert!(head_date(&far).is_none());
    }
}
