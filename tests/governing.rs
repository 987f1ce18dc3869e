//! Never silently wrong, third pass, through the real binary: an answer choice taken from
//! a sentence a heading does not bind or from a role the passage does not state; an
//! answer whose value contradicts its own ruling; a value below a binding floor (or above
//! a ceiling) passed as no difference; and a former value ruled the stricter one.

use std::path::PathBuf;

use serde_json::Value;

use super::ask::ask_json;
use super::cli::attest;

/// A small corpus of the given files, ingested; returns (tempdir, index).
fn corpus(files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let idx = super::cli::ingested(tmp.path(), files);
    (tmp, idx)
}

fn selected(a: &Value) -> Option<String> {
    a["choice"]["selected"].as_str().map(str::to_string)
}

/// The evidence item `id` of answer `a`.
fn item<'a>(a: &'a Value, id: &str) -> &'a Value {
    a["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == id)
        .unwrap_or_else(|| panic!("no item {id} in {a}"))
}

/// The source file of the item answer `a`'s value comes from.
fn value_source(a: &Value) -> String {
    let id = a["answer_value"]["evidence_id"]
        .as_str()
        .unwrap_or_else(|| panic!("no value: {a}"));
    item(a, id)["source"].as_str().unwrap().to_string()
}

/// The rulings of answer `a`.
fn rulings(a: &Value) -> Vec<Value> {
    a["conflicts"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c.get("ruling").cloned())
        .collect()
}

/// The source of the first item the answer's first sentence cites.
fn first_sentence_source(a: &Value) -> String {
    let id = a["sentences"][0]["citations"][0].as_str().unwrap();
    item(a, id)["source"].as_str().unwrap().to_string()
}

#[test]
fn a_heading_never_binds_another_subject_and_a_name_needs_its_role() {
    let (_tmp, idx) = corpus(&[
        (
            "schedule.md",
            "# Retention schedule\n\n## 1. Client records\n\n\
             Client records must be retained for 7 years after the last service. \
             Billing records must be retained for 10 years after the claim is paid.\n\n\
             ## 2. Incident files\n\n\
             Incident files must be retained for 4 years. \
             Payroll files must be retained for 6 years.\n",
        ),
        (
            "staff.md",
            "# Program staff\n\n## Deputy director of the outreach program\n\n\
             Maria Lopez coordinates the intake team and reports to the director.\n\n\
             ## Contacts\n\n\
             Send questions about the outreach program to Omar Haddad or to the deputy \
             director of the outreach program.\n",
        ),
    ]);
    for q in [
        "How long must client records be retained?\n(A) 5 years\n(B) 10 years",
        "How long must incident files be retained?\n(A) 6 years\n(B) 2 years",
        "Who is the deputy director of the outreach program?\n(A) Maria Lopez\n(B) Ken Obi",
        "Who is the deputy director of the outreach program?\n(A) Omar Haddad\n(B) Ken Obi",
    ] {
        let (a, code) = ask_json(&idx, q, &["--no-memory"]);
        assert_eq!(selected(&a), None, "{q}: {}", a["choice"]);
        assert_eq!(code, 1, "{q}");
    }
    // What the passage does bind is still chosen.
    let q = "How long must client records be retained?\n(A) 7 years\n(B) 10 years";
    let (a, _) = ask_json(&idx, q, &["--no-memory"]);
    assert_eq!(selected(&a).as_deref(), Some("A"), "{}", a["choice"]);
}

const RETENTION_FILES: [(&str, &str); 2] = [
    (
        "operations-manual.md",
        "# Operations Manual\n\n## 4. Incident reports\n\n\
         Incident reports must be kept for six years after the incident is closed.\n",
    ),
    (
        "policy-bulletin-22-01.md",
        "# Policy Bulletin 22-01: Incident report retention\n\n\
         Effective: March 1, 2022\n\n## Retention\n\n\
         Effective March 1, 2022, incident reports must be kept for 12 years after the \
         incident is closed.\n",
    ),
];

#[test]
fn the_answer_value_and_first_sentence_come_from_the_governing_source() {
    let (_tmp, idx) = corpus(&RETENTION_FILES);
    let q = "How long must incident reports be kept?";
    let (a, code) = ask_json(&idx, q, &["--no-memory"]);
    assert_eq!(code, 0, "{a}");
    let r = rulings(&a);
    assert_eq!(r.len(), 1, "{}", a["conflicts"]);
    let gov = r[0]["governing"][0].as_str().unwrap();
    assert!(item(&a, gov)["source"]
        .as_str()
        .unwrap()
        .contains("bulletin"));
    assert_eq!(
        a["answer_value"]["normalised"], "12 year",
        "{}",
        a["answer_value"]
    );
    assert_eq!(a["answer_value"]["evidence_id"], gov);
    assert!(
        first_sentence_source(&a).contains("bulletin"),
        "{}",
        a["answer"]
    );
    // The CLI shows the ruling with each side's source and standing, and the figures as
    // the documents write them.
    let out = attest(&idx)
        .args(["ask", q, "--no-memory"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Which applies:"), "{text}");
    assert!(
        text.contains("six years") && !text.contains("6 year;"),
        "{text}"
    );
    assert!(
        text.contains("(policy") && text.contains("governs"),
        "{text}"
    );
    // Before the bulletin took effect, the rule then in force answers.
    let (before, _) = ask_json(&idx, q, &["--no-memory", "--as-of", "2021-06-01"]);
    assert_eq!(before["answer_value"]["normalised"], "6 year", "{before}");
    assert!(value_source(&before).contains("manual"));
}

#[test]
fn a_higher_authority_governs_a_contradiction_and_the_value_follows() {
    let (_tmp, idx) = corpus(&[
        (
            "fees-policy.md",
            "# Records Office Fees Policy\n\n## Copies\n\n\
             The fee for a certified copy of a record is 18 percent of the search fee.\n",
        ),
        (
            "records-act.md",
            "# Public Records Act\n\n## Section 9. Copies\n\n\
             The fee for a certified copy of a record is 12 percent of the search fee.\n",
        ),
    ]);
    let q = "What percentage of the search fee is the fee for a certified copy of a record?";
    let (a, code) = ask_json(&idx, q, &["--no-memory"]);
    assert_eq!(code, 0, "{a}");
    let r = rulings(&a);
    assert_eq!(r.len(), 1, "{}", a["conflicts"]);
    assert_eq!(r[0]["rule"], "higher_authority", "{}", r[0]);
    assert_eq!(
        a["answer_value"]["normalised"], "12 percent",
        "{}",
        a["answer_value"]
    );
    assert!(value_source(&a).contains("act"));
    assert!(first_sentence_source(&a).contains("act"), "{}", a["answer"]);
}

#[test]
fn a_value_below_a_binding_floor_is_a_difference_the_floor_governs() {
    let (_tmp, idx) = corpus(&[
        (
            "faq.md",
            "# Frequently Asked Questions\n\n## How long are incident reports kept?\n\n\
             Incident reports are kept five years.\n",
        ),
        (
            "incident-act.md",
            "# Incident Reporting Act\n\n## Section 12. Retention\n\n\
             Incident reports shall be kept for not less than ten (10) years.\n",
        ),
    ]);
    let (a, code) = ask_json(
        &idx,
        "How long are incident reports kept?",
        &["--no-memory"],
    );
    assert_eq!(code, 0, "{a}");
    let r = rulings(&a);
    assert_eq!(r.len(), 1, "a difference: {}", a["conflicts"]);
    let gov = r[0]["governing"][0].as_str().unwrap();
    assert!(item(&a, gov)["source"].as_str().unwrap().contains("act"));
    assert_eq!(
        a["answer_value"]["normalised"], "10 year",
        "{}",
        a["answer_value"]
    );
    assert!(value_source(&a).contains("act"));
    let faq = r[0]["sides"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["source_type"] == "faq")
        .cloned()
        .unwrap_or_else(|| panic!("{}", r[0]));
    assert_eq!(faq["standing"], "summary");
    assert_eq!(faq["states"], "five years");
}

#[test]
fn a_former_value_is_never_the_stricter_one() {
    let (_tmp, idx) = corpus(&[(
        "grants-guide.md",
        "# Community Grants Guide\n\n## History\n\n\
         The programme previously offered grants of up to $10,000 per project.\n\n\
         ## Current grants\n\n\
         The programme offers grants of up to $25,000 per project.\n",
    )]);
    // Every value read is named (bound 0): the ruling is what this test reads.
    let a = super::ask::ask_read(
        &idx,
        "What is the largest grant the programme offers per project?",
    );
    assert_eq!(a["status"], "answered", "{a}");
    let r = rulings(&a);
    assert_eq!(r.len(), 1, "{}", a["conflicts"]);
    let sides = r[0]["sides"].as_array().unwrap();
    let side = |standing: &str| {
        sides
            .iter()
            .find(|s| s["standing"] == standing)
            .cloned()
            .unwrap_or_else(|| panic!("no {standing} side: {}", r[0]))
    };
    assert_eq!(side("governs")["figure"], "25000 dollar");
    assert_eq!(side("former")["figure"], "10000 dollar");
    assert!(!r[0]["summary"]
        .as_str()
        .unwrap()
        .contains("$10,000, the stricter"));
}
