//! The Milvus backend through the real binary against a real local Milvus server
//! (`scripts/milvus.sh start`, run by `scripts/test.sh`, whose URL is in
//! `ATTEST_TEST_MILVUS_URL`): the sample corpus answers exactly as on SQLite, sharded
//! ingests load one corpus together, and re-ingests replace and prune. Without a server
//! the tests say they were skipped (with `ATTEST_REQUIRE_MILVUS=1` that is a failure).

use assert_cmd::Command;
use std::path::Path;

use serde_json::Value;

use super::cli::{attest, json, sample_files, sample_index, scratch_corpus};

/// The server's URL, or `None` (with a note) when no server was started.
fn server() -> Option<String> {
    match std::env::var("ATTEST_TEST_MILVUS_URL") {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            assert!(
                std::env::var("ATTEST_REQUIRE_MILVUS").is_err(),
                "ATTEST_REQUIRE_MILVUS is set but ATTEST_TEST_MILVUS_URL is not"
            );
            eprintln!("skipped: no Milvus server (run scripts/test.sh, which starts one)");
            None
        }
    }
}

/// A collection prefix no other test uses.
fn fresh_prefix(name: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("t_{name}_{}_{}", std::process::id(), nanos % 1_000_000_000)
}

/// `attest` on the Milvus backend at `url` under `prefix` (`idx` holds only local files).
fn on_milvus(idx: &Path, url: &str, prefix: &str) -> Command {
    let mut c = attest(idx);
    c.args(["--backend", "milvus"])
        .env("ATTEST_MILVUS_URL", url)
        .env("ATTEST_MILVUS_PREFIX", prefix);
    c
}

/// The JSON output of `c --json`, which must succeed.
fn json_ok(mut c: Command) -> Value {
    let out = c.arg("--json").output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    json(&out.stdout)
}

fn ingest_ok(mut c: Command, paths: &[&Path], extra: &[&str]) -> Value {
    c.arg("ingest").args(paths).args(extra);
    json_ok(c)
}

/// The answer JSON of `ask q` with what may differ between backends left out: timings,
/// the index location, the corpus version and the name of the dense search.
fn answer(mut c: Command, q: &str) -> Value {
    let out = c
        .args(["ask", q, "--json", "--no-memory"])
        .output()
        .unwrap();
    let mut v = json(&out.stdout);
    strip(&mut v);
    v
}

fn strip(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.retain(|k, _| {
                !(k.ends_with("_ms")
                    || ["corpus_version", "index", "dense_backend"].contains(&k.as_str()))
            });
            m.values_mut().for_each(strip);
        }
        Value::Array(a) => a.iter_mut().for_each(strip),
        _ => {}
    }
}

const QUESTIONS: [&str; 5] = [
    "How long must client records be retained?",
    "How many days does a client have to file a grievance?",
    "Which is longer, the record retention period under the county code or under Policy Bulletin 19-04?",
    "What does the Client Rights Office do and what does the Youth Services Division receive?",
    "What is the boiling point of liquid nitrogen?",
];

#[test]
fn the_sample_corpus_answers_the_same_on_milvus_as_on_sqlite() {
    let Some(url) = server() else { return };
    let (tmp, idx) = sample_index();
    let prefix = fresh_prefix("same");
    let local = tmp.path().join("milvus-local");
    let files = sample_files();
    let refs: Vec<&Path> = files.iter().map(|p| p.as_path()).collect();
    let r = ingest_ok(on_milvus(&local, &url, &prefix), &refs, &[]);
    let sqlite_status = json(
        &attest(&idx)
            .args(["status", "--json"])
            .output()
            .unwrap()
            .stdout,
    );
    assert_eq!(r["documents"], sqlite_status["documents"]);
    assert_eq!(r["chunks"], sqlite_status["chunks"]);
    for q in QUESTIONS {
        let a = answer(attest(&idx), q);
        let b = answer(on_milvus(&local, &url, &prefix), q);
        assert_eq!(a, b, "answers differ for {q:?}");
    }
    let search = |mut c: Command| {
        let out = c
            .args([
                "search",
                "youth assessment retention period",
                "--json",
                "-k",
                "4",
            ])
            .output()
            .unwrap();
        let mut v = json(&out.stdout);
        strip(&mut v);
        v
    };
    assert_eq!(
        search(attest(&idx)),
        search(on_milvus(&local, &url, &prefix))
    );
    let out = on_milvus(&local, &url, &prefix)
        .args(["search", "youth", "--json"])
        .output()
        .unwrap();
    assert_eq!(json(&out.stdout)["dense_backend"], "milvus");
    let status = on_milvus(&local, &url, &prefix)
        .args(["status", "--deep", "--json"])
        .output()
        .unwrap();
    let s = json(&status.stdout);
    assert!(status.status.success(), "{s}");
    assert_eq!(s["index"]["consistent"], true, "{s}");
    assert_eq!(s["documents"], sqlite_status["documents"]);
}

#[test]
fn two_sharded_ingests_load_one_corpus_together() {
    let Some(url) = server() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let prefix = fresh_prefix("shard");
    let files = sample_files();
    let children: Vec<_> = (0..2)
        .map(|k| {
            let local = tmp.path().join(format!("local{k}"));
            std::process::Command::new(assert_cmd::cargo::cargo_bin!("attest"))
                .arg("--index")
                .arg(&local)
                .arg("--model-dir")
                .arg(super::common::model_dir())
                .args(["--backend", "milvus"])
                .env("ATTEST_MILVUS_URL", &url)
                .env("ATTEST_MILVUS_PREFIX", &prefix)
                .arg("ingest")
                .args(&files)
                .args(["--shard", &format!("{k}/2"), "--json"])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut added = 0;
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let r = json(&out.stdout);
        added += r["added"].as_u64().unwrap();
        assert!(
            r["added"].as_u64().unwrap() > 0,
            "each shard ingests some files: {r}"
        );
    }
    let (_t, idx) = sample_index();
    let sqlite = json(
        &attest(&idx)
            .args(["status", "--json"])
            .output()
            .unwrap()
            .stdout,
    );
    let local = tmp.path().join("reader");
    let s = json(
        &on_milvus(&local, &url, &prefix)
            .args(["status", "--json"])
            .output()
            .unwrap()
            .stdout,
    );
    assert_eq!(added, sqlite["documents"].as_u64().unwrap());
    assert_eq!(s["documents"], sqlite["documents"]);
    assert_eq!(s["chunks"], sqlite["chunks"]);
    let a = answer(attest(&idx), QUESTIONS[1]);
    let b = answer(on_milvus(&local, &url, &prefix), QUESTIONS[1]);
    assert_eq!(a["answer"], b["answer"]);
    let out = attest(&idx)
        .args(["ingest"])
        .args(&files)
        .args(["--shard", "0/2"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("milvus"));
}

#[test]
fn a_changed_file_is_replaced_and_a_deleted_one_pruned_on_milvus() {
    let Some(url) = server() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let docs = scratch_corpus(tmp.path());
    let prefix = fresh_prefix("change");
    let local = tmp.path().join("local");
    let first = ingest_ok(on_milvus(&local, &url, &prefix), &[&docs], &[]);
    let files: Vec<_> = std::fs::read_dir(&docs)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let changed = files
        .iter()
        .find(|p| p.extension().is_some_and(|e| e == "md"))
        .unwrap();
    let gone = files.iter().find(|p| *p != changed).unwrap();
    std::fs::write(
        changed,
        "# Parking\n\nVisitors must park in the orange lot for at most 45 minutes.\n",
    )
    .unwrap();
    std::fs::remove_file(gone).unwrap();
    // A file name that would break a filter expression if it were not quoted.
    std::fs::write(
        docs.join("we\"ird\\name's ] or id >= 0.md"),
        "# Orchards\n\nThe north orchard holds 212 pear trees.\n",
    )
    .unwrap();
    let second = ingest_ok(on_milvus(&local, &url, &prefix), &[&docs], &["--prune"]);
    assert!(second["updated"].as_u64().unwrap() >= 1, "{second}");
    assert!(second["removed"].as_u64().unwrap() >= 1, "{second}");
    assert_eq!(second["added"], 1, "{second}");
    assert_eq!(second["documents"], first["documents"], "one gone, one new");
    assert!(second["corpus_version"].as_u64() > first["corpus_version"].as_u64());
    let a = answer(
        on_milvus(&local, &url, &prefix),
        "For how many minutes may visitors park in the orange lot?",
    );
    assert!(a["answer"].as_str().unwrap().contains("45 minutes"), "{a}");
    let a = answer(
        on_milvus(&local, &url, &prefix),
        "How many pear trees does the north orchard hold?",
    );
    assert!(a["answer"].as_str().unwrap().contains("212"), "{a}");
    let third = ingest_ok(on_milvus(&local, &url, &prefix), &[&docs], &[]);
    assert_eq!(third["added"], 0);
    assert_eq!(third["updated"], 0);
    assert_eq!(third["corpus_version"], second["corpus_version"]);
}

#[test]
fn a_bad_prefix_or_an_absent_server_is_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    for bad in ["2/2", "0/0", "x/2", "1", "-1/2"] {
        let out = attest(tmp.path())
            .args(["ingest", ".", &format!("--shard={bad}")])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "--shard {bad}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("--shard"),
            "--shard {bad}"
        );
    }
    let out = on_milvus(tmp.path(), "http://127.0.0.1:1", "attest")
        .args(["search", "x"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("127.0.0.1:1"), "{err}");
    let Some(url) = server() else { return };
    let out = on_milvus(tmp.path(), &url, "bad-prefix; drop")
        .args(["search", "x"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("prefix"));
    let out = on_milvus(tmp.path(), &url, &fresh_prefix("none"))
        .args(["search", "x"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no index"));
}

#[test]
fn serve_and_review_work_on_milvus_as_on_sqlite() {
    let Some(url) = server() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let prefix = fresh_prefix("serve");
    let review_dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus/review");
    let sqlite_idx = tmp.path().join("sqlite");
    let local = tmp.path().join("local");
    ingest_ok(attest(&sqlite_idx), &[&review_dir], &[]);
    ingest_ok(on_milvus(&local, &url, &prefix), &[&review_dir], &[]);
    let checklist = review_dir.join("checklist.json");
    let review = |mut c: Command| {
        let out = c
            .arg("review")
            .arg(&checklist)
            .arg("--scope")
            .arg(&review_dir)
            .arg("--json")
            .output()
            .unwrap();
        let mut v = json(&out.stdout);
        strip(&mut v);
        v
    };
    let on_sqlite = review(attest(&sqlite_idx));
    assert!(
        on_sqlite["requirements"]
            .as_array()
            .is_some_and(|r| !r.is_empty()),
        "{on_sqlite}"
    );
    assert_eq!(on_sqlite, review(on_milvus(&local, &url, &prefix)));

    let env = [
        ("ATTEST_BACKEND", "milvus"),
        ("ATTEST_MILVUS_URL", url.as_str()),
        ("ATTEST_MILVUS_PREFIX", prefix.as_str()),
    ];
    let srv = super::common::server::Server::start(&local, &[], &env);
    let c = super::common::server::client();
    let q = "What is the project area in hectares?";
    let r: Value = c
        .post(srv.url("/v1/ask"))
        .json(&serde_json::json!({"question": q}))
        .send()
        .unwrap()
        .json()
        .unwrap();
    let mut r = r;
    strip(&mut r);
    let mut want = answer(attest(&sqlite_idx), q);
    want.as_object_mut().unwrap().remove("timings");
    r.as_object_mut().unwrap().remove("timings");
    assert_eq!(r["answer"], want["answer"], "{r}");
    let s: Value = c.get(srv.url("/v1/status")).send().unwrap().json().unwrap();
    assert_eq!(s["index"]["dense_backend"], "milvus");
    assert!(srv.stop().success());
}

/// `attest migrate` with its JSON report, which must succeed.
fn migrate_ok(mut c: Command, args: &[&str]) -> Value {
    c.arg("migrate").args(args);
    json_ok(c)
}

/// The `documents --json` listing with what may differ between backends left out.
fn documents(mut c: Command) -> Value {
    let out = c.args(["documents", "--json"]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut v = json(&out.stdout);
    strip(&mut v);
    v
}

#[test]
fn an_index_migrated_to_milvus_and_back_answers_as_before() {
    let Some(url) = server() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let (idx, back, local) = (
        tmp.path().join("idx"),
        tmp.path().join("back"),
        tmp.path().join("local"),
    );
    let corpus = scratch_corpus(tmp.path());
    let mut c = attest(&idx);
    c.args(["ingest"])
        .arg(&corpus)
        .args(["--source-type", "policy", "--collection", "county"]);
    assert!(c.output().unwrap().status.success());
    let prefix = fresh_prefix("migrate");
    let mut to_milvus = attest(&idx);
    to_milvus.env("ATTEST_MILVUS_URL", &url);
    let r = migrate_ok(to_milvus, &["--to", "milvus", "--to-prefix", &prefix]);
    assert!(r["files"].as_u64().unwrap() > 0, "{r}");
    assert_eq!(r["copied"], r["files"], "{r}");
    assert_eq!(r["declarations"], 1, "{r}");
    // Run again: everything is already there, nothing is written twice.
    let mut again = attest(&idx);
    again.env("ATTEST_MILVUS_URL", &url);
    let r2 = migrate_ok(again, &["--to", "milvus", "--to-prefix", &prefix]);
    assert_eq!(
        (r2["copied"].as_u64(), r2["chunks"].clone()),
        (Some(0), r["chunks"].clone())
    );
    // And back into a fresh SQLite index, which gets its dense index built.
    let back_report = migrate_ok(
        on_milvus(&local, &url, &prefix),
        &["--to", "sqlite", "--to-index", back.to_str().unwrap()],
    );
    assert_eq!(back_report["chunks"], r["chunks"]);
    for q in QUESTIONS {
        let a = answer(attest(&idx), q);
        assert_eq!(
            a,
            answer(on_milvus(&local, &url, &prefix), q),
            "{q:?} on Milvus"
        );
        assert_eq!(a, answer(attest(&back), q), "{q:?} migrated back");
    }
    assert_eq!(
        documents(attest(&idx)),
        documents(on_milvus(&local, &url, &prefix))
    );
    let deep = attest(&back)
        .args(["status", "--deep", "--json"])
        .output()
        .unwrap();
    assert!(
        deep.status.success(),
        "{}",
        String::from_utf8_lossy(&deep.stdout)
    );
}

#[test]
fn a_migration_never_mixes_two_corpora_or_copies_onto_itself() {
    let Some(url) = server() else { return };
    let (tmp, idx) = sample_index();
    let prefix = fresh_prefix("mixed");
    let local = tmp.path().join("milvus-local");
    let other = scratch_corpus(tmp.path());
    ingest_ok(on_milvus(&local, &url, &prefix), &[other.as_path()], &[]);
    let mut c = attest(&idx);
    c.env("ATTEST_MILVUS_URL", &url)
        .args(["migrate", "--to", "milvus", "--to-prefix", &prefix]);
    let out = c.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("already holds") && err.contains(&prefix),
        "{err}"
    );
    let out = attest(&idx)
        .args(["migrate", "--to", "sqlite", "--to-index"])
        .arg(&idx)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("same corpus"), "{err}");
}
