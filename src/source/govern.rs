//! Which source governs when cited sources state different values for one thing.
//!
//! The rule, in order ([`govern`]); it decides and labels, and never hides a side:
//!
//! 0. **Former values are not current.** A value the text states as no longer in force
//!    ("previously", "formerly", "the former …", "used to", or "until", "before",
//!    "prior to" a day already past: the `--as-of` day when one is asked, else the day of
//!    the run) is labelled `former` and set aside: it never governs and is never the
//!    stricter value.
//! 1. **Summaries do not control.** A side from an FAQ or a plain-language summary, or
//!    from text that does not bind (a recital, a note), is labelled `summary` and set
//!    aside from the decision (unless every current side is one).
//! 2. **Do they conflict at all?** Each side is a constraint on the value: a floor ("not
//!    less than seven (7) years", "at least", and a period records must be *kept for*,
//!    which is a minimum by nature), a ceiling ("no more than", "within", "up to"), or an
//!    exact value. When one value meets every side (the highest floor, the lowest
//!    ceiling), the sides are **compatible**: all apply, and the **stricter** one
//!    governs in effect. A value below a floor (or above a ceiling) meets no value with
//!    it: a contradiction.
//! 3. **A true contradiction** names the governing side by the first rule that decides:
//!    an explicit `supersedes` between the two documents; at equal authority the later
//!    `effective_from`; otherwise the higher authority. When none decides, nothing is
//!    said to govern and every side is shown.

use serde::{Deserialize, Serialize};

use super::{Date, SourceType};
use crate::figure::Bound;

mod read;
pub use read::{tense_at, today, written, written_span};

/// What the rule needs of one cited side.
#[derive(Debug, Clone, PartialEq)]
pub struct Side {
    /// Evidence id (`E2`).
    pub id: String,
    /// Document path as shown.
    pub source: String,
    /// Its source type.
    pub source_type: SourceType,
    /// Its authority rank.
    pub authority: i64,
    /// First day in effect, when known.
    pub effective_from: Option<Date>,
    /// The document that supersedes it, when the corpus holds one.
    pub superseded_by: Option<String>,
    /// Whether the cited text binds (false for recitals, notes, summaries).
    pub binding: bool,
    /// The value (`7`).
    pub value: f64,
    /// Its unit (`year`).
    pub unit: String,
    /// Floor, ceiling or exact.
    pub bound: Bound,
    /// The figure as the document writes it (`seven years`, `ten (10) years`).
    pub raw: String,
    /// Whether the text states it as current or former.
    pub tense: Tense,
}

/// Whether a side's value is stated as current or as a former one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tense {
    /// Nothing says it is no longer in force.
    Current,
    /// Marked as past: "previously", "formerly", "the former", "used to".
    Former,
    /// In force until (or before, or prior to) this day: former once the day is past.
    Until(Date),
}

impl Tense {
    /// Whether the value is no longer in force on `day`.
    pub fn former_on(self, day: Date) -> bool {
        match self {
            Tense::Current => false,
            Tense::Former => true,
            Tense::Until(d) => d <= day,
        }
    }
}

/// Whether the sides can all hold at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Relation {
    /// One value meets every side.
    Compatible,
    /// No value meets every side.
    Contradiction,
}

/// The rule that decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// Compatible: the stricter side meets every other.
    Stricter,
    /// The governing document supersedes the other.
    Supersedes,
    /// Equal authority: the later effective date.
    LaterEffective,
    /// The higher authority.
    HigherAuthority,
    /// Nothing decides.
    Undecided,
}

/// How a side stands after the ruling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Standing {
    /// It governs.
    Governs,
    /// Compatible, less strict: it also applies, and the governing side meets it.
    AlsoApplies,
    /// Superseded by the governing document.
    SupersededBy,
    /// Older, at equal authority.
    Earlier,
    /// Lower authority.
    LowerAuthority,
    /// A summary or non-binding text: it does not control.
    Summary,
    /// Stated as a former value: not in force, never the stricter.
    Former,
    /// Undecided: shown beside the others.
    Undecided,
}

/// One side as the ruling shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ruled {
    /// Evidence id.
    pub id: String,
    /// Document path as shown.
    pub source: String,
    /// Its source type.
    pub source_type: SourceType,
    /// What it states, as the document writes the figure: `not less than seven years`.
    pub states: String,
    /// The figure compared, `value unit` (`7 year`).
    pub figure: String,
    /// Its first day in effect, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effective_from: Option<Date>,
    /// How it stands.
    pub standing: Standing,
}

/// The decision over the sides of a difference.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ruling {
    /// Compatible or a contradiction.
    pub relation: Relation,
    /// The rule that decided.
    pub rule: Rule,
    /// Evidence ids of the governing sides (empty when undecided).
    pub governing: Vec<String>,
    /// Every side, governing ones first.
    pub sides: Vec<Ruled>,
    /// One line saying what applies and why.
    pub summary: String,
}

impl Ruling {
    /// The ruling with its evidence ids renamed by `rename`, its summary written again.
    pub fn renamed(&self, rename: impl Fn(&str) -> String) -> Ruling {
        let sides: Vec<Ruled> = self
            .sides
            .iter()
            .map(|s| Ruled {
                id: rename(&s.id),
                ..s.clone()
            })
            .collect();
        Ruling {
            relation: self.relation,
            rule: self.rule,
            governing: self.governing.iter().map(|g| rename(g)).collect(),
            summary: summary_line(&sides, self.relation, self.rule),
            sides,
        }
    }
}

/// Whether a side does not control (an FAQ, a summary, non-binding text).
fn is_summary(s: &Side) -> bool {
    !s.binding || s.source_type == SourceType::Faq
}

/// The values meeting every side: (lowest, highest), inclusive; `None` when none does.
fn meet(sides: &[&Side]) -> Option<(f64, f64)> {
    let (mut lo, mut hi) = (f64::NEG_INFINITY, f64::INFINITY);
    for s in sides {
        match s.bound {
            Bound::Min => lo = lo.max(s.value),
            Bound::Max => hi = hi.min(s.value),
            Bound::Exact => {
                lo = lo.max(s.value);
                hi = hi.min(s.value);
            }
        }
    }
    (lo <= hi).then_some((lo, hi))
}

/// Whether side `s` is the tightest of the compatible range `(lo, hi)`: an exact value
/// in it, the highest floor, or the lowest ceiling.
fn tightest(s: &Side, (lo, hi): (f64, f64), any_exact: bool) -> bool {
    match s.bound {
        Bound::Exact => true,
        _ if any_exact => false,
        Bound::Min => s.value == lo,
        Bound::Max => s.value == hi,
    }
}

/// The first rule that makes `a` govern `b` in a contradiction, if one does.
fn beats(a: &Side, b: &Side) -> Option<Rule> {
    if b.superseded_by.as_deref() == Some(a.source.as_str()) {
        return Some(Rule::Supersedes);
    }
    if a.superseded_by.as_deref() == Some(b.source.as_str()) {
        return None;
    }
    if a.authority == b.authority {
        return match (a.effective_from, b.effective_from) {
            (Some(x), Some(y)) if x > y => Some(Rule::LaterEffective),
            _ => None,
        };
    }
    (a.authority > b.authority).then_some(Rule::HigherAuthority)
}

/// Decide over `sides` (at least two, all in one unit) as of the day of the run. See the
/// module documentation.
pub fn govern(sides: &[Side]) -> Ruling {
    govern_on(sides, today())
}

/// Standings before the decision: `former` for a value not in force on `day`, `summary`
/// for a current side that does not control (unless every current side is one), and
/// `undecided` for the controlling sides.
fn first_standings(sides: &[Side], day: Date) -> Vec<Standing> {
    let current = |s: &Side| !s.tense.former_on(day);
    let any_binding = sides.iter().any(|s| current(s) && !is_summary(s));
    sides
        .iter()
        .map(|s| match (current(s), is_summary(s) && any_binding) {
            (false, _) => Standing::Former,
            (true, true) => Standing::Summary,
            (true, false) => Standing::Undecided,
        })
        .collect()
}

/// Decide over `sides` (at least two, all in one unit) as of `day` (the `--as-of` day of
/// a question asked so): a value stated until a day not after `day` is a former one.
pub fn govern_on(sides: &[Side], day: Date) -> Ruling {
    let mut standing = first_standings(sides, day);
    let controlling: Vec<&Side> = sides
        .iter()
        .zip(&standing)
        .filter(|(_, st)| **st == Standing::Undecided)
        .map(|(s, _)| s)
        .collect();
    let (relation, rule) = match meet(&controlling) {
        Some(_) if controlling.is_empty() => (Relation::Compatible, Rule::Undecided),
        Some(range) => {
            let any_exact = controlling.iter().any(|s| s.bound == Bound::Exact);
            for (i, s) in sides.iter().enumerate() {
                if standing[i] == Standing::Undecided {
                    standing[i] = match tightest(s, range, any_exact) {
                        true => Standing::Governs,
                        false => Standing::AlsoApplies,
                    };
                }
            }
            (Relation::Compatible, Rule::Stricter)
        }
        None => (Relation::Contradiction, contradiction(sides, &mut standing)),
    };
    ruling(sides, standing, relation, rule)
}

/// Standings in a contradiction: the side that beats every other controlling side
/// governs (by the rule that decided its first win); the rest say why they yield.
fn contradiction(sides: &[Side], standing: &mut [Standing]) -> Rule {
    let live: Vec<usize> = (0..sides.len())
        .filter(|&i| standing[i] == Standing::Undecided)
        .collect();
    for &w in &live {
        let wins: Option<Vec<Rule>> = live
            .iter()
            .filter(|&&o| o != w && sides[o].value != sides[w].value)
            .map(|&o| beats(&sides[w], &sides[o]))
            .collect();
        let Some(rules) = wins else { continue };
        for &o in &live {
            standing[o] = if sides[o].value == sides[w].value {
                Standing::Governs
            } else {
                match beats(&sides[w], &sides[o]) {
                    Some(Rule::Supersedes) => Standing::SupersededBy,
                    Some(Rule::LaterEffective) => Standing::Earlier,
                    _ => Standing::LowerAuthority,
                }
            };
        }
        return rules.first().copied().unwrap_or(Rule::Undecided);
    }
    Rule::Undecided
}

/// What a side states, its figure as the document writes it (or, when that is not
/// known, in words with a correct plural): `not less than seven years`.
fn states(s: &Side) -> String {
    let v = match s.raw.trim() {
        "" => figure_words(&crate::figure::canonical(&s.value.to_string()), &s.unit),
        raw => raw.split_whitespace().collect::<Vec<_>>().join(" "),
    };
    match s.bound {
        Bound::Min => format!("not less than {v}"),
        Bound::Max => format!("not more than {v}"),
        Bound::Exact => v,
    }
}

/// A figure `value unit` in words as a reader writes it: `7 years`, `1 year`, `$5000`,
/// `12.5%`, `3 centuries` (never `7 year`).
pub fn figure_words(value: &str, unit: &str) -> String {
    match unit {
        "dollar" => format!("${value}"),
        "euro" => format!("€{value}"),
        "pound" => format!("£{value}"),
        "percent" => format!("{value}%"),
        _ if value == "1" => format!("{value} {unit}"),
        "century" => format!("{value} centuries"),
        _ => format!("{value} {unit}s"),
    }
}

/// [`figure_words`] of a `value unit` key (`7 year` → `7 years`); the key as it is when
/// it is not one.
pub fn key_words(key: &str) -> String {
    match key.split_once(' ') {
        Some((v, u)) => figure_words(v, u),
        None => key.to_string(),
    }
}

fn ruling(sides: &[Side], standing: Vec<Standing>, relation: Relation, rule: Rule) -> Ruling {
    let mut ruled: Vec<Ruled> = sides
        .iter()
        .zip(&standing)
        .map(|(s, st)| Ruled {
            id: s.id.clone(),
            source: s.source.clone(),
            source_type: s.source_type,
            states: states(s),
            figure: format!(
                "{} {}",
                crate::figure::canonical(&s.value.to_string()),
                s.unit
            ),
            effective_from: s.effective_from,
            standing: *st,
        })
        .collect();
    ruled.sort_by_key(|r| r.standing != Standing::Governs);
    let governing: Vec<String> = ruled
        .iter()
        .filter(|r| r.standing == Standing::Governs)
        .map(|r| r.id.clone())
        .collect();
    let summary = summary_line(&ruled, relation, rule);
    Ruling {
        relation,
        rule,
        governing,
        sides: ruled,
        summary,
    }
}

/// `E2 (policy, effective 2019-04-01)`.
fn named(r: &Ruled) -> String {
    match r.effective_from {
        Some(d) => format!("{} ({}, effective {d})", r.id, r.source_type),
        None => format!("{} ({})", r.id, r.source_type),
    }
}

fn summary_line(ruled: &[Ruled], relation: Relation, rule: Rule) -> String {
    let of = |st: Standing| -> Vec<String> {
        ruled
            .iter()
            .filter(|r| r.standing == st)
            .map(named)
            .collect()
    };
    let gov = ruled.iter().find(|r| r.standing == Standing::Governs);
    let mut parts: Vec<String> = Vec::new();
    match (relation, gov) {
        (Relation::Compatible, Some(g)) => {
            let also = of(Standing::AlsoApplies);
            parts.push(format!(
                "compatible: {} states {}, the stricter value{}",
                of(Standing::Governs).join(", "),
                g.states,
                g.effective_from
                    .map(|d| format!(", in effect since {d}"))
                    .unwrap_or_default()
            ));
            if !also.is_empty() {
                parts.push(format!(
                    "it meets {} too, which also apply",
                    also.join(", ")
                ));
            }
        }
        (Relation::Contradiction, Some(g)) => parts.push(format!(
            "contradiction: {} governs ({}) with {}",
            of(Standing::Governs).join(", "),
            rule_words(rule),
            g.states
        )),
        (Relation::Compatible, None) => {
            parts.push("no side states a value in force; every side is shown".into())
        }
        _ => parts.push("contradiction: no rule decides which governs; every side is shown".into()),
    }
    for (st, words) in [
        (Standing::Former, "a former value, no longer in force"),
        (Standing::SupersededBy, "superseded"),
        (Standing::Earlier, "earlier, at equal authority"),
        (Standing::LowerAuthority, "lower authority"),
        (Standing::Summary, "summary, does not control"),
    ] {
        let list = of(st);
        if !list.is_empty() {
            parts.push(format!("{}: {words}", list.join(", ")));
        }
    }
    parts.join("; ")
}

/// How a side stands, in words.
pub fn standing_words(st: Standing) -> &'static str {
    match st {
        Standing::Governs => "governs",
        Standing::AlsoApplies => "also applies",
        Standing::SupersededBy => "superseded",
        Standing::Earlier => "earlier, at equal authority",
        Standing::LowerAuthority => "lower authority",
        Standing::Summary => "summary, does not control",
        Standing::Former => "a former value, no longer in force",
        Standing::Undecided => "no rule decides",
    }
}

/// The rule in words.
pub fn rule_words(rule: Rule) -> &'static str {
    match rule {
        Rule::Stricter => "the stricter value meets every source",
        Rule::Supersedes => "it supersedes the other",
        Rule::LaterEffective => "equal authority, later effective date",
        Rule::HigherAuthority => "higher authority",
        Rule::Undecided => "no rule decides",
    }
}

/// Verbs after which a stated period is how long something must at least be kept.
const KEEP_VERBS: &[&str] = &[
    "retain",
    "retained",
    "keep",
    "kept",
    "maintain",
    "maintained",
    "preserve",
    "preserved",
    "store",
    "stored",
    "hold",
    "held",
];

/// The bound of the figure starting at byte `start` of `text` (normalised), with a
/// period of keeping ("retained for 10 years", "kept for seven years") read as a floor.
pub fn bound_in(text: &str, start: usize, end: usize, unit: &str) -> Bound {
    let b = crate::figure::bound_of(text, start, end);
    let time = matches!(unit, "day" | "week" | "month" | "year" | "decade");
    if b != Bound::Exact || !time {
        return b;
    }
    let before: Vec<String> = text[..start]
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let tail = &before[before.len().saturating_sub(5)..];
    let keep = tail.iter().position(|w| KEEP_VERBS.contains(&w.as_str()));
    match keep {
        Some(k) if tail[k..].iter().any(|w| w == "for") => Bound::Min,
        _ => b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(id: &str, t: SourceType, value: f64, bound: Bound) -> Side {
        Side {
            id: id.into(),
            source: format!("{id}.md"),
            source_type: t,
            authority: t.default_authority(),
            effective_from: None,
            superseded_by: None,
            binding: true,
            value,
            unit: "year".into(),
            bound,
            raw: String::new(),
            tense: Tense::Current,
        }
    }

    fn day(s: &str) -> Option<Date> {
        Some(s.parse().unwrap())
    }

    #[test]
    fn a_floor_and_a_stricter_value_are_compatible_and_the_stricter_governs() {
        let code = side("E1", SourceType::Statute, 7.0, Bound::Min);
        let mut bulletin = side("E2", SourceType::Policy, 10.0, Bound::Min);
        bulletin.effective_from = day("2019-04-01");
        let faq = side("E3", SourceType::Faq, 7.0, Bound::Min);
        let r = govern(&[code, bulletin, faq]);
        assert_eq!((r.relation, r.rule), (Relation::Compatible, Rule::Stricter));
        assert_eq!(r.governing, vec!["E2"]);
        let st = |id: &str| r.sides.iter().find(|s| s.id == id).unwrap().standing;
        assert_eq!(st("E1"), Standing::AlsoApplies);
        assert_eq!(st("E3"), Standing::Summary);
        assert!(r.summary.contains("since 2019-04-01"), "{}", r.summary);
        // A ceiling and a lower exact value meet too; the exact value is the stricter.
        let r = govern(&[
            side("E1", SourceType::Statute, 30.0, Bound::Max),
            side("E2", SourceType::Policy, 14.0, Bound::Exact),
        ]);
        assert_eq!(
            (r.relation, r.governing.clone()),
            (Relation::Compatible, vec!["E2".to_string()])
        );
    }

    #[test]
    fn an_explicit_supersession_decides_a_contradiction() {
        let mut old = side("E1", SourceType::Policy, 30.0, Bound::Exact);
        let new = side("E2", SourceType::Policy, 45.0, Bound::Exact);
        old.superseded_by = Some(new.source.clone());
        old.effective_from = day("2022-01-01"); // even when it claims a later date
        let r = govern(&[old, new]);
        assert_eq!(
            (r.relation, r.rule),
            (Relation::Contradiction, Rule::Supersedes)
        );
        assert_eq!(r.governing, vec!["E2"]);
        assert_eq!(r.sides[1].standing, Standing::SupersededBy);
    }

    #[test]
    fn at_equal_authority_the_later_effective_date_governs() {
        let mut a = side("E1", SourceType::Policy, 30.0, Bound::Exact);
        let mut b = side("E2", SourceType::Policy, 45.0, Bound::Exact);
        a.effective_from = day("2021-07-01");
        b.effective_from = day("2019-01-01");
        let r = govern(&[a.clone(), b.clone()]);
        assert_eq!(
            (r.rule, r.governing.clone()),
            (Rule::LaterEffective, vec!["E1".to_string()])
        );
        assert_eq!(r.sides[1].standing, Standing::Earlier);
        // Without both dates nothing decides.
        b.effective_from = None;
        let r = govern(&[a, b]);
        assert_eq!((r.rule, r.governing.len()), (Rule::Undecided, 0));
        assert!(r.sides.iter().all(|s| s.standing == Standing::Undecided));
    }

    #[test]
    fn otherwise_the_higher_authority_governs_and_nothing_is_hidden() {
        let law = side("E2", SourceType::Statute, 60.0, Bound::Exact);
        let mut manual = side("E1", SourceType::Policy, 90.0, Bound::Exact);
        manual.effective_from = day("2023-01-01");
        let r = govern(&[manual, law]);
        assert_eq!(
            (r.rule, r.governing.clone()),
            (Rule::HigherAuthority, vec!["E2".to_string()])
        );
        assert_eq!(r.sides.len(), 2);
        assert_eq!(r.sides[1].standing, Standing::LowerAuthority);
        assert!(r.summary.contains("lower authority"), "{}", r.summary);
    }

    #[test]
    fn a_period_of_keeping_is_a_floor() {
        let b = |t: &str, n: &str| {
            let at = t.find(n).unwrap();
            bound_in(t, at, at + n.len(), "year")
        };
        assert_eq!(b("records must be retained for 10 years", "10"), Bound::Min);
        assert_eq!(b("kept for seven years", "seven"), Bound::Min);
        assert_eq!(b("appeal within 2 years", "2"), Bound::Max);
        assert_eq!(b("a term of 5 years", "5"), Bound::Exact);
    }
}
