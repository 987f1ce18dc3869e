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

/// The failures of a report as (path, reason).
fn failures(report: &Value) -> Vec<(String, String)> {
    report["failed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let s = |k: &str| f[k].as_str().unwrap().to_string();
            (s("path"), s("reason"))
        })
        .collect()
}

#[test]
fn hidden_html_text_is_never_stored_searched_or_quoted() {
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    // One secret per way of hiding text; each a distinct word.
    let hidden = [
        r#"<div style="display:none">The vault code is 7731 quillfeather.</div>"#,
        r#"<div style="COLOR: red ;  Display :  NONE  !important">The vault code is 7732 marrowbend.</div>"#,
        r#"<p style="visibility:hidden">The vault code is 7733 thistledown.</p>"#,
        r#"<span style="visibility: collapse">The vault code is 7734 brackenhold.</span>"#,
        r#"<p hidden>The vault code is 7735 copperwick.</p>"#,
        r#"<div aria-hidden="true"><p>The vault code is 7736 <b>lanternmoss</b>.</p></div>"#,
        r#"<template><p>The vault code is 7737 fernshadow.</p></template>"#,
        r#"<noscript>The vault code is 7738 gravelpine.</noscript>"#,
        r#"<!-- The vault code is 7739 hollowreed. -->"#,
        r#"<section style="display: none"><div><ul><li><em>The vault code is 7740 emberglass.</em></li></ul></div></section>"#,
        r#"<div hidden><p style="display:block;visibility:visible">The vault code is 7741 saltmarsh.</p></div>"#,
    ];
    let secrets = [
        "quillfeather",
        "marrowbend",
        "thistledown",
        "brackenhold",
        "copperwick",
        "lanternmoss",
        "fernshadow",
        "gravelpine",
        "hollowreed",
        "emberglass",
        "saltmarsh",
        "vaultmaster",
    ];
    let html = format!(
        "<html><head></head><body><h1 style=\"display:none\">The vaultmaster title</h1>\
         <h2>Records</h2><p>Counties must keep client records for seven years.</p>\
         <p>The vault code is kept by the clerk.</p>{}</body></html>",
        hidden.join("\n")
    );
    std::fs::write(docs.join("page.html"), html).unwrap();
    let idx = tmp.path().join("idx");
    let (r, code) = ingest_with(&idx, &docs, &[]);
    assert_eq!(code, 0, "{r}");
    assert_eq!(r["added"], 1, "{r}");
    let conn = rusqlite::Connection::open(idx.join("attest.sqlite3")).unwrap();
    let (title, text): (String, String) = conn
        .query_row("SELECT title, text FROM documents", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert!(text.contains("seven years"), "{text}");
    for s in secrets {
        assert!(
            !text.contains(s) && !title.contains(s),
            "{s} stored: {title} / {text}"
        );
        for mode in ["lexical", "hybrid"] {
            let out = attest(&idx)
                .args(["search", s, "--mode", mode, "--json"])
                .output()
                .unwrap();
            let hits = json(&out.stdout)["hits"].to_string();
            assert!(!hits.contains(s), "{mode} search for {s}: {hits}");
        }
    }
    for q in ["What is the vault code?", "Who holds the title?"] {
        let out = attest(&idx)
            .args(["ask", q, "--no-memory", "--json"])
            .output()
            .unwrap();
        let shown = String::from_utf8_lossy(&out.stdout);
        for s in secrets {
            assert!(!shown.contains(s), "ask {q:?} shows {s}: {shown}");
        }
    }
}

#[test]
fn a_file_over_the_chunk_budget_fails_alone_naming_its_count_and_nothing_is_stored() {
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    good_file(&docs);
    let long: String = (0..400)
        .map(|i| format!("Ledger entry {i} records a payment to the harbour office. "))
        .collect();
    std::fs::write(docs.join("ledger.txt"), &long).unwrap();
    let idx = tmp.path().join("idx");
    let (r, code) = ingest_with(&idx, &docs, &[("ATTEST_MAX_CHUNKS_PER_FILE", "5")]);
    assert_eq!(code, 2, "{r}");
    let reason = reason_for(&r, "ledger.txt");
    assert!(
        reason.contains("over the 5-chunk budget (max_chunks_per_file)"),
        "{reason}"
    );
    let count: usize = reason
        .split("makes ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in {reason}"));
    assert!(count > 5, "{reason}");
    assert_eq!(
        (r["added"].as_u64(), r["documents"].as_u64()),
        (Some(1), Some(1)),
        "{r}"
    );
    // The same budget from attest.toml; at the default the file goes in.
    let toml = tmp.path().join("attest.toml");
    std::fs::write(&toml, "max_chunks_per_file = 5\n").unwrap();
    let out = attest(&idx)
        .arg("--config")
        .arg(&toml)
        .args(["ingest", docs.to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(reason_for(&json(&out.stdout), "ledger.txt").contains("max_chunks_per_file"));
    let (r, code) = ingest_with(&idx, &docs, &[]);
    assert_eq!((code, r["added"].as_u64()), (0, Some(1)), "{r}");
}

#[test]
fn embedding_counts_against_the_file_time_limit_and_the_rest_goes_in() {
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    good_file(&docs);
    // About 220 chunks: loaded and chunked in about 0.4 s, embedded in 6 s or more (about
    // 30 ms a chunk on two idle cores), all in one call, checked after it.
    let long: String = (0..2_000)
        .map(|i| {
            format!("Inspection report {i} notes that the northern culvert near mile {i} was cleared and logged. ")
        })
        .collect();
    std::fs::write(docs.join("reports.md"), &long).unwrap();
    let idx = tmp.path().join("idx");
    let (r, code) = ingest_with(&idx, &docs, &[("ATTEST_FILE_TIMEOUT_SECS", "2")]);
    assert_eq!(code, 2, "{r}");
    let reason = reason_for(&r, "reports.md");
    assert!(
        reason.contains("embedding took longer than the 2 s limit (file_timeout_secs;"),
        "{reason}"
    );
    assert_eq!(failures(&r).len(), 1, "{r}");
    assert_eq!(
        (r["added"].as_u64(), r["documents"].as_u64()),
        (Some(1), Some(1)),
        "{r}"
    );
}

#[test]
fn devices_fifos_and_proc_links_are_failures_under_their_own_paths_and_never_read() {
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    good_file(&docs);
    let link = |target: &str, name: &str| {
        std::os::unix::fs::symlink(target, docs.join(name)).unwrap();
    };
    link("/dev/zero", "zero.txt");
    link("/dev/urandom", "random.md");
    link("/dev/null", "nothing");
    link("/proc/self/mem", "mem.txt");
    link("/proc/1/mem", "init.md");
    let made = std::process::Command::new("mkfifo")
        .arg(docs.join("pipe.txt"))
        .status()
        .unwrap();
    assert!(made.success());
    let out = attest(&tmp.path().join("idx"))
        .arg("ingest")
        .arg(&docs)
        .arg("--json")
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .unwrap();
    let r = json(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{r}");
    let failed = failures(&r);
    for (name, reason) in [
        ("zero.txt", "not a regular file: character device"),
        ("random.md", "not a regular file: character device"),
        ("nothing", "not a regular file: character device"),
        ("pipe.txt", "not a regular file: FIFO (named pipe)"),
    ] {
        assert_eq!(reason_for(&r, name), reason, "{r}");
    }
    for name in ["mem.txt", "init.md"] {
        assert!(reason_for(&r, name).starts_with("cannot read"), "{r}");
    }
    for (path, _) in &failed {
        assert!(
            path.contains("docs/"),
            "reported under the link's own path: {path}"
        );
        assert!(
            !path.starts_with("/proc") && !path.starts_with("/dev"),
            "{path}"
        );
    }
    assert_eq!(failed.len(), 6, "{r}");
    assert_eq!(r["added"], 1, "{r}");
}

/// The stored text of the document of `idx` whose path ends with `name`.
pub(crate) fn stored_text(idx: &Path, name: &str) -> String {
    let conn = rusqlite::Connection::open(idx.join("attest.sqlite3")).unwrap();
    conn.query_row(
        "SELECT text FROM documents WHERE path LIKE ?1",
        [format!("%{name}")],
        |r| r.get(0),
    )
    .unwrap()
}

/// `attest ask` (JSON) and `attest search` output for `q`, as text.
fn ask_and_search(idx: &Path, q: &str) -> String {
    let ask = attest(idx)
        .args(["ask", q, "--no-memory", "--json"])
        .output()
        .unwrap();
    let search = attest(idx).args(["search", q, "--json"]).output().unwrap();
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&ask.stdout),
        String::from_utf8_lossy(&search.stdout)
    )
}

#[test]
fn superscripts_footnote_markers_links_and_entities_never_reach_answers_raw() {
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    let html = "<html><body><h1>Compute thresholds</h1>\
        <p>General-purpose models trained with more than 10<sup>25</sup> floating point \
        operations are presumed to carry systemic risk.</p>\
        <p>The regulation was signed by the President<sup>2</sup> in the spring.</p></body></html>";
    std::fs::write(docs.join("compute.html"), html).unwrap();
    let md = "# Accounting of disclosures\n\nThe covered entity may extend the time required by \
        paragraph &#40;c)(1) of this section once, as the [HHS guidance](https://www.hhs.gov/x_(1)) \
        explains, by no more than 30 days.\n";
    std::fs::write(docs.join("accounting.md"), md).unwrap();
    let idx = tmp.path().join("idx");
    let (r, code) = ingest_with(&idx, &docs, &[]);
    assert_eq!(code, 0, "{r}");

    let html_text = stored_text(&idx, "compute.html");
    assert!(html_text.contains("10^25 floating point"), "{html_text}");
    assert!(
        html_text.contains("President^2 in the spring"),
        "{html_text}"
    );
    assert!(!html_text.contains("1025") && !html_text.contains("President2"));
    let shown = ask_and_search(
        &idx,
        "How many floating point operations make a model carry systemic risk?",
    );
    assert!(shown.contains("10^25"), "{shown}");
    assert!(!shown.contains("1025"), "{shown}");

    let md_text = stored_text(&idx, "accounting.md");
    assert!(
        md_text.contains("paragraph (c)(1) of this section once, as the HHS guidance explains"),
        "{md_text}"
    );
    let shown = ask_and_search(
        &idx,
        "How long may the covered entity extend the time required for the accounting?",
    );
    assert!(shown.contains("paragraph (c)(1)"), "{shown}");
    for raw in ["](", "&#40;", "https://www.hhs.gov"] {
        assert!(!shown.contains(raw), "{raw} shown: {shown}");
    }
}

/// An eCFR-style part written for this test: a part heading, an authority line, a
/// section with nested paragraphs, a table and a footnote.
const CFR_XML: &str = r#"<?xml version="1.0"?>
<DIV5 N="9" TYPE="PART">
<HEAD>PART 9&#x2014;STORAGE OF SAMPLE RECORDS</HEAD>
<AUTH><HED>Authority:</HED><PSPACE>12 U.S.C. 9999.</PSPACE></AUTH>
<DIV8 N="9.3" TYPE="SECTION">
<HEAD>&#xA7; 9.3 Retention periods.</HEAD>
<P>(a) <I>General.</I> Each holder keeps sample records as this section provides.</P>
<P>(b) <I>Periods.</I></P>
<P>(1) Sample ledgers must be retained for 6 years after the last entry.</P>
<P>(2) Sample manifests must be retained for 11 years after shipment.<FTNT><P>See the 2019 revision.</P></FTNT></P>
<TABLE><TR><TH>Record</TH><TH>Years</TH></TR><TR><TD>Ledger</TD><TD>6</TD></TR></TABLE>
</DIV8>
</DIV5>
"#;

#[test]
fn xml_documents_are_read_with_their_own_title_provisions_rows_and_footnotes_and_bad_xml_fails_alone(
) {
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(docs.join("part_12_9.xml"), CFR_XML).unwrap();
    std::fs::write(docs.join("broken.xml"), "<DIV5><HEAD>Open</DIV5>").unwrap();
    let xxe = "<?xml version=\"1.0\"?><!DOCTYPE d [<!ENTITY xxe SYSTEM \"file:///etc/passwd\">]>\
               <d><P>Secret: &xxe; stays a reference.</P></d>";
    std::fs::write(docs.join("xxe.xml"), xxe).unwrap();
    let deep = format!("{}x{}", "<a>".repeat(1000), "</a>".repeat(1000));
    std::fs::write(docs.join("deep.xml"), deep).unwrap();
    let idx = tmp.path().join("idx");
    let (r, code) = ingest_with(&idx, &docs, &[]);
    assert_eq!(code, 2, "{r}");
    assert!(
        reason_for(&r, "broken.xml").contains("malformed XML"),
        "{r}"
    );
    assert!(
        reason_for(&r, "deep.xml").contains("deeper than 512"),
        "{r}"
    );
    assert_eq!(r["added"], 2, "{r}");
    // The entity is never resolved: the file's own text, not /etc/passwd.
    let secret = stored_text(&idx, "xxe.xml");
    assert!(
        secret.contains("Secret: &xxe; stays a reference."),
        "{secret}"
    );
    assert!(!secret.contains("root:"));
    let text = stored_text(&idx, "part_12_9.xml");
    assert!(text.contains("Authority: 12 U.S.C. 9999."), "{text}");
    assert!(text.contains("Record | Years\n\nLedger | 6"), "{text}");
    assert!(text.ends_with("Notes\n\nSee the 2019 revision."), "{text}");
    let docs_out = attest(&idx).args(["documents", "--json"]).output().unwrap();
    let listed = String::from_utf8_lossy(&docs_out.stdout);
    assert!(
        listed.contains("PART 9\u{2014}STORAGE OF SAMPLE RECORDS"),
        "{listed}"
    );
    let out = attest(&idx)
        .args([
            "ask",
            "How long must sample manifests be retained?",
            "--no-memory",
            "--json",
        ])
        .output()
        .unwrap();
    let a = json(&out.stdout);
    assert_eq!(a["status"], "answered", "{a}");
    let e = &a["evidence"][0];
    assert!(e["quote"].as_str().unwrap().contains("11 years"), "{a}");
    assert_eq!(e["provision"], "§ 9.3(b)(2)", "{a}");
    assert!(e["non_binding"].is_null(), "{a}");
}
