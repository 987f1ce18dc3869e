//! Whole provisions through the real binary: a quote never drops an alternative, a
//! condition or a list's lead-in, "This Regulation …" is quotable, and no quote ends
//! inside an open bracket (issue 23, item 4).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::ask::ask_json;
use super::cli::ingest_json;

/// The test corpus: one small document per rule, in our own wording.
const DOCS: [(&str, &str); 5] = [
    (
        "penalties.md",
        "# Article 99 Penalties\n\nNon-compliance with the prohibition of the practices referred \
         to in Article 5 shall be subject to administrative fines of up to EUR 35 000 000 or, if \
         the offender is an undertaking, up to 7 % of its total worldwide annual turnover for the \
         preceding financial year, whichever is higher.\n",
    ),
    (
        "civil-code.md",
        "# Lost property\n\nIf the owner of the lost property does not claim it within six months \
         after the notice of the find has been published by the municipal office, the person who \
         found the lost property acquires ownership of the same together with any proceeds of its \
         sale.\n",
    ),
    (
        "notices.md",
        "# Notices of decisions\n\nThe notice shall include:\n\n- the name of the client;\n\n- the \
         reason for the decision; and\n\n- the date by which an appeal must be filed.\n",
    ),
    (
        "application.md",
        "# Article 113 Entry into force and application\n\nThis Regulation shall apply from 2 \
         August 2026.\n",
    ),
    (
        "grants.md",
        "# Contributions\n\nApplicants should describe every contribution they will make to the \
         project over its lifetime (e.g., resources, investments, staff time, equipment, land, \
         vehicles, software, training, office space, travel, transport, catering, security, \
         insurance, cleaning, printing, postage and utilities) and should estimate the value of \
         each.\n",
    ),
];

/// The corpus written under `dir` and ingested into `dir/idx`.
fn index(dir: &Path) -> PathBuf {
    let docs = dir.join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    for (name, text) in DOCS {
        std::fs::write(docs.join(name), text).unwrap();
    }
    let idx = dir.join("idx");
    let (out, code) = ingest_json(&idx, &[&docs]);
    assert_eq!(code, 0, "{out}");
    idx
}

/// The quotes the answer to `q` cites.
fn quotes(idx: &Path, q: &str) -> Vec<String> {
    let (a, _) = ask_json(idx, q, &["--no-memory"]);
    a["evidence"]
        .as_array()
        .unwrap_or(&Vec::new())
        .iter()
        .map(|e: &Value| e["quote"].as_str().unwrap().to_string())
        .collect()
}

/// Some quote contains `key`, and every quote that does contains each of `whole`.
fn assert_whole(quotes: &[String], key: &str, whole: &[&str]) {
    assert!(quotes.iter().any(|q| q.contains(key)), "{key}: {quotes:?}");
    for q in quotes.iter().filter(|q| q.contains(key)) {
        for w in whole {
            assert!(q.contains(w), "{q:?} is cut before {w:?}");
        }
    }
}

#[test]
fn quotes_keep_alternatives_conditions_lead_ins_and_brackets() {
    let tmp = tempfile::tempdir().unwrap();
    let idx = index(tmp.path());
    let q = quotes(
        &idx,
        "What fines apply for non-compliance with the prohibition of the practices?",
    );
    assert_whole(&q, "EUR 35 000 000", &["7 %", "whichever is higher"]);
    let q = quotes(
        &idx,
        "When does the person who found lost property acquire ownership of it?",
    );
    assert_whole(&q, "acquires ownership", &["If the owner", "six months"]);
    let q = quotes(&idx, "What must the notice of a decision include?");
    assert_whole(
        &q,
        "the reason for the decision",
        &["The notice shall include:", "the date by which an appeal"],
    );
    let q = quotes(&idx, "From when shall the Regulation apply?");
    assert!(
        q.iter()
            .any(|q| q == "This Regulation shall apply from 2 August 2026."),
        "{q:?}"
    );
    let q = quotes(&idx, "What contributions should applicants describe?");
    assert!(q.iter().any(|q| q.contains("investments")), "{q:?}");
    for q in &q {
        assert_eq!(q.matches('(').count(), q.matches(')').count(), "{q:?}");
    }
}
