//! Human form of `attest review`: the requirements with their status, values and
//! evidence, the documents read, and the field catalogue.

use std::fmt::Write;

use super::answer::{evidence_place, place};
use super::{clean, snippet};

/// The human form of a review: one line per requirement, then the details of each (reason, values
/// with their evidence, checks, quotes with their place).
pub fn review(r: &crate::review::Review) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Review of {} ({} requirements)",
        r.checklist.name, r.checklist.requirements
    );
    for q in &r.requirements {
        let _ = writeln!(
            s,
            "  {:<12} {:<10} {}{}",
            q.status.as_str(),
            clean(&q.id),
            clean(&q.category),
            if q.mandatory { "" } else { " (optional)" }
        );
    }
    let m = &r.summary;
    let _ = writeln!(
        s,
        "{} evidenced, {} missing, {} conflict, {} needs review; {} mandatory not evidenced",
        m.evidenced, m.missing, m.conflict, m.needs_review, m.mandatory_open
    );
    if m.checks == 0 {
        let _ = writeln!(s, "No checks were performed: no field was stated by two documents and no rule applied. This is not a pass.");
    } else {
        let _ = writeln!(
            s,
            "{} checks performed, {} found a problem.",
            m.checks, m.checks_failed
        );
    }
    let _ = writeln!(
        s,
        "The review approves nothing: the decision is the reviewer's."
    );
    review_documents(r, &mut s);
    for q in &r.requirements {
        review_details(q, &mut s);
    }
    s
}

/// One line per document: its role, version, the later version that supersedes it, and a
/// register's title number and proprietors.
fn review_documents(r: &crate::review::Review, s: &mut String) {
    use crate::profile::VersionFrom;
    if !r.documents.is_empty() {
        let _ = writeln!(s, "Documents:");
    }
    for d in &r.documents {
        let file = |p: &str| clean(p.rsplit(['/', '\\']).next().unwrap_or(p)).into_owned();
        let mut line = format!("  {:<9} {}", d.role.as_str(), file(&d.source));
        if let Some(v) = &d.version {
            let from = match v.from {
                VersionFrom::FileName => "file name",
                VersionFrom::Text => "text",
            };
            let number = if v.number.is_empty() {
                "?"
            } else {
                v.number.as_str()
            };
            line.push_str(&format!("; version {number} (from the {from})"));
        }
        if let Some(later) = &d.superseded_by {
            line.push_str(&format!("; superseded by {}", file(later)));
        }
        if let Some(t) = &d.register {
            line.push_str(&format!(
                "; title {}: proprietors {}",
                clean(t.title_number.as_deref().unwrap_or("not stated")),
                if t.proprietors.is_empty() {
                    "not found".to_string()
                } else {
                    clean(&t.proprietors.join("; ")).into_owned()
                }
            ));
        }
        let _ = writeln!(s, "{line}");
    }
}

fn review_details(q: &crate::review::RequirementReview, s: &mut String) {
    let _ = writeln!(
        s,
        "\n{} [{}] {}: {}",
        clean(&q.id),
        q.validation_type.as_str(),
        q.status.as_str(),
        clean(&q.reason)
    );
    for f in &q.fields {
        let _ = writeln!(
            s,
            "  {} = {}  (\"{}\", {})",
            f.name,
            f.value,
            clean(&f.raw),
            f.evidence
        );
    }
    for v in &q.rejected_values {
        let _ = writeln!(
            s,
            "  not taken for {}: \"{}\" ({}; {})",
            v.name,
            clean(&v.raw),
            v.note,
            v.evidence
        );
    }
    for c in &q.checks {
        let _ = writeln!(
            s,
            "  check {}: {} ({})",
            c.field,
            c.status.as_str(),
            clean(&c.note)
        );
    }
    for e in crate::review::report::quoted(q) {
        let _ = writeln!(
            s,
            "  {} {}\n      \"{}\"",
            e.id,
            evidence_place(e),
            clean(&snippet(&e.display, 300))
        );
    }
}

/// How a source value was set: `declared`, `inferred` or `default`.
fn origin_word(o: &crate::source::Origin) -> &'static str {
    match o {
        crate::source::Origin::Declared { .. } => "declared",
        crate::source::Origin::Inferred { .. } => "inferred",
        crate::source::Origin::Default => "default",
    }
}

/// The source catalog: one block per document.
pub fn catalog(c: &crate::authority::Catalog) -> String {
    let mut s = String::new();
    for d in &c.documents {
        let _ = writeln!(s, "{}  {}", clean(&d.source), snippet(&d.title, 100));
        let mut line = format!(
            "    {} ({}), authority {} ({})",
            d.source_type.value,
            origin_word(&d.source_type.origin),
            d.authority.value,
            origin_word(&d.authority.origin)
        );
        if let Some(c) = &d.collection {
            line.push_str(&format!(
                ", collection {} ({})",
                clean(&c.value),
                origin_word(&c.origin)
            ));
        }
        if let Some(j) = &d.jurisdiction {
            line.push_str(&format!(
                ", {} ({})",
                clean(&j.value),
                origin_word(&j.origin)
            ));
        }
        let _ = writeln!(s, "{line}");
        let from = d
            .effective_from
            .as_ref()
            .map(|f| format!("from {} ({})", f.value, origin_word(&f.origin)));
        let to = d
            .effective_to
            .as_ref()
            .map(|f| format!("to {} ({})", f.value, origin_word(&f.origin)));
        let dates: Vec<String> = from.into_iter().chain(to).collect();
        if !dates.is_empty() {
            let _ = writeln!(s, "    in effect {}", dates.join(" "));
        }
        for x in &d.supersedes {
            let _ = writeln!(
                s,
                "    supersedes {} ({})",
                snippet(&x.value, 100),
                origin_word(&x.origin)
            );
        }
        if let Some(b) = &d.superseded_by {
            let since = d
                .superseded_from
                .map(|f| format!(" from {f}"))
                .unwrap_or_default();
            let _ = writeln!(s, "    superseded by {}{since}", clean(b));
        }
        if !d.authors.is_empty() {
            let _ = writeln!(s, "    by {}", clean(&d.authors.join(", ")));
        }
        if let Some(ids) = d.paper.as_ref().map(paper_ids).filter(|l| !l.is_empty()) {
            let _ = writeln!(s, "    {}", clean(&ids));
        }
        let _ = writeln!(
            s,
            "    {} page(s), {} chunk(s), {}",
            d.pages, d.chunks, d.kind
        );
    }
    let _ = writeln!(s, "{} document(s)", c.documents.len());
    s
}

/// Requirements: id, place, source type and confidence, then the quote.
pub fn requirements(list: &[crate::authority::requirements::Requirement]) -> String {
    let mut s = String::new();
    for r in list {
        let mut place = place(&r.source, "");
        match r.page {
            Some(p) => place.push_str(&format!(" p. {p}")),
            None => place.push_str(&format!(":{}", r.line)),
        }
        if let Some(p) = r.provision.as_ref().or(r.section.as_ref()) {
            let mark = if p.starts_with('§') { "" } else { "§ " };
            place.push_str(&format!(" {mark}{}", snippet(p, 80)));
        }
        let _ = writeln!(
            s,
            "{}  {place}  [{}, {:.2}]",
            clean(&r.id),
            r.source_type,
            r.confidence
        );
        let _ = writeln!(s, "    \"{}\"", snippet(&r.quote, 400));
    }
    let _ = writeln!(s, "{} requirement(s)", list.len());
    s
}

/// A paper's identifiers as one line: `2022, arXiv 2206.10883v3, doi 10.1145/…`.
fn paper_ids(p: &crate::profile::paper::PaperIds) -> String {
    let year = p.year.map(|y| y.to_string());
    let arxiv = p.arxiv.as_ref().map(|a| format!("arXiv {a}"));
    let doi = p.doi.as_ref().map(|d| format!("doi {d}"));
    [year, arxiv, doi]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(", ")
}
