//! Bounded values, periods, exemptions and template titles through the real binary: the
//! value an answer names is the one its sentence binds to the asked thing, in the asked
//! unit family and bound, for the asked period; an exemption of the asked case and a
//! statement that the asked value is not set answer without a value; a title two
//! documents share is no bridge between them.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// Write `files` (name, text) into a fresh folder, ingest it, and return the index.
fn corpus(dir: &Path, files: &[(&str, &str)]) -> PathBuf {
    super::cli::ingested(dir, files)
}

/// The answer to `q` and its `answer_value`'s raw and normalised text, when any.
fn value_of(idx: &Path, q: &str) -> (Value, Option<(String, String)>) {
    let a = super::ask::ask_read(idx, q);
    let v = a["answer_value"].as_object().map(|v| {
        (
            v["raw"].as_str().unwrap().to_string(),
            v["normalised"].as_str().unwrap().to_string(),
        )
    });
    (a, v)
}

const HARBOUR: &str = "# Eastport Marina Rules\n\n\
## Opening hours\n\nThe fuel dock is open from 7 am to 8 pm from April to October.\n\n\
## Occupancy\n\nFor fire safety the maximum number of guests aboard a moored houseboat at \
one time is 12.\n\n\
## Slipway\n\nThe slipway winch may lift boats of up to 3 t.\n\n\
## Records\n\nPrinted berth records cost $2 per sheet, up to a maximum of $30 per request.\n\n\
## Committee\n\nThe Marina Committee has nine members, four of whom are elected by the berth \
holders.\n\n\
## Winter storage\n\nWinter storage costs $300 a season. Members of the volunteer rescue crew \
are exempt from the winter storage charge.\n\n\
## Moorings\n\nA mooring for a boat shorter than 8 metres costs $450 a year.\n";

#[test]
fn the_value_is_the_one_its_sentence_binds_to_the_asked_thing() {
    let tmp = tempfile::tempdir().unwrap();
    let idx = corpus(tmp.path(), &[("marina.md", HARBOUR)]);
    // A clock time is no count of guests.
    let (a, v) = value_of(
        &idx,
        "What is the maximum number of guests aboard a houseboat?",
    );
    assert_eq!(v.map(|v| v.0).as_deref(), Some("12"), "{a}");
    // A length the question states is its condition, not the price.
    let (a, v) = value_of(
        &idx,
        "How much does a mooring for a boat shorter than 8 metres cost?",
    );
    assert_eq!(v.map(|v| v.0).as_deref(), Some("$450"), "{a}");
    // Tonnes asked in kilograms are converted, the raw text kept.
    let (a, v) = value_of(
        &idx,
        "What is the maximum weight the slipway winch may lift in kg?",
    );
    let (raw, norm) = v.unwrap_or_else(|| panic!("no value: {a}"));
    assert!(raw.starts_with('3') && raw.contains('t'), "{a}");
    assert_eq!(norm, "3000 kg", "{a}");
    // A cap written after a rate answers a maximum.
    let (a, v) = value_of(&idx, "What is the maximum cost of printed berth records?");
    assert_eq!(v.map(|v| v.0).as_deref(), Some("$30"), "{a}");
    // A part counted out of a total answers what its clause says.
    let (a, v) = value_of(
        &idx,
        "How many committee members are elected by the berth holders?",
    );
    assert_eq!(v.map(|v| v.1).as_deref(), Some("4"), "{a}");
}

#[test]
fn an_exemption_of_the_asked_case_answers_with_no_value() {
    let tmp = tempfile::tempdir().unwrap();
    let idx = corpus(tmp.path(), &[("marina.md", HARBOUR)]);
    let (a, v) = value_of(
        &idx,
        "What is the winter storage charge for members of the volunteer rescue crew?",
    );
    assert!(v.is_none(), "an exempt case is given a value: {a}");
    assert!(a["answer"].as_str().unwrap().contains("exempt"), "{a}");
    // The general case keeps its value.
    let (a, v) = value_of(&idx, "What does winter storage cost?");
    assert_eq!(v.map(|v| v.0).as_deref(), Some("$300"), "{a}");
}

const LEVIES: &str = "# Tourism Levy Guidelines\n\n\
## Levy rates\n\nSince July 2023, the maximum levy is $18 per night. The levy was previously \
capped at $12 per night.\n\n\
## Registration\n\nUntil 30 June 2020, the registration fee for a guesthouse was $90. \
Registration fees for a guesthouse now range from $40 to $400 depending on the number of rooms.\n";

#[test]
fn values_of_another_period_and_former_values_are_not_the_asked_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let idx = corpus(tmp.path(), &[("levy.md", LEVIES)]);
    let (a, v) = value_of(&idx, "What was the maximum levy per night before 2023?");
    assert_ne!(v.map(|v| v.0).as_deref(), Some("$18"), "{a}");
    let (a, v) = value_of(
        &idx,
        "What is the maximum registration fee for a guesthouse?",
    );
    // The fee until a past date is a former one, never the current maximum.
    assert_ne!(v.map(|v| v.0).as_deref(), Some("$90"), "{a}");
    let (a, v) = value_of(&idx, "What is the maximum levy per night?");
    assert_eq!(v.map(|v| v.0).as_deref(), Some("$18"), "{a}");
}

#[test]
fn a_shared_template_title_is_no_bridge_and_an_unset_value_is_said() {
    let tmp = tempfile::tempdir().unwrap();
    let sheet = |site: &str, total: &str| {
        format!(
            "# Site Operating Budget\n\nThis sheet covers the {site} depot for the 2026 \
             financial year.\n\n## Total\n\n{total}\n\n## Staff\n\nThe depot employs five \
             staff.\n"
        )
    };
    let north = sheet(
        "North",
        "The annual operating budget of the depot is $840,000.",
    );
    let south = sheet(
        "South",
        "The South depot has not yet been allocated an annual operating budget.",
    );
    let idx = corpus(
        tmp.path(),
        &[("north-budget.md", &north), ("south-budget.md", &south)],
    );
    let south_q = "What is the annual operating budget of the South depot?";
    let (a, v) = value_of(&idx, south_q);
    assert!(
        v.is_none(),
        "the North sheet's budget given for the South: {a}"
    );
    assert!(
        a["answer"]
            .as_str()
            .unwrap()
            .contains("not yet been allocated"),
        "{a}"
    );
    // A stated absence names no value: its own status, exit 1, and an audit that replays.
    assert_eq!(a["status"], "stated_absent", "{a}");
    let audit = tmp.path().join("south.json");
    let out = super::cli::attest(&idx)
        .args(["ask", south_q, "--no-memory", "--audit"])
        .arg(&audit)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("has not been set"));
    let replay = super::cli::attest(&idx)
        .args(["validate", "--audit"])
        .arg(&audit)
        .output()
        .unwrap();
    assert!(replay.status.success(), "{replay:?}");
    let (a, v) = value_of(
        &idx,
        "What is the annual operating budget of the North depot?",
    );
    assert_eq!(v.map(|v| v.0).as_deref(), Some("$840,000"), "{a}");
}

const WORKS_LICENCE: &str = "# Site Works Licence\n\n\
Issued to Corbel Masonry Ltd for the Alder Street yard.\n\n\
## Conditions\n\n\
4.1 Mixer B-2 shall not emit more than 2 kg/h of dust.\n\n\
4.2 Site-wide annual dust emissions shall not exceed 9 t/yr.\n\n\
4.3 Delivery lorries shall not exceed 20 km/h inside the yard.\n\n\
4.4 Passphrases for the gate keypad shall be at least 12 characters long.\n\n\
## Validity\n\n\
The holder must apply for renewal at least 30 days before expiry. \
This licence expires on 1 May 2031.\n";

const TENDER: &str = "# Contract Notice\n\n\
Buyer: Port Authority of Westmere, Quay Road 2, Westmere.\n\n\
## Object\n\n\
Supply of two harbour tugs.\n\n\
The estimated value of the contract is EUR 3.400.000,00 excluding VAT.\n";

#[test]
fn documents_name_their_subject_and_rates_and_roles_of_values_hold() {
    let tmp = tempfile::tempdir().unwrap();
    let idx = corpus(
        tmp.path(),
        &[
            ("works-licence.md", WORKS_LICENCE),
            ("tug-notice.md", TENDER),
        ],
    );
    // The notice's opening names the buyer: its passages speak of the buyer's contract.
    let (a, v) = value_of(
        &idx,
        "What is the estimated value of the contract of the Port Authority of Westmere?",
    );
    assert_eq!(v.map(|v| v.0).as_deref(), Some("EUR 3.400.000,00"), "{a}");
    // A value per hour is no annual limit, and a provision of the whole site is none
    // of a unit the question names by its code.
    let (a, v) = value_of(
        &idx,
        "What is the annual dust limit for mixer B-2 at the Alder Street yard, in tonnes per year?",
    );
    assert!(v.is_none(), "{a}");
    // A speed is no length.
    let (a, v) = value_of(
        &idx,
        "What is the maximum length of delivery lorries at the Alder Street yard?",
    );
    assert!(v.is_none(), "{a}");
    // A length of text is counted in symbols.
    let (a, v) = value_of(
        &idx,
        "What is the minimum length of a passphrase for the gate keypad?",
    );
    assert_eq!(v.map(|v| v.0).as_deref(), Some("12"), "{a}");
    // Asked when, the date leads before the time limit beside it.
    let (a, v) = value_of(
        &idx,
        "When does the Alder Street yard works licence expire?",
    );
    assert_eq!(v.map(|v| v.1).as_deref(), Some("2031-05-01"), "{a}");
}
