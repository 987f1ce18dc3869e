//! The Evidence Gate for text a caller generated, and the body of its rejection (HTTP
//! 422): each failing rule with the paragraph it concerns, the citation counts against
//! what is required, the text's citation statistics and what to do about it. Every
//! check is counted in the metrics and logged with its result.

use std::collections::HashMap;
use std::time::Instant;

use serde::Serialize;
use utoipa::ToSchema;

use super::documents::Drift;
use super::{classify, Service, ServiceError, ValidateRequest};
use crate::answer::EvidenceItem;
use crate::evidence::gate::{
    citations, paragraphs, GateConfig, GateResult, Severity, Violation, ViolationKind,
};
use crate::validate::{check_text_against, gate_of, CheckOptions};

/// Longest paragraph text quoted in a violation, in characters.
const PARAGRAPH_CHARS: usize = 400;

/// The problem type that tells a gate rejection apart from a malformed request.
pub const GATE_PROBLEM_TYPE: &str = "urn:attest:problem:evidence-gate-violation";

/// The result of a gate check: the report, and the rejection body when it failed.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct GateOutcome {
    /// No error-severity violation.
    pub passed: bool,
    /// The full report (violations of every severity, counts).
    #[schema(value_type = Object)]
    pub report: GateResult,
    /// The thresholds the text was checked against.
    #[schema(value_type = Object)]
    pub thresholds: GateThresholds,
    /// What a 422 response carries, when the text failed.
    pub rejection: Option<GateRejection>,
}

/// The thresholds of a check.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
pub struct GateThresholds {
    /// Citations every paragraph needs.
    pub min_citations_per_paragraph: usize,
    /// Minimum citations per 100 words.
    pub min_density_per_100_words: f64,
    /// Whether an uncited statement sentence fails the gate.
    pub every_sentence_cites: bool,
}

/// The body of a rejected text (HTTP 422, `application/problem+json`).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct GateRejection {
    /// Problem type: [`GATE_PROBLEM_TYPE`].
    #[serde(rename = "type")]
    pub problem_type: String,
    /// Problem title.
    pub title: String,
    /// HTTP status (422).
    pub status: u16,
    /// Always `EvidenceGateViolation`.
    pub error: String,
    /// `Report rejected: N citation violations`.
    pub message: String,
    /// Each failing rule.
    pub violations: Vec<GateViolation>,
    /// The text's citation statistics.
    #[serde(rename = "citationStats")]
    pub citation_stats: CitationStats,
    /// What would make the text pass.
    #[serde(rename = "suggestedActions")]
    pub suggested_actions: Vec<String>,
}

/// One failing rule.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct GateViolation {
    /// `CITATION_MISSING`, `UNKNOWN_CITATION`, `CITATION_DENSITY_LOW`,
    /// `UNCITED_SENTENCE`, `UNSUPPORTED_SENTENCE`, … (see [`gate_type`]).
    #[serde(rename = "type")]
    pub kind: String,
    /// The paragraph concerned (the sentence, or the whole text for global rules),
    /// shortened to 400 characters.
    pub paragraph: String,
    /// 1-based paragraph number, when the rule is local.
    #[serde(rename = "paragraphIndex")]
    pub paragraph_index: Option<usize>,
    /// Citations found where the rule applies.
    #[serde(rename = "citationCount")]
    pub citation_count: usize,
    /// Citations the rule requires there.
    #[serde(rename = "requiredCount")]
    pub required_count: usize,
    /// `high` (it fails the gate).
    pub severity: String,
    /// The gate's explanation.
    pub detail: String,
}

/// Citation statistics of a checked text.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CitationStats {
    /// Citations in the text.
    #[serde(rename = "totalCitations")]
    pub total_citations: usize,
    /// Paragraphs in the text.
    pub paragraphs: usize,
    /// Citations per 100 words.
    pub density: f64,
    /// The minimum density required.
    #[serde(rename = "minRequired")]
    pub min_required: f64,
    /// Words, citations excluded.
    #[serde(rename = "wordCount")]
    pub word_count: usize,
}

/// The upper-case name of a violation kind in a rejection body.
pub fn gate_type(kind: ViolationKind) -> &'static str {
    match kind {
        ViolationKind::ParagraphWithoutCitations => "CITATION_MISSING",
        ViolationKind::UnknownCitation => "UNKNOWN_CITATION",
        ViolationKind::LowCitationDensity => "CITATION_DENSITY_LOW",
        ViolationKind::UncitedSentence => "UNCITED_SENTENCE",
        ViolationKind::UnsupportedSentence => "UNSUPPORTED_SENTENCE",
        ViolationKind::EmptyText => "EMPTY_TEXT",
        ViolationKind::NoEvidence => "NO_EVIDENCE",
        ViolationKind::MalformedCitation => "MALFORMED_CITATION",
        ViolationKind::FigureNotInEvidence => "FIGURE_NOT_IN_EVIDENCE",
        ViolationKind::PolarityMismatch => "POLARITY_MISMATCH",
        ViolationKind::UnverifiableCitation => "UNVERIFIABLE_CITATION",
        ViolationKind::SentenceMismatch => "SENTENCE_MISMATCH",
        ViolationKind::NotVerbatim => "NOT_VERBATIM",
        ViolationKind::StatusMismatch => "STATUS_MISMATCH",
    }
}

/// What to do about a violation of `kind`.
fn action(kind: ViolationKind) -> &'static str {
    match kind {
        ViolationKind::ParagraphWithoutCitations => {
            "Cite the evidence each paragraph relies on, e.g. [E1], or remove the paragraph."
        }
        ViolationKind::UnknownCitation => {
            "Cite only ids present in the evidence; remove or correct unknown ids."
        }
        ViolationKind::LowCitationDensity => {
            "Add citations to the claims, or shorten text that no evidence supports."
        }
        ViolationKind::UncitedSentence => "Give every sentence that states something a citation.",
        ViolationKind::UnsupportedSentence
        | ViolationKind::FigureNotInEvidence
        | ViolationKind::PolarityMismatch => {
            "Rewrite the sentence so that it states only what the cited quotes state."
        }
        ViolationKind::EmptyText => "Send the text to check.",
        ViolationKind::NoEvidence => "Send the evidence the text cites.",
        ViolationKind::MalformedCitation => "Write citations as [E1], [E1, E3] or [cite:ID].",
        ViolationKind::UnverifiableCitation => {
            "Include the quote of every cited evidence item; cite only items whose quotes still hold."
        }
        ViolationKind::SentenceMismatch | ViolationKind::NotVerbatim => {
            "Quote the evidence verbatim."
        }
        ViolationKind::StatusMismatch => "Record an answer only for a run that answered.",
    }
}

impl Service {
    /// Put the caller's text through the Evidence Gate (and, unless switched off, the
    /// support check with the loaded bi-encoder).
    pub fn validate(&self, req: &ValidateRequest) -> Result<GateOutcome, ServiceError> {
        let t = Instant::now();
        let max = self.cfg.serve_max_text_bytes;
        if req.text.len() as u64 > max {
            return Err(ServiceError::TooLarge(format!(
                "the text has {} bytes; at most {max} are checked",
                req.text.len()
            )));
        }
        let gate = self.gate_of(req)?;
        let given = req.evidence.as_ref().map_or(0, Vec::len);
        let keys = req.evidence_ids.as_ref().map_or(0, Vec::len);
        if given + keys > super::requests::MAX_EVIDENCE_ITEMS {
            return Err(ServiceError::TooLarge(format!(
                "{} evidence items; at most {} are accepted",
                given + keys,
                super::requests::MAX_EVIDENCE_ITEMS
            )));
        }
        let served = self.served(req.evidence_ids.as_deref().unwrap_or_default())?;
        let stale = self.stale(&served)?;
        let items = self.items(req, served)?;
        let embedder = self.embedder.clone();
        let support = req.support.unwrap_or(true);
        let mut report = check_text_against(&req.text, &items, &gate, support, &mut || {
            Ok(embedder.clone())
        })
        .map_err(classify)?;
        cite_stale(&req.text, &stale, &mut report);
        self.metrics.gate_checked(&report, t.elapsed());
        log_check(&report, &gate, t);
        let rejection = (!report.passed).then(|| rejection(&req.text, &report, &gate));
        Ok(GateOutcome {
            passed: report.passed,
            report,
            thresholds: GateThresholds {
                min_citations_per_paragraph: gate.min_citations_per_paragraph,
                min_density_per_100_words: gate.min_density_per_100_words,
                every_sentence_cites: gate.every_sentence_cites,
            },
            rejection,
        })
    }

    fn gate_of(&self, req: &ValidateRequest) -> Result<GateConfig, ServiceError> {
        let th = req.thresholds.clone().unwrap_or_default();
        let opts = CheckOptions {
            support: true,
            preset: req.preset.clone().unwrap_or_else(|| "standard".into()),
            min_citations: th.min_citations,
            min_density: th.min_density,
        };
        if th.min_citations.is_some_and(|n| n > 100) {
            return Err(ServiceError::BadRequest(
                "thresholds.min_citations: at most 100".into(),
            ));
        }
        gate_of(&self.cfg, &opts).map_err(classify)
    }

    /// id → quote of the evidence the request names: its items and the served items
    /// of `evidence_ids` (cited by key); empty or repeated ids are refused.
    fn items(
        &self,
        req: &ValidateRequest,
        served: Vec<EvidenceItem>,
    ) -> Result<HashMap<String, Option<String>>, ServiceError> {
        let given = req.evidence.as_deref().unwrap_or_default();
        let pairs = given
            .iter()
            .map(|e| (e.id.clone(), e.quote.clone()))
            .chain(served.into_iter().map(|i| (i.evidence_key, Some(i.quote))));
        let mut items = HashMap::new();
        for (id, quote) in pairs {
            if id.trim().is_empty() {
                return Err(ServiceError::BadRequest(
                    "an evidence item has an empty id".into(),
                ));
            }
            if items.insert(id.clone(), quote).is_some() {
                return Err(ServiceError::BadRequest(format!(
                    "evidence id {id:?} is given twice"
                )));
            }
        }
        Ok(items)
    }
}

/// A citation of a served item whose quote no longer holds in today's index cannot be
/// checked: an `UNVERIFIABLE_CITATION` error in each paragraph that cites one.
fn cite_stale(text: &str, stale: &[(String, Drift)], report: &mut GateResult) {
    if stale.is_empty() {
        return;
    }
    for (n, p) in paragraphs(text).iter().enumerate() {
        let cited = citations(p);
        for (key, drift) in stale {
            if cited.iter().any(|c| &c.id == key) {
                report.violations.push(Violation::error(
                    ViolationKind::UnverifiableCitation,
                    Some(n + 1),
                    None,
                    format!(
                        "cites {key}, whose quote no longer holds in the index ({}); re-ask and cite the current evidence",
                        drift.name()
                    ),
                ));
                report.passed = false;
            }
        }
    }
}

/// Log one check with its result (target `attest::gate`).
fn log_check(r: &GateResult, gate: &GateConfig, t: Instant) {
    let failing: Vec<&str> = r
        .violations
        .iter()
        .filter(|v| v.severity == Severity::Error)
        .map(|v| gate_type(v.kind))
        .collect();
    tracing::info!(
        target: "attest::gate",
        passed = r.passed,
        violations = failing.len(),
        types = %failing.join(","),
        citations = r.citations,
        paragraphs = r.paragraphs,
        words = r.words,
        density = r.density_per_100_words,
        min_density = gate.min_density_per_100_words,
        micros = t.elapsed().as_micros() as u64,
        "evidence gate check"
    );
}

/// The 422 body of a failed check of `text`.
pub fn rejection(text: &str, r: &GateResult, gate: &GateConfig) -> GateRejection {
    let paras = paragraphs(text);
    let failing: Vec<_> = r
        .violations
        .iter()
        .filter(|v| v.severity == Severity::Error)
        .collect();
    let violations = failing
        .iter()
        .map(|v| violation(v, &paras, text, r, gate))
        .collect();
    let mut actions: Vec<String> = Vec::new();
    for v in &failing {
        let a = action(v.kind).to_string();
        if !actions.contains(&a) {
            actions.push(a);
        }
    }
    GateRejection {
        problem_type: GATE_PROBLEM_TYPE.into(),
        title: "Evidence Gate violation".into(),
        status: 422,
        error: "EvidenceGateViolation".into(),
        message: format!("Report rejected: {} citation violations", failing.len()),
        violations,
        citation_stats: CitationStats {
            total_citations: r.citations,
            paragraphs: r.paragraphs,
            density: r.density_per_100_words,
            min_required: gate.min_density_per_100_words,
            word_count: r.words,
        },
        suggested_actions: actions,
    }
}

fn violation(
    v: &crate::evidence::gate::Violation,
    paras: &[&str],
    text: &str,
    r: &GateResult,
    gate: &GateConfig,
) -> GateViolation {
    let para = v
        .paragraph
        .and_then(|n| paras.get(n.wrapping_sub(1)).copied());
    let (shown, count, required) = match (v.kind, para) {
        (ViolationKind::LowCitationDensity, _) => (
            text,
            r.citations,
            (gate.min_density_per_100_words * r.words as f64 / 100.0).ceil() as usize,
        ),
        (ViolationKind::ParagraphWithoutCitations, Some(p)) => {
            (p, citations(p).len(), gate.min_citations_per_paragraph)
        }
        (_, Some(p)) => (p, citations(p).len(), 1),
        (_, None) => (v.sentence.as_deref().unwrap_or(text), r.citations, 1),
    };
    let sentence_count = v.sentence.as_deref().map(|s| citations(s).len());
    GateViolation {
        kind: gate_type(v.kind).into(),
        paragraph: shorten(shown),
        paragraph_index: v.paragraph,
        citation_count: match v.kind {
            ViolationKind::UncitedSentence | ViolationKind::UnsupportedSentence => {
                sentence_count.unwrap_or(count)
            }
            _ => count,
        },
        required_count: required,
        severity: "high".into(),
        detail: v.message.clone(),
    }
}

fn shorten(s: &str) -> String {
    let s = s.trim();
    match s.char_indices().nth(PARAGRAPH_CHARS) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    }
}
