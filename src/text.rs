//! Text utilities shared by the stages: words, stop words, a crude stemmer, word counts
//! and the figures a sentence states. Deterministic and model-free.

use crate::lexicon::{self, Class};

/// Whether `w` (lower case) is a stop word ([`Class::Stop`]).
pub fn is_stopword(w: &str) -> bool {
    lexicon::is(Class::Stop, w)
}

/// Lower-cased words of `text`: maximal runs of alphanumeric characters.
pub fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| w.to_lowercase())
        .collect()
}

/// An ending is dropped only when more than this many bytes remain (short words keep
/// their endings: "uses", "bed").
const MIN_STEM_BYTES: usize = 3;

/// A crude, deterministic normalisation so "records" matches "record" and "retained"
/// matches "retain": lower case, then a plural or past-tense ending is dropped.
pub fn stem(w: &str) -> String {
    for suffix in ["ies", "es", "ed", "s"] {
        if w.len() > suffix.len() + MIN_STEM_BYTES && w.ends_with(suffix) {
            return w[..w.len() - suffix.len()].to_string();
        }
    }
    w.to_string()
}

/// Byte spans of the words of `text`.
pub fn word_spans(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut run: Option<usize> = None;
    for (i, c) in text.char_indices().chain([(text.len(), ' ')]) {
        match (c.is_alphanumeric(), run) {
            (true, None) => run = Some(i),
            (false, Some(s)) => {
                out.push((s, i));
                run = None;
            }
            _ => {}
        }
    }
    out
}

/// Abbreviations written with a full stop on forms and in reports, and the word each
/// stands for ("Rev. March 2024" is a revision date; "Docket No." a number).
const ABBREVIATIONS: &[(&str, &str)] = &[
    ("rev", "revision"),
    ("no", "number"),
    ("nos", "numbers"),
    ("dept", "department"),
    ("govt", "government"),
    ("corp", "corporation"),
    ("inc", "incorporated"),
    ("co", "company"),
    ("amt", "amount"),
    ("qty", "quantity"),
    ("tel", "telephone"),
    ("ph", "phone"),
    ("yr", "year"),
    ("yrs", "years"),
    ("approx", "approximately"),
    ("est", "estimated"),
    ("max", "maximum"),
    ("min", "minimum"),
    ("ref", "reference"),
    ("cat", "catalog"),
    ("reg", "regulation"),
    ("sec", "section"),
    ("art", "article"),
    ("para", "paragraph"),
    ("vol", "volume"),
    ("ed", "edition"),
    ("pub", "public"),
    ("ave", "avenue"),
    ("st", "street"),
];

/// Abbreviations of [`ABBREVIATIONS`] that are no English word of their own: a search for
/// the full word may also look for them ("revision" finds "Rev."). "No", "art", "min" and
/// the like are left out, as they would match everywhere.
const SEARCHABLE_ABBREVIATIONS: &[&str] = &[
    "rev", "nos", "dept", "govt", "corp", "amt", "qty", "tel", "yrs", "approx", "para",
];

/// The abbreviations a search for `word` (lower case) may also look for: see
/// [`SEARCHABLE_ABBREVIATIONS`].
pub fn abbreviations_of(word: &str) -> Vec<&'static str> {
    ABBREVIATIONS
        .iter()
        .filter(|(a, full)| *full == word && SEARCHABLE_ABBREVIATIONS.contains(a))
        .map(|(a, _)| *a)
        .collect()
}

/// Every abbreviation of `word` ("catalog" → `cat`), searchable or not.
pub fn short_forms(word: &str) -> Vec<&'static str> {
    ABBREVIATIONS
        .iter()
        .filter(|(_, full)| *full == word)
        .map(|(a, _)| *a)
        .collect()
}

/// The words abbreviations in `text` stand for: each word of [`ABBREVIATIONS`] written
/// with a full stop right after it ("Rev." → `revision`), lower case.
pub fn expanded_abbreviations(text: &str) -> Vec<&'static str> {
    let mut out = Vec::new();
    for (i, _) in text.match_indices('.') {
        let before = &text[..i];
        let start = before
            .char_indices()
            .rev()
            .find(|(_, c)| !c.is_alphabetic())
            .map_or(0, |(j, c)| j + c.len_utf8());
        let word = before[start..].to_lowercase();
        if let Some((_, full)) = ABBREVIATIONS.iter().find(|(a, _)| *a == word) {
            out.push(*full);
        }
    }
    out
}

/// The forms of `w` a word may be matched by: its stem and, for a plural in `-es`, the
/// stem of its singular (`females` → `femal` and `female`).
pub fn stem_forms(w: &str) -> Vec<String> {
    let mut out = vec![stem(w)];
    if let Some(one) = w.strip_suffix('s') {
        let s = stem(one);
        if s != out[0] {
            out.push(s);
        }
    }
    // A sibilant's plural adds "es": "bus" and "buses", "tax" and "taxes" name one thing.
    let sibilant = |b: &str| b.ends_with(['s', 'x', 'z']) || b.ends_with("ch") || b.ends_with("sh");
    let sibilant_number = match w.strip_suffix("es") {
        Some(base) if sibilant(base) && base.len() >= 2 => Some(base.to_string()),
        _ => sibilant(w).then(|| format!("{w}es")),
    };
    if let Some(s) = sibilant_number.map(|o| stem(&o)) {
        if !out.contains(&s) {
            out.push(s);
        }
    }
    // "cities" and "city" name one thing.
    let other_number = match w.strip_suffix("ies") {
        Some(base) if base.len() >= 2 => Some(format!("{base}y")),
        _ => w
            .strip_suffix('y')
            .filter(|b| b.len() >= 2 && !b.ends_with(['a', 'e', 'o', 'u']))
            .map(|b| format!("{b}ies")),
    };
    if let Some(s) = other_number.map(|o| stem(&o)) {
        if !out.contains(&s) {
            out.push(s);
        }
    }
    // An agent noun and its verb: "player" is met by "plays".
    if let Some(verb) = w.strip_suffix("er").filter(|v| v.len() >= 4) {
        let s = stem(verb);
        if !out.contains(&s) {
            out.push(s);
        }
    }
    // A verb and its action noun: "decide" is met by "decision", "termination" by
    // "terminate".
    for other in action_forms(w) {
        let s = stem(&other);
        if !out.contains(&s) {
            out.push(s);
        }
    }
    // An irregular verb's other forms ("become" is met by "became").
    if let Some(group) = IRREGULAR.iter().find(|g| g.contains(&w)) {
        out.extend(group.iter().filter(|f| **f != w).map(|f| stem(f)));
    }
    out
}

/// Endings of a verb and of its action noun (`decide`/`decision`, `submit`/`submission`,
/// `terminate`/`termination`, `notify`/`notification`, `approve`/`approval`).
const ACTION_ENDINGS: &[(&str, &str)] = &[
    ("ide", "ision"),
    ("ude", "usion"),
    ("mit", "mission"),
    ("ate", "ation"),
    ("ify", "ification"),
    ("ize", "ization"),
    ("ise", "isation"),
    ("ove", "oval"),
];

/// Verbs whose action noun names something else in the documents this engine reads
/// ("provision" is a clause, not the act of providing).
const NOT_ACTIONS: &[&str] = &["provide", "provides", "provision", "provisions"];

/// The action noun of a verb, or the verb of an action noun (see [`ACTION_ENDINGS`]);
/// the base must keep three letters.
fn action_forms(w: &str) -> Vec<String> {
    if NOT_ACTIONS.contains(&w) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (verb, noun) in ACTION_ENDINGS {
        if let Some(base) = w.strip_suffix(verb).filter(|b| b.len() >= 3) {
            out.push(format!("{base}{noun}"));
        }
        if let Some(base) = w.strip_suffix(noun).filter(|b| b.len() >= 3) {
            out.push(format!("{base}{verb}"));
        }
    }
    out
}

/// Irregular verbs whose forms a question and a passage may use in turn ("When did the
/// Act become law?" / "… became public law …").
const IRREGULAR: &[&[&str]] = &[
    &["become", "became"],
    &["begin", "began", "begun"],
    &["bring", "brought"],
    &["build", "built"],
    &["buy", "bought"],
    &["choose", "chose", "chosen"],
    &["come", "came"],
    &["draw", "drew", "drawn"],
    &["drive", "drove", "driven"],
    &["fall", "fell", "fallen"],
    &["find", "found"],
    &["fly", "flew", "flown"],
    &["give", "gave", "given"],
    &["go", "went", "gone"],
    &["grow", "grew", "grown"],
    &["hold", "held"],
    &["know", "knew", "known"],
    &["lead", "led"],
    &["leave", "left"],
    &["lose", "lost"],
    &["make", "made"],
    &["meet", "met"],
    &["pay", "paid"],
    &["rise", "rose", "risen"],
    &["run", "ran"],
    &["say", "said"],
    &["sell", "sold"],
    &["send", "sent"],
    &["sing", "sang", "sung"],
    &["speak", "spoke", "spoken"],
    &["spend", "spent"],
    &["take", "took", "taken"],
    &["teach", "taught"],
    &["tell", "told"],
    &["win", "won"],
    &["write", "wrote", "written"],
];

/// Content words of `text`: no stop words, normalised.
pub fn content_words(text: &str) -> Vec<String> {
    words(text)
        .into_iter()
        .filter(|w| !is_stopword(w))
        .map(|w| stem(&w))
        .collect()
}

/// Words of `s` as the length rules count them: whitespace-separated tokens with a letter
/// or digit.
pub fn word_count(s: &str) -> usize {
    s.split_whitespace()
        .filter(|w| w.chars().any(char::is_alphanumeric))
        .count()
}

/// The figures a quote states, as `value unit` keys (`30 days` → `30 day`, `12.5%` →
/// `12.5 percent`, `$5,000` → `5000 dollar`): see [`crate::figure`]. Sorted and
/// distinct; numbers without a unit (dates, section numbers) are not figures.
pub fn figures(quote: &str) -> Vec<String> {
    crate::figure::figure_keys(quote)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_word_is_searched_by_its_abbreviation_unless_that_is_a_word() {
        assert_eq!(abbreviations_of("revision"), vec!["rev"]);
        assert_eq!(abbreviations_of("department"), vec!["dept"]);
        assert!(abbreviations_of("number").is_empty());
        assert!(abbreviations_of("article").is_empty());
        assert!(abbreviations_of("march").is_empty());
    }

    #[test]
    fn abbreviations_with_a_full_stop_are_expanded() {
        assert_eq!(
            expanded_abbreviations("Form W-9 (Rev. March 2024), Docket No. FAA-2020-0686"),
            ["revision", "number"]
        );
        // Without the stop, "no" is a word of its own; "Prev." is no abbreviation here.
        assert!(expanded_abbreviations("There is no fee. Prev. page").is_empty());
    }

    #[test]
    fn irregular_verbs_are_met_by_their_other_forms() {
        assert!(stem_forms("become").contains(&stem("became")));
        assert!(stem_forms("cities").contains(&stem("city")));
        assert!(stem_forms("city").contains(&stem("cities")));
        assert!(stem_forms("bus").contains(&stem("buses")));
        assert!(stem_forms("buses").contains(&stem("bus")));
        assert!(stem_forms("tax").contains(&stem("taxes")));
        assert!(stem_forms("branch").contains(&stem("branches")));
        assert!(!stem_forms("case").contains(&stem("cas")));
        assert!(!stem_forms("day").contains(&stem("dies")));
        assert!(stem_forms("player").contains(&stem("plays")));
        // A verb and its action noun, both ways; a short base and "provide" stay apart.
        assert!(stem_forms("decide").contains(&stem("decision")));
        assert!(stem_forms("termination").contains(&stem("terminate")));
        assert!(stem_forms("submit").contains(&stem("submission")));
        assert!(stem_forms("notify").contains(&stem("notification")));
        assert!(stem_forms("approval").contains(&stem("approve")));
        assert!(!stem_forms("state").contains(&stem("station")));
        assert!(!stem_forms("station").contains(&stem("state")));
        assert!(!stem_forms("provide").contains(&stem("provision")));
        assert!(stem_forms("written").contains(&stem("write")));
        assert!(!stem_forms("became").contains(&stem("come")));
        assert_eq!(stem_forms("retained"), vec![stem("retained")]);
    }

    #[test]
    fn words_stems_counts_and_figures() {
        assert_eq!(words("Ünïcödé, 東京-café"), vec!["ünïcödé", "東京", "café"]);
        assert_eq!(stem("records"), "record");
        assert_eq!(stem("retained"), "retain");
        assert_eq!(
            content_words("the records are retained"),
            vec!["record", "retain"]
        );
        assert_eq!(word_count("a -- b, 7 ?"), 3);
        assert_eq!(
            figures("seven (7) years and 30 business days"),
            vec!["30 day", "7 year"]
        );
    }
}
