//! Never silently wrong, in loaders, exports and watch, through the real binary: hidden
//! DOCX text is never evidence; HTML markup cannot make the parse run past its limits
//! (self-closing tags nest as the HTML5 parser nests them, unclosed links do not, and the
//! file's deadline stops the parse itself); CSV cells never open as spreadsheet formulas;
//! and a watch whose index folder is deleted stops instead of writing into it.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::cli::{attest, json};
use super::common::docgen::{zip_of, W};
use super::common::model_dir;

/// `attest ingest DIR --json` with extra environment: the report and the exit code.
fn ingest_env(idx: &Path, dir: &Path, env: &[(&str, &str)]) -> (Value, i32) {
    let mut cmd = attest(idx);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.arg("ingest").arg(dir).arg("--json").output().unwrap();
    (json(&out.stdout), out.status.code().unwrap())
}

/// The reason the report gives for the failed file whose path ends with `name`, if any.
fn failure(report: &Value, name: &str) -> Option<String> {
    report["failed"]
        .as_array()?
        .iter()
        .find(|f| f["path"].as_str().unwrap().ends_with(name))
        .map(|f| f["reason"].as_str().unwrap().to_string())
}

/// Every stored document's text, joined.
fn stored_texts(idx: &Path) -> String {
    let conn = rusqlite::Connection::open(idx.join("attest.sqlite3")).unwrap();
    let mut stmt = conn
        .prepare("SELECT title || '\n' || text FROM documents")
        .unwrap();
    let texts: Vec<String> = stmt
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    texts.join("\n")
}

/// What `attest search` (lexical and hybrid) and `attest ask --json` print for `q`.
fn shown_for(idx: &Path, q: &str) -> String {
    let mut shown = String::new();
    for mode in ["lexical", "hybrid"] {
        let out = attest(idx)
            .args(["search", q, "--mode", mode, "--json"])
            .output()
            .unwrap();
        shown.push_str(&String::from_utf8_lossy(&out.stdout));
    }
    let out = attest(idx)
        .args(["ask", q, "--no-memory", "--json"])
        .output()
        .unwrap();
    shown.push_str(&String::from_utf8_lossy(&out.stdout));
    shown
}

// ---------------------------------------------------------------------------------
// 15. Hidden DOCX text

/// A run with run properties `props`.
fn run(props: &str, text: &str) -> String {
    format!(r#"<w:r><w:rPr>{props}</w:rPr><w:t xml:space="preserve">{text}</w:t></w:r>"#)
}

fn paragraph(style: Option<&str>, runs: &[String]) -> String {
    let ppr = style.map_or(String::new(), |s| {
        format!(r#"<w:pPr><w:pStyle w:val="{s}"/></w:pPr>"#)
    });
    format!("<w:p>{ppr}{}</w:p>", runs.concat())
}

/// A DOCX with `body` and styles that hide text: a character style, one based on it, and
/// a paragraph style.
fn docx_with_hidden_styles(body: &str) -> Vec<u8> {
    let document = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="{W}"><w:body>{body}</w:body></w:document>"#
    );
    let styles = format!(
        r#"<?xml version="1.0"?><w:styles xmlns:w="{W}">
<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style>
<w:style w:type="character" w:styleId="Concealed"><w:name w:val="Concealed"/><w:rPr><w:vanish/></w:rPr></w:style>
<w:style w:type="character" w:styleId="ConcealedNote"><w:name w:val="Concealed Note"/><w:basedOn w:val="Concealed"/></w:style>
<w:style w:type="paragraph" w:styleId="DraftNote"><w:name w:val="Draft Note"/><w:rPr><w:vanish/></w:rPr></w:style>
</w:styles>"#
    );
    zip_of(&[
        ("word/document.xml", document.as_bytes()),
        ("word/styles.xml", styles.as_bytes()),
    ])
}

#[test]
fn hidden_docx_text_is_never_stored_searched_or_quoted() {
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    let heading = r#"<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Kiosk permits</w:t></w:r></w:p>"#;
    let body = [
        heading.to_string(),
        // Hidden in the middle of a sentence: the shown sentence reads on without it.
        paragraph(
            None,
            &[
                run("", "Kiosk operators pay a permit fee of $180 per year"),
                run(
                    "<w:vanish/>",
                    " unless they hold more than four kiosks, then $9,750 (duskmantle)",
                ),
                run("", "."),
            ],
        ),
        paragraph(
            None,
            &[run(
                r#"<w:rStyle w:val="ConcealedNote"/>"#,
                "Kiosk operators near the harbour pay $6,420 a year under the cinderfall rule.",
            )],
        ),
        paragraph(
            Some("DraftNote"),
            &[run(
                "",
                "Kiosk permits lapse after 11 days per the wrenhollow draft.",
            )],
        ),
        paragraph(
            None,
            &[run(
                "<w:specVanish/>",
                "The kiosk permit fee is waived for the saltgrove fair.",
            )],
        ),
        // Shown: a run that turns hiding off inside a hiding paragraph style.
        paragraph(
            Some("DraftNote"),
            &[run(
                r#"<w:vanish w:val="0"/>"#,
                "Kiosk permits are renewed every January.",
            )],
        ),
    ]
    .concat();
    std::fs::write(docs.join("permits.docx"), docx_with_hidden_styles(&body)).unwrap();
    let idx = tmp.path().join("idx");
    let (r, code) = ingest_env(&idx, &docs, &[]);
    assert_eq!(code, 0, "{r}");
    let stored = stored_texts(&idx);
    assert!(
        stored.contains("Kiosk operators pay a permit fee of $180 per year.")
            && stored.contains("Kiosk permits are renewed every January."),
        "{stored}"
    );
    let secrets = [
        "duskmantle",
        "9,750",
        "cinderfall",
        "6,420",
        "wrenhollow",
        "11 days",
        "saltgrove",
    ];
    for s in secrets {
        assert!(!stored.contains(s), "{s} stored: {stored}");
    }
    for q in [
        "How much do kiosk operators with more than four kiosks pay?",
        "What do kiosk operators near the harbour pay?",
        "When do kiosk permits lapse?",
        "Is the kiosk permit fee waived?",
    ] {
        let shown = shown_for(&idx, q);
        for s in secrets {
            assert!(!shown.contains(s), "{q:?} shows {s}: {shown}");
        }
    }
}

// ---------------------------------------------------------------------------------
// 16. HTML markup and the limits

#[test]
fn self_closing_html_tags_nest_as_the_parser_nests_them_and_are_refused_at_once() {
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(
        docs.join("good.md"),
        "# Stalls\n\nMarket stalls close at nine in the evening.\n",
    )
    .unwrap();
    // In HTML a self-closing slash on a non-void element means nothing: each opens inside
    // the last, as deep as the tags are many.
    let nested = [
        ("divs.html", "<div/>x".repeat(20_000)),
        ("spans.html", "<span class='s' />y ".repeat(30_000)),
        (
            "after-svg.html",
            format!("<svg><path d='M0'/></svg>{}", "<section/>".repeat(15_000)),
        ),
    ];
    for (name, body) in &nested {
        std::fs::write(docs.join(name), format!("<html><body>{body}</body></html>")).unwrap();
    }
    // SVG's self-closing elements do close, and links never nest in links: both load.
    let svg = format!(
        "<html><body><p>The stall map has many paths.</p><svg>{}</svg></body></html>",
        "<path d='M0 0L1 1'/><circle r='1'/>".repeat(5_000)
    );
    std::fs::write(docs.join("map.html"), svg).unwrap();
    let links: String = (0..1_000)
        .map(|i| format!("<a href='#s{i}'>Stall {i} sells lanterns. "))
        .collect();
    std::fs::write(
        docs.join("links.html"),
        format!("<html><body><p>{links}</p><p>Stall rents are due on Mondays.</p></body></html>"),
    )
    .unwrap();
    let idx = tmp.path().join("idx");
    let started = Instant::now();
    let (r, code) = ingest_env(&idx, &docs, &[]);
    let took = started.elapsed();
    assert_eq!(code, 2, "{r}");
    for (name, _) in &nested {
        let reason = failure(&r, name).unwrap_or_else(|| panic!("{name} loaded: {r}"));
        assert!(reason.contains("deeper than 512 levels"), "{reason}");
    }
    for name in ["map.html", "links.html", "good.md"] {
        assert!(failure(&r, name).is_none(), "{name} failed: {r}");
    }
    assert_eq!(r["added"], 3, "{r}");
    assert!(stored_texts(&idx).contains("Stall rents are due on Mondays."));
    assert!(took < Duration::from_secs(120), "ingest took {took:?}");
}

#[test]
fn the_file_deadline_stops_an_html_parse_the_pre_scan_lets_through() {
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(
        docs.join("good.md"),
        "# Ferries\n\nThe ferry leaves at seven in the morning.\n",
    )
    .unwrap();
    // No nesting at all, but one tag whose attributes the tokenizer checks against each
    // other: quadratic work the depth pre-scan cannot see.
    for (name, count, prefix) in [
        ("attrs.html", 400_000, "a"),
        ("data.html", 300_000, "data-k"),
    ] {
        let attrs: String = (0..count).map(|i| format!(" {prefix}{i}")).collect();
        let html = format!("<html><body><p{attrs}>The ferry is late.</p></body></html>");
        std::fs::write(docs.join(name), html).unwrap();
    }
    let idx = tmp.path().join("idx");
    let started = Instant::now();
    let (r, code) = ingest_env(&idx, &docs, &[("ATTEST_FILE_TIMEOUT_SECS", "3")]);
    let took = started.elapsed();
    assert_eq!(code, 2, "{r}");
    for name in ["attrs.html", "data.html"] {
        let reason = failure(&r, name).unwrap_or_else(|| panic!("{name} loaded: {r}"));
        assert!(reason.contains("(file_timeout_secs)"), "{reason}");
    }
    assert_eq!(r["added"], 1, "{r}");
    // Each file stops at its 3 s limit, not when its parse would have ended.
    assert!(took < Duration::from_secs(40), "ingest took {took:?}");
}

// ---------------------------------------------------------------------------------
// 17. CSV formula injection

const FORMULA_STARTS: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// Every cell of a CSV text, by row.
fn cells(text: &str) -> Vec<Vec<String>> {
    csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(text.as_bytes())
        .records()
        .map(|r| r.unwrap().iter().map(str::to_string).collect())
        .collect()
}

fn assert_no_formula(rows: &[Vec<String>]) {
    for row in rows {
        for cell in row {
            assert!(!cell.starts_with(FORMULA_STARTS), "{cell:?} in {row:?}");
        }
    }
}

#[test]
fn csv_cells_never_start_a_spreadsheet_formula() {
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(
        docs.join("=HYPERLINK(\"http---x\",\"fees\").md"),
        "# =HYPERLINK(\"http://example.invalid\",\"Berth fees\")\n\n\
         Berth fees for fishing boats are $35 per night at the north quay.\n",
    )
    .unwrap();
    std::fs::write(
        docs.join("@moorings.md"),
        "# -Mooring rules\n\n\
         Moorings on the east pier are assigned for twelve months at a time.\n",
    )
    .unwrap();
    let idx = tmp.path().join("idx");
    // Ingested from inside the folder, so each source is the bare file name.
    let out = attest(&idx)
        .current_dir(&docs)
        .args(["ingest", ".", "--json"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let ask = |q: &str| {
        let out = attest(&idx)
            .current_dir(&docs)
            .args(["ask", q, "--no-memory", "--format", "csv"])
            .output()
            .unwrap();
        cells(&String::from_utf8_lossy(&out.stdout))
    };
    let fees = ask("What are the berth fees for fishing boats?");
    assert_no_formula(&fees);
    let row = fees
        .iter()
        .find(|r| r[10].contains("$35 per night"))
        .unwrap_or_else(|| panic!("the fee is cited: {fees:?}"));
    assert!(row[6].starts_with("'=HYPERLINK("), "source {:?}", row[6]);
    assert!(row[8].starts_with("'=HYPERLINK("), "section {:?}", row[8]);
    let moorings = ask("For how long are moorings on the east pier assigned?");
    assert_no_formula(&moorings);
    let row = moorings
        .iter()
        .find(|r| r[10].contains("twelve months"))
        .unwrap_or_else(|| panic!("the term is cited: {moorings:?}"));
    assert_eq!(
        (row[6].as_str(), row[8].as_str()),
        ("'@moorings.md", "'-Mooring rules")
    );

    // A batch: ids and questions from the file are cells too.
    let questions = tmp.path().join("q.jsonl");
    std::fs::write(
        &questions,
        "{\"id\": \"+1\", \"question\": \"What are the berth fees for fishing boats?\"}\n\
         {\"id\": \"@2\", \"question\": \"-What is the tide table for the moon?\"}\n",
    )
    .unwrap();
    let out = attest(&idx)
        .current_dir(&docs)
        .args(["ask", "--no-memory", "--format", "csv", "--questions"])
        .arg(&questions)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = cells(&String::from_utf8_lossy(&out.stdout));
    assert_no_formula(&rows);
    assert!(rows.iter().any(|r| r[0] == "'+1"), "{rows:?}");
    assert!(
        rows.iter()
            .any(|r| r[0] == "'@2" && r[1] == "'-What is the tide table for the moon?"),
        "{rows:?}"
    );
}

// ---------------------------------------------------------------------------------
// 18. A watch whose index is deleted

/// `attest watch --json DOCS` on `idx`: the child and its printed runs.
fn start_watch(idx: &Path, docs: &Path) -> (std::process::Child, mpsc::Receiver<Value>) {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin!("attest"))
        .arg("--index")
        .arg(idx)
        .arg("--model-dir")
        .arg(model_dir())
        .args(["watch", "--json", "--debounce-ms", "200"])
        .arg(docs)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, runs) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let run: Value = serde_json::from_str(&line).unwrap_or(Value::String(line));
            if tx.send(run).is_err() {
                break;
            }
        }
    });
    (child, runs)
}

/// Wait at most `limit` for `child` to exit: its exit code, or `None` (then it is killed).
fn exit_within(child: &mut std::process::Child, limit: Duration) -> Option<i32> {
    let started = Instant::now();
    while started.elapsed() < limit {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code();
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

#[test]
fn a_watch_whose_index_folder_is_deleted_stops_instead_of_writing_into_it() {
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(
        docs.join("a.md"),
        "# Locks\n\nThe canal lock opens at dawn.\n",
    )
    .unwrap();
    // The index folder deleted, then (a) a document changed, or (b) the folder made again
    // at once: either way the watch stops, names the index and writes nothing more.
    for remake in [false, true] {
        let idx = tmp.path().join(format!("idx-{remake}"));
        let (mut child, runs) = start_watch(&idx, &docs);
        let first = runs
            .recv_timeout(Duration::from_secs(180))
            .expect("the first run");
        assert_eq!(first["report"]["documents"], 1, "{first}");
        std::fs::remove_dir_all(&idx).unwrap();
        if remake {
            std::fs::create_dir_all(&idx).unwrap();
        }
        std::fs::write(
            docs.join("b.md"),
            "# Weirs\n\nThe weir gate is checked weekly.\n",
        )
        .unwrap();
        let code = exit_within(&mut child, Duration::from_secs(60));
        let mut stderr = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
        assert_eq!(code, Some(2), "the watch stops with an error: {stderr}");
        assert!(
            stderr.contains("the index folder was deleted or replaced")
                && stderr.contains(&format!("idx-{remake}")),
            "{stderr}"
        );
        let reported: Vec<Value> = runs.try_iter().collect();
        assert!(
            reported.is_empty(),
            "no run is reported after the deletion: {reported:?}"
        );
        let left: Vec<_> = std::fs::read_dir(&idx)
            .map(|d| d.map(|e| e.unwrap().file_name()).collect())
            .unwrap_or_default();
        assert!(
            left.is_empty(),
            "nothing is written where the index was: {left:?}"
        );
        std::fs::remove_file(docs.join("b.md")).unwrap();
    }
}
