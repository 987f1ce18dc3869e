//! `attest ask`: a cited answer (exit 0 answered, 1 no authoritative evidence or an
//! undecided answer choice, 2 rejected input).

use std::path::PathBuf;
use std::process::ExitCode;

use attest::answer::Status;
use attest::ask::{ask, AskOptions};
use attest::config::Config;
use attest::engine::Engine;
use attest::export::Format;
use attest::render;

use crate::{finite_f64, flag_help, out, say};

#[derive(clap::Args)]
pub struct Args {
    /// The question (several words are joined with spaces)
    #[arg(required_unless_present = "questions", num_args = 1..)]
    question: Vec<String>,
    /// Ask every question of this file (one per line, or JSON Lines with `id` and
    /// `question`); results go to standard output, one per question, and a summary to
    /// standard error. Exit status 0 once every question was asked, whatever the answers
    /// (questions that abstain or are rejected are counted in the summary and marked by
    /// each result's status, not by the exit status); 2 on an error: a file that cannot be
    /// read or holds a bad line (refused before any question is asked), or a failure that
    /// stops the batch
    #[arg(long, value_name = "FILE", conflicts_with_all = ["question", "audit"])]
    pub questions: Option<PathBuf>,
    /// Write the batch summary (questions, answered, abstained, rejected, time) as JSON to
    /// this file
    #[arg(long, value_name = "FILE", requires = "questions")]
    pub summary: Option<PathBuf>,
    /// Output format: text, json (JSON Lines for a batch), md (Markdown: the cited answer
    /// and its quotes with `source p. N § section`) or csv (one row per cited item)
    #[arg(long, value_name = "FORMAT", conflicts_with = "json")]
    format: Option<attest::export::Format>,
    #[arg(long, help = flag_help("ask_chunks"))]
    chunks: Option<usize>,
    #[arg(long, help = flag_help("max_statements"))]
    max_statements: Option<usize>,
    #[arg(long, value_parser = finite_f64, help = flag_help("min_relevance"))]
    min_relevance: Option<f64>,
    /// Evidence Gate preset: lenient, standard or strict
    #[arg(long, default_value = "standard")]
    preset: String,
    /// Do not use an installed cross-encoder
    #[arg(long)]
    no_rerank: bool,
    /// One retrieval step even for multi-hop questions (no research loop)
    #[arg(long)]
    single_step: bool,
    /// Neither serve nor store answers in the QA memory
    #[arg(long)]
    no_memory: bool,
    /// Do not use the configured generator (the answer is extractive)
    #[arg(long)]
    no_generator: bool,
    #[command(flatten)]
    sources: crate::sources::Sources,
    /// Add the research steps, retrieved chunks, rejected items and timings
    #[arg(long)]
    explain: bool,
    /// Write the full lineage (audit trail) as JSON to this file
    #[arg(long)]
    audit: Option<PathBuf>,
    /// Print the answer JSON (the same as --format json)
    #[arg(long)]
    json: bool,
}

impl Args {
    /// The output format the flags ask for.
    pub fn output(&self) -> Format {
        match (self.json, self.format) {
            (true, _) => Format::Json,
            (false, Some(f)) => f,
            (false, None) => Format::Text,
        }
    }
}

/// The ids of the indexed documents under `paths`; an error names a path that does not
/// exist or holds no indexed document.
pub fn scope_ids(
    engine: &Engine,
    paths: &[PathBuf],
) -> anyhow::Result<std::collections::HashSet<String>> {
    let mut roots = Vec::with_capacity(paths.len());
    for p in paths {
        let canonical = p
            .canonicalize()
            .map_err(|e| anyhow::anyhow!("--scope {}: {e}", p.display()))?;
        roots.push(canonical.to_string_lossy().into_owned());
    }
    let ids = engine.store().doc_ids_under(&roots)?;
    if ids.is_empty() {
        anyhow::bail!(
            "--scope: no indexed document under {}",
            paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    Ok(ids)
}

pub fn run(mut cfg: Config, args: Args) -> anyhow::Result<ExitCode> {
    if let Some(n) = args.chunks {
        cfg.ask_chunks = n;
        cfg.set_by_flag("ask_chunks", "--chunks");
    }
    if let Some(n) = args.max_statements {
        cfg.max_statements = n;
        cfg.set_by_flag("max_statements", "--max-statements");
    }
    if let Some(r) = args.min_relevance {
        cfg.min_relevance = r;
        cfg.set_by_flag("min_relevance", "--min-relevance");
    }
    let mut opts = AskOptions::from_config(&cfg);
    opts.gate = attest::validate::configured_preset(&cfg, &args.preset)?;
    opts.rerank = !args.no_rerank;
    opts.research = !args.single_step;
    opts.memory &= !args.no_memory;
    if args.no_generator {
        cfg.generator = None;
    }
    if let Some(path) = &args.audit {
        // Refuse a path that cannot take the audit before any work is done.
        attest::outfile::check(path)?;
    }
    let mut engine = Engine::open_with_default_model(cfg, false)?;
    engine.load_generator()?;
    opts.scope = args.sources.restrict(&engine)?;
    if let Some(file) = &args.questions {
        return crate::batch::run(&engine, &opts, file, &args);
    }
    let question = args.question.join(" ");
    let run = ask(&engine, &question, &opts)?;
    if let Some(path) = &args.audit {
        attest::audit::write(path, &engine, &run)?;
    }
    let json = args.output() == Format::Json;
    match args.output() {
        Format::Json => out(&format!("{}\n", serde_json::to_string_pretty(&run.answer)?))?,
        Format::Markdown => out(&attest::export::markdown(&run.answer))?,
        Format::Csv => out(&csv_of(&[("1", &run.answer)])?)?,
        Format::Text if args.explain => out(&render::answer_explained(&run))?,
        Format::Text => out(&render::answer(&run.answer))?,
    }
    let undecided = run
        .answer
        .choice
        .as_ref()
        .is_some_and(|c| c.selected.is_none());
    Ok(match run.answer.status {
        Status::Answered if undecided => ExitCode::from(1),
        Status::Answered => ExitCode::SUCCESS,
        Status::NoAuthoritativeEvidence | Status::StatedAbsent => ExitCode::from(1),
        Status::RejectedInput => {
            if !json {
                say(run
                    .answer
                    .reason
                    .as_deref()
                    .unwrap_or("question not accepted"));
            }
            ExitCode::from(2)
        }
    })
}

/// `answers` (question id, answer) as CSV with its header.
pub fn csv_of(answers: &[(&str, &attest::answer::Answer)]) -> anyhow::Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(attest::export::CSV_HEADER)?;
    for (id, a) in answers {
        attest::export::csv_rows(&mut w, id, a)?;
    }
    Ok(String::from_utf8(w.into_inner()?)?)
}
