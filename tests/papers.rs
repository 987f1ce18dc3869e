//! Research papers and the folders they come in, through the real binary: nothing under a
//! folder passed over without a word, files read as what their content is, small capitals
//! rejoined, the title a paper prints, and pages whose text is lost reported.

use std::path::Path;

use serde_json::Value;

use super::cli::{attest, json};
use super::common::docgen::{paged_pdf, typeset_pdf, typeset_pdf_titled, Run};
use super::loaders::stored_text;

/// `attest ingest DIR --json`: the report.
fn ingest_json(idx: &Path, dir: &Path) -> Value {
    let out = attest(idx)
        .args(["ingest", "--json"])
        .arg(dir)
        .output()
        .unwrap();
    json(&out.stdout)
}

/// What `attest documents --json` shows for the document whose path ends with `name`.
fn listed(idx: &Path, name: &str) -> Value {
    let out = attest(idx).args(["documents", "--json"]).output().unwrap();
    let listing = json(&out.stdout);
    let docs = listing["documents"]
        .as_array()
        .or(listing.as_array())
        .unwrap();
    docs.iter()
        .find(|d| d["source"].as_str().unwrap().ends_with(name))
        .unwrap_or_else(|| panic!("{name} not listed: {listing}"))
        .clone()
}

/// The title `attest documents --json` shows for the document whose path ends with `name`.
fn title_of(idx: &Path, name: &str) -> String {
    listed(idx, name)["title"].as_str().unwrap().to_string()
}

#[test]
fn every_file_a_folder_holds_is_stored_failed_or_skipped_with_its_reason() {
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("papers");
    std::fs::create_dir_all(docs.join(".cache")).unwrap();
    std::fs::create_dir_all(docs.join("drafts")).unwrap();
    std::fs::write(
        docs.join("notes.md"),
        "# Notes\n\nThe corpus holds 40 papers.\n",
    )
    .unwrap();
    std::fs::write(docs.join("train.py"), "print('hello')\n").unwrap();
    std::fs::write(docs.join("scores.xlsx"), b"PK\x03\x04 not really").unwrap();
    std::fs::write(docs.join("README"), "no extension\n").unwrap();
    std::fs::write(docs.join(".cache/seen.md"), "# Cached\n\nA cached page.\n").unwrap();
    std::fs::write(docs.join(".ignore"), "drafts/\n").unwrap();
    std::fs::write(docs.join("drafts/old.md"), "# Old\n\nAn old draft.\n").unwrap();
    let idx = tmp.path().join("idx");
    let report = ingest_json(&idx, &docs);
    assert_eq!(report["added"], 1, "{report}");
    let skipped: Vec<(String, String, String)> = report["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let path = s["path"].as_str().unwrap();
            let name = path.rsplit_once("papers/").map_or(path, |(_, n)| n);
            let detail = s["detail"].as_str().unwrap_or("").to_string();
            (
                name.to_string(),
                s["reason"].as_str().unwrap().into(),
                detail,
            )
        })
        .collect();
    let want = [
        (".cache", "hidden", ""),
        (".ignore", "hidden", ""),
        ("README", "unsupported", ""),
        ("drafts/old.md", "ignored", ""),
        ("scores.xlsx", "unsupported", "xlsx"),
        ("train.py", "unsupported", "py"),
    ];
    let want: Vec<(String, String, String)> = want
        .iter()
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
        .collect();
    assert_eq!(skipped, want, "{report}");
    assert_eq!(report["skipped_total"], 6);
    // The human summary says the same, one line each.
    let out = attest(&idx).arg("ingest").arg(&docs).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("train.py: unsupported file type (.py)")
            && text.contains(".cache: hidden")
            && text.contains("drafts/old.md: excluded by an ignore file"),
        "{text}"
    );
}

#[test]
fn ingest_help_names_every_format_the_loader_reads() {
    let tmp = tempfile::tempdir().unwrap();
    let odd = tmp.path().join("data.xyz");
    std::fs::write(&odd, "x").unwrap();
    let out = attest(&tmp.path().join("idx"))
        .args(["ingest", "--json"])
        .arg(&odd)
        .output()
        .unwrap();
    let report = json(&out.stdout);
    let reason = report["failed"][0]["reason"].as_str().unwrap().to_string();
    let listed = reason
        .split_once("supported: ")
        .and_then(|(_, l)| l.strip_suffix(')'))
        .unwrap_or_else(|| panic!("no list of formats in {reason:?}"));
    let help = attest(tmp.path())
        .args(["ingest", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    let first = help.lines().next().unwrap();
    for ext in listed.split(", ") {
        assert!(
            first
                .split(|c: char| !c.is_alphanumeric())
                .any(|w| w == ext),
            "{ext} missing from {first:?}"
        );
    }
}

#[test]
fn a_web_page_saved_as_text_is_read_as_html_and_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(
        docs.join("motel.txt"),
        "<!DOCTYPE html>\n<html class=\"client-nojs\"><head><title>Bates Motel</title>\
         <script>var x = 1;</script></head><body><h1>Bates Motel</h1>\
         <p>The Bates Motel has twelve cabins.</p></body></html>\n",
    )
    .unwrap();
    std::fs::write(
        docs.join("plain.txt"),
        "Plain notes: the pool closes at 9 pm.\n",
    )
    .unwrap();
    let idx = tmp.path().join("idx");
    let report = ingest_json(&idx, &docs);
    let read_as = report["read_as"].as_array().unwrap();
    assert_eq!(read_as.len(), 1, "{report}");
    assert!(read_as[0]["path"].as_str().unwrap().ends_with("motel.txt"));
    assert_eq!(read_as[0]["format"], "html");
    let text = stored_text(&idx, "motel.txt");
    assert!(
        text.contains("The Bates Motel has twelve cabins."),
        "{text}"
    );
    assert!(
        !text.contains('<') && !text.contains("client-nojs"),
        "{text}"
    );
    assert_eq!(title_of(&idx, "motel.txt"), "Bates Motel");
    assert_eq!(
        stored_text(&idx, "plain.txt"),
        "Plain notes: the pool closes at 9 pm.\n"
    );
}

/// A paper's first page: its title in large type, and a body line naming a tool set in
/// small capitals (a capital, then smaller capitals in a second font, touching), beside a
/// heading whose capitals are an ordinary space apart.
fn paper_page() -> Vec<u8> {
    let g = 0.722 * 10.0; // the width of a 10 pt Helvetica "G"
    let runs: Vec<Run> = vec![
        (
            120.0,
            700.0,
            18.0,
            false,
            "Reading Scientific Papers Offline",
        ),
        (100.0, 676.0, 11.0, false, "Ada Byron"),
        (150.0, 680.0, 6.0, false, "1"),
        (200.0, 676.0, 11.0, false, "Grace B. Hopper"),
        (281.0, 680.0, 6.0, false, "2"),
        (100.0, 662.0, 9.0, false, "Department of Computer Science"),
        (72.0, 655.0, 10.0, false, "Abstract"),
        (72.0, 640.0, 10.0, false, "We parse every paper with"),
        (200.0, 640.0, 10.0, false, "G"),
        (200.0 + g + 0.5, 640.0, 8.0, true, "ROBID"),
        (240.0, 640.0, 10.0, false, "and keep the text of each page."),
        (72.0, 620.0, 10.0, false, "APPENDIX B DATA"),
        (
            72.0,
            600.0,
            10.0,
            false,
            "The corpus holds forty papers from three venues.",
        ),
    ];
    typeset_pdf(&runs)
}

#[test]
fn small_capitals_are_one_word_and_a_paper_has_the_title_and_authors_it_prints() {
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(docs.join("2301.00001v2.pdf"), paper_page()).unwrap();
    let idx = tmp.path().join("idx");
    let report = ingest_json(&idx, &docs);
    assert_eq!(report["added"], 1, "{report}");
    let text = stored_text(&idx, "2301.00001v2.pdf");
    assert!(text.contains("with GROBID and keep"), "{text}");
    assert!(text.contains("APPENDIX B DATA"), "{text}");
    assert_eq!(
        title_of(&idx, "2301.00001v2.pdf"),
        "Reading Scientific Papers Offline"
    );
    // The authors under the title, their footnote marks and affiliation left out.
    assert_eq!(
        listed(&idx, "2301.00001v2.pdf")["authors"],
        serde_json::json!(["Ada Byron", "Grace B. Hopper"])
    );
    let human = attest(&idx).arg("documents").output().unwrap();
    assert!(String::from_utf8_lossy(&human.stdout).contains("by Ada Byron, Grace B. Hopper"));
    // The arXiv identifier its file name carries.
    assert!(String::from_utf8_lossy(&human.stdout).contains("arXiv 2301.00001v2"));
    assert_eq!(
        listed(&idx, "2301.00001v2.pdf")["paper"]["arxiv"],
        "2301.00001v2"
    );
    let out = attest(&idx)
        .args(["search", "GROBID", "--json"])
        .output()
        .unwrap();
    let hits = json(&out.stdout);
    assert!(
        hits["hits"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("GROBID")),
        "{hits}"
    );
}

/// A journal's first page: its running head, a label in the title's type above the title,
/// the title over two lines, the author line in a type nearly the title's with a quad
/// between two names, an affiliation naming a country, and an e-mail address (no
/// "Abstract" heading). Its metadata title runs on into the journal's name.
fn journal_page() -> Vec<u8> {
    let runs: Vec<Run> = vec![
        (
            50.0,
            750.0,
            7.5,
            false,
            "Journal of Offline Reading, Volume 3, Article ID 42",
        ),
        (50.0, 690.0, 17.0, false, "Research Article"),
        (50.0, 666.0, 17.0, false, "Patient Experiences of Reading"),
        (50.0, 645.0, 17.0, false, "Programmes Offline"),
        (50.0, 612.0, 16.0, false, "Kola O. Odeku"),
        (175.0, 612.0, 16.0, false, "Ada Byron"),
        (
            50.0,
            594.0,
            10.0,
            false,
            "University of Limpopo, South Africa",
        ),
        (
            50.0,
            580.0,
            10.0,
            false,
            "Correspondence: kola@limpopo.example.org",
        ),
        (
            50.0,
            550.0,
            10.0,
            false,
            "We read every programme of the clinic and kept notes.",
        ),
        (
            50.0,
            536.0,
            10.0,
            false,
            "The notes hold forty interviews from three wards.",
        ),
        (
            50.0,
            522.0,
            10.0,
            false,
            "Each interview was read twice by two readers.",
        ),
    ];
    typeset_pdf_titled(
        &runs,
        Some("Patient Experiences of Reading Programmes Offline - Journal of Offline Reading"),
    )
}

/// A preprint's first page whose title is set in capitals in the body's type: only the
/// metadata title says where the title ends and the authors begin.
fn plain_preprint_page() -> Vec<u8> {
    let runs: Vec<Run> = vec![
        (
            90.0,
            690.0,
            10.0,
            false,
            "IMPROVING DETECTION OF INFLUENTIAL NODES",
        ),
        (90.0, 662.0, 9.0, false, "AMIR SHEIKH"),
        (160.0, 666.0, 5.0, false, "1"),
        (168.0, 662.0, 9.0, false, ", AND MARY A. SHOKROLLAHI"),
        (
            90.0,
            640.0,
            9.0,
            false,
            "Abstract. We compare measures of influence on ten networks.",
        ),
        (
            90.0,
            626.0,
            9.0,
            false,
            "The seeds of each measure overlap in most of the networks.",
        ),
        (
            90.0,
            612.0,
            9.0,
            false,
            "We propose a measure that avoids the common neighbours.",
        ),
    ];
    typeset_pdf_titled(&runs, Some("Improving detection of influential nodes"))
}

#[test]
fn a_journal_page_gives_the_title_it_prints_and_the_names_under_it() {
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(docs.join("journal.pdf"), journal_page()).unwrap();
    std::fs::write(docs.join("preprint.pdf"), plain_preprint_page()).unwrap();
    let idx = tmp.path().join("idx");
    let report = ingest_json(&idx, &docs);
    assert_eq!(report["added"], 2, "{report}");
    // The label above the title, the journal's name after the metadata title's dash and
    // the author line in nearly the title's type are no part of the title.
    assert_eq!(
        title_of(&idx, "journal.pdf"),
        "Patient Experiences of Reading Programmes Offline"
    );
    // Two names a quad apart; the affiliation's country is no name.
    assert_eq!(
        listed(&idx, "journal.pdf")["authors"],
        serde_json::json!(["Kola O. Odeku", "Ada Byron"])
    );
    // A title in the body's type: the metadata title's lines mark where the names begin.
    assert_eq!(
        title_of(&idx, "preprint.pdf"),
        "Improving detection of influential nodes"
    );
    assert_eq!(
        listed(&idx, "preprint.pdf")["authors"],
        serde_json::json!(["AMIR SHEIKH", "MARY A. SHOKROLLAHI"])
    );
}

#[test]
fn pages_whose_text_assembly_loses_are_reported_as_partly_read() {
    // Every page prints the same block: read as running heads and dropped, so the
    // stored text keeps almost nothing of what the text layer holds, page by page.
    let block = [
        "Each of these lines is printed in the same place on every single page.",
        "Repeated blocks are what running heads and footers look like to assembly.",
        "A reader would still want to know the stored text lost most of the page.",
        "So the ingest names the file and the pages that lost their text to it.",
    ];
    let page: Vec<(u32, u32, &str)> = block
        .iter()
        .enumerate()
        .map(|(i, l)| (72, 700 - 14 * i as u32, *l))
        .collect();
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    let pages = vec![page.clone(), page.clone(), page.clone(), page];
    std::fs::write(docs.join("repeated.pdf"), paged_pdf(&pages, false)).unwrap();
    let idx = tmp.path().join("idx");
    let report = ingest_json(&idx, &docs);
    let partly = report["partly_read"].as_array().unwrap();
    assert_eq!(partly.len(), 1, "{report}");
    assert!(partly[0]["path"]
        .as_str()
        .unwrap()
        .ends_with("repeated.pdf"));
    assert!(
        partly[0]["reason"]
            .as_str()
            .unwrap()
            .contains("page 2 keeps"),
        "{report}"
    );
}

/// The section headings stored for the document whose path ends with `name`.
fn headings(idx: &Path, name: &str) -> Vec<String> {
    let conn = rusqlite::Connection::open(idx.join("attest.sqlite3")).unwrap();
    let layout: String = conn
        .query_row(
            "SELECT layout FROM documents WHERE path LIKE ?1",
            [format!("%{name}")],
            |r| r.get(0),
        )
        .unwrap();
    let layout: Value = serde_json::from_str(&layout).unwrap();
    layout["headings"]
        .as_array()
        .map(|h| {
            h.iter()
                .map(|x| x["title"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn sections_come_from_headings_not_from_references_formulas_or_running_heads() {
    // Five journal pages: the left and right pages carry different running heads (the
    // author's name, the short title), each on only two pages.
    let prose = "The waves spread between cells through gap junctions in every culture.";
    let mut pages: Vec<Vec<(u32, u32, &str)>> = Vec::new();
    for p in 0..5 {
        let mut lines = vec![(72, 560, prose), (72, 546, prose)];
        match p {
            0 => lines.push((72, 740, "Calcium Waves in Glia")),
            1 | 3 => lines.push((72, 740, if p == 1 { "2 SMITH" } else { "4 SMITH" })),
            _ => lines.push((
                300,
                740,
                if p == 2 {
                    "WAVES IN GLIA 3"
                } else {
                    "WAVES IN GLIA 5"
                },
            )),
        }
        if p == 1 {
            lines.push((72, 680, "2 Data Model"));
            lines.push((72, 640, "Section 2 describes the data model in more detail"));
            lines.push((72, 600, "UR = ER - SR"));
        }
        pages.push(lines);
    }
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(docs.join("glia.pdf"), paged_pdf(&pages, false)).unwrap();
    let idx = tmp.path().join("idx");
    let report = ingest_json(&idx, &docs);
    assert_eq!(report["added"], 1, "{report}");
    let found = headings(&idx, "glia.pdf");
    assert!(found.iter().any(|h| h == "2 Data Model"), "{found:?}");
    for wrong in ["Section 2 describes", "=", "SMITH", "WAVES IN GLIA"] {
        assert!(
            !found.iter().any(|h| h.contains(wrong)),
            "{wrong}: {found:?}"
        );
    }
    let text = stored_text(&idx, "glia.pdf");
    assert!(
        !text.contains("SMITH") && !text.contains("WAVES IN GLIA"),
        "{text}"
    );
    assert!(
        text.contains("Section 2 describes the data model"),
        "{text}"
    );
}

/// A one-page paper: title, author line, affiliation, an abstract defining an acronym,
/// and sentences that state and deny things.
fn answering_page() -> Vec<u8> {
    let body = [
        "Abstract",
        "We study explainable artificial intelligence (XAI) for triage notes in hospitals.",
        "The corpus holds 4,200 triage notes written by nurses in two hospitals.",
        "The annotators did not receive any payment for their work on the corpus.",
        "The corpus is released under an open licence for research use.",
        "Each note was labelled by two annotators and disagreements were adjudicated.",
    ];
    let mut runs: Vec<Run> = vec![
        (
            120.0,
            700.0,
            18.0,
            false,
            "Explaining Triage Notes to Nurses",
        ),
        (100.0, 676.0, 11.0, false, "Ada Byron"),
        (200.0, 676.0, 11.0, false, "Grace B. Hopper"),
        (100.0, 662.0, 9.0, false, "Department of Computer Science"),
    ];
    for (i, line) in body.iter().enumerate() {
        runs.push((72.0, 640.0 - 16.0 * i as f32, 10.0, false, *line));
    }
    typeset_pdf(&runs)
}

/// `attest ask QUESTION --json --no-memory` on `idx`.
fn ask_json(idx: &Path, question: &str) -> Value {
    let out = attest(idx)
        .args(["ask", question, "--json", "--no-memory"])
        .output()
        .unwrap();
    json(&out.stdout)
}

/// The quotes an answer cites.
fn cited_quotes(a: &Value) -> Vec<String> {
    a["evidence"]
        .as_array()
        .map(|e| {
            e.iter()
                .filter_map(|x| x["quote"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_paper_answers_who_wrote_it_its_title_its_acronyms_and_yes_or_no() {
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(docs.join("triage.pdf"), answering_page()).unwrap();
    let idx = tmp.path().join("idx");
    assert_eq!(ingest_json(&idx, &docs)["added"], 1);
    let cites = |q: &str, want: &str| {
        let a = ask_json(&idx, q);
        assert_eq!(a["status"], "answered", "{q}: {a}");
        assert!(
            cited_quotes(&a).iter().any(|c| c.contains(want)),
            "{q}: no cited quote holds {want:?}: {a}"
        );
        a
    };
    // Who wrote it: the author line the first page prints, a value though no sentence.
    cites(
        "Who wrote 'Explaining Triage Notes to Nurses'?",
        "Ada Byron",
    );
    // Its title, for a question naming an author.
    cites(
        "What is the title of the paper by Grace Hopper?",
        "Explaining Triage Notes to Nurses",
    );
    // An acronym the text defines; its quote is cited as the paper is.
    let acronym = cites(
        "What does XAI stand for?",
        "explainable artificial intelligence (XAI)",
    );
    assert_eq!(
        acronym["evidence"][0]["cite"], "Byron and Hopper",
        "{acronym}"
    );
    let human = attest(&idx)
        .args(["ask", "What does XAI stand for?", "--no-memory"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&human.stdout).contains("(Byron and Hopper, p. 1)"),
        "{}",
        String::from_utf8_lossy(&human.stdout)
    );
    // Yes or no, opening the answer and naming the quote that decides it.
    let a = cites(
        "Did the annotators receive payment?",
        "did not receive any payment",
    );
    assert!(a["answer"].as_str().unwrap().starts_with("No [E"), "{a}");
    assert_eq!(a["reply"]["reply"], "no", "{a}");
    let a = cites(
        "Is the corpus released under an open licence?",
        "open licence",
    );
    assert!(a["answer"].as_str().unwrap().starts_with("Yes [E"), "{a}");
    // A question the page does not decide gets no reply.
    let a = ask_json(
        &idx,
        "Do all hospitals share their triage notes with other countries?",
    );
    let text = a["answer"].as_str().unwrap_or("");
    assert!(!text.starts_with("Yes") && !text.starts_with("No "), "{a}");
    // The title line answers nothing else.
    let a = ask_json(&idx, "How many triage notes does the corpus hold?");
    assert!(
        !cited_quotes(&a)
            .iter()
            .any(|c| c.trim() == "Explaining Triage Notes to Nurses"),
        "{a}"
    );
}

/// A one-page preprint stating how many notes its corpus holds.
fn preprint(notes: &str) -> Vec<u8> {
    let line = format!("The corpus holds {notes} triage notes written by nurses.");
    let runs: Vec<Run> = vec![
        (
            120.0,
            700.0,
            18.0,
            false,
            "Counting Triage Notes in Hospitals",
        ),
        (100.0, 676.0, 11.0, false, "Ada Byron"),
        (72.0, 655.0, 10.0, false, "Abstract"),
        (72.0, 640.0, 10.0, false, &line),
    ];
    typeset_pdf(&runs)
}

#[test]
fn an_earlier_arxiv_version_is_superseded_and_not_answered_from() {
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("docs");
    std::fs::create_dir_all(docs.join("old")).unwrap();
    std::fs::write(docs.join("old/2301.00007v1.pdf"), preprint("3,100")).unwrap();
    std::fs::write(docs.join("2301.00007v2.pdf"), preprint("4,200")).unwrap();
    let idx = tmp.path().join("idx");
    assert_eq!(ingest_json(&idx, &docs)["added"], 2);
    let v1 = listed(&idx, "2301.00007v1.pdf");
    assert!(
        v1["superseded_by"]
            .as_str()
            .is_some_and(|s| s.ends_with("2301.00007v2.pdf")),
        "{v1}"
    );
    assert!(listed(&idx, "2301.00007v2.pdf")["superseded_by"].is_null());
    let human = attest(&idx).arg("documents").output().unwrap();
    assert!(String::from_utf8_lossy(&human.stdout).contains("superseded by"));
    // Unscoped, the current version answers; scoped to the earlier one, it does.
    let a = ask_json(&idx, "How many triage notes does the corpus hold?");
    let quotes = cited_quotes(&a);
    assert!(quotes.iter().any(|q| q.contains("4,200")), "{a}");
    assert!(!quotes.iter().any(|q| q.contains("3,100")), "{a}");
    let out = attest(&idx)
        .args([
            "ask",
            "How many triage notes does the corpus hold?",
            "--json",
        ])
        .args(["--no-memory", "--scope"])
        .arg(docs.join("old/2301.00007v1.pdf"))
        .output()
        .unwrap();
    let a = json(&out.stdout);
    assert!(cited_quotes(&a).iter().any(|q| q.contains("3,100")), "{a}");
}
