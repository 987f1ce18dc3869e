//! Every quote points into the file on disk: an evidence item's `file_start`/`file_end`
//! are bytes of its file whose rendering is the quote, for every loader whose text is the
//! file's own bytes (text and Markdown), whatever Markdown renders around the quote (links,
//! images, character references, inline tags, CRLF lines, block quotes); a rendered
//! format says it has none, an index stored before source maps says so too, and the
//! document view gives the same span.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::cli::{attest, ingest_json, json};
use crate::common::server::{client, Server};

/// A corpus whose Markdown renders links, images, references and tags inside sentences.
fn corpus(dir: &Path) -> PathBuf {
    let docs = dir.join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    let write = |name: &str, body: &str| std::fs::write(docs.join(name), body).unwrap();
    write(
        "9-12-security-management.md",
        "# <a name=\"s912\"></a>§ 9.12 Security management\r\n\r\n\
         (a) A [covered clinic](/rules/9-103-definitions/) must, in accordance with \
         [§ 9.10](/rules/9-10_(general)/):\r\n\r\n\
         > (1) Standard: risk management.\r\n\r\n\
         > > (i) A [covered clinic](/rules/9-103/) must conduct an accurate and thorough \
         assessment of the potential risks to the confidentiality of the patient records \
         it holds.\r\n\r\n\
         > > (ii) The [covered clinic](/rules/9-103/) must repeat the risk assessment every \
         year &amp; after any breach of patient records.\r\n",
    );
    write(
        "laptop-guide.md",
        "# Lost devices\n\n<em>Staff</em> must report a lost laptop to the \
         [privacy officer](mailto:po@example.org) within 24&nbsp;hours of noticing the loss.\n\n\
         The report form is shown in ![the form](form.png) and kept by the \
         [records&nbsp;office](https://example.org/records_(office)).\n",
    );
    write(
        "backup-notes.txt",
        "Backup notes\n\nBackup tapes must be encrypted before they leave the building.\n\
         Encrypted tapes are logged by the records office every week.\n",
    );
    write(
        "visitor-policy.html",
        "<html><head><title>Visitor policy</title></head><body><h1>Visitors</h1>\
         <p>Visitors must sign the register at reception before entering the clinic.</p>\
         </body></html>",
    );
    docs
}

const QUESTIONS: &[&str] = &[
    "What must a covered clinic do to assess the risks to patient records?",
    "How often must the clinic repeat the risk assessment?",
    "How soon must staff report a lost laptop?",
    "Must backup tapes be encrypted before they leave the building?",
    "Who must sign the register at reception?",
];

/// Every evidence item and candidate of the run of `q` (both carry the spans).
fn items(idx: &Path, q: &str, dir: &Path) -> Vec<Value> {
    let audit = dir.join("run.json");
    let out = attest(idx)
        .args(["ask", q, "--json", "--no-memory", "--audit"])
        .arg(&audit)
        .output()
        .unwrap();
    assert!(matches!(out.status.code(), Some(0 | 1)), "{out:?}");
    let trail = json(&std::fs::read(&audit).unwrap());
    let mut all: Vec<Value> = trail["evidence"].as_array().unwrap().clone();
    all.extend(trail["candidates"].as_array().unwrap().iter().cloned());
    all
}

/// The rendering of the file bytes `[file_start, file_end)` of item `e`, when it has them.
fn file_text(e: &Value) -> Option<String> {
    let source = e["source"].as_str().unwrap();
    let (s, t) = (e["file_start"].as_u64()?, e["file_end"].as_u64()?);
    let bytes = std::fs::read(source).unwrap();
    let raw = std::str::from_utf8(&bytes[s as usize..t as usize]).expect("UTF-8 file span");
    Some(if source.ends_with(".md") {
        attest::corpus::mdinline::render(raw).into_owned()
    } else {
        raw.to_string()
    })
}

#[test]
fn every_quote_of_text_and_markdown_renders_from_its_file_span() {
    let tmp = tempfile::tempdir().unwrap();
    let docs = corpus(tmp.path());
    let idx = tmp.path().join("idx");
    let (r, code) = ingest_json(&idx, &[&docs]);
    assert_eq!(code, 0, "{r}");
    let mut all = Vec::new();
    for q in QUESTIONS {
        all.extend(items(&idx, q, tmp.path()));
    }
    let (mut moved, mut html, mut through_link) = (0, 0, 0);
    for e in &all {
        let source = e["source"].as_str().unwrap();
        let quote = e["quote"].as_str().unwrap();
        if source.ends_with(".html") {
            html += 1;
            assert_eq!(e["file_span_absent"], "rendered", "{e}");
            assert!(e["file_start"].is_null(), "{e}");
            continue;
        }
        let rendered = file_text(e).unwrap_or_else(|| panic!("no file span: {e}"));
        assert_eq!(rendered, quote, "{source}: {e}");
        moved += usize::from(e["file_start"] != e["start"]);
        let (s, t) = (
            e["file_start"].as_u64().unwrap(),
            e["file_end"].as_u64().unwrap(),
        );
        let raw = &std::fs::read(source).unwrap()[s as usize..t as usize];
        through_link += usize::from(raw.windows(2).any(|w| w == b"]("));
    }
    assert!(html > 0, "the HTML policy is a candidate");
    assert!(moved > 0, "rendering moved some quotes in their files");
    assert!(through_link > 0, "some quotes hold a link in the file");
    let md = all
        .iter()
        .filter(|e| e["source"].as_str().unwrap().ends_with(".md"))
        .count();
    let txt = all.len() - md - html;
    assert!(md > 0 && txt > 0, "{md} Markdown and {txt} text quotes");

    // The document view gives each cited span the same place in the file.
    let s = Server::start(&idx, &[], &[]);
    let c = client();
    for e in all.iter().filter(|e| !e["file_start"].is_null()).take(12) {
        let url = format!(
            "/v1/documents/{}?start={}&end={}",
            e["doc_id"].as_str().unwrap(),
            e["start"],
            e["end"]
        );
        let v: Value = c.get(s.url(&url)).send().unwrap().json().unwrap();
        assert_eq!(
            (&v["file_start"], &v["file_end"]),
            (&e["file_start"], &e["file_end"]),
            "{v}"
        );
    }
}

#[test]
fn an_index_stored_without_source_maps_says_so_instead_of_guessing() {
    let tmp = tempfile::tempdir().unwrap();
    let docs = corpus(tmp.path());
    let idx = tmp.path().join("idx");
    let (r, code) = ingest_json(&idx, &[&docs]);
    assert_eq!(code, 0, "{r}");
    // Layouts as an index written before source maps stored them.
    let conn = rusqlite::Connection::open(idx.join("attest.sqlite3")).unwrap();
    conn.execute(
        "UPDATE documents SET layout = json_remove(layout, '$.source_map')",
        [],
    )
    .unwrap();
    drop(conn);
    let all = items(&idx, QUESTIONS[2], tmp.path());
    assert!(!all.is_empty());
    for e in &all {
        assert_eq!(e["file_span_absent"], "not_recorded", "{e}");
        assert!(e["file_start"].is_null() && e["file_end"].is_null(), "{e}");
    }
}
