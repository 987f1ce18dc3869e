//! PDF text by page through poppler's `pdftotext -layout` (Debian `poppler-utils`, which
//! `scripts/setup.sh` installs), and which extractor a setting selects.
//!
//! `pdftotext` keeps each page's lines in their printed columns, so table rows and form
//! values stay on one line; [`super::pdflayout`] turns those pages into clean stored text.
//! It runs as a child process under an address-space limit (`ulimit -v`), with its output
//! capped and killed at its time limit. Without it, `pdf-extract` (pure Rust) is used.

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::thread;
use std::time::{Duration, Instant};

/// Which PDF text extractor ingest uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PdfExtractor {
    /// `pdftotext` when it is installed, otherwise `pdf-extract`.
    #[default]
    Auto,
    /// Poppler's `pdftotext -layout` (an error when it is not installed).
    Pdftotext,
    /// The `pdf-extract` crate.
    PdfExtract,
}

impl PdfExtractor {
    /// The name used in settings.
    pub fn as_str(self) -> &'static str {
        match self {
            PdfExtractor::Auto => "auto",
            PdfExtractor::Pdftotext => "pdftotext",
            PdfExtractor::PdfExtract => "pdf-extract",
        }
    }
}

impl fmt::Display for PdfExtractor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for PdfExtractor {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        [
            PdfExtractor::Auto,
            PdfExtractor::Pdftotext,
            PdfExtractor::PdfExtract,
        ]
        .into_iter()
        .find(|e| e.as_str() == s.trim())
        .ok_or_else(|| format!("expected auto, pdftotext or pdf-extract, not {s:?}"))
    }
}

/// The installed `pdftotext` and its version line, looked up once on `PATH`.
pub fn poppler() -> Option<&'static (PathBuf, String)> {
    static FOUND: OnceLock<Option<(PathBuf, String)>> = OnceLock::new();
    FOUND
        .get_or_init(|| {
            let exe = find_on_path("pdftotext")?;
            let out = Command::new(&exe).arg("-v").output().ok()?;
            let text = String::from_utf8_lossy(&out.stderr).into_owned()
                + &String::from_utf8_lossy(&out.stdout);
            let version = text
                .lines()
                .find_map(|l| l.strip_prefix("pdftotext version "))
                .unwrap_or("unknown")
                .trim()
                .to_string();
            Some((exe, version))
        })
        .as_ref()
}

/// The first executable file named `name` in a `PATH` directory.
pub(super) fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// Why `pdftotext` gave no pages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PopplerFail {
    /// The file is encrypted and needs a password.
    Encrypted,
    /// Poppler could not read it (its last message).
    Corrupt(String),
    /// It ran past its time limit and was killed.
    TimedOut,
    /// It printed more than the cap.
    TooMuchText,
    /// It ran out of its address space.
    OutOfMemory,
    /// It could not be started.
    Spawn(String),
}

/// Limits of one `pdftotext` run.
#[derive(Debug, Clone, Copy)]
pub struct PopplerLimits {
    /// Wall-clock limit.
    pub timeout: Duration,
    /// Address-space limit in bytes.
    pub memory_bytes: u64,
    /// Most bytes of output read.
    pub output_bytes: u64,
}

/// Run `pdftotext -layout` on `path`: the text of each page (form feeds split pages).
pub fn pages(path: &Path, limits: PopplerLimits) -> Result<Vec<String>, PopplerFail> {
    let Some((exe, _)) = poppler() else {
        return Err(PopplerFail::Spawn("pdftotext is not installed".into()));
    };
    let out = run_limited(
        exe,
        &[
            "-layout".as_ref(),
            "-enc".as_ref(),
            "UTF-8".as_ref(),
            path.as_os_str(),
            "-".as_ref(),
        ],
        limits,
    )?;
    let text = String::from_utf8_lossy(&out);
    let mut pages: Vec<String> = text.split('\x0c').map(str::to_string).collect();
    if pages.len() > 1 && pages.last().is_some_and(|p| p.trim().is_empty()) {
        pages.pop(); // pdftotext ends every page, the last one too, with a form feed
    }
    Ok(pages)
}

/// Run `exe args…` under `ulimit -v`, capturing at most `output_bytes` of stdout, killed
/// at the time limit; stderr decides between encrypted, corrupt and out of memory.
pub(super) fn run_limited(
    exe: &Path,
    args: &[&std::ffi::OsStr],
    limits: PopplerLimits,
) -> Result<Vec<u8>, PopplerFail> {
    run_limited_env(exe, args, limits, &[])
}

/// [`run_limited`] with environment variables `env` set for the child.
pub(super) fn run_limited_env(
    exe: &Path,
    args: &[&std::ffi::OsStr],
    limits: PopplerLimits,
    env: &[(&str, &str)],
) -> Result<Vec<u8>, PopplerFail> {
    let kib = (limits.memory_bytes / 1024).max(1);
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {kib} 2>/dev/null; exec \"$0\" \"$@\""))
        .arg(exe)
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| PopplerFail::Spawn(e.to_string()))?;
    let cap = limits.output_bytes;
    let stdout = child.stdout.take().map(|o| {
        thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = o.take(cap.saturating_add(1)).read_to_end(&mut buf);
            buf
        })
    });
    let stderr = child.stderr.take().map(|e| {
        thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = e.take(1 << 16).read_to_end(&mut buf);
            buf
        })
    });
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if started.elapsed() >= limits.timeout => break None,
            Ok(None) => thread::sleep(Duration::from_millis(5)),
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(PopplerFail::Spawn(e.to_string()));
            }
        }
    };
    if status.is_none() {
        let _ = child.kill();
        let _ = child.wait();
    }
    let out = stdout.and_then(|h| h.join().ok()).unwrap_or_default();
    let err = stderr.and_then(|h| h.join().ok()).unwrap_or_default();
    let err = String::from_utf8_lossy(&err);
    let status = status.ok_or(PopplerFail::TimedOut)?;
    if out.len() as u64 > cap {
        return Err(PopplerFail::TooMuchText);
    }
    classify(status.success(), &err).map(|()| out)
}

/// What `pdftotext`'s exit status and messages mean.
fn classify(success: bool, stderr: &str) -> Result<(), PopplerFail> {
    let lower = stderr.to_lowercase();
    if lower.contains("incorrect password") || lower.contains("encrypted") && !success {
        return Err(PopplerFail::Encrypted);
    }
    if lower.contains("bad_alloc") || lower.contains("out of memory") {
        return Err(PopplerFail::OutOfMemory);
    }
    if !success {
        let last = stderr.lines().last().unwrap_or("no message").trim();
        return Err(PopplerFail::Corrupt(last.to_string()));
    }
    Ok(())
}

/// The document title from `pdfinfo`, when poppler is installed and the PDF has one.
pub fn title(path: &Path, limits: PopplerLimits) -> Option<String> {
    let (exe, _) = poppler()?;
    let info = exe.with_file_name("pdfinfo");
    let limits = PopplerLimits {
        output_bytes: 1 << 20,
        ..limits
    };
    let out = run_limited(
        &info,
        &["-enc".as_ref(), "UTF-8".as_ref(), path.as_os_str()],
        limits,
    )
    .ok()?;
    String::from_utf8_lossy(&out)
        .lines()
        .find_map(|l| l.strip_prefix("Title:"))
        .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|t| !t.is_empty())
}

/// Every word of pages `first..=last` with its box, as `pdftotext -bbox` prints it (an
/// XHTML page per page; see [`super::forms::parse_bbox`]).
pub fn word_boxes(
    path: &Path,
    first: usize,
    last: usize,
    limits: PopplerLimits,
) -> Result<String, PopplerFail> {
    let Some((exe, _)) = poppler() else {
        return Err(PopplerFail::Spawn("pdftotext is not installed".into()));
    };
    let (first, last) = (first.to_string(), last.to_string());
    let out = run_limited(
        exe,
        &[
            "-bbox".as_ref(),
            "-enc".as_ref(),
            "UTF-8".as_ref(),
            "-f".as_ref(),
            first.as_ref(),
            "-l".as_ref(),
            last.as_ref(),
            path.as_os_str(),
            "-".as_ref(),
        ],
        limits,
    )?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extractor_names_round_trip_and_bad_names_are_refused() {
        for e in [
            PdfExtractor::Auto,
            PdfExtractor::Pdftotext,
            PdfExtractor::PdfExtract,
        ] {
            assert_eq!(e.as_str().parse::<PdfExtractor>(), Ok(e));
        }
        assert!("poppler".parse::<PdfExtractor>().is_err());
    }

    fn limits(timeout_ms: u64, output_bytes: u64) -> PopplerLimits {
        PopplerLimits {
            timeout: Duration::from_millis(timeout_ms),
            memory_bytes: 1 << 30,
            output_bytes,
        }
    }

    #[test]
    fn a_child_past_its_time_limit_is_killed_and_endless_output_is_cut() {
        let started = Instant::now();
        let slow = run_limited(Path::new("sleep"), &["30".as_ref()], limits(200, 1 << 20));
        assert_eq!(slow, Err(PopplerFail::TimedOut));
        assert!(started.elapsed() < Duration::from_secs(10));
        let endless = run_limited(Path::new("yes"), &[], limits(20_000, 1 << 16));
        assert_eq!(endless, Err(PopplerFail::TooMuchText));
        let fine = run_limited(
            Path::new("echo"),
            &["page".as_ref()],
            limits(20_000, 1 << 16),
        );
        assert_eq!(fine.as_deref(), Ok(b"page\n".as_slice()));
    }

    #[test]
    fn poppler_messages_are_classified() {
        assert_eq!(
            classify(false, "Command Line Error: Incorrect password\n"),
            Err(PopplerFail::Encrypted)
        );
        assert_eq!(
            classify(false, "Syntax Error: Couldn't find trailer dictionary\n"),
            Err(PopplerFail::Corrupt(
                "Syntax Error: Couldn't find trailer dictionary".into()
            ))
        );
        assert_eq!(classify(true, "Syntax Warning: bad font\n"), Ok(()));
        assert_eq!(
            classify(
                false,
                "terminate called after throwing an instance of 'std::bad_alloc'"
            ),
            Err(PopplerFail::OutOfMemory)
        );
    }
}
