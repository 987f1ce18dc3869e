//! `attest ingest`: bring files into the index (exit 2 when a file failed).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use attest::config::Config;
use attest::engine::{Access, Engine};
use attest::ingest::{ingest, IngestOptions};
use attest::render;
use attest::source::SourceRule;

use crate::{emit, exit_if, flag_help};

#[derive(clap::Args)]
pub struct Args {
    /// Files or directories
    #[arg(required_unless_present_any = ["repair", "reembed"])]
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
    /// Embed every stored chunk again with the bi-encoder now configured (after changing
    /// `embed_precision` or the model; under `auto`, at the precision a new index gets),
    /// from the stored documents, before ingesting any paths given
    #[arg(long)]
    reembed: bool,
    #[arg(long, help = flag_help("chunk_tokens"))]
    chunk_tokens: Option<usize>,
    #[arg(long, help = flag_help("max_file_bytes"))]
    max_file_bytes: Option<u64>,
    /// Declare the source type of the documents under these paths (statute,
    /// regulation, policy, guidance, faq, form, report, contract, other)
    #[arg(long, value_name = "TYPE")]
    source_type: Option<attest::source::SourceType>,
    /// Declare their collection
    #[arg(long, value_name = "NAME")]
    collection: Option<String>,
    /// Declare their jurisdiction
    #[arg(long, value_name = "NAME")]
    jurisdiction: Option<String>,
    /// Declare their authority rank (higher governs; default by type)
    #[arg(long, value_name = "N")]
    authority: Option<i64>,
    /// Declare the first day they are in effect (YYYY-MM-DD)
    #[arg(long, value_name = "DATE")]
    effective_from: Option<attest::source::Date>,
    /// Declare the day they stop being in effect (YYYY-MM-DD, exclusive)
    #[arg(long, value_name = "DATE")]
    effective_to: Option<attest::source::Date>,
    /// Declare a source they supersede, by name (repeatable)
    #[arg(long, value_name = "NAME")]
    supersedes: Vec<String>,
    /// Ingest only this share of the files, as writer K of N concurrent ingests into one
    /// Milvus backend (`--shard 0/2` on one machine, `--shard 1/2` on another); a file's
    /// share is fixed by a hash of its path
    #[arg(long, value_name = "K/N", value_parser = parse_shard)]
    shard: Option<(u64, u64)>,
    /// Print the summary as JSON
    #[arg(long)]
    json: bool,
}

/// `K/N` with `K < N`.
fn parse_shard(s: &str) -> Result<(u64, u64), String> {
    let (k, n) = s
        .split_once('/')
        .ok_or_else(|| format!("expected K/N (e.g. 0/2), not {s:?}"))?;
    let k: u64 = k.trim().parse().map_err(|e| format!("{s:?}: {e}"))?;
    let n: u64 = n.trim().parse().map_err(|e| format!("{s:?}: {e}"))?;
    if n == 0 || k >= n {
        return Err(format!("{s:?}: K must be below N and N at least 1"));
    }
    Ok((k, n))
}

impl Args {
    /// The declaration the flags make for `root` (`None` when they declare nothing).
    fn declaration(&self, root: &str) -> Option<SourceRule> {
        let rule = SourceRule {
            path: root.to_string(),
            source_type: self.source_type,
            authority: self.authority,
            jurisdiction: self.jurisdiction.clone(),
            collection: self.collection.clone(),
            effective_from: self.effective_from,
            effective_to: self.effective_to,
            supersedes: self.supersedes.clone(),
        };
        rule.declares().then_some(rule)
    }
}

/// Record the flags' declaration for every path ingested (kept across re-ingests; a
/// later declaration for the same path replaces it).
fn declare(engine: &Engine, args: &Args) -> anyhow::Result<()> {
    for p in &args.paths {
        let Ok(canonical) = p.canonicalize() else {
            continue;
        };
        let root = attest::store::path_key(&canonical);
        if let Some(rule) = args.declaration(&root) {
            rule.check().map_err(|e| anyhow::anyhow!("{e}"))?;
            engine
                .store()
                .set_source_decl(&root, &serde_json::to_string(&rule)?)?;
        }
    }
    Ok(())
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
    if args.reembed {
        // A conversion under `auto` converts to what a new index would be embedded at.
        let precision = cfg
            .embed_precision
            .fixed()
            .unwrap_or_else(attest::models::default_precision);
        let mut model =
            attest::models::MiniLm::load_default_at(cfg.model_dir.as_deref(), precision)?;
        model.batch_tokens = cfg.embed_batch_tokens.max(1);
        let report = attest::ingest::reembed::reembed(&cfg, &model).context("re-embed")?;
        if args.paths.is_empty() && !args.repair {
            emit(args.json, &report, render::reembed_report)?;
            return Ok(ExitCode::SUCCESS);
        }
        eprint!("{}", render::reembed_report(&report));
    }
    let access = if args.repair {
        Access::Repair
    } else {
        Access::Write
    };
    let mut engine = Engine::open_with_default_model(cfg, access)?;
    declare(&engine, &args)?;
    let report = ingest(
        &mut engine,
        &args.paths,
        &IngestOptions {
            prune: args.prune,
            progress: true,
            repair: args.repair,
            verify: args.verify,
            shard: args.shard,
        },
    )
    .context("ingest")?;
    emit(args.json, &report, render::ingest_report)?;
    Ok(exit_if(report.failed.is_empty(), 2))
}
