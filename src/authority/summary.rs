//! Summaries beside a ruling. When cited sources state different values for one thing
//! and the corpus holds summaries (FAQ documents) the answer did not cite, the summaries
//! are searched for a sentence stating a value in the same unit about the same thing.
//! Such a sentence is verified like any quote and shown as a side of the ruling,
//! labelled "summary, does not control": an FAQ that still says seven years is seen by
//! the reader and decides nothing.
//!
//! The search stays inside the question's scope and filters: a question limited to
//! statutes gets no FAQ side.

use std::collections::HashSet;

use super::Catalog;
use crate::engine::Engine;
use crate::error::Error;
use crate::evidence::extract::extract;
use crate::evidence::verify::{verify, Reason, RelevanceConfig, Verdict};
use crate::models::cross::Rerank;
use crate::retrieve::{search_in, Mode, Restrict};
use crate::source::SourceType;

/// Chunks of the summaries searched for each question.
pub const SUMMARY_CHUNKS: usize = 4;
/// Summary sides added to one answer, at most (one per document).
pub const MAX_SUMMARY_SIDES: usize = 2;
/// Content-word overlap (numbers aside) with a cited side's quote at or above which a
/// summary sentence is about the same thing. Lower than `rule`'s bar between cited
/// items: a summary says the same thing in plainer words ("keeps your records" for
/// "client records must be retained"), and it must also state a value in the same unit
/// and pass verification for the question.
pub const SUMMARY_SAME_THING: f64 = 0.2;

/// What a difference is about: the unit of its values and the quotes of its sides.
#[derive(Debug, Clone)]
pub struct Difference {
    /// Unit of the values ("year").
    pub unit: String,
    /// Quotes of the cited items that differ.
    pub quotes: Vec<String>,
}

/// Where to look and how to judge.
pub struct Look<'a> {
    /// The question asked.
    pub question: &'a str,
    /// Documents the answer already cites (never searched again).
    pub cited_docs: &'a HashSet<String>,
    /// The question's scope, when it has one.
    pub scope: Option<&'a Restrict>,
    /// Relevance thresholds of verification.
    pub relevance: &'a RelevanceConfig,
    /// The cross-encoder, when used.
    pub reranker: Option<&'a dyn Rerank>,
}

/// Sentences of uncited summary documents, checked verbatim and whole, that state a value
/// about what one of `differences` is about: at most one per document, [`MAX_SUMMARY_SIDES`] in all, most
/// relevant first. Empty when there is no difference or no summary in reach.
pub fn summary_sides(
    engine: &Engine,
    differences: &[Difference],
    look: &Look<'_>,
) -> Result<Vec<Verdict>, Error> {
    if differences.is_empty() {
        return Ok(Vec::new());
    }
    let catalog = Catalog::load(engine)?;
    let docs: HashSet<String> = catalog
        .documents
        .iter()
        .filter(|d| d.source_type.value == SourceType::Faq)
        .filter(|d| !look.cited_docs.contains(&d.doc_id))
        .filter(|d| look.scope.is_none_or(|s| s.doc_ids.contains(&d.doc_id)))
        .map(|d| d.doc_id.clone())
        .collect();
    if docs.is_empty() {
        return Ok(Vec::new());
    }
    let within = Restrict::new(engine, docs)?;
    let hits = search_in(
        engine,
        look.question,
        Mode::Hybrid,
        SUMMARY_CHUNKS,
        Some(&within),
    )?;
    let chunks: Vec<_> = hits
        .hits
        .into_iter()
        .take(SUMMARY_CHUNKS)
        .map(|h| h.chunk)
        .collect();
    let candidates: Vec<_> = extract(engine.store(), &chunks, 0)?
        .into_iter()
        .filter(|c| differences.iter().any(|d| about(&c.quote, d)))
        .collect();
    if candidates.is_empty() {
        return Ok(Vec::new());
    }
    let mut verdicts = verify(
        engine.store(),
        look.question,
        &crate::frame::frame(look.question),
        candidates,
        engine.embedder(),
        look.reranker,
        look.relevance,
    )?;
    // Verbatim and whole, as every quote; the question's relevance bar is not theirs to
    // meet (they are not the answer): being about the thing that differs is.
    verdicts.retain(|v| {
        v.rejected
            .as_ref()
            .is_none_or(|r| r.reason == Reason::DoesNotAddressQuestion)
    });
    for v in &mut verdicts {
        v.rejected = None;
    }
    verdicts.sort_by(|a, b| b.relevance.score.total_cmp(&a.relevance.score));
    let mut seen: HashSet<String> = HashSet::new();
    verdicts.retain(|v| seen.insert(v.candidate.doc_id.clone()));
    verdicts.truncate(MAX_SUMMARY_SIDES);
    Ok(verdicts)
}

/// Whether `quote` states one value in `d`'s unit and speaks of the same thing as one of
/// its sides.
fn about(quote: &str, d: &Difference) -> bool {
    let words = super::rule::thing_words(quote);
    super::rule::states_one_value(quote, &d.unit)
        && d.quotes.iter().any(|q| {
            super::rule::overlap(&words, &super::rule::thing_words(q)) >= SUMMARY_SAME_THING
                && crate::evidence::subject::same_subject(q, quote, false)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diff() -> Difference {
        Difference {
            unit: "year".into(),
            quotes: vec![
                "Client records must be retained for seven years after the last date of service."
                    .into(),
                "Every client record shall be retained for not less than seven (7) years after \
                 the last date of service."
                    .into(),
            ],
        }
    }

    #[test]
    fn a_plainer_restatement_of_the_thing_is_about_it() {
        let faq = "The county keeps your records for at least seven years after your last visit.";
        assert!(about(faq, &diff()));
    }

    #[test]
    fn another_thing_or_another_unit_is_not() {
        let other = "Help with rent usually lasts up to 12 months.";
        assert!(!about(other, &diff()));
        let no_value = "The county keeps your records after your last visit.";
        assert!(!about(no_value, &diff()));
        let unrelated_years = "Staff with five years of experience may supervise interns.";
        assert!(!about(unrelated_years, &diff()));
    }
}
