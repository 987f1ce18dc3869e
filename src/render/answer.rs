//! Human form of an answer: the cited answer, its evidence with places (page, section,
//! OCR), conflicts between sides, obligations by group, and the explained form.

use std::fmt::Write;

use super::{clean, clean_text, snippet};

/// `source`, or `source#key` for a document inside a multi-document file (escaped).
pub(super) fn place(source: &str, key: &str) -> String {
    if key.is_empty() {
        clean(source).into_owned()
    } else {
        format!("{}#{}", clean(source), clean(key))
    }
}

/// Where an evidence item is, as a reader looks it up: `file.pdf p. 4 § 1.8 Start Date`
/// for paged sources, `file.md:12 § Scope` otherwise; a paper's as it is cited after
/// that, `(Lo et al. 2020, p. 4)`.
pub fn evidence_place(e: &crate::answer::EvidenceItem) -> String {
    let mut out = place(&e.source, &e.key);
    match e.page {
        Some(p) => out.push_str(&format!(" p. {p}")),
        None => out.push_str(&format!(":{}", e.line)),
    }
    if let Some(section) = &e.section {
        out.push_str(&format!(" § {}", snippet(section, 80)));
    }
    let labelled = e.non_binding.as_ref().is_some_and(|nb| nb.label.is_some());
    if let Some(p) = e
        .provision
        .as_ref()
        .filter(|p| p.ends_with(')') && !labelled)
    {
        out.push_str(&format!(" ({})", clean(p)));
    }
    if let Some(nb) = &e.non_binding {
        let label = nb
            .label
            .as_ref()
            .map(|l| format!(" {}", clean(l)))
            .unwrap_or_default();
        out.push_str(&format!(" [{}{label}, does not bind]", nb.kind.as_str()));
    } else if e.source_type == Some(crate::source::SourceType::Faq) {
        out.push_str(" [faq: summary, does not control]");
    }
    if let Some(ocr) = &e.ocr {
        out.push_str(&ocr_note(ocr));
    }
    if let Some(cite) = &e.cite {
        let page = e.page.map(|p| format!(", p. {p}")).unwrap_or_default();
        out.push_str(&format!(" ({}{page})", clean(cite)));
    }
    out
}

/// ` [OCR tesseract 5.3.0]`, with the quote's words below the confidence threshold.
pub fn ocr_note(ocr: &crate::corpus::layout::OcrMark) -> String {
    if ocr.low_confidence.is_empty() {
        return format!(" [OCR {}]", clean(&ocr.engine));
    }
    let words: Vec<String> = ocr
        .low_confidence
        .iter()
        .take(8)
        .map(|w| format!("{:?}", clean(w)))
        .collect();
    format!(
        " [OCR {}; low confidence: {}]",
        clean(&ocr.engine),
        words.join(", ")
    )
}

/// A line saying that none of the cited text binds, when none does (a recital, a
/// preamble, a note: context, not the rule), then a blank line.
fn binding_note(s: &mut String, evidence: &[crate::answer::EvidenceItem]) {
    if evidence.is_empty() || evidence.iter().any(|e| e.non_binding.is_none()) {
        return;
    }
    let each: Vec<String> = evidence
        .iter()
        .filter_map(|e| {
            let nb = e.non_binding.as_ref()?;
            let label = nb
                .label
                .as_ref()
                .map(|l| format!(" {}", clean(l)))
                .unwrap_or_default();
            Some(format!("{} is {}{label}", clean(&e.id), nb.kind.as_str()))
        })
        .collect();
    let _ = writeln!(s, "No binding provision is cited: {}.\n", each.join("; "));
}

/// What side `id` of a difference says: as its ruling reads it (its source type and the
/// figure as the document writes it), else its figures in words (`7 years`, never
/// `7 year`).
fn side_says(c: &crate::evidence::compose::Conflict, id: &str, figures: &[String]) -> String {
    let ruled = c
        .ruling
        .as_ref()
        .and_then(|r| r.sides.iter().find(|s| s.id == id));
    match ruled {
        Some(r) => format!(
            "{} ({}) says {}",
            clean(id),
            r.source_type,
            clean(&r.states)
        ),
        None => {
            let words: Vec<String> = figures
                .iter()
                .map(|k| crate::source::govern::key_words(k))
                .collect();
            format!("{} says {}", clean(id), clean(&words.join(", ")))
        }
    }
}

/// "Sources differ" and "Which applies" lines, each side of the ruling with its source
/// and standing, then a blank line (nothing when none).
fn conflicts(s: &mut String, list: &[crate::evidence::compose::Conflict]) {
    use crate::source::govern::standing_words;
    for c in list {
        let sides: Vec<String> = c
            .ids
            .iter()
            .zip(&c.figures)
            .map(|(id, f)| side_says(c, id, f))
            .collect();
        let _ = writeln!(s, "Sources differ: {}.", sides.join("; "));
        if let Some(r) = &c.ruling {
            let _ = writeln!(s, "Which applies: {}.", clean(&r.summary));
            for side in &r.sides {
                let since = side
                    .effective_from
                    .map(|d| format!(", effective {d}"))
                    .unwrap_or_default();
                let _ = writeln!(
                    s,
                    "  {} {} ({}{since}): {}: {}",
                    clean(&side.id),
                    clean(&side.source),
                    side.source_type,
                    clean(&side.states),
                    standing_words(side.standing)
                );
            }
        }
    }
    if !list.is_empty() {
        s.push('\n');
    }
}

/// The answer's text, its differences and each cited item with its quote, place and
/// score, then its confidence.
fn cited_answer(s: &mut String, a: &crate::answer::Answer) {
    let _ = writeln!(s, "{}\n", clean_text(&a.answer));
    if let Some(r) = a.reply.as_ref().filter(|r| !r.against.is_empty()) {
        let _ = writeln!(s, "Reply: {}\n", clean(&r.line));
    }
    conflicts(s, &a.conflicts);
    binding_note(s, &a.evidence);
    let _ = writeln!(s, "Evidence:");
    let groups = obligation_groups(a);
    for (n, e) in a.evidence.iter().enumerate() {
        if let Some(g) = groups.as_ref().map(|g| g[n]) {
            if n == 0 || groups.as_ref().is_some_and(|gs| gs[n - 1] != g) {
                let heading = crate::authority::requirements::group_heading(g);
                let _ = writeln!(s, "  {heading}:");
            }
        }
        let _ = writeln!(
            s,
            "  [{}] {}  ({}, score {:.2})",
            clean(&e.id),
            evidence_place(e),
            e.kind.as_str(),
            e.score,
        );
        if let Some(label) = &e.label {
            let _ = writeln!(s, "      under: {}", snippet(label, 200));
        }
        let shown = if e.display.is_empty() {
            &e.quote
        } else {
            &e.display
        };
        let _ = writeln!(s, "      \"{}\"", snippet(shown, 400));
    }
    let _ = writeln!(
        s,
        "\nconfidence: {} ({} verified item(s); retrieval confidence {:.2})",
        a.confidence.as_str(),
        a.metrics.verified,
        a.steps.first().map_or(0.0, |st| st.confidence)
    );
}

/// The answer: text, then each cited item with its quote, `source:line` and score.
pub fn answer(a: &crate::answer::Answer) -> String {
    use crate::answer::Status;
    let mut s = String::new();
    if let Some(sel) = &a.choice {
        match &sel.selected {
            Some(l) => {
                let _ = writeln!(s, "Answer: ({l})");
            }
            None => {
                let _ = writeln!(s, "Answer: undecided (the verified evidence cannot decide)");
            }
        }
        for c in &sel.choices {
            let _ = writeln!(s, "  {}", clean(&c.line));
        }
        s.push('\n');
    }
    match a.status {
        Status::Answered => cited_answer(&mut s, a),
        Status::StatedAbsent => {
            let _ = writeln!(
                s,
                "No value: the cited documents state that what is asked has not been set."
            );
            for m in &a.missing_evidence {
                let _ = writeln!(s, "  missing: {}", clean(m));
            }
            s.push('\n');
            cited_answer(&mut s, a);
        }
        Status::NoAuthoritativeEvidence => {
            let _ = writeln!(
                s,
                "No authoritative evidence: the indexed documents do not answer this question."
            );
            for m in &a.missing_evidence {
                let _ = writeln!(s, "  missing: {}", clean(m));
            }
            if !a.evidence.is_empty() {
                let _ = writeln!(s, "\nClosest passages found (not an answer):");
                cited_answer(&mut s, a);
            }
        }
        Status::RejectedInput => {
            let _ = writeln!(
                s,
                "Question not accepted: {}",
                clean(a.reason.as_deref().unwrap_or("invalid input"))
            );
        }
    }
    dated_note(&mut s, a.as_of.as_ref());
    s
}

/// For a question about obligations whose evidence comes from more than one group of
/// sources: each item's group (0 statutes and regulations, 1 policy and guidance, 2 the
/// rest, 3 summaries and text that does not bind), to head the evidence list by.
fn obligation_groups(a: &crate::answer::Answer) -> Option<Vec<u8>> {
    use crate::authority::requirements::{asks_obligation, group_of};
    if !asks_obligation(&a.question) {
        return None;
    }
    let groups: Vec<u8> = a
        .evidence
        .iter()
        .map(|e| match (&e.non_binding, e.source_type) {
            (Some(_), _) => 3,
            (None, Some(t)) => group_of(t),
            (None, None) => 2,
        })
        .collect();
    let first = *groups.first()?;
    groups.iter().any(|g| *g != first).then_some(groups)
}

/// What an `--as-of` date set aside and which sources state no date, when asked so.
fn dated_note(s: &mut String, dated: Option<&crate::source::DatedSources>) {
    let Some(d) = dated else {
        return;
    };
    for a in &d.set_aside {
        let _ = writeln!(
            s,
            "as of {}: set aside {} ({})",
            d.as_of,
            clean(&a.source),
            a.effect.words()
        );
    }
    if !d.undated.is_empty() {
        let kept: Vec<String> = d.undated.iter().map(|u| clean(u).into_owned()).collect();
        let _ = writeln!(
            s,
            "as of {}: kept, stating no effective date: {}",
            d.as_of,
            kept.join(", ")
        );
    }
}

/// The answer plus its lineage: steps, retrieved chunks, rejected items, timings.
pub fn answer_explained(r: &crate::answer::Run) -> String {
    let mut s = answer(&r.answer);
    if r.answer.metrics.memory_hit {
        let _ = writeln!(
            s,
            "\nserved from the QA memory (every cited quote re-checked against the index)"
        );
    }
    if let Some(res) = &r.answer.research {
        let _ = writeln!(
            s,
            "\nresearch: {} ({}); stopped: {}",
            res.classification.class.as_str(),
            clean(&res.classification.reason),
            clean(&res.stopped)
        );
    }
    if let Some(f) = &r.answer.question_frame {
        let _ = writeln!(s, "\nquestion frame: {}", clean(&f.describe()));
    }
    explain_steps(&mut s, r);
    explain_rejected(&mut s, r);
    let g = &r.answer.gate;
    let _ = writeln!(
        s,
        "\ngate: {} ({} citation(s), {} paragraph(s), {:.1} per 100 words)",
        if g.passed { "passed" } else { "failed" },
        g.citations,
        g.paragraphs,
        g.density_per_100_words
    );
    if let Some(p) = &r.answer.phrasing {
        explain_phrasing(&mut s, p);
    }
    explain_metrics(&mut s, &r.answer.metrics);
    s
}

/// Each step with its queries and retrieved chunks.
fn explain_steps(s: &mut String, r: &crate::answer::Run) {
    for (i, st) in r.answer.steps.iter().enumerate() {
        let _ = writeln!(
            s,
            "\nstep {}: {} [{}, {}; {} verified; confidence {:.2}] {}",
            st.step,
            clean(&st.question),
            st.action.as_str(),
            st.status.as_str(),
            st.verified,
            st.confidence,
            clean(&st.reason)
        );
        for q in &st.queries {
            let _ = writeln!(s, "  query: {}", clean(q));
        }
        let Some(ret) = r.retrieval.get(i) else {
            continue;
        };
        for (i, h) in ret.hits.iter().enumerate() {
            let _ = writeln!(
                s,
                "  {:>2}. {}:{}-{}  score {:.4}  cosine {:.3}  chunk {}",
                i + 1,
                clean(&h.chunk.source),
                h.chunk.line_start,
                h.chunk.line_end,
                h.score,
                h.cosine,
                clean(&h.chunk.chunk_id)
            );
        }
    }
}

/// Rejected candidates and verified items not used.
fn explain_rejected(s: &mut String, r: &crate::answer::Run) {
    if !r.answer.rejected.is_empty() {
        let _ = writeln!(s, "\nrejected:");
        for x in &r.answer.rejected {
            let _ = writeln!(
                s,
                "  {} {}:{} {}: {}\n      \"{}\"",
                clean(&x.id),
                clean(&x.source),
                x.line,
                x.reason.as_str(),
                clean(&x.rationale),
                snippet(&x.quote, 160)
            );
        }
    }
    if !r.unused.is_empty() {
        let _ = writeln!(s, "\nverified but not used:");
        for (id, why) in &r.unused {
            let _ = writeln!(s, "  {}: {}", clean(id), clean(why));
        }
    }
}

/// What the generator wrote and what became of it.
fn explain_phrasing(s: &mut String, p: &crate::evidence::phrase::Phrasing) {
    let _ = writeln!(
        s,
        "\ngenerator {}: {} ({}); {} prompt token(s) in {:.0} ms, {} generated in {:.0} ms",
        clean(&p.model),
        p.outcome.as_str(),
        clean(&p.reason),
        p.prompt_tokens,
        p.prompt_ms,
        p.generated_tokens,
        p.decode_ms
    );
    for d in &p.dropped {
        let _ = writeln!(
            s,
            "  dropped: \"{}\" ({})",
            snippet(&d.sentence, 160),
            clean(&d.reason)
        );
    }
    if p.outcome == crate::evidence::phrase::PhrasingOutcome::Phrased {
        let _ = writeln!(s, "  extractive answer: {}", snippet(&p.extractive, 400));
    }
}

/// Counters and timings.
fn explain_metrics(s: &mut String, m: &crate::answer::Metrics) {
    let _ =
        writeln!(
        s,
        "metrics: {} candidate(s), {} verified, {} generator call(s), memory hit {}, injection {}",
        m.candidates,
        m.verified,
        m.generator_calls,
        m.memory_hit,
        m.injection.as_ref().map_or("none".to_string(), |i| i.kind.as_str().to_string())
    );
    let t: Vec<String> = m
        .timings_ms
        .iter()
        .map(|(k, v)| format!("{k} {v:.1}"))
        .collect();
    let _ = writeln!(s, "timings (ms): {}", t.join(", "));
}
