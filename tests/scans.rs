//! Scanned pages and image files read by OCR (Tesseract), through the real binary: the
//! scans are rendered by the tests themselves (text drawn into pixels by `pdftoppm`, the
//! pixels wrapped in an image-only PDF or written as a PNG).
//!
//! Without `tesseract` these tests say they were skipped, unless `ATTEST_REQUIRE_OCR=1`
//! (set by `scripts/test.sh`) makes a missing program a failure.

use std::path::Path;

use super::cli::{attest, json};
use super::common::docgen::{char_accuracy, paged_pdf, scanned_pdf, Line};

/// Whether Tesseract is installed; otherwise the test is skipped (or fails when required).
fn have_tesseract() -> bool {
    let found = std::process::Command::new("tesseract")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var_os("ATTEST_REQUIRE_OCR").is_none(),
            "tesseract is required (ATTEST_REQUIRE_OCR=1) but not installed"
        );
        eprintln!("skipped: tesseract is not installed (scripts/setup.sh installs it)");
    }
    found
}

/// The printed page of a small permit.
const PERMIT: [&str; 7] = [
    "Air Quality Permit AQ-4471",
    "Section 3. Record Keeping",
    "The operator shall keep monitoring records for five years.",
    "Records shall be made available to the inspector on request.",
    "Section 4. Emission Limits",
    "Particulate matter shall not exceed 20 milligrams per cubic metre.",
    "Issued on 14 March 2024 by the County Air District.",
];

fn permit_lines() -> Vec<Line<'static>> {
    PERMIT
        .iter()
        .enumerate()
        .map(|(i, t)| (72, 720 - 24 * i as u32, *t))
        .collect()
}

/// `attest ingest --json DOCS` into `idx` with OCR `ocr` (`auto` or `off`): its report.
fn ingest(idx: &Path, docs: &Path, ocr: &str) -> serde_json::Value {
    let out = attest(idx)
        .env("ATTEST_OCR", ocr)
        .args(["ingest", "--json"])
        .arg(docs)
        .output()
        .unwrap();
    json(&out.stdout)
}

/// The stored text and layout of the only document in index `idx`.
fn stored(idx: &Path) -> (String, serde_json::Value, String) {
    let db = rusqlite::Connection::open(idx.join("attest.sqlite3")).unwrap();
    db.query_row("SELECT text, layout, kind FROM documents", [], |r| {
        let layout: String = r.get(1)?;
        Ok((r.get(0)?, serde_json::from_str(&layout).unwrap(), r.get(2)?))
    })
    .unwrap()
}

#[test]
fn a_scanned_page_is_read_by_ocr_and_its_evidence_says_so() {
    if !have_tesseract() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    let born_digital = paged_pdf(&[permit_lines()], false);
    std::fs::write(docs.join("permit.pdf"), scanned_pdf(&born_digital, 1, 300)).unwrap();
    let idx = dir.path().join("idx");
    let r = ingest(&idx, &docs, "auto");
    assert_eq!(r["added"], 1, "{r}");

    let (text, layout, _) = stored(&idx);
    let accuracy = char_accuracy(&PERMIT.join("\n"), &text);
    assert!(accuracy >= 0.95, "characters right {accuracy:.3}: {text:?}");
    assert!(
        layout["extractor"].as_str().unwrap().contains("tesseract"),
        "{layout}"
    );
    assert_eq!(layout["ocr"]["pages"], serde_json::json!([1]));
    let words = layout["ocr"]["words"].as_array().unwrap();
    assert!(
        words.len() >= 40,
        "every word keeps its confidence: {layout}"
    );
    for w in words {
        let (s, e) = (
            w[0].as_u64().unwrap() as usize,
            w[1].as_u64().unwrap() as usize,
        );
        assert!(!text[s..e].trim().is_empty() && w[2].as_u64().unwrap() <= 100);
    }

    let q = "How long must the operator keep monitoring records?";
    let out = attest(&idx).args(["ask", q, "--json"]).output().unwrap();
    let a = json(&out.stdout);
    let items = a["evidence"].as_array().unwrap();
    let item = items
        .iter()
        .find(|e| e["quote"].as_str().unwrap().contains("five years"))
        .unwrap_or_else(|| panic!("the record-keeping sentence is cited: {a}"));
    assert_eq!(item["page"], 1);
    assert!(
        item["ocr"]["engine"]
            .as_str()
            .unwrap()
            .starts_with("tesseract "),
        "{item}"
    );
    let human = attest(&idx).args(["ask", q]).output().unwrap();
    let shown = String::from_utf8_lossy(&human.stdout);
    assert!(
        shown.contains("[OCR tesseract"),
        "the human answer marks OCR: {shown}"
    );
}

#[test]
fn an_image_file_is_read_by_ocr_and_ocr_off_refuses_it_clearly() {
    if !have_tesseract() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(
        dir.path().join("permit.pdf"),
        paged_pdf(&[permit_lines()], false),
    )
    .unwrap();
    let status = std::process::Command::new("pdftoppm")
        .args(["-r", "300", "-gray", "-png", "-singlefile"])
        .arg(dir.path().join("permit.pdf"))
        .arg(docs.join("permit"))
        .status()
        .unwrap();
    assert!(status.success());
    std::fs::write(docs.join("truncated.png"), b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").unwrap();

    let idx = dir.path().join("idx");
    let r = ingest(&idx, &docs, "auto");
    assert_eq!(r["added"], 1, "{r}");
    let failed = r["failed"].as_array().unwrap();
    assert_eq!(failed.len(), 1, "{r}");
    assert!(
        failed[0]["path"]
            .as_str()
            .unwrap()
            .ends_with("truncated.png"),
        "{r}"
    );
    assert!(
        failed[0]["reason"].as_str().unwrap().contains("OCR failed"),
        "{r}"
    );
    let (text, layout, kind) = stored(&idx);
    assert_eq!(kind, "image");
    assert!(char_accuracy(&PERMIT.join("\n"), &text) >= 0.95, "{text:?}");
    assert!(layout["extractor"]
        .as_str()
        .unwrap()
        .starts_with("tesseract"));

    let off = dir.path().join("off");
    let r = ingest(&off, &docs, "off");
    assert_eq!(r["added"], 0, "{r}");
    let reasons: Vec<&str> = r["failed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["reason"].as_str().unwrap())
        .collect();
    assert!(reasons.iter().all(|x| x.contains("OCR")), "{reasons:?}");
}

#[test]
fn a_scanned_pdf_with_ocr_off_keeps_the_clear_no_text_error() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    let born_digital = paged_pdf(&[permit_lines()], false);
    std::fs::write(docs.join("scan.pdf"), scanned_pdf(&born_digital, 1, 150)).unwrap();
    let idx = dir.path().join("idx");
    let r = ingest(&idx, &docs, "off");
    let reason = r["failed"][0]["reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("no extractable text on page 1") && reason.contains("OCR is off"),
        "{r}"
    );
}
