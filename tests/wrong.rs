//! Never silently wrong: each test reproduces, through the real binary, a way the engine
//! once gave a wrong result without a warning (stale memory, contradicted figures and
//! negations passing validation, citation markers forged inside documents, a repetitive
//! document taking over, settings that switch the gates off).

use std::path::Path;

use serde_json::Value;

use super::ask::ask_json;
use super::cli::{attest, ingest_json, json, sample_index, scratch_corpus};

const RETENTION: &str = "How long must client records be retained?";

fn memory_hit(a: &Value) -> bool {
    a["metrics"]["memory_hit"].as_bool().unwrap()
}

#[test]
fn memory_is_never_served_after_the_corpus_changes() {
    let tmp = tempfile::tempdir().unwrap();
    let docs = scratch_corpus(tmp.path());
    let idx = tmp.path().join("idx");
    ingest_json(&idx, &[&docs]);
    let (first, code) = ask_json(&idx, RETENTION, &[]);
    assert_eq!(code, 0, "{first}");
    let (again, _) = ask_json(&idx, RETENTION, &[]);
    assert!(
        memory_hit(&again),
        "the same question on the same corpus is served"
    );
    assert_eq!(again["answer"], first["answer"]);
    std::fs::write(
        docs.join("16-retention-update.md"),
        "# Retention update\n\nClient records must now be retained for 25 years after the last date of service.\n",
    )
    .unwrap();
    ingest_json(&idx, &[&docs]);
    let (after, _) = ask_json(&idx, RETENTION, &[]);
    assert!(
        !memory_hit(&after),
        "a changed corpus is never served from memory"
    );
    let (fresh, _) = ask_json(&idx, RETENTION, &["--no-memory"]);
    assert_eq!(
        after["answer"], fresh["answer"],
        "what is served is what a fresh run gives"
    );
    assert_eq!(after["evidence"], fresh["evidence"]);
}

#[test]
fn memory_does_not_serve_a_negated_or_reworded_question() {
    let (_tmp, idx) = sample_index();
    let (first, _) = ask_json(&idx, RETENTION, &[]);
    assert_eq!(first["status"], "answered");
    for q in [
        "How long must client records not be retained?",
        "How long must client records be retained ?!",
        "How long must CLIENT records be retained?",
    ] {
        let (a, _) = ask_json(&idx, q, &[]);
        assert!(!memory_hit(&a), "{q} was served another question's answer");
    }
    // Spacing alone does not make another question.
    let (a, _) = ask_json(&idx, "How long  must client records\tbe retained?", &[]);
    assert!(memory_hit(&a));
}

/// Arguments, environment, and what the error must name.
type Case<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)], &'a [&'a str]);

#[test]
fn out_of_range_and_nan_settings_are_errors_naming_key_and_source() {
    let (_tmp, idx) = sample_index();
    let cases: [Case; 5] = [
        (
            &["ask", RETENTION, "--min-relevance", "nan"],
            &[],
            &["--min-relevance", "finite"],
        ),
        (
            &["search", "records", "--rrf-k", "NaN"],
            &[],
            &["--rrf-k", "finite"],
        ),
        (
            &["ask", RETENTION],
            &[("ATTEST_MEMORY_THRESHOLD", "-1")],
            &["memory_threshold", "ATTEST_MEMORY_THRESHOLD"],
        ),
        (
            &["ask", RETENTION, "--min-relevance", "1.5"],
            &[],
            &["min_relevance", "--min-relevance"],
        ),
        (
            &["search", "records"],
            &[("ATTEST_REBUILD_DEAD_FRACTION", "inf")],
            &["rebuild_dead_fraction", "ATTEST_REBUILD_DEAD_FRACTION"],
        ),
    ];
    for (args, env, wants) in cases {
        let mut c = attest(&idx);
        for (k, v) in env {
            c.env(k, v);
        }
        let out = c.args(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?} {env:?}: {err}");
        for w in wants {
            assert!(err.contains(w), "{args:?}: {w} not in {err}");
        }
    }
    let cfg = idx.parent().unwrap().join("attest.toml");
    std::fs::write(&cfg, "memory_threshold = -1.0\n").unwrap();
    let out = attest(&idx)
        .arg("--config")
        .arg(&cfg)
        .args(["ask", RETENTION])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("memory_threshold") && err.contains("attest.toml"),
        "{err}"
    );
}

fn validate_text(idx: &Path, text: &str, evidence: &str) -> (Value, i32) {
    let dir = tempfile::tempdir().unwrap();
    let (t, e) = (dir.path().join("a.md"), dir.path().join("e.json"));
    std::fs::write(&t, text).unwrap();
    std::fs::write(&e, evidence).unwrap();
    let out = super::cli::validate(idx, &t, &e, &["--json"]);
    (json(&out.stdout), out.status.code().unwrap())
}

pub(crate) fn kinds(r: &Value) -> Vec<String> {
    r["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["type"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn validate_fails_contradicted_figures_negations_and_empty_input() {
    let (_tmp, idx) = sample_index();
    let e1 = r#"[{"id": "E1", "quote": "Client records must be retained for seven years after the last date of service."}]"#;
    for (text, kind) in [
        (
            "Client records must be retained for one year after the last date of service [E1].",
            "figure_not_in_evidence",
        ),
        (
            "Client records must be retained for 30 years after the last date of service [E1].",
            "figure_not_in_evidence",
        ),
        (
            "Client records must not be retained after the last date of service [E1].",
            "polarity_mismatch",
        ),
        (
            "Client records must be retained for seven years [E1; E2].",
            "malformed_citation",
        ),
        ("", "empty_text"),
    ] {
        let (r, code) = validate_text(&idx, text, e1);
        assert_eq!(code, 1, "{text}: {r}");
        assert!(kinds(&r).contains(&kind.to_string()), "{text}: {r}");
    }
    let (r, code) = validate_text(
        &idx,
        "Client records must be retained for 7 years after the last date of service [E1].",
        e1,
    );
    assert_eq!(
        code, 0,
        "the same figure written in digits is supported: {r}"
    );
    let (r, code) = validate_text(&idx, "Client records must be retained [E1].", "[]");
    assert_eq!(code, 1);
    assert!(kinds(&r).contains(&"no_evidence".to_string()), "{r}");
}

fn audited(idx: &Path, dir: &Path) -> (std::path::PathBuf, Value) {
    let audit = dir.join("run.json");
    let out = attest(idx)
        .args(["ask", RETENTION, "--no-memory", "--json", "--audit"])
        .arg(&audit)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&std::fs::read(&audit).unwrap()).unwrap();
    (audit, v)
}

fn replay(idx: &Path, audit: &Path) -> (i32, String) {
    let out = attest(idx)
        .args(["validate", "--audit"])
        .arg(audit)
        .output()
        .unwrap();
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap(), all)
}

#[test]
fn validate_audit_rechecks_the_answer_and_refuses_a_future_corpus() {
    let (tmp, idx) = sample_index();
    let (audit, v) = audited(&idx, tmp.path());
    assert_eq!(replay(&idx, &audit).0, 0, "an untouched audit passes");
    // A forged answer: same citation, another figure.
    let mut forged = v.clone();
    let e1 = forged["evidence"][0]["id"].as_str().unwrap().to_string();
    let text = format!(
        "Client records must be retained for ONE year after the last date of service [{e1}]."
    );
    forged["answer"] = Value::String(text.clone());
    forged["sentences"] = serde_json::json!([{"text": text, "citations": [e1]}]);
    std::fs::write(&audit, serde_json::to_vec(&forged).unwrap()).unwrap();
    let (code, out) = replay(&idx, &audit);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("figure_not_in_evidence"), "{out}");
    // A recorded sentence the answer does not hold.
    let mut edited = v.clone();
    edited["sentences"][0]["text"] =
        Value::String("Records may be destroyed at any time [E1].".into());
    std::fs::write(&audit, serde_json::to_vec(&edited).unwrap()).unwrap();
    let (code, out) = replay(&idx, &audit);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("sentence_mismatch"), "{out}");
    // A corpus version this index never had.
    let mut future = v;
    future["corpus_version"] = Value::from(9_999);
    std::fs::write(&audit, serde_json::to_vec(&future).unwrap()).unwrap();
    let (code, out) = replay(&idx, &audit);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("9999") && out.contains("run.json"), "{out}");
}

#[test]
fn citation_markers_inside_documents_are_neutralised() {
    let tmp = tempfile::tempdir().unwrap();
    let docs = scratch_corpus(tmp.path());
    std::fs::write(
        docs.join("16-badges.md"),
        "# Badge access\n\nBadge access logs for the records room must be retained for 99 years [E2]. \
         The security office reviews the badge access logs every month [cite:E1].\n",
    )
    .unwrap();
    let idx = tmp.path().join("idx");
    ingest_json(&idx, &[&docs]);
    let (a, code) = ask_json(
        &idx,
        "How long must badge access logs be retained?",
        &["--no-memory"],
    );
    assert_eq!(code, 0, "{a}");
    let answer = a["answer"].as_str().unwrap();
    assert!(
        answer.contains("99 years ［E2］"),
        "the marker is shown, neutralised: {answer}"
    );
    // Every marker the gate counts is one the composer placed on a sentence.
    let placed: usize = a["sentences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["citations"].as_array().unwrap().len())
        .sum();
    assert_eq!(
        a["gate"]["citations"].as_u64().unwrap() as usize,
        placed,
        "{a}"
    );
    let ids: Vec<&str> = a["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap())
        .collect();
    for s in a["sentences"].as_array().unwrap() {
        for c in s["citations"].as_array().unwrap() {
            assert!(ids.contains(&c.as_str().unwrap()));
        }
    }
    // The answer still validates against its own evidence.
    let dir = tempfile::tempdir().unwrap();
    let (t, e) = (dir.path().join("a.md"), dir.path().join("e.json"));
    std::fs::write(&t, answer).unwrap();
    std::fs::write(&e, serde_json::to_vec(&a).unwrap()).unwrap();
    let out = super::cli::validate(&idx, &t, &e, &["--json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn a_repetitive_document_does_not_take_over() {
    let tmp = tempfile::tempdir().unwrap();
    let docs = scratch_corpus(tmp.path());
    let line = "Client records must be retained for seven years after the last date of service. ";
    std::fs::write(docs.join("00-repeat.md"), line.repeat(800)).unwrap();
    let idx = tmp.path().join("idx");
    let (r, code) = ingest_json(&idx, &[&docs]);
    assert_eq!(code, 0, "{r}");
    let out = attest(&idx)
        .args(["search", RETENTION, "--json", "--k", "10"])
        .output()
        .unwrap();
    let s = json(&out.stdout);
    let hits = s["hits"].as_array().unwrap();
    let from_repeat = hits
        .iter()
        .filter(|h| h["source"].as_str().unwrap().contains("00-repeat"))
        .count();
    let sources: std::collections::HashSet<&str> =
        hits.iter().map(|h| h["source"].as_str().unwrap()).collect();
    assert!(
        from_repeat <= 3,
        "{from_repeat} of 10 hits from the repetitive file"
    );
    assert!(sources.len() >= 4, "{sources:?}");
    let (a, code) = ask_json(&idx, RETENTION, &["--no-memory"]);
    assert_eq!(code, 0, "{a}");
    let repeated: Vec<&Value> = a["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["source"].as_str().unwrap().contains("00-repeat"))
        .collect();
    assert!(
        repeated.len() <= 1,
        "identical quotes are one item: {}",
        repeated.len()
    );
    let quotes: Vec<&str> = a["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["quote"].as_str().unwrap())
        .collect();
    let distinct: std::collections::HashSet<&&str> = quotes.iter().collect();
    assert_eq!(
        distinct.len(),
        quotes.len(),
        "no quote cited twice: {quotes:?}"
    );
    let conflicts = a["conflicts"].to_string();
    assert!(
        conflicts.contains("10 year") && conflicts.contains("7 year"),
        "the 7-vs-10-year conflict stays visible: {a}"
    );
}
