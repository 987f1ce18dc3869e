//! Names of people and organisations: the run of capitalised words a cue introduces
//! (honorifics left out of the span), generic role words that are never a name ("The
//! Project", "the Landowner", "Project Owner"), and the comparison of two names after
//! normalisation (case, punctuation, honorifics, initials).

use super::{Agreement, RejectReason, Severity};
use crate::lexicon::{self, Class};

/// Words inside a name that may be lower-case or joiners.
const JOINERS: &[&str] = &[
    "of", "de", "da", "do", "dos", "das", "del", "della", "van", "von", "der", "den", "la", "le",
    "du", "bin", "binti", "and", "&", "y", "e",
];
/// Words after which `of` continues an organisation's name ("Bank of Scotland").
const ORGANISATIONS: &[&str] = &[
    "bank",
    "university",
    "ministry",
    "department",
    "government",
    "republic",
    "board",
    "society",
    "association",
    "friends",
    "church",
    "diocese",
    "county",
    "state",
    "city",
    "council",
    "office",
    "institute",
    "college",
    "school",
    "trust",
    "trustees",
    "community",
    "people",
    "federation",
    "union",
    "commonwealth",
    "kingdom",
    "province",
    "municipality",
    "district",
    "chamber",
    "league",
    "bureau",
    "agency",
    "authority",
    "secretariat",
    "commission",
    "corporation",
    "company",
    "town",
    "village",
    "parish",
    "nation",
];
/// Determiners that open a generic phrase.
const DETERMINERS: &[&str] = &["the", "a", "an", "this", "said", "such", "our", "its"];

/// Whether `w` (lower case) may join the parts of a personal name ("van", "de", "bin").
pub fn joins_personal_name(w: &str) -> bool {
    JOINERS.contains(&w) && !matches!(w, "of" | "and" | "&")
}

fn bare(w: &str) -> String {
    w.trim_matches(|c: char| !c.is_alphanumeric() && c != '&' && c != '/')
        .to_lowercase()
}

fn is_honorific(w: &str) -> bool {
    lexicon::is(Class::Honorific, &bare(w))
}

fn capitalised(w: &str) -> bool {
    let w = w.trim_start_matches(['"', '\'', '“', '‘', '(']);
    w.chars().next().is_some_and(|c| c.is_uppercase())
}

/// The words of `s` with their byte offsets.
fn words(s: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in s.char_indices() {
        if c.is_whitespace() {
            if let Some(st) = start.take() {
                out.push((st, &s[st..i]));
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(st) = start {
        out.push((st, &s[st..]));
    }
    out
}

/// Whether a word ends the run it closes (a comma, semicolon, bracket or full stop after
/// a word that is not an initial or an abbreviation such as `Ltd.`).
fn closes(w: &str) -> bool {
    let last = w.chars().last().unwrap_or(' ');
    if matches!(last, ',' | ';' | ':' | ')' | '"' | '”' | '|') {
        return true;
    }
    if last == '.' {
        let core = w.trim_end_matches('.');
        let core = core.to_lowercase();
        let abbrev = ["sr", "st"].contains(&core.as_str()) || lexicon::is(Class::NameSuffix, &core);
        return !(core.chars().count() == 1 || abbrev);
    }
    false
}

/// The name at the start of `s`: a run of capitalised words (joiners inside), honorifics
/// skipped, ended by punctuation or a lower-case word. Returns the byte span in `s`.
pub fn name_at(s: &str) -> Option<(usize, usize)> {
    let ws = words(s);
    let mut i = 0;
    while i < ws.len()
        && (is_honorific(ws[i].1)
            || (DETERMINERS.contains(&bare(ws[i].1).as_str()) && !is_initial(ws[i].1))
            || is_list_marker(ws[i].1))
    {
        i += 1;
    }
    let first = i;
    let mut last = None;
    while i < ws.len() && i - first < 8 {
        let (at, w) = ws[i];
        if i > first && s[ws[i - 1].0..at].contains('\n') {
            break; // a name never runs across lines
        }
        if i > first && w.starts_with(['(', '[']) {
            break; // "Eenasul Fateh (Bengali: …)": an aside follows the name
        }
        let b = bare(w);
        if capitalised(w) {
            last = Some(i);
        } else if !(JOINERS.contains(&b.as_str()) && last.is_some()) {
            break;
        } else if b == "of" && !ORGANISATIONS.contains(&bare(ws[i - 1].1).as_str()) {
            break; // "Helena Whitfield of Marsh End Farm": an address, not the name
        }
        if closes(w) {
            break;
        }
        i += 1;
    }
    let last = last?;
    let start = ws[first].0
        + (ws[first].1.len()
            - ws[first]
                .1
                .trim_start_matches(['"', '\'', '“', '‘', '('])
                .len());
    let (ls, lw) = ws[last];
    let mut trimmed = lw.trim_end_matches([',', ';', ':', ')', '"', '”', '|', '\'', '’']);
    if trimmed.ends_with('.')
        && !(trimmed.trim_end_matches('.').chars().count() == 1 || is_abbrev(trimmed))
    {
        trimmed = trimmed.trim_end_matches('.');
    }
    (ls + trimmed.len() > start).then_some((start, ls + trimmed.len()))
}

/// `A.`: an initial, never the article "a".
fn is_initial(w: &str) -> bool {
    let core = w.trim_end_matches('.');
    w.ends_with('.') && core.chars().count() == 1 && core.chars().all(char::is_uppercase)
}

/// `(1)`, `1.`, `(a)`, `a)`: the marker of a numbered list item.
fn is_list_marker(w: &str) -> bool {
    let core = w.trim_start_matches('(').trim_end_matches([')', '.']);
    (w.ends_with(')') || w.ends_with('.'))
        && !core.is_empty()
        && core.len() <= 3
        && (core.bytes().all(|b| b.is_ascii_digit())
            || (core.len() == 1 && core.bytes().all(|b| b.is_ascii_lowercase())))
}

fn is_abbrev(w: &str) -> bool {
    let core = w.trim_end_matches('.').to_lowercase();
    lexicon::is(Class::NameSuffix, &core)
}

/// Why `name` is not a name, if it is not: generic role words, or no letters.
pub fn not_a_name(name: &str) -> Option<(RejectReason, String)> {
    let ws: Vec<String> = name
        .split_whitespace()
        .map(bare)
        .filter(|w| !w.is_empty())
        .collect();
    if ws.is_empty() || !name.chars().any(char::is_alphabetic) {
        return Some((RejectReason::NotAValue, "no letters".into()));
    }
    let generic = ws.iter().all(|w| {
        lexicon::is(Class::GenericRole, w)
            || DETERMINERS.contains(&w.as_str())
            || JOINERS.contains(&w.as_str())
    });
    if !generic && ws.len() == 1 && !name.contains(['&']) {
        return Some((
            RejectReason::NotAValue,
            format!("\"{name}\" is one word: not a full name"),
        ));
    }
    generic.then(|| {
        (
            RejectReason::GenericName,
            format!("\"{name}\" names a role, not a person or organisation"),
        )
    })
}

/// Whether `name` is a common phrase of `text` that the text capitalises as a defined
/// term ("Project Area", "Credit Class", "ALL THAT"), not a proper name: every word of it
/// is written in lower case somewhere in `text`, and none is an honorific, an
/// organisation's head word ("Department", "Council") or a company abbreviation ("Ltd").
/// A proper name has a word the text never writes in lower case ("Rivera", "Scotland").
pub fn common_phrase(name: &str, text: &str) -> bool {
    let ws: Vec<String> = name
        .split_whitespace()
        .map(bare)
        .filter(|w| !w.is_empty() && !JOINERS.contains(&w.as_str()))
        .collect();
    if ws.is_empty()
        || ws
            .iter()
            .any(|w| ORGANISATIONS.contains(&w.as_str()) || is_honorific(w) || is_abbrev(w))
    {
        return false;
    }
    let lower: std::collections::HashSet<&str> = text
        .split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’')
        .filter(|w| w.starts_with(|c: char| c.is_lowercase()))
        .collect();
    ws.iter().all(|w| lower.contains(w.as_str()))
}

/// A name for comparison: lower-case words without honorifics or punctuation.
pub fn normalise(s: &str) -> String {
    s.split_whitespace()
        .map(bare)
        .filter(|w| !w.is_empty() && !lexicon::is(Class::Honorific, w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Compare two names: equal after normalisation, or an initial or an added middle name
/// that fits → agree; the same surname with different first names → disagree (warning,
/// never merged); otherwise disagree.
pub fn compare(a: &str, b: &str) -> (Agreement, String) {
    let (na, nb) = (normalise(a), normalise(b));
    if na == nb {
        return (Agreement::Agree, "the same name after normalisation".into());
    }
    let wa: Vec<&str> = na.split(' ').collect();
    let wb: Vec<&str> = nb.split(' ').collect();
    let (sa, sb) = (wa.last().unwrap_or(&""), wb.last().unwrap_or(&""));
    if sa != sb || wa.len() < 2 || wb.len() < 2 {
        return (
            Agreement::Disagree(Severity::Error),
            format!("\"{a}\" and \"{b}\" are different names"),
        );
    }
    let (fa, fb) = (wa[0], wb[0]);
    let initial = |x: &str, y: &str| x.chars().count() == 1 && y.starts_with(x);
    if fa == fb || initial(fa, fb) || initial(fb, fa) {
        return (
            Agreement::Agree,
            format!("\"{a}\" and \"{b}\": same surname, first names or initials fit"),
        );
    }
    (
        Agreement::Disagree(Severity::Warning),
        format!("\"{a}\" and \"{b}\": same surname, different first names; not merged"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(s: &str) -> Option<&str> {
        name_at(s).map(|(a, b)| &s[a..b])
    }

    #[test]
    fn a_name_is_the_capitalised_run_without_honorifics() {
        assert_eq!(name("Mr. João Pereira, a farmer"), Some("João Pereira"));
        assert_eq!(
            name("Green Wetlands Ltd. (the Lessee)"),
            Some("Green Wetlands Ltd.")
        );
        assert_eq!(
            name("Maria da Silva Santos."),
            Some("Maria da Silva Santos")
        );
        assert_eq!(name("J. Santos owns"), Some("J. Santos"));
        assert_eq!(name("the land is leased"), None);
        assert_eq!(
            name("Ana Costa and Rui Costa"),
            Some("Ana Costa and Rui Costa")
        );
        let n = |x: &str| name(x).map(str::to_string);
        assert_eq!(
            n("Helena Whitfield of Marsh End Farm, Tamsin").as_deref(),
            Some("Helena Whitfield")
        );
        assert_eq!(
            n("Bank of Scotland plc").as_deref(),
            Some("Bank of Scotland")
        );
        assert_eq!(
            n("(1) Ilse Korhaven, medical practitioner").as_deref(),
            Some("Ilse Korhaven")
        );
        assert_eq!(n("COVENANTS\n   The Lessor").as_deref(), Some("COVENANTS"));
        assert_eq!(
            n("Eenasul Fateh (Bengali: x; born 1959), also known").as_deref(),
            Some("Eenasul Fateh")
        );
    }

    #[test]
    fn generic_role_words_are_never_names() {
        for g in [
            "The Project",
            "the Landowner",
            "Project Owner",
            "Project Proponent",
            "N/A",
        ] {
            assert_eq!(
                not_a_name(g).map(|r| r.0),
                Some(RejectReason::GenericName),
                "{g}"
            );
        }
        assert!(not_a_name("Maria Santos").is_none());
        assert!(not_a_name("Project Wetlands Trust").is_none());
    }

    #[test]
    fn names_compare_after_normalisation_and_same_surnames_are_flagged() {
        assert_eq!(
            compare("Dr. Maria Santos", "MARIA SANTOS").0,
            Agreement::Agree
        );
        assert_eq!(compare("M. Santos", "Maria Santos").0, Agreement::Agree);
        assert_eq!(
            compare("Maria Santos", "Mario Santos").0,
            Agreement::Disagree(Severity::Warning)
        );
        assert_eq!(
            compare("Maria Santos", "Ana Costa").0,
            Agreement::Disagree(Severity::Error)
        );
    }
    #[test]
    fn a_capitalised_common_phrase_is_no_proper_name() {
        let text = "The project area covers 40 ha. Credits of each class are issued to the \
                    owner. ALL THAT land. Anna Rivera owns the area. The department of the \
                    environment reviews all plans that it receives.";
        assert!(common_phrase("Project Area", text));
        assert!(common_phrase("ALL THAT", text));
        assert!(!common_phrase("Anna Rivera", text));
        assert!(!common_phrase("Department of Environment", text));
        assert!(!common_phrase("Area Holdings Ltd", text));
    }
}
