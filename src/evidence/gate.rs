//! The Evidence Gate: checks a composed text against the evidence it cites.
//!
//! Citations are `[E1]`, `[E1, E3]`, `[E1][E3]` or `[cite:ID]`. The gate checks that
//! every cited id exists, that every paragraph carries at least `min_citations_per_paragraph`
//! citations (headings, and paragraphs under 10 words or 50 characters, are exempt), that
//! the citation density per 100 words meets `min_density_per_100_words`, and that every
//! sentence that states something cites: three words or more, not a label ending in a
//! colon, in any paragraph but a heading — short ones included (four words or more there),
//! so a report cannot hide claims in short paragraphs. Violations are machine-readable;
//! `passed` is false when any violation has severity `error`.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use crate::corpus::segment::sentences;
use crate::text::word_count;

/// Gate thresholds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GateConfig {
    /// Citations every (non-exempt) paragraph must carry.
    pub min_citations_per_paragraph: usize,
    /// Minimum citations per 100 words over the whole text.
    pub min_density_per_100_words: f64,
    /// Whether an uncited statement sentence is an error (else a warning).
    pub every_sentence_cites: bool,
}

impl Default for GateConfig {
    fn default() -> Self {
        Self::preset("standard").expect("standard preset")
    }
}

impl GateConfig {
    /// Built-in presets: `lenient`, `standard`, `strict` of increasing strictness, and
    /// one per report template: `quarterly`, `annual`, `investor`, `deep-dive`.
    pub fn preset(name: &str) -> Option<Self> {
        let template = |per_paragraph, density| {
            Some(GateConfig {
                min_citations_per_paragraph: per_paragraph,
                min_density_per_100_words: density,
                every_sentence_cites: true,
            })
        };
        match name {
            "quarterly" => template(1, 1.0),
            "annual" => template(1, 1.5),
            "investor" => template(2, 2.0),
            "deep-dive" => template(2, 3.0),
            "lenient" => Some(GateConfig {
                min_citations_per_paragraph: 1,
                min_density_per_100_words: 0.25,
                every_sentence_cites: false,
            }),
            "standard" => Some(GateConfig {
                min_citations_per_paragraph: 1,
                min_density_per_100_words: 0.5,
                every_sentence_cites: true,
            }),
            "strict" => Some(GateConfig {
                min_citations_per_paragraph: 2,
                min_density_per_100_words: 2.0,
                every_sentence_cites: true,
            }),
            _ => None,
        }
    }
}

/// One citation found in the text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Citation {
    /// The cited id (`E3`, or the ID of `[cite:ID]`).
    pub id: String,
    /// Byte offset of the bracket that holds it.
    pub at: usize,
}

/// Every citation in `text`, in order. Brackets that are not citations (`[1]`, `[see
/// below]`) are ignored.
pub fn citations(text: &str) -> Vec<Citation> {
    let mut out = Vec::new();
    let mut rest = 0;
    while let Some(open) = text[rest..].find('[') {
        let start = rest + open;
        let Some(close) = text[start..].find(']') else {
            break;
        };
        let inner = &text[start + 1..start + close];
        if let Some(id) = inner.strip_prefix("cite:") {
            let id = id.trim();
            if !id.is_empty() && !id.contains(char::is_whitespace) {
                out.push(Citation {
                    id: id.to_string(),
                    at: start,
                });
            }
        } else {
            let ids: Vec<&str> = inner.split(',').map(str::trim).collect();
            if !ids.is_empty() && ids.iter().all(|i| is_evidence_id(i)) {
                out.extend(ids.into_iter().map(|i| Citation {
                    id: i.to_string(),
                    at: start,
                }));
            }
        }
        rest = start + close + 1;
    }
    out
}

/// Byte ranges of bracketed text that looks like a citation marker: a bracket holding an
/// evidence id (`E3`) or `cite:`, whether or not it parses as a citation list.
fn marker_like(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut rest = 0;
    while let Some(open) = text[rest..].find(['[', '\u{FF3B}']) {
        let start = rest + open;
        let after = start + text[start..].chars().next().map_or(1, char::len_utf8);
        let Some(close) = text[after..].find([']', '\u{FF3D}', '[', '\n']) else {
            break;
        };
        let end = after + close;
        let inner = &text[after..end];
        let closes = text[end..].starts_with([']', '\u{FF3D}']);
        let looks = inner.trim_start().to_lowercase().starts_with("cite:")
            || inner
                .split(|c: char| !c.is_alphanumeric())
                .any(is_evidence_id);
        if closes && looks {
            let close_len = text[end..].chars().next().map_or(1, char::len_utf8);
            out.push((start, end + close_len));
        }
        rest = end;
    }
    out
}

/// `text` with every citation-like marker's brackets replaced by full-width ones
/// (`[E2]` → `［E2］`): text quoted from a document can never carry a citation. Markers
/// are left readable; the gate and the citation parser ignore them.
pub fn neutralise_markers(text: &str) -> std::borrow::Cow<'_, str> {
    let spans = marker_like(text);
    if spans
        .iter()
        .all(|&(s, e)| text[s..].starts_with('\u{FF3B}') && text[..e].ends_with('\u{FF3D}'))
    {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 4 * spans.len());
    let mut last = 0;
    for (s, e) in spans {
        let open = text[s..].chars().next().map_or(1, char::len_utf8);
        let close = text[..e].chars().next_back().map_or(1, char::len_utf8);
        out.push_str(&text[last..s]);
        out.push('\u{FF3B}');
        out.push_str(&text[s + open..e - close]);
        out.push('\u{FF3D}');
        last = e;
    }
    out.push_str(&text[last..]);
    std::borrow::Cow::Owned(out)
}

/// Citation-like markers in `text` that are not valid citations (`[E1; E2]`, `[E1 E2]`,
/// `[cite: ]`, `[E1, note]`), with their byte offsets.
pub fn malformed_markers(text: &str) -> Vec<(usize, String)> {
    let valid: HashSet<usize> = citations(text).into_iter().map(|c| c.at).collect();
    marker_like(text)
        .into_iter()
        .filter(|(s, _)| text[*s..].starts_with('[') && !valid.contains(s))
        .map(|(s, e)| (s, text[s..e].to_string()))
        .collect()
}

/// The gate for text written outside the engine (`attest validate`): [`check`], plus
/// violations for an empty text (`empty_text`), an empty evidence list (`no_evidence`)
/// and markers that look like citations but are not valid ones (`malformed_citation`):
/// nothing passes by saying nothing, and no marker is silently counted or ignored.
pub fn check_external(text: &str, known: &HashSet<String>, cfg: &GateConfig) -> GateResult {
    let mut r = check(text, known, cfg);
    let mut add = |kind: ViolationKind, message: String| {
        r.violations.push(Violation {
            kind,
            paragraph: None,
            sentence: None,
            message,
            severity: Severity::Error,
        })
    };
    if r.words == 0 {
        add(
            ViolationKind::EmptyText,
            "the text states nothing to check".into(),
        );
    }
    if known.is_empty() {
        add(
            ViolationKind::NoEvidence,
            "the evidence list is empty".into(),
        );
    }
    for (at, m) in malformed_markers(text) {
        add(
            ViolationKind::MalformedCitation,
            format!("{m} at byte {at} looks like a citation but is not one ([E1], [E1, E3] or [cite:ID])"),
        );
    }
    r.passed = r.violations.iter().all(|v| v.severity != Severity::Error);
    r
}

/// `E` followed by one or more digits.
pub fn is_evidence_id(s: &str) -> bool {
    s.len() > 1 && s.starts_with('E') && s[1..].bytes().all(|b| b.is_ascii_digit())
}

/// The rule a text broke (serialised as `type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ViolationKind {
    /// It cites an id the evidence does not hold.
    UnknownCitation,
    /// A paragraph has fewer citations than required.
    ParagraphWithoutCitations,
    /// A sentence cites nothing (a warning in the default preset).
    UncitedSentence,
    /// Fewer citations per 100 words than required.
    LowCitationDensity,
    /// The text states nothing to check.
    EmptyText,
    /// The evidence list is empty.
    NoEvidence,
    /// A marker looks like a citation but is not a valid one.
    MalformedCitation,
    /// It states a figure no cited text states.
    FigureNotInEvidence,
    /// Its negation differs from the cited sentence closest to it.
    PolarityMismatch,
    /// A cited item has no quote, so support cannot be checked.
    UnverifiableCitation,
    /// The quotes it cites do not support it.
    UnsupportedSentence,
    /// An audit's recorded sentence is not a sentence of its answer.
    SentenceMismatch,
    /// A composed sentence is not inside the quote of any item it cites.
    NotVerbatim,
    /// An audit's status does not fit what it records (a run that did not answer but
    /// states text).
    StatusMismatch,
}

impl ViolationKind {
    /// The name, as the JSON spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            ViolationKind::UnknownCitation => "unknown_citation",
            ViolationKind::ParagraphWithoutCitations => "paragraph_without_citations",
            ViolationKind::UncitedSentence => "uncited_sentence",
            ViolationKind::LowCitationDensity => "low_citation_density",
            ViolationKind::EmptyText => "empty_text",
            ViolationKind::NoEvidence => "no_evidence",
            ViolationKind::MalformedCitation => "malformed_citation",
            ViolationKind::FigureNotInEvidence => "figure_not_in_evidence",
            ViolationKind::PolarityMismatch => "polarity_mismatch",
            ViolationKind::UnverifiableCitation => "unverifiable_citation",
            ViolationKind::UnsupportedSentence => "unsupported_sentence",
            ViolationKind::SentenceMismatch => "sentence_mismatch",
            ViolationKind::NotVerbatim => "not_verbatim",
            ViolationKind::StatusMismatch => "status_mismatch",
        }
    }
}

/// Whether a violation fails the gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Fails the gate.
    Error,
    /// Reported; does not fail the gate.
    Warning,
}

impl Severity {
    /// The name, as the JSON spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// A rule the text broke.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Violation {
    /// The rule.
    #[serde(rename = "type")]
    pub kind: ViolationKind,
    /// 1-based paragraph number, when the violation is local.
    pub paragraph: Option<usize>,
    /// The sentence concerned, when there is one.
    pub sentence: Option<String>,
    /// Human explanation.
    pub message: String,
    /// Error or warning.
    pub severity: Severity,
}

impl Violation {
    /// An error-severity violation of `kind`.
    pub fn error(
        kind: ViolationKind,
        paragraph: Option<usize>,
        sentence: Option<String>,
        message: String,
    ) -> Self {
        Violation {
            kind,
            paragraph,
            sentence,
            message,
            severity: Severity::Error,
        }
    }

    /// A warning of `kind`.
    pub fn warning(
        kind: ViolationKind,
        paragraph: Option<usize>,
        sentence: Option<String>,
        message: String,
    ) -> Self {
        Violation {
            kind,
            paragraph,
            sentence,
            message,
            severity: Severity::Warning,
        }
    }
}

/// The gate's verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GateResult {
    /// No error-severity violation.
    pub passed: bool,
    /// Every violation found.
    pub violations: Vec<Violation>,
    /// Citations in the text.
    pub citations: usize,
    /// Paragraphs in the text (headings included).
    pub paragraphs: usize,
    /// Words in the text, citations excluded.
    pub words: usize,
    /// Citations per 100 words.
    pub density_per_100_words: f64,
}

fn is_heading(p: &str) -> bool {
    p.trim_start().starts_with('#')
}

/// A Markdown table whose every row is a fragment (fewer than [`FRAGMENT_WORDS`] words,
/// citations aside): a list of labels such as ids and statuses, which states nothing a
/// citation could support. Rows of more words are checked as sentences.
fn is_fragment_table(p: &str) -> bool {
    p.lines().all(|l| {
        let l = l.trim();
        l.starts_with('|') && word_count(&strip_citations(l)) < FRAGMENT_WORDS
    })
}

pub(crate) fn strip_citations(s: &str) -> String {
    let mut out = s.to_string();
    let mut cits = citations(s);
    cits.dedup_by_key(|c| c.at);
    for c in cits.iter().rev() {
        if let Some(close) = out[c.at..].find(']') {
            out.replace_range(c.at..c.at + close + 1, " ");
        }
    }
    out
}

/// Words under which a paragraph is short (a transition, a label) and exempt from the
/// per-paragraph rules; so is one under [`SHORT_PARAGRAPH_CHARS`] characters.
const SHORT_PARAGRAPH_WORDS: usize = 10;
/// Characters under which a paragraph is short.
const SHORT_PARAGRAPH_CHARS: usize = 50;
/// Words under which a sentence is a fragment that states nothing.
const FRAGMENT_WORDS: usize = 3;
/// Words under which a sentence of a short paragraph is a transition, not a statement.
const SHORT_STATEMENT_WORDS: usize = 4;
/// Words under which a text is too short for the density rule.
const MIN_WORDS_FOR_DENSITY: usize = 10;

/// Check `text` against the ids in `known`.
pub fn check(text: &str, known: &HashSet<String>, cfg: &GateConfig) -> GateResult {
    let all = citations(text);
    let mut violations: Vec<Violation> = all
        .iter()
        .filter(|c| !known.contains(&c.id))
        .map(|c| {
            Violation::error(
                ViolationKind::UnknownCitation,
                None,
                None,
                format!(
                    "cites {} at byte {}, which is not in the evidence",
                    c.id, c.at
                ),
            )
        })
        .collect();
    let paragraphs = paragraphs(text);
    let mut words = 0;
    for (pi, p) in paragraphs.iter().enumerate() {
        let plain = strip_citations(p);
        let w = word_count(&plain);
        words += w;
        let short =
            w < SHORT_PARAGRAPH_WORDS || plain.trim().chars().count() < SHORT_PARAGRAPH_CHARS;
        if is_fragment_table(p) {
            continue;
        }
        if is_heading(p) {
            continue; // a title (the review report writes its own findings as headings)
        }
        if !short {
            check_citation_count(pi + 1, p, cfg, &mut violations);
        }
        // A short paragraph needs no citation count, but a statement in it still cites
        // (a transition such as "In short: yes." is too short to be one).
        let fragment = if short {
            SHORT_STATEMENT_WORDS
        } else {
            FRAGMENT_WORDS
        };
        check_sentences(pi + 1, p, fragment, cfg, &mut violations);
    }
    let density = if words == 0 {
        0.0
    } else {
        all.len() as f64 * 100.0 / words as f64
    };
    if words >= MIN_WORDS_FOR_DENSITY && density < cfg.min_density_per_100_words {
        violations.push(Violation::error(
            ViolationKind::LowCitationDensity,
            None,
            None,
            format!(
                "{density:.2} citations per 100 words; at least {} required",
                cfg.min_density_per_100_words
            ),
        ));
    }
    GateResult {
        passed: violations.iter().all(|v| v.severity != Severity::Error),
        violations,
        citations: all.len(),
        paragraphs: paragraphs.len(),
        words,
        density_per_100_words: density,
    }
}

/// The sentences of paragraph `p`, each with the ids it cites. Citations that open a
/// sentence, before any word, belong to the sentence before it: "Claim one. [E1] Claim
/// two. [E2]" cites E1 for the first claim and E2 for the second, as a reader takes it.
pub fn cited_units(p: &str) -> Vec<(&str, Vec<String>)> {
    let mut out: Vec<(&str, Vec<String>)> = Vec::new();
    for s in sentences(p) {
        let sent = s.slice(p);
        let lead = leading_citations(sent);
        let (head, rest) = sent.split_at(lead);
        let ids = |t: &str| citations(t).into_iter().map(|c| c.id).collect::<Vec<_>>();
        match out.last_mut() {
            Some(prev) if lead > 0 => prev.1.extend(ids(head)),
            _ if lead > 0 => {
                out.push((sent, ids(sent)));
                continue;
            }
            _ => {}
        }
        let rest = rest.trim_start();
        if !rest.is_empty() {
            out.push((rest, ids(rest)));
        }
    }
    out
}

/// Bytes at the start of `sent` taken by citation brackets and the spaces between them.
fn leading_citations(sent: &str) -> usize {
    let mut at = 0;
    loop {
        let skipped = sent[at..].len() - sent[at..].trim_start().len();
        let rest = &sent[at + skipped..];
        let Some(close) = rest.starts_with('[').then(|| rest.find(']')).flatten() else {
            return at;
        };
        if citations(&rest[..=close]).is_empty() {
            return at;
        }
        at += skipped + close + 1;
    }
}

/// The paragraphs of `text` as the gate numbers them (1-based in violations): blocks
/// between blank lines, trimmed, empty ones skipped.
pub fn paragraphs(text: &str) -> Vec<&str> {
    text.split("\n\n")
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect()
}

/// The per-paragraph rule on paragraph number `n` (text `p`): enough citations.
fn check_citation_count(n: usize, p: &str, cfg: &GateConfig, violations: &mut Vec<Violation>) {
    let cites = citations(p).len();
    if cites < cfg.min_citations_per_paragraph {
        violations.push(Violation::error(
            ViolationKind::ParagraphWithoutCitations,
            Some(n),
            None,
            format!(
                "paragraph {n} has {cites} citation(s); at least {} required",
                cfg.min_citations_per_paragraph
            ),
        ));
    }
}

/// The sentence rule on paragraph number `n` (text `p`): every sentence that states
/// something cites. Headings, fragments (under `fragment` words) and labels (ending in a
/// colon) state nothing.
fn check_sentences(
    n: usize,
    p: &str,
    fragment: usize,
    cfg: &GateConfig,
    violations: &mut Vec<Violation>,
) {
    for (sent, ids) in cited_units(p) {
        let plain = strip_citations(sent);
        if is_heading(sent) || word_count(&plain) < fragment || plain.trim_end().ends_with(':') {
            continue;
        }
        if ids.is_empty() {
            let (kind, sentence) = (ViolationKind::UncitedSentence, Some(sent.to_string()));
            let message = "sentence states something but cites no evidence".into();
            violations.push(if cfg.every_sentence_cites {
                Violation::error(kind, Some(n), sentence, message)
            } else {
                Violation::warning(kind, Some(n), sentence, message)
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known(ids: &[&str]) -> HashSet<String> {
        ids.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn every_citation_form_is_recognised() {
        let c = citations(
            "A [E1]. B [E1, E3]. C [E2][E4]. D [cite:doc-7]. E [1] [see below] [E] [Ex].",
        );
        let ids: Vec<&str> = c.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, vec!["E1", "E1", "E3", "E2", "E4", "doc-7"]);
    }

    #[test]
    fn a_fully_cited_answer_passes() {
        let text = "# Retention\n\nCounties must keep client records for seven years after the last service [E1]. \
                    Records of minors are kept until the client turns twenty-five [E2, E3].";
        let r = check(text, &known(&["E1", "E2", "E3"]), &GateConfig::default());
        assert!(r.passed, "{:?}", r.violations);
        assert_eq!((r.citations, r.paragraphs), (3, 2));
        assert!(r.density_per_100_words > 10.0);
    }

    #[test]
    fn unknown_ids_uncited_sentences_and_bare_paragraphs_are_violations() {
        let text = "Counties must keep client records for seven years after the last service [E9].\n\n\
                    This paragraph makes a claim about housing payments and their monthly maximum without any support.";
        let r = check(text, &known(&["E1"]), &GateConfig::default());
        assert!(!r.passed);
        let kinds: Vec<&str> = r.violations.iter().map(|v| v.kind.as_str()).collect();
        assert!(kinds.contains(&"unknown_citation"));
        assert!(kinds.contains(&"paragraph_without_citations"));
        assert!(kinds.contains(&"uncited_sentence"));
        let p = r
            .violations
            .iter()
            .find(|v| v.kind == ViolationKind::ParagraphWithoutCitations)
            .unwrap();
        assert_eq!(p.paragraph, Some(2));
    }

    #[test]
    fn a_table_of_fragments_is_exempt_but_a_table_of_statements_is_not() {
        let labels = "| Requirement | Status |\n|---|---|\n| R1 | evidenced |\n| R2 | missing |\n| R3 | needs_review |\n| R4 | conflict |\n| R5 | evidenced |";
        let r = check(labels, &known(&["E1"]), &GateConfig::default());
        assert!(
            r.violations.iter().all(|v| v.paragraph.is_none()),
            "{:?}",
            r.violations
        );
        let claims = "| Item | Value |\n|---|---|\n| Records are kept | for seven years after the last service |\n| Payments | are capped at four hundred dollars |";
        let r = check(claims, &known(&["E1"]), &GateConfig::default());
        assert!(!r.passed);
        assert!(r
            .violations
            .iter()
            .any(|v| v.kind == ViolationKind::ParagraphWithoutCitations));
    }

    #[test]
    fn a_citation_after_the_full_stop_belongs_to_the_sentence_before_it() {
        let k = known(&["E1", "E2"]);
        let cfg = GateConfig::default();
        for ok in [
            "Counties must keep client records for seven years after the last service. [E1]",
            "Counties must keep client records for seven years. [E1] Staff must log every disclosure of a record. [E2]",
            "[E1] Counties must keep client records for seven years after the last service.",
        ] {
            let r = check(ok, &k, &cfg);
            assert!(r.passed, "{ok}: {:?}", r.violations);
        }
        let bad = "Counties must keep client records for seven years. [E1] Staff may share records with anyone.";
        let r = check(bad, &k, &cfg);
        assert!(!r.passed);
        let v: Vec<_> = r
            .violations
            .iter()
            .filter_map(|v| v.sentence.as_deref())
            .collect();
        assert_eq!(v, ["Staff may share records with anyone."]);
        let units = cited_units("One claim here. [E1][E2] Two claim here.");
        assert_eq!(
            units[0],
            ("One claim here.", vec!["E1".to_string(), "E2".to_string()])
        );
        assert!(units[1].1.is_empty());
    }

    #[test]
    fn short_paragraphs_are_exempt_and_presets_grow_stricter() {
        let short = "In short: yes.\n\nCounties must keep client records for seven years after the last service [E1].";
        assert!(check(short, &known(&["E1"]), &GateConfig::default()).passed);
        // A short paragraph is exempt from the count, not from the sentence rule: claims
        // hidden in short paragraphs are still uncited.
        for hidden in [
            "Records may be destroyed after one year by anyone.",
            "Counties must keep client records for seven years after the last service [E1].\n\nStaff may share records freely.",
        ] {
            let r = check(hidden, &known(&["E1"]), &GateConfig::default());
            assert!(!r.passed, "{hidden}");
            assert!(r.violations.iter().any(|v| v.kind == ViolationKind::UncitedSentence));
        }
        let one = "Counties must keep client records for seven years after the last service and must also \
                   document every disclosure in the log that is kept with the record of the client [E1].";
        assert!(
            check(
                one,
                &known(&["E1"]),
                &GateConfig::preset("standard").unwrap()
            )
            .passed
        );
        let strict = check(one, &known(&["E1"]), &GateConfig::preset("strict").unwrap());
        assert!(!strict.passed);
        assert!(strict
            .violations
            .iter()
            .any(|v| v.kind == ViolationKind::ParagraphWithoutCitations));
        // One citation for ~250 words is below the standard 0.5 per 100 words.
        let long = format!(
            "Counties must {} keep records [E1].",
            "carefully ".repeat(250)
        );
        let r = check(&long, &known(&["E1"]), &GateConfig::default());
        assert!(
            r.violations
                .iter()
                .any(|v| v.kind == ViolationKind::LowCitationDensity),
            "{r:?}"
        );
        assert!(GateConfig::preset("nonsense").is_none());
    }
}
