//! The real `attest` binary on real files, with the real bi-encoder, SQLite and HNSW files.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

use super::common::model_dir;

/// An `attest` command on index `idx`, with the bundled model.
pub(crate) fn attest(idx: &Path) -> Command {
    let mut c = Command::cargo_bin("attest").unwrap();
    c.arg("--index")
        .arg(idx)
        .arg("--model-dir")
        .arg(model_dir());
    c.env_remove("ATTEST_INDEX")
        .env_remove("ATTEST_EXACT_THRESHOLD");
    c
}

/// `attest validate TEXT --evidence EVIDENCE [extra…]` against the index `idx`.
pub(crate) fn validate(
    idx: &Path,
    text: &Path,
    evidence: &Path,
    extra: &[&str],
) -> std::process::Output {
    attest(idx)
        .arg("validate")
        .arg(text)
        .arg("--evidence")
        .arg(evidence)
        .args(extra)
        .output()
        .unwrap()
}

pub(crate) fn json(out: &[u8]) -> Value {
    serde_json::from_slice(out).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(out)))
}

pub(crate) fn sample_corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus")
}

/// The files of the sample corpus (its top level: `corpus/review/` is the review sample,
/// ingested by the review tests on their own).
pub(crate) fn sample_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(sample_corpus())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

/// `attest ingest --json` of the sample corpus's files into `idx`.
pub(crate) fn ingest_sample(idx: &Path) -> (Value, i32) {
    let files = sample_files();
    let refs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    ingest_json(idx, &refs)
}

/// The sample corpus ingested once per test binary (with the real model, the slow part);
/// tests get copies of it.
fn sample_index_master() -> &'static Path {
    static MASTER: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    MASTER
        .get_or_init(|| {
            let tmp = tempfile::tempdir().unwrap();
            let (r, code) = ingest_sample(&tmp.path().join("idx"));
            assert_eq!(code, 0, "{r}");
            tmp
        })
        .path()
}

/// Copy the files of index directory `from` into `to` (created).
pub(crate) fn copy_index(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        if p.is_file() {
            std::fs::copy(&p, to.join(p.file_name().unwrap())).unwrap();
        }
    }
}

/// A temporary directory holding its own copy (`<tmp>/idx`) of an index of the sample
/// corpus.
pub(crate) fn sample_index() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let idx = tmp.path().join("idx");
    copy_index(&sample_index_master().join("idx"), &idx);
    (tmp, idx)
}

/// Copy the sample corpus into a scratch directory the test may change.
pub(crate) fn scratch_corpus(dir: &Path) -> PathBuf {
    let dst = dir.join("docs");
    std::fs::create_dir_all(&dst).unwrap();
    for p in sample_files() {
        std::fs::copy(&p, dst.join(p.file_name().unwrap())).unwrap();
    }
    dst
}

/// Write `files` (name, text) into `dir/docs`, ingest them into `dir/idx` (asserting
/// success) and return the index.
pub(crate) fn ingested(dir: &Path, files: &[(&str, &str)]) -> PathBuf {
    let docs = dir.join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    for (name, text) in files {
        std::fs::write(docs.join(name), text).unwrap();
    }
    let idx = dir.join("idx");
    let (r, code) = ingest_json(&idx, &[&docs]);
    assert_eq!(code, 0, "{r}");
    idx
}

pub(crate) fn ingest_json(idx: &Path, args: &[&Path]) -> (Value, i32) {
    let out = attest(idx)
        .arg("ingest")
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    (json(&out.stdout), out.status.code().unwrap())
}

fn search_json(idx: &Path, q: &str, extra: &[&str]) -> Value {
    let out = attest(idx)
        .args(["search", q, "--json"])
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.code() == Some(0) || out.status.code() == Some(1),
        "{out:?}"
    );
    json(&out.stdout)
}

#[test]
fn ingest_then_search_returns_spans_that_are_verbatim_in_the_files() {
    let tmp = tempfile::tempdir().unwrap();
    let idx = tmp.path().join("idx");
    let (r, code) = ingest_sample(&idx);
    assert_eq!(code, 0, "{r}");
    let files = sample_files().len() as u64;
    assert_eq!(r["added"], files);
    assert_eq!(r["documents"], files);
    assert!(r["failed"].as_array().unwrap().is_empty());
    assert!(r["chunks"].as_u64().unwrap() >= files);

    for mode in ["hybrid", "dense", "lexical"] {
        let s = search_json(
            &idx,
            "How long must client records be retained?",
            &["--mode", mode, "--k", "5"],
        );
        assert_eq!(s["mode"], mode);
        let hits = s["hits"].as_array().unwrap();
        assert_eq!(hits.len(), 5, "{mode}: {s}");
        // The retention rule lives in the records chapter or the county code.
        let top: Vec<&str> = hits[..3]
            .iter()
            .map(|h| h["source"].as_str().unwrap())
            .collect();
        assert!(
            top.iter()
                .any(|s| s.contains("records") || s.contains("9-40") || s.contains("bulletin")),
            "{mode}: {top:?}"
        );
        for h in hits {
            let source = h["source"].as_str().unwrap();
            let path = Path::new(source);
            let path = if path.is_absolute() {
                path.to_path_buf()
            } else {
                PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(path)
            };
            let file = std::fs::read_to_string(&path).unwrap();
            let (start, end) = (
                h["start"].as_u64().unwrap() as usize,
                h["end"].as_u64().unwrap() as usize,
            );
            assert_eq!(
                &file[start..end],
                h["text"].as_str().unwrap(),
                "span of {source}"
            );
            let line_start = file[..start].matches('\n').count() + 1;
            let line_end = file[..end].matches('\n').count() + 1;
            assert_eq!(h["line_start"].as_u64().unwrap() as usize, line_start);
            assert_eq!(h["line_end"].as_u64().unwrap() as usize, line_end);
            assert_eq!(h["chunk_id"].as_str().unwrap().len(), 16);
        }
    }
    let s = search_json(&idx, "How long must client records be retained?", &[]);
    let h = &s["hits"][0];
    assert!(h["scores"]["dense"].is_number() || h["scores"]["lexical"].is_number());
    assert!(h["score"].as_f64().unwrap() > 0.0);

    // Status agrees.
    let out = attest(&idx).args(["status", "--json"]).output().unwrap();
    let st = json(&out.stdout);
    assert_eq!(st["documents"], files);
    // A new index is embedded at the precision `auto` picks on this CPU.
    let model = match attest::models::default_precision() {
        attest::config::EmbedPrecision::Int8 => "all-MiniLM-L6-v2@int8",
        attest::config::EmbedPrecision::F32 => "all-MiniLM-L6-v2",
    };
    assert_eq!(st["model"], model);
    assert_eq!(st["dimension"], 384);
    assert_eq!(st["index"]["consistent"], true);
    assert_eq!(st["corpus_version"], r["corpus_version"]);
}

#[test]
fn reingest_is_incremental_and_prune_removes_vanished_files() {
    let tmp = tempfile::tempdir().unwrap();
    let idx = tmp.path().join("idx");
    let docs = scratch_corpus(tmp.path());
    let (first, _) = ingest_json(&idx, &[&docs]);
    let n = first["documents"].as_u64().unwrap();
    let v1 = first["corpus_version"].as_u64().unwrap();

    let (again, code) = ingest_json(&idx, &[&docs]);
    assert_eq!(code, 0);
    assert_eq!(again["unchanged"], n);
    assert_eq!(again["added"], 0);
    assert_eq!(again["chunks_embedded"], 0);
    assert_eq!(
        again["corpus_version"], v1,
        "nothing changed, version stays"
    );

    // Change one file, delete another.
    let changed = docs.join("14-faq-clients-and-families.md");
    let mut text = std::fs::read_to_string(&changed).unwrap();
    text.push_str("\n\nThe zebra crossing policy requires volunteers to wear orange vests.\n");
    std::fs::write(&changed, text).unwrap();
    std::fs::remove_file(docs.join("08-manual-billing-and-claims.md")).unwrap();
    let (r, code) = ingest_json(&idx, &[&docs]);
    assert_eq!(code, 0);
    assert_eq!(r["updated"], 1);
    assert_eq!(r["unchanged"], n - 2);
    assert_eq!(r["removed"], 0);
    assert_eq!(r["missing"].as_array().unwrap().len(), 1);
    assert!(r["missing"][0]
        .as_str()
        .unwrap()
        .ends_with("08-manual-billing-and-claims.md"));
    assert!(r["corpus_version"].as_u64().unwrap() > v1);
    let s = search_json(&idx, "zebra crossing orange vests", &["--mode", "lexical"]);
    assert!(s["hits"][0]["source"]
        .as_str()
        .unwrap()
        .ends_with("14-faq-clients-and-families.md"));

    let (r, _) = ingest_json(&idx, &[&docs, Path::new("--prune")]);
    assert_eq!(r["removed"], 1);
    assert_eq!(r["documents"], n - 1);
    let s = search_json(&idx, "claims billing", &["--k", "50"]);
    assert!(s["hits"]
        .as_array()
        .unwrap()
        .iter()
        .all(|h| !h["source"].as_str().unwrap().contains("billing-and-claims")));
}

/// A one-page PDF with one line of text, built by hand with a correct xref table.
fn minimal_pdf(text: &str) -> Vec<u8> {
    let content = format!("BT /F1 12 Tf 72 720 Td ({text}) Tj ET");
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>".to_string(),
        format!("<< /Length {} >>\nstream\n{content}\nendstream", content.len()),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_string(),
    ];
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, o) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend(format!("{} 0 obj\n{o}\nendobj\n", i + 1).bytes());
    }
    let xref = out.len();
    out.extend(format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).bytes());
    for off in offsets {
        out.extend(format!("{off:010} 00000 n \n").bytes());
    }
    out.extend(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .bytes(),
    );
    out
}

#[test]
fn bad_files_are_reported_by_name_and_reason_while_the_rest_is_ingested() {
    let tmp = tempfile::tempdir().unwrap();
    let idx = tmp.path().join("idx");
    let docs = tmp.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(
        docs.join("good.md"),
        "# Good\n\nCounties shall keep records for seven years.\n",
    )
    .unwrap();
    std::fs::write(
        docs.join("report.pdf"),
        minimal_pdf("Quarterly report on crisis response times"),
    )
    .unwrap();
    std::fs::write(docs.join("empty.md"), "").unwrap();
    std::fs::write(docs.join("binary.txt"), b"abc\x00\x01\x02def").unwrap();
    std::fs::write(docs.join("latin1.txt"), b"caf\xe9 au lait").unwrap();
    let pdf = minimal_pdf("Truncated text");
    std::fs::write(docs.join("truncated.pdf"), &pdf[..pdf.len() / 2]).unwrap();
    std::fs::write(docs.join("big.txt"), "word ".repeat(2000)).unwrap();
    std::fs::write(
        docs.join("beir.jsonl"),
        "{\"_id\": \"d1\", \"title\": \"T\", \"text\": \"fine\"}\nnot json at all\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(&docs, docs.join("loop")).unwrap();
    let missing = tmp.path().join("no-such-dir");

    let out = attest(&idx)
        .arg("ingest")
        .arg(&docs)
        .arg(&missing)
        .args(["--max-file-bytes", "5000", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let r = json(&out.stdout);
    assert_eq!(r["added"], 2, "{r}");
    let failed = r["failed"].as_array().unwrap();
    let reason = |name: &str| -> String {
        failed
            .iter()
            .find(|f| f["path"].as_str().unwrap().ends_with(name))
            .unwrap_or_else(|| panic!("{name} not reported: {r}"))["reason"]
            .as_str()
            .unwrap()
            .to_lowercase()
    };
    assert!(reason("empty.md").contains("empty"));
    assert!(reason("binary.txt").contains("binary"));
    assert!(reason("latin1.txt").contains("utf-8") && reason("latin1.txt").contains('3'));
    assert!(reason("truncated.pdf").contains("pdf"));
    assert!(reason("big.txt").contains("limit") || reason("big.txt").contains("large"));
    assert!(reason("beir.jsonl").contains("line 2"));
    assert!(reason("loop").contains("loop"));
    assert!(reason("no-such-dir").contains("no such file"));
    assert_eq!(failed.len(), 8, "{r}");

    let s = search_json(
        &idx,
        "crisis response times quarterly report",
        &["--k", "1"],
    );
    assert!(s["hits"][0]["source"]
        .as_str()
        .unwrap()
        .ends_with("report.pdf"));

    // A file that goes bad later keeps its stored version.
    std::fs::write(docs.join("good.md"), b"# Good\n\n\xff\xfe broken").unwrap();
    let out = attest(&idx)
        .arg("ingest")
        .arg(docs.join("good.md"))
        .arg("--json")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let s = search_json(&idx, "keep records seven years", &["--mode", "lexical"]);
    assert_eq!(
        s["hits"][0]["text"],
        "# Good\n\nCounties shall keep records for seven years."
    );
}

#[test]
fn queries_with_fts_syntax_and_empty_queries_are_safe() {
    let (_tmp, idx) = sample_index();
    for q in [
        "\"unbalanced quote",
        "records -retention",
        "records AND OR NOT",
        "retain*",
        "NEAR(records, 5)",
        "col:umn ^caret",
        "¿Cuánto tiempo se conservan los registros?",
        "東京の記録",
    ] {
        let out = attest(&idx).args(["search", q, "--json"]).output().unwrap();
        assert!(
            out.status.code() == Some(0) || out.status.code() == Some(1),
            "{q}: {out:?}"
        );
        json(&out.stdout);
    }
    let long = "retention ".repeat(10_000);
    let out = attest(&idx)
        .args(["search", &long, "--json", "--k", "2"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let out = attest(&idx).args(["search", "   "]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("empty query"));
}

#[test]
fn plain_status_reads_metadata_only_and_deep_status_reads_the_graph() {
    let (_tmp, idx) = sample_index();
    let data = std::fs::read_dir(&idx)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with(".hnsw.data"))
        .expect("an HNSW data file");
    // Same length, other bytes: only reading the file can tell.
    let mut bytes = std::fs::read(&data).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0xFF;
    std::fs::write(&data, &bytes).unwrap();
    let status = |args: &[&str]| {
        let out = attest(&idx).args(args).output().unwrap();
        (out.status.code(), json(&out.stdout))
    };
    let (code, st) = status(&["status", "--json"]);
    assert_eq!(code, Some(0), "{st}");
    assert_eq!(st["index"]["consistent"], true);
    assert_eq!(st["index"]["hnsw_points"], st["chunks"]);
    let (code, st) = status(&["status", "--deep", "--json"]);
    assert_eq!(code, Some(1), "{st}");
    let problems = st["index"]["problems"].to_string();
    assert!(problems.contains("HNSW file unreadable"), "{problems}");
    // A file cut short is seen from its length alone.
    bytes.truncate(mid);
    std::fs::write(&data, &bytes).unwrap();
    let (code, st) = status(&["status", "--json"]);
    assert_eq!(code, Some(1), "{st}");
    assert!(st["index"]["problems"]
        .to_string()
        .contains("bytes, the manifest says"));
}

#[test]
fn missing_or_stale_hnsw_files_are_detected_and_rebuilt() {
    let (_tmp, idx) = sample_index();
    let q = "What must happen within 24 hours of a crisis call?";
    let exact = search_json(&idx, q, &["--mode", "dense", "--k", "3"]);
    assert_eq!(exact["dense_backend"], "exact");
    // Force the HNSW path: same top hits as exact search on this small corpus.
    let out = attest(&idx)
        .env("ATTEST_EXACT_THRESHOLD", "0")
        .args(["search", q, "--mode", "dense", "--k", "3", "--json"])
        .output()
        .unwrap();
    let hnsw = json(&out.stdout);
    assert_eq!(hnsw["dense_backend"], "hnsw");
    assert_eq!(hnsw["hits"][0]["chunk_id"], exact["hits"][0]["chunk_id"]);

    // Delete the graph files: status says so, search rebuilds in memory, ingest repairs.
    for e in std::fs::read_dir(&idx).unwrap() {
        let p = e.unwrap().path();
        if p.file_name().unwrap().to_string_lossy().starts_with("hnsw") {
            std::fs::remove_file(p).unwrap();
        }
    }
    let out = attest(&idx).args(["status", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let st = json(&out.stdout);
    assert_eq!(st["index"]["consistent"], false);
    assert!(!st["index"]["problems"].as_array().unwrap().is_empty());
    let out = attest(&idx)
        .env("ATTEST_EXACT_THRESHOLD", "0")
        .args(["search", q, "--mode", "dense", "--k", "3", "--json"])
        .output()
        .unwrap();
    assert_eq!(
        json(&out.stdout)["hits"][0]["chunk_id"],
        exact["hits"][0]["chunk_id"]
    );
    let (r, code) = ingest_sample(&idx);
    assert_eq!(code, 0, "{r}");
    let out = attest(&idx).args(["status", "--json"]).output().unwrap();
    assert_eq!(json(&out.stdout)["index"]["consistent"], true);
}

#[test]
fn a_file_added_after_the_graph_was_saved_is_searched_beside_it() {
    let (tmp, idx) = sample_index();
    let extra = tmp.path().join("extra");
    std::fs::create_dir_all(&extra).unwrap();
    std::fs::write(
        extra.join("penguins.md"),
        "# Penguin husbandry\n\nPenguin enclosures must be chilled to four degrees Celsius.\n",
    )
    .unwrap();
    let status = |args: &[&str]| {
        let out = attest(&idx).args(args).output().unwrap();
        (out.status.code(), json(&out.stdout))
    };
    let (_, before) = status(&["status", "--json"]);
    let out = attest(&idx)
        .args(["ingest", extra.to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", json(&out.stdout));
    // The saved graph is left as it was; its one new chunk is counted beside it.
    let (code, st) = status(&["status", "--json"]);
    assert_eq!(code, Some(0), "{st}");
    assert_eq!(st["index"]["delta_points"], 1, "{st}");
    assert_eq!(st["index"]["hnsw_points"], before["index"]["hnsw_points"]);
    let out = attest(&idx)
        .env("ATTEST_EXACT_THRESHOLD", "0")
        .args(["search", "penguin enclosures chilled", "--mode", "dense"])
        .args(["--k", "1", "--json"])
        .output()
        .unwrap();
    let hits = json(&out.stdout);
    assert_eq!(hits["dense_backend"], "hnsw");
    assert!(
        hits["hits"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .contains("Penguin enclosures"),
        "{hits}"
    );
    let (code, deep) = status(&["status", "--deep", "--json"]);
    assert_eq!(code, Some(0), "{deep}");
    assert_eq!(deep["index"]["delta_points"], 1, "{deep}");
}

#[test]
fn an_index_built_with_another_model_is_refused() {
    use attest::config::Config;
    use attest::engine::Engine;
    use attest::models::HashEmbedder;
    let tmp = tempfile::tempdir().unwrap();
    let idx = tmp.path().join("idx");
    let cfg = Config {
        index: idx.clone(),
        ..Config::default()
    };
    let mut e = Engine::open(cfg, std::sync::Arc::new(HashEmbedder::new(384)), true).unwrap();
    attest::ingest::ingest(&mut e, &sample_files(), &Default::default()).unwrap();
    drop(e);
    let out = attest(&idx).args(["search", "records"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("hash-384") && err.contains("all-MiniLM-L6-v2"),
        "{err}"
    );
    let out = attest(&idx)
        .arg("ingest")
        .arg(sample_corpus())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn search_on_a_missing_index_says_to_ingest_first() {
    let tmp = tempfile::tempdir().unwrap();
    let out = attest(&tmp.path().join("none"))
        .args(["search", "x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("attest ingest"));
}

/// A five-document BEIR dataset (`corpus.jsonl`, `queries.jsonl`, `qrels/test.tsv`) with
/// two judged queries, under `dir/tiny`.
pub(crate) fn tiny_beir(dir: &Path) -> PathBuf {
    let ds = dir.join("tiny");
    std::fs::create_dir_all(ds.join("qrels")).unwrap();
    let docs = [
        (
            "d1",
            "Record retention",
            "Client records must be retained for seven years after the last service.",
        ),
        (
            "d2",
            "Crisis calls",
            "A crisis call must receive a follow-up contact within 24 hours.",
        ),
        (
            "d3",
            "Housing payments",
            "Housing support payments are paid directly to the landlord each month.",
        ),
        (
            "d4",
            "Peer training",
            "Peer support staff complete forty hours of initial training.",
        ),
        (
            "d5",
            "Grievances",
            "The county acknowledges a grievance in writing within five days.",
        ),
    ];
    let corpus: String = docs
        .iter()
        .map(|(id, t, x)| serde_json::json!({"_id": id, "title": t, "text": x}).to_string() + "\n")
        .collect();
    std::fs::write(ds.join("corpus.jsonl"), corpus).unwrap();
    std::fs::write(
        ds.join("queries.jsonl"),
        "{\"_id\": \"q1\", \"text\": \"How long are client records kept?\"}\n{\"_id\": \"q2\", \"text\": \"When must a crisis follow-up happen?\"}\n{\"_id\": \"q3\", \"text\": \"unjudged\"}\n",
    )
    .unwrap();
    std::fs::write(
        ds.join("qrels/test.tsv"),
        "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\n",
    )
    .unwrap();
    ds
}

#[test]
fn eval_retrieval_reports_every_mode_on_a_small_beir_dataset() {
    let tmp = tempfile::tempdir().unwrap();
    let ds = tiny_beir(tmp.path());
    let out = attest(&tmp.path().join("unused"))
        .current_dir(tmp.path())
        .args(["eval", "retrieval", "--dataset"])
        .arg(&ds)
        .arg("--json")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let r = json(&out.stdout);
    assert_eq!(r["queries"], 2);
    assert_eq!(r["split"], "test");
    for mode in ["lexical", "dense", "hybrid", "hybrid+multi-query"] {
        let m = &r["modes"][mode];
        for metric in [
            "ndcg@10",
            "recall@10",
            "recall@100",
            "mrr@10",
            "p50_ms",
            "p95_ms",
            "qps",
        ] {
            assert!(m[metric].is_number(), "{mode} {metric}: {r}");
        }
        // Each query's one relevant document is easy to find here.
        assert!(m["recall@10"].as_f64().unwrap() == 1.0, "{mode}: {m}");
    }
    assert!(
        tmp.path()
            .join(".attest-eval/tiny/attest.sqlite3")
            .is_file(),
        "own index under .attest-eval"
    );

    // Missing files: a clear error.
    std::fs::remove_file(ds.join("queries.jsonl")).unwrap();
    let out = attest(&tmp.path().join("unused"))
        .current_dir(tmp.path())
        .args(["eval", "retrieval", "--dataset"])
        .arg(&ds)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing queries.jsonl"));
}

#[test]
fn validate_passes_cited_text_and_reports_violations_with_exit_codes() {
    let tmp = tempfile::tempdir().unwrap();
    let ev = tmp.path().join("evidence.json");
    std::fs::write(&ev, r#"[{"id": "E1"}, {"id": "E2"}]"#).unwrap();
    let good = tmp.path().join("good.md");
    std::fs::write(
        &good,
        "# Retention\n\nCounties must keep client records for seven years after the last service [E1]. \
         Records of minors are kept until the client turns twenty-five [E1][E2].\n",
    )
    .unwrap();
    let out = validate(tmp.path(), &good, &ev, &["--json"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let r = json(&out.stdout);
    assert_eq!(r["passed"], true);
    assert_eq!(r["citations"], 3);

    let bad = tmp.path().join("bad.md");
    std::fs::write(
        &bad,
        "Counties must keep client records for seven years after the last service [E7].\n\n\
         This paragraph states that housing payments have a monthly maximum but cites nothing at all.\n",
    )
    .unwrap();
    let out = validate(tmp.path(), &bad, &ev, &["--json"]);
    assert_eq!(out.status.code(), Some(1));
    let r = json(&out.stdout);
    let kinds: Vec<&str> = r["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["type"].as_str().unwrap())
        .collect();
    assert!(
        kinds.contains(&"unknown_citation") && kinds.contains(&"paragraph_without_citations"),
        "{r}"
    );

    // A malformed evidence file and an unknown preset are errors (exit 2).
    std::fs::write(&ev, r#"[{"quote": "no id"}]"#).unwrap();
    let out = validate(tmp.path(), &good, &ev, &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing field `id`"));
    let out = attest(tmp.path())
        .arg("validate")
        .arg(&good)
        .args(["--evidence", "x.json", "--preset", "harsh"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_toml_error_quotes_a_bounded_excerpt_of_a_two_megabyte_line() {
    let tmp = tempfile::tempdir().unwrap();
    let toml = tmp.path().join("attest.toml");
    let line = format!("rrf_k = 60.0 {}\n", "x".repeat(2 << 20));
    std::fs::write(&toml, line).unwrap();
    let out = attest(&tmp.path().join("idx"))
        .arg("--config")
        .arg(&toml)
        .arg("status")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.len() < 2_000, "{} bytes of stderr", err.len());
    assert!(
        err.contains("attest.toml") && err.contains("line 1, column"),
        "{err}"
    );
    assert!(err.contains("xxx…"), "{err}");
}
