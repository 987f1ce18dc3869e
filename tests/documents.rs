//! Real documents through the real binary: PDF pages, running headers and footers,
//! sections, instructions and values, table rows, DOCX, bad files, `eval documents`.
//! PDFs and DOCX files are generated here; no binary fixtures.

use std::path::Path;

use serde_json::Value;

use super::cli::{attest, json};
use super::common::docgen::{docx, heading, paged_pdf, para, table, zip_of, W};

/// Whether poppler's `pdftotext` is installed (`scripts/setup.sh` installs it); the
/// layout tests say they were skipped without it.
fn poppler() -> bool {
    let found = attest::corpus::pdftext::poppler().is_some();
    if !found {
        eprintln!("skipped: pdftotext is not installed (run scripts/setup.sh)");
    }
    found
}

/// A three-page project plan: a running header and footer on every page, a numbered
/// heading with a template instruction and its value on page 2, a table on page 3.
pub(crate) fn project_plan_pdf() -> Vec<u8> {
    let header = (
        72,
        750,
        "Meadow Creek Restoration Plan - Registry Template v4",
    );
    let p1 = vec![
        header,
        (72, 700, "1. Project Overview"),
        (
            72,
            680,
            "The restoration covers the lower floodplain of Meadow Creek and its",
        ),
        (
            72,
            668,
            "wetlands, which were drained for grazing in the last century. Native",
        ),
        (
            72,
            656,
            "sedges and willows will be replanted along the riparian corridor.",
        ),
        (72, 60, "Page 1 of 3"),
    ];
    let p2 = vec![
        header,
        (72, 700, "1.8. Project Start Date"),
        (
            72,
            680,
            "Indicate and justify the project start date, specifying the day, month, and year.",
        ),
        (72, 660, "15/03/2021."),
        (72, 630, "2. Monitoring"),
        (
            72,
            610,
            "Water levels are read every week at six gauges installed in the",
        ),
        (
            72,
            598,
            "restored wetlands, and the readings are published each quarter.",
        ),
        (72, 60, "Page 2 of 3"),
    ];
    let p3 = vec![
        header,
        (72, 700, "3. Land Areas"),
        (72, 670, "Parameter"),
        (300, 670, "Value"),
        (420, 670, "Unit"),
        (72, 655, "Total Project Area"),
        (300, 655, "1,250"),
        (420, 655, "ha"),
        (72, 640, "Buffer Zone"),
        (300, 640, "80"),
        (420, 640, "ha"),
        (72, 625, "Stream Length"),
        (300, 625, "4.2"),
        (420, 625, "km"),
        (72, 60, "Page 3 of 3"),
    ];
    paged_pdf(&[p1, p2, p3], false)
}

fn ingest(idx: &Path, docs: &Path) -> Value {
    let out = attest(idx)
        .args(["ingest", "--json"])
        .arg(docs)
        .output()
        .unwrap();
    json(&out.stdout)
}

fn ask_json(idx: &Path, q: &str) -> Value {
    let out = attest(idx).args(["ask", "--json", q]).output().unwrap();
    json(&out.stdout)
}

fn evidence(answer: &Value) -> Vec<Value> {
    answer["evidence"].as_array().cloned().unwrap_or_default()
}

#[test]
fn pdf_quotes_report_their_page_and_section_and_headers_never_become_evidence() {
    if !poppler() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (idx, docs) = (tmp.path().join("idx"), tmp.path().join("docs"));
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(docs.join("plan.pdf"), project_plan_pdf()).unwrap();
    let r = ingest(&idx, &docs);
    assert_eq!(r["added"], 1, "{r}");

    let a = ask_json(&idx, "What is the project start date?");
    assert_eq!(a["status"], "answered", "{a}");
    let items = evidence(&a);
    let date = items
        .iter()
        .find(|e| e["quote"].as_str().unwrap().contains("15/03/2021"))
        .unwrap_or_else(|| panic!("the value is cited: {a}"));
    assert_eq!(date["page"], 2, "{date}");
    assert!(
        date["section"]
            .as_str()
            .unwrap()
            .contains("Project Start Date"),
        "{date}"
    );
    assert!(
        date["label"].as_str().unwrap().starts_with("Indicate"),
        "{date}"
    );
    for e in &items {
        let q = e["quote"].as_str().unwrap();
        assert!(!q.starts_with("Indicate"), "an instruction was cited: {q}");
        assert!(
            !q.contains("Registry Template") && !q.contains("of 3"),
            "{q}"
        );
        assert!(!e["display"].as_str().unwrap().contains("  "));
    }

    let a = ask_json(&idx, "What is the total project area in hectares?");
    let row = evidence(&a)
        .into_iter()
        .find(|e| e["quote"].as_str().unwrap().contains("1,250"))
        .unwrap_or_else(|| panic!("the table row is cited: {a}"));
    assert!(
        row["quote"]
            .as_str()
            .unwrap()
            .contains("Total Project Area"),
        "{row}"
    );
    assert_eq!(row["page"], 3, "{row}");
    assert!(
        row["label"].as_str().unwrap().contains("Parameter"),
        "{row}"
    );

    // Running headers and page footers are in no chunk at all.
    let out = attest(&idx)
        .args([
            "search",
            "--json",
            "--mode",
            "lexical",
            "Registry Template page",
        ])
        .output()
        .unwrap();
    let s = json(&out.stdout);
    for h in s["hits"].as_array().unwrap() {
        let text = h["text"].as_str().unwrap();
        assert!(
            !text.contains("Registry Template") && !text.contains("Page 2 of 3"),
            "{text}"
        );
        assert!(h["page"].as_u64().is_some(), "{h}");
    }

    // Human output names the page and the section.
    let out = attest(&idx)
        .args(["ask", "What is the project start date?"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("plan.pdf p. 2 § 1.8. Project Start Date"),
        "{text}"
    );
}

#[test]
fn markdown_template_values_and_table_rows_are_evidence_and_instructions_are_not() {
    let tmp = tempfile::tempdir().unwrap();
    let (idx, docs) = (tmp.path().join("idx"), tmp.path().join("docs"));
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(
        docs.join("plan.md"),
        "# Harbour Solar Plan\n\n## 1.8 Project Start Date\n\n\
         Indicate and justify the project start date, specifying the day, month, and year.\n\n\
         1 March 2022.\n\n## 2 Project Location\n\nProvide the country and region of the project.\n\n\
         Table 3 Site\n\n| Field | Entry |\n|---|---|\n| Country | Portugal |\n| Region | Alentejo |\n",
    )
    .unwrap();
    std::fs::write(
        docs.join("areas.html"),
        "<html><body><h1>Harbour Solar Areas</h1><h2>Land</h2><table>\
         <tr><th>Parcel</th><th>Area</th><th>Unit</th></tr>\
         <tr><td>Total Project Area</td><td>312</td><td>ha</td></tr>\
         <tr><td>Access Roads</td><td>9</td><td>ha</td></tr></table></body></html>",
    )
    .unwrap();
    assert_eq!(ingest(&idx, &docs)["added"], 2);

    let a = ask_json(&idx, "What is the project start date?");
    let items = evidence(&a);
    let value = items
        .iter()
        .find(|e| e["quote"] == "1 March 2022.")
        .unwrap_or_else(|| panic!("the value is cited: {a}"));
    assert_eq!(value["section"], "1.8 Project Start Date");
    assert!(value["label"].as_str().unwrap().starts_with("Indicate"));
    assert!(items
        .iter()
        .all(|e| !e["quote"].as_str().unwrap().starts_with("Indicate")));

    // A bare key-value row reads little like any question: the bar is lowered here, the
    // row's shape and label are what this checks.
    let out = attest(&idx)
        .args([
            "ask",
            "--json",
            "--min-relevance",
            "0.02",
            "In which country is the project?",
        ])
        .output()
        .unwrap();
    let a = json(&out.stdout);
    let row = evidence(&a)
        .into_iter()
        .find(|e| e["quote"].as_str().unwrap().contains("Portugal"))
        .unwrap_or_else(|| panic!("the row is cited: {a}"));
    assert_eq!(row["label"], "Table 3 Site: Field | Entry");
    assert!(evidence(&a)
        .iter()
        .all(|e| !e["quote"].as_str().unwrap().starts_with("Provide")));

    let a = ask_json(&idx, "What is the total project area in hectares?");
    let row = evidence(&a)
        .into_iter()
        .find(|e| e["quote"].as_str().unwrap().contains("312"))
        .unwrap_or_else(|| panic!("the HTML row is cited: {a}"));
    assert_eq!(row["label"], "Parcel | Area | Unit");
    assert_eq!(row["section"], "Land");
}

#[test]
fn encrypted_and_image_only_pdfs_fail_alone_with_clear_reasons_with_either_extractor() {
    for extractor in ["auto", "pdf-extract"] {
        let tmp = tempfile::tempdir().unwrap();
        let (idx, docs) = (tmp.path().join("idx"), tmp.path().join("docs"));
        std::fs::create_dir_all(&docs).unwrap();
        std::fs::write(
            docs.join("ok.md"),
            "# Fine\n\nThis file is readable text.\n",
        )
        .unwrap();
        let text_page = vec![(72, 700, "Secret figures are kept in this document.")];
        std::fs::write(docs.join("locked.pdf"), paged_pdf(&[text_page], true)).unwrap();
        std::fs::write(docs.join("scan.pdf"), paged_pdf(&[vec![], vec![]], false)).unwrap();
        let out = attest(&idx)
            .env("ATTEST_PDF_EXTRACTOR", extractor)
            .args(["ingest", "--json"])
            .arg(&docs)
            .output()
            .unwrap();
        let r = json(&out.stdout);
        assert_eq!(r["added"], 1, "{extractor}: {r}");
        let failed = r["failed"].as_array().unwrap();
        let reason = |name: &str| {
            failed
                .iter()
                .find(|f| f["path"].as_str().unwrap().ends_with(name))
                .map(|f| f["reason"].as_str().unwrap().to_string())
                .unwrap_or_else(|| panic!("{extractor}: {name} failed: {r}"))
        };
        assert!(
            reason("locked.pdf").contains("encrypted"),
            "{extractor}: {r}"
        );
        assert!(
            reason("scan.pdf").contains("no extractable text on pages 1-2"),
            "{extractor}: {r}"
        );
    }
}

#[test]
fn eval_documents_reports_value_page_and_abstention_shares_per_kind() {
    if !poppler() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("set");
    std::fs::create_dir_all(data.join("docs")).unwrap();
    std::fs::write(data.join("docs/plan.pdf"), project_plan_pdf()).unwrap();
    let rows = [
        r#"{"id":"q1","doc":"plan.pdf","question":"What is the project start date?","answer":"15/03/2021","page":2,"kind":"form_value","answerable":true}"#,
        r#"{"id":"q2","doc":"plan.pdf","question":"What is the total project area in hectares?","answer":"1,250","page":3,"kind":"table_cell","answerable":true}"#,
        r#"{"id":"q3","doc":"plan.pdf","question":"Who audited the carbon credits of the Danube delta project in 2019?","answer":null,"page":null,"kind":"prose","answerable":false}"#,
    ];
    std::fs::write(data.join("questions.jsonl"), rows.join("\n")).unwrap();
    let out = attest(&tmp.path().join("unused"))
        .args(["eval", "documents", "--json", "--dataset"])
        .arg(&data)
        .arg("--eval-index")
        .arg(tmp.path().join("eval-idx"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r = json(&out.stdout);
    assert_eq!(r["questions"], 3);
    assert_eq!(r["pages"], 3);
    assert_eq!(r["all"]["value_cited"], 2, "{r}");
    assert_eq!(r["all"]["on_page"], 2, "{r}");
    assert_eq!(r["kinds"]["prose"]["abstained"], 1, "{r}");
    assert_eq!(r["all"]["instructions_cited"], 0);
    assert_eq!(r["not_verbatim"], 0);
    assert!(r["pages_per_second"].as_f64().unwrap() > 0.0);
}

#[test]
fn docx_headings_tables_and_pages_reach_the_evidence() {
    let tmp = tempfile::tempdir().unwrap();
    let (idx, docs) = (tmp.path().join("idx"), tmp.path().join("docs"));
    std::fs::create_dir_all(&docs).unwrap();
    let body = [
        heading("Lease Summary"),
        para("This lease covers the grazing land of the Kestrel Ridge estate in the upper valley."),
        para(r#"The tenant keeps the fences in good repair.<w:br w:type="page"/>"#),
        heading("Parcel Areas"),
        para("Table 1 Parcels"),
        table(&[
            &["Parcel", "Area", "Unit"],
            &["North Pasture", "212", "ha"],
            &["River Meadow", "37", "ha"],
        ]),
    ]
    .concat();
    std::fs::write(docs.join("lease.docx"), docx(&body)).unwrap();
    assert_eq!(ingest(&idx, &docs)["added"], 1);
    let a = ask_json(&idx, "What is the area of the North Pasture parcel?");
    let row = evidence(&a)
        .into_iter()
        .find(|e| e["quote"].as_str().unwrap().contains("212"))
        .unwrap_or_else(|| panic!("the row is cited: {a}"));
    assert_eq!(row["quote"], "North Pasture | 212 | ha");
    assert_eq!(row["label"], "Table 1 Parcels: Parcel | Area | Unit");
    assert_eq!(row["section"], "Parcel Areas");
    assert_eq!(row["page"], 2);
}

#[test]
fn bad_docx_files_fail_alone_with_clear_reasons_and_lose_nothing_stored() {
    let tmp = tempfile::tempdir().unwrap();
    let (idx, docs) = (tmp.path().join("idx"), tmp.path().join("docs"));
    std::fs::create_dir_all(&docs).unwrap();
    let good = docx(&para(
        "The survey of the western boundary was completed in May.",
    ));
    std::fs::write(docs.join("kept.docx"), &good).unwrap();
    assert_eq!(ingest(&idx, &docs)["added"], 1);

    // The stored file turns into garbage; others are bad from the start.
    std::fs::write(docs.join("kept.docx"), b"PK\x03\x04 truncated").unwrap();
    std::fs::write(docs.join("plain.docx"), b"just some text, not a zip").unwrap();
    std::fs::write(
        docs.join("nodoc.docx"),
        zip_of(&[("word/other.xml", b"<x/>".as_slice())]),
    )
    .unwrap();
    let xxe = format!(
        r#"<?xml version="1.0"?><!DOCTYPE d [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><w:document xmlns:w="{W}"><w:body><w:p><w:r><w:t>&xxe;</w:t></w:r></w:p></w:body></w:document>"#
    );
    std::fs::write(
        docs.join("xxe.docx"),
        zip_of(&[("word/document.xml", xxe.as_bytes())]),
    )
    .unwrap();
    let zeros = vec![b' '; 8 << 20];
    let bomb = format!(
        r#"<w:document xmlns:w="{W}"><w:body>{}</w:body></w:document>"#,
        String::from_utf8(zeros).unwrap()
    );
    std::fs::write(
        docs.join("bomb.docx"),
        zip_of(&[("word/document.xml", bomb.as_bytes())]),
    )
    .unwrap();
    assert!(std::fs::metadata(docs.join("bomb.docx")).unwrap().len() < 100_000);
    let out = attest(&idx)
        .env("ATTEST_MAX_INFLATED_BYTES", (1 << 20).to_string())
        .args(["ingest", "--json"])
        .arg(&docs)
        .output()
        .unwrap();
    let r = json(&out.stdout);
    let failed = r["failed"].as_array().unwrap();
    let reason = |name: &str| {
        failed
            .iter()
            .find(|f| f["path"].as_str().unwrap().ends_with(name))
            .map(|f| f["reason"].as_str().unwrap().to_lowercase())
            .unwrap_or_else(|| panic!("{name} failed: {r}"))
    };
    assert!(reason("plain.docx").contains("zip"), "{r}");
    assert!(reason("nodoc.docx").contains("word/document.xml"), "{r}");
    assert!(reason("xxe.docx").contains("xxe"), "{r}");
    assert!(reason("bomb.docx").contains("limit"), "{r}");
    assert!(reason("kept.docx").contains("zip"), "{r}");
    assert_eq!(failed.len(), 5, "{r}");
    // What was stored for the file that went bad is still there and still answers.
    assert_eq!(r["documents"], 1, "{r}");
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
    let s = attest(&idx)
        .args([
            "search",
            "--json",
            "--mode",
            "lexical",
            "western boundary survey root",
        ])
        .output()
        .unwrap();
    let s = json(&s.stdout);
    let hits = s["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 1, "{s}");
    assert!(hits[0]["text"]
        .as_str()
        .unwrap()
        .contains("western boundary"));
    assert!(passwd.is_empty() || !hits[0]["text"].as_str().unwrap().contains("root:"));
}
