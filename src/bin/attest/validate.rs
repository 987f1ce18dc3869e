//! `attest validate`: a text's citations against an evidence file, or an audit replay
//! (exit 0 passed, 1 violations or drift).

use std::path::PathBuf;
use std::process::ExitCode;

use attest::config::Config;
use attest::render;
use attest::validate::{check_file, replay_audit, CheckOptions};

use crate::{emit, exit_if, finite_f64};

#[derive(clap::Args)]
pub struct Args {
    /// Text to check (Markdown or plain text; `[E1]`, `[E1, E3]`, `[E1][E3]`, `[cite:ID]`)
    #[arg(required_unless_present = "audit", requires = "evidence")]
    file: Option<PathBuf>,
    /// Evidence JSON: an array of items with "id" (and "quote"), or an answer JSON
    /// with "evidence"
    #[arg(long)]
    evidence: Option<PathBuf>,
    /// Replay this audit file (attest ask --audit): re-check every cited quote
    /// against the current index and report drift
    #[arg(long, conflicts_with_all = ["file", "evidence"])]
    audit: Option<PathBuf>,
    /// Skip the support check of sentences that are not verbatim quotes
    #[arg(long)]
    no_support: bool,
    /// Threshold preset: lenient, standard or strict
    #[arg(long, default_value = "standard")]
    preset: String,
    /// Override: citations every paragraph needs
    #[arg(long)]
    min_citations: Option<usize>,
    /// Override: minimum citations per 100 words
    #[arg(long, value_parser = finite_f64)]
    min_density: Option<f64>,
    /// Print as JSON
    #[arg(long)]
    json: bool,
}

pub fn run(cfg: Config, args: Args) -> anyhow::Result<ExitCode> {
    if let Some(audit) = args.audit {
        let r = replay_audit(&cfg, &audit)?;
        emit(args.json, &r, render::replay)?;
        return Ok(exit_if(r.passed, 1));
    }
    let (Some(file), Some(evidence)) = (args.file, args.evidence) else {
        anyhow::bail!("validate needs FILE and --evidence, or --audit");
    };
    let opts = CheckOptions {
        support: !args.no_support,
        preset: args.preset,
        min_citations: args.min_citations,
        min_density: args.min_density,
    };
    let r = check_file(&cfg, &file, &evidence, &opts)?;
    emit(args.json, &r, render::gate)?;
    Ok(exit_if(r.passed, 1))
}
