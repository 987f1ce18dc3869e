//! Every command the README and `docs/` show, run as written against a copy of the sample
//! corpus, so the documentation stays runnable: a renamed option, a removed subcommand or a
//! file the docs promise and the command does not write fails here.
//!
//! Commands come from the fenced `sh` blocks, in order, each block in a fresh shell
//! (`export` lasts to the end of its block). Placeholders are filled in (`…` is a
//! question, `CHECKLIST` the sample checklist, `[--opt a|b]` is run with its first
//! choice), `attest serve` listens on a free port that `localhost:7878` then names, and a
//! few commands are skipped with their reason: the set-up scripts (they run this test),
//! evaluations over data outside the repository, and Milvus when no test server runs.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Stdio};
use std::time::Duration;

use super::common::model_dir;

/// The question `…` stands for.
const QUESTION: &str = "How long must client records be retained?";

/// One command line of a block, with where it was written.
struct Line {
    at: String,
    text: String,
}

/// The fenced `sh` blocks of the README and `docs/*.md`, as their logical lines.
fn blocks() -> Vec<Vec<Line>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let name = f.strip_prefix(root).unwrap().display().to_string();
        out.extend(sh_blocks(&name, &text));
    }
    out
}

/// The logical lines (continuations joined) of every ```sh block of `text`.
fn sh_blocks(name: &str, text: &str) -> Vec<Vec<Line>> {
    let mut out = Vec::new();
    let mut block: Option<Vec<Line>> = None;
    let mut pending = String::new();
    for (i, raw) in text.lines().enumerate() {
        let fence = raw.trim_start().starts_with("```");
        match block.as_mut() {
            None if fence && raw.trim() == "```sh" => block = Some(Vec::new()),
            None => {}
            Some(_) if fence => out.push(block.take().unwrap()),
            Some(lines) => {
                pending.push_str(raw.trim_end_matches('\\'));
                if raw.ends_with('\\') {
                    pending.push(' ');
                    continue;
                }
                let text = std::mem::take(&mut pending);
                if !text.trim().is_empty() {
                    let at = format!("{name}:{}", i + 1);
                    lines.push(Line { at, text });
                }
            }
        }
    }
    assert!(block.is_none(), "{name}: an sh block is not closed");
    out
}

/// A command's words with its placeholders filled in, its redirection and whether it runs
/// in the background.
struct Cmd {
    words: Vec<String>,
    stdout_to: Option<String>,
    background: bool,
}

fn parse(line: &Line) -> Cmd {
    let mut words =
        shlex::split(&line.text).unwrap_or_else(|| panic!("{}: not shell words", line.at));
    let background = words.last().is_some_and(|w| w == "&");
    if background {
        words.pop();
    }
    let mut stdout_to = None;
    if let Some(i) = words.iter().position(|w| w == ">") {
        stdout_to = Some(words.get(i + 1).expect("a file after >").clone());
        words.drain(i..i + 2);
    }
    let words = words.iter().map(|w| fill(w)).collect();
    Cmd {
        words,
        stdout_to,
        background,
    }
}

/// One word with its placeholder filled in: optional brackets are taken, with the first
/// of their choices.
fn fill(word: &str) -> String {
    let w = word.trim_start_matches('[').trim_end_matches(']');
    let w = if word.starts_with('[') || word.ends_with(']') {
        w.split('|').next().unwrap()
    } else {
        w
    };
    match w {
        "…" => QUESTION.to_owned(),
        "CHECKLIST" => "corpus/review/checklist.json".to_owned(),
        "docs/" => "corpus/".to_owned(),
        "docs/plan.pdf" => "corpus/review/01-project-plan.pdf".to_owned(),
        w => w.replace("localhost:7878", "{SERVER}"),
    }
}

/// What running the docs needs: a scratch folder with the corpus and the files the
/// commands name, the test's Milvus server if any, the server `attest serve` started.
struct Shell {
    dir: tempfile::TempDir,
    env: Vec<(String, String)>,
    milvus: Option<String>,
    server: Option<(Child, String)>,
    background: Vec<(String, Child)>,
    /// Blocks started: each gets its own Milvus collections.
    blocks: usize,
    ran: Vec<String>,
    skipped: Vec<(String, &'static str)>,
}

impl Shell {
    fn new() -> Shell {
        let dir = tempfile::tempdir().unwrap();
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        copy_tree(&root.join("corpus"), &dir.path().join("corpus"));
        let statutes = dir.path().join("statutes");
        std::fs::create_dir_all(&statutes).unwrap();
        let statute = "10-bhsa-5890-5899.md";
        std::fs::copy(root.join("corpus").join(statute), statutes.join(statute)).unwrap();
        let other = "Who may see a client's records without consent?";
        std::fs::write(
            dir.path().join("audit.txt"),
            format!("{QUESTION}\n{other}\n"),
        )
        .unwrap();
        let jsonl = [("q1", QUESTION), ("q2", other)]
            .map(|(id, q)| serde_json::json!({"id": id, "question": q}).to_string());
        std::fs::write(dir.path().join("audit.jsonl"), jsonl.join("\n")).unwrap();
        let checklist: serde_json::Value = serde_json::from_slice(
            &std::fs::read(root.join("corpus/review/checklist.json")).unwrap(),
        )
        .unwrap();
        let yaml = yaml_serde::to_string(&checklist).unwrap();
        std::fs::write(dir.path().join("registry.yaml"), yaml).unwrap();
        let milvus = std::env::var("ATTEST_TEST_MILVUS_URL")
            .ok()
            .filter(|u| !u.is_empty());
        Shell {
            dir,
            env: Vec::new(),
            milvus,
            server: None,
            background: Vec::new(),
            blocks: 0,
            ran: Vec::new(),
            skipped: Vec::new(),
        }
    }

    fn block(&mut self, lines: &[Line]) {
        self.env.clear();
        self.blocks += 1;
        for line in lines {
            self.line(line);
        }
        self.wait_background();
        self.stop_server();
    }

    fn line(&mut self, line: &Line) {
        let cmd = parse(line);
        let at = format!("{}: {}", line.at, line.text.trim());
        let program = cmd.words[0].as_str();
        let skip = match program {
            "scripts/demo.sh" | "scripts/test.sh" => Some("a set-up script: it runs this test"),
            "scripts/milvus.sh" => Some("the test's Milvus server stands in for it"),
            "open" => Some("opens a browser"),
            "export" => {
                self.export(&cmd.words[1..]);
                None
            }
            "attest" => self.attest_skip(&cmd),
            "curl" => None,
            other => panic!("{at}: the docs run `{other}`; teach this test what it needs"),
        };
        if let Some(why) = skip {
            self.skipped.push((at, why));
            return;
        }
        match program {
            "export" => {}
            "curl" => self.curl(&at, &cmd),
            _ => self.attest(&at, &cmd),
        }
        self.ran.push(at);
    }

    fn export(&mut self, words: &[String]) {
        for w in words {
            let (k, v) = w.split_once('=').expect("export K=V");
            let v = match (&self.milvus, v.starts_with("http://127.0.0.1:PORT")) {
                (Some(url), true) => url.clone(),
                _ => v.to_owned(),
            };
            self.env.push((k.to_owned(), v));
        }
    }

    /// Why an `attest` command is not run here, if it is not.
    fn attest_skip(&self, cmd: &Cmd) -> Option<&'static str> {
        if cmd.words.iter().any(|w| w.starts_with("../shared/")) {
            return Some("an evaluation over data outside the repository");
        }
        let milvus = cmd.words.iter().any(|w| w == "migrate" || w == "--shard")
            || self
                .env
                .iter()
                .any(|(k, v)| k == "ATTEST_BACKEND" && v == "milvus");
        (milvus && self.milvus.is_none()).then_some("needs a Milvus server (none for this run)")
    }

    fn command(&self, program: &str) -> std::process::Command {
        let mut c = std::process::Command::new(program);
        c.current_dir(self.dir.path())
            .env("ATTEST_MODEL_DIR", model_dir())
            .env_remove("ATTEST_INDEX")
            .env_remove("ATTEST_BACKEND")
            .env_remove("ATTEST_MILVUS_URL");
        if let Some(url) = &self.milvus {
            let prefix = format!("t_docs_{}_{}", std::process::id(), self.blocks);
            c.env("ATTEST_MILVUS_URL", url)
                .env("ATTEST_MILVUS_PREFIX", prefix);
        }
        c.envs(self.env.iter().map(|(k, v)| (k, v)));
        c
    }

    fn attest(&mut self, at: &str, cmd: &Cmd) {
        let bin = assert_cmd::cargo::cargo_bin("attest");
        let mut c = self.command(bin.to_str().unwrap());
        let args = &cmd.words[1..];
        match args.first().map(String::as_str) {
            Some("serve") => return self.serve(at, c, args),
            Some("mcp") => return mcp(at, c),
            _ => {}
        }
        c.args(args);
        if cmd.background {
            let child = c
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            self.background.push((at.to_owned(), child));
            return;
        }
        let out = within(c).output().unwrap();
        self.wait_background();
        // `ask` answers with 1 when the documents hold no authoritative evidence, `review`
        // when a mandatory requirement is open, `validate` when the text breaks the preset
        // (`--preset strict` asks two citations a paragraph); none of them is an error.
        let allowed: &[i32] = match args.first().map(String::as_str) {
            Some("ask" | "review" | "validate") => &[0, 1],
            _ => &[0],
        };
        let code = out.status.code().unwrap_or(-1);
        assert!(
            allowed.contains(&code),
            "{at}: exit {code}\nstdout: {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        self.written(at, cmd, &out.stdout);
    }

    /// Writes a redirected stdout, and checks every file the command was to write.
    fn written(&self, at: &str, cmd: &Cmd, stdout: &[u8]) {
        if let Some(to) = &cmd.stdout_to {
            assert!(!stdout.is_empty(), "{at}: nothing on stdout for {to}");
            std::fs::write(self.dir.path().join(to), stdout).unwrap();
        }
        let outputs = ["--audit", "--summary", "--report"];
        for pair in cmd.words.windows(2) {
            if outputs.contains(&pair[0].as_str()) {
                let f = self.dir.path().join(&pair[1]);
                let len = std::fs::metadata(&f).map(|m| m.len()).unwrap_or(0);
                assert!(len > 0, "{at}: {} was not written", pair[1]);
            }
        }
    }

    fn wait_background(&mut self) {
        for (at, child) in self.background.drain(..) {
            let out = child.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "{at}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }

    /// `attest serve …` on a free port; checked to answer `/v1/status`, kept for `curl`.
    fn serve(&mut self, at: &str, mut c: std::process::Command, args: &[String]) {
        self.stop_server();
        c.args(args).args(["--addr", "127.0.0.1:0"]);
        let mut child = c
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        // Kept before any check, so a failed one still stops it (on drop).
        self.server = Some((child, String::new()));
        let addr = listening(at, stdout);
        let status = reqwest::blocking::get(format!("http://{addr}/v1/status"))
            .unwrap_or_else(|e| panic!("{at}: {e}"));
        assert!(
            status.status().is_success(),
            "{at}: /v1/status {}",
            status.status()
        );
        if let Some((_, a)) = self.server.as_mut() {
            *a = addr;
        }
    }

    fn stop_server(&mut self) {
        if let Some((mut child, _)) = self.server.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// The docs' `curl` request, sent to the server the block started.
    fn curl(&mut self, at: &str, cmd: &Cmd) {
        let addr = match &self.server {
            Some((_, addr)) => addr.clone(),
            None => panic!("{at}: curl with no `attest serve` before it in the block"),
        };
        let args: Vec<String> = cmd.words[1..]
            .iter()
            .map(|w| w.replace("{SERVER}", &addr))
            .collect();
        let mut curl = self.command("curl");
        curl.args(["--fail", "--max-time", "300"]).args(&args);
        let out = within(curl)
            .output()
            .unwrap_or_else(|e| panic!("{at}: curl: {e} (scripts/setup.sh installs it)"));
        assert!(
            out.status.success(),
            "{at}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let reply: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{at}: {e}: {}", String::from_utf8_lossy(&out.stdout)));
        assert!(reply.get("status").is_some(), "{at}: {reply}");
    }
}

impl Drop for Shell {
    fn drop(&mut self) {
        self.stop_server();
        for (_, mut child) in self.background.drain(..) {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Longest a command of the docs may take before the test fails instead of hanging.
const COMMAND_LIMIT: Duration = Duration::from_secs(600);

/// `c` stopped after [`COMMAND_LIMIT`].
fn within(c: std::process::Command) -> assert_cmd::Command {
    let mut c = assert_cmd::Command::from_std(c);
    c.timeout(COMMAND_LIMIT);
    c
}

/// The address `attest serve` prints it listens on (read for at most [`COMMAND_LIMIT`]).
fn listening(at: &str, stdout: ChildStdout) -> String {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut first = String::new();
        let _ = BufReader::new(stdout).read_line(&mut first);
        let _ = tx.send(first);
    });
    let first = rx
        .recv_timeout(COMMAND_LIMIT)
        .unwrap_or_else(|_| panic!("{at}: the server printed no address"));
    let addr = first
        .trim()
        .rsplit("http://")
        .next()
        .filter(|a| first.contains("http://") && !a.is_empty())
        .unwrap_or_else(|| panic!("{at}: no address in {first:?}"));
    addr.trim_end_matches('/').to_owned()
}

/// `attest mcp`: initialized over stdin, then closed; it must answer and exit 0.
fn mcp(at: &str, mut c: std::process::Command) {
    c.arg("mcp");
    let init = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "docs", "version": "0"}}});
    let out = within(c).write_stdin(format!("{init}\n")).output().unwrap();
    let reply = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{at}: exit {:?}", out.status.code());
    assert!(reply.contains("\"result\""), "{at}: {reply}");
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let dst = to.join(p.file_name().unwrap());
        if p.is_dir() {
            copy_tree(&p, &dst);
        } else {
            std::fs::copy(&p, &dst).unwrap();
        }
    }
}

#[test]
fn every_command_the_docs_show_runs() {
    let blocks = blocks();
    let mut shell = Shell::new();
    for block in &blocks {
        shell.block(block);
    }
    eprintln!("ran {} commands from the docs", shell.ran.len());
    for (at, why) in &shell.skipped {
        eprintln!("skipped {at}: {why}");
    }
    assert!(
        shell.ran.len() >= 30,
        "only {} commands ran: {:?}",
        shell.ran.len(),
        shell.ran
    );
    // Only what needs something outside the repository (or runs this test) is skipped.
    let outside = shell
        .skipped
        .iter()
        .filter(|(_, why)| why.contains("outside the repository"))
        .count();
    assert!(outside <= 6, "{:?}", shell.skipped);
}

#[test]
fn a_shell_block_reads_as_commands() {
    let text = "x\n```sh\nattest ask \"…\" --json > a.json   # note\ncurl -s a \\\n  -d '{}'\n\n```\n```text\nattest no\n```\n";
    let blocks = sh_blocks("T.md", text);
    assert_eq!(blocks.len(), 1);
    let lines = &blocks[0];
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0].at, "T.md:3");
    let cmd = parse(&lines[0]);
    assert_eq!(cmd.words, ["attest", "ask", QUESTION, "--json"]);
    assert_eq!(cmd.stdout_to.as_deref(), Some("a.json"));
    let curl = parse(&lines[1]);
    assert_eq!(curl.words, ["curl", "-s", "a", "-d", "{}"]);
    assert_eq!(fill("[--date-order"), "--date-order");
    assert_eq!(fill("dmy|mdy|ymd]"), "dmy");
    assert!(
        parse(&Line {
            at: "T".into(),
            text: "attest ingest x --shard 0/2 &".into()
        })
        .background
    );
}
