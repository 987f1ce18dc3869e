//! Units of measure, as data: `units.toml` lists each unit once, with the family it
//! measures (by key: `mass`, `length`, …), its size in the family's base unit and its
//! spellings. The value readers build their quantity pattern and their conversions
//! from it; the question frame reads the unit a question asks in from it.

use std::collections::HashSet;
use std::sync::LazyLock;

use serde::Deserialize;

/// The data file, part of the source.
const UNITS: &str = include_str!("units.toml");

/// One unit of `units.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Unit {
    /// Its canonical spelling (`kg`, `MW`, `mg/m3`).
    pub unit: String,
    /// The key of the family it measures (`mass`, `power`, `concentration`).
    pub family: String,
    /// Its size in the family's base unit; `None`: never converted.
    #[serde(default)]
    pub size: Option<f64>,
    /// Spellings matched in any case (lower case here).
    pub spellings: Vec<String>,
    /// Spellings matched only as written.
    #[serde(default)]
    pub exact: Vec<String>,
}

/// A measure a question may ask for: its family and the words that ask it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Measure {
    /// The key of the family it measures.
    pub family: String,
    /// Nouns, or two-word names, that name it ("width", "flash point").
    pub nouns: Vec<String>,
    /// Adjectives that ask it after "how" ("wide").
    #[serde(default)]
    pub adjectives: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    unit: Vec<Unit>,
    #[serde(default)]
    measure: Vec<Measure>,
}

/// The family keys a unit may name.
pub const FAMILIES: &[&str] = &[
    "area",
    "length",
    "mass",
    "volume",
    "temperature",
    "data",
    "power",
    "energy",
    "frequency",
    "pressure",
    "speed",
    "ratio",
    "concentration",
];

static FILE: LazyLock<File> = LazyLock::new(|| parse(UNITS));
static READ: LazyLock<&'static [Unit]> = LazyLock::new(|| &FILE.unit);

/// Reads `text`; panics on an error, as the file is part of the source and a unit test
/// parses it.
fn parse(text: &str) -> File {
    let file: File = toml::from_str(text).unwrap_or_else(|e| panic!("src/lexicon/units.toml: {e}"));
    if let Some(m) = file
        .measure
        .iter()
        .find(|m| !FAMILIES.contains(&m.family.as_str()))
    {
        panic!(
            "src/lexicon/units.toml: measure of unknown family {}",
            m.family
        );
    }
    for u in &file.unit {
        if !FAMILIES.contains(&u.family.as_str()) {
            panic!(
                "src/lexicon/units.toml: unit {} has unknown family {}",
                u.unit, u.family
            );
        }
        if let Some(s) = u.spellings.iter().find(|s| s.to_lowercase() != **s) {
            panic!(
                "src/lexicon/units.toml: spelling {s} of {} is not lower case",
                u.unit
            );
        }
    }
    file
}

/// Every unit, in file order.
pub fn units() -> &'static [Unit] {
    &READ
}

/// The family of the measure that lower-case `noun` (one word, or two joined by a space)
/// names, if any.
pub fn measure_named(noun: &str) -> Option<&'static str> {
    FILE.measure
        .iter()
        .find(|m| m.nouns.iter().any(|n| n == noun))
        .map(|m| m.family.as_str())
}

/// The family of the measure that lower-case `adjective` asks after "how", if any.
pub fn measure_asked_by(adjective: &str) -> Option<&'static str> {
    FILE.measure
        .iter()
        .find(|m| m.adjectives.iter().any(|a| a == adjective))
        .map(|m| m.family.as_str())
}

/// The unit a spelling in a text names (`kg`, `Kilograms`, `MW`): exact spellings as
/// written, the others in any case.
pub fn unit_written(spelling: &str) -> Option<&'static Unit> {
    let lower = spelling.to_lowercase();
    let lower = lower.trim_end_matches('.');
    READ.iter()
        .find(|u| u.exact.iter().any(|e| e == spelling))
        .or_else(|| READ.iter().find(|u| u.spellings.iter().any(|s| s == lower)))
}

/// The unit a lower-case word of a question names (`mw`, `tonnes`, `hectares`): every
/// spelling compared folded, as a question's words are; exact spellings too.
pub fn unit_named(word: &str) -> Option<&'static Unit> {
    let w = word.to_lowercase();
    let w = w.trim_end_matches('.');
    unit_written(w).or_else(|| {
        READ.iter()
            .find(|u| u.exact.iter().any(|e| e.to_lowercase() == w))
    })
}

/// Every spelling, longest first, as a regular-expression alternation for a
/// case-insensitive pattern: exact spellings inside `(?-i:…)`; a spelling that ends in
/// a letter or a digit must end a word (`m` is not the start of `months`).
pub fn alternation() -> String {
    let mut all: Vec<(&str, bool)> = READ
        .iter()
        .flat_map(|u| {
            let folded = u.spellings.iter().map(|s| (s.as_str(), false));
            folded.chain(u.exact.iter().map(|s| (s.as_str(), true)))
        })
        .collect();
    all.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.0.cmp(b.0)));
    let mut seen = HashSet::new();
    all.retain(|s| seen.insert(*s));
    all.iter()
        .map(|(s, exact)| {
            let escaped = regex_escape(s);
            let escaped = if *exact {
                format!("(?-i:{escaped})")
            } else {
                escaped
            };
            let word_end = s.ends_with(|c: char| c.is_alphabetic() || c.is_ascii_digit());
            if word_end {
                format!("{escaped}\\b")
            } else {
                escaped
            }
        })
        .collect::<Vec<_>>()
        .join("|")
}

/// `s` with the characters special to a pattern escaped; spaces match any run of
/// blanks.
fn regex_escape(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            ' ' => "\\s+".to_string(),
            c if "\\.+*?()|[]{}^$#&-~/".contains(c) => format!("\\{c}"),
            c => c.to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_names_one_unit_and_every_family_is_known() {
        let mut seen = HashSet::new();
        for u in units() {
            assert!(FAMILIES.contains(&u.family.as_str()), "{}", u.unit);
            for s in u.spellings.iter().chain(&u.exact) {
                assert!(seen.insert(s.clone()), "spelling {s} is listed twice");
            }
            assert!(
                u.size.is_none_or(|s| s.is_finite() && s > 0.0),
                "{}",
                u.unit
            );
        }
    }

    #[test]
    fn measures_are_named_by_nouns_and_asked_by_adjectives_each_once() {
        let mut seen = HashSet::new();
        for m in &FILE.measure {
            for w in m.nouns.iter().chain(&m.adjectives) {
                assert!(seen.insert(w.clone()), "measure word {w} is listed twice");
            }
        }
        assert_eq!(measure_named("flash point"), Some("temperature"));
        assert_eq!(measure_named("width"), Some("length"));
        assert_eq!(measure_asked_by("wide"), Some("length"));
        assert_eq!(measure_asked_by("long"), None);
        assert_eq!(measure_named("point"), None);
    }

    #[test]
    fn exact_spellings_keep_their_case_and_folded_ones_do_not() {
        assert_eq!(unit_written("MW").map(|u| u.unit.as_str()), Some("MW"));
        assert!(unit_written("mW").is_none());
        assert_eq!(
            unit_written("Kilograms").map(|u| u.unit.as_str()),
            Some("kg")
        );
        assert_eq!(unit_named("mw").map(|u| u.unit.as_str()), Some("MW"));
        assert_eq!(unit_named("tonnes").map(|u| u.unit.as_str()), Some("t"));
    }

    #[test]
    fn the_alternation_matches_whole_spellings_longest_first() {
        let re = regex::Regex::new(&format!("(?i)^(?:{})", alternation())).unwrap();
        let m = |s: &str| re.find(s).map(|m| m.as_str().to_string());
        assert_eq!(m("mg/m³ daily").as_deref(), Some("mg/m³"));
        assert_eq!(m("km/h").as_deref(), Some("km/h"));
        assert_eq!(m("months"), None);
        assert_eq!(m("MWh").as_deref(), Some("MWh"));
        assert_eq!(m("mw "), None);
    }
}
