//! Progress of long work (ingest, evaluations, reviews, batches) on stderr.
//!
//! On a terminal the work draws `indicatif` bars. Anywhere else (a cron job, a CI log, a
//! pipe) the bars are hidden but still count, and a [`Ticker`] writes one log line at least
//! every [`interval`] (ten seconds): what is done of what, the rate, and the time left.

use std::io::IsTerminal;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use indicatif::ProgressBar;

/// What a counter counts, for its log line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Bytes (shown as KB/MB).
    Bytes,
    /// Items, named by the counter's label.
    Items,
}

/// One counter the ticker reports: its label ("files loaded"), its unit and its bar.
#[derive(Clone)]
pub struct Counter {
    /// What it counts, e.g. `chunks embedded`.
    pub label: String,
    /// How to show its numbers.
    pub unit: Unit,
    /// The (possibly hidden) bar that holds the count.
    pub bar: ProgressBar,
}

/// The time between two log lines: `ATTEST_PROGRESS_SECS` (a positive number of seconds,
/// at most an hour), ten seconds otherwise.
pub fn interval() -> Duration {
    std::env::var("ATTEST_PROGRESS_SECS")
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0 && *s <= 3600.0)
        .map_or(Duration::from_secs(10), Duration::from_secs_f64)
}

/// Writes a progress line for its counters every [`interval`] while it lives, when
/// enabled and stderr is not a terminal (where the bars draw themselves).
pub struct Ticker {
    stop: Arc<(Mutex<bool>, Condvar)>,
    handle: Option<JoinHandle<()>>,
}

impl Ticker {
    /// Start logging `what` (e.g. `ingest`) with `counters`; a no-op ticker when `enabled`
    /// is false or stderr is a terminal.
    pub fn start(enabled: bool, what: &str, counters: Vec<Counter>) -> Ticker {
        let stop = Arc::new((Mutex::new(false), Condvar::new()));
        if !enabled || std::io::stderr().is_terminal() || counters.is_empty() {
            return Ticker { stop, handle: None };
        }
        let what = what.to_string();
        let flag = stop.clone();
        let started = Instant::now();
        let handle = std::thread::spawn(move || {
            let every = interval();
            let (lock, cvar) = &*flag;
            let mut stopped = lock.lock().unwrap_or_else(|e| e.into_inner());
            loop {
                let (guard, timeout) = cvar
                    .wait_timeout(stopped, every)
                    .unwrap_or_else(|e| e.into_inner());
                stopped = guard;
                if *stopped {
                    return;
                }
                if timeout.timed_out() {
                    eprintln!("{}", line(&what, &counters, started.elapsed()));
                }
            }
        });
        Ticker {
            stop,
            handle: Some(handle),
        }
    }
}

impl Drop for Ticker {
    fn drop(&mut self) {
        let (lock, cvar) = &*self.stop;
        *lock.lock().unwrap_or_else(|e| e.into_inner()) = true;
        cvar.notify_all();
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// `attest ingest: 3/40 files loaded, 1.2 MB/8.0 MB, 340/900 chunks embedded (85/s, about
/// 7 s left); 40 s elapsed`.
pub fn line(what: &str, counters: &[Counter], elapsed: Duration) -> String {
    let parts: Vec<String> = counters.iter().map(part).collect();
    format!(
        "attest {what}: {}; {} elapsed",
        parts.join(", "),
        duration(elapsed)
    )
}

/// One counter's part of the line.
fn part(c: &Counter) -> String {
    let (pos, len) = (c.bar.position(), c.bar.length().unwrap_or(0));
    let show = |n: u64| match c.unit {
        Unit::Bytes => bytes(n),
        Unit::Items => n.to_string(),
    };
    let mut s = if len > 0 {
        format!("{}/{} {}", show(pos), show(len), c.label)
    } else {
        format!("{} {}", show(pos), c.label)
    };
    let rate = c.bar.per_sec();
    let under_way = len == 0 || pos < len;
    if under_way && pos > 0 && rate.is_finite() && rate > 0.0 {
        let per = match c.unit {
            Unit::Bytes => format!("{}/s", bytes(rate as u64)),
            Unit::Items => format!("{rate:.1}/s"),
        };
        if len > pos {
            let left = Duration::from_secs_f64((len - pos) as f64 / rate);
            s.push_str(&format!(" ({per}, about {} left)", duration(left)));
        } else {
            s.push_str(&format!(" ({per})"));
        }
    }
    s
}

/// `850 B`, `12.4 KB`, `3.1 MB`, `1.2 GB`.
fn bytes(n: u64) -> String {
    let units = ["B", "KB", "MB", "GB", "TB"];
    let mut v = n as f64;
    let mut i = 0;
    while v >= 1000.0 && i + 1 < units.len() {
        v /= 1000.0;
        i += 1;
    }
    if i == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", units[i])
    }
}

/// `42 s`, `3 min 5 s`, `2 h 10 min`.
fn duration(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..=59 => format!("{s} s"),
        60..=3599 => format!("{} min {} s", s / 60, s % 60),
        _ => format!("{} h {} min", s / 3600, (s % 3600) / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_says_what_is_done_the_rate_and_the_time_left() {
        let files = ProgressBar::hidden();
        files.set_length(40);
        files.set_position(3);
        let chunks = ProgressBar::hidden();
        chunks.set_position(12);
        let line = line(
            "ingest",
            &[
                Counter {
                    label: "files loaded".into(),
                    unit: Unit::Items,
                    bar: files,
                },
                Counter {
                    label: "chunks embedded".into(),
                    unit: Unit::Items,
                    bar: chunks,
                },
            ],
            Duration::from_secs(75),
        );
        assert!(
            line.starts_with("attest ingest: 3/40 files loaded"),
            "{line}"
        );
        assert!(line.contains("12 chunks embedded"), "{line}");
        assert!(line.ends_with("; 1 min 15 s elapsed"), "{line}");
    }

    #[test]
    fn sizes_and_durations_read_as_a_person_writes_them() {
        assert_eq!(bytes(850), "850 B");
        assert_eq!(bytes(3_100_000), "3.1 MB");
        assert_eq!(duration(Duration::from_secs(42)), "42 s");
        assert_eq!(duration(Duration::from_secs(7_800)), "2 h 10 min");
    }
}
