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
mod exempt;
mod rate;
mod role;
mod when;
use crate::engine::Engine;
use crate::evidence::verify::Verdict;
use crate::figure::Bound;
use crate::frame::{AnswerType, Extreme, Frame, UnitFamily};
use crate::lexicon::{self, Class};
use crate::value::typed::{self, Found};

/// Focus words from which a question is long: half of them in a passage's document
/// suffice.
const LONG_FOCUS: usize = 4;

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

/// The words of `text`, lower case, as stems.
fn stems(text: &str) -> HashSet<String> {
    let mut out: HashSet<String> = crate::text::words(&text.to_lowercase())
        .iter()
        .map(|w| crate::text::stem(w))
        .collect();
    // "Rev. March 2024" names a revision.
    out.extend(
        crate::text::expanded_abbreviations(text)
            .into_iter()
            .map(crate::text::stem),
    );
    out
}

/// Whether `word` is among `have`, read loosely (the stem, or a shared first five letters
/// of words of six letters or more).
fn has_word(have: &HashSet<String>, word: &str) -> bool {
    // "four-year": each part, as the text's words are split at hyphens.
    if word.contains('-') {
        let parts: Vec<&str> = word.split('-').filter(|p| !p.is_empty()).collect();
        if parts.len() > 1 {
            return parts.iter().all(|p| has_word(have, p));
        }
    }
    let lower = word.to_lowercase();
    let s = crate::text::stem(&lower);
    have.contains(&s)
        || crate::text::stem_forms(&lower)
            .iter()
            .any(|f| have.contains(f))
        || (s.len() >= 6 && {
            let p = &s[..s.char_indices().nth(5).map_or(s.len(), |(i, _)| i)];
            have.iter().any(|h| h.starts_with(p))
        })
}

/// The words an item says itself (quote, label, section) and its document's words.
struct Context {
    own: HashSet<String>,
    /// The words of the quote, label, section and title: what the item says about
    /// itself, without the text before it.
    said: HashSet<String>,
    /// The item's own text as written, lower case.
    raw: String,
    /// Whether the item is a table row or a form value (see [`tabular`]).
    tabular: bool,
    /// Whether the item is a form's value under its printed label (no table row): the
    /// label, not the document, names what the value is.
    form_value: bool,
    /// For a multi-hop question, the words every verified item says itself.
    chain: Option<std::rc::Rc<HashSet<String>>>,
    /// The words of the verified items of other documents that name this item's
    /// document by its title, or whose title this item names (a bridge: "based in
    /// Southaven" → the Southaven article).
    bridge: HashSet<String>,
    title: HashSet<String>,
    document: std::rc::Rc<HashSet<String>>,
}

/// The first named thing of `f` that the item with context `cx` does not name, when that
/// makes it miss (with `either`, naming one of them suffices).
fn unnamed(f: &Frame, cx: &Context) -> Option<String> {
    // The first named thing the item does not name; with `either`, one named suffices.
    let mut unnamed: Option<String> = None;
    for e in &f.entities {
        let ws: Vec<String> = crate::text::words(&e.to_lowercase());
        let here = ws
            .iter()
            .filter(|w| has_word(&cx.own, w) || has_word(&cx.title, w))
            .count();
        let doc = ws.iter().all(|w| {
            has_word(&cx.document, w) || has_word(&cx.title, w) || misspelt(&cx.document, w)
        });
        // A table row or a form value names its column or caption elsewhere in its
        // document (see `tabular`); prose names what it is about itself.
        // Through a bridge (a multi-hop question), another verified item may name it.
        let chained = cx
            .chain
            .as_ref()
            .is_some_and(|c| ws.iter().all(|w| has_word(c, w)))
            || (!cx.bridge.is_empty() && ws.iter().all(|w| has_word(&cx.bridge, w)));
        // A code ("B-2", "Unit 4") is named by writing it whole: its "2" in another
        // figure ("2.5 t/yr") does not name it.
        let lower = e.to_lowercase();
        let codes_written = lower
            .split_whitespace()
            .filter(|t| t.contains(|ch: char| ch.is_ascii_digit()))
            .all(|t| writes_mark(&cx.raw, t));
        let ok = if cx.tabular || chained {
            doc || chained
        } else if !codes_written {
            false
        } else if ws.len() <= 1 {
            here == ws.len()
        } else {
            doc && here * 2 >= ws.len()
        };
        if ok && f.either {
            unnamed = None;
            break;
        }
        if !ok && unnamed.is_none() {
            unnamed = Some(format!("\"{e}\""));
        }
        if !ok && !f.either {
            break;
        }
    }
    unnamed
}

/// Letters from which a word of a name may be misspelt by one letter left out or
/// added ("Apatim" for "Apratim").
const MISSPELT_LETTERS: usize = 6;

/// Whether some word of `have` is `word` with one letter more or one less (both of
/// [`MISSPELT_LETTERS`] letters or more).
fn misspelt(have: &HashSet<String>, word: &str) -> bool {
    let w: Vec<char> = word.to_lowercase().chars().collect();
    let one_more = |long: &[char], short: &[char]| {
        long.len() == short.len() + 1
            && (0..long.len()).any(|i| long[..i] == short[..i] && long[i + 1..] == short[i..])
    };
    w.len() >= MISSPELT_LETTERS - 1
        && have.iter().any(|h| {
            let h: Vec<char> = h.chars().collect();
            h.len().min(w.len()) >= MISSPELT_LETTERS - 1
                && h.len().max(w.len()) >= MISSPELT_LETTERS
                && (one_more(&h, &w) || one_more(&w, &h))
        })
}

/// Whether the item with context `cx` covers the frame's named things and focus; the
/// first unmet requirement otherwise.
fn covers(f: &Frame, cx: &Context, half_focus: bool) -> Result<(), String> {
    if let Some(m) = unnamed(f, cx)
        .or_else(|| cx.form_value.then(|| unlabelled(f, cx)).flatten())
        .or_else(|| contrasted(f, cx))
    {
        return Err(m);
    }
    if !f.answer_type.is_value() && f.numbers_item(&cx.raw) {
        return Ok(());
    }
    // A value question's head ("tuition") is named by the item itself, not only by the
    // text before it (the row above, another sentence).
    if let Some(h) = f.head.as_deref().filter(|_| f.answer_type.is_value()) {
        if !has_word(&cx.said, h) && cx.chain.is_none() {
            return Err(format!("\"{h}\""));
        }
    }
    // A value is read from prose that words the asked case itself: the text before a
    // quote may be a sibling's ("less than 64 bits" of look-up secrets after a sentence
    // on memorized secrets).
    let words = if f.answer_type.is_value() && !cx.tabular && cx.chain.is_none() {
        &cx.said
    } else {
        &cx.own
    };
    let own = f.focus.iter().filter(|w| has_word(words, w)).count();
    // A focus word the document never uses is missing — unless the item is prose whose
    // own words cover half the focus (the question then only words it differently).
    // A long question (a chain of clauses) names its answer's passage by some of its
    // words only: half of its focus must be in the document, the rest may be scaffold.
    let long = f.focus.len() >= LONG_FOCUS && !cx.tabular;
    // A composite question about named things, whose prose item names them all itself:
    // the rest of the description may be stated by passages about the other things.
    let named = f.composite && !cx.tabular && names_all(f, cx);
    if !named && (cx.tabular || own * 2 < f.focus.len().max(1)) {
        // The head of a question asking for a thing by its kind ("which actor", "what
        // nickname") is met by a passage naming one, in words other than the kind's.
        let kind = |w: &String| !f.answer_type.is_value() && f.head.as_ref() == Some(w);
        let absent: Vec<&String> = f
            .focus
            .iter()
            .filter(|w| !has_word(&cx.document, w) && !has_word(&cx.title, w) && !kind(w))
            .collect();
        if let Some(w) = absent
            .first()
            .filter(|_| !long || absent.len() * 2 > f.focus.len())
        {
            return Err(format!("\"{w}\""));
        }
    }
    let entity_here = f.entities.iter().any(|e| {
        crate::text::words(&e.to_lowercase())
            .iter()
            .any(|w| has_word(&cx.own, w))
    });
    let figure_here = f.figures.iter().any(|x| cx.raw.contains(x.as_str()));
    let anchored =
        own > 0 || entity_here || figure_here || (f.focus.is_empty() && f.entities.is_empty());
    // A table row names its columns elsewhere: the focus in its document suffices.
    // Prose stating a value words half of what is asked itself (or names every named
    // thing): one shared word ("secret") does not make a sentence about look-up secrets
    // answer a question about memorized ones.
    let valued = f.answer_type.is_value() && cx.chain.is_none() && cx.bridge.is_empty();
    let enough = (!half_focus && !valued)
        || cx.tabular
        || named
        || kind_only(f, cx)
        || f.focus.is_empty()
        || own * 2 >= f.focus.len()
        || (valued && names_all(f, cx));
    if anchored && enough {
        Ok(())
    } else {
        Err(f.focus.join(" "))
    }
}

/// What a form value's label lacks, when it does not word the question: every named
/// thing and half the focus ("8. Cash on Hand at Close …" is no total disbursement),
/// and "total" when a total is asked ("(b) Other Federal Operating Expenditures" is
/// none).
fn unlabelled(f: &Frame, cx: &Context) -> Option<String> {
    let said = |w: &String| has_word(&cx.said, w);
    if let Some(e) = f
        .entities
        .iter()
        .find(|e| !crate::text::words(&e.to_lowercase()).iter().all(said))
    {
        return Some(format!("\"{e}\""));
    }
    let worded = f.focus.iter().filter(|w| said(w)).count();
    if worded * 2 < f.focus.len() {
        return Some(f.focus.join(" "));
    }
    let total = "total".to_string();
    (f.qualifiers.contains(&total) && !said(&total)).then(|| "\"total\"".to_string())
}

/// Whether `f` asks for a thing by its kind only ("Which actor does American Beauty
/// have?") and the item names every named thing: it answers with one, in words other
/// than the kind's.
fn kind_only(f: &Frame, cx: &Context) -> bool {
    !f.answer_type.is_value()
        && f.focus.len() == 1
        && f.head.as_ref() == f.focus.first()
        && names_all(f, cx)
}

/// Whether the item names every named thing and figure of `f` in its own words (and `f`
/// has at least one).
fn names_all(f: &Frame, cx: &Context) -> bool {
    let entities = f.entities.iter().all(|e| {
        crate::text::words(&e.to_lowercase())
            .iter()
            .all(|w| has_word(&cx.own, w))
    });
    let figures = f.figures.iter().all(|x| cx.raw.contains(x.as_str()));
    entities && figures && !(f.entities.is_empty() && f.figures.is_empty())
}

/// Pairs of words that tell one thing from its sibling: a passage about public colleges
/// does not answer a question about private ones.
const CONTRASTS: &[(&str, &str)] = &[
    ("public", "private"),
    ("federal", "state"),
    ("domestic", "foreign"),
    ("import", "export"),
    ("imports", "exports"),
    ("male", "female"),
    ("men", "women"),
    ("urban", "rural"),
    ("residential", "commercial"),
    ("minimum", "maximum"),
    ("annual", "monthly"),
    ("daily", "weekly"),
    ("new", "used"),
    ("initial", "renewal"),
    ("primary", "secondary"),
    ("undergraduate", "graduate"),
    ("subsidized", "unsubsidized"),
    ("inbound", "outbound"),
    ("gross", "net"),
];

/// The miss when the item's own text names the sibling of a word the question asks
/// about and not the word itself ("private" asked, "public" stated).
fn contrasted(f: &Frame, cx: &Context) -> Option<String> {
    let asked: HashSet<String> = f.asked_words().into_iter().collect();
    let own: HashSet<String> = crate::text::words(&cx.raw).into_iter().collect();
    CONTRASTS
        .iter()
        .flat_map(|&(a, b)| [(a, b), (b, a)])
        .find(|(w, other)| {
            asked.contains(*w)
                && !asked.contains(*other)
                && !own.contains(*w)
                && own.contains(*other)
        })
        .map(|(w, other)| format!("\"{w}\" (the passage is about {other})"))
}

/// Units a length is counted in when it is a length of text or code, not of space.
const SYMBOLS: &[&str] = &[
    "character",
    "characters",
    "digit",
    "digits",
    "bit",
    "bits",
    "letter",
    "letters",
    "word",
    "words",
    "page",
    "pages",
    "symbol",
    "symbols",
];

/// For a question asking a length by name ("the minimum length of a password"), the
/// counts of `quote` in symbols ("at least 8 characters", "32 bits"): a length of text
/// or code, which no unit of space measures.
fn symbol_lengths(f: &Frame, quote: &str) -> Vec<Found> {
    if f.unit_family != Some(UnitFamily::Length) || !f.qualifiers.iter().any(|w| w == "length") {
        return Vec::new();
    }
    typed::find(quote, AnswerType::Quantity, Some(UnitFamily::Count))
        .into_iter()
        .filter(|v| {
            let next = quote[v.end..].split_whitespace().next().unwrap_or("");
            let next = next.trim_end_matches(|c: char| !c.is_alphanumeric());
            SYMBOLS.contains(&next.to_lowercase().as_str())
        })
        .collect()
}

/// The values in `quote` that answer frame `f`: of an accepted type, bound, unit and
/// date role.
fn values(f: &Frame, quote: &str) -> Vec<Found> {
    values_with(f, quote, Some(""))
}

/// The values of `quote` of the type `f` asks for (see [`values`]), with the date role's
/// cue read in the value's clause or in `heading` (a table row's header, a cell's
/// column); `None`: any date, whatever its role (a cell that is a value at all).
fn values_with(f: &Frame, quote: &str, heading: Option<&str>) -> Vec<Found> {
    let family = f.unit_family.or(Some(UnitFamily::Count));
    // "When must …?", "When does … acquire …?" are answered by a time limit ("within six
    // months") as well as a date; "When was the palace founded?" (past) by a date only.
    let past = matches!(
        f.qualifiers.get(1).map(String::as_str),
        Some("was" | "were" | "did")
    );
    let when: &[AnswerType] = match f.qualifiers.first().map(String::as_str) {
        Some("when") if !past => &[AnswerType::Duration, AnswerType::Time],
        // "What value applies …": a table's figure, an amount of money or a count.
        _ if asks_figure(f) => &[AnswerType::Money],
        // "What is the maximum deposit?": a limit asked by name may be an amount.
        _ if asks_limit(f) => &[AnswerType::Money, AnswerType::Percentage],
        _ => &[],
    };
    let mut found: Vec<Found> = f
        .answer_type
        .accepts()
        .iter()
        .chain(when)
        .flat_map(|t| {
            let mut vs = typed::find(quote, *t, family);
            bind::refine(quote, &mut vs);
            bind::ranges(quote, &mut vs);
            vs
        })
        .collect();
    found.extend(symbol_lengths(f, quote));
    found.retain(|v| !bind::stated_by_question(f, quote, v));
    let mut out: Vec<Found> = found
        .into_iter()
        .filter(|v| match f.extreme {
            Some(Extreme::Min) => v.bound != Bound::Max,
            Some(Extreme::Max) => v.bound != Bound::Min,
            None => true,
        })
        .filter(|v| match (&f.unit, &v.unit) {
            (Some(u), Some(vu)) if f.answer_type == AnswerType::Duration => vu == u,
            _ => true,
        })
        .filter(|v| !other_one(f, clause_around(quote, v.start, v.end)))
        .filter(|v| !when::outside(f, clause_around(quote, v.start, v.end)))
        .filter(|v| !when::beyond_asked_date(f, v))
        .filter(|v| !bare_length_for_when(f, quote, v))
        .filter(|v| !in_definition(f, clause_around(quote, v.start, v.end)))
        .filter(|v| !bind::counts_other(f, quote, v))
        .filter(|v| !restates_question(f, &quote[v.start..v.end]))
        .filter(|v| !other_condition(f, quote, v))
        .filter(|v| !rate::other_period(f, quote, v))
        .filter(|v| f.extreme.is_none() || !in_leading_condition(quote, v))
        .filter(|v| {
            v.bound != Bound::Exact || !opposite_bound(f, clause_around(quote, v.start, v.end))
        })
        .filter(|v| {
            let Some(heading) = heading else {
                return true;
            };
            f.date_role.is_none_or(|r| plays_role(r, quote, v, heading))
        })
        .collect();
    if let Some(role) = role::asked_role(f) {
        let named = |h: &str| role::names_role(&role, h);
        if !heading.is_some_and(named) {
            out.retain(|v| !role::unfilled(&role, quote, v));
        }
    }
    bind::rank(f, quote, &mut out);
    out
}

/// Whether `clause` defines a term ("\"Apiary\" means any site where one or more
/// Colonies are kept", "… is defined as …"): what it states describes the term, it sets
/// no value, so a value in it answers only a question asking what the term means.
fn in_definition(f: &Frame, clause: &str) -> bool {
    if f.answer_type == AnswerType::Definition {
        return false;
    }
    let lower = clause.to_lowercase();
    let quoted_term = ["\" means ", "” means ", "\" shall mean ", "” shall mean "];
    quoted_term.iter().any(|p| lower.contains(p))
        || [" is defined as ", " are defined as ", " shall mean "]
            .iter()
            .any(|p| lower.contains(p))
}

/// Whether `v` is a length of time offered for a "when" question that fixes no point in
/// time (see [`when::fixes_time`]).
fn bare_length_for_when(f: &Frame, quote: &str, v: &Found) -> bool {
    f.answer_type == AnswerType::Date
        && v.unit
            .as_deref()
            .is_some_and(|u| u != typed::CLOCK && typed::is_time_unit(u))
        && !when::fixes_time(quote, v.start, v.end)
}

/// Whether `f` asks for a figure by the word "value" or "figure" ("What value applies
/// when …?", "What is the figure for …?"), which may be a count or an amount.
fn asks_figure(f: &Frame) -> bool {
    let q: Vec<&str> = f.qualifiers.iter().take(4).map(String::as_str).collect();
    let figure = |w: &str| matches!(w, "value" | "figure");
    f.answer_type == AnswerType::Quantity
        && match q.as_slice() {
            ["what", w, ..] if figure(w) => true,
            ["what", "is" | "was", "the", w, ..] => figure(w),
            _ => false,
        }
}

/// Whether `f` asks for a limit by name ("What is the maximum deposit?") and reads it
/// as a count: the limit may be stated as an amount or a share as well.
fn asks_limit(f: &Frame) -> bool {
    f.answer_type == AnswerType::Quantity
        && f.unit_family.is_none_or(|u| u == UnitFamily::Count)
        && f.extreme.is_some()
        && matches!(
            f.qualifiers.first().map(String::as_str),
            Some("what" | "which")
        )
        && !f.qualifiers.iter().any(|w| w == "number" || w == "many")
}

/// Whether date `v` of `quote` plays role `r`: a cue of the role stands in its clause or
/// in `heading`; a preposition ("by", "before", "no later than") only right before the
/// value ("operated by U.S. operators" sets no deadline for the date of that clause).
fn plays_role(r: crate::frame::DateRole, quote: &str, v: &Found, heading: &str) -> bool {
    let clause = clause_around(quote, v.start, v.end).to_lowercase();
    let before = quote[..v.start].to_lowercase();
    let before: Vec<&str> = before.split_whitespace().rev().take(6).collect();
    let before = before.into_iter().rev().collect::<Vec<_>>().join(" ");
    let heading = heading.to_lowercase();
    let cued = |text: &str, c: &str| {
        // A cue of one word begins a word ("by" is not in "Abbey").
        if c.contains(' ') {
            text.contains(c)
        } else {
            crate::text::words(text).iter().any(|w| w.starts_with(c))
        }
    };
    r.cues().iter().any(|c| {
        let preposition = PREPOSITION_CUES.contains(c);
        cued(&heading, c) || cued(&before, c) || (!preposition && cued(&clause, c))
    })
}

/// Role cues that are prepositions: they mark the value they stand before.
const PREPOSITION_CUES: &[&str] = &["by", "before", "no later", "not later", "within", "until"];

/// Whether a name read as the value only repeats the question's own words ("Contact
/// Information" for "Who is the contact for more information …?"): no answer.
fn restates_question(f: &Frame, raw: &str) -> bool {
    if !matches!(f.answer_type, AnswerType::Person | AnswerType::Organisation) {
        return false;
    }
    let asked: HashSet<String> = f
        .asked_words()
        .iter()
        .map(|w| crate::text::stem(w))
        .collect();
    let words = crate::text::words(&raw.to_lowercase());
    !words.is_empty()
        && words
            .iter()
            .all(|w| crate::text::is_stopword(w) || asked.contains(&crate::text::stem(w)))
}

/// Whether value `v` stands in the condition a sentence of `quote` opens with ("For
/// look-up secrets that have less than 64 bits of entropy, the verifier SHALL …"): it
/// says when the provision applies, not the limit it sets.
fn in_leading_condition(quote: &str, v: &Found) -> bool {
    let from = quote[..v.start].rfind(['.', ';']).map_or(0, |i| i + 1);
    let lead = quote[from..v.start].trim_start().to_lowercase();
    let opens = ["if ", "where ", "when ", "for ", "unless ", "in case "]
        .iter()
        .any(|o| lead.starts_with(o));
    // "For safety reasons the maximum … is 120": a prepositional opener has no verb of
    // its own, so a verb before the value is the main clause's, which states the value.
    let main_verb = lead.starts_with("for ")
        && crate::text::words(&lead)
            .iter()
            .skip(1)
            .any(|w| MAIN_VERBS.contains(&w.as_str()));
    opens && !lead.contains(',') && !main_verb || qualifies_subject(&lead, &quote[v.end..])
}

/// Verbs that carry a provision's main clause: before a value, they end a condition the
/// sentence opens with.
const MAIN_VERBS: &[&str] = &[
    "is", "are", "shall", "must", "may", "will", "should", "can", "cannot", "costs", "cost",
];

/// Words that bind a qualifier to the noun before it ("secrets with fewer than …").
const QUALIFIERS: &[&str] = &["with", "having", "containing", "whose"];

/// Whether a value read after `lead` (its sentence up to the value) qualifies the
/// sentence's subject rather than sets what the provision requires: `lead` binds it to a
/// noun ("Look-up secrets with fewer than") and names no verb a provision sets a value
/// with, and a modal verb follows it ("… bits of entropy SHALL be salted").
fn qualifies_subject(lead: &str, after: &str) -> bool {
    let words = crate::text::words(lead);
    let bound = words.iter().any(|w| QUALIFIERS.contains(&w.as_str()));
    let verb =
        |w: &String| MODALS.contains(&w.as_str()) || ["is", "are", "be"].contains(&w.as_str());
    let end = after.find(['.', ';']).unwrap_or(after.len());
    let modal_after = crate::text::words(&after[..end].to_lowercase())
        .iter()
        .any(|w| MODALS.contains(&w.as_str()));
    bound && !words.iter().any(verb) && modal_after
}

/// Modal verbs a provision sets its requirement with.
const MODALS: &[&str] = &["shall", "must", "should", "may", "will"];

/// Words that open the condition a value holds under ("$15,000 if you're single").
const CONDITIONS: &[&str] = &["if", "when", "where", "unless", "provided"];

/// Whether value `v` of `quote` holds under a condition written right after it that
/// the quote does not tie to the question: the quote itself names under half of the
/// question's focus (the words that name the asked case, "head of household", stand
/// only in the text before it, a sibling alternative's).
fn other_condition(f: &Frame, quote: &str, v: &Found) -> bool {
    let after = quote[v.end..].trim_start().to_lowercase();
    // A condition past a clause boundary opens the next alternative ("enter 52; if it
    // pays every other week, enter 26").
    if after.starts_with([';', '.']) {
        return false;
    }
    let opens = crate::text::words(&after)
        .first()
        .is_some_and(|w| CONDITIONS.contains(&w.as_str()));
    if !opens || f.focus.is_empty() {
        return false;
    }
    let own = stems(quote);
    let named = f.focus.iter().filter(|w| has_word(&own, w)).count();
    named * 2 < f.focus.len()
}

/// Words that make a value another one's than the question's (a previous notice, a
/// neighbouring project), unless the question uses them too.
const OTHER_ONE: &[&str] = &[
    "previous",
    "previously",
    "former",
    "neighbouring",
    "neighboring",
    "superseded",
];

/// Whether `clause` marks its value as another one's than frame `f` asks about.
fn other_one(f: &Frame, clause: &str) -> bool {
    let words = crate::text::words(&clause.to_lowercase());
    words.iter().any(|w| {
        OTHER_ONE.contains(&w.as_str()) && !f.focus.contains(w) && !f.qualifiers.contains(w)
    })
}

/// Whether `clause` bounds its figures the other way from the extreme asked, and never
/// the asked way ([`Class::BoundMin`], [`Class::BoundMax`]): "at least the minimum
/// security strength (112 bits …)" gives no maximum length.
fn opposite_bound(f: &Frame, clause: &str) -> bool {
    let c = clause.to_lowercase();
    let has = |class: Class| lexicon::words(class).iter().any(|p| c.contains(p));
    match f.extreme {
        Some(Extreme::Max) => has(Class::BoundMin) && !has(Class::BoundMax),
        Some(Extreme::Min) => has(Class::BoundMax) && !has(Class::BoundMin),
        None => false,
    }
}

/// The clause of `quote` around `start..end`: from the last `;` or sentence end before to
/// the next after.
fn clause_around(quote: &str, start: usize, end: usize) -> &str {
    let from = quote[..start].rfind([';', '.']).map_or(0, |i| i + 1);
    let to = quote[end..].find([';']).map_or(quote.len(), |i| end + i);
    &quote[from..to]
}

/// Whether candidate `c` is a table row or a form value: labelled by the layout, three
/// numbers or more making a third of its words, or six words or fewer.
fn tabular(c: &crate::evidence::extract::Candidate) -> bool {
    let words = crate::text::word_count(&c.quote);
    let numbers = crate::figure::numbers(&c.quote).len();
    c.label.is_some() || (numbers >= 3 && numbers * 3 >= words) || words <= 6
}

/// Whether candidate `c` is a value under a printed label: labelled by the layout, short,
/// with fewer than three numbers (no table row).
fn form_value(c: &crate::evidence::extract::Candidate) -> bool {
    c.label.is_some()
        && crate::text::word_count(&c.quote) <= 6
        && crate::figure::numbers(&c.quote).len() < 3
}

/// Bytes of document text before a quote that count as its own context (the sentence or
/// caption before it, a form's prompt above a value).
const BEFORE_BYTES: usize = 240;

/// The stored text of document `doc`, read once per decision.
fn document_text(
    engine: &Engine,
    texts: &mut HashMap<String, std::rc::Rc<String>>,
    doc: &str,
) -> std::rc::Rc<String> {
    texts
        .entry(doc.to_string())
        .or_insert_with(|| {
            let t = engine
                .store()
                .document_text(doc)
                .ok()
                .flatten()
                .unwrap_or_default();
            std::rc::Rc::new(t)
        })
        .clone()
}

/// Words of a document's opening that name what the whole document is about: its title
/// block, its first heading and the authority or programme a notice names first.
const OPENING_WORDS: usize = 60;

/// What names the document of candidate `c` as a whole (whose `text` is the document's):
/// its title, its file name, and its first [`OPENING_WORDS`] words. A passage of a
/// document about a named thing speaks of it without repeating its name ("The contract
/// value is …" in a notice that opens with the buyer's name). Codes with digits ("B-2",
/// "Lot 2") name parts of a document, which an opening lists, not what the whole is
/// about: a passage names those itself.
fn heading_of(c: &crate::evidence::extract::Candidate, text: &str) -> String {
    let file = std::path::Path::new(&c.source)
        .file_stem()
        .map(|s| s.to_string_lossy().replace(['-', '_', '.'], " "))
        .unwrap_or_default();
    let named: Vec<&str> = file
        .split_whitespace()
        .chain(text.split_whitespace().take(OPENING_WORDS))
        .filter(|w| !w.contains(|ch: char| ch.is_ascii_digit()))
        .collect();
    format!("{} {}", c.title, named.join(" "))
}

/// Up to [`BEFORE_BYTES`] of the document's text before candidate `c`, on its page.
fn text_before(
    engine: &Engine,
    texts: &mut HashMap<String, std::rc::Rc<String>>,
    c: &crate::evidence::extract::Candidate,
) -> String {
    let text = document_text(engine, texts, &c.doc_id);
    let end = c.start.min(text.len());
    let mut from = end.saturating_sub(BEFORE_BYTES);
    while !text.is_char_boundary(from) {
        from += 1;
    }
    let piece = text.get(from..end).unwrap_or("");
    // Not across a page break (a form feed), nor into another numbered provision.
    if starts_provision(&c.quote) {
        return String::new();
    }
    let cut = piece.rfind(['\u{c}']).map_or(0, |i| i + 1);
    piece[cut..].to_string()
}

/// Whether `quote` opens a numbered provision ("4.2 The operator …", "(b) The fee …",
/// "§ 4 Records …"): the text before it is another provision's, not its context.
fn starts_provision(quote: &str) -> bool {
    static NUMBERED: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"^\s*(?:\d{1,3}(?:\.\d{1,3})*\.?|\(\d{1,3}\)|\([a-z]{1,4}\)|[a-z]\)|§+\s*\d+(?:\.\d+)*)\s+\p{Lu}",
        )
        .expect("provision pattern")
    });
    NUMBERED.is_match(quote)
}

/// Whether candidate `c` meets the frame's periods (see `finish::ItemPeriods`).
fn meets_periods(f: &Frame, c: &crate::evidence::extract::Candidate) -> bool {
    let item = super::finish::ItemPeriods::of(c);
    f.periods
        .iter()
        .flat_map(|p| crate::period::periods(p))
        .all(|w| item.meet(&w))
}

/// The verified items of `n` that cover frame `f` (in id order; for a typed question,
/// those naming more of what is asked first), for each other item what it lacked, and
/// for each covering item how much it names (see [`naming`]).
fn covering<'a>(
    engine: &Engine,
    f: &Frame,
    n: &'a Numbered,
    multi_hop: bool,
) -> (Vec<(&'a String, &'a Verdict)>, Vec<String>, Vec<usize>) {
    let mut docs: HashMap<String, std::rc::Rc<HashSet<String>>> = HashMap::new();
    let mut texts: HashMap<String, std::rc::Rc<String>> = HashMap::new();
    let owns: Vec<String> = n
        .verified()
        .map(|(_, v)| own_text(engine, &mut texts, &v.candidate))
        .collect();
    let chain = multi_hop.then(|| std::rc::Rc::new(stems(&owns.join(" "))));
    let mut covering = Vec::new();
    let mut misses: Vec<String> = Vec::new();
    for ((id, v), own) in n.verified().zip(&owns) {
        let c = &v.candidate;
        let document = docs
            .entry(c.doc_id.clone())
            .or_insert_with(|| {
                std::rc::Rc::new(stems(&document_text(engine, &mut texts, &c.doc_id)))
            })
            .clone();
        // An example ("For example, if that job pays every other week, enter 26")
        // illustrates the sentence before it, which says what it is an example of.
        let example = illustrates(&c.quote).then_some(own.as_str());
        let said = [
            Some(c.quote.as_str()),
            c.section.as_deref(),
            c.label.as_deref(),
            Some(c.title.as_str()),
            example,
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ");
        // A passage of another document that names this one's title speaks for it too
        // (the bridge of a two-step question): its words count as the item's own.
        let bridge = bridge(n, &owns, c);
        let with_bridge = |mut set: HashSet<String>| {
            set.extend(bridge.iter().cloned());
            set
        };
        let document = if bridge.is_empty() {
            document
        } else {
            std::rc::Rc::new(with_bridge((*document).clone()))
        };
        let cx = Context {
            said: with_bridge(stems(&said)),
            own: with_bridge(stems(own)),
            raw: own.to_lowercase(),
            tabular: tabular(c),
            form_value: form_value(c),
            chain: chain.clone(),
            title: stems(&heading_of(
                c,
                &document_text(engine, &mut texts, &c.doc_id),
            )),
            document,
            bridge,
        };
        match covers(f, &cx, !f.answer_type.is_value()) {
            Ok(()) if meets_periods(f, c) => {
                let worded = f.focus.iter().filter(|w| has_word(&cx.said, w)).count();
                covering.push(((naming(f, &cx), worded), id, v))
            }
            Ok(()) => misses.push(format!("the period {}", f.periods.join(", "))),
            Err(m) => misses.push(m),
        }
    }
    lead_order(f, &mut covering);
    let named = covering.iter().map(|((k, _), ..)| *k).collect();
    let covering = covering.into_iter().map(|(_, id, v)| (id, v)).collect();
    (covering, misses, named)
}

/// `covering` (each with how many of the named things it names, and how many focus words it
/// says itself) in the order a value is
/// read: for a value, the items naming what is asked about themselves first; for a
/// question about the document itself, the earliest item of the first document that
/// states a value of the type asked.
fn lead_order(f: &Frame, covering: &mut Vec<((usize, usize), &String, &Verdict)>) {
    // A value is read first from the items that name what is asked about themselves,
    // not only through their document's title (a document holding two notices: the
    // docket of the one the question names); of those naming as much, from the items
    // that word more of what is asked in their own text.
    if f.answer_type.is_value() {
        covering.sort_by_key(|(named, ..)| std::cmp::Reverse(*named));
    }
    // A question about the document itself ("this Form W-9") is answered from where the
    // document states it first, its head, not from a footer that repeats it.
    if f.itself {
        let first_doc = covering.first().map(|(_, _, v)| v.candidate.doc_id.clone());
        let earliest = covering
            .iter()
            .enumerate()
            .filter(|(_, (_, _, v))| Some(&v.candidate.doc_id) == first_doc.as_ref())
            .filter(|(_, (_, _, v))| !values(f, &v.candidate.quote).is_empty())
            .min_by_key(|(_, (_, _, v))| v.candidate.start)
            .map(|(i, _)| i);
        if let Some(i) = earliest {
            let head = covering.remove(i);
            covering.insert(0, head);
        }
    }
}

/// Whether `quote` opens as an example of what the text before it says.
fn illustrates(quote: &str) -> bool {
    let lower = quote.trim_start().to_lowercase();
    ["for example", "for instance", "e.g.", "example:"]
        .iter()
        .any(|o| lower.starts_with(o))
}

/// How many words of the frame's named things and how many of its figures the item with
/// context `cx` names in its own text.
fn naming(f: &Frame, cx: &Context) -> usize {
    // Words of a name count when the item writes at least half of them: "County" of
    // "County Clerk" does not name the "Northfield County Water District".
    let words: usize = f
        .entities
        .iter()
        .map(|e| {
            let ws: Vec<String> = crate::text::words(&e.to_lowercase())
                .into_iter()
                .filter(|w| !crate::text::is_stopword(w))
                .collect();
            let here = ws.iter().filter(|w| has_word(&cx.own, w)).count();
            if here * 2 >= ws.len() {
                here
            } else {
                0
            }
        })
        .sum();
    words
        + f.figures
            .iter()
            .filter(|x| cx.raw.contains(x.as_str()))
            .count()
}

/// The words of the verified items (own texts `owns`, in `n.verified()` order) from other
/// documents that are linked to candidate `c`: one names the other's document title.
fn bridge(
    n: &Numbered,
    owns: &[String],
    c: &crate::evidence::extract::Candidate,
) -> HashSet<String> {
    let own_c = owns
        .iter()
        .zip(n.verified())
        .find(|(_, (_, v))| std::ptr::eq(&v.candidate, c))
        .map(|(o, _)| o.to_lowercase())
        .unwrap_or_default();
    let mut out = HashSet::new();
    // A title that two documents carry (one template's) names neither of them.
    let shared = shared_titles(n);
    let named = |title: &str| !shared.contains(&title_key(title));
    for (own, (_, v)) in owns.iter().zip(n.verified()) {
        let other = &v.candidate;
        if other.doc_id == c.doc_id || title_key(&other.title) == title_key(&c.title) {
            continue;
        }
        let own = own.to_lowercase();
        if (named(&c.title) && names_title(&own, &c.title))
            || (named(&other.title) && names_title(&own_c, &other.title))
        {
            out.extend(stems(&own));
        }
    }
    out
}

/// A title as compared between documents: its words, lower case.
fn title_key(title: &str) -> String {
    crate::text::words(&title.to_lowercase()).join(" ")
}

/// The titles (see [`title_key`]) that two or more documents of `n`'s items carry.
fn shared_titles(n: &Numbered) -> HashSet<String> {
    let mut docs: HashMap<String, HashSet<&str>> = HashMap::new();
    for (_, v) in n.verified() {
        docs.entry(title_key(&v.candidate.title))
            .or_default()
            .insert(v.candidate.doc_id.as_str());
    }
    docs.into_iter()
        .filter(|(_, d)| d.len() > 1)
        .map(|(t, _)| t)
        .collect()
}

/// Whether `text` (lower case) names `title`: all its words of four letters or more, of
/// which there is at least one.
fn names_title(text: &str, title: &str) -> bool {
    // "Drifting (motorsport)": the words before a parenthetical qualifier.
    let title = title.split('(').next().unwrap_or(title);
    let words: Vec<String> = crate::text::words(&title.to_lowercase())
        .into_iter()
        .filter(|w| w.chars().count() >= 4 && !crate::text::is_stopword(w))
        .collect();
    let have: HashSet<String> = crate::text::words(text).into_iter().collect();
    !words.is_empty() && words.iter().all(|w| have.contains(w))
}

/// What candidate `c` says itself: the text just before it, its quote, section and label.
fn own_text(
    engine: &Engine,
    texts: &mut HashMap<String, std::rc::Rc<String>>,
    c: &crate::evidence::extract::Candidate,
) -> String {
    let before = text_before(engine, texts, c);
    format!("{before} {}", item_words(c))
}

/// What candidate `c` states itself: its quote, section and label, joined.
fn item_words(c: &crate::evidence::extract::Candidate) -> String {
    [
        Some(c.quote.as_str()),
        c.section.as_deref(),
        c.label.as_deref(),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join(" ")
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
        (several > 1 && tabular_row(n, id))
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

/// The decision for a lead that is a table row (or a passage of several values): the
/// cell of the first covering row the question names by row and column. A table with no
/// cell for the question gives no value and no whole row; a passage of several values
/// that is no table row is cited whole, no value claimed.
fn by_cell(
    engine: &Engine,
    f: &Frame,
    covering: &[(&String, &Verdict)],
    lead: &String,
    multi_hop: bool,
) -> Decision {
    // `pick` answers only for a row with known cells, so every covering item is tried
    // once (its layout read once).
    let mut missed = Vec::new();
    let picks: Vec<(String, super::cell::Pick)> = covering
        .iter()
        .filter_map(|(id, v)| {
            match super::cell::pick(engine, f, &v.candidate, |t, h| values_with(f, t, h)) {
                Ok(p) => Some(((*id).clone(), p)),
                Err(m) => {
                    missed.push(m);
                    None
                }
            }
        })
        .collect();
    // Of several rows' cells, the one whose row and column state the most figures of
    // the question ("a higher paying job of $100,000 - 124,999 and a lower paying job
    // of $20,000 - 29,999": not the $20,000 row's $100,000 column); the first on a tie.
    let stated = |p: &super::cell::Pick| {
        let label = p.label.to_lowercase();
        f.figures
            .iter()
            .filter(|x| label.contains(x.as_str()))
            .count()
    };
    let mut picked: Option<(String, super::cell::Pick)> = None;
    for (id, p) in picks {
        if picked
            .as_ref()
            .is_none_or(|(_, best)| stated(&p) > stated(best))
        {
            picked = Some((id, p));
        }
    }
    let Some((lead, p)) = picked else {
        if missed.iter().all(|m| *m == super::cell::Miss::NotARow) {
            // Alternatives in clauses of their own ("if it pays weekly, enter 52; if it
            // pays every other week, enter 26"): the one whose clause words the question.
            let quote = covering
                .iter()
                .find(|(id, _)| *id == lead)
                .map(|(_, v)| v.candidate.quote.as_str());
            return Decision {
                keep: Some(support(covering, lead, multi_hop)),
                value: quote
                    .and_then(|q| alternative(f, q))
                    .map(|v| (lead.clone(), v)),
                ..Decision::default()
            };
        }
        return unmet(no_cell(f, &missed));
    };
    Decision {
        keep: Some(support(covering, &lead, multi_hop)),
        cell: Some(p.label),
        value: Some((lead, p.value)),
        ..Decision::default()
    }
}

/// The value of the one clause of `quote` (clauses split at `;`, each stating one value
/// of the asked type) that words more of the question than every other clause, and at
/// least [`ALTERNATIVE_WORDS`] of its words.
fn alternative(f: &Frame, quote: &str) -> Option<Found> {
    let asked: HashSet<String> = f
        .qualifiers
        .iter()
        .filter(|w| !crate::text::is_stopword(w) && !w.chars().any(|c| c.is_ascii_digit()))
        .map(|w| crate::text::stem(w))
        .collect();
    let mut scored: Vec<(usize, Found)> = Vec::new();
    let mut at = 0;
    for clause in quote.split(';') {
        let vs = values(f, clause);
        let words: HashSet<String> = crate::text::words(&clause.to_lowercase())
            .iter()
            .map(|w| crate::text::stem(w))
            .collect();
        if let [v] = vs.as_slice() {
            let score = asked.intersection(&words).count();
            let v = Found {
                start: at + v.start,
                end: at + v.end,
                ..v.clone()
            };
            scored.push((score, v));
        }
        at += clause.len() + 1;
    }
    scored.sort_by_key(|(k, _)| std::cmp::Reverse(*k));
    match scored.as_slice() {
        [(best, v), rest @ ..]
            if *best >= ALTERNATIVE_WORDS
                && rest.iter().all(|(k, _)| k < best)
                && !rest.is_empty() =>
        {
            Some(v.clone())
        }
        _ => None,
    }
}

/// Words of the question the clause of an alternative must word (see [`alternative`]).
const ALTERNATIVE_WORDS: usize = 2;

/// Why no table cell answers frame `f`, from the rows' misses: a row the question names
/// without the column it asks for, or no row it names.
fn no_cell(f: &Frame, missed: &[super::cell::Miss]) -> String {
    use super::cell::Miss;
    let asked = nothing_said(f, &[]);
    if let Some(Miss::Column(stub)) = missed.iter().find(|m| matches!(m, Miss::Column(_))) {
        return format!(
            "the table has no single column for what is asked ({asked}) in the row \"{stub}\""
        );
    }
    let rows: Vec<&str> = missed
        .iter()
        .filter_map(|m| match m {
            Miss::Row(s) => Some(s.as_str()),
            _ => None,
        })
        .take(3)
        .collect();
    format!(
        "the table has no row for what is asked ({asked}); rows found: {}",
        rows.iter()
            .map(|r| format!("\"{r}\""))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// For an identifier: why the covering items leave it open — another item, naming what
/// is asked as much as the first, states a different identifier (a document holding two
/// notices, each with its docket number, neither naming the question's subject).
fn ambiguous(
    f: &Frame,
    covering: &[(&String, &Verdict)],
    named: &[usize],
    value: &Found,
) -> Option<String> {
    if f.answer_type != AnswerType::Identifier {
        return None;
    }
    let best = named.first().copied()?;
    let other = covering
        .iter()
        .zip(named)
        .take_while(|(_, k)| **k == best)
        .flat_map(|((_, v), _)| values(f, &v.candidate.quote))
        .find(|x| x.normalised != value.normalised)?;
    Some(format!(
        "the passages state different identifiers ({} and {}) and none names {} itself",
        value.normalised,
        other.normalised,
        nothing_said(f, &[])
    ))
}

/// Bytes after a label read for the identifier it introduces.
const LABEL_REACH: usize = 48;

/// For an identifier read in candidate `c` after a label ("Docket No."): why it is open
/// when the same document gives that label another identifier elsewhere and the quote
/// itself does not name every named thing of `f` (a file of two notices, the other
/// notice's docket retrieved alone).
fn labelled_elsewhere(
    engine: &Engine,
    f: &Frame,
    c: &crate::evidence::extract::Candidate,
    value: &Found,
) -> Option<String> {
    if f.answer_type != AnswerType::Identifier || f.entities.is_empty() {
        return None;
    }
    let quote = stems(&c.quote);
    let named = f.entities.iter().all(|e| {
        crate::text::words(&e.to_lowercase())
            .iter()
            .all(|w| has_word(&quote, w))
    });
    if named {
        return None;
    }
    // The label: the last two words before the value.
    let before = c.quote.get(..value.start)?.trim_end();
    let words: Vec<&str> = before.split_whitespace().collect();
    let label = words.get(words.len().checked_sub(2)?..)?.join(" ");
    if label.chars().filter(|ch| ch.is_alphabetic()).count() < 3 {
        return None;
    }
    let text = engine.store().document_text(&c.doc_id).ok()??;
    let other = text.match_indices(&label).find_map(|(i, _)| {
        let from = i + label.len();
        let mut to = (from + LABEL_REACH).min(text.len());
        while !text.is_char_boundary(to) {
            to -= 1;
        }
        let v = values(f, text.get(from..to)?).into_iter().next()?;
        (v.normalised != value.normalised).then_some(v.normalised)
    })?;
    Some(format!(
        "the document gives \"{label}\" two identifiers ({} and {other}) and the passage \
         found does not name {} itself",
        value.normalised,
        nothing_said(f, &[])
    ))
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

/// Whether item `id` is a table row (three numbers or more).
fn tabular_row(n: &Numbered, id: &str) -> bool {
    n.get(id)
        .is_some_and(|v| crate::figure::numbers(&v.candidate.quote).len() >= 3)
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

    fn raw(q: &str, quote: &str) -> Vec<String> {
        values(&frame(q), quote)
            .into_iter()
            .map(|v| quote[v.start..v.end].to_string())
            .collect()
    }

    #[test]
    fn a_part_counted_by_its_own_clause_answers_for_that_clause() {
        let quote = "Six trustees are elected at large by the voters of the District, and three \
                     are appointed by the Harlow County Commission, one of whom must reside in \
                     the unincorporated part of the District.";
        let got = raw(
            "How many library trustees are appointed by the County Commission?",
            quote,
        );
        assert_eq!(got.first().map(String::as_str), Some("three"), "{got:?}");
    }

    #[test]
    fn a_date_the_question_asks_after_or_before_bounds_the_answer() {
        let quote = "The board met on 3 March 2025 and will next meet on 14 May 2025.";
        let got = raw(
            "On what date is the next board meeting after 12 March 2025?",
            quote,
        );
        assert_eq!(got, ["14 May 2025"]);
        let got = raw(
            "On what date did the board meet before 1 April 2025?",
            quote,
        );
        assert_eq!(got, ["3 March 2025"]);
    }

    #[test]
    fn a_value_in_a_definition_answers_only_what_the_term_means() {
        let quote = "(a) \"Apiary\" means any site where one or more Colonies are kept; (b) \
                     No more than four (4) Colonies may be kept on a Plot.";
        let got = raw("How many colonies may be kept on a plot?", quote);
        assert!(!got.iter().any(|v| v == "one"), "{got:?}");
        assert!(got.iter().any(|v| v.starts_with("four")), "{got:?}");
    }

    #[test]
    fn a_numbered_provision_starts_afresh() {
        assert!(starts_provision("4.2 The operator shall keep a log."));
        assert!(starts_provision("(b) The fee is $40."));
        assert!(starts_provision("§ 4 Records are kept."));
        assert!(starts_provision("12. Records are kept."));
        assert!(!starts_provision("2024 was a year of growth."));
        assert!(!starts_provision("5 mg/m³ for kiln K-1."));
        assert!(!starts_provision("The fee is $40."));
    }

    #[test]
    fn a_limit_is_never_read_in_the_condition_a_provision_opens_with() {
        let q = "What is the maximum length of a look-up secret?";
        let quote = "For look-up secrets that have less than 64 bits of entropy, the verifier SHALL limit attempts.";
        assert!(raw(q, quote).is_empty());
        let quote = "Look-up secrets SHALL have no more than 64 characters.";
        assert_eq!(raw(q, quote), ["64"]);
        // A bound that qualifies the subject says which secrets, not how long.
        let quote = "Look-up secrets with fewer than 112 bits of entropy SHALL be salted.";
        assert!(raw(q, quote).is_empty());
        let quote = "Look-up secrets with a checksum SHALL be at most 20 characters long.";
        assert_eq!(raw(q, quote), ["20"]);
    }

    #[test]
    fn a_count_at_least_is_a_minimum_and_never_answers_a_maximum() {
        let q = "What is the maximum length that verifiers may allow for a memorized secret?";
        let quote = "Verifiers SHOULD permit memorized secrets at least 64 characters in length.";
        assert!(raw(q, quote).is_empty());
        let q = "What is the minimum length that verifiers may allow for a memorized secret?";
        assert_eq!(raw(q, quote), ["64"]);
    }

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

    #[test]
    fn a_value_under_another_condition_or_in_the_question_s_words_is_no_answer() {
        let q = "What amount is entered on line 2 if you are head of household?";
        assert!(raw(q, "$15,000 if you're single or married filing separately").is_empty());
        assert_eq!(raw(q, "$22,500 if you're head of household"), ["$22,500"]);
        let q = "Who is the contact for more information about this product?";
        assert!(raw(q, "Company Point of Contact Information").is_empty());
    }

    #[test]
    fn a_ceiling_never_answers_a_minimum_and_days_are_not_years() {
        let q = "a fine of up to EUR 35 000 000 or 7 % of turnover";
        assert!(raw("What is the minimum fine for a prohibited practice?", q).is_empty());
        assert_eq!(raw("What is the maximum fine?", q), ["EUR 35 000 000"]);
        let q = "A toll-free number must remain active for 90 days.";
        assert!(raw("How many years must the number remain active?", q).is_empty());
        assert_eq!(
            raw("How many days must the number remain active?", q),
            ["90 days"]
        );
    }

    #[test]
    fn a_founding_date_is_next_to_a_founding_word_and_may_be_a_century() {
        let q = "When was the palace founded?";
        assert_eq!(
            raw(
                q,
                "The founding of the palace dates back to the late 12th Century."
            ),
            ["late 12th Century"]
        );
        assert!(raw(q, "On January 24, 2017 the owner suffered a stroke.").is_empty());
    }

    #[test]
    fn a_date_of_one_role_is_not_a_date_of_another() {
        let q = "This Regulation shall apply from 19 December 2020.";
        assert!(raw("On what date does the regulation expire?", q).is_empty());
        assert_eq!(
            raw("From what date does the regulation apply?", q),
            ["19 December 2020"]
        );
        // "by" is a deadline's word, not two letters inside another word.
        let q = "The bulletin of the Abbey, dated June 12, 2020, lists them.";
        assert!(raw("By what date must comments be received?", q).is_empty());
        let q = "Comments must be received by September 21, 2020.";
        assert_eq!(
            raw("By what date must comments be received?", q),
            ["September 21, 2020"]
        );
        // A preposition sets the role of the value it stands before, not of every
        // date of its clause.
        let q = "On March 13, 2019, the FAA issued an order, which prohibits the operation \
                 of airplanes by U.S. operators.";
        assert!(raw("By what date must comments be received?", q).is_empty());
        // A figure asked by the word "value" is a count or an amount.
        let q = "What value applies when the job earns $10,000 - 19,999?";
        assert_eq!(raw(q, "The value is $1,020."), ["$1,020"]);
        assert_eq!(raw(q, "The value is 2,790."), ["2,790"]);
        let q = "Comments must reach us by the close of business on September 21, 2020.";
        assert_eq!(
            raw("By what date must comments be received?", q),
            ["September 21, 2020"]
        );
    }

    #[test]
    fn coverage_needs_named_things_in_the_item_and_focus_in_the_document() {
        let f = frame("How many checks were denied in Texas?");
        let cx = |own: &str, doc: &str| Context {
            said: stems(&format!("{own} Firearm checks by state")),
            own: stems(own),
            raw: own.to_lowercase(),
            tabular: true,
            form_value: false,
            chain: None,
            bridge: HashSet::new(),
            title: stems("Firearm checks by state"),
            document: std::rc::Rc::new(stems(doc)),
        };
        let row = "Texas 21,550 56,941 146,982";
        assert!(covers(&f, &cx(row, "Texas 21,550 checks permit handgun"), false).is_err());
        assert!(covers(&f, &cx(row, "Texas 21,550 checks denied"), false).is_ok());
        assert!(covers(&f, &cx("Alaska 209 3,062", "Alaska checks denied"), false).is_err());
        // A form value is named by its label, not by its document.
        let f = frame("What were the total disbursements for this period?");
        let form = |label: &str| Context {
            said: stems(&format!("101224.65 {label}")),
            own: stems(&format!("101224.65 {label}")),
            raw: "101224.65".into(),
            tabular: true,
            form_value: true,
            chain: None,
            bridge: HashSet::new(),
            title: stems("Form 3X"),
            document: std::rc::Rc::new(stems("total disbursements cash on hand period")),
        };
        assert!(covers(
            &f,
            &form("8. Cash on Hand at Close of Reporting Period"),
            false
        )
        .is_err());
        assert!(covers(&f, &form("(b) Other Disbursements"), false).is_err());
        assert!(covers(&f, &form("31. Total Disbursements"), false).is_ok());
        let f = frame("What was the average cost for textbooks at private colleges?");
        let text = "the average cost for textbooks at public colleges was $1,122";
        let doc = format!("{text} private loans");
        assert!(covers(&f, &cx(text, &doc), false)
            .unwrap_err()
            .contains("public"));
        let f = frame("What was the average cost for textbooks at public colleges?");
        assert!(covers(&f, &cx(text, &doc), false).is_ok());
    }
}
