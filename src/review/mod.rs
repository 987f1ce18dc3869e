//! `attest review`: a document set checked against a checklist. Per requirement: research
//! (the requirement text, then one question per field it asks for) → Extract → Verify as
//! in `ask` → typed fields from the verified quotes, each value with its span
//! ([`fields`]) → validation: structural checks and cross-document comparisons
//! ([`checks`]) → a status (`evidenced`, `missing`, `conflict`, `needs_review`). The
//! review never approves: the decision is the reviewer's. [`report`] writes the cited
//! Markdown report.
//!
//! Stages in data-flow order: [`checklist`] (load), [`gather`] (research per requirement),
//! [`fields`] (typed values with spans), [`checks`] (validation and status), [`report`].

use std::collections::BTreeMap;
use std::time::Instant;

use serde::Serialize;

use crate::answer::EvidenceItem;
use crate::ask::AskOptions;
use crate::engine::Engine;
use crate::error::Error;

pub mod checklist;
pub mod checks;
pub mod derive;
pub mod fields;
pub mod focus;
pub mod gather;
pub mod head;
pub mod propose;
pub mod report;
pub mod scan;
pub mod subject;
pub mod versions;

pub use checklist::{
    Checklist, ChecklistError, ChecklistWarning, Mapping, Metadata, Requirement, ValidationType,
};
pub use checks::{Check, CheckKind, CheckStatus, ReviewStatus};
pub use fields::{DateOrder, FieldType, Tolerance};

/// Chunks retrieved per research query at least: a requirement's values are often in
/// rows and fragments that rank below the prose a question matches best.
pub const REVIEW_CHUNKS: usize = 10;

/// Options of a review.
#[derive(Debug, Clone)]
pub struct ReviewOptions {
    /// Options of the research steps (scope, thresholds). Memory and generator are off.
    pub ask: AskOptions,
    /// Order of ambiguous numeric dates (`None`: inferred per document from its
    /// unambiguous dates, else reported as ambiguous).
    pub date_order: Option<DateOrder>,
    /// Tolerances of cross-document comparisons.
    pub tolerance: Tolerance,
    /// Verified items kept per research query, best first.
    pub per_query: usize,
    /// Let the engine's generator, when one is loaded, propose field values.
    pub propose: bool,
    /// Checked before each research query: a cancelled review stops with
    /// [`Error::Cancelled`].
    pub cancel: crate::cancel::Cancel,
    /// Report progress on stderr (a bar on a terminal, a log line every ten seconds
    /// elsewhere).
    pub progress: bool,
}

impl ReviewOptions {
    /// Options from the engine's configuration.
    pub fn from_config(cfg: &crate::config::Config) -> Self {
        let mut ask = AskOptions::from_config(cfg);
        ask.memory = false;
        ask.generate = false;
        ask.research = false;
        ask.relevance.min_relevance = cfg.review_min_relevance;
        ask.chunks = ask.chunks.max(REVIEW_CHUNKS);
        ReviewOptions {
            ask,
            date_order: None,
            tolerance: Tolerance::default(),
            per_query: 8,
            propose: true,
            cancel: crate::cancel::Cancel::never(),
            progress: false,
        }
    }
}

/// A field value stated by a verified quote.
#[derive(Debug, Clone, Serialize)]
pub struct FieldValue {
    /// Field name (`owner_name`).
    pub name: String,
    /// Its type.
    #[serde(rename = "type")]
    pub ty: FieldType,
    /// Normalised value: ISO date, number (years, percent, hectares) or text.
    pub value: serde_json::Value,
    /// The text as written: the document's bytes at `[start, end)`.
    pub raw: String,
    /// Unit as written, when the type has units (`null` otherwise).
    pub unit: Option<String>,
    /// Id of the evidence item that states it.
    pub evidence: String,
    /// Byte offset in the document text.
    pub start: usize,
    /// End byte offset (exclusive).
    pub end: usize,
    /// Source path.
    pub source: String,
    /// Document id.
    pub doc_id: String,
    /// 1-based page, when the source has pages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<usize>,
}

impl FieldValue {
    /// The value of `spec` stated at `[start, end)` of `item`'s quote (offsets in the quote).
    pub fn in_item(
        spec: &fields::FieldSpec,
        item: &EvidenceItem,
        (start, end): (usize, usize),
        value: &fields::Value,
        unit: Option<String>,
    ) -> Self {
        FieldValue {
            name: spec.name.clone(),
            ty: spec.ty,
            value: value.to_json(),
            raw: item.quote[start..end].to_string(),
            unit,
            evidence: item.id.clone(),
            start: item.start + start,
            end: item.start + end,
            source: item.source.clone(),
            doc_id: item.doc_id.clone(),
            page: item.page,
        }
    }
}

/// A candidate value that was not taken, and why.
#[derive(Debug, Clone, Serialize)]
pub struct RejectedValue {
    /// Field name.
    pub name: String,
    /// The text as written.
    pub raw: String,
    /// Why it was not taken.
    pub reason: fields::RejectReason,
    /// Explanation.
    pub note: String,
    /// Evidence item id.
    pub evidence: String,
    /// Byte offset in the document text.
    pub start: usize,
    /// End byte offset (exclusive).
    pub end: usize,
    /// Source path.
    pub source: String,
}

/// The review of one requirement.
#[derive(Debug, Clone, Serialize)]
pub struct RequirementReview {
    /// Requirement id.
    pub id: String,
    /// Category.
    pub category: String,
    /// Requirement text.
    pub text: String,
    /// How it is validated.
    pub validation_type: ValidationType,
    /// Whether it is mandatory.
    pub mandatory: bool,
    /// Outcome.
    pub status: ReviewStatus,
    /// Why, in one sentence.
    pub reason: String,
    /// Where its fields came from.
    pub mapping: Mapping,
    /// Verified evidence, best first (ids shared across the review).
    pub evidence: Vec<EvidenceItem>,
    /// Field values with their spans.
    pub fields: Vec<FieldValue>,
    /// Fields asked for that no verified quote states.
    pub missing_fields: Vec<String>,
    /// Candidate values not taken.
    pub rejected_values: Vec<RejectedValue>,
    /// Checks performed.
    pub checks: Vec<Check>,
    /// Values the generator proposed, kept or not, and why (empty without a generator).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub proposals: Vec<propose::Proposal>,
    /// The requirement's keys attest does not read, as the checklist gives them.
    #[serde(skip_serializing_if = "Metadata::is_empty")]
    pub extra: Metadata,
}

/// A document of the reviewed set.
#[derive(Debug, Clone, Serialize)]
pub struct DocumentInfo {
    /// Document id.
    pub doc_id: String,
    /// Source path.
    pub source: String,
    /// Title.
    pub title: String,
    /// Date order used for its ambiguous numeric dates (`null`: none; they are ambiguous).
    pub date_order: Option<DateOrder>,
    /// What the document is.
    pub role: crate::profile::Role,
    /// The version it is, when its file name or opening states one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<crate::profile::DocVersion>,
    /// The document of the review that is a later version of this one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<String>,
    /// For a land register's official copy: its title number and proprietors.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub register: Option<crate::profile::RegisterTitle>,
}

/// Counts by status, and of the checks performed.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    /// Requirements `evidenced`.
    pub evidenced: usize,
    /// Requirements `missing`.
    pub missing: usize,
    /// Requirements `conflict`.
    pub conflict: usize,
    /// Requirements `needs_review`.
    pub needs_review: usize,
    /// Mandatory requirements not `evidenced`.
    pub mandatory_open: usize,
    /// Checks performed (structural and cross-document).
    pub checks: usize,
    /// Checks that found a disagreement or a failure.
    pub checks_failed: usize,
    /// Field values found.
    pub fields: usize,
}

/// The checklist as the review saw it.
#[derive(Debug, Clone, Serialize)]
pub struct ChecklistInfo {
    /// Its name.
    pub name: String,
    /// The file.
    pub path: String,
    /// Requirements.
    pub requirements: usize,
    /// Its top-level keys besides `requirements`, as given (`{}` when none).
    pub metadata: Metadata,
    /// What it holds that the review kept but did not read, or skipped.
    pub warnings: Vec<ChecklistWarning>,
}

/// A whole review.
#[derive(Debug, Clone, Serialize)]
pub struct Review {
    /// The checklist.
    pub checklist: ChecklistInfo,
    /// Documents that supplied evidence, by source.
    pub documents: Vec<DocumentInfo>,
    /// Per requirement, in checklist order.
    pub requirements: Vec<RequirementReview>,
    /// Counts.
    pub summary: Summary,
    /// Milliseconds per stage (`research` with its `retrieve`, `extract`, `verify`;
    /// `fields`, `checks`, `total`).
    pub timings_ms: BTreeMap<String, f64>,
}

impl Review {
    /// Every evidence item of the review once, in id order.
    pub fn evidence(&self) -> Vec<&EvidenceItem> {
        let mut seen = std::collections::HashSet::new();
        let mut all: Vec<&EvidenceItem> = self
            .requirements
            .iter()
            .flat_map(|r| r.evidence.iter())
            .filter(|e| seen.insert(e.id.clone()))
            .collect();
        all.sort_by_key(|e| e.id[1..].parse::<usize>().unwrap_or(usize::MAX));
        all
    }
}

fn ms(t: Instant) -> f64 {
    (t.elapsed().as_secs_f64() * 1e5).round() / 100.0
}

/// Review the engine's index (or `opts.ask.scope`) against `checklist`.
pub fn review(
    engine: &Engine,
    checklist: &Checklist,
    opts: &ReviewOptions,
) -> Result<Review, Error> {
    let started = Instant::now();
    let mut g = gather::Gatherer::new(engine, opts);
    let mut requirements = Vec::with_capacity(checklist.requirements.len());
    let mut timings: BTreeMap<String, f64> = BTreeMap::new();
    let n = checklist.requirements.len() as u64;
    let bar = crate::ingest::counter_bar(n, opts.progress, "requirements");
    let _log = crate::ingest::ticker(opts.progress, "review", "requirements reviewed", &bar);
    for req in &checklist.requirements {
        bar.inc(1);
        let t = Instant::now();
        let (evidence, unshown) = focus::presence(engine, req, g.gather(req)?)?;
        *timings.entry("research".into()).or_default() += ms(t);
        let t = Instant::now();
        let (fields, mut rejected) = g.fields(req, &evidence)?;
        let (fields, aside) = versions::current(fields, &|f| g.version_key(&f.doc_id));
        rejected.extend(aside);
        let (fields, aside) = subject::documents(req, &evidence, fields, &|d| g.text_of(d));
        rejected.extend(aside);
        let (fields, aside) = subject::named_things(engine, req, &evidence, fields)?;
        rejected.extend(aside);
        let (mut fields, aside) = subject::bind(engine, req, &evidence, fields)?;
        rejected.extend(aside);
        let derived = derive::years_from_ranges(req, &evidence, &fields);
        fields.extend(derived.into_iter().filter(|v| g.holds(v)));
        let proposals = proposals(engine, opts, &g, req, &evidence, &mut fields, &rejected)?;
        *timings.entry("fields".into()).or_default() += ms(t);
        let t = Instant::now();
        let mut checked = checks::validate(req, &evidence, &fields, &rejected, &opts.tolerance);
        if let Some(terms) = unshown {
            checked.reason = format!(
                "no verified passage names what the requirement asks for (searched for: {})",
                terms.join(", ")
            );
        }
        *timings.entry("checks".into()).or_default() += ms(t);
        requirements.push(RequirementReview {
            id: req.id.clone(),
            category: req.category.clone(),
            text: req.text.clone(),
            validation_type: req.validation_type,
            mandatory: req.mandatory,
            status: checked.status,
            reason: checked.reason,
            mapping: req.mapping.clone(),
            evidence,
            fields,
            missing_fields: checked.missing_fields,
            rejected_values: rejected,
            checks: checked.checks,
            proposals,
            extra: req.extra.clone(),
        });
    }
    for (stage, v) in g.stage_ms() {
        timings.insert(format!("research.{stage}"), v);
    }
    timings.insert("total".into(), ms(started));
    let summary = summarise(&requirements);
    Ok(Review {
        checklist: ChecklistInfo {
            name: checklist.name.clone(),
            path: checklist.path.display().to_string(),
            requirements: checklist.requirements.len(),
            metadata: checklist.metadata.clone(),
            warnings: checklist.warnings.clone(),
        },
        documents: g.documents(),
        requirements,
        summary,
        timings_ms: timings,
    })
}

/// The generator's proposals for `req` (none without a generator or with `propose` off).
fn proposals(
    engine: &Engine,
    opts: &ReviewOptions,
    g: &gather::Gatherer,
    req: &checklist::Requirement,
    evidence: &[EvidenceItem],
    fields: &mut Vec<FieldValue>,
    rejected: &[RejectedValue],
) -> Result<Vec<propose::Proposal>, Error> {
    let Some(generator) = engine.generator().filter(|_| opts.propose) else {
        return Ok(Vec::new());
    };
    let mut generator = generator.lock().map_err(|_| {
        Error::Usage("the generator is unusable: an earlier run panicked while holding it".into())
    })?;
    let order = |e: &EvidenceItem| g.order_cached(&e.doc_id);
    let found = propose::propose(&mut *generator, req, evidence, &order, fields, rejected)?;
    fields.retain(|f| g.holds(f)); // every value, proposed or read, verbatim at its span
    Ok(found)
}

fn summarise(reqs: &[RequirementReview]) -> Summary {
    let mut s = Summary::default();
    for r in reqs {
        match r.status {
            ReviewStatus::Evidenced => s.evidenced += 1,
            ReviewStatus::Missing => s.missing += 1,
            ReviewStatus::Conflict => s.conflict += 1,
            ReviewStatus::NeedsReview => s.needs_review += 1,
        }
        if r.mandatory && r.status != ReviewStatus::Evidenced {
            s.mandatory_open += 1;
        }
        s.checks += r.checks.len();
        s.checks_failed += r.checks.iter().filter(|c| c.status.failed()).count();
        s.fields += r.fields.len();
    }
    s
}
