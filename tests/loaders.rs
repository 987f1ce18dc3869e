//! Hostile files through the real binary: each must fail alone, with its reason, within
//! bounded time and memory, while the rest of the run is ingested.

use std::io::Write;
use std::path::Path;

use serde_json::Value;

use super::cli::{attest, json};

/// A one-page PDF whose content stream draws `text`, then `padding` spaces, Flate-compressed.
fn flate_pdf(text: &str, padding: usize) -> Vec<u8> {
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    z.write_all(format!("BT /F1 12 Tf 72 720 Td ({text}) Tj ET\n").as_bytes())
        .unwrap();
    let block = vec![b' '; 1 << 20];
    for _ in 0..padding / block.len() {
        z.write_all(&block).unwrap();
    }
    z.write_all(&block[..padding % block.len()]).unwrap();
    let data = z.finish().unwrap();
    let mut content = format!(
        "<< /Length {} /Filter /FlateDecode >>\nstream\n",
        data.len()
    )
    .into_bytes();
    content.extend_from_slice(&data);
    content.extend_from_slice(b"\nendstream");
    let objects: [Vec<u8>; 5] = [
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>".to_vec(),
        content,
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_vec(),
    ];
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, o) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend(format!("{} 0 obj\n", i + 1).bytes());
        out.extend_from_slice(o);
        out.extend(b"\nendobj\n");
    }
    let xref = out.len();
    out.extend(b"xref\n0 6\n0000000000 65535 f \n");
    for off in offsets {
        out.extend(format!("{off:010} 00000 n \n").bytes());
    }
    out.extend(format!("trailer\n<< /Size 6 /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n").bytes());
    out
}

/// `attest ingest DIR --json` with extra environment; the report and the exit code.
fn ingest_with(idx: &Path, dir: &Path, env: &[(&str, &str)]) -> (Value, i32) {
    let mut cmd = attest(idx);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.arg("ingest").arg(dir).arg("--json").output().unwrap();
    (json(&out.stdout), out.status.code().unwrap())
}

/// The reason given for the failed file whose path ends with `name`.
fn reason_for(report: &Value, name: &str) -> String {
    report["failed"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"].as_str().unwrap().ends_with(name))
        .unwrap_or_else(|| panic!("{name} not among the failures: {report}"))["reason"]
        .as_str()
        .unwrap()
        .to_string()
}

fn good_file(dir: &Path) {
    std::fs::write(
        dir.join("good.md"),
        "# Records\n\nCounties must keep client records for seven years.\n",
    )
    .unwrap();
}

#[test]
fn a_pdf_whose_streams_inflate_past_the_budget_fails_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    good_file(&docs);
    // ~300 KB on disk, 300 MiB inflated: over the default 256 MiB budget.
    std::fs::write(docs.join("bomb.pdf"), flate_pdf("Hello bomb", 300 << 20)).unwrap();
    std::fs::write(docs.join("fine.pdf"), flate_pdf("Fine text here", 1000)).unwrap();
    let (r, code) = ingest_with(&tmp.path().join("idx"), &docs, &[]);
    assert_eq!(code, 2, "{r}");
    let reason = reason_for(&r, "bomb.pdf");
    assert!(
        reason.contains("inflate") && reason.contains("max_inflated_bytes"),
        "{reason}"
    );
    assert_eq!(r["failed"].as_array().unwrap().len(), 1, "{r}");
    assert_eq!(r["added"], 2, "good.md and fine.pdf go in: {r}");
}

#[test]
fn pdf_extraction_runs_in_a_memory_limited_process() {
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    good_file(&docs);
    // Under a raised inflate budget the extractor itself must hold the 600 MiB stream:
    // the worker's address-space limit stops it instead of the whole ingest.
    std::fs::write(docs.join("big.pdf"), flate_pdf("Hello big", 600 << 20)).unwrap();
    // pdf-extract holds a content stream in memory (pdftotext streams it and stays small).
    let env = [
        ("ATTEST_MAX_INFLATED_BYTES", "100000000000"),
        ("ATTEST_PDF_MEMORY_BYTES", "500000000"),
        ("ATTEST_PDF_EXTRACTOR", "pdf-extract"),
    ];
    let (r, code) = ingest_with(&tmp.path().join("idx"), &docs, &env);
    assert_eq!(code, 2, "{r}");
    let reason = reason_for(&r, "big.pdf");
    assert!(reason.contains("pdf_memory_bytes"), "{reason}");
    assert_eq!(r["added"], 1, "{r}");
}

#[test]
fn deeply_nested_html_fails_at_the_depth_limit_instead_of_hanging() {
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    good_file(&docs);
    for (name, depth) in [("deep.html", 1_000_000), ("deep100k.html", 100_000)] {
        let html = format!(
            "<html><body>{}Deep text.{}</body></html>",
            "<div>".repeat(depth),
            "</div>".repeat(depth)
        );
        std::fs::write(docs.join(name), html).unwrap();
    }
    // Nesting within the limit, with unclosed paragraphs and items, still loads.
    let ok = format!(
        "<html><body>{}<p>One<p>Two<ul><li>a<li>b</ul>Nested but fine.{}</body></html>",
        "<section>".repeat(300),
        "</section>".repeat(300)
    );
    std::fs::write(docs.join("nested_ok.html"), ok).unwrap();
    let (r, code) = ingest_with(&tmp.path().join("idx"), &docs, &[]);
    assert_eq!(code, 2, "{r}");
    for name in ["deep.html", "deep100k.html"] {
        let reason = reason_for(&r, name);
        assert!(reason.contains("deeper than 512 levels"), "{reason}");
    }
    assert_eq!(r["failed"].as_array().unwrap().len(), 2, "{r}");
    assert_eq!(r["added"], 2, "{r}");
}

#[test]
fn text_without_whitespace_and_one_long_line_are_cut_to_the_chunk_budget() {
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    let run = "x".repeat(200_000);
    std::fs::write(docs.join("run.txt"), &run).unwrap();
    let idx = tmp.path().join("idx");
    let (r, code) = ingest_with(&idx, &docs, &[]);
    assert_eq!(code, 0, "{r}");
    // 200 tokens × 16 bytes per chunk at most.
    assert!(r["chunks"].as_u64().unwrap() >= 200_000 / 3200, "{r}");
    let out = attest(&idx)
        .args([
            "search",
            &"x".repeat(50),
            "--mode",
            "dense",
            "--k",
            "20",
            "--json",
        ])
        .output()
        .unwrap();
    let hits = json(&out.stdout)["hits"].as_array().unwrap().clone();
    assert!(!hits.is_empty());
    for h in &hits {
        let (start, end) = (h["start"].as_u64().unwrap(), h["end"].as_u64().unwrap());
        assert!(end - start <= 3200, "chunk of {} bytes", end - start);
        assert_eq!(
            h["text"].as_str().unwrap(),
            &run[start as usize..end as usize]
        );
    }
}

#[test]
fn text_budget_and_file_time_limit_are_per_file_failures() {
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    good_file(&docs);
    std::fs::write(docs.join("long.md"), "Records are kept. ".repeat(200)).unwrap();
    let idx = tmp.path().join("idx");
    let (r, code) = ingest_with(&idx, &docs, &[("ATTEST_MAX_TEXT_BYTES", "1000")]);
    assert_eq!(code, 2, "{r}");
    let reason = reason_for(&r, "long.md");
    assert!(
        reason.contains("1000-byte budget (max_text_bytes)"),
        "{reason}"
    );
    assert_eq!(r["added"], 1, "{r}");

    let (r, code) = ingest_with(
        &tmp.path().join("idx2"),
        &docs,
        &[("ATTEST_FILE_TIMEOUT_SECS", "0")],
    );
    assert_eq!(code, 2, "{r}");
    for name in ["good.md", "long.md"] {
        let reason = reason_for(&r, name);
        assert!(reason.contains("(file_timeout_secs)"), "{reason}");
    }
}
