//! The evidence stage (design.md §1): [`extract`] verbatim evidence candidates from
//! retrieved chunks, [`verify`] them (verbatim, complete, relevant), [`compose`] a
//! cite-only answer, and check it with the Evidence [`gate`]; the [`support`] check guards
//! sentences that are not verbatim quotes, such as those an optional generator writes when
//! it [`phrase`]s the answer. Also the evidence files `attest validate` reads.

pub mod claims;
pub mod compose;
pub mod extract;
pub mod gate;
pub mod phrase;
pub mod support;
pub mod verify;

use std::collections::{HashMap, HashSet};
use std::path::Path;

use crate::error::Error;

/// Read the ids of an evidence file (see [`read_evidence`]).
pub fn evidence_ids(path: &Path) -> Result<HashSet<String>, Error> {
    Ok(read_evidence(path)?.into_keys().collect())
}

/// Read an evidence file: a JSON array of items, or an object with an `evidence` array
/// (the answer JSON). Every item needs a string `id` (unique); `quote`, when present,
/// must be a string. Returns id → quote.
pub fn read_evidence(path: &Path) -> Result<HashMap<String, Option<String>>, Error> {
    let bad = |msg: String| Error::Usage(format!("{}: {msg}", path.display()));
    let text = std::fs::read_to_string(path).map_err(|e| bad(e.to_string()))?;
    let v: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| bad(format!("not valid JSON ({e})")))?;
    let items =
        match &v {
            serde_json::Value::Array(a) => a,
            serde_json::Value::Object(o) => match o.get("evidence") {
                Some(serde_json::Value::Array(a)) => a,
                _ => return Err(bad(
                    "expected an array of evidence items or an object with an \"evidence\" array"
                        .into(),
                )),
            },
            _ => {
                return Err(bad(
                    "expected an array of evidence items or an object with an \"evidence\" array"
                        .into(),
                ))
            }
        };
    let mut ids = HashMap::new();
    for (i, item) in items.iter().enumerate() {
        let id = item
            .get("id")
            .and_then(|id| id.as_str())
            .filter(|id| !id.trim().is_empty())
            .ok_or_else(|| bad(format!("evidence item {} has no string \"id\"", i + 1)))?;
        let quote = match item.get("quote") {
            None | Some(serde_json::Value::Null) => None,
            Some(serde_json::Value::String(q)) => Some(q.clone()),
            Some(_) => {
                return Err(bad(format!(
                    "evidence item {} ({id}): \"quote\" is not a string",
                    i + 1
                )))
            }
        };
        if ids.insert(id.to_string(), quote).is_some() {
            return Err(bad(format!(
                "evidence id {id:?} appears twice (item {})",
                i + 1
            )));
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
            (r#"[{"quote": "x"}]"#, "item 1 has no string \"id\""),
            (r#"[{"id": "E1"}, {"id": "E1"}]"#, "appears twice"),
            (r#"{"evidence": 3}"#, "expected an array"),
            (r#"[{"id": "E1", "quote": 7}]"#, "\"quote\" is not a string"),
            ("[{", "not valid JSON"),
        ] {
            std::fs::write(&p, body).unwrap();
            let e = evidence_ids(&p).unwrap_err().to_string();
            assert!(e.contains(msg) && e.contains("e.json"), "{body}: {e}");
        }
        assert!(evidence_ids(&tmp.path().join("missing.json")).is_err());
    }
}
