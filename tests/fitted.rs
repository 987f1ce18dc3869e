//! Fitted relevance and typed abstention through the real binary and bi-encoder: a
//! research paper answers questions worded in another register than its own (the
//! question's framing verbs and degree words are not required of the passage), a
//! question from another field is still turned away, and a question asking for a value of
//! a precise type whose passages state none is not answered.

use serde_json::Value;

use super::ask::ask_json;

const PAPER: &str = "# Learning to Tag Ship Radio Logs with Weak Supervision\n\n\
## Abstract\n\nWe study intent tagging for transcribed ship-to-shore radio calls. We introduce \
two corpora of harbour radio traffic and show that weak labels from port schedules help a \
small tagger.\n\n\
## Introduction\n\nRadio traffic in busy harbours is logged but rarely analysed. Prior work \
BIBREF3 tagged aviation calls; maritime calls differ in vocabulary and turn length BIBREF7 .\n\n\
## Corpora\n\nWe release HarbourCalls and PilotNet. Each of them holds more than 40K \
transcribed utterances, recorded at three ports between 2019 and 2022.\n\n\
## Model\n\nOur tagger is a two-layer bidirectional LSTM over subword embeddings, followed by \
a linear layer over the twelve intent labels. We train it with Adam for 20 epochs.\n\n\
## Results\n\nThe tagger reaches 81.4 macro-F1 on HarbourCalls, 6.2 points above the keyword \
baseline BIBREF12 . Weak labels from port schedules add 2.1 points.\n\n\
## Limitations\n\nWe do not evaluate the tagger on calls in languages other than English.\n";

/// The cited quotes of answer `a`.
fn cited(a: &Value) -> Vec<String> {
    a["evidence"]
        .as_array()
        .map(|e| {
            e.iter()
                .map(|x| x["quote"].as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_paper_answers_in_its_own_words_and_other_fields_and_unstated_types_abstain() {
    let tmp = tempfile::tempdir().unwrap();
    let idx = super::cli::ingested(tmp.path(), &[("paper.md", PAPER)]);
    // The question's verb ("use") frames the ask; the passage states the architecture.
    let (a, code) = ask_json(
        &idx,
        "What architecture does the tagger use?",
        &["--no-memory"],
    );
    assert_eq!(code, 0, "{a}");
    assert!(
        cited(&a).iter().any(|q| q.contains("bidirectional LSTM")),
        "{a}"
    );
    // A question from another field finds no passage about it.
    let (a, code) = ask_json(
        &idx,
        "What government position was held by the actress who starred in the film?",
        &["--no-memory"],
    );
    assert_eq!(code, 1, "{a}");
    assert_eq!(a["status"], "no_authoritative_evidence", "{a}");
    // An amount asked of passages that state none is not answered, and says so.
    let (a, code) = ask_json(
        &idx,
        "How much did the port authority charge for the logging software?",
        &["--no-memory"],
    );
    assert_eq!(code, 1, "{a}");
    assert_eq!(a["status"], "no_authoritative_evidence", "{a}");
    assert!(a["answer_value"].is_null(), "{a}");
}
