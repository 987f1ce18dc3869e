//! `attest eval …`: the measurements; each prints its report and exits 0.

use std::path::PathBuf;
use std::process::ExitCode;

use attest::config::Config;
use attest::eval::answers::AnswersRun;
use attest::eval::retrieval::EvalMode;
use attest::eval::DatasetRun;
use attest::render;

use crate::emit;

#[derive(clap::Subcommand)]
pub enum EvalCommand {
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
    /// Answers over real documents: a directory with docs/ and questions.jsonl (id, doc,
    /// question, answer, page, kind, answerable); per kind, the share of answers citing a
    /// quote with the value, on the stated page, abstentions, cited instructions, and
    /// ingest speed in pages/s
    Documents {
        /// Dataset directory (docs/ and questions.jsonl)
        #[arg(long)]
        dataset: PathBuf,
        /// Index for the dataset [default: .attest-eval/<dataset directory name>]
        #[arg(long)]
        eval_index: Option<PathBuf>,
        /// Use at most this many questions
        #[arg(long)]
        limit: Option<usize>,
        /// Ask each question of its own document only (as `ask --scope FILE`)
        #[arg(long)]
        scoped: bool,
        /// Print as JSON
        #[arg(long)]
        json: bool,
    },
    /// A checklist review scored: a directory with the documents (docs/ or the directory
    /// itself), checklist.json and expected.json (statuses and field values); precision
    /// and recall of field values and statuses, wrong values listed, every value's raw
    /// text re-checked at its span, and the time per stage
    Review {
        /// Dataset directory
        #[arg(long)]
        dataset: PathBuf,
        /// Documents to ingest instead of the dataset's own (files or directories)
        #[arg(long, num_args = 1..)]
        docs: Vec<PathBuf>,
        /// Index for the dataset [default: .attest-eval/<dataset directory name>]
        #[arg(long)]
        eval_index: Option<PathBuf>,
        /// Order of ambiguous numeric dates (default: inferred per document)
        #[arg(long, value_parser = ["dmy", "mdy", "ymd"])]
        date_order: Option<String>,
        /// Print as JSON
        #[arg(long)]
        json: bool,
    },
    /// Answer quality: every judged query of a BEIR split asked as a question against the
    /// dataset's corpus (or, with --questions-from, another dataset's queries, which the
    /// corpus cannot answer): answered/abstained shares, cited relevant documents,
    /// cited-item precision, invariants and latency
    Answers(AnswersArgs),
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
        mode: Vec<EvalMode>,
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

pub fn run(cfg: Config, what: EvalCommand) -> anyhow::Result<ExitCode> {
    match what {
        EvalCommand::Multihop {
            dataset,
            split,
            eval_index,
            limit,
            json,
        } => {
            let run = DatasetRun {
                dataset,
                split,
                eval_index,
                limit,
                progress: true,
            };
            let report = attest::eval::multihop::run(cfg, &run)?;
            emit(json, &report, render::multihop_eval)?;
        }
        EvalCommand::Documents {
            dataset,
            eval_index,
            limit,
            scoped,
            json,
        } => {
            let report = attest::eval::documents::run(cfg, &dataset, eval_index, limit, scoped)?;
            emit(json, &report, render::documents_eval)?;
        }
        EvalCommand::Review {
            dataset,
            docs,
            eval_index,
            date_order,
            json,
        } => return review(cfg, &dataset, docs, eval_index, date_order, json),
        EvalCommand::Answers(args) => answers(cfg, args)?,
        EvalCommand::Attribution {
            dataset,
            limit,
            json,
        } => {
            let report = attest::eval::attribution::run(&cfg, &dataset, limit)?;
            emit(json, &report, render::attribution_eval)?;
        }
        EvalCommand::Retrieval {
            dataset,
            split,
            mode,
            eval_index,
            limit,
            json,
        } => {
            let run = DatasetRun {
                dataset,
                split,
                eval_index,
                limit,
                progress: true,
            };
            let report = attest::eval::retrieval::run(cfg, &run, mode)?;
            emit(json, &report, render::retrieval_eval)?;
        }
        EvalCommand::Search {
            queries,
            k,
            limit,
            json,
        } => {
            let report = attest::eval::run_search(cfg, &queries, k, limit)?;
            emit(json, &report, render::search_eval)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

// Options of `attest eval answers` (no doc comment: the variant's is the command's about).
#[derive(clap::Args)]
pub struct AnswersArgs {
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
}

/// `attest eval answers`.
fn answers(cfg: Config, args: AnswersArgs) -> anyhow::Result<()> {
    let json = args.json;
    let run = AnswersRun {
        base: DatasetRun {
            dataset: args.dataset,
            split: args.split,
            eval_index: args.eval_index,
            limit: args.limit,
            progress: true,
        },
        questions_from: args.questions_from,
        questions_split: args.questions_split,
        rerank: !args.no_rerank,
        per_question: args.per_question,
        repeat: args.repeat,
        research: !args.single_step,
    };
    let report = attest::eval::answers::run(cfg, &run)?;
    emit(json, &report, render::answers_eval)
}

/// `attest eval review`: exit 1 when a value is wrong or a raw text not verbatim.
fn review(
    cfg: Config,
    dataset: &std::path::Path,
    docs: Vec<PathBuf>,
    eval_index: Option<PathBuf>,
    date_order: Option<String>,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let order = date_order
        .map(|s| s.parse())
        .transpose()
        .map_err(anyhow::Error::msg)?;
    let report = attest::eval::review::run(cfg, dataset, docs, eval_index, |c| {
        let mut o = attest::review::ReviewOptions::from_config(c);
        o.date_order = order;
        o
    })?;
    let bad = report.raw_not_verbatim > 0 || !report.wrong_values.is_empty();
    emit(json, &report, render::review_eval)?;
    Ok(if bad {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
