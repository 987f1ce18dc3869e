//! Never silently wrong, second pass, through the real binary: a quote cut inside a
//! number, figures written another way or swapped between two cited items, an answer
//! choice taken from a sentence about another subject, bound or unit, a period named in
//! another form than the evidence's, and two figures for one thing in one document.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::ask::ask_json;
use super::cli::{attest, json};
use super::wrong::kinds;

fn validate_strict(idx: &Path, text: &str, evidence: &str) -> (Value, i32) {
    let dir = tempfile::tempdir().unwrap();
    let (t, e) = (dir.path().join("a.md"), dir.path().join("e.json"));
    std::fs::write(&t, text).unwrap();
    std::fs::write(&e, evidence).unwrap();
    let out = super::cli::validate(idx, &t, &e, &["--json", "--preset", "strict"]);
    (json(&out.stdout), out.status.code().unwrap())
}

/// A small corpus of the given files, ingested; returns (tempdir, index).
fn corpus(files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let idx = super::cli::ingested(tmp.path(), files);
    (tmp, idx)
}

const EVIDENCE: &str = r#"[
 {"id": "E1", "quote": "Client records must be retained for 10 years."},
 {"id": "E2", "quote": "Violations carry a minimum fine of $5,000."},
 {"id": "E3", "quote": "The clinic served 4,890 clients during the year."},
 {"id": "E4", "quote": "The denial rate was 12.5% this year."},
 {"id": "E5", "quote": "Client records must be retained for 7 years."},
 {"id": "E6", "quote": "Billing records must be retained for 10 years."},
 {"id": "E7", "quote": "The plan was adopted in 2022 by the board."}
]"#;

#[test]
fn a_quote_cut_inside_a_number_or_a_figure_written_otherwise_fails_the_gate() {
    let (_tmp, idx) = super::cli::sample_index();
    for text in [
        "Violations carry a minimum fine of $5 [E2].",
        "Client records must be retained for 1 [E1].",
        "The clinic served 4 [E3].",
        "5% this year [E4].",
        "The denial rate was 12% this year [E4].",
        "The denial rate was 5% this year [E4].",
        "Client records must be retained for seventy years [E5].",
        "Client records must be retained for 7 decades [E5].",
        "The plan was adopted in ２０２３ by the board [E7].",
        "Client records must be retained for 10 years and billing records for 7 years [E5][E6].",
    ] {
        let (r, code) = validate_strict(&idx, text, EVIDENCE);
        assert_eq!(code, 1, "{text} passed: {r}");
        assert!(
            kinds(&r).contains(&"figure_not_in_evidence".to_string()),
            "{text}: {r}"
        );
    }
    for text in [
        "Violations carry a minimum fine of $5,000 [E2].",
        "The denial rate was 12.5% this year [E4].",
        "The plan was adopted in ２０２２ by the board [E7].",
        "Client records must be retained for 7 years and billing records for 10 years [E5][E6].",
    ] {
        let (r, _) = validate_strict(&idx, text, EVIDENCE);
        assert!(
            !kinds(&r).contains(&"figure_not_in_evidence".to_string()),
            "{text}: {r}"
        );
    }
}

#[test]
fn an_audit_edited_to_cut_a_number_fails_its_replay() {
    let (tmp, idx) = corpus(&[(
        "fines.md",
        "# Penalties\n\nViolations of the records rules carry a minimum fine of $5,000 per record.\n",
    )]);
    let audit = tmp.path().join("run.json");
    let out = attest(&idx)
        .args([
            "ask",
            "What is the minimum fine for violations of the records rules?",
        ])
        .args(["--no-memory", "--json", "--audit"])
        .arg(&audit)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let mut v: Value = serde_json::from_slice(&std::fs::read(&audit).unwrap()).unwrap();
    let id = v["evidence"][0]["id"].as_str().unwrap().to_string();
    let text = format!("Violations of the records rules carry a minimum fine of $5 [{id}].");
    v["answer"] = Value::String(text.clone());
    v["sentences"] = serde_json::json!([{"text": text, "citations": [id]}]);
    std::fs::write(&audit, serde_json::to_vec(&v).unwrap()).unwrap();
    let out = attest(&idx)
        .args(["validate", "--audit"])
        .arg(&audit)
        .output()
        .unwrap();
    let all = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(all.contains("figure_not_in_evidence"), "{all}");
}

fn selected(a: &Value) -> Option<String> {
    a["choice"]["selected"].as_str().map(str::to_string)
}

fn verdict(a: &Value, i: usize) -> String {
    a["choice"]["choices"][i]["verdict"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn a_choice_is_never_taken_from_another_subject_bound_unit_or_office() {
    let (_tmp, idx) = corpus(&[
        (
            "records.md",
            "# Records retention\n\n## Client records\n\nClient records must be retained for 7 years after the last service.\n\n\
             ## Billing records\n\nBilling records must be retained for 10 years after the claim is paid.\n",
        ),
        (
            "penalties.md",
            "# Penalties\n\nA violation of the records rules carries a minimum fine of $5,000.\n\n\
             # Breach notices\n\nThe agency must notify affected clients of a breach within 90 days of its discovery.\n",
        ),
        (
            "staff.md",
            "# Program staff\n\nJane Smith is the director of the records program. \
             The records program employs twelve clerks.\n",
        ),
    ]);
    let q = "How long must client records be retained?\n(A) 5 years\n(B) 10 years";
    let (a, code) = ask_json(&idx, q, &["--no-memory"]);
    assert_eq!(selected(&a), None, "{}", a["choice"]);
    assert_eq!(code, 1);
    assert_eq!(verdict(&a, 1), "ruled_out", "{}", a["choice"]);
    let q = "How long must client records be retained?\n(A) 7 years\n(B) 10 years";
    let (a, _) = ask_json(&idx, q, &["--no-memory"]);
    assert_eq!(selected(&a).as_deref(), Some("A"), "{}", a["choice"]);
    for q in [
        "What is the maximum fine for a violation of the records rules?\n(A) $5,000\n(B) $1,000",
        "Within how many hours must the agency notify clients of a breach?\n(A) 90\n(B) 60",
        "Who is the deputy director of the records program?\n(A) Jane Smith\n(B) John Doe",
    ] {
        let (a, code) = ask_json(&idx, q, &["--no-memory"]);
        assert_eq!(selected(&a), None, "{q}: {}", a["choice"]);
        assert_eq!(code, 1, "{q}");
    }
    let q =
        "What is the minimum fine for a violation of the records rules?\n(A) $5,000\n(B) $1,000";
    let (a, _) = ask_json(&idx, q, &["--no-memory"]);
    assert_eq!(selected(&a).as_deref(), Some("A"), "{}", a["choice"]);
}

#[test]
fn a_period_in_any_written_form_must_be_named_by_the_evidence() {
    let (_tmp, idx) = corpus(&[(
        "annual-report-2023.md",
        "# Annual Report 2023\n\n## Clients served\n\nIn fiscal year 2022 the outreach program served 4,890 clients. \
         In October 2021 the outreach program served 310 clients.\n",
    )]);
    for q in [
        "How many clients did the outreach program serve in FY2023?",
        "How many clients did the outreach program serve in FY23?",
        "How many clients did the outreach program serve in CY2022?",
        "How many clients did the outreach program serve in 2023Q1?",
        "How many clients did the outreach program serve in Oct. 2022?",
        "How many clients did the outreach program serve in Sept 2021?",
        "How many clients did the outreach program serve in 10/2022?",
        "How many clients did the outreach program serve in 2023?",
    ] {
        let (a, code) = ask_json(&idx, q, &["--no-memory"]);
        assert_eq!(
            a["status"], "no_authoritative_evidence",
            "{q}: {}",
            a["answer"]
        );
        assert_eq!(code, 1, "{q}");
        let missing = a["missing_evidence"].to_string();
        assert!(missing.contains("period"), "{q}: {missing}");
    }
    for q in [
        "How many clients did the outreach program serve in FY2022?",
        "How many clients did the outreach program serve in Oct. 2021?",
        "How many clients did the outreach program serve in 10/2021?",
    ] {
        // Every value read is named (bound 0): the period is what this test reads.
        let a = super::ask::ask_read(&idx, q);
        assert_eq!(a["status"], "answered", "{q}: {}", a["missing_evidence"]);
    }
}

#[test]
fn two_figures_for_one_thing_in_one_document_are_a_conflict() {
    let (_tmp, idx) = corpus(&[(
        "manual.md",
        "# Records manual\n\n## 2 Retention\n\nClient records must be retained for 7 years after the last service.\n\n\
         ## 3 Training\n\nStaff complete privacy training every year.\n\n\
         ## 9 Archives\n\nClient records must be retained for 10 years after the last service.\n",
    )]);
    let (a, code) = ask_json(
        &idx,
        "How long must client records be retained?",
        &["--no-memory"],
    );
    assert_eq!(code, 0, "{a}");
    let conflicts = a["conflicts"].as_array().unwrap();
    assert_eq!(conflicts.len(), 1, "{a}");
    let figs = conflicts[0]["figures"].to_string();
    assert!(
        figs.contains("7 year") && figs.contains("10 year"),
        "{figs}"
    );
}

#[test]
fn the_server_rejects_a_quote_cut_inside_a_number() {
    use crate::common::server::{client, Server};
    let (_tmp, idx) = super::cli::sample_index();
    let s = Server::start(&idx, &[], &[]);
    let c = client();
    let evidence: Value = serde_json::from_str(EVIDENCE).unwrap();
    for (text, status) in [
        ("Violations carry a minimum fine of $5 [E2].", 422),
        ("The clinic served 4 [E3].", 422),
        ("Violations carry a minimum fine of $5,000 [E2].", 200),
    ] {
        let r = c
            .post(s.url("/v1/validate"))
            .json(&serde_json::json!({"text": text, "evidence": evidence, "preset": "strict"}))
            .send()
            .unwrap();
        assert_eq!(r.status().as_u16(), status, "{text}: {}", r.text().unwrap());
    }
    s.stop();
}

#[test]
fn validate_reads_legal_bounds_as_bounds_and_still_catches_flips() {
    let (_tmp, idx) = super::cli::sample_index();
    let evidence = r#"[
 {"id": "E1", "quote": "The county shall notify the client not later than 10 days after the breach."},
 {"id": "E2", "quote": "The county shall not disclose client records to an employer."},
 {"id": "E3", "quote": "Client records shall be retained for not less than seven (7) years."}
]"#;
    let (r, _) = validate_strict(
        &idx,
        "The county shall notify the client within 10 days after the breach [E1].",
        evidence,
    );
    for kind in ["polarity_mismatch", "figure_not_in_evidence"] {
        assert!(!kinds(&r).contains(&kind.to_string()), "{r}");
    }
    for text in [
        "The county shall disclose client records to an employer [E2].",
        "Client records shall be retained for not more than 7 years [E3].",
    ] {
        let (r, code) = validate_strict(&idx, text, evidence);
        assert_eq!(code, 1, "{text} passed: {r}");
        assert!(
            kinds(&r).contains(&"polarity_mismatch".to_string()),
            "{text}: {r}"
        );
    }
}
