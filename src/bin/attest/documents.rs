//! `attest documents`: every indexed document as a source — path, title, type (declared
//! or inferred), authority, collection, effective dates, supersessions, pages, chunks
//! (exit 1 when none matches).

use std::process::ExitCode;

use attest::authority::Catalog;
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
    let mut catalog = Catalog::load(&engine)?;
    let filter = args.sources.filter()?;
    let ids = match args.sources.scope.is_empty() {
        true => None,
        false => Some(crate::ask::scope_ids(&engine, &args.sources.scope)?),
    };
    let selected = filter.select(&catalog);
    catalog.documents.retain(|d| {
        (filter.is_empty() || selected.doc_ids.contains(&d.doc_id))
            && ids.as_ref().is_none_or(|s| s.contains(&d.doc_id))
    });
    emit(args.json, &catalog, render::catalog)?;
    Ok(exit_if(!catalog.documents.is_empty(), 1))
}
