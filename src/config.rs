//! Configuration: defaults < `attest.toml` < `ATTEST_*` environment < command-line flags.
//!
//! Every setting is declared once, in the `settings!` invocation below: its key (the
//! field), type, default, environment variable, accepted range and help. That one
//! declaration generates the [`Config`] struct and its `Default`, the [`SETTINGS`] table
//! (read by the environment overrides, the range checks, the command-line help and a test
//! that holds the configuration table of docs/reference.md to it). The file is looked up as
//! `./attest.toml` unless `--config` names another.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::corpus::pdftext::PdfExtractor;

/// Errors reading configuration.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The config file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The file is not valid TOML or has unknown keys / wrong types.
    #[error("{}: {reason}", path.display())]
    Parse {
        /// The config file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A setting is out of range (or not a finite number); names where it was set.
    #[error("setting {key} = {value} (from {origin}): {reason}")]
    Invalid {
        /// The setting.
        key: String,
        /// Its value.
        value: String,
        /// Where it came from.
        origin: Origin,
        /// The accepted range.
        reason: String,
    },
    /// An environment variable has an invalid value.
    #[error("environment variable {var}={value:?}: {reason}")]
    Env {
        /// Variable name.
        var: String,
        /// Its value.
        value: String,
        /// What is wrong.
        reason: String,
    },
}

/// Where a setting's value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// The built-in default.
    Default,
    /// A configuration file.
    File(PathBuf),
    /// An environment variable.
    Env(String),
    /// A command-line flag.
    Flag(String),
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::Default => write!(f, "the default"),
            Origin::File(p) => write!(f, "file {}", p.display()),
            Origin::Env(v) => write!(f, "environment variable {v}"),
            Origin::Flag(n) => write!(f, "flag {n}"),
        }
    }
}

/// The accepted range of a numeric setting.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Range {
    /// Finite and within `[lo, hi]`.
    Float(f64, f64),
    /// An integer within `[lo, hi]`.
    Int(u64, u64),
}

/// Upper bound of the byte budgets (1 TiB): far above any real file, so that only
/// nonsense values are refused.
const MAX_BYTES: u64 = 1 << 40;
/// Upper bound of `pdf_memory_bytes` (16 TiB, beyond any address space the worker could get).
const MAX_PDF_MEMORY_BYTES: u64 = 1 << 44;
/// Lower bound of `pdf_memory_bytes`: below 64 MiB the PDF worker could not even start (the
/// limit covers the binary itself).
const MIN_PDF_MEMORY_BYTES: u64 = 64 << 20;
/// One day in seconds: the longest time limit for one PDF.
const DAY_SECS: u64 = 86_400;
/// Upper bound of counts that are read per query or per document (candidates, beams,
/// budgets): large enough for any corpus, small enough to refuse typos.
const MAX_COUNT: u64 = 100_000;
/// Upper bound of per-answer and per-document counts (chunks, statements, rerank depth).
const MAX_SMALL_COUNT: u64 = 10_000;
/// Upper bound of `max_chunks_per_file` (the text budget's ceiling cut into small chunks).
const MAX_FILE_CHUNKS: u64 = 100_000_000;
/// Upper bound of `ask_chunks` and `max_statements`.
const MAX_ANSWER_COUNT: u64 = 1_000;
/// A share or a probability.
const UNIT: Range = Range::Float(0.0, 1.0);

/// A setting as the `settings!` declaration states it.
#[derive(Debug, Clone, Copy)]
pub struct Setting {
    /// Key in `attest.toml` (and the [`Config`] field).
    pub key: &'static str,
    /// Environment variable.
    pub env: &'static str,
    /// Short description (the command-line help of the flags that set it).
    pub help: &'static str,
    /// Accepted range (numeric settings).
    pub range: Option<Range>,
    /// What the default is when there is no default value (settings that are optional).
    none: &'static str,
    /// The value of this setting in a configuration, as text (None when unset).
    shown: fn(&Config) -> Option<String>,
    /// The value as a number, for the range check.
    number: fn(&Config) -> Option<f64>,
    /// Set the value from an environment variable's text.
    set: fn(&mut Config, &str, &str) -> Result<(), ConfigError>,
}

impl Setting {
    /// The default as the README table states it: the default value, or a description
    /// of what happens without one.
    pub fn default_text(&self) -> String {
        (self.shown)(&Config::default()).unwrap_or_else(|| self.none.to_string())
    }
}

/// The declaration of one setting: how it is parsed from the environment, shown and
/// range-checked.
trait SettingValue: Sized {
    fn from_env(var: &str, v: &str) -> Result<Self, ConfigError>;
    fn shown(&self) -> Option<String>;
    fn number(&self) -> Option<f64> {
        None
    }
}

fn parse<T: std::str::FromStr>(var: &str, v: &str) -> Result<T, ConfigError>
where
    T::Err: std::fmt::Display,
{
    v.trim().parse().map_err(|e: T::Err| ConfigError::Env {
        var: var.to_string(),
        value: v.to_string(),
        reason: e.to_string(),
    })
}

impl SettingValue for PathBuf {
    fn from_env(_: &str, v: &str) -> Result<Self, ConfigError> {
        Ok(PathBuf::from(v))
    }
    fn shown(&self) -> Option<String> {
        Some(self.display().to_string())
    }
}

impl SettingValue for Option<PathBuf> {
    fn from_env(_: &str, v: &str) -> Result<Self, ConfigError> {
        Ok(Some(PathBuf::from(v)))
    }
    fn shown(&self) -> Option<String> {
        self.as_ref().map(|p| p.display().to_string())
    }
}

impl SettingValue for crate::corpus::ocr::OcrMode {
    fn from_env(var: &str, v: &str) -> Result<Self, ConfigError> {
        parse(var, v)
    }
    fn shown(&self) -> Option<String> {
        Some(self.to_string())
    }
}

impl SettingValue for PdfExtractor {
    fn from_env(var: &str, v: &str) -> Result<Self, ConfigError> {
        parse(var, v)
    }
    fn shown(&self) -> Option<String> {
        Some(self.to_string())
    }
}

/// Which backend keeps the corpus (`backend` in `attest.toml`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BackendKind {
    /// SQLite and an HNSW file in the index directory.
    #[default]
    Sqlite,
    /// Collections on a Milvus server (`milvus_url`, `milvus_prefix`).
    Milvus,
}

impl BackendKind {
    /// The name used in settings.
    pub fn as_str(self) -> &'static str {
        match self {
            BackendKind::Sqlite => "sqlite",
            BackendKind::Milvus => "milvus",
        }
    }
}

impl std::fmt::Display for BackendKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for BackendKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        [BackendKind::Sqlite, BackendKind::Milvus]
            .into_iter()
            .find(|b| b.as_str() == s.trim())
            .ok_or_else(|| format!("expected sqlite or milvus, not {s:?}"))
    }
}

/// The arithmetic of the bi-encoder's linear layers. An index records the precision
/// that embedded it and refuses vectors of another.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EmbedPrecision {
    /// 32-bit floats, as the model was trained.
    #[default]
    F32,
    /// Weights quantised to 8 bits per output channel, activations per token (fast with
    /// VNNI or AVX2; a portable kernel gives the same integers elsewhere, slowly).
    Int8,
}

impl EmbedPrecision {
    /// The name used in settings and recorded in an index.
    pub fn as_str(self) -> &'static str {
        match self {
            EmbedPrecision::F32 => "f32",
            EmbedPrecision::Int8 => "int8",
        }
    }
}

impl std::fmt::Display for EmbedPrecision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for EmbedPrecision {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        [EmbedPrecision::F32, EmbedPrecision::Int8]
            .into_iter()
            .find(|p| p.as_str() == s.trim())
            .ok_or_else(|| format!("expected f32 or int8, not {s:?}"))
    }
}

/// The `embed_precision` setting: a fixed precision, or `auto` (the default), which
/// keeps the precision an existing index records and embeds a new index at the fastest
/// precision this CPU runs (the engine resolves it against the index).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PrecisionSetting {
    /// The index's own precision; for a new index int8 where an int8 kernel runs, else f32.
    #[default]
    Auto,
    /// Always f32.
    F32,
    /// Always int8.
    Int8,
}

impl PrecisionSetting {
    /// The name used in settings.
    pub fn as_str(self) -> &'static str {
        match self {
            PrecisionSetting::Auto => "auto",
            PrecisionSetting::F32 => "f32",
            PrecisionSetting::Int8 => "int8",
        }
    }

    /// The precision this setting fixes, `None` for `auto`.
    pub fn fixed(self) -> Option<EmbedPrecision> {
        match self {
            PrecisionSetting::Auto => None,
            PrecisionSetting::F32 => Some(EmbedPrecision::F32),
            PrecisionSetting::Int8 => Some(EmbedPrecision::Int8),
        }
    }
}

impl std::fmt::Display for PrecisionSetting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for PrecisionSetting {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        [
            PrecisionSetting::Auto,
            PrecisionSetting::F32,
            PrecisionSetting::Int8,
        ]
        .into_iter()
        .find(|p| p.as_str() == s.trim())
        .ok_or_else(|| format!("expected auto, f32 or int8, not {s:?}"))
    }
}

impl SettingValue for PrecisionSetting {
    fn from_env(var: &str, v: &str) -> Result<Self, ConfigError> {
        parse(var, v)
    }
    fn shown(&self) -> Option<String> {
        Some(self.to_string())
    }
}

impl SettingValue for BackendKind {
    fn from_env(var: &str, v: &str) -> Result<Self, ConfigError> {
        parse(var, v)
    }
    fn shown(&self) -> Option<String> {
        Some(self.to_string())
    }
}

impl SettingValue for bool {
    fn from_env(var: &str, v: &str) -> Result<Self, ConfigError> {
        parse(var, v)
    }
    fn shown(&self) -> Option<String> {
        Some(self.to_string())
    }
}

macro_rules! numeric_setting {
    ($($t:ty),*) => {$(
        impl SettingValue for $t {
            fn from_env(var: &str, v: &str) -> Result<Self, ConfigError> {
                parse(var, v)
            }
            fn shown(&self) -> Option<String> {
                Some(self.to_string())
            }
            fn number(&self) -> Option<f64> {
                Some(*self as f64)
            }
        }
    )*};
}
numeric_setting!(usize, u64, f64);

/// Declares every setting once: `key: Type = default, env "VAR", range, help "…"` (with
/// `none "…"` stating the default of an optional setting, and doc comments for the field).
/// Generates [`Config`], its `Default` and [`SETTINGS`], in declaration order (the order
/// the range check and the environment overrides go through them).
macro_rules! settings {
    (@none) => {
        ""
    };
    (@none $none:literal) => {
        $none
    };
    ($(
        $(#[doc = $doc:literal])*
        $key:ident: $ty:ty = $default:expr,
        env $env:literal, range $range:expr, help $help:literal $(, none $none:literal)?;
    )*) => {
        /// All settings, with their defaults in [`Config::default`] (see [`SETTINGS`]).
        #[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
        #[serde(default, deny_unknown_fields)]
        pub struct Config {
            $(
                #[doc = concat!($help, " (`", $env, "`).")]
                $(#[doc = $doc])*
                pub $key: $ty,
            )*
            /// Evidence Gate presets per report template (`[presets.NAME]` tables), on top
            /// of the built-in ones (see [`GatePreset`]).
            pub presets: std::collections::BTreeMap<String, GatePreset>,
            /// What documents are as sources (`[[sources]]` tables: a path glob and the
            /// fields it declares; see [`crate::source::SourceRule`]).
            pub sources: Vec<crate::source::SourceRule>,
            /// Where each setting that is not a default came from (key → origin).
            #[serde(skip)]
            pub origins: std::collections::BTreeMap<String, Origin>,
        }

        impl Default for Config {
            fn default() -> Self {
                Config {
                    $($key: $default,)*
                    presets: Default::default(),
                    sources: Default::default(),
                    origins: Default::default(),
                }
            }
        }

        /// Every setting, in declaration order.
        pub const SETTINGS: &[Setting] = &[$(
            Setting {
                key: stringify!($key),
                env: $env,
                help: $help,
                range: $range,
                none: settings!(@none $($none)?),
                shown: |c| SettingValue::shown(&c.$key),
                number: |c| SettingValue::number(&c.$key),
                set: |c, var, v| {
                    c.$key = SettingValue::from_env(var, v)?;
                    Ok(())
                },
            },
        )*];
    };
}

settings! {
    index: PathBuf = PathBuf::from(".attest"),
        env "ATTEST_INDEX", range None, help "Index directory";
    /// `milvus` keeps documents, chunks, vectors and the lexical index on a Milvus server
    /// instead (see the "Scale" section of docs/figures.md); the index directory then holds nothing.
    backend: BackendKind = BackendKind::Sqlite,
        env "ATTEST_BACKEND", range None,
        help "Where the corpus is kept: sqlite (the index directory) or milvus (a Milvus server)";
    milvus_url: String = "http://127.0.0.1:19530".to_string(),
        env "ATTEST_MILVUS_URL", range None, help "Milvus server URL (backend = milvus)";
    /// Several corpora can share one server under different prefixes.
    milvus_prefix: String = "attest".to_string(),
        env "ATTEST_MILVUS_PREFIX", range None,
        help "Prefix of the corpus's Milvus collection names (letters, digits and _)";
    /// Default: `models/all-MiniLM-L6-v2` in the working directory, then in the source tree.
    model_dir: Option<PathBuf> = None,
        env "ATTEST_MODEL_DIR", range None, help "Bi-encoder model directory",
        none "models/all-MiniLM-L6-v2";
    /// `int8` runs the linear layers on 8-bit integers (see `docs/figures.md` for its speed
    /// and its parity with f32); an index embedded at one precision refuses the other
    /// until `attest ingest --reembed` converts it. `auto` keeps an index's precision and
    /// embeds a new index at int8 where an int8 kernel runs.
    embed_precision: PrecisionSetting = PrecisionSetting::Auto,
        env "ATTEST_EMBED_PRECISION", range None,
        help "Arithmetic of the bi-encoder: auto, f32 or int8";
    chunk_tokens: usize = 200,
        env "ATTEST_CHUNK_TOKENS", range Some(Range::Int(8, 256)),
        help "Chunk budget in model tokens";
    /// Off saves about a sixth of the tokens embedded and loses answers whose sentence
    /// needs the one before it (`docs/figures.md`); changing it re-chunks each document
    /// at its next ingest.
    chunk_overlap: bool = true,
        env "ATTEST_CHUNK_OVERLAP", range None,
        help "Open each chunk with the previous chunk's last sentence";
    max_file_bytes: u64 = 50 * 1024 * 1024,
        env "ATTEST_MAX_FILE_BYTES", range Some(Range::Int(1, MAX_BYTES)),
        help "Largest file ingested, in bytes";
    pdf_timeout_secs: u64 = 30,
        env "ATTEST_PDF_TIMEOUT_SECS", range Some(Range::Int(1, DAY_SECS)),
        help "Time limit for extracting one PDF, in seconds";
    max_text_bytes: u64 = 16 * 1024 * 1024,
        env "ATTEST_MAX_TEXT_BYTES", range Some(Range::Int(1, MAX_BYTES)),
        help "Most text one file may yield, in bytes";
    max_inflated_bytes: u64 = 256 * 1024 * 1024,
        env "ATTEST_MAX_INFLATED_BYTES", range Some(Range::Int(1, MAX_BYTES)),
        help "Most bytes a PDF's Flate streams or a DOCX's zip entries may inflate to";
    pdf_memory_bytes: u64 = 2 * 1024 * 1024 * 1024,
        env "ATTEST_PDF_MEMORY_BYTES",
        range Some(Range::Int(MIN_PDF_MEMORY_BYTES, MAX_PDF_MEMORY_BYTES)),
        help "Address-space limit of the PDF extraction process, in bytes";
    pdf_extractor: PdfExtractor = PdfExtractor::Auto,
        env "ATTEST_PDF_EXTRACTOR", range None,
        help "PDF text extractor: auto (pdftotext when installed, else pdf-extract), pdftotext or pdf-extract";
    ocr: crate::corpus::ocr::OcrMode = crate::corpus::ocr::OcrMode::Auto,
        env "ATTEST_OCR", range None,
        help "OCR of image-only PDF pages and image files: auto (with tesseract when installed) or off";
    /// 0 makes every file fail at once (a clear per-file failure, never a wrong result).
    file_timeout_secs: u64 = 300,
        env "ATTEST_FILE_TIMEOUT_SECS", range Some(Range::Int(0, 7 * DAY_SECS)),
        help "Time limit for loading, segmenting, chunking and embedding one file, in seconds";
    /// Embedding runs at about 30 ms a chunk on two cores, so 5,000 chunks (about 4 MB of
    /// prose, a 2,000-page book) take 2–3 minutes, within half of `file_timeout_secs`.
    max_chunks_per_file: usize = 5_000,
        env "ATTEST_MAX_CHUNKS_PER_FILE", range Some(Range::Int(1, MAX_FILE_CHUNKS)),
        help "Most chunks one file may make (all its documents together)";
    /// The constant k in `1 / (k + rank)`.
    rrf_k: f64 = 60.0,
        env "ATTEST_RRF_K", range Some(Range::Float(0.0, 1e6)),
        help "Reciprocal rank fusion constant";
    max_chunks_per_document: usize = 3,
        env "ATTEST_MAX_CHUNKS_PER_DOCUMENT", range Some(Range::Int(1, MAX_SMALL_COUNT)),
        help "Chunks of one document among the hits of a search or a retrieval step, before other documents' chunks are taken";
    candidates: usize = 100,
        env "ATTEST_CANDIDATES", range Some(Range::Int(1, MAX_COUNT)),
        help "Candidates per retriever before fusion";
    /// At or above this many chunks, dense search uses the HNSW graph.
    exact_threshold: usize = 20_000,
        env "ATTEST_EXACT_THRESHOLD", range Some(Range::Int(0, u32::MAX as u64)),
        help "Chunks below which dense search is exact";
    hnsw_m: usize = 16,
        env "ATTEST_HNSW_M", range Some(Range::Int(2, 256)),
        help "HNSW neighbours per node";
    hnsw_ef_construction: usize = 200,
        env "ATTEST_HNSW_EF_CONSTRUCTION", range Some(Range::Int(1, MAX_COUNT)),
        help "HNSW construction beam width";
    hnsw_ef_search: usize = 128,
        env "ATTEST_HNSW_EF_SEARCH", range Some(Range::Int(1, MAX_COUNT)),
        help "HNSW search beam width up to 100,000 chunks (grows in proportion past it)";
    rebuild_dead_fraction: f64 = 0.2,
        env "ATTEST_REBUILD_DEAD_FRACTION", range Some(UNIT),
        help "Share of deleted chunks among the HNSW graph's points that triggers a rebuild";
    reranker_dir: Option<PathBuf> = None,
        env "ATTEST_RERANKER_DIR", range None, help "Cross-encoder directory",
        none "first `BertForSequenceClassification` dir under `models/`";
    rerank_depth: usize = 25,
        env "ATTEST_RERANK_DEPTH", range Some(Range::Int(0, MAX_SMALL_COUNT)),
        help "Candidates the cross-encoder scores per retrieval";
    embed_batch_tokens: usize = 2048,
        env "ATTEST_EMBED_BATCH_TOKENS", range Some(Range::Int(1, 1 << 20)),
        help "Texts' token budget per forward pass of the bi-encoder";
    ask_chunks: usize = 5,
        env "ATTEST_ASK_CHUNKS", range Some(Range::Int(1, MAX_ANSWER_COUNT)),
        help "Chunks to draw evidence from";
    max_statements: usize = 4,
        env "ATTEST_MAX_STATEMENTS", range Some(Range::Int(1, MAX_ANSWER_COUNT)),
        help "Distinct statements in the answer at most";
    /// The fitted relevance model's probability (see `evidence::fitted`); the default is
    /// the model's threshold, chosen on its validation split (a test keeps them equal).
    min_relevance: f64 = 0.07,
        env "ATTEST_MIN_RELEVANCE", range Some(UNIT),
        help "Minimum relevance of an evidence item without a cross-encoder";
    /// The value model's bound (see `ask::assure`); the default is the fitted bound of
    /// `src/ask/value.toml`, chosen on its validation split (a test keeps them equal).
    min_value_probability: f64 = 0.782,
        env "ATTEST_MIN_VALUE_PROBABILITY", range Some(UNIT),
        help "Least fitted probability that a value read is the one asked for at which the answer names it (0 names every value read)";
    /// The value model's `answer_from` (see `ask::assure`): below it, a one-step value
    /// question whose value is not named is not answered; the default is the fitted bound
    /// of `src/ask/value.toml` (a test keeps them equal).
    min_value_answer_probability: f64 = 0.437,
        env "ATTEST_MIN_VALUE_ANSWER_PROBABILITY", range Some(UNIT),
        help "Least fitted probability of the value read at which a value question whose value is not named is still answered, citing its passages";
    /// The relevance a review needs before a passage counts as evidence of a requirement;
    /// fitted on the review development sets by `scripts/fit_review_bar.py`.
    review_min_relevance: f64 = 0.15,
        env "ATTEST_REVIEW_MIN_RELEVANCE", range Some(UNIT),
        help "Minimum relevance of a review's evidence item without a cross-encoder";
    /// The sigmoid of the cross-encoder's logit.
    min_cross_relevance: f64 = 0.5,
        env "ATTEST_MIN_CROSS_RELEVANCE", range Some(UNIT),
        help "Minimum cross-encoder relevance of an evidence item";
    embed_budget: usize = 24,
        env "ATTEST_EMBED_BUDGET", range Some(Range::Int(1, MAX_COUNT)),
        help "Evidence candidates scored by a model per question";
    max_question_words: usize = 300,
        env "ATTEST_MAX_QUESTION_WORDS", range Some(Range::Int(1, MAX_COUNT)),
        help "Longest question accepted, in words";
    memory: bool = true,
        env "ATTEST_MEMORY", range None,
        help "Serve and store answers in the QA memory";
    memory_threshold: f64 = 0.92,
        env "ATTEST_MEMORY_THRESHOLD", range Some(UNIT),
        help "Question cosine at or above which a stored answer is served";
    generator: Option<PathBuf> = None,
        env "ATTEST_GENERATOR", range None,
        help "GGUF model that phrases answers (`ask`, `eval answers`)",
        none "none, answers are extractive";
    /// Each holds its own database connection and shares the models and dense index.
    serve_workers: usize = 2,
        env "ATTEST_SERVE_WORKERS", range Some(Range::Int(1, 64)),
        help "Requests `attest serve` and `attest mcp` work on in parallel";
    /// Requests beyond it get 429 with `Retry-After`.
    serve_concurrency: usize = 16,
        env "ATTEST_SERVE_CONCURRENCY", range Some(Range::Int(1, 4096)),
        help "Requests the server holds at once, running or waiting for a worker";
    serve_max_body_bytes: u64 = 1024 * 1024,
        env "ATTEST_SERVE_MAX_BODY_BYTES", range Some(Range::Int(1024, 1 << 30)),
        help "Largest request body the server reads, in bytes (413 beyond)";
    serve_max_text_bytes: u64 = 512 * 1024,
        env "ATTEST_SERVE_MAX_TEXT_BYTES", range Some(Range::Int(1, 1 << 30)),
        help "Longest text `/v1/validate` checks, in bytes";
    serve_max_question_chars: usize = 2000,
        env "ATTEST_SERVE_MAX_QUESTION_CHARS", range Some(Range::Int(1, MAX_COUNT)),
        help "Longest question or query the server accepts, in characters";
    /// The client gets 503; a review stops at its next research query, shorter work ends
    /// in its worker.
    serve_timeout_secs: u64 = 120,
        env "ATTEST_SERVE_TIMEOUT_SECS", range Some(Range::Int(1, DAY_SECS)),
        help "Time a request may take, in seconds";
    /// Also the longest idle time between requests on a kept-alive connection.
    serve_header_timeout_secs: u64 = 10,
        env "ATTEST_SERVE_HEADER_TIMEOUT_SECS", range Some(Range::Int(1, 3600)),
        help "Time a connection may take to send a request's headers, or stay idle between requests, in seconds";
    /// Lowered to fit the process's open-file limit; beyond it a connection gets 503.
    serve_max_connections: usize = 512,
        env "ATTEST_SERVE_MAX_CONNECTIONS", range Some(Range::Int(1, 65536)),
        help "Connections the server keeps open at once";
    serve_max_connections_per_client: usize = 128,
        env "ATTEST_SERVE_MAX_CONNECTIONS_PER_CLIENT", range Some(Range::Int(1, 65536)),
        help "Connections the server keeps open at once from one client address";
    /// One per requirement plus one per field it asks for.
    serve_max_review_queries: usize = 1000,
        env "ATTEST_SERVE_MAX_REVIEW_QUERIES", range Some(Range::Int(1, MAX_COUNT)),
        help "Research queries one review request may need (413 beyond)";
    /// Reviews wait for these; questions never wait behind a review.
    serve_review_workers: usize = 1,
        env "ATTEST_SERVE_REVIEW_WORKERS", range Some(Range::Int(1, 64)),
        help "Reviews the server runs at once, on workers of their own";
    /// Required with `--allow-remote`; compared in constant time.
    serve_token: Secret = Secret::default(),
        env "ATTEST_TOKEN", range None,
        help "Bearer token every API request needs", none "none (loopback only)";
    serve_cors_origins: String = String::new(),
        env "ATTEST_CORS_ORIGINS", range None,
        help "Comma-separated origins allowed to call the API from a browser",
        none "none (CORS closed)";
}

/// A secret setting (the server's bearer token): never shown, printed or logged. An empty
/// or blank value, from any source, is no secret (it would let an empty header in).
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "Option<String>", into = "Option<String>")]
pub struct Secret(Option<String>);

impl From<Option<String>> for Secret {
    fn from(v: Option<String>) -> Self {
        Secret::new(v.as_deref().unwrap_or(""))
    }
}

impl From<Secret> for Option<String> {
    fn from(s: Secret) -> Self {
        s.0
    }
}

impl Secret {
    /// A secret holding `value` (an empty or blank value is no secret).
    pub fn new(value: &str) -> Self {
        Secret((!value.trim().is_empty()).then(|| value.to_string()))
    }

    /// The secret, when one is set.
    pub fn expose(&self) -> Option<&str> {
        self.0.as_deref()
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Secret(set)"
        } else {
            "Secret(none)"
        })
    }
}

impl SettingValue for Secret {
    fn from_env(_: &str, v: &str) -> Result<Self, ConfigError> {
        Ok(Secret::new(v))
    }
    fn shown(&self) -> Option<String> {
        self.0.as_ref().map(|_| "(set)".to_string())
    }
}

impl SettingValue for String {
    fn from_env(_: &str, v: &str) -> Result<Self, ConfigError> {
        Ok(v.to_string())
    }
    fn shown(&self) -> Option<String> {
        (!self.is_empty()).then(|| self.clone())
    }
}

/// Thresholds of an Evidence Gate preset named in `attest.toml` (`[presets.quarterly]`).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GatePreset {
    /// Citations every paragraph needs.
    pub min_citations_per_paragraph: usize,
    /// Minimum citations per 100 words.
    pub min_density_per_100_words: f64,
    /// Whether an uncited statement sentence fails the gate (else a warning).
    #[serde(default = "yes")]
    pub every_sentence_cites: bool,
}

fn yes() -> bool {
    true
}

/// Characters of the offending line a TOML error quotes, at most.
const TOML_EXCERPT_CHARS: usize = 200;

/// A TOML error as one bounded line: the message, where (line and column), and at most
/// [`TOML_EXCERPT_CHARS`] characters of the line around that place, cut with `…` (the
/// parser's own message quotes the whole line, which may be megabytes long).
fn toml_error(text: &str, e: &toml::de::Error) -> String {
    // The message may quote a value (`invalid type: string "…"`): bounded too.
    let mut message: String = e
        .message()
        .trim_end()
        .chars()
        .take(TOML_EXCERPT_CHARS)
        .collect();
    if message.len() < e.message().trim_end().len() {
        message.push('…');
    }
    let Some(at) = e.span().map(|s| s.start.min(text.len())) else {
        return message;
    };
    let at = (0..=at)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    let line_no = text[..at].matches('\n').count() + 1;
    let before: Vec<char> = text[line_start..at].chars().collect();
    let column = before.len() + 1;
    let after: Vec<char> = text[at..line_end].chars().collect();
    let half = TOML_EXCERPT_CHARS / 2;
    let lead = before.len().saturating_sub(half);
    let tail = after.len().min(TOML_EXCERPT_CHARS - (before.len() - lead));
    let mut excerpt: String = before[lead..].iter().collect();
    if lead > 0 {
        excerpt.insert(0, '…');
    }
    excerpt.extend(&after[..tail]);
    if tail < after.len() {
        excerpt.push('…');
    }
    format!(
        "TOML parse error at line {line_no}, column {column}: {message} (in `{}`)",
        excerpt.trim_end_matches('\r')
    )
}

/// The declared setting `key`.
pub fn setting(key: &str) -> Option<&'static Setting> {
    SETTINGS.iter().find(|s| s.key == key)
}

impl Config {
    /// Load defaults, then `file` (or `./attest.toml` when it exists), then the
    /// environment. Flags are applied by the caller afterwards.
    pub fn load(file: Option<&Path>) -> Result<Self, ConfigError> {
        let mut cfg = match file {
            Some(p) => Self::from_file(p)?,
            None if Path::new("attest.toml").is_file() => {
                Self::from_file(Path::new("attest.toml"))?
            }
            None => Config::default(),
        };
        cfg.apply_env(|k| std::env::var(k).ok())?;
        Ok(cfg)
    }

    /// Parse a TOML file (unknown keys are errors).
    pub fn from_file(path: &Path) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let parse = |e: toml::de::Error| ConfigError::Parse {
            path: path.to_path_buf(),
            reason: toml_error(&text, &e),
        };
        let mut cfg: Config = toml::from_str(&text).map_err(parse)?;
        let table: toml::Table = toml::from_str(&text).map_err(parse)?;
        for key in table.keys() {
            cfg.origins
                .insert(key.clone(), Origin::File(path.to_path_buf()));
        }
        Ok(cfg)
    }

    /// Record that `key` was set by the command-line flag `flag`.
    pub fn set_by_flag(&mut self, key: &str, flag: &str) {
        self.origins
            .insert(key.to_string(), Origin::Flag(flag.to_string()));
    }

    /// Where `key`'s value came from.
    pub fn origin(&self, key: &str) -> Origin {
        self.origins.get(key).cloned().unwrap_or(Origin::Default)
    }

    /// Check every numeric setting is finite and in range; the error names the key, its
    /// value and where it was set (default, file, environment or flag).
    pub fn validate(&self) -> Result<(), ConfigError> {
        for s in SETTINGS {
            let (Some(range), Some(v)) = (s.range, (s.number)(self)) else {
                continue;
            };
            let reason = match range {
                Range::Float(lo, hi) if !v.is_finite() || v < lo || v > hi => {
                    format!("must be a finite number from {lo} to {hi}")
                }
                Range::Int(lo, hi) if v < lo as f64 || v > hi as f64 => {
                    format!("must be an integer from {lo} to {hi}")
                }
                _ => continue,
            };
            return Err(self.invalid(s.key, v.to_string(), reason));
        }
        for (name, p) in &self.presets {
            let d = p.min_density_per_100_words;
            if !d.is_finite() || !(0.0..=100.0).contains(&d) || p.min_citations_per_paragraph > 100
            {
                let v = format!(
                    "{{min_citations_per_paragraph = {}, min_density_per_100_words = {d}}}",
                    p.min_citations_per_paragraph
                );
                let reason =
                    "citations per paragraph from 0 to 100, density a finite number from 0 to 100"
                        .into();
                return Err(self.invalid(&format!("presets.{name}"), v, reason));
            }
        }
        for (i, rule) in self.sources.iter().enumerate() {
            if let Err(reason) = rule.check() {
                return Err(self.invalid(&format!("sources[{i}]"), rule.path.clone(), reason));
            }
        }
        Ok(())
    }

    fn invalid(&self, key: &str, value: String, reason: String) -> ConfigError {
        ConfigError::Invalid {
            key: key.to_string(),
            value,
            origin: self.origin(key),
            reason,
        }
    }

    /// Override settings from environment variables looked up through `get`.
    pub fn apply_env(&mut self, get: impl Fn(&str) -> Option<String>) -> Result<(), ConfigError> {
        for s in SETTINGS {
            let Some(v) = get(s.env) else { continue };
            self.origins
                .insert(s.key.to_string(), Origin::Env(s.env.to_string()));
            (s.set)(self, s.env, &v)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_then_environment_override_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("attest.toml");
        std::fs::write(&p, "chunk_tokens = 120\nrrf_k = 30.0\n").unwrap();
        let mut cfg = Config::from_file(&p).unwrap();
        assert_eq!(cfg.chunk_tokens, 120);
        assert_eq!(cfg.candidates, 100);
        cfg.apply_env(|k| (k == "ATTEST_RRF_K").then(|| "10".to_string()))
            .unwrap();
        assert_eq!(cfg.rrf_k, 10.0);
    }

    #[test]
    fn embed_precision_is_auto_unless_a_file_or_the_environment_fixes_it() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("attest.toml");
        std::fs::write(&p, "embed_precision = \"f32\"\n").unwrap();
        assert_eq!(Config::default().embed_precision, PrecisionSetting::Auto);
        let mut cfg = Config::from_file(&p).unwrap();
        assert_eq!(cfg.embed_precision.fixed(), Some(EmbedPrecision::F32));
        cfg.apply_env(|k| (k == "ATTEST_EMBED_PRECISION").then(|| "auto".to_string()))
            .unwrap();
        assert_eq!(cfg.embed_precision.fixed(), None);
        let bad = cfg.apply_env(|k| (k == "ATTEST_EMBED_PRECISION").then(|| "int4".to_string()));
        assert!(bad.unwrap_err().to_string().contains("auto, f32 or int8"));
    }

    #[test]
    fn gate_presets_are_read_from_tables_and_checked() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("attest.toml");
        std::fs::write(
            &p,
            "[presets.board]\nmin_citations_per_paragraph = 3\nmin_density_per_100_words = 2.5\n",
        )
        .unwrap();
        let cfg = Config::from_file(&p).unwrap();
        cfg.validate().unwrap();
        let g = crate::validate::configured_preset(&cfg, "board").unwrap();
        assert_eq!(g.min_citations_per_paragraph, 3);
        assert!(g.every_sentence_cites);
        assert!(crate::validate::configured_preset(&cfg, "quarterly").is_ok());
        let e = crate::validate::configured_preset(&cfg, "nope")
            .unwrap_err()
            .to_string();
        assert!(e.contains("board") && e.contains("deep-dive"), "{e}");
        std::fs::write(
            &p,
            "[presets.bad]\nmin_citations_per_paragraph = 1\nmin_density_per_100_words = -1.0\n",
        )
        .unwrap();
        let e = Config::from_file(&p)
            .unwrap()
            .validate()
            .unwrap_err()
            .to_string();
        assert!(e.contains("presets.bad"), "{e}");
        std::fs::write(&p, "[presets.bad]\nmin_citations = 1\n").unwrap();
        assert!(Config::from_file(&p).is_err());
    }

    #[test]
    fn every_setting_has_an_environment_variable() {
        let fields = toml::Value::try_from(Config::default()).unwrap();
        let mut names: Vec<&str> = fields
            .as_table()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        names.push("model_dir"); // None is not serialised
        names.push("reranker_dir");
        names.push("generator");
        names.push("serve_token");
        names.retain(|n| *n != "presets" && *n != "sources"); // tables of their own, not settings
        names.sort();
        names.dedup();
        let mut keys: Vec<&str> = SETTINGS.iter().map(|s| s.key).collect();
        keys.sort();
        assert_eq!(names, keys);
        let mut cfg = Config::default();
        cfg.apply_env(|k| match k {
            "ATTEST_RERANKER_DIR" => Some("models/ce".into()),
            "ATTEST_RERANK_DEPTH" => Some("7".into()),
            _ => None,
        })
        .unwrap();
        assert_eq!(cfg.reranker_dir, Some(PathBuf::from("models/ce")));
        assert_eq!(cfg.rerank_depth, 7);
    }

    #[test]
    fn unknown_keys_and_bad_env_values_are_errors_naming_the_source() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("attest.toml");
        std::fs::write(&p, "chunk_tokenz = 1\n").unwrap();
        let e = Config::from_file(&p).unwrap_err().to_string();
        assert!(
            e.contains("attest.toml") && e.contains("chunk_tokenz"),
            "{e}"
        );
        let e = Config::default()
            .apply_env(|k| (k == "ATTEST_CANDIDATES").then(|| "many".to_string()))
            .unwrap_err()
            .to_string();
        assert!(e.contains("ATTEST_CANDIDATES"), "{e}");
    }

    #[test]
    fn a_toml_error_quotes_at_most_a_bounded_part_of_its_line() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("attest.toml");
        let long = format!(
            "chunk_tokens = 10\nx = \"{}\" oops {}\n",
            "é".repeat(500_000),
            "y".repeat(500_000)
        );
        std::fs::write(&p, &long).unwrap();
        let e = Config::from_file(&p).unwrap_err().to_string();
        assert!(
            e.len() < 1_000,
            "{} bytes: {}",
            e.len(),
            &e[..1_000.min(e.len())]
        );
        assert!(e.contains("line 2, column"), "{e}");
        assert!(e.contains("oops") && e.contains('…'), "{e}");
        std::fs::write(&p, format!("rrf_k = \"{}\"\n", "z".repeat(100_000))).unwrap();
        let e = Config::from_file(&p).unwrap_err().to_string();
        assert!(e.len() < 1_000 && e.contains("line 1, column"), "{e}");
    }

    /// The rows of the README's configuration table: (key, environment variable, default),
    /// backticks removed.
    fn readme_rows() -> Vec<(String, String, String)> {
        let readme = include_str!("../docs/reference.md");
        let section = readme
            .split("\n## Configuration\n")
            .nth(1)
            .expect("README has a Configuration section");
        let section = section.split("\n## ").next().unwrap();
        let mut rows = Vec::new();
        for line in section.lines().filter(|l| l.starts_with('|')) {
            let cells: Vec<String> = line
                .trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().replace('`', ""))
                .collect();
            if cells[0] == "key" || cells[0].starts_with("---") {
                continue;
            }
            assert_eq!(cells.len(), 4, "README row with four columns: {line}");
            rows.push((cells[0].clone(), cells[1].clone(), cells[2].clone()));
        }
        rows
    }

    #[test]
    fn readme_configuration_table_matches_the_declaration() {
        let rows = readme_rows();
        for s in SETTINGS {
            let row = rows.iter().find(|r| r.0 == s.key);
            let Some((_, env, default)) = row else {
                panic!("README table has no row for {}", s.key)
            };
            assert_eq!(env, s.env, "environment variable of {}", s.key);
            assert_eq!(
                *default,
                s.default_text().replace('`', ""),
                "default of {}",
                s.key
            );
        }
        for (key, ..) in &rows {
            assert!(setting(key).is_some(), "README lists unknown setting {key}");
        }
    }

    #[test]
    fn ranges_come_from_the_declaration_and_name_the_origin() {
        let mut cfg = Config::default();
        cfg.validate().unwrap();
        cfg.apply_env(|k| (k == "ATTEST_HNSW_M").then(|| "1".to_string()))
            .unwrap();
        let e = cfg.validate().unwrap_err().to_string();
        assert_eq!(
            e,
            "setting hnsw_m = 1 (from environment variable ATTEST_HNSW_M): \
             must be an integer from 2 to 256"
        );
        let mut cfg = Config {
            min_relevance: f64::NAN,
            ..Config::default()
        };
        cfg.set_by_flag("min_relevance", "--min-relevance");
        let e = cfg.validate().unwrap_err().to_string();
        assert_eq!(
            e,
            "setting min_relevance = NaN (from flag --min-relevance): \
             must be a finite number from 0 to 1"
        );
    }
}
