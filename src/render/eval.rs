//! Human form of the `attest eval` reports: review, documents, search, retrieval, the
//! gate, attribution, answers, replays and multi-hop.

use std::fmt::Write;

use super::{clean, snippet};

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
