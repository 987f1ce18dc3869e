//! `attest migrate`: copy the corpus to another backend (exit 0 copied, 2 error).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use attest::config::{BackendKind, Config};
use attest::ingest::migrate::{migrate, MigrateReport};

use crate::{emit, say};

#[derive(clap::Args)]
pub struct Args {
    /// Backend to copy into: sqlite (an index directory) or milvus (a Milvus server). The
    /// source is the configured backend (`--backend`, `backend` in attest.toml)
    #[arg(long)]
    to: BackendKind,
    /// Index directory of a sqlite target [default: --index]
    #[arg(long)]
    to_index: Option<PathBuf>,
    /// Milvus server URL of a milvus target [default: milvus_url]
    #[arg(long)]
    to_url: Option<String>,
    /// Collection prefix of a milvus target [default: milvus_prefix]
    #[arg(long)]
    to_prefix: Option<String>,
    /// Remove from the target the files the source does not hold (an earlier copy of this
    /// corpus, after the source pruned files); without it such a target is refused
    #[arg(long)]
    prune: bool,
    /// Print as JSON
    #[arg(long)]
    json: bool,
}

pub fn run(cfg: Config, args: Args) -> anyhow::Result<ExitCode> {
    let mut to = cfg.clone();
    to.backend = args.to;
    if let Some(dir) = args.to_index {
        to.index = dir;
    }
    if let Some(url) = args.to_url {
        to.milvus_url = url;
    }
    if let Some(prefix) = args.to_prefix {
        to.milvus_prefix = prefix;
    }
    to.validate()?;
    let mut last = Instant::now();
    let mut progress = |r: &MigrateReport| {
        if last.elapsed() >= Duration::from_secs(5) {
            last = Instant::now();
            say(&format!(
                "migrate: {} of {} files ({} copied, {} already there)",
                r.copied + r.already_there,
                r.files,
                r.copied,
                r.already_there
            ));
        }
    };
    let report = migrate(&cfg, &to, args.prune, &mut progress)?;
    emit(args.json, &report, human)?;
    Ok(ExitCode::SUCCESS)
}

fn human(r: &MigrateReport) -> String {
    format!(
        "migrated {} -> {}\n  files: {} ({} copied, {} already there, {} pruned)\n  documents: {}, chunks: {}, \
         source declarations: {}\n  corpus version {}; {:.1} s (dense index {:.1} s)\n",
        r.from,
        r.to,
        r.files,
        r.copied,
        r.already_there,
        r.pruned,
        r.documents,
        r.chunks,
        r.declarations,
        r.corpus_version,
        r.total_ms as f64 / 1000.0,
        r.index_ms as f64 / 1000.0
    )
}
