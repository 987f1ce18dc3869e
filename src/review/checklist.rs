//! Checklist files: the common registry form (`requirements: [{requirement_id, category,
//! requirement_text, source, accepted_evidence, mandatory, validation_type, scope}]`) and
//! attest's form, which may also declare `fields` (name, type, unit, pattern) and
//! `documents` (hints: the document kinds that should hold the evidence). JSON or TOML.
//! Requirements without declared fields are mapped to the field catalogue by their
//! category and text, and the mapping used is recorded.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::fields::{catalogue, FieldSpec, FieldType, Position};

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
}

/// A checklist read from a file.
#[derive(Debug, Clone)]
pub struct Checklist {
    /// The file it was read from.
    pub path: PathBuf,
    /// Its name (the file stem when it declares none).
    pub name: String,
    /// The requirements, in file order.
    pub requirements: Vec<Requirement>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawChecklist {
    #[serde(default, alias = "title")]
    name: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    version: Option<serde_json::Value>,
    requirements: Vec<RawRequirement>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
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
    mandatory: Option<bool>,
    #[serde(default)]
    validation_type: Option<String>,
    #[serde(default)]
    scope: Option<String>,
    #[serde(default)]
    fields: Option<Vec<RawField>>,
    #[serde(default, alias = "document_hints")]
    documents: Option<Vec<String>>,
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

/// Read the checklist at `path` (JSON, or TOML by the `.toml` extension).
pub fn load(path: &Path) -> Result<Checklist, ChecklistError> {
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
    let bytes = std::fs::read(path).map_err(|e| read(e.to_string()))?;
    let text = String::from_utf8(bytes).map_err(|e| read(format!("not UTF-8 ({e})")))?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text).to_string(); // a UTF-8 BOM
    let toml = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("toml"));
    let raw = parse_raw(&text, toml).map_err(|reason| ChecklistError::Format {
        path: path.to_path_buf(),
        reason,
    })?;
    build(path, raw)
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
        .map_err(|e| format(format!("at {}: {}", e.path(), e.inner())))?;
    build(origin, raw)
}

fn parse_raw(text: &str, toml: bool) -> Result<RawChecklist, String> {
    let value: serde_json::Value = if toml {
        let t: toml::Value = toml::from_str(text).map_err(|e| format!("not valid TOML ({e})"))?;
        serde_json::to_value(t).map_err(|e| format!("not a checklist ({e})"))?
    } else {
        serde_json::from_str(text).map_err(|e| format!("not valid JSON ({e})"))?
    };
    if !value.is_object() {
        return Err("expected an object with a \"requirements\" array".into());
    }
    serde_path_to_error::deserialize(value).map_err(|e| format!("at {}: {}", e.path(), e.inner()))
}

fn build(path: &Path, raw: RawChecklist) -> Result<Checklist, ChecklistError> {
    let _ = (&raw.description, &raw.version);
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
    let mut seen = HashSet::new();
    let mut requirements = Vec::with_capacity(raw.requirements.len());
    for (i, r) in raw.requirements.into_iter().enumerate() {
        let req =
            requirement(i, r).map_err(|(requirement, reason)| ChecklistError::Requirement {
                path: path.to_path_buf(),
                requirement,
                reason,
            })?;
        if !seen.insert(req.id.clone()) {
            return Err(ChecklistError::Requirement {
                path: path.to_path_buf(),
                requirement: req.id,
                reason: "the id appears twice".into(),
            });
        }
        requirements.push(req);
    }
    let name = raw
        .name
        .filter(|n| !n.trim().is_empty())
        .unwrap_or_else(|| {
            path.file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default()
        });
    Ok(Checklist {
        path: path.to_path_buf(),
        name: name.trim().to_string(),
        requirements,
    })
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
                .map(declared_field)
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| fail(&e))?,
            Mapping::Declared,
        ),
        None if validation_type.wants_fields() => mapped_fields(&category, &text),
        None => (Vec::new(), Mapping::None),
    };
    Ok(Requirement {
        id,
        category,
        text,
        source: r.source.filter(|s| !s.trim().is_empty()),
        accepted_evidence: match r.accepted_evidence {
            Some(v) => evidence_text(v).map_err(|e| fail(&e))?,
            None => None,
        },
        mandatory: r.mandatory.unwrap_or(true),
        validation_type,
        scope: r.scope.filter(|s| !s.trim().is_empty()),
        fields,
        mapping,
        documents: r.documents.unwrap_or_default(),
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

/// A declared field: its catalogue entry's cues when the name is a catalogue field,
/// otherwise cues from the words of its name.
fn declared_field(f: RawField) -> Result<FieldSpec, String> {
    let name = f.name.trim().to_string();
    if name.is_empty() {
        return Err("a field has an empty name".into());
    }
    let ty =
        FieldType::parse(&f.ty).ok_or_else(|| format!("field {name}: unknown type {:?}", f.ty))?;
    let pattern = match f.pattern {
        Some(p) => Some(
            regex::RegexBuilder::new(&p)
                .size_limit(1 << 20)
                .build()
                .map_err(|e| format!("field {name}: pattern {p:?}: {e}"))?,
        ),
        None => None,
    };
    let known = catalogue().into_iter().find(|c| c.name == name);
    let mut spec = match known {
        Some(c) if c.ty == ty => c,
        _ => FieldSpec {
            cues: name_cues(&name),
            position: if name.ends_with("_end") {
                Position::RangeEnd
            } else if name.ends_with("_start") {
                Position::RangeStart
            } else {
                Position::Any
            },
            name: name.clone(),
            ty,
            pattern: None,
            unit: None,
        },
    };
    if pattern.is_some() {
        spec.pattern = pattern;
    }
    if f.unit.is_some() {
        spec.unit = f.unit;
    }
    if let Some(cues) = f.cues {
        let cues: Vec<String> = cues
            .iter()
            .map(|c| c.trim().to_ascii_lowercase())
            .filter(|c| !c.is_empty())
            .collect();
        if cues.is_empty() {
            return Err(format!("field {name}: \"cues\" is empty"));
        }
        spec.cues = cues;
    }
    Ok(spec)
}

/// Cues of a declared field from its name: `docket_number` → `docket number`, `docket
/// no`, `docket no.`; a `_start`/`_end`/`_date` suffix also gives the name without it.
fn name_cues(name: &str) -> Vec<String> {
    let words = name.to_ascii_lowercase().replace(['_', '-'], " ");
    let mut cues = vec![words.clone()];
    if let Some(stem) = words.strip_suffix(" number") {
        cues.extend([
            format!("{stem} no."),
            format!("{stem} no"),
            format!("{stem} #"),
        ]);
    }
    if let Some(stem) = words.strip_suffix(" id") {
        cues.extend([format!("{stem} identifier"), format!("{stem} no.")]);
    }
    for suffix in [" start", " end", " date"] {
        if let Some(stem) = words.strip_suffix(suffix).filter(|s| s.contains(' ')) {
            cues.push(stem.to_string());
        }
    }
    cues
}

/// A catalogue topic: words that name it, and its fields.
struct Topic {
    name: &'static str,
    words: &'static [&'static str],
    fields: &'static [&'static str],
}

const TOPICS: &[Topic] = &[
    Topic {
        name: "land tenure",
        words: &[
            "tenure",
            "land title",
            "land ownership",
            "ownership of the land",
            "right to the land",
            "rights to the land",
            "land rights",
            "legal right",
            "title deed",
            "landowner",
        ],
        fields: &["owner_name", "area_hectares", "tenure_type"],
    },
    Topic {
        name: "crediting period",
        words: &["crediting period"],
        fields: &[
            "crediting_period_years",
            "crediting_period_start",
            "crediting_period_end",
        ],
    },
    Topic {
        name: "project start date",
        words: &["start date", "project start", "commencement"],
        fields: &["project_start_date"],
    },
    Topic {
        name: "leakage",
        words: &["leakage"],
        fields: &["leakage_percentage"],
    },
    Topic {
        name: "permanence",
        words: &["permanence"],
        fields: &["permanence_period_years"],
    },
    Topic {
        name: "buffer pool",
        words: &["buffer"],
        fields: &["buffer_pool_percentage"],
    },
    Topic {
        name: "identifiers",
        words: &[
            "project id",
            "project identifier",
            "identification number",
            "registry id",
            "registration number",
            "project number",
        ],
        fields: &["project_id"],
    },
];

/// The topics whose words occur in `text` (lowercased).
fn topics_in(text: &str) -> Vec<&'static Topic> {
    let t = text.to_lowercase();
    TOPICS
        .iter()
        .filter(|topic| topic.words.iter().any(|w| t.contains(w)))
        .collect()
}

/// Fields for a requirement without declared ones: the category decides when it names a
/// topic, otherwise the requirement text.
fn mapped_fields(category: &str, text: &str) -> (Vec<FieldSpec>, Mapping) {
    let (topics, matched_in) = match topics_in(category) {
        t if !t.is_empty() => (t, "category"),
        _ => (topics_in(text), "requirement_text"),
    };
    if topics.is_empty() {
        return (Vec::new(), Mapping::None);
    }
    let all = catalogue();
    let fields = topics
        .iter()
        .flat_map(|t| t.fields.iter())
        .filter_map(|name| all.iter().find(|c| c.name == *name).cloned())
        .collect();
    let mapping = Mapping::Catalogue {
        topics: topics.iter().map(|t| t.name.to_string()).collect(),
        matched_in: matched_in.into(),
    };
    (fields, mapping)
}

/// Plain-language question for a field, used as a research query.
pub fn field_question(spec: &FieldSpec) -> String {
    match spec.name.as_str() {
        "owner_name" => "Who is the owner of the land?".into(),
        "area_hectares" => "What is the area of the land in hectares or acres?".into(),
        "tenure_type" => "Is the land owned or leased (land tenure)?".into(),
        "project_start_date" => "What is the project start date?".into(),
        "crediting_period_years" => "How many years is the crediting period?".into(),
        "crediting_period_start" | "crediting_period_end" => {
            "When does the crediting period start and end?".into()
        }
        "leakage_percentage" => "What is the leakage percentage?".into(),
        "permanence_period_years" => "How many years is the permanence period?".into(),
        "buffer_pool_percentage" => "What percentage goes to the buffer pool?".into(),
        "project_id" => "What is the project ID?".into(),
        other => format!("What is the {}?", other.replace('_', " ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
            name_cues("docket_number"),
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
                r#"{"requirements": [{"requirement_id": "C", "requirement_text": "x", "validation_type": "manual", "colour": 1}]}"#,
                "unknown field",
            ),
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
}
