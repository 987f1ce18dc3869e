//! `attest status`: what the index holds (exit 1 when it is not consistent).

use std::process::ExitCode;

use attest::config::Config;
use attest::render;

use crate::{emit, exit_if};

#[derive(clap::Args)]
pub struct Args {
    /// Also check every stored vector, document text (UTF-8, content hash), chunk
    /// span and the full-text index; exit 1 when anything is damaged
    #[arg(long)]
    deep: bool,
    /// Print as JSON
    #[arg(long)]
    json: bool,
}

pub fn run(cfg: Config, args: Args) -> anyhow::Result<ExitCode> {
    let s = attest::status::status(&cfg, args.deep)?;
    emit(args.json, &s, render::status)?;
    Ok(exit_if(s.index.consistent, 1))
}
