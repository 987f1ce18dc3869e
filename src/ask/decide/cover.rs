//! The verified items that cover the frame: what each item says itself (with the text
//! just before it), its document's words and title, the bridges between documents, and
//! the order in which a value is read from the covering items.

use std::collections::{HashMap, HashSet};

use super::context::{covers, has_word, stems, Context};
use super::fit::values;
use crate::ask::select::Numbered;
use crate::engine::Engine;
use crate::evidence::verify::Verdict;
use crate::frame::Frame;

/// Whether candidate `c` is a table row or a form value: labelled by the layout, three
/// numbers or more making a third of its words, or six words or fewer.
pub(super) fn tabular(c: &crate::evidence::extract::Candidate) -> bool {
    let words = crate::text::word_count(&c.quote);
    let numbers = crate::figure::numbers(&c.quote).len();
    c.label.is_some() || (numbers >= 3 && numbers * 3 >= words) || words <= 6
}

/// Whether candidate `c` is a value under a printed label: labelled by the layout, short,
/// with fewer than three numbers (no table row).
pub(super) fn form_value(c: &crate::evidence::extract::Candidate) -> bool {
    c.label.is_some()
        && crate::text::word_count(&c.quote) <= 6
        && crate::figure::numbers(&c.quote).len() < 3
}

/// Bytes of document text before a quote that count as its own context (the sentence or
/// caption before it, a form's prompt above a value).
const BEFORE_BYTES: usize = 240;

/// The stored text of document `doc`, read once per decision.
pub(super) fn document_text(
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
pub(super) fn heading_of(c: &crate::evidence::extract::Candidate, text: &str) -> String {
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

/// Whether candidate `c` meets the frame's periods (see [`ItemPeriods`]).
pub(super) fn meets_periods(f: &Frame, c: &crate::evidence::extract::Candidate) -> bool {
    let item = ItemPeriods::of(c);
    f.periods
        .iter()
        .flat_map(|p| crate::period::periods(p))
        .all(|w| item.meet(&w))
}

/// What a document's head says of candidate `c`: its document's authors, joined (they
/// name it as its title does, "the paper by Hopper"), and, when `c` is the title line or
/// the author line, the words for what it is (as a label says it).
fn head_role(
    engine: &Engine,
    authors: &mut HashMap<String, Vec<String>>,
    c: &crate::evidence::extract::Candidate,
) -> (String, Option<&'static str>) {
    let by = authors.entry(c.doc_id.clone()).or_insert_with(|| {
        let json = engine.store().profile_json_of(&c.doc_id).ok().flatten();
        crate::profile::stored_authors(json.as_deref())
    });
    let role = if crate::research::authorship::is_title(&c.quote, &c.title) {
        Some("title")
    } else if crate::research::authorship::is_author_line(&c.quote, by) {
        Some("authors author wrote written")
    } else {
        None
    };
    (by.join(", "), role)
}

/// The verified items of `n` that cover frame `f` (in id order; for a typed question,
/// those naming more of what is asked first), for each other item what it lacked, and
/// for each covering item how much it names (see [`naming`]).
pub(super) fn covering<'a>(
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
    let mut authors: HashMap<String, Vec<String>> = HashMap::new();
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
        let (by, role) = head_role(engine, &mut authors, c);
        let said = [c.section.as_deref(), c.label.as_deref(), role, example]
            .into_iter()
            .flatten()
            .fold(format!("{} {} {by}", c.quote, c.title), |s, x| s + " " + x);
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
            own: with_bridge(stems(&format!("{own} {}", role.unwrap_or("")))),
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
pub(super) fn names_title(text: &str, title: &str) -> bool {
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
pub(super) fn item_words(c: &crate::evidence::extract::Candidate) -> String {
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

/// The periods an item names: in its quote, section or label (its own), and in its
/// document's title.
pub(crate) struct ItemPeriods {
    own: Vec<crate::period::Period>,
    title: Vec<crate::period::Period>,
}

impl ItemPeriods {
    /// The periods of candidate `c`.
    pub(crate) fn of(c: &crate::evidence::extract::Candidate) -> Self {
        let heads = [&c.section, &c.label].into_iter().flatten();
        ItemPeriods {
            own: std::iter::once(&c.quote)
                .chain(heads)
                .flat_map(|t| crate::period::periods(t))
                .collect(),
            title: crate::period::periods(&c.title),
        }
    }

    /// Whether the item meets period `w`: its own text names it, or its title does and
    /// its own text names no other year.
    pub(crate) fn meet(&self, w: &crate::period::Period) -> bool {
        self.own.iter().any(|p| w.met_by(p))
            || (self.title.iter().any(|p| w.met_by(p)) && !self.own.iter().any(|p| w.other_year(p)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
