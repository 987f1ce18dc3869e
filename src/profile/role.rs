//! A document's role (a plan, a report, a land register, a map, or other), read from the
//! last role word of its file name, else of its title, else of its opening.

use serde::{Deserialize, Serialize};

use super::opening;

/// What a document is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// A project plan or design document.
    Plan,
    /// A report: baseline, monitoring, verification, assessment.
    Report,
    /// An official copy of a land register.
    Register,
    /// A map or boundary file.
    Map,
    /// Anything else (letters, minutes, forms).
    #[default]
    Other,
}

impl Role {
    /// The name, as the JSON output spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Plan => "plan",
            Role::Report => "report",
            Role::Register => "register",
            Role::Map => "map",
            Role::Other => "other",
        }
    }
}

/// Phrases naming each role, longest first within a role.
const ROLE_WORDS: &[(Role, &[&str])] = &[
    (
        Role::Register,
        &[
            "register of title",
            "official copy",
            "land registry",
            "register",
        ],
    ),
    (
        Role::Map,
        &["boundary map", "map", "maps", "kml", "shapefile"],
    ),
    (
        Role::Report,
        &[
            "report",
            "monitoring",
            "baseline",
            "verification",
            "validation",
            "assessment",
        ],
    ),
    (
        Role::Plan,
        &["design document", "project description", "plan", "pdd"],
    ),
];

/// The role of a document from `source`'s file name, else `title`, else the opening of
/// `text`: the role whose phrase stands last ("baseline_report" is a report, "monitoring
/// plan" a plan).
pub fn role(source: &str, title: &str, text: &str) -> Role {
    let file = source.rsplit(['/', '\\']).next().unwrap_or(source);
    let stem = file.rsplit_once('.').map_or(file, |(s, _)| s);
    let head = opening(text, 500);
    [stem, title, head]
        .iter()
        .find_map(|t| last_role(t))
        .unwrap_or(Role::Other)
}

fn last_role(text: &str) -> Option<Role> {
    let words = crate::text::words(text).join(" ");
    let padded = format!(" {words} ");
    ROLE_WORDS
        .iter()
        .flat_map(|(r, ps)| ps.iter().map(move |p| (*r, *p)))
        .filter_map(|(r, p)| padded.rfind(&format!(" {p} ")).map(|i| (i, r)))
        .max_by_key(|(i, _)| *i)
        .map(|(_, r)| r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_come_from_the_last_role_word_of_the_name_title_or_opening() {
        assert_eq!(
            role("x/baseline_report_AE-2022-117.md", "", ""),
            Role::Report
        );
        assert_eq!(role("x/monitoring_plan.pdf", "", ""), Role::Plan);
        assert_eq!(role("x/project_plan_v2.1_current.md", "", ""), Role::Plan);
        assert_eq!(
            role("x/official_copy_register_CU482917.txt", "", ""),
            Role::Register
        );
        assert_eq!(role("x/site_map.pdf", "", ""), Role::Map);
        assert_eq!(
            role("x/letter_consent.txt", "Letter", "Dear Sirs"),
            Role::Other
        );
        // No role word in the name: the title, then the opening.
        assert_eq!(
            role("x/doc1.pdf", "Monitoring Report MR1", ""),
            Role::Report
        );
        assert_eq!(
            role(
                "x/doc2.pdf",
                "doc2",
                "HM Land Registry\nOfficial copy of register of title"
            ),
            Role::Register
        );
    }
}
