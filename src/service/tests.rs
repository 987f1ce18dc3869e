use std::sync::Arc;

use super::documents::{ids_under, EvidenceLog};
use super::requests::{AskRequest, SearchRequest, ValidateRequest};
use super::validation::rejection;
use super::{Service, ServiceError};
use crate::evidence::gate::{check_external, GateConfig};

fn service(dir: &std::path::Path) -> Service {
    Service::from_engine(crate::engine::sample_engine(dir), 2).unwrap()
}

fn validate_request(text: &str) -> ValidateRequest {
    serde_json::from_value(serde_json::json!({
        "text": text,
        "evidence": [{"id": "E1", "quote": "Records are kept for seven years."}],
        "support": false,
    }))
    .unwrap()
}

#[test]
fn a_rejection_counts_failing_rules_and_names_each_paragraph() {
    let text = "Records are kept for seven years [E1].\n\nThis second paragraph states a retention rule without citing anything at all here.";
    let known = ["E1".to_string()].into_iter().collect();
    let gate = GateConfig::default();
    let r = check_external(text, &known, &gate);
    assert!(!r.passed);
    let body = rejection(text, &r, &gate);
    let errors = r
        .violations
        .iter()
        .filter(|v| v.severity == crate::evidence::gate::Severity::Error)
        .count();
    assert_eq!(body.violations.len(), errors);
    assert_eq!(
        body.message,
        format!("Report rejected: {errors} citation violations")
    );
    let missing = body
        .violations
        .iter()
        .find(|v| v.kind == "CITATION_MISSING")
        .expect("a paragraph without citations");
    assert!(missing.paragraph.starts_with("This second paragraph"));
    assert_eq!((missing.citation_count, missing.required_count), (0, 1));
    assert_eq!(body.citation_stats.total_citations, 1);
    let json = serde_json::to_value(&body).unwrap();
    assert_eq!(json["citationStats"]["paragraphs"], 2);
    assert!(!json["suggestedActions"].as_array().unwrap().is_empty());
}

#[test]
fn the_evidence_log_forgets_the_oldest_items_beyond_its_capacity() {
    let tmp = tempfile::tempdir().unwrap();
    let s = service(tmp.path());
    let q = AskRequest {
        question: "How long must client records be retained?".into(),
        preset: None,
        chunks: None,
        scope: None,
        no_memory: Some(true),
        ..Default::default()
    };
    let a = s.ask(&q).unwrap().value;
    assert!(!a.evidence.is_empty(), "{:?}", a.status);
    let mut other = a.evidence[0].clone();
    other.evidence_key = "another".into();
    let log = EvidenceLog::new(1);
    log.record(&[a.evidence[0].clone(), other]);
    assert!(log.get("another").is_some());
    assert!(log.get(&a.evidence[0].evidence_key).is_none());
    // The service's own log re-checks what it served.
    let check = s.evidence(&a.evidence[0].evidence_key).unwrap().value;
    assert_eq!(check.status, super::documents::Drift::Holds);
    assert!(matches!(s.evidence("nope"), Err(ServiceError::NotFound(_))));
}

#[test]
fn document_views_give_utf16_offsets_and_refuse_bad_spans() {
    let tmp = tempfile::tempdir().unwrap();
    let s = service(tmp.path());
    let doc = s.documents().unwrap().value[0].clone();
    let text = s.document_text(&doc.doc_id).unwrap().value;
    let (start, end) = (text.len() / 2, text.len() / 2 + 40);
    let start = (start..).find(|&i| text.is_char_boundary(i)).unwrap();
    let end = (end..).find(|&i| text.is_char_boundary(i)).unwrap();
    let v = s
        .document(&doc.doc_id, Some(start), Some(end))
        .unwrap()
        .value;
    let units: Vec<u16> = v.excerpt.encode_utf16().collect();
    assert_eq!(
        String::from_utf16(&units[v.utf16_start..v.utf16_end]).unwrap(),
        v.quote
    );
    assert_eq!(v.quote, &text[start..end]);
    for (a, b) in [(Some(10), Some(5)), (Some(0), Some(text.len() + 1))] {
        assert!(matches!(
            s.document(&doc.doc_id, a, b),
            Err(ServiceError::BadRequest(_))
        ));
    }
    assert!(matches!(
        s.document("missing", None, None),
        Err(ServiceError::NotFound(_))
    ));
}

#[test]
fn scopes_match_indexed_sources_as_whole_path_components() {
    let tmp = tempfile::tempdir().unwrap();
    let s = service(tmp.path());
    let docs = s.documents().unwrap().value;
    let first = &docs[0].source;
    let parent = std::path::Path::new(first)
        .parent()
        .unwrap()
        .to_str()
        .unwrap();
    let run = |scope: &[&str]| {
        let scope: Vec<String> = scope.iter().map(|x| x.to_string()).collect();
        s.run(|e| ids_under(e.store(), &scope))
            .map(|v| v.value.len())
    };
    assert_eq!(run(&[first]).unwrap(), 1);
    assert_eq!(run(&[parent]).unwrap(), docs.len());
    let partial = &first[..first.len() - 3];
    assert!(run(&[partial]).is_err(), "a name prefix is not a directory");
    assert!(run(&["/etc"]).is_err());
    // As `ask --scope` reads them: the root is everything, `./` and `..` are resolved.
    assert_eq!(run(&["/"]).unwrap(), docs.len());
    let dotted = format!("{parent}/./sub/..");
    assert_eq!(run(&[&dotted]).unwrap(), docs.len());
}

#[test]
fn a_search_sees_documents_ingested_after_the_service_opened() {
    let tmp = tempfile::tempdir().unwrap();
    let s = service(tmp.path());
    let q = SearchRequest {
        query: "zanzibar marmalade protocol".into(),
        k: Some(3),
        mode: Some("dense".into()),
        ..Default::default()
    };
    let before = s.search(&q).unwrap();
    let extra = tmp.path().join("extra");
    std::fs::create_dir_all(&extra).unwrap();
    std::fs::write(
        extra.join("z.md"),
        "# Zanzibar\n\nThe zanzibar marmalade protocol applies to every jar.\n",
    )
    .unwrap();
    let cfg = s.config().clone();
    let mut writer =
        crate::engine::Engine::open(cfg, Arc::new(crate::models::HashEmbedder::new(128)), true)
            .unwrap();
    crate::ingest::ingest(
        &mut writer,
        &[extra],
        &crate::ingest::IngestOptions::default(),
    )
    .unwrap();
    let after = s.search(&q).unwrap();
    assert!(after.corpus_version > before.corpus_version);
    assert!(
        after.value.hits[0].chunk.source.ends_with("z.md"),
        "{:?}",
        after.value.hits[0].chunk.source
    );
}

#[test]
fn validation_bounds_texts_and_refuses_repeated_ids() {
    let tmp = tempfile::tempdir().unwrap();
    let s = service(tmp.path());
    let ok = s
        .validate(&validate_request("Records are kept for seven years [E1]."))
        .unwrap();
    assert!(ok.passed && ok.rejection.is_none());
    let long = "word ".repeat(200_000);
    assert!(matches!(
        s.validate(&validate_request(&long)),
        Err(ServiceError::TooLarge(_))
    ));
    let mut twice = validate_request("x [E1]");
    let first = twice.evidence.as_ref().unwrap()[0].clone();
    twice.evidence.as_mut().unwrap().push(first);
    assert!(matches!(
        s.validate(&twice),
        Err(ServiceError::BadRequest(_))
    ));
    let mut nan = validate_request("Records are kept for seven years [E1].");
    nan.thresholds = Some(super::Thresholds {
        min_citations: None,
        min_density: Some(f64::NAN),
    });
    assert!(matches!(s.validate(&nan), Err(ServiceError::BadRequest(_))));
    let text = s.metrics().encode();
    assert!(
        text.contains("evidence_gate_checks_total{result=\"passed\"} 1"),
        "{text}"
    );
}

#[test]
fn a_secret_is_never_shown() {
    let s = crate::config::Secret::new("hunter2");
    assert!(!format!("{s:?}").contains("hunter2"));
    let setting = crate::config::setting("serve_token").unwrap();
    let cfg = crate::config::Config {
        serve_token: s,
        ..Default::default()
    };
    assert!(!format!("{cfg:?}").contains("hunter2"));
    assert_eq!(setting.default_text(), "none (loopback only)");
}

#[test]
fn many_threads_share_two_workers_without_losing_a_request() {
    let tmp = tempfile::tempdir().unwrap();
    let s = Arc::new(service(tmp.path()));
    let handles: Vec<_> = (0..8)
        .map(|i| {
            let s = s.clone();
            std::thread::spawn(move || {
                let q = SearchRequest {
                    query: format!("client records retention {i}"),
                    k: Some(2),
                    mode: None,
                    ..Default::default()
                };
                (0..3)
                    .map(|_| s.search(&q).unwrap().value.hits.len())
                    .sum::<usize>()
            })
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().unwrap(), 6);
    }
    assert_eq!(
        super::lock(&s.workers.pool).idle.len(),
        2,
        "every worker came back"
    );
}
