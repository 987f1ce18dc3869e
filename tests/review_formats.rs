//! `attest review` with checklists as registries publish them (top-level metadata, keys
//! attest does not read, YAML and CSV files) and the reviewer's CSV sheet, through the real
//! binary on a small Markdown document set.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use super::cli::{attest, copy_index, ingest_json, json, validate};

const PLAN: &str = "# Riverside Grassland Project Plan\n\n## 1.5 Land Tenure\n\nThe registered owner of the land is Mr. Tomas Berg.\n\n## 1.8 Project Start Date\n\nThe project start date is 5 June 2021.\n\n## 1.11 Leakage\n\nLeakage is estimated at 4% of the emission reductions.\n";
const LEASE: &str = "# Grazing Lease\n\nThis lease is made between Anders Berg (the \"Lessor\") and Riverside Grassland Trust (the \"Lessee\").\n\nThe project start date is 5 June 2021.\n";

/// A registry checklist as published: metadata beside `requirements`, and a key attest does
/// not read (`guidance`).
const REGISTRY: &str = r#"{
  "methodology_id": "VM0042",
  "methodology_name": "Improved Agricultural Land Management",
  "version": "2.1",
  "protocol": "VCS",
  "program_guide_version": "4.5",
  "requirements": [
    {"requirement_id": "LT", "category": "Land Tenure", "requirement_text": "The landowner is named consistently.", "source": "VCS 3.6.1", "accepted_evidence": ["Lease", "Title deed"], "mandatory": true, "validation_type": "cross_document", "scope": "project", "guidance": "Compare the lease with the plan."},
    {"requirement_id": "SD", "category": "Project Start Date", "requirement_text": "The project start date is stated.", "source": "VCS 3.7", "accepted_evidence": "Project plan", "mandatory": true, "validation_type": "cross_document", "scope": "project"},
    {"requirement_id": "LK", "category": "Leakage", "requirement_text": "The leakage percentage is quantified.", "source": "VM0042 8.4", "accepted_evidence": "Leakage calculation", "mandatory": false, "validation_type": "structured_field", "scope": "project"},
    {"requirement_id": "GM", "category": "Safeguards", "requirement_text": "A grievance redress mechanism is described.", "source": "VCS 3.19", "accepted_evidence": "Grievance procedure", "mandatory": false, "validation_type": "document_presence", "scope": "project"}
  ]
}"#;

/// [`REGISTRY`] without the metadata and the unknown key, as YAML.
const REGISTRY_YAML: &str = "requirements:
  - requirement_id: LT
    category: Land Tenure
    requirement_text: The landowner is named consistently.
    source: VCS 3.6.1
    accepted_evidence: [Lease, Title deed]
    mandatory: true
    validation_type: cross_document
    scope: project
  - requirement_id: SD
    category: Project Start Date
    requirement_text: The project start date is stated.
    source: VCS 3.7
    accepted_evidence: Project plan
    mandatory: yes
    validation_type: cross_document
    scope: project
  - requirement_id: LK
    category: Leakage
    requirement_text: The leakage percentage is quantified.
    source: VM0042 8.4
    accepted_evidence: Leakage calculation
    mandatory: false
    validation_type: structured_field
    scope: project
  - requirement_id: GM
    category: Safeguards
    requirement_text: A grievance redress mechanism is described.
    source: VCS 3.19
    accepted_evidence: Grievance procedure
    mandatory: no
    validation_type: document_presence
    scope: project
";

/// The same as a spreadsheet exports it.
const REGISTRY_CSV: &str = "requirement_id,category,requirement_text,source,accepted_evidence,mandatory,validation_type,scope\r
LT,Land Tenure,The landowner is named consistently.,VCS 3.6.1,Lease; Title deed,TRUE,cross_document,project\r
SD,Project Start Date,The project start date is stated.,VCS 3.7,Project plan,1,cross_document,project\r
LK,Leakage,The leakage percentage is quantified.,VM0042 8.4,Leakage calculation,0,structured_field,project\r
GM,Safeguards,A grievance redress mechanism is described.,VCS 3.19,Grievance procedure,No,document_presence,project\r
";

/// The document set ingested once per test binary; tests get copies of its index.
fn index() -> (tempfile::TempDir, PathBuf) {
    static MASTER: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    let master = MASTER.get_or_init(|| {
        let tmp = tempfile::tempdir().unwrap();
        let docs = tmp.path().join("docs");
        std::fs::create_dir_all(&docs).unwrap();
        std::fs::write(docs.join("plan.md"), PLAN).unwrap();
        std::fs::write(docs.join("lease.md"), LEASE).unwrap();
        let (r, code) = ingest_json(&tmp.path().join("idx"), &[&docs]);
        assert_eq!(code, 0, "{r}");
        tmp
    });
    let tmp = tempfile::tempdir().unwrap();
    let idx = tmp.path().join("idx");
    copy_index(&master.path().join("idx"), &idx);
    (tmp, idx)
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// `attest review CHECKLIST extra…`, asserting it ran (exit 0 or 1).
fn review(idx: &Path, checklist: &Path, extra: &[&str]) -> Output {
    let out = attest(idx)
        .arg("review")
        .arg(checklist)
        .args(extra)
        .output()
        .unwrap();
    let code = out.status.code().unwrap();
    assert!(
        code == 0 || code == 1,
        "exit {code}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

#[test]
fn registry_metadata_passes_through_and_unknown_keys_are_warnings() {
    let (tmp, idx) = index();
    let list = write(tmp.path(), "vm0042.json", REGISTRY);
    let report = tmp.path().join("review.md");
    let out = review(
        &idx,
        &list,
        &["--json", "--report", report.to_str().unwrap()],
    );
    let r = json(&out.stdout);
    // Every top-level key but `requirements`, keys and values as given, in file order.
    let given: Value = serde_json::from_str(REGISTRY).unwrap();
    let mut want = given.as_object().unwrap().clone();
    want.remove("requirements");
    assert_eq!(r["checklist"]["metadata"], Value::Object(want), "{r}");
    let text = serde_json::to_string(&r["checklist"]["metadata"]).unwrap();
    assert!(
        text.starts_with(r#"{"methodology_id":"VM0042","methodology_name":"#),
        "{text}"
    );
    // The unknown key is kept on its requirement and warned about, in the JSON and on stderr.
    let lt = &r["requirements"][0];
    assert_eq!(lt["id"], "LT");
    assert_eq!(lt["extra"]["guidance"], "Compare the lease with the plan.");
    assert!(r["requirements"][1].get("extra").is_none(), "{r}");
    let warnings = r["checklist"]["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{r}");
    assert_eq!(warnings[0]["kind"], "unknown_requirement_key");
    assert_eq!(warnings[0]["key"], "guidance");
    assert_eq!(warnings[0]["requirements"], serde_json::json!(["LT"]));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("warning") && err.contains("vm0042.json") && err.contains("\"guidance\""),
        "{err}"
    );
    // The report's header carries the metadata, and the report still passes the gate.
    let md = std::fs::read_to_string(&report).unwrap();
    for line in [
        "### methodology_id: VM0042",
        "### methodology_name: Improved Agricultural Land Management",
        "### version: 2.1",
        "### protocol: VCS",
        "### program_guide_version: 4.5",
    ] {
        assert!(md.contains(line), "{line} not in {md}");
    }
    let v = validate(&idx, &report, &tmp.path().join("review.evidence.json"), &[]);
    assert_eq!(
        v.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&v.stdout)
    );
}

#[test]
fn yaml_and_csv_checklists_review_as_the_json_one_does() {
    let (tmp, idx) = index();
    let from_json = json(&review(&idx, &write(tmp.path(), "c.json", REGISTRY), &["--json"]).stdout);
    for (name, text) in [("c.yaml", REGISTRY_YAML), ("c.csv", REGISTRY_CSV)] {
        let list = write(tmp.path(), name, text);
        let out = review(&idx, &list, &["--format", "json"]);
        let r = json(&out.stdout);
        assert_eq!(r["checklist"]["metadata"], serde_json::json!({}), "{name}");
        assert_eq!(r["checklist"]["warnings"], serde_json::json!([]), "{name}");
        let mut want = from_json["requirements"].clone();
        want[0].as_object_mut().unwrap().remove("extra");
        assert_eq!(r["requirements"], want, "{name}");
        assert_eq!(r["summary"], from_json["summary"], "{name}");
    }
    // The review found what the documents state: the checklist was read in full.
    let lk = &from_json["requirements"][2];
    assert_eq!(lk["fields"][0]["value"], 4, "{from_json}");
    assert_eq!(lk["mandatory"], false);
}

#[test]
fn duplicate_ids_and_malformed_csv_are_errors_naming_the_place() {
    let tmp = tempfile::tempdir().unwrap();
    let idx = tmp.path().join("idx"); // never opened: the checklist is read first
    let mut dup: Value = serde_json::from_str(REGISTRY).unwrap();
    dup["requirements"][3]["requirement_id"] = "SD".into();
    let cases = [
        (
            "dup.json",
            dup.to_string(),
            "dup.json: requirement SD: the id appears twice",
        ),
        (
            "dup.yaml",
            REGISTRY_YAML.replace("requirement_id: GM", "requirement_id: SD"),
            "dup.yaml: requirement SD: the id appears twice",
        ),
        (
            "dup.csv",
            REGISTRY_CSV.replace("\nGM,", "\nSD,"),
            "dup.csv: line 5: requirement SD: the id appears twice (first on line 3)",
        ),
        (
            "bad.csv",
            REGISTRY_CSV.replace("Project plan,1,", "Project plan,1"),
            "bad.csv: line 3: 7 fields where the header has 8",
        ),
        (
            "nocol.csv",
            "requirement_id,category\nLT,Land Tenure\n".to_string(),
            "nocol.csv: line 1: no \"requirement_text\" column",
        ),
        (
            "bad.yaml",
            "requirements:\n  - requirement_id: [LT\n".to_string(),
            "bad.yaml: not valid YAML",
        ),
    ];
    for (name, text, want) in cases {
        let list = write(tmp.path(), name, &text);
        let out = attest(&idx).arg("review").arg(&list).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{name}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{name}: {err} should contain {want}");
    }
}

#[test]
fn the_csv_sheet_has_one_row_per_value_and_quotes_verbatim() {
    let (tmp, idx) = index();
    let list = write(tmp.path(), "c.json", REGISTRY);
    let r = json(&review(&idx, &list, &["--json"]).stdout);
    let sheet_file = tmp.path().join("sheet.csv");
    let out = review(
        &idx,
        &list,
        &["--format", "csv", "--report", sheet_file.to_str().unwrap()],
    );
    let printed = String::from_utf8(out.stdout).unwrap();
    assert_eq!(std::fs::read_to_string(&sheet_file).unwrap(), printed);
    let mut reader = csv::Reader::from_reader(printed.as_bytes());
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(
        header,
        [
            "requirement",
            "status",
            "field",
            "value",
            "source",
            "page",
            "quote"
        ]
    );
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let mut expected = 0;
    for q in r["requirements"].as_array().unwrap() {
        let mine: Vec<&csv::StringRecord> = rows.iter().filter(|row| row[0] == q["id"]).collect();
        let fields = q["fields"].as_array().unwrap();
        let evidence = q["evidence"].as_array().unwrap();
        let quote_of = |id: &Value| -> String {
            let e = evidence.iter().find(|e| e["id"] == *id).unwrap();
            e["quote"].as_str().unwrap().to_string()
        };
        if fields.is_empty() {
            assert_eq!(mine.len(), 1, "{q}");
            let row = mine[0];
            assert_eq!(
                (&row[1], &row[2], &row[3]),
                (q["status"].as_str().unwrap(), "", "")
            );
            let first = evidence
                .first()
                .map(|e| e["quote"].as_str().unwrap())
                .unwrap_or("");
            assert_eq!(&row[6], first);
            expected += 1;
            continue;
        }
        assert_eq!(mine.len(), fields.len(), "{q}");
        for (row, f) in mine.iter().zip(fields) {
            assert_eq!(&row[1], q["status"].as_str().unwrap());
            assert_eq!(&row[2], f["name"].as_str().unwrap());
            let value = match &f["value"] {
                Value::String(s) => s.clone(),
                v => v.to_string(),
            };
            assert_eq!(row[3], value);
            assert_eq!(&row[4], f["source"].as_str().unwrap());
            assert_eq!(row[6], quote_of(&f["evidence"]), "verbatim");
            assert!(row[6].contains(f["raw"].as_str().unwrap()));
        }
        expected += fields.len();
    }
    assert_eq!(rows.len(), expected);
    // The lease's quote holds double quotes and a comma, and comes back byte for byte.
    assert!(
        rows.iter().any(|row| &row[6] == "This lease is made between Anders Berg (the \"Lessor\") and Riverside Grassland Trust (the \"Lessee\")."),
        "{printed}"
    );
}

#[test]
fn format_chooses_standard_output_and_json_stays_its_alias() {
    let (tmp, idx) = index();
    let list = write(tmp.path(), "c.json", REGISTRY);
    let out = review(&idx, &list, &["--format", "markdown"]);
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(md.starts_with("# Review: c\n"), "{md}");
    assert!(
        md.contains("### methodology_id: VM0042") && md.contains("## Cited evidence"),
        "{md}"
    );
    let out = attest(&idx)
        .arg("review")
        .arg(&list)
        .args(["--json", "--format", "csv"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--json is --format json"));
    // A report named .json is the review JSON.
    let file = tmp.path().join("review.json");
    let out = review(&idx, &list, &["--report", file.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("Review of c"));
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(written["checklist"]["metadata"]["methodology_id"], "VM0042");
}
