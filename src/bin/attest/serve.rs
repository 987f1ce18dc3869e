//! `attest serve` (the HTTP API, metrics and evidence viewer) and `attest mcp` (the MCP
//! server over stdio): the index and models are loaded once, then requests are served
//! until SIGINT/SIGTERM (serve) or until the client closes standard input (mcp).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use attest::config::Config;
use attest::server::{serve, ServeOptions};
use attest::service::Service;

use crate::{flag_help, out};

#[derive(clap::Args)]
pub struct Args {
    /// Address to listen on (port 0: any free port, printed on standard output)
    #[arg(long, default_value = "127.0.0.1:7878")]
    addr: SocketAddr,
    /// Allow a non-loopback address; requires a bearer token (ATTEST_TOKEN or
    /// serve_token in attest.toml)
    #[arg(long)]
    allow_remote: bool,
    /// Another host name clients may use to reach the server (repeatable; the Host
    /// header must name the bound address, localhost, or one of these)
    #[arg(long = "host", value_name = "NAME")]
    hosts: Vec<String>,
    /// Watch these files or folders while serving: each burst of changes is ingested
    /// (as `attest watch` does); requests see the corpus version of their start
    #[arg(long = "watch", value_name = "PATH")]
    watch: Vec<PathBuf>,
    /// Milliseconds without a change that end a burst (with --watch)
    #[arg(long, default_value_t = 500, value_parser = clap::value_parser!(u64).range(10..=60_000))]
    debounce_ms: u64,
    #[command(flatten)]
    common: Common,
}

/// Options both servers take.
#[derive(clap::Args)]
pub struct Common {
    #[arg(long, help = flag_help("serve_workers"))]
    workers: Option<usize>,
    /// Do not load the configured generator (answers are extractive)
    #[arg(long)]
    no_generator: bool,
}

#[derive(clap::Args)]
pub struct McpArgs {
    #[command(flatten)]
    common: Common,
}

/// The service of `cfg`, loaded once.
fn service(mut cfg: Config, common: &Common) -> anyhow::Result<Arc<Service>> {
    if let Some(w) = common.workers {
        cfg.serve_workers = w;
        cfg.set_by_flag("serve_workers", "--workers");
        cfg.validate()?;
    }
    let workers = cfg.serve_workers;
    Ok(Arc::new(Service::open(cfg, workers, !common.no_generator)?))
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")
}

pub fn run(cfg: Config, args: Args) -> anyhow::Result<ExitCode> {
    if !args.watch.is_empty() {
        crate::watch::spawn(cfg.clone(), args.watch.clone(), args.debounce_ms)?;
    }
    let service = service(cfg, &args.common)?;
    let opts = ServeOptions {
        addr: args.addr,
        allow_remote: args.allow_remote,
        hosts: args.hosts,
    };
    runtime()?.block_on(serve(service, opts, |bound| {
        // The one line on standard output: tests and scripts read the port from it.
        if let Err(e) = out(&format!("attest: listening on http://{bound}\n")) {
            tracing::warn!("{e}");
        }
    }))?;
    Ok(ExitCode::SUCCESS)
}

pub fn run_mcp(cfg: Config, args: McpArgs) -> anyhow::Result<ExitCode> {
    let service = service(cfg, &args.common)?;
    runtime()?.block_on(attest::mcp::serve_stdio(service))?;
    Ok(ExitCode::SUCCESS)
}
