//! A land register's official copy: its title number and the proprietors its
//! proprietorship register names (never the proprietor of a charge).

use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

/// A land register's title: its number and the proprietors its proprietorship register
/// names.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RegisterTitle {
    /// The title number ("CU482917"), when stated.
    pub title_number: Option<String>,
    /// Proprietors, as written.
    pub proprietors: Vec<String>,
}

static TITLE_NUMBER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\btitle\s+(?:number|no\.?)\s*:?\s*([A-Z]{1,3}\s?\d{3,8})\b")
        .expect("static pattern")
});

/// The title of a register's official copy: the title number and the names after
/// "PROPRIETOR:" between the proprietorship register's heading and the next register's
/// (the charges register's proprietors hold charges, not the land).
pub fn register(text: &str) -> RegisterTitle {
    let title_number = TITLE_NUMBER.captures(text).map(|c| c[1].to_string());
    let mut proprietors = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        let lower = line.trim().to_lowercase();
        let heading = lower.ends_with("register") && lower.split_whitespace().count() <= 4;
        if heading {
            inside = lower.contains("proprietorship");
            continue;
        }
        if !inside {
            continue;
        }
        if let Some(i) = lower.find("proprietor:") {
            let rest = &line[i + "proprietor:".len()..];
            if let Some((s, e)) = crate::value::names::name_at(rest.trim_start()) {
                let rest = rest.trim_start();
                let name = rest[s..e].to_string();
                if !proprietors.contains(&name) {
                    proprietors.push(name);
                }
            }
        }
    }
    RegisterTitle {
        title_number,
        proprietors,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_register_lists_the_proprietors_of_its_proprietorship_register_only() {
        let text = "Title number CU482917   Edition date 21.06.2021\n\nA: Property Register\n\n1 The Freehold land.\n\nB: Proprietorship Register\n\nTitle absolute\n\n1 (21 June 2021) PROPRIETOR: HOLLIN GILL ESTATES LIMITED (Co. Regn. No.\n07736412) of Low Hollin Farm.\n\nC: Charges Register\n\n4 (21 June 2021) Proprietor: NORTHERN COUNTIES BANK PLC (Co. Regn. No.\n";
        let t = register(text);
        assert_eq!(t.title_number.as_deref(), Some("CU482917"));
        assert_eq!(t.proprietors, ["HOLLIN GILL ESTATES LIMITED"]);
    }
}
