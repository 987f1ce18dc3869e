//! Versions of one document in a submission. A folder that holds "PDD_v1.pdf" and
//! "PDD_v2.pdf", or "Plan (draft).docx" and "Plan (updated).docx", holds one plan twice:
//! the earlier version's values are not the project's current ones, and a difference
//! between the two is a revision, not a conflict. Each document's version is its stored
//! profile's ([`crate::profile::version`]).

use super::fields::RejectReason;
use super::{FieldValue, RejectedValue};
use crate::profile::Version;

/// Values from an earlier version of a document whose later version the values also come
/// from are set aside as superseded, naming the later file.
pub fn current(
    fields: Vec<FieldValue>,
    version_of: &dyn Fn(&FieldValue) -> Option<Version>,
) -> (Vec<FieldValue>, Vec<RejectedValue>) {
    let versions: Vec<Option<Version>> = fields.iter().map(version_of).collect();
    let mut keep = Vec::new();
    let mut aside = Vec::new();
    for (i, f) in fields.iter().enumerate() {
        let newer = versions[i].as_ref().and_then(|v| {
            fields.iter().zip(&versions).find_map(|(g, w)| {
                let w = w.as_ref()?;
                (g.name == f.name && w.document == v.document && w.rank > v.rank)
                    .then_some(&g.source)
            })
        });
        match newer {
            Some(src) => aside.push(RejectedValue {
                name: f.name.clone(),
                raw: f.raw.clone(),
                reason: RejectReason::Superseded,
                note: format!(
                    "stated in an earlier version of the document; {} supersedes it",
                    src.rsplit('/').next().unwrap_or(src)
                ),
                evidence: f.evidence.clone(),
                start: f.start,
                end: f.end,
                source: f.source.clone(),
            }),
            None => keep.push(f.clone()),
        }
    }
    (keep, aside)
}
