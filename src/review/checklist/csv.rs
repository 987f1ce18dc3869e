//! Checklists in CSV: the registry columns (by header, any order and case), one
//! requirement per row, errors naming the line.

use std::collections::HashSet;
use std::path::Path;

use super::raw::bounded;
use super::{ChecklistError, Metadata, RawChecklist, RawRequirement, MAX_REQUIREMENTS};

/// A CSV column of the registry form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Column {
    Id,
    Category,
    Text,
    Source,
    Evidence,
    Mandatory,
    Type,
    Scope,
    Documents,
    /// Not one attest reads: kept under `extra`.
    Extra,
}

impl Column {
    /// The column a header names (any case; `id`, `text`, `document_hints` as in JSON).
    fn named(header: &str) -> Result<Column, String> {
        Ok(match header.trim().to_ascii_lowercase().as_str() {
            "requirement_id" | "id" => Column::Id,
            "category" => Column::Category,
            "requirement_text" | "text" => Column::Text,
            "source" => Column::Source,
            "accepted_evidence" => Column::Evidence,
            "mandatory" => Column::Mandatory,
            "validation_type" => Column::Type,
            "scope" => Column::Scope,
            "documents" | "document_hints" => Column::Documents,
            "fields" => {
                return Err(
                    "a \"fields\" column cannot be read from CSV; declare fields in \
                            JSON, TOML or YAML"
                        .into(),
                )
            }
            _ => Column::Extra,
        })
    }
}

/// The columns of a CSV header: every registry column at most once, the id, text and
/// validation type present.
fn csv_columns(header: &csv::StringRecord) -> Result<Vec<Column>, String> {
    let columns: Vec<Column> = header.iter().map(Column::named).collect::<Result<_, _>>()?;
    let (mut seen, mut names) = (HashSet::new(), HashSet::new());
    for (c, name) in columns.iter().zip(header.iter()) {
        let name = name.trim();
        if (*c != Column::Extra && !seen.insert(*c)) || (!name.is_empty() && !names.insert(name)) {
            return Err(format!("the column {name:?} appears twice"));
        }
    }
    for (need, name) in [
        (Column::Id, "requirement_id"),
        (Column::Text, "requirement_text"),
        (Column::Type, "validation_type"),
    ] {
        if !columns.contains(&need) {
            return Err(format!(
                "no {name:?} column (the header is {:?})",
                bounded(&header.iter().collect::<Vec<_>>().join(","))
            ));
        }
    }
    Ok(columns)
}

/// One CSV row as a requirement: blank cells are absent, `documents` is split at `;`.
fn csv_requirement(
    columns: &[Column],
    header: &csv::StringRecord,
    row: &csv::StringRecord,
    line: u64,
) -> RawRequirement {
    let mut r = RawRequirement {
        line: Some(line),
        ..RawRequirement::default()
    };
    for (i, ((column, name), cell)) in columns
        .iter()
        .zip(header.iter())
        .zip(row.iter())
        .enumerate()
    {
        let cell = cell.trim();
        if cell.is_empty() {
            continue;
        }
        let text = Some(cell.to_string());
        match column {
            Column::Id => r.requirement_id = text,
            Column::Category => r.category = text,
            Column::Text => r.requirement_text = text,
            Column::Source => r.source = text,
            Column::Evidence => r.accepted_evidence = text.map(serde_json::Value::String),
            Column::Mandatory => r.mandatory = text.map(serde_json::Value::String),
            Column::Type => r.validation_type = text,
            Column::Scope => r.scope = text,
            Column::Documents => {
                r.documents = Some(
                    cell.split(';')
                        .map(str::trim)
                        .filter(|s| !s.is_empty())
                        .map(str::to_string)
                        .collect(),
                )
            }
            Column::Extra => {
                let name = name.trim();
                let key = match name.is_empty() {
                    true => format!("column {}", i + 1),
                    false => name.to_string(),
                };
                r.extra.insert(key, cell.into())
            }
        }
    }
    r
}

/// A CSV error naming its line.
fn csv_error(path: &Path, text: &str, e: &csv::Error) -> ChecklistError {
    let line = e.position().map_or(0, |p| line_at(text, p));
    let reason = match e.kind() {
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => format!("{len} fields where the header has {expected_len}"),
        _ => bounded(&e.to_string()),
    };
    ChecklistError::Csv {
        path: path.to_path_buf(),
        line,
        reason,
    }
}

/// The 1-based line where the record at `pos` starts. Counted from the byte offset: the
/// reader's own count lags by one after a `\r\n` line end, whose `\n` it takes as the start
/// of the next record.
fn line_at(text: &str, pos: &csv::Position) -> u64 {
    let at = usize::try_from(pos.byte()).map_or(text.len(), |b| b.min(text.len()));
    let rest = &text.as_bytes()[at..];
    let skipped = rest
        .iter()
        .position(|b| !matches!(b, b'\r' | b'\n'))
        .unwrap_or(rest.len());
    let upto = &text.as_bytes()[..at + skipped];
    1 + upto.iter().filter(|&&b| b == b'\n').count() as u64
}

/// The registry form as CSV: a header row naming the columns
/// (`requirement_id,category,requirement_text,source,accepted_evidence,mandatory,
/// validation_type,scope`), then one requirement a row; rows with every cell blank are
/// skipped.
pub(super) fn from_csv(path: &Path, text: &str) -> Result<RawChecklist, ChecklistError> {
    let at = |line: u64, reason: String| ChecklistError::Csv {
        path: path.to_path_buf(),
        line,
        reason,
    };
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(text.as_bytes());
    let header = reader
        .headers()
        .map_err(|e| csv_error(path, text, &e))?
        .clone();
    if header.iter().all(|h| h.trim().is_empty()) {
        return Err(at(1, "no header row naming the columns".into()));
    }
    let columns = csv_columns(&header).map_err(|reason| at(1, reason))?;
    let mut raw = RawChecklist {
        requirements: Vec::new(),
        metadata: Metadata::default(),
        blank_lines: Vec::new(),
    };
    for row in reader.records() {
        let row = row.map_err(|e| csv_error(path, text, &e))?;
        let line = row.position().map_or(0, |p| line_at(text, p));
        if row.iter().all(|c| c.trim().is_empty()) {
            raw.blank_lines.push(line);
        } else if raw.requirements.len() == MAX_REQUIREMENTS {
            return Err(at(
                line,
                format!("more than {MAX_REQUIREMENTS} requirements"),
            ));
        } else {
            raw.requirements
                .push(csv_requirement(&columns, &header, &row, line));
        }
    }
    Ok(raw)
}
