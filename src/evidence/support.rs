//! The support check: is a sentence that is not itself a verbatim quote supported by the
//! evidence it cites? Two signals: content-word coverage (the share of the sentence's
//! content words found in the cited texts) and embedding similarity (the best cosine
//! between the sentence and any sentence of the cited texts). A sentence is supported
//! when both reach their thresholds, and it states no figure and no negation its cited
//! texts do not ([`super::claims`]: checked first, without the model).
//!
//! Default thresholds (coverage ≥ 0.40, similarity ≥ 0.66) were calibrated with
//! `attest eval attribution` on AttributionBench dev
//! (`../shared/data/attributionbench/dev.jsonl`, 1,198 balanced claims, all-MiniLM-L6-v2):
//! the grid point (coverage step 0.05, similarity step 0.02) with the best macro-F1, 0.688.

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use super::gate::{strip_citations, Severity, Violation, ViolationKind};
use crate::corpus::segment::sentences;
use crate::models::{dot, Embed, ModelError};
use crate::text::content_words;

/// Thresholds of the support check.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SupportConfig {
    /// Minimum share of the sentence's content words present in the cited texts.
    pub min_coverage: f64,
    /// Minimum best cosine between the sentence and a cited sentence.
    pub min_similarity: f64,
}

impl Default for SupportConfig {
    fn default() -> Self {
        SupportConfig {
            min_coverage: 0.40,
            min_similarity: 0.66,
        }
    }
}

/// The two signals for one sentence.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SupportFeatures {
    /// Share of content words found in the cited texts (1 when there are none).
    pub coverage: f64,
    /// Best cosine with a cited sentence.
    pub similarity: f64,
}

impl SupportFeatures {
    /// Whether both signals reach `cfg`.
    pub fn supported(&self, cfg: &SupportConfig) -> bool {
        self.coverage >= cfg.min_coverage && self.similarity >= cfg.min_similarity
    }
}

/// Share of `claim`'s distinct content words that occur in `sources`.
pub fn coverage(claim: &str, sources: &[&str]) -> f64 {
    let claim: HashSet<String> = content_words(claim).into_iter().collect();
    if claim.is_empty() {
        return 1.0;
    }
    let have: HashSet<String> = sources.iter().flat_map(|s| content_words(s)).collect();
    claim.iter().filter(|w| have.contains(*w)).count() as f64 / claim.len() as f64
}

/// The texts whose embeddings the similarity signal compares a claim with: every
/// sentence of every source.
pub fn source_sentences<'a>(sources: &[&'a str]) -> Vec<&'a str> {
    sources
        .iter()
        .flat_map(|s| sentences(s).into_iter().map(move |sp| sp.slice(s)))
        .collect()
}

/// Both signals for `claim` against `sources`.
pub fn features(
    embedder: &dyn Embed,
    claim: &str,
    sources: &[&str],
) -> Result<SupportFeatures, ModelError> {
    let sents = source_sentences(sources);
    let mut texts = vec![claim];
    texts.extend(&sents);
    let v = embedder.embed(&texts)?;
    Ok(features_from(&v[0], &v[1..], claim, sources))
}

/// Both signals from precomputed embeddings (`claim_vec`, and one vector per source
/// sentence as [`source_sentences`] lists them).
pub fn features_from(
    claim_vec: &[f32],
    sentence_vecs: &[Vec<f32>],
    claim: &str,
    sources: &[&str],
) -> SupportFeatures {
    let similarity = sentence_vecs
        .iter()
        .map(|s| dot(claim_vec, s) as f64)
        .fold(0.0, f64::max);
    SupportFeatures {
        coverage: coverage(claim, sources),
        similarity,
    }
}

/// Whitespace collapsed, for comparing a sentence with a quote.
fn flat(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A cited sentence of a text, as the support check sees it.
struct CitedSentence {
    paragraph: usize,
    text: String,
    body: String,
    ids: Vec<String>,
}

fn cited_sentences(text: &str) -> Vec<CitedSentence> {
    let mut out = Vec::new();
    let paragraphs = text.split("\n\n").map(str::trim).filter(|p| !p.is_empty());
    for (pi, p) in paragraphs.enumerate() {
        for (sent, ids) in super::gate::cited_units(p) {
            if ids.is_empty() {
                continue;
            }
            let body = flat(&strip_citations(sent));
            let body = body
                .trim_end_matches(['.', ';', ':', ',', '!', '?'])
                .trim()
                .to_string();
            // A yes/no reply ("Yes [E1].") names the item that decides it and states
            // nothing of its own to check (see `research::reply`).
            if body == "Yes" || body == "No" {
                continue;
            }
            out.push(CitedSentence {
                paragraph: pi + 1,
                text: sent.to_string(),
                body,
                ids,
            });
        }
    }
    out
}

/// Whether `body` is a part of a quote it cites that keeps the quote's polarity
/// ([`super::claims::faithful_part`]): such a sentence needs no further check.
fn verbatim_in(body: &str, ids: &[String], quotes: &HashMap<String, Option<String>>) -> bool {
    ids.iter().any(|id| {
        quotes.get(id).and_then(|q| q.as_deref()).is_some_and(|q| {
            super::claims::faithful_part(&flat(&super::gate::neutralise_markers(q)), body)
        })
    })
}

/// The model-free checks of one cited sentence: a figure or a negation its cited quotes
/// do not state (see [`super::claims`]).
fn contradicted(s: &CitedSentence, quotes: &HashMap<String, Option<String>>) -> Option<Violation> {
    let sources: Vec<&str> = s
        .ids
        .iter()
        .filter_map(|id| quotes.get(id).and_then(|q| q.as_deref()))
        .collect();
    if sources.is_empty() {
        return None;
    }
    let (kind, why) = super::claims::contradiction(&s.body, &sources)?;
    Some(Violation {
        kind: kind.kind(),
        paragraph: Some(s.paragraph),
        sentence: Some(s.text.clone()),
        message: format!("contradicts what it cites ({}): {why}", s.ids.join(", ")),
        severity: Severity::Error,
    })
}

/// The model-free part of [`check_text`]: every cited sentence that is not a verbatim
/// part of a quote it cites must state no figure and no negation its quotes do not.
pub fn check_claims(text: &str, quotes: &HashMap<String, Option<String>>) -> Vec<Violation> {
    cited_sentences(text)
        .iter()
        .filter(|s| !s.body.is_empty() && !verbatim_in(&s.body, &s.ids, quotes))
        .filter_map(|s| contradicted(s, quotes))
        .collect()
}

/// Whether some cited sentence of `text` is not a verbatim part of a quote it cites (so
/// the support check needs the bi-encoder).
pub fn needs_model(text: &str, quotes: &HashMap<String, Option<String>>) -> bool {
    cited_sentences(text).iter().any(|s| {
        !s.body.is_empty()
            && !verbatim_in(&s.body, &s.ids, quotes)
            && s.ids
                .iter()
                .any(|id| quotes.get(id).is_some_and(|q| q.is_some()))
    })
}

/// The support check over a text: every cited sentence that is not a verbatim part of a
/// quote it cites must be supported by the quotes it cites. Violations:
/// `unsupported_sentence` (an error: signals below `cfg`) and `unverifiable_citation` (a
/// warning: a cited item has no quote, so the sentence could not be checked). Unknown ids
/// are the gate's business and are skipped here.
pub fn check_text(
    text: &str,
    quotes: &HashMap<String, Option<String>>,
    embedder: &dyn Embed,
    cfg: &SupportConfig,
) -> Result<Vec<Violation>, ModelError> {
    let mut out = Vec::new();
    for s in cited_sentences(text) {
        if s.body.is_empty() || verbatim_in(&s.body, &s.ids, quotes) {
            continue;
        }
        if let Some(v) = contradicted(&s, quotes) {
            out.push(v);
            continue;
        }
        let known: Vec<&String> = s.ids.iter().filter(|id| quotes.contains_key(*id)).collect();
        let no_quote: Vec<&str> = known
            .iter()
            .filter(|id| quotes[**id].is_none())
            .map(|id| id.as_str())
            .collect();
        if !no_quote.is_empty() {
            out.push(Violation {
                kind: ViolationKind::UnverifiableCitation,
                paragraph: Some(s.paragraph),
                sentence: Some(s.text.clone()),
                message: format!(
                    "cites {} without a \"quote\" in the evidence file; support cannot be checked",
                    no_quote.join(", ")
                ),
                severity: Severity::Warning,
            });
            continue;
        }
        let sources: Vec<&str> = known
            .iter()
            .filter_map(|id| quotes[*id].as_deref())
            .collect();
        if sources.is_empty() {
            continue;
        }
        let f = features(embedder, &s.body, &sources)?;
        if !f.supported(cfg) {
            out.push(Violation {
                kind: ViolationKind::UnsupportedSentence,
                paragraph: Some(s.paragraph),
                sentence: Some(s.text.clone()),
                message: format!(
                    "not supported by what it cites: content words covered {:.2} (min {:.2}), best sentence similarity {:.2} (min {:.2})",
                    f.coverage, cfg.min_coverage, f.similarity, cfg.min_similarity
                ),
                severity: Severity::Error,
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::HashEmbedder;

    #[test]
    fn coverage_counts_distinct_content_words_with_light_normalisation() {
        let src = ["Counties must retain client records for seven years."];
        assert_eq!(
            coverage("Client records are retained seven years", &src),
            1.0
        );
        let c = coverage("Client records are destroyed after ten years", &src);
        assert!((c - 3.0 / 5.0).abs() < 1e-12, "{c}");
        assert_eq!(coverage("the of and", &src), 1.0);
    }

    #[test]
    fn a_yes_or_no_reply_states_nothing_to_check_but_its_sentence_does() {
        let e = HashEmbedder::new(256);
        let quotes: HashMap<String, Option<String>> = [(
            "E1".to_string(),
            Some("The annotators did not receive any payment.".to_string()),
        )]
        .into_iter()
        .collect();
        let text = "No [E1].\n\nThe annotators did not receive any payment [E1].";
        let v = check_text(text, &quotes, &e, &SupportConfig::default()).unwrap();
        assert!(v.is_empty(), "{v:?}");
        let forged = "No [E1].\n\nThe annotators received a large payment [E1].";
        let v = check_text(forged, &quotes, &e, &SupportConfig::default()).unwrap();
        assert!(!v.is_empty());
    }

    #[test]
    fn supported_needs_both_signals() {
        let e = HashEmbedder::new(256);
        let src = [
            "Counties must retain client records for seven years.",
            "Crisis calls need follow-up.",
        ];
        let yes = features(&e, "Counties retain client records for seven years.", &src).unwrap();
        let no = features(&e, "Housing payments go to landlords monthly.", &src).unwrap();
        let cfg = SupportConfig::default();
        assert!(yes.supported(&cfg), "{yes:?}");
        assert!(!no.supported(&cfg), "{no:?}");
        assert!(yes.similarity > no.similarity);
    }

    #[test]
    fn verbatim_sentences_pass_and_paraphrases_need_support() {
        let e = HashEmbedder::new(256);
        let quotes: HashMap<String, Option<String>> = [
            (
                "E1".to_string(),
                Some("Counties must retain client records for seven years.".to_string()),
            ),
            ("E2".to_string(), None),
        ]
        .into_iter()
        .collect();
        let cfg = SupportConfig::default();
        let verbatim = "Counties must retain client records for seven years [E1].";
        assert!(!needs_model(verbatim, &quotes));
        assert!(check_text(verbatim, &quotes, &e, &cfg).unwrap().is_empty());
        let off = "Housing payments go to landlords every month [E1].";
        assert!(needs_model(off, &quotes));
        let v = check_text(off, &quotes, &e, &cfg).unwrap();
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].kind, ViolationKind::UnsupportedSentence);
        let close = "Counties retain client records for seven years [E1].";
        assert!(check_text(close, &quotes, &e, &cfg).unwrap().is_empty());
        let v = check_text("Records are kept for a long time [E2].", &quotes, &e, &cfg).unwrap();
        assert_eq!(v[0].kind, ViolationKind::UnverifiableCitation);
        assert_eq!(v[0].severity, Severity::Warning);
        assert!(!needs_model(
            "Records are kept for a long time [E2].",
            &quotes
        ));
    }

    #[test]
    fn a_part_that_drops_a_negation_is_checked_and_fails() {
        let quotes: HashMap<String, Option<String>> = [
            (
                "E1".to_string(),
                Some("Never post your access code online.".to_string()),
            ),
            (
                "E2".to_string(),
                Some("No member may bring more than two guests.".to_string()),
            ),
        ]
        .into_iter()
        .collect();
        for text in [
            "post your access code online [E1].",
            "member may bring more than two guests [E2].",
        ] {
            assert!(needs_model(text, &quotes), "{text}");
            let v = check_claims(text, &quotes);
            assert_eq!(v.len(), 1, "{text}: {v:?}");
            assert_eq!(v[0].kind, ViolationKind::PolarityMismatch);
        }
        let whole = "Never post your access code online [E1].";
        assert!(!needs_model(whole, &quotes));
        assert!(check_claims(whole, &quotes).is_empty());
    }
}
