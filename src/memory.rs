//! QA memory: answered questions are stored in the index with their question embedding;
//! a later question whose embedding has cosine ≥ `memory_threshold` (0.92) with a stored
//! one gets the stored answer, marked `memory_hit`, but only when it is not stale: the
//! corpus version is unchanged, or every cited quote is still verbatim at its span in the
//! current store. A stale memory is deleted and never served. Questions with answer
//! choices are not stored (their selection reruns), nor single-step runs.

use std::time::Instant;

use crate::ask::{Answer, Status};
use crate::error::Error;
use crate::models::dot;
use crate::store::{blob_to_vector, vector_to_blob, Store};

/// A stored answer that may be served.
pub struct Hit {
    /// The stored answer, marked as a memory hit.
    pub answer: Answer,
    /// Cosine between the two questions.
    pub similarity: f64,
}

/// Look `qv` up in `store`'s memory; serve only answers whose quotes still stand.
pub fn lookup(store: &Store, qv: &[f32], threshold: f64) -> Result<Option<Hit>, Error> {
    let t = Instant::now();
    let now = store.corpus_version()?;
    let rows = store.memory_rows()?;
    let mut best: Option<(f64, i64, u64, String)> = None;
    for (id, vector, version, json) in rows {
        let v = blob_to_vector(&vector);
        if v.len() != qv.len() {
            continue;
        }
        let sim = dot(qv, &v) as f64;
        if sim >= threshold && best.as_ref().is_none_or(|b| sim > b.0) {
            best = Some((sim, id, version, json));
        }
    }
    let Some((similarity, id, version, json)) = best else {
        return Ok(None);
    };
    let Ok(mut answer) = serde_json::from_str::<Answer>(&json) else {
        store.forget(id)?;
        return Ok(None);
    };
    if version != now {
        for e in &answer.evidence {
            let text = store.document_text(&e.doc_id)?;
            if text.as_deref().and_then(|t| t.get(e.start..e.end)) != Some(e.quote.as_str()) {
                store.forget(id)?; // stale: a cited quote no longer stands
                return Ok(None);
            }
        }
    }
    answer.metrics.memory_hit = true;
    answer.metrics.timings_ms.clear();
    answer
        .metrics
        .timings_ms
        .insert("memory".into(), t.elapsed().as_secs_f64() * 1e3);
    Ok(Some(Hit { answer, similarity }))
}

/// Remember an answered question.
pub fn remember(store: &Store, qv: &[f32], answer: &Answer) -> Result<(), Error> {
    if answer.status != Status::Answered {
        return Ok(());
    }
    let json = serde_json::to_string(answer)
        .map_err(|e| Error::Usage(format!("memory: cannot serialise the answer: {e}")))?;
    store.remember(
        &answer.question,
        &vector_to_blob(qv),
        store.corpus_version()?,
        &json,
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::ask::{ask, Answer, AskOptions};
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
        assert_eq!(first.answer.status, crate::ask::Status::Answered);
        assert!(
            again.answer.metrics.memory_hit,
            "{:?}",
            again.answer.metrics
        );
        assert_eq!(again.answer.answer, first.answer.answer);
    }
}
