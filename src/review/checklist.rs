//! Checklist files: the common registry form (`requirements: [{requirement_id, category,
//! requirement_text, source, accepted_evidence, mandatory, validation_type, scope}]`) and
//! attest's form, which may also declare `fields` (name, type, unit, pattern) and
//! `documents` (hints: the document kinds that should hold the evidence). JSON, TOML,
//! YAML, or CSV with the registry columns. Top-level keys besides `requirements` are the
//! checklist's metadata and pass through as given; requirement keys attest does not read
//! are kept (`extra`) and warned about, never fatal.
//! Requirements without declared fields are mapped to the field catalogue by their
//! category and text, and the mapping used is recorded.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::fields::{catalogue, FieldSpec, FieldType, Position};

mod csv;
mod declared;
mod mapped;
mod raw;
mod warn;

use csv::from_csv;
pub use declared::subject_words;
use declared::{declared_field, scoped};
pub use mapped::field_question;
use mapped::mapped_fields;
use raw::{bounded, data_reason, parse_raw};
use warn::warnings;

/// Largest checklist file read.
pub const MAX_CHECKLIST_BYTES: u64 = 4 << 20;
/// Most fields one requirement declares.
pub const MAX_FIELDS: usize = 32;
/// Most requirements in one checklist.
pub const MAX_REQUIREMENTS: usize = 2_000;

pub use crate::error::ChecklistError;

/// How a requirement is validated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ValidationType {
    /// Evidence must exist.
    DocumentPresence,
    /// A value must be stated.
    StructuredField,
    /// Values must agree across documents.
    CrossDocument,
    /// A person decides.
    Manual,
}

impl ValidationType {
    /// The name, as checklists spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            ValidationType::DocumentPresence => "document_presence",
            ValidationType::StructuredField => "structured_field",
            ValidationType::CrossDocument => "cross_document",
            ValidationType::Manual => "manual",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        let s = s.trim().to_ascii_lowercase().replace(['-', ' '], "_");
        [
            ValidationType::DocumentPresence,
            ValidationType::StructuredField,
            ValidationType::CrossDocument,
            ValidationType::Manual,
        ]
        .into_iter()
        .find(|v| v.as_str() == s)
    }

    /// Whether the type asks for field values.
    pub fn wants_fields(self) -> bool {
        matches!(
            self,
            ValidationType::StructuredField | ValidationType::CrossDocument
        )
    }
}

/// Where a requirement's fields came from.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum Mapping {
    /// Declared in the checklist.
    Declared,
    /// Matched to catalogue topics by words of the category or the text.
    Catalogue {
        /// Topics matched, e.g. `land tenure`.
        topics: Vec<String>,
        /// `category` or `requirement_text`.
        matched_in: String,
    },
    /// No field applies (presence and manual requirements, or nothing matched).
    None,
}

/// One checklist requirement.
#[derive(Debug, Clone)]
pub struct Requirement {
    /// Its id (`requirement_id`).
    pub id: String,
    /// Category (e.g. `Land Tenure`).
    pub category: String,
    /// What must be shown.
    pub text: String,
    /// Where the rule comes from.
    pub source: Option<String>,
    /// What counts as evidence.
    pub accepted_evidence: Option<String>,
    /// Whether it is mandatory.
    pub mandatory: bool,
    /// How it is validated.
    pub validation_type: ValidationType,
    /// Scope note of the registry form.
    pub scope: Option<String>,
    /// Fields to extract.
    pub fields: Vec<FieldSpec>,
    /// Where the fields came from.
    pub mapping: Mapping,
    /// Document kinds that should hold the evidence (e.g. `Project Plan`).
    pub documents: Vec<String>,
    /// Keys attest does not read, kept as given (the review passes them through).
    pub extra: Metadata,
}

/// A checklist read from a file.
#[derive(Debug, Clone)]
pub struct Checklist {
    /// The file it was read from.
    pub path: PathBuf,
    /// Its name (`name` or `title` when it declares one, else the file stem).
    pub name: String,
    /// The requirements, in file order.
    pub requirements: Vec<Requirement>,
    /// Every top-level key besides `requirements` (`methodology_id`, `version`, …), as given.
    pub metadata: Metadata,
    /// What was kept but not read, or skipped (never fatal).
    pub warnings: Vec<ChecklistWarning>,
}

/// The format of a checklist file, by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `.json`, and any extension not named below.
    Json,
    /// `.toml`.
    Toml,
    /// `.yaml` or `.yml`.
    Yaml,
    /// `.csv`: the registry columns, one requirement a row.
    Csv,
}

impl Format {
    /// The format of the file at `path`.
    pub fn of(path: &Path) -> Self {
        let ext = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        match ext.as_deref() {
            Some("toml") => Format::Toml,
            Some("yaml" | "yml") => Format::Yaml,
            Some("csv") => Format::Csv,
            _ => Format::Json,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Format::Json => "JSON",
            Format::Toml => "TOML",
            Format::Yaml => "YAML",
            Format::Csv => "CSV",
        }
    }
}

/// Keys and values passed through as given, in file order (a JSON object in output).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Metadata(Vec<(String, serde_json::Value)>);

impl Metadata {
    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&serde_json::Value> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// Whether there is no key.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Number of keys.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Keys and values, in file order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &serde_json::Value)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// Set `key` (a key given twice keeps its first place and its last value).
    pub fn insert(&mut self, key: String, value: serde_json::Value) {
        match self.0.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => *v = value,
            None => self.0.push((key, value)),
        }
    }
}

impl Serialize for Metadata {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Metadata {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Entries;
        impl<'de> serde::de::Visitor<'de> for Entries {
            type Value = Metadata;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut m: A,
            ) -> Result<Metadata, A::Error> {
                let mut out = Metadata::default();
                while let Some((k, v)) = m.next_entry::<String, serde_json::Value>()? {
                    out.insert(k, plain(v));
                }
                Ok(out)
            }
        }
        d.deserialize_map(Entries)
    }
}

/// A value as written: a TOML date-time (which serde carries as a one-key object) is its
/// text.
fn plain(v: serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::Object(m) if m.len() == 1 && m.contains_key("$__toml_private_datetime") => {
            m.into_iter().next().map(|(_, v)| v).unwrap_or(Value::Null)
        }
        Value::Object(m) => Value::Object(m.into_iter().map(|(k, v)| (k, plain(v))).collect()),
        Value::Array(a) => Value::Array(a.into_iter().map(plain).collect()),
        v => v,
    }
}

/// What a checklist warning is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WarningKind {
    /// A requirement key attest does not read: kept, passed through under `extra`.
    UnknownRequirementKey,
    /// CSV rows whose every cell is blank: skipped.
    BlankRows,
}

/// Something a checklist holds that the review keeps but does not read, or skips.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChecklistWarning {
    /// What it is about.
    pub kind: WarningKind,
    /// The key, for an unknown requirement key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// The requirements that carry it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub requirements: Vec<String>,
    /// Lines of the file (CSV).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<u64>,
    /// In one sentence.
    pub message: String,
}

#[derive(Deserialize)]
struct RawChecklist {
    requirements: Vec<RawRequirement>,
    #[serde(flatten)]
    metadata: Metadata,
    /// CSV rows skipped as blank.
    #[serde(skip)]
    blank_lines: Vec<u64>,
}

#[derive(Deserialize, Default)]
struct RawRequirement {
    #[serde(default, alias = "id")]
    requirement_id: Option<String>,
    #[serde(default)]
    category: Option<String>,
    #[serde(default, alias = "text")]
    requirement_text: Option<String>,
    #[serde(default)]
    source: Option<String>,
    #[serde(default)]
    accepted_evidence: Option<serde_json::Value>,
    #[serde(default)]
    mandatory: Option<serde_json::Value>,
    #[serde(default)]
    validation_type: Option<String>,
    #[serde(default)]
    scope: Option<String>,
    #[serde(default)]
    fields: Option<Vec<RawField>>,
    #[serde(default, alias = "document_hints")]
    documents: Option<Vec<String>>,
    /// Keys attest does not read, as given.
    #[serde(flatten)]
    extra: Metadata,
    /// Its line (CSV).
    #[serde(skip)]
    line: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawField {
    name: String,
    #[serde(rename = "type")]
    ty: String,
    #[serde(default)]
    unit: Option<String>,
    #[serde(default)]
    pattern: Option<String>,
    #[serde(default)]
    cues: Option<Vec<String>>,
}

/// Read the checklist at `path`: JSON, or by the extension TOML (`.toml`), YAML (`.yaml`,
/// `.yml`) or CSV (`.csv`).
pub fn load(path: &Path) -> Result<Checklist, ChecklistError> {
    let text = read_text(path)?;
    let raw = match Format::of(path) {
        Format::Csv => from_csv(path, &text)?,
        format => parse_raw(&text, format).map_err(|reason| ChecklistError::Format {
            path: path.to_path_buf(),
            reason,
        })?,
    };
    build(path, raw)
}

/// The text of the file at `path`: a regular file of at most [`MAX_CHECKLIST_BYTES`],
/// UTF-8, a byte-order mark dropped.
fn read_text(path: &Path) -> Result<String, ChecklistError> {
    let read = |reason: String| ChecklistError::Read {
        path: path.to_path_buf(),
        reason,
    };
    let meta = std::fs::metadata(path).map_err(|e| read(e.to_string()))?;
    if !meta.is_file() {
        return Err(read("not a regular file".into()));
    }
    if meta.len() > MAX_CHECKLIST_BYTES {
        return Err(read(format!(
            "{} bytes; a checklist is at most {MAX_CHECKLIST_BYTES} bytes",
            meta.len()
        )));
    }
    // Read through a limit too: the file may grow after it was measured.
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_CHECKLIST_BYTES + 1).read_to_end(&mut bytes))
        .map_err(|e| read(e.to_string()))?;
    if bytes.len() as u64 > MAX_CHECKLIST_BYTES {
        return Err(read(format!(
            "more than {MAX_CHECKLIST_BYTES} bytes; a checklist is at most {MAX_CHECKLIST_BYTES} bytes"
        )));
    }
    let text = String::from_utf8(bytes).map_err(|e| read(format!("not UTF-8 ({e})")))?;
    Ok(text
        .strip_prefix('\u{feff}')
        .map(str::to_string)
        .unwrap_or(text))
}

/// A checklist given as a JSON value (a server request body), named `origin` in errors.
pub fn from_value(origin: &Path, value: serde_json::Value) -> Result<Checklist, ChecklistError> {
    let format = |reason: String| ChecklistError::Format {
        path: origin.to_path_buf(),
        reason,
    };
    if !value.is_object() {
        return Err(format(
            "expected an object with a \"requirements\" array".into(),
        ));
    }
    let raw = serde_path_to_error::deserialize(value)
        .map_err(|e| format(data_reason(e.path(), &e.inner().to_string())))?;
    build(origin, raw)
}

fn build(path: &Path, raw: RawChecklist) -> Result<Checklist, ChecklistError> {
    if raw.requirements.is_empty() {
        return Err(ChecklistError::Format {
            path: path.to_path_buf(),
            reason: "the checklist has no requirements".into(),
        });
    }
    if raw.requirements.len() > MAX_REQUIREMENTS {
        return Err(ChecklistError::Format {
            path: path.to_path_buf(),
            reason: format!(
                "{} requirements; at most {MAX_REQUIREMENTS}",
                raw.requirements.len()
            ),
        });
    }
    let requirements = read_requirements(path, raw.requirements)?;
    let warnings = warnings(&requirements, &raw.blank_lines);
    let name = ["name", "title"]
        .iter()
        .filter_map(|k| raw.metadata.get(k)?.as_str())
        .map(str::trim)
        .find(|n| !n.is_empty())
        .map(str::to_string)
        .unwrap_or_else(|| {
            path.file_stem()
                .map(|s| s.to_string_lossy().trim().to_string())
                .unwrap_or_default()
        });
    Ok(Checklist {
        path: path.to_path_buf(),
        name,
        requirements,
        metadata: raw.metadata,
        warnings,
    })
}

/// Every requirement read, ids unique; an error names the requirement (and its line).
fn read_requirements(
    path: &Path,
    raw: Vec<RawRequirement>,
) -> Result<Vec<Requirement>, ChecklistError> {
    let mut seen: std::collections::HashMap<String, Option<u64>> = Default::default();
    let mut requirements = Vec::with_capacity(raw.len());
    for (i, r) in raw.into_iter().enumerate() {
        let line = r.line;
        let fail = |requirement: String, reason: String| ChecklistError::Requirement {
            path: path.to_path_buf(),
            requirement,
            line,
            reason,
        };
        let req = requirement(i, r).map_err(|(who, why)| fail(who, why))?;
        if let Some(first) = seen.insert(req.id.clone(), line) {
            let reason = match first {
                Some(first) => format!("the id appears twice (first on line {first})"),
                None => "the id appears twice".to_string(),
            };
            return Err(fail(req.id, reason));
        }
        requirements.push(req);
    }
    Ok(requirements)
}

/// `mandatory` as given: a boolean, 1 or 0, or one of the words true, false, yes, no, 1,
/// 0 (any case); absent or blank is `None`.
fn flag(v: Option<serde_json::Value>) -> Result<Option<bool>, String> {
    use serde_json::Value;
    let bad = |shown: &str| {
        format!(
            "\"mandatory\" must be true, false, yes, no, 1 or 0, not {}",
            bounded(shown)
        )
    };
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(b)),
        Some(Value::Number(n)) => match n.as_u64() {
            Some(1) => Ok(Some(true)),
            Some(0) => Ok(Some(false)),
            _ => Err(bad(&n.to_string())),
        },
        Some(Value::String(s)) => match s.trim().to_ascii_lowercase().as_str() {
            "" => Ok(None),
            "true" | "yes" | "1" => Ok(Some(true)),
            "false" | "no" | "0" => Ok(Some(false)),
            _ => Err(bad(&format!("{s:?}"))),
        },
        Some(other) => Err(bad(&other.to_string())),
    }
}

/// Requirement number `i` (0-based); an error is (who, why).
fn requirement(i: usize, r: RawRequirement) -> Result<Requirement, (String, String)> {
    let who = r
        .requirement_id
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string);
    let name = who.clone().unwrap_or_else(|| format!("#{}", i + 1));
    let fail = |reason: &str| (name.clone(), reason.to_string());
    let id = who.ok_or_else(|| fail("no \"requirement_id\""))?;
    let text = r
        .requirement_text
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
        .ok_or_else(|| fail("no \"requirement_text\""))?;
    let vt = r
        .validation_type
        .ok_or_else(|| fail("no \"validation_type\""))?;
    let validation_type = ValidationType::parse(&vt).ok_or_else(|| {
        fail(&format!(
            "unknown validation_type {vt:?} (document_presence, structured_field, cross_document, manual)"
        ))
    })?;
    let category = r.category.unwrap_or_default().trim().to_string();
    let (fields, mapping) = match r.fields {
        Some(declared) if declared.len() > MAX_FIELDS => {
            return Err(fail(&format!(
                "{} fields; at most {MAX_FIELDS}",
                declared.len()
            )));
        }
        Some(declared) => (
            declared
                .into_iter()
                .map(|f| declared_field(f, &text))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| fail(&e))?,
            Mapping::Declared,
        ),
        None if validation_type.wants_fields() => mapped_fields(&category, &text),
        None => (Vec::new(), Mapping::None),
    };
    let fields = scoped(fields, &text);
    Ok(Requirement {
        id,
        category,
        text,
        source: r.source.filter(|s| !s.trim().is_empty()),
        accepted_evidence: match r.accepted_evidence {
            Some(v) => evidence_text(v).map_err(|e| fail(&e))?,
            None => None,
        },
        mandatory: flag(r.mandatory).map_err(|e| fail(&e))?.unwrap_or(true),
        validation_type,
        scope: r.scope.filter(|s| !s.trim().is_empty()),
        fields,
        mapping,
        documents: r.documents.unwrap_or_default(),
        extra: r.extra,
    })
}

/// `accepted_evidence` as text: a string, or a list of strings joined with "; ".
fn evidence_text(v: serde_json::Value) -> Result<Option<String>, String> {
    let bad = || "\"accepted_evidence\" must be a string or a list of strings".to_string();
    let s = match v {
        serde_json::Value::String(s) => s,
        serde_json::Value::Array(a) => a
            .iter()
            .map(|x| x.as_str().ok_or_else(bad))
            .collect::<Result<Vec<_>, _>>()?
            .join("; "),
        serde_json::Value::Null => return Ok(None),
        _ => return Err(bad()),
    };
    Ok(Some(s.trim().to_string()).filter(|s| !s.is_empty()))
}

#[cfg(test)]
mod tests {
    use super::declared::name_cues;
    use super::*;

    #[test]
    fn record_keeping_items_map_to_rule_fields_bound_to_their_subject() {
        let c = load_str(
            "r.json",
            r#"{"requirements": [
              {"requirement_id": "A", "category": "Record Retention", "requirement_text": "Audit logs shall be retained for at least 10 years.", "validation_type": "structured_field"},
              {"requirement_id": "B", "category": "Rights", "requirement_text": "The office may extend the deadline to act on a request by no more than 30 days.", "validation_type": "structured_field"},
              {"requirement_id": "C", "category": "Breach", "requirement_text": "The regulator shall be notified not later than 60 days after the end of each calendar year.", "validation_type": "structured_field"},
              {"requirement_id": "D", "category": "Impact", "requirement_text": "The impact on water quality is stated.", "validation_type": "structured_field"}
            ]}"#,
        )
        .unwrap();
        let f = |i: usize| &c.requirements[i].fields;
        assert_eq!(f(0)[0].name, "retention_period_years");
        assert_eq!(f(0)[0].subject, vec!["audit", "logs"]);
        assert_eq!(f(1)[0].name, "response_deadline_days");
        assert_eq!(f(1)[0].extension, Some(true));
        assert_eq!(f(2)[0].name, "notification_deadline_days");
        assert_eq!(
            (f(2)[0].extension, f(2)[0].event.clone()),
            (
                Some(false),
                vec!["end".to_string(), "calendar".into(), "year".into()]
            )
        );
        // "impact on" is no "act on".
        assert!(f(3).is_empty());
    }

    fn load_str(name: &str, text: &str) -> Result<Checklist, ChecklistError> {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        load(&p)
    }

    #[test]
    fn registry_form_maps_fields_by_category_then_text() {
        let c = load_str(
            "c.json",
            r#"{"requirements": [
              {"requirement_id": "R1", "category": "Land Tenure", "requirement_text": "Show the right to use the land.", "mandatory": true, "validation_type": "cross_document"},
              {"requirement_id": "R2", "category": "General", "requirement_text": "State the project start date.", "validation_type": "structured_field"},
              {"requirement_id": "R3", "category": "Safeguards", "requirement_text": "Describe the grievance mechanism.", "validation_type": "document_presence"}
            ]}"#,
        )
        .unwrap();
        let names = |i: usize| -> Vec<String> {
            c.requirements[i]
                .fields
                .iter()
                .map(|f| f.name.clone())
                .collect()
        };
        assert_eq!(names(0), ["owner_name", "area_hectares", "tenure_type"]);
        assert!(
            matches!(&c.requirements[0].mapping, Mapping::Catalogue { matched_in, .. } if matched_in == "category")
        );
        assert_eq!(names(1), ["project_start_date"]);
        assert!(names(2).is_empty());
        assert_eq!(c.requirements[2].mapping, Mapping::None);
        assert_eq!(c.name, "c");
    }

    #[test]
    fn attest_form_in_toml_declares_fields_and_hints() {
        let c = load_str(
            "c.toml",
            r#"name = "Sample"
[[requirements]]
requirement_id = "ID-1"
requirement_text = "The project has a registry identifier."
validation_type = "structured_field"
documents = ["Project Plan"]
fields = [{ name = "project_id", type = "identifier", pattern = "^PRJ-[0-9]{4}$" }]
"#,
        )
        .unwrap();
        let r = &c.requirements[0];
        assert_eq!(r.mapping, Mapping::Declared);
        assert_eq!(r.documents, ["Project Plan"]);
        assert!(r.fields[0].pattern.as_ref().unwrap().is_match("PRJ-0042"));
        assert!(!r.fields[0].cues.is_empty());
        assert_eq!(
            name_cues("docket_number").0,
            ["docket number", "docket no.", "docket no", "docket #"]
        );
        let c = load_str(
            "d.json",
            r#"{"requirements": [{"requirement_id": "X", "requirement_text": "t", "validation_type": "structured_field", "fields": [{"name": "effective_date", "type": "date", "cues": ["This AD is effective", " Effective "]}]}]}"#,
        )
        .unwrap();
        assert_eq!(
            c.requirements[0].fields[0].cues,
            ["this ad is effective", "effective"]
        );
    }

    #[test]
    fn bad_requirements_are_named() {
        let cases = [
            (
                r#"{"requirements": [{"requirement_id": "A", "requirement_text": "x", "validation_type": "vibes"}]}"#,
                "requirement A: unknown validation_type",
            ),
            (
                r#"{"requirements": [{"requirement_id": "A", "requirement_text": "x", "validation_type": "manual"}, {"requirement_id": "A", "requirement_text": "y", "validation_type": "manual"}]}"#,
                "requirement A: the id appears twice",
            ),
            (
                r#"{"requirements": [{"requirement_id": "B", "requirement_text": "  ", "validation_type": "manual"}]}"#,
                "requirement B: no \"requirement_text\"",
            ),
            (
                r#"{"requirements": [{"requirement_text": "x", "validation_type": "manual"}]}"#,
                "requirement #1: no \"requirement_id\"",
            ),
            (r#"{"requirements": []}"#, "no requirements"),
            (
                r#"{"requirements": [{"requirement_id": "C", "requirement_text": "x", "validation_type": "structured_field", "fields": [{"name": "f", "type": "date", "colour": 1}]}]}"#,
                "at requirements[0].fields[0].colour: unknown field `colour`",
            ),
            (
                r#"{"requirements": [{"requirement_id": "E", "requirement_text": "x", "validation_type": "manual", "mandatory": "perhaps"}]}"#,
                "requirement E: \"mandatory\" must be true, false, yes, no, 1 or 0",
            ),
            ("{\"requirements\": [", "not valid JSON"),
            (r#"[1, 2]"#, "expected an object"),
            (
                r#"{"requirements": [{"requirement_id": "D", "requirement_text": "x", "validation_type": "structured_field", "fields": [{"name": "f", "type": "date", "pattern": "("}]}]}"#,
                "requirement D: field f: pattern",
            ),
        ];
        for (text, want) in cases {
            let e = load_str("c.json", text).unwrap_err().to_string();
            assert!(e.contains(want), "{e} should contain {want}");
            assert!(e.contains("c.json"), "{e}");
        }
    }

    /// The same registry checklist as JSON (with metadata), TOML, YAML and CSV.
    const REGISTRY_JSON: &str = r#"{
      "methodology_id": "VM0033",
      "methodology_name": "Tidal Wetland and Seagrass Restoration",
      "version": "2.1",
      "protocol": {"name": "VCS", "edition": 4},
      "program_guide_version": 4.5,
      "requirements": [
        {"requirement_id": "LT-01", "category": "Land Tenure", "requirement_text": "Show the right to use the land.", "source": "VCS 3.6", "accepted_evidence": ["Lease", "Title deed"], "mandatory": true, "validation_type": "cross_document", "scope": "project"},
        {"requirement_id": "GM-01", "category": "Safeguards", "requirement_text": "Describe the grievance mechanism, if any.", "mandatory": "no", "validation_type": "document_presence"}
      ]}"#;
    const REGISTRY_YAML: &str = "methodology_id: VM0033\nmethodology_name: Tidal Wetland and Seagrass Restoration\nversion: '2.1'\nprotocol: {name: VCS, edition: 4}\nprogram_guide_version: 4.5\nrequirements:\n  - requirement_id: LT-01\n    category: Land Tenure\n    requirement_text: Show the right to use the land.\n    source: VCS 3.6\n    accepted_evidence: [Lease, Title deed]\n    mandatory: true\n    validation_type: cross_document\n    scope: project\n  - requirement_id: GM-01\n    category: Safeguards\n    requirement_text: Describe the grievance mechanism, if any.\n    mandatory: no\n    validation_type: document_presence\n";
    const REGISTRY_TOML: &str = "methodology_id = \"VM0033\"\nmethodology_name = \"Tidal Wetland and Seagrass Restoration\"\nversion = \"2.1\"\nprogram_guide_version = 4.5\nprotocol = { name = \"VCS\", edition = 4 }\n\n[[requirements]]\nrequirement_id = \"LT-01\"\ncategory = \"Land Tenure\"\nrequirement_text = \"Show the right to use the land.\"\nsource = \"VCS 3.6\"\naccepted_evidence = [\"Lease\", \"Title deed\"]\nmandatory = true\nvalidation_type = \"cross_document\"\nscope = \"project\"\n\n[[requirements]]\nrequirement_id = \"GM-01\"\ncategory = \"Safeguards\"\nrequirement_text = \"Describe the grievance mechanism, if any.\"\nmandatory = \"no\"\nvalidation_type = \"document_presence\"\n";
    const REGISTRY_CSV: &str = "\u{feff}requirement_id,category,requirement_text,source,accepted_evidence,mandatory,validation_type,scope\r\nLT-01,Land Tenure,Show the right to use the land.,VCS 3.6,Lease; Title deed,yes,cross_document,project\r\nGM-01,Safeguards,\"Describe the grievance mechanism, if any.\",,,0,document_presence,\r\n";

    /// What the review reads of a requirement, comparable across formats.
    fn reading(c: &Checklist) -> Vec<String> {
        c.requirements
            .iter()
            .map(|r| {
                let fields: Vec<&str> = r.fields.iter().map(|f| f.name.as_str()).collect();
                format!(
                    "{}|{}|{}|{:?}|{:?}|{}|{}|{:?}|{fields:?}|{:?}|{:?}",
                    r.id,
                    r.category,
                    r.text,
                    r.source,
                    r.accepted_evidence,
                    r.mandatory,
                    r.validation_type.as_str(),
                    r.scope,
                    r.mapping,
                    r.extra
                )
            })
            .collect()
    }

    #[test]
    fn one_registry_checklist_reads_the_same_in_json_toml_yaml_and_csv() {
        let json = load_str("vm0033.json", REGISTRY_JSON).unwrap();
        assert_eq!(
            json.requirements[0].accepted_evidence.as_deref(),
            Some("Lease; Title deed")
        );
        assert!(json.requirements[0].mandatory && !json.requirements[1].mandatory);
        assert!(json.warnings.is_empty(), "{:?}", json.warnings);
        for (name, text) in [
            ("vm0033.toml", REGISTRY_TOML),
            ("vm0033.yaml", REGISTRY_YAML),
            ("vm0033.yml", REGISTRY_YAML),
            ("vm0033.csv", REGISTRY_CSV),
        ] {
            let other = load_str(name, text).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(reading(&other), reading(&json), "{name}");
            assert_eq!(other.name, "vm0033", "{name}");
            assert!(other.warnings.is_empty(), "{name}: {:?}", other.warnings);
            if !name.ends_with(".csv") {
                let keys = |c: &Checklist| {
                    c.metadata
                        .iter()
                        .map(|(k, v)| (k.to_string(), v.clone()))
                        .collect::<std::collections::BTreeMap<_, _>>()
                };
                assert_eq!(keys(&other), keys(&json), "{name}");
            }
        }
    }

    #[test]
    fn top_level_metadata_passes_through_in_file_order() {
        let c = load_str("vm0033.json", REGISTRY_JSON).unwrap();
        let keys: Vec<&str> = c.metadata.iter().map(|(k, _)| k).collect();
        assert_eq!(
            keys,
            [
                "methodology_id",
                "methodology_name",
                "version",
                "protocol",
                "program_guide_version"
            ]
        );
        assert_eq!(
            serde_json::to_value(&c.metadata).unwrap(),
            serde_json::json!({"methodology_id": "VM0033", "methodology_name": "Tidal Wetland and Seagrass Restoration", "version": "2.1", "protocol": {"name": "VCS", "edition": 4}, "program_guide_version": 4.5})
        );
        let yaml = load_str("c.yaml", REGISTRY_YAML).unwrap();
        let keys: Vec<&str> = yaml.metadata.iter().map(|(k, _)| k).collect();
        assert_eq!(keys[..2], ["methodology_id", "methodology_name"]);
        // A declared name names the checklist; a TOML date is its text.
        let c = load_str(
            "c.toml",
            "title = \"Wetland checklist\"\nissued = 2024-03-01\n[[requirements]]\nid = \"A\"\ntext = \"t\"\nvalidation_type = \"manual\"\n",
        )
        .unwrap();
        assert_eq!(c.name, "Wetland checklist");
        assert_eq!(
            c.metadata.get("issued"),
            Some(&serde_json::json!("2024-03-01"))
        );
    }

    #[test]
    fn unknown_requirement_keys_are_kept_and_warned_about_not_fatal() {
        let c = load_str(
            "c.json",
            r#"{"requirements": [
              {"requirement_id": "A", "requirement_text": "x", "validation_type": "manual", "guidance": "See annex 2", "weight": 3},
              {"requirement_id": "B", "requirement_text": "y", "validation_type": "manual", "guidance": "None"}
            ]}"#,
        )
        .unwrap();
        assert_eq!(
            c.requirements[0].extra.get("guidance"),
            Some(&"See annex 2".into())
        );
        assert_eq!(c.requirements[0].extra.get("weight"), Some(&3.into()));
        let w: Vec<(Option<&str>, &[String])> = c
            .warnings
            .iter()
            .map(|w| (w.key.as_deref(), w.requirements.as_slice()))
            .collect();
        assert_eq!(
            w,
            [
                (Some("guidance"), &["A".to_string(), "B".to_string()][..]),
                (Some("weight"), &["A".to_string()][..])
            ]
        );
        assert!(
            c.warnings[0].message.contains("\"guidance\""),
            "{}",
            c.warnings[0].message
        );
        assert_eq!(c.warnings[0].kind, WarningKind::UnknownRequirementKey);
        // In CSV, an extra column is such a key; blank rows are skipped with a warning.
        let c = load_str(
            "c.csv",
            "requirement_id,requirement_text,validation_type,Reviewer notes,\nA,x,manual,check annex,\n,,,,\nB,y,manual,,\n",
        )
        .unwrap();
        assert_eq!(c.requirements.len(), 2);
        assert_eq!(
            c.requirements[0].extra.get("Reviewer notes"),
            Some(&"check annex".into())
        );
        assert!(c.requirements[1].extra.is_empty());
        assert_eq!(c.warnings.len(), 2, "{:?}", c.warnings);
        assert_eq!(c.warnings[1].kind, WarningKind::BlankRows);
        assert_eq!(c.warnings[1].lines, [3]);
    }

    #[test]
    fn csv_errors_name_the_file_and_the_line() {
        let header = "requirement_id,category,requirement_text,source,accepted_evidence,mandatory,validation_type,scope\n";
        let cases = [
            (
                format!("{header}A,c,t,,,yes,manual,\nB,c,t,manual\n"),
                "c.csv: line 3: 4 fields where the header has 8",
            ),
            (
                format!("{header}A,c,t,,,yes,manual,\nA,c,u,,,no,manual,\n"),
                "c.csv: line 3: requirement A: the id appears twice (first on line 2)",
            ),
            (
                format!("{header}\nA,c,t,,,yes,manual,\nB,c,t,manual\n").replace('\n', "\r\n"),
                "c.csv: line 4: 4 fields where the header has 8",
            ),
            (
                format!("{header}A,c,t,,,yes,manual,\nA,c,u,,,no,manual,\n").replace('\n', "\r\n"),
                "c.csv: line 3: requirement A: the id appears twice (first on line 2)",
            ),
            (
                format!("{header}A,c,t,,,maybe,manual,\n"),
                "c.csv: line 2: requirement A: \"mandatory\" must be",
            ),
            (
                format!("{header}A,c,t,,,,vibes,\n"),
                "c.csv: line 2: requirement A: unknown validation_type",
            ),
            (
                format!("{header}A,c,,,,,manual,\n"),
                "c.csv: line 2: requirement A: no \"requirement_text\"",
            ),
            (
                "requirement_id,category,validation_type\nA,c,manual\n".to_string(),
                "c.csv: line 1: no \"requirement_text\" column",
            ),
            (
                "requirement_id,requirement_text,validation_type,fields\n".to_string(),
                "c.csv: line 1: a \"fields\" column",
            ),
            (
                "id,requirement_id,requirement_text,validation_type\n".to_string(),
                "c.csv: line 1: the column \"requirement_id\" appears twice",
            ),
            (
                header.to_string(),
                "c.csv: the checklist has no requirements",
            ),
            (String::new(), "c.csv: line 1: no header row"),
        ];
        for (text, want) in cases {
            let e = load_str("c.csv", &text).unwrap_err().to_string();
            assert!(e.contains(want), "{e} should contain {want}");
        }
    }

    #[test]
    fn yaml_errors_are_named_and_bounded() {
        let e = load_str("c.yaml", "requirements: [\n  - a: b\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("c.yaml: not valid YAML"), "{e}");
        let e = load_str("c.yml", "- 1\n- 2\n").unwrap_err().to_string();
        assert!(e.contains("expected an object"), "{e}");
        let e = load_str("c.yaml", "requirements:\n  - requirement_id: A\n    requirement_text: x\n    validation_type: manual\n    fields: seven\n").unwrap_err().to_string();
        assert!(e.contains("at requirements[0].fields"), "{e}");
        // Alias expansion is bounded ("billion laughs").
        let mut bomb = String::from(
            "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
        );
        for (i, prev) in ('b'..='j').zip('a'..='i') {
            bomb.push_str(&format!("{i}: &{i} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]\n"));
        }
        bomb.push_str("requirements: []\n");
        let e = load_str("bomb.yaml", &bomb).unwrap_err().to_string();
        assert!(
            e.contains("bomb.yaml") && e.contains("repetition limit exceeded"),
            "{e}"
        );
    }

    #[test]
    fn mandatory_accepts_booleans_words_and_digits() {
        for (given, want) in [
            (serde_json::json!(true), Some(true)),
            (serde_json::json!("No"), Some(false)),
            (serde_json::json!(" YES "), Some(true)),
            (serde_json::json!("1"), Some(true)),
            (serde_json::json!(0), Some(false)),
            (serde_json::json!(""), None),
            (serde_json::Value::Null, None),
        ] {
            assert_eq!(flag(Some(given.clone())).unwrap(), want, "{given}");
        }
        for bad in [
            serde_json::json!(2),
            serde_json::json!("maybe"),
            serde_json::json!([true]),
        ] {
            assert!(flag(Some(bad.clone())).is_err(), "{bad}");
        }
    }
}
