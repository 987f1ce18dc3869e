//! Load benchmark of `attest serve`: a sample index of `corpus/` is built with the
//! release `attest` binary, a server is started on an ephemeral loopback port, and 1, 4
//! and 16 concurrent clients (threads with blocking HTTP clients) send, each for a
//! bounded time, `POST /v1/ask` without the QA memory (cold), `POST /v1/ask` with it
//! (questions repeat, the realistic case) and `POST /v1/validate` with a ~1,600-word
//! report citing [E1]..[E8]. It reports requests, throughput, latency percentiles,
//! errors and 429s per scenario; the server's RSS before the load and after 10,000
//! validations; and the wall time of the CLI (`attest ask --no-memory`: process start
//! and model load) against the server's single-client cold p50. It prints a Markdown
//! table, writes `target/serve-load.json`, and says whether each target holds; it exits
//! non-zero only when the harness itself fails.
//!
//! Run: `cargo bench --bench serve_load` (`ATTEST_LOAD_SECS=5` for a quick run; the
//! default is 30 s per scenario).

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Barrier;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};

/// Questions about the sample corpus, asked in rotation.
const QUESTIONS: [&str; 10] = [
    "How long must client records be retained?",
    "How quickly must a mobile crisis team arrive in Zone B?",
    "Who is eligible for housing assistance?",
    "How can a client file a grievance?",
    "When must claims be submitted for billing?",
    "Can a minor consent to outpatient counseling without a parent?",
    "What is the maximum monthly rental assistance per household?",
    "When does a consent to share information expire?",
    "How soon must the Client Rights Office acknowledge a grievance?",
    "When must staff notify a parent after a youth crisis call?",
];

/// The evidence items E1..E8 of the validated report, sentence by sentence (verbatim
/// from the sample corpus).
const EVIDENCE: [&[&str]; 8] = [
    &[
        "Client records must be retained for seven years after the last date of service.",
        "If the client was under 18 years of age on the last date of service, the record must be kept for seven years or until the client turns 25, whichever is later.",
    ],
    &[
        "The Marlow County Crisis Line operates 24 hours a day, 7 days a week, including holidays.",
        "It is staffed by trained crisis counselors, and a licensed clinician must be on call at all times to consult on high-risk calls.",
        "At least 90 percent of calls each month must be answered by a live person within 30 seconds.",
    ],
    &[
        "Rental assistance may continue for up to 12 months in any 24-month period.",
        "The Director may approve one extension of up to 6 additional months when the client has a pending disability benefit application or a housing voucher that has been approved but not yet issued.",
    ],
    &[
        "A grievance may be filed at any time.",
        "Staff may not require a client to put a grievance in writing, and staff may not discourage a client from filing.",
        "The staff member who receives an oral grievance must write it down and send it to the Client Rights Office by the end of the next business day.",
    ],
    &[
        "The Client Rights Office must send the client a written acknowledgment within 5 business days after receiving the grievance.",
        "The acknowledgment gives the name of the person handling the grievance and the date by which a decision is due.",
    ],
    &[
        "When a claim is denied, the Billing Unit must review the denial within 10 business days.",
        "A corrected claim must be resubmitted within 60 days after the date of the denial notice.",
        "Denials caused by missing documentation must be reported to the clinic supervisor.",
    ],
    &[
        "When the person in crisis is a minor, staff must notify a parent or guardian within 24 hours of the crisis call.",
        "Staff may delay or skip notification only when a licensed clinician documents that notification would place the youth at risk of abuse or other serious harm.",
    ],
    &[
        "A valid consent form must name the person or agency that will receive the information, describe the information to be shared, state the purpose, and carry the client's signature and date.",
        "A consent expires on the date stated in the form, and in no case later than one year after signing.",
    ],
];

/// Sentences of the report that are not verbatim quotes (they go through the support
/// check): (paragraph, evidence index, sentence).
const PARAPHRASES: [(usize, usize, &str); 4] = [
    (
        1,
        1,
        "Trained crisis counselors staff the crisis line 24 hours a day, 7 days a week",
    ),
    (
        5,
        5,
        "The Billing Unit reviews a denied claim within 10 business days",
    ),
    (
        9,
        4,
        "The Client Rights Office sends the client a written acknowledgment within 5 business days",
    ),
    (
        13,
        0,
        "Client records are kept for seven years after the last date of service",
    ),
];

/// Paragraphs of the report.
const PARAGRAPHS: usize = 16;

/// Concurrent clients of each scenario.
const CLIENTS: [usize; 3] = [1, 4, 16];

/// Validations done before the RSS is read again.
const VALIDATE_TOTAL: usize = 10_000;

/// Fewest validations between the two later RSS readings (when the scenarios alone
/// did more than half of [`VALIDATE_TOTAL`]).
const LEAK_CHECK_MIN: usize = 2_000;

/// Most requests of each validation variant (1 client).
const VARIANT_REQUESTS: usize = 2_000;

/// Bounds of the RSS target, in KiB: growth from before the load to after
/// [`VALIDATE_TOTAL`] validations, and growth over the second half of them.
const RSS_GROWTH_MAX_KIB: u64 = 64 * 1024;
const RSS_LEAK_MAX_KIB: u64 = 8 * 1024;

/// Runs of the CLI whose median wall time is compared with the server.
const CLI_RUNS: usize = 5;

/// How long the server may take to load the models and bind.
const START_TIMEOUT: Duration = Duration::from_secs(300);

/// Time limit of one HTTP request.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(300);

/// Most time the RSS phases may take, each.
const RSS_PHASE_LIMIT: Duration = Duration::from_secs(900);

/// What a scenario sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    AskCold,
    AskMemory,
    Validate,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::AskCold => "ask (no_memory)",
            Kind::AskMemory => "ask (memory)",
            Kind::Validate => "validate (1,600 words)",
        }
    }

    fn path(self) -> &'static str {
        match self {
            Kind::AskCold | Kind::AskMemory => "/v1/ask",
            Kind::Validate => "/v1/validate",
        }
    }

    /// The server histogram whose sum and count give the mean time spent inside the
    /// service.
    fn histogram(self) -> &'static str {
        match self {
            Kind::AskCold | Kind::AskMemory => "ask_duration_seconds",
            Kind::Validate => "evidence_gate_validation_duration_seconds",
        }
    }

    /// The request bodies, serialised once.
    fn bodies(self, report: &Value) -> Vec<String> {
        match self {
            Kind::AskCold => QUESTIONS
                .iter()
                .map(|q| json!({"question": q, "no_memory": true}).to_string())
                .collect(),
            Kind::AskMemory => QUESTIONS
                .iter()
                .map(|q| json!({"question": q}).to_string())
                .collect(),
            Kind::Validate => vec![report.to_string()],
        }
    }
}

/// The validation request: a report of [`PARAGRAPHS`] paragraphs of ~100 words, each
/// the sentences of two evidence items with their citations, four with a sentence that
/// is not a verbatim quote (with `paraphrases`); and the evidence with its quotes. Also
/// its word count.
fn validate_request(paraphrases: bool) -> (Value, usize) {
    let cite = |s: &str, id: usize| format!("{} [E{}].", s.trim_end_matches('.'), id + 1);
    let mut paragraphs = Vec::with_capacity(PARAGRAPHS);
    for p in 0..PARAGRAPHS {
        let mut sentences = Vec::new();
        for e in [p % EVIDENCE.len(), (p + 3) % EVIDENCE.len()] {
            sentences.extend(EVIDENCE[e].iter().map(|s| cite(s, e)));
        }
        let extra = PARAPHRASES
            .iter()
            .filter(|(at, _, _)| paraphrases && *at == p);
        for (_, e, s) in extra {
            sentences.push(cite(s, *e));
        }
        paragraphs.push(sentences.join(" "));
    }
    let text = paragraphs.join("\n\n");
    let words = text
        .split_whitespace()
        .filter(|w| !w.starts_with("[E"))
        .count();
    let evidence: Vec<Value> = EVIDENCE
        .iter()
        .enumerate()
        .map(|(i, q)| json!({"id": format!("E{}", i + 1), "quote": q.join(" ")}))
        .collect();
    (json!({"text": text, "evidence": evidence}), words)
}

/// The environment of the run: binary, model, corpus, temp dir and output.
struct Setup {
    bin: PathBuf,
    root: PathBuf,
    model_dir: PathBuf,
    tmp: tempfile::TempDir,
    secs: u64,
}

impl Setup {
    fn new() -> Result<Setup> {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let bin = PathBuf::from(env!("CARGO_BIN_EXE_attest"));
        if !bin.is_file() {
            bail!("the attest binary {} is missing", bin.display());
        }
        let model_dir = root.join("models/all-MiniLM-L6-v2");
        let secs = match std::env::var("ATTEST_LOAD_SECS") {
            Ok(s) => s
                .parse::<u64>()
                .ok()
                .filter(|n| *n > 0)
                .with_context(|| format!("ATTEST_LOAD_SECS={s:?}: a positive number"))?,
            Err(_) => 30,
        };
        let tmp = tempfile::Builder::new().prefix("serve-load").tempdir()?;
        // An empty configuration: a stray ./attest.toml does not change the figures.
        std::fs::write(tmp.path().join("attest.toml"), "")?;
        Ok(Setup {
            bin,
            root,
            model_dir,
            tmp,
            secs,
        })
    }

    fn index(&self) -> PathBuf {
        self.tmp.path().join("idx")
    }

    /// `attest --config EMPTY --index IDX --model-dir M ARGS…`, run in the repository,
    /// without the caller's `ATTEST_*` settings.
    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(&self.bin);
        cmd.current_dir(&self.root)
            .arg("--config")
            .arg(self.tmp.path().join("attest.toml"))
            .arg("--index")
            .arg(self.index())
            .arg("--model-dir")
            .arg(&self.model_dir)
            .args(args)
            .stdin(Stdio::null());
        for (k, _) in std::env::vars_os() {
            if k.to_string_lossy().starts_with("ATTEST_") {
                cmd.env_remove(k);
            }
        }
        cmd
    }

    fn output_path(&self) -> PathBuf {
        std::env::var_os("CARGO_TARGET_DIR")
            .map_or_else(|| self.root.join("target"), PathBuf::from)
            .join("serve-load.json")
    }
}

/// Ingest `corpus/` into the index; the time it took.
fn build_index(setup: &Setup) -> Result<Duration> {
    let t = Instant::now();
    let out = setup
        .command(&["ingest", "corpus"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .context("running attest ingest")?;
    if !out.status.success() {
        bail!(
            "attest ingest failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(t.elapsed())
}

/// The CLI's cold answer: wall times of [`CLI_RUNS`] runs of `attest ask QUESTION
/// --no-memory --json` (process start, model load, answer) and the in-process
/// `metrics.timings_ms.total` of each.
fn cli_runs(setup: &Setup) -> Result<(Vec<f64>, Vec<f64>)> {
    let (mut wall, mut inside) = (Vec::new(), Vec::new());
    for _ in 0..CLI_RUNS {
        let t = Instant::now();
        let out = setup
            .command(&["ask", QUESTIONS[0], "--no-memory", "--json"])
            .stderr(Stdio::null())
            .output()
            .context("running attest ask")?;
        wall.push(t.elapsed().as_secs_f64() * 1e3);
        // Exit 0: answered; 1: no authoritative evidence.
        if !matches!(out.status.code(), Some(0 | 1)) {
            bail!("attest ask failed ({})", out.status);
        }
        let answer: Value = serde_json::from_slice(&out.stdout).context("attest ask --json")?;
        inside.push(
            answer["metrics"]["timings_ms"]["total"]
                .as_f64()
                .unwrap_or(f64::NAN),
        );
    }
    Ok((wall, inside))
}

/// A running `attest serve`, stopped with SIGTERM when dropped.
struct Server {
    child: Child,
    base: String,
    stderr: PathBuf,
}

impl Server {
    /// Start the server on an ephemeral loopback port; also the time until it listened.
    fn start(setup: &Setup) -> Result<(Server, Duration)> {
        let stderr = setup.tmp.path().join("serve.log");
        let t = Instant::now();
        let mut child = setup
            .command(&["serve", "--addr", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&stderr)?)
            .spawn()
            .context("spawning attest serve")?;
        let stdout = child.stdout.take().context("server stdout")?;
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        let mut server = Server {
            child,
            base: String::new(),
            stderr,
        };
        let line = rx.recv_timeout(START_TIMEOUT).unwrap_or_default();
        match line.trim().strip_prefix("attest: listening on ") {
            Some(base) => server.base = base.to_string(),
            None => bail!(
                "attest serve did not start (first line {line:?}): {}",
                server.log_tail()
            ),
        }
        Ok((server, t.elapsed()))
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The last lines the server logged.
    fn log_tail(&self) -> String {
        let log = std::fs::read_to_string(&self.stderr).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        lines[lines.len().saturating_sub(20)..].join("\n")
    }

    /// The server's resident set, in KiB.
    fn rss_kib(&self) -> Result<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid()))?;
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .context("no VmRSS in /proc/PID/status")
    }

    /// Sum and count of a server histogram, from `/metrics`.
    fn histogram(&self, name: &str) -> Result<(f64, f64)> {
        let text = client()?.get(self.url("/metrics")).send()?.text()?;
        let value = |suffix: &str| {
            let key = format!("{name}_{suffix} ");
            text.lines()
                .find_map(|l| l.strip_prefix(&key))
                .and_then(|v| v.trim().parse::<f64>().ok())
                .unwrap_or(0.0)
        };
        Ok((value("sum"), value("count")))
    }

    /// SIGTERM, then the exit status (killed after 10 s).
    fn stop(&mut self) -> Option<std::process::ExitStatus> {
        if let Ok(Some(s)) = self.child.try_wait() {
            return Some(s);
        }
        let pid = rustix::process::Pid::from_raw(self.child.id() as i32)?;
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
        for _ in 0..200 {
            if let Ok(Some(s)) = self.child.try_wait() {
                return Some(s);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        self.child.wait().ok()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

fn client() -> Result<reqwest::blocking::Client> {
    Ok(reqwest::blocking::Client::builder()
        .timeout(REQUEST_TIMEOUT)
        .build()?)
}

/// What one client (or a whole scenario) saw.
#[derive(Default)]
struct Tally {
    /// Latencies of the requests answered as expected, in ms.
    latencies: Vec<f64>,
    errors: usize,
    too_many: usize,
    first_error: Option<String>,
    /// Ask only: sums of each `metrics.timings_ms` entry, memory hits, statuses.
    timings: BTreeMap<String, f64>,
    memory_hits: usize,
    statuses: BTreeMap<String, usize>,
}

impl Tally {
    fn requests(&self) -> usize {
        self.latencies.len() + self.errors + self.too_many
    }

    fn error(&mut self, what: String) {
        self.errors += 1;
        self.first_error.get_or_insert(what);
    }

    /// Count one response (or transport error) that took `ms`.
    fn record(&mut self, kind: Kind, r: reqwest::Result<(u16, Vec<u8>)>, ms: f64) {
        let (code, body) = match r {
            Err(e) => return self.error(format!("transport: {e}")),
            Ok(x) => x,
        };
        // The report is built to pass the gate: 422 would be a wrong rejection.
        let expected = 200;
        if code == 429 {
            self.too_many += 1;
            return;
        }
        if code != expected {
            let text = String::from_utf8_lossy(&body[..body.len().min(600)]).into_owned();
            return self.error(format!("HTTP {code} (expected {expected}): {text}"));
        }
        if kind != Kind::Validate {
            if let Err(e) = self.answer(&body) {
                return self.error(e);
            }
        }
        self.latencies.push(ms);
    }

    /// Check an answer body and add up its timings.
    fn answer(&mut self, body: &[u8]) -> Result<(), String> {
        let a: Value = serde_json::from_slice(body).map_err(|e| format!("answer JSON: {e}"))?;
        let status = a["status"].as_str().unwrap_or("(none)").to_string();
        if !matches!(status.as_str(), "answered" | "no_authoritative_evidence") {
            return Err(format!("answer status {status}"));
        }
        *self.statuses.entry(status).or_default() += 1;
        let m = &a["metrics"];
        if m["memory_hit"].as_bool() == Some(true) {
            self.memory_hits += 1;
        }
        for (k, v) in m["timings_ms"].as_object().into_iter().flatten() {
            *self.timings.entry(k.clone()).or_default() += v.as_f64().unwrap_or(0.0);
        }
        Ok(())
    }

    fn merge(&mut self, o: Tally) {
        self.latencies.extend(o.latencies);
        self.errors += o.errors;
        self.too_many += o.too_many;
        if self.first_error.is_none() {
            self.first_error = o.first_error;
        }
        for (k, v) in o.timings {
            *self.timings.entry(k).or_default() += v;
        }
        self.memory_hits += o.memory_hits;
        for (k, v) in o.statuses {
            *self.statuses.entry(k).or_default() += v;
        }
    }
}

/// When a load stops: at `until`, or once `max` requests were sent.
struct Stop<'a> {
    until: Instant,
    max: Option<usize>,
    sent: &'a AtomicUsize,
}

impl Stop<'_> {
    fn another(&self) -> bool {
        Instant::now() < self.until
            && self
                .max
                .is_none_or(|m| self.sent.fetch_add(1, Ordering::SeqCst) < m)
    }
}

/// One client: send `bodies` in rotation from `offset` until `stop`.
fn client_loop(
    url: &str,
    kind: Kind,
    bodies: &[String],
    offset: usize,
    stop: &Stop,
    start: &Barrier,
) -> Result<Tally> {
    let http = client()?;
    let mut tally = Tally::default();
    start.wait();
    let mut i = offset;
    while stop.another() {
        let body = bodies[i % bodies.len()].clone();
        i += 1;
        let t = Instant::now();
        let r = http
            .post(url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body)
            .send()
            .and_then(|resp| {
                let code = resp.status().as_u16();
                resp.bytes().map(|b| (code, b.to_vec()))
            });
        tally.record(kind, r, t.elapsed().as_secs_f64() * 1e3);
    }
    Ok(tally)
}

/// `clients` clients sending `kind` requests until `limit` passed or `max` were sent;
/// what they saw and the wall time.
fn load(
    server: &Server,
    kind: Kind,
    bodies: &[String],
    clients: usize,
    limit: Duration,
    max: Option<usize>,
) -> Result<(Tally, Duration)> {
    let url = server.url(kind.path());
    let sent = AtomicUsize::new(0);
    let start = Barrier::new(clients);
    let t = Instant::now();
    let stop = Stop {
        until: t + limit,
        max,
        sent: &sent,
    };
    let mut total = Tally::default();
    std::thread::scope(|s| -> Result<()> {
        let (stop, start, url) = (&stop, &start, url.as_str());
        let handles: Vec<_> = (0..clients)
            .map(|c| s.spawn(move || client_loop(url, kind, bodies, c, stop, start)))
            .collect();
        for h in handles {
            total.merge(h.join().expect("a client thread panicked")?);
        }
        Ok(())
    })?;
    Ok((total, t.elapsed()))
}

/// Nearest-rank percentile `p` (0..100) of the sorted `v` (NaN when empty).
fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    percentile(&s, 50.0)
}

/// The figures of one scenario.
struct Row {
    label: String,
    kind: Kind,
    clients: usize,
    requests: usize,
    secs: f64,
    p50: f64,
    p95: f64,
    p99: f64,
    /// Mean time inside the service (from its histogram), in ms.
    server_ms: f64,
    tally: Tally,
}

impl Row {
    fn throughput(&self) -> f64 {
        self.requests as f64 / self.secs
    }

    /// Mean of each `timings_ms` entry over the answers.
    fn mean_timings(&self) -> BTreeMap<String, f64> {
        let n = self.tally.latencies.len().max(1) as f64;
        let t = &self.tally.timings;
        t.iter().map(|(k, v)| (k.clone(), v / n)).collect()
    }

    fn json(&self) -> Value {
        json!({
            "scenario": self.label,
            "endpoint": self.kind.path(),
            "clients": self.clients,
            "requests": self.requests,
            "seconds": self.secs,
            "throughput_rps": self.throughput(),
            "p50_ms": self.p50,
            "p95_ms": self.p95,
            "p99_ms": self.p99,
            "server_mean_ms": self.server_ms,
            "errors": self.tally.errors,
            "http_429": self.tally.too_many,
            "first_error": self.tally.first_error,
            "mean_timings_ms": self.mean_timings(),
            "memory_hits": self.tally.memory_hits,
            "statuses": self.tally.statuses,
        })
    }
}

/// Run `clients` clients of `kind` for `limit` (or `max` requests): its row, with the
/// mean time inside the service read from `/metrics` before and after.
fn scenario(
    server: &Server,
    label: &str,
    (kind, bodies): (Kind, &[String]),
    clients: usize,
    limit: Duration,
    max: Option<usize>,
) -> Result<Row> {
    let (sum0, n0) = server.histogram(kind.histogram())?;
    let (mut tally, wall) = load(server, kind, bodies, clients, limit, max)?;
    let (sum1, n1) = server.histogram(kind.histogram())?;
    tally.latencies.sort_by(f64::total_cmp);
    let l = &tally.latencies;
    let row = Row {
        label: label.to_string(),
        kind,
        clients,
        requests: tally.requests(),
        secs: wall.as_secs_f64(),
        p50: percentile(l, 50.0),
        p95: percentile(l, 95.0),
        p99: percentile(l, 99.0),
        server_ms: if n1 > n0 {
            (sum1 - sum0) / (n1 - n0) * 1e3
        } else {
            f64::NAN
        },
        tally,
    };
    eprintln!(
        "serve_load: {label}, {clients} clients: {} requests, {:.1} req/s, p50 {:.2} ms, p95 {:.2} ms, {} errors, {} 429",
        row.requests,
        row.throughput(),
        row.p50,
        row.p95,
        row.tally.errors,
        row.tally.too_many
    );
    Ok(row)
}

/// One answer per question without the memory (lazy loads done before timing), and a
/// validation that must pass (the report is built to).
fn warm_up(server: &Server, report: &Value) -> Result<()> {
    let http = client()?;
    for q in QUESTIONS {
        let r = http
            .post(server.url("/v1/ask"))
            .json(&json!({"question": q, "no_memory": true}))
            .send()?;
        if r.status().as_u16() != 200 {
            bail!("warm-up ask {q:?}: HTTP {}: {}", r.status(), r.text()?);
        }
    }
    let r = http.post(server.url("/v1/validate")).json(report).send()?;
    let code = r.status().as_u16();
    if code != 200 {
        bail!(
            "the validation report does not pass the gate (HTTP {code}): {}",
            r.text()?
        );
    }
    Ok(())
}

/// The server's resident set along the run, in KiB.
#[derive(Default)]
struct Rss {
    start: u64,
    before_validate: u64,
    /// After `half_validations` validations.
    half: u64,
    half_validations: usize,
    /// After `validations` validations.
    at_total: u64,
    validations: usize,
}

impl Rss {
    fn growth(&self) -> i64 {
        self.at_total as i64 - self.start as i64
    }

    /// Growth over the second half of the validations.
    fn leak_growth(&self) -> i64 {
        self.at_total as i64 - self.half as i64
    }

    fn holds(&self) -> bool {
        self.growth() <= RSS_GROWTH_MAX_KIB as i64 && self.leak_growth() <= RSS_LEAK_MAX_KIB as i64
    }
}

/// Validations done: the warm-up probe and every row of the full report.
fn validations(rows: &[Row]) -> usize {
    1 + rows
        .iter()
        .filter(|r| r.kind == Kind::Validate)
        .map(|r| r.requests)
        .sum::<usize>()
}

/// Validations of the full report (4 clients) until `total` were done; then how many
/// were and the RSS.
fn validate_until(
    server: &Server,
    bodies: &[String],
    rows: &mut Vec<Row>,
    total: usize,
) -> Result<(usize, u64)> {
    let done = validations(rows);
    if done < total {
        let label = format!("validate (RSS phase, to {total})");
        let v = (Kind::Validate, bodies);
        let max = Some(total - done);
        rows.push(scenario(server, &label, v, 4, RSS_PHASE_LIMIT, max)?);
    }
    Ok((validations(rows), server.rss_kib()?))
}

/// Every scenario, then the RSS phases: validations until half of [`VALIDATE_TOTAL`]
/// were done, then until all were.
fn run_scenarios(server: &Server, secs: u64, report: &Value) -> Result<(Vec<Row>, Rss)> {
    let limit = Duration::from_secs(secs);
    let mut rss = Rss {
        start: server.rss_kib()?,
        ..Rss::default()
    };
    warm_up(server, report)?;
    let mut rows = Vec::new();
    for kind in [Kind::AskCold, Kind::AskMemory, Kind::Validate] {
        if kind == Kind::Validate {
            rss.before_validate = server.rss_kib()?;
        }
        let bodies = kind.bodies(report);
        for clients in CLIENTS {
            let v = (kind, bodies.as_slice());
            rows.push(scenario(server, kind.name(), v, clients, limit, None)?);
        }
    }
    let bodies = Kind::Validate.bodies(report);
    let half = validations(&rows).max(VALIDATE_TOTAL / 2);
    (rss.half_validations, rss.half) = validate_until(server, &bodies, &mut rows, half)?;
    let total = VALIDATE_TOTAL.max(half + LEAK_CHECK_MIN);
    (rss.validations, rss.at_total) = validate_until(server, &bodies, &mut rows, total)?;
    Ok((rows, rss))
}

/// What dominates a validation: the report without the sentences that are not
/// verbatim quotes, and the full report without the support check (1 client each).
fn validate_variants(server: &Server, secs: u64) -> Result<Vec<Row>> {
    let (verbatim, _) = validate_request(false);
    let (mut unchecked, _) = validate_request(true);
    unchecked["support"] = json!(false);
    let limit = Duration::from_secs(secs.min(10));
    let mut rows = Vec::new();
    for (label, body) in [
        ("validate (verbatim sentences only)", verbatim),
        ("validate (support: false)", unchecked),
    ] {
        let bodies = [body.to_string()];
        let v = (Kind::Validate, bodies.as_slice());
        rows.push(scenario(
            server,
            label,
            v,
            1,
            limit,
            Some(VARIANT_REQUESTS),
        )?);
    }
    Ok(rows)
}

/// Wall times of [`CLI_RUNS`] single-client `no_memory` asks of the CLI's question.
fn server_same_question(server: &Server) -> Result<Vec<f64>> {
    let http = client()?;
    let body = json!({"question": QUESTIONS[0], "no_memory": true});
    let mut out = Vec::new();
    for _ in 0..CLI_RUNS {
        let t = Instant::now();
        let r = http.post(server.url("/v1/ask")).json(&body).send()?;
        let code = r.status().as_u16();
        r.bytes()?;
        if code != 200 {
            bail!("ask {:?}: HTTP {code}", QUESTIONS[0]);
        }
        out.push(t.elapsed().as_secs_f64() * 1e3);
    }
    Ok(out)
}

/// The first three fields of /proc/loadavg (the machine is shared).
fn loadavg() -> String {
    let s = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    s.split_whitespace().take(3).collect::<Vec<_>>().join(" ")
}

/// Everything measured.
struct Results {
    secs: u64,
    words: usize,
    ingest: Duration,
    server_start: Duration,
    cli_wall: Vec<f64>,
    cli_inside: Vec<f64>,
    /// The server's wall times for the CLI's question (single client, no memory).
    same_question: Vec<f64>,
    rows: Vec<Row>,
    rss: Rss,
    exit: String,
    /// Load average at the start and at the end.
    load: (String, String),
}

impl Results {
    fn row(&self, kind: Kind, clients: usize) -> Option<&Row> {
        self.rows
            .iter()
            .find(|r| r.kind == kind && r.clients == clients && r.label == kind.name())
    }

    fn cli_ratio(&self) -> f64 {
        let p50 = self.row(Kind::AskCold, 1).map_or(f64::NAN, |r| r.p50);
        median(&self.cli_wall) / p50
    }

    fn p95_ratio(&self, kind: Kind) -> f64 {
        let p = |c| self.row(kind, c).map_or(f64::NAN, |r| r.p95);
        p(4) / p(1)
    }
}

/// One target: its name, whether it holds, and the figures behind it.
struct Target {
    name: &'static str,
    holds: bool,
    detail: String,
}

fn targets(r: &Results) -> Vec<Target> {
    let v = |c| r.row(Kind::Validate, c).map_or(f64::NAN, |x| x.p95);
    let validate_p95 = v(1);
    let errors: usize = r.rows.iter().map(|x| x.tally.errors).sum();
    let too_many: usize = r.rows.iter().map(|x| x.tally.too_many).sum();
    let (cold, memory, cli) = (
        r.p95_ratio(Kind::AskCold),
        r.p95_ratio(Kind::AskMemory),
        r.cli_ratio(),
    );
    let mib = |k: i64| k as f64 / 1024.0;
    vec![
        Target {
            name: "validate p95 < 10 ms (1,600-word report, 1 client)",
            holds: validate_p95 < 10.0,
            detail: format!(
                "p95 {validate_p95:.2} ms ({:+.2} ms against 10 ms); 4 clients {:.2} ms, 16 clients {:.2} ms",
                validate_p95 - 10.0,
                v(4),
                v(16)
            ),
        },
        Target {
            name: "ask p95 with 4 clients <= 2x single-client p95 (no_memory)",
            holds: cold <= 2.0,
            detail: format!("{cold:.2}x (with memory: {memory:.2}x)"),
        },
        Target {
            name: "server ask p50 >= 5x faster than the CLI (no_memory)",
            holds: cli >= 5.0,
            detail: format!(
                "CLI median {:.0} ms / server p50 {:.1} ms = {cli:.1}x",
                median(&r.cli_wall),
                r.row(Kind::AskCold, 1).map_or(f64::NAN, |x| x.p50)
            ),
        },
        Target {
            name: "errors 0 (and no 429)",
            holds: errors == 0 && too_many == 0,
            detail: format!("{errors} errors, {too_many} responses 429"),
        },
        Target {
            name: "RSS growth bounded",
            holds: r.rss.holds(),
            detail: format!(
                "{:+.1} MiB from before the load to {} validations (max {} MiB); {:+.1} MiB from {} to {} validations (max {} MiB)",
                mib(r.rss.growth()),
                r.rss.validations,
                RSS_GROWTH_MAX_KIB / 1024,
                mib(r.rss.leak_growth()),
                r.rss.half_validations,
                r.rss.validations,
                RSS_LEAK_MAX_KIB / 1024
            ),
        },
    ]
}

/// The scenario table and the ask timing breakdown, in Markdown.
fn tables(r: &Results) -> String {
    let mut s = String::from(
        "| scenario | clients | requests | req/s | p50 ms | p95 ms | p99 ms | service mean ms | errors | 429 |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for x in &r.rows {
        s += &format!(
            "| {} | {} | {} | {:.1} | {:.2} | {:.2} | {:.2} | {:.2} | {} | {} |\n",
            x.label,
            x.clients,
            x.requests,
            x.throughput(),
            x.p50,
            x.p95,
            x.p99,
            x.server_ms,
            x.tally.errors,
            x.tally.too_many
        );
    }
    s += "\nAsk: mean `metrics.timings_ms` per answer (inside the engine), memory hits\n\n";
    s += "| scenario | clients | total | retrieve | verify | extract | compose | gate | memory hits | statuses |\n\
          |---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";
    for x in r.rows.iter().filter(|x| x.kind != Kind::Validate) {
        let t = x.mean_timings();
        let g = |k: &str| t.get(k).map_or("-".to_string(), |v| format!("{v:.2}"));
        s += &format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {:.0}% | {:?} |\n",
            x.label,
            x.clients,
            g("total"),
            g("retrieve"),
            g("verify"),
            g("extract"),
            g("compose"),
            g("gate"),
            100.0 * x.tally.memory_hits as f64 / x.tally.latencies.len().max(1) as f64,
            x.tally.statuses
        );
    }
    s
}

/// The whole report, in Markdown.
fn markdown(r: &Results, targets: &[Target]) -> String {
    let mib = |k: u64| k as f64 / 1024.0;
    let mut s = format!(
        "## attest serve load ({} s per scenario)\n\n{}\n",
        r.secs,
        tables(r)
    );
    s += &format!(
        "\nIngest of corpus/: {:.1} s; server start (model load to listening): {:.2} s; validated report: {} words, 16 paragraphs, [E1]..[E8]\n",
        r.ingest.as_secs_f64(),
        r.server_start.as_secs_f64(),
        r.words
    );
    s += &format!(
        "\nRSS (VmRSS): {:.1} MiB before the load, {:.1} MiB before validate, {:.1} MiB after {} validations, {:.1} MiB after {}\n",
        mib(r.rss.start),
        mib(r.rss.before_validate),
        mib(r.rss.half),
        r.rss.half_validations,
        mib(r.rss.at_total),
        r.rss.validations
    );
    s += &format!(
        "\nCLI `attest ask {:?} --no-memory` ({CLI_RUNS} runs): median wall {:.0} ms (runs {:?}), in-process total {:.0} ms; server single-client no_memory p50 {:.1} ms (all questions), {:.1} ms median for the same question; ratio {:.1}x ({:.1}x for the same question)\n",
        QUESTIONS[0],
        median(&r.cli_wall),
        r.cli_wall.iter().map(|x| x.round()).collect::<Vec<_>>(),
        median(&r.cli_inside),
        r.row(Kind::AskCold, 1).map_or(f64::NAN, |x| x.p50),
        median(&r.same_question),
        r.cli_ratio(),
        median(&r.cli_wall) / median(&r.same_question)
    );
    s += &format!(
        "\nServer exit after SIGTERM: {}; load average at start {}, at end {} (2 shared cores)\n\n### Targets\n\n",
        r.exit, r.load.0, r.load.1
    );
    for t in targets {
        let verdict = if t.holds { "HOLDS " } else { "MISSED" };
        s += &format!("- {verdict} {}: {}\n", t.name, t.detail);
    }
    for x in r.rows.iter().filter(|x| x.tally.first_error.is_some()) {
        let e = x.tally.first_error.as_deref().unwrap_or_default();
        s += &format!(
            "\nFirst error of {} ({} clients): {e}\n",
            x.label, x.clients
        );
    }
    s
}

fn to_json(r: &Results, targets: &[Target]) -> Value {
    json!({
        "seconds_per_scenario": r.secs,
        "report_words": r.words,
        "ingest_seconds": r.ingest.as_secs_f64(),
        "server_start_seconds": r.server_start.as_secs_f64(),
        "scenarios": r.rows.iter().map(Row::json).collect::<Vec<_>>(),
        "rss_kib": {
            "before_load": r.rss.start,
            "before_validate": r.rss.before_validate,
            "after_half": r.rss.half,
            "half_validations": r.rss.half_validations,
            "after_validations": r.rss.at_total,
            "validations": r.rss.validations,
            "growth": r.rss.growth(),
            "second_half_growth": r.rss.leak_growth(),
        },
        "cli": {
            "wall_ms": r.cli_wall,
            "median_wall_ms": median(&r.cli_wall),
            "in_process_total_ms": r.cli_inside,
            "question": QUESTIONS[0],
            "server_same_question_ms": r.same_question,
            "ratio_to_server_p50": r.cli_ratio(),
        },
        "server_exit": r.exit,
        "loadavg_start": r.load.0,
        "loadavg_end": r.load.1,
        "targets": targets.iter().map(|t| json!({
            "target": t.name, "holds": t.holds, "detail": t.detail,
        })).collect::<Vec<_>>(),
    })
}

fn run() -> Result<()> {
    let setup = Setup::new()?;
    let load_start = loadavg();
    let (report, words) = validate_request(true);
    eprintln!(
        "serve_load: attest {}; {} s per scenario; building the sample index",
        setup.bin.display(),
        setup.secs
    );
    let ingest = build_index(&setup)?;
    eprintln!("serve_load: CLI runs");
    let (cli_wall, cli_inside) = cli_runs(&setup)?;
    let (mut server, server_start) = Server::start(&setup)?;
    eprintln!("serve_load: server at {}", server.base);
    let measured = run_scenarios(&server, setup.secs, &report).and_then(|(mut rows, rss)| {
        rows.extend(validate_variants(&server, setup.secs)?);
        Ok((rows, rss, server_same_question(&server)?))
    });
    let (rows, rss, same_question) =
        measured.with_context(|| format!("server log tail:\n{}", server.log_tail()))?;
    let exit = server
        .stop()
        .map_or("unknown".to_string(), |s| s.to_string());
    let results = Results {
        secs: setup.secs,
        words,
        ingest,
        server_start,
        cli_wall,
        cli_inside,
        same_question,
        rows,
        rss,
        exit,
        load: (load_start, loadavg()),
    };
    let targets = targets(&results);
    println!("{}", markdown(&results, &targets));
    let out = setup.output_path();
    std::fs::create_dir_all(out.parent().context("output dir")?)?;
    let text = serde_json::to_string_pretty(&to_json(&results, &targets))?;
    std::fs::write(&out, text).with_context(|| out.display().to_string())?;
    println!("JSON: {}", out.display());
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("serve_load: harness failure: {e:#}");
            ExitCode::FAILURE
        }
    }
}
