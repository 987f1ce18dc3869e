//! Whose rule a value is. A regulation states the same deadline in several sections
//! ("no later than 60 calendar days" to notify individuals, the media, the Secretary), and
//! the sentences can be word for word the same: only the document or section title says
//! whom each one binds. Among the values of a rule field, those whose title the requirement
//! names best are kept (best also among sections that speak of the field without stating
//! a value: then the values under lesser titles are other subjects' rules); a title of only general words ("Administrative requirements") says
//! nothing either way, so its values stay when they agree with the kept ones. The others
//! are set aside with the reason, never silently dropped.

use std::collections::HashMap;

use crate::answer::EvidenceItem;
use crate::engine::Engine;
use crate::error::Error;

use super::checklist::Requirement;
use super::fields::RejectReason;
use super::{FieldValue, RejectedValue};

/// Title words that name no subject.
const GENERAL: &[&str] = &[
    "requirements",
    "requirement",
    "general",
    "administrative",
    "organizational",
    "organisational",
    "provisions",
    "definitions",
    "miscellaneous",
    "other",
    "standards",
    "standard",
    "applicability",
    "purpose",
    "scope",
    "part",
    "section",
    "subpart",
    "rules",
];

/// The subject words of a title or section heading: lower-case words of three or more
/// letters, without numbers, joining words and [`GENERAL`] words.
fn subject_words(title: &str) -> Vec<String> {
    let lower = title.to_lowercase();
    lower
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| w.chars().count() >= 3)
        .filter(|w| {
            !matches!(
                *w,
                "and" | "the" | "for" | "with" | "from" | "into" | "under"
            )
        })
        .filter(|w| !GENERAL.contains(w))
        .map(str::to_string)
        .collect()
}

/// Weights of words by how few chunks hold them (inverse document frequency), cached.
struct Weights<'a> {
    engine: &'a Engine,
    total: f64,
    seen: HashMap<String, f64>,
}

impl<'a> Weights<'a> {
    fn new(engine: &'a Engine) -> Result<Self, Error> {
        let total = engine.store().chunk_count()? as f64;
        Ok(Weights {
            engine,
            total,
            seen: HashMap::new(),
        })
    }

    fn of(&mut self, w: &str) -> Result<f64, Error> {
        if let Some(x) = self.seen.get(w) {
            return Ok(*x);
        }
        let df = self.engine.store().term_chunk_count(w)? as f64;
        let x = ((self.total + 1.0) / (df + 1.0)).ln().max(0.1);
        self.seen.insert(w.to_string(), x);
        Ok(x)
    }

    /// Weighted share of `words` that `lower` names; `None` for no words.
    fn share(&mut self, lower: &str, words: &[String]) -> Result<Option<f64>, Error> {
        if words.is_empty() {
            return Ok(None);
        }
        let (mut named, mut all) = (0.0, 0.0);
        for w in words {
            let x = self.of(w)?;
            all += x;
            if super::fields::names_word(lower, w) {
                named += x;
            }
        }
        Ok(Some(named / all))
    }

    /// Summed weight of the `words` that `lower` names; `None` for no words.
    fn named(&mut self, lower: &str, words: &[String]) -> Result<Option<f64>, Error> {
        if words.is_empty() {
            return Ok(None);
        }
        let mut named = 0.0;
        for w in words {
            if super::fields::names_word(lower, w) {
                named += self.of(w)?;
            }
        }
        Ok(Some(named))
    }
}

/// A sentence naming less than this share of the best sentence's requirement words is
/// about something else, even under an equally named title.
const SENTENCE_SLACK: f64 = 0.5;

/// A document whose evidence names less than this share of the best document's share of
/// the requirement's subject ("prominent newspapers") speaks of another subject.
const ABOUT_SLACK: f64 = 0.5;

/// How well one value's place names the requirement: the weight of its title (and
/// section) words the requirement names, the share of the requirement's subject its
/// document's evidence names, and the share of the requirement's words its sentence names.
struct Place {
    title: Option<f64>,
    about: f64,
    sentence: f64,
}

/// Per document, the lower-case text of its evidence items and titles.
fn document_texts(evidence: &[EvidenceItem]) -> HashMap<&str, String> {
    let mut out: HashMap<&str, String> = HashMap::new();
    for e in evidence {
        let t = out.entry(e.doc_id.as_str()).or_default();
        t.push_str(&e.title.to_lowercase());
        t.push('\n');
        t.push_str(&e.quote.to_lowercase());
        t.push('\n');
    }
    out
}

/// What the requirement asks, as [`place`] weighs it.
struct Asked<'a> {
    text: String,
    words: Vec<String>,
    subject: Vec<String>,
    docs: HashMap<&'a str, String>,
}

fn place(
    w: &mut Weights,
    asked: &Asked,
    v: &FieldValue,
    evidence: &[EvidenceItem],
) -> Result<Place, Error> {
    let Some(item) = evidence.iter().find(|e| e.id == v.evidence) else {
        return Ok(Place {
            title: None,
            about: 0.0,
            sentence: 0.0,
        });
    };
    let (text, req_words) = (&asked.text, &asked.words);
    let about = match asked.docs.get(item.doc_id.as_str()) {
        Some(doc) => w.share(doc, &asked.subject)?.unwrap_or(1.0),
        None => 0.0,
    };
    let mut words = subject_words(&item.title);
    words.extend(
        item.section
            .as_deref()
            .map(subject_words)
            .unwrap_or_default(),
    );
    words.sort();
    words.dedup();
    let title = w.named(text, &words)?;
    let at = v.start.saturating_sub(item.start).min(item.quote.len());
    let to = v.end.saturating_sub(item.start).clamp(at, item.quote.len());
    let sentence = match item.quote.get(at..to) {
        Some(_) => {
            let (s, e) = super::fields::sentence_around(&item.quote, at, to);
            item.quote[s..e].to_lowercase()
        }
        None => item.quote.to_lowercase(),
    };
    let sentence = w.share(&sentence, req_words)?.unwrap_or(0.0);
    Ok(Place {
        title,
        about,
        sentence,
    })
}

/// Keep the values of rule fields whose titles the requirement names best (and, among
/// those, whose sentences name most of it); the others are returned as rejections.
pub fn bind(
    engine: &Engine,
    req: &Requirement,
    evidence: &[EvidenceItem],
    fields: Vec<FieldValue>,
) -> Result<(Vec<FieldValue>, Vec<RejectedValue>), Error> {
    if !req.fields.iter().any(|f| f.rule) {
        return Ok((fields, Vec::new()));
    }
    let text = req.text.to_lowercase();
    let asked = Asked {
        words: subject_words(&text),
        subject: super::checklist::subject_words(&text),
        docs: document_texts(evidence),
        text,
    };
    let mut w = Weights::new(engine)?;
    let places: Vec<Place> = fields
        .iter()
        .map(|v| place(&mut w, &asked, v, evidence))
        .collect::<Result<_, _>>()?;
    let rule = |v: &FieldValue| req.fields.iter().any(|s| s.rule && s.name == v.name);
    let mut keep_at = vec![true; fields.len()];
    for spec in req.fields.iter().filter(|f| f.rule) {
        let mine: Vec<usize> = (0..fields.len())
            .filter(|&i| fields[i].name == spec.name)
            .collect();
        let silent = silent_title(&mut w, &asked, spec, evidence)?;
        keep_at_best(&fields, &places, &mine, silent, &mut keep_at);
    }
    let (mut keep, mut set_aside) = (Vec::new(), Vec::new());
    for (i, v) in fields.into_iter().enumerate() {
        if keep_at[i] || !rule(&v) {
            keep.push(v);
        } else {
            set_aside.push(aside(&v));
        }
    }
    Ok((keep, set_aside))
}

/// The best title weight among evidence items that speak of `spec` (name one of its cues)
/// without a value of it: a section about the asked subject that states no period means
/// the periods stated under other titles are other subjects' rules.
fn silent_title(
    w: &mut Weights,
    asked: &Asked,
    spec: &super::fields::FieldSpec,
    evidence: &[EvidenceItem],
) -> Result<f64, Error> {
    let mut best = 0.0_f64;
    for e in evidence {
        let lower = e.quote.to_lowercase();
        if !spec
            .cues
            .iter()
            .any(|c| super::fields::names_cue(&lower, c))
        {
            continue;
        }
        let mut words = subject_words(&e.title);
        words.extend(e.section.as_deref().map(subject_words).unwrap_or_default());
        words.sort();
        words.dedup();
        if let Some(t) = w.named(&asked.text, &words)? {
            best = best.max(t);
        }
    }
    Ok(best)
}

/// Marks in `keep` which of the values `mine` stay: titled ones whose title names as much
/// of the requirement as the best one ("Notification to individuals" is not the section
/// of a requirement about the media), untitled ones that agree with those; then, of the
/// titled ones, only those whose document names the requirement's subject within
/// [`ABOUT_SLACK`] of the best; and of all, those whose sentence is within [`SENTENCE_SLACK`] of the best sentence.
fn keep_at_best(
    fields: &[FieldValue],
    places: &[Place],
    mine: &[usize],
    silent: f64,
    keep: &mut [bool],
) {
    let best = mine
        .iter()
        .filter_map(|&i| places[i].title)
        .fold(silent, f64::max);
    let titled = |i: usize| places[i].title.is_some_and(|t| t >= best - 1e-9);
    let values: Vec<&serde_json::Value> = mine
        .iter()
        .filter(|&&i| titled(i))
        .map(|&i| &fields[i].value)
        .collect();
    for &i in mine {
        keep[i] = match places[i].title {
            Some(_) => titled(i),
            None => values.is_empty() || values.contains(&&fields[i].value),
        };
    }
    // Titles named alike ("Notification to members", "Notification to the press"): the
    // document that speaks of the requirement's subject decides.
    let best_about = mine
        .iter()
        .filter(|&&i| keep[i] && places[i].title.is_some())
        .map(|&i| places[i].about)
        .fold(0.0_f64, f64::max);
    for &i in mine {
        if places[i].title.is_some() && places[i].about < best_about * ABOUT_SLACK {
            keep[i] = false;
        }
    }
    let best_sentence = mine
        .iter()
        .filter(|&&i| keep[i])
        .map(|&i| places[i].sentence)
        .fold(0.0_f64, f64::max);
    for &i in mine {
        if places[i].sentence < best_sentence * SENTENCE_SLACK {
            keep[i] = false;
        }
    }
}

fn aside(v: &FieldValue) -> RejectedValue {
    RejectedValue {
        name: v.name.clone(),
        raw: v.raw.clone(),
        reason: RejectReason::OtherSubject,
        note: format!(
            "stated in {}, whose title or sentence names less of what the requirement asks \
             about than those of the values kept",
            v.source.rsplit('/').next().unwrap_or(&v.source)
        ),
        evidence: v.evidence.clone(),
        start: v.start,
        end: v.end,
        source: v.source.clone(),
    }
}

/// Whether `code` (`w4`, `faa`) names the document of `item`: a word of its title, its
/// file name or its `opening` ("Federal Aviation Administration (FAA)"), or two adjacent
/// ones joined ("Form W-4"); a code with a digit may also sit inside a word (`fw4` of
/// `irs-fw4-2025.pdf`).
fn names_document(code: &str, item: &EvidenceItem, opening: &str) -> bool {
    let file = item
        .source
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(&item.source);
    let text = format!("{} {}\n{opening}", item.title, file).to_lowercase();
    let words: Vec<&str> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let digit = code.chars().any(|c| c.is_ascii_digit());
    words
        .iter()
        .any(|w| *w == code || (digit && w.contains(code)))
        || words
            .windows(2)
            .any(|p| format!("{}{}", p[0], p[1]) == code)
}

/// A value whose passage names less than this share of what the best passage names of
/// the things the requirement names is another thing's.
const NAMED_SLACK: f64 = 0.5;

/// Keep, of a field's values that disagree, those read in passages that name the things
/// the requirement names: one file may hold two notices with a docket number each, and
/// only the passage of one names "the Boeing 737 MAX" the requirement asks about. A
/// value's passage is its quote and what follows it ([`passage`]); a value stays
/// when one of its places names at least [`NAMED_SLACK`] of the best place's share. Rule
/// fields are bound by [`bind`].
pub fn named_things(
    engine: &Engine,
    req: &Requirement,
    evidence: &[EvidenceItem],
    fields: Vec<FieldValue>,
) -> Result<(Vec<FieldValue>, Vec<RejectedValue>), Error> {
    let things = thing_words(&req.text);
    if things.is_empty() {
        return Ok((fields, Vec::new()));
    }
    let mut w = Weights::new(engine)?;
    let weights: Vec<f64> = things.iter().map(|t| w.of(t)).collect::<Result<_, _>>()?;
    let mut passages: HashMap<String, String> = HashMap::new();
    // Per value, which of the named words one of its places names.
    let mut named: Vec<Vec<bool>> = Vec::with_capacity(fields.len());
    for v in &fields {
        let mut n = vec![false; things.len()];
        for lower in passage(engine, evidence, v, &mut passages)? {
            for (k, t) in things.iter().enumerate() {
                n[k] |= super::fields::names_word(&lower, t);
            }
        }
        named.push(n);
    }
    let mut keep_at = vec![true; fields.len()];
    for spec in req.fields.iter().filter(|f| !f.rule) {
        let mine: Vec<usize> = (0..fields.len())
            .filter(|&i| fields[i].name == spec.name)
            .collect();
        keep_named(spec, &fields, &mine, &named, &weights, &mut keep_at);
    }
    let (mut keep, mut set_aside) = (Vec::new(), Vec::new());
    for (i, v) in fields.into_iter().enumerate() {
        if keep_at[i] {
            keep.push(v);
        } else {
            let mut r = aside(&v);
            r.note = format!(
                "the passage of \"{}\" names less of {} than the passage of another value",
                v.raw,
                things.join(", ")
            );
            set_aside.push(r);
        }
    }
    Ok((keep, set_aside))
}

/// Marks in `keep` which of the values `mine` of `spec` stay: the values agreeing with
/// one another form a group naming every word one of its places names; only the words
/// some group names and another does not tell them apart, and a group whose weighted
/// share of those words is below [`NAMED_SLACK`] of the best group's is another thing's.
fn keep_named(
    spec: &super::fields::FieldSpec,
    fields: &[FieldValue],
    mine: &[usize],
    named: &[Vec<bool>],
    weights: &[f64],
    keep: &mut [bool],
) {
    let tol = super::fields::Tolerance::default();
    let agree = |i: usize, j: usize| {
        let (a, b) = (&fields[i], &fields[j]);
        a.value == b.value
            || matches!(
                (super::checks::typed(a), super::checks::typed(b)),
                (Some(x), Some(y)) if super::fields::compare(spec.ty, &x, &y, &tol).0
                    == super::fields::Agreement::Agree
            )
    };
    if mine.iter().all(|&i| agree(mine[0], i)) {
        return;
    }
    let group = |i: usize| -> Vec<bool> {
        (0..weights.len())
            .map(|k| mine.iter().any(|&j| agree(i, j) && named[j][k]))
            .collect()
    };
    let groups: Vec<Vec<bool>> = mine.iter().map(|&i| group(i)).collect();
    let telling: Vec<usize> = (0..weights.len())
        .filter(|&k| groups.iter().any(|g| g[k]) && groups.iter().any(|g| !g[k]))
        .collect();
    let total: f64 = telling.iter().map(|&k| weights[k]).sum();
    if total <= 0.0 {
        return;
    }
    let share = |g: &Vec<bool>| {
        telling
            .iter()
            .filter(|&&k| g[k])
            .map(|&k| weights[k])
            .sum::<f64>()
            / total
    };
    let best = groups.iter().map(share).fold(0.0_f64, f64::max);
    for (n, &i) in mine.iter().enumerate() {
        if share(&groups[n]) < best * NAMED_SLACK {
            keep[i] = false;
        }
    }
}

/// The words of the things `text` names (lower case): "Boeing 737 MAX" → boeing, max.
pub(super) fn thing_words(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for e in crate::frame::frame(text).entities {
        for w in crate::text::words(&e.to_lowercase()) {
            if w.chars().count() >= 2 && !crate::text::is_stopword(&w) && !out.contains(&w) {
                out.push(w);
            }
        }
    }
    out
}

/// Bytes after a value that make its passage: what a docket line or a heading value
/// introduces follows it.
const PASSAGE_BYTES: usize = 1_500;

/// The lower-case passages of `v`: for each evidence item of its document whose quote
/// holds its text (a value read once may be stated again), the quote and the
/// [`PASSAGE_BYTES`] of the document that follow the value there.
fn passage(
    engine: &Engine,
    evidence: &[EvidenceItem],
    v: &FieldValue,
    cache: &mut HashMap<String, String>,
) -> Result<Vec<String>, Error> {
    if !cache.contains_key(&v.doc_id) {
        let text = engine.store().document_text(&v.doc_id)?.unwrap_or_default();
        cache.insert(v.doc_id.clone(), text);
    }
    let text = &cache[&v.doc_id];
    let mut out = Vec::new();
    for item in evidence.iter().filter(|e| e.doc_id == v.doc_id) {
        let at = if item.id == v.evidence {
            v.start
        } else if let Some(k) = item.quote.find(&v.raw) {
            item.start + k
        } else {
            continue;
        };
        let after = text
            .get(at..)
            .map_or("", |t| crate::profile::opening(t, PASSAGE_BYTES));
        out.push(format!("{}\n{}", item.quote, after).to_lowercase());
    }
    Ok(out)
}

/// Keep the values of fields whose names start with document codes only from documents
/// those codes name (in the title, the file name or the opening `text_of` gives); the
/// others are returned as rejections.
pub fn documents(
    req: &Requirement,
    evidence: &[EvidenceItem],
    fields: Vec<FieldValue>,
    text_of: &dyn Fn(&str) -> Option<String>,
) -> (Vec<FieldValue>, Vec<RejectedValue>) {
    let (mut keep, mut set_aside) = (Vec::new(), Vec::new());
    let mut openings: HashMap<String, String> = HashMap::new();
    for v in fields {
        let codes = req
            .fields
            .iter()
            .find(|s| s.name == v.name)
            .map_or(&[][..], |s| &s.documents[..]);
        if codes.is_empty() {
            keep.push(v);
            continue;
        }
        let opening = openings.entry(v.doc_id.clone()).or_insert_with(|| {
            text_of(&v.doc_id)
                .map(|t| crate::profile::opening(&t, crate::profile::OPENING_BYTES).to_lowercase())
                .unwrap_or_default()
        });
        let item = evidence.iter().find(|e| e.id == v.evidence);
        if item.is_some_and(|i| codes.iter().all(|c| names_document(c, i, opening))) {
            keep.push(v);
        } else {
            let mut r = aside(&v);
            r.note = format!(
                "the field names the document {}; {} does not",
                codes.join(", "),
                v.source.rsplit('/').next().unwrap_or(&v.source)
            );
            set_aside.push(r);
        }
    }
    (keep, set_aside)
}
