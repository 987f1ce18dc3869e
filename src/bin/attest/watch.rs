//! `attest watch`: ingest folders, then keep the index in step with them until stopped
//! (Ctrl-C or SIGTERM; each run is transactional, so stopping mid-run loses nothing).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use attest::cancel::Cancel;
use attest::config::Config;
use attest::engine::{Access, Engine};
use attest::ingest::watch::{watch, WatchOptions, WatchRun};
use attest::render;

use crate::out;

#[derive(clap::Args)]
pub struct Args {
    /// Files or folders to keep indexed (folders are watched recursively)
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Milliseconds without a change that end a burst of changes (10 to 60000)
    #[arg(long, default_value_t = 500, value_parser = clap::value_parser!(u64).range(10..=60_000))]
    debounce_ms: u64,
    /// Print each run as one line of JSON
    #[arg(long)]
    json: bool,
}

/// Watch options of the flags; progress goes to standard error.
pub fn options(debounce_ms: u64) -> WatchOptions {
    WatchOptions {
        debounce: Duration::from_millis(debounce_ms),
        progress: true,
        ..WatchOptions::default()
    }
}

fn print(json: bool, run: &WatchRun) {
    let line = if json {
        serde_json::to_string(run)
            .map(|s| s + "\n")
            .unwrap_or_default()
    } else {
        render::watch_run(run)
    };
    if let Err(e) = out(&line) {
        tracing::warn!("{e}");
    }
}

pub fn run(cfg: Config, args: Args) -> anyhow::Result<ExitCode> {
    let mut engine = Engine::open_with_default_model(cfg, Access::Write)?;
    watch(
        &mut engine,
        &args.paths,
        &options(args.debounce_ms),
        &Cancel::never(),
        |run| print(args.json, run),
        |e| tracing::warn!("watch: this run failed, the next change tries again: {e}"),
    )?;
    Ok(ExitCode::SUCCESS)
}

/// For `serve --watch`: watch `paths` on a thread of its own with its own engine, logging
/// each run; readers pick up each new corpus version on their next request.
pub fn spawn(cfg: Config, paths: Vec<PathBuf>, debounce_ms: u64) -> anyhow::Result<()> {
    let mut engine = Engine::open_with_default_model(cfg, Access::Write)?;
    std::thread::Builder::new()
        .name("attest-watch".into())
        .spawn(move || {
            let result = watch(
                &mut engine,
                &paths,
                &options(debounce_ms),
                &Cancel::never(),
                |run| tracing::info!(target: "attest::server", "{}", render::watch_run(run).trim_end()),
                |e| tracing::warn!(target: "attest::server", "watch: this run failed: {e}"),
            );
            if let Err(e) = result {
                tracing::error!(target: "attest::server", "watch stopped: {e}");
            }
        })?;
    Ok(())
}
