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
            let mut since = vec![None; counters.len()];
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
                    let elapsed = started.elapsed();
                    eprintln!("{}", line_since(&what, &counters, elapsed, &mut since));
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
    line_since(what, counters, elapsed, &mut vec![None; counters.len()])
}

/// Where a counter was first seen counting: the time since the ticker started, and its
/// count then.
pub type Since = Option<(Duration, u64)>;

/// [`line`] with each counter's rate taken from the first line that saw it count
/// (`since`, updated), so that the time before its work began (loading before embedding)
/// does not lower it.
pub fn line_since(
    what: &str,
    counters: &[Counter],
    elapsed: Duration,
    since: &mut [Since],
) -> String {
    // A running total with nothing counted yet (pages, while Markdown loads) says nothing.
    let parts: Vec<String> = counters
        .iter()
        .zip(since.iter_mut())
        .filter(|(c, _)| c.bar.position() > 0 || c.bar.length().unwrap_or(0) > 0)
        .map(|(c, first)| part(c, elapsed, first))
        .collect();
    let parts = if parts.is_empty() {
        "starting".to_string()
    } else {
        parts.join(", ")
    };
    format!("attest {what}: {parts}; {} elapsed", duration(elapsed))
}

/// One counter's part of the line.
fn part(c: &Counter, elapsed: Duration, since: &mut Since) -> String {
    let (pos, len) = (c.bar.position(), c.bar.length().unwrap_or(0));
    let show = |n: u64| match c.unit {
        Unit::Bytes => bytes(n),
        Unit::Items => thousands(n),
    };
    let mut s = if len > 0 {
        format!("{}/{} {}", show(pos), show(len), c.label)
    } else {
        format!("{} {}", show(pos), c.label)
    };
    let rate = match *since {
        Some((t0, p0)) if pos > p0 && elapsed > t0 => rate(pos - p0, elapsed - t0),
        _ => rate(pos, c.bar.elapsed()),
    };
    if since.is_none() && pos > 0 {
        *since = Some((elapsed, pos));
    }
    let under_way = len == 0 || pos < len;
    if let Some(rate) = rate.filter(|_| under_way) {
        let per = match c.unit {
            Unit::Bytes => format!("{}/s", bytes(rate as u64)),
            Unit::Items => per_sec(rate),
        };
        match left(pos, len, rate) {
            Some(left) => s.push_str(&format!(" ({per}, about {} left)", duration(left))),
            None => s.push_str(&format!(" ({per})")),
        }
    }
    s
}

/// The mean rate of a count since its bar started: `pos` over `elapsed`, `None` before
/// anything is counted (a mean never freezes at zero while the count goes on, as a rate
/// estimated from the last few updates does when they come in large steps).
pub fn rate(pos: u64, elapsed: Duration) -> Option<f64> {
    let secs = elapsed.as_secs_f64();
    (pos > 0 && secs > 0.0).then(|| pos as f64 / secs)
}

/// The time left at `rate` for what is still to count of `len`.
pub fn left(pos: u64, len: u64, rate: f64) -> Option<Duration> {
    (len > pos && rate.is_finite() && rate > 0.0)
        .then(|| Duration::from_secs_f64(((len - pos) as f64 / rate).min(1e9)))
}

/// `0.4/s`, `85.0/s`, `9,440/s`.
fn per_sec(rate: f64) -> String {
    if rate < 1000.0 {
        format!("{rate:.1}/s")
    } else {
        format!("{}/s", thousands(rate.round() as u64))
    }
}

/// `950`, `63,775`, `1,940,000`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// A terminal bar's style: `{bar} {pos}/{len} UNIT (RATE, about T left)`, the rate being
/// the mean since the bar started ([`rate`]).
pub fn bar_style(unit: &str) -> indicatif::ProgressStyle {
    let template = format!("{{bar:40}} {{pos}}/{{len}} {unit} ({{mean_rate}})");
    indicatif::ProgressStyle::with_template(&template)
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
        .with_key(
            "mean_rate",
            |st: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let (pos, len) = (st.pos(), st.len().unwrap_or(0));
                let _ = match rate(pos, st.elapsed()) {
                    None => write!(w, "starting"),
                    Some(r) => match left(pos, len, r) {
                        Some(t) => write!(w, "{}, about {} left", per_sec(r), duration(t)),
                        None => write!(w, "{}", per_sec(r)),
                    },
                };
            },
        )
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
    fn totals_read_with_thousands_and_an_empty_total_is_left_out() {
        let counter = |label: &str, n: u64| {
            let bar = ProgressBar::hidden();
            bar.set_position(n);
            Counter {
                label: label.into(),
                unit: Unit::Items,
                bar,
            }
        };
        let l = line(
            "ingest",
            &[counter("pages", 0), counter("tokens", 63_775)],
            Duration::from_secs(10),
        );
        assert!(l.starts_with("attest ingest: 63,775 tokens ("), "{l}");
        assert!(!l.contains("pages"), "{l}");
        let l = line("ingest", &[counter("pages", 0)], Duration::from_secs(10));
        assert_eq!(l, "attest ingest: starting; 10 s elapsed");
    }

    #[test]
    fn sizes_and_durations_read_as_a_person_writes_them() {
        assert_eq!(bytes(850), "850 B");
        assert_eq!(bytes(3_100_000), "3.1 MB");
        assert_eq!(duration(Duration::from_secs(42)), "42 s");
        assert_eq!(duration(Duration::from_secs(7_800)), "2 h 10 min");
        assert_eq!(per_sec(0.42), "0.4/s");
        assert_eq!(per_sec(9_440.4), "9,440/s");
        assert_eq!(per_sec(1_234_567.0), "1,234,567/s");
    }

    #[test]
    fn the_rate_is_the_mean_since_the_start_and_the_time_left_follows_it() {
        assert_eq!(rate(0, Duration::from_secs(5)), None);
        assert_eq!(rate(5, Duration::ZERO), None);
        // 252 of 4,866 chunks in 30 s: 8.4/s, about 9 min 9 s left, however the 252 came.
        let r = rate(252, Duration::from_secs(30)).unwrap();
        assert!((r - 8.4).abs() < 1e-9);
        assert_eq!(
            left(252, 4_866, r),
            Some(Duration::from_secs_f64(4_614.0 / 8.4))
        );
        assert_eq!(duration(left(252, 4_866, r).unwrap()), "9 min 9 s");
        assert_eq!(left(10, 10, r), None);
        assert_eq!(left(1, 10, f64::NAN), None);
    }

    #[test]
    fn a_rate_counts_from_the_line_that_first_saw_its_work() {
        let bar = ProgressBar::hidden();
        bar.set_length(1000);
        let counters = [Counter {
            label: "chunks embedded".into(),
            unit: Unit::Items,
            bar: bar.clone(),
        }];
        let mut since = vec![None];
        // Nothing counted for 10 s (files loading), then 20 chunks; 10 s later 120.
        bar.set_position(20);
        line_since("ingest", &counters, Duration::from_secs(10), &mut since);
        bar.set_position(120);
        let l = line_since("ingest", &counters, Duration::from_secs(20), &mut since);
        assert!(
            l.contains("120/1,000 chunks embedded (10.0/s, about 1 min 28 s left)"),
            "{l}"
        );
    }
}
