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
}

impl Default for Config {
    fn default() -> Self {
        Config {
            index: PathBuf::from(".attest"),
            model_dir: None,
            chunk_tokens: 200,
            max_file_bytes: 50 * 1024 * 1024,
            pdf_timeout_secs: 30,
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
        toml::from_str(&text).map_err(|e| ConfigError::Parse {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })
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
