//! What a presence requirement is about, and whether a quote shows it: the requirement's
//! focus is the first noun phrase of its text ("an annual third-party penetration test"),
//! passing over the words every requirement uses and, in an index large enough to tell,
//! the words most chunks hold; a quote with its section and label shows it when it names
//! the phrase's head ("test") and one more of its words, or the requirement's category.
//! A quote that only shares topic words ("the monitoring database requires two-factor
//! authentication") is no evidence that the requirement is met.

use crate::answer::EvidenceItem;
use crate::engine::Engine;
use crate::error::Error;
use crate::lexicon::{self, Class};

use super::checklist::{Requirement, ValidationType};

/// Words of requirement texts that say how a requirement is put, not what it asks for:
/// [`Class::ScaffoldRequirement`] (stop words are dropped as well).
fn scaffold(w: &str) -> bool {
    lexicon::is(Class::ScaffoldRequirement, w)
}

/// Chunks an index must hold before the share of chunks holding a word says whether it is
/// common.
const MIN_CHUNKS_FOR_SHARE: usize = 200;
/// Share of chunks above which a word is too common to be a focus term.
const COMMON_SHARE: f64 = 0.2;

/// Words that end the noun phrase a requirement opens with: verbs, prepositions and
/// relative words ("An annual penetration test | of the database | is performed", "The
/// medical release | informs the person …"). Verbs that are also plural nouns ("records",
/// "lists") are left out. The auxiliaries ([`Class::Auxiliary`]) end it too.
const PHRASE_ENDS: &[&str] = &[
    "be",
    "been",
    "being",
    "of",
    "for",
    "to",
    "in",
    "on",
    "at",
    "by",
    "with",
    "from",
    "between",
    "through",
    "within",
    "under",
    "that",
    "which",
    "who",
    "whose",
    "where",
    "when",
    "if",
    "unless",
    "as",
    "informs",
    "describes",
    "states",
    "shows",
    "includes",
    "contains",
    "identifies",
    "specifies",
    "explains",
    "gives",
    "provides",
    "demonstrates",
    "notifies",
    "tells",
];

/// The focus of requirement text `text`: the stems of the first noun phrase that holds a
/// content word (words every requirement uses and, in an index large enough to tell,
/// words most chunks hold, are passed over), its last word the head ("test" of "an annual
/// third-party penetration test"). Empty when the text names nothing.
pub fn terms(engine: &Engine, text: &str) -> Result<Focus, Error> {
    let store = engine.store();
    let total = store.chunk_count()?;
    let mut focus = Focus::default();
    let mut ended = false;
    for w in crate::text::words(&text.to_lowercase()) {
        if PHRASE_ENDS.contains(&w.as_str()) || lexicon::is(Class::Auxiliary, &w) {
            ended |= !focus.terms.is_empty();
            continue;
        }
        // "a signed lease or land use agreement": each coordinate has its head.
        if matches!(w.as_str(), "or" | "and") {
            if !ended {
                focus.close_coordinate();
            }
            continue;
        }
        if crate::text::is_stopword(&w) || scaffold(&w) || w.len() < 3 {
            continue;
        }
        if total >= MIN_CHUNKS_FOR_SHARE {
            let n = store.term_chunk_count(&w)?;
            if n as f64 > COMMON_SHARE * total as f64 {
                continue;
            }
        }
        let stem = crate::text::stem(&w);
        let list = if ended {
            &mut focus.rest
        } else {
            &mut focus.terms
        };
        if !list.contains(&stem) {
            list.push(stem);
        }
    }
    focus.close_coordinate();
    Ok(focus)
}

/// A requirement's focus: the stems of its first noun phrase and the heads of its
/// coordinates ("lease" and "agreement" of "a signed lease or land use agreement").
#[derive(Debug, Clone, Default)]
pub struct Focus {
    /// Every stem of the phrase, in order.
    pub terms: Vec<String>,
    /// The last stem of each coordinate.
    pub heads: Vec<String>,
    /// The stems of the text after the phrase ("right", "revoke", "authorization" of "The
    /// medical release informs the person of the right to revoke the authorization").
    pub rest: Vec<String>,
}

impl Focus {
    /// Marks the last term so far as a coordinate's head.
    fn close_coordinate(&mut self) {
        if let Some(l) = self.terms.last().filter(|l| !self.heads.contains(l)) {
            self.heads.push(l.clone());
        }
    }

    /// Whether every head names a kind of document ("an itemized ledger", "the medical
    /// release"): the phrase then names where the thing required is written, and what
    /// the rest of the text asks is what a passage must show.
    fn names_a_document(&self) -> bool {
        !self.heads.is_empty()
            && self
                .heads
                .iter()
                .all(|h| DOCUMENT_KINDS.contains(&h.as_str()))
    }
}

/// Stems of nouns that name a kind of document.
const DOCUMENT_KINDS: &[&str] = &[
    "release",
    "ledger",
    "report",
    "form",
    "notice",
    "letter",
    "register",
    "record",
    "file",
    "statement",
    "certificate",
    "document",
    "table",
    "list",
    "schedule",
    "filing",
    "return",
    "publication",
    "bulletin",
    "memo",
    "memorandum",
    "minute",
    "log",
    "book",
    "sheet",
];

/// Words of the rest of a requirement a passage must name when its phrase names a
/// document (all of them when there are fewer).
const REST_TERMS: usize = 3;

/// Whether `word` (a stem) meets focus term `term`: the same stem, one the other's start
/// when the shorter has four letters or more ("test", "testing"), or a shared first five
/// letters of two words of six letters or more ("consulted", "consultation").
fn meets(term: &str, word: &str) -> bool {
    let (short, long) = if term.len() <= word.len() {
        (term, word)
    } else {
        (word, term)
    };
    term == word
        || (short.len() >= 4 && long.starts_with(short))
        || (short.len() >= 6 && short.get(..5).is_some() && short.get(..5) == long.get(..5))
}

/// Whether `item` (its quote, section and label) shows `focus`: it names a head and,
/// when the phrase has more words, at least one other; or, when the phrase names a kind
/// of document, [`REST_TERMS`] words of the rest of the requirement.
pub fn covers(item: &EvidenceItem, focus: &Focus) -> bool {
    if focus.terms.is_empty() {
        return true;
    }
    let said = [
        Some(item.quote.as_str()),
        item.section.as_deref(),
        item.label.as_deref(),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join(" ");
    let words = crate::text::content_words(&said);
    let names = |t: &String| words.iter().any(|w| meets(t, w));
    if focus.names_a_document()
        && !focus.rest.is_empty()
        && focus.rest.iter().filter(|t| names(t)).count() >= REST_TERMS.min(focus.rest.len())
    {
        return true;
    }
    let Some(head) = focus.heads.iter().find(|h| names(h)) else {
        return false;
    };
    focus.terms.len() == 1 || focus.terms.iter().any(|t| t != head && names(t))
}

/// Whether `category` names part of focus `terms` ("Stakeholder Consultation" for "local
/// stakeholders"; not "Data Security" for "an annual penetration test"): only then does a
/// passage under that heading speak to the requirement.
fn about_focus(category: &str, focus: &Focus) -> bool {
    crate::text::content_words(category)
        .iter()
        .any(|c| focus.terms.iter().any(|t| meets(t, c)))
}

/// Whether `item` names every content word of `category` ("Stakeholder Consultation").
fn names_category(item: &EvidenceItem, category: &str) -> bool {
    let want = crate::text::content_words(category);
    let said = format!("{} {}", item.quote, item.section.as_deref().unwrap_or(""));
    let words = crate::text::content_words(&said);
    !want.is_empty() && want.iter().all(|t| words.iter().any(|w| meets(t, w)))
}

/// The evidence of presence requirement `req` that shows what it asks for: items that
/// cover the focus of its text or of its accepted evidence, or name its category when
/// that is about the focus. Also
/// returns the text's focus, for the reason when nothing is left.
pub fn shown(
    engine: &Engine,
    req: &Requirement,
    evidence: Vec<EvidenceItem>,
) -> Result<(Vec<EvidenceItem>, Vec<String>), Error> {
    let text = terms(engine, &req.text)?;
    let accepted = match &req.accepted_evidence {
        Some(a) => terms(engine, a)?,
        None => Focus::default(),
    };
    let kept = evidence
        .into_iter()
        .filter(|e| {
            covers(e, &text)
                || (!accepted.terms.is_empty() && covers(e, &accepted))
                || (about_focus(&req.category, &text) && names_category(e, &req.category))
        })
        .collect();
    Ok((kept, text.terms))
}

/// `evidence` of `req` as a presence requirement keeps it: for `document_presence`, only
/// what [`shown`] keeps, with the focus searched for when nothing is left (for the
/// reason); other requirements keep all of it.
pub fn presence(
    engine: &Engine,
    req: &Requirement,
    evidence: Vec<EvidenceItem>,
) -> Result<(Vec<EvidenceItem>, Option<Vec<String>>), Error> {
    if req.validation_type != ValidationType::DocumentPresence || evidence.is_empty() {
        return Ok((evidence, None));
    }
    let (kept, terms) = shown(engine, req, evidence)?;
    let unshown = kept.is_empty().then_some(terms);
    Ok((kept, unshown))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(quote: &str, section: Option<&str>) -> EvidenceItem {
        serde_json::from_value(serde_json::json!({
            "id": "E1", "evidence_key": "k", "doc_id": "d", "source": "s", "title": "t",
            "chunk_id": "c", "quote": quote, "start": 0, "end": quote.len(), "line": 1,
            "section": section, "kind": "statement", "score": 0.5, "step": 1,
            "content_hash": "h"
        }))
        .unwrap()
    }

    /// The focus of the phrase `ws`: its stems, the last one the head.
    fn stems(ws: &[&str]) -> Focus {
        let terms: Vec<String> = ws.iter().map(|w| crate::text::stem(w)).collect();
        let heads = terms.last().cloned().into_iter().collect();
        Focus {
            terms,
            heads,
            rest: Vec::new(),
        }
    }

    #[test]
    fn a_quote_must_name_the_head_and_one_more_focus_word() {
        let t = stems(&["annual", "third", "party", "penetration", "test"]);
        let auth = "Every user of the monitoring database authenticates with two factors, \
                    and the list of users is reviewed annually.";
        assert!(!covers(&item(auth, None), &t));
        assert!(covers(
            &item(
                "A penetration test is run by a third party each year.",
                None
            ),
            &t
        ));
        assert!(covers(
            &item("Penetration testing is done annually.", None),
            &t
        ));
        let s = stems(&["local", "stakeholders"]);
        assert!(covers(
            &item("Meetings were held with local stakeholders.", None),
            &s
        ));
        assert!(!covers(
            &item("Stakeholders may write to the office.", None),
            &s
        ));
        assert!(covers(&item("anything", None), &Focus::default()));
        let lease = Focus {
            terms: stems(&["signed", "lease", "land", "use", "agreement"]).terms,
            heads: vec!["lease".into(), "agreement".into()],
            rest: Vec::new(),
        };
        assert!(covers(
            &item("Land tenure: leasehold, under a lease registered.", None),
            &lease
        ));
        assert!(!covers(&item("Term of lease | 70 years", None), &lease));
        assert!(about_focus("Stakeholder Consultation", &s));
        assert!(!about_focus("Data Security", &t));
        assert!(names_category(
            &item(
                "Two meetings were held in March 2021.",
                Some("5 Stakeholder Consultation")
            ),
            "Stakeholder Consultation"
        ));
    }

    #[test]
    fn a_phrase_naming_a_document_is_shown_by_what_the_rest_asks() {
        let release = Focus {
            terms: stems(&["medical", "release"]).terms,
            heads: vec!["release".into()],
            rest: stems(&[
                "inform",
                "person",
                "right",
                "revoke",
                "authorization",
                "writing",
            ])
            .terms,
        };
        assert!(covers(
            &item(
                "I have the right to revoke this authorization at any time by writing.",
                None
            ),
            &release
        ));
        assert!(!covers(
            &item("This authorization is voluntary.", None),
            &release
        ));
        let test = Focus {
            rest: release.rest.clone(),
            ..stems(&["annual", "penetration", "test"])
        };
        assert!(!covers(
            &item(
                "I have the right to revoke this authorization in writing.",
                None
            ),
            &test
        ));
    }
}
