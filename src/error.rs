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
    /// The query is empty after trimming.
    #[error("empty query")]
    EmptyQuery,
    /// The index is locked by another writer, or the lock cannot be taken.
    #[error("index locked: {0}")]
    Locked(String),
    /// Invalid arguments or options.
    #[error("{0}")]
    Usage(String),
}

/// Result with the library's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Best-effort text of a caught panic's payload (`catch_unwind`, a joined thread).
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".to_string()
    }
}
