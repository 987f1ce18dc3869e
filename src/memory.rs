//! QA memory: an answered question is stored with its question embedding, the corpus
//! version and a fingerprint of every setting that shapes an answer. A stored answer is
//! served only when a fresh run would provably give the same answer:
//!
//! * the question is the same text (spacing aside): a cosine of 0.99 between "must" and
//!   "must **not**" is not the same question, and capitals or wording steer retrieval;
//! * the corpus version is unchanged: a new document may hold new evidence, so after any
//!   ingest that changed the corpus every stored answer is stale and deleted unserved;
//! * the settings fingerprint (models, retrieval, relevance and gate settings, attest
//!   version) is the same;
//! * the question embeddings' cosine is at least `memory_threshold` (a second check),
//!   and every cited quote still stands at its span.
//!
//! Questions with answer choices are not stored (their selection reruns), nor
//! single-step runs or phrased answers.

use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::answer::{Answer, Status};
use crate::error::Error;
use crate::models::dot;
use crate::store::{blob_to_vector, vector_to_blob, Store};

/// Version of the stored entry format; entries of another version are deleted.
const ENTRY_FORMAT: u32 = 2;

/// What the memory stores per question.
#[derive(Serialize, Deserialize)]
struct Entry {
    format: u32,
    key: String,
    fingerprint: String,
    answer: Answer,
}

/// A stored answer that may be served.
pub struct Hit {
    /// The stored answer, marked as a memory hit.
    pub answer: Answer,
    /// Cosine between the two questions.
    pub similarity: f64,
}

/// The memory key of a question: its text with runs of white space made one space.
pub fn question_key(question: &str) -> String {
    question.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn forget(store: &Store, id: i64) {
    if let Err(e) = store.forget(id) {
        tracing::warn!("QA memory: cannot delete a stale entry: {e}");
    }
}

fn quotes_stand(store: &Store, answer: &Answer) -> Result<bool, Error> {
    let mut quotes = crate::store::QuoteChecker::new(store);
    for e in &answer.evidence {
        if !quotes
            .check(&e.doc_id, e.start, e.end, &e.quote, None)?
            .stands()
        {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Look `question` (embedded as `qv`) up in `store`'s memory under settings
/// `fingerprint`; serve only an answer a fresh run would give (see the module docs).
/// Stale entries (another corpus version or entry format) are deleted.
pub fn lookup(
    store: &Store,
    question: &str,
    fingerprint: &str,
    qv: &[f32],
    threshold: f64,
) -> Result<Option<Hit>, Error> {
    let t = Instant::now();
    let now = store.corpus_version()?;
    let key = question_key(question);
    let mut found: Option<(f64, i64, Entry)> = None;
    for (id, vector, version, json) in store.memory_rows()? {
        let entry = match serde_json::from_str::<Entry>(&json) {
            Ok(e) if e.format == ENTRY_FORMAT && version == now => e,
            _ => {
                forget(store, id); // stale: the corpus changed, or an older format
                continue;
            }
        };
        if entry.key != key || entry.fingerprint != fingerprint {
            continue;
        }
        let v = blob_to_vector(&vector);
        let sim = if v.len() == qv.len() {
            dot(qv, &v) as f64
        } else {
            f64::NAN
        };
        if sim >= threshold && found.as_ref().is_none_or(|b| sim > b.0) {
            found = Some((sim, id, entry));
        }
    }
    let Some((similarity, id, entry)) = found else {
        return Ok(None);
    };
    let mut answer = entry.answer;
    if !quotes_stand(store, &answer)? {
        forget(store, id);
        return Ok(None);
    }
    answer.metrics.memory_hit = true;
    answer.metrics.timings_ms.clear();
    answer
        .metrics
        .timings_ms
        .insert("memory".into(), t.elapsed().as_secs_f64() * 1e3);
    Ok(Some(Hit { answer, similarity }))
}

/// The key of an answer in the QA memory.
#[derive(Debug, Clone)]
pub struct MemoryKey {
    /// The question embedding.
    pub vector: Vec<f32>,
    /// The settings fingerprint.
    pub fingerprint: String,
    /// The corpus version read before research began: an answer researched while an
    /// ingest changed the corpus is stored under the version it started from, so it
    /// is stale at once and never served for the new corpus.
    pub corpus_version: u64,
}

/// Remember an answered question under `key` (its vector, settings fingerprint and the
/// corpus version its research started from).
pub fn remember(store: &Store, key: &MemoryKey, answer: &Answer) -> Result<(), Error> {
    if answer.status != Status::Answered {
        return Ok(());
    }
    let entry = Entry {
        format: ENTRY_FORMAT,
        key: question_key(&answer.question),
        fingerprint: key.fingerprint.clone(),
        answer: answer.clone(),
    };
    let json = serde_json::to_string(&entry)
        .map_err(|e| Error::Usage(format!("memory: cannot serialise the answer: {e}")))?;
    store.remember(
        &answer.question,
        &vector_to_blob(&key.vector),
        key.corpus_version,
        &json,
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::answer::Answer;
    use crate::ask::{ask, AskOptions};
    use crate::config::Config;

    #[test]
    fn a_stored_answer_round_trips_through_json() {
        let tmp = tempfile::tempdir().unwrap();
        let e = crate::engine::sample_engine(tmp.path());
        let cfg = Config::default();
        let mut o = AskOptions::from_config(&cfg);
        o.relevance.min_relevance = 0.3;
        let first = ask(&e, "How long must client records be retained?", &o).unwrap();
        let json = serde_json::to_string(&first.answer).unwrap();
        let back: Answer = serde_json::from_str(&json).unwrap();
        assert_eq!(back.answer, first.answer.answer);
        assert_eq!(
            serde_json::to_value(&back.evidence).unwrap(),
            serde_json::to_value(&first.answer.evidence).unwrap()
        );
        let again = ask(&e, "How long must client records be retained?", &o).unwrap();
        assert_eq!(first.answer.status, crate::answer::Status::Answered);
        assert!(
            again.answer.metrics.memory_hit,
            "{:?}",
            again.answer.metrics
        );
        assert_eq!(again.answer.answer, first.answer.answer);
    }
}
