//! `attest watch` and `attest serve --watch` through the real binary: files created,
//! modified, renamed and deleted while watching, a file saved by renaming over it, a
//! folder deleted and made again, a change that never quiets, a burst of 1,000 files,
//! and a server whose answers follow the folder.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::cli::attest;
use super::common::model_dir;
use crate::common::server::{client, Server};

/// How long one run may take to be reported (the model loads before the first).
const RUN_TIMEOUT: Duration = Duration::from_secs(180);

/// A running `attest watch --json` with its runs as they are printed.
struct Watching {
    child: Child,
    runs: mpsc::Receiver<Value>,
}

impl Watching {
    fn start(idx: &Path, docs: &Path) -> Watching {
        let mut child = Command::new(assert_cmd::cargo::cargo_bin!("attest"))
            .arg("--index")
            .arg(idx)
            .arg("--model-dir")
            .arg(model_dir())
            .args(["watch", "--json", "--debounce-ms", "300"])
            .arg(docs)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, runs) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let run: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| json!({ "bad": e.to_string(), "line": line }));
                if tx.send(run).is_err() {
                    break;
                }
            }
        });
        Watching { child, runs }
    }

    /// The next run reported.
    fn next(&self) -> Value {
        let run = self
            .runs
            .recv_timeout(RUN_TIMEOUT)
            .expect("a watch run reported in time");
        assert!(run.get("bad").is_none(), "{run}");
        run
    }

    /// Runs until the index holds `documents` documents (a burst may take several runs).
    fn until_documents(&self, documents: u64) -> Vec<Value> {
        let mut seen = Vec::new();
        loop {
            let run = self.next();
            let done = run["report"]["documents"] == documents;
            seen.push(run);
            if done {
                return seen;
            }
        }
    }
}

impl Drop for Watching {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn found(idx: &Path, query: &str, file: &str) -> bool {
    let out = attest(idx)
        .args(["search", "--json", query])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).contains(file)
}

/// A scratch folder `docs` holding one file `name` with `text`: the scratch directory
/// and the folder.
fn folder_with(name: &str, text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(docs.join(name), text).unwrap();
    (dir, docs)
}

/// Writes `text` to `path` the way many editors save: a new file renamed over it.
fn save_by_rename(path: &Path, text: &str) {
    let tmp = path.with_extension("tmp-save");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

#[test]
fn a_file_saved_by_renaming_over_it_and_a_folder_made_again_are_followed() {
    let dir = tempfile::tempdir().unwrap();
    let (one, folder) = (dir.path().join("one"), dir.path().join("folder"));
    std::fs::create_dir_all(&one).unwrap();
    std::fs::create_dir_all(&folder).unwrap();
    let file = one.join("pump.md");
    std::fs::write(&file, "# Pump\n\nThe pump holds 5 litres.\n").unwrap();
    std::fs::write(one.join("other.md"), "# Other\n\nNot watched.\n").unwrap();
    let idx = dir.path().join("idx-file");
    let w = Watching::start(&idx, &file);
    assert_eq!(w.next()["report"]["documents"], 1);
    // Twice: the first rename already replaced the inode the watch started on.
    for litres in ["6", "7"] {
        save_by_rename(
            &file,
            &format!("# Pump\n\nThe pump holds {litres} litres.\n"),
        );
        let run = w.next();
        assert_eq!(run["report"]["updated"], 1, "{run}");
    }
    let out = attest(&idx)
        .args(["search", "--json", "pump litres"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("holds 7 litres") && !text.contains("holds 6"),
        "{text}"
    );
    // A neighbour of the watched file starts no run.
    std::fs::write(one.join("other.md"), "# Other\n\nStill not watched.\n").unwrap();
    assert!(w.runs.recv_timeout(Duration::from_secs(2)).is_err());
    drop(w);

    std::fs::write(folder.join("a.md"), "# A\n\nThe valve is blue.\n").unwrap();
    let idx = dir.path().join("idx-folder");
    let w = Watching::start(&idx, &folder);
    assert_eq!(w.next()["report"]["documents"], 1);
    std::fs::remove_dir_all(&folder).unwrap();
    let run = w.next();
    // The folder is gone, so nothing is removed: it may be a drive unmounted.
    assert_eq!(run["report"]["documents"], 1, "{run}");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("b.md"), "# B\n\nThe gauge reads 40 bar.\n").unwrap();
    w.until_documents(1);
    assert!(found(&idx, "gauge bar", "b.md"));
    // Written after the folder came back: its new inode is watched.
    std::fs::write(folder.join("c.md"), "# C\n\nThe hose is 12 metres long.\n").unwrap();
    let run = w.next();
    assert_eq!(run["report"]["added"], 1, "{run}");
    assert!(found(&idx, "hose metres", "c.md"));
}

#[test]
fn a_change_that_never_quiets_is_still_ingested_within_the_longest_wait() {
    let (dir, docs) = folder_with("a.md", "# A\n\nThe valve is blue.\n");
    let idx = dir.path().join("idx");
    let w = Watching::start(&idx, &docs);
    w.next();
    // A log appended every 100 ms for 14 s: the folder is never quiet for 300 ms.
    let log = docs.join("app.log.txt");
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        for i in 0..140 {
            let mut f = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&log)
                .unwrap();
            writeln!(f, "line {i}").unwrap();
            std::thread::sleep(Duration::from_millis(100));
        }
    });
    std::fs::write(docs.join("b.md"), "# B\n\nThe gauge reads 40 bar.\n").unwrap();
    let started = Instant::now();
    let run = w.next();
    // Ingested at the 10 s cap, while the log is still being written.
    assert!(started.elapsed() < Duration::from_secs(13), "{run}");
    assert!(
        !writer.is_finished(),
        "the run waited for the log to stop: {run}"
    );
    assert!(found(&idx, "gauge bar", "b.md"));
    writer.join().unwrap();
}

#[test]
fn files_created_modified_renamed_and_deleted_while_watching_are_followed() {
    let (_dir, docs) = folder_with(
        "pumps.txt",
        "The pump station shall be inspected every 14 days.\n",
    );
    // The index inside the watched folder: its own writes must not trigger runs.
    let idx = docs.join(".attest");
    let w = Watching::start(&idx, &docs);
    let first = w.next();
    assert_eq!(first["initial"], true);
    assert_eq!(first["report"]["added"], 1);

    std::fs::write(
        docs.join("reservoir.md"),
        "# Reservoir\n\nThe reservoir holds 3.2 million litres.\n",
    )
    .unwrap();
    let run = w.next();
    assert_eq!(run["initial"], false);
    assert_eq!(
        (
            run["report"]["added"].as_u64(),
            run["report"]["documents"].as_u64()
        ),
        (Some(1), Some(2)),
        "{run}"
    );
    assert!(run["changed"].to_string().contains("reservoir.md"), "{run}");
    assert!(found(&idx, "reservoir million litres", "reservoir.md"));

    std::fs::write(
        docs.join("pumps.txt"),
        "The pump station shall be inspected every 30 days.\n",
    )
    .unwrap();
    let run = w.next();
    assert_eq!(run["report"]["updated"], 1, "{run}");

    std::fs::rename(docs.join("reservoir.md"), docs.join("storage.md")).unwrap();
    let run = w.next();
    assert_eq!(
        (
            run["report"]["added"].as_u64(),
            run["report"]["removed"].as_u64()
        ),
        (Some(1), Some(1)),
        "{run}"
    );
    assert!(found(&idx, "reservoir million litres", "storage.md"));
    assert!(!found(&idx, "reservoir million litres", "reservoir.md"));

    std::fs::remove_file(docs.join("pumps.txt")).unwrap();
    let run = w.next();
    assert_eq!(
        (
            run["report"]["removed"].as_u64(),
            run["report"]["documents"].as_u64()
        ),
        (Some(1), Some(1)),
        "{run}"
    );
    // Nothing else happens: the index's own writes under the folder start no run.
    assert!(
        w.runs.recv_timeout(Duration::from_secs(3)).is_err(),
        "a run without a change"
    );
}

#[test]
fn a_burst_of_a_thousand_files_is_ingested_in_a_few_runs_without_loss() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    std::fs::create_dir_all(docs.join("batch")).unwrap();
    std::fs::write(docs.join("seed.txt"), "A seed document.\n").unwrap();
    let idx = dir.path().join("idx");
    let w = Watching::start(&idx, &docs);
    assert_eq!(w.next()["report"]["documents"], 1);
    for i in 0..1000 {
        let text = format!(
            "Permit {i} allows a discharge of {} litres per day.\n",
            100 + i
        );
        std::fs::write(docs.join("batch").join(format!("permit-{i:04}.txt")), text).unwrap();
    }
    let runs = w.until_documents(1001);
    assert!(runs.len() <= 10, "{} runs for one burst", runs.len());
    let failed: u64 = runs
        .iter()
        .map(|r| r["report"]["failed"].as_array().unwrap().len() as u64)
        .sum();
    assert_eq!(failed, 0);
    assert!(found(&idx, "Permit 777 discharge", "permit-0777.txt"));
}

#[test]
fn a_server_watching_a_folder_answers_from_what_was_added_after_it_started() {
    let (dir, docs) = folder_with(
        "pumps.txt",
        "The pump station shall be inspected every 14 days.\n",
    );
    let idx = dir.path().join("idx");
    let docs_arg = docs.to_str().unwrap();
    let s = Server::start(&idx, &["--watch", docs_arg, "--debounce-ms", "200"], &[]);
    let c = client();
    let search = |q: &str| -> Value {
        c.post(s.url("/v1/search"))
            .json(&json!({ "query": q }))
            .send()
            .unwrap()
            .json()
            .unwrap()
    };
    std::fs::write(
        docs.join("reservoir.txt"),
        "The reservoir shall be inspected every 7 days.\n",
    )
    .unwrap();
    let t0 = Instant::now();
    while !search("reservoir inspected")
        .to_string()
        .contains("reservoir.txt")
    {
        assert!(
            t0.elapsed() < RUN_TIMEOUT,
            "the server never saw the new file"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let a: Value = c
        .post(s.url("/v1/ask"))
        .json(&json!({ "question": "How often must the reservoir be inspected?" }))
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert!(a["answer"].to_string().contains("every 7 days"), "{a:#}");
}
