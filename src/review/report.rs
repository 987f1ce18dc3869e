//! The Markdown report of a review, written so it passes the Evidence Gate against the
//! evidence file written beside it (`attest validate REPORT.md --evidence
//! REPORT.evidence.json`): every cited sentence is a verbatim sentence of the quote it
//! cites (document text that imitates a citation marker is neutralised first); what the
//! review computed (statuses, normalised values, check results) is in headings and in a
//! table of ids and statuses, never in an uncited sentence. The report is checked with
//! the gate before it is written, and written atomically. The checklist's metadata and
//! warnings head the report.
//!
//! [`sheet`] is the reviewer's sheet: a CSV with one row per field value (and one per
//! requirement without a value), quotes verbatim, to paste into a reviewer's own checklist.
//! Every CSV the engine writes goes through [`write_safe_record`], so no cell opens as a
//! formula in a spreadsheet.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::answer::{display_text, EvidenceItem};
use crate::corpus::segment::sentences;
use crate::error::Error;
use crate::evidence::gate::{check_external, neutralise_markers, GateConfig, GateResult};
use crate::evidence::support::check_claims;

use super::{RequirementReview, Review};

/// What `--report FILE` writes, by FILE's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportFormat {
    /// The Markdown report and its evidence file (any extension not named below).
    Markdown,
    /// `.csv`: the reviewer's sheet ([`sheet`]).
    Csv,
    /// `.json`: the review JSON.
    Json,
}

impl ReportFormat {
    /// The format of a report written to `path`.
    pub fn of(path: &Path) -> Self {
        let ext = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        match ext.as_deref() {
            Some("csv") => ReportFormat::Csv,
            Some("json") => ReportFormat::Json,
            _ => ReportFormat::Markdown,
        }
    }
}

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
pub fn heading(level: usize, text: &str) -> String {
    let line: String = display_text(&inert(text))
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    format!("{} {}\n\n", "#".repeat(level), line)
}

/// A metadata value as a heading shows it: text as written, a list of texts joined with
/// commas, anything else as JSON.
fn shown(v: &serde_json::Value) -> String {
    use serde_json::Value;
    match v {
        Value::String(s) => s.clone(),
        Value::Array(a) if a.iter().all(|x| !x.is_array() && !x.is_object()) => {
            a.iter().map(shown).collect::<Vec<_>>().join(", ")
        }
        other => other.to_string(),
    }
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
    for (key, value) in r.checklist.metadata.iter() {
        out.push_str(&heading(3, &format!("{key}: {}", shown(value))));
    }
    for w in &r.checklist.warnings {
        out.push_str(&heading(3, &format!("Checklist warning: {}", w.message)));
    }
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

/// The Markdown report of `review` for `target` (named in errors), the items it cites and
/// the gate's result; an error, and no text, when it would cite nothing or the Evidence
/// Gate refuses it.
pub fn render(
    review: &Review,
    place: Place,
    target: &str,
) -> Result<(String, Vec<EvidenceItem>, GateResult), Error> {
    let (text, items) = markdown(review, place);
    if items.is_empty() {
        return Err(Error::Usage(format!(
            "{target}: no requirement has verified evidence, so the report would cite nothing; \
             nothing written (the review's statuses stand)"
        )));
    }
    let result = gate(&text, &items);
    if !result.passed {
        return Err(Error::Usage(format!(
            "{target}: the report did not pass the Evidence Gate ({}); nothing written",
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
    Ok((text, items, result))
}

/// Write the report of `review` to `path` and its evidence to [`evidence_path`], both
/// atomically, after the gate passed on it. Returns the gate's result.
pub fn write(review: &Review, path: &Path, place: Place) -> Result<GateResult, Error> {
    let (text, items, result) = render(review, place, &path.display().to_string())?;
    let evidence = serde_json::to_vec_pretty(&items).map_err(|e| Error::Usage(e.to_string()))?;
    crate::outfile::write_atomic(&evidence_path(path), &evidence)?;
    crate::outfile::write_atomic(path, text.as_bytes())?;
    Ok(result)
}

/// Columns of the reviewer's sheet.
pub const SHEET_COLUMNS: [&str; 7] = [
    "requirement",
    "status",
    "field",
    "value",
    "source",
    "page",
    "quote",
];

/// A normalised value as a sheet cell: text as it is, a number as JSON writes it.
fn value_cell(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// The sheet's rows for one requirement: one per field value, with the verbatim quote of
/// the item stating it; with no value, one row with the first evidence item, if any.
fn sheet_rows(q: &RequirementReview) -> Vec<[String; 7]> {
    let page = |p: Option<usize>| p.map(|p| p.to_string()).unwrap_or_default();
    let (id, status) = (q.id.clone(), q.status.as_str().to_string());
    if q.fields.is_empty() {
        let first = q.evidence.first();
        return vec![[
            id,
            status,
            String::new(),
            String::new(),
            first.map(|e| e.source.clone()).unwrap_or_default(),
            page(first.and_then(|e| e.page)),
            first.map(|e| e.quote.clone()).unwrap_or_default(),
        ]];
    }
    q.fields
        .iter()
        .map(|f| {
            let quote = q
                .evidence
                .iter()
                .find(|e| e.id == f.evidence)
                .map_or_else(|| f.raw.clone(), |e| e.quote.clone());
            [
                id.clone(),
                status.clone(),
                f.name.clone(),
                value_cell(&f.value),
                f.source.clone(),
                page(f.page),
                quote,
            ]
        })
        .collect()
}

/// The characters that make a spreadsheet read a cell that starts with them as a formula
/// (OWASP's list for CSV injection): `=`, `+`, `-`, `@`, tab and carriage return.
pub const FORMULA_STARTS: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// `cell` as a spreadsheet opens it safely: a cell starting with one of
/// [`FORMULA_STARTS`] (`=HYPERLINK(…)`, `-2+3`, `@SUM(…)`) gets a leading `'`, which
/// Excel, LibreOffice and Google Sheets read as "this cell is text" (and do not show);
/// any other cell is unchanged. Applied to every cell, whatever its source (file names,
/// sections, quotes, questions, values), as OWASP recommends.
pub fn spreadsheet_safe(cell: &str) -> Cow<'_, str> {
    if cell.starts_with(FORMULA_STARTS) {
        Cow::Owned(format!("'{cell}"))
    } else {
        Cow::Borrowed(cell)
    }
}

/// Write one CSV record with every cell made [`spreadsheet_safe`] (then quoted where
/// CSV needs it).
pub fn write_safe_record<W, I, S>(w: &mut csv::Writer<W>, cells: I) -> Result<(), csv::Error>
where
    W: std::io::Write,
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let cells: Vec<String> = cells
        .into_iter()
        .map(|c| spreadsheet_safe(c.as_ref()).into_owned())
        .collect();
    w.write_record(&cells)
}

/// The reviewer's sheet of `review`: a CSV with [`SHEET_COLUMNS`], requirements in
/// checklist order, cells quoted where CSV needs it, made [`spreadsheet_safe`], and
/// otherwise as the review has them.
pub fn sheet(review: &Review) -> Result<String, Error> {
    let fail = |e: csv::Error| Error::Usage(format!("writing the CSV sheet: {e}"));
    let mut w = csv::Writer::from_writer(Vec::new());
    write_safe_record(&mut w, SHEET_COLUMNS).map_err(fail)?;
    for q in &review.requirements {
        for row in sheet_rows(q) {
            write_safe_record(&mut w, &row).map_err(fail)?;
        }
    }
    let bytes = w
        .into_inner()
        .map_err(|e| Error::Usage(format!("writing the CSV sheet: {e}")))?;
    String::from_utf8(bytes).map_err(|e| Error::Usage(format!("writing the CSV sheet: {e}")))
}

/// Write the reviewer's sheet of `review` to `path`, atomically.
pub fn write_sheet(review: &Review, path: &Path) -> Result<(), Error> {
    crate::outfile::write_atomic(path, sheet(review)?.as_bytes())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::checklist::Metadata;
    use crate::review::{
        ChecklistInfo, FieldType, FieldValue, Mapping, ReviewStatus, Summary, ValidationType,
    };

    fn item(id: &str, quote: &str, page: Option<usize>) -> EvidenceItem {
        serde_json::from_value(serde_json::json!({
            "id": id, "evidence_key": "k", "doc_id": "d", "source": "docs/plan.pdf",
            "title": "Plan", "chunk_id": "c", "quote": quote, "start": 100, "end": 100 + quote.len(),
            "line": 1, "page": page, "kind": "statement", "score": 0.9, "step": 1,
            "content_hash": "h"
        }))
        .unwrap()
    }

    fn requirement(
        id: &str,
        evidence: Vec<EvidenceItem>,
        fields: Vec<FieldValue>,
    ) -> RequirementReview {
        RequirementReview {
            id: id.into(),
            category: "Leakage".into(),
            text: "The leakage percentage is quantified.".into(),
            validation_type: ValidationType::StructuredField,
            mandatory: true,
            status: if fields.is_empty() {
                ReviewStatus::Missing
            } else {
                ReviewStatus::Evidenced
            },
            reason: "why".into(),
            mapping: Mapping::None,
            evidence,
            fields,
            missing_fields: Vec::new(),
            rejected_values: Vec::new(),
            checks: Vec::new(),
            proposals: Vec::new(),
            extra: Metadata::default(),
        }
    }

    fn sample() -> Review {
        let quote = "Leakage is estimated at 4% of the emission reductions, \"net\" of losses.";
        let e1 = item("E1", quote, Some(3));
        let value = FieldValue {
            name: "leakage_percentage".into(),
            ty: FieldType::parse("percentage").unwrap(),
            value: serde_json::json!(4),
            raw: "4%".into(),
            unit: Some("%".into()),
            evidence: "E1".into(),
            start: 124,
            end: 126,
            source: "docs/plan.pdf".into(),
            doc_id: "d".into(),
            page: Some(3),
        };
        let e2 = item(
            "E2",
            "There is currently no grievance mechanism.\nIt is planned.",
            None,
        );
        let mut metadata = Metadata::default();
        metadata.insert("methodology_id".into(), "VM0033".into());
        metadata.insert("protocol".into(), serde_json::json!({"name": "VCS [E7]"}));
        Review {
            checklist: ChecklistInfo {
                name: "Registry".into(),
                path: "c.json".into(),
                requirements: 3,
                metadata,
                warnings: Vec::new(),
            },
            documents: Vec::new(),
            requirements: vec![
                requirement("LK", vec![e1], vec![value]),
                requirement("GM", vec![e2], Vec::new()),
                requirement("PI", Vec::new(), Vec::new()),
            ],
            summary: Summary::default(),
            timings_ms: Default::default(),
        }
    }

    #[test]
    fn the_sheet_has_a_row_per_value_and_per_requirement_without_one_quotes_verbatim() {
        let r = sample();
        let text = sheet(&r).unwrap();
        let mut rows = csv::Reader::from_reader(text.as_bytes());
        assert_eq!(rows.headers().unwrap(), SHEET_COLUMNS.as_slice());
        let rows: Vec<Vec<String>> = rows
            .records()
            .map(|r| r.unwrap().iter().map(str::to_string).collect())
            .collect();
        assert_eq!(
            rows,
            [
                vec![
                    "LK",
                    "evidenced",
                    "leakage_percentage",
                    "4",
                    "docs/plan.pdf",
                    "3",
                    &r.requirements[0].evidence[0].quote
                ],
                vec![
                    "GM",
                    "missing",
                    "",
                    "",
                    "docs/plan.pdf",
                    "",
                    "There is currently no grievance mechanism.\nIt is planned."
                ],
                vec!["PI", "missing", "", "", "", "", ""],
            ]
        );
    }

    #[test]
    fn cells_that_would_open_as_formulas_get_a_leading_quote() {
        for (cell, safe) in [
            (
                "=HYPERLINK(\"http://x\",\"y\")",
                "'=HYPERLINK(\"http://x\",\"y\")",
            ),
            ("+1+1", "'+1+1"),
            ("-2+3", "'-2+3"),
            ("@SUM(A1)", "'@SUM(A1)"),
            ("\t=1", "'\t=1"),
            ("\r=1", "'\r=1"),
        ] {
            assert_eq!(spreadsheet_safe(cell), safe);
        }
        for cell in [
            "",
            "plain",
            " =1",
            "a=b",
            "'=1",
            "4%",
            "docs/plan.pdf",
            "1.8 Start",
        ] {
            assert_eq!(spreadsheet_safe(cell), cell, "{cell:?} unchanged");
        }
    }

    #[test]
    fn the_sheet_neutralises_formulas_in_every_cell() {
        let mut r = sample();
        let q = &mut r.requirements[1];
        q.id = "@REQ".into();
        q.evidence[0].source = "=cmd|' /C calc'!A0.pdf".into();
        q.evidence[0].quote = "+SUM(1,2) is due.".into();
        let text = sheet(&r).unwrap();
        let rows: Vec<Vec<String>> = csv::Reader::from_reader(text.as_bytes())
            .records()
            .map(|r| r.unwrap().iter().map(str::to_string).collect())
            .collect();
        assert_eq!(
            rows[1],
            [
                "'@REQ",
                "missing",
                "",
                "",
                "'=cmd|' /C calc'!A0.pdf",
                "",
                "'+SUM(1,2) is due."
            ]
        );
        for row in &rows {
            for cell in row {
                assert!(!cell.starts_with(FORMULA_STARTS), "{cell:?}");
            }
        }
    }

    #[test]
    fn the_report_header_carries_the_checklist_metadata_inert() {
        let (text, items) = markdown(&sample(), &|e: &EvidenceItem| e.source.clone());
        assert!(text.contains("### methodology_id: VM0033\n"), "{text}");
        assert!(
            text.contains("### protocol: {\"name\":\"VCS ［E7］\"}\n"),
            "{text}"
        );
        assert!(gate(&text, &items).passed, "{text}");
        assert_eq!(ReportFormat::of(Path::new("r.CSV")), ReportFormat::Csv);
        assert_eq!(ReportFormat::of(Path::new("r.json")), ReportFormat::Json);
        assert_eq!(ReportFormat::of(Path::new("r.md")), ReportFormat::Markdown);
    }
}
