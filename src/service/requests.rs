//! The request bodies of the service: typed, with unknown fields refused, and checked
//! against the configured limits before any work starts. They derive both JSON-schema
//! flavours: `utoipa` for the HTTP server's OpenAPI document, `schemars` for the MCP
//! tools.

use schemars::JsonSchema;
use serde::Deserialize;
use utoipa::ToSchema;

use super::ServiceError;
use crate::ask::AskOptions;
use crate::config::Config;
use crate::retrieve::Mode;
use crate::review::DateOrder;

/// Most hits a search returns.
pub const MAX_HITS: usize = 100;

/// Most evidence items a validation request may carry.
pub const MAX_EVIDENCE_ITEMS: usize = 10_000;

/// `POST /v1/ask`: a question.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AskRequest {
    /// The question.
    pub question: String,
    /// Evidence Gate preset (`standard` when absent).
    #[serde(default)]
    pub preset: Option<String>,
    /// Chunks to draw evidence from.
    #[serde(default)]
    pub chunks: Option<usize>,
    /// Search only documents whose source path is one of these or under them.
    #[serde(default)]
    pub scope: Option<Vec<String>>,
    /// Only sources where these `KEY=VALUE[,VALUE…]` conditions hold (`source_type`,
    /// `collection`, `jurisdiction`, `kind`; `authority>=N`).
    #[serde(default, rename = "where")]
    pub conditions: Option<Vec<String>>,
    /// Only sources of this collection.
    #[serde(default)]
    pub collection: Option<String>,
    /// Only sources in effect on this day (`YYYY-MM-DD`).
    #[serde(default)]
    pub as_of: Option<String>,
    /// Neither serve nor store the answer in the QA memory.
    #[serde(default)]
    pub no_memory: Option<bool>,
}

impl AskRequest {
    /// The question, within the configured length.
    pub fn question<'a>(&'a self, cfg: &Config) -> Result<&'a str, ServiceError> {
        bounded_text("question", &self.question, cfg.serve_max_question_chars)
    }

    /// Apply the request's settings to `opts`.
    pub fn apply(&self, cfg: &Config, opts: &mut AskOptions) -> Result<(), ServiceError> {
        if let Some(p) = &self.preset {
            opts.gate = crate::validate::configured_preset(cfg, p)
                .map_err(|e| ServiceError::BadRequest(e.to_string()))?;
        }
        if let Some(n) = self.chunks {
            if !(1..=1000).contains(&n) {
                return Err(ServiceError::BadRequest(format!(
                    "chunks {n}: must be from 1 to 1000"
                )));
            }
            opts.chunks = n;
        }
        opts.memory &= !self.no_memory.unwrap_or(false);
        Ok(())
    }
}

/// One question of a batch, with the id its result is reported under.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BatchItem {
    /// The id (unique in the batch, at most 200 characters).
    pub id: String,
    /// The question.
    pub question: String,
}

/// `POST /v1/ask/batch`: questions asked one after another at one corpus version, with
/// the options of `POST /v1/ask` applied to each.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AskBatchRequest {
    /// The questions (1 to 10,000, as `attest ask --questions` takes).
    pub questions: Vec<BatchItem>,
    /// Evidence Gate preset (`standard` when absent).
    #[serde(default)]
    pub preset: Option<String>,
    /// Chunks to draw evidence from.
    #[serde(default)]
    pub chunks: Option<usize>,
    /// Search only documents whose source path is one of these or under them.
    #[serde(default)]
    pub scope: Option<Vec<String>>,
    /// Only sources where these `KEY=VALUE[,VALUE…]` conditions hold.
    #[serde(default, rename = "where")]
    pub conditions: Option<Vec<String>>,
    /// Only sources of this collection.
    #[serde(default)]
    pub collection: Option<String>,
    /// Only sources in effect on this day (`YYYY-MM-DD`).
    #[serde(default)]
    pub as_of: Option<String>,
    /// Neither serve nor store the answers in the QA memory.
    #[serde(default)]
    pub no_memory: Option<bool>,
}

/// Longest id of a batch question, in characters.
const MAX_BATCH_ID_CHARS: usize = 200;

impl AskBatchRequest {
    /// The questions as single requests, checked: 1 to [`crate::ask::batch::MAX_QUESTIONS`],
    /// ids unique and short, each question within the configured length.
    pub fn requests(&self, cfg: &Config) -> Result<Vec<(String, AskRequest)>, ServiceError> {
        let max = crate::ask::batch::MAX_QUESTIONS;
        if self.questions.is_empty() || self.questions.len() > max {
            return Err(ServiceError::BadRequest(format!(
                "questions: {} given, from 1 to {max} allowed",
                self.questions.len()
            )));
        }
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::with_capacity(self.questions.len());
        for (i, q) in self.questions.iter().enumerate() {
            let id = q.id.trim();
            if id.is_empty() || id.chars().count() > MAX_BATCH_ID_CHARS || !seen.insert(id) {
                return Err(ServiceError::BadRequest(format!(
                    "questions[{i}]: the id must be unique, not empty and at most {MAX_BATCH_ID_CHARS} characters"
                )));
            }
            let req = AskRequest {
                question: q.question.clone(),
                preset: self.preset.clone(),
                chunks: self.chunks,
                scope: self.scope.clone(),
                conditions: self.conditions.clone(),
                collection: self.collection.clone(),
                as_of: self.as_of.clone(),
                no_memory: self.no_memory,
            };
            req.question(cfg)
                .map_err(|e| ServiceError::BadRequest(format!("questions[{i}]: {e}")))?;
            out.push((id.to_string(), req));
        }
        Ok(out)
    }
}

/// `POST /v1/search`: a query.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchRequest {
    /// The query.
    pub query: String,
    /// Hits to return (1 to 100, default 10).
    #[serde(default)]
    pub k: Option<usize>,
    /// `hybrid` (default), `dense` or `lexical`.
    #[serde(default)]
    pub mode: Option<String>,
    /// Search only documents whose source path is one of these or under them.
    #[serde(default)]
    pub scope: Option<Vec<String>>,
    /// Only sources where these `KEY=VALUE[,VALUE…]` conditions hold (`source_type`,
    /// `collection`, `jurisdiction`, `kind`; `authority>=N`).
    #[serde(default, rename = "where")]
    pub conditions: Option<Vec<String>>,
    /// Only sources of this collection.
    #[serde(default)]
    pub collection: Option<String>,
    /// Only sources in effect on this day (`YYYY-MM-DD`).
    #[serde(default)]
    pub as_of: Option<String>,
}

impl SearchRequest {
    /// The query, mode and hit count, checked.
    pub fn parts<'a>(&'a self, cfg: &Config) -> Result<(&'a str, Mode, usize), ServiceError> {
        let query = bounded_text("query", &self.query, cfg.serve_max_question_chars)?;
        let mode = match &self.mode {
            None => Mode::Hybrid,
            Some(m) => m.parse().map_err(ServiceError::BadRequest)?,
        };
        let k = self.k.unwrap_or(10);
        if !(1..=MAX_HITS).contains(&k) {
            return Err(ServiceError::BadRequest(format!(
                "k {k}: must be from 1 to {MAX_HITS}"
            )));
        }
        Ok((query, mode, k))
    }
}

/// `POST /v1/review`: a checklist, inline.
#[derive(Debug, Clone, Deserialize, JsonSchema, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ReviewRequest {
    /// The checklist: an object with a `requirements` array (the file format of
    /// `attest review`).
    #[schema(value_type = Object)]
    pub checklist: serde_json::Value,
    /// Review only documents whose source path is one of these or under them.
    #[serde(default)]
    pub scope: Option<Vec<String>>,
    /// Only sources where these `KEY=VALUE[,VALUE…]` conditions hold (`source_type`,
    /// `collection`, `jurisdiction`, `kind`; `authority>=N`).
    #[serde(default, rename = "where")]
    pub conditions: Option<Vec<String>>,
    /// Only sources of this collection.
    #[serde(default)]
    pub collection: Option<String>,
    /// Only sources in effect on this day (`YYYY-MM-DD`).
    #[serde(default)]
    pub as_of: Option<String>,
    /// Order of ambiguous numeric dates: `dmy`, `mdy` or `ymd` (default: inferred per
    /// document, else reported as ambiguous).
    #[serde(default)]
    pub date_order: Option<String>,
}

impl ReviewRequest {
    /// The date order named, when one is.
    pub fn date_order(&self) -> Result<Option<DateOrder>, ServiceError> {
        match self.date_order.as_deref() {
            None => Ok(None),
            Some("dmy") => Ok(Some(DateOrder::Dmy)),
            Some("mdy") => Ok(Some(DateOrder::Mdy)),
            Some("ymd") => Ok(Some(DateOrder::Ymd)),
            Some(o) => Err(ServiceError::BadRequest(format!(
                "date_order {o:?}: dmy, mdy or ymd"
            ))),
        }
    }
}

/// `POST /v1/sources` and `POST /v1/requirements`: which sources (all when empty).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SourcesRequest {
    /// Only documents whose source path is one of these or under them.
    #[serde(default)]
    pub scope: Option<Vec<String>>,
    /// Only sources where these `KEY=VALUE[,VALUE…]` conditions hold (`source_type`,
    /// `collection`, `jurisdiction`, `kind`; `authority>=N`).
    #[serde(default, rename = "where")]
    pub conditions: Option<Vec<String>>,
    /// Only sources of this collection.
    #[serde(default)]
    pub collection: Option<String>,
    /// Only sources in effect on this day (`YYYY-MM-DD`).
    #[serde(default)]
    pub as_of: Option<String>,
}

/// The source filter of a request's `where`, `collection` and `as_of`, checked.
pub fn filter_of(
    conditions: &Option<Vec<String>>,
    collection: &Option<String>,
    as_of: &Option<String>,
) -> Result<crate::authority::Filter, ServiceError> {
    let spec = crate::authority::FilterSpec {
        conditions: conditions.clone().unwrap_or_default(),
        collection: collection.clone(),
        as_of: as_of.clone(),
        scope: Vec::new(),
    };
    crate::authority::Filter::parse(&spec).map_err(ServiceError::BadRequest)
}

/// An evidence item a text may cite.
#[derive(Debug, Clone, Deserialize, JsonSchema, ToSchema)]
pub struct EvidenceInput {
    /// The id the text cites (`E1`, or the ID of `[cite:ID]`).
    pub id: String,
    /// The verbatim quote (without it, the sentences citing the item cannot be checked
    /// for support).
    #[serde(default)]
    pub quote: Option<String>,
}

/// Thresholds that override the preset's.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Thresholds {
    /// Citations every paragraph needs.
    #[serde(default)]
    pub min_citations: Option<usize>,
    /// Minimum citations per 100 words.
    #[serde(default)]
    pub min_density: Option<f64>,
}

/// `POST /v1/validate`: a text to put through the Evidence Gate.
#[derive(Debug, Clone, Deserialize, JsonSchema, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ValidateRequest {
    /// The text (Markdown or plain; `[E1]`, `[E1, E3]`, `[E1][E3]`, `[cite:ID]`).
    pub text: String,
    /// The evidence the text may cite, with quotes.
    #[serde(default)]
    pub evidence: Option<Vec<EvidenceInput>>,
    /// Evidence keys of items this server served (answers and reviews); the text cites
    /// them as `[cite:KEY]`.
    #[serde(default)]
    pub evidence_ids: Option<Vec<String>>,
    /// Threshold preset (`standard` when absent; see `attest.toml` `[presets.NAME]`).
    #[serde(default)]
    pub preset: Option<String>,
    /// Overrides of the preset's thresholds.
    #[serde(default)]
    pub thresholds: Option<Thresholds>,
    /// Check that sentences which are not verbatim quotes are supported by what they
    /// cite (default true).
    #[serde(default)]
    pub support: Option<bool>,
}

/// `text` trimmed, when it is not empty and at most `max` characters long.
fn bounded_text<'a>(what: &str, text: &'a str, max: usize) -> Result<&'a str, ServiceError> {
    let t = text.trim();
    if t.is_empty() {
        return Err(ServiceError::BadRequest(format!("the {what} is empty")));
    }
    let n = t.chars().count();
    if n > max {
        return Err(ServiceError::TooLarge(format!(
            "the {what} has {n} characters; at most {max} are accepted"
        )));
    }
    Ok(t)
}
