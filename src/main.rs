//! The `attest` command: parses arguments, runs the library, prints, and maps outcomes to
//! exit codes (0 success, 1 no result, 2 error including partial ingest failures).
//!
//! Output: every write to standard output goes through [`out`]: a write error (a full
//! disk) is an error (exit 2) with a message, and a closed pipe (`attest … | head`) ends
//! the output quietly while the command keeps its exit code. Messages on standard error
//! go through [`say`], which never fails (there is nowhere left to report that).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};

use attest::config::Config;
use attest::engine::Engine;
use attest::ingest::{ingest, IngestOptions};
use attest::retrieve::{search, Mode};
use attest::{render, status};

#[derive(Parser)]
#[command(
    name = "attest",
    version,
    about = "Answers from your own documents, every sentence backed by verbatim, span-checked evidence"
)]
struct Cli {
    /// Index directory [env: ATTEST_INDEX] [default: .attest]
    #[arg(long, global = true)]
    index: Option<PathBuf>,
    /// Configuration file [default: ./attest.toml when present]
    #[arg(long, global = true)]
    config: Option<PathBuf>,
    /// Bi-encoder model directory [env: ATTEST_MODEL_DIR] [default: models/all-MiniLM-L6-v2]
    #[arg(long, global = true)]
    model_dir: Option<PathBuf>,
    /// GGUF model that phrases answers (`ask`, `eval answers`) [env: ATTEST_GENERATOR]
    /// [default: none, answers are extractive]
    #[arg(long, global = true)]
    generator: Option<PathBuf>,
    /// More logging on stderr (repeat for more)
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    verbose: u8,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Ingest files and directories (md, markdown, txt, html, htm, pdf, BEIR jsonl) into the index
    Ingest {
        /// Files or directories
        #[arg(required_unless_present = "repair")]
        paths: Vec<PathBuf>,
        /// Remove documents whose files are gone from an ingested root
        #[arg(long)]
        prune: bool,
        /// Re-read every document whose stored state is damaged (see `status --deep`)
        /// from its file, even when its size and time are unchanged, and rebuild the
        /// full-text and dense indexes
        #[arg(long)]
        repair: bool,
        /// Chunk budget in model tokens [default: 200]
        #[arg(long)]
        chunk_tokens: Option<usize>,
        /// Largest file ingested, in bytes [default: 52428800]
        #[arg(long)]
        max_file_bytes: Option<u64>,
        /// Print the summary as JSON
        #[arg(long)]
        json: bool,
    },
    /// Search the index (hybrid dense + BM25 by default)
    Search {
        /// The query
        query: String,
        /// Number of hits
        #[arg(long, short, default_value_t = 10)]
        k: usize,
        /// hybrid, dense or lexical
        #[arg(long, default_value = "hybrid")]
        mode: Mode,
        /// Reciprocal rank fusion constant [default: 60]
        #[arg(long, value_parser = finite_f64)]
        rrf_k: Option<f64>,
        /// Candidates per retriever before fusion [default: 100]
        #[arg(long)]
        candidates: Option<usize>,
        /// Retrieval stage: primary query plus keyword and feedback alternatives, pooled
        /// and fused, reranked by a cross-encoder when one is installed (--mode is ignored)
        #[arg(long)]
        multi_query: bool,
        /// With --multi-query: keep the fused order even when a cross-encoder is installed
        #[arg(long)]
        no_rerank: bool,
        /// Print results as JSON
        #[arg(long)]
        json: bool,
    },
    /// Answer a question from the index: every sentence a verbatim, span-checked quote
    /// with its citation, or "no authoritative evidence" (exit 0 answered, 1 no
    /// authoritative evidence, 2 rejected input or error)
    Ask {
        /// The question (several words are joined with spaces)
        #[arg(required = true, num_args = 1..)]
        question: Vec<String>,
        /// Chunks to draw evidence from [default: 5]
        #[arg(long)]
        chunks: Option<usize>,
        /// Distinct statements in the answer at most [default: 4]
        #[arg(long)]
        max_statements: Option<usize>,
        /// Minimum relevance of an evidence item without a cross-encoder [default: 0.42]
        #[arg(long, value_parser = finite_f64)]
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
        /// Add the research steps, retrieved chunks, rejected items and timings
        #[arg(long)]
        explain: bool,
        /// Write the full lineage (audit trail) as JSON to this file
        #[arg(long)]
        audit: Option<PathBuf>,
        /// Print the answer JSON
        #[arg(long)]
        json: bool,
    },
    /// Measure the engine (see `attest eval search --help`)
    Eval {
        #[command(subcommand)]
        what: EvalCommand,
    },
    /// Check a text's citations against an evidence file with the Evidence Gate, or
    /// replay an audit trail against the current index (exit 0 passed, 1 violations or
    /// drift, 2 error)
    Validate {
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
    },
    /// Show what the index holds and whether it is healthy
    Status {
        /// Also check every stored vector, document text (UTF-8, content hash), chunk
        /// span and the full-text index; exit 1 when anything is damaged
        #[arg(long)]
        deep: bool,
        /// Print as JSON
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
enum EvalCommand {
    /// Multi-hop evidence: questions with two or more gold paragraphs asked as one step
    /// and through the research loop; the share whose evidence includes every gold
    /// paragraph, side by side
    Multihop {
        /// Dataset directory (BEIR format)
        #[arg(long)]
        dataset: PathBuf,
        /// qrels split [default: the only one, else test]
        #[arg(long)]
        split: Option<String>,
        /// Index for the dataset [default: .attest-eval/<dataset directory name>]
        #[arg(long)]
        eval_index: Option<PathBuf>,
        /// Use at most this many questions
        #[arg(long)]
        limit: Option<usize>,
        /// Print as JSON
        #[arg(long)]
        json: bool,
    },
    /// Answer quality: every judged query of a BEIR split asked as a question against the
    /// dataset's corpus (or, with --questions-from, another dataset's queries, which the
    /// corpus cannot answer): answered/abstained shares, cited relevant documents,
    /// cited-item precision, invariants and latency
    Answers {
        /// Dataset directory whose corpus answers
        #[arg(long)]
        dataset: PathBuf,
        /// qrels split [default: the only one, else test]
        #[arg(long)]
        split: Option<String>,
        /// Ask this dataset's queries instead (an unanswerable run)
        #[arg(long)]
        questions_from: Option<PathBuf>,
        /// Split of --questions-from [default: the only one, else test]
        #[arg(long)]
        questions_split: Option<String>,
        /// Index for the dataset [default: .attest-eval/<dataset directory name>]
        #[arg(long)]
        eval_index: Option<PathBuf>,
        /// Use at most this many questions
        #[arg(long)]
        limit: Option<usize>,
        /// Do not use an installed cross-encoder
        #[arg(long)]
        no_rerank: bool,
        /// Include per-question outcomes in the JSON
        #[arg(long)]
        per_question: bool,
        /// Ask every answered question a second time with the QA memory on, and report
        /// memory hits and the repeat's latency
        #[arg(long)]
        repeat: bool,
        /// One retrieval step per question (no research loop)
        #[arg(long)]
        single_step: bool,
        /// Print as JSON
        #[arg(long)]
        json: bool,
    },
    /// The support check on AttributionBench-style jsonl (claim, references[],
    /// attribution_label): accuracy, macro-F1, and the calibrated thresholds
    Attribution {
        /// Dataset file
        #[arg(long)]
        dataset: PathBuf,
        /// Use at most this many rows
        #[arg(long)]
        limit: Option<usize>,
        /// Print as JSON
        #[arg(long)]
        json: bool,
    },
    /// Ranking quality (nDCG@10, Recall@10/100, MRR@10) and latency per mode on a BEIR
    /// dataset (corpus.jsonl, queries.jsonl, qrels/SPLIT.tsv), ingested into its own index
    Retrieval {
        /// Dataset directory
        #[arg(long)]
        dataset: PathBuf,
        /// qrels split [default: the only one, else test]
        #[arg(long)]
        split: Option<String>,
        /// Modes to compare (repeatable): lexical, dense, hybrid, hybrid+multi-query,
        /// hybrid+multi-query+rerank [default: all, +rerank when a cross-encoder is installed]
        #[arg(long)]
        mode: Vec<attest::eval::retrieval::EvalMode>,
        /// Index for the dataset [default: .attest-eval/<dataset directory name>]
        #[arg(long)]
        eval_index: Option<PathBuf>,
        /// Use at most this many queries
        #[arg(long)]
        limit: Option<usize>,
        /// Print as JSON
        #[arg(long)]
        json: bool,
    },
    /// Search latency per mode and HNSW recall@k against exact search, over a query file
    /// (BEIR queries.jsonl or one query per line) on an existing index
    Search {
        /// Query file
        #[arg(long)]
        queries: PathBuf,
        /// Hits per query
        #[arg(long, short, default_value_t = 10)]
        k: usize,
        /// Use at most this many queries
        #[arg(long)]
        limit: Option<usize>,
        /// Print as JSON
        #[arg(long)]
        json: bool,
    },
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
    let filter = match cli.verbose {
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
        .init();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            say(&render::error_chain(e.as_ref()));
            ExitCode::from(2)
        }
    }
}

/// The index an evaluation uses: `eval_index`, or `.attest-eval/<dataset directory name>`.
fn eval_index_dir(dataset: &std::path::Path, eval_index: Option<PathBuf>) -> PathBuf {
    eval_index.unwrap_or_else(|| {
        let name = dataset
            .canonicalize()
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "dataset".into());
        PathBuf::from(".attest-eval").join(name)
    })
}

/// Load a BEIR dataset's split, keeping at most `limit` queries.
fn load_dataset(
    dir: &std::path::Path,
    split: Option<&str>,
    limit: Option<usize>,
) -> anyhow::Result<attest::eval::retrieval::Dataset> {
    let mut ds = attest::eval::retrieval::Dataset::load(dir, split)?;
    if let Some(n) = limit {
        ds.queries.truncate(n.max(1));
    }
    Ok(ds)
}

/// Open (creating if needed) the evaluation index and bring the dataset's corpus into it.
fn open_eval_engine(
    cfg: Config,
    ds: &attest::eval::retrieval::Dataset,
    json: bool,
) -> anyhow::Result<Engine> {
    let mut engine = Engine::open_with_default_model(cfg, true)?;
    let r = ingest(
        &mut engine,
        &[ds.corpus()],
        &IngestOptions {
            prune: false,
            progress: !json,
            ..IngestOptions::default()
        },
    )?;
    if let Some(f) = r.failed.first() {
        anyhow::bail!("{}: {}", f.path, f.reason);
    }
    Ok(engine)
}

/// Print `value` as pretty JSON, or in its human form.
fn emit<T: serde::Serialize>(json: bool, value: &T, human: fn(&T) -> String) -> anyhow::Result<()> {
    if json {
        out(&format!("{}\n", serde_json::to_string_pretty(value)?))
    } else {
        out(&human(value))
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
    match cli.command {
        Command::Ingest {
            paths,
            prune,
            repair,
            chunk_tokens,
            max_file_bytes,
            json,
        } => {
            if let Some(n) = chunk_tokens {
                cfg.chunk_tokens = n;
                cfg.set_by_flag("chunk_tokens", "--chunk-tokens");
            }
            if let Some(n) = max_file_bytes {
                cfg.max_file_bytes = n;
                cfg.set_by_flag("max_file_bytes", "--max-file-bytes");
            }
            let access = if repair {
                attest::engine::Access::Repair
            } else {
                attest::engine::Access::Write
            };
            let mut engine = Engine::open_with_default_model(cfg, access)?;
            let report = ingest(
                &mut engine,
                &paths,
                &IngestOptions {
                    prune,
                    progress: !json,
                    repair,
                },
            )
            .context("ingest")?;
            emit(json, &report, render::ingest_report)?;
            Ok(if report.failed.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(2)
            })
        }
        Command::Search {
            query,
            k,
            mode,
            rrf_k,
            candidates,
            multi_query,
            no_rerank,
            json,
        } => {
            if let Some(r) = rrf_k {
                cfg.rrf_k = r;
                cfg.set_by_flag("rrf_k", "--rrf-k");
            }
            if let Some(c) = candidates {
                cfg.candidates = c;
                cfg.set_by_flag("candidates", "--candidates");
            }
            let engine = Engine::open_with_default_model(cfg, false)?;
            if multi_query {
                use attest::retrieve::multi::{retrieve, KeywordPrf, MultiOptions};
                let opts = MultiOptions {
                    k,
                    rerank_depth: engine.config().rerank_depth,
                    per_document: engine.config().max_chunks_per_document,
                    ..MultiOptions::default()
                };
                let reranker = if no_rerank { None } else { engine.reranker() };
                let r = retrieve(
                    &engine,
                    &query,
                    &KeywordPrf::default(),
                    &Default::default(),
                    reranker,
                    &opts,
                )?;
                emit(json, &r, render::retrieval)?;
                return Ok(if r.hits.is_empty() {
                    ExitCode::from(1)
                } else {
                    ExitCode::SUCCESS
                });
            }
            let result = search(&engine, &query, mode, k)?;
            emit(json, &result, render::search_result)?;
            Ok(if result.hits.is_empty() {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            })
        }
        Command::Ask {
            question,
            chunks,
            max_statements,
            min_relevance,
            preset,
            no_rerank,
            single_step,
            no_memory,
            no_generator,
            explain,
            audit,
            json,
        } => {
            use attest::answer::Status;
            use attest::ask::{ask, AskOptions};
            if let Some(n) = chunks {
                cfg.ask_chunks = n;
                cfg.set_by_flag("ask_chunks", "--chunks");
            }
            if let Some(n) = max_statements {
                cfg.max_statements = n;
                cfg.set_by_flag("max_statements", "--max-statements");
            }
            if let Some(r) = min_relevance {
                cfg.min_relevance = r;
                cfg.set_by_flag("min_relevance", "--min-relevance");
            }
            let mut opts = AskOptions::from_config(&cfg);
            opts.gate = attest::evidence::gate::GateConfig::preset(&preset).ok_or_else(|| {
                anyhow::anyhow!("unknown preset {preset:?} (lenient, standard, strict)")
            })?;
            opts.rerank = !no_rerank;
            opts.research = !single_step;
            opts.memory &= !no_memory;
            if no_generator {
                cfg.generator = None;
            }
            if let Some(path) = &audit {
                // Refuse a path that cannot take the audit before any work is done.
                attest::outfile::check(path)?;
            }
            let mut engine = Engine::open_with_default_model(cfg, false)?;
            engine.load_generator()?;
            let question = question.join(" ");
            let run = ask(&engine, &question, &opts)?;
            if let Some(path) = &audit {
                attest::audit::write(path, &engine, &run)?;
            }
            if json {
                out(&format!("{}\n", serde_json::to_string_pretty(&run.answer)?))?;
            } else if explain {
                out(&render::answer_explained(&run))?;
            } else {
                out(&render::answer(&run.answer))?;
            }
            let undecided = run
                .answer
                .choice
                .as_ref()
                .is_some_and(|c| c.selected.is_none());
            Ok(match run.answer.status {
                Status::Answered if undecided => ExitCode::from(1),
                Status::Answered => ExitCode::SUCCESS,
                Status::NoAuthoritativeEvidence => ExitCode::from(1),
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
        Command::Eval {
            what:
                EvalCommand::Multihop {
                    dataset,
                    split,
                    eval_index,
                    limit,
                    json,
                },
        } => {
            let ds = load_dataset(&dataset, split.as_deref(), limit)?;
            cfg.index = eval_index_dir(&dataset, eval_index);
            let mut opts = attest::ask::AskOptions::from_config(&cfg);
            opts.memory = false; // every question is researched, never served from memory
            let engine = open_eval_engine(cfg, &ds, json)?;
            let bar = attest::ingest::counter_bar(ds.queries.len() as u64, !json, "questions");
            let report = attest::eval::multihop::evaluate(&engine, &ds, &opts, |n| {
                bar.set_position(n as u64)
            })?;
            bar.finish_and_clear();
            emit(json, &report, render::multihop_eval)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Eval {
            what:
                EvalCommand::Answers {
                    dataset,
                    split,
                    questions_from,
                    questions_split,
                    eval_index,
                    limit,
                    no_rerank,
                    per_question,
                    repeat,
                    single_step,
                    json,
                },
        } => {
            use attest::eval::answers::{evaluate, relevance_sweep, AnswersReport};
            use attest::eval::retrieval::Dataset;
            let ds = Dataset::load(&dataset, split.as_deref())?;
            let from = match &questions_from {
                Some(d) => Some(Dataset::load(d, questions_split.as_deref())?),
                None => None,
            };
            let mut questions = from.as_ref().unwrap_or(&ds).queries.clone();
            if let Some(n) = limit {
                questions.truncate(n.max(1));
            }
            cfg.index = eval_index_dir(&dataset, eval_index);
            let mut opts = attest::ask::AskOptions::from_config(&cfg);
            opts.rerank = !no_rerank;
            // Every question is researched, never served from memory (with --repeat the
            // memory stores the first answer and serves the second).
            opts.memory = repeat;
            opts.research = !single_step;
            let mut engine = open_eval_engine(cfg, &ds, json)?;
            engine.load_generator()?;
            let bar = attest::ingest::counter_bar(questions.len() as u64, !json, "questions");
            let (metrics, results) = evaluate(
                &engine,
                &questions,
                from.is_none().then_some(&ds.qrels),
                &opts,
                repeat,
                |n| bar.set_position(n as u64),
            )?;
            bar.finish_and_clear();
            let report = AnswersReport {
                dataset: dataset.display().to_string(),
                split: from.as_ref().unwrap_or(&ds).split.clone(),
                questions_from: questions_from.map(|p| p.display().to_string()),
                answerable: from.is_none(),
                questions: results.len(),
                metrics,
                relevance_sweep: relevance_sweep(&results, &opts.relevance),
                per_question: if per_question { results } else { Vec::new() },
            };
            emit(json, &report, render::answers_eval)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Eval {
            what:
                EvalCommand::Attribution {
                    dataset,
                    limit,
                    json,
                },
        } => {
            let mut rows = attest::eval::attribution::read_rows(&dataset)?;
            if let Some(n) = limit {
                rows.truncate(n.max(1));
            }
            let mut model = attest::models::MiniLm::load_default(cfg.model_dir.as_deref())?;
            model.batch_tokens = cfg.embed_batch_tokens.max(1);
            let r = attest::eval::attribution::evaluate(
                &model,
                &rows,
                &attest::evidence::support::SupportConfig::default(),
                &dataset.display().to_string(),
            )?;
            emit(json, &r, render::attribution_eval)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Eval {
            what:
                EvalCommand::Retrieval {
                    dataset,
                    split,
                    mode,
                    eval_index,
                    limit,
                    json,
                },
        } => {
            let ds = load_dataset(&dataset, split.as_deref(), limit)?;
            cfg.index = eval_index_dir(&dataset, eval_index);
            // Documents are ranked up to depth 100: take enough candidates from each retriever.
            cfg.candidates = cfg.candidates.max(300);
            let engine = open_eval_engine(cfg, &ds, json)?;
            let modes = if mode.is_empty() {
                let mut m = attest::eval::retrieval::ALL_MODES.to_vec();
                if engine.reranker().is_some() {
                    m.push(attest::eval::retrieval::EvalMode::MultiQueryRerank);
                }
                m
            } else {
                mode
            };
            let report = attest::eval::retrieval::evaluate(&engine, &ds, &modes)?;
            emit(json, &report, render::retrieval_eval)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Eval {
            what:
                EvalCommand::Search {
                    queries,
                    k,
                    limit,
                    json,
                },
        } => {
            let mut engine = Engine::open_with_default_model(cfg, false)?;
            engine.ensure_graph()?;
            let mut qs = attest::eval::read_queries(&queries)?;
            if let Some(n) = limit {
                qs.truncate(n.max(1));
            }
            let modes = [Mode::Lexical, Mode::Dense, Mode::Hybrid];
            let r =
                attest::eval::eval_search(&engine, &qs, &queries.display().to_string(), k, &modes)?;
            emit(json, &r, render::search_eval)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Validate {
            file,
            evidence,
            audit,
            no_support,
            preset,
            min_citations,
            min_density,
            json,
        } => {
            use attest::evidence::gate::{check_external, GateConfig};
            if let Some(audit) = audit {
                let store = attest::store::Store::open_existing(&cfg.index)?;
                let mut r = attest::audit::replay(&store, &audit)?;
                if attest::evidence::support::needs_model(&r.answer, &r.quotes) {
                    let mut model = attest::models::MiniLm::load_default(cfg.model_dir.as_deref())?;
                    model.batch_tokens = cfg.embed_batch_tokens.max(1);
                    let v = attest::evidence::support::check_text(
                        &r.answer,
                        &r.quotes,
                        &model,
                        &attest::evidence::support::SupportConfig::default(),
                    )?;
                    // Claim violations were recorded by the replay already.
                    let v = v
                        .into_iter()
                        .filter(|x| !r.violations.contains(x))
                        .collect();
                    r.add_violations(v);
                }
                emit(json, &r, render::replay)?;
                return Ok(if r.passed {
                    ExitCode::SUCCESS
                } else {
                    ExitCode::from(1)
                });
            }
            let (Some(file), Some(evidence)) = (file, evidence) else {
                anyhow::bail!("validate needs FILE and --evidence, or --audit");
            };
            let mut gate = GateConfig::preset(&preset).ok_or_else(|| {
                anyhow::anyhow!("unknown preset {preset:?} (lenient, standard, strict)")
            })?;
            if let Some(n) = min_citations {
                gate.min_citations_per_paragraph = n;
            }
            if let Some(d) = min_density {
                anyhow::ensure!(d >= 0.0, "--min-density {d}: must not be negative");
                gate.min_density_per_100_words = d;
            }
            let text =
                std::fs::read_to_string(&file).with_context(|| format!("{}", file.display()))?;
            let items = attest::evidence::read_evidence(&evidence)?;
            let ids = items.keys().cloned().collect();
            let mut r = check_external(&text, &ids, &gate);
            if !no_support && attest::evidence::support::needs_model(&text, &items) {
                let mut model = attest::models::MiniLm::load_default(cfg.model_dir.as_deref())?;
                model.batch_tokens = cfg.embed_batch_tokens.max(1);
                let v = attest::evidence::support::check_text(
                    &text,
                    &items,
                    &model,
                    &attest::evidence::support::SupportConfig::default(),
                )?;
                r.passed &= v
                    .iter()
                    .all(|x| x.severity != attest::evidence::gate::Severity::Error);
                r.violations.extend(v);
            }
            emit(json, &r, render::gate)?;
            Ok(if r.passed {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
        Command::Status { deep, json } => {
            let s = status::status(&cfg, deep)?;
            emit(json, &s, render::status)?;
            Ok(if s.index.consistent {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
    }
}
