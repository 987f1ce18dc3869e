//! Answers as documents a person hands on: Markdown (the cited answer, its confidence,
//! then every cited quote with its place, `source p. N § section`) and CSV (one row per
//! cited item, with the answer's confidence). Both
//! keep the answer's `[E1]` markers, so `attest validate` checks a Markdown answer against
//! its evidence as it checks the JSON one.

use crate::answer::{display_text, Answer, EvidenceItem, Status};
use crate::review::report::{cited, heading, write_safe_record};

/// How `ask` prints an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// For a person at a terminal.
    #[default]
    Text,
    /// The answer JSON.
    Json,
    /// Markdown with numbered citations and the list of quotes.
    Markdown,
    /// CSV, one row per cited item.
    Csv,
}

impl std::str::FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim() {
            "text" => Ok(Format::Text),
            "json" => Ok(Format::Json),
            "md" | "markdown" => Ok(Format::Markdown),
            "csv" => Ok(Format::Csv),
            other => Err(format!("expected text, json, md or csv, not {other:?}")),
        }
    }
}

/// `s` with Markdown's inline markup characters escaped (brackets are kept: they hold the
/// citations) and line breaks made spaces.
fn md_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in display_text(s).chars() {
        if matches!(c, '\\' | '*' | '_' | '`' | '<' | '>' | '#' | '|' | '~') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Where a cited item is: `source p. 4 § Section (label)`, with an OCR note.
pub fn place(e: &EvidenceItem) -> String {
    crate::render::evidence_place(e)
}

/// The answer as Markdown: the question as a heading, the cited answer (or why there is
/// none), then each cited quote under a heading with its id and place, written as cited
/// sentences (as the review report writes them), so the whole file passes the Evidence
/// Gate against the answer's evidence: places are headings, which the gate does not read.
pub fn markdown(a: &Answer) -> String {
    let mut s = format!("## {}\n\n", md_escape(&a.question));
    match a.status {
        Status::Answered => cited_markdown(&mut s, a),
        Status::StatedAbsent => {
            s.push_str(
                "*No value: the cited documents state that what is asked has not been set.*\n\n",
            );
            cited_markdown(&mut s, a);
        }
        Status::NoAuthoritativeEvidence => {
            s.push_str("*No authoritative evidence: the indexed documents do not answer this question.*\n\n");
            for m in &a.missing_evidence {
                s.push_str(&format!("- {}\n", md_escape(m)));
            }
            s.push('\n');
            if !a.evidence.is_empty() {
                s.push_str("*Closest passages found (not an answer):*\n\n");
                cited_markdown(&mut s, a);
            }
        }
        Status::RejectedInput => {
            let why = a.reason.as_deref().unwrap_or("question not accepted");
            s.push_str(&format!("*Question not accepted: {}*\n\n", md_escape(why)));
        }
    }
    s
}

/// The answer's text, its confidence (a heading, so the gate does not read it as an
/// uncited sentence), then each cited quote under a heading with its id and place.
fn cited_markdown(s: &mut String, a: &Answer) {
    s.push_str(&md_escape(&a.answer));
    s.push_str("\n\n");
    s.push_str(&heading(
        3,
        &format!("Confidence: {}", a.confidence.as_str()),
    ));
    s.push_str("### Evidence\n\n");
    for e in &a.evidence {
        s.push_str(&heading(4, &md_escape(&format!("{} {}", e.id, place(e)))));
        s.push_str(&md_escape(&cited(&e.quote, &e.id)));
        s.push_str("\n\n");
    }
}

/// The CSV columns, one row per cited item (an unanswered question gets one row without
/// an item).
pub const CSV_HEADER: [&str; 12] = [
    "question_id",
    "question",
    "status",
    "confidence",
    "value",
    "evidence_id",
    "source",
    "page",
    "section",
    "label",
    "quote",
    "ocr",
];

/// Append `a`'s rows (question `id`) to `w`, every cell made spreadsheet-safe (a cell
/// starting with `=`, `+`, `-`, `@`, tab or carriage return gets a leading `'`; see
/// [`crate::review::report::spreadsheet_safe`]).
pub fn csv_rows<W: std::io::Write>(
    w: &mut csv::Writer<W>,
    id: &str,
    a: &Answer,
) -> Result<(), csv::Error> {
    let status = serde_json::to_value(a.status)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    let value = a
        .answer_value
        .as_ref()
        .map(|v| v.raw.clone())
        .unwrap_or_default();
    if a.evidence.is_empty() {
        let row = [
            id,
            &a.question,
            &status,
            a.confidence.as_str(),
            &value,
            "",
            "",
            "",
            "",
            "",
            "",
            "",
        ];
        return write_safe_record(w, row);
    }
    for e in &a.evidence {
        let page = e.page.map(|p| p.to_string()).unwrap_or_default();
        let ocr = e.ocr.as_ref().map(|o| o.engine.clone()).unwrap_or_default();
        let quote = display_text(&e.quote);
        write_safe_record(
            w,
            [
                id,
                &a.question,
                &status,
                a.confidence.as_str(),
                &value,
                &e.id,
                &e.source,
                &page,
                e.section.as_deref().unwrap_or(""),
                e.label.as_deref().unwrap_or(""),
                &quote,
                &ocr,
            ],
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_is_escaped_but_citations_keep_their_brackets() {
        assert_eq!(md_escape("a *b* [E1] <x>"), "a \\*b\\* [E1] \\<x\\>");
        assert_eq!(md_escape("two\nlines"), "two lines");
    }

    #[test]
    fn formats_parse_and_bad_names_are_refused() {
        assert_eq!("md".parse::<Format>(), Ok(Format::Markdown));
        assert_eq!("csv".parse::<Format>(), Ok(Format::Csv));
        assert!("pdf".parse::<Format>().is_err());
    }
}
