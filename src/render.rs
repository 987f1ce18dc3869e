//! Human-readable output of command results (JSON output is the serde form of the same
//! structs, exact).
//!
//! Every text that comes from outside the program (document text, file names, titles,
//! queries, reasons quoting them) goes through [`clean`] (single-line fields) or
//! [`clean_text`] (multi-line fields) before it reaches a terminal, so a document or a
//! file name cannot move the cursor, recolour the screen or forge a result line.

use std::borrow::Cow;
use std::fmt::Write;

use crate::ingest::IngestReport;
use crate::retrieve::SearchResult;
use crate::status::Status;

/// Whether a field may span lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lines {
    /// One line: newlines and tabs are escaped too.
    Single,
    /// Several lines: `\n` and `\t` are kept.
    Multi,
}

/// The escaped form of `c`, or `None` when it prints as itself.
fn escape_char(c: char, lines: Lines) -> Option<String> {
    let multi = lines == Lines::Multi;
    match c {
        '\n' | '\t' if multi => None,
        '\n' => Some("\\n".into()),
        '\r' => Some("\\r".into()),
        '\t' => Some("\\t".into()),
        '\0'..='\x1f' | '\x7f' => Some(format!("\\x{:02x}", c as u32)),
        // C1 controls (CSI, NEL, …) and bidirectional embeddings, overrides and isolates.
        '\u{80}'..='\u{9f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => {
            Some(format!("\\u{{{:x}}}", c as u32))
        }
        '\u{2028}' | '\u{2029}' if !multi => Some(format!("\\u{{{:x}}}", c as u32)),
        _ => None,
    }
}

fn escape(text: &str, lines: Lines) -> Cow<'_, str> {
    if !text.chars().any(|c| escape_char(c, lines).is_some()) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match escape_char(c, lines) {
            Some(e) => out.push_str(&e),
            None => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A single-line field for a terminal: control characters (C0 including newlines, CR and
/// tab; DEL; C1), bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069) and
/// U+2028/U+2029 are escaped (`\n`, `\r`, `\t`, `\x1b`, `\u{202e}`); everything else
/// is kept. Backslashes are not escaped.
pub fn clean(text: &str) -> Cow<'_, str> {
    escape(text, Lines::Single)
}

/// A multi-line field for a terminal: as [`clean`], but newlines and tabs are kept.
pub fn clean_text(text: &str) -> Cow<'_, str> {
    escape(text, Lines::Multi)
}

/// An error and its causes on one line, each cause once, escaped ([`clean`]).
///
/// Errors here often show their source in their own message (`"{path}: {source}"`) and
/// also chain it as `source()`, and a source may repeat its own cause in turn (SQLite's
/// message, then `Error code N: message`), so printing the whole chain would repeat the
/// same text. A cause whose text the message already holds was shown by the error that
/// wraps it; it ends the chain, since that error chose how to describe what lies below.
pub fn error_chain(err: &(dyn std::error::Error + 'static)) -> String {
    let mut msg = err.to_string();
    let mut cause = err.source();
    while let Some(c) = cause {
        let text = c.to_string();
        if text.is_empty() {
            cause = c.source();
            continue;
        }
        if msg.contains(&text) {
            break;
        }
        msg.push_str(": ");
        msg.push_str(&text);
        cause = c.source();
    }
    clean(&msg).into_owned()
}

/// Collapse whitespace, cut to about `max` characters at a word boundary, and escape
/// control characters ([`clean`]).
pub fn snippet(text: &str, max: usize) -> String {
    clean(&flat_snippet(text, max)).into_owned()
}

fn flat_snippet(text: &str, max: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        return flat;
    }
    let cut: String = flat.chars().take(max).collect();
    let cut = match cut.rfind(' ') {
        Some(i) if i > max / 2 => cut[..i].to_string(),
        _ => cut,
    };
    format!("{cut} …")
}

/// One run of `attest watch` as a line: what changed, what the ingest did, the corpus
/// version, and the failures under it.
pub fn watch_run(run: &crate::ingest::watch::WatchRun) -> String {
    let r = &run.report;
    let what = if run.initial {
        "first run".to_string()
    } else {
        let more = run.changed_count.saturating_sub(run.changed.len());
        let mut list = run
            .changed
            .iter()
            .map(|p| clean(p))
            .collect::<Vec<_>>()
            .join(", ");
        if more > 0 {
            list.push_str(&format!(" and {more} more"));
        }
        format!("{} changed ({list})", run.changed_count)
    };
    let mut s = format!(
        "watch: {what}: added {}, updated {}, removed {}, failed {}; {} documents, corpus version {} ({:.1} s)\n",
        r.added,
        r.updated,
        r.removed,
        r.failed.len(),
        r.documents,
        r.corpus_version,
        run.latency_ms as f64 / 1000.0
    );
    for f in &r.failed {
        let _ = writeln!(s, "  failed: {}: {}", clean(&f.path), clean(&f.reason));
    }
    s
}

/// The ingest summary.
pub fn ingest_report(r: &IngestReport) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "added {}, updated {}, unchanged {}, removed {}, failed {}",
        r.added,
        r.updated,
        r.unchanged,
        r.removed,
        r.failed.len()
    );
    let _ = writeln!(
        s,
        "index: {} documents, {} chunks, corpus version {} ({} chunks embedded in {:.1} s of {:.1} s)",
        r.documents,
        r.chunks,
        r.corpus_version,
        r.chunks_embedded,
        r.embed_ms as f64 / 1000.0,
        r.total_ms as f64 / 1000.0
    );
    if !r.missing.is_empty() {
        let _ = writeln!(
            s,
            "missing ({} file(s) gone from an ingested root; run with --prune to remove them):",
            r.missing.len()
        );
        for m in &r.missing {
            let _ = writeln!(s, "  {}", clean(m));
        }
    }
    for f in &r.failed {
        let _ = writeln!(s, "failed: {}: {}", clean(&f.path), clean(&f.reason));
    }
    s
}

/// Search hits, best first.
pub fn search_result(r: &SearchResult) -> String {
    let mut s = String::new();
    if r.hits.is_empty() {
        let _ = writeln!(
            s,
            "no results for \"{}\" ({} search)",
            clean(&r.query),
            r.mode
        );
        return s;
    }
    for (i, hit) in r.hits.iter().enumerate() {
        let h = &hit.chunk;
        let mut parts = vec![format!("{} {:.4}", r.mode, hit.score)];
        if let (Some(d), Some(rank)) = (hit.scores.dense, hit.scores.dense_rank) {
            parts.push(format!("dense {d:.3} #{rank}"));
        }
        if let (Some(l), Some(rank)) = (hit.scores.lexical, hit.scores.lexical_rank) {
            parts.push(format!("bm25 {l:.2} #{rank}"));
        }
        let mut lines = match h.page {
            Some(p) => format!(" p. {p}"),
            None if h.line_start == h.line_end => format!(":{}", h.line_start),
            None => format!(":{}-{}", h.line_start, h.line_end),
        };
        if let Some(section) = &h.section {
            lines.push_str(&format!(" § {}", snippet(section, 80)));
        }
        let _ = writeln!(
            s,
            "{:>2}. {}{}  [{}]",
            i + 1,
            clean(&h.source),
            lines,
            parts.join(" | ")
        );
        let _ = writeln!(
            s,
            "    {} (bytes {}..{}, chunk {})",
            clean(&h.title),
            h.start,
            h.end,
            clean(&h.chunk_id)
        );
        let _ = writeln!(s, "    {}", snippet(&h.text, 280));
    }
    s
}

/// The `attest eval documents` report.
pub fn review_eval(r: &crate::eval::review::ReviewEvalReport) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "review: {} ({} requirements, {} documents, {} chunks)",
        clean(&r.dataset),
        r.requirements,
        r.documents,
        r.chunks
    );
    if r.scored {
        let f = &r.fields;
        let _ = writeln!(
            s,
            "field values: {} expected, {} given, {} right: precision {:.3}, recall {:.3}; wrong values {}",
            f.expected, f.predicted, f.correct, f.precision, f.recall, r.wrong_values.len()
        );
        for w in &r.wrong_values {
            let _ = writeln!(
                s,
                "  WRONG {} {} = {} ({:?} in {})",
                clean(&w.requirement),
                clean(&w.name),
                w.value,
                w.raw.as_deref().unwrap_or(""),
                clean(&w.doc)
            );
        }
        for m in &r.missed_values {
            let _ = writeln!(
                s,
                "  missed {} {} = {} in {}",
                clean(&m.requirement),
                clean(&m.name),
                m.value,
                clean(&m.doc)
            );
        }
        let _ = writeln!(s, "statuses: accuracy {:.3}", r.status_accuracy);
        for (status, sc) in &r.statuses {
            let _ = writeln!(
                s,
                "  {:<13} expected {:>3} given {:>3}: precision {:.3}, recall {:.3}",
                clean(status),
                sc.expected,
                sc.predicted,
                sc.precision,
                sc.recall
            );
        }
        for m in &r.status_misses {
            let _ = writeln!(
                s,
                "  {} expected {}, got {}: {}",
                clean(&m.requirement),
                clean(&m.expected),
                clean(&m.got),
                clean(&m.reason)
            );
        }
    } else {
        let _ = writeln!(s, "no expected.json: not scored");
    }
    let _ = writeln!(
        s,
        "raw values re-checked at their spans: {}, not verbatim: {}; contents or instruction lines cited: {}",
        r.raw_checked, r.raw_not_verbatim, r.contents_or_instructions_cited
    );
    let times: Vec<String> = r
        .timings_ms
        .iter()
        .map(|(k, v)| format!("{} {:.0} ms", clean(k), v))
        .collect();
    let _ = writeln!(s, "timings: {}", times.join(", "));
    s
}

/// Human form of `attest eval documents`.
pub fn documents_eval(r: &crate::eval::documents::DocumentsReport) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "documents: {} ({} questions{}; {} pages ingested in {:.1} s: {:.1} pages/s, {:.0}% extracting and chunking, {:.0}% embedding)",
        clean(&r.dataset),
        r.questions,
        if r.scoped { ", each asked of its own document" } else { ", asked of the whole corpus" },
        r.pages,
        r.ingest_ms as f64 / 1e3,
        r.pages_per_second,
        r.extract_share * 100.0,
        r.embed_share * 100.0,
    );
    let _ = writeln!(
        s,
        "{:<16} {:>10} {:>12} {:>10} {:>12} {:>12} {:>13}",
        "kind", "answerable", "value cited", "on page", "unanswerable", "abstained", "instructions"
    );
    let rows = r.kinds.iter().map(|(k, f)| (k.as_str(), f));
    for (kind, f) in rows.chain(std::iter::once(("all", &r.all))) {
        let _ = writeln!(
            s,
            "{:<16} {:>10} {:>12.3} {:>10.3} {:>12} {:>12.3} {:>13}",
            clean(kind),
            f.answerable,
            f.value_cited_share,
            f.on_page_share,
            f.unanswerable,
            f.abstained_share,
            f.instructions_cited
        );
    }
    for (path, reason) in &r.failed_files {
        let _ = writeln!(s, "failed file: {}: {}", clean(path), clean(reason));
    }
    let _ = writeln!(s, "cited quotes not verbatim: {}", r.not_verbatim);
    let _ = writeln!(
        s,
        "confidence, answers right per level: {}",
        crate::eval::metrics::reliability_line(&r.reliability)
    );
    let _ = writeln!(
        s,
        "concision: median {:.0} cited item(s) per answer; typed answers whose first sentence holds the value {:.3}",
        r.median_items, r.value_first
    );
    let _ = writeln!(
        s,
        "values named: the expected value itself {:.3} of answerable; another value {} time(s)",
        r.value_named_right, r.value_named_wrong
    );
    s
}

/// The `attest eval search` report.
pub fn search_eval(r: &crate::eval::SearchEval) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} queries from {} over {} chunks, k = {}, dense backend {}",
        r.queries,
        clean(&r.queries_file),
        r.chunks,
        r.k,
        r.dense_backend
    );
    for (mode, l) in &r.modes {
        let _ = writeln!(
            s,
            "  {mode:<8} p50 {:7.2} ms  p95 {:7.2} ms  mean {:7.2} ms  {:7.1} queries/s",
            l.p50_ms, l.p95_ms, l.mean_ms, l.qps
        );
    }
    match (r.hnsw_recall_at_k, r.hnsw_lookup_ms) {
        (Some(rec), Some(ms)) => {
            let _ = writeln!(
                s,
                "  HNSW recall@{} vs exact: {rec:.4} (lookup {ms:.3} ms vs exact {:.3} ms)",
                r.k, r.exact_lookup_ms
            );
        }
        _ => {
            let _ = writeln!(s, "  no HNSW graph to measure");
        }
    }
    s
}

/// The `attest eval retrieval` report.
pub fn retrieval_eval(r: &crate::eval::retrieval::RetrievalReport) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} (split {}): {} queries, {} documents, {} chunks",
        clean(&r.dataset),
        clean(&r.split),
        r.queries,
        r.documents,
        r.chunks
    );
    let _ = writeln!(
        s,
        "  {:<22} {:>8} {:>9} {:>10} {:>7} {:>8} {:>8} {:>8} {:>8}",
        "mode", "nDCG@10", "Recall@10", "Recall@100", "MRR@10", "all@10", "p50 ms", "p95 ms", "q/s"
    );
    for (mode, m) in &r.modes {
        let _ = writeln!(
            s,
            "  {mode:<22} {:>8.4} {:>9.4} {:>10.4} {:>7.4} {:>8.4} {:>8.1} {:>8.1} {:>8.1}",
            m.ndcg10, m.recall10, m.recall100, m.mrr10, m.all_relevant10, m.p50_ms, m.p95_ms, m.qps
        );
    }
    s
}

/// A multi-query retrieval.
pub fn retrieval(r: &crate::retrieve::multi::Retrieval) -> String {
    let mut s = String::new();
    for (i, q) in r.queries.iter().enumerate() {
        let _ = writeln!(
            s,
            "{} {}",
            if i == 0 {
                "query:      "
            } else {
                "alternative:"
            },
            clean(q)
        );
    }
    let _ = writeln!(
        s,
        "order: {}; confidence (mean cosine): {:.3}",
        r.order, r.confidence
    );
    for (i, h) in r.hits.iter().enumerate() {
        let c = &h.chunk;
        let _ = writeln!(
            s,
            "{:>2}. {}:{}-{}  [score {:.4} | cosine {:.3}]",
            i + 1,
            clean(&c.source),
            c.line_start,
            c.line_end,
            h.score,
            h.cosine
        );
        let _ = writeln!(s, "    {}", snippet(&c.text, 280));
    }
    s
}

/// The Evidence Gate's verdict.
pub fn gate(r: &crate::evidence::gate::GateResult) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{}: {} citation(s), {} paragraph(s), {} words, {:.2} citations per 100 words",
        if r.passed { "PASSED" } else { "FAILED" },
        r.citations,
        r.paragraphs,
        r.words,
        r.density_per_100_words
    );
    for v in &r.violations {
        let place = match (v.paragraph, &v.sentence) {
            (Some(p), Some(sent)) => format!(" (paragraph {p}: \"{}\")", snippet(sent, 80)),
            (Some(p), None) => format!(" (paragraph {p})"),
            _ => String::new(),
        };
        let _ = writeln!(
            s,
            "  {} {}: {}{place}",
            v.severity.as_str(),
            v.kind.as_str(),
            clean(&v.message)
        );
    }
    s
}

/// The `attest eval attribution` report.
pub fn attribution_eval(r: &crate::eval::attribution::AttributionReport) -> String {
    let (best, m) = &r.calibrated;
    format!(
        "{}: {} claims; accuracy {:.4}, macro-F1 {:.4} at coverage >= {:.2} and similarity >= {:.2}\n\
         best on this file: accuracy {:.4}, macro-F1 {:.4} at coverage >= {:.2} and similarity >= {:.2}\n",
        clean(&r.dataset),
        r.questions,
        r.metrics.accuracy,
        r.metrics.macro_f1,
        r.thresholds.min_coverage,
        r.thresholds.min_similarity,
        m.accuracy,
        m.macro_f1,
        best.min_coverage,
        best.min_similarity
    )
}

/// Index status.
pub fn status(st: &Status) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "index:          {}", clean(&st.index_dir));
    let _ = writeln!(s, "documents:      {}", st.documents);
    let _ = writeln!(s, "chunks:         {}", st.chunks);
    let _ = writeln!(
        s,
        "model:          {} ({} dimensions)",
        st.model, st.dimension
    );
    let _ = writeln!(s, "corpus version: {}", st.corpus_version);
    let _ = writeln!(s, "schema version: {}", st.schema_version);
    if st.read_only {
        let _ = writeln!(s, "access:         read-only (ingest is refused)");
    }
    if st.ingest_running {
        let _ = writeln!(
            s,
            "ingest:         RUNNING (another attest ingest is writing this index; figures may change)"
        );
    }
    let h = &st.index;
    let _ = writeln!(
        s,
        "dense index:    {} ({} points, {} live, {} dead{}; dense search uses {})",
        if h.consistent {
            "consistent"
        } else {
            "NEEDS REBUILD"
        },
        h.hnsw_points,
        h.live_chunks,
        h.dead_points,
        if h.delta_points > 0 {
            format!(", {} newer beside the graph", h.delta_points)
        } else {
            String::new()
        },
        h.dense_backend
    );
    for p in &h.problems {
        let _ = writeln!(s, "  problem: {}", clean(p));
    }
    match st.deep.as_deref() {
        Some([]) => {
            let _ = writeln!(
                s,
                "deep check:     sound (vectors, texts, spans, full-text index)"
            );
        }
        Some(found) => {
            let _ = writeln!(
                s,
                "deep check:     {} problem(s), listed above",
                found.len()
            );
        }
        None => {}
    }
    let _ = writeln!(
        s,
        "injection flags: {} chunk(s) with instruction-like text",
        st.injection_flags.len()
    );
    for f in st.injection_flags.iter().take(10) {
        let _ = writeln!(
            s,
            "  {}:{} {} (\"{}\")",
            clean(&f.source),
            f.line,
            f.kind,
            clean(&f.matched)
        );
    }
    s
}

/// `source`, or `source#key` for a document inside a multi-document file (escaped).
fn place(source: &str, key: &str) -> String {
    if key.is_empty() {
        clean(source).into_owned()
    } else {
        format!("{}#{}", clean(source), clean(key))
    }
}

/// Where an evidence item is, as a reader looks it up: `file.pdf p. 4 § 1.8 Start Date`
/// for paged sources, `file.md:12 § Scope` otherwise.
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

/// The `attest eval answers` report.
pub fn answers_eval(r: &crate::eval::answers::AnswersReport) -> String {
    let m = &r.metrics;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} questions from {} ({}) asked of {}: {}",
        r.questions,
        clean(r.questions_from.as_deref().unwrap_or(&r.dataset)),
        clean(&r.split),
        clean(&r.dataset),
        if r.answerable {
            "answerable"
        } else {
            "not answerable by this corpus"
        }
    );
    let _ = writeln!(
        s,
        "answered {:.3}  abstained {:.3}  rejected input {:.3}",
        m.answered_rate, m.abstain_rate, m.rejected_input_rate
    );
    if let (Some(c), Some(p)) = (m.cites_relevant_doc_rate, m.cited_item_precision) {
        let _ = writeln!(
            s,
            "cites a relevant document {c:.3} (of answered {:.3})  cited-item precision {p:.3}  items per answer {:.2}",
            m.cites_relevant_doc_rate_answered.unwrap_or(0.0),
            m.mean_cited_items
        );
    }
    if let (Some(r), Some(w)) = (m.states_answer_rate, m.answered_without_answer_rate) {
        let _ = writeln!(
            s,
            "a cited quote states the gold answer {r:.3}  answered without stating it {w:.3} (of answered)"
        );
    }
    let _ = writeln!(
        s,
        "invariants: {} quotes checked, verbatim {:.3}; unknown citations {}; uncited sentences {}; unsupported sentences {}; gate failures {}",
        m.quotes_checked,
        m.verbatim_rate,
        m.unknown_citations,
        m.uncited_sentences,
        m.unsupported_sentences,
        m.gate_failures
    );
    if m.generator_calls > 0 {
        let _ = writeln!(
            s,
            "generator: {} call(s); phrased answers kept {}, extractive fallbacks {}",
            m.generator_calls, m.phrased, m.phrase_fallbacks
        );
    }
    let _ = writeln!(
        s,
        "confidence, answers right per level: {}",
        crate::eval::metrics::reliability_line(&r.reliability)
    );
    let _ = writeln!(
        s,
        "latency: p50 {:.1} ms  p95 {:.1} ms  mean {:.1} ms",
        m.p50_ms, m.p95_ms, m.mean_ms
    );
    if let (Some(h), Some(p), Some(r)) = (m.memory_hit_rate, m.p50_ms_repeat, m.repeat_time_ratio) {
        let _ = writeln!(
            s,
            "repeated: served from memory {h:.3}; p50 {p:.1} ms; repeat ÷ first {r:.3}"
        );
    }
    s
}

/// The audit replay report.
pub fn replay(r: &crate::audit::Replay) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{}: {} of {} cited quote(s) still verbatim (corpus version then {}, now {})",
        clean(&r.audit),
        r.intact,
        r.checked,
        r.corpus_version_then,
        r.corpus_version_now
    );
    for d in &r.drift {
        let _ = writeln!(
            s,
            "  {} {} ({}): {}: {}",
            clean(&d.id),
            clean(&d.source),
            clean(&d.evidence_key),
            d.kind.as_str(),
            clean(&d.message)
        );
    }
    let gate = r.gate.iter().flat_map(|g| &g.violations);
    for v in gate.chain(&r.violations) {
        let _ = writeln!(
            s,
            "  {} [{}]: {}",
            v.kind.as_str(),
            v.severity.as_str(),
            v.message
        );
    }
    let verdict = if r.passed {
        "passed"
    } else if r.intact < r.checked {
        "DRIFT"
    } else {
        "FAILED"
    };
    let _ = writeln!(s, "{verdict}");
    s
}

/// The `attest eval multihop` report.
pub fn multihop_eval(r: &crate::eval::multihop::MultihopReport) -> String {
    let m = &r.metrics;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} multi-gold questions ({}, {}); {:.0}% classified multi-hop, {:.2} steps each",
        r.questions,
        clean(&r.dataset),
        clean(&r.split),
        m.multi_hop_share * 100.0,
        m.steps_per_question
    );
    let _ = writeln!(
        s,
        "every gold paragraph cited: single step {:.3}, research loop {:.3}",
        m.both_gold_single_step, m.both_gold_loop
    );
    let _ = writeln!(
        s,
        "every gold paragraph verified: single step {:.3}, research loop {:.3}",
        m.both_gold_verified_single_step, m.both_gold_verified_loop
    );
    let _ = writeln!(
        s,
        "answered: single step {:.3}, loop {:.3}; not verbatim {}, uncited sentences {}",
        m.answered_single_step, m.answered_loop, m.not_verbatim, m.uncited_sentences
    );
    let _ = writeln!(
        s,
        "latency p50: single step {:.1} ms, loop {:.1} ms (p95 {:.1} ms)",
        m.p50_ms_single_step, m.p50_ms_loop, m.p95_ms_loop
    );
    s
}

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
    use crate::review::documents::VersionFrom;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct E(&'static str, Option<Box<E>>);
    impl std::fmt::Display for E {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(self.0)
        }
    }
    impl std::error::Error for E {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            self.1.as_deref().map(|e| e as _)
        }
    }

    #[test]
    fn error_chain_prints_each_cause_once() {
        let x = "database disk image is malformed";
        let ffi = E("Error code 11: database disk image is malformed", None);
        let sqlite = E(x, Some(Box::new(ffi)));
        let store = E(
            "/i/attest.sqlite3: database disk image is malformed",
            Some(Box::new(sqlite)),
        );
        let top = E("ingest", Some(Box::new(store)));
        let s = error_chain(&top);
        assert_eq!(
            s,
            "ingest: /i/attest.sqlite3: database disk image is malformed"
        );
        assert_eq!(s.matches(x).count(), 1);
        // Causes that add something are kept.
        let e = E(
            "a",
            Some(Box::new(E("b", Some(Box::new(E("c\x1b[2J", None)))))),
        );
        assert_eq!(error_chain(&e), "a: b: c\\x1b[2J");
    }

    #[test]
    fn control_characters_are_escaped_for_terminals() {
        let name = "a\x1b[31mred\nfake.md:1\r\u{202e}x\u{85}\u{7f}\tb";
        assert_eq!(
            clean(name),
            "a\\x1b[31mred\\nfake.md:1\\r\\u{202e}x\\u{85}\\x7f\\tb"
        );
        assert_eq!(clean_text("p1\n\np2\x1b]0;t\x07"), "p1\n\np2\\x1b]0;t\\x07");
        assert!(matches!(clean("plain ü — text"), Cow::Borrowed(_)));
        assert_eq!(snippet("x\x1b[2J\n y", 100), "x\\x1b[2J y");
    }

    #[test]
    fn snippet_flattens_and_cuts_at_words() {
        assert_eq!(snippet("a\n\n b   c", 100), "a b c");
        let s = snippet("alpha beta gamma delta", 12);
        assert_eq!(s, "alpha beta …");
    }
}
