//! The evidence stage (design.md §1): [`extract`] verbatim evidence candidates from
//! retrieved chunks, [`verify`] them (verbatim, complete, relevant), [`compose`] a
//! cite-only answer, and check it with the Evidence [`gate`]; the [`support`] check guards
//! sentences that are not verbatim quotes, such as those an optional generator writes when
//! it [`phrase`]s the answer. Also the evidence files `attest validate` reads.

pub mod claims;
pub mod compose;
pub mod extract;
pub mod fitted;
pub mod gate;
pub mod phrase;
pub mod provision;
pub mod subject;
pub mod support;
pub mod verify;

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde::Deserialize;

use crate::error::Error;

/// One item of an evidence file: its id and, when present, its quote (other fields, such
/// as those of the answer JSON's evidence items, are ignored).
#[derive(Debug, Deserialize)]
struct EvidenceItem {
    id: String,
    #[serde(default)]
    quote: Option<String>,
}

/// The answer JSON's shape: an object with an `evidence` array.
#[derive(Debug, Deserialize)]
struct AnswerShape {
    evidence: Vec<EvidenceItem>,
}

/// Read the ids of an evidence file (see [`read_evidence`]).
pub fn evidence_ids(path: &Path) -> Result<HashSet<String>, Error> {
    Ok(read_evidence(path)?.into_keys().collect())
}

/// Read an evidence file: a JSON array of items, or an object with an `evidence` array
/// (the answer JSON). Every item needs a string `id` (non-empty, unique); `quote`, when
/// present, must be a string. Returns id → quote. Errors name the file and the JSON path
/// of the offending field.
pub fn read_evidence(path: &Path) -> Result<HashMap<String, Option<String>>, Error> {
    let bad = |msg: String| Error::Usage(format!("{}: {msg}", path.display()));
    let text = std::fs::read_to_string(path).map_err(|e| bad(e.to_string()))?;
    let items = parse_items(&text).map_err(bad)?;
    index_items(items).map_err(bad)
}

/// The items of an evidence file's text, in either shape.
fn parse_items(text: &str) -> Result<Vec<EvidenceItem>, String> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("not valid JSON ({e})"))?;
    let parsed = match value {
        serde_json::Value::Array(_) => serde_path_to_error::deserialize(value),
        serde_json::Value::Object(_) => {
            serde_path_to_error::deserialize(value).map(|a: AnswerShape| a.evidence)
        }
        _ => {
            return Err(
                "expected an array of evidence items or an object with an \"evidence\" array"
                    .into(),
            )
        }
    };
    parsed.map_err(|e| format!("at {}: {}", e.path(), e.inner()))
}

/// id → quote, refusing empty and repeated ids.
fn index_items(items: Vec<EvidenceItem>) -> Result<HashMap<String, Option<String>>, String> {
    let mut ids = HashMap::new();
    for (i, item) in items.into_iter().enumerate() {
        if item.id.trim().is_empty() {
            return Err(format!("evidence item {}: \"id\" is empty", i + 1));
        }
        if ids.insert(item.id.clone(), item.quote).is_some() {
            return Err(format!(
                "evidence id {:?} appears twice (item {})",
                item.id,
                i + 1
            ));
        }
    }
    Ok(ids)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evidence_files_in_both_shapes_and_their_errors() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("e.json");
        std::fs::write(&p, r#"[{"id": "E1", "quote": "x"}, {"id": "E2"}]"#).unwrap();
        assert_eq!(evidence_ids(&p).unwrap().len(), 2);
        std::fs::write(&p, r#"{"status": "answered", "evidence": [{"id": "E1"}]}"#).unwrap();
        assert!(evidence_ids(&p).unwrap().contains("E1"));
        for (body, msg) in [
            (r#"[{"quote": "x"}]"#, "at [0]: missing field `id`"),
            (r#"[{"id": 3}]"#, "at [0].id: invalid type: integer `3`"),
            (r#"[{"id": " "}]"#, "item 1: \"id\" is empty"),
            (r#"[{"id": "E1"}, {"id": "E1"}]"#, "appears twice"),
            (
                r#"{"evidence": 3}"#,
                "at evidence: invalid type: integer `3`",
            ),
            (
                r#"{"evidence": [{"id": "E1"}, {}]}"#,
                "at evidence[1]: missing field `id`",
            ),
            ("7", "expected an array"),
            (
                r#"[{"id": "E1", "quote": 7}]"#,
                "at [0].quote: invalid type",
            ),
            ("[{", "not valid JSON"),
        ] {
            std::fs::write(&p, body).unwrap();
            let e = evidence_ids(&p).unwrap_err().to_string();
            assert!(e.contains(msg) && e.contains("e.json"), "{body}: {e}");
        }
        assert!(evidence_ids(&tmp.path().join("missing.json")).is_err());
    }
}
