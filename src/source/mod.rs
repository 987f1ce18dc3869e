//! Sources with authority: what kind of source each document is (statute, regulation,
//! policy, guidance, FAQ, …), how much it weighs, where it applies, which collection it
//! belongs to, when it is in effect and what it supersedes.
//!
//! Every value is either **declared** (a `[[sources]]` rule in `attest.toml`, or the flags
//! of `attest ingest PATH --source-type …`) or **inferred** from the document itself (its
//! title, file name and opening lines: "Effective: April 1, 2019", "Supersedes: Policy
//! Bulletin No. 17-02", "Last updated September 2023"), and says which, with the line it
//! was read from. A declaration wins over an inference; a flag over a file rule.
//!
//! [`infer`] reads a document at ingest; `authority` joins the stored inferences with
//! the declarations and answers filters; [`govern`] decides which source governs.

use std::fmt;
use std::str::FromStr;
use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use crate::lexicon::{self, Class};
use crate::value::DateOrder;

pub mod arxiv;
pub mod binding;
pub mod govern;
pub mod named;

/// The kind of a source, a closed set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SourceType {
    /// An act, code or ordinance passed by a legislature.
    Statute,
    /// A rule made under a statute (CFR part, EU regulation, administrative regulation).
    Regulation,
    /// An organisation's binding policy (manual, bulletin, procedure).
    Policy,
    /// Advice that does not bind (guide, handbook, guideline).
    Guidance,
    /// Questions and answers, a plain-language summary.
    Faq,
    /// A form to fill in.
    Form,
    /// A report, plan or assessment.
    Report,
    /// An agreement between parties (contract, lease, deed).
    Contract,
    /// None of the above.
    Other,
}

impl SourceType {
    /// Every type, in authority order.
    pub const ALL: [SourceType; 9] = [
        SourceType::Statute,
        SourceType::Regulation,
        SourceType::Contract,
        SourceType::Policy,
        SourceType::Guidance,
        SourceType::Form,
        SourceType::Report,
        SourceType::Other,
        SourceType::Faq,
    ];

    /// The type's name as written in settings and output.
    pub fn as_str(self) -> &'static str {
        match self {
            SourceType::Statute => "statute",
            SourceType::Regulation => "regulation",
            SourceType::Policy => "policy",
            SourceType::Guidance => "guidance",
            SourceType::Faq => "faq",
            SourceType::Form => "form",
            SourceType::Report => "report",
            SourceType::Contract => "contract",
            SourceType::Other => "other",
        }
    }

    /// Default authority rank: statute 100 > regulation 90 > contract 70 > policy 60 >
    /// guidance 40 > form, report, other 30 > FAQ 10.
    pub fn default_authority(self) -> i64 {
        match self {
            SourceType::Statute => 100,
            SourceType::Regulation => 90,
            SourceType::Contract => 70,
            SourceType::Policy => 60,
            SourceType::Guidance => 40,
            SourceType::Form | SourceType::Report | SourceType::Other => 30,
            SourceType::Faq => 10,
        }
    }

    /// Statutes and regulations (requirement ids `REQ-S…`).
    pub fn is_law(self) -> bool {
        matches!(self, SourceType::Statute | SourceType::Regulation)
    }
}

impl FromStr for SourceType {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let t = s.trim().to_ascii_lowercase();
        SourceType::ALL
            .into_iter()
            .find(|x| x.as_str() == t)
            .ok_or_else(|| {
                let names: Vec<&str> = SourceType::ALL.iter().map(|x| x.as_str()).collect();
                format!("unknown source type {s:?} ({})", names.join(", "))
            })
    }
}

impl fmt::Display for SourceType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Whether a document is in effect on a day.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Effect {
    /// Its dates say so.
    InEffect,
    /// It states no start: kept, and marked.
    Undated,
    /// It starts later.
    NotYet,
    /// It ended before.
    Ended,
    /// A document in effect that day supersedes it.
    Superseded,
}

impl Effect {
    /// In words, as a reader says it.
    pub fn words(self) -> &'static str {
        match self {
            Effect::InEffect => "in effect",
            Effect::Undated => "states no effective date",
            Effect::NotYet => "not yet in effect",
            Effect::Ended => "no longer in effect",
            Effect::Superseded => "superseded",
        }
    }
}

/// A document a filter set aside by date.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetAside {
    /// Its path as shown.
    pub source: String,
    /// Why: not yet in effect, ended, or superseded.
    pub effect: Effect,
}

/// What an `--as-of` date did to a question's sources, recorded in its answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DatedSources {
    /// The day asked about.
    pub as_of: Date,
    /// Documents set aside: not yet in effect, ended, or superseded that day.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub set_aside: Vec<SetAside>,
    /// Documents kept that state no effective date.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub undated: Vec<String>,
}

/// A calendar date (proleptic Gregorian), ordered by time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date {
    /// Year.
    pub year: i32,
    /// Month, 1–12.
    pub month: u32,
    /// Day, 1–31.
    pub day: u32,
}

impl Date {
    /// A date when the parts make one.
    pub fn new(year: i32, month: u32, day: u32) -> Option<Date> {
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
        let days = [
            31,
            if leap { 29 } else { 28 },
            31,
            30,
            31,
            30,
            31,
            31,
            30,
            31,
            30,
            31,
        ];
        let ok = (1..=12).contains(&month) && day >= 1 && day <= days[month as usize - 1];
        (ok && (1000..=9999).contains(&year)).then_some(Date { year, month, day })
    }
}

impl FromStr for Date {
    type Err = String;
    /// `YYYY-MM-DD`.
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("{s:?} is not a date (write YYYY-MM-DD, e.g. 2019-04-01)");
        let p: Vec<&str> = s.trim().split('-').collect();
        if p.len() != 3 || p[0].len() != 4 || p[1].len() != 2 || p[2].len() != 2 {
            return Err(bad());
        }
        let n = |x: &str| x.parse::<u32>().map_err(|_| bad());
        Date::new(n(p[0])? as i32, n(p[1])?, n(p[2])?).ok_or_else(bad)
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

impl Serialize for Date {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> Deserialize<'de> for Date {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// Where a value came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "origin", rename_all = "lowercase")]
pub enum Origin {
    /// Declared by the user: `from` is `attest.toml [[sources]] "GLOB"` or the ingest flag.
    Declared {
        /// The rule or flag that declared it.
        from: String,
    },
    /// Read from the document: `from` is the text it was read from.
    Inferred {
        /// The title, file name or line that says so.
        from: String,
    },
    /// Nothing declared or found: the default.
    Default,
}

/// A value and where it came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sourced<T> {
    /// The value.
    pub value: T,
    /// Where it came from.
    #[serde(flatten)]
    pub origin: Origin,
}

impl<T> Sourced<T> {
    /// A value read from the document at `from`.
    pub fn inferred(value: T, from: &str) -> Self {
        Sourced {
            value,
            origin: Origin::Inferred {
                from: clip(from, 160),
            },
        }
    }

    /// A declared value.
    pub fn declared(value: T, from: &str) -> Self {
        Sourced {
            value,
            origin: Origin::Declared {
                from: from.to_string(),
            },
        }
    }

    /// Whether the value was declared.
    pub fn is_declared(&self) -> bool {
        matches!(self.origin, Origin::Declared { .. })
    }
}

/// `s` cut to at most `max` characters, with `…` when cut.
fn clip(s: &str, max: usize) -> String {
    let s = s.trim();
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// What one document says, or was declared to be, about itself. Every field is optional
/// here: `authority::catalog` fills the defaults.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SourceMeta {
    /// The kind of source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_type: Option<Sourced<SourceType>>,
    /// Authority rank (higher governs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authority: Option<Sourced<i64>>,
    /// Where it applies ("Marlow County", "European Union").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jurisdiction: Option<Sourced<String>>,
    /// A named group of sources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub collection: Option<Sourced<String>>,
    /// First day in effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effective_from: Option<Sourced<Date>>,
    /// Day it stops being in effect (exclusive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effective_to: Option<Sourced<Date>>,
    /// Names of the sources it supersedes ("Policy Bulletin No. 17-02").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub supersedes: Vec<Sourced<String>>,
}

impl SourceMeta {
    /// `self` with every field `over` sets replaced by `over`'s.
    pub fn overlaid(mut self, over: &SourceMeta) -> SourceMeta {
        macro_rules! take {
            ($($f:ident),*) => {$(
                if over.$f.is_some() {
                    self.$f = over.$f.clone();
                }
            )*};
        }
        take!(
            source_type,
            authority,
            jurisdiction,
            collection,
            effective_from,
            effective_to
        );
        if !over.supersedes.is_empty() {
            self.supersedes = over.supersedes.clone();
        }
        self
    }
}

/// A declaration of what some documents are: a `[[sources]]` table of `attest.toml`
/// (`path` a glob on the document's path as shown or its full path) or the flags of
/// `attest ingest PATH --source-type …` (`path` the canonical path given).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceRule {
    /// Which documents: a glob (`corpus/1[01]-*.md`, `statutes/**`).
    pub path: String,
    /// Their source type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_type: Option<SourceType>,
    /// Their authority rank (default by type).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authority: Option<i64>,
    /// Where they apply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jurisdiction: Option<String>,
    /// Their collection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub collection: Option<String>,
    /// First day in effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effective_from: Option<Date>,
    /// Day they stop being in effect (exclusive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effective_to: Option<Date>,
    /// Names of the sources they supersede.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub supersedes: Vec<String>,
}

impl SourceRule {
    /// The fields it declares, each marked as declared by `from`.
    pub fn meta(&self, from: &str) -> SourceMeta {
        let d = |v| Sourced::declared(v, from);
        SourceMeta {
            source_type: self.source_type.map(d),
            authority: self.authority.map(|v| Sourced::declared(v, from)),
            jurisdiction: self
                .jurisdiction
                .clone()
                .map(|v| Sourced::declared(v, from)),
            collection: self.collection.clone().map(|v| Sourced::declared(v, from)),
            effective_from: self.effective_from.map(|v| Sourced::declared(v, from)),
            effective_to: self.effective_to.map(|v| Sourced::declared(v, from)),
            supersedes: self
                .supersedes
                .iter()
                .map(|v| Sourced::declared(v.clone(), from))
                .collect(),
        }
    }

    /// Whether it declares anything.
    pub fn declares(&self) -> bool {
        self.meta("") != SourceMeta::default()
    }

    /// Check the glob and the dates; the error says what is wrong.
    pub fn check(&self) -> Result<globset::GlobMatcher, String> {
        if let (Some(a), Some(b)) = (self.effective_from, self.effective_to) {
            if b <= a {
                return Err(format!(
                    "[[sources]] {:?}: effective_to {b} is not after effective_from {a}",
                    self.path
                ));
            }
        }
        globset::GlobBuilder::new(&self.path)
            .literal_separator(false)
            .build()
            .map(|g| g.compile_matcher())
            .map_err(|e| format!("[[sources]] path {:?}: {e}", self.path))
    }
}

/// Bytes of a document's head in which a date of issue or revision ("Date:", "Last
/// updated", "revised edition of") is read as its start when it states no effective date.
pub const HEAD_BYTES: usize = 1200;

/// Bytes of a document's opening that [`infer`] reads.
pub const OPENING_BYTES: usize = 4000;

/// Words naming a source type, with the type, as they appear in titles and file names.
/// Of several in a title, the one written first decides ("Policy Bulletin … Record
/// Retention", "Behavioral Health Services Act").
const TYPE_WORDS: &[(&str, SourceType)] = &[
    ("frequently asked questions", SourceType::Faq),
    ("faq", SourceType::Faq),
    ("faqs", SourceType::Faq),
    ("questions and answers", SourceType::Faq),
    ("code of federal regulations", SourceType::Regulation),
    ("cfr", SourceType::Regulation),
    ("regulation", SourceType::Regulation),
    ("regulations", SourceType::Regulation),
    ("rule", SourceType::Regulation),
    ("rules", SourceType::Regulation),
    ("directive", SourceType::Regulation),
    ("act", SourceType::Statute),
    ("statute", SourceType::Statute),
    ("statutes", SourceType::Statute),
    ("code", SourceType::Statute),
    ("ordinance", SourceType::Statute),
    ("law", SourceType::Statute),
    ("u.s.c", SourceType::Statute),
    ("usc", SourceType::Statute),
    ("policy", SourceType::Policy),
    ("policies", SourceType::Policy),
    ("bulletin", SourceType::Policy),
    ("manual", SourceType::Policy),
    ("procedure", SourceType::Policy),
    ("procedures", SourceType::Policy),
    ("guidance", SourceType::Guidance),
    ("guide", SourceType::Guidance),
    ("guideline", SourceType::Guidance),
    ("guidelines", SourceType::Guidance),
    ("handbook", SourceType::Guidance),
    ("advisory", SourceType::Guidance),
    ("form", SourceType::Form),
    ("application", SourceType::Form),
    ("report", SourceType::Report),
    ("plan", SourceType::Report),
    ("assessment", SourceType::Report),
    ("agreement", SourceType::Contract),
    ("contract", SourceType::Contract),
    ("lease", SourceType::Contract),
    ("deed", SourceType::Contract),
];

/// Words of `text`, lower-cased, with their byte positions (dots inside kept: "u.s.c").
fn title_words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '.'))
        .map(|w| w.trim_matches('.').to_lowercase())
        .filter(|w| !w.is_empty())
        .collect()
}

/// The source type `text` (a title or file name) names first, with the words that name it.
pub fn type_named(text: &str) -> Option<(SourceType, String)> {
    let words = title_words(text);
    for i in 0..words.len() {
        for (phrase, t) in TYPE_WORDS {
            let p: Vec<&str> = phrase.split(' ').collect();
            if words.len() >= i + p.len()
                && words[i..i + p.len()].iter().zip(&p).all(|(a, b)| a == b)
            {
                // "Code of Conduct" is a policy, "Code of Federal Regulations" a regulation.
                if *phrase == "code" && words.get(i + 1).is_some_and(|w| w == "of") {
                    if words
                        .get(i + 2)
                        .is_some_and(|w| w == "conduct" || w == "practice")
                    {
                        return Some((SourceType::Policy, words[i..i + 3].join(" ")));
                    }
                    continue;
                }
                return Some((*t, phrase.to_string()));
            }
        }
    }
    None
}

static SUMMARY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(plain[- ]language summary|is a summary|for information only|not legal advice)\b",
    )
    .expect("static pattern")
});
static EFFECTIVE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(effective(?: date)?|in (?:force|effect) (?:from|on|as of)|applies from)\b\s*(?:on|from|as of)?\s*:?\s*")
        .expect("static pattern")
});
static ISSUED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(last updated|last revised|revised edition of|revised|updated|adopted|issued|dated|date)\b\s*(?:on|in|of)?\s*:?\s*")
        .expect("static pattern")
});
/// Cues of the day a document stops being in effect. A cue that reads as a start
/// ("repealed *effective* …") is an end, never a start.
static ENDS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(expires?(?: on)?|in effect until|valid until|(?:repealed|rescinded|revoked|withdrawn) (?:effective|on|as of|with effect from)|sunsets? on)\b\s*:?\s*")
        .expect("static pattern")
});
/// Words after "this" that name a whole document ("This Act", "This bulletin"), not a
/// part of one ("This section").
const DOCUMENT_WORDS: &[&str] = &[
    "document",
    "page",
    "notice",
    "chapter",
    "instrument",
    "memo",
    "memorandum",
    "circular",
    "order",
    "resolution",
    "bylaw",
    "bylaws",
    "sheet",
    "publication",
    "edition",
    "version",
];
static SUPERSEDES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:supersedes|replaces|repeals)\b\s*:?\s*([^\n;]{3,160})")
        .expect("static pattern")
});
static MONTH_YEAR: LazyLock<Regex> = LazyLock::new(|| {
    let month = lexicon::alternation(&[Class::Month, Class::MonthAbbreviation]);
    Regex::new(&format!(r"(?i)^({month})\.?,?\s+(\d{{4}})\b")).expect("static pattern")
});

/// The date `rest` starts with (within its first few characters): a full date in any
/// written form, or a month and year (read as the month's first day). A numeric date
/// whose day and month could be read either way is read in `order` (the document's own,
/// see [`infer_in`]) and not read at all when no order is known.
pub fn date_at_start(rest: &str, order: Option<DateOrder>) -> Option<Date> {
    let head: String = rest.chars().take(40).collect();
    if let Some(c) = crate::value::parse::dates(&head, order)
        .into_iter()
        .filter(|c| c.start <= 4)
        .min_by_key(|c| c.start)
    {
        match c.value {
            Ok(crate::value::Value::Date { year, month, day }) => {
                return Date::new(year, month, day)
            }
            // A month and year: read below as the month's first day.
            Err((crate::value::RejectReason::IncompleteDate, _)) => {}
            // An ambiguous or broken date is no date at all.
            _ => return None,
        }
    }
    let c = MONTH_YEAR.captures(&head)?;
    let month = crate::value::parse::month_number(&c[1])?;
    Date::new(c[2].parse().ok()?, u32::try_from(month).ok()?, 1)
}

/// The first date a line of `opening` gives after a match of `cue` that `keep` accepts
/// (given the line and the match), with the line.
fn dated_line(
    opening: &str,
    cue: &Regex,
    order: Option<DateOrder>,
    keep: impl Fn(&str, &regex::Match<'_>) -> bool,
) -> Option<(Date, String)> {
    for line in opening.lines() {
        for m in cue.find_iter(line).filter(|m| keep(line, m)) {
            if let Some(d) = date_at_start(&line[m.end()..], order) {
                return Some((
                    d,
                    line.trim().trim_start_matches(['-', '*', ' ']).to_string(),
                ));
            }
        }
    }
    None
}

/// Whether a start cue `m` of `line` is part of an end cue ("repealed effective …",
/// "rescinded as of …"): such a date ends the document.
fn inside_end_cue(line: &str, m: &regex::Match<'_>) -> bool {
    ENDS.find_iter(line)
        .any(|e| e.start() <= m.start() && m.start() < e.end())
}

/// Whether the words before an end cue on its line (`before`) make the document itself
/// what ends: nothing but a label ("Status:", "- Expires:"), the document named as a
/// whole ("This Act", "This rule is") or by its own title; not a part of it ("This
/// section is repealed …") nor another document ("The Records Act 1998 is repealed …").
fn ends_itself(before: &str, title: &str) -> bool {
    let sentence = before.rsplit(". ").next().unwrap_or(before);
    let t = sentence
        .trim_matches(|c: char| c.is_whitespace() || "-*>#_—–|".contains(c))
        .trim_end_matches(['*', '_']);
    let mut words = title_words(t);
    let label = t.ends_with(':') && words.len() <= 3 && !t.chars().any(|c| c.is_ascii_digit());
    if t.is_empty() || label {
        return true;
    }
    const VERBS: &[&str] = &[
        "is", "was", "are", "has", "been", "be", "will", "shall", "hereby",
    ];
    while words.last().is_some_and(|w| VERBS.contains(&w.as_str())) {
        words.pop();
    }
    if words.is_empty() || words == ["it"] {
        return true;
    }
    if let [this, kind] = &words[..] {
        if this == "this" {
            return DOCUMENT_WORDS.contains(&kind.as_str())
                || TYPE_WORDS.iter().any(|(w, _)| w == kind);
        }
    }
    let own = title_words(title);
    let named: Vec<&String> = words
        .iter()
        .filter(|w| !matches!(w.as_str(), "the" | "of" | "and"))
        .collect();
    !named.is_empty() && named.iter().all(|w| own.contains(w))
}

/// The day the document itself stops being in effect, with the line that says so.
fn end_of(opening: &str, title: &str, order: Option<DateOrder>) -> Option<(Date, String)> {
    dated_line(opening, &ENDS, order, |line, m| {
        ends_itself(&line[..m.start()], title)
    })
}

/// The jurisdiction a title or opening names: "Marlow County", "State of X", the European
/// Union, the United States (federal).
fn jurisdiction(head: &str) -> Option<(String, String)> {
    static COUNTY: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b([A-Z][a-z]+(?: [A-Z][a-z]+)? County)\b").expect("static pattern")
    });
    static STATE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\bState of ([A-Z][a-z]+(?: [A-Z][a-z]+)?)").expect("static pattern")
    });
    static EU: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\((?:EU|EC|EEC)\)|\bEuropean Union\b").expect("static pattern")
    });
    static US: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b\d+ CFR\b|\bCode of Federal Regulations\b|\bU\.S\.C\.|\bFederal Register\b")
            .expect("static pattern")
    });
    if let Some(m) = EU.find(head) {
        return Some(("European Union".into(), m.as_str().into()));
    }
    if let Some(m) = US.find(head) {
        return Some(("United States (federal)".into(), m.as_str().into()));
    }
    if let Some(c) = STATE.captures(head) {
        return Some((format!("State of {}", &c[1]), c[0].into()));
    }
    COUNTY
        .captures(head)
        .map(|c| (c[1].to_string(), c[0].to_string()))
}

/// What a document says about itself, read from its whole stored `text`: as [`infer`]
/// on its opening, with numeric dates read in the day/month order the text's own
/// unambiguous dates show ("25/12/2018" elsewhere in the file: "01/04/2019" is 1 April).
pub fn infer_in(title: &str, source: &str, text: &str) -> SourceMeta {
    let order = crate::value::parse::infer_order(text);
    infer_with(title, source, opening(text), order)
}

/// What a document says about itself: its type (from its title, else its file name,
/// else a "plain-language summary" line), jurisdiction, effective dates and what it
/// supersedes, each with the text it was read from. `opening` is the start of its text;
/// numeric dates are read in the order its own unambiguous dates show.
pub fn infer(title: &str, source: &str, opening: &str) -> SourceMeta {
    infer_with(
        title,
        source,
        opening,
        crate::value::parse::infer_order(opening),
    )
}

/// [`infer`] with numeric dates read in `order` (`None`: an ambiguous one is not read).
fn infer_with(title: &str, source: &str, opening: &str, order: Option<DateOrder>) -> SourceMeta {
    let mut m = SourceMeta::default();
    let file = source.rsplit(['/', '\\']).next().unwrap_or(source);
    let named = type_named(title)
        .map(|(t, w)| (t, format!("title: {w:?} in {title:?}")))
        .or_else(|| type_named(file).map(|(t, w)| (t, format!("file name: {w:?} in {file:?}"))));
    let summary = SUMMARY.find(opening).map(|x| x.as_str().to_string());
    m.source_type = match (named, summary) {
        (_, Some(s)) => Some(Sourced::inferred(SourceType::Faq, &format!("says {s:?}"))),
        (Some((t, from)), None) => Some(Sourced::inferred(t, &from)),
        (None, None) => None,
    };
    let head: String = format!("{title}\n{}", &opening[..floor(opening, 800)]);
    if let Some((j, from)) = jurisdiction(&head) {
        m.jurisdiction = Some(Sourced::inferred(j, &from));
    }
    dates(&mut m, title, opening, order);
    for c in SUPERSEDES.captures_iter(opening) {
        let name = superseded_name(&c[1]);
        if !name.is_empty() {
            m.supersedes
                .push(Sourced::inferred(name.to_string(), c[0].trim()));
        }
    }
    m
}

/// The effective dates of `opening`: the start from an effective-date line that is no
/// end cue, else a date of issue or revision in the head; the end from a line that ends
/// the document itself. Dates that contradict each other (an end not after the start)
/// are neither read.
fn dates(m: &mut SourceMeta, title: &str, opening: &str, order: Option<DateOrder>) {
    // A date of issue or revision counts only in the document's head.
    let head_only = &opening[..floor(opening, HEAD_BYTES)];
    let from = dated_line(opening, &EFFECTIVE, order, |l, m| !inside_end_cue(l, m))
        .or_else(|| dated_line(head_only, &ISSUED, order, |l, m| !inside_end_cue(l, m)));
    let to = end_of(opening, title, order);
    if let (Some((a, _)), Some((b, _))) = (&from, &to) {
        if b <= a {
            return;
        }
    }
    m.effective_from = from.map(|(d, line)| Sourced::inferred(d, &line));
    m.effective_to = to.map(|(d, line)| Sourced::inferred(d, &line));
}

/// The name a supersession cue gives: its text to the end of its sentence, without what
/// only describes it (", dated …", " issued …", " (March 2017)", " in its entirety").
fn superseded_name(s: &str) -> &str {
    static DESCRIBES: LazyLock<Regex> = LazyLock::new(|| {
        let month = lexicon::alternation(&[Class::Month, Class::MonthAbbreviation]);
        Regex::new(&format!(r"(?i),? +(?:dated|issued|effective|as amended|in (?:its|their) entirety)\b|,\s+(?:which|as)\b| \((?:dated |issued |rev\.? |effective )?(?:{month}|\d)"))
            .expect("static pattern")
    });
    let s = sentence_head(s);
    let cut = DESCRIBES.find(s).map_or(s.len(), |m| m.start());
    s[..cut].trim().trim_end_matches([',', ':', '.'])
}

/// `s` up to the end of its first sentence: a full stop followed by a space or the end,
/// unless it closes an abbreviation ("No. 17-02", "Art. 5", "Sec. 3":
/// [`Class::NumberingAbbreviation`]).
fn sentence_head(s: &str) -> &str {
    for (i, _) in s.match_indices('.') {
        let next = s[i + 1..].chars().next();
        if next.is_some_and(|c| !c.is_whitespace()) {
            continue;
        }
        let word = s[..i]
            .rsplit(|c: char| !c.is_alphanumeric())
            .next()
            .unwrap_or("");
        if !lexicon::is(Class::NumberingAbbreviation, &word.to_lowercase()) {
            return &s[..i];
        }
    }
    s
}

/// The largest char boundary of `s` at or below `at`.
fn floor(s: &str, at: usize) -> usize {
    let mut i = at.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The opening of `text` [`infer`] reads.
pub fn opening(text: &str) -> &str {
    &text[..floor(text, OPENING_BYTES)]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(m: &SourceMeta) -> Option<SourceType> {
        m.source_type.as_ref().map(|s| s.value)
    }

    #[test]
    fn types_come_from_the_first_type_word_of_the_title_or_file_name() {
        let t = |title: &str| type_named(title).map(|x| x.0);
        assert_eq!(
            t("Behavioral Health Services Act, Sections 5890-5899"),
            Some(SourceType::Statute)
        );
        assert_eq!(
            t("Policy Bulletin No. 19-04: Youth Assessment Timelines and Record Retention"),
            Some(SourceType::Policy)
        );
        assert_eq!(
            t("Marlow County Code, Title 9, Chapter 9.40"),
            Some(SourceType::Statute)
        );
        assert_eq!(
            t("Administrative Regulation No. 12: Client Record Access"),
            Some(SourceType::Regulation)
        );
        assert_eq!(
            t("Frequently Asked Questions for Clients and Families"),
            Some(SourceType::Faq)
        );
        assert_eq!(t("Employee Code of Conduct"), Some(SourceType::Policy));
        assert_eq!(
            t("Services Manual Chapter 5: Client Records"),
            Some(SourceType::Policy)
        );
        assert_eq!(
            t("Impact assessment of the actor"),
            Some(SourceType::Report)
        );
        assert_eq!(t("Minutes of the meeting"), None);
    }

    #[test]
    fn an_opening_gives_dates_supersessions_summaries_and_jurisdictions() {
        let opening = "# Policy Bulletin No. 19-04: Youth\n\nMarlow County Department\n\n- Date: March 14, 2019\n- Effective: April 1, 2019\n- Supersedes: Policy Bulletin No. 17-02\n";
        let m = infer(
            "Policy Bulletin No. 19-04: Youth",
            "corpus/15-policy.md",
            opening,
        );
        assert_eq!(ty(&m), Some(SourceType::Policy));
        assert_eq!(
            m.effective_from.as_ref().unwrap().value,
            Date::new(2019, 4, 1).unwrap()
        );
        assert_eq!(m.supersedes[0].value, "Policy Bulletin No. 17-02");
        assert_eq!(m.jurisdiction.as_ref().unwrap().value, "Marlow County");
        let faq = infer(
            "Questions",
            "faq.md",
            "It is a plain-language summary. Last updated September 2023.",
        );
        assert_eq!(ty(&faq), Some(SourceType::Faq));
        assert_eq!(
            faq.effective_from.unwrap().value,
            Date::new(2023, 9, 1).unwrap()
        );
        let none = infer(
            "Notes",
            "notes.md",
            "Nothing here is dated. The date is unknown.",
        );
        assert_eq!(none, SourceMeta::default());
        let ends = infer("Rule", "r.md", "This rule expires on 31 December 2024.");
        assert_eq!(
            ends.effective_to.unwrap().value,
            Date::new(2024, 12, 31).unwrap()
        );
    }

    #[test]
    fn a_repeal_date_ends_a_document_and_starts_nothing() {
        let act =
            "# Records Act 1998\n\nAdopted: March 3, 1998\n\nRepealed effective January 1, 2016.\n";
        let m = infer("Records Act 1998", "records-act-1998.md", act);
        assert_eq!(
            m.effective_from.unwrap().value,
            Date::new(1998, 3, 3).unwrap()
        );
        let bare = infer(
            "Records Act 1998",
            "a.md",
            "Repealed effective January 1, 2016.",
        );
        assert_eq!(bare.effective_from, None);
        assert_eq!(
            m.effective_to.unwrap().value,
            Date::new(2016, 1, 1).unwrap()
        );
        // A status line with a label, and a rescission, end the document too.
        let status = infer(
            "Fee Policy",
            "fees.md",
            "**Status:** Rescinded as of 1 July 2020\n",
        );
        assert_eq!(status.effective_from, None);
        assert_eq!(
            status.effective_to.unwrap().value,
            Date::new(2020, 7, 1).unwrap()
        );
        // Another document's repeal, or a section's, is not this document's end.
        let new = "# Records Act 2016\n\nEffective: January 1, 2016\n\nThe Records Act 1998 is repealed effective January 1, 2016.\nSection 4 is repealed on June 1, 2017.\n";
        let n = infer("Records Act 2016", "records-act-2016.md", new);
        assert_eq!(n.effective_to, None);
        assert_eq!(
            n.effective_from.unwrap().value,
            Date::new(2016, 1, 1).unwrap()
        );
        // Dates that contradict each other are neither read.
        let odd = infer(
            "Rule",
            "r.md",
            "Effective: May 1, 2021\nExpires: May 1, 2020\n",
        );
        assert_eq!((odd.effective_from, odd.effective_to), (None, None));
    }

    #[test]
    fn numeric_dates_are_read_in_the_documents_own_order_or_not_at_all() {
        let dmy = "Effective: 01/04/2019\n\nForms received after 25/12/2018 are late.\n";
        let m = infer_in("Guide", "guide.md", dmy);
        assert_eq!(
            m.effective_from.unwrap().value,
            Date::new(2019, 4, 1).unwrap()
        );
        let mdy = "Effective: 01/04/2019\n\nForms received after 12/25/2018 are late.\n";
        let m = infer_in("Guide", "guide.md", mdy);
        assert_eq!(
            m.effective_from.unwrap().value,
            Date::new(2019, 1, 4).unwrap()
        );
        // The order is read from the whole text, past the opening.
        let far = format!(
            "Effective: 03/02/2020\n\n{}\nDue by 31/03/2020.\n",
            "Filler text. ".repeat(400)
        );
        let m = infer_in("Guide", "guide.md", &far);
        assert_eq!(
            m.effective_from.unwrap().value,
            Date::new(2020, 2, 3).unwrap()
        );
        // No unambiguous date: an ambiguous one is not read; an unambiguous one is.
        assert_eq!(
            infer_in("Guide", "g.md", "Effective: 01/04/2019\n").effective_from,
            None
        );
        assert_eq!(
            infer_in("Guide", "g.md", "Effective: 04/30/2019\n")
                .effective_from
                .unwrap()
                .value,
            Date::new(2019, 4, 30).unwrap()
        );
    }

    #[test]
    fn a_superseded_name_stops_before_what_describes_it() {
        assert_eq!(
            superseded_name("Policy Bulletin No. 17-02, dated March 1, 2017."),
            "Policy Bulletin No. 17-02"
        );
        assert_eq!(
            superseded_name("the Intake Manual (March 2017) in its entirety"),
            "the Intake Manual"
        );
        assert_eq!(
            superseded_name("Regulation (EU) No 575/2013 as amended"),
            "Regulation (EU) No 575/2013"
        );
        assert_eq!(
            superseded_name("the Records Retention Act 2015 summary sheet. It is"),
            "the Records Retention Act 2015 summary sheet"
        );
    }

    #[test]
    fn dates_are_checked_and_parsed_in_iso_form() {
        assert_eq!(
            "2019-04-01".parse::<Date>().unwrap().to_string(),
            "2019-04-01"
        );
        for bad in [
            "2019-02-30",
            "2019-4-1",
            "NaN",
            "",
            "-2019-01-01",
            "2019-13-01",
        ] {
            assert!(bad.parse::<Date>().is_err(), "{bad}");
        }
        assert!("2020-02-29".parse::<Date>().is_ok());
    }
}
