//! What a line that is no table row is: a form's label line over its values, a heading
//! (and its level: numbered, `§`, Part/Section, a form's step, capitals, title case), a
//! `Label: value` line, or prose.

use super::{aligned, Kind, Seg};

/// Mark label lines whose values sit on the line below at the same columns.
pub(super) fn mark_forms(cells: &[Vec<(usize, String)>], kinds: &mut [Kind]) {
    let multi = |i: usize| cells.get(i).is_some_and(|c| c.len() >= 2);
    let label_like = |c: &[(usize, String)]| {
        c.len() >= 2
            && c.iter().all(|(_, t)| {
                !t.chars().any(|ch| ch.is_ascii_digit()) && t.chars().any(char::is_alphabetic)
            })
    };
    for i in 0..cells.len().saturating_sub(1) {
        let (label, value) = (&cells[i], &cells[i + 1]);
        let short = value.iter().all(|(_, v)| v.split(' ').count() <= 6);
        let fits = !value.is_empty()
            && short
            && value
                .iter()
                .all(|(v, _)| label.iter().any(|(l, _)| aligned(*l, *v)));
        let alone = (i == 0 || !multi(i - 1)) && !multi(i + 2);
        if label_like(label) && fits && alone && kinds[i] == Kind::Prose {
            kinds[i] = Kind::FormLabel;
            kinds[i + 1] = Kind::FormValue;
        }
    }
}

/// Kind of a line that is neither a table row nor a form line.
pub(super) fn line_kind(lines: &[Seg], kinds: &[Kind], i: usize) -> Kind {
    let text = lines[i].text();
    let open = |k: usize| k >= lines.len() || kinds[k] == Kind::Blank || lines[k].part_start;
    let prev_open = i == 0 || kinds[i - 1] == Kind::Blank || lines[i].part_start;
    let next_open = open(i + 1);
    let indented_next = !open(i + 1) && lines[i + 1].col >= lines[i].col + 2;
    if let Some(l) = heading_level(&text, prev_open && (next_open || indented_next)) {
        return Kind::Heading(l);
    }
    let colon = |k: usize| k < lines.len() && colon_label(&lines[k].text()).is_some();
    let gap = |k: usize| k >= lines.len() || (kinds[k] == Kind::Blank && !lines[k].hollow);
    if colon_label(&text).is_some()
        && (i == 0 || gap(i - 1) || colon(i - 1))
        && (gap(i + 1) || colon(i + 1))
    {
        return Kind::Colon;
    }
    Kind::Prose
}

/// The label of a `Label: value` line.
pub(super) fn colon_label(text: &str) -> Option<&str> {
    let (label, value) = text.split_once(':')?;
    let words = label.split(' ').count();
    let upper = label.chars().next().is_some_and(char::is_uppercase);
    (upper && words <= 5 && !value.trim().is_empty()).then_some(label.trim())
}

/// Whether a word looks capitalised (short words do not count against a title).
fn title_word(w: &str) -> bool {
    w.chars().filter(|c| c.is_alphabetic()).count() < 4
        || !w.chars().next().is_some_and(char::is_lowercase)
}

/// Heading level of a line, if it is a heading; `alone` = stands between blank lines.
pub(super) fn heading_level(t: &str, alone: bool) -> Option<u8> {
    let words: Vec<&str> = t.split(' ').collect();
    if t.is_empty() || words.len() > 12 {
        return None;
    }
    if t.starts_with('§') && (words.len() <= 3 || !t.ends_with(['.', ',', ';'])) {
        return Some(1);
    }
    // A formula ("UR = ER - SR", "NN~u = s(~u, Lv, t)") is no heading.
    if t.ends_with(['.', ',', ';', ':']) || t.contains(['=', '~', '∧', '∨', '<', '>']) {
        return None;
    }
    if let Some(l) = numbered_level(&words) {
        return Some(l);
    }
    let letters = t.chars().filter(|c| c.is_alphabetic()).count();
    let visible = t.chars().filter(|c| *c != ' ').count();
    if letters >= 2 && !t.chars().any(char::is_lowercase) && letters * 2 >= visible {
        return Some(1);
    }
    if alone && stepped(&words) {
        return Some(2);
    }
    let upper_start = t.chars().next().is_some_and(char::is_uppercase);
    // A title-case line with a figure is a caption, footer or form line ("Cat. No. 10231X
    // Form W-9 (Rev. 3-2024)"), not a section.
    let figure = t.chars().any(|c| c.is_ascii_digit());
    (alone && upper_start && !figure && words.len() <= 10 && words.iter().all(|w| title_word(w)))
        .then_some(2)
}

/// Words that open the title of a numbered step or schedule of a form.
const STEP_WORDS: &[&str] = &["Step", "Schedule", "Exhibit", "Attachment", "Worksheet"];

/// Whether `words` (a line standing alone) title a form's numbered step or schedule:
/// the keyword, a number or letter ("2(b)—Multiple", "A"), and title-case words
/// ("Step 2(b)—Multiple Jobs Worksheet (Keep for your records.)").
fn stepped(words: &[&str]) -> bool {
    let [first, id, ..] = words else {
        return false;
    };
    let numbered = id.chars().next().is_some_and(|c| c.is_ascii_digit())
        || (id.chars().count() == 1 && id.chars().all(|c| c.is_ascii_uppercase()));
    let long: Vec<&&str> = words[2..]
        .iter()
        .take_while(|w| !w.starts_with('('))
        .filter(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= 4)
        .collect();
    STEP_WORDS.contains(first) && numbered && long.iter().all(|w| title_word(w))
}

/// Level of a numbered heading (`2.1 Scope` → 2, `Part II` → 1).
fn numbered_level(words: &[&str]) -> Option<u8> {
    let rest = words.get(1..).unwrap_or_default();
    let first = words[0];
    let keyword = [
        "Section", "Part", "PART", "Appendix", "APPENDIX", "Chapter", "CHAPTER",
    ];
    if keyword.contains(&first) {
        let id = rest.first()?;
        let ok = id
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit() || c.is_uppercase());
        // A sentence that refers to a section ("Section 2 describes …", "Section 3): …",
        // "Section 2.3, the …") goes on in lower case or punctuation after the number.
        let bare = id.trim_end_matches('.').chars().all(char::is_alphanumeric);
        let goes_on = rest
            .get(1)
            .is_some_and(|w| w.chars().next().is_some_and(char::is_lowercase));
        return (ok && bare && !goes_on && id.chars().count() <= 6).then_some(1);
    }
    let comps: Vec<&str> = first.trim_end_matches('.').split('.').collect();
    let numeric = comps
        .iter()
        .all(|c| !c.is_empty() && c.len() <= 3 && c.bytes().all(|b| b.is_ascii_digit()));
    let starts_upper = rest.first()?.chars().next().is_some_and(char::is_uppercase);
    let body = rest.join(" ");
    let clean = !body.contains(". ") && !body.contains(", ") && !body.contains("; ");
    let long: Vec<&&str> = rest
        .iter()
        .filter(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= 4)
        .collect();
    let titled = long.iter().filter(|w| title_word(w)).count() * 2 >= long.len();
    let ok = numeric && comps[0].len() <= 2 && starts_upper && clean && titled && rest.len() <= 10;
    ok.then(|| u8::try_from(comps.len()).unwrap_or(u8::MAX))
}
