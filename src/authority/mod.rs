//! Sources with authority at query time: the catalog of documents as sources (what each
//! says about itself, joined with the declarations of `attest.toml` and of `attest
//! ingest`), the filters that select sources (`--where`, `--collection`, `--as-of`,
//! `--scope`); `source::govern` decides which of two cited sources governs a value.
//!
//! Precedence of a field's value: an ingest flag, then the last matching `[[sources]]`
//! rule of `attest.toml`, then what the document says (inferred), then the default (type
//! `other`; authority by type).

use std::collections::{BTreeSet, HashSet};

use serde::Serialize;

use crate::engine::Engine;
use crate::error::Error;
use crate::profile::paper::PaperIds;
use crate::profile::{DocVersion, Profile, Role};
use crate::retrieve::Restrict;
use crate::source::{Date, Origin, SourceMeta, SourceRule, SourceType, Sourced};

pub mod filter;
pub mod label;
pub mod requirements;
pub mod rule;
pub mod summary;

pub use crate::source::{DatedSources, Effect, SetAside};
pub use filter::{Filter, FilterSpec, Selection};

/// A document as a source: where it is, what it is, and since when it is in effect.
#[derive(Debug, Clone, Serialize)]
pub struct DocSource {
    /// Document row id.
    #[serde(skip)]
    pub row: i64,
    /// Document id.
    pub doc_id: String,
    /// Path shown to users.
    pub source: String,
    /// Canonical path of its file.
    #[serde(skip)]
    pub path: String,
    /// Title.
    pub title: String,
    /// Kind of file.
    pub kind: String,
    /// Pages (0 when the file has none).
    pub pages: usize,
    /// Chunks.
    pub chunks: usize,
    /// Source type, and where it came from.
    pub source_type: Sourced<SourceType>,
    /// Authority rank, and where it came from.
    pub authority: Sourced<i64>,
    /// Jurisdiction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jurisdiction: Option<Sourced<String>>,
    /// Collection.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub collection: Option<Sourced<String>>,
    /// First day in effect.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effective_from: Option<Sourced<Date>>,
    /// Day it stops being in effect (exclusive).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effective_to: Option<Sourced<Date>>,
    /// What it supersedes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub supersedes: Vec<Sourced<String>>,
    /// Its role (a plan, a report, a register …), from its stored profile.
    pub role: Role,
    /// The version it states, from its stored profile.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<DocVersion>,
    /// Its authors as its first page prints them, from its stored profile.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub authors: Vec<String>,
    /// For a paper: its arXiv identifier, DOI and year, from its stored profile.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paper: Option<PaperIds>,
    /// The document (path shown) that supersedes it, when the corpus holds one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<String>,
    /// The day the superseding document takes effect, when it says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub superseded_from: Option<Date>,
}

/// Every document of an index as a source.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Catalog {
    /// Documents in path order.
    pub documents: Vec<DocSource>,
}

impl Catalog {
    /// The catalog of `engine`'s index under its configuration's `[[sources]]` rules.
    pub fn load(engine: &Engine) -> Result<Catalog, Error> {
        let mut c = Self::load_rows(engine.store(), &engine.config().sources, None)?;
        link_supersessions(&mut c.documents);
        Ok(c)
    }

    /// The catalog entries of documents `doc_ids` only (supersessions are not linked: that
    /// needs every document).
    pub fn load_only(engine: &Engine, doc_ids: &[String]) -> Result<Catalog, Error> {
        Self::load_only_in(engine.store(), &engine.config().sources, doc_ids)
    }

    /// [`Catalog::load_only`] over `store` under the `[[sources]]` rules `rules` (no
    /// engine needed: an audit replay).
    pub fn load_only_in(
        store: &crate::store::Store,
        rules: &[SourceRule],
        doc_ids: &[String],
    ) -> Result<Catalog, Error> {
        Self::load_rows(store, rules, Some(doc_ids))
    }

    fn load_rows(
        store: &crate::store::Store,
        rules: &[SourceRule],
        only: Option<&[String]>,
    ) -> Result<Catalog, Error> {
        let mut decls: Vec<(String, SourceRule)> = Vec::new();
        for (root, json) in store.source_decls()? {
            if let Ok(rule) = serde_json::from_str::<SourceRule>(&json) {
                decls.push((root, rule));
            }
        }
        let matchers: Vec<_> = rules.iter().filter_map(|r| r.check().ok()).collect();
        let mut documents = Vec::new();
        for row in store.catalog_rows(crate::source::OPENING_BYTES, only)? {
            let inferred = match serde_json::from_str::<SourceMeta>(&row.source_meta) {
                Ok(m) if !row.source_meta.is_empty() => m,
                _ => crate::source::infer(&row.title, &row.source, &row.opening),
            };
            let mut meta = inferred;
            for (rule, m) in rules.iter().zip(&matchers) {
                let shown = row.source.trim_start_matches("./");
                if m.is_match(shown) || m.is_match(&row.path) {
                    let from = format!("attest.toml [[sources]] {:?}", rule.path);
                    meta = meta.overlaid(&rule.meta(&from));
                }
            }
            for (root, rule) in &decls {
                if under(&row.path, root) {
                    meta = meta.overlaid(&rule.meta("attest ingest flags"));
                }
            }
            let (role, version, authors, paper) = what_it_is(&row);
            let mut doc = doc_source(row, meta);
            doc.role = role;
            doc.version = version;
            doc.authors = authors;
            doc.paper = paper;
            documents.push(doc);
        }
        Ok(Catalog { documents })
    }

    /// The document with id `doc_id`.
    pub fn get(&self, doc_id: &str) -> Option<&DocSource> {
        self.documents.iter().find(|d| d.doc_id == doc_id)
    }
}

/// Documents a question may draw from: the intersection of a `--scope` (document ids,
/// when given) and a filter's selection, as a retrieval restriction; `None` when
/// neither restricts. A restriction that leaves no document is an error saying why.
pub fn restrict(
    engine: &Engine,
    scope: Option<HashSet<String>>,
    filter: &Filter,
) -> Result<Option<(Restrict, Selection)>, Error> {
    if scope.is_none() && filter.is_empty() {
        let earlier = earlier_versions(engine)?;
        if earlier.is_empty() {
            return Ok(None);
        }
        let all: HashSet<String> = engine.store().document_keys()?.into_keys().collect();
        let ids: HashSet<String> = all.difference(&earlier).cloned().collect();
        return Ok(Some((Restrict::new(engine, ids)?, Selection::default())));
    }
    let selection = match filter.is_empty() {
        true => Selection::default(),
        false => filter.select(&Catalog::load(engine)?),
    };
    let ids: HashSet<String> = match (scope, filter.is_empty()) {
        (Some(s), true) => s,
        (Some(s), false) => s.intersection(&selection.doc_ids).cloned().collect(),
        (None, _) => selection.doc_ids.clone(),
    };
    if ids.is_empty() {
        let aside: Vec<String> = selection
            .set_aside
            .iter()
            .take(5)
            .map(|a| format!("{} ({:?})", a.source, a.effect))
            .collect();
        let why = match aside.is_empty() {
            true => String::new(),
            false => format!("; set aside by date: {}", aside.join(", ")),
        };
        return Err(Error::Usage(format!(
            "no indexed document matches the filter{why} (see `attest documents`)"
        )));
    }
    let mut r = Restrict::new(engine, ids)?;
    r.dated = selection.as_of.map(|as_of| DatedSources {
        as_of,
        set_aside: selection.set_aside.clone(),
        undated: selection.undated.clone(),
    });
    Ok(Some((r, selection)))
}

/// Whether canonical path `path` is `root` or inside it.
fn under(path: &str, root: &str) -> bool {
    path == root
        || path
            .strip_prefix(root)
            .is_some_and(|rest| rest.starts_with('/') || rest.starts_with('\\'))
}

/// A document's role, version, authors and paper identifiers.
type What = (Role, Option<DocVersion>, Vec<String>, Option<PaperIds>);

/// The role, version, authors and paper identifiers of the document of `row`: its stored
/// profile's, or, for a document stored before profiles, its role and version read from
/// its title, file name and opening.
fn what_it_is(row: &crate::store::CatalogRow) -> What {
    let stored = serde_json::from_str::<Profile>(&row.source_meta)
        .ok()
        .filter(|p| p.reading == crate::profile::READING);
    match stored {
        Some(p) => (p.role, p.version, p.authors, p.paper),
        None => (
            crate::profile::role::role(&row.source, &row.title, &row.opening),
            crate::profile::version::version_of(&row.source, &row.title, &row.opening),
            Vec::new(),
            None,
        ),
    }
}

fn doc_source(row: crate::store::CatalogRow, meta: SourceMeta) -> DocSource {
    let source_type = meta.source_type.unwrap_or(Sourced {
        value: SourceType::Other,
        origin: Origin::Default,
    });
    let authority = meta.authority.unwrap_or(Sourced {
        value: source_type.value.default_authority(),
        origin: Origin::Default,
    });
    DocSource {
        row: row.id,
        doc_id: row.doc_id,
        source: row.source,
        path: row.path,
        title: row.title,
        kind: row.kind,
        pages: row.pages,
        chunks: row.chunks,
        source_type,
        authority,
        jurisdiction: meta.jurisdiction,
        collection: meta.collection,
        effective_from: meta.effective_from,
        effective_to: meta.effective_to,
        supersedes: meta.supersedes,
        superseded_by: None,
        superseded_from: None,
        role: Role::Other,
        version: None,
        authors: Vec::new(),
        paper: None,
    }
}

/// Alphanumeric runs of `s`, lower-cased.
fn runs(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Words that name a derivative of a document (its summary sheet, an FAQ page about it),
/// not the document itself.
const DERIVATIVE_WORDS: &[&str] = &[
    "summary",
    "summaries",
    "sheet",
    "factsheet",
    "overview",
    "explainer",
    "faq",
    "faqs",
    "page",
    "brochure",
    "leaflet",
    "poster",
    "checklist",
    "template",
    "digest",
    "synopsis",
    "abstract",
    "excerpt",
    "extract",
    "draft",
    "commentary",
    "annotation",
    "annotations",
    "notes",
];

/// Whether a document titled `title` (file `file`) is the source `name` names, as a
/// whole: every coded word of the name ("17-02", a word with a digit) stands in the title
/// or file name as the same runs in a row, and at least one other word ("bulletin") does
/// too; a name without digits needs all its words ("No.", "Number" and "the" aside). The
/// name's last word (its head: "the 2015 Act *summary sheet*" is a sheet) and every word
/// naming a derivative ("summary", "FAQ", "page") must stand there too, and a title
/// naming a derivative is named only by a name that says so.
pub fn names_document(name: &str, title: &str, file: &str) -> bool {
    let stem = file.rsplit_once('.').map_or(file, |x| x.0);
    let hays = [runs(title), runs(stem)];
    let holds = |parts: &[String]| {
        hays.iter()
            .any(|h| h.windows(parts.len()).any(|w| w == parts))
    };
    let words: Vec<&str> = name
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
        .filter(|w| !matches!(w.to_lowercase().as_str(), "no" | "number" | "the"))
        .collect();
    let plain_held = |w: &&str| holds(&runs(w));
    let derivative = |w: &str| DERIVATIVE_WORDS.contains(&w.to_lowercase().as_str());
    let named: Vec<String> = words.iter().map(|w| w.to_lowercase()).collect();
    let whole = words.last().is_some_and(plain_held)
        && words.iter().filter(|w| derivative(w)).all(plain_held)
        && runs(title)
            .iter()
            .filter(|w| derivative(w))
            .all(|w| named.contains(w));
    let (coded, plain): (Vec<&str>, Vec<&str>) = words
        .iter()
        .partition(|w| w.chars().any(|c| c.is_ascii_digit()));
    if !whole {
        return false;
    }
    if coded.is_empty() {
        return !plain.is_empty() && plain.iter().all(plain_held);
    }
    coded.iter().all(|w| holds(&runs(w))) && plain.iter().any(plain_held)
}

/// Whether `later` may supersede `earlier` by the name `name` it gives: the name names
/// `earlier` as a whole, and `later` has at least its authority unless the user declared
/// the supersession (a summary does not set aside the act it summarises).
fn supersedes(later: &DocSource, name: &Sourced<String>, earlier: &DocSource) -> bool {
    let file = earlier.source.rsplit(['/', '\\']).next().unwrap_or("");
    names_document(&name.value, &earlier.title, file)
        && (name.is_declared() || later.authority.value >= earlier.authority.value)
}

/// Marks each document another one supersedes, with the later one's path and start.
fn link_supersessions(docs: &mut [DocSource]) {
    let mut links: Vec<(usize, usize)> = Vec::new();
    for (b, later) in docs.iter().enumerate() {
        for name in &later.supersedes {
            for (a, earlier) in docs.iter().enumerate() {
                if a != b && supersedes(later, name, earlier) {
                    links.push((a, b));
                }
            }
        }
    }
    let taken: BTreeSet<usize> = links.iter().map(|x| x.0).collect();
    for a in taken {
        let b = links.iter().find(|x| x.0 == a).map(|x| x.1).unwrap_or(a);
        docs[a].superseded_by = Some(docs[b].source.clone());
        docs[a].superseded_from = docs[b].effective_from.as_ref().map(|s| s.value);
    }
    let paths: Vec<&str> = docs.iter().map(|d| d.path.as_str()).collect();
    let versions: Vec<(String, String)> = crate::source::arxiv::superseded(&paths)
        .into_iter()
        .map(|(old, new)| (old.to_string(), new.to_string()))
        .collect();
    for (old, new) in versions {
        let by = docs
            .iter()
            .find(|d| d.path == new)
            .map(|d| d.source.clone());
        for d in docs
            .iter_mut()
            .filter(|d| d.path == old && d.superseded_by.is_none())
        {
            d.superseded_by = by.clone();
        }
    }
}

/// Documents of earlier arXiv versions of a paper whose later version the index holds
/// (see [`crate::source::arxiv`]): a question not scoped to them is not answered from them.
pub fn earlier_versions(engine: &Engine) -> Result<HashSet<String>, Error> {
    let files = engine.store().stored_files()?;
    let paths: Vec<&str> = files.iter().map(String::as_str).collect();
    let mut out = HashSet::new();
    for (old, _) in crate::source::arxiv::superseded(&paths) {
        out.extend(
            engine
                .store()
                .docs_of_file(old)?
                .into_iter()
                .map(|d| d.doc_id),
        );
    }
    Ok(out)
}

impl DocSource {
    /// Whether it is in effect on `day`.
    pub fn effect_on(&self, day: Date) -> Effect {
        if self.effective_from.as_ref().is_some_and(|f| f.value > day) {
            return Effect::NotYet;
        }
        if self.effective_to.as_ref().is_some_and(|t| t.value <= day) {
            return Effect::Ended;
        }
        if self.superseded_by.is_some() && self.superseded_from.is_none_or(|f| f <= day) {
            return Effect::Superseded;
        }
        if self.effective_from.is_none() {
            return Effect::Undated;
        }
        Effect::InEffect
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(source: &str, title: &str, from: Option<&str>, supersedes: &[&str]) -> DocSource {
        let row = crate::store::CatalogRow {
            id: 0,
            doc_id: source.into(),
            path: format!("/c/{source}"),
            source: source.into(),
            title: title.into(),
            kind: "markdown".into(),
            source_meta: String::new(),
            opening: String::new(),
            pages: 0,
            chunks: 1,
        };
        let meta = SourceRule {
            path: "*".into(),
            effective_from: from.map(|d| d.parse().unwrap()),
            supersedes: supersedes.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        }
        .meta("test");
        doc_source(row, meta)
    }

    #[test]
    fn a_later_bulletin_supersedes_the_one_it_names_from_its_start() {
        let mut docs = vec![
            doc(
                "17-02.md",
                "Policy Bulletin No. 17-02: Retention",
                Some("2017-03-01"),
                &[],
            ),
            doc(
                "19-04.md",
                "Policy Bulletin No. 19-04",
                Some("2019-04-01"),
                &["Policy Bulletin No. 17-02"],
            ),
            doc("17-03.md", "Policy Bulletin No. 17-03", None, &[]),
        ];
        link_supersessions(&mut docs);
        assert_eq!(docs[0].superseded_by.as_deref(), Some("19-04.md"));
        assert_eq!(docs[2].superseded_by, None);
        let day = |s: &str| s.parse::<Date>().unwrap();
        assert_eq!(docs[0].effect_on(day("2018-06-01")), Effect::InEffect);
        assert_eq!(docs[0].effect_on(day("2019-04-01")), Effect::Superseded);
        assert_eq!(docs[1].effect_on(day("2018-06-01")), Effect::NotYet);
        assert_eq!(docs[2].effect_on(day("2018-06-01")), Effect::Undated);
    }

    #[test]
    fn a_summary_does_not_supersede_the_act_it_summarises() {
        let typed = |mut d: DocSource, t: SourceType| {
            d.supersedes = d
                .supersedes
                .iter()
                .map(|s| Sourced::inferred(s.value.clone(), "replaces …"))
                .collect();
            d.source_type = Sourced::inferred(t, "test");
            d.authority = Sourced::inferred(t.default_authority(), "test");
            d
        };
        let act = typed(
            doc(
                "act.md",
                "Records Retention Act 2015",
                Some("2015-07-01"),
                &[],
            ),
            SourceType::Statute,
        );
        let sheet = typed(
            doc(
                "sheet.md",
                "Records Retention Act 2015 Summary Sheet",
                None,
                &[],
            ),
            SourceType::Faq,
        );
        // Named as a whole but with less authority; named as its summary; and a
        // summary named by an FAQ of equal authority, which it does replace.
        let faq = typed(
            doc(
                "faq.md",
                "Retention questions",
                Some("2022-01-01"),
                &["the Records Retention Act 2015 summary sheet"],
            ),
            SourceType::Faq,
        );
        let guide = typed(
            doc(
                "guide.md",
                "Retention guide",
                Some("2022-01-01"),
                &["Records Retention Act 2015"],
            ),
            SourceType::Guidance,
        );
        let mut docs = vec![act, sheet, faq, guide];
        link_supersessions(&mut docs);
        assert_eq!(docs[0].superseded_by, None, "the act stands");
        assert_eq!(docs[1].superseded_by.as_deref(), Some("faq.md"));
        let day = "2023-01-01".parse::<Date>().unwrap();
        assert_eq!(docs[0].effect_on(day), Effect::InEffect);
        // A declared supersession is the user's word.
        let mut declared = docs.clone();
        declared[3].supersedes = vec![Sourced::declared(
            "Records Retention Act 2015".into(),
            "flag",
        )];
        for d in &mut declared {
            d.superseded_by = None;
        }
        link_supersessions(&mut declared);
        assert_eq!(declared[0].superseded_by.as_deref(), Some("guide.md"));
    }

    #[test]
    fn a_name_names_a_document_only_as_a_whole() {
        let act = "Records Retention Act 2015";
        assert!(names_document("the Records Retention Act 2015", act, ""));
        assert!(!names_document(
            "the Records Retention Act 2015 summary sheet",
            act,
            ""
        ));
        assert!(!names_document(
            "the FAQ page of the Records Retention Act 2015",
            act,
            ""
        ));
        assert!(!names_document("Retention Act 2015 overview", act, ""));
        assert!(names_document(
            "the Retention Act 2015 summary sheet",
            "Retention Act 2015 Summary Sheet",
            ""
        ));
    }

    #[test]
    fn names_match_by_their_numbers_and_a_word() {
        assert!(names_document(
            "Policy Bulletin No. 17-02",
            "Bulletin 17-02",
            ""
        ));
        assert!(!names_document(
            "Policy Bulletin No. 17-02",
            "Bulletin 17-03",
            ""
        ));
        assert!(!names_document(
            "Policy Bulletin No. 17-02",
            "Memo 17-02",
            ""
        ));
        assert!(names_document(
            "the old intake manual",
            "Old Intake Manual",
            ""
        ));
        assert!(names_document(
            "Bulletin 17-02",
            "Retention",
            "bulletin-17-02.md"
        ));
    }
}
