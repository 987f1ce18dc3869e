//! `attest serve` through the real binary on an ephemeral loopback port, over the sample
//! index with the real bi-encoder: every endpoint, the Evidence Gate's 422 body for each
//! violation type, malformed and oversize requests, tokens, Host and Origin checks,
//! metrics, the concurrency limit, an ingest while serving, and a graceful shutdown.

use reqwest::blocking::{Client, Response};
use reqwest::StatusCode;
use serde_json::{json, Value};

use super::cli::{attest, json as cli_json, sample_index, scratch_corpus};
use crate::common::server::{client, Launch, Server};

const QUESTION: &str = "How long must client records be retained?";

fn post(c: &Client, s: &Server, path: &str, body: &Value) -> Response {
    c.post(s.url(path)).json(body).send().unwrap()
}

fn body(r: Response) -> Value {
    let text = r.text().unwrap();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// The value of the metric line starting with `prefix` (0 when absent).
fn metric(text: &str, prefix: &str) -> f64 {
    text.lines()
        .find(|l| l.starts_with(prefix))
        .and_then(|l| l.rsplit(' ').next())
        .map_or(0.0, |v| v.parse().unwrap())
}

#[test]
fn every_quote_an_answer_cites_is_at_its_span_in_the_document_view() {
    let (_tmp, idx) = sample_index();
    let s = Server::start(&idx, &[], &[]);
    let c = client();
    assert_eq!(
        body(c.get(s.url("/healthz")).send().unwrap())["status"],
        "ok"
    );
    let r = post(
        &c,
        &s,
        "/v1/ask",
        &json!({"question": QUESTION, "no_memory": true}),
    );
    assert_eq!(r.status(), 200);
    assert!(r.headers().contains_key("x-attest-corpus-version"));
    let answer = body(r);
    assert_eq!(answer["status"], "answered", "{answer}");
    // The server gives the CLI's answer.
    let out = attest(&idx)
        .args(["ask", QUESTION, "--json", "--no-memory"])
        .output()
        .unwrap();
    let cli = cli_json(&out.stdout);
    assert_eq!(answer["answer"], cli["answer"]);
    for e in answer["evidence"].as_array().unwrap() {
        let url = format!(
            "/v1/documents/{}?start={}&end={}",
            e["doc_id"].as_str().unwrap(),
            e["start"],
            e["end"]
        );
        let v = body(c.get(s.url(&url)).send().unwrap());
        assert_eq!(v["quote"], e["quote"], "{v}");
        let excerpt: Vec<u16> = v["excerpt"].as_str().unwrap().encode_utf16().collect();
        let (a, b) = (
            v["utf16_start"].as_u64().unwrap() as usize,
            v["utf16_end"].as_u64().unwrap() as usize,
        );
        let marked = String::from_utf16(&excerpt[a..b]).unwrap();
        assert_eq!(marked, e["quote"].as_str().unwrap());
        assert_eq!(v["section"], e["section"]);
        let key = e["evidence_key"].as_str().unwrap();
        let check = body(c.get(s.url(&format!("/v1/evidence/{key}"))).send().unwrap());
        assert_eq!(check["status"], "holds", "{check}");
    }
    let missing = c
        .get(s.url("/v1/evidence/0123456789abcdef"))
        .send()
        .unwrap();
    assert_eq!(missing.status(), 404);
    let hits = body(post(
        &c,
        &s,
        "/v1/search",
        &json!({"query": "record retention", "k": 3}),
    ));
    assert_eq!(hits["hits"].as_array().unwrap().len(), 3, "{hits}");
    let status = body(c.get(s.url("/v1/status")).send().unwrap());
    assert!(status["documents"].as_u64().unwrap() > 10, "{status}");
}

#[test]
fn document_views_refuse_bad_spans_and_unknown_ids_without_touching_files() {
    let (_tmp, idx) = sample_index();
    let s = Server::start(&idx, &[], &[]);
    let c = client();
    for path in [
        "/v1/documents/..%2F..%2F..%2Fetc%2Fpasswd",
        "/v1/documents/%2Fetc%2Fpasswd?start=0&end=10",
        "/v1/documents/nope",
    ] {
        let r = c.get(s.url(path)).send().unwrap();
        assert_eq!(r.status(), 404, "{path}");
        assert!(!r.text().unwrap().contains("root:"), "{path}");
    }
    let answer = body(post(&c, &s, "/v1/ask", &json!({"question": QUESTION})));
    let doc = answer["evidence"][0]["doc_id"]
        .as_str()
        .unwrap()
        .to_string();
    for q in [
        "start=5&end=2",
        "start=0&end=99999999",
        "start=x",
        "start=1&bogus=2",
    ] {
        let r = c
            .get(s.url(&format!("/v1/documents/{doc}?{q}")))
            .send()
            .unwrap();
        assert_eq!(r.status(), 400, "{q}");
        assert_eq!(r.headers()["content-type"], "application/problem+json");
    }
    // A scope naming a file outside the index is refused; no path is read.
    let r = post(
        &c,
        &s,
        "/v1/ask",
        &json!({"question": QUESTION, "scope": ["/etc"]}),
    );
    assert_eq!(r.status(), 400);
    assert!(body(r)["detail"]
        .as_str()
        .unwrap()
        .contains("no indexed document"));
}

/// A text that breaks exactly the rule `kind`, with its evidence.
fn violating(kind: &str) -> Value {
    let quote = "Client records must be retained for seven years after the last date of service.";
    let ev = json!([{"id": "E1", "quote": quote}]);
    let text = match kind {
        "CITATION_MISSING" => format!("{quote} [E1]\n\nThe agency keeps every file in a locked cabinet at the main office for staff."),
        "UNKNOWN_CITATION" => format!("{quote} [E7]"),
        "CITATION_DENSITY_LOW" => return json!({"text": format!("{} [E1].", quote.trim_end_matches('.')), "evidence": ev, "thresholds": {"min_density": 50.0}}),
        "UNCITED_SENTENCE" => format!("{quote} [E1] The agency also keeps every file in a locked cabinet."),
        "UNSUPPORTED_SENTENCE" => "Housing vouchers are paid directly to landlords by the county housing office [E1].".to_string(),
        other => panic!("{other}"),
    };
    json!({"text": text, "evidence": ev})
}

#[test]
fn the_gate_rejects_each_violation_type_with_a_422_problem_body() {
    let (_tmp, idx) = sample_index();
    let s = Server::start(&idx, &[], &[]);
    let c = client();
    let kinds = [
        "CITATION_MISSING",
        "UNKNOWN_CITATION",
        "CITATION_DENSITY_LOW",
        "UNCITED_SENTENCE",
        "UNSUPPORTED_SENTENCE",
    ];
    for kind in kinds {
        let r = post(&c, &s, "/v1/validate", &violating(kind));
        assert_eq!(r.status(), 422, "{kind}");
        assert_eq!(r.headers()["content-type"], "application/problem+json");
        let b = body(r);
        assert_eq!(b["error"], "EvidenceGateViolation");
        assert_eq!(b["type"], "urn:attest:problem:evidence-gate-violation");
        let n = b["violations"].as_array().unwrap().len();
        assert_eq!(
            b["message"],
            format!("Report rejected: {n} citation violations")
        );
        let v = b["violations"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["type"] == kind);
        let v = v.unwrap_or_else(|| panic!("{kind} missing: {b}"));
        assert_eq!(v["severity"], "high");
        assert!(
            v["requiredCount"].as_u64().unwrap() > v["citationCount"].as_u64().unwrap()
                || kind == "UNKNOWN_CITATION"
                || kind == "UNSUPPORTED_SENTENCE",
            "{v}"
        );
        assert!(b["citationStats"]["wordCount"].as_u64().unwrap() > 0);
        assert!(!b["suggestedActions"].as_array().unwrap().is_empty());
    }
    let quote = "Client records must be retained for seven years after the last date of service.";
    let ok = post(
        &c,
        &s,
        "/v1/validate",
        &json!({"text": format!("{} [E1].", quote.trim_end_matches('.')), "evidence": [{"id": "E1", "quote": quote}]}),
    );
    assert_eq!(ok.status(), 200);
    assert_eq!(body(ok)["passed"], true);
    let m = c.get(s.url("/metrics")).send().unwrap().text().unwrap();
    assert_eq!(
        metric(&m, "evidence_gate_checks_total{result=\"failed\"}"),
        5.0,
        "{m}"
    );
    assert_eq!(
        metric(&m, "evidence_gate_checks_total{result=\"passed\"}"),
        1.0,
        "{m}"
    );
    assert!(
        metric(
            &m,
            "evidence_gate_violations_total{type=\"UNKNOWN_CITATION\"}"
        ) >= 1.0,
        "{m}"
    );
    assert!(
        metric(&m, "evidence_gate_validation_duration_seconds_count") >= 6.0,
        "{m}"
    );
}

#[test]
fn malformed_oversize_and_unknown_requests_are_problems_not_gate_rejections() {
    let (_tmp, idx) = sample_index();
    let s = Server::start(&idx, &[], &[("ATTEST_SERVE_MAX_TEXT_BYTES", "2000")]);
    let c = client();
    let raw = |path: &str, ct: &str, b: String| {
        c.post(s.url(path))
            .header("content-type", ct)
            .body(b)
            .send()
            .unwrap()
    };
    let cases = [
        (
            raw("/v1/validate", "application/json", "{\"text\": ".into()),
            400,
            "malformed-request",
        ),
        (
            raw(
                "/v1/validate",
                "application/json",
                "{\"text\": \"x\", \"evidence\": [], \"bogus\": 1}".into(),
            ),
            400,
            "malformed-request",
        ),
        (
            raw("/v1/ask", "application/json", "{\"question\": 7}".into()),
            400,
            "malformed-request",
        ),
        (
            raw("/v1/ask", "text/plain", "{\"question\": \"q\"}".into()),
            415,
            "not-json",
        ),
        (
            raw(
                "/v1/ask",
                "application/json",
                format!("{{\"question\": \"{}\"}}", "word ".repeat(1000)),
            ),
            413,
            "too-large",
        ),
        (
            raw(
                "/v1/validate",
                "application/json",
                json!({"text": "a ".repeat(1500), "evidence": [{"id": "E1"}]}).to_string(),
            ),
            413,
            "too-large",
        ),
        (
            raw(
                "/v1/validate",
                "application/json",
                json!({"text": "x [cite:abc]", "evidence_ids": ["abc"]}).to_string(),
            ),
            400,
            "bad-request",
        ),
        (
            raw(
                "/v1/ask",
                "application/json",
                json!({"question": "q", "preset": "nope"}).to_string(),
            ),
            400,
            "bad-request",
        ),
        (
            c.get(s.url("/v2/nothing")).send().unwrap(),
            404,
            "not-found",
        ),
    ];
    for (i, (r, status, kind)) in cases.into_iter().enumerate() {
        assert_eq!(r.status().as_u16(), status, "case {i}");
        let b = body(r);
        assert_eq!(
            b["type"],
            format!("urn:attest:problem:{kind}"),
            "case {i}: {b}"
        );
        assert_eq!(b["status"], status, "case {i}");
    }
    let m = c.get(s.url("/metrics")).send().unwrap().text().unwrap();
    assert!(
        metric(
            &m,
            "http_requests_total{route=\"/v1/validate\",code=\"400\"}"
        ) >= 2.0,
        "{m}"
    );
}

#[test]
fn served_evidence_keys_can_be_cited_until_their_quote_changes() {
    let tmp = tempfile::tempdir().unwrap();
    let docs = scratch_corpus(tmp.path());
    let idx = tmp.path().join("idx");
    attest(&idx).arg("ingest").arg(&docs).assert().success();
    let s = Server::start(&idx, &[], &[]);
    let c = client();
    let answer = body(post(
        &c,
        &s,
        "/v1/ask",
        &json!({"question": QUESTION, "no_memory": true}),
    ));
    // The manual's one-sentence quote (the governing bulletin's leads the answer).
    let e = answer["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["quote"].as_str().unwrap().contains("seven years"))
        .unwrap_or_else(|| panic!("the manual is cited: {answer}"));
    let key = e["evidence_key"].as_str().unwrap();
    let quote = e["quote"].as_str().unwrap();
    let text = format!("{} [cite:{key}].", quote.trim_end_matches('.'));
    let r = post(
        &c,
        &s,
        "/v1/validate",
        &json!({"text": text, "evidence_ids": [key]}),
    );
    assert_eq!(r.status(), 200, "{}", r.text().unwrap());
    // Change the cited figure in place and re-ingest while the server runs: the span
    // now holds other words.
    assert!(quote.contains("seven years"), "{quote}");
    let source = e["source"].as_str().unwrap();
    let file = docs.join(std::path::Path::new(source).file_name().unwrap());
    let old = std::fs::read_to_string(&file).unwrap();
    let changed = old.replace(quote, &quote.replace("seven years", "three years"));
    std::fs::write(&file, changed).unwrap();
    attest(&idx).arg("ingest").arg(&docs).assert().success();
    let check = body(c.get(s.url(&format!("/v1/evidence/{key}"))).send().unwrap());
    assert_eq!(check["status"], "quote_changed", "{check}");
    // A key whose quote no longer holds cannot back a text any more.
    let r = post(
        &c,
        &s,
        "/v1/validate",
        &json!({"text": text, "evidence_ids": [key]}),
    );
    assert_eq!(r.status(), 422);
    let rejected = body(r);
    let v = &rejected["violations"][0];
    assert_eq!(v["type"], "UNVERIFIABLE_CITATION", "{rejected}");
    assert!(
        v["detail"].as_str().unwrap().contains("quote_changed"),
        "{v}"
    );
    // The next answer comes from the new corpus version, with the dense index reloaded.
    let r = post(&c, &s, "/v1/ask", &json!({"question": QUESTION}));
    let version: u64 = r.headers()["x-attest-corpus-version"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    let again = body(r);
    assert!(version > 0);
    let quotes: Vec<&str> = again["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["quote"].as_str().unwrap())
        .collect();
    assert!(
        !quotes.contains(&e["quote"].as_str().unwrap()),
        "stale quote served: {quotes:?}"
    );
}

#[test]
fn a_token_guards_the_api_and_remote_binding_needs_one() {
    let (_tmp, idx) = sample_index();
    // Not loopback without --allow-remote, or without a token (a blank one in the config
    // file is none): refused at start.
    let cfg = idx.parent().unwrap().join("attest.toml");
    std::fs::write(&cfg, "serve_token = \"  \"\n").unwrap();
    let refused = |extra: &[&str], config: bool, needle: &str| {
        let mut cmd = attest(&idx);
        if config {
            cmd.arg("--config").arg(&cfg);
        }
        let out = cmd
            .args(["serve", "--addr", "0.0.0.0:0"])
            .args(extra)
            .env_remove("ATTEST_TOKEN")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(needle),
            "{needle}"
        );
    };
    refused(&[], false, "--allow-remote");
    refused(&["--allow-remote"], false, "token");
    refused(&["--allow-remote"], true, "token");
    let token = "s3cret-token-for-the-test";
    let s = Server::start(&idx, &[], &[("ATTEST_TOKEN", token)]);
    let c = client();
    let ask = json!({"question": QUESTION});
    let none = c.post(s.url("/v1/ask")).json(&ask).send().unwrap();
    assert_eq!(none.status(), 401);
    assert_eq!(none.headers()["www-authenticate"], "Bearer");
    let wrong = c
        .post(s.url("/v1/ask"))
        .bearer_auth("s3cret-token-for-the-tesT")
        .json(&ask)
        .send()
        .unwrap();
    assert_eq!(wrong.status(), 401);
    assert_eq!(c.get(s.url("/metrics")).send().unwrap().status(), 401);
    let right = c
        .post(s.url("/v1/ask"))
        .bearer_auth(token)
        .json(&ask)
        .send()
        .unwrap();
    assert_eq!(right.status(), 200);
    assert_eq!(c.get(s.url("/healthz")).send().unwrap().status(), 200);
    assert_eq!(c.get(s.url("/")).send().unwrap().status(), 200);
}

#[test]
fn host_and_origin_must_name_the_server() {
    let (_tmp, idx) = sample_index();
    let s = Server::start(&idx, &[], &[]);
    let c = client();
    let get = |host: Option<&str>, origin: Option<&str>| {
        let mut r = c.get(s.url("/v1/status"));
        if let Some(h) = host {
            r = r.header("host", h);
        }
        if let Some(o) = origin {
            r = r.header("origin", o);
        }
        r.send().unwrap().status()
    };
    let port = s.port;
    assert_eq!(get(None, None), StatusCode::OK);
    assert_eq!(
        get(Some(&format!("localhost:{port}")), None),
        StatusCode::OK
    );
    assert_eq!(
        get(Some(&format!("attacker.example:{port}")), None),
        StatusCode::FORBIDDEN
    );
    assert_eq!(get(Some("127.0.0.1:1"), None), StatusCode::FORBIDDEN);
    assert_eq!(
        get(None, Some(&format!("http://127.0.0.1:{port}"))),
        StatusCode::OK
    );
    assert_eq!(
        get(None, Some("http://attacker.example")),
        StatusCode::FORBIDDEN
    );
    // CORS stays closed: no allow-origin header for a foreign preflight.
    let pre = c
        .request(reqwest::Method::OPTIONS, s.url("/v1/ask"))
        .header("origin", "http://attacker.example")
        .send()
        .unwrap();
    assert!(!pre.headers().contains_key("access-control-allow-origin"));
}

#[test]
fn openapi_lists_every_endpoint_and_the_viewer_is_self_contained() {
    let (_tmp, idx) = sample_index();
    let s = Server::start(&idx, &[], &[]);
    let c = client();
    let doc = body(c.get(s.url("/openapi.json")).send().unwrap());
    assert!(doc["openapi"].as_str().unwrap().starts_with("3."), "{doc}");
    let paths = doc["paths"].as_object().unwrap();
    for p in [
        "/v1/ask",
        "/v1/ask/batch",
        "/v1/search",
        "/v1/review",
        "/v1/validate",
        "/v1/sources",
        "/v1/requirements",
        "/v1/status",
        "/v1/documents/{doc_id}",
        "/v1/evidence/{evidence_key}",
        "/healthz",
        "/metrics",
        "/openapi.json",
    ] {
        assert!(paths.contains_key(p), "{p} missing");
    }
    let ask = &doc["components"]["schemas"]["AskRequest"];
    assert_eq!(ask["required"], json!(["question"]), "{ask}");
    let v422 = &paths["/v1/validate"]["post"]["responses"]["422"];
    assert!(v422.to_string().contains("GateRejection"), "{v422}");
    let page = c.get(s.url("/")).send().unwrap();
    let csp = page.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(csp.contains("default-src 'self'"), "{csp}");
    let html = page.text().unwrap();
    let js = c
        .get(s.url("/viewer/app.js"))
        .send()
        .unwrap()
        .text()
        .unwrap();
    for text in [&html, &js] {
        assert!(
            !text.contains("https://") && !text.contains("http://"),
            "external URL in the viewer"
        );
    }
    assert!(!html.contains("<script>"), "inline script");
}

#[test]
fn requests_beyond_the_limit_get_429_and_sigterm_stops_the_server_cleanly() {
    let (_tmp, idx) = sample_index();
    let env = [("ATTEST_SERVE_CONCURRENCY", "1")];
    let s = Server::start(&idx, &["--workers", "1"], &env);
    let checklist: Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/corpus/review/checklist.json"
        ))
        .unwrap(),
    )
    .unwrap();
    let url = s.url("/v1/review");
    let slow = std::thread::spawn(move || {
        client()
            .post(url)
            .json(&json!({"checklist": checklist}))
            .send()
            .unwrap()
            .status()
    });
    // The review holds the one place for seconds; let it take it first.
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let c = client();
    let mut refused = None;
    for _ in 0..200 {
        let r = post(&c, &s, "/v1/search", &json!({"query": "records"}));
        if r.status() == 429 {
            refused = Some(r);
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let r = refused.expect("a request beyond the limit of 1 got 429");
    assert_eq!(r.headers()["retry-after"], "1");
    assert_eq!(slow.join().unwrap(), 200);
    let status = s.stop();
    assert!(status.success(), "exit after SIGTERM: {status:?}");
}

/// A raw HTTP/1.1 exchange: `request` is sent as is (a write the server cut short is
/// fine: it may answer before reading everything); the status code of the reply.
fn raw_status(s: &Server, request: &str) -> u16 {
    use std::io::{Read, Write};
    let mut sock = std::net::TcpStream::connect(("127.0.0.1", s.port)).unwrap();
    let _ = sock.write_all(request.as_bytes());
    let mut buf = [0u8; 64];
    let n = sock.read(&mut buf).unwrap();
    let head = String::from_utf8_lossy(&buf[..n]).to_string();
    head.split(' ').nth(1).unwrap().parse().unwrap()
}

#[test]
fn adversarial_requests_found_by_the_attack_pass_stay_fixed() {
    let (_tmp, idx) = sample_index();
    let token = "t0ken-for-the-attack-test";
    let env = [
        ("ATTEST_SERVE_CONCURRENCY", "1"),
        ("ATTEST_TOKEN", token),
        ("ATTEST_SERVE_TIMEOUT_SECS", "3"),
    ];
    let s = Server::start(&idx, &["--workers", "1"], &env);
    let c = client();
    let auth =
        |r: reqwest::blocking::RequestBuilder| r.header("authorization", format!("bearer {token}"));
    let quote = "Client records must be retained for seven years after the last date of service.";
    let ev = json!([{"id": "E1", "quote": quote}]);
    let gate = |text: &str| {
        auth(c.post(s.url("/v1/validate")))
            .json(&json!({"text": text, "evidence": ev}))
            .send()
            .unwrap()
            .status()
            .as_u16()
    };
    // Claims hidden in short paragraphs are uncited; a citation after
    // the full stop is a citation.
    assert_eq!(
        gate("Records may be destroyed after one year by anyone."),
        422
    );
    assert_eq!(gate(&format!("{quote} [E1]")), 200);
    // A slow body does not hold the one place: others are served meanwhile.
    use std::io::Write;
    let mut slow = std::net::TcpStream::connect(("127.0.0.1", s.port)).unwrap();
    let head = format!("POST /v1/search HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"query\":", s.port);
    slow.write_all(head.as_bytes()).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    let r = auth(c.post(s.url("/v1/search")))
        .json(&json!({"query": "records"}))
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    // A declared length over the limit is refused before the body is read.
    let big = format!("POST /v1/ask HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: 999999999\r\n\r\n", s.port);
    assert_eq!(raw_status(&s, &big), 413);
    // A chunked body over the limit (no length declared) is cut off at the limit.
    let chunk = "a".repeat(2 << 20);
    let chunked = format!("POST /v1/ask HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n{chunk}\r\n0\r\n\r\n", s.port, chunk.len());
    assert_eq!(raw_status(&s, &chunked), 413);
    let two_hosts = format!(
        "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{0}\r\nHost: attacker.example:{0}\r\n\r\n",
        s.port
    );
    assert_eq!(raw_status(&s, &two_hosts), 400);
    let wrong_method = auth(c.get(s.url("/v1/ask"))).send().unwrap();
    assert_eq!(wrong_method.status(), 405);
    assert_eq!(
        body(wrong_method)["type"],
        "urn:attest:problem:method-not-allowed"
    );
    // SIGTERM with the slow request still open: the server exits within its grace time.
    let t = std::time::Instant::now();
    let status = s.stop();
    assert!(status.success(), "{status:?}");
    assert!(
        t.elapsed() < std::time::Duration::from_secs(8),
        "{:?}",
        t.elapsed()
    );
    drop(slow);
}

#[test]
fn scopes_the_cli_accepts_are_accepted_by_the_server() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().canonicalize().unwrap();
    for (sub, files) in [("c1", 4..6), ("c2", 0..4)] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
        for f in &super::cli::sample_files()[files] {
            std::fs::copy(f, dir.join(sub).join(f.file_name().unwrap())).unwrap();
        }
    }
    let idx = dir.join("idx");
    attest(&idx)
        .current_dir(&dir)
        .args(["ingest", "c1", "c2"])
        .assert()
        .success();
    let how = Launch {
        cwd: Some(&dir),
        ..Launch::default()
    };
    let s = Server::launch(&idx, &[], &[], &how);
    let c = client();
    let absolute = dir.join("c1").to_str().unwrap().to_string();
    for scope in ["./c1", "c1/", "./c2/../c1", absolute.as_str(), "/"] {
        let ask = json!({"question": QUESTION, "scope": [scope], "no_memory": true});
        let r = post(&c, &s, "/v1/ask", &ask);
        assert_eq!(r.status(), 200, "{scope}");
        let served = body(r);
        let out = attest(&idx)
            .current_dir(&dir)
            .args(["ask", QUESTION, "--json", "--no-memory", "--scope", scope])
            .output()
            .unwrap();
        let cli = cli_json(&out.stdout);
        assert_eq!(served["answer"], cli["answer"], "{scope}");
        assert_eq!(served["status"], "answered", "{scope}: {served}");
        if scope != "/" {
            for e in served["evidence"].as_array().unwrap() {
                assert!(e["source"].as_str().unwrap().starts_with("c1/"), "{e}");
            }
        }
    }
    let r = post(
        &c,
        &s,
        "/v1/ask",
        &json!({"question": QUESTION, "scope": ["./c3"]}),
    );
    assert_eq!(r.status(), 400);
}

/// Read from `sock` until the server closes it (or `limit` passes: then `None`).
fn read_until_closed(sock: &mut std::net::TcpStream, limit: std::time::Duration) -> Option<String> {
    use std::io::Read;
    sock.set_read_timeout(Some(limit)).unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match sock.read(&mut buf) {
            Ok(0) => return Some(String::from_utf8_lossy(&got).into_owned()),
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {
                return Some(String::from_utf8_lossy(&got).into_owned())
            }
            Err(_) => return None,
        }
    }
}

#[test]
fn slow_idle_and_surplus_connections_are_closed_before_any_request_is_read() {
    use std::io::Write;
    use std::net::TcpStream;
    let (_tmp, idx) = sample_index();
    // 160 descriptors: the connection limit is lowered to fit them, so no accept fails.
    let how = Launch {
        open_files: Some(160),
        ..Launch::default()
    };
    let env = [
        ("ATTEST_SERVE_HEADER_TIMEOUT_SECS", "2"),
        ("ATTEST_TOKEN", "a-token-never-sent"),
    ];
    let s = Server::launch(&idx, &[], &env, &how);
    let partial = format!(
        "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nX-Slow: ",
        s.port
    );
    let socks: Vec<TcpStream> = (0..200)
        .map(|_| TcpStream::connect(("127.0.0.1", s.port)).unwrap())
        .collect();
    std::thread::sleep(std::time::Duration::from_millis(500));
    // Beyond the limit a connection is answered 503 and closed at once; the others are
    // held, and get partial headers.
    let t = std::time::Instant::now();
    let mut slow = Vec::new();
    let mut refused = 0;
    for mut sock in socks {
        sock.set_nonblocking(true).unwrap();
        let mut first = [0u8; 1];
        match sock.peek(&mut first) {
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                sock.set_nonblocking(false).unwrap();
                sock.write_all(partial.as_bytes()).unwrap();
                slow.push(sock);
            }
            _ => {
                sock.set_nonblocking(false).unwrap();
                let got = read_until_closed(&mut sock, std::time::Duration::from_secs(5)).unwrap();
                assert!(got.starts_with("HTTP/1.1 503"), "{got}");
                assert!(got.contains("too-many-connections"), "{got}");
                refused += 1;
            }
        }
    }
    assert!(refused > 0 && !slow.is_empty(), "{refused} refused");
    // The header timeout closes the held ones.
    for sock in &mut slow {
        read_until_closed(sock, std::time::Duration::from_secs(10))
            .expect("the server closed every slow connection");
    }
    assert!(
        t.elapsed() < std::time::Duration::from_secs(8),
        "{:?}",
        t.elapsed()
    );
    drop(slow);
    let c = client();
    assert_eq!(c.get(s.url("/healthz")).send().unwrap().status(), 200);
    // A kept-alive connection that sends nothing more is closed after the same time.
    let mut idle = TcpStream::connect(("127.0.0.1", s.port)).unwrap();
    let request = format!(
        "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\r\n",
        s.port
    );
    idle.write_all(request.as_bytes()).unwrap();
    let got = read_until_closed(&mut idle, std::time::Duration::from_secs(10))
        .expect("the idle connection was closed");
    assert!(got.starts_with("HTTP/1.1 200"), "{got}");
    assert_eq!(got.matches("HTTP/1.1").count(), 1, "{got}");
}

/// A checklist of `n` requirements with `fields` declared fields each.
fn checklist(n: usize, fields: usize) -> Value {
    let reqs: Vec<Value> = (0..n)
        .map(|i| {
            let fields: Vec<Value> = (0..fields)
                .map(|f| json!({"name": format!("retention_period_{f}"), "type": "duration"}))
                .collect();
            json!({"requirement_id": format!("R-{i}"), "category": "Records",
                   "validation_type": "structured_field", "requirement_text": format!("Requirement {i}: client records are retained for a stated period."),
                   "fields": fields})
        })
        .collect();
    json!({ "requirements": reqs })
}

#[test]
fn reviews_are_bounded_cancelled_at_their_time_limit_and_never_hold_up_questions() {
    let (_tmp, idx) = sample_index();
    let s = Server::start(
        &idx,
        &["--workers", "1"],
        &[("ATTEST_SERVE_TIMEOUT_SECS", "4")],
    );
    let c = client();
    // Over the budget: refused before any work, naming the limit.
    let r = post(
        &c,
        &s,
        "/v1/review",
        &json!({"checklist": checklist(60, 32)}),
    );
    assert_eq!(r.status(), 413);
    let detail = body(r)["detail"].as_str().unwrap().to_string();
    assert!(detail.contains("serve_max_review_queries"), "{detail}");
    assert!(detail.contains("1980 research queries"), "{detail}");
    // Minutes of work within the budget, on the review worker.
    let url = s.url("/v1/review");
    let review = std::thread::spawn(move || {
        client()
            .post(url)
            .json(&json!({"checklist": checklist(300, 2)}))
            .send()
            .unwrap()
            .status()
    });
    std::thread::sleep(std::time::Duration::from_millis(1000));
    // A question is answered while the review runs (on the one question worker).
    let r = post(
        &c,
        &s,
        "/v1/ask",
        &json!({"question": QUESTION, "no_memory": true}),
    );
    assert_eq!(r.status(), 200);
    assert!(
        !review.is_finished(),
        "the review ended before the question"
    );
    // Past its time limit the review is 503 and cancelled: the review worker is free, so
    // the next review is served within its own time limit.
    assert_eq!(review.join().unwrap(), 503);
    let r = post(&c, &s, "/v1/review", &json!({"checklist": checklist(1, 0)}));
    assert_eq!(r.status(), 200, "{}", r.text().unwrap());
}
