//! What the binary writes: audit files only to regular files or through symbolic links,
//! write errors on standard output as exit 2 (never a panic), control characters escaped
//! in human output and exact in JSON, each error cause once, and `status` during an ingest.

use std::fs::File;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use super::cli::{attest, ingest_json, json};
use super::common::model_dir;

const QUESTION: &str = "How long must client records be retained?";

/// An index of one small document, in `dir/idx`.
fn tiny_index(dir: &Path) -> PathBuf {
    let docs = dir.join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(
        docs.join("records.md"),
        "# Records\n\nClient records must be retained for seven years after the last date of service.\n",
    )
    .unwrap();
    let idx = dir.join("idx");
    let (r, code) = ingest_json(&idx, &[&docs]);
    assert_eq!(code, 0, "{r}");
    idx
}

/// `attest ask QUESTION --no-memory --audit PATH`.
fn ask_audit(idx: &Path, audit: &Path) -> std::process::Output {
    attest(idx)
        .args(["ask", QUESTION, "--no-memory", "--audit"])
        .arg(audit)
        .output()
        .unwrap()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The real binary as a `std::process::Command`, so its standard output can be any file.
fn attest_std(idx: &Path) -> std::process::Command {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_attest"));
    c.arg("--index")
        .arg(idx)
        .arg("--model-dir")
        .arg(model_dir())
        .env_remove("ATTEST_INDEX")
        .env_remove("ATTEST_EXACT_THRESHOLD");
    c
}

fn full_disk() -> Stdio {
    Stdio::from(File::options().write(true).open("/dev/full").unwrap())
}

#[test]
fn audit_to_a_device_or_fifo_is_refused_and_the_node_stays() {
    let tmp = tempfile::tempdir().unwrap();
    let idx = tiny_index(tmp.path());
    let out = ask_audit(&idx, Path::new("/dev/full"));
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = stderr(&out);
    assert!(
        err.contains("/dev/full") && err.contains("character device"),
        "{err}"
    );
    let ft = std::fs::symlink_metadata("/dev/full").unwrap().file_type();
    assert!(ft.is_char_device(), "/dev/full is still a character device");
    assert!(!Path::new("/dev/full.tmp").exists());

    let fifo = tmp.path().join("pipe");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let out = ask_audit(&idx, &fifo);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(stderr(&out).contains("FIFO"), "{}", stderr(&out));
    let ft = std::fs::symlink_metadata(&fifo).unwrap().file_type();
    assert!(ft.is_fifo(), "the FIFO is still a FIFO");
}

#[test]
fn audit_through_a_symlink_writes_the_target_and_keeps_the_link() {
    let tmp = tempfile::tempdir().unwrap();
    let idx = tiny_index(tmp.path());
    let out_dir = tmp.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let target = out_dir.join("audit.json");
    std::fs::write(&target, "old").unwrap();
    let link = tmp.path().join("latest.json");
    std::os::unix::fs::symlink("out/audit.json", &link).unwrap();
    let out = ask_audit(&idx, &link);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let meta = std::fs::symlink_metadata(&link).unwrap();
    assert!(meta.file_type().is_symlink(), "the link is kept");
    let audit = json(&std::fs::read(&target).unwrap());
    assert_eq!(audit["audit_version"], 1);
    assert_eq!(audit["question"], QUESTION);
    // Only the target was written: no temporary file is left in either directory.
    assert_eq!(std::fs::read_dir(&out_dir).unwrap().count(), 1);
    // A dangling link creates its target.
    let dangling = tmp.path().join("next.json");
    std::os::unix::fs::symlink("out/new.json", &dangling).unwrap();
    assert_eq!(ask_audit(&idx, &dangling).status.code(), Some(0));
    assert!(std::fs::symlink_metadata(&dangling)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(
        json(&std::fs::read(out_dir.join("new.json")).unwrap())["question"],
        QUESTION
    );
}

#[test]
fn audit_to_a_directory_is_refused_by_name() {
    let tmp = tempfile::tempdir().unwrap();
    let idx = tiny_index(tmp.path());
    let dir = tmp.path().join("audits");
    std::fs::create_dir(&dir).unwrap();
    let out = ask_audit(&idx, &dir);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = stderr(&out);
    assert!(
        err.contains(&dir.display().to_string()) && err.contains("is a directory"),
        "{err}"
    );
    assert!(
        out.stdout.is_empty(),
        "refused before any answer is printed"
    );
    assert!(dir.is_dir());
    assert!(!tmp.path().join("audits.tmp").exists(), "no stray file");
}

#[test]
fn writing_to_a_full_disk_exits_2_with_a_message_and_a_closed_pipe_quietly() {
    let tmp = tempfile::tempdir().unwrap();
    let idx = tiny_index(tmp.path());
    for args in [
        &["search", "client records", "--json"][..],
        &["search", "client records"],
        &["ask", QUESTION, "--no-memory", "--json"],
        &["status"],
    ] {
        let out = attest_std(&idx)
            .args(args)
            .stdout(full_disk())
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("standard output") && err.contains("No space left on device"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    // `attest search … | head` with the reader gone before anything is written: no
    // message, and the search's own exit code (0: hits found).
    let mut child = attest_std(&idx)
        .args(["search", "client records"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(out.stderr.is_empty(), "{}", stderr(&out));
}

#[test]
fn control_characters_in_file_names_and_text_are_escaped_in_human_output_exact_in_json() {
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("docs");
    std::fs::create_dir(&docs).unwrap();
    let name = "a\x1b[31mred\n 1. forged.md";
    let text =
        "# Records\n\nClient records must be \x1b[1mretained\x1b[0m for seven years after the \
                last date of service.\x1b]0;pwned\x07 \u{202e}Records are kept in the office.\n";
    std::fs::write(docs.join(name), text).unwrap();
    let idx = tmp.path().join("idx");
    let (r, code) = ingest_json(&idx, &[&docs]);
    assert_eq!(code, 0, "{r}");

    let human = |args: &[&str]| {
        let out = attest(&idx).args(args).output().unwrap();
        assert!(out.status.code() == Some(0), "{args:?}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let escaped_name = "a\\x1b[31mred\\n 1. forged.md";
    for s in [
        human(&["search", "client records retained"]),
        human(&["ask", QUESTION, "--no-memory"]),
        human(&["ask", QUESTION, "--no-memory", "--explain"]),
    ] {
        assert!(!s.contains('\x1b') && !s.contains('\x07'), "{s:?}");
        assert!(!s.contains('\u{202e}'), "{s:?}");
        assert!(s.contains(escaped_name), "{s}");
        assert!(
            !s.lines()
                .any(|l| l.trim_start().starts_with("1. forged.md")),
            "no forged result line: {s}"
        );
        assert!(s.contains("\\x1b[1mretained\\x1b[0m"), "{s}");
    }

    // Error messages naming such a file stay on one line, escaped.
    let out = attest(&idx)
        .arg("validate")
        .arg(docs.join("gone\x1b[2J\nx.md"))
        .arg("--evidence")
        .arg(docs.join("evidence.json"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = stderr(&out);
    assert!(!err.contains('\x1b') && err.lines().count() == 1, "{err:?}");
    assert!(err.contains("gone\\x1b[2J\\nx.md"), "{err}");

    let out = attest(&idx)
        .args(["search", "client records retained", "--json"])
        .output()
        .unwrap();
    let v = json(&out.stdout);
    let hit = &v["hits"][0];
    assert!(hit["source"].as_str().unwrap().ends_with(name), "{hit}");
    assert!(hit["text"]
        .as_str()
        .unwrap()
        .contains("\x1b[1mretained\x1b[0m"));
    let out = attest(&idx)
        .args(["ask", QUESTION, "--no-memory", "--json"])
        .output()
        .unwrap();
    let a = json(&out.stdout);
    let e = &a["evidence"][0];
    assert!(e["source"].as_str().unwrap().ends_with(name), "{e}");
    assert!(
        e["quote"].as_str().unwrap().contains("\x1b[1mretained"),
        "{e}"
    );
}

#[test]
fn a_store_error_prints_each_cause_once() {
    let tmp = tempfile::tempdir().unwrap();
    let idx = tmp.path().join("idx");
    std::fs::create_dir(&idx).unwrap();
    std::fs::write(idx.join("attest.sqlite3"), vec![b'x'; 8192]).unwrap();
    for args in [&["status"][..], &["search", "records"]] {
        let out = attest(&idx).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        let err = stderr(&out);
        assert!(err.starts_with("attest: "), "{err}");
        assert!(err.contains("attest.sqlite3"), "names the file: {err}");
        assert_eq!(
            err.matches("file is not a database").count(),
            1,
            "each cause once: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}

#[test]
fn status_reports_a_running_ingest() {
    let tmp = tempfile::tempdir().unwrap();
    let idx = tiny_index(tmp.path());
    let status = || {
        let out = attest(&idx).args(["status", "--json"]).output().unwrap();
        json(&out.stdout)
    };
    assert_eq!(status()["ingest_running"], false);
    // Hold the ingest lock as a running ingest does.
    let lock = File::options()
        .write(true)
        .open(idx.join("ingest.lock"))
        .unwrap();
    lock.try_lock().unwrap();
    assert_eq!(status()["ingest_running"], true);
    let out = attest(&idx).arg("status").output().unwrap();
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(s.contains("ingest:         RUNNING"), "{s}");
    // A second ingest is still refused while the lock is held.
    let out = attest(&idx)
        .arg("ingest")
        .arg(tmp.path().join("docs"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("another attest ingest"), "{out:?}");
    drop(lock);
    assert_eq!(status()["ingest_running"], false);
    let out = attest(&idx).arg("status").output().unwrap();
    assert!(!String::from_utf8(out.stdout).unwrap().contains("RUNNING"));
}
