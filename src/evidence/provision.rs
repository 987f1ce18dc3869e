//! Whole provisions: where a quote may end without changing what it says.
//!
//! Extraction (`evidence/extract.rs`) asks this module three things:
//!
//! * **May a long sentence be cut here?** ([`may_cut`]) Only where the part cut off is a
//!   clause of its own (a subject and a finite verb: "; the notice must state …", ", and
//!   the Commission may …"), outside brackets, after no `:` (the items of an enumeration),
//!   and never in a sentence that opens with a condition ("If …, …", "Where …, …"), whose
//!   every clause the condition governs. So a quote never stops before an alternative
//!   ("… EUR 35 000 000, or 7 % …, whichever is higher"), an `unless` / `except` /
//!   `provided that` clause, a condition or the rest of an enumeration.
//! * **Is this sentence part of a list?** ([`in_list`]) A lead-in ending in `:` and the
//!   list items after it are one provision: quoted whole when it is at most
//!   [`MAX_PROVISION_WORDS`] words, otherwise each item is quoted with the lead-in (the
//!   contiguous span from the lead-in to the item). A `:` line with no items after it is a
//!   prompt, as before.
//! * **Does the quote end inside a bracket?** ([`close_brackets`]) It is extended to the
//!   closing bracket, or marked incomplete.

use crate::corpus::segment::{sentences, Span};
use crate::lexicon::{self, Class};
use crate::text::{word_count, words};

/// The hard upper bound of a quote: a provision longer than this that cannot be cut where
/// the rest stands alone is marked incomplete rather than cut wrongly.
pub const MAX_PROVISION_WORDS: usize = 120;

/// How far (bytes) a list's items after a lead-in, or the lead-in before an item, are
/// looked for.
const LIST_WINDOW_BYTES: usize = 4000;

/// Words under which a line ending in `:` is a prompt ("Start date:") whatever follows.
const MIN_LEAD_IN_WORDS: usize = 3;

/// How many words after its subject a clause's finite verb is looked for.
const VERB_WINDOW: usize = 12;

/// First words of a sentence that opens with a condition, concession or circumstance
/// governing everything after it.
const CONDITION_OPENERS: &[&str] = &[
    "if",
    "when",
    "whenever",
    "where",
    "unless",
    "provided",
    "providing",
    "although",
    "though",
    "while",
    "once",
    "until",
    "before",
    "after",
    "subject",
    "notwithstanding",
    "except",
    "save",
    "in",
    "as",
    "upon",
    "on",
    "for",
    "with",
    "without",
    "because",
    "since",
    "whereas",
];

/// Words that open a clause's subject.
const SUBJECT_OPENERS: &[&str] = &[
    "the", "a", "an", "each", "every", "all", "no", "any", "its", "their", "his", "her", "this",
    "these", "that", "those", "such", "it", "they", "he", "she", "we", "you", "there", "both",
    "either", "neither", "none", "some", "many", "most",
];

/// Finite verbs and modals that make a clause, besides the auxiliaries
/// ([`Class::Auxiliary`]; see [`finite`]).
const FINITE: &[&str] = &["might", "applies", "apply", "means", "includes"];

/// Whether `w` is a finite verb or modal that makes a clause.
fn finite(w: &str) -> bool {
    FINITE.contains(&w) || lexicon::is(Class::Auxiliary, w)
}

/// Coordinating words a clause of its own may open with ("and the notice must …").
const COORDINATORS: &[&str] = &["and", "but", "or", "while", "whereas", "yet"];

/// Whether `s` opens with a condition or circumstance ("If …", "Where …", "In the case of
/// …") that governs the whole sentence, so no clause of it may be quoted alone.
pub fn opens_with_condition(s: &str) -> bool {
    words(s)
        .first()
        .is_some_and(|w| CONDITION_OPENERS.contains(&w.as_str()))
}

/// Whether `right` is a clause that stands alone: an optional coordinating word, then a
/// subject (a determiner or pronoun, or a capitalised word) and a finite verb or modal.
pub fn stands_alone(right: &str) -> bool {
    let w = words(right);
    let raw: Vec<&str> = right.split_whitespace().collect();
    let skip = usize::from(
        w.first()
            .is_some_and(|x| COORDINATORS.contains(&x.as_str())),
    );
    let Some(first) = w.get(skip) else {
        return false;
    };
    let capitalised = raw
        .get(skip)
        .and_then(|t| t.chars().next())
        .is_some_and(char::is_uppercase);
    (SUBJECT_OPENERS.contains(&first.as_str()) || capitalised)
        && w.iter().skip(skip + 1).take(VERB_WINDOW).any(|x| finite(x))
}

/// What character `c` (after `prev`) does to the bracket depth: `(` and `[` open, `)` and
/// `]` close; a `[` or `]` right after ESC is a terminal control sequence, not a bracket.
fn bracket_step(prev: Option<char>, c: char) -> i64 {
    match c {
        '[' | ']' if prev == Some('\u{1b}') => 0,
        '(' | '[' => 1,
        ')' | ']' => -1,
        _ => 0,
    }
}

/// Open brackets (`(`, `[`) minus closed ones in `s`.
fn bracket_depth(s: &str) -> i64 {
    let mut prev = None;
    s.chars().fold(0, |d, c| {
        let d = d + bracket_step(prev, c);
        prev = Some(c);
        d
    })
}

/// Whether sentence text `s` may be cut at byte `at` (where the second piece starts):
/// outside brackets, after no `:`, in a sentence that does not open with a condition, and
/// only where the second piece is a clause of its own.
pub fn may_cut(s: &str, at: usize) -> bool {
    let (left, right) = s.split_at(at);
    bracket_depth(left) <= 0
        && !left.contains(':')
        && !opens_with_condition(s)
        && !ends_an_enumeration(left)
        && stands_alone(right)
}

/// Whether `left` (text before a cut after a comma) ends in the items of an enumeration:
/// the part after its last earlier comma has no finite verb ("…, the reason for the
/// decision, the date on which it takes effect, | and the way …").
fn ends_an_enumeration(left: &str) -> bool {
    let Some(body) = left.trim_end().strip_suffix(',') else {
        return false;
    };
    body.rfind(", ")
        .is_some_and(|i| !words(&body[i + 2..]).iter().any(|w| finite(w)))
}

/// `span` extended to the bracket it leaves open, when the bracket closes before the
/// paragraph ends (a `.` right after it is taken too); `None` when it closes later (a
/// quote cut inside a bracket). A span with no open bracket is returned as it is, and so
/// is one whose bracket the text never closes within [`LIST_WINDOW_BYTES`]: the source
/// left it open ("Scott Parkin (born 1969, Garland, Texas is an …"), not the cut.
pub fn close_brackets(text: &str, span: Span) -> Option<Span> {
    let mut depth = bracket_depth(span.slice(text));
    if depth <= 0 {
        return Some(span);
    }
    let rest = &text[span.end..];
    let paragraph = rest.find("\n\n").unwrap_or(rest.len());
    let mut prev = span.slice(text).chars().next_back();
    let window = rest
        .char_indices()
        .take_while(|(i, _)| *i < LIST_WINDOW_BYTES);
    for (i, c) in window {
        depth += bracket_step(prev, c);
        prev = Some(c);
        if depth == 0 {
            if i >= paragraph {
                return None;
            }
            let mut end = span.end + i + 1;
            if text[end..].starts_with('.') {
                end += 1;
            }
            return Some(Span::new(span.start, end));
        }
    }
    Some(span)
}

/// Whether `s` (a sentence without its list marker) introduces a list: it ends with `:`
/// and has at least [`MIN_LEAD_IN_WORDS`] words.
fn is_lead_in(s: &str) -> bool {
    s.trim_end().ends_with(':') && word_count(s) >= MIN_LEAD_IN_WORDS
}

/// The kind of a list marker at the start of `s` (bullet, digit, lower-case or upper-case
/// letter), `None` when there is none.
fn marker_kind(text: &str, raw: Span) -> Option<u8> {
    if strip_marker(text, raw).start == raw.start {
        return None;
    }
    let c = raw.slice(text).trim_start_matches('(').chars().next()?;
    Some(if c.is_ascii_digit() {
        1
    } else if c.is_lowercase() {
        2
    } else if c.is_uppercase() {
        3
    } else {
        0
    })
}

/// Column of byte `at` in its line.
fn column(text: &str, at: usize) -> usize {
    at - text[..at].rfind('\n').map_or(0, |i| i + 1)
}

/// Whether the sentence `raw` (with its marker) is a list item: it opens with a list
/// marker, or in lower case (an item continuing its lead-in).
fn is_item(text: &str, raw: Span) -> bool {
    marker_kind(text, raw).is_some()
        || raw
            .slice(text)
            .chars()
            .next()
            .is_some_and(char::is_lowercase)
}

/// Sentence spans of `text[from..to]` (`to` on a char boundary at or before the end).
fn window_sentences(text: &str, from: usize, to: usize) -> Vec<Span> {
    sentences(&text[from..to])
        .into_iter()
        .map(|s| Span::new(from + s.start, from + s.end))
        .collect()
}

/// The largest char boundary of `text` at or before `at`.
fn floor_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The list items (raw spans, markers included) right after the lead-in sentence `raw`:
/// consecutive items (with any further sentences on their lines), blank lines allowed, up
/// to a heading, a line that is not an item, or an item at the lead-in's own level (same
/// marker kind, no deeper indent).
fn items_after(text: &str, raw: Span) -> Vec<Span> {
    let to = floor_boundary(text, raw.end + LIST_WINDOW_BYTES);
    let sents = window_sentences(text, raw.end, to);
    let own = marker_kind(text, raw).map(|k| (k, column(text, raw.start)));
    let mut items: Vec<Span> = Vec::new();
    for (k, &s) in sents.iter().enumerate() {
        let cut_by_window = to < text.len() && k + 1 == sents.len();
        if cut_by_window || is_heading_or_rule(s.slice(text)) {
            break;
        }
        if !is_item(text, s) {
            // A further sentence on an item's line belongs to the item.
            match items.last() {
                Some(prev) if same_line(text, *prev, s) => {
                    items.push(s);
                    continue;
                }
                _ => break,
            }
        }
        let level = own.is_some_and(|(kind, col)| {
            marker_kind(text, s) == Some(kind) && column(text, s.start) <= col
        });
        if level {
            break;
        }
        items.push(s);
    }
    items
}

/// The lead-in (raw span) of list item `raw`: the nearest sentence before it, across
/// other items, that ends with `:`, when its items include `raw`.
fn lead_in_of(text: &str, raw: Span) -> Option<Span> {
    let from = floor_boundary(text, raw.start.saturating_sub(LIST_WINDOW_BYTES));
    let sents = window_sentences(text, from, raw.start);
    for (k, &s) in sents.iter().enumerate().rev() {
        // The window may have cut its first sentence: unknown, so not used.
        if (from > 0 && k == 0) || is_heading_or_rule(s.slice(text)) {
            return None;
        }
        if is_lead_in(strip_marker(text, s).slice(text)) {
            let items = items_after(text, s);
            return items.iter().any(|i| i.start == raw.start).then_some(s);
        }
        let continues_an_item = k > 0 && same_line(text, sents[k - 1], s);
        if !is_item(text, s) && !continues_an_item {
            return None;
        }
    }
    None
}

/// Whether sentence `next` starts on the line where sentence `prev` ends.
fn same_line(text: &str, prev: Span, next: Span) -> bool {
    !text[prev.end..next.start].contains('\n')
}

/// How a quote of a list stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListQuote {
    /// The lead-in and all its items.
    Whole,
    /// The lead-in and the items up to this one.
    FromLeadIn,
    /// An item too far from its lead-in to be quoted with it (the reason says why).
    Incomplete(String),
}

/// Whether an item stands as a sentence of its own: upper case, a finite verb, a full stop.
fn item_is_a_sentence(s: &str) -> bool {
    s.chars().next().is_some_and(char::is_uppercase)
        && s.trim_end().ends_with('.')
        && words(s).iter().any(|w| finite(w))
}

/// The quotes a sentence of a list gives (`raw` with its marker): `None` when it is not
/// part of a lead-in with items. A lead-in and its items are quoted whole when at most
/// [`MAX_PROVISION_WORDS`] words; otherwise an item is quoted from the lead-in to the item,
/// or, when that is too long too, alone if it is a sentence of its own (`None`) and else
/// marked incomplete; the lead-in alone gives nothing.
pub fn in_list(text: &str, raw: Span) -> Option<Vec<(Span, ListQuote)>> {
    let stripped = strip_marker(text, raw);
    let (lead, item) = if is_lead_in(stripped.slice(text)) {
        (raw, None)
    } else if is_item(text, raw) {
        (lead_in_of(text, raw)?, Some(raw))
    } else {
        return None;
    };
    let items = items_after(text, lead);
    let last = items.last()?;
    let start = strip_marker(text, lead).start;
    let whole = Span::new(start, last.end);
    if word_count(whole.slice(text)) <= MAX_PROVISION_WORDS {
        return Some(vec![(whole, ListQuote::Whole)]);
    }
    let Some(item) = item else {
        return Some(Vec::new());
    };
    let span = Span::new(start, item.end);
    if word_count(span.slice(text)) <= MAX_PROVISION_WORDS {
        return Some(vec![(span, ListQuote::FromLeadIn)]);
    }
    if item_is_a_sentence(strip_marker(text, item).slice(text)) {
        return None;
    }
    Some(vec![(
        strip_marker(text, item),
        ListQuote::Incomplete(format!(
            "a list item whose lead-in is over {MAX_PROVISION_WORDS} words before it"
        )),
    )])
}

/// Leave a list marker (`-`, `*`, `1.`, `(a)`, `2)`) and Markdown emphasis out of a
/// sentence span.
pub fn strip_marker(text: &str, span: Span) -> Span {
    let s = span.slice(text);
    let mut skip = 0;
    let t = s;
    if let Some(rest) = t
        .strip_prefix("- ")
        .or_else(|| t.strip_prefix("* "))
        .or_else(|| t.strip_prefix("+ "))
        .or_else(|| t.strip_prefix("• "))
        .or_else(|| t.strip_prefix("> "))
    {
        skip = t.len() - rest.len();
    } else {
        // "1.", "1.2.", "2)", "(a)", "(iv)", "a)" followed by whitespace.
        let first_ws = t.find(char::is_whitespace).unwrap_or(t.len());
        let tok = &t[..first_ws];
        let inner = tok
            .trim_start_matches('(')
            .trim_end_matches([')', '.'])
            .replace('.', "");
        let is_marker = first_ws < t.len()
            && tok.len() <= 8
            && (tok.ends_with('.') || tok.ends_with(')'))
            && !inner.is_empty()
            && (inner.chars().all(|c| c.is_ascii_digit())
                || (inner.len() <= 4 && inner.chars().all(|c| c.is_ascii_lowercase())));
        if is_marker && !crate::corpus::segment::area_code(tok, &t[first_ws..]) {
            skip = first_ws;
        }
    }
    let rest = &s[skip..];
    let rest_trim = rest.trim_start().trim_start_matches("**").trim_start();
    let start = span.start + (s.len() - rest_trim.len());
    Span::new(start.min(span.end), span.end)
}

/// Whether `s` is a Markdown heading, a table row or a rule.
pub fn is_heading_or_rule(s: &str) -> bool {
    let t = s.trim_start();
    t.starts_with('#')
        || t.starts_with('|')
        || t.chars().all(|c| "-*_=".contains(c))
        || is_contents_entry(t)
}

/// Whether `s` is a table-of-contents entry (or a run of them): a title, a dot leader
/// ("....", ". . .", "…") and a page number ("12", "iv", "A-3") that ends the text or is
/// followed by the next entry's title or number. A form line whose leader leads to an
/// amount ("…… $3,400", "…… 11000.00") is no entry.
pub fn is_contents_entry(s: &str) -> bool {
    let tokens: Vec<&str> = s.split_whitespace().collect();
    let leader = |t: &str| {
        let dots = t.chars().filter(|c| *c == '.' || *c == '…').count();
        (t.len() >= 3 && t.chars().all(|c| c == '.' || c == '…'))
            || (dots >= 4 && !t.chars().any(|c| c.is_ascii_digit()) && t.ends_with(".."))
    };
    let page = |t: &str| {
        let t = t.trim_end_matches([',', ';']);
        let arabic = !t.is_empty() && t.len() <= 4 && t.bytes().all(|b| b.is_ascii_digit());
        let roman = !t.is_empty() && t.len() <= 6 && t.chars().all(|c| "ivxlc".contains(c));
        let annex = t.split_once('-').is_some_and(|(a, n)| {
            a.len() == 1
                && a.bytes().all(|b| b.is_ascii_uppercase())
                && !n.is_empty()
                && n.bytes().all(|b| b.is_ascii_digit())
        });
        arabic || roman || annex
    };
    // A leader may be spaced (". . . ."): a run of lone dots counts as one.
    let mut i = 0;
    let mut entries = 0;
    while i < tokens.len() {
        let start = i;
        while i < tokens.len() && (tokens[i] == "." || tokens[i] == "…") {
            i += 1;
        }
        let spaced = i - start >= 3;
        let leads = spaced || (i < tokens.len() && leader(tokens[i]));
        if !leads {
            i += 1;
            continue;
        }
        if !spaced {
            i += 1;
        }
        if !tokens.get(i).is_some_and(|t| page(t)) {
            return false; // a leader to something else: a form line or a table row
        }
        let next = tokens.get(i + 1);
        let next_entry = next.is_none_or(|n| {
            n.chars()
                .next()
                .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())
                && !n.starts_with('$')
        });
        if !next_entry {
            return false;
        }
        entries += 1;
        i += 1;
    }
    entries > 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contents_entries_are_told_from_form_lines_and_table_rows() {
        assert!(is_contents_entry(
            "5.2 Stakeholder consultation .................. 23"
        ));
        assert!(is_contents_entry(
            "1 Introduction ........ 3 1.1 Scope ........ 4 1.2 Project area ..... 5"
        ));
        assert!(is_contents_entry("Annex B Land titles . . . . . . . . B-1"));
        assert!(is_contents_entry("Preface …………… iv"));
        assert!(!is_contents_entry(
            "AOA sensor system test ........ 40 work-hours × $85 per hour = $0 ...... $3,400 ...... $248,200."
        ));
        assert!(!is_contents_entry(
            "7. Total Receipts .................. 11000.00"
        ));
        assert!(!is_contents_entry(
            "Enter the result here . . . . . . . 2 $ 22,500"
        ));
        assert!(!is_contents_entry(
            "The project covers 1,250 ha in the valley."
        ));
        assert!(!is_contents_entry("See p. 12. The area is 5 ha."));
    }

    #[test]
    fn a_marker_is_left_out_but_an_area_code_is_kept() {
        let strip = |t: &str| strip_marker(t, Span::new(0, t.len())).slice(t).to_string();
        assert_eq!(strip("(a) the owner"), "the owner");
        assert_eq!(strip("12. Total"), "Total");
        assert_eq!(strip("(212) 867-5309"), "(212) 867-5309");
        assert_eq!(strip("(212) 8675"), "8675");
    }

    #[test]
    fn only_clauses_of_their_own_are_cut_off() {
        assert!(stands_alone("the notice must state the reason"));
        assert!(stands_alone("and the Commission may impose a fine"));
        assert!(!stands_alone(
            "or 7 % of its total worldwide annual turnover"
        ));
        assert!(!stands_alone("whichever is higher"));
        assert!(!stands_alone("unless the owner claims it"));
        assert!(!stands_alone("provided that the notice was served"));
        assert!(!stands_alone("and must send a copy"));
        assert!(!stands_alone("the address, and the date of the decision"));
        let s = "If the owner does not claim it, the finder acquires it and the finder must pay.";
        assert!(!may_cut(s, s.find("the finder").unwrap()));
        let s = "Costs (e.g., staff, the office is rented) are paid.";
        assert!(!may_cut(s, s.find("the office").unwrap()));
        let s = "It must state the name, the reason for it, and the way an appeal may be made.";
        assert!(!may_cut(s, s.find("and the way").unwrap()));
        let s = "The county must keep the file, and the clinic must keep a copy of it.";
        assert!(may_cut(s, s.find("and the clinic").unwrap()));
    }

    #[test]
    fn an_item_keeps_its_further_sentences() {
        let t = "The three levels are:\n\n- Emergent: at risk. Staff must act now.\n- Routine: all other requests.\n";
        let raw = Span::new(t.find("- Routine").unwrap(), t.len() - 1);
        let got = in_list(t, raw).unwrap();
        assert_eq!(got[0].0.slice(t), t.trim_end());
    }

    #[test]
    fn open_brackets_are_closed_or_refused() {
        let t = "Costs (e.g., resources, investments) are paid. Next.";
        let s = close_brackets(t, Span::new(0, t.find(", investments").unwrap())).unwrap();
        assert_eq!(s.slice(t), "Costs (e.g., resources, investments)");
        // Closed only in a later paragraph: the quote was cut inside it.
        let t = "Costs (e.g., resources\n\nand staff) are paid.";
        assert_eq!(close_brackets(t, Span::new(0, 22)), None);
        // Never closed: the source left it open, and the quote stands as written.
        let t = "Scott Parkin (born 1969, Garland, Texas is an organizer.\n\nNext.";
        let s = Span::new(0, t.find("\n").unwrap());
        assert_eq!(close_brackets(t, s), Some(s));
    }
}
