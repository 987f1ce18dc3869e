//! Never silently wrong, third pass, through the real binary: numbers read whole in the
//! format their text shows (grouping dots, decimal commas, scale words, numerals restated
//! in brackets) or refused, a part of a quote that drops its negation, figures compared
//! as values and dates as dates by the Evidence Gate, and the former holder of a role
//! quoted as a complete statement.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::cli::json;
use super::wrong::kinds;

/// `attest validate --json` of `text` against `evidence` (no index needed).
fn validate(text: &str, evidence: &str) -> (Value, i32) {
    let dir = tempfile::tempdir().unwrap();
    let (t, e) = (dir.path().join("a.md"), dir.path().join("e.json"));
    std::fs::write(&t, text).unwrap();
    std::fs::write(&e, evidence).unwrap();
    let out = super::cli::validate(dir.path(), &t, &e, &["--json"]);
    (json(&out.stdout), out.status.code().unwrap())
}

/// A corpus of `files` under `dir`, ingested into `dir/idx`.
fn corpus(dir: &Path, files: &[(&str, &str)]) -> PathBuf {
    super::cli::ingested(dir, files)
}

fn ask(idx: &Path, q: &str) -> Value {
    super::ask::ask_read(idx, q)
}

/// The answer's value: (raw, normalised).
fn value(a: &Value) -> (String, String) {
    let v = &a["answer_value"];
    let s = |k: &str| v[k].as_str().unwrap_or_default().to_string();
    (s("raw"), s("normalised"))
}

const FUNDS: [(&str, &str); 4] = [
    (
        "foundation.md",
        "# Foundation grants\n\nIn 2021 the foundation granted the city museum EUR 3.400.000 \
         for its new wing.\n\nThe yearly membership fee of the museum is EUR 12,50 per person.\n",
    ),
    (
        "region.md",
        "# Regional fund\n\nThe harbour authority received a subsidy of EUR 4,2 Mio from the \
         regional fund.\n",
    ),
    (
        "depot.md",
        "# Depot lease\n\nThe lease of the bus depot runs for twelve (12) years from signing.\n",
    ),
    (
        "hall.md",
        "# Hall rental\n\nThe deposit for renting the town hall is EUR 1.800 per event.\n",
    ),
];

#[test]
fn amounts_are_read_whole_in_their_format_or_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let idx = corpus(tmp.path(), &FUNDS);
    for (q, raw, normalised) in [
        (
            "How much did the foundation grant the city museum?",
            "EUR 3.400.000",
            "3400000 euro",
        ),
        (
            "How much is the yearly membership fee of the museum?",
            "EUR 12,50",
            "12.5 euro",
        ),
        (
            "How much did the harbour authority receive from the regional fund?",
            "EUR 4,2 Mio",
            "4200000 euro",
        ),
        (
            "How long does the lease of the bus depot run?",
            "twelve (12) years",
            "12 year",
        ),
    ] {
        let a = ask(&idx, q);
        assert_eq!(a["status"], "answered", "{q}: {a:#}");
        assert_eq!(value(&a), (raw.into(), normalised.into()), "{q}: {a:#}");
    }
    // One dot before three digits, and nothing in the text to say which format: refused.
    let a = ask(&idx, "How much is the deposit for renting the town hall?");
    let (_, normalised) = value(&a);
    assert!(
        a["answer_value"].is_null() || normalised.starts_with("ambiguous"),
        "{a:#}"
    );
    assert!(
        !normalised.contains("1800") && !normalised.contains("1.8 "),
        "{a:#}"
    );
}

#[test]
fn a_part_of_a_quote_that_drops_its_negation_fails_the_gate() {
    let evidence = r#"[
 {"id": "E1", "quote": "No visitor may feed the animals in the park."},
 {"id": "E2", "quote": "Never leave children alone in the pool area."},
 {"id": "E3", "quote": "It is not true that members must renew every year."},
 {"id": "E4", "quote": "It is false that the library closes at noon on Fridays."},
 {"id": "E5", "quote": "Residents may park no trailers on the street."}
]"#;
    for text in [
        "visitor may feed the animals in the park [E1].",
        "leave children alone in the pool area [E2].",
        "members must renew every year [E3].",
        "the library closes at noon on Fridays [E4].",
        "Residents may park [E5].",
    ] {
        let (r, code) = validate(text, evidence);
        assert_eq!(code, 1, "{text} passed: {r}");
        assert!(
            kinds(&r).contains(&"polarity_mismatch".to_string()),
            "{text}: {r}"
        );
    }
    for text in [
        "No visitor may feed the animals in the park [E1].",
        "Never leave children alone in the pool area [E2].",
    ] {
        let (r, code) = validate(text, evidence);
        assert_eq!(code, 0, "{text}: {r}");
    }
}

#[test]
fn the_gate_compares_figures_as_values_in_their_format_and_dates_as_dates() {
    let evidence = r#"[
 {"id": "E1", "quote": "The annual fee is EUR 1.200,40 per household."},
 {"id": "E2", "quote": "The tax rate rose to 6,5 % in 2023."},
 {"id": "E3", "quote": "The permit expires on 30 June 2027."}
]"#;
    for text in [
        "The annual fee is EUR 1 per household [E1].",
        "The annual fee is EUR 1.20 per household [E1].",
        "The annual fee is EUR 1.200 per household [E1].",
        "The tax rate rose to 6 % in 2023 [E2].",
        "The permit expires on 30 July 2027 [E3].",
        "The permit expires in July 2027 [E3].",
    ] {
        let (r, code) = validate(text, evidence);
        assert_eq!(code, 1, "{text} passed: {r}");
        assert!(
            kinds(&r).contains(&"figure_not_in_evidence".to_string()),
            "{text}: {r}"
        );
    }
    for text in [
        "The annual fee is EUR 1,200.40 per household [E1].",
        "The annual fee is EUR 1.200,40 per household [E1].",
        "The tax rate rose to 6.5 % in 2023 [E2].",
        "The permit expires on 2027-06-30 [E3].",
        "The permit expires on June 30, 2027 [E3].",
    ] {
        let (r, _) = validate(text, evidence);
        let k = kinds(&r);
        assert!(
            !k.contains(&"figure_not_in_evidence".to_string())
                && !k.contains(&"polarity_mismatch".to_string()),
            "{text}: {r}"
        );
    }
}

#[test]
fn the_former_holder_of_a_role_is_a_complete_quote() {
    let tmp = tempfile::tempdir().unwrap();
    let idx = corpus(
        tmp.path(),
        &[(
            "club.md",
            "# Club history\n\nThe former treasurer of the rowing club, Maria Olsen, retired \
             on 3 May 2020.\n",
        )],
    );
    let a = ask(
        &idx,
        "When did the former treasurer of the rowing club retire?",
    );
    let incomplete = a["rejected"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["reason"] == "incomplete_quote");
    assert!(!incomplete, "{a:#}");
    assert_eq!(a["status"], "answered", "{a:#}");
    let quotes = a["evidence"].to_string();
    assert!(
        quotes.contains("Maria Olsen, retired on 3 May 2020"),
        "{a:#}"
    );
}
