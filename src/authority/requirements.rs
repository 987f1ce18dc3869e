//! Requirements as items: the obligations the selected sources impose, one item per
//! requirement sentence (must, must not, shall, shall not, may not, is required to, is
//! prohibited), quoted whole — a lead-in and its list items together when they fit one
//! provision (`evidence::provision::in_list`) — with the document, section, finest
//! provision, span and a confidence. Ids: `REQ-S001…` for statutes and regulations,
//! `REQ-P001…` for policy and guidance, `REQ-O001…` for contracts, forms, reports and
//! other sources; FAQs and summaries impose nothing and are left out.
//!
//! Not requirements: text that does not bind (`source::binding`), headings and contents
//! lines, questions, definitions ("shall mean"), and provisions about the act itself
//! ("shall apply from", "shall enter into force", "may be cited as"), and fragments that
//! open in lower case (a definition's point, read apart from its list).
//!
//! Confidence, a fixed scale: 0.95 a modal verb (must, shall, may not) after a subject;
//! 0.9 "is required to" / "is prohibited from"; 0.8 "is required" / "is prohibited"
//! alone; 0.6 for a quote the extraction marked incomplete.

use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

use super::{Catalog, DocSource, Filter};
use crate::corpus::segment::{sentences, Span};
use crate::engine::Engine;
use crate::error::Error;
use crate::evidence::provision::{
    in_list, is_contents_entry, is_heading_or_rule, strip_marker, ListQuote,
};
use crate::source::binding::{non_binding, part_at};
use crate::source::SourceType;

/// The obligation a requirement states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Modality {
    /// must, shall, is required to.
    Must,
    /// must not, shall not, may not, is prohibited.
    MustNot,
}

/// One requirement.
#[derive(Debug, Clone, Serialize)]
pub struct Requirement {
    /// `REQ-S001`, `REQ-P001`, `REQ-O001`.
    pub id: String,
    /// Document id.
    pub doc_id: String,
    /// Path shown.
    pub source: String,
    /// Document title.
    pub title: String,
    /// The kind of source.
    pub source_type: SourceType,
    /// The section it stands in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    /// The finest provision ("§ 5897(a)", "Article 1(2)(a)").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provision: Option<String>,
    /// The requirement, verbatim.
    pub quote: String,
    /// Start byte in the stored text.
    pub start: usize,
    /// End byte.
    pub end: usize,
    /// 1-based line.
    pub line: usize,
    /// 1-based page, for paged sources.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<usize>,
    /// Obligation or prohibition.
    pub modality: Modality,
    /// Extraction confidence (see the module documentation).
    pub confidence: f64,
}

static MODAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(must not|must|shall not|shall|may not|(?:is|are|be|been) required to|(?:is|are|be|been) prohibited from|(?:is|are|be|been) (?:required|prohibited))\b")
        .expect("static pattern")
});
static NOT_AN_OBLIGATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:shall|must) (?:mean|have the meaning|include|apply from|apply as from|enter into force|be cited as|be known as|not prevent|be binding in its entirety)\b|\bmay be cited as\b|\bdefinitions shall apply\b")
        .expect("static pattern")
});

/// The modality and confidence of a sentence, when it states a requirement.
pub fn requirement_in(s: &str) -> Option<(Modality, f64)> {
    let t = s.trim();
    let fragment = t.chars().next().is_some_and(|c| c.is_lowercase());
    if fragment
        || t.ends_with('?')
        || NOT_AN_OBLIGATION.is_match(t)
        || is_heading_or_rule(t)
        || is_contents_entry(t)
    {
        return None;
    }
    let m = MODAL.find(t)?;
    let word = m.as_str().to_lowercase();
    let negative = word.contains("not") || word.contains("prohibited");
    let modality = if negative {
        Modality::MustNot
    } else {
        Modality::Must
    };
    let subject = t[..m.start()].split_whitespace().count() >= 1;
    let confidence = match () {
        _ if word.ends_with(" to") || word.ends_with(" from") => 0.9,
        _ if word.contains("required") || word.contains("prohibited") => 0.8,
        _ if subject => 0.95,
        _ => 0.8,
    };
    Some((modality, confidence))
}

/// The requirements of one document, in text order (ids not yet assigned).
fn of_document(engine: &Engine, d: &DocSource) -> Result<Vec<Requirement>, Error> {
    let Some(text) = engine.store().document_text(&d.doc_id)? else {
        return Ok(Vec::new());
    };
    let layout = engine
        .store()
        .document_layout(&d.doc_id, &text)
        .unwrap_or_default();
    let heads: Vec<(usize, u8, String)> = layout
        .headings
        .iter()
        .map(|h| (h.start, h.level, h.title.clone()))
        .collect();
    let parts = non_binding(&text, &heads);
    let mut out: Vec<Requirement> = Vec::new();
    let mut covered = 0usize;
    for raw in sentences(&text) {
        let stripped = strip_marker(&text, raw);
        if stripped.start < covered || part_at(&parts, stripped.start, stripped.end).is_some() {
            continue;
        }
        let Some((modality, mut confidence)) = requirement_in(stripped.slice(&text)) else {
            continue;
        };
        let listed = in_list(&text, raw);
        let span = match listed.as_ref().and_then(|q| q.first()) {
            Some((s, ListQuote::Whole | ListQuote::FromLeadIn)) if s.start <= stripped.start => *s,
            Some((s, ListQuote::Incomplete(_))) => {
                confidence = 0.6;
                *s
            }
            // A lead-in whose list is too long to quote whole: its items are read one
            // by one, and the lead-in alone is no requirement.
            None if listed.is_some() => continue,
            _ => stripped,
        };
        covered = span.end;
        out.push(item(d, &text, &layout, span, modality, confidence));
    }
    Ok(out)
}

fn item(
    d: &DocSource,
    text: &str,
    layout: &crate::corpus::layout::Layout,
    span: Span,
    modality: Modality,
    confidence: f64,
) -> Requirement {
    Requirement {
        id: String::new(),
        doc_id: d.doc_id.clone(),
        source: d.source.clone(),
        title: d.title.clone(),
        source_type: d.source_type.value,
        section: layout.section_of(span.start).map(str::to_string),
        provision: super::label::provision_at(text, layout, span.start),
        quote: span.slice(text).to_string(),
        start: span.start,
        end: span.end,
        line: text[..span.start].matches('\n').count() + 1,
        page: layout.page_of(span.start),
        modality,
        confidence,
    }
}

/// The id letter of a source type: `S` law, `P` policy and guidance, `O` the rest; `None`
/// for FAQs (they impose nothing).
fn letter(t: SourceType) -> Option<char> {
    match t {
        SourceType::Statute | SourceType::Regulation => Some('S'),
        SourceType::Policy | SourceType::Guidance => Some('P'),
        SourceType::Faq => None,
        _ => Some('O'),
    }
}

/// The requirements of the sources `filter` selects: statutes and regulations first, then
/// policy and guidance, then the rest, each group in catalog order, numbered per group.
pub fn requirements(engine: &Engine, filter: &Filter) -> Result<Vec<Requirement>, Error> {
    let catalog = Catalog::load(engine)?;
    let selected = filter.select(&catalog);
    let mut out = Vec::new();
    for group in ['S', 'P', 'O'] {
        let mut n = 0;
        for d in &catalog.documents {
            if letter(d.source_type.value) != Some(group) || !selected.doc_ids.contains(&d.doc_id) {
                continue;
            }
            for mut r in of_document(engine, d)? {
                n += 1;
                r.id = format!("REQ-{group}{n:03}");
                out.push(r);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn obligations_and_prohibitions_are_requirements_and_definitions_are_not() {
        let r = |s: &str| requirement_in(s).map(|x| x.0);
        assert_eq!(
            r("A county program shall retain each client record for 7 years."),
            Some(Modality::Must)
        );
        assert_eq!(
            r("Staff may not disclose records."),
            Some(Modality::MustNot)
        );
        assert_eq!(
            r("Providers are prohibited from charging fees."),
            Some(Modality::MustNot)
        );
        assert_eq!(
            r("Written consent is required before any disclosure."),
            Some(Modality::Must)
        );
        assert_eq!(r("'Record' shall mean any file."), None);
        assert_eq!(r("This Regulation shall apply from 1 January 2014."), None);
        assert_eq!(
            r("This Regulation shall enter into force on the twentieth day."),
            None
        );
        assert_eq!(r("Must I pay for services?"), None);
        assert_eq!(r("The county keeps records for seven years."), None);
        assert_eq!(r("firms which for that reason may not hold money;"), None);
        assert_eq!(
            r("For the purposes of this Regulation, the following definitions shall apply:"),
            None
        );
        let (_, c) = requirement_in("Each vault shall be inspected.").unwrap();
        assert!(c > 0.9);
    }
}
