//! Requirements as items: the obligations the selected sources impose, one item per
//! requirement sentence (must, must not, shall, shall not, may not, is required to, is
//! prohibited; a bare "is required" is most often a reference, "on which testimony is
//! required", and is not read), quoted whole — a lead-in and its list items together when they fit one
//! provision (`evidence::provision::in_list`) — with the document, section, finest
//! provision, span and a confidence. Ids: `REQ-S001…` for statutes and regulations,
//! `REQ-P001…` for policy and guidance, `REQ-O001…` for contracts, forms, reports and
//! other sources; FAQs and summaries impose nothing and are left out.
//!
//! Not requirements: text that does not bind (`source::binding`), headings and contents
//! lines, questions, definitions ("shall mean"), and provisions about the act itself
//! ("shall apply from", "shall enter into force", "may be cited as"), rules of
//! construction ("Nothing in this section shall …"), and fragments that
//! open in lower case (a definition's point, read apart from its list).
//!
//! Only whole provisions are listed: a lead-in left open ("…:", "…--", "as follows."), a
//! list item cut from its list ("…; or", "Must refrain …" without its subject), a
//! provision too long to quote whole, and a quote with unbalanced quotation marks are
//! left out; so are rules of construction and deemings ("shall be construed", "shall be
//! treated as") and "required by law" (a reference, not an obligation).
//!
//! Confidence, a fixed scale: 0.95 a modal verb (must, shall, may not) after a subject;
//! 0.9 "is required to" / "is prohibited from"; 0.8 "is required" / "is prohibited"
//! alone.

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
use crate::source::binding::part_at;
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
    Regex::new(r"(?i)\b(must not|must|shall not|shall|may not|(?:is|are|be|been) required to|(?:is|are|be|been) prohibited from|(?:is|are|be|been) prohibited)\b")
        .expect("static pattern")
});
static NOT_AN_OBLIGATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:shall|must) (?:mean|have the meaning|include|apply from|apply as from|enter into force|be cited as|be known as|not prevent|be binding in its entirety)\b|\bmay be cited as\b|\bdefinitions shall apply\b|\bdoes not apply to\b|\bdo not apply to\b|\bmay or may not\b|^\S+(?: \S+){0,5} means\b|^Nothing\b")
        .expect("static pattern")
});

/// Words after a modal that make it no obligation: a rule of construction or a deeming
/// ("shall be construed", "may be interpreted", "shall be treated as", "shall be deemed").
static NOT_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\s+(?:be\s+construed|be\s+interpreted|be\s+treated\s+as|be\s+deemed|by\b|under\b|in\b|or\s+addressable)")
        .expect("static pattern")
});

/// Words right before an obligation that make it none in force: a hypothetical or
/// recommended one ("would be required to", "should be prohibited from", "could have been
/// required to"), a past one ("had been required to", "used to be required to").
static HYPOTHETICAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:(?:would|could|might|should)(?:\s+(?:not|have|\w+ly))*|had|used\s+to)\s+$",
    )
    .expect("static pattern")
});

/// A proposal framing what follows: "Under the proposal, …", "It is proposed that …",
/// "The proposed rule …", "The draft regulation …", "If adopted, …".
static PROPOSAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\bpropos(?:e|es|ed|ing)\s+that\b|\bproposed\s+(?:new\s+)?(?:rule|regulation|amendment|bill|policy|change|legislation|act|standard|requirement|guidance|text|section|version|provision)s?\b|\bunder\s+(?:the|this|that|our|a|its|their)\s+(?:proposal|draft)\b|\b(?:the|this|a)\s+draft\s+(?:rule|regulation|bill|policy|guidance|standard|amendment|provision)s?\b|\bif\s+(?:adopted|enacted|approved|finali[sz]ed|passed)\b")
        .expect("static pattern")
});

/// Speech reported in the past before an obligation ("the guidance said that staff must",
/// "staff were told they must", "the board recommended that …"): a past verb of saying
/// after a word that may be its subject (not "as", "otherwise", "unless", "who" …: "As
/// noted above, staff must" states a rule), followed by "that" or, for a verb that only
/// says (not "provided", "required"), by the clause itself (not by a preposition or a
/// modal: "clients advised of their rights must", "the amount stated must" are
/// participles); or a sentence opening in the past ("Previously, …", "In the past, …").
static REPORTED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:^|[\s,(])(?P<subject>[\w’']+)\s+(?P<verb>said|stated|told|wrote|explained|noted|argued|claimed|suggested|recommended|advised|indicated|announced|declared|asserted|maintained|concluded|provided|required|specified|directed|instructed|held|found|believed|thought)\s+(?P<next>[\w’']+)|^\W*(?:previously|formerly|in the past|historically|until recently|at (?:that|the) time|in earlier (?:years|versions|editions))\b")
        .expect("static pattern")
});

/// Past verbs that report speech only when "that" follows ("the Act provided that …";
/// "the information provided must …", "any person found guilty must …" are participles).
const THAT_ONLY: &[&str] = &[
    "provided",
    "required",
    "specified",
    "directed",
    "instructed",
    "held",
    "found",
    "believed",
    "thought",
];

/// Words that, before a past verb of saying, make it no report ("As noted", "Unless
/// otherwise stated", "staff who advised", "is required").
const NOT_A_REPORTER: &[&str] = &[
    "as",
    "otherwise",
    "unless",
    "if",
    "where",
    "when",
    "except",
    "who",
    "which",
    "that",
    "is",
    "are",
    "be",
    "been",
    "being",
    "not",
    "hereby",
    "herein",
];

/// Words after a past verb of saying that make it a participle ("advised of", "stated
/// in", "the amount stated must").
const NOT_A_CLAUSE: &[&str] = &[
    "of",
    "to",
    "by",
    "in",
    "for",
    "on",
    "with",
    "as",
    "at",
    "under",
    "from",
    "about",
    "during",
    "after",
    "before",
    "within",
    "above",
    "below",
    "herein",
    "therein",
    "elsewhere",
    "otherwise",
    "earlier",
    "previously",
    "must",
    "shall",
    "may",
    "will",
    "can",
    "should",
    "is",
    "are",
    "was",
    "were",
    "be",
    "and",
    "or",
];

/// Whether the words before an obligation (`before`, the sentence up to its modal) put
/// it out of force: hypothetical or past ([`HYPOTHETICAL`]), proposed ([`PROPOSAL`]) or
/// reported as what someone said ([`REPORTED`]).
pub fn not_in_force(before: &str) -> bool {
    if HYPOTHETICAL.is_match(before) || PROPOSAL.is_match(before) {
        return true;
    }
    REPORTED.captures_iter(before).any(|c| {
        let word = |n: &str| c.name(n).map(|m| m.as_str().to_lowercase());
        let (Some(subject), Some(verb), Some(next)) = (word("subject"), word("verb"), word("next"))
        else {
            return true; // a past frame
        };
        let clause = match THAT_ONLY.contains(&verb.as_str()) {
            true => next == "that",
            false => !NOT_A_CLAUSE.contains(&next.as_str()),
        };
        !NOT_A_REPORTER.contains(&subject.as_str()) && clause
    })
}

/// Words at most of a list's last item that reads as a heading ("(1) Comparison to a
/// current standard."): a list that ends in one runs on past its end.
const HEADING_ITEM_WORDS: usize = 8;

/// Whether the lines after a quote's first open with labels of more than one kind
/// (digits, letters, capitals; "(i)", "(v)", "(x)" fit letters and numerals alike): the
/// quote runs from a list into the next paragraph ("(2) … (c) Health care …").
fn mixed_labels(lines: &[&str]) -> bool {
    let kinds: std::collections::BTreeSet<u8> = lines
        .iter()
        .skip(1)
        .filter_map(|l| {
            let l = l.trim_start_matches(|c: char| c == '>' || c.is_whitespace());
            let label = l.strip_prefix('(')?.split(')').next()?;
            match label {
                x if x.chars().all(|c| c.is_ascii_digit()) && !x.is_empty() => Some(0),
                x if x.len() <= 4 && x.chars().all(|c| matches!(c, 'i' | 'v' | 'x')) => None,
                x if x.len() <= 2 && x.chars().all(|c| c.is_ascii_lowercase()) => Some(1),
                x if x.len() <= 2 && x.chars().all(|c| c.is_ascii_uppercase()) => Some(2),
                _ => None,
            }
        })
        .collect();
    kinds.len() > 1
}

/// Whether the list a quote holds goes on after it: the quote opens a list (a `:` lead-in)
/// and the next line after it is another labelled item.
fn list_goes_on(text: &str, span: Span) -> bool {
    let quote = span.slice(text);
    if !quote.contains(":\n") && !quote.contains(":\r\n") && !quote.contains(": ") {
        return false;
    }
    let next = text[span.end..]
        .lines()
        .map(|l| l.trim_start_matches(|c: char| c == '>' || c.is_whitespace()))
        .find(|l| !l.is_empty());
    next.is_some_and(|l| {
        let label = l.split(')').next().unwrap_or("");
        l.starts_with('(') && label.len() <= 5 && label.len() > 1
    })
}

/// Whether a quote is a whole provision: not a lead-in left open (":", "--", "as
/// follows."), not a list item cut from its list ("…; or"), no list nested in it (a
/// later line that opens one: its extent is not sure), not ending in a list of headings
/// ("(1) Written notice."), quotation marks balanced.
fn whole(t: &str) -> bool {
    let open_end = [":", "--", "—", "–", ";", "; or", "; and", ", or", ", and"];
    let lead_in = t.contains("as follows.") || t.contains("following requirements.");
    let straight = t.matches('"').count().is_multiple_of(2);
    let curly = t.matches('“').count() == t.matches('”').count();
    let lines: Vec<&str> = t.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let nested = lines
        .iter()
        .skip(1)
        .any(|l| l.ends_with(':') || l.ends_with("--") || l.ends_with('—'));
    let last = lines.last().map_or("", |l| {
        l.trim_start_matches(|c: char| c == '>' || c.is_whitespace())
    });
    let heading_item = lines.len() > 1
        && last.starts_with('(')
        && crate::text::word_count(last) <= HEADING_ITEM_WORDS
        && !MODAL.is_match(last);
    !open_end.iter().any(|e| t.ends_with(e))
        && !mixed_labels(&lines)
        && !lead_in
        && straight
        && curly
        && !nested
        && !heading_item
}

/// The modality and confidence of a quote, when it states a requirement: the first
/// modal that is an obligation, after a subject, in a whole provision.
pub fn requirement_in(s: &str) -> Option<(Modality, f64)> {
    let t = s.trim();
    let fragment = t.chars().next().is_some_and(|c| c.is_lowercase());
    if fragment
        || t.ends_with('?')
        || !whole(t)
        || NOT_AN_OBLIGATION.is_match(t)
        || is_heading_or_rule(t)
        || is_contents_entry(t)
    {
        return None;
    }
    let m = MODAL
        .find_iter(t)
        .find(|m| !NOT_AFTER.is_match(&t[m.end()..]))?;
    if not_in_force(&t[..m.start()]) {
        return None;
    }
    let before = t[..m.start()]
        .split_whitespace()
        .filter(|w| !(w.starts_with('(') && w.ends_with(')')) && *w != ">")
        .count();
    if before == 0 {
        return None; // "Must refrain …": an item whose subject is its list's lead-in
    }
    let word = m.as_str().to_lowercase();
    let negative = word.contains("not") || word.contains("prohibited");
    let modality = if negative {
        Modality::MustNot
    } else {
        Modality::Must
    };
    let confidence = match () {
        _ if word.ends_with(" to") || word.ends_with(" from") => 0.9,
        _ if word.contains("required") || word.contains("prohibited") => 0.8,
        _ => 0.95,
    };
    Some((modality, confidence))
}

/// The requirements of one document, in text order (ids not yet assigned).
fn of_document(engine: &Engine, d: &DocSource) -> Result<Vec<Requirement>, Error> {
    let Some(view) = super::label::DocView::load(engine, &d.doc_id)? else {
        return Ok(Vec::new());
    };
    let (text, layout, parts) = (&view.text, &view.layout, &view.parts);
    let mut out: Vec<Requirement> = Vec::new();
    let mut covered = 0usize;
    for raw in sentences(text) {
        let stripped = strip_marker(text, raw);
        if stripped.start < covered || part_at(parts, stripped.start, stripped.end).is_some() {
            continue;
        }
        let listed = in_list(text, raw);
        let span = match listed.as_ref().and_then(|q| q.first()) {
            Some((s, ListQuote::Whole)) if s.start <= stripped.start => *s,
            // A lead-in with the items up to this one, or too long to quote whole: left
            // out rather than cut.
            Some((_, ListQuote::FromLeadIn | ListQuote::Incomplete(_))) => continue,
            // A lead-in whose list is too long to quote whole: its items are read one
            // by one, and the lead-in alone is no requirement.
            None if listed.is_some() => continue,
            _ => stripped,
        };
        if list_goes_on(text, span) {
            continue;
        }
        let Some((modality, confidence)) = requirement_in(span.slice(text)) else {
            continue;
        };
        covered = span.end;
        out.push(item(d, text, layout, span, modality, confidence));
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

/// Whether a question asks about obligations ("What must a covered entity do …?",
/// "What are the requirements for …?"): its evidence is then grouped as requirements
/// are, statutes and regulations first, then policy and guidance.
pub fn asks_obligation(question: &str) -> bool {
    const CUES: &[&str] = &[
        "must",
        "shall",
        "required",
        "require",
        "requires",
        "requirement",
        "requirements",
        "obligation",
        "obligations",
        "obliged",
        "duty",
        "duties",
        "prohibited",
        "mandatory",
    ];
    crate::text::words(&question.to_lowercase())
        .iter()
        .any(|w| CUES.contains(&w.as_str()))
}

/// The group of a source type among requirements: 0 statutes and regulations, 1 policy
/// and guidance, 2 the rest (FAQs last of all, 3).
pub fn group_of(t: SourceType) -> u8 {
    match letter(t) {
        Some('S') => 0,
        Some('P') => 1,
        Some(_) => 2,
        None => 3,
    }
}

/// A group's heading, as an answer's evidence list shows it.
pub fn group_heading(group: u8) -> &'static str {
    match group {
        0 => "From statutes and regulations",
        1 => "From policy and guidance",
        2 => "From other sources",
        _ => "Summaries and text that does not bind",
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
        // A bare "is required" is not read (most often a reference); "prohibited" is.
        assert_eq!(
            r("Written consent is required before any disclosure."),
            None
        );
        assert_eq!(
            r("Retaliation against a client is prohibited."),
            Some(Modality::MustNot)
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
        for not in [
            "Nothing in this subchapter shall be construed to diminish the authority of any Inspector General.",
            "A breach shall be treated as discovered on the first day it is known.",
            "(A) The disclosure is required by law; or",
            "The plan documents must be amended to require the plan sponsor to--",
            "The covered entity must provide an accounting that meets the following requirements.",
            "Must refrain from intimidation and retaliation.",
            "Compliance date means the date by which a covered entity must comply with a standard.",
            "(F) A statement that the information may or may not have been disclosed.",
            "Nothing in this section shall alter the requirements of a covered entity.",
            "If the subpoena is addressed to an entity, describe the matter on which testimony is required.",
            "A plan must comply by these dates:\n> (1) A plan--May 23, 2007.\n> (2) A small plan--May 23, 2008.\n(c) Clearinghouses. A clearinghouse must comply by May 23, 2007.",
            "For each modification, the organization must meet these requirements:\n\n> (1) Comparison to a current standard.",
            "The notification shall be provided in the following form:\n\n> (1) Written notice.",
            "The System must do all of the following:\n\n(a) Assign a single, unique--\n\n> (1) HPID to a plan.",
            "The notice must contain the statement: \"THIS NOTICE DESCRIBES HOW INFORMATION.",
        ] {
            assert_eq!(requirement_in(not), None, "{not}");
        }
        assert_eq!(r("(2) Must refrain from retaliation."), None);
        assert_eq!(
            r("Uses that are prohibited under § 164.502 may not be made."),
            Some(Modality::MustNot)
        );
    }

    #[test]
    fn obligations_out_of_force_are_no_requirements() {
        // Proposed, hypothetical, past or reported.
        for not in [
            "Under the proposed rule, landlords would be required to register each unit.",
            "Vendors could be prohibited from selling after dark.",
            "It is proposed that every vendor must carry a permit.",
            "The draft regulation says that kennels shall be inspected twice a year.",
            "Before 2015, the guidance said that staff must keep paper files.",
            "Until 2012 inspectors were told they must visit each site monthly.",
            "In 2009 the board recommended that tenants must give 90 days' notice.",
            "Previously, applicants must have lived in the county for a year.",
            "Drivers had been required to carry two copies.",
        ] {
            assert_eq!(requirement_in(not), None, "{not}");
        }
        // Rules in force, whatever words they share with those.
        for rule in [
            "As noted above, staff must keep paper files.",
            "Unless otherwise stated, tenants must give 30 days' notice.",
            "The information provided must be kept for five years.",
            "Clients advised of their rights must sign the form.",
            "Records required by law must be kept for seven years.",
            "Each proposal must contain a budget.",
            "The proposed budget must not exceed the award.",
            "Landlords will be required to register each unit.",
            "The guidance says that staff must keep paper files.",
        ] {
            assert!(requirement_in(rule).is_some(), "{rule}");
        }
    }
}
