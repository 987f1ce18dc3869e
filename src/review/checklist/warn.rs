//! Warnings about a checklist that are never fatal: requirement keys attest does not read,
//! blank CSV rows.

use super::{ChecklistWarning, Requirement, WarningKind};

/// Requirements whose id is listed in a warning, at most.
const WARNING_IDS: usize = 10;

/// One warning per unknown requirement key (naming the requirements that carry it), and
/// one for blank CSV rows.
pub(super) fn warnings(requirements: &[Requirement], blank_lines: &[u64]) -> Vec<ChecklistWarning> {
    let mut by_key: Vec<(String, Vec<String>)> = Vec::new();
    for r in requirements {
        for (key, _) in r.extra.iter() {
            match by_key.iter_mut().find(|(k, _)| k == key) {
                Some((_, ids)) => ids.push(r.id.clone()),
                None => by_key.push((key.to_string(), vec![r.id.clone()])),
            }
        }
    }
    let mut out: Vec<ChecklistWarning> = by_key
        .into_iter()
        .map(|(key, ids)| {
            let mut named = ids
                .iter()
                .take(WARNING_IDS)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ");
            if ids.len() > WARNING_IDS {
                named.push_str(&format!(" and {} more", ids.len() - WARNING_IDS));
            }
            ChecklistWarning {
                kind: WarningKind::UnknownRequirementKey,
                message: format!(
                    "requirement key {key:?} is not one attest reads (requirement {named}); \
                     kept as given under \"extra\""
                ),
                key: Some(key),
                requirements: ids,
                lines: Vec::new(),
            }
        })
        .collect();
    if !blank_lines.is_empty() {
        out.push(ChecklistWarning {
            kind: WarningKind::BlankRows,
            key: None,
            requirements: Vec::new(),
            lines: blank_lines.to_vec(),
            message: format!(
                "{} blank row(s) skipped (line {})",
                blank_lines.len(),
                blank_lines
                    .iter()
                    .take(WARNING_IDS)
                    .map(u64::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        });
    }
    out
}
