//! Stage 3b, decide: which verified items answer the question's frame.
//!
//! An item *covers* the question when every named thing of the frame is in its quote,
//! label or section (or, for a thing of several words, half of its words there and all of
//! them in the document — a document's title counts), every period of the frame is met
//! the way the period check reads it, and at least one focus word (or named thing) is in
//! its quote, label or section while every focus word occurs somewhere in its document. A
//! value from a document that never mentions what is asked is never its answer.
//!
//! For a typed question (a date, an amount, a telephone number, …) the answer is a value
//! of the expected type inside the quote of a covering item, of the asked bound (a
//! ceiling never answers a minimum), in the asked unit (days are not years) and, for a
//! date of a role (expiry, application, deadline …), next to a word of that role. The
//! first such item, by relevance, leads the answer and its value is `answer_value`; other
//! covering items may follow. With none, the question is not answered and the reason
//! says what is missing. For a free-text question, items that cover at least half of the
//! focus in their own words are kept; the others only share topic words and are dropped.

use std::collections::{HashMap, HashSet};

use super::select::Numbered;

mod bind;
mod boxes;
mod cells;
mod context;
mod cover;
mod excluded;
pub(super) use cover::ItemPeriods;
pub(super) use excluded::set_aside;
mod exempt;
mod fit;
mod rate;
mod role;
mod when;
use crate::engine::Engine;
use crate::evidence::verify::Verdict;
use crate::figure::Bound;
use crate::frame::{AnswerType, Extreme, Frame, UnitFamily};
use crate::value::typed::{self, Found};
use cells::{ambiguous, by_cell, labelled_elsewhere, tabular_row};
use context::{covers, has_word, stems, Context};
use cover::{
    covering, document_text, form_value, heading_of, item_words, meets_periods, names_title,
    tabular,
};
use fit::{clause_around, values, values_with};

/// Supporting items kept after the item that states the value, at most.
pub const MAX_SUPPORT: usize = 3;

/// What the frame makes of the verified items.
#[derive(Debug, Default)]
pub(super) struct Decision {
    /// The item stating the answer's value (its id before renumbering) and the value.
    pub value: Option<(String, Found)>,
    /// The items the answer may cite, in the order they should lead; `None`: all.
    pub keep: Option<Vec<String>>,
    /// Why nothing answers the frame (empty when something does).
    pub unmet: Vec<String>,
    /// For a value read from one cell of a table row: `row × column`.
    pub cell: Option<String>,
    /// What the answer lacks though it stands: a multi-hop chain cited without a value.
    pub note: Vec<String>,
    /// Whether the cited items settle the question without a value (an exemption that
    /// covers the asked case): no further search for one.
    pub settled: bool,
    /// Whether the cited items say that what is asked has not been set ("a replacement
    /// has not yet been named"): the answer cites that statement and names no value.
    pub absent: bool,
}

pub use crate::evidence::verify::SECOND_LOOK_SHARE;

/// The second look of a typed question nothing answered: items verification turned
/// away as off the question only because their relevance fell short (at least
/// [`SECOND_LOOK_SHARE`] of the threshold), whose own quote states a value of the
/// asked type and covers the question by itself — every named thing in the quote, its
/// label, section or title, half of the focus and the head in its own words, the
/// periods met. A sentence that answers a question in other words than the question's
/// ("Submissions shall be less than 5MB" for the maximum submission size) scores low
/// against the whole question yet states exactly what is asked. Returns their ids.
pub(super) fn second_look(
    engine: &Engine,
    f: &Frame,
    n: &Numbered,
    relevance: &crate::evidence::verify::RelevanceConfig,
) -> Vec<String> {
    let mut texts: HashMap<String, std::rc::Rc<String>> = HashMap::new();
    let mut out = Vec::new();
    for (id, v) in &n.ided {
        let floor = relevance.second_look_floor(&v.relevance);
        let off_question = v
            .rejected
            .as_ref()
            .is_some_and(|r| r.reason == crate::evidence::verify::Reason::DoesNotAddressQuestion);
        if !off_question || v.relevance.score < floor {
            continue;
        }
        let c = &v.candidate;
        if values(f, &c.quote).is_empty() || !meets_periods(f, c) {
            continue;
        }
        let own = item_words(c);
        let own_stems = stems(&own);
        let title = stems(&heading_of(
            c,
            &document_text(engine, &mut texts, &c.doc_id),
        ));
        let focus = f.focus.iter().filter(|w| has_word(&own_stems, w)).count();
        let head = f.head.as_deref().is_none_or(|h| has_word(&own_stems, h));
        let named = f.entities.iter().all(|e| {
            crate::text::words(&e.to_lowercase())
                .iter()
                .all(|w| has_word(&own_stems, w) || has_word(&title, w))
        });
        if !(head && named && focus * 2 >= f.focus.len()) {
            continue;
        }
        let document = std::rc::Rc::new(stems(&document_text(engine, &mut texts, &c.doc_id)));
        let cx = Context {
            said: stems(&format!("{own} {}", c.title)),
            own: own_stems,
            raw: own.to_lowercase(),
            tabular: tabular(c),
            form_value: form_value(c),
            chain: None,
            bridge: HashSet::new(),
            title,
            document,
        };
        if covers(f, &cx, true).is_ok() {
            out.push(id.clone());
        }
    }
    out
}

/// Words that name a measure itself: for a quantity of a unit family other than a count,
/// the value's unit says it ("less than 5MB" is a size).
const MEASURE_NOUNS: &[&str] = &[
    "size",
    "length",
    "area",
    "weight",
    "mass",
    "volume",
    "temperature",
    "distance",
    "height",
    "depth",
    "width",
];

/// Frame `f` without the focus words that name its measure, when its answer is a
/// quantity in a unit family other than a count (see [`MEASURE_NOUNS`]).
fn without_measure(f: &Frame) -> Option<Frame> {
    let measured = f.answer_type == AnswerType::Quantity
        && f.unit_family.is_some_and(|u| u != UnitFamily::Count);
    let named = |w: &String| MEASURE_NOUNS.contains(&w.as_str());
    if !measured || !f.focus.iter().any(named) {
        return None;
    }
    let mut g = f.clone();
    g.focus.retain(|w| !named(w));
    if g.head.as_ref().is_some_and(named) {
        g.head = None;
    }
    Some(g)
}

/// A decision that nothing answers, saying `why`.
fn unmet(why: String) -> Decision {
    Decision {
        unmet: vec![why],
        ..Decision::default()
    }
}

/// The decision for a question that asks for no value: the covering items (those that
/// write a numbered or coded thing the question names first, when any does), and the
/// link the first was reached through; or what is missing.
fn unvalued(
    f: &Frame,
    n: &Numbered,
    covering: &[(&String, &Verdict)],
    misses: &[String],
    anything: bool,
) -> Decision {
    if covering.is_empty() && anything {
        return unmet(format!(
            "no verified passage addresses the question itself (what it asks about: {})",
            nothing_said(f, misses)
        ));
    }
    // A question that names a numbered or coded thing ("Step 7", "DE.CM", "objective
    // 3.6") is answered by the items that write it, when any does.
    let marks = marks(f);
    let marked: Vec<&String> = covering
        .iter()
        .filter(|(_, v)| marks.iter().any(|m| writes_mark(&v.candidate.quote, m)))
        .map(|(id, _)| *id)
        .collect();
    let mut keep: Vec<String> = if marked.is_empty() {
        covering.iter().map(|(id, _)| (*id).clone()).collect()
    } else {
        marked.into_iter().cloned().collect()
    };
    // The answer's first item may have been reached through another document that
    // names it (the son's article naming his father's): that link is kept too.
    if let Some(first) = keep.first().cloned() {
        let linked = links(n, &first, &keep);
        keep.extend(linked);
    }
    Decision {
        keep: Some(keep),
        ..Decision::default()
    }
}

/// Decide what answers `f` among `n`'s verified items.
pub(super) fn decide(engine: &Engine, f: &Frame, n: &Numbered, multi_hop: bool) -> Decision {
    boxes::decide(f, n).unwrap_or_else(|| decide_frame(engine, f, n, multi_hop))
}

/// The covering items that state a value of the asked type, each with its first value
/// (the one the question binds to) and how many it states: binding text first, then, for
/// a minimum or a maximum, values stated as one.
fn stated_values<'a>(
    engine: &Engine,
    f: &Frame,
    n: &Numbered,
    covering: &[(&'a String, &'a Verdict)],
) -> Vec<(&'a String, Found, usize)> {
    let stated: Vec<(&'a String, Found, usize)> = covering
        .iter()
        .filter_map(|(id, v)| {
            let c = &v.candidate;
            // A table row's date role is named by its header.
            let heading = c.label.as_deref().filter(|_| tabular(c)).unwrap_or("");
            let mut vs = values_with(f, &c.quote, Some(heading));
            vs.retain(|v| !defined_term(engine, f, &c.doc_id, &c.quote[v.start..v.end]));
            vs.first().map(|x| (*id, x.clone(), vs.len()))
        })
        .collect();
    let mut stated = stated;
    // Asked "when", a date leads before a time limit (which carries its unit): "expires
    // on 1 May 2031" answers "When does the licence expire?" before "renew at least 30
    // days before expiry".
    if f.answer_type == AnswerType::Date {
        stated.sort_by_key(|(_, v, _)| v.unit.is_some());
    }
    // Binding text states the rule: a value it states leads before one read from a
    // recital, an act's head or a note.
    let non_binding =
        crate::authority::label::non_binding_ids(engine, &n.items()).unwrap_or_default();
    stated.sort_by_key(|(id, _, _)| non_binding.contains(*id));
    // A minimum or a maximum is stated as one ("at least 32 bits"): such a value leads
    // before a plain figure of another covering item.
    if let Some(e) = f.extreme {
        let bound = match e {
            Extreme::Min => Bound::Min,
            Extreme::Max => Bound::Max,
        };
        stated.sort_by_key(|(_, v, _)| v.bound != bound);
    }
    stated
}

/// Whether `raw`, read as a name for a "who" question, is a phrase document `doc_id`
/// capitalises as a defined term ("the Project Area"): see
/// [`crate::value::names::common_phrase`].
fn defined_term(engine: &Engine, f: &Frame, doc_id: &str, raw: &str) -> bool {
    if !matches!(f.answer_type, AnswerType::Person | AnswerType::Organisation) {
        return false;
    }
    let mut texts = crate::store::QuoteChecker::new(engine.store());
    texts
        .text(doc_id)
        .ok()
        .flatten()
        .is_some_and(|t| crate::value::names::common_phrase(raw, t))
}

/// [`decide`] for every question but a checkbox's.
fn decide_frame(engine: &Engine, f: &Frame, n: &Numbered, multi_hop: bool) -> Decision {
    let measured = without_measure(f);
    let f = measured.as_ref().unwrap_or(f);
    let (covering, misses, named) = covering(engine, f, n, multi_hop);
    let anything = n.verified().next().is_some();
    if !f.answer_type.is_value() {
        return unvalued(f, n, &covering, &misses, anything);
    }
    let stated = stated_values(engine, f, n, &covering);
    let Some((lead, value, several)) = stated.first().cloned() else {
        return no_value(f, n, &covering, &misses, anything, multi_hop);
    };
    let elsewhere = |lead: &String, value: &Found| {
        n.get(lead)
            .and_then(|v| labelled_elsewhere(engine, f, &v.candidate, value))
    };
    if let Some(why) = ambiguous(f, &covering, &named, &value).or_else(|| elsewhere(lead, &value)) {
        return unmet(why);
    }
    // A row of several values of the type answers with the cell whose row and column
    // the question names (the first covering row that has one).
    let row = |id: &String, several: usize| {
        (several > 1 && tabular_row(f, n, id))
            || n.get(id)
                .is_some_and(|v| super::cell::is_row(engine, &v.candidate))
    };
    let (lead, value) = if row(lead, several) {
        let by_cell = by_cell(engine, f, &covering, lead, multi_hop);
        // No cell answers: a covering passage that is no row and states the value
        // answers instead (the sentence of a summary box beside a figure's table).
        let prose = stated.iter().find(|(id, _, k)| !row(id, *k));
        match prose {
            Some((id, v, _)) if by_cell.value.is_none() && elsewhere(id, v).is_none() => {
                ((*id).clone(), v.clone())
            }
            _ => return by_cell,
        }
    } else {
        (lead.clone(), value)
    };
    if let Some(d) = exemption(f, n, &covering, &lead, &value) {
        return d;
    }
    let mut keep = support(&covering, &lead, multi_hop);
    // The link a value was reached through (its passage does not name what is asked
    // about; the linked one does) is cited with it.
    let reached = n
        .get(&lead)
        .is_some_and(|v| !names_entities(f, &v.candidate));
    if multi_hop || reached {
        keep.extend(links(n, &lead, &keep));
    }
    Decision {
        value: Some((lead, in_asked_unit(f, value))),
        keep: Some(keep),
        ..Decision::default()
    }
}

/// The decision when a covering item exempts the case the question asks about from what
/// the lead's value is stated for (see [`exempt`]): the exemption leads, the value's
/// passage follows, and no value is named.
fn exemption(
    f: &Frame,
    n: &Numbered,
    covering: &[(&String, &Verdict)],
    lead: &String,
    value: &Found,
) -> Option<Decision> {
    let c = &n.get(lead)?.candidate;
    let clause = clause_around(&c.quote, value.start, value.end);
    // What the value's clause says, with what frames its whole document (section, label,
    // title: "University of …" in the question is no group the exemption must name).
    let general = [
        Some(clause),
        c.section.as_deref(),
        c.label.as_deref(),
        Some(c.title.as_str()),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join(" ");
    let own = exempt::exempts(clause) && exempt::exempts_named(f, clause);
    let by = covering.iter().find(|(_, v)| {
        exempt::clauses(&v.candidate.quote)
            .iter()
            .any(|x| exempt::exempts(x) && exempt::covers_asked(f, &general, x))
    });
    let first = match (own, by) {
        (true, _) => lead.clone(),
        (false, Some((id, _))) => (*id).clone(),
        (false, None) => return None,
    };
    let mut keep = vec![first.clone()];
    if first != *lead {
        keep.push(lead.clone());
    }
    Some(Decision {
        keep: Some(keep),
        note: vec![format!(
            "a cited passage exempts the case the question asks about, so no {} applies to it",
            f.answer_type.noun()
        )],
        settled: true,
        ..Decision::default()
    })
}

/// `value` with its normalised form in the unit the question asks in, when that unit and
/// the value's are of one family ("2 t" asked in kg: `2000 kg`); the raw text stays as
/// the quote writes it.
fn in_asked_unit(f: &Frame, mut value: Found) -> Found {
    let asked = f
        .unit
        .as_deref()
        .filter(|_| f.answer_type == AnswerType::Quantity);
    if let Some(to) = asked {
        if let Some(n) = typed::convert(&value.normalised, to) {
            value.unit = Some(to.to_string());
            value.normalised = n;
        }
    }
    value
}

/// The decision when no covering item states a value of the asked type: nothing (no
/// verified item at all), the passages of a multi-hop chain cited with no value claimed,
/// or what is missing.
fn no_value(
    f: &Frame,
    n: &Numbered,
    covering: &[(&String, &Verdict)],
    misses: &[String],
    anything: bool,
    multi_hop: bool,
) -> Decision {
    if !anything {
        return Decision::default();
    }
    if let Some(d) = exempt_alone(f, covering).or_else(|| absent(f, covering)) {
        return d;
    }
    let why = format!(
        "no verified passage states {} for {}",
        f.answer_type.noun(),
        nothing_said(f, misses)
    );
    if let Some(keep) = chain(f, n).filter(|_| multi_hop) {
        return Decision {
            keep: Some(keep),
            note: vec![format!(
                "the passages of the chain are cited and no value is claimed ({why})"
            )],
            ..Decision::default()
        };
    }
    unmet(why)
}

/// The decision when no covering item states a value but one exempts the asked case in
/// a clause naming everything the question asks about: that exemption answers.
fn exempt_alone(f: &Frame, covering: &[(&String, &Verdict)]) -> Option<Decision> {
    let (id, _) = covering.iter().find(|(_, v)| {
        exempt::clauses(&v.candidate.quote)
            .iter()
            .any(|x| exempt::exempts(x) && exempt::covers_asked(f, "", x))
    })?;
    Some(Decision {
        keep: Some(vec![(*id).clone()]),
        note: vec![format!(
            "a cited passage exempts the case the question asks about, so no {} applies to it",
            f.answer_type.noun()
        )],
        settled: true,
        ..Decision::default()
    })
}

/// The decision when a covering item says that what is asked has not been set (see
/// [`exempt::states_absent`]): that statement answers, with no value.
fn absent(f: &Frame, covering: &[(&String, &Verdict)]) -> Option<Decision> {
    let (id, _) = covering.iter().find(|(_, v)| {
        exempt::clauses(&v.candidate.quote)
            .iter()
            .any(|c| exempt::states_absent(f, c))
    })?;
    Some(Decision {
        keep: Some(vec![(*id).clone()]),
        note: vec![format!(
            "the cited passage says that {} has not been set, so no value is named",
            f.head.as_deref().unwrap_or("what is asked")
        )],
        settled: true,
        absent: true,
        ..Decision::default()
    })
}

/// Words before a number that name a numbered thing ("Step 7", "objective 3.6").
const NUMBERED: &[&str] = &[
    "step",
    "quarter",
    "lot",
    "annex",
    "appendix",
    "schedule",
    "tranche",
    "objective",
    "item",
    "line",
    "section",
    "article",
    "part",
    "phase",
    "goal",
    "priority",
    "principle",
    "recommendation",
    "requirement",
    "control",
    "stage",
    "task",
    "question",
    "rule",
    "finding",
    "pillar",
];

/// What names a numbered or coded thing in question `f`, lower case: a figure after a
/// numbered word ("3.6"), a coded name ("de.cm") and a numbered word with its number
/// ("step 7").
fn marks(f: &Frame) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    out.extend(
        f.entities
            .iter()
            .filter(|e| !e.contains(' ') && e.contains('.') && e.chars().any(|c| c.is_uppercase()))
            .map(|e| e.to_lowercase()),
    );
    // A figure after a numbered word ("objective 3.6"), not one naming a document
    // ("Regulation (EU) 2018/1805").
    for p in f.qualifiers.windows(2) {
        if !NUMBERED.contains(&p[0].as_str()) {
            continue;
        }
        if p[1].chars().all(|c| c.is_ascii_digit()) {
            out.push(format!("{} {}", p[0], p[1]));
        } else if f.figures.contains(&p[1]) {
            out.push(p[1].clone());
        }
    }
    out
}

/// Whether `text` writes `mark` as a whole (not "3.6" inside "13.6" or "3.61").
fn writes_mark(text: &str, mark: &str) -> bool {
    let lower = text.to_lowercase();
    lower.match_indices(mark).any(|(i, m)| {
        let before = lower[..i].chars().next_back();
        let after = lower[i + m.len()..].chars().next();
        before.is_none_or(|c| !c.is_alphanumeric() && c != '.')
            && after.is_none_or(|c| !c.is_alphanumeric())
    })
}

/// Documents a chain cites at most.
const MAX_CHAIN_DOCUMENTS: usize = MAX_SUPPORT + 1;

/// For a multi-hop question whose value no passage states in a form read as one: the
/// first verified item of each document (up to [`MAX_CHAIN_DOCUMENTS`]), when the items
/// come from two documents or more and together name every named thing of `f`.
fn chain(f: &Frame, n: &Numbered) -> Option<Vec<String>> {
    let mut docs: HashSet<&str> = HashSet::new();
    let mut keep = Vec::new();
    let mut said = String::new();
    for (id, v) in n.verified() {
        let c = &v.candidate;
        for t in [
            Some(&c.quote),
            c.section.as_ref(),
            c.label.as_ref(),
            Some(&c.title),
        ]
        .into_iter()
        .flatten()
        {
            said.push(' ');
            said.push_str(t);
        }
        if docs.len() < MAX_CHAIN_DOCUMENTS && docs.insert(c.doc_id.as_str()) {
            keep.push(id.clone());
        }
    }
    let said = stems(&said);
    let named = f.entities.iter().all(|e| {
        crate::text::words(&e.to_lowercase())
            .iter()
            .filter(|w| !crate::text::is_stopword(w))
            .all(|w| has_word(&said, w))
    });
    (docs.len() >= 2 && named && !f.entities.is_empty()).then_some(keep)
}

/// The items an answer led by `lead` keeps: `lead`, then up to [`MAX_SUPPORT`] other
/// covering items; a multi-hop answer also keeps the first item of every other document
/// (each link of the chain is how the value was reached).
fn support(covering: &[(&String, &Verdict)], lead: &String, multi_hop: bool) -> Vec<String> {
    let doc = |id: &String| {
        covering
            .iter()
            .find(|(i, _)| *i == id)
            .map(|(_, v)| v.candidate.doc_id.clone())
    };
    let mut docs: HashSet<Option<String>> = HashSet::from([doc(lead)]);
    let mut keep = vec![lead.clone()];
    for (id, v) in covering.iter().filter(|(id, _)| *id != lead) {
        let new_doc = docs.insert(Some(v.candidate.doc_id.clone()));
        if keep.len() <= MAX_SUPPORT || (multi_hop && new_doc) {
            keep.push((*id).clone());
        }
    }
    keep
}

/// Whether candidate `c`'s quote, section, label or title names every word of the
/// frame's named things.
fn names_entities(f: &Frame, c: &crate::evidence::extract::Candidate) -> bool {
    let have = stems(&format!("{} {}", item_words(c), c.title));
    f.entities.iter().all(|e| {
        crate::text::words(&e.to_lowercase())
            .iter()
            .all(|w| has_word(&have, w))
    })
}

/// A multi-hop answer's items `keep` with the first verified item of each other
/// document the research reached that names a thing the question names, or is linked by
/// title to a kept item (the bridge's article, the other compared thing), up to
/// [`MAX_CHAIN_DOCUMENTS`] documents in all: the answer stands on each link.
pub(super) fn with_chain(f: &Frame, n: &Numbered, keep: &mut Vec<String>) {
    let kept: Vec<&crate::evidence::extract::Candidate> = keep
        .iter()
        .filter_map(|id| n.get(id).map(|v| &v.candidate))
        .collect();
    let mut docs: HashSet<String> = kept.iter().map(|c| c.doc_id.clone()).collect();
    let linked = |c: &crate::evidence::extract::Candidate| {
        let own = c.quote.to_lowercase();
        kept.iter()
            .any(|k| names_title(&own, &k.title) || names_title(&k.quote.to_lowercase(), &c.title))
    };
    let mut added = Vec::new();
    for (id, v) in n.verified() {
        if docs.len() >= MAX_CHAIN_DOCUMENTS {
            break;
        }
        let c = &v.candidate;
        let about = names_some_entity(f, c) || linked(c);
        if about && !keep.contains(id) && docs.insert(c.doc_id.clone()) {
            added.push(id.clone());
        }
    }
    keep.extend(added);
}

/// Whether candidate `c`'s quote or title names one of the frame's named things whole.
fn names_some_entity(f: &Frame, c: &crate::evidence::extract::Candidate) -> bool {
    let have = stems(&format!("{} {}", c.quote, c.title));
    f.entities.iter().any(|e| {
        let ws = crate::text::words(&e.to_lowercase());
        !ws.is_empty() && ws.iter().all(|w| has_word(&have, w))
    })
}

/// The verified items of other documents linked to item `lead` (one names the other's
/// document title), the first of each document, not already in `kept`: the other link
/// of a two-step chain ("Kasper Schmeichel is the son of Peter Schmeichel" for a value
/// read in Peter Schmeichel's article).
fn links(n: &Numbered, lead: &str, kept: &[String]) -> Vec<String> {
    let Some(l) = n.get(lead).map(|v| &v.candidate) else {
        return Vec::new();
    };
    let lead_text = l.quote.to_lowercase();
    let mut docs: HashSet<&str> = HashSet::from([l.doc_id.as_str()]);
    let mut out = Vec::new();
    for (id, v) in n.verified() {
        let c = &v.candidate;
        let linked =
            names_title(&c.quote.to_lowercase(), &l.title) || names_title(&lead_text, &c.title);
        if linked && !kept.contains(id) && docs.insert(c.doc_id.as_str()) {
            out.push(id.clone());
        }
    }
    out
}

/// What the question asks about, for a message: its focus and named things, and what
/// the passages lacked most often.
fn nothing_said(f: &Frame, misses: &[String]) -> String {
    let mut about: Vec<String> = f.focus.clone();
    about.extend(f.entities.iter().map(|e| format!("\"{e}\"")));
    about.extend(f.periods.iter().cloned());
    let mut text = if about.is_empty() {
        "the question".to_string()
    } else {
        about.join(" ")
    };
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for m in misses {
        *counts.entry(m.as_str()).or_default() += 1;
    }
    if let Some((m, _)) = counts
        .into_iter()
        .max_by_key(|(m, k)| (*k, std::cmp::Reverse(*m)))
    {
        if m.starts_with('"') || m.starts_with("the period") {
            text.push_str(&format!("; the passages found do not mention {m}"));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::frame;

    #[test]
    fn a_numbered_or_coded_thing_is_written_whole() {
        let f = frame("What is Step 7 of the process, and what does DE.CM name in objective 3.6?");
        let m = marks(&f);
        assert!(m.contains(&"step 7".to_string()) && m.contains(&"de.cm".to_string()));
        assert!(writes_mark("Step 7: Implement Action Plan", "step 7"));
        assert!(!writes_mark("Step 71: Review", "step 7"));
        assert!(!writes_mark("objective 13.6", "3.6") && writes_mark("(3.6)", "3.6"));
        let f = frame("Under Regulation (EU) 2018/1805, what must the authority decide?");
        assert!(marks(&f).is_empty());
        let f = frame("In Figure 1, what is strategic objective 3.6?");
        assert_eq!(marks(&f), ["3.6"]);
    }
}
