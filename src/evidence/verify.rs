//! Verify: the grounding gate every evidence candidate passes before an answer may use it.
//!
//! 1. **Verbatim**: the document is re-read from the store and `&text[start..end]` must
//!    equal the quote, byte for byte (and the document's content hash must still be the
//!    one extracted from). Never fuzzy.
//! 2. **Complete**: the quote stands on its own (see [`super::extract`]): no unresolved
//!    opening reference, not a bare cross-reference.
//! 3. **Addresses the question**: relevance at or above a threshold. With a cross-encoder
//!    installed, relevance is the sigmoid of its logit for (question, quote). Otherwise it
//!    is the probability of the fitted relevance model ([`super::fitted`]) over the
//!    candidate's signals: the bi-encoder cosine between question and quote, the share of
//!    the question's content words the quote contains (all of them when it states an
//!    identifier the question names, such as `DHAW20190045`), the cosine between question
//!    and the whole chunk the quote came from (the context that makes a sentence about the
//!    question), how far each cosine stands below the question's best candidate, the
//!    chunk's retrieval rank, the quote's length and whether it states a value of the type
//!    asked for. A row, value or short fragment is read with its section title and label;
//!    for a labelled one the label stands in for the chunk when it is closer to the
//!    question. Only the [`RelevanceConfig::embed_budget`] candidates with the best
//!    coverage (ties: earlier chunk, earlier position) are embedded; the rest are not
//!    scored and cannot pass.
//!
//! The model's weights and its threshold (the default `min_relevance`) are fitted by
//! `scripts/fit_relevance.py` on public question sets, the threshold on a validation split
//! (see `docs/fitting.md`).

use serde::{Deserialize, Serialize};

use super::extract::{Candidate, Completeness};
use super::fitted::Features;
use crate::error::Error;
use crate::models::cross::Rerank;
use crate::models::{dot, Embed};
use crate::store::{QuoteAt, QuoteChecker, Store};
use crate::text::content_words;

/// Relevance, as a share of the threshold, from which a candidate turned away as off
/// the question may still be looked at again: its value by the answer's second look,
/// its names by the research loop's bridges.
pub const SECOND_LOOK_SHARE: f64 = 0.75;

/// Thresholds and budget of the relevance check.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RelevanceConfig {
    /// Minimum relevance (the fitted model's probability) without a cross-encoder.
    pub min_relevance: f64,
    /// Minimum relevance (sigmoid of the logit) with a cross-encoder.
    pub min_cross_relevance: f64,
    /// Candidates embedded per question (a latency budget).
    pub embed_budget: usize,
}

impl RelevanceConfig {
    /// The relevance from which a candidate with signals `r`, turned away as off the
    /// question, may still be looked at again ([`SECOND_LOOK_SHARE`] of its threshold).
    pub fn second_look_floor(&self, r: &Relevance) -> f64 {
        let threshold = if r.cross.is_some() {
            self.min_cross_relevance
        } else {
            self.min_relevance
        };
        threshold * SECOND_LOOK_SHARE
    }

    /// The bi-encoder relevance of a candidate with signals `f`: the fitted model's
    /// probability.
    pub fn score(&self, f: &Features) -> f64 {
        super::fitted::model().probability(f)
    }
}

impl Default for RelevanceConfig {
    fn default() -> Self {
        RelevanceConfig {
            min_relevance: super::fitted::model().threshold,
            min_cross_relevance: 0.5,
            embed_budget: 24,
        }
    }
}

/// Why a candidate was rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// The span no longer holds the quote (or the document is gone or changed).
    NotVerbatim,
    /// Relevance below the threshold.
    DoesNotAddressQuestion,
    /// Not self-contained.
    IncompleteQuote,
    /// Outside the provision the question names, and not naming it.
    OutsideNamedProvision,
}

impl Reason {
    /// The name, as the JSON spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::NotVerbatim => "not_verbatim",
            Reason::DoesNotAddressQuestion => "does_not_address_question",
            Reason::IncompleteQuote => "incomplete_quote",
            Reason::OutsideNamedProvision => "outside_named_provision",
        }
    }
}

/// Relevance signals of one candidate.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Relevance {
    /// Bi-encoder cosine between question and quote (`None` when not embedded).
    pub cosine: Option<f64>,
    /// Share of the question's content words found in the quote.
    pub coverage: f64,
    /// Cross-encoder probability, when one scored it.
    pub cross: Option<f64>,
    /// The score the threshold applies to.
    pub score: f64,
    /// The fitted model's inputs, when the bi-encoder scored the candidate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub features: Option<Features>,
}

/// A candidate with its relevance and the verdict.
#[derive(Debug, Clone, Serialize)]
pub struct Verdict {
    /// The candidate.
    #[serde(flatten)]
    pub candidate: Candidate,
    /// Relevance signals.
    pub relevance: Relevance,
    /// `None` when verified; otherwise why not.
    pub rejected: Option<Rejection>,
}

/// Why a candidate failed verification.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Rejection {
    /// The reason code.
    pub reason: Reason,
    /// A rationale a reader can check.
    pub rationale: String,
}

/// Distinct normalised content words of the question.
pub fn question_terms(question: &str) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    content_words(question)
        .into_iter()
        .filter(|w| seen.insert(w.clone()))
        .collect()
}

/// Share of `terms` present in `quote`.
pub fn term_coverage(terms: &[String], quote: &str) -> f64 {
    if terms.is_empty() {
        return 0.0;
    }
    let mut have: std::collections::HashSet<String> = content_words(quote).into_iter().collect();
    // "Rev. March 2024" covers "revision".
    have.extend(content_words(
        &crate::text::expanded_abbreviations(quote).join(" "),
    ));
    terms.iter().filter(|t| have.contains(*t)).count() as f64 / terms.len() as f64
}

/// Identifiers the question names: tokens with a letter and at least four digits
/// (`DHAW20190045`, `C00029447`, `FAA–2020–0686`), lower-cased.
pub fn identifiers(question: &str) -> Vec<String> {
    question
        .split_whitespace()
        .map(|t| {
            t.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .filter(|t| {
            t.chars().any(|c| c.is_ascii_alphabetic())
                && t.chars().filter(char::is_ascii_digit).count() >= 4
        })
        .collect()
}

/// Whether candidate `c` is a labelled table row whose stub (its words before the
/// first figure, "Vandalism" of "Vandalism 217.4 72.7 …") the question names: every
/// content word of the stub is one of the question's `terms`.
fn names_row(terms: &[String], c: &Candidate) -> bool {
    if c.label.is_none() {
        return false;
    }
    let stub: Vec<&str> = c
        .quote
        .split_whitespace()
        .take_while(|w| !w.chars().any(|ch| ch.is_ascii_digit()))
        .collect();
    let words = content_words(&stub.join(" "));
    !words.is_empty()
        && words.len() < c.quote.split_whitespace().count()
        && words.iter().all(|w| terms.contains(w))
}

/// Whether `text` contains one of `ids` as a whole token.
fn names_identifier(ids: &[String], text: &str) -> bool {
    !ids.is_empty()
        && text
            .split_whitespace()
            .map(|t| {
                t.trim_matches(|c: char| !c.is_alphanumeric())
                    .to_lowercase()
            })
            .any(|t| ids.contains(&t))
}

/// Whether `text` states a value of a type frame `f` accepts.
pub fn states_type(f: &crate::frame::Frame, text: &str) -> bool {
    f.answer_type
        .accepts()
        .iter()
        .any(|t| !crate::value::typed::find(text, *t, f.unit_family).is_empty())
}

/// Whether `text` states a value of the precise type frame `f` asks for (a date, an
/// amount, a size — not a bare count or a name, which most text holds) and uses one of
/// the words naming what is asked about: such a quote answers the question in other
/// words than the question's.
pub fn states_asked_value(f: &crate::frame::Frame, text: &str) -> bool {
    if !asks_precise(f) {
        return false;
    }
    let stem = |w: &str| crate::text::stem(&w.to_lowercase());
    let mut have: std::collections::HashSet<String> = crate::text::words(&text.to_lowercase())
        .iter()
        .map(|w| stem(w))
        .collect();
    have.extend(
        crate::text::expanded_abbreviations(text)
            .into_iter()
            .map(stem),
    );
    f.asked_words().iter().any(|w| have.contains(&stem(w))) && states_type(f, text)
}

/// Whether frame `f` asks for a value of a precise type: a date, an amount, a share, a
/// size with a unit, a telephone number or an email address — not a bare count or a
/// name, which most text holds.
pub fn asks_precise(f: &crate::frame::Frame) -> bool {
    use crate::frame::{AnswerType as T, UnitFamily};
    match f.answer_type {
        T::Date
        | T::Period
        | T::Duration
        | T::Time
        | T::Money
        | T::Percentage
        | T::Phone
        | T::Email => true,
        T::Quantity => f.unit_family.is_some_and(|u| u != UnitFamily::Count),
        _ => false,
    }
}

fn sigmoid(x: f32) -> f64 {
    1.0 / (1.0 + (-(x as f64)).exp())
}

/// Verify `candidates` for `question`: verbatim against `store`, complete, and relevant.
/// The verdicts keep the candidates' order.
pub fn verify(
    store: &Store,
    question: &str,
    frame: &crate::frame::Frame,
    candidates: Vec<Candidate>,
    embedder: &dyn Embed,
    reranker: Option<&dyn Rerank>,
    cfg: &RelevanceConfig,
) -> Result<Vec<Verdict>, Error> {
    let terms = question_terms(question);
    let ids = identifiers(question);
    let coverage: Vec<f64> = candidates
        .iter()
        .map(|c| {
            let context = c.context_text();
            if names_identifier(&ids, &context)
                || states_asked_value(frame, &context)
                || names_row(&terms, c)
                || frame.numbers_item(&c.quote)
                || (frame.itself
                    && crate::evidence::extract::in_head(c.line)
                    && states_type(frame, &c.quote))
            {
                // The quote states the very identifier or kind of value asked for, or is
                // the table row or numbered item the question names.
                1.0
            } else {
                term_coverage(&terms, &context)
            }
        })
        .collect();
    let scored = scored_candidates(&candidates, &coverage, cfg.embed_budget);
    let signals = model_signals(question, &candidates, &scored, embedder, reranker)?;
    let features = features(frame, &candidates, &coverage, &signals);
    let mut quotes = QuoteChecker::new(store);
    let mut out = Vec::with_capacity(candidates.len());
    for (((c, coverage), (cosine, cross)), features) in candidates
        .into_iter()
        .zip(coverage)
        .zip(signals)
        .zip(features)
    {
        let score = match (cross, &features) {
            (Some(p), _) => p,
            (None, Some(f)) => cfg.score(f),
            (None, None) => 0.0,
        };
        let relevance = Relevance {
            cosine,
            coverage,
            cross,
            score,
            features,
        };
        let at = quotes.check(&c.doc_id, c.start, c.end, &c.quote, Some(&c.content_hash))?;
        let rejected = judge(&c, at, &relevance, cfg);
        out.push(Verdict {
            candidate: c,
            relevance,
            rejected: rejected.map(|(reason, rationale)| Rejection { reason, rationale }),
        });
    }
    Ok(out)
}

/// The fitted model's inputs per candidate, for those the bi-encoder scored: the cosines
/// (a labelled row or value is read under its label, not amid the whole chunk, so the
/// label stands in for the chunk when it is closer to the question), their gaps to the
/// question's best scored candidate, rank, length and type match.
fn features(
    frame: &crate::frame::Frame,
    candidates: &[Candidate],
    coverage: &[f64],
    signals: &[Signals],
) -> Vec<Option<Features>> {
    let context = |c: &Candidate, cos: f64| match c.label {
        Some(_) => c.chunk_cosine.max(cos),
        None => c.chunk_cosine,
    };
    let scored = || {
        candidates
            .iter()
            .zip(signals)
            .filter_map(|(c, s)| s.0.map(|cos| (c, cos)))
    };
    let best_cosine = scored().map(|(_, cos)| cos).fold(f64::MIN, f64::max);
    let best_context = scored()
        .map(|(c, cos)| context(c, cos))
        .fold(f64::MIN, f64::max);
    candidates
        .iter()
        .zip(coverage)
        .zip(signals)
        .map(|((c, &coverage), s)| {
            let cosine = s.0?;
            let context_cosine = context(c, cosine);
            Some(Features {
                cosine,
                coverage,
                context_cosine,
                cosine_gap: cosine - best_cosine,
                context_gap: context_cosine - best_context,
                chunk_rank: 1.0 / c.chunk_rank.max(1) as f64,
                words: (c.quote.split_whitespace().count().max(1) as f64).ln(),
                type_match: f64::from(u8::from(states_type(frame, &c.quote))),
            })
        })
        .collect()
}

/// Indexes (ascending) of the candidates a model scores: the best by question-term
/// coverage (ties: earlier chunk, earlier position), at most `budget`.
fn scored_candidates(candidates: &[Candidate], coverage: &[f64], budget: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..candidates.len()).collect();
    order.sort_by(|&a, &b| {
        coverage[b]
            .total_cmp(&coverage[a])
            .then(candidates[a].chunk_rank.cmp(&candidates[b].chunk_rank))
            .then(a.cmp(&b))
    });
    order.truncate(budget);
    order.sort_unstable();
    order
}

/// A candidate's bi-encoder cosine and cross-encoder probability (when computed).
type Signals = (Option<f64>, Option<f64>);

/// Per candidate, the bi-encoder cosine and the cross-encoder probability for the
/// candidates in `scored` (one of the two, by whether a reranker is installed; `None`
/// elsewhere).
fn model_signals(
    question: &str,
    candidates: &[Candidate],
    scored: &[usize],
    embedder: &dyn Embed,
    reranker: Option<&dyn Rerank>,
) -> Result<Vec<Signals>, Error> {
    let mut signals = vec![(None, None); candidates.len()];
    let contexts: Vec<std::borrow::Cow<'_, str>> = scored
        .iter()
        .map(|&i| candidates[i].context_text())
        .collect();
    let quotes: Vec<&str> = contexts.iter().map(|c| c.as_ref()).collect();
    if quotes.is_empty() {
        return Ok(signals);
    }
    match reranker {
        Some(rr) => {
            let logits = rr.score(question, &quotes)?;
            for (&i, l) in scored.iter().zip(logits) {
                signals[i].1 = Some(sigmoid(l));
            }
        }
        None => {
            let mut texts = vec![question];
            texts.extend(&quotes);
            let vectors = embedder.embed(&texts)?;
            let Some((qv, quote_vectors)) = vectors.split_first() else {
                return Ok(signals);
            };
            for (&i, v) in scored.iter().zip(quote_vectors) {
                signals[i].0 = Some(dot(qv, v) as f64);
            }
        }
    }
    Ok(signals)
}

/// Why candidate `c` is rejected, if it is: the span check's finding `at`, then
/// completeness, then relevance against the threshold that applies.
fn judge(
    c: &Candidate,
    at: QuoteAt,
    r: &Relevance,
    cfg: &RelevanceConfig,
) -> Option<(Reason, String)> {
    match at {
        QuoteAt::DocumentMissing => Some((
            Reason::NotVerbatim,
            format!(
                "document {} ({}) is no longer in the index",
                c.doc_id, c.source
            ),
        )),
        QuoteAt::QuoteChanged => Some((
            Reason::NotVerbatim,
            format!(
                "bytes {}..{} of {} do not hold the quote",
                c.start, c.end, c.source
            ),
        )),
        QuoteAt::DocumentChanged => Some((
            Reason::NotVerbatim,
            format!("{} changed since the quote was extracted", c.source),
        )),
        QuoteAt::Holds => match &c.completeness {
            Completeness::Incomplete(why) => Some((Reason::IncompleteQuote, why.clone())),
            _ => irrelevance(r, cfg).map(|why| (Reason::DoesNotAddressQuestion, why)),
        },
    }
}

/// The rationale of a relevance below its threshold, or of a candidate no model scored.
fn irrelevance(r: &Relevance, cfg: &RelevanceConfig) -> Option<String> {
    let (min, what) = match r.cross {
        Some(_) => (cfg.min_cross_relevance, "cross-encoder relevance"),
        None => (cfg.min_relevance, "relevance"),
    };
    let scored = r.cosine.is_some() || r.cross.is_some();
    // Fail closed: a NaN score or threshold never passes.
    let passes = r.score >= min && min.is_finite();
    if passes && scored {
        return None;
    }
    let score = r.score;
    Some(match r.cosine.or(r.cross) {
        Some(_) => format!(
            "{what} {score:.3} is below {min:.3} (cosine {}, question terms covered {:.0}%)",
            r.cosine.map_or("-".into(), |c| format!("{c:.3}")),
            r.coverage * 100.0
        ),
        None => format!(
            "not scored by the model: {:.0}% of the question's terms, below the {} best-covering candidates",
            r.coverage * 100.0,
            cfg.embed_budget
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::engine::Engine;
    use crate::evidence::extract::extract;
    use crate::ingest::{ingest, IngestOptions};
    use crate::models::HashEmbedder;
    use crate::retrieve::ChunkView;
    use std::sync::Arc;

    #[test]
    fn an_abbreviation_covers_the_word_it_stands_for() {
        let terms = question_terms("What revision date does the form carry?");
        let short = term_coverage(&terms, "Form (Rev. March 2024)");
        let bare = term_coverage(&terms, "Form (March 2024)");
        assert!(short > bare, "{short} vs {bare}");
    }

    #[test]
    fn identifiers_are_tokens_with_a_letter_and_four_digits() {
        let ids = identifiers("What amount was paid under document DHAW20190045 in 2019?");
        assert_eq!(ids, vec!["dhaw20190045".to_string()]);
        assert!(names_identifier(
            &ids,
            "DHAW20190045 07/10/2019 CITIBANK 1,112.00"
        ));
        assert!(!names_identifier(&ids, "DHAW20190046 07/11/2019"));
        assert!(identifiers("Is IL-6 raised in 1.5-fold of 2015 cases?").is_empty());
    }

    /// A threshold between the candidate holding every question term and the one holding
    /// none (the hashing embedder's cosines are arbitrary), checking that they are ordered.
    fn between(e: &Engine, q: &str, cands: &[Candidate]) -> f64 {
        let probe = verify(
            e.store(),
            q,
            &crate::frame::frame(q),
            cands.to_vec(),
            e.embedder(),
            None,
            &RelevanceConfig::default(),
        )
        .unwrap();
        let score = |needle: &str| {
            probe
                .iter()
                .find(|x| x.candidate.quote.contains(needle))
                .map_or(f64::NAN, |x| x.relevance.score)
        };
        let (on, off) = (score("retained for seven years"), score("Parking permits"));
        assert!(on > off, "{on} vs {off}");
        (on + off) / 2.0
    }

    #[test]
    fn each_rejection_reason_is_found_and_explained() {
        let tmp = tempfile::tempdir().unwrap();
        let doc = tmp.path().join("policy.md");
        std::fs::write(
            &doc,
            "# Records\n\nClient records must be retained for seven years after the last service.\n\n\
             This applies to billing records as well.\n\nSee § 5899(b) of the Act.\n\n\
             Parking permits for staff are renewed every spring by the facilities office.\n",
        )
        .unwrap();
        let cfg = Config {
            index: tmp.path().join("idx"),
            ..Config::default()
        };
        let mut e = Engine::open(cfg, Arc::new(HashEmbedder::new(128)), true).unwrap();
        ingest(
            &mut e,
            std::slice::from_ref(&doc),
            &IngestOptions::default(),
        )
        .unwrap();
        let rows = e
            .store()
            .chunks_by_ids(&e.store().chunk_row_ids().unwrap())
            .unwrap();
        let chunks: Vec<ChunkView> = rows.iter().map(ChunkView::from).collect();
        let mut cands = extract(e.store(), &chunks, 1).unwrap();
        for c in cands.iter_mut() {
            c.chunk_cosine = 0.5;
        }
        // A forged candidate whose quote is not what the span holds.
        let mut forged = cands[0].clone();
        forged.quote = forged.quote.replace("seven", "ten");
        cands.push(forged);
        let q = "How long must client records be retained?";
        let cfg = RelevanceConfig {
            min_relevance: between(&e, q, &cands),
            ..RelevanceConfig::default()
        };
        let v = verify(
            e.store(),
            q,
            &crate::frame::frame(q),
            cands,
            e.embedder(),
            None,
            &cfg,
        )
        .unwrap();
        let reason = |needle: &str| {
            v.iter()
                .find(|x| x.candidate.quote.contains(needle))
                .map(|x| x.rejected.as_ref().map(|r| r.reason))
                .unwrap_or_else(|| panic!("no candidate with {needle:?}"))
        };
        assert_eq!(reason("retained for seven years"), None, "verified");
        assert_eq!(reason("retained for ten years"), Some(Reason::NotVerbatim));
        assert_eq!(reason("See § 5899(b)"), Some(Reason::IncompleteQuote));
        assert_eq!(
            reason("Parking permits"),
            Some(Reason::DoesNotAddressQuestion)
        );
        for x in &v {
            if let Some(r) = &x.rejected {
                assert!(!r.rationale.is_empty());
            }
        }
        // "This applies …" depends on the sentence before; a blank line separates them,
        // so it cannot be resolved: incomplete.
        assert_eq!(reason("This applies"), Some(Reason::IncompleteQuote));
    }
}
