//! `attest review`: the indexed documents (or those under `--scope`) against a checklist
//! (exit 0 every mandatory requirement evidenced, 1 otherwise).

use std::path::PathBuf;
use std::process::ExitCode;

use attest::config::Config;
use attest::engine::Engine;
use attest::review::{checklist, report, review, DateOrder, ReviewOptions};

use crate::ask::scope_ids;
use crate::{exit_if, finite_f64, out, say};

#[derive(clap::Args)]
pub struct Args {
    /// The checklist (JSON, or TOML by its extension)
    checklist: PathBuf,
    /// Review only documents from files at or under this path (repeatable)
    #[arg(long, value_name = "PATH")]
    scope: Vec<PathBuf>,
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
    /// Write a Markdown report that passes the Evidence Gate (its evidence goes to
    /// NAME.evidence.json beside it)
    #[arg(long, value_name = "FILE.md")]
    report: Option<PathBuf>,
    /// Print the review as JSON
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
    let list = checklist::load(&args.checklist)?;
    if let Some(path) = &args.report {
        refuse_input(path, &args.checklist)?;
        attest::outfile::check(path)?;
        attest::outfile::check(&report::evidence_path(path))?;
    }
    let mut opts = ReviewOptions::from_config(&cfg);
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
    if !args.scope.is_empty() {
        opts.ask.scope = Some(std::sync::Arc::new(scope_ids(&engine, &args.scope)?));
    }
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
    if args.json {
        out(&format!("{}\n", serde_json::to_string_pretty(&r)?))?;
    } else {
        out(&attest::render::review(&r))?;
    }
    if let Some(path) = &args.report {
        report::write(&r, path, &attest::render::evidence_place)?;
        say(&format!(
            "report written to {} (evidence: {})",
            path.display(),
            report::evidence_path(path).display()
        ));
    }
    Ok(exit_if(r.summary.mandatory_open == 0, 1))
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
            "--report {}: an evidence file name; the report is Markdown (its evidence goes beside it)",
            report.display()
        );
    }
    Ok(())
}
