//! Sources with authority, never silently wrong: what a document supersedes, when it is
//! in effect, which of its sentences are requirements, and when two passages differ at
//! all, each through the real binary on a small corpus written by the test.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::ask::ask_json;
use super::cli::{attest, json};

/// A corpus of `files` (name, text) ingested into `<tmp>/idx`.
fn corpus(files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let idx = super::cli::ingested(tmp.path(), files);
    (tmp, idx)
}

/// The catalog entry of the document whose path ends in `name`.
fn catalog_entry(idx: &Path, name: &str) -> Value {
    let out = attest(idx).args(["documents", "--json"]).output().unwrap();
    json(&out.stdout)["documents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["source"].as_str().unwrap().ends_with(name))
        .unwrap_or_else(|| panic!("no document {name}"))
        .clone()
}

/// Paths the answer's `--as-of` set aside.
fn set_aside(a: &Value) -> Vec<String> {
    a["as_of"]["set_aside"]
        .as_array()
        .map(|v| {
            v.iter()
                .map(|s| s["source"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

const ACT: &str = "# Harbour Records Act 2015\n\nEffective: July 1, 2015\n\n\
## Section 4 Retention\n\nEvery harbour office must retain mooring logs for eight years after the \
last entry.\n";

#[test]
fn a_page_replacing_a_summary_sheet_or_a_guide_of_less_authority_does_not_supersede_the_act() {
    let faq = "# Mooring log questions\n\nLast updated: March 1, 2022\n\nThis page replaces the \
Harbour Records Act 2015 summary sheet.\n\nHow long are mooring logs kept? Harbour offices \
keep mooring logs for five years.\n";
    let guide = "# Mooring guide\n\nIssued: May 2, 2021\n\nThis guide replaces the Harbour \
Records Act 2015.\n\nOffices keep mooring logs for four years.\n";
    let (_tmp, idx) = corpus(&[
        ("harbour-records-act-2015.md", ACT),
        ("mooring-faq.md", faq),
        ("mooring-guide.md", guide),
    ]);
    let act = catalog_entry(&idx, "harbour-records-act-2015.md");
    assert_eq!(act["source_type"]["value"], "statute", "{act}");
    assert!(act.get("superseded_by").is_none(), "{act}");
    // The names are still recorded as what each says it replaces.
    let f = catalog_entry(&idx, "mooring-faq.md");
    assert_eq!(
        f["supersedes"][0]["value"], "the Harbour Records Act 2015 summary sheet",
        "{f}"
    );
    let (a, _) = ask_json(
        &idx,
        "How long must mooring logs be retained?",
        &["--as-of", "2023-01-01", "--no-memory"],
    );
    assert!(
        !set_aside(&a)
            .iter()
            .any(|s| s.contains("harbour-records-act")),
        "{a:#}"
    );
    assert!(
        a["evidence"].as_array().unwrap().iter().any(|e| e["source"]
            .as_str()
            .unwrap()
            .contains("harbour-records-act")),
        "the act answers: {a:#}"
    );
}

#[test]
fn a_repeal_date_ends_an_act_it_does_not_start_it() {
    let act = "# Ferry Licensing Act 1998\n\nAdopted: June 1, 1998\n\n\
Repealed effective January 1, 2016.\n\n## Section 2 Retention\n\nEvery ferry operator must \
keep passenger manifests for six years.\n";
    let rule = "# Ferry Rule 7\n\n**Status:** Rescinded as of 1 March 2012\n\nOperators must \
post fares at each pier.\n";
    let guide = "# Ferry guide\n\nOperators usually keep passenger manifests for three years.\n";
    let (_tmp, idx) = corpus(&[
        ("ferry-act-1998.md", act),
        ("ferry-rule-7.md", rule),
        ("ferry-guide.md", guide),
    ]);
    let a = catalog_entry(&idx, "ferry-act-1998.md");
    assert_eq!(a["effective_from"]["value"], "1998-06-01", "{a}");
    assert_eq!(a["effective_to"]["value"], "2016-01-01", "{a}");
    let r = catalog_entry(&idx, "ferry-rule-7.md");
    assert!(r.get("effective_from").is_none(), "{r}");
    assert_eq!(r["effective_to"]["value"], "2012-03-01", "{r}");
    let q = "How long must ferry operators keep passenger manifests?";
    let (in_force, _) = ask_json(&idx, q, &["--as-of", "2010-06-01", "--no-memory"]);
    assert!(
        !set_aside(&in_force).iter().any(|s| s.contains("ferry-act")),
        "in effect in 2010: {in_force:#}"
    );
    let (ended, _) = ask_json(&idx, q, &["--as-of", "2017-06-01", "--no-memory"]);
    let ended_aside = ended["as_of"]["set_aside"].as_array().unwrap();
    assert!(
        ended_aside.iter().any(|s| {
            s["source"].as_str().unwrap().contains("ferry-act") && s["effect"] == "ended"
        }),
        "{ended:#}"
    );
}

#[test]
fn numeric_effective_dates_are_read_in_the_order_the_document_writes_its_dates() {
    let day_first = "# Quay Access Policy\n\nEffective: 01/04/2019\n\nPasses issued before \
25/12/2018 must be renewed.\n";
    let month_first = "# Slipway Policy\n\nEffective: 02/03/2020\n\nPermits issued before \
12/31/2019 must be renewed.\n";
    let unknown = "# Crane Policy\n\nEffective: 05/06/2021\n\nCranes must be inspected.\n";
    let (_tmp, idx) = corpus(&[
        ("quay-policy.md", day_first),
        ("slipway-policy.md", month_first),
        ("crane-policy.md", unknown),
    ]);
    let d = catalog_entry(&idx, "quay-policy.md");
    assert_eq!(d["effective_from"]["value"], "2019-04-01", "{d}");
    let m = catalog_entry(&idx, "slipway-policy.md");
    assert_eq!(m["effective_from"]["value"], "2020-02-03", "{m}");
    // Nothing in the document tells the order: the date is not guessed.
    let u = catalog_entry(&idx, "crane-policy.md");
    assert!(u.get("effective_from").is_none(), "{u}");
}

const PERMITS: &str = "# Market Stall Policy\n\n## Section 1 Display\n\nEach vendor must \
display the stall permit at the front of the stall.\n\n## Section 2 Proposed changes\n\n\
Under the proposed amendment, vendors would be required to post prices in two languages. \
It is proposed that every vendor must carry a card reader.\n\n## Section 3 History\n\n\
Before 2015, the guidance said that stallholders must file sales reports by fax. In 2011 \
inspectors were told they must visit each stall monthly.\n\n## Section 4 Paper permits\n\n\
Each clerk must keep paper copies of every permit. This section was repealed effective \
March 1, 2014.\n\n## Section 5 Waste\n\n(a) Vendors must remove their waste each evening.\n\n\
(b) Repealed by Amendment No. 3.\n\n## Section 6 Awnings [Repealed]\n\nAwnings shall be \
green.\n";

#[test]
fn requirements_leave_out_proposals_reported_past_rules_and_repealed_provisions() {
    let (_tmp, idx) = corpus(&[("market-stall-policy.md", PERMITS)]);
    let out = attest(&idx)
        .args(["requirements", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let list = json(&out.stdout);
    let quotes: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["quote"].as_str().unwrap())
        .collect();
    assert!(
        quotes
            .iter()
            .any(|q| q.starts_with("Each vendor must display")),
        "{quotes:?}"
    );
    assert!(
        quotes.iter().any(|q| q.contains("remove their waste")),
        "{quotes:?}"
    );
    for not in [
        "post prices",
        "card reader",
        "sales reports by fax",
        "visit each stall",
        "paper copies",
        "Awnings shall",
    ] {
        assert!(!quotes.iter().any(|q| q.contains(not)), "{not}: {quotes:?}");
    }
    // An answer quoting the repealed provision says it does not bind.
    let (a, _) = ask_json(
        &idx,
        "Must clerks keep paper copies of permits?",
        &["--no-memory"],
    );
    for e in a["evidence"].as_array().unwrap() {
        if e["quote"].as_str().unwrap().contains("paper copies") {
            assert_eq!(e["non_binding"]["kind"], "repealed", "{a:#}");
        }
    }
}

const FEES: &str = "# Animal Licence Fees\n\nThe fees below apply to every licence issued by \
the county.\n\n| Licence | Term | Fee |\n| --- | --- | --- |\n| Dog licence | 12 months | $20 |\n\
| Cat licence | 12 months | $30 |\n| Ferret licence | 12 months | $45 |\n";

#[test]
fn rows_of_one_table_about_different_things_are_no_sources_that_differ() {
    let (_tmp, idx) = corpus(&[("animal-licence-fees.md", FEES)]);
    for q in [
        "What is the fee for a dog licence?",
        "How much does a cat licence cost?",
    ] {
        let (a, _) = ask_json(&idx, q, &["--no-memory"]);
        let conflicts = a["conflicts"].as_array().cloned().unwrap_or_default();
        assert!(conflicts.is_empty(), "{q}: {a:#}");
    }
}

/// What ingest works out about a document once — its role and version, besides its source
/// fields — is what `documents` shows and what a review reads.
#[test]
fn a_document_s_stored_profile_gives_its_role_and_version() {
    let plan = "# Harbour Wall Project Plan\n\n| Document version | Version 2.1 |\n\n\
The plan covers the wall's repair.\n";
    let draft =
        "# Harbour Wall Monitoring Report\n\nThe first monitoring round found no movement.\n";
    let (_tmp, idx) = corpus(&[
        ("wall_plan.md", plan),
        ("monitoring_report_draft.md", draft),
    ]);
    let p = catalog_entry(&idx, "wall_plan.md");
    assert_eq!(p["role"], "plan", "{p}");
    assert_eq!(p["version"]["number"], "2.1", "{p}");
    assert_eq!(p["version"]["from"], "text", "{p}");
    let r = catalog_entry(&idx, "monitoring_report_draft.md");
    assert_eq!(r["role"], "report", "{r}");
    assert_eq!(r["version"]["earlier"], true, "{r}");
    assert_eq!(r["version"]["from"], "file_name", "{r}");
}
