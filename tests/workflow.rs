//! The researcher's daily workflow through the real binary: progress in logs.

use super::cli::{attest, sample_corpus};

#[test]
fn an_ingest_logged_to_a_file_reports_files_chunks_rate_and_time_left() {
    let dir = tempfile::tempdir().unwrap();
    let idx = dir.path().join("idx");
    // stderr is a pipe here, as in a cron job or a CI log: no bars, log lines instead.
    let out = attest(&idx)
        .env("ATTEST_PROGRESS_SECS", "0.2")
        .args(["ingest", "--json"])
        .arg(sample_corpus())
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("attest ingest: "))
        .collect();
    assert!(!lines.is_empty(), "a progress line every 0.2 s: {err}");
    let last = lines.last().unwrap();
    assert!(
        last.contains("files loaded")
            && last.contains("chunks embedded")
            && last.contains("elapsed"),
        "{last}"
    );
    assert!(
        lines.iter().any(|l| l.contains("/s") && l.contains("left")),
        "a rate and the time left once work is under way: {err}"
    );
    assert!(
        !err.contains('\r') && !err.contains('\u{1b}'),
        "no terminal codes in a log"
    );
    // The JSON report on stdout is untouched.
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["failed"].as_array().unwrap().len(), 0);
}
