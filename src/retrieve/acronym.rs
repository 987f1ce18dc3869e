//! Acronyms: which acronym a question asks to expand ("What does XAI stand for?"), and
//! where a text defines it ("explainable artificial intelligence (XAI)").
//!
//! A definition is read the way Schwartz and Hearst's abbreviation finder reads one (A
//! Simple Algorithm for Identifying Abbreviation Definitions in Biomedical Text, PSB
//! 2003): the short form stands in parentheses after its long form, or the long form in
//! parentheses after the short form; the long form is the shortest run of at most
//! `min(n + 5, 2n)` words before the parenthesis (n the short form's letters) in which
//! every letter and digit of the short form is found, right to left, in order, the first
//! one opening a word (or, for a capitalised inner letter such as the X of XAI, within the
//! first three letters of the word that opens the long form). The spans are byte ranges of the text read, so the definition is
//! quoted verbatim.

use std::ops::Range;

/// The acronym a question asks to expand: "what does X stand for", "what is X short
/// for", "what does the acronym X mean", "the full form (expansion) of X", "X is an
/// abbreviation of what". The acronym holds two capitals or more ("XAI", "SciBERT",
/// "GPUs"), so "what does the term mean" names none.
pub fn asked(question: &str) -> Option<String> {
    let words: Vec<&str> = question
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
        .collect();
    let lower: Vec<String> = words.iter().map(|w| w.to_lowercase()).collect();
    let joined = format!(" {} ", lower.join(" "));
    let asks = [
        " stand for ",
        " stands for ",
        " short for ",
        " full form ",
        " long form ",
        " expansion of ",
        " acronym ",
        " abbreviation ",
        " abbreviate ",
    ]
    .iter()
    .any(|p| joined.contains(p))
        || (joined.contains(" mean ") && (joined.contains(" does ") || joined.contains(" do ")));
    if !asks {
        return None;
    }
    let capitals = |w: &str| w.chars().filter(char::is_ascii_uppercase).count();
    let candidates: Vec<&str> = words
        .iter()
        .enumerate()
        .filter(|(i, w)| *i > 0 && capitals(w) >= 2 && w.chars().count() <= 12)
        .map(|(_, w)| *w)
        .collect();
    // One acronym, or none: a question naming two leaves the choice to retrieval.
    (candidates.len() == 1).then(|| candidates[0].to_string())
}

/// Whether `c` ends a word of a long form.
fn is_word_char(c: char) -> bool {
    c.is_alphanumeric()
}

/// The long form of `short` ending where `text` ends: the shortest tail of `text` (at
/// most the word budget) in which the short form's letters and digits are found right to
/// left, the first one opening a word. Returns its byte range in `text`.
fn long_form_before(text: &str, short: &str) -> Option<Range<usize>> {
    let letters: Vec<char> = short
        .chars()
        .filter(|c| c.is_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect();
    let n = letters.len();
    if !(2..=10).contains(&n) {
        return None;
    }
    let budget = (n + 5).min(2 * n);
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    // The window's start: `budget` words back from the end (stopping at a sentence end).
    let mut words = 0;
    let mut start_idx = 0;
    let mut in_word = false;
    for (k, &(_, c)) in chars.iter().enumerate().rev() {
        if matches!(c, '.' | ';' | ':' | '(' | ')' | '[' | ']') && !in_word && words > 0 {
            start_idx = k + 1;
            break;
        }
        let w = is_word_char(c);
        if !w && in_word {
            words += 1;
            if words == budget {
                start_idx = k + 1;
                break;
            }
        }
        in_word = w;
    }
    let win = &chars[start_idx..];
    let opens_word = |k: usize| k == 0 || !is_word_char(win[k - 1].1);
    // The first letter may stand inside the first word when the acronym capitalises a
    // letter the word does not open with ("eXplainable AI", XAI).
    let inside_first_word = |k: usize| {
        let first = letters[0];
        let word_start = (0..=k).rev().find(|&j| opens_word(j)).unwrap_or(0);
        win[word_start].1.to_ascii_lowercase() != first
            && win[word_start..k].iter().all(|x| is_word_char(x.1))
            && k - word_start <= 2
    };
    let mut k = win.len();
    for (si, &want) in letters.iter().enumerate().rev() {
        loop {
            if k == 0 {
                return None;
            }
            k -= 1;
            let c = win[k].1.to_ascii_lowercase();
            if c == want && (si > 0 || opens_word(k) || inside_first_word(k)) {
                break;
            }
        }
    }
    // The long form opens at the start of the word holding the first letter.
    while !opens_word(k) {
        k -= 1;
    }
    let start = win[k].0;
    let end = text.trim_end().len();
    // The long form is longer than the short form, and not the short form again.
    let long = &text[start..end];
    (long.chars().count() > short.chars().count() && !long.eq_ignore_ascii_case(short))
        .then_some(start..end)
}

/// Where `text` defines `short`: the byte range of its long form, if `text` holds
/// "long form (SHORT" or "SHORT (long form".
pub fn definition(text: &str, short: &str) -> Option<Range<usize>> {
    for (at, _) in text.match_indices('(') {
        let inner_end = text[at + 1..]
            .find([')', ',', ';'])
            .map_or(text.len(), |e| at + 1 + e);
        let inner = text[at + 1..inner_end].trim();
        if inner == short {
            if let Some(r) = long_form_before(&text[..at], short) {
                return Some(r);
            }
        }
        let before = text[..at].trim_end();
        let named = before
            .rsplit(|c: char| !c.is_alphanumeric() && c != '-')
            .next()
            .unwrap_or("");
        if named == short && inner.split_whitespace().count() >= 2 {
            let inner_start = at + 1 + (text[at + 1..].len() - text[at + 1..].trim_start().len());
            let span = &text[inner_start..inner_start + inner.len()];
            if let Some(r) = long_form_before(span, short).filter(|r| r.start == 0) {
                return Some(inner_start + r.start..inner_start + r.end);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_asking_to_expand_an_acronym_name_it() {
        assert_eq!(asked("What does XAI stand for?").as_deref(), Some("XAI"));
        assert_eq!(asked("What is GFS short for?").as_deref(), Some("GFS"));
        assert_eq!(
            asked("What does the acronym SPARQL mean?").as_deref(),
            Some("SPARQL")
        );
        assert_eq!(
            asked("What is the full form of NER in the paper?").as_deref(),
            Some("NER")
        );
        assert_eq!(asked("What does the term mean?"), None);
        assert_eq!(asked("How many GPUs does XAI use?"), None);
        assert_eq!(asked("What do BERT and ELMo stand for?"), None);
    }

    fn long<'a>(text: &'a str, short: &str) -> Option<&'a str> {
        definition(text, short).map(|r| &text[r])
    }

    #[test]
    fn a_long_form_before_its_acronym_is_found() {
        let t = "We study explainable artificial intelligence (XAI) in medicine.";
        assert_eq!(long(t, "XAI"), Some("explainable artificial intelligence"));
        let t = "Bigtable uses the distributed Google File System (GFS) to store logs.";
        assert_eq!(long(t, "GFS"), Some("Google File System"));
        let t = "Bidirectional Encoder Representations from Transformers (BERT, Devlin et al.)";
        assert_eq!(
            long(t, "BERT"),
            Some("Bidirectional Encoder Representations from Transformers")
        );
    }

    #[test]
    fn a_long_form_in_parentheses_after_its_acronym_is_found() {
        let t = "We evaluate on the NER (named entity recognition) task.";
        assert_eq!(long(t, "NER"), Some("named entity recognition"));
    }

    #[test]
    fn words_that_do_not_spell_the_acronym_are_no_definition() {
        assert_eq!(long("the results of the model (GFS) hold", "GFS"), None);
        assert_eq!(long("GFS (see Section 2)", "GFS"), None);
        assert_eq!(long("as shown (XAI)", "XAI"), None);
        assert_eq!(long("no parenthesis names XAI here", "XAI"), None);
    }

    #[test]
    fn odd_text_never_panics() {
        for t in [
            "(",
            ")(",
            "((XAI",
            "é (XAI)",
            "x (XAI",
            "(XAI) first",
            "ééé ààà (ÉÀ)",
        ] {
            let _ = definition(t, "XAI");
            let _ = definition(t, "ÉÀ");
        }
    }
}
