//! Sources with authority through the real binary, the real bi-encoder and a real index
//! of the sample corpus: every document typed, declared or inferred; filters applied
//! inside retrieval (search, ask, HTTP); `--as-of` choosing the sources in effect; and
//! the retention question saying which source applies and why.

use serde_json::{json, Value};

use super::ask::ask_json;
use super::cli::{attest, json, sample_index, scratch_corpus};
use crate::common::server::{client, Server};

const RETENTION: &str = "How long must client records be retained?";

/// The evidence item `id` of answer `a`.
fn item<'a>(a: &'a Value, id: &str) -> &'a Value {
    a["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == id)
        .unwrap_or_else(|| panic!("no item {id}"))
}

fn sources(a: &Value) -> Vec<String> {
    a["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["source"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_retention_question_says_the_floor_and_the_stricter_bulletin_both_apply_and_as_of_dates_choose_sources(
) {
    let (_tmp, idx) = sample_index();
    let (a, code) = ask_json(&idx, RETENTION, &[]);
    assert_eq!(code, 0, "{a}");
    let rulings: Vec<&Value> = a["conflicts"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c.get("ruling"))
        .collect();
    assert_eq!(rulings.len(), 1, "{}", a["conflicts"]);
    let r = rulings[0];
    assert_eq!(r["relation"], "compatible", "{r}");
    assert_eq!(r["rule"], "stricter");
    let gov = r["governing"][0].as_str().unwrap();
    assert!(item(&a, gov)["source"]
        .as_str()
        .unwrap()
        .contains("policy-bulletin-19-04"));
    let sides = r["sides"].as_array().unwrap();
    assert!(
        sides.len() >= 3,
        "the manual and the county code also apply: {r}"
    );
    assert!(sides
        .iter()
        .any(|s| s["source_type"] == "statute" && s["standing"] == "also_applies"));
    assert!(
        r["summary"].as_str().unwrap().contains("since 2019-04-01"),
        "{r}"
    );
    // The FAQ restates the old rule: it is shown beside the ruling as a summary that
    // does not control, cited by no sentence of the answer and verbatim in its file.
    let faq = sides
        .iter()
        .find(|s| s["source_type"] == "faq")
        .unwrap_or_else(|| panic!("the FAQ is a side: {r}"));
    assert_eq!(faq["standing"], "summary", "{r}");
    let faq_item = item(&a, faq["id"].as_str().unwrap());
    assert!(faq_item["source"].as_str().unwrap().contains("14-faq"));
    assert!(!a["answer"]
        .as_str()
        .unwrap()
        .contains(&format!("[{}]", faq["id"].as_str().unwrap())));
    let file = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(faq_item["source"].as_str().unwrap()),
    )
    .unwrap();
    let quote = faq_item["quote"].as_str().unwrap();
    assert!(
        quote.contains("seven years") && file.contains(quote),
        "{quote}"
    );
    // Before the bulletin took effect, the seven-year rule alone; after, both.
    let (before, _) = ask_json(&idx, RETENTION, &["--as-of", "2018-06-01"]);
    assert!(
        !sources(&before).iter().any(|s| s.contains("19-04")),
        "{before}"
    );
    assert!(before["answer"].as_str().unwrap().contains("seven"));
    // The answer records what the date set aside, and why.
    assert_eq!(before["as_of"]["as_of"], "2018-06-01", "{before}");
    assert!(
        before["as_of"]["set_aside"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["source"].as_str().unwrap().contains("19-04") && a["effect"] == "not_yet"),
        "{}",
        before["as_of"]
    );
    assert!(
        a.get("as_of").is_none(),
        "a question asked without a date records none"
    );
    assert!(!before["answer"].as_str().unwrap().contains("10 years"));
    let (after, _) = ask_json(&idx, RETENTION, &["--as-of", "2020-01-01"]);
    assert!(
        sources(&after).iter().any(|s| s.contains("19-04")),
        "{after}"
    );
    // A date that is not one is refused, naming the flag's format.
    let out = attest(&idx)
        .args(["ask", RETENTION, "--as-of", "2019-02-30"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("YYYY-MM-DD"));
}

#[test]
fn every_document_is_typed_and_declarations_in_attest_toml_and_flags_win_over_inferences() {
    let tmp = tempfile::tempdir().unwrap();
    let docs = scratch_corpus(tmp.path());
    let idx = tmp.path().join("idx");
    let toml = tmp.path().join("attest.toml");
    std::fs::write(
        &toml,
        "[[sources]]\npath = \"**/14-faq-*.md\"\nsource_type = \"guidance\"\ncollection = \"public\"\n",
    )
    .unwrap();
    let ok = attest(&idx)
        .arg("--config")
        .arg(&toml)
        .arg("ingest")
        .arg(&docs)
        .output()
        .unwrap();
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let act = docs.join("10-bhsa-5890-5899.md");
    let flagged = attest(&idx)
        .arg("--config")
        .arg(&toml)
        .arg("ingest")
        .arg(&act)
        .args([
            "--collection",
            "state-law",
            "--effective-from",
            "2015-01-01",
        ])
        .output()
        .unwrap();
    assert!(flagged.status.success());
    let list = |extra: &[&str]| {
        let out = attest(&idx)
            .arg("--config")
            .arg(&toml)
            .arg("documents")
            .arg("--json")
            .args(extra)
            .output()
            .unwrap();
        json(&out.stdout)["documents"].as_array().unwrap().clone()
    };
    let all = list(&[]);
    assert_eq!(all.len(), 15);
    let by = |name: &str| {
        all.iter()
            .find(|d| d["source"].as_str().unwrap().contains(name))
            .unwrap()
            .clone()
    };
    for d in &all {
        assert_ne!(d["source_type"]["value"], "other", "typed: {d}");
        assert_ne!(d["source_type"]["origin"], "default");
    }
    let faq = by("14-faq");
    assert_eq!(faq["source_type"]["value"], "guidance");
    assert_eq!(faq["source_type"]["origin"], "declared");
    assert_eq!(faq["collection"]["value"], "public");
    let act = by("10-bhsa");
    assert_eq!(
        (
            act["source_type"]["value"].clone(),
            act["source_type"]["origin"].clone()
        ),
        (json!("statute"), json!("inferred"))
    );
    assert_eq!(
        (
            act["collection"]["value"].clone(),
            act["effective_from"]["value"].clone()
        ),
        (json!("state-law"), json!("2015-01-01"))
    );
    let bulletin = by("15-policy");
    assert_eq!(bulletin["effective_from"]["value"], "2019-04-01");
    assert_eq!(bulletin["effective_from"]["origin"], "inferred");
    assert!(bulletin["effective_from"]["from"]
        .as_str()
        .unwrap()
        .contains("Effective: April 1, 2019"));
    assert_eq!(
        bulletin["supersedes"][0]["value"],
        "Policy Bulletin No. 17-02"
    );
    // Filters select; a condition that is not one is refused with the keys it knows.
    let statutes = list(&["--where", "source_type=statute"]);
    assert_eq!(statutes.len(), 3);
    assert_eq!(list(&["--collection", "state-law"]).len(), 1);
    assert_eq!(list(&["--where", "authority>=90"]).len(), 4);
    let bad = attest(&idx)
        .args(["documents", "--where", "colour=red"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("source_type, collection"));
    // A bad [[sources]] rule is refused at load, naming the rule.
    std::fs::write(
        &toml,
        "[[sources]]\npath = \"a[\"\nsource_type = \"statute\"\n",
    )
    .unwrap();
    let out = attest(&idx)
        .arg("--config")
        .arg(&toml)
        .arg("documents")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("sources[0]"));
}

#[test]
fn filters_apply_inside_retrieval_so_a_filtered_search_gets_a_full_list_on_the_cli_and_over_http() {
    let (_tmp, idx) = sample_index();
    let out = attest(&idx)
        .args([
            "search",
            "client records",
            "-k",
            "10",
            "--json",
            "--where",
            "source_type=statute",
        ])
        .output()
        .unwrap();
    let hits = json(&out.stdout)["hits"].as_array().unwrap().clone();
    assert_eq!(hits.len(), 10, "statutes hold 20 chunks: a full list");
    for h in &hits {
        let s = h["source"].as_str().unwrap();
        assert!(s.contains("10-bhsa") || s.contains("county-code"), "{s}");
    }
    let none = attest(&idx)
        .args(["search", "records", "--where", "source_type=contract"])
        .output()
        .unwrap();
    assert_eq!(none.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&none.stderr).contains("no indexed document matches the filter")
    );
    let s = Server::start(&idx, &[], &[]);
    let c = client();
    let r: Value = c
        .post(s.url("/v1/search"))
        .json(&json!({"query": "client records", "k": 5, "where": ["source_type=faq"]}))
        .send()
        .unwrap()
        .json()
        .unwrap();
    let hits = r["hits"].as_array().unwrap();
    assert!(!hits.is_empty());
    assert!(
        hits.iter()
            .all(|h| h["source"].as_str().unwrap().contains("14-faq")),
        "{r}"
    );
    let bad = c
        .post(s.url("/v1/ask"))
        .json(&json!({"question": RETENTION, "as_of": "June 2018"}))
        .send()
        .unwrap();
    assert_eq!(bad.status(), 400);
    let a: Value = c
        .post(s.url("/v1/ask"))
        .json(&json!({"question": RETENTION, "as_of": "2018-06-01"}))
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert!(!sources(&a).iter().any(|s| s.contains("19-04")), "{a}");
    // The catalog and the requirements, filtered the same way.
    let cat: Value = c
        .post(s.url("/v1/sources"))
        .json(&json!({"where": ["source_type=statute"]}))
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(cat["documents"].as_array().unwrap().len(), 3, "{cat}");
    let reqs: Value = c
        .post(s.url("/v1/requirements"))
        .json(&json!({"collection": "none-such"}))
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert!(
        reqs.as_array().is_none(),
        "no document in that collection: {reqs}"
    );
    let reqs: Value = c
        .post(s.url("/v1/requirements"))
        .json(&json!({"where": ["source_type=policy"]}))
        .send()
        .unwrap()
        .json()
        .unwrap();
    let reqs = reqs.as_array().unwrap();
    assert!(
        reqs.len() > 20
            && reqs
                .iter()
                .all(|r| r["id"].as_str().unwrap().starts_with("REQ-P"))
    );
}

/// An act in the shape of an official EUR-Lex page: a file id as its `<title>`, the title
/// marked `doc-ti`, citations, two recitals, the enacting formula, two articles.
const ACT_HTML: &str = r#"<html><head><title>L_2099001EN.01000101.xml</title></head><body>
<p class="doc-ti">REGULATION (EU) 2099/1 OF THE EUROPEAN PARLIAMENT AND OF THE COUNCIL</p>
<p class="doc-ti">on the safe storage of archived ledgers</p>
<p class="doc-ti">(Text with EEA relevance)</p>
<p>THE EUROPEAN PARLIAMENT AND THE COUNCIL OF THE EUROPEAN UNION,</p>
<p>Having regard to the Treaty on the Functioning of the European Union,</p>
<p>Whereas:</p>
<table><tr><td><p>(1)</p></td><td><p>Archived ledgers should be kept in dry vaults for the benefit of historians.</p></td></tr></table>
<table><tr><td><p>(2)</p></td><td><p>Ledger vaults are best inspected every season by trained wardens.</p></td></tr></table>
<p>HAVE ADOPTED THIS REGULATION:</p>
<p class="ti-art">Article 1</p><p class="sti-art">Storage</p>
<p>1. Ledger custodians shall keep archived ledgers in vaults below 40 percent humidity.</p>
<p>2. Inspections of vaults shall follow this schedule:</p>
<table><tr><td><p>(a)</p></td><td><p>Wardens shall inspect each vault every 90 days;</p></td></tr></table>
<table><tr><td><p>(b)</p></td><td><p>Auditors shall inspect each vault every 365 days.</p></td></tr></table>
<p class="ti-art">Article 2</p><p class="sti-art">Entry into force</p>
<p>This Regulation shall enter into force on the twentieth day following that of its publication.</p>
<p>Done at Brussels, 1 January 2099.</p><p>For the Council</p>
</body></html>"#;

#[test]
fn recitals_are_labelled_as_not_binding_articles_are_cited_to_the_point_and_the_marked_title_is_kept(
) {
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(docs.join("L_2099001EN.01000101.html"), ACT_HTML).unwrap();
    let idx = tmp.path().join("idx");
    assert!(attest(&idx)
        .arg("ingest")
        .arg(&docs)
        .output()
        .unwrap()
        .status
        .success());
    let out = attest(&idx).args(["documents", "--json"]).output().unwrap();
    let d = &json(&out.stdout)["documents"][0];
    assert_eq!(
        d["title"],
        "REGULATION (EU) 2099/1 OF THE EUROPEAN PARLIAMENT AND OF THE COUNCIL on the safe storage of archived ledgers"
    );
    assert_eq!(d["source_type"]["value"], "regulation");
    assert_eq!(d["jurisdiction"]["value"], "European Union");
    // A point of a numbered paragraph is cited as such, and it binds.
    let (a, _) = ask_json(
        &idx,
        "How often shall wardens inspect each vault?",
        &["--no-memory"],
    );
    let e = a["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| {
            e["quote"]
                .as_str()
                .unwrap()
                .contains("Wardens shall inspect")
        })
        .unwrap_or_else(|| panic!("{a}"));
    assert_eq!(e["provision"], "Article 1(2)(a)", "{a}");
    assert!(e.get("non_binding").is_none());
    // A question only a recital speaks to is answered from it, labelled.
    let (r, _) = ask_json(
        &idx,
        "Where should archived ledgers be kept for the benefit of historians?",
        &["--no-memory"],
    );
    let cited = r["evidence"].as_array().unwrap();
    let recital = cited
        .iter()
        .find(|e| e["quote"].as_str().unwrap().contains("dry vaults"))
        .unwrap_or_else(|| panic!("{r}"));
    assert_eq!(recital["non_binding"]["kind"], "recital");
    assert_eq!(recital["non_binding"]["label"], "(1)");
    let text = attest(&idx)
        .args([
            "ask",
            "Where should archived ledgers be kept for the benefit of historians?",
            "--no-memory",
        ])
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&text.stdout);
    assert!(shown.contains("recital (1), does not bind"), "{shown}");
}

#[test]
fn requirements_are_listed_as_items_with_ids_by_source_type_quoted_verbatim_and_whole() {
    let (_tmp, idx) = sample_index();
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
    let items = list.as_array().unwrap();
    assert!(items.len() > 50, "{}", items.len());
    for r in items {
        let text = std::fs::read_to_string(r["source"].as_str().unwrap()).unwrap();
        let (s, e) = (
            r["start"].as_u64().unwrap() as usize,
            r["end"].as_u64().unwrap() as usize,
        );
        assert_eq!(
            &text[s..e],
            r["quote"].as_str().unwrap(),
            "verbatim at its span"
        );
        let id = r["id"].as_str().unwrap();
        match r["source_type"].as_str().unwrap() {
            "statute" | "regulation" => assert!(id.starts_with("REQ-S"), "{id}"),
            "policy" | "guidance" => assert!(id.starts_with("REQ-P"), "{id}"),
            "faq" => panic!("an FAQ imposes nothing: {r}"),
            _ => assert!(id.starts_with("REQ-O"), "{id}"),
        }
        assert!(
            !r["quote"].as_str().unwrap().ends_with(':'),
            "a lead-in is quoted with its list: {r}"
        );
    }
    let retain = items
        .iter()
        .find(|r| {
            r["quote"]
                .as_str()
                .unwrap()
                .starts_with("A county program shall retain each client record")
        })
        .expect("§ 5897(a) is a requirement");
    assert_eq!(retain["provision"], "§ 5897(a)");
    assert_eq!(retain["id"].as_str().unwrap()[..5].to_string(), "REQ-S");
    // A list's lead-in and items are one requirement.
    assert!(items.iter().any(|r| {
        let q = r["quote"].as_str().unwrap();
        q.starts_with("Within 24 hours after a crisis contact, the county program shall:")
            && q.contains("(3) notify")
    }));
    // Filters select the sources: statutes only.
    let out = attest(&idx)
        .args(["requirements", "--json", "--where", "source_type=statute"])
        .output()
        .unwrap();
    let statutes = json(&out.stdout);
    assert!(statutes
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["source_type"] == "statute"));
    assert_eq!(statutes[0]["id"], "REQ-S001");
}

/// A regulation written for this test: its Article 12 sets no time limit, Article 9 is
/// not in it, and Article 20 says from when Article 5 applies.
const REGULATION_MD: &str = "# Regulation (XX) 2031/7 on sample registers\n\n\
## Article 5 Registers\n\n1. Each operator shall keep a register of samples.\n\n\
## Article 12 Requests\n\n1. The operator shall answer requests from data subjects in \
writing.\n\n2. The operator shall facilitate requests made by electronic means.\n\n\
## Article 13 Deadlines for inspections\n\n1. The operator shall allow an inspection \
within 10 days of a request from the authority.\n\n\
## Article 20 Entry into force\n\n1. This Regulation shall apply from 1 March 2032.\n\n\
2. Article 5 shall apply from 1 September 2032.\n";

#[test]
fn a_question_that_names_a_provision_is_answered_from_it_or_from_text_naming_it_else_abstains() {
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(docs.join("regulation-2031-7.md"), REGULATION_MD).unwrap();
    let idx = tmp.path().join("idx");
    let (r, code) = super::cli::ingest_json(&idx, &[&docs]);
    assert_eq!(code, 0, "{r}");
    let ask = |q: &str| ask_json(&idx, q, &["--no-memory"]).0;
    // Article 9 is not in the document: no other article stands in for it.
    let a = ask("What register does Article 9 of Regulation (XX) 2031/7 require?");
    assert_eq!(a["status"], "no_authoritative_evidence", "{a:#}");
    assert!(
        a["missing_evidence"]
            .to_string()
            .contains("names Article 9"),
        "{a:#}"
    );
    // Article 13's ten days are not Article 12's time limit.
    let a = ask("Within how many days must the operator answer a request under Article 12?");
    assert!(!a["answer"].as_str().unwrap().contains("10 days"), "{a:#}");
    assert_ne!(a["answer_value"]["raw"], "10 days", "{a:#}");
    let outside = a["rejected"].as_array().unwrap().iter().any(|r| {
        r["reason"] == "outside_named_provision" && r["quote"].as_str().unwrap().contains("10 days")
    });
    assert!(
        outside,
        "Article 13 is set aside as outside Article 12: {a:#}"
    );
    for e in a["evidence"].as_array().unwrap() {
        assert!(
            e["provision"].as_str().unwrap().starts_with("Article 12"),
            "{a:#}"
        );
    }
    // Which value binds is read with every value read named (bound 0); the value
    // model's bound is `fitted::a_value_below_the_fitted_bound_is_cited_but_not_named`'s.
    let named = |q: &str| {
        let out = super::cli::attest(&idx)
            .env("ATTEST_MIN_VALUE_PROBABILITY", "0")
            .args(["ask", q, "--json", "--no-memory"])
            .output()
            .unwrap();
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    // Article 20 names Article 5: it answers when Article 5 applies.
    let a = named("From what date does Article 5 apply?");
    assert_eq!(a["answer_value"]["raw"], "1 September 2032", "{a:#}");
    // A provision the question leaves out is not held to.
    let a = named("From what date does the Regulation apply, apart from Article 5?");
    assert_eq!(a["answer_value"]["raw"], "1 March 2032", "{a:#}");
}
