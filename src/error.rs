//! The library's error type: one variant per stage, each carrying its stage's typed error
//! (with paths and positions).

use crate::config::ConfigError;
use crate::corpus::load::LoadError;
use crate::index::dense::DenseError;
use crate::models::ModelError;
use crate::outfile::OutputError;
use crate::store::StoreError;

/// Any error the library returns.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Configuration could not be read.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A model could not be loaded or run.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The SQLite store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The dense index failed.
    #[error(transparent)]
    Dense(#[from] DenseError),
    /// A document could not be loaded.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// An output file could not be written, or its path is not one to write.
    #[error(transparent)]
    Output(#[from] OutputError),
    /// A checklist cannot be used.
    #[error(transparent)]
    Checklist(#[from] ChecklistError),
    /// The query is empty after trimming.
    #[error("empty query")]
    EmptyQuery,
    /// The index is locked by another writer, or the lock cannot be taken.
    #[error("index locked: {0}")]
    Locked(String),
    /// Invalid arguments or options.
    #[error("{0}")]
    Usage(String),
    /// A folder or file cannot be watched for changes.
    #[error("cannot watch {}: {reason}", path.display())]
    Watch {
        /// The path.
        path: std::path::PathBuf,
        /// Why (the watcher's message).
        reason: String,
    },
    /// The work was cancelled: its time limit passed or its client went away.
    #[error("cancelled: the time limit passed or the client went away")]
    Cancelled,
}

impl From<crate::index::IndexError> for Error {
    fn from(e: crate::index::IndexError) -> Self {
        match e {
            crate::index::IndexError::Store(e) => Error::Store(e),
            crate::index::IndexError::Dense(e) => Error::Dense(e),
        }
    }
}

/// Result with the library's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A checklist that cannot be used, naming the file and the requirement.
#[derive(Debug, thiserror::Error)]
pub enum ChecklistError {
    /// The file cannot be read.
    #[error("{path}: {reason}")]
    Read {
        /// The checklist file.
        path: std::path::PathBuf,
        /// Why.
        reason: String,
    },
    /// The file is not a checklist in either form.
    #[error("{path}: {reason}")]
    Format {
        /// The checklist file.
        path: std::path::PathBuf,
        /// Why (with the position the parser reports).
        reason: String,
    },
    /// One requirement is unusable.
    #[error("{path}: {}requirement {requirement}: {reason}", on_line(*.line))]
    Requirement {
        /// The checklist file.
        path: std::path::PathBuf,
        /// The requirement's id, or its 1-based position when it has none.
        requirement: String,
        /// Its line, when the format has one requirement a line (CSV).
        line: Option<u64>,
        /// Why.
        reason: String,
    },
    /// A CSV checklist cannot be read at a line (a row with the wrong number of cells, a
    /// header without a required column).
    #[error("{path}: line {line}: {reason}")]
    Csv {
        /// The checklist file.
        path: std::path::PathBuf,
        /// 1-based line (the header is line 1).
        line: u64,
        /// Why.
        reason: String,
    },
}

/// `line N: ` when there is a line.
fn on_line(line: Option<u64>) -> String {
    line.map(|l| format!("line {l}: ")).unwrap_or_default()
}
