//! Fillable PDF forms through the real binary: field values and checkbox states are read
//! from the form (a form the test builds), stored as labelled "label: value" lines named
//! by their printed captions, and a box that is not ticked answers "not ticked".

use std::path::{Path, PathBuf};

use super::cli::{attest, json};
use super::common::docgen::{form_pdf, FormField, FormValue, Line};

const PRINTED: [Line<'static>; 5] = [
    (72, 740, "Permit Application Form PA-7"),
    (72, 700, "Applicant name:"),
    (86, 660, "Amended application"),
    (286, 660, "New application"),
    (72, 620, "Section 2. Declarations"),
];

fn fields() -> Vec<FormField<'static>> {
    vec![
        FormField {
            name: "applicant",
            tooltip: None,
            rect: [160, 696, 400, 712],
            value: FormValue::Text("Jane Q. Doe"),
        },
        FormField {
            name: "c1_1[0]",
            tooltip: None,
            rect: [72, 658, 82, 668],
            value: FormValue::Check(false),
        },
        FormField {
            name: "c1_1[1]",
            tooltip: None,
            rect: [272, 658, 282, 668],
            value: FormValue::Check(true),
        },
        FormField {
            name: "fee",
            tooltip: Some("Fee waiver requested"),
            rect: [500, 400, 510, 410],
            value: FormValue::Check(false),
        },
        FormField {
            name: "phone",
            tooltip: None,
            rect: [160, 500, 400, 512],
            value: FormValue::Text(""),
        },
    ]
}

fn stored_text(idx: &Path) -> (String, String) {
    let db = rusqlite::Connection::open(idx.join("attest.sqlite3")).unwrap();
    db.query_row("SELECT text, layout FROM documents", [], |r| {
        Ok((r.get(0)?, r.get(1)?))
    })
    .unwrap()
}

/// A form built from `printed` and `fields`, written as `name` and ingested: the scratch
/// folder and the index.
fn ingest_form(name: &str, printed: &[Line], fields: &[FormField]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(docs.join(name), form_pdf(printed, fields)).unwrap();
    let idx = dir.path().join("idx");
    let out = attest(&idx).args(["ingest"]).arg(&docs).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (dir, idx)
}

fn ask(idx: &Path, q: &str) -> serde_json::Value {
    let out = attest(idx).args(["ask", "--json", q]).output().unwrap();
    json(&out.stdout)
}

#[test]
fn form_fields_are_stored_as_labelled_values_and_an_empty_box_reads_not_ticked() {
    let (_dir, idx) = ingest_form("application.pdf", &PRINTED, &fields());
    let (text, layout) = stored_text(&idx);
    for line in [
        "Applicant name: Jane Q. Doe",
        "Amended application (check box): not ticked",
        "New application (check box): ticked",
        "Fee waiver requested (check box): not ticked",
        "phone: not filled in",
    ] {
        assert!(text.contains(line), "{line:?} missing from:\n{text}");
    }
    let layout: serde_json::Value = serde_json::from_str(&layout).unwrap();
    let extractor = layout["extractor"].as_str().unwrap();
    assert!(
        extractor.contains("form fields: 5 read by lopdf"),
        "{extractor}"
    );
    let labels: Vec<&str> = layout["labels"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["kind"] == "value")
        .map(|l| l["label"].as_str().unwrap())
        .collect();
    assert!(labels.contains(&"Amended application"), "{labels:?}");
    assert!(labels.contains(&"Applicant name"), "{labels:?}");

    let a = ask(&idx, "Is the Amended application box ticked?");
    let answer = a["answer"].as_str().unwrap_or_default();
    assert!(
        answer.contains("Amended application (check box): not ticked"),
        "{a:#}"
    );
    let quote = a["evidence"][0]["quote"].as_str().unwrap();
    assert_eq!(quote, "Amended application (check box): not ticked");
    assert_eq!(a["evidence"][0]["page"], 1);
    let n = ask(&idx, "Is the New application box checked?");
    let answer = n["answer"].as_str().unwrap_or_default();
    assert!(
        answer.contains("New application (check box): ticked"),
        "{n:#}"
    );
}

#[test]
fn a_box_question_no_field_answers_is_not_answered_from_passages_about_boxes() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    let text = "Line 3b. Check this box if the applicant holds an existing permit.\n\n\
                Applicants who hold an existing permit must check the box on line 3b.\n";
    std::fs::write(docs.join("instructions.txt"), text).unwrap();
    let idx = dir.path().join("idx");
    let out = attest(&idx).args(["ingest"]).arg(&docs).output().unwrap();
    assert!(out.status.success());
    let a = ask(&idx, "Is the existing permit box on line 3b ticked?");
    assert_ne!(a["status"], "answered", "{a:#}");
    let why = a.to_string();
    assert!(why.contains("no form field"), "{a:#}");
}

#[test]
fn a_radio_option_is_a_box_a_question_can_name() {
    let printed: [Line; 3] = [
        (72, 740, "Tax Election Form TE-2"),
        (86, 700, "Single filer"),
        (286, 700, "Joint filer"),
    ];
    let radio = |name, x, on| FormField {
        name,
        tooltip: None,
        rect: [x, 698, x + 10, 708],
        value: FormValue::Radio(on),
    };
    let fields = [radio("status[0]", 72, false), radio("status[1]", 272, true)];
    let (_dir, idx) = ingest_form("election.pdf", &printed, &fields);
    let (text, _) = stored_text(&idx);
    assert!(text.contains("Single filer (option): not ticked"), "{text}");
    let a = ask(&idx, "Is the Single filer box checked?");
    assert_eq!(a["status"], "answered", "{a:#}");
    assert_eq!(
        a["evidence"][0]["quote"], "Single filer (option): not ticked",
        "{a:#}"
    );
    let j = ask(&idx, "Is the Joint filer box ticked?");
    assert_eq!(
        j["evidence"][0]["quote"], "Joint filer (option): ticked",
        "{j:#}"
    );
}
