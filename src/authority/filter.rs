//! Filters on sources: `--where KEY=VALUE[,VALUE…]` (source_type, collection,
//! jurisdiction, kind; `authority>=N`, `authority<=N`), `--collection NAME`, `--as-of
//! DATE` (documents in effect that day: started, not ended, not superseded by a document
//! in effect; undated documents are kept and listed) and `--scope PATH` (documents under
//! a path or matching a glob). A filter selects documents; retrieval then searches only
//! their chunks.

use std::collections::HashSet;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::{Catalog, DocSource, Effect, SetAside};
use crate::source::Date;

/// A field a condition tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Key {
    /// The source type.
    SourceType,
    /// The collection.
    Collection,
    /// The jurisdiction.
    Jurisdiction,
    /// The kind of file (`pdf`, `markdown`, …).
    Kind,
    /// The authority rank.
    Authority,
}

/// How a condition compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Op {
    /// One of the values (`=`).
    Eq,
    /// At least (`>=`, authority only).
    Ge,
    /// At most (`<=`, authority only).
    Le,
}

/// One `--where` condition.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Condition {
    /// The field.
    pub key: Key,
    /// The comparison.
    pub op: Op,
    /// The values (any of them matches).
    pub values: Vec<String>,
}

impl FromStr for Condition {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let (at, op, len) = [(">=", Op::Ge), ("<=", Op::Le), ("=", Op::Eq)]
            .iter()
            .find_map(|(t, op)| s.find(t).map(|i| (i, *op, t.len())))
            .ok_or_else(|| format!("{s:?}: write KEY=VALUE (e.g. source_type=statute)"))?;
        let key = match s[..at].trim() {
            "source_type" | "type" => Key::SourceType,
            "collection" => Key::Collection,
            "jurisdiction" => Key::Jurisdiction,
            "kind" => Key::Kind,
            "authority" => Key::Authority,
            k => {
                return Err(format!(
                    "{k:?}: unknown key (source_type, collection, jurisdiction, kind, authority)"
                ))
            }
        };
        let values: Vec<String> = s[at + len..]
            .split(',')
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
            .collect();
        if values.is_empty() {
            return Err(format!("{s:?}: no value after the {:?}", &s[at..at + len]));
        }
        if key == Key::SourceType {
            for v in &values {
                v.parse::<crate::source::SourceType>()?;
            }
        }
        let compares = key == Key::Authority || op != Op::Eq;
        if compares
            && (key != Key::Authority || values.len() != 1 || values[0].parse::<i64>().is_err())
        {
            return Err(format!(
                "{s:?}: only authority compares, with one whole number"
            ));
        }
        Ok(Condition { key, op, values })
    }
}

impl Condition {
    fn holds(&self, d: &DocSource) -> bool {
        let text = |v: Option<&String>| {
            v.is_some_and(|x| self.values.iter().any(|w| w.eq_ignore_ascii_case(x)))
        };
        match self.key {
            Key::SourceType => self
                .values
                .iter()
                .any(|v| v == d.source_type.value.as_str()),
            Key::Collection => text(d.collection.as_ref().map(|c| &c.value)),
            Key::Jurisdiction => text(d.jurisdiction.as_ref().map(|c| &c.value)),
            Key::Kind => text(Some(&d.kind)),
            Key::Authority => {
                let n: i64 = self.values[0].parse().unwrap_or(0);
                match self.op {
                    Op::Eq => d.authority.value == n,
                    Op::Ge => d.authority.value >= n,
                    Op::Le => d.authority.value <= n,
                }
            }
        }
    }
}

/// Filters as requests and settings write them (strings, checked by [`Filter::parse`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FilterSpec {
    /// `KEY=VALUE[,VALUE…]` conditions, all of which must hold.
    #[serde(default, rename = "where")]
    pub conditions: Vec<String>,
    /// Only this collection.
    #[serde(default)]
    pub collection: Option<String>,
    /// Only documents in effect on this day (`YYYY-MM-DD`).
    #[serde(default)]
    pub as_of: Option<String>,
    /// Only documents under these paths (as shown, or full) or matching these globs.
    #[serde(default)]
    pub scope: Vec<String>,
}

/// A checked filter.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Filter {
    /// Conditions, all of which must hold.
    pub conditions: Vec<Condition>,
    /// Only documents in effect on this day.
    pub as_of: Option<Date>,
    /// Paths or globs, any of which a document must be under or match.
    pub scope: Vec<String>,
}

impl Filter {
    /// Check a spec: the error names the bad condition or date.
    pub fn parse(spec: &FilterSpec) -> Result<Filter, String> {
        let mut conditions = spec
            .conditions
            .iter()
            .map(|c| c.parse())
            .collect::<Result<Vec<Condition>, String>>()?;
        if let Some(c) = &spec.collection {
            conditions.push(format!("collection={c}").parse()?);
        }
        let as_of = match &spec.as_of {
            Some(d) => Some(d.parse::<Date>().map_err(|e| format!("as of: {e}"))?),
            None => None,
        };
        for s in &spec.scope {
            if s.trim().is_empty() {
                return Err("scope: an empty path".into());
            }
            if is_glob(s) {
                globset::Glob::new(s).map_err(|e| format!("scope {s:?}: {e}"))?;
            }
        }
        Ok(Filter {
            conditions,
            as_of,
            scope: spec.scope.clone(),
        })
    }

    /// True when it selects every document.
    pub fn is_empty(&self) -> bool {
        self.conditions.is_empty() && self.as_of.is_none() && self.scope.is_empty()
    }

    /// The documents of `catalog` it selects, and why the others are set aside.
    pub fn select(&self, catalog: &Catalog) -> Selection {
        let mut sel = Selection {
            as_of: self.as_of,
            ..Default::default()
        };
        let globs: Vec<globset::GlobMatcher> = self
            .scope
            .iter()
            .filter(|s| is_glob(s))
            .filter_map(|s| globset::Glob::new(s).ok().map(|g| g.compile_matcher()))
            .collect();
        for d in &catalog.documents {
            if !self.conditions.iter().all(|c| c.holds(d)) || !self.in_scope(d, &globs) {
                continue;
            }
            let effect = self.as_of.map_or(Effect::InEffect, |day| d.effect_on(day));
            match effect {
                Effect::InEffect => {}
                Effect::Undated => sel.undated.push(d.source.clone()),
                other => {
                    sel.set_aside.push(SetAside {
                        source: d.source.clone(),
                        effect: other,
                    });
                    continue;
                }
            }
            sel.docs.push(d.row);
            sel.doc_ids.insert(d.doc_id.clone());
        }
        sel
    }

    fn in_scope(&self, d: &DocSource, globs: &[globset::GlobMatcher]) -> bool {
        if self.scope.is_empty() {
            return true;
        }
        let shown = d.source.trim_start_matches("./");
        globs
            .iter()
            .any(|g| g.is_match(shown) || g.is_match(&d.path))
            || self.scope.iter().filter(|s| !is_glob(s)).any(|s| {
                let s = s.trim_start_matches("./").trim_end_matches(['/', '\\']);
                super::under(shown, s) || super::under(&d.path, s)
            })
    }
}

fn is_glob(s: &str) -> bool {
    s.contains(['*', '?', '[', '{'])
}

/// The documents a filter selects.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Selection {
    /// Their row ids, in catalog order.
    #[serde(skip)]
    pub docs: Vec<i64>,
    /// Their ids.
    #[serde(skip)]
    pub doc_ids: HashSet<String>,
    /// The day asked about.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub as_of: Option<Date>,
    /// Selected documents that state no start date (kept).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub undated: Vec<String>,
    /// Documents set aside by date.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub set_aside: Vec<SetAside>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditions_parse_and_bad_ones_say_why() {
        let c: Condition = "source_type=statute,regulation".parse().unwrap();
        assert_eq!((c.key, c.op, c.values.len()), (Key::SourceType, Op::Eq, 2));
        let a: Condition = "authority>=60".parse().unwrap();
        assert_eq!((a.key, a.op), (Key::Authority, Op::Ge));
        for bad in [
            "source_type=law",
            "colour=red",
            "source_type=",
            "authority>=NaN",
            "kind>=pdf",
            "x",
        ] {
            assert!(bad.parse::<Condition>().is_err(), "{bad}");
        }
        let spec = FilterSpec {
            as_of: Some("2018-13-01".into()),
            ..Default::default()
        };
        assert!(Filter::parse(&spec).unwrap_err().contains("as of"));
    }
}
