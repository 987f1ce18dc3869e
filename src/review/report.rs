//! The Markdown report of a review, written so it passes the Evidence Gate against the
//! evidence file written beside it (`attest validate REPORT.md --evidence
//! REPORT.evidence.json`): every cited sentence is a verbatim sentence of the quote it
//! cites (document text that imitates a citation marker is neutralised first); what the
//! review computed (statuses, normalised values, check results) is in headings and in a
//! table of ids and statuses, never in an uncited sentence. The report is checked with
//! the gate before it is written, and written atomically.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::answer::{display_text, EvidenceItem};
use crate::corpus::segment::sentences;
use crate::error::Error;
use crate::evidence::gate::{check_external, neutralise_markers, GateConfig, GateResult};
use crate::evidence::support::check_claims;

use super::{RequirementReview, Review};

/// How an evidence item's place is written (`source p. N § section`; the binary passes
/// `render::evidence_place`).
pub type Place<'a> = &'a dyn Fn(&EvidenceItem) -> String;

/// Other evidence items quoted per requirement besides the ones that state a value.
const CONTEXT_ITEMS: usize = 2;

/// The evidence file written beside `report`: `NAME.evidence.json`.
pub fn evidence_path(report: &Path) -> PathBuf {
    let stem = report
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "report".into());
    report.with_file_name(format!("{stem}.evidence.json"))
}

/// `quote` as report sentences, each citing `id` before its closing punctuation.
pub fn cited(quote: &str, id: &str) -> String {
    let flat = inert(&display_text(quote));
    let mut out = Vec::new();
    for s in sentences(&flat) {
        let sent = s.slice(&flat).trim();
        let body = sent.trim_end_matches(['.', '!', '?', ';', ':', ',']);
        let punct = &sent[body.len()..];
        let punct = if punct.is_empty() { "." } else { &punct[..1] };
        if !body.trim().is_empty() {
            out.push(format!("{} [{id}]{punct}", body.trim_end()));
        }
    }
    out.join(" ")
}

/// Outside text made inert for the report: citation markers neutralised and every other
/// square bracket turned full-width, so no document text opens or closes a citation.
fn inert(text: &str) -> String {
    neutralise_markers(text)
        .replace('[', "［")
        .replace(']', "］")
}

/// A table cell: one line, no pipes, brackets, spaces or control characters.
fn cell(text: &str) -> String {
    inert(text)
        .chars()
        .map(|c| {
            if c.is_control() || c == '|' || c.is_whitespace() {
                '_'
            } else {
                c
            }
        })
        .collect()
}

/// A heading line: one line, no leading markers that would end it.
fn heading(level: usize, text: &str) -> String {
    let line: String = display_text(&inert(text))
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    format!("{} {}\n\n", "#".repeat(level), line)
}

fn summary(r: &Review, out: &mut String) {
    let s = &r.summary;
    out.push_str(&heading(1, &format!("Review: {}", r.checklist.name)));
    out.push_str(&heading(
        2,
        &format!(
            "Checklist {}: {} requirements over {} documents that supplied evidence",
            r.checklist.path,
            r.checklist.requirements,
            r.documents.len()
        ),
    ));
    out.push_str(&heading(
        2,
        &format!(
            "Status: {} evidenced, {} missing, {} conflict, {} needs review ({} mandatory not evidenced)",
            s.evidenced, s.missing, s.conflict, s.needs_review, s.mandatory_open
        ),
    ));
    out.push_str(&heading(
        2,
        &if s.checks == 0 {
            "Checks: none performed (no field was stated by two documents and no rule applied); this is not a pass".to_string()
        } else {
            format!("Checks: {} performed, {} found a problem", s.checks, s.checks_failed)
        },
    ));
    out.push_str(&heading(
        2,
        "This review approves nothing: the decision is the reviewer's",
    ));
    out.push_str("| Requirement | Status |\n|---|---|\n");
    for q in &r.requirements {
        let _ = writeln!(out, "| {} | {} |", cell(&q.id), q.status.as_str());
    }
    out.push('\n');
}

/// The items a requirement's findings quote: those stating a value, then the best others.
pub fn quoted(q: &RequirementReview) -> Vec<&EvidenceItem> {
    let stating: Vec<&str> = q.fields.iter().map(|f| f.evidence.as_str()).collect();
    let mut items: Vec<&EvidenceItem> = q
        .evidence
        .iter()
        .filter(|e| stating.contains(&e.id.as_str()))
        .collect();
    items.extend(
        q.evidence
            .iter()
            .filter(|e| !stating.contains(&e.id.as_str()))
            .take(CONTEXT_ITEMS),
    );
    items
}

fn requirement(q: &RequirementReview, out: &mut String) {
    out.push_str(&heading(
        2,
        &format!("{} {}: {}", q.id, q.category, q.status.as_str()),
    ));
    out.push_str(&heading(
        3,
        &format!(
            "{}, {}: {}",
            if q.mandatory { "Mandatory" } else { "Optional" },
            q.validation_type.as_str(),
            q.reason
        ),
    ));
    for f in &q.fields {
        out.push_str(&heading(
            4,
            &format!(
                "{} = {} (as written: {}) in {}",
                f.name, f.value, f.raw, f.evidence
            ),
        ));
    }
    for c in &q.checks {
        out.push_str(&heading(
            4,
            &format!(
                "Check {} {}: {} ({})",
                serde_json::to_value(c.kind)
                    .unwrap_or_default()
                    .as_str()
                    .unwrap_or(""),
                c.field,
                c.status.as_str(),
                c.note
            ),
        ));
    }
    let items = quoted(q);
    if !items.is_empty() {
        let text: Vec<String> = items.iter().map(|e| cited(&e.quote, &e.id)).collect();
        out.push_str(&text.join("\n\n"));
        out.push_str("\n\n");
    }
}

/// The Markdown report of `review` and the evidence items it cites.
pub fn markdown(review: &Review, place: Place) -> (String, Vec<EvidenceItem>) {
    let mut out = String::new();
    summary(review, &mut out);
    let mut cited_ids = std::collections::BTreeSet::new();
    // Requirements without evidence are in the status table; a section would hold
    // nothing to cite.
    for q in review
        .requirements
        .iter()
        .filter(|q| !q.evidence.is_empty())
    {
        requirement(q, &mut out);
        cited_ids.extend(quoted(q).into_iter().map(|e| e.id.clone()));
    }
    let items: Vec<EvidenceItem> = review
        .evidence()
        .into_iter()
        .filter(|e| cited_ids.contains(&e.id))
        .cloned()
        .collect();
    if !items.is_empty() {
        out.push_str(&heading(2, "Cited evidence"));
        for e in &items {
            out.push_str(&heading(3, &format!("{} {}", e.id, place(e))));
            out.push_str(&cited(&e.quote, &e.id));
            out.push_str("\n\n");
        }
    }
    (out, items)
}

/// Gate `text` against `items` (standard preset, plus the model-free claim check).
pub fn gate(text: &str, items: &[EvidenceItem]) -> GateResult {
    let known = items.iter().map(|e| e.id.clone()).collect();
    let mut r = check_external(text, &known, &GateConfig::default());
    let quotes = items
        .iter()
        .map(|e| (e.id.clone(), Some(e.quote.clone())))
        .collect();
    r.violations.extend(check_claims(text, &quotes));
    r.passed = r
        .violations
        .iter()
        .all(|v| v.severity != crate::evidence::gate::Severity::Error);
    r
}

/// Write the report of `review` to `path` and its evidence to [`evidence_path`], both
/// atomically, after the gate passed on it. Returns the gate's result.
pub fn write(review: &Review, path: &Path, place: Place) -> Result<GateResult, Error> {
    let (text, items) = markdown(review, place);
    if items.is_empty() {
        return Err(Error::Usage(format!(
            "{}: no requirement has verified evidence, so the report would cite nothing; \
             nothing written (the review's statuses stand)",
            path.display()
        )));
    }
    let result = gate(&text, &items);
    if !result.passed {
        return Err(Error::Usage(format!(
            "{}: the report did not pass the Evidence Gate ({}); nothing written",
            path.display(),
            result
                .violations
                .iter()
                .map(|v| match &v.sentence {
                    Some(sentence) => format!("{}: {sentence:?}", v.message),
                    None => v.message.clone(),
                })
                .collect::<Vec<_>>()
                .join("; ")
        )));
    }
    let evidence = serde_json::to_vec_pretty(&items).map_err(|e| Error::Usage(e.to_string()))?;
    crate::outfile::write_atomic(&evidence_path(path), &evidence)?;
    crate::outfile::write_atomic(path, text.as_bytes())?;
    Ok(result)
}
