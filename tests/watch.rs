//! `attest watch` and `attest serve --watch` through the real binary: files created,
//! modified, renamed and deleted while watching, a burst of 1,000 files, and a server
//! whose answers follow the folder.

use std::io::{BufRead, BufReader};
use std::path::Path;
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

#[test]
fn files_created_modified_renamed_and_deleted_while_watching_are_followed() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(
        docs.join("pumps.txt"),
        "The pump station shall be inspected every 14 days.\n",
    )
    .unwrap();
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
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(
        docs.join("pumps.txt"),
        "The pump station shall be inspected every 14 days.\n",
    )
    .unwrap();
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
