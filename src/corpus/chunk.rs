//! Packing sentences into token-budgeted, overlapping chunks.
//!
//! A chunk is a byte [`Span`] of the stored text made of whole sentences
//! (or pieces of one over-long sentence: runs of words, or runs of characters
//! of one over-long word), so chunk text is always `span.slice(text)`. See
//! [`chunk`] for the exact rule.

use crate::corpus::load::Deadline;
use crate::corpus::Span;
use std::ops::Range;

/// Bytes a chunk may hold per token of budget: [`max_chunk_bytes`] caps chunks of text the
/// tokenizer counts as few tokens (a 20 MB run without whitespace is one `[UNK]`).
/// Ordinary prose averages 4–6 bytes per token, so the cap only cuts degenerate text.
pub const BYTES_PER_TOKEN: usize = 16;

/// The byte cap of a chunk for a token `budget`: `max(budget, 1) × BYTES_PER_TOKEN`.
pub fn max_chunk_bytes(budget: usize) -> usize {
    budget.max(1).saturating_mul(BYTES_PER_TOKEN)
}

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

/// How a document is cut: the token budget of a chunk and whether a chunk opens with the
/// previous chunk's last sentence (`chunk_tokens`, `chunk_overlap`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunking {
    /// Most tokens in one chunk.
    pub budget: usize,
    /// One-sentence overlap between consecutive chunks (rule 3 of [`chunk`]).
    pub overlap: bool,
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
/// most `budget` tokens and at most [`max_chunk_bytes`]`(budget)` bytes.
///
/// Rule (deterministic):
/// 1. A sentence longer than the byte cap is split unread; otherwise
///    `count_tokens` is called once on it, and a sentence counted above
///    `budget` is split. Splitting cuts at whitespace into pieces, each the
///    longest run of words (from left to right) whose own count
///    (`count_tokens` on the piece text) is `<= budget` and whose length is
///    within the byte cap. A word longer than the cap is first cut into
///    cap-sized runs of characters; a word (or run) counted over budget is
///    cut the same way into runs of characters. Pieces are trimmed sub-spans
///    on char boundaries and are packed like sentences. Empty sentence spans
///    are skipped; invalid ones (out of bounds / not on char boundaries) are
///    skipped in release builds and trip a `debug_assert!` in debug builds.
/// 2. Greedy packing: a chunk takes units in order while the running sum of
///    counts stays `<= budget` and the span stays within the byte cap
///    (always at least one unit).
/// 3. Overlap (unless [`Chunking::overlap`] is off, in [`chunk_until`]): the next chunk
///    starts with the previous chunk's last unit if
///    the previous chunk had at least two units and that unit plus the next
///    new unit fit the budget and the cap together; otherwise it starts at
///    the next new unit. So every chunk adds at least one unit not seen before.
///
/// Headings get no special treatment: a heading that ends one chunk
/// becomes the overlap that opens the next, which keeps it with its body.
///
/// Guarantees: chunk starts strictly increase and ends never decrease;
/// consecutive chunks overlap or are separated only by what lies between
/// sentences; every sentence byte lies in some chunk; `tokens <= budget`
/// and the span is within the byte cap unless the chunk is one character
/// (which only a budget of 0 makes over budget); no sentences → no chunks.
/// `count_tokens` never sees more than twice the byte cap, so time is
/// O(n log n) in the text length whatever the input (about two counts per piece
/// when pieces are alike).
pub fn chunk(
    text: &str,
    sentences: &[Span],
    budget: usize,
    count_tokens: &dyn Fn(&str) -> usize,
) -> Vec<ChunkSpan> {
    let shape = Chunking {
        budget,
        overlap: true,
    };
    chunk_until(text, sentences, shape, count_tokens, &Deadline::never()).expect("no deadline")
}

/// [`chunk`] cut as `shape` says, giving up (`None`) once `deadline` has passed.
pub fn chunk_until(
    text: &str,
    sentences: &[Span],
    shape: Chunking,
    count_tokens: &dyn Fn(&str) -> usize,
    deadline: &Deadline,
) -> Option<Vec<ChunkSpan>> {
    let budget = shape.budget;
    let limits = Limits {
        budget,
        cap: max_chunk_bytes(budget),
        overlap: shape.overlap,
    };
    let mut units = Vec::with_capacity(sentences.len());
    for (idx, &span) in sentences.iter().enumerate() {
        if idx % 256 == 0 && deadline.expired() {
            return None;
        }
        let Some(s) = text.get(span.start..span.end) else {
            debug_assert!(false, "sentence span {span:?} invalid for text");
            continue;
        };
        if s.is_empty() {
            continue;
        }
        let tokens = if s.len() <= limits.cap {
            count_tokens(s)
        } else {
            usize::MAX
        };
        if tokens <= budget {
            units.push(Unit {
                span,
                sentence: idx,
                tokens,
            });
        } else {
            let words = words(text, span, limits.cap);
            let cut = Cutter {
                text,
                sentence: idx,
                limits,
                count_tokens,
                deadline,
            };
            cut.split(&words, true, &mut units)?;
        }
    }
    Some(pack(&units, limits))
}

/// The two bounds every chunk keeps.
#[derive(Debug, Clone, Copy)]
struct Limits {
    budget: usize,
    cap: usize,
    overlap: bool,
}

/// Cuts an over-budget sentence into pieces (see [`chunk`], rule 1).
struct Cutter<'a> {
    text: &'a str,
    sentence: usize,
    limits: Limits,
    count_tokens: &'a dyn Fn(&str) -> usize,
    deadline: &'a Deadline,
}

impl Cutter<'_> {
    /// Tokens of the text from `atoms[a]` to `atoms[b - 1]`, or `None` when it is
    /// longer than the byte cap (then it is not counted at all).
    fn count(&self, atoms: &[Span], a: usize, b: usize) -> Option<usize> {
        let (start, end) = (atoms[a].start, atoms[b - 1].end);
        (end - start <= self.limits.cap).then(|| (self.count_tokens)(&self.text[start..end]))
    }

    fn fits(&self, tokens: Option<usize>) -> bool {
        tokens.is_some_and(|t| t <= self.limits.budget)
    }

    /// Greedy left-to-right pieces over `atoms` (words when `words`, else characters):
    /// each piece is the longest run that fits; a word that does not fit alone is cut
    /// into characters, a character that does not fit alone is its own piece.
    /// `None` once the deadline has passed.
    fn split(&self, atoms: &[Span], words: bool, out: &mut Vec<Unit>) -> Option<()> {
        let n = atoms.len();
        let mut a = 0;
        let mut guess = 0;
        while a < n {
            if out.len().is_multiple_of(64) && self.deadline.expired() {
                return None;
            }
            let first = self.count(atoms, a, a + 1);
            if !self.fits(first) {
                if words {
                    self.split(&chars(self.text, atoms[a]), false, out)?;
                } else {
                    out.push(self.unit(atoms, a, a + 1, first.unwrap_or(usize::MAX)));
                }
                a += 1;
                continue;
            }
            let (lo, tokens) = self.longest(atoms, a, first.unwrap_or(0), guess);
            out.push(self.unit(atoms, a, lo, tokens));
            guess = lo - a;
            a = lo;
        }
        Some(())
    }

    /// Largest end `lo` with `atoms[a..lo]` fitting: probe `a + guess` (the previous
    /// piece's length, so runs of similar pieces cost about two counts each), gallop up
    /// from what fits, then bisect.
    fn longest(&self, atoms: &[Span], a: usize, first: usize, guess: usize) -> (usize, usize) {
        let n = atoms.len();
        let (mut lo, mut lo_tokens) = (a + 1, first);
        let mut hi = None;
        let probe = (a + guess).min(n);
        if probe > lo {
            let c = self.count(atoms, a, probe);
            if self.fits(c) {
                (lo, lo_tokens) = (probe, c.unwrap_or(0));
            } else {
                hi = Some(probe);
            }
        }
        let mut step = 1;
        while hi.is_none() && lo < n {
            let cand = (lo + step).min(n);
            let c = self.count(atoms, a, cand);
            if self.fits(c) {
                (lo, lo_tokens) = (cand, c.unwrap_or(0));
                step *= 2;
            } else {
                hi = Some(cand);
            }
        }
        if let Some(mut hi) = hi {
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                let c = self.count(atoms, a, mid);
                if self.fits(c) {
                    (lo, lo_tokens) = (mid, c.unwrap_or(0));
                } else {
                    hi = mid;
                }
            }
        }
        (lo, lo_tokens)
    }

    fn unit(&self, atoms: &[Span], a: usize, b: usize, tokens: usize) -> Unit {
        Unit {
            span: Span {
                start: atoms[a].start,
                end: atoms[b - 1].end,
            },
            sentence: self.sentence,
            tokens,
        }
    }
}

/// Maximal non-whitespace runs inside `span`, as absolute spans; a run longer than
/// `cap` bytes is cut into consecutive runs of at most `cap` bytes (on char boundaries,
/// at least one char each).
fn words(text: &str, span: Span, cap: usize) -> Vec<Span> {
    let mut out = Vec::new();
    let mut start = None;
    let push = |s: usize, e: usize, out: &mut Vec<Span>| {
        let mut s = s;
        while e - s > cap {
            let mut cut = s + cap;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            if cut == s {
                cut = s + text[s..].chars().next().map_or(1, char::len_utf8);
            }
            out.push(Span { start: s, end: cut });
            s = cut;
        }
        out.push(Span { start: s, end: e });
    };
    for (i, c) in text[span.start..span.end].char_indices() {
        let i = span.start + i;
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                push(s, i, &mut out);
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        push(s, span.end, &mut out);
    }
    out
}

/// Every character of `span` as its own span.
fn chars(text: &str, span: Span) -> Vec<Span> {
    text[span.start..span.end]
        .char_indices()
        .map(|(i, c)| Span {
            start: span.start + i,
            end: span.start + i + c.len_utf8(),
        })
        .collect()
}

/// Greedy packing with one-unit overlap unless `limits` turn it off (see [`chunk`]).
fn pack(units: &[Unit], limits: Limits) -> Vec<ChunkSpan> {
    let fits = |first: &Unit, last: &Unit, tokens: usize| {
        tokens <= limits.budget && last.span.end - first.span.start <= limits.cap
    };
    let mut out = Vec::new();
    let mut s = 0;
    while s < units.len() {
        let mut e = s;
        let mut sum = 0usize;
        while e < units.len()
            && (e == s || fits(&units[s], &units[e], sum.saturating_add(units[e].tokens)))
        {
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
        let pair = units[e - 1].tokens.saturating_add(units[e].tokens);
        let overlap_fits = fits(&units[e - 1], &units[e], pair);
        s = if limits.overlap && e - s >= 2 && overlap_fits {
            e - 1
        } else {
            e
        };
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
    fn without_overlap_chunks_tile_the_sentences() {
        let text = "A b. C d. E f. G h. I j.";
        let sents = sentences(text);
        let shape = Chunking {
            budget: 4,
            overlap: false,
        };
        let chunks = chunk_until(text, &sents, shape, &words_count, &Deadline::never()).unwrap();
        let ranges: Vec<_> = chunks.iter().map(|c| c.sentences.clone()).collect();
        assert_eq!(ranges, vec![0..2, 2..4, 4..5]);
        // With overlap the same text takes four chunks, each opening with the last sentence.
        assert_eq!(chunk(text, &sents, 4, &words_count).len(), 4);
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
    fn over_budget_word_is_cut_into_characters() {
        let text = "Short one. Supercalifragilistic";
        let chars = |s: &str| s.chars().count();
        let chunks = chunk(text, &sentences(text), 5, &chars);
        assert_eq!(
            texts(text, &chunks),
            ["Short", "one.", "Super", "calif", "ragil", "istic"]
        );
        assert!(chunks.iter().all(|c| c.tokens <= 5));
        assert_eq!(chunks[2].sentences, 1..2);
    }

    #[test]
    fn text_without_whitespace_respects_the_byte_cap_and_is_not_counted_whole() {
        // A tokenizer that sees a long word as one unknown token.
        let longest = Cell::new(0);
        let unk = |s: &str| {
            longest.set(longest.get().max(s.len()));
            s.split_whitespace().count()
        };
        let text = "é".repeat(5000) + "x";
        let chunks = chunk(&text, &sentences(&text), 10, &unk);
        let cap = max_chunk_bytes(10);
        assert!(longest.get() <= 2 * cap, "counted {} bytes", longest.get());
        assert!(chunks.len() >= text.len() / cap);
        for c in &chunks {
            assert!(c.span.len() <= cap && c.tokens <= 10, "{c:?}");
        }
        assert_eq!(chunks[0].span.start, 0);
        assert_eq!(chunks.last().unwrap().span.end, text.len());
        for w in chunks.windows(2) {
            assert!(w[1].span.start <= w[0].span.end, "chunks tile the run");
        }
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
        assert_eq!(texts(text, &chunks), ["A", "b", ".", "C", "d", "."]);
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
                c.tokens <= budget,
                "chunk {s:?} has {} > {budget} tokens",
                c.tokens
            );
            assert!(
                s.len() <= max_chunk_bytes(budget),
                "chunk {s:?} over the byte cap"
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

    /// A WordPiece-like counter: a word costs one token per 3 characters, but a word over
    /// 24 bytes is one unknown token (so counts are not monotonic in the text length).
    fn wordpiece_like(s: &str) -> usize {
        s.split_whitespace()
            .map(|w| {
                if w.len() > 24 {
                    1
                } else {
                    w.chars().count().div_ceil(3)
                }
            })
            .sum()
    }

    /// Invariants that hold for any counter: budget and byte cap kept, spans valid,
    /// trimmed, in order, and every non-whitespace character in some chunk.
    fn assert_budget_invariants(text: &str, chunks: &[ChunkSpan], budget: usize) {
        let mut covered = vec![false; text.len()];
        for (i, c) in chunks.iter().enumerate() {
            let s = text.get(c.span.start..c.span.end).expect("char boundaries");
            assert!(!s.is_empty() && s.trim() == s, "untrimmed {s:?}");
            assert!(c.tokens <= budget, "{s:?}: {} > {budget} tokens", c.tokens);
            assert!(
                s.len() <= max_chunk_bytes(budget),
                "{s:?} over the byte cap"
            );
            if i > 0 {
                assert!(c.span.start > chunks[i - 1].span.start);
                assert!(c.span.end >= chunks[i - 1].span.end);
            }
            covered[c.span.start..c.span.end]
                .iter_mut()
                .for_each(|b| *b = true);
        }
        for (i, ch) in text.char_indices() {
            assert!(
                ch.is_whitespace() || covered[i],
                "byte {i} ({ch:?}) not in any chunk"
            );
        }
    }

    /// Text with long runs without whitespace, long lines and few sentence ends.
    fn hostile() -> impl Strategy<Value = String> {
        let run = (
            prop::sample::select(&["a", "é", "日", "x.", "Ab. ", "-", "\u{200b}"][..]),
            0usize..400,
        )
            .prop_map(|(s, n)| s.repeat(n));
        prop::collection::vec((run, prop::sample::select(SEPARATORS)), 0..8).prop_map(|parts| {
            parts
                .into_iter()
                .flat_map(|(a, b)| [a, b.to_string()])
                .collect()
        })
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
        fn budget_holds_on_hostile_text(text in hostile(), budget in 1usize..40) {
            let sents = sentences(&text);
            let chunks = chunk(&text, &sents, budget, &wordpiece_like);
            assert_budget_invariants(&text, &chunks, budget);
            let chunks = chunk(&text, &sents, budget, &words_count);
            assert_chunk_invariants(&text, &sents, &chunks, budget);
        }

        #[test]
        fn budget_holds_on_arbitrary_text(text in any::<String>(), budget in 1usize..40) {
            let chunks = chunk(&text, &sentences(&text), budget, &wordpiece_like);
            assert_budget_invariants(&text, &chunks, budget);
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
