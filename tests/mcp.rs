//! `attest mcp` driven over stdio through the real binary: initialize, list the tools
//! and their schemas, call `ask`, `validate` and `status`, refuse an unknown parameter,
//! list and read document resources, and exit cleanly when the client closes stdin.
//! Standard output must carry protocol messages only.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};

use serde_json::{json, Value};

use super::cli::{attest, sample_index, scratch_corpus};

/// Send `requests` (one JSON-RPC message per line), close stdin, and return every line
/// the server wrote, parsed, with its exit status and stderr.
fn session(requests: &[Value]) -> (Vec<Value>, std::process::ExitStatus, String) {
    let (_tmp, idx) = sample_index();
    let mut child = Command::new(assert_cmd::cargo::cargo_bin!("attest"))
        .arg("--index")
        .arg(&idx)
        .arg("--model-dir")
        .arg(crate::common::model_dir())
        .arg("mcp")
        .env_remove("ATTEST_INDEX")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for r in requests {
        writeln!(stdin, "{r}").unwrap();
    }
    let stdout = child.stdout.take().unwrap();
    let mut lines = Vec::new();
    let expected = requests.iter().filter(|r| r.get("id").is_some()).count();
    for line in BufReader::new(stdout).lines() {
        let line = line.unwrap();
        let v: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout line is not JSON-RPC ({e}): {line}"));
        lines.push(v);
        if lines.len() == expected {
            break;
        }
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    (
        lines,
        out.status,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn call(id: u64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
}

fn reply(lines: &[Value], id: u64) -> &Value {
    lines
        .iter()
        .find(|l| l["id"] == id)
        .unwrap_or_else(|| panic!("no reply to {id}: {lines:?}"))
}

#[test]
fn an_agent_lists_tools_asks_validates_and_reads_documents_over_stdio() {
    let quote = "Client records must be retained for seven years after the last date of service.";
    let requests = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "attest-test", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        call(
            3,
            "ask",
            json!({"question": "How long must client records be retained?"}),
        ),
        call(4, "ask", json!({"question": "q", "bogus": true})),
        call(
            5,
            "validate",
            json!({"text": format!("{} [E1].", quote.trim_end_matches('.')), "evidence": [{"id": "E1", "quote": quote}]}),
        ),
        call(
            6,
            "validate",
            json!({"text": format!("{quote} [E9]"), "evidence": [{"id": "E1", "quote": quote}]}),
        ),
        call(7, "status", json!({})),
        json!({"jsonrpc": "2.0", "id": 8, "method": "resources/list"}),
        call(9, "requirements", json!({"where": ["source_type=statute"]})),
        call(10, "sources", json!({"as_of": "2018-06-01"})),
    ];
    let (lines, status, stderr) = session(&requests);
    assert!(status.success(), "exit {status:?}: {stderr}");
    assert_eq!(reply(&lines, 1)["result"]["serverInfo"]["name"], "attest");
    let tools = reply(&lines, 2)["result"]["tools"]
        .as_array()
        .unwrap()
        .clone();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    for n in [
        "ask",
        "search",
        "validate",
        "review",
        "sources",
        "requirements",
        "status",
    ] {
        assert!(names.contains(&n), "{names:?}");
    }
    let reqs = &reply(&lines, 9)["result"]["structuredContent"];
    let reqs = reqs["requirements"]
        .as_array()
        .unwrap_or_else(|| panic!("{reqs}"));
    assert!(
        !reqs.is_empty()
            && reqs
                .iter()
                .all(|r| r["id"].as_str().unwrap().starts_with("REQ-S"))
    );
    let sources = &reply(&lines, 10)["result"]["structuredContent"]["documents"];
    assert!(
        sources
            .as_array()
            .unwrap()
            .iter()
            .all(|d| !d["source"].as_str().unwrap().contains("19-04")),
        "{sources}"
    );
    let ask = tools.iter().find(|t| t["name"] == "ask").unwrap();
    assert_eq!(ask["inputSchema"]["additionalProperties"], false, "{ask}");
    assert_eq!(ask["inputSchema"]["required"], json!(["question"]));
    let answered = &reply(&lines, 3)["result"];
    assert_eq!(answered["isError"], false, "{answered}");
    assert_eq!(answered["structuredContent"]["status"], "answered");
    let text = answered["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("[E1]"), "{text}");
    let refused = &reply(&lines, 4)["result"];
    assert_eq!(refused["isError"], true, "{refused}");
    assert!(refused["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("bogus"));
    assert_eq!(
        reply(&lines, 5)["result"]["structuredContent"]["passed"],
        true
    );
    let rejected = &reply(&lines, 6)["result"]["structuredContent"];
    assert_eq!(rejected["passed"], false);
    assert_eq!(
        rejected["rejection"]["violations"][0]["type"], "UNKNOWN_CITATION",
        "{rejected}"
    );
    assert!(
        reply(&lines, 7)["result"]["structuredContent"]["documents"]
            .as_u64()
            .unwrap()
            > 10
    );
    let resources = reply(&lines, 8)["result"]["resources"].as_array().unwrap();
    assert!(resources.len() > 10);
    assert!(resources[0]["uri"]
        .as_str()
        .unwrap()
        .starts_with("attest://documents/"));
}

#[test]
fn a_document_resource_is_its_stored_text_and_an_unknown_one_is_not_found() {
    let list = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "resources/list"}),
    ];
    let (lines, _, _) = session(&list);
    let uri = reply(&lines, 2)["result"]["resources"][0]["uri"]
        .as_str()
        .unwrap()
        .to_string();
    let read = [
        list[0].clone(),
        json!({"jsonrpc": "2.0", "id": 2, "method": "resources/read", "params": {"uri": uri}}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": {"uri": "attest://documents/../../etc/passwd"}}),
        json!({"jsonrpc": "2.0", "id": 4, "method": "resources/read", "params": {"uri": "file:///etc/passwd"}}),
    ];
    let (lines, status, stderr) = session(&read);
    assert!(status.success(), "{stderr}");
    let text = reply(&lines, 2)["result"]["contents"][0]["text"]
        .as_str()
        .unwrap();
    assert!(text.len() > 100, "{text}");
    for id in [3, 4] {
        let r = reply(&lines, id);
        assert!(r.get("error").is_some(), "{r}");
        assert!(!r.to_string().contains("root:"));
    }
}

/// A running `attest mcp`, driven one message at a time.
struct Live {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: std::sync::mpsc::Receiver<String>,
}

impl Live {
    /// `attest --index IDX mcp` with environment `env`, initialized.
    fn start(idx: &std::path::Path, env: &[(&str, &str)]) -> Live {
        let mut child = Command::new(assert_cmd::cargo::cargo_bin!("attest"))
            .arg("--index")
            .arg(idx)
            .arg("--model-dir")
            .arg(crate::common::model_dir())
            .arg("mcp")
            .env_remove("ATTEST_INDEX")
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        let mut live = Live {
            child,
            stdin,
            lines,
        };
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}});
        assert!(live.request(&init).get("result").is_some());
        live.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());
        live
    }

    /// Write `line` and its newline.
    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    /// The next line the server writes, parsed (a server that stays silent for a minute
    /// fails the test).
    fn next(&mut self) -> Value {
        let line = self
            .lines
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("a line from the server within a minute");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON-RPC ({e}): {line:?}"))
    }

    /// Send `message` and return the reply with its id.
    fn request(&mut self, message: &Value) -> Value {
        self.send(&message.to_string());
        loop {
            let v = self.next();
            if v["id"] == message["id"] {
                return v;
            }
        }
    }

    /// Close standard input and wait for the exit status.
    fn finish(mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        self.child.wait().unwrap()
    }
}

#[test]
fn malformed_and_over_long_lines_get_a_parse_error_and_the_session_goes_on() {
    let (_tmp, idx) = sample_index();
    let mut m = Live::start(&idx, &[("ATTEST_SERVE_MAX_BODY_BYTES", "4096")]);
    m.send("{not json");
    let e = m.next();
    assert_eq!(e["error"]["code"], -32700, "{e}");
    assert_eq!(e["id"], Value::Null, "{e}");
    let long =
        json!({"jsonrpc": "2.0", "id": 5, "method": "ping", "params": {"pad": "x".repeat(10_000)}});
    m.send(&long.to_string());
    let e = m.next();
    assert_eq!(e["error"]["code"], -32700, "{e}");
    assert!(
        e["error"]["message"].as_str().unwrap().contains("4096"),
        "{e}"
    );
    let e = m.request(&json!({"jsonrpc": "2.0", "id": 6, "nonsense": true}));
    assert_eq!(e["error"]["code"], -32600, "{e}");
    let tools = m.request(&json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list"}));
    assert!(
        tools["result"]["tools"].as_array().unwrap().len() >= 5,
        "{tools}"
    );
    assert!(m.finish().success());
}

#[test]
fn a_served_key_whose_quote_changed_no_longer_validates() {
    let tmp = tempfile::tempdir().unwrap();
    let docs = scratch_corpus(tmp.path());
    let idx = tmp.path().join("idx");
    attest(&idx).arg("ingest").arg(&docs).assert().success();
    let mut m = Live::start(&idx, &[]);
    let question = "How long must client records be retained?";
    let answer = m.request(&call(
        1,
        "ask",
        json!({"question": question, "no_memory": true}),
    ));
    // The manual's one-sentence quote (the governing bulletin's leads the answer).
    let e = answer["result"]["structuredContent"]["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["quote"].as_str().unwrap().contains("seven years"))
        .unwrap_or_else(|| panic!("the manual is cited: {answer}"))
        .clone();
    let key = e["evidence_key"].as_str().unwrap();
    let quote = e["quote"].as_str().unwrap();
    assert!(quote.contains("seven years"), "{quote}");
    let text = format!("{} [cite:{key}].", quote.trim_end_matches('.'));
    let validate = json!({"text": text, "evidence_ids": [key]});
    let ok = m.request(&call(2, "validate", validate.clone()));
    assert_eq!(ok["result"]["structuredContent"]["passed"], true, "{ok}");
    let file = docs.join(
        std::path::Path::new(e["source"].as_str().unwrap())
            .file_name()
            .unwrap(),
    );
    let old = std::fs::read_to_string(&file).unwrap();
    std::fs::write(
        &file,
        old.replace(quote, &quote.replace("seven years", "three years")),
    )
    .unwrap();
    attest(&idx).arg("ingest").arg(&docs).assert().success();
    let bad = m.request(&call(3, "validate", validate));
    let out = &bad["result"]["structuredContent"];
    assert_eq!(out["passed"], false, "{bad}");
    assert_eq!(
        out["rejection"]["violations"][0]["type"], "UNVERIFIABLE_CITATION",
        "{bad}"
    );
    assert!(m.finish().success());
}
