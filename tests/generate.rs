//! `attest ask --generator` with the real binary: the bundled Gemma 3 270M phrasing an
//! answer (whatever it writes, the answer keeps every invariant), and bad GGUF files.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::cli::{attest, json, sample_index, validate};

/// The bundled test generator, or `None` when `models/fetch.sh` has not fetched it
/// (`ATTEST_REQUIRE_GENERATOR=1`, set by `scripts/test.sh`, makes that a failure).
fn gemma() -> Option<PathBuf> {
    let p =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("models/gemma-3-270m/gemma-3-270m-q4_k_m.gguf");
    if p.is_file() {
        return Some(p);
    }
    assert!(
        std::env::var_os("ATTEST_REQUIRE_GENERATOR").is_none(),
        "{} is missing; run models/fetch.sh",
        p.display()
    );
    eprintln!("skipped: {} not fetched", p.display());
    None
}

fn ask(idx: &Path, extra: &[&str]) -> (Value, i32, String) {
    let out = attest(idx)
        .args(extra)
        .args([
            "ask",
            "How long must client records be retained?",
            "--json",
            "--no-memory",
        ])
        .output()
        .unwrap();
    let value = if out.stdout.is_empty() {
        Value::Null
    } else {
        json(&out.stdout)
    };
    (
        value,
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_phrased_answer_is_checked_and_recorded_or_the_extractive_answer_stands() {
    let Some(model) = gemma() else { return };
    let (tmp, idx) = sample_index();
    let (plain, code, _) = ask(&idx, &[]);
    assert_eq!(code, 0);
    assert_eq!(plain["metrics"]["generator_calls"], 0);
    assert!(plain.get("phrasing").is_none());
    let m = model.to_str().unwrap();
    let (a, code, err) = ask(&idx, &["--generator", m]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(a["status"], "answered");
    assert_eq!(a["metrics"]["generator_calls"], 1);
    let p = &a["phrasing"];
    assert_eq!(p["model"], "gemma-3-270m-q4_k_m.gguf");
    assert_eq!(p["extractive"], plain["answer"]);
    assert!(p["prompt_tokens"].as_u64().unwrap() > 50, "{p}");
    assert!(p["generated_tokens"].as_u64().unwrap() >= 1, "{p}");
    assert!(a["metrics"]["timings_ms"]["phrase"].as_f64().unwrap() > 0.0);
    assert_eq!(a["evidence"], plain["evidence"]);
    assert_eq!(a["gate"]["passed"], true);
    match p["outcome"].as_str().unwrap() {
        "fallback" => {
            assert_eq!(a["answer"], plain["answer"]);
            assert_eq!(a["sentences"], plain["sentences"]);
        }
        "phrased" => {
            // What the generator kept passes `validate`'s support check against the quotes.
            let f = tmp.path().join("answer.md");
            let ev = tmp.path().join("answer.json");
            std::fs::write(&f, a["answer"].as_str().unwrap()).unwrap();
            std::fs::write(&ev, a.to_string()).unwrap();
            let out = validate(&idx, &f, &ev, &[]);
            assert_eq!(
                out.status.code(),
                Some(0),
                "{}",
                String::from_utf8_lossy(&out.stdout)
            );
        }
        other => panic!("outcome {other}"),
    }
    for s in a["sentences"].as_array().unwrap() {
        assert!(!s["citations"].as_array().unwrap().is_empty(), "{s}");
    }
    // The same question and model give the same record (greedy decoding).
    let (b, _, _) = ask(&idx, &["--generator", m]);
    assert_eq!(a["answer"], b["answer"]);
    assert_eq!(a["phrasing"]["generated"], b["phrasing"]["generated"]);
    // --no-generator turns it off.
    let out = attest(&idx)
        .args([
            "--generator",
            m,
            "ask",
            "How long must client records be retained?",
        ])
        .args(["--json", "--no-memory", "--no-generator"])
        .output()
        .unwrap();
    assert_eq!(json(&out.stdout)["metrics"]["generator_calls"], 0);
}

/// A GGUF file with only metadata: `general.architecture` = `arch`.
fn gguf_header(arch: &str) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend(b"GGUF");
    b.extend(3u32.to_le_bytes());
    b.extend(0u64.to_le_bytes()); // tensors
    b.extend(1u64.to_le_bytes()); // metadata entries
    let key = b"general.architecture";
    b.extend((key.len() as u64).to_le_bytes());
    b.extend(key);
    b.extend(8u32.to_le_bytes()); // string
    b.extend((arch.len() as u64).to_le_bytes());
    b.extend(arch.as_bytes());
    b
}

#[test]
fn bad_generator_files_are_clear_errors_and_leave_the_index_alone() {
    let (tmp, idx) = sample_index();
    let mut cases: Vec<(String, Vec<u8>, &str)> = vec![
        (
            "mamba.gguf".into(),
            gguf_header("mamba"),
            "unsupported GGUF architecture \"mamba\"",
        ),
        ("empty.gguf".into(), Vec::new(), "too short"),
        (
            "notes.gguf".into(),
            b"plain text, not a model\n".to_vec(),
            "not a readable GGUF file",
        ),
    ];
    if let Some(model) = gemma() {
        let bytes = std::fs::read(model).unwrap();
        cases.push((
            "cut-header.gguf".into(),
            bytes[..1 << 20].to_vec(),
            "truncated",
        ));
        cases.push((
            "cut-tensors.gguf".into(),
            bytes[..bytes.len() / 2].to_vec(),
            "truncated",
        ));
    }
    for (name, data, reason) in &cases {
        let p = tmp.path().join(name);
        std::fs::write(&p, data).unwrap();
        let (_, code, err) = ask(&idx, &["--generator", p.to_str().unwrap()]);
        assert_eq!(code, 2, "{name}: {err}");
        assert!(
            err.contains(name.as_str()) && err.contains(reason),
            "{name}: {err}"
        );
    }
    let (_, code, err) = ask(
        &idx,
        &[
            "--generator",
            tmp.path().join("absent.gguf").to_str().unwrap(),
        ],
    );
    assert_eq!(code, 2);
    assert!(
        err.contains("absent.gguf") && err.contains("not found"),
        "{err}"
    );
    let out = attest(&idx).args(["status", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let (a, code, _) = ask(&idx, &[]);
    assert_eq!((code, a["status"].as_str()), (0, Some("answered")));
}
