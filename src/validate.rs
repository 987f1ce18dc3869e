//! `attest validate`: check an outside text's citations against an evidence file (the
//! Evidence Gate, then the support check of sentences that are not verbatim quotes), or
//! replay an audit trail against the current index and add the model support check the
//! replay leaves out.

use std::path::Path;

use crate::audit::Replay;
use crate::config::Config;
use crate::error::Error;
use crate::evidence::gate::{check_external, GateConfig, GateResult, Severity};
use crate::evidence::support::{check_text, needs_model, SupportConfig};
use crate::models::{Embed, MiniLm};
use std::collections::HashMap;

/// Options of a text check.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckOptions {
    /// Run the support check on sentences that are not verbatim quotes.
    pub support: bool,
    /// Threshold preset: `lenient`, `standard` or `strict`.
    pub preset: String,
    /// Override: citations every paragraph needs.
    pub min_citations: Option<usize>,
    /// Override: minimum citations per 100 words.
    pub min_density: Option<f64>,
}

/// Names of the built-in Evidence Gate presets.
pub const BUILT_IN_PRESETS: &[&str] = &[
    "lenient",
    "standard",
    "strict",
    "quarterly",
    "annual",
    "investor",
    "deep-dive",
];

/// The built-in Evidence Gate preset `name`, or a usage error listing the presets.
pub fn gate_preset(name: &str) -> Result<GateConfig, Error> {
    GateConfig::preset(name).ok_or_else(|| {
        Error::Usage(format!(
            "unknown preset {name:?} ({})",
            BUILT_IN_PRESETS.join(", ")
        ))
    })
}

/// The preset `name`: one declared in the configuration (`[presets.NAME]`) wins over
/// the built-in one of that name.
pub fn configured_preset(cfg: &Config, name: &str) -> Result<GateConfig, Error> {
    match cfg.presets.get(name) {
        Some(p) => Ok(GateConfig {
            min_citations_per_paragraph: p.min_citations_per_paragraph,
            min_density_per_100_words: p.min_density_per_100_words,
            every_sentence_cites: p.every_sentence_cites,
        }),
        None => gate_preset(name).map_err(|_| {
            let mut names: Vec<&str> = BUILT_IN_PRESETS.to_vec();
            names.extend(cfg.presets.keys().map(String::as_str));
            Error::Usage(format!("unknown preset {name:?} ({})", names.join(", ")))
        }),
    }
}

/// The bi-encoder the support check uses: the index's own, with the configured batch
/// budget.
pub fn support_model(cfg: &Config) -> Result<MiniLm, Error> {
    crate::engine::bi_encoder(cfg)
}

/// Replay the audit trail at `audit` against the index of `cfg`, then run the model
/// support check on the recorded answer when some sentence is not a verbatim quote.
pub fn replay_audit(cfg: &Config, audit: &Path) -> Result<Replay, Error> {
    let store = crate::engine::open_existing_store(cfg)?;
    let mut r = crate::audit::replay(&store, &cfg.sources, audit)?;
    if needs_model(&r.answer, &r.quotes) {
        let model = support_model(cfg)?;
        let v = check_text(&r.answer, &r.quotes, &model, &SupportConfig::default())?;
        // Claim violations were recorded by the replay already.
        let v = v
            .into_iter()
            .filter(|x| !r.violations.contains(x))
            .collect();
        r.add_violations(v);
    }
    Ok(r)
}

/// Check the text in `file` against the evidence file `evidence`: the gate under the
/// preset and overrides of `opts`, then (unless switched off) the support check, whose
/// errors fail the result.
pub fn check_file(
    cfg: &Config,
    file: &Path,
    evidence: &Path,
    opts: &CheckOptions,
) -> Result<GateResult, Error> {
    let gate = gate_of(cfg, opts)?;
    let text = std::fs::read_to_string(file)
        .map_err(|e| Error::Usage(format!("{}: {e}", file.display())))?;
    let items = crate::evidence::read_evidence(evidence)?;
    check_text_against(&text, &items, &gate, opts.support, &mut || {
        Ok(std::sync::Arc::new(support_model(cfg)?))
    })
}

/// The gate thresholds of `opts`: its preset (see [`configured_preset`]) with its
/// overrides; a negative density is a usage error.
pub fn gate_of(cfg: &Config, opts: &CheckOptions) -> Result<GateConfig, Error> {
    let mut gate = configured_preset(cfg, &opts.preset)?;
    if let Some(n) = opts.min_citations {
        gate.min_citations_per_paragraph = n;
    }
    if let Some(d) = opts.min_density {
        if d < 0.0 || !d.is_finite() {
            return Err(Error::Usage(format!(
                "--min-density {d}: must be a finite number, not negative"
            )));
        }
        gate.min_density_per_100_words = d;
    }
    Ok(gate)
}

/// Check `text` against evidence `items` (id → quote) under `gate`; with `support`, the
/// sentences that are not verbatim quotes are then checked by the model `model()` gives
/// (loaded only when needed), and its errors fail the result.
pub fn check_text_against(
    text: &str,
    items: &HashMap<String, Option<String>>,
    gate: &GateConfig,
    support: bool,
    model: &mut dyn FnMut() -> Result<std::sync::Arc<dyn Embed>, Error>,
) -> Result<GateResult, Error> {
    let ids = items.keys().cloned().collect();
    let mut r = check_external(text, &ids, gate);
    // A cited item without a quote cannot be checked: the support check says so.
    let unquoted = crate::evidence::gate::citations(text)
        .iter()
        .any(|c| items.get(&c.id).is_some_and(Option::is_none));
    if support && (unquoted || needs_model(text, items)) {
        let v = check_text(text, items, model()?.as_ref(), &SupportConfig::default())?;
        r.passed &= v.iter().all(|x| x.severity != Severity::Error);
        r.violations.extend(v);
    }
    Ok(r)
}
