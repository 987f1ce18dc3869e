//! `attest requirements`: the obligations the selected sources impose, as items with ids
//! (`REQ-S001` statutes and regulations, `REQ-P001` policy and guidance), document,
//! section, finest provision, quote, span and confidence (exit 1 when there are none).

use std::process::ExitCode;

use attest::config::Config;
use attest::engine::Engine;
use attest::render;

use crate::{emit, exit_if};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    sources: crate::sources::Sources,
    /// Print as JSON
    #[arg(long)]
    json: bool,
}

pub fn run(cfg: Config, args: Args) -> anyhow::Result<ExitCode> {
    let engine = Engine::open_with_default_model(cfg, false)?;
    let mut filter = args.sources.filter()?;
    for p in &args.sources.scope {
        let canonical = p
            .canonicalize()
            .map_err(|e| anyhow::anyhow!("--scope {}: {e}", p.display()))?;
        filter.scope.push(attest::store::path_key(&canonical));
    }
    let list = attest::authority::requirements::requirements(&engine, &filter)?;
    emit(args.json, &list, |l| render::requirements(l))?;
    Ok(exit_if(!list.is_empty(), 1))
}
