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

mod answer;
mod eval;
mod review;

pub use answer::{answer, answer_explained, evidence_place, ocr_note};
pub use eval::{
    answers_eval, attribution_eval, documents_eval, gate, multihop_eval, replay, retrieval,
    retrieval_eval, review_eval, search_eval,
};
pub use review::{catalog, requirements, review};

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

/// What `attest ingest --reembed` did, in two lines.
pub fn reembed_report(r: &crate::ingest::reembed::ReembedReport) -> String {
    if r.files == 0 && r.from == r.to {
        return format!(
            "index already embedded with {}: nothing to re-embed\n",
            r.to
        );
    }
    format!(
        "re-embedded {} chunk(s) of {} file(s): {} -> {} ({} tokens, {:.1} s)\ncleared {} answer(s) from the QA memory\n",
        r.chunks,
        r.files,
        r.from,
        r.to,
        r.tokens,
        r.total_ms as f64 / 1000.0,
        r.memory_cleared
    )
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
        "index: {} documents, {} chunks, corpus version {} ({} chunks embedded{} in {:.1} s of {:.1} s)",
        r.documents,
        r.chunks,
        r.corpus_version,
        r.chunks_embedded,
        if r.chunks_reused > 0 {
            format!(", {} reused", r.chunks_reused)
        } else {
            String::new()
        },
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
    for f in &r.partly_read {
        let _ = writeln!(s, "partly read: {}: {}", clean(&f.path), clean(&f.reason));
    }
    for a in &r.read_as {
        let _ = writeln!(
            s,
            "read as {}: {} (its content is {0}, whatever its name says)",
            a.format.name(),
            clean(&a.path)
        );
    }
    for k in &r.skipped {
        let _ = writeln!(s, "skipped: {}: {}", clean(&k.path), k.reason);
    }
    if r.skipped_total > r.skipped.len() {
        let _ = writeln!(
            s,
            "skipped: {} more not listed",
            r.skipped_total - r.skipped.len()
        );
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
