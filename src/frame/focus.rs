//! What a question asks about: its focus words, the head of the phrase asked for, its
//! named things (quoted strings, runs of capitalised or code-like words) and whether they
//! stand side by side, whether it describes what it asks about through something else,
//! and the question without what it leaves out.

use super::answer_type::time_word;
use super::{asks, framing, lower_words, scaffold, AnswerType, FAMILY_UNITS};
use crate::lexicon::{self, Class};

/// Words that open a clause describing a thing ("the film that …", "the actor who …").
const RELATIVES: &[&str] = &["that", "who", "which", "whose", "whom", "where"];

/// Whether a question (lower-case words `w`, focus `focus`) describes what it asks about
/// through something else: a relative word after its opening words, or a long focus.
pub(super) fn composite(w: &[String], focus: &[String]) -> bool {
    focus.len() >= 5 || w.iter().skip(2).any(|x| RELATIVES.contains(&x.as_str()))
}

/// Words that open what a question leaves out ("apart from Article 24").
const EXCLUSIONS: &[&str] = &[
    "apart from",
    "except for",
    "except",
    "excluding",
    "other than",
    "not including",
    "aside from",
];

/// `question` without what it leaves out: a bracket or a clause up to the next comma or
/// bracket that opens with one of [`EXCLUSIONS`]. What is left out names neither what
/// is asked for nor what the answer must be about.
pub(super) fn without_exclusions(question: &str) -> String {
    let lower = question.to_lowercase();
    let mut out = question.to_string();
    for x in EXCLUSIONS {
        let Some(at) = lower.find(&format!("{x} ")) else {
            continue;
        };
        if lower.len() != question.len() || !question.is_char_boundary(at) {
            return out;
        }
        let open = question[..at].trim_end().ends_with(['(', ',']);
        let start = if open {
            question[..at].trim_end().len() - 1
        } else {
            at
        };
        let rest = &question[at..];
        let end = at
            + rest.find([')', ',', '?', ';']).map_or(rest.len(), |i| {
                if rest[i..].starts_with(')') && open {
                    i + 1
                } else {
                    i
                }
            });
        out = format!("{}{}", question[..start].trim_end(), &question[end..]);
        break;
    }
    out
}

/// The strings `question` puts in quotes (an apostrophe inside a word is not one).
fn quoted(question: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for q in ['\'', '"', '‘', '“'] {
        let close = match q {
            '‘' => '’',
            '“' => '”',
            c => c,
        };
        let mut rest = question;
        while let Some(i) = rest.find(q) {
            let after = &rest[i + q.len_utf8()..];
            // An apostrophe inside a word is not a quote.
            if q == '\''
                && rest[..i]
                    .chars()
                    .next_back()
                    .is_some_and(char::is_alphanumeric)
            {
                rest = after;
                continue;
            }
            let Some(j) = after.find(close) else { break };
            let inner = after[..j].trim();
            if !inner.is_empty() && inner.split_whitespace().count() <= 8 {
                out.push(inner.to_string());
            }
            rest = &after[j + close.len_utf8()..];
        }
    }
    out
}

/// Named things: quoted strings, and runs of capitalised (or code-like) words that do
/// not open the question, less the question's own scaffold.
pub(super) fn entities(question: &str) -> Vec<String> {
    let periods = crate::period::periods(question);
    // "40 CFR 261.7", "Article 12": a provision the question names is held to by
    // `ask::select::hold_to_named`, not a name the evidence must repeat.
    let cited = crate::source::named::named_in(question);
    let mut out: Vec<String> = quoted(question);
    let mut run: Vec<&str> = Vec::new();
    let words: Vec<&str> = question.split_whitespace().collect();
    for (i, raw) in words.iter().enumerate() {
        let w = raw.trim_matches(|c: char| !c.is_alphanumeric());
        // "Norway's capacity" names Norway.
        let w = w
            .strip_suffix("'s")
            .or_else(|| w.strip_suffix("’s"))
            .unwrap_or(w);
        // The first word is capitalised anyway: it names something only when the next
        // word is capitalised too and it neither asks nor frames ("Brown State Fishing
        // Lake is …").
        let next_capital = words
            .get(1)
            .and_then(|x| {
                x.trim_matches(|c: char| !c.is_alphanumeric())
                    .chars()
                    .next()
            })
            .is_some_and(char::is_uppercase);
        let lower = w.to_lowercase();
        let opens = i == 0
            && next_capital
            && !raw.ends_with([',', ':'])
            && !asks(&lower)
            && !lexicon::is(Class::Auxiliary, &lower)
            && !framing(&lower)
            && !crate::text::is_stopword(&lower);
        let named = (i > 0 || opens)
            && !w.is_empty()
            && (w.chars().next().is_some_and(char::is_uppercase)
                || (w.chars().any(|c| c.is_ascii_digit()) && w.chars().any(char::is_alphabetic)))
            && !scaffold(&w.to_lowercase());
        if named {
            run.push(w);
        }
        let ends = !named || raw.ends_with([',', '?', ';', ':', ')']) || raw.ends_with("'s");
        if ends && !run.is_empty() {
            let e = run.join(" ");
            // A run inside a period the question names ("Oct." of "Oct. 2022") is the
            // period, not a named thing.
            let in_period = run
                .iter()
                .all(|r| periods.iter().any(|p| p.text.contains(r)));
            let in_citation = run.iter().all(|r| cited.iter().any(|c| c.text.contains(r)));
            if !out.iter().any(|o| o.contains(&e))
                && crate::period::periods(&e).is_empty()
                && !in_period
                && !in_citation
            {
                out.push(e);
            }
            run.clear();
        }
    }
    out
}

/// The focus: content words less scaffold, named things and periods.
/// Whether two named things of `question` stand side by side, joined by `and`, `or`,
/// `vs` or a comma (see [`Frame::either`](super::Frame::either)).
pub(super) fn either(question: &str, entities: &[String]) -> bool {
    entities.windows(2).any(|p| {
        let (Some(a), Some(b)) = (question.find(p[0].as_str()), question.rfind(p[1].as_str()))
        else {
            return false;
        };
        let Some(between) = question.get(a + p[0].len()..b) else {
            return false;
        };
        let joint = between
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase();
        matches!(
            joint.as_str(),
            "and" | "or" | "vs" | "versus" | "and the" | "or the" | ""
        ) && between.len() < 12
    })
}

/// Words that end the phrase naming what is asked for, besides the auxiliaries
/// ([`Class::Auxiliary`]).
const PHRASE_ENDS: &[&str] = &[
    "at", "for", "of", "in", "on", "by", "to", "from", "with", "when", "that", "which", "under",
    "per", "during", "if",
];

/// The head of the phrase asked for: the last focus word (not a participle) before the
/// first phrase end that follows one (see [`Frame::head`](super::Frame::head)).
pub(super) fn head(w: &[String], focus: &[String]) -> Option<String> {
    if let Some(counted) = counted_noun(w, focus) {
        return Some(counted);
    }
    // "How long are client records kept?": after an auxiliary, the last word is the
    // verb, not what is asked for.
    let inverted = w.iter().take(3).any(|x| lexicon::is(Class::Auxiliary, x));
    let mut last: Option<&String> = None;
    for (i, x) in w.iter().enumerate() {
        if (PHRASE_ENDS.contains(&x.as_str()) || lexicon::is(Class::Auxiliary, x)) && last.is_some()
        {
            break;
        }
        let verb = inverted && i + 1 == w.len();
        let participle = verb || (x.len() > 4 && (x.ends_with("ed") || x.ends_with("ing")));
        if focus.contains(x) && !participle {
            last = Some(x);
        }
    }
    last.cloned()
}

/// For "How many …?", the noun counted: the first plural focus word among the three
/// after "many", or the last of plurals written together ("How many parcels make up …":
/// parcels; "How many board members …": members; "How many fish species …": species),
/// not a verb after it.
fn counted_noun(w: &[String], focus: &[String]) -> Option<String> {
    if w.first().map(String::as_str) != Some("how") || w.get(1).map(String::as_str) != Some("many")
    {
        return None;
    }
    let plural = |x: &str| {
        crate::lexicon::is(crate::lexicon::Class::IrregularPlural, x)
            || (x.len() > 2
                && x.ends_with('s')
                && !x.ends_with("ss")
                && !x.ends_with("us")
                && !x.ends_with("is"))
    };
    let after: Vec<&String> = w.iter().skip(2).take(3).collect();
    let first = after.iter().position(|x| focus.contains(x) && plural(x))?;
    // A plural right after a plural ends the noun ("fish species": species).
    let mut at = first;
    while after
        .get(at + 1)
        .is_some_and(|x| focus.contains(x) && plural(x))
    {
        at += 1;
    }
    Some(after[at].clone())
}

pub(super) fn focus(
    w: &[String],
    entities: &[String],
    periods: &[String],
    t: AnswerType,
) -> Vec<String> {
    let own: &[&str] = match t {
        AnswerType::Money => &["paid", "pay", "spent", "cost", "costs", "charged", "worth"],
        AnswerType::Date | AnswerType::Period => {
            &["posted", "dated", "occur", "happen", "take", "place"]
        }
        AnswerType::Quantity => &["count", "counts", "grand", "figures", "limit", "limits"],
        AnswerType::Duration => &["time", "limit", "limits", "within", "duration"],
        AnswerType::Time => &["time", "clock", "o'clock"],
        AnswerType::Person | AnswerType::Organisation => &["named"],
        _ => &[],
    };
    let named: Vec<String> = entities
        .iter()
        .chain(periods)
        .flat_map(|e| lower_words(e))
        .collect();
    let mut out: Vec<String> = Vec::new();
    for (i, x) in w.iter().enumerate() {
        // "… have in common?": what two things share, not a word they use; "what class
        // of instrument": an instrument is asked for, the class word only frames it.
        let in_common = x == "common" && i > 0 && w[i - 1] == "in";
        let kind_of = ["type", "kind", "sort", "class", "category"].contains(&x.as_str())
            && w.get(i + 1).is_some_and(|n| n == "of");
        // "how big", "how large", "how old": the degree asked, as "how long" and "how
        // many" are, not a word the passage uses.
        let degree = i > 0 && w[i - 1] == "how";
        let skip = in_common
            || kind_of
            || degree
            || scaffold(x)
            || own.contains(&x.as_str())
            || crate::text::is_stopword(x)
            || named.contains(x)
            || x.chars()
                .all(|c| c.is_ascii_digit() || c == '.' || c == ',')
            || crate::period::periods(x).iter().any(|p| p.month.is_some())
            || time_word(x.trim_end_matches('s'))
            || FAMILY_UNITS
                .iter()
                .any(|(u, _)| x.trim_end_matches('s') == *u)
            // A unit says what kind of value is asked ("how many megawatt-hours"), not a
            // word the passage must use; a letter or two is no unit in a question.
            || (x.chars().count() > 2 && crate::value::typed::named_unit(x).is_some());
        if !skip && !out.contains(x) {
            out.push(x.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::{frame, DateRole, Extreme, UnitFamily};

    #[test]
    fn composite_questions_and_measures_before_a_place() {
        assert!(frame("Who was known by his stage name Aladin and helped organizations improve their performance as a consultant?").composite);
        assert!(
            frame("What government position was held by the woman who portrayed Corliss Archer?")
                .composite
        );
        assert!(!frame("What is the treasurer's telephone number?").composite);
        assert!(!frame("Who is the treasurer?").composite);
        let f = frame("What football club plays in the area between the old toll gates?");
        assert_ne!(f.answer_type, AnswerType::Quantity);
        let f = frame("What is the total area of the project in hectares?");
        assert_eq!(f.unit_family, Some(UnitFamily::Area));
        let f = frame(
            "The Memphis Hustle are based in a suburb of a city with a population of what in 2010?",
        );
        assert_eq!(f.unit_family, Some(UnitFamily::Count));
        let f = frame("Brown State Fishing Lake is in a country with how many inhabitants?");
        // "State" is scaffold, so the run breaks there; the first word still names.
        assert_eq!(f.entities.first().map(String::as_str), Some("Brown"));
        assert!(!frame("In Table 324, how many arrests?")
            .entities
            .iter()
            .any(|e| e.starts_with("In")));
        assert!(!frame("What Permit count is shown?")
            .entities
            .iter()
            .any(|e| e.starts_with("What")));
        let f = frame("What was the Permit count for Kentucky?");
        assert_eq!(f.unit_family, Some(UnitFamily::Count));
    }

    #[test]
    fn the_head_names_what_is_asked_for() {
        let h = |q: &str| frame(q).head;
        assert_eq!(
            h("What was the national average tuition at four-year public colleges?").as_deref(),
            Some("tuition")
        );
        assert_eq!(
            h("How many checks were denied in Texas?").as_deref(),
            Some("checks")
        );
        assert_eq!(h("What telephone number is entered?"), None);
        assert_eq!(
            h("How many parcels make up the Project Area of the Estate?").as_deref(),
            Some("parcels")
        );
        assert_eq!(
            h("How many board members are appointed by the mayor?").as_deref(),
            Some("members")
        );
        assert_eq!(
            h("How many fish species does the survey record?").as_deref(),
            Some("species")
        );
        assert_eq!(
            h("How long are client records kept?").as_deref(),
            Some("records")
        );
    }

    #[test]
    fn what_a_question_leaves_out_frames_nothing() {
        assert_eq!(
            without_exclusions("From what date does it apply (apart from Article 24)?"),
            "From what date does it apply?"
        );
        assert_eq!(
            without_exclusions("Which fees apply, except for parking fees, to students?"),
            "Which fees apply, to students?"
        );
        let f =
            frame("From what date does Regulation (EU) 2018/1805 apply (apart from Article 24)?");
        assert!(!f.focus.contains(&"apart".to_string()));
        assert!(!f.entities.iter().any(|e| e.contains("Article")));
    }

    #[test]
    fn constraints_and_focus_are_read() {
        let f = frame("On what date does the regulation expire?");
        assert_eq!(f.date_role, Some(DateRole::Expiry));
        assert_eq!(f.focus, ["regulation", "expire"]);
        // Words that only frame what is asked for are no focus.
        let f = frame("What class of instrument does Ravi Shankar play?");
        assert_eq!(f.focus, ["instrument", "play"]);
        let f = frame("Which actor do Gibson and Tati have in common?");
        assert_eq!(f.focus, ["actor"]);
        let f = frame("What is the minimum fine for a prohibited practice?");
        assert_eq!(f.extreme, Some(Extreme::Min));
        assert!(
            f.focus.contains(&"fine".to_string()) && f.focus.contains(&"prohibited".to_string())
        );
        let f = frame("How many NICS background checks were denied in Texas in November 2015?");
        assert_eq!(f.entities, ["NICS", "Texas"]);
        assert_eq!(f.periods, ["November 2015"]);
        assert_eq!(f.focus, ["background", "checks", "denied"]);
        let f = frame("What was Norway's silicon carbide capacity in 2010?");
        assert_eq!(f.entities, ["Norway"]);
        let f = frame("What is the treasurer's telephone number?");
        assert_eq!(f.focus, ["treasurer"]);
        let f = frame("What other name is listed under 'Other names used'?");
        assert!(
            f.entities.contains(&"Other names used".to_string()),
            "{:?}",
            f.entities
        );
        let f = frame("How many clients did the program serve in Oct. 2022?");
        assert!(f.entities.is_empty(), "{:?}", f.entities);
        let f = frame("How many days after discovery must notice be given?");
        assert_eq!(f.unit.as_deref(), Some("day"));
    }
}
