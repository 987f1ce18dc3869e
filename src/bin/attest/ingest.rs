//! `attest ingest`: bring files into the index (exit 2 when a file failed).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use attest::config::Config;
use attest::engine::{Access, Engine};
use attest::ingest::{ingest, IngestOptions};
use attest::render;

use crate::{emit, exit_if, flag_help};

#[derive(clap::Args)]
pub struct Args {
    /// Files or directories
    #[arg(required_unless_present = "repair")]
    paths: Vec<PathBuf>,
    /// Remove documents whose files are gone from an ingested root
    #[arg(long)]
    prune: bool,
    /// Re-read every document whose stored state is damaged (see `status --deep`)
    /// from its file, even when its size and time are unchanged, and rebuild the
    /// full-text and dense indexes
    #[arg(long)]
    repair: bool,
    /// Hash the bytes of every file whose size and modification time are unchanged and
    /// re-read those that no longer match what was ingested (the fast path trusts size
    /// and time; `--repair` does this too)
    #[arg(long)]
    verify: bool,
    #[arg(long, help = flag_help("chunk_tokens"))]
    chunk_tokens: Option<usize>,
    #[arg(long, help = flag_help("max_file_bytes"))]
    max_file_bytes: Option<u64>,
    /// Print the summary as JSON
    #[arg(long)]
    json: bool,
}

pub fn run(mut cfg: Config, args: Args) -> anyhow::Result<ExitCode> {
    if let Some(n) = args.chunk_tokens {
        cfg.chunk_tokens = n;
        cfg.set_by_flag("chunk_tokens", "--chunk-tokens");
    }
    if let Some(n) = args.max_file_bytes {
        cfg.max_file_bytes = n;
        cfg.set_by_flag("max_file_bytes", "--max-file-bytes");
    }
    let access = if args.repair {
        Access::Repair
    } else {
        Access::Write
    };
    let mut engine = Engine::open_with_default_model(cfg, access)?;
    let report = ingest(
        &mut engine,
        &args.paths,
        &IngestOptions {
            prune: args.prune,
            progress: !args.json,
            repair: args.repair,
            verify: args.verify,
        },
    )
    .context("ingest")?;
    emit(args.json, &report, render::ingest_report)?;
    Ok(exit_if(report.failed.is_empty(), 2))
}
