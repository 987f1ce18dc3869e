//! Fields a requirement declares, and the cues that bind a field to the documents' text:
//! from its name (a leading form code kept as a document hint), from the requirement's own
//! phrase, the act a deadline is set for and the subject a rule is about.

use super::{catalogue, FieldSpec, FieldType, Position, RawField};

/// A declared field: its catalogue entry's cues when the name is a catalogue field,
/// otherwise cues from the words of its name.
pub(super) fn declared_field(f: RawField, text: &str) -> Result<FieldSpec, String> {
    let name = f.name.trim().to_string();
    if name.is_empty() {
        return Err("a field has an empty name".into());
    }
    let ty =
        FieldType::parse(&f.ty).ok_or_else(|| format!("field {name}: unknown type {:?}", f.ty))?;
    let pattern = match f.pattern {
        Some(p) => Some(
            regex::RegexBuilder::new(&p)
                .size_limit(1 << 20)
                .build()
                .map_err(|e| format!("field {name}: pattern {p:?}: {e}"))?,
        ),
        None => None,
    };
    let known = catalogue().into_iter().find(|c| c.name == name);
    let mut spec = match known {
        Some(c) if c.ty == ty => c,
        _ => {
            let (mut cues, documents) = name_cues(&name);
            for c in text_cues(&name, text) {
                if !cues.contains(&c) {
                    cues.push(c);
                }
            }
            FieldSpec {
                cues,
                documents,
                position: if name.ends_with("_end") || name.ends_with("_end_date") {
                    Position::RangeEnd
                } else if name.ends_with("_start") || name.ends_with("_start_date") {
                    Position::RangeStart
                } else {
                    Position::Any
                },
                name: name.clone(),
                ty,
                pattern: None,
                unit: None,
                rule: false,
                extension: None,
                subject: Vec::new(),
                event: Vec::new(),
                act: if ty == FieldType::Date {
                    deadline_act(text)
                } else {
                    Vec::new()
                },
            }
        }
    };
    if pattern.is_some() {
        spec.pattern = pattern;
    }
    if f.unit.is_some() {
        spec.unit = f.unit;
    }
    if let Some(cues) = f.cues {
        let cues: Vec<String> = cues
            .iter()
            .map(|c| c.trim().to_ascii_lowercase())
            .filter(|c| !c.is_empty())
            .collect();
        if cues.is_empty() {
            return Err(format!("field {name}: \"cues\" is empty"));
        }
        spec.cues = cues;
    }
    Ok(spec)
}

/// Whether a name word is a code (`w4`, `faa`, `csf2`): four characters at most, or
/// holding a digit.
fn code_like(w: &str) -> bool {
    w.len() <= 4 || w.chars().any(|c| c.is_ascii_digit())
}

/// Name words that say only what type a value has.
const TYPE_WORDS: &[&str] = &[
    "number",
    "no",
    "id",
    "identifier",
    "date",
    "name",
    "rate",
    "percentage",
    "period",
    "amount",
    "value",
    "code",
    "start",
    "end",
];

/// Cues of a declared field from its name, and the codes it starts with that name its
/// document: `w4_omb_number` → cues `w4 omb number`, `omb number`, `omb no.`, … and
/// document `w4`. A leading code is dropped while more than type words remain.
pub(super) fn name_cues(name: &str) -> (Vec<String>, Vec<String>) {
    let all = name.to_ascii_lowercase().replace(['_', '-'], " ");
    let parts: Vec<&str> = all.split_whitespace().collect();
    let mut cues = phrase_cues(&all);
    let mut documents = Vec::new();
    let mut k = 0;
    while k + 1 < parts.len()
        && code_like(parts[k])
        && !TYPE_WORDS.contains(&parts[k])
        && parts[k + 1..].iter().any(|w| !TYPE_WORDS.contains(w))
    {
        documents.push(parts[k].to_string());
        k += 1;
        for c in phrase_cues(&parts[k..].join(" ")) {
            if !cues.contains(&c) {
                cues.push(c);
            }
        }
    }
    (cues, documents)
}

/// The cues of one phrase of a field name: itself, and `no.`/`#` for `number`,
/// `identifier` for `id`, the phrase without a date or range suffix.
fn phrase_cues(words: &str) -> Vec<String> {
    let mut cues = vec![words.to_string()];
    if let Some(stem) = words.strip_suffix(" number") {
        cues.extend([
            format!("{stem} no."),
            format!("{stem} no"),
            format!("{stem} #"),
        ]);
    }
    if let Some(stem) = words.strip_suffix(" id") {
        cues.extend([format!("{stem} identifier"), format!("{stem} no.")]);
    }
    for suffix in [" start", " end", " date"] {
        if let Some(stem) = words.strip_suffix(suffix).filter(|s| s.contains(' ')) {
            cues.push(stem.to_string());
            // A form prints "Signature of Treasurer" for `treasurer_signature_date`.
            if let Some((a, b)) = stem.split_once(' ').filter(|(_, b)| !b.contains(' ')) {
                cues.push(format!("{b} of {a}"));
            }
        }
    }
    // A role's name is printed after the role ("Contracting Officer, Mark Junda") or
    // under "Name of Treasurer"; a rate after what it is the rate of.
    if let Some(role) = words.strip_suffix(" name").filter(|r| r.len() >= 6) {
        cues.extend([role.to_string(), format!("name of {role}")]);
    }
    if let Some(what) = words.strip_suffix(" rate").filter(|s| s.contains(' ')) {
        cues.push(what.to_string());
    }
    // A form prints "Date signed" for a signed date.
    if let Some(act) = words
        .strip_suffix(" date")
        .and_then(|s| s.rsplit(' ').next())
        .filter(|a| a.len() > 4 && a.ends_with("ed"))
    {
        cues.push(format!("date {act}"));
    }
    // "catalog no." is printed "Cat. No.".
    let short: Vec<String> = cues
        .iter()
        .map(|c| {
            c.split(' ')
                .map(|w| match crate::text::short_forms(w).first() {
                    Some(a) if w != "number" => format!("{a}."),
                    _ => w.to_string(),
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .filter(|c| !cues.contains(c))
        .collect();
    cues.extend(short);
    cues
}

/// Cues of a declared field from the requirement text: the phrase that ends in a type
/// word ("number", "date", "name", …) and starts at a word of the field's name ("The
/// committee's FEC identification number" for `fec_committee_id` → `fec identification
/// number`, `committee's fec identification number`).
fn text_cues(name: &str, text: &str) -> Vec<String> {
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\''))
        .collect();
    let name_words: Vec<String> = name
        .to_ascii_lowercase()
        .split('_')
        .map(String::from)
        .collect();
    // "covering" names the field `coverage_start_date`: forms of one word share a root.
    let in_name = |w: &str| {
        let w = w.trim_end_matches("'s");
        w.len() >= 2
            && name_words.iter().any(|n| {
                n == w || (n.len() >= 5 && n.get(..5).is_some_and(|p| w.get(..5) == Some(p)))
            })
    };
    let mut cues = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if !TYPE_WORDS.contains(w) || i == 0 {
            continue;
        }
        for s in i.saturating_sub(3)..i {
            if in_name(words[s]) && !words[s..i].iter().any(|x| x.is_empty()) {
                let cue = words[s..=i].join(" ");
                if cue.contains(' ') && !cues.contains(&cue) {
                    cues.push(cue);
                }
            }
        }
    }
    cues
}

/// Modal words after which a requirement names the act a deadline is set for.
const ACT_MODALS: &[&str] = &[
    " must ",
    " shall ",
    " should ",
    " is to ",
    " are to ",
    " has to ",
    " have to ",
    " will ",
    " may ",
];

/// Words of the act a deadline is set for, from the requirement text: the verb and the
/// next content word after "by which … must" ("the date by which the FAA must receive
/// comments" → receive, comments) or after "deadline for" ("the deadline for submitting
/// responses" → submitting, responses). Empty when the text sets no deadline.
fn deadline_act(text: &str) -> Vec<String> {
    let lower = text.to_lowercase();
    let after = if let Some(i) = lower.find("by which ") {
        let rest = &lower[i..];
        ACT_MODALS
            .iter()
            .filter_map(|m| rest.find(m).map(|j| &rest[j + m.len()..]))
            .min_by_key(|r| std::cmp::Reverse(r.len()))
    } else {
        ["deadline for ", "deadline to ", "due date for "]
            .iter()
            .find_map(|p| lower.find(p).map(|j| &lower[j + p.len()..]))
    };
    let Some(after) = after else {
        return Vec::new();
    };
    crate::text::words(after)
        .into_iter()
        .filter(|w| !crate::text::is_stopword(w) && w.chars().all(char::is_alphabetic))
        .take(2)
        .collect()
}

/// Rule fields (deadlines, retention periods) bound to what the requirement text is
/// about: the words of its subject, and whether it asks for an extension of a deadline or
/// the deadline itself.
pub(super) fn scoped(mut fields: Vec<FieldSpec>, text: &str) -> Vec<FieldSpec> {
    let lower = text.to_lowercase();
    let extends = lower
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| matches!(w, "extend" | "extended" | "extends" | "extension"));
    for f in fields.iter_mut().filter(|f| f.rule) {
        f.extension = Some(extends);
        f.subject = subject_words(&lower);
        if f.ty == FieldType::Duration {
            let periods = crate::review::fields::values::durations_in(text, f.duration_unit());
            if let [one] = periods.as_slice() {
                f.event = crate::review::fields::event_words(text, one.end);
            }
        }
    }
    fields
}

/// Words too general to tell one subject from another.
const SUBJECT_STOP: &[&str] = &[
    "the",
    "and",
    "for",
    "with",
    "that",
    "this",
    "these",
    "those",
    "its",
    "their",
    "any",
    "all",
    "each",
    "every",
    "other",
    "following",
    "after",
    "before",
    "from",
    "into",
    "under",
    "such",
    "which",
    "who",
    "whose",
    "when",
    "where",
    "than",
    "more",
    "less",
    "fewer",
    "not",
    "cannot",
    "including",
    "required",
    "requirement",
    "written",
    "there",
    "where",
    "has",
    "have",
    "been",
    "being",
    "also",
    "only",
    "per",
];

/// The content words of a requirement's subject: what comes before its first modal
/// ("Audit logs and other records … shall be retained" → audit, logs, records, …). Empty
/// when the text has no modal.
pub fn subject_words(lower: &str) -> Vec<String> {
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let Some(modal) = words
        .iter()
        .position(|w| matches!(*w, "shall" | "must" | "may" | "will" | "should"))
    else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    for w in &words[..modal] {
        let keep = w.chars().count() >= 3
            && !w.chars().all(|c| c.is_ascii_digit())
            && !SUBJECT_STOP.contains(w);
        if keep && !out.iter().any(|o| o == w) {
            out.push(w.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_names_give_cues_and_the_codes_that_name_their_document() {
        let (cues, docs) = name_cues("w4_omb_number");
        assert_eq!(docs, vec!["w4"]);
        assert!(cues.contains(&"omb no.".to_string()), "{cues:?}");
        let (cues, docs) = name_cues("w9_catalog_number");
        assert_eq!(docs, vec!["w9"]);
        assert!(cues.contains(&"cat. no.".to_string()), "{cues:?}");
        // Words that are not codes stay: "comment" binds the date, not a document.
        let (cues, docs) = name_cues("comment_due_date");
        assert!(docs.is_empty());
        assert!(cues.contains(&"comment due".to_string()), "{cues:?}");
        assert!(!cues.contains(&"due date".to_string()), "{cues:?}");
        // A code followed by type words only stays in the cue.
        assert!(name_cues("ad_date").1.is_empty());
        assert_eq!(
            text_cues(
                "fec_committee_id",
                "The committee's FEC identification number is stated on the report."
            ),
            vec![
                "committee's fec identification number".to_string(),
                "fec identification number".into()
            ]
        );
    }

    #[test]
    fn a_deadline_requirement_names_the_act_its_date_is_set_for() {
        assert_eq!(
            deadline_act("The date by which the FAA must receive comments on the AD is stated."),
            ["receive", "comments"]
        );
        assert_eq!(
            deadline_act("The deadline for submitting responses to the RFI is stated."),
            ["submitting", "responses"]
        );
        // The first modal after "by which" names the act, not a later one.
        assert_eq!(
            deadline_act(
                "The date by which an employee must submit a new form, which shall be signed."
            ),
            ["submit", "new"]
        );
        assert!(deadline_act("The date on which the rule becomes effective is stated.").is_empty());
    }

    #[test]
    fn role_names_rates_and_form_dates_give_their_printed_cues() {
        let cues = phrase_cues("contracting officer name");
        assert!(
            cues.contains(&"contracting officer".to_string()),
            "{cues:?}"
        );
        assert!(phrase_cues("treasurer name").contains(&"name of treasurer".to_string()));
        // A role too short to be told from other words stays whole.
        assert!(!phrase_cues("ad name").contains(&"ad".to_string()));
        assert!(phrase_cues("backup withholding rate").contains(&"backup withholding".to_string()));
        assert!(phrase_cues("authorization signed date").contains(&"date signed".to_string()));
        assert!(
            phrase_cues("treasurer signature date").contains(&"signature of treasurer".to_string())
        );
        assert!(!phrase_cues("coverage end date")
            .iter()
            .any(|c| c.starts_with("date ")));
    }
}
