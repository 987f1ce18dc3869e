//! Configuration: defaults < `attest.toml` < `ATTEST_*` environment < command-line flags.
//!
//! Every key, its default and its environment variable are listed in [`Config::KEYS`]
//! (and in the README). The file is looked up as `./attest.toml` unless `--config` names
//! another.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

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
enum Range {
    /// Finite and within `[lo, hi]`.
    Float(f64, f64),
    /// An integer within `[lo, hi]`.
    Int(u64, u64),
}

/// All settings, with their defaults in [`Config::default`].
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Index directory (`ATTEST_INDEX`, default `.attest`).
    pub index: PathBuf,
    /// Bi-encoder model directory (`ATTEST_MODEL_DIR`; default: `models/all-MiniLM-L6-v2`
    /// in the working directory, then in the source tree).
    pub model_dir: Option<PathBuf>,
    /// Chunk budget in model tokens (`ATTEST_CHUNK_TOKENS`, default 200).
    pub chunk_tokens: usize,
    /// Largest file ingested, in bytes (`ATTEST_MAX_FILE_BYTES`, default 50 MiB).
    pub max_file_bytes: u64,
    /// Time limit for extracting one PDF, in seconds (`ATTEST_PDF_TIMEOUT_SECS`, default 30).
    pub pdf_timeout_secs: u64,
    /// Chunks of one document among the hits of a search or a retrieval step, before
    /// other documents' chunks are taken (`ATTEST_MAX_CHUNKS_PER_DOCUMENT`, default 3).
    pub max_chunks_per_document: usize,
    /// Most text one file may yield, in bytes (`ATTEST_MAX_TEXT_BYTES`, default 16 MiB).
    pub max_text_bytes: u64,
    /// Most bytes a PDF's Flate streams may inflate to (`ATTEST_MAX_INFLATED_BYTES`,
    /// default 256 MiB).
    pub max_inflated_bytes: u64,
    /// Address-space limit of the PDF extraction process, in bytes
    /// (`ATTEST_PDF_MEMORY_BYTES`, default 2 GiB).
    pub pdf_memory_bytes: u64,
    /// Time limit for loading, segmenting and chunking one file, in seconds
    /// (`ATTEST_FILE_TIMEOUT_SECS`, default 300).
    pub file_timeout_secs: u64,
    /// Reciprocal rank fusion constant k in `1 / (k + rank)` (`ATTEST_RRF_K`, default 60).
    pub rrf_k: f64,
    /// Candidates taken from each retriever before fusion (`ATTEST_CANDIDATES`, default 100).
    pub candidates: usize,
    /// Below this many chunks dense search is exact; at or above, HNSW
    /// (`ATTEST_EXACT_THRESHOLD`, default 20000).
    pub exact_threshold: usize,
    /// HNSW neighbours per node (`ATTEST_HNSW_M`, default 16).
    pub hnsw_m: usize,
    /// HNSW construction beam width (`ATTEST_HNSW_EF_CONSTRUCTION`, default 200).
    pub hnsw_ef_construction: usize,
    /// HNSW search beam width (`ATTEST_HNSW_EF_SEARCH`, default 128).
    pub hnsw_ef_search: usize,
    /// Rebuild the HNSW graph when this fraction of its points are deleted chunks
    /// (`ATTEST_REBUILD_DEAD_FRACTION`, default 0.2).
    pub rebuild_dead_fraction: f64,
    /// Cross-encoder directory (`ATTEST_RERANKER_DIR`; default: the first
    /// `BertForSequenceClassification` directory under `models/`, if any).
    pub reranker_dir: Option<PathBuf>,
    /// Candidates the cross-encoder scores per retrieval (`ATTEST_RERANK_DEPTH`, default 25).
    pub rerank_depth: usize,
    /// Texts' token budget per forward pass of the bi-encoder (`ATTEST_EMBED_BATCH_TOKENS`,
    /// default 4096).
    pub embed_batch_tokens: usize,
    /// Chunks `attest ask` retrieves and extracts evidence from (`ATTEST_ASK_CHUNKS`,
    /// default 5).
    pub ask_chunks: usize,
    /// Distinct statements an answer uses at most (`ATTEST_MAX_STATEMENTS`, default 4).
    pub max_statements: usize,
    /// Minimum bi-encoder relevance of an evidence item (`ATTEST_MIN_RELEVANCE`,
    /// default 0.42; see `evidence::verify`).
    pub min_relevance: f64,
    /// Weight of the question–quote cosine in the bi-encoder relevance
    /// (`ATTEST_COSINE_WEIGHT`, default 0.3).
    pub cosine_weight: f64,
    /// Weight of the question-term coverage in the bi-encoder relevance; the question–chunk
    /// cosine weighs the rest (`ATTEST_COVERAGE_WEIGHT`, default 0.2).
    pub coverage_weight: f64,
    /// Minimum cross-encoder relevance (sigmoid of the logit) of an evidence item
    /// (`ATTEST_MIN_CROSS_RELEVANCE`, default 0.5).
    pub min_cross_relevance: f64,
    /// Evidence candidates scored by a model per question (`ATTEST_EMBED_BUDGET`, default 24).
    pub embed_budget: usize,
    /// Longest question accepted, in words (`ATTEST_MAX_QUESTION_WORDS`, default 300).
    pub max_question_words: usize,
    /// Serve and store answers in the QA memory (`ATTEST_MEMORY`, default true).
    pub memory: bool,
    /// Question cosine at or above which a stored answer is served
    /// (`ATTEST_MEMORY_THRESHOLD`, default 0.92).
    pub memory_threshold: f64,
    /// GGUF model that phrases answers (`ATTEST_GENERATOR`; default none: answers are
    /// extractive).
    pub generator: Option<PathBuf>,
    /// Where each setting that is not a default came from (key → origin).
    #[serde(skip)]
    pub origins: std::collections::BTreeMap<String, Origin>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            index: PathBuf::from(".attest"),
            model_dir: None,
            chunk_tokens: 200,
            max_file_bytes: 50 * 1024 * 1024,
            pdf_timeout_secs: 30,
            max_chunks_per_document: 3,
            max_text_bytes: 16 * 1024 * 1024,
            max_inflated_bytes: 256 * 1024 * 1024,
            pdf_memory_bytes: 2 * 1024 * 1024 * 1024,
            file_timeout_secs: 300,
            rrf_k: 60.0,
            candidates: 100,
            exact_threshold: 20_000,
            hnsw_m: 16,
            hnsw_ef_construction: 200,
            hnsw_ef_search: 128,
            rebuild_dead_fraction: 0.2,
            embed_batch_tokens: 4096,
            reranker_dir: None,
            rerank_depth: 25,
            ask_chunks: 5,
            max_statements: 4,
            min_relevance: 0.42,
            cosine_weight: 0.3,
            coverage_weight: 0.2,
            min_cross_relevance: 0.5,
            embed_budget: 24,
            max_question_words: 300,
            memory: true,
            memory_threshold: 0.92,
            generator: None,
            origins: Default::default(),
        }
    }
}

impl Config {
    /// (key, environment variable, description) for every setting.
    pub const KEYS: &'static [(&'static str, &'static str, &'static str)] = &[
        ("index", "ATTEST_INDEX", "index directory (.attest)"),
        (
            "model_dir",
            "ATTEST_MODEL_DIR",
            "bi-encoder directory (models/all-MiniLM-L6-v2)",
        ),
        (
            "chunk_tokens",
            "ATTEST_CHUNK_TOKENS",
            "chunk budget in model tokens (200)",
        ),
        (
            "max_file_bytes",
            "ATTEST_MAX_FILE_BYTES",
            "largest file ingested (52428800)",
        ),
        (
            "pdf_timeout_secs",
            "ATTEST_PDF_TIMEOUT_SECS",
            "time limit per PDF (30)",
        ),
        (
            "max_chunks_per_document",
            "ATTEST_MAX_CHUNKS_PER_DOCUMENT",
            "chunks of one document among hits before other documents' (3)",
        ),
        (
            "max_text_bytes",
            "ATTEST_MAX_TEXT_BYTES",
            "most text one file may yield, in bytes (16777216)",
        ),
        (
            "max_inflated_bytes",
            "ATTEST_MAX_INFLATED_BYTES",
            "most bytes a PDF's Flate streams may inflate to (268435456)",
        ),
        (
            "pdf_memory_bytes",
            "ATTEST_PDF_MEMORY_BYTES",
            "address-space limit of the PDF extraction process (2147483648)",
        ),
        (
            "file_timeout_secs",
            "ATTEST_FILE_TIMEOUT_SECS",
            "time limit to load, segment and chunk one file (300)",
        ),
        (
            "rrf_k",
            "ATTEST_RRF_K",
            "reciprocal rank fusion constant (60)",
        ),
        (
            "candidates",
            "ATTEST_CANDIDATES",
            "candidates per retriever before fusion (100)",
        ),
        (
            "exact_threshold",
            "ATTEST_EXACT_THRESHOLD",
            "chunks below which dense search is exact (20000)",
        ),
        ("hnsw_m", "ATTEST_HNSW_M", "HNSW neighbours per node (16)"),
        (
            "hnsw_ef_construction",
            "ATTEST_HNSW_EF_CONSTRUCTION",
            "HNSW construction beam (200)",
        ),
        (
            "hnsw_ef_search",
            "ATTEST_HNSW_EF_SEARCH",
            "HNSW search beam (128)",
        ),
        (
            "rebuild_dead_fraction",
            "ATTEST_REBUILD_DEAD_FRACTION",
            "deleted share that triggers an HNSW rebuild (0.2)",
        ),
        (
            "embed_batch_tokens",
            "ATTEST_EMBED_BATCH_TOKENS",
            "tokens per bi-encoder forward pass (4096)",
        ),
        (
            "reranker_dir",
            "ATTEST_RERANKER_DIR",
            "cross-encoder directory (first one found under models/)",
        ),
        (
            "rerank_depth",
            "ATTEST_RERANK_DEPTH",
            "candidates scored by the cross-encoder (25)",
        ),
        (
            "ask_chunks",
            "ATTEST_ASK_CHUNKS",
            "chunks an answer draws evidence from (5)",
        ),
        (
            "max_statements",
            "ATTEST_MAX_STATEMENTS",
            "distinct statements per answer (4)",
        ),
        (
            "min_relevance",
            "ATTEST_MIN_RELEVANCE",
            "minimum bi-encoder relevance of evidence (0.42)",
        ),
        (
            "cosine_weight",
            "ATTEST_COSINE_WEIGHT",
            "weight of the question-quote cosine in relevance (0.3)",
        ),
        (
            "coverage_weight",
            "ATTEST_COVERAGE_WEIGHT",
            "weight of question-term coverage in relevance; chunk cosine gets the rest (0.2)",
        ),
        (
            "min_cross_relevance",
            "ATTEST_MIN_CROSS_RELEVANCE",
            "minimum cross-encoder relevance of evidence (0.5)",
        ),
        (
            "embed_budget",
            "ATTEST_EMBED_BUDGET",
            "evidence candidates scored by a model per question (24)",
        ),
        (
            "max_question_words",
            "ATTEST_MAX_QUESTION_WORDS",
            "longest question accepted, in words (300)",
        ),
        (
            "memory",
            "ATTEST_MEMORY",
            "serve and store answers in the QA memory (true)",
        ),
        (
            "memory_threshold",
            "ATTEST_MEMORY_THRESHOLD",
            "question cosine at which a stored answer is served (0.92)",
        ),
        (
            "generator",
            "ATTEST_GENERATOR",
            "GGUF model that phrases answers (none: extractive answers)",
        ),
    ];

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
            reason: e.to_string(),
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

    /// The accepted range of every numeric setting.
    fn ranges(&self) -> Vec<(&'static str, f64, Range)> {
        use Range::{Float, Int};
        let n = |v: usize| v as f64;
        vec![
            ("chunk_tokens", n(self.chunk_tokens), Int(8, 256)),
            (
                "max_file_bytes",
                self.max_file_bytes as f64,
                Int(1, 1 << 40),
            ),
            (
                "pdf_timeout_secs",
                self.pdf_timeout_secs as f64,
                Int(1, 86_400),
            ),
            (
                "max_text_bytes",
                self.max_text_bytes as f64,
                Int(1, 1 << 40),
            ),
            (
                "max_inflated_bytes",
                self.max_inflated_bytes as f64,
                Int(1, 1 << 40),
            ),
            // Below 64 MiB the worker could not even start (the limit covers the binary).
            (
                "pdf_memory_bytes",
                self.pdf_memory_bytes as f64,
                Int(64 << 20, 1 << 44),
            ),
            // 0 makes every file fail at once (a clear per-file failure, never a wrong result).
            (
                "file_timeout_secs",
                self.file_timeout_secs as f64,
                Int(0, 86_400 * 7),
            ),
            ("rrf_k", self.rrf_k, Float(0.0, 1e6)),
            (
                "max_chunks_per_document",
                n(self.max_chunks_per_document),
                Int(1, 10_000),
            ),
            ("candidates", n(self.candidates), Int(1, 100_000)),
            (
                "exact_threshold",
                n(self.exact_threshold),
                Int(0, u32::MAX as u64),
            ),
            ("hnsw_m", n(self.hnsw_m), Int(2, 256)),
            (
                "hnsw_ef_construction",
                n(self.hnsw_ef_construction),
                Int(1, 100_000),
            ),
            ("hnsw_ef_search", n(self.hnsw_ef_search), Int(1, 100_000)),
            (
                "rebuild_dead_fraction",
                self.rebuild_dead_fraction,
                Float(0.0, 1.0),
            ),
            ("rerank_depth", n(self.rerank_depth), Int(0, 10_000)),
            (
                "embed_batch_tokens",
                n(self.embed_batch_tokens),
                Int(1, 1 << 20),
            ),
            ("ask_chunks", n(self.ask_chunks), Int(1, 1_000)),
            ("max_statements", n(self.max_statements), Int(1, 1_000)),
            ("min_relevance", self.min_relevance, Float(0.0, 1.0)),
            ("cosine_weight", self.cosine_weight, Float(0.0, 1.0)),
            ("coverage_weight", self.coverage_weight, Float(0.0, 1.0)),
            (
                "min_cross_relevance",
                self.min_cross_relevance,
                Float(0.0, 1.0),
            ),
            ("embed_budget", n(self.embed_budget), Int(1, 100_000)),
            (
                "max_question_words",
                n(self.max_question_words),
                Int(1, 100_000),
            ),
            ("memory_threshold", self.memory_threshold, Float(0.0, 1.0)),
        ]
    }

    /// Check every numeric setting is finite and in range; the error names the key, its
    /// value and where it was set (default, file, environment or flag).
    pub fn validate(&self) -> Result<(), ConfigError> {
        for (key, v, range) in self.ranges() {
            let reason = match range {
                Range::Float(lo, hi) if !v.is_finite() || v < lo || v > hi => {
                    format!("must be a finite number from {lo} to {hi}")
                }
                Range::Int(lo, hi) if v < lo as f64 || v > hi as f64 => {
                    format!("must be an integer from {lo} to {hi}")
                }
                _ => continue,
            };
            return Err(self.invalid(key, v.to_string(), reason));
        }
        if self.cosine_weight + self.coverage_weight > 1.0 {
            let v = format!(
                "{} (+ coverage_weight {})",
                self.cosine_weight, self.coverage_weight
            );
            let reason = "cosine_weight + coverage_weight must not exceed 1".to_string();
            return Err(self.invalid("cosine_weight", v, reason));
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
        for (key, var, _) in Self::KEYS {
            let Some(v) = get(var) else { continue };
            self.origins
                .insert(key.to_string(), Origin::Env(var.to_string()));
            match *key {
                "index" => self.index = PathBuf::from(v),
                "model_dir" => self.model_dir = Some(PathBuf::from(v)),
                "chunk_tokens" => self.chunk_tokens = parse(var, &v)?,
                "max_file_bytes" => self.max_file_bytes = parse(var, &v)?,
                "pdf_timeout_secs" => self.pdf_timeout_secs = parse(var, &v)?,
                "max_text_bytes" => self.max_text_bytes = parse(var, &v)?,
                "max_inflated_bytes" => self.max_inflated_bytes = parse(var, &v)?,
                "pdf_memory_bytes" => self.pdf_memory_bytes = parse(var, &v)?,
                "file_timeout_secs" => self.file_timeout_secs = parse(var, &v)?,
                "rrf_k" => self.rrf_k = parse(var, &v)?,
                "max_chunks_per_document" => self.max_chunks_per_document = parse(var, &v)?,
                "candidates" => self.candidates = parse(var, &v)?,
                "exact_threshold" => self.exact_threshold = parse(var, &v)?,
                "hnsw_m" => self.hnsw_m = parse(var, &v)?,
                "hnsw_ef_construction" => self.hnsw_ef_construction = parse(var, &v)?,
                "hnsw_ef_search" => self.hnsw_ef_search = parse(var, &v)?,
                "rebuild_dead_fraction" => self.rebuild_dead_fraction = parse(var, &v)?,
                "embed_batch_tokens" => self.embed_batch_tokens = parse(var, &v)?,
                "reranker_dir" => self.reranker_dir = Some(PathBuf::from(v)),
                "generator" => self.generator = Some(PathBuf::from(v)),
                "rerank_depth" => self.rerank_depth = parse(var, &v)?,
                "ask_chunks" => self.ask_chunks = parse(var, &v)?,
                "max_statements" => self.max_statements = parse(var, &v)?,
                "min_relevance" => self.min_relevance = parse(var, &v)?,
                "cosine_weight" => self.cosine_weight = parse(var, &v)?,
                "coverage_weight" => self.coverage_weight = parse(var, &v)?,
                "min_cross_relevance" => self.min_cross_relevance = parse(var, &v)?,
                "embed_budget" => self.embed_budget = parse(var, &v)?,
                "max_question_words" => self.max_question_words = parse(var, &v)?,
                "memory" => self.memory = parse(var, &v)?,
                "memory_threshold" => self.memory_threshold = parse(var, &v)?,
                _ => {}
            }
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
        names.sort();
        names.dedup();
        let mut keys: Vec<&str> = Config::KEYS.iter().map(|k| k.0).collect();
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
}
