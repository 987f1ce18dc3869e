//! Which field a value belongs to: the field catalogue with the phrases that introduce
//! each field, the phrases that introduce something else (distractors), and the rules
//! that give a candidate to the field of the nearest phrase.

use super::values::{identifier_at, Candidate};
use super::{names, Extraction, FieldSpec, FieldType, Position, RejectReason, Value};

/// Bytes between a cue and the value it introduces, at most.
const MAX_GAP: usize = 160;
/// Bytes between an area cue and its value, at most (areas of other things are common).
const MAX_AREA_GAP: usize = 70;
/// Bytes between a percentage and a cue after it, at most.
const MAX_TRAILING_SHARE_GAP: usize = 110;
/// Words of a value read under its label at most (a longer quote must name its field).
const MAX_LABELLED_WORDS: usize = 6;
/// Words of a sentence whose one uncued value is read under its label, at most.
const MAX_LABELLED_SENTENCE_WORDS: usize = 20;
/// Bytes between a value and a cue after it ("30-year crediting period"), at most.
const MAX_TRAILING_GAP: usize = 50;

fn spec(name: &str, ty: FieldType, position: Position, cues: &[&str]) -> FieldSpec {
    FieldSpec {
        name: name.into(),
        ty,
        cues: cues.iter().map(|c| c.to_string()).collect(),
        position,
        pattern: None,
        unit: None,
        rule: RULE_FIELDS.contains(&name),
        extension: None,
        subject: Vec::new(),
        event: Vec::new(),
        act: Vec::new(),
        documents: Vec::new(),
    }
}

/// Catalogue fields whose value is a rule the documents set: a regulation or policy
/// states it with "must" and "no later than".
const RULE_FIELDS: &[&str] = &[
    "retention_period_years",
    "notification_deadline_days",
    "response_deadline_days",
];

/// The catalogue: name, type, range position and the cues of every field.
const CATALOGUE: &[(&str, FieldType, Position, &[&str])] = &[
    (
        "owner_name",
        FieldType::Name,
        Position::Any,
        &[
            "owner",
            "owners",
            "landowner",
            "land owner",
            "owned by",
            "proprietor",
            "lessor",
            "title holder",
            "titleholder",
            "registered owner",
            "in the name of",
            "landlord",
        ],
    ),
    (
        "area_hectares",
        FieldType::Area,
        Position::Any,
        &[
            "area",
            "total area",
            "project area",
            "land area",
            "covers",
            "covering",
            "comprises",
            "comprising",
            "measuring",
            "measures",
            "extent",
            "size",
            "parcel",
            "property",
            "estate",
            "farm",
            "land of",
            "plot of",
            "tract",
        ],
    ),
    (
        "tenure_type",
        FieldType::Tenure,
        Position::Any,
        &[
            "tenure",
            "tenure type",
            "type of tenure",
            "land tenure",
            "tenure arrangement",
            "form of tenure",
            "nature of tenure",
        ],
    ),
    (
        "project_start_date",
        FieldType::Date,
        Position::Any,
        &[
            "project start date",
            "start date",
            "project start",
            "project started",
            "project commenced",
            "project commencement",
            "commencement date",
            "start of the project",
            "start of project activities",
            "project activities began",
            "project activities started",
            "project began",
        ],
    ),
    (
        "crediting_period_years",
        FieldType::Duration,
        Position::Any,
        &["crediting period"],
    ),
    (
        "crediting_period_start",
        FieldType::Date,
        Position::RangeStart,
        &[
            "crediting period",
            "crediting period start",
            "crediting period start date",
            "crediting period begins",
            "crediting period starts",
            "start of the crediting period",
        ],
    ),
    (
        "crediting_period_end",
        FieldType::Date,
        Position::RangeEnd,
        &[
            "crediting period",
            "crediting period end",
            "crediting period end date",
            "crediting period ends",
            "end of the crediting period",
        ],
    ),
    (
        "leakage_percentage",
        FieldType::Percentage,
        Position::Any,
        &[
            "leakage",
            "leakage deduction",
            "leakage discount",
            "leakage rate",
        ],
    ),
    (
        "permanence_period_years",
        FieldType::Duration,
        Position::Any,
        &["permanence period", "permanence", "period of permanence"],
    ),
    (
        "buffer_pool_percentage",
        FieldType::Percentage,
        Position::Any,
        &[
            "buffer pool",
            "buffer",
            "pooled buffer",
            "buffer account",
            "buffer contribution",
            "non-permanence risk buffer",
        ],
    ),
    (
        "project_id",
        FieldType::Identifier,
        Position::Any,
        &[
            "project id",
            "project identifier",
            "project identification number",
            "project number",
            "project no",
            "registry id",
            "registry identifier",
            "registry number",
            "registration number",
            "project reference",
            "reference number",
            "project code",
        ],
    ),
    (
        "retention_period_years",
        FieldType::Duration,
        Position::Any,
        &[
            "retain",
            "retained",
            "retains",
            "retaining",
            "retention",
            "retention period",
            "kept",
            "keep",
            "preserved",
            "preserve",
        ],
    ),
    (
        "notification_deadline_days",
        FieldType::Duration,
        Position::Any,
        &[
            "notify",
            "notified",
            "notifies",
            "notifying",
            "notification",
            "notifications",
        ],
    ),
    (
        "response_deadline_days",
        FieldType::Duration,
        Position::Any,
        &[
            "act on",
            "acting on",
            "take action",
            "respond",
            "responds",
            "response",
            "answer",
            "answered",
            "reply",
            "extend the time",
        ],
    ),
];

/// The field catalogue: every field the review knows, with its type and cues.
pub fn catalogue() -> Vec<FieldSpec> {
    CATALOGUE
        .iter()
        .map(|(name, ty, position, cues)| spec(name, *ty, *position, cues))
        .collect()
}

/// Phrases that introduce a date that is no catalogue field.
const DATE_DISTRACTORS: &[&str] = &[
    "signed",
    "dated",
    "date of signature",
    "issued",
    "issue date",
    "date of issue",
    "date of birth",
    "born",
    "version",
    "revised",
    "submitted",
    "approved",
    "report date",
    "verification",
    "validation",
    "monitoring period",
    "registered on",
    "registration date",
    "effective date",
    "expiry",
    "expires",
    "valid until",
    "prepared",
    "published",
    "as of",
    "last updated",
    "visit",
    "inspection",
    "lease commences",
    "lease term",
];

/// Phrases that introduce a percentage that is no catalogue field.
const PERCENTAGE_DISTRACTORS: &[&str] = &[
    "buffer zone",
    "buffer zones",
    "buffer strip",
    "buffer strips",
    "riparian buffer",
    "cash buffer",
    "buffer area",
    "buffer areas",
    "financial buffer",
    "uncertainty",
    "confidence",
    "discount",
    "deduction",
    "interest",
    "slope",
    "canopy",
    "cover",
    "survival",
    "mortality",
    "moisture",
    "humidity",
    "share",
    "threshold",
    "vat",
    "tax",
    "royalty",
    "growth",
    "increase",
    "decrease",
    "reduction",
    "allocated to",
    "risk",
];

/// Phrases that introduce a area that is no catalogue field.
const AREA_DISTRACTORS: &[&str] = &[
    "buffer",
    "zone",
    "of which",
    "including",
    "excluding",
    "plots",
    "plot ",
    "sample",
    "stratum",
    "strata",
    "per ",
    "each",
    "cleared",
    "degraded",
    "burned",
    "planted",
    "wetland",
    "forest cover",
    "road",
    "reference region",
    "leakage belt",
    "district",
    "municipality",
    "country",
    "region",
    "grid",
    "pixel",
    "pixels",
    "block size",
    "block",
    "blocks",
    "strip",
    "strips",
    "quadrat",
    "cell size",
    "resolution",
];

/// Phrases that introduce a duration that is no catalogue field.
const DURATION_DISTRACTORS: &[&str] = &[
    "lease term",
    "term of",
    "monitoring",
    "every",
    "each",
    "within",
    "age",
    "aged",
    "old",
    "ago",
    "verification",
    "frequency",
    "lifetime",
    "after",
    "warranty",
    "experience",
    "rotation",
    "history",
    "historical",
    "reference period",
    "baseline period",
    "minimum",
    "at least",
];

/// Phrases that introduce a period that is no rule field's: a suspension, a frequency, a
/// look-back ("six years prior to the date of the request").
const RULE_DISTRACTORS: &[&str] = &[
    "suspend",
    "suspended",
    "suspension",
    "tolled",
    "every",
    "each",
    "ago",
    "age",
    "aged",
    "prior to",
    "preceding",
    "once every",
];

/// Phrases that, anywhere before a period in its sentence, make it how long a rule is put
/// off ("delay the notification … no longer than 30 days"), not the rule's own period.
const SUSPENSIONS: &[&str] = &[
    "suspend",
    "suspended",
    "suspension",
    "tolled",
    "temporarily",
    "delay the",
    "delay such",
    "delay notification",
];

/// Phrases that introduce a value that is not any catalogue field, per type.
fn distractors(ty: FieldType) -> &'static [&'static str] {
    match ty {
        FieldType::Date => DATE_DISTRACTORS,
        FieldType::Percentage => PERCENTAGE_DISTRACTORS,
        FieldType::Area => AREA_DISTRACTORS,
        FieldType::Duration => DURATION_DISTRACTORS,
        _ => &[],
    }
}

/// One occurrence of a phrase in the quote and the fields it introduces (none: a
/// distractor).
#[derive(Debug, Clone)]
pub struct Marker {
    start: usize,
    end: usize,
    fields: Vec<String>,
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}

/// Whether lower-case `lower` holds cue `phrase` at word boundaries.
pub(crate) fn names_cue(lower: &str, phrase: &str) -> bool {
    !find(lower, phrase).is_empty()
}

/// Occurrences of `phrase` in `lower` at word boundaries.
fn find(lower: &str, phrase: &str) -> Vec<(usize, usize)> {
    let bytes = lower.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = lower[from..].find(phrase) {
        let s = from + i;
        let e = s + phrase.len();
        let before = s == 0 || !is_word(bytes[s - 1]);
        let first = phrase.as_bytes()[0];
        let after = e >= bytes.len()
            || !is_word(bytes[e])
            || !is_word(*phrase.as_bytes().last().unwrap_or(&b' '));
        if (before || !is_word(first)) && after {
            out.push((s, e));
        }
        from = s + phrase.len().max(1);
    }
    out
}

/// Every cue of `spec`, of the catalogue fields of its type and of the distractors of its
/// type in `lower`; a phrase inside a longer one found at the same place is dropped.
pub fn markers(spec: &FieldSpec, lower: &str) -> Vec<Marker> {
    let mut phrases: Vec<(String, Option<String>)> = Vec::new();
    let mut add = |p: &str, f: Option<&str>| phrases.push((p.to_string(), f.map(str::to_string)));
    for c in &spec.cues {
        add(c, Some(&spec.name));
    }
    let unit = spec.duration_unit();
    for f in catalogue().iter().filter(|f| {
        f.ty == spec.ty
            && f.name != spec.name
            && (f.ty != FieldType::Duration || f.duration_unit() == unit)
    }) {
        for c in &f.cues {
            add(c, Some(&f.name));
        }
    }
    let distract = if spec.rule {
        RULE_DISTRACTORS
    } else {
        distractors(spec.ty)
    };
    for d in distract {
        add(d, None);
    }
    let mut found: Vec<Marker> = Vec::new();
    for (p, field) in &phrases {
        for (s, e) in find(lower, p) {
            match found.iter_mut().find(|m| m.start == s && m.end == e) {
                Some(m) => m.fields.extend(field.clone()),
                None => found.push(Marker {
                    start: s,
                    end: e,
                    fields: field.iter().cloned().collect(),
                }),
            }
        }
    }
    let all = found.clone();
    found.retain(|m| {
        !all.iter()
            .any(|o| o.start <= m.start && o.end >= m.end && (o.end - o.start) > (m.end - m.start))
    });
    found.sort_by_key(|m| (m.start, m.end));
    found
}

/// Whether `gap` (text between a cue and a value) crosses a sentence or paragraph.
fn crosses(gap: &str) -> bool {
    let b = gap.as_bytes();
    gap.contains("\n\n")
        || b.windows(3).any(|w| {
            (w[0].is_ascii_alphanumeric() || matches!(w[0], b')' | b'%' | b'"'))
                && matches!(w[1], b'.' | b'!' | b'?')
                && w[2].is_ascii_whitespace()
        })
}

/// Words that open a clause of their own between a cue and a value ("leakage applies
/// because harvest falls by 38%"): the value then belongs to that clause.
const CLAUSE_WORDS: &[&str] = &[
    "because",
    "since",
    "while",
    "whereas",
    "although",
    "though",
    "if",
    "unless",
    "when",
    "compared",
    "relative",
    "after",
    "before",
    "which",
    "who",
    "originally",
    "previously",
    "formerly",
    "initially",
    "earlier",
    "planned",
    "postponed",
    "proposed",
    "superseded",
    "replaced",
    "revised",
    "amended",
    "cancelled",
    "canceled",
    "other",
    "another",
    "neighbouring",
    "neighboring",
    "adjacent",
];
/// Words between a cue and its value, at most.
const MAX_GAP_WORDS: usize = 12;

/// Whether `gap` (cue to value) holds a clause of its own or too many words.
fn subordinate(gap: &str) -> bool {
    let words: Vec<String> = gap
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_ascii_lowercase()
        })
        .collect();
    words.len() > MAX_GAP_WORDS || words.iter().any(|w| CLAUSE_WORDS.contains(&w.as_str()))
}

/// The marker that introduces `[s, e)`: the nearest one before it in the sentence, else
/// one right after it in the same clause.
fn introducer<'m>(
    quote: &str,
    markers: &'m [Marker],
    s: usize,
    e: usize,
    max_gap: usize,
) -> Option<&'m Marker> {
    // "the 25-year crediting period": a cue right after the value names it, whatever came
    // before.
    let adjacent = markers.iter().find(|m| {
        !m.fields.is_empty()
            && m.start >= e
            && m.start - e <= 1
            && quote[e..m.start]
                .chars()
                .all(|c| c.is_whitespace() && c != '\n')
    });
    if adjacent.is_some() {
        return adjacent;
    }
    // "15% of the verified credits are deposited in the buffer pool": a share is often
    // named before what it is a share of.
    let trailing = if quote[s..e].ends_with('%') || quote[s..e].ends_with("cent") {
        MAX_TRAILING_SHARE_GAP
    } else {
        MAX_TRAILING_GAP
    };
    let before = markers
        .iter()
        .filter(|m| m.end <= s && s - m.end <= max_gap && !crosses(&quote[m.end..s]))
        .filter(|m| !subordinate(&quote[m.end..s]))
        .max_by_key(|m| (m.end, m.end - m.start));
    if before.is_some() {
        return before;
    }
    markers
        .iter()
        .filter(|m| m.start >= e && m.start - e <= trailing)
        .filter(|m| !subordinate(&quote[e..m.start]))
        .filter(|m| {
            !crosses(&quote[e..m.start]) && !quote[e..m.start].contains([',', ';', '(', ')'])
        })
        .min_by_key(|m| m.start)
}

/// The header of the table cell holding `[s, e)`, when the quote is a row whose cells
/// line up with the `|`-separated headers of `context`.
fn cell_header(quote: &str, context: &str, s: usize) -> Option<String> {
    let headers = context
        .rsplit_once(": ")
        .map_or(context, |(cap, h)| if h.contains('|') { h } else { cap });
    let headers: Vec<&str> = headers.split('|').map(str::trim).collect();
    let cells: Vec<(usize, &str)> = split_cells(quote);
    if headers.len() < 2 || headers.len() != cells.len() {
        return None;
    }
    let i = cells.iter().rposition(|(at, _)| *at <= s)?;
    let generic = [
        "value",
        "values",
        "detail",
        "details",
        "description",
        "information",
        "answer",
        "response",
        "data",
        "entry",
        "",
    ];
    if i > 0 && generic.contains(&headers[i].to_ascii_lowercase().as_str()) {
        // A key-value table: the value is read under the table's subject and its key.
        return Some(format!("{} {}", headers[0], cells[0].1.trim()));
    }
    Some(headers[i].to_string())
}

/// The cells of a `a | b | c` row with their offsets (outer pipes of Markdown dropped).
fn split_cells(row: &str) -> Vec<(usize, &str)> {
    let mut cells = Vec::new();
    let mut at = 0;
    for part in row.split('|') {
        cells.push((at, part));
        at += part.len() + 1;
    }
    if row.trim_start().starts_with('|') {
        cells.remove(0);
    }
    if row.trim_end().ends_with('|') {
        cells.pop();
    }
    cells
}

/// Whether the label text `context` introduces `spec` and no competing field.
fn label_introduces(spec: &FieldSpec, context: &str) -> bool {
    let lower = context.to_ascii_lowercase();
    let ms = markers(spec, &lower);
    !ms.is_empty() && ms.iter().all(|m| m.fields.contains(&spec.name))
}

/// Whether the value at `[s, e)` (no cue of its own in the quote) is introduced by its
/// label: the header of its cell, or the label of the whole quote.
fn by_label(spec: &FieldSpec, quote: &str, context: Option<&str>, s: usize) -> bool {
    let Some(ctx) = context else { return false };
    if ctx.contains('|') && quote.contains('|') {
        return cell_header(quote, ctx, s).is_some_and(|h| label_introduces(spec, &h));
    }
    crate::text::word_count(quote) <= MAX_LABELLED_SENTENCE_WORDS && label_introduces(spec, ctx)
}

/// The spans of `quote` its label introduces as values of `spec` (when the quote names
/// no field itself): the cells under a header that introduces it, or the whole quote
/// (trimmed) under a label that does.
fn label_spans(spec: &FieldSpec, quote: &str, context: Option<&str>) -> Vec<(usize, usize)> {
    let Some(ctx) = context else {
        return Vec::new();
    };
    let short = |(s, e): &(usize, usize)| {
        s < e && crate::text::word_count(&quote[*s..*e]) <= MAX_LABELLED_WORDS
    };
    let trim = |at: usize, cell: &str| {
        let body = cell.trim_end_matches(|c: char| c.is_whitespace() || c == '.');
        let lead = body.len() - body.trim_start().len();
        (at + lead, at + body.len())
    };
    if ctx.contains('|') && quote.contains('|') {
        return split_cells(quote)
            .into_iter()
            .filter(|(at, _)| {
                cell_header(quote, ctx, *at).is_some_and(|h| label_introduces(spec, &h))
            })
            .map(|(at, cell)| trim(at, cell))
            .filter(short)
            .collect();
    }
    if label_introduces(spec, ctx) {
        vec![trim(0, quote)].into_iter().filter(short).collect()
    } else {
        Vec::new()
    }
}

/// Words before a number that make it a limit, not the stated value.
const COMPARATORS: &[&str] = &[
    ">",
    "<",
    "≥",
    "≤",
    "=>",
    "more than",
    "less than",
    "greater than",
    "fewer than",
    "exceeds",
    "exceed",
    "exceeding",
    "in excess of",
    "at least",
    "at most",
    "up to",
    "above",
    "below",
    "under",
    "over",
    "maximum of",
    "minimum of",
    "maximum",
    "minimum",
    "max.",
    "min.",
    "no more than",
    "threshold of",
    "limit of",
    "cap of",
    "beyond",
    "not to exceed",
    "lower than",
    "higher than",
    "within",
];
/// Words after a number that make it a limit.
const TRAILING_COMPARATORS: &[&str] = &[
    "or more",
    "or less",
    "or higher",
    "or lower",
    "or above",
    "or below",
    "threshold",
    "cap",
    "limit",
    "or greater",
    "+",
];

/// Whether the number at `[s, e)` is stated as a limit or condition.
fn threshold(quote: &str, s: usize, e: usize) -> bool {
    let lower = quote.to_ascii_lowercase();
    let mut before = lower[..s].trim_end();
    for det in [" the", " a", " an", " of"] {
        before = before.strip_suffix(det).unwrap_or(before).trim_end();
    }
    let after = lower[e..].trim_start();
    let tail = &before[before.len().saturating_sub(30)..];
    let between = before.ends_with("between")
        || (before.ends_with(" and")
            && tail.contains("between")
            && tail.bytes().any(|b| b.is_ascii_digit()));
    between
        || COMPARATORS.iter().any(|c| {
            before.ends_with(c)
                && (c.starts_with(['>', '<', '≥', '≤', '='])
                    || before.len() == c.len()
                    || !is_word(before.as_bytes()[before.len() - c.len() - 1]))
        })
        || TRAILING_COMPARATORS.iter().any(|c| after.starts_with(c))
}

/// Words that make a cue name a limit ("a minimum buffer contribution of 10%").
const LIMIT_WORDS: &[&str] = &[
    "minimum",
    "maximum",
    "min",
    "max",
    "threshold",
    "limit",
    "cap",
    "ceiling",
    "floor",
    "at least",
    "at most",
    "up to",
    "no more than",
    "not exceed",
    "required",
    "requirement",
];

/// Words that make a statement a rule, not the project's value.
const RULE_WORDS: &[&str] = &[
    "shall",
    "must",
    "should",
    "require",
    "requires",
    "required",
    "rules",
    "eligible",
    "eligibility",
    "may",
    "can",
    "could",
];
/// The first of [`RULE_WORDS`] also count before the cue in the sentence ("may" and "can"
/// do not: "In May 2021 …").
const RULE_LEAD_WORDS: usize = 9;

/// Whether a limit word stands in the two words before the cue at `cue` or between the
/// cue and the value at `value`.
fn limit_around(quote: &str, cue: usize, value: usize) -> bool {
    let lower = quote.to_ascii_lowercase();
    let before: Vec<&str> = lower[..cue].split_whitespace().rev().take(2).collect();
    let between = &lower[cue.min(value)..cue.max(value)];
    // A rule: a modal or "require" between the cue and the value, or anywhere before the
    // value in its sentence ("projects above 40% must deposit 20% …").
    let sentence_start = lower[..value].rfind(". ").map_or(0, |i| i + 2);
    let lead = &lower[sentence_start.min(value)..value];
    let modal = RULE_WORDS.iter().any(|w| !find(between, w).is_empty())
        || RULE_WORDS[..RULE_LEAD_WORDS]
            .iter()
            .any(|w| !find(lead, w).is_empty());
    modal
        || LIMIT_WORDS.iter().any(|w| {
            before
                .iter()
                .any(|b| b.trim_matches(|c: char| !c.is_alphanumeric()) == *w)
                || !find(between, w).is_empty()
        })
}

/// Whether the percentage at `s` is a change ("falls by 38%", "up from 4%"), not a level.
fn change_amount(quote: &str, s: usize) -> bool {
    let w = quote[..s]
        .split_whitespace()
        .next_back()
        .unwrap_or("")
        .to_ascii_lowercase();
    matches!(w.as_str(), "by" | "from")
}

/// Column headers that hold something other than the project's value.
const OTHER_COLUMNS: &[&str] = &[
    "maximum",
    "minimum",
    "max",
    "min",
    "limit",
    "threshold",
    "required",
    "requirement",
    "registry",
    "standard",
    "planned",
    "plan",
    "previous",
    "original",
    "target",
    "baseline",
    "default",
    "benchmark",
    "cap",
];

/// Whether the cell holding `s` sits under a header naming a limit, plan or baseline
/// ("Registry maximum", "Planned").
fn under_limit_header(quote: &str, context: Option<&str>, s: usize) -> bool {
    let Some(ctx) = context.filter(|c| c.contains('|') && quote.contains('|')) else {
        return false;
    };
    cell_header(quote, ctx, s).is_some_and(|h| {
        let h = h.to_ascii_lowercase();
        OTHER_COLUMNS.iter().any(|w| !find(&h, w).is_empty())
    })
}

/// Keep the candidates the field's cues (or its label) introduce; thresholds and range
/// positions decide further.
pub fn owned(
    spec: &FieldSpec,
    quote: &str,
    markers: &[Marker],
    context: Option<&str>,
    cands: Vec<Candidate>,
    x: &mut Extraction,
) {
    let gap = if spec.ty == FieldType::Area {
        MAX_AREA_GAP
    } else {
        MAX_GAP
    };
    if spec.rule {
        return ruled(spec, quote, markers, cands, x);
    }
    let intro: Vec<Option<&Marker>> = cands
        .iter()
        .map(|c| introducer(quote, markers, c.start, c.end, gap))
        .collect();
    // Under a label: the one candidate no cue introduces (range fields: position words decide).
    let orphans = intro.iter().filter(|m| m.is_none()).count();
    // "About 35% of the displaced grazing …" under a "Leakage" heading measures what
    // follows "of", not the field the heading names.
    let by_label_ok = |c: &Candidate| {
        (orphans == 1 || spec.position != Position::Any)
            && !quote[c.end..]
                .trim_start()
                .to_ascii_lowercase()
                .starts_with("of ")
            && by_label(spec, quote, context, c.start)
    };
    let mine: Vec<(Candidate, Option<&Marker>)> = cands
        .into_iter()
        .zip(intro)
        .filter(|(c, _)| !(spec.ty == FieldType::Percentage && change_amount(quote, c.start)))
        .filter(|(c, _)| !under_limit_header(quote, context, c.start))
        .filter(|(c, m)| match m {
            // "submitted" marks a submission date, unless submitting is the act the
            // deadline is set for.
            Some(m) => {
                m.fields.contains(&spec.name)
                    || (m.fields.is_empty()
                        && is_act(&quote[m.start..m.end], &spec.act)
                        && sets_deadline(quote, c.start, &spec.act))
            }
            None => {
                by_label_ok(c)
                    || sets_deadline(quote, c.start, &spec.act)
                    || named_next(spec, quote, c.start, c.end)
            }
        })
        .collect();
    let n = mine.len();
    for (i, (mut c, m)) in mine.into_iter().enumerate() {
        if let Some(why) = other_subject(spec, quote, c.start) {
            c.value = Err((RejectReason::OtherSubject, why));
        }
        let limit_cue = m.is_some_and(|m| limit_around(quote, m.start, c.start));
        if spec.ty.numeric() && (threshold(quote, c.start, c.end) || limit_cue) {
            c.value = Err((
                RejectReason::Threshold,
                "stated as a limit or condition, not as the value".into(),
            ));
        }
        if spec.position != Position::Any && !at_position(spec.position, quote, c.start, i, n) {
            continue;
        }
        x.take(quote, c);
    }
}

/// Openings of a sentence that names what the sentence before it describes.
const NAMING: &[&str] = &[
    "this is called",
    "this is known as",
    "this is referred to as",
    "these are called",
    "this is termed",
];

/// Whether the sentence after the value's names it as the field ("… withhold and pay to
/// the IRS 24% of such payments. This is called “backup withholding.”"): it opens with a
/// naming phrase and a cue of `spec` follows, while the value's sentence holds no other
/// number.
fn named_next(spec: &FieldSpec, quote: &str, s: usize, e: usize) -> bool {
    let (from, to) = sentence_around(quote, s, e);
    let next = quote[to..]
        .trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '.' | '!' | '?' | ';'))
        .to_lowercase();
    let Some(rest) = NAMING.iter().find_map(|n| next.strip_prefix(n)) else {
        return false;
    };
    let rest =
        rest.trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '"' | '“' | '‘' | '\''));
    let alone = !quote[from..s]
        .chars()
        .chain(quote[e..to].chars())
        .any(|c| c.is_ascii_digit());
    alone && spec.cues.iter().any(|c| rest.starts_with(c.as_str()))
}

/// Words that set a deadline right before its date ("by", "no later than").
const DEADLINE_WORDS: &[&str] = &["by", "before", "later than", "until", "due"];

/// Words at most between a deadline word and its date ("by 3:00PM Eastern Standard
/// Time, February 28, 2018").
const DEADLINE_GAP_WORDS: usize = 5;

/// Whether the date at `s` is the deadline of `act`: its sentence names every act word
/// before it (any form: "submitting" → "submitted"), and a deadline word stands at most
/// [`DEADLINE_GAP_WORDS`] words before it ("RFI responses are to be submitted … by
/// 3:00PM …, February 28, 2018").
fn sets_deadline(quote: &str, s: usize, act: &[String]) -> bool {
    if act.is_empty() {
        return false;
    }
    let (from, _) = sentence_around(quote, s, s);
    let before = quote[from..s].to_lowercase();
    let words = crate::text::words(&before);
    let named = act.iter().all(|a| words.iter().any(|w| same_root(w, a)));
    let tail: Vec<&str> = before
        .split_whitespace()
        .rev()
        .take(DEADLINE_GAP_WORDS + 2)
        .collect();
    let tail: Vec<&str> = tail.into_iter().rev().collect();
    let set = DEADLINE_WORDS.iter().any(|d| {
        let d: Vec<&str> = d.split(' ').collect();
        tail.windows(d.len()).any(|w| {
            w.iter()
                .zip(&d)
                .all(|(x, y)| x.trim_matches(|c: char| !c.is_alphanumeric()) == *y)
        })
    });
    named && set
}

/// Whether the words of `phrase` are all forms of words of `act`.
fn is_act(phrase: &str, act: &[String]) -> bool {
    let words = crate::text::words(phrase);
    !words.is_empty() && words.iter().all(|w| act.iter().any(|a| same_root(w, a)))
}

/// Whether two words are forms of one ("submit", "submitted", "submitting"; "response",
/// "responses"): one is a prefix of the other, or they share five letters or more.
fn same_root(a: &str, b: &str) -> bool {
    let n = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    let shorter = a.chars().count().min(b.chars().count());
    (n == shorter && shorter >= 3) || n >= 5
}

/// Keep the periods a rule field's cue introduces: the nearest cue in the value's sentence,
/// before or after it ("not later than 60 days after the end of each calendar year,
/// provide the notification"). A comparator states the rule here, so none is a limit; the
/// sentence must be of the kind asked (an extension or the deadline itself) and name the
/// requirement's subject.
fn ruled(
    spec: &FieldSpec,
    quote: &str,
    markers: &[Marker],
    cands: Vec<Candidate>,
    x: &mut Extraction,
) {
    for c in cands {
        let (from, to) = sentence_around(quote, c.start, c.end);
        let nearest = markers
            .iter()
            .filter(|m| m.start >= from && m.end <= to)
            .filter(|m| m.end <= c.start || m.start >= c.end)
            // A distractor after the value counts only right after it ("six years prior to").
            .filter(|m| {
                !m.fields.is_empty()
                    || m.end <= c.start
                    || quote[c.end..m.start].chars().all(char::is_whitespace)
            })
            .min_by_key(|m| {
                if m.end <= c.start {
                    c.start - m.end
                } else {
                    m.start - c.end
                }
            });
        if !nearest.is_some_and(|m| m.fields.contains(&spec.name)) {
            continue;
        }
        let lower = quote[from..to].to_ascii_lowercase();
        let lead = &lower[..c.start - from];
        if SUSPENSIONS.iter().any(|w| !find(lead, w).is_empty()) {
            continue;
        }
        let extends = ["extend", "extended", "extension"]
            .iter()
            .any(|w| !find(lead, w).is_empty());
        if spec.extension.is_some_and(|want| want != extends) {
            continue;
        }
        if !spec.subject.is_empty() && !spec.subject.iter().any(|w| names_word(&lower, w)) {
            continue;
        }
        let event = event_words(quote, c.end);
        let event_text = event.join(" ");
        if !spec.event.is_empty()
            && !event.is_empty()
            && !spec.event.iter().any(|w| names_word(&event_text, w))
        {
            continue;
        }
        x.take(quote, c);
    }
}

/// Words that open what a period is counted from ("60 days after discovery").
const EVENT_WORDS: &[&str] = &["after", "of", "from", "following", "since"];
/// Words of an event phrase that name no event.
const EVENT_STOP: &[&str] = &[
    "the", "a", "an", "such", "its", "their", "this", "that", "each", "any",
];

/// What the period ending at `end` is counted from: the content words after "after",
/// "of", "from", "following" or "since" right after it, up to punctuation or eight words
/// ("60 days after the end of each calendar year" → end, calendar, year). Empty when no
/// such word follows.
pub(crate) fn event_words(text: &str, end: usize) -> Vec<String> {
    let rest = text[end..].trim_start();
    let clause = rest
        .split([',', ';', '.', ':', '(', ')'])
        .next()
        .unwrap_or("");
    let words: Vec<String> = clause
        .split_whitespace()
        .take(9)
        .map(|w| w.to_lowercase())
        .collect();
    if !words
        .first()
        .is_some_and(|w| EVENT_WORDS.contains(&w.as_str()))
    {
        return Vec::new();
    }
    words[1..]
        .iter()
        .filter(|w| w.len() >= 3 && !EVENT_STOP.contains(&w.as_str()))
        .filter(|w| !EVENT_WORDS.contains(&w.as_str()))
        .cloned()
        .collect()
}

/// The sentence of the quote that holds `[s, e)`, as byte offsets: it ends at a full stop
/// (or `!`, `?`, `;`) before a space, or at a blank line.
pub(crate) fn sentence_around(quote: &str, s: usize, e: usize) -> (usize, usize) {
    let b = quote.as_bytes();
    let stop = |i: usize| {
        i + 1 < b.len()
            && (b[i].is_ascii_alphanumeric() || matches!(b[i], b')' | b'"'))
            && matches!(b[i + 1], b'.' | b'!' | b'?' | b';')
            && b.get(i + 2).is_none_or(|c| c.is_ascii_whitespace())
    };
    let blank = |i: usize| b[i] == b'\n' && b.get(i + 1) == Some(&b'\n');
    let from = (0..s.saturating_sub(1))
        .rev()
        .find(|&i| stop(i) || blank(i))
        .map_or(0, |i| i + 2);
    let to = (e..b.len())
        .find(|&i| stop(i) || blank(i))
        .map_or(b.len(), |i| if blank(i) { i } else { i + 1 });
    (from.min(s), to.max(e))
}

/// Whether `lower` holds `w` as a word, or (for a word of more than five letters) a word
/// that starts with its first five: "records" names "record", "activities" "activity".
pub(crate) fn names_word(lower: &str, w: &str) -> bool {
    let stem: String = w.chars().take(5).collect();
    let short = stem.len() == w.len();
    lower.split(|c: char| !c.is_alphanumeric()).any(|t| {
        if short {
            t == w || (t.starts_with(w) && t.len() <= w.len() + 1)
        } else {
            t.starts_with(&stem)
        }
    })
}

/// Words before a value in its sentence that make it another project's, site's or
/// party's ("The neighbouring Reed Marsh project deposits 25% …, and its start date is …").
const OTHER_SUBJECT: &[&str] = &[
    "neighbouring",
    "neighboring",
    "adjacent",
    "nearby",
    "another project",
    "other project",
    "other projects",
    "sister project",
    "similar project",
    "similar projects",
    "adjoining",
    "for comparison",
    "by comparison",
    "compared with",
];

/// Words right before a percentage that make it a tranche of a schedule ("the first 50%
/// of the cumulative buffer pool is released"), not the rate.
const TRANCHE: &[&str] = &[
    "first",
    "last",
    "remaining",
    "next",
    "final",
    "second",
    "third",
];

/// Things an area can measure that are not the project: a part of it, a sampling unit,
/// or the larger holding it belongs to.
const AREA_OBJECTS: &[&str] = &[
    "pixel",
    "pixels",
    "block",
    "blocks",
    "strip",
    "strips",
    "plot",
    "plots",
    "quadrat",
    "quadrats",
    "cell",
    "cells",
    "grid",
    "holding",
    "holdings",
    "compartment",
    "field",
    "fields",
    "parcel of which",
];

/// Why the area at `s` is of something else: one of [`AREA_OBJECTS`] among the five words
/// before it ("10 m pixels (0.01 ha)", "a holding of about 640 ha") or in the phrase after
/// "of" that follows it ("9.5 ha of unplanted open-ground strips").
fn area_of_another(quote: &str, s: usize, lead: &str) -> Option<String> {
    let words = |t: &str| -> Vec<String> {
        t.split(|c: char| !c.is_alphanumeric() && c != '-')
            .filter(|w| !w.is_empty())
            .map(|w| w.to_ascii_lowercase())
            .collect()
    };
    let before = words(lead);
    let near = &before[before.len().saturating_sub(5)..];
    let rest = quote[s..]
        .split_once(char::is_whitespace)
        .map_or("", |(_, r)| r);
    let rest = rest.trim_start();
    // Skip the unit ("ha", "hectares") to what the area is of.
    let rest = rest
        .split_once(' ')
        .map_or("", |(u, r)| if u.len() <= 9 { r } else { rest });
    let clause = rest.split([',', ';', '.', '(', ')']).next().unwrap_or("");
    let after = words(clause);
    let of = after.first().is_some_and(|w| w == "of");
    let named = near
        .iter()
        .chain(after.iter().take(6).filter(|_| of))
        .find(|w| AREA_OBJECTS.contains(&w.as_str()))?;
    Some(format!("the area of a {named}, not of the project"))
}

/// Why the value at `s` belongs to another subject, if it does.
fn other_subject(spec: &FieldSpec, quote: &str, s: usize) -> Option<String> {
    let (from, _) = sentence_around(quote, s, s);
    let lead = quote[from..s].to_ascii_lowercase();
    if let Some(w) = OTHER_SUBJECT.iter().find(|w| !find(&lead, w).is_empty()) {
        return Some(format!(
            "stated in a sentence about a {w} subject, not this one"
        ));
    }
    if spec.ty == FieldType::Area {
        if let Some(why) = area_of_another(quote, s, &lead) {
            return Some(why);
        }
    }
    let last = lead
        .split_whitespace()
        .next_back()
        .unwrap_or("")
        .trim_matches(|c: char| !c.is_alphanumeric());
    (spec.ty == FieldType::Percentage && TRANCHE.contains(&last))
        .then(|| format!("\"{last}\" makes it a tranche of a schedule, not the rate"))
}

/// Whether the date at `s` (the `i`-th of `n` dates a range cue introduces) is the range's
/// start or end as asked: a word right before it decides ("from", "until"), else the
/// first of two is the start and the second the end.
fn at_position(p: Position, quote: &str, s: usize, i: usize, n: usize) -> bool {
    let lower = quote[..s].to_ascii_lowercase();
    let before = lower.trim_end().trim_end_matches([':', ',', '|', ' ', '.']);
    let words: Vec<&str> = before
        .rsplit(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(2)
        .collect();
    let last = words.first().copied().unwrap_or("");
    let pair = words.iter().rev().copied().collect::<Vec<_>>().join(" ");
    let dash = before.ends_with(['–', '-']) && !last.is_empty();
    let is_start = START_WORDS.contains(&last) || START_PAIRS.contains(&pair.as_str());
    let is_end = dash || END_WORDS.contains(&last) || END_PAIRS.contains(&pair.as_str());
    match p {
        Position::RangeStart if is_start => true,
        Position::RangeEnd if is_end => true,
        _ if is_start || is_end => false,
        Position::RangeStart => n == 2 && i == 0,
        Position::RangeEnd => n == 2 && i == 1,
        Position::Any => true,
    }
}

/// A word right before a date that makes it a range's start.
const START_WORDS: &[&str] = &[
    "from",
    "start",
    "starts",
    "starting",
    "started",
    "begin",
    "begins",
    "beginning",
    "began",
    "commence",
    "commences",
    "commencing",
    "commenced",
];
/// Two words right before a date that make it a range's start.
const START_PAIRS: &[&str] = &[
    "first day",
    "start date",
    "starting date",
    "commencement date",
    "effective date",
    "starts on",
    "begins on",
    "commences on",
    "started on",
    "began on",
];
/// A word right before a date that makes it a range's end.
const END_WORDS: &[&str] = &[
    "to", "until", "till", "through", "end", "ends", "ending", "ended", "expire", "expires",
    "expiring", "expiry",
];
/// Two words right before a date that make it a range's end.
const END_PAIRS: &[&str] = &[
    "last day",
    "end date",
    "ending date",
    "expiry date",
    "ends on",
    "expires on",
    "ending on",
    "ended on",
    "closing date",
];

/// Bytes of connecting words after a cue, before the value: `:`, `is`, `are`, `by`,
/// `the`, `name`, `number`, `no.`, `#`, `-`, `|`, quotes and brackets.
fn connectors(rest: &str) -> usize {
    let mut at = 0;
    loop {
        let r = &rest[at..];
        let trimmed = r.trim_start_matches(|c: char| {
            c.is_whitespace() || matches!(c, ':' | '-' | '|' | '#' | '(' | '"' | '“' | '=' | '–')
        });
        at += r.len() - trimmed.len();
        let word_end = trimmed
            .find(|c: char| !c.is_ascii_alphabetic() && c != '.' && c != '\'')
            .unwrap_or(trimmed.len());
        let w = trimmed[..word_end].to_ascii_lowercase();
        let joiner = [
            "is",
            "are",
            "was",
            "were",
            "by",
            "name",
            "names",
            "number",
            "no.",
            "no",
            "nr.",
            "id",
            "as",
            "'s",
            "s",
            "being",
            "be",
            "listed",
            "recorded",
            "registered",
            "named",
            "called",
            "identified",
            "reads",
        ];
        if !w.is_empty() && joiner.contains(&w.as_str()) && word_end < trimmed.len() {
            at += word_end;
            continue;
        }
        return at;
    }
}

/// Names a cue introduces (right after it, or right before "(the Lessor)"), or the whole
/// quote when its label introduces the field.
pub fn names(
    spec: &FieldSpec,
    quote: &str,
    markers: &[Marker],
    context: Option<&str>,
    x: &mut Extraction,
) {
    let take = |s: usize, e: usize, x: &mut Extraction| {
        let raw = &quote[s..e];
        let value = match names::not_a_name(raw) {
            Some(why) => Err(why),
            None => Ok(Value::Text(raw.to_string())),
        };
        x.take(
            quote,
            Candidate {
                start: s,
                end: e,
                value,
                unit: None,
            },
        );
    };
    let mine: Vec<&Marker> = markers
        .iter()
        .filter(|m| m.fields.contains(&spec.name))
        .collect();
    for m in mine.iter().filter(|m| !former(quote, m.start)) {
        let possessive = quote[m.end..].starts_with(['\'', '’']);
        // A role and its holder in apposition: "Contracting Officer, Mark Junda".
        let comma = usize::from(quote[m.end..].starts_with(", "));
        let direct = (!possessive).then_some(m.end + comma);
        for at in [direct, copula_after(quote, m.end)].into_iter().flatten() {
            let at = at + connectors(&quote[at..]);
            if let Some((s, e)) = names::name_at(&quote[at..]) {
                take(at + s, at + e, x);
                break;
            }
        }
        if let Some((s, e)) = name_before(quote, m.start) {
            take(s, e, x);
        }
    }
    if markers.is_empty() {
        for (s, e) in label_spans(spec, quote, context) {
            if let Some((ns, ne)) = names::name_at(&quote[s..e]).filter(|(_, ne)| s + ne == e) {
                take(s + ns, s + ne, x);
            }
        }
    }
}

/// Whether the cue at `at` names a former holder ("previously owned by", "the former
/// landowner", "owned until 2018 by").
fn former(quote: &str, at: usize) -> bool {
    let lower = quote.to_ascii_lowercase();
    let before: Vec<&str> = lower[..at].split_whitespace().rev().take(3).collect();
    let after: Vec<&str> = lower[at..].split_whitespace().take(4).collect();
    let words = [
        "previously",
        "formerly",
        "former",
        "originally",
        "previous",
        "prior",
        "once",
        "until",
        "late",
        "deceased",
    ];
    before
        .iter()
        .chain(after.iter())
        .any(|w| words.contains(&w.trim_matches(|c: char| !c.is_alphanumeric())))
}

/// The end of the first ` is `, ` are `, ` was ` or `:` within a few words after `at`
/// in the same clause ("the owner of the parcel is …").
fn copula_after(quote: &str, at: usize) -> Option<usize> {
    let rest = &quote[at..];
    let mut end = rest
        .find(['.', ',', ';', '(', '\n'])
        .unwrap_or(rest.len())
        .min(60);
    while !rest.is_char_boundary(end) {
        end -= 1;
    }
    let clause = &rest[..end];
    let lower = clause.to_ascii_lowercase();
    [" is ", " are ", " was ", ": "]
        .iter()
        .filter_map(|c| lower.find(c).map(|i| i + c.len()))
        .min()
        .map(|i| at + i)
}

/// The name right before a cue in brackets or after a comma (`João Pereira ("the
/// Lessor")`, `Maria Santos, the landowner`): the capitalised run ending just before.
fn name_before(quote: &str, cue: usize) -> Option<(usize, usize)> {
    let lead = quote[..cue].trim_end_matches(|c: char| c.is_whitespace() || matches!(c, '"' | '“'));
    let lead = lead
        .strip_suffix("the")
        .or_else(|| lead.strip_suffix("The"))
        .unwrap_or(lead);
    let mut lead = lead.trim_end();
    for filler in [
        "referred to as",
        "hereinafter called",
        "hereinafter",
        "being",
        "as",
    ] {
        if let Some(l) = lead
            .strip_suffix(filler)
            .filter(|l| l.ends_with([' ', '(']))
        {
            lead = l.trim_end();
            break;
        }
    }
    let party = lead.strip_suffix('(').or_else(|| lead.strip_suffix(','))?;
    let lower = party.to_ascii_lowercase();
    let start = [" between ", " and ", " by ", "; ", ". ", ": "]
        .iter()
        .filter_map(|m| lower.rfind(m).map(|i| i + m.len()))
        .max()
        .unwrap_or(0);
    let (s, e) = names::name_at(&party[start..])?;
    Some((start + s, start + e))
}

/// Where values of `spec` may start: after each of its cues (past connecting words when
/// `connect`), or, when the quote names no field, at each span its label introduces.
fn value_starts(
    spec: &FieldSpec,
    quote: &str,
    markers: &[Marker],
    context: Option<&str>,
    connect: bool,
) -> Vec<usize> {
    let mut starts: Vec<usize> = markers
        .iter()
        .filter(|m| m.fields.contains(&spec.name))
        .map(|m| {
            m.end
                + if connect {
                    connectors(&quote[m.end..])
                } else {
                    0
                }
        })
        .collect();
    if markers.is_empty() {
        starts.extend(
            label_spans(spec, quote, context)
                .into_iter()
                .map(|(s, _)| s),
        );
    }
    starts
}

/// Identifiers a cue introduces; with a pattern, only a token that matches it.
pub fn identifiers(
    spec: &FieldSpec,
    quote: &str,
    markers: &[Marker],
    context: Option<&str>,
    x: &mut Extraction,
) {
    let starts = value_starts(spec, quote, markers, context, true);
    for at in starts {
        let Some(mut c) = identifier_at(&quote[at..], at) else {
            continue;
        };
        if let (Ok(Value::Text(t)), Some(p)) = (&c.value, &spec.pattern) {
            if !p.is_match(t) {
                c.value = Err((
                    RejectReason::PatternMismatch,
                    format!("does not match the pattern {}", p.as_str()),
                ));
            }
        }
        x.take(quote, c);
    }
}

/// Phrases that state a lease as the way the land is held: "under a registered lease",
/// "leased to", "leasehold".
static LEASED: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"(?i)\b(?:under|by way of|through|holds?|held)\s+(?:an?|the|its)\s+(?:[\w-]+\s+){0,3}?(lease)\b|\b(leased)\s+(?:to|from|by)\b|\b(leasehold)\b")
        .expect("static pattern")
});

/// Whether one of the `n` words before `at` negates what follows ("not", "no", "never").
fn negated(quote: &str, at: usize, n: usize) -> bool {
    quote[..at].split_whitespace().rev().take(n).any(|w| {
        let w = w.to_ascii_lowercase();
        matches!(
            w.trim_matches(|c: char| !c.is_alphanumeric()),
            "not" | "no" | "never" | "nor" | "without"
        )
    })
}

/// Lease phrases in `quote` that no negation opens ("not under a lease").
fn lease_phrases(quote: &str) -> Vec<(usize, usize)> {
    LEASED
        .captures_iter(quote)
        .filter(|c| !negated(quote, c.get(0).map_or(0, |m| m.start()), 3))
        .filter_map(|c| {
            c.get(1)
                .or(c.get(2))
                .or(c.get(3))
                .map(|g| (g.start(), g.end()))
        })
        .collect()
}

/// The tenure a cue introduces: the first tenure word within a few words after it
/// (`Tenure: Leasehold`, `held under a 30-year lease`), or a cell under a tenure header.
pub fn tenure(
    spec: &FieldSpec,
    quote: &str,
    markers: &[Marker],
    context: Option<&str>,
    x: &mut Extraction,
) {
    let starts = value_starts(spec, quote, markers, context, false);
    let mut hits: Vec<(usize, usize, &str)> = Vec::new();
    for at in starts {
        let lower = quote[at..].to_ascii_lowercase();
        let window: usize = lower
            .split_inclusive(char::is_whitespace)
            .take(TENURE_WINDOW_WORDS)
            .map(str::len)
            .sum();
        let head = &lower[..window];
        let first = TENURE_CLASSES
            .iter()
            .flat_map(|(class, words)| {
                words
                    .iter()
                    .flat_map(move |w| find(head, w).into_iter().map(move |(s, e)| (s, e, *class)))
            })
            .min_by_key(|(s, e, _)| (*s, usize::MAX - e));
        hits.extend(first.map(|(s, e, class)| (at + s, at + e, class)));
    }
    if hits.is_empty() {
        hits.extend(
            lease_phrases(quote)
                .into_iter()
                .map(|(s, e)| (s, e, "lease")),
        );
    }
    for (start, end, class) in hits.into_iter().filter(|h| !negated(quote, h.0, 5)) {
        let value = Ok(Value::Text(class.into()));
        x.take(
            quote,
            Candidate {
                start,
                end,
                value,
                unit: None,
            },
        );
    }
}

/// The tenure class a word or phrase states on its own (`Leasehold` → `lease`).
pub fn tenure_class(text: &str) -> Option<&'static str> {
    let t = text.trim().to_ascii_lowercase();
    TENURE_CLASSES
        .iter()
        .find(|(_, words)| words.contains(&t.as_str()))
        .map(|(class, _)| *class)
}

/// Words after a tenure cue in which the tenure word must stand.
const TENURE_WINDOW_WORDS: usize = 8;

/// Tenure classes and the words that state each.
const TENURE_CLASSES: [(&str, &[&str]); 3] = [
    (
        "lease",
        &["leasehold", "lease", "leased", "tenancy", "rental"],
    ),
    (
        "ownership",
        &[
            "freehold",
            "ownership",
            "owned",
            "fee simple",
            "private property",
            "title deed",
        ],
    ),
    (
        "other",
        &[
            "concession",
            "usufruct",
            "easement",
            "customary",
            "communal",
            "community land",
            "conservation agreement",
        ],
    ),
];
