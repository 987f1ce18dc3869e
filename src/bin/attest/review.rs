//! `attest review`: the indexed documents (or those under `--scope`) against a checklist
//! (exit 0 every mandatory requirement evidenced, 1 otherwise). `--format` chooses what
//! standard output gets (`--json` is `--format json`); `--report FILE` also writes the
//! review to FILE in the format its extension names.

use std::path::PathBuf;
use std::process::ExitCode;

use attest::config::Config;
use attest::engine::Engine;
use attest::review::report::ReportFormat;
use attest::review::{checklist, report, review, DateOrder, Review, ReviewOptions};

use crate::{exit_if, finite_f64, out, say};

#[derive(clap::Args)]
pub struct Args {
    /// The checklist: JSON, or by its extension TOML (.toml), YAML (.yaml, .yml) or CSV
    /// (.csv)
    checklist: PathBuf,
    #[command(flatten)]
    sources: crate::sources::Sources,
    /// Order of ambiguous numeric dates such as 05/06/2021 (default: inferred per
    /// document from its unambiguous dates, else reported as ambiguous)
    #[arg(long, value_parser = ["dmy", "mdy", "ymd"])]
    date_order: Option<String>,
    /// Relative tolerance of numbers compared across documents
    #[arg(long, default_value_t = 0.05, value_parser = finite_f64)]
    tolerance: f64,
    /// Days two dates may differ and still agree
    #[arg(long, default_value_t = 0)]
    date_tolerance_days: u32,
    /// Also write the review to FILE, in the format its extension names: .csv the
    /// reviewer's sheet, .json the review JSON, anything else (.md) the Markdown report that
    /// passes the Evidence Gate (its evidence goes to NAME.evidence.json beside it)
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    /// What standard output gets: text (the default), json, markdown (the gated report) or
    /// csv (the reviewer's sheet: requirement,status,field,value,source,page,quote)
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Print the review as JSON (the same as --format json)
    #[arg(long)]
    json: bool,
    /// Do not let the configured generator propose field values
    #[arg(long)]
    no_generator: bool,
}

pub fn run(mut cfg: Config, args: Args) -> anyhow::Result<ExitCode> {
    if !(0.0..=1.0).contains(&args.tolerance) {
        anyhow::bail!("--tolerance {}: must be between 0 and 1", args.tolerance);
    }
    let format = match (args.json, args.format) {
        (true, Some(f)) if f != Format::Json => {
            anyhow::bail!("--json is --format json; give one of the two")
        }
        (true, _) => Format::Json,
        (false, f) => f.unwrap_or(Format::Text),
    };
    let list = checklist::load(&args.checklist)?;
    for w in &list.warnings {
        say(&format!(
            "warning: {}: {}",
            args.checklist.display(),
            w.message
        ));
    }
    if let Some(path) = &args.report {
        refuse_input(path, &args.checklist)?;
        attest::outfile::check(path)?;
        if ReportFormat::of(path) == ReportFormat::Markdown {
            attest::outfile::check(&report::evidence_path(path))?;
        }
    }
    let mut opts = ReviewOptions::from_config(&cfg);
    opts.progress = true;
    opts.date_order = args.date_order.as_deref().map(|s| match s {
        "mdy" => DateOrder::Mdy,
        "ymd" => DateOrder::Ymd,
        _ => DateOrder::Dmy,
    });
    opts.tolerance.relative = args.tolerance;
    opts.tolerance.days = i64::from(args.date_tolerance_days);
    if args.no_generator {
        cfg.generator = None;
    }
    let mut engine = Engine::open_with_default_model(cfg, false)?;
    engine.load_generator()?;
    opts.ask.scope = args.sources.restrict(&engine)?;
    if let Some(path) = &args.report {
        let file = attest::store::path_key(&path.canonicalize().unwrap_or(path.clone()));
        if engine.store().file_state(&file)?.is_some() {
            anyhow::bail!(
                "--report {}: an indexed document; choose another path",
                path.display()
            );
        }
    }
    let r = review(&engine, &list, &opts)?;
    // The review is printed first: a report the gate refuses does not hide it.
    print(&r, format)?;
    if let Some(path) = &args.report {
        write_report(&r, path)?;
    }
    Ok(exit_if(r.summary.mandatory_open == 0, 1))
}

/// What standard output gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    /// The human summary.
    Text,
    /// The review JSON.
    Json,
    /// The Markdown report, after it passed the Evidence Gate.
    Markdown,
    /// The reviewer's sheet.
    Csv,
}

/// The review on standard output, in `format`.
fn print(r: &Review, format: Format) -> anyhow::Result<()> {
    match format {
        Format::Text => out(&attest::render::review(r)),
        Format::Json => out(&format!("{}\n", serde_json::to_string_pretty(r)?)),
        Format::Markdown => {
            let place = &attest::render::evidence_place;
            out(&report::render(r, place, "standard output")?.0)
        }
        Format::Csv => out(&report::sheet(r)?),
    }
}

/// The review written to `path` in the format its extension names.
fn write_report(r: &Review, path: &std::path::Path) -> anyhow::Result<()> {
    match ReportFormat::of(path) {
        ReportFormat::Markdown => {
            report::write(r, path, &attest::render::evidence_place)?;
            say(&format!(
                "report written to {} (evidence: {})",
                path.display(),
                report::evidence_path(path).display()
            ));
        }
        ReportFormat::Csv => {
            report::write_sheet(r, path)?;
            say(&format!("sheet written to {}", path.display()));
        }
        ReportFormat::Json => {
            let text = format!("{}\n", serde_json::to_string_pretty(r)?);
            attest::outfile::write_atomic(path, text.as_bytes())?;
            say(&format!("review written to {}", path.display()));
        }
    }
    Ok(())
}

/// Refuse a report path that is the checklist itself or an evidence file.
fn refuse_input(report: &std::path::Path, checklist: &std::path::Path) -> anyhow::Result<()> {
    let same = match (report.canonicalize(), checklist.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if same {
        anyhow::bail!(
            "--report {}: that is the checklist; choose another path",
            report.display()
        );
    }
    if report.to_string_lossy().ends_with(".evidence.json") {
        anyhow::bail!(
            "--report {}: an evidence file name (a Markdown report's evidence goes beside it); choose another path",
            report.display()
        );
    }
    Ok(())
}
