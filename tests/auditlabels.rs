//! `validate --audit` trusts nothing an audit shows: every label of a cited item (source,
//! title, section, source type, the span in the file…) is derived again from the index
//! and compared, a run that did not answer may state nothing whatever status it claims,
//! and a file changed on disk since ingest is reported.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::cli::{attest, ingest_json, json};

const QUESTION: &str = "How long must visitor logs be kept?";

/// An FAQ and a statute that both speak of visitor logs.
fn corpus(dir: &Path) -> PathBuf {
    let docs = dir.join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(
        docs.join("visitor-faq.md"),
        "# Frequently asked questions\n\n## How long are visitor logs kept?\n\n\
         Visitor logs must be kept for two years after the visit, says the \
         [records team](https://example.org/records).\n",
    )
    .unwrap();
    std::fs::write(
        docs.join("records-act.md"),
        "# Records Act\n\n## § 4.2 Retention of visitor logs\n\n\
         A clinic must keep visitor logs for six years after the visit.\n",
    )
    .unwrap();
    docs
}

/// `validate --audit --json` of `trail` (written to a file): the exit code and report.
fn replay(idx: &Path, dir: &Path, trail: &Value) -> (i32, Value) {
    let path = dir.join("replayed.json");
    std::fs::write(&path, serde_json::to_vec(trail).unwrap()).unwrap();
    let out = attest(idx)
        .args(["validate", "--json", "--audit"])
        .arg(&path)
        .output()
        .unwrap();
    (out.status.code().unwrap(), json(&out.stdout))
}

/// The kinds of drift and violation in replay report `r`.
fn kinds(r: &Value) -> Vec<String> {
    let drift = r["drift"].as_array().unwrap().iter().map(|d| &d["kind"]);
    let gate = r["gate"]["violations"].as_array().into_iter().flatten();
    let violations = r["violations"].as_array().unwrap().iter().chain(gate);
    drift
        .chain(violations.map(|v| &v["type"]))
        .map(|k| k.as_str().unwrap().to_string())
        .collect()
}

/// An index of the corpus, an audit of [`QUESTION`] and the corpus directory.
fn audited(dir: &Path) -> (PathBuf, Value, PathBuf) {
    let docs = corpus(dir);
    let idx = dir.join("idx");
    let (r, code) = ingest_json(&idx, &[&docs]);
    assert_eq!(code, 0, "{r}");
    let audit = dir.join("run.json");
    let out = attest(&idx)
        .args(["ask", QUESTION, "--no-memory", "--json", "--audit"])
        .arg(&audit)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    (idx, json(&std::fs::read(&audit).unwrap()), docs)
}

#[test]
fn relabelled_evidence_fails_the_audit() {
    let tmp = tempfile::tempdir().unwrap();
    let (idx, trail, _) = audited(tmp.path());
    let (code, r) = replay(&idx, tmp.path(), &trail);
    assert_eq!(code, 0, "an untouched audit passes: {r}");
    let e = &trail["evidence"][0];
    assert!(e["file_start"].is_u64(), "{e}");
    let other_type = if e["source_type"] == "statute" {
        "faq"
    } else {
        "statute"
    };
    let forgeries: [(&str, Value); 6] = [
        ("source_type", Value::from(other_type)),
        ("section", Value::from("§ 9.9 Invented section")),
        ("title", Value::from("Records Act (consolidated)")),
        ("source", Value::from("docs/another-statute.md")),
        ("page", Value::from(3)),
        (
            "file_start",
            Value::from(e["file_start"].as_u64().unwrap() + 1),
        ),
    ];
    for (field, value) in forgeries {
        let mut forged = trail.clone();
        forged["evidence"][0][field] = value;
        let (code, r) = replay(&idx, tmp.path(), &forged);
        assert_eq!(code, 1, "{field} relabelled: {r}");
        assert_eq!(r["passed"], false);
        let drift = r["drift"].as_array().unwrap();
        assert!(
            drift
                .iter()
                .any(|d| d["kind"] == "label_mismatch"
                    && d["message"].as_str().unwrap().contains(field)),
            "{field}: {r}"
        );
    }
}

#[test]
fn an_abstention_states_nothing_whatever_its_status() {
    let tmp = tempfile::tempdir().unwrap();
    let (idx, trail, _) = audited(tmp.path());
    // The recorded answer under a status that skips the gate.
    for status in ["no_authoritative_evidence", "rejected_input"] {
        let mut relabelled = trail.clone();
        relabelled["status"] = Value::from(status);
        let (code, r) = replay(&idx, tmp.path(), &relabelled);
        assert_eq!(code, 1, "{status}: {r}");
        assert!(kinds(&r).contains(&"status_mismatch".into()), "{r}");
    }
    // An abstention that states two invented, uncited sentences.
    let mut invented = trail.clone();
    invented["status"] = Value::from("no_authoritative_evidence");
    invented["evidence"] = Value::Array(Vec::new());
    invented["sentences"] = Value::Array(Vec::new());
    invented["answer_value"] = Value::Null;
    invented["answer"] =
        Value::from("Visitor logs may be destroyed at once. No law requires keeping them.");
    let (code, r) = replay(&idx, tmp.path(), &invented);
    assert_eq!(code, 1, "{r}");
    let found = kinds(&r);
    assert!(found.contains(&"status_mismatch".into()), "{r}");
    assert!(r["gate"]["passed"] == false, "the text is gated too: {r}");
    // The same abstention stating nothing passes.
    invented["answer"] = Value::from("");
    let (code, r) = replay(&idx, tmp.path(), &invented);
    assert_eq!(code, 0, "{r}");
}

#[test]
fn a_file_changed_on_disk_since_ingest_is_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let (idx, trail, _) = audited(tmp.path());
    let source = trail["evidence"][0]["source"].as_str().unwrap().to_string();
    let before = std::fs::read_to_string(&source).unwrap();
    std::fs::write(&source, format!("<!-- edited -->\n{before}")).unwrap();
    let (code, r) = replay(&idx, tmp.path(), &trail);
    assert_eq!(code, 0, "the index still holds every quote: {r}");
    let drift = r["drift"].as_array().unwrap();
    assert!(
        drift
            .iter()
            .any(|d| d["kind"] == "file_changed" && d["source"] == source.as_str()),
        "{r}"
    );
}
