//! The store under damage and hostile environments, through the real binary: damaged
//! vectors and texts found by `status --deep` and fixed by `ingest --repair`, an empty
//! database file, file names that are not UTF-8, a read-only index, and kill -9 during
//! ingest.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use rusqlite::Connection;
use serde_json::Value;

use super::cli::{attest, ingest_json, json, scratch_corpus};

const QUESTION: &str = "How long must client records be retained?";

fn db(idx: &Path) -> Connection {
    Connection::open(idx.join("attest.sqlite3")).unwrap()
}

fn run(idx: &Path, args: &[&str]) -> Output {
    attest(idx).args(args).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `status --deep --json`: (report, exit code).
fn deep_status(idx: &Path) -> (Value, i32) {
    let o = run(idx, &["status", "--deep", "--json"]);
    (json(&o.stdout), o.status.code().unwrap())
}

fn deep_kinds(s: &Value) -> Vec<String> {
    s["deep"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["kind"].as_str().unwrap().to_string())
        .collect()
}

/// A scratch copy of the sample corpus, ingested into `<tmp>/idx`.
fn scratch_index() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let docs = scratch_corpus(tmp.path());
    let idx = tmp.path().join("idx");
    let (r, code) = ingest_json(&idx, &[&docs]);
    assert_eq!(code, 0, "{r}");
    (tmp, docs, idx)
}

/// Row id and chunk id of the first chunk of the document whose source contains `name`.
fn chunk_of(idx: &Path, name: &str) -> (i64, String) {
    db(idx)
        .query_row(
            "SELECT c.id, c.chunk_id FROM chunks c JOIN documents d ON d.id = c.doc \
             WHERE d.source LIKE '%' || ?1 || '%' ORDER BY c.id LIMIT 1",
            [name],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap()
}

/// A damaged index is reported by every command as an error (exit 2, never a panic)
/// naming `what` and the repair command.
fn assert_commands_name_damage(idx: &Path, docs: &Path, what: &str) {
    for args in [
        vec!["search", QUESTION],
        vec!["ask", QUESTION, "--no-memory"],
        vec!["ingest", docs.to_str().unwrap()],
    ] {
        let o = run(idx, &args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(what), "{args:?} names {what}: {err}");
        assert!(err.contains("attest ingest --repair"), "{args:?}: {err}");
    }
}

/// `ingest --repair` rewrites what was damaged; afterwards the deep check is clean and
/// `ask` answers.
fn assert_repaired(idx: &Path) {
    let o = run(idx, &["ingest", "--repair", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let r = json(&o.stdout);
    assert!(r["updated"].as_u64().unwrap() >= 1, "{r}");
    let (s, code) = deep_status(idx);
    assert_eq!(code, 0, "{s}");
    assert!(s["deep"].as_array().unwrap().is_empty(), "{s}");
    let o = run(idx, &["ask", QUESTION, "--no-memory"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn a_stored_vector_of_the_wrong_length_is_named_by_status_and_repaired_without_a_panic() {
    let (_tmp, docs, idx) = scratch_index();
    let (row, chunk) = chunk_of(&idx, "05-manual-client-records");
    db(&idx)
        .execute(
            "UPDATE chunks SET vector = substr(vector, 1, 1532) WHERE id = ?1",
            [row],
        )
        .unwrap();
    // Even the plain status sees it; the deep one names the chunk.
    let o = run(&idx, &["status", "--json"]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let (s, code) = deep_status(&idx);
    assert_eq!(code, 1, "{s}");
    assert_eq!(deep_kinds(&s), ["vector_length"]);
    assert_eq!(s["deep"][0]["chunk_id"], chunk.as_str());
    assert_eq!(s["deep"][0]["repair"], "attest ingest --repair");
    assert_commands_name_damage(&idx, &docs, &chunk);
    assert_repaired(&idx);
}

#[test]
fn nan_and_all_zero_vectors_are_damage_not_silently_dropped_chunks() {
    let (_tmp, docs, idx) = scratch_index();
    let (nan_row, nan_chunk) = chunk_of(&idx, "05-manual-client-records");
    let (zero_row, _) = chunk_of(&idx, "15-policy-bulletin");
    let conn = db(&idx);
    let mut v: Vec<u8> = conn
        .query_row("SELECT vector FROM chunks WHERE id = ?1", [nan_row], |r| {
            r.get(0)
        })
        .unwrap();
    v[..4].copy_from_slice(&f32::NAN.to_le_bytes());
    conn.execute(
        "UPDATE chunks SET vector = ?1 WHERE id = ?2",
        rusqlite::params![v, nan_row],
    )
    .unwrap();
    conn.execute(
        "UPDATE chunks SET vector = zeroblob(1536) WHERE id = ?1",
        [zero_row],
    )
    .unwrap();
    drop(conn);
    let (s, code) = deep_status(&idx);
    assert_eq!(code, 1, "{s}");
    let mut kinds = deep_kinds(&s);
    kinds.sort();
    assert_eq!(kinds, ["vector_not_finite", "vector_zero"]);
    assert_commands_name_damage(&idx, &docs, &nan_chunk);
    assert_repaired(&idx);
}

#[test]
fn damaged_document_text_is_named_found_by_status_and_repaired_though_the_file_is_unchanged() {
    let (_tmp, docs, idx) = scratch_index();
    let conn = db(&idx);
    // Invalid UTF-8 in one document, valid but altered bytes ("seven" -> "eight") in another.
    conn.execute(
        "UPDATE documents SET text = CAST(X'FF' AS TEXT) || substr(text, 2) WHERE source LIKE '%05-manual-client-records%'",
        [],
    )
    .unwrap();
    conn.execute(
        "UPDATE documents SET text = replace(text, 'seven (7) years', 'eight (8) years') WHERE source LIKE '%11-county-code%'",
        [],
    )
    .unwrap();
    drop(conn);
    let (s, code) = deep_status(&idx);
    assert_eq!(code, 1, "{s}");
    let mut kinds = deep_kinds(&s);
    kinds.sort();
    kinds.dedup();
    assert!(kinds.contains(&"text_not_utf8".to_string()), "{kinds:?}");
    assert!(kinds.contains(&"content_hash".to_string()), "{kinds:?}");
    let sources: Vec<&str> = s["deep"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["source"].as_str())
        .collect();
    assert!(sources
        .iter()
        .any(|s| s.contains("05-manual-client-records")));
    assert!(sources.iter().any(|s| s.contains("11-county-code")));

    // `ask` names the damaged document and the repair, not a bare UTF-8 error.
    let o = run(&idx, &["ask", QUESTION, "--no-memory"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("is damaged in the index"), "{err}");
    assert!(err.contains("attest ingest --repair"), "{err}");

    // A plain ingest skips the unchanged files; the damage stays visible.
    let (r, code) = ingest_json(&idx, &[&docs]);
    assert_eq!((code, r["updated"].as_u64()), (0, Some(0)), "{r}");
    assert_eq!(deep_status(&idx).1, 1);
    assert_repaired(&idx);
    let text: String = db(&idx)
        .query_row(
            "SELECT text FROM documents WHERE source LIKE '%11-county-code%'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(text.contains("seven (7) years") && !text.contains("eight (8) years"));
}

#[test]
fn full_text_index_damage_is_found_by_status_deep_and_rebuilt_by_repair() {
    let (_tmp, _docs, idx) = scratch_index();
    db(&idx)
        .execute(
            "INSERT INTO chunks_fts(rowid, text) VALUES (999999, 'phantom words')",
            [],
        )
        .unwrap();
    let (s, code) = deep_status(&idx);
    assert_eq!(code, 1, "{s}");
    assert_eq!(deep_kinds(&s), ["fulltext"]);
    let o = run(&idx, &["ingest", "--repair", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let (s, code) = deep_status(&idx);
    assert_eq!(code, 0, "{s}");
}

#[test]
fn a_damaged_layout_is_found_by_status_deep_refused_by_ask_and_repaired() {
    let (_tmp, _docs, idx) = scratch_index();
    let changed = db(&idx)
        .execute(
            "UPDATE documents SET layout = '{\"pages\":[0, 99999999]}' WHERE source LIKE '%05-manual-client-records%'",
            [],
        )
        .unwrap();
    assert_eq!(changed, 1);
    let (s, code) = deep_status(&idx);
    assert_eq!(code, 1, "{s}");
    assert_eq!(deep_kinds(&s), ["layout"]);
    assert!(
        s["deep"][0]["detail"]
            .as_str()
            .unwrap()
            .contains("page start"),
        "{s}"
    );
    // Asking never quotes from a document whose layout does not fit: a clear error.
    let o = run(&idx, &["ask", "--no-memory", QUESTION]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("layout"), "{}", stderr(&o));
    let o = run(&idx, &["ingest", "--repair", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let (s, code) = deep_status(&idx);
    assert_eq!(code, 0, "{s}");
    let o = run(&idx, &["ask", "--no-memory", QUESTION]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn a_zero_length_database_file_is_an_error_naming_it_never_a_new_empty_index() {
    let tmp = tempfile::tempdir().unwrap();
    let idx = tmp.path().join("idx");
    std::fs::create_dir_all(&idx).unwrap();
    let file = idx.join("attest.sqlite3");
    std::fs::write(&file, b"").unwrap();
    let corpus = super::cli::sample_corpus();
    for args in [
        vec!["status"],
        vec!["search", QUESTION],
        vec!["ingest", corpus.to_str().unwrap()],
    ] {
        let o = run(&idx, &args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(&file.display().to_string()), "{args:?}: {err}");
        assert!(err.contains("empty (0 bytes)"), "{args:?}: {err}");
    }
    assert_eq!(std::fs::metadata(&file).unwrap().len(), 0, "left untouched");
}

#[test]
fn file_names_identical_after_lossy_utf8_conversion_are_both_ingested() {
    use std::os::unix::ffi::OsStrExt;
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    let e9 = docs.join(std::ffi::OsStr::from_bytes(b"a-caf\xe9.md"));
    let e8 = docs.join(std::ffi::OsStr::from_bytes(b"a-caf\xe8.md"));
    std::fs::write(&e9, "# Cafe\n\nThe cafe opens at seven in the morning.\n").unwrap();
    std::fs::write(&e8, "# Bakery\n\nThe bakery sells rye bread on Fridays.\n").unwrap();
    std::fs::write(docs.join("plain.md"), "# Plain\n\nZebras graze.\n").unwrap();
    let idx = tmp.path().join("idx");
    let (r, code) = ingest_json(&idx, &[&docs]);
    assert_eq!(code, 0, "{r}");
    assert_eq!(
        (r["added"].as_u64(), r["documents"].as_u64()),
        (Some(3), Some(3))
    );
    let (r, code) = ingest_json(&idx, &[&docs]);
    assert_eq!((code, r["unchanged"].as_u64()), (0, Some(3)), "{r}");
    // Each name keeps its own document: changing one file updates only it.
    std::fs::write(&e8, "# Bakery\n\nThe bakery sells rye bread on Mondays.\n").unwrap();
    let (r, code) = ingest_json(&idx, &[&docs]);
    assert_eq!(
        (code, r["updated"].as_u64(), r["unchanged"].as_u64()),
        (0, Some(1), Some(2)),
        "{r}"
    );
    for q in ["When does the cafe open?", "rye bread Mondays"] {
        let o = run(&idx, &["search", q, "--json", "--k", "1"]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let hit = &json(&o.stdout)["hits"][0];
        assert!(
            hit["text"]
                .as_str()
                .unwrap()
                .contains(if q.contains("cafe") {
                    "seven"
                } else {
                    "Mondays"
                }),
            "{hit}"
        );
    }
    // A vanished non-UTF-8 file is found missing (its key maps back to its path).
    std::fs::remove_file(&e9).unwrap();
    let (r, code) = ingest_json(&idx, &[&docs]);
    assert_eq!(code, 0, "{r}");
    assert_eq!(r["missing"].as_array().unwrap().len(), 1, "{r}");
    assert_eq!(deep_status(&idx).1, 0);
}

/// Remove (or restore) write permission on every file of `dir` and on `dir` itself.
fn set_writable(dir: &Path, writable: bool) {
    use std::os::unix::fs::PermissionsExt;
    let mode = |dir: bool| match (writable, dir) {
        (true, true) => 0o755,
        (true, false) => 0o644,
        (false, true) => 0o555,
        (false, false) => 0o444,
    };
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode(false))).unwrap();
    }
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode(true))).unwrap();
}

#[test]
fn a_read_only_index_serves_search_status_and_ask_and_refuses_ingest_clearly() {
    let (_tmp, docs, idx) = scratch_index();
    let before = std::fs::read(idx.join("attest.sqlite3")).unwrap();
    set_writable(&idx, false);
    let o = run(&idx, &["ingest", docs.to_str().unwrap()]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("index is read-only"), "{err}");

    let o = run(&idx, &["search", QUESTION, "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run(&idx, &["status", "--deep", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(json(&o.stdout)["read_only"], true);
    // `ask` answers and skips storing its answer in the QA memory.
    for _ in 0..2 {
        let o = run(&idx, &["ask", QUESTION, "--json"]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert_eq!(json(&o.stdout)["metrics"]["memory_hit"], false);
    }
    set_writable(&idx, true);
    assert!(
        std::fs::read(idx.join("attest.sqlite3")).unwrap() == before,
        "nothing was written"
    );
    let rows: i64 = db(&idx)
        .query_row("SELECT COUNT(*) FROM qa_memory", [], |r| r.get(0))
        .unwrap();
    assert_eq!(rows, 0);
}

/// Documents committed in the index (read while an ingest may be writing).
fn committed(idx: &Path) -> Option<i64> {
    let conn = Connection::open_with_flags(
        idx.join("attest.sqlite3"),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .ok()?;
    conn.busy_timeout(Duration::from_secs(5)).ok()?;
    conn.query_row("SELECT COUNT(*) FROM documents", [], |r| r.get(0))
        .ok()
}

/// Start `attest ingest docs` and kill it with SIGKILL once `ready` holds (or after
/// `deadline`); returns whether it was still running when killed.
fn ingest_killed(idx: &Path, docs: &Path, ready: &dyn Fn() -> bool, deadline: Duration) -> bool {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("attest"))
        .arg("--index")
        .arg(idx)
        .arg("--model-dir")
        .arg(super::common::model_dir())
        .arg("ingest")
        .arg(docs)
        .env_remove("ATTEST_INDEX")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while !ready() && t0.elapsed() < deadline {
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let running = child.try_wait().unwrap().is_none();
    child.kill().unwrap(); // SIGKILL on Unix
    child.wait().unwrap();
    running
}

#[test]
fn kill_9_during_ingest_loses_nothing_committed_and_a_rerun_completes_the_index() {
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    let files = 48;
    // About ten chunks a file: the embedder packs several files' chunks into each call
    // (256 texts), so files are committed in bursts, and smaller files would all land
    // in the first burst, before any kill.
    for i in 0..files {
        let body: String = (0..120)
            .map(|j| {
                format!(
                    "Rule {i}.{j}: site {i} must keep form {j} for {} years. ",
                    i + j
                )
            })
            .collect();
        std::fs::write(
            docs.join(format!("doc-{i:03}.md")),
            format!("# Site {i}\n\n{body}\n"),
        )
        .unwrap();
    }
    let idx = tmp.path().join("idx");
    // Kill points: during start-up (before any commit), then after the first, a dozen
    // and two dozen documents are visible to a reader.
    let mut last = 0;
    let mut kills = 0;
    for target in [None, Some(1), Some(12), Some(24)] {
        let ready = |_: ()| match target {
            None => true,
            Some(n) => committed(&idx).is_some_and(|c| c >= n),
        };
        let deadline = if target.is_none() {
            Duration::from_millis(150)
        } else {
            Duration::from_secs(120)
        };
        kills += ingest_killed(&idx, &docs, &|| ready(()), deadline) as usize;
        let now = committed(&idx).unwrap_or(0);
        assert!(now >= last, "committed documents went from {last} to {now}");
        last = now;
        if idx.join("attest.sqlite3").exists() {
            // What was committed is sound (the dense file may lag: the rerun rebuilds it).
            let (s, _) = deep_status(&idx);
            assert!(s["deep"].as_array().unwrap().is_empty(), "{s}");
        }
    }
    assert!(
        kills >= 3,
        "the ingest was killed while running ({kills} times)"
    );
    assert!(last < files, "some files were still to do when killed");
    let (r, code) = ingest_json(&idx, &[&docs]);
    assert_eq!(code, 0, "{r}");
    assert_eq!(r["documents"].as_i64(), Some(files), "{r}");
    assert_eq!(r["added"].as_i64(), Some(files - last), "{r}");
    let (s, code) = deep_status(&idx);
    assert_eq!(code, 0, "{s}");
    assert_eq!(s["documents"].as_i64(), Some(files));
    let o = run(&idx, &["search", "site 17 form 3", "--json", "--k", "3"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let hits = json(&o.stdout)["hits"].as_array().unwrap().clone();
    assert!(
        hits.iter()
            .any(|h| h["source"].as_str().unwrap().contains("doc-017")),
        "{hits:?}"
    );
}

/// `ingest DIR --json [extra…]`: (report, exit code).
fn ingest_dir(idx: &Path, docs: &Path, extra: &[&str]) -> (Value, i32) {
    let o = attest(idx)
        .arg("ingest")
        .arg(docs)
        .args(extra)
        .arg("--json")
        .timeout(Duration::from_secs(300))
        .output()
        .unwrap();
    (json(&o.stdout), o.status.code().unwrap())
}

/// Paths of a report's `missing` list, by file name.
fn missing_names(r: &Value) -> Vec<String> {
    let mut names: Vec<String> = r["missing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap().rsplit('/').next().unwrap().to_string())
        .collect();
    names.sort();
    names
}

/// Whether a lexical search for `word` returns a hit whose text holds it.
fn found(idx: &Path, word: &str) -> bool {
    let o = run(idx, &["search", word, "--mode", "lexical", "--json"]);
    let hits = json(&o.stdout)["hits"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    hits.iter()
        .any(|h| h["text"].as_str().unwrap().contains(word))
}

#[test]
fn a_stored_file_now_ignored_or_replaced_by_a_directory_fifo_or_device_is_missing_and_pruned() {
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    let words = [
        ("keep.md", "harbourmaster"),
        ("ignored.md", "quartermaster"),
        ("dir.md", "lamplighter"),
        ("pipe.md", "wheelwright"),
        ("null.md", "cooper"),
    ];
    for (name, word) in words {
        let text = format!("# {name}\n\nThe {word} keeps the ledger for seven years.\n");
        std::fs::write(docs.join(name), text).unwrap();
    }
    let idx = tmp.path().join("idx");
    let (r, code) = ingest_dir(&idx, &docs, &[]);
    assert_eq!((code, r["added"].as_u64()), (0, Some(5)), "{r}");

    std::fs::write(docs.join(".gitignore"), "ignored.md\n").unwrap();
    std::fs::remove_file(docs.join("dir.md")).unwrap();
    std::fs::create_dir(docs.join("dir.md")).unwrap();
    std::fs::remove_file(docs.join("pipe.md")).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(docs.join("pipe.md"))
        .status()
        .unwrap();
    assert!(made.success());
    std::fs::remove_file(docs.join("null.md")).unwrap();
    std::os::unix::fs::symlink("/dev/null", docs.join("null.md")).unwrap();

    let (r, code) = ingest_dir(&idx, &docs, &[]);
    assert_eq!(code, 2, "the FIFO and the device are failures: {r}");
    assert_eq!(
        missing_names(&r),
        ["dir.md", "ignored.md", "null.md", "pipe.md"],
        "{r}"
    );
    assert_eq!(
        (r["removed"].as_u64(), r["unchanged"].as_u64()),
        (Some(0), Some(1)),
        "{r}"
    );
    assert!(found(&idx, "quartermaster"), "kept until --prune");

    let (r, _) = ingest_dir(&idx, &docs, &["--prune"]);
    assert_eq!(
        (r["removed"].as_u64(), r["documents"].as_u64()),
        (Some(4), Some(1)),
        "{r}"
    );
    assert!(missing_names(&r).is_empty(), "{r}");
    for (name, word) in words {
        assert_eq!(found(&idx, word), name == "keep.md", "{word}");
    }
    let o = run(
        &idx,
        &["ask", "Who keeps the ledger?", "--no-memory", "--json"],
    );
    let shown = String::from_utf8_lossy(&o.stdout);
    for (_, word) in &words[1..] {
        assert!(
            !shown.contains(word),
            "{word} quoted after its file was replaced: {shown}"
        );
    }
}

/// Rewrite `path` with `text` (the same length) and give it back its modification time.
fn rewrite_keeping_size_and_mtime(path: &Path, text: &str) {
    let before = std::fs::metadata(path).unwrap();
    assert_eq!(before.len(), text.len() as u64);
    std::fs::write(path, text).unwrap();
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(before.modified().unwrap()).unwrap();
    drop(f);
    let after = std::fs::metadata(path).unwrap();
    assert_eq!(
        (after.len(), after.modified().unwrap()),
        (before.len(), before.modified().unwrap())
    );
}

#[test]
fn a_rewrite_with_the_same_size_and_mtime_is_found_by_status_deep_verify_and_repair() {
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    let file = docs.join("retention.md");
    let text = |n: &str| format!("# Retention\n\nClient records are kept for {n} years.\n");
    std::fs::write(&file, text("seven")).unwrap();
    std::fs::write(
        docs.join("other.md"),
        "# Other\n\nZebras graze on the plain.\n",
    )
    .unwrap();
    let idx = tmp.path().join("idx");
    let (r, code) = ingest_dir(&idx, &docs, &[]);
    assert_eq!(code, 0, "{r}");

    rewrite_keeping_size_and_mtime(&file, &text("eight"));
    // The fast path trusts size and time: nothing is re-read.
    let (r, code) = ingest_dir(&idx, &docs, &[]);
    assert_eq!(
        (code, r["unchanged"].as_u64(), r["updated"].as_u64()),
        (0, Some(2), Some(0))
    );
    assert!(found(&idx, "seven") && !found(&idx, "eight"));
    // The deep check compares the bytes.
    let (s, code) = deep_status(&idx);
    assert_eq!(code, 1, "{s}");
    assert_eq!(deep_kinds(&s), ["file_changed"], "{s}");
    let p = &s["deep"][0];
    assert!(
        p["source"].as_str().unwrap().ends_with("retention.md"),
        "{s}"
    );
    assert_eq!(p["repair"], "attest ingest --repair", "{s}");
    // --verify re-reads it.
    let (r, code) = ingest_dir(&idx, &docs, &["--verify"]);
    assert_eq!(
        (code, r["unchanged"].as_u64(), r["updated"].as_u64()),
        (0, Some(1), Some(1)),
        "{r}"
    );
    assert!(found(&idx, "eight") && !found(&idx, "seven"));
    let (s, code) = deep_status(&idx);
    assert_eq!(code, 0, "{s}");

    // So does --repair, with no path.
    rewrite_keeping_size_and_mtime(&file, &text("three"));
    assert_eq!(deep_status(&idx).1, 1);
    let o = run(&idx, &["ingest", "--repair", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(json(&o.stdout)["updated"], 1);
    assert!(found(&idx, "three") && !found(&idx, "eight"));
    assert_eq!(deep_status(&idx).1, 0);
}

#[test]
fn an_index_of_the_schema_before_chunk_context_migrates_and_its_chunks_gain_one() {
    let (_tmp, docs, idx) = scratch_index();
    let with_context = |c: &Connection| -> i64 {
        c.query_row("SELECT count(*) FROM chunks WHERE context != ''", [], |r| {
            r.get(0)
        })
        .unwrap()
    };
    let fresh = with_context(&db(&idx));
    assert!(
        fresh > 0,
        "a fresh index gives chunks under headings a context"
    );
    // Take the index back to schema 6: one-column full-text index, no context column (nor
    // the embedded texts' hashes of schema 9).
    db(&idx)
        .execute_batch(
            "DROP TRIGGER chunks_ai; DROP TRIGGER chunks_ad; DROP TABLE chunks_fts;
             DROP INDEX chunks_embed_hash; ALTER TABLE chunks DROP COLUMN embed_hash;
             ALTER TABLE chunks DROP COLUMN context;
             CREATE VIRTUAL TABLE chunks_fts USING fts5(text, content='chunks',
                 content_rowid='id', tokenize='porter unicode61 remove_diacritics 2');
             CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN
                 INSERT INTO chunks_fts(rowid, text) VALUES (new.id, new.text); END;
             CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
                 INSERT INTO chunks_fts(chunks_fts, rowid, text)
                 VALUES ('delete', old.id, old.text); END;
             INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild');
             ALTER TABLE documents DROP COLUMN source_meta; DROP TABLE source_decl;
             PRAGMA user_version = 6;",
        )
        .unwrap();
    // Asking migrates: the old chunks have no context yet, and nothing is lost.
    let o = run(&idx, &["ask", "--no-memory", "--json", QUESTION]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let c = db(&idx);
    let version: i64 = c
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, attest::store::sqlite::MIGRATIONS.len() as i64);
    assert_eq!(with_context(&c), 0);
    drop(c);
    // The next ingest chunks the documents with headings again.
    let (r, code) = ingest_json(&idx, &[&docs]);
    assert_eq!(code, 0, "{r}");
    let c = db(&idx);
    assert_eq!(with_context(&c), fresh, "{r}");
    let stale: i64 = c
        .query_row(
            "SELECT count(*) FROM documents WHERE layout LIKE '%stale%'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(stale, 0);
    let (s, code) = deep_status(&idx);
    assert_eq!(code, 0, "{s}");
}

/// `attest migrate --to sqlite --to-index to --json` from `idx`.
fn migrate_to(idx: &Path, to: &Path) -> Output {
    attest(idx)
        .args(["migrate", "--to", "sqlite", "--json", "--to-index"])
        .arg(to)
        .output()
        .unwrap()
}

#[test]
fn a_damaged_source_stops_a_migration_and_the_repaired_one_resumes_it() {
    let (tmp, _docs, idx) = scratch_index();
    let to = tmp.path().join("copy");
    db(&idx)
        .execute(
            "UPDATE documents SET text = replace(text, 'seven (7) years', 'eight (8) years') \
             WHERE source LIKE '%11-county-code%'",
            [],
        )
        .unwrap();
    let o = migrate_to(&idx, &to);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("11-county-code") && err.contains("content hash"),
        "{err}"
    );
    assert!(err.contains("attest ingest --repair"), "{err}");
    let o = run(&idx, &["ingest", "--repair", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = migrate_to(&idx, &to);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let r = json(&o.stdout);
    assert!(r["already_there"].as_u64().unwrap() >= 1, "{r}");
    assert!(r["copied"].as_u64().unwrap() >= 1, "{r}");
    let answer = |i: &Path| {
        let o = run(i, &["ask", QUESTION, "--no-memory", "--json"]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        json(&o.stdout)["answer"].clone()
    };
    assert_eq!(answer(&idx), answer(&to));
    assert!(answer(&to).to_string().contains("seven (7) years"));
    let (s, code) = deep_status(&to);
    assert_eq!(code, 0, "{s}");
}

#[test]
fn a_copy_run_again_follows_the_changed_source_and_prunes_only_when_told() {
    let (tmp, docs, idx) = scratch_index();
    let to = tmp.path().join("copy");
    assert_eq!(migrate_to(&idx, &to).status.code(), Some(0));
    // The source changes: one file edited, one deleted and pruned.
    let edited = docs.join("11-county-code-9-40-behavioral-health-services.md");
    let text = std::fs::read_to_string(&edited).unwrap();
    std::fs::write(&edited, text.replace("seven (7) years", "nine (9) years")).unwrap();
    let gone = std::fs::read_dir(&docs)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().contains("faq"))
        .expect("an FAQ in the sample corpus");
    std::fs::remove_file(&gone).unwrap();
    let o = run(
        &idx,
        &["ingest", docs.to_str().unwrap(), "--prune", "--json"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = migrate_to(&idx, &to);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("--prune") && err.contains("faq"), "{err}");
    let o = attest(&idx)
        .args([
            "migrate",
            "--to",
            "sqlite",
            "--prune",
            "--json",
            "--to-index",
        ])
        .arg(&to)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let r = json(&o.stdout);
    assert_eq!(
        (r["pruned"].as_u64(), r["copied"].as_u64()),
        (Some(1), Some(1)),
        "{r}"
    );
    let listing = |i: &Path| {
        let o = run(i, &["documents", "--json"]);
        let mut v = json(&o.stdout);
        if let Some(m) = v.as_object_mut() {
            m.remove("index");
        }
        v
    };
    assert_eq!(listing(&idx), listing(&to));
    let o = run(
        &to,
        &["search", "nine (9) years", "--mode", "lexical", "--json"],
    );
    assert!(String::from_utf8_lossy(&o.stdout).contains("nine (9) years"));
}
