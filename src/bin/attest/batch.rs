//! `attest ask --questions FILE`: every question of a file, one result per question on
//! standard output (JSON Lines, Markdown sections, CSV rows or text), progress and a
//! summary on standard error.

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use attest::ask::batch::{read_questions, BatchSummary};
use attest::ask::{ask, AskOptions};
use attest::engine::Engine;
use attest::export::Format;

use crate::out;

/// One JSON Lines result.
#[derive(serde::Serialize)]
struct Line<'a> {
    id: &'a str,
    question: &'a str,
    answer: &'a attest::answer::Answer,
}

/// Ask every question of `file` with `opts`; exit 0 once all were asked.
pub fn run(
    engine: &Engine,
    opts: &AskOptions,
    file: &Path,
    args: &crate::ask::Args,
) -> anyhow::Result<ExitCode> {
    if let Some(path) = &args.summary {
        attest::outfile::check(path)?;
    }
    let questions = read_questions(file)?;
    let format = args.output();
    let bar = attest::ingest::counter_bar(questions.len() as u64, true, "questions");
    let _log = attest::ingest::ticker(true, "ask", "questions asked", &bar);
    let started = Instant::now();
    let mut summary = BatchSummary::default();
    if format == Format::Csv {
        out(&format!("{}\n", attest::export::CSV_HEADER.join(",")))?;
    }
    for q in &questions {
        let run = ask(engine, &q.question, opts)?;
        summary.count(run.answer.status);
        bar.inc(1);
        let text = match format {
            Format::Json => {
                let line = Line {
                    id: &q.id,
                    question: &q.question,
                    answer: &run.answer,
                };
                format!("{}\n", serde_json::to_string(&line)?)
            }
            Format::Markdown => attest::export::markdown(&run.answer),
            Format::Csv => {
                let rows = crate::ask::csv_of(&[(&q.id, &run.answer)])?;
                rows.split_once('\n')
                    .map(|(_, r)| r.to_string())
                    .unwrap_or_default()
            }
            Format::Text => format!(
                "=== {} ===\n{}\n",
                q.id,
                attest::render::answer(&run.answer)
            ),
        };
        bar.suspend(|| out(&text))?;
    }
    bar.finish_and_clear();
    summary.finish(started.elapsed().as_secs_f64());
    eprintln!(
        "attest ask: {} questions: {} answered, {} abstained, {} rejected in {:.1} s ({:.2} questions/s)",
        summary.questions,
        summary.answered,
        summary.abstained,
        summary.rejected,
        summary.seconds,
        summary.questions_per_second
    );
    if let Some(path) = &args.summary {
        let text = serde_json::to_string_pretty(&summary)? + "\n";
        attest::outfile::write_atomic(path, text.as_bytes())?;
    }
    Ok(ExitCode::SUCCESS)
}
