//! `attest search`: hits for a query (exit 1 when there are none).

use std::process::ExitCode;

use attest::config::Config;
use attest::engine::Engine;
use attest::render;
use attest::retrieve::multi::{retrieve, KeywordPrf, MultiOptions};
use attest::retrieve::{search_in, Mode};

use crate::{emit, exit_if, finite_f64, flag_help};

#[derive(clap::Args)]
pub struct Args {
    /// The query
    query: String,
    /// Number of hits
    #[arg(long, short, default_value_t = 10)]
    k: usize,
    /// hybrid, dense or lexical
    #[arg(long, default_value = "hybrid")]
    mode: Mode,
    #[arg(long, value_parser = finite_f64, help = flag_help("rrf_k"))]
    rrf_k: Option<f64>,
    #[arg(long, help = flag_help("candidates"))]
    candidates: Option<usize>,
    /// Retrieval stage: primary query plus keyword and feedback alternatives, pooled
    /// and fused, reranked by a cross-encoder when one is installed (--mode is ignored)
    #[arg(long)]
    multi_query: bool,
    /// With --multi-query: keep the fused order even when a cross-encoder is installed
    #[arg(long)]
    no_rerank: bool,
    #[command(flatten)]
    sources: crate::sources::Sources,
    /// Print results as JSON
    #[arg(long)]
    json: bool,
}

pub fn run(mut cfg: Config, args: Args) -> anyhow::Result<ExitCode> {
    if let Some(r) = args.rrf_k {
        cfg.rrf_k = r;
        cfg.set_by_flag("rrf_k", "--rrf-k");
    }
    if let Some(c) = args.candidates {
        cfg.candidates = c;
        cfg.set_by_flag("candidates", "--candidates");
    }
    let engine = Engine::open_with_default_model(cfg, false)?;
    let scope = args.sources.restrict(&engine)?;
    if args.multi_query {
        let opts = MultiOptions {
            k: args.k,
            scope,
            rerank_depth: engine.config().rerank_depth,
            per_document: engine.config().max_chunks_per_document,
            ..MultiOptions::default()
        };
        let reranker = if args.no_rerank {
            None
        } else {
            engine.reranker()
        };
        let r = retrieve(
            &engine,
            &args.query,
            &KeywordPrf::default(),
            &Default::default(),
            reranker,
            &opts,
        )?;
        emit(args.json, &r, render::retrieval)?;
        return Ok(exit_if(!r.hits.is_empty(), 1));
    }
    let result = search_in(&engine, &args.query, args.mode, args.k, scope.as_deref())?;
    emit(args.json, &result, render::search_result)?;
    Ok(exit_if(!result.hits.is_empty(), 1))
}
