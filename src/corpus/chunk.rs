//! Packing sentences into token-budgeted, overlapping chunks.
//!
//! A chunk is a byte [`Span`] of the stored text made of whole sentences
//! (or whitespace-delimited pieces of one over-long sentence), so chunk text
//! is always `span.slice(text)`. See [`chunk`] for the exact rule.

use crate::corpus::Span;
use std::ops::Range;

/// One chunk: a span of the text plus the sentences it was built from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ChunkSpan {
    /// From the first unit's start to the last unit's end; trimmed.
    pub span: Span,
    /// Indices into the sentence list given to [`chunk`]. When the chunk
    /// holds only pieces of a split sentence, the range still names the
    /// whole original sentence(s) those pieces come from.
    pub sentences: Range<usize>,
    /// Sum of the token counts of the chunk's units (sentences or pieces).
    pub tokens: usize,
}

/// A packing unit: a whole sentence, or a piece of an over-budget one.
#[derive(Debug, Clone, Copy)]
struct Unit {
    span: Span,
    sentence: usize,
    tokens: usize,
}

/// Packs `sentences` (spans of `text`, sorted, non-overlapping and trimmed,
/// as produced by [`crate::corpus::segment::sentences`]) into chunks of at
/// most `budget` tokens.
///
/// Rule (deterministic):
/// 1. `count_tokens` is called once per sentence. A sentence counted above
///    `budget` is cut at whitespace into pieces, each the longest run of
///    words (from left to right) whose own count (`count_tokens` on the
///    piece text) is `<= budget`; a single word over budget is its own
///    piece. Pieces are trimmed sub-spans on char boundaries and are packed
///    like sentences. Empty sentence spans are skipped; invalid ones
///    (out of bounds / not on char boundaries) are skipped in release
///    builds and trip a `debug_assert!` in debug builds.
/// 2. Greedy packing: a chunk takes units in order while the running sum of
///    counts stays `<= budget` (always at least one unit).
/// 3. Overlap: the next chunk starts with the previous chunk's last unit if
///    the previous chunk had at least two units and that unit plus the next
///    new unit fit the budget together; otherwise it starts at the next new
///    unit. So every chunk adds at least one unit not seen before.
///
/// Headings get no special treatment: a heading that ends one chunk
/// becomes the overlap that opens the next, which keeps it with its body.
///
/// Guarantees: chunk starts strictly increase and ends never decrease;
/// consecutive chunks overlap or are separated only by what lies between
/// sentences; every sentence byte lies in some chunk; `tokens <= budget`
/// unless the chunk is one unsplittable word; no sentences → no chunks.
/// Time is linear in the number of sentences plus O(n log n) in the
/// length of over-budget sentences (galloping search over piece ends).
pub fn chunk(
    text: &str,
    sentences: &[Span],
    budget: usize,
    count_tokens: &dyn Fn(&str) -> usize,
) -> Vec<ChunkSpan> {
    let mut units = Vec::with_capacity(sentences.len());
    for (idx, &span) in sentences.iter().enumerate() {
        let Some(s) = text.get(span.start..span.end) else {
            debug_assert!(false, "sentence span {span:?} invalid for text");
            continue;
        };
        if s.is_empty() {
            continue;
        }
        let tokens = count_tokens(s);
        if tokens <= budget {
            units.push(Unit {
                span,
                sentence: idx,
                tokens,
            });
        } else {
            split_sentence(text, span, idx, budget, count_tokens, &mut units);
        }
    }
    pack(&units, budget)
}

/// Cuts an over-budget sentence into whitespace-delimited pieces.
fn split_sentence(
    text: &str,
    span: Span,
    sentence: usize,
    budget: usize,
    count_tokens: &dyn Fn(&str) -> usize,
    out: &mut Vec<Unit>,
) {
    let words = words(text, span);
    let count = |a: usize, b: usize| count_tokens(&text[words[a].start..words[b - 1].end]);
    let unit = |a: usize, b: usize, tokens: usize| Unit {
        span: Span {
            start: words[a].start,
            end: words[b - 1].end,
        },
        sentence,
        tokens,
    };
    let n = words.len();
    let mut a = 0;
    while a < n {
        let first = count(a, a + 1);
        if first > budget {
            out.push(unit(a, a + 1, first));
            a += 1;
            continue;
        }
        // Largest end `lo` with count(a, lo) <= budget: gallop, then bisect.
        let (mut lo, mut lo_tokens) = (a + 1, first);
        let mut hi = None;
        let mut step = 1;
        while lo < n {
            let cand = (lo + step).min(n);
            let c = count(a, cand);
            if c <= budget {
                (lo, lo_tokens) = (cand, c);
                step *= 2;
            } else {
                hi = Some(cand);
                break;
            }
        }
        if let Some(mut hi) = hi {
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                let c = count(a, mid);
                if c <= budget {
                    (lo, lo_tokens) = (mid, c);
                } else {
                    hi = mid;
                }
            }
        }
        out.push(unit(a, lo, lo_tokens));
        a = lo;
    }
}

/// Maximal non-whitespace runs inside `span`, as absolute spans.
fn words(text: &str, span: Span) -> Vec<Span> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text[span.start..span.end].char_indices() {
        let i = span.start + i;
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                out.push(Span { start: s, end: i });
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push(Span {
            start: s,
            end: span.end,
        });
    }
    out
}

/// Greedy packing with one-unit overlap (see [`chunk`]).
fn pack(units: &[Unit], budget: usize) -> Vec<ChunkSpan> {
    let mut out = Vec::new();
    let mut s = 0;
    while s < units.len() {
        let mut e = s;
        let mut sum = 0usize;
        while e < units.len() && (e == s || sum.saturating_add(units[e].tokens) <= budget) {
            sum = sum.saturating_add(units[e].tokens);
            e += 1;
        }
        out.push(ChunkSpan {
            span: Span {
                start: units[s].span.start,
                end: units[e - 1].span.end,
            },
            sentences: units[s].sentence..units[e - 1].sentence + 1,
            tokens: sum,
        });
        if e == units.len() {
            break;
        }
        let overlap_fits = units[e - 1].tokens.saturating_add(units[e].tokens) <= budget;
        s = if e - s >= 2 && overlap_fits { e - 1 } else { e };
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::segment::sentences;
    use proptest::prelude::*;
    use std::cell::Cell;

    fn words_count(s: &str) -> usize {
        s.split_whitespace().count()
    }

    fn texts<'a>(text: &'a str, chunks: &[ChunkSpan]) -> Vec<&'a str> {
        chunks.iter().map(|c| c.span.slice(text)).collect()
    }

    #[test]
    fn empty_inputs() {
        assert!(chunk("", &[], 10, &words_count).is_empty());
        assert!(chunk("   \n", &sentences("   \n"), 10, &words_count).is_empty());
        // Empty sentence spans are skipped.
        assert!(chunk("abc", &[Span { start: 1, end: 1 }], 10, &words_count).is_empty());
    }

    #[test]
    fn packs_greedily_with_one_sentence_overlap() {
        let text = "A b. C d. E f. G h.";
        let sents = sentences(text);
        assert_eq!(sents.len(), 4);
        let chunks = chunk(text, &sents, 4, &words_count);
        assert_eq!(
            texts(text, &chunks),
            ["A b. C d.", "C d. E f.", "E f. G h."]
        );
        assert_eq!(
            chunks
                .iter()
                .map(|c| c.sentences.clone())
                .collect::<Vec<_>>(),
            [0..2, 1..3, 2..4]
        );
        assert!(chunks.iter().all(|c| c.tokens == 4));
    }

    #[test]
    fn whole_text_in_one_chunk_when_it_fits() {
        let text = "A b. C d. E f.";
        let chunks = chunk(text, &sentences(text), 100, &words_count);
        assert_eq!(chunks.len(), 1);
        assert_eq!(
            chunks[0].span,
            Span {
                start: 0,
                end: text.len()
            }
        );
        assert_eq!(chunks[0].sentences, 0..3);
        assert_eq!(chunks[0].tokens, 6);
    }

    #[test]
    fn no_overlap_after_single_sentence_chunk() {
        let text = "A b c. D e f. G h i.";
        let chunks = chunk(text, &sentences(text), 4, &words_count);
        assert_eq!(texts(text, &chunks), ["A b c.", "D e f.", "G h i."]);
    }

    #[test]
    fn no_overlap_when_it_would_not_make_progress() {
        // counts 2, 2, 3 with budget 4: overlapping "C d." with "E f g." = 5 > 4.
        let text = "A b. C d. E f g.";
        let chunks = chunk(text, &sentences(text), 4, &words_count);
        assert_eq!(texts(text, &chunks), ["A b. C d.", "E f g."]);
        assert_eq!(chunks[1].sentences, 2..3);
    }

    #[test]
    fn counts_each_sentence_once() {
        let calls = Cell::new(0);
        let counter = |s: &str| {
            calls.set(calls.get() + 1);
            words_count(s)
        };
        let text = "A b. C d. E f. G h. I j.";
        let sents = sentences(text);
        let chunks = chunk(text, &sents, 4, &counter);
        assert_eq!(calls.get(), sents.len());
        assert_eq!(chunks.len(), 4);
    }

    #[test]
    fn splits_long_sentence_at_whitespace() {
        let text = "Intro. One two three four five six seven eight nine ten. Outro.";
        let sents = sentences(text);
        assert_eq!(sents.len(), 3);
        let chunks = chunk(text, &sents, 3, &words_count);
        assert_eq!(
            texts(text, &chunks),
            [
                "Intro.",
                "One two three",
                "four five six",
                "seven eight nine",
                "ten. Outro."
            ]
        );
        assert_eq!(
            chunks
                .iter()
                .map(|c| c.sentences.clone())
                .collect::<Vec<_>>(),
            [0..1, 1..2, 1..2, 1..2, 1..3]
        );
        assert_eq!(
            chunks.iter().map(|c| c.tokens).collect::<Vec<_>>(),
            [1, 3, 3, 3, 2]
        );
    }

    #[test]
    fn pieces_overlap_like_sentences() {
        let text = "a b c d e f g h";
        let chunks = chunk(text, &sentences(text), 2, &|s: &str| {
            // Two "tokens" per piece plus nothing: forces 1-word pieces.
            2 * words_count(s)
        });
        assert_eq!(
            texts(text, &chunks),
            ["a", "b", "c", "d", "e", "f", "g", "h"]
        );
        let chunks = chunk(text, &sentences(text), 6, &words_count);
        assert_eq!(texts(text, &chunks), ["a b c d e f", "g h"]);
    }

    #[test]
    fn unsplittable_word_may_exceed_budget() {
        let text = "Short one. Supercalifragilistic";
        let chars = |s: &str| s.chars().count();
        let chunks = chunk(text, &sentences(text), 5, &chars);
        assert_eq!(
            texts(text, &chunks),
            ["Short", "one.", "Supercalifragilistic"]
        );
        assert_eq!(chunks[2].tokens, 20);
        assert_eq!(chunks[2].sentences, 1..2);
    }

    #[test]
    fn multibyte_pieces_stay_on_char_boundaries() {
        let text = "日本 語の テキスト です。 ünï cödé wörds hérè.";
        let chunks = chunk(text, &sentences(text), 2, &words_count);
        for c in &chunks {
            assert!(text.get(c.span.start..c.span.end).is_some());
            assert!(c.tokens <= 2);
        }
        assert_eq!(
            texts(text, &chunks),
            ["日本 語の", "テキスト です。", "ünï cödé", "wörds hérè."]
        );
    }

    #[test]
    fn zero_budget_terminates() {
        let text = "A b. C d.";
        let chunks = chunk(text, &sentences(text), 0, &words_count);
        assert_eq!(texts(text, &chunks), ["A", "b.", "C", "d."]);
    }

    /// Asserts the chunking invariants for chunks of `text` built from
    /// `sentences(text)` with the whitespace word counter.
    fn assert_chunk_invariants(text: &str, sents: &[Span], chunks: &[ChunkSpan], budget: usize) {
        if sents.is_empty() {
            assert!(chunks.is_empty());
        }
        let mut covered = vec![false; text.len()];
        for (i, c) in chunks.iter().enumerate() {
            let s = text.get(c.span.start..c.span.end).expect("char boundaries");
            assert!(!s.is_empty());
            assert!(!s.starts_with(char::is_whitespace) && !s.ends_with(char::is_whitespace));
            // Units are whole sentences or word-aligned pieces, so the
            // chunk's count is the word count of each sentence's part in it.
            let expected: usize = sents[c.sentences.clone()]
                .iter()
                .map(|t| {
                    let (a, b) = (t.start.max(c.span.start), t.end.min(c.span.end));
                    words_count(&text[a..b.max(a)])
                })
                .sum();
            assert_eq!(c.tokens, expected, "tokens of {s:?}");
            assert!(
                c.tokens <= budget || !s.contains(char::is_whitespace),
                "chunk {s:?} has {} > {budget} tokens",
                c.tokens
            );
            assert!(c.sentences.start < c.sentences.end && c.sentences.end <= sents.len());
            let first = sents[c.sentences.start];
            let last = sents[c.sentences.end - 1];
            assert!(first.start <= c.span.start && c.span.start < first.end);
            assert!(last.start < c.span.end && c.span.end <= last.end);
            if i > 0 {
                let p = &chunks[i - 1];
                assert!(c.span.start > p.span.start, "starts must increase");
                assert!(c.span.end >= p.span.end, "ends must not decrease");
                if c.span.start > p.span.end {
                    assert!(text[p.span.end..c.span.start].trim().is_empty(), "gap");
                }
            }
            covered[c.span.start..c.span.end]
                .iter_mut()
                .for_each(|b| *b = true);
        }
        for (i, ch) in text.char_indices() {
            if !ch.is_whitespace() {
                assert!(covered[i], "byte {i} ({ch:?}) not in any chunk");
            }
        }
    }

    const FRAGMENTS: &[&str] = &[
        "the",
        "county",
        "shall",
        "act.",
        "The",
        "Dr.",
        "Smith",
        "élan",
        "日本語",
        "why?",
        "3.5",
        "§ 5.1",
        "Section 5.",
        "No.",
        "(1)",
        "“Quote.”",
        "**Bold.**",
        "supercalifragilistic",
        "a",
        "b",
        "c",
    ];
    const SEPARATORS: &[&str] = &[
        " ",
        " ",
        " ",
        " ",
        "\n",
        "\n\n",
        "\n# Heading\n",
        "\n- item\n",
        "\n1. First\n",
        "\n| a | b |\n",
        "\t",
        "  ",
    ];

    fn prose() -> impl Strategy<Value = String> {
        prop::collection::vec(
            (
                prop::sample::select(FRAGMENTS),
                prop::sample::select(SEPARATORS),
            ),
            0..120,
        )
        .prop_map(|parts| parts.into_iter().flat_map(|(a, b)| [a, b]).collect())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn invariants_prose(text in prose(), budget in 1usize..300) {
            let sents = sentences(&text);
            let chunks = chunk(&text, &sents, budget, &words_count);
            assert_chunk_invariants(&text, &sents, &chunks, budget);
            prop_assert_eq!(chunks, chunk(&text, &sents, budget, &words_count));
        }

        #[test]
        fn invariants_small_budgets(text in prose(), budget in 1usize..8) {
            let sents = sentences(&text);
            let chunks = chunk(&text, &sents, budget, &words_count);
            assert_chunk_invariants(&text, &sents, &chunks, budget);
        }

        #[test]
        fn invariants_arbitrary(text in any::<String>(), budget in 1usize..300) {
            let sents = sentences(&text);
            let chunks = chunk(&text, &sents, budget, &words_count);
            assert_chunk_invariants(&text, &sents, &chunks, budget);
            prop_assert_eq!(chunks, chunk(&text, &sents, budget, &words_count));
        }
    }
}
