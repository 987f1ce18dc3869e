//! A real `attest serve` on an ephemeral loopback port, for the server, load and browser
//! tests: started from the built binary, its address read from its one line of standard
//! output, stopped with SIGTERM when dropped.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A running server.
pub struct Server {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// The port.
    pub port: u16,
}

/// How long a server may take to load the model and bind.
const START_TIMEOUT: Duration = Duration::from_secs(120);

/// How to start a server beyond its arguments.
#[derive(Default)]
pub struct Launch<'a> {
    /// Its working directory (the test's when none).
    pub cwd: Option<&'a Path>,
    /// Its limit of open files (`ulimit -n`; inherited when none).
    pub open_files: Option<u32>,
}

impl Server {
    /// `attest --index IDX serve --addr 127.0.0.1:0 ARGS…` with environment `env`.
    pub fn start(idx: &Path, args: &[&str], env: &[(&str, &str)]) -> Server {
        Self::launch(idx, args, env, &Launch::default())
    }

    /// [`Server::start`], as `how` says.
    pub fn launch(idx: &Path, args: &[&str], env: &[(&str, &str)], how: &Launch) -> Server {
        let bin = assert_cmd::cargo::cargo_bin!("attest");
        let mut cmd = match how.open_files {
            None => Command::new(bin),
            Some(n) => {
                let mut c = Command::new("sh");
                c.arg("-c")
                    .arg(format!("ulimit -n {n} && exec \"$0\" \"$@\""))
                    .arg(bin);
                c
            }
        };
        if let Some(dir) = how.cwd {
            cmd.current_dir(dir);
        }
        cmd.arg("--index")
            .arg(idx)
            .arg("--model-dir")
            .arg(super::model_dir())
            .args(["serve", "--addr", "127.0.0.1:0"])
            .args(args)
            .env_remove("ATTEST_INDEX")
            .env_remove("ATTEST_TOKEN")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let mut child = cmd.spawn().expect("spawn attest serve");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        let line = match rx.recv_timeout(START_TIMEOUT) {
            Ok(l) if !l.is_empty() => l,
            other => {
                let _ = child.kill();
                let status = child.wait().ok();
                panic!("attest serve did not start ({other:?}, exit {status:?})");
            }
        };
        let base = line
            .trim()
            .strip_prefix("attest: listening on ")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .to_string();
        let port = base.rsplit(':').next().unwrap().parse().unwrap();
        Server { child, base, port }
    }

    /// `base` + `path`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Send SIGTERM and wait for the exit status.
    pub fn stop(mut self) -> std::process::ExitStatus {
        self.terminate()
    }

    fn terminate(&mut self) -> std::process::ExitStatus {
        let pid = rustix::process::Pid::from_raw(self.child.id() as i32).unwrap();
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
        for _ in 0..200 {
            if let Ok(Some(s)) = self.child.try_wait() {
                return s;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        self.child.wait().unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            self.terminate();
        }
    }
}

/// A blocking HTTP client with a generous timeout.
pub fn client() -> reqwest::blocking::Client {
    reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(300))
        .build()
        .unwrap()
}
