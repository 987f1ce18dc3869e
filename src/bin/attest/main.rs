//! The `attest` command: parses arguments, runs the library, prints, and maps outcomes to
//! exit codes (0 success, 1 no result, 2 error including partial ingest failures).
//!
//! This file holds the global options and the dispatch; each subcommand's options, its
//! call into the library and its exit code live in a module of its own.
//!
//! Output: every write to standard output goes through [`out`]: a write error (a full
//! disk) is an error (exit 2) with a message, and a closed pipe (`attest … | head`) ends
//! the output quietly while the command keeps its exit code. Messages on standard error
//! go through [`say`], which never fails (there is nowhere left to report that).

mod ask;
mod batch;
mod documents;
mod eval;
mod ingest;
mod migrate;
mod requirements;
mod review;
mod search;
mod serve;
mod sources;
mod status;
mod validate;
mod watch;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};

use attest::config::Config;
use attest::render;

#[derive(Parser)]
#[command(
    name = "attest",
    version,
    about = "Answers from your own documents, every sentence backed by verbatim, span-checked evidence"
)]
struct Cli {
    #[arg(long, global = true, help = global_help("index"))]
    index: Option<PathBuf>,
    /// Configuration file [default: ./attest.toml when present]
    #[arg(long, global = true)]
    config: Option<PathBuf>,
    #[arg(long, global = true, help = global_help("model_dir"))]
    model_dir: Option<PathBuf>,
    #[arg(long, global = true, help = global_help("generator"))]
    generator: Option<PathBuf>,
    #[arg(long, global = true, help = global_help("backend"))]
    backend: Option<attest::config::BackendKind>,
    /// More logging on stderr (repeat for more)
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    verbose: u8,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Ingest files and directories (md, markdown, txt, html, htm, xml, pdf, docx, BEIR jsonl,
    /// and png, jpg, jpeg, tif, tiff images read by OCR) into the index
    Ingest(ingest::Args),
    /// Ingest files and folders, then keep the index in step with them: every burst of
    /// changes (files created, modified, renamed or deleted) is ingested again, with
    /// files gone removed; one line per run (stop with Ctrl-C)
    Watch(watch::Args),
    /// Search the index (hybrid dense + BM25 by default)
    Search(search::Args),
    /// Copy the corpus (documents, text, chunks, vectors, source declarations) from the
    /// configured backend to another one, without reading or embedding the files again;
    /// an interrupted copy resumes when run again
    Migrate(migrate::Args),
    /// Answer a question from the index: every sentence a verbatim, span-checked quote
    /// with its citation, or "no authoritative evidence" (exit 0 answered, 1 no
    /// authoritative evidence, 2 rejected input or error)
    Ask(ask::Args),
    /// Measure the engine (see `attest eval search --help`)
    Eval {
        #[command(subcommand)]
        what: eval::EvalCommand,
    },
    /// Check a text's citations against an evidence file with the Evidence Gate, or
    /// replay an audit trail against the current index (exit 0 passed, 1 violations or
    /// drift, 2 error)
    Validate(validate::Args),
    /// Show what the index holds and whether it is healthy
    Status(status::Args),
    /// List the indexed documents as sources: type (declared or inferred), authority,
    /// collection, effective dates, supersessions, pages and chunks
    Documents(documents::Args),
    /// List the requirement sentences (must, shall, shall not, required, prohibited, may
    /// not) of the selected sources as items: REQ-S… for statutes and regulations, REQ-P…
    /// for policy and guidance, each with document, section, provision, quote and span
    Requirements(requirements::Args),
    /// Review the indexed documents against a checklist: verified evidence, typed field
    /// values with their spans, cross-document checks and a status per requirement
    /// (exit 0 every mandatory requirement evidenced, 1 otherwise, 2 error)
    Review(review::Args),
    /// Serve the HTTP API (ask, search, review, validate with a 422 Evidence Gate,
    /// documents, evidence), Prometheus metrics and the evidence viewer on a loopback
    /// address, with the models loaded once (stops on SIGINT/SIGTERM)
    Serve(serve::Args),
    /// Serve the tools ask, search, validate, review and status and the documents as
    /// resources over the Model Context Protocol on standard input and output
    Mcp(serve::McpArgs),
}

/// Help of a subcommand flag that sets the configuration key `key`: the declared help and
/// default.
fn flag_help(key: &str) -> String {
    let s = attest::config::setting(key).expect("a declared setting");
    format!("{} [default: {}]", s.help, s.default_text())
}

/// Help of a global flag that sets the configuration key `key`: the declared help,
/// environment variable and default.
fn global_help(key: &str) -> String {
    let s = attest::config::setting(key).expect("a declared setting");
    format!(
        "{} [env: {}] [default: {}]",
        s.help,
        s.env,
        s.default_text()
    )
}

/// Write `text` to standard output and flush. A closed pipe drops the rest quietly; any
/// other write error is returned.
fn out(text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    let mut o = std::io::stdout().lock();
    match o.write_all(text.as_bytes()).and_then(|()| o.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => r.context("writing to standard output"),
    }
}

/// Print `attest: MESSAGE` on standard error on one line, control characters escaped
/// (newlines included); a failed write is ignored.
fn say(message: &str) {
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr().lock(),
        "attest: {}",
        render::clean(message)
    );
}

/// Print `value` as pretty JSON, or in its human form.
fn emit<T: serde::Serialize>(json: bool, value: &T, human: fn(&T) -> String) -> anyhow::Result<()> {
    if json {
        out(&format!("{}\n", serde_json::to_string_pretty(value)?))
    } else {
        out(&human(value))
    }
}

/// Exit code 0 when `ok`, else `otherwise`.
fn exit_if(ok: bool, otherwise: u8) -> ExitCode {
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(otherwise)
    }
}

/// A flag value that must be a finite number (`nan` and `inf` would switch gates off).
fn finite_f64(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        Ok(_) => Err("not a finite number".into()),
        Err(e) => Err(e.to_string()),
    }
}

/// Parse the command line; help, version and usage errors are printed here, and a
/// failed write of them (other than a closed pipe) exits 2.
fn parse() -> Result<Cli, ExitCode> {
    Cli::try_parse().map_err(|e| match e.print() {
        Err(w) if w.kind() != std::io::ErrorKind::BrokenPipe => {
            say(&format!("writing the usage message: {w}"));
            ExitCode::from(2)
        }
        _ => ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2)),
    })
}

fn main() -> ExitCode {
    if let Some(code) = attest::corpus::load::pdf_worker_entry() {
        return ExitCode::from(code.clamp(0, 255) as u8);
    }
    let cli = match parse() {
        Ok(c) => c,
        Err(code) => return code,
    };
    let serving = matches!(cli.command, Command::Serve(_) | Command::Mcp(_));
    let filter = match cli.verbose {
        // A server logs every Evidence Gate check and its lifecycle.
        0 if serving => "warn,attest::gate=info,attest::server=info",
        0 => "warn",
        1 => "info",
        _ => "debug",
    };
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("ATTEST_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(filter)),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            say(&render::error_chain(e.as_ref()));
            ExitCode::from(2)
        }
    }
}

/// Load the configuration, apply the global flags and run the subcommand.
fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let mut cfg = Config::load(cli.config.as_deref())?;
    cfg.validate()?;
    if let Some(i) = cli.index {
        cfg.index = i;
    }
    if let Some(m) = cli.model_dir {
        cfg.model_dir = Some(m);
    }
    if let Some(g) = cli.generator {
        cfg.generator = Some(g);
    }
    if let Some(b) = cli.backend {
        cfg.backend = b;
        cfg.set_by_flag("backend", "--backend");
    }
    match cli.command {
        Command::Ingest(args) => ingest::run(cfg, args),
        Command::Watch(args) => watch::run(cfg, args),
        Command::Search(args) => search::run(cfg, args),
        Command::Migrate(args) => migrate::run(cfg, args),
        Command::Ask(args) => ask::run(cfg, args),
        Command::Eval { what } => eval::run(cfg, what),
        Command::Validate(args) => validate::run(cfg, args),
        Command::Status(args) => status::run(cfg, args),
        Command::Documents(args) => documents::run(cfg, args),
        Command::Requirements(args) => requirements::run(cfg, args),
        Command::Review(args) => review::run(cfg, args),
        Command::Serve(args) => serve::run(cfg, args),
        Command::Mcp(args) => serve::run_mcp(cfg, args),
    }
}
