//! What an item says and whether it covers the question: the words of its quote, label,
//! section and title and of its document ([`Context`]), read loosely ([`has_word`]), and
//! the frame's named things, focus and head met there; a sibling word named instead of
//! the asked one ("public" for "private") is a miss.

use std::collections::HashSet;

use super::writes_mark;
use crate::frame::Frame;

/// Focus words from which a question is long: half of them in a passage's document
/// suffice.
const LONG_FOCUS: usize = 4;

/// The words of `text`, lower case, as stems.
pub(super) fn stems(text: &str) -> HashSet<String> {
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
pub(super) fn has_word(have: &HashSet<String>, word: &str) -> bool {
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
pub(super) struct Context {
    pub(super) own: HashSet<String>,
    /// The words of the quote, label, section and title: what the item says about
    /// itself, without the text before it.
    pub(super) said: HashSet<String>,
    /// The item's own text as written, lower case.
    pub(super) raw: String,
    /// Whether the item is a table row or a form value (see
    /// [`tabular`](super::cover::tabular)).
    pub(super) tabular: bool,
    /// Whether the item is a form's value under its printed label (no table row): the
    /// label, not the document, names what the value is.
    pub(super) form_value: bool,
    /// For a multi-hop question, the words every verified item says itself.
    pub(super) chain: Option<std::rc::Rc<HashSet<String>>>,
    /// The words of the verified items of other documents that name this item's
    /// document by its title, or whose title this item names (a bridge: "based in
    /// Southaven" → the Southaven article).
    pub(super) bridge: HashSet<String>,
    pub(super) title: HashSet<String>,
    pub(super) document: std::rc::Rc<HashSet<String>>,
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
pub(super) fn covers(f: &Frame, cx: &Context, half_focus: bool) -> Result<(), String> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::frame;

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
