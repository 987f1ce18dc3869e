//! The source options shared by `search`, `ask`, `review` and `requirements`: `--scope`,
//! `--where`, `--collection` and `--as-of`.

use std::path::PathBuf;
use std::sync::Arc;

use attest::authority::{Filter, FilterSpec};
use attest::engine::Engine;
use attest::retrieve::Restrict;

#[derive(clap::Args, Default)]
pub struct Sources {
    /// Only documents from files at or under this path (repeatable); the QA memory is
    /// not used
    #[arg(long, value_name = "PATH")]
    pub scope: Vec<PathBuf>,
    /// Only sources where KEY=VALUE[,VALUE…] holds (repeatable; keys source_type,
    /// collection, jurisdiction, kind, and authority>=N / authority<=N)
    #[arg(long = "where", value_name = "KEY=VALUE")]
    pub conditions: Vec<String>,
    /// Only sources of this collection
    #[arg(long, value_name = "NAME")]
    pub collection: Option<String>,
    /// Only sources in effect on this day (YYYY-MM-DD): started, not ended, not
    /// superseded; sources that state no date are kept and listed
    #[arg(long, value_name = "DATE")]
    pub as_of: Option<String>,
}

impl Sources {
    /// The checked filter (scope aside).
    pub fn filter(&self) -> anyhow::Result<Filter> {
        let spec = FilterSpec {
            conditions: self.conditions.clone(),
            collection: self.collection.clone(),
            as_of: self.as_of.clone(),
            scope: Vec::new(),
        };
        Filter::parse(&spec).map_err(|e| anyhow::anyhow!("{e}"))
    }

    /// The retrieval restriction of these options (`None` when they restrict nothing);
    /// the documents a date set aside and the undated ones are said on stderr.
    pub fn restrict(&self, engine: &Engine) -> anyhow::Result<Option<Arc<Restrict>>> {
        let filter = self.filter()?;
        let ids = match self.scope.is_empty() {
            true => None,
            false => Some(crate::ask::scope_ids(engine, &self.scope)?),
        };
        let Some((r, sel)) = attest::authority::restrict(engine, ids, &filter)? else {
            return Ok(None);
        };
        if let Some(day) = sel.as_of {
            for a in &sel.set_aside {
                crate::say(&format!(
                    "as of {day}: set aside {} ({:?})",
                    a.source, a.effect
                ));
            }
            if !sel.undated.is_empty() {
                crate::say(&format!(
                    "as of {day}: {} source(s) state no effective date and are kept: {}",
                    sel.undated.len(),
                    sel.undated.join(", ")
                ));
            }
        }
        Ok(Some(Arc::new(r)))
    }
}
