//! Sentence segmentation over stored document text.
//!
//! Every sentence is an exact byte [`Span`] of the text it came from, so a
//! quote is always `span.slice(text)`. Segmentation is rule based, linear in
//! the text length, and deterministic. See [`sentences`] for the rules.

use crate::lexicon::{self, Class};

/// A byte span `[start, end)` into a document's stored text.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct Span {
    /// First byte of the span (inclusive).
    pub start: usize,
    /// One past the last byte of the span (exclusive).
    pub end: usize,
}

impl Span {
    /// Creates the span `[start, end)`; `start <= end` is expected.
    pub fn new(start: usize, end: usize) -> Self {
        debug_assert!(start <= end, "span start {start} > end {end}");
        Span { start, end }
    }

    /// Length of the span in bytes (0 if `end <= start`).
    pub fn len(&self) -> usize {
        self.end.saturating_sub(self.start)
    }

    /// True when the span covers no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The text covered by the span.
    ///
    /// Panics if the span is out of bounds or not on char boundaries of
    /// `text` (i.e. if it was not made for this text).
    pub fn slice<'a>(&self, text: &'a str) -> &'a str {
        &text[self.start..self.end]
    }
}

// ---------------------------------------------------------------------------
// Character classes
// ---------------------------------------------------------------------------

/// Sentence-ending punctuation that needs following whitespace and a
/// sentence-starting character to split.
fn is_terminator(c: char) -> bool {
    matches!(c, '.' | '!' | '?' | '…')
}

/// CJK full-width sentence enders: split after them regardless of what
/// follows (these scripts do not put spaces between sentences).
fn is_cjk_terminator(c: char) -> bool {
    matches!(c, '。' | '！' | '？')
}

/// Characters that may trail a terminator and still belong to the sentence.
fn is_closer(c: char) -> bool {
    matches!(
        c,
        '"' | '\'' | '”' | '’' | ')' | ']' | '}' | '»' | '」' | '』' | '*' | '_' | '`'
    )
}

/// Characters that may open a token (stripped before abbreviation lookups).
fn is_opener(c: char) -> bool {
    matches!(
        c,
        '"' | '\'' | '“' | '‘' | '«' | '(' | '[' | '{' | '*' | '_' | '`'
    )
}

/// Characters other than letters/digits that can start a sentence.
fn is_sentence_opener(c: char) -> bool {
    matches!(
        c,
        '"' | '\''
            | '“'
            | '‘'
            | '«'
            | '('
            | '['
            | '{'
            | '¿'
            | '¡'
            | '§'
            | '¶'
            | '$'
            | '€'
            | '£'
            | '•'
    )
}

/// Whether the character at byte `n` can begin a new sentence: an uppercase
/// or caseless letter, a digit, an opening quote/bracket, `§`, or Markdown
/// emphasis (`*`, `_`, `` ` ``) followed by one of those.
fn can_start_sentence(text: &str, n: usize) -> bool {
    let mut chars = text[n..].chars();
    let Some(c) = chars.next() else {
        return true;
    };
    if starts_sentence_char(c) {
        return true;
    }
    if matches!(c, '*' | '_' | '`') {
        // Look past up to a few emphasis characters.
        for c2 in chars.take(4) {
            if matches!(c2, '*' | '_' | '`') {
                continue;
            }
            return starts_sentence_char(c2);
        }
    }
    false
}

fn starts_sentence_char(c: char) -> bool {
    (c.is_alphabetic() && !c.is_lowercase()) || c.is_numeric() || is_sentence_opener(c)
}

// ---------------------------------------------------------------------------
// Abbreviations
// ---------------------------------------------------------------------------

/// Whether a period never ends a sentence after `tok` (without its final `.`): an
/// abbreviation as written ([`Class::Abbreviation`]), or a month abbreviation or a name
/// suffix capitalised ("Jan", "Sept", "Inc").
fn is_listed_abbreviation(tok: &str) -> bool {
    if lexicon::is(Class::Abbreviation, tok) {
        return true;
    }
    let mut cs = tok.chars();
    let capitalised =
        cs.next().is_some_and(|c| c.is_ascii_uppercase()) && cs.all(|c| !c.is_ascii_uppercase());
    let lower = tok.to_ascii_lowercase();
    capitalised && lexicon::is_any(&[Class::MonthAbbreviation, Class::NameSuffix], &lower)
}

/// Words after which a bare number followed by `.` does not end a sentence
/// ("Section 5. The" is read as a reference, not a sentence end).
#[rustfmt::skip]
const REFERENCE_KEYWORDS: &[&str] = &[
    "§", "§§", "¶", "¶¶",
    "Section", "Sections", "section", "sections", "Sec.", "Secs.", "sec.",
    "Article", "Articles", "article", "articles", "Art.", "Arts.",
    "Chapter", "Chapters", "chapter", "chapters", "Ch.",
    "Part", "Parts", "part", "parts",
    "No.", "Nos.", "no.",
    "Paragraph", "Paragraphs", "paragraph", "paragraphs", "Para.", "para.",
    "Subsection", "Subsections", "subsection", "subsections",
];

/// Words that may join several numbers in one reference ("§§ 5.1 and 5.2").
const REFERENCE_CONNECTORS: &[&str] = &["and", "or", "to", "through", "&", "-", "–", "—"];

/// Longest token (bytes) examined as a possible abbreviation or reference.
const MAX_TOKEN: usize = 64;
/// Longest would-be sentence (bytes) examined as a bare list marker (`2.`, `(iv).`).
const MAX_MARKER_BYTES: usize = 32;
/// How many words back a reference keyword is searched for.
const MAX_REFERENCE_WORDS: usize = 6;

fn strip_openers(s: &str) -> &str {
    s.trim_start_matches(is_opener)
}

/// `X`, `U.S`, `J.R.R`: single uppercase letters separated by dots.
fn is_initials(tok: &str) -> bool {
    let mut expect_letter = true;
    let mut any = false;
    for c in tok.chars() {
        if expect_letter {
            if !(c.is_alphabetic() && c.is_uppercase()) {
                return false;
            }
            any = true;
        } else if c != '.' {
            return false;
        }
        expect_letter = !expect_letter;
    }
    any && !expect_letter
}

/// Upper- or lowercase Roman numeral shape of at most `max` letters.
fn is_roman(s: &str, max: usize) -> bool {
    !s.is_empty()
        && s.len() <= max
        && (s.bytes().all(|c| b"IVXLCDM".contains(&c))
            || s.bytes().all(|c| b"ivxlcdm".contains(&c)))
}

/// A reference number: starts with an ASCII digit ("5", "5.1",
/// "164.308(a)(1)") or is an uppercase Roman numeral ("IV").
fn is_number_like(s: &str) -> bool {
    s.as_bytes().first().is_some_and(u8::is_ascii_digit)
        || (is_roman(s, 7) && s.bytes().all(|c| c.is_ascii_uppercase()))
}

/// The last whitespace-delimited word of `text[lo..end]`, as a byte range,
/// or `None` if there is none or it would be longer than [`MAX_TOKEN`].
fn prev_word(text: &str, lo: usize, end: usize) -> Option<(usize, usize)> {
    let head = &text[lo..end];
    let trimmed = head.trim_end();
    if trimmed.is_empty() {
        return None;
    }
    let wend = lo + trimmed.len();
    let mut wstart = wend;
    for (i, c) in trimmed.char_indices().rev() {
        if c.is_whitespace() {
            break;
        }
        wstart = lo + i;
        if wend - wstart > MAX_TOKEN {
            return None;
        }
    }
    Some((wstart, wend))
}

/// Whether the single `.` at byte `dot` (followed by whitespace and then the
/// sentence-starting character at `next`) belongs to an abbreviation or a
/// reference number rather than ending the sentence that began at `lo`.
fn is_abbreviation(text: &str, lo: usize, dot: usize, next: usize) -> bool {
    // The token right before the dot.
    let mut tstart = dot;
    for (i, c) in text[lo..dot].char_indices().rev() {
        if c.is_whitespace() {
            break;
        }
        tstart = lo + i;
        if dot - tstart > MAX_TOKEN {
            return false;
        }
    }
    let tok = strip_openers(&text[tstart..dot]);
    if tok.is_empty() {
        return false;
    }
    if is_listed_abbreviation(tok) || is_initials(tok) {
        return true;
    }
    if lexicon::is(Class::AbbreviationBeforeNumber, tok) {
        // "No. 5", "Docket No. FAA-2020-0686": a number or an identifier with digits.
        let token = text[next..].split(char::is_whitespace).next().unwrap_or("");
        return token.chars().take(MAX_TOKEN).any(|c| c.is_ascii_digit());
    }
    if let Some(rest) = tok.strip_prefix(['§', '¶']) {
        // "§5." / "§ 5." glued forms
        let rest = rest.trim_start_matches(['§', '¶']);
        if rest.as_bytes().first().is_some_and(u8::is_ascii_digit) {
            return true;
        }
    }
    if is_number_like(tok) {
        // Walk back over numbers and connectors looking for a keyword.
        let mut end = tstart;
        for _ in 0..MAX_REFERENCE_WORDS {
            let Some((ws, we)) = prev_word(text, lo, end) else {
                return false;
            };
            let word = strip_openers(&text[ws..we]);
            if REFERENCE_KEYWORDS.contains(&word) {
                return true;
            }
            if word.ends_with(':') && end == tstart {
                // "Steps: 1. Open the box" — an inline enumeration.
                return true;
            }
            let bare = word.trim_end_matches([',', ';']);
            if !(REFERENCE_CONNECTORS.contains(&bare) || is_number_like(bare)) {
                return false;
            }
            end = ws;
        }
    }
    false
}

// ---------------------------------------------------------------------------
// List markers and line kinds
// ---------------------------------------------------------------------------

/// If `s` (a trimmed line start) begins with a list marker followed by
/// whitespace or end of line, the marker's length in bytes.
///
/// Markers: `-`, `*`, `+`, `•`, `◦`, `▪`, `‣`; `1.`, `1.2.`, `1)` (1–3
/// digits per level); `(a)`, `(1)`, `(iv)` and chains like `(1)(i)`; `a)`.
fn list_marker_len(s: &str) -> Option<usize> {
    let len = marker_prefix_len(s)?;
    match s[len..].chars().next() {
        None => Some(len),
        Some(c) if c.is_whitespace() && !area_code(&s[..len], &s[len..]) => Some(len),
        _ => None,
    }
}

/// Whether `marker` is a telephone number's area code: `(212)` before `867-5309`.
pub(crate) fn area_code(marker: &str, rest: &str) -> bool {
    let digits = |t: &str| t.len() == 3 && t.bytes().all(|c| c.is_ascii_digit());
    let local = rest.trim_start().as_bytes();
    marker
        .strip_prefix('(')
        .and_then(|m| m.strip_suffix(')'))
        .is_some_and(digits)
        && local.len() >= 8
        && local[..3].iter().all(u8::is_ascii_digit)
        && matches!(local[3], b'-' | b'.')
        && local[4..8].iter().all(u8::is_ascii_digit)
        && local.get(8).is_none_or(|c| !c.is_ascii_digit())
}

/// Length of a list-marker-shaped prefix of `s` (without the whitespace
/// check).
fn marker_prefix_len(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let first = s.chars().next()?;
    if matches!(first, '-' | '*' | '+' | '•' | '◦' | '▪' | '‣') {
        return Some(first.len_utf8());
    }
    if b[0].is_ascii_digit() {
        // digits{1,3} ( '.' digits{1,3} )* ( '.' | ')' )
        let mut i = 0;
        loop {
            let run = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
            if run == 0 || run > 3 {
                return None;
            }
            i += run;
            match b.get(i) {
                Some(b')') => return Some(i + 1),
                Some(b'.') => {
                    i += 1;
                    if !b.get(i).is_some_and(u8::is_ascii_digit) {
                        return Some(i);
                    }
                }
                _ => return None,
            }
        }
    }
    if b[0] == b'(' {
        // One or more chained parenthesised markers: "(a)", "(1)(i)".
        let mut len = 0;
        while let Some(l) = paren_marker_len(&s[len..]) {
            len += l;
        }
        return (len > 0).then_some(len);
    }
    if b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b')' {
        return Some(2);
    }
    None
}

/// Length of a `(x)` marker at the start of `s`: 1–3 digits, one ASCII
/// letter, or a Roman numeral of up to 4 letters.
fn paren_marker_len(s: &str) -> Option<usize> {
    let inner_and_rest = s.strip_prefix('(')?;
    let close = inner_and_rest.find(')')?;
    let inner = &inner_and_rest[..close];
    let ok = (!inner.is_empty() && inner.len() <= 3 && inner.bytes().all(|c| c.is_ascii_digit()))
        || (inner.len() == 1 && inner.bytes().all(|c| c.is_ascii_alphabetic()))
        || is_roman(inner, 4);
    ok.then_some(close + 2)
}

/// Whether a whole would-be sentence is nothing but list markers with a
/// terminator (e.g. `2.`, `(a).`, `- 1.`), which must not stand alone.
fn is_marker_only(s: &str) -> bool {
    let mut rest = s;
    while let Some(len) = list_marker_len(rest) {
        rest = rest[len..].trim_start();
        if rest.is_empty() {
            return true;
        }
    }
    let core = rest.trim_end_matches(is_terminator);
    if core.is_empty() {
        return false;
    }
    marker_prefix_len(core) == Some(core.len())
        || (core.len() <= 3 && core.bytes().all(|c| c.is_ascii_digit()))
        || (core.chars().count() == 1 && core.chars().all(char::is_alphabetic))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LineKind {
    Blank,
    /// Heading, table row or horizontal rule: always exactly one sentence.
    Single,
    /// Starts with a list marker of the given byte length.
    ListItem(usize),
    Text,
}

fn is_heading(t: &str) -> bool {
    let hashes = t.bytes().take_while(|&c| c == b'#').count();
    (1..=6).contains(&hashes) && t[hashes..].chars().next().is_none_or(|c| c.is_whitespace())
}

fn is_rule(t: &str) -> bool {
    let mut chars = t.chars().filter(|c| !c.is_whitespace());
    let Some(first) = chars.next() else {
        return false;
    };
    if !matches!(first, '-' | '*' | '_' | '=') {
        return false;
    }
    let mut n = 1;
    for c in chars {
        if c != first {
            return false;
        }
        n += 1;
    }
    n >= 3
}

fn classify(trimmed: &str) -> LineKind {
    if trimmed.is_empty() {
        LineKind::Blank
    } else if is_heading(trimmed) || trimmed.starts_with('|') || is_rule(trimmed) {
        LineKind::Single
    } else if let Some(len) = list_marker_len(trimmed) {
        LineKind::ListItem(len)
    } else {
        LineKind::Text
    }
}

// ---------------------------------------------------------------------------
// Segmentation
// ---------------------------------------------------------------------------

/// A run of lines segmented together; `start..end` is trimmed.
#[derive(Debug, Clone, Copy)]
struct Block {
    start: usize,
    end: usize,
    /// Where terminator scanning begins (after a leading list marker).
    scan_from: usize,
    single: bool,
}

/// Splits `text` into sentence spans.
///
/// Guarantees, for any input: spans are non-empty, on char boundaries,
/// trimmed (first and last char are not whitespace), sorted and
/// non-overlapping, and every non-whitespace byte of `text` lies in exactly
/// one span. Output depends only on `text`. Runs in linear time.
///
/// Rules:
/// * Lines (split on `\n`) are grouped into blocks. A blank line ends a
///   block. A Markdown heading (`#`..`######` + space), a table row (starts
///   with `|`) or a horizontal rule (`---`, `***`, `___`, `===`) is a
///   sentence on its own, never split inside. A line starting with a list
///   marker (`-`, `*`, `+`, `•`, `1.`, `1.2.`, `2)`, `(a)`, `(iv)`,
///   `(1)(i)`, `a)`; then whitespace) starts a new block; the marker
///   belongs to the sentence after it. Other lines continue the current
///   block (wrapped text). Lines are trimmed with Unicode whitespace, so
///   `\r\n` and indentation are fine.
/// * Inside a block, a sentence ends after `.`, `!`, `?`, `…` (a run of
///   them, plus trailing closers `"'”’)]}»*_`) when followed by whitespace
///   and then an uppercase/caseless letter, a digit, an opening
///   quote/bracket, `§`/`¶`, or Markdown emphasis before one of those.
///   Lowercase or punctuation continuations never split. `。！？` (plus
///   closers) always split, with or without following whitespace.
/// * A single `.` does not split after: known abbreviations (titles,
///   `e.g.`, `i.e.`, `vs.`, `cf.`, `al.`, `approx.`, `Inc.`, `Ltd.`, `Co.`,
///   `Sec.`, `Art.`, `Ch.`, `Fig.`, `Vol.`, `pp.`, `p.`, months, …);
///   `No.`/`Nos.` before a digit; initials and dotted capitals (`J.`,
///   `U.S.`, `J.R.R.`); `§5.`; a number (`5`, `5.1`, `IV`) preceded — possibly
///   through other numbers and `and`/`or`/`to`/`through` — by `§`, `§§`,
///   `¶`, `Section`, `Sec.`, `Article`, `Art.`, `Chapter`, `Ch.`, `Part`,
///   `No.`, `Nos.`, `paragraph`, `para.`, `subsection` (any listed case or
///   plural); a number right after a word ending in `:`.
/// * A would-be sentence consisting only of a list marker (`2.`, `(a).`)
///   is not split off; it joins the following sentence.
/// * A bullet `•` between whitespace inside a line starts a sentence (a form
///   laid out in columns prints its items on one line).
pub fn sentences(text: &str) -> Vec<Span> {
    let mut out = Vec::new();
    for block in blocks(text) {
        if block.single {
            out.push(Span::new(block.start, block.end));
        } else {
            split_block(text, block, &mut out);
        }
    }
    out
}

fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut cur: Option<Block> = None;
    // Whether blank lines followed the current block.
    let mut blank = false;
    let mut line_start = 0;
    while line_start <= text.len() {
        let line_end = text[line_start..]
            .find('\n')
            .map_or(text.len(), |i| line_start + i);
        let line = &text[line_start..line_end];
        let lead = line.len() - line.trim_start().len();
        let trimmed = line.trim();
        let start = line_start + lead;
        let end = start + trimmed.len();
        let kind = classify(trimmed);
        // A blank line inside a sentence (a PDF that spaced two lines of one paragraph:
        // "if that job pays" / "weekly, enter 52") does not end it.
        if kind == LineKind::Text && blank && cur.is_some_and(|b| continues(text, b.end, trimmed)) {
            blank = false;
            if let Some(b) = cur.as_mut() {
                b.end = end;
            }
            line_start = line_end + 1;
            continue;
        }
        if kind != LineKind::Blank && blank {
            out.extend(cur.take());
        }
        blank = kind == LineKind::Blank;
        match kind {
            LineKind::Blank => {}
            LineKind::Single => {
                out.extend(cur.take());
                out.push(Block {
                    start,
                    end,
                    scan_from: end,
                    single: true,
                });
            }
            LineKind::ListItem(len) => {
                out.extend(cur.take());
                cur = Some(Block {
                    start,
                    end,
                    scan_from: start + len,
                    single: false,
                });
            }
            LineKind::Text => match cur.as_mut() {
                Some(b) => b.end = end,
                None => {
                    cur = Some(Block {
                        start,
                        end,
                        scan_from: start,
                        single: false,
                    })
                }
            },
        }
        line_start = line_end + 1;
    }
    out.extend(cur);
    out
}

/// Whether a line `next` after a blank line continues the block ending at byte `end`:
/// the block stops mid-sentence (a letter, a comma or a hyphen) and the line goes on in
/// lower case, or a hyphenated number goes on in digits ("law 113-" / "274 on …").
fn continues(text: &str, end: usize, next: &str) -> bool {
    let Some(last) = text[..end].chars().next_back() else {
        return false;
    };
    let Some(first) = next.chars().next() else {
        return false;
    };
    (first.is_lowercase() && (last.is_alphanumeric() || matches!(last, ',' | '-' | '–')))
        || (first.is_ascii_digit() && last == '-' && {
            let before = text[..end - 1].chars().next_back();
            before.is_some_and(|c| c.is_ascii_digit())
        })
}

fn char_at(text: &str, i: usize) -> Option<char> {
    text[i..].chars().next()
}

/// Index of the first non-whitespace byte at or after `i` (or `limit`).
fn skip_ws(text: &str, mut i: usize, limit: usize) -> usize {
    while i < limit {
        let c = char_at(text, i).expect("i < limit <= len");
        if !c.is_whitespace() {
            break;
        }
        i += c.len_utf8();
    }
    i
}

/// Bytes of a footnote marker right after a sentence's terminator at `k` (the terminator
/// run starts at `dot`), which belongs to the sentence it ends: `^2` as HTML superscripts
/// are stored, or up to three digits after `word.` in PDF text (`President.2 The`: a
/// lower-case letter before the period, a space and a capital after the digits).
fn footnote_mark_len(text: &str, dot: usize, k: usize, end: usize) -> usize {
    let rest = &text[k..end];
    let caret = rest.starts_with('^');
    let body = &rest[usize::from(caret)..];
    let n = body.bytes().take_while(u8::is_ascii_digit).count();
    if n == 0 || n > 3 {
        return 0;
    }
    let after = &body[n..];
    let spaced = after.starts_with(char::is_whitespace);
    if caret {
        return if spaced || after.is_empty() { n + 1 } else { 0 };
    }
    let word: String = text[..dot]
        .chars()
        .rev()
        .take_while(|c| c.is_alphabetic())
        .collect();
    let capital = after.trim_start().starts_with(char::is_uppercase);
    let lower_end = word.chars().next().is_some_and(char::is_lowercase);
    let word: String = word.chars().rev().collect::<String>().to_lowercase();
    let numbering = lexicon::is(Class::NumberingAbbreviation, &word);
    if spaced && capital && lower_end && !numbering && word.chars().count() >= 3 {
        n
    } else {
        0
    }
}

/// Whether the bullet at byte `i` stands between whitespace inside a line, after text of
/// the sentence that starts at `sent_start` and before text up to `end`.
fn inline_bullet(text: &str, sent_start: usize, i: usize, end: usize) -> bool {
    let before = &text[sent_start..i];
    let after = &text[i + '•'.len_utf8()..end];
    before.ends_with([' ', '\t'])
        && !before.trim().is_empty()
        && after.starts_with([' ', '\t'])
        && !after.trim().is_empty()
}

fn split_block(text: &str, block: Block, out: &mut Vec<Span>) {
    let end = block.end;
    let mut sent_start = block.start;
    let mut i = block.scan_from;
    while i < end {
        let c = char_at(text, i).expect("in bounds");
        // A bullet inside a line starts an item of its own ("2 Enter: • $22,500 if
        // you're head of household • $15,000 if …" of a form laid out in columns).
        if c == '•' && inline_bullet(text, sent_start, i, end) {
            let before = text[sent_start..i].trim_end().len();
            out.push(Span::new(sent_start, sent_start + before));
            sent_start = i;
            i += c.len_utf8();
            continue;
        }
        let cjk = is_cjk_terminator(c);
        if !cjk && !is_terminator(c) {
            i += c.len_utf8();
            continue;
        }
        // Run of terminators, then closers.
        let run_start = i;
        let mut j = i;
        while j < end {
            let d = char_at(text, j).expect("in bounds");
            if is_terminator(d) || is_cjk_terminator(d) {
                j += d.len_utf8();
            } else {
                break;
            }
        }
        let single_dot = j == run_start + 1 && c == '.';
        let mut k = j;
        while k < end {
            let d = char_at(text, k).expect("in bounds");
            if is_closer(d) {
                k += d.len_utf8();
            } else {
                break;
            }
        }
        k += footnote_mark_len(text, run_start, k, end);
        if k >= end {
            break;
        }
        let after = char_at(text, k).expect("in bounds");
        if !cjk && !after.is_whitespace() {
            i = k;
            continue;
        }
        let next = skip_ws(text, k, end);
        if next >= end {
            break;
        }
        let keep_going = !cjk
            && (!can_start_sentence(text, next)
                || (single_dot && is_abbreviation(text, sent_start, run_start, next)));
        // A marker-only sentence is short; the bound keeps "1. 2. 3. …" runs linear.
        let marker_only =
            k - sent_start <= MAX_MARKER_BYTES && is_marker_only(&text[sent_start..k]);
        if keep_going || marker_only {
            i = next;
            continue;
        }
        out.push(Span::new(sent_start, k));
        sent_start = next;
        i = next;
    }
    if sent_start < end {
        out.push(Span::new(sent_start, end));
    }
}

// ---------------------------------------------------------------------------
// Line numbers
// ---------------------------------------------------------------------------

/// 1-based first and last line numbers of `span` in `text`.
///
/// The last line is the line holding the span's last byte, so a span that
/// ends right after a `\n` counts that newline's line. An empty span reports
/// the line of its start twice. Offsets past the end of `text` are clamped.
/// Linear in the span's end; build a [`LineIndex`] for repeated queries.
pub fn line_range(text: &str, span: Span) -> (usize, usize) {
    let bytes = text.as_bytes();
    let start = span.start.min(bytes.len());
    let last = span.end.min(bytes.len()).saturating_sub(1).max(start);
    let count = |s: &[u8]| s.iter().filter(|&&b| b == b'\n').count();
    let first = 1 + count(&bytes[..start]);
    if span.is_empty() {
        return (first, first);
    }
    (first, first + count(&bytes[start..last]))
}

/// Newline offsets of one text, for O(log n) byte → line lookups.
///
/// Results agree with [`line_range`].
#[derive(Debug, Clone, Default)]
pub struct LineIndex {
    newlines: Vec<usize>,
    len: usize,
}

impl LineIndex {
    /// Indexes the newlines of `text` (linear time).
    pub fn new(text: &str) -> Self {
        let newlines = text
            .bytes()
            .enumerate()
            .filter_map(|(i, b)| (b == b'\n').then_some(i))
            .collect();
        LineIndex {
            newlines,
            len: text.len(),
        }
    }

    /// 1-based line number of the line holding byte `byte` (a `\n` belongs to
    /// the line it ends). Offsets past the end are clamped to the text length.
    pub fn line_of(&self, byte: usize) -> usize {
        let byte = byte.min(self.len);
        1 + self.newlines.partition_point(|&nl| nl < byte)
    }

    /// 1-based first and last line numbers of `span`; same as [`line_range`].
    pub fn range(&self, span: Span) -> (usize, usize) {
        let start = span.start.min(self.len);
        let first = self.line_of(start);
        if span.is_empty() {
            return (first, first);
        }
        let last = span.end.min(self.len).saturating_sub(1).max(start);
        (first, self.line_of(last))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sents(text: &str) -> Vec<&str> {
        sentences(text).iter().map(|s| s.slice(text)).collect()
    }

    #[track_caller]
    fn check(text: &str, expected: &[&str]) {
        assert_eq!(sents(text), expected, "text: {text:?}");
    }

    /// Asserts the segmentation invariants for `text`.
    fn assert_invariants(text: &str, spans: &[Span]) {
        let mut owner = vec![0u32; text.len()];
        let mut prev_end = 0;
        for s in spans {
            assert!(s.start < s.end, "empty span {s:?}");
            assert!(s.start >= prev_end, "unsorted/overlapping {s:?}");
            prev_end = s.end;
            let slice = text.get(s.start..s.end).expect("char boundaries");
            let first = slice.chars().next().unwrap();
            let last = slice.chars().next_back().unwrap();
            assert!(
                !first.is_whitespace() && !last.is_whitespace(),
                "untrimmed {slice:?}"
            );
            for o in &mut owner[s.start..s.end] {
                *o += 1;
            }
        }
        for (i, c) in text.char_indices() {
            if !c.is_whitespace() {
                assert_eq!(owner[i], 1, "byte {i} ({c:?}) covered {} times", owner[i]);
            }
        }
    }

    #[test]
    fn a_long_run_of_list_markers_segments_in_linear_time() {
        // Each would-be sentence is a bare marker; checking them from the block start
        // each time was quadratic (minutes on this input).
        let text = "1. ".repeat(300_000);
        let spans = sentences(&text);
        assert_invariants(&text, &spans);
        assert!(
            spans.iter().all(|s| s.len() <= 2 * MAX_MARKER_BYTES),
            "{}",
            spans.len()
        );
    }

    // --- basic splitting -------------------------------------------------

    #[test]
    fn splits_on_terminators() {
        check(
            "Hello world. This is a test! Is it? Yes.",
            &["Hello world.", "This is a test!", "Is it?", "Yes."],
        );
    }

    #[test]
    fn empty_and_whitespace() {
        assert!(sentences("").is_empty());
        assert!(sentences(" \n\t\r\n  ").is_empty());
        check("  Done.  ", &["Done."]);
        check("no punctuation at all", &["no punctuation at all"]);
    }

    #[test]
    fn lowercase_continuation_does_not_split() {
        check(
            "He said no. but then he left.",
            &["He said no. but then he left."],
        );
        check("Really? yes, really.", &["Really? yes, really."]);
        check("Stop. , and go.", &["Stop. , and go."]);
    }

    #[test]
    fn closing_quotes_and_brackets() {
        check(
            "He said \"Stop.\" Then he left.",
            &["He said \"Stop.\"", "Then he left."],
        );
        check("(This is it.) Next one.", &["(This is it.)", "Next one."]);
        check(
            "She wrote “Go.” Then left. ‘Fine.’ Okay.",
            &["She wrote “Go.”", "Then left.", "‘Fine.’", "Okay."],
        );
        check("**Note.** The end.", &["**Note.**", "The end."]);
        check("\"Why?\" he asked.", &["\"Why?\" he asked."]);
    }

    #[test]
    fn sentence_starters() {
        check("One. 2 is a number.", &["One.", "2 is a number."]);
        check("One. \"Two.\"", &["One.", "\"Two.\""]);
        check("One. (Two.)", &["One.", "(Two.)"]);
        check("One. § 3 applies.", &["One.", "§ 3 applies."]);
        check("One. *Two* is bold.", &["One.", "*Two* is bold."]);
        check("One. Élan is French.", &["One.", "Élan is French."]);
    }

    #[test]
    fn cjk_terminators() {
        check("你好。世界！好吗？", &["你好。", "世界！", "好吗？"]);
    }

    // --- abbreviations ---------------------------------------------------

    #[test]
    fn titles() {
        check(
            "Dr. Smith met Mr. Jones and Mrs. Brown. They talked with Prof. Lee.",
            &[
                "Dr. Smith met Mr. Jones and Mrs. Brown.",
                "They talked with Prof. Lee.",
            ],
        );
        check(
            "Ms. Wu lives on St. James St. Paul Jr. came.",
            &["Ms. Wu lives on St. James St. Paul Jr. came."],
        );
    }

    #[test]
    fn latin_abbreviations() {
        check(
            "Use fruit, e.g. Apples or pears. Also i.e. Bananas.",
            &["Use fruit, e.g. Apples or pears.", "Also i.e. Bananas."],
        );
        check(
            "Red, blue, etc. are colors.",
            &["Red, blue, etc. are colors."],
        );
        check("Red, blue, etc. The end.", &["Red, blue, etc.", "The end."]);
        check(
            "Smith vs. Jones was decided.",
            &["Smith vs. Jones was decided."],
        );
        check(
            "See Smith et al. The study.",
            &["See Smith et al. The study."],
        );
        check("Compare cf. Jones. Done.", &["Compare cf. Jones.", "Done."]);
        check("It took approx. 5 hours.", &["It took approx. 5 hours."]);
    }

    #[test]
    fn organisation_and_reference_abbreviations() {
        check("Acme Inc. The firm grew.", &["Acme Inc. The firm grew."]);
        check(
            "Acme Ltd. And Foo Co. Merged.",
            &["Acme Ltd. And Foo Co. Merged."],
        );
        check("See No. 5 and Nos. 6-7.", &["See No. 5 and Nos. 6-7."]);
        check(
            "Did he? No. He did not.",
            &["Did he?", "No.", "He did not."],
        );
        check(
            "See Sec. 4, Art. 2, Ch. 3, Fig. 7, Vol. 2, pp. 10-12, p. 4.",
            &["See Sec. 4, Art. 2, Ch. 3, Fig. 7, Vol. 2, pp. 10-12, p. 4."],
        );
        check("Secs. 4 and 5 apply.", &["Secs. 4 and 5 apply."]);
        check(
            "The U.S. Army and U.K. Navy met.",
            &["The U.S. Army and U.K. Navy met."],
        );
        check(
            "On Jan. 5 and Dec. 6 it rained.",
            &["On Jan. 5 and Dec. 6 it rained."],
        );
    }

    #[test]
    fn initials() {
        check(
            "J. Smith wrote it. J.R.R. Tolkien too.",
            &["J. Smith wrote it.", "J.R.R. Tolkien too."],
        );
    }

    #[test]
    fn section_references() {
        check(
            "See § 5.1 for details. Next.",
            &["See § 5.1 for details.", "Next."],
        );
        check(
            "See §§ 5.1 and 5.2. The rest.",
            &["See §§ 5.1 and 5.2. The rest."],
        );
        check(
            "Under §5. The county acts.",
            &["Under §5. The county acts."],
        );
        check(
            "See Section 5. The county acts.",
            &["See Section 5. The county acts."],
        );
        check(
            "See Sec. 12. The county acts.",
            &["See Sec. 12. The county acts."],
        );
        check(
            "Under Article 3. Members vote.",
            &["Under Article 3. Members vote."],
        );
        check("Read Chapter IV. The end.", &["Read Chapter IV. The end."]);
        check("Read Part 2. The end.", &["Read Part 2. The end."]);
        check("In paragraph 4. The end.", &["In paragraph 4. The end."]);
        check("In subsection 3. A rule.", &["In subsection 3. A rule."]);
        check("Item No. 7. The end.", &["Item No. 7. The end."]);
        check(
            "Sections 3, 4 and 5. The end.",
            &["Sections 3, 4 and 5. The end."],
        );
        check(
            "He was born in 1990. The war ended.",
            &["He was born in 1990.", "The war ended."],
        );
    }

    // --- numbers, urls, ellipses ----------------------------------------

    #[test]
    fn decimals_versions_urls_emails() {
        check(
            "The rate is 3.5 percent. See 164.308(a)(1) now. Then stop.",
            &[
                "The rate is 3.5 percent.",
                "See 164.308(a)(1) now.",
                "Then stop.",
            ],
        );
        check(
            "See 45 CFR 164.308(a)(1). The rule.",
            &["See 45 CFR 164.308(a)(1).", "The rule."],
        );
        check(
            "Visit https://example.com/a.b.html today. Email john.doe@example.com for info. Bye.",
            &[
                "Visit https://example.com/a.b.html today.",
                "Email john.doe@example.com for info.",
                "Bye.",
            ],
        );
        check(
            "Version 1.2.3 is out. Yes.",
            &["Version 1.2.3 is out.", "Yes."],
        );
    }

    #[test]
    fn footnote_markers_stay_with_the_sentence_they_end() {
        check(
            "It was signed by the President.2 The bill then passed.",
            &["It was signed by the President.2", "The bill then passed."],
        );
        check(
            "It was signed by the President.^2 The bill then passed.",
            &["It was signed by the President.^2", "The bill then passed."],
        );
        check(
            "Growth was 5.2 The rest was flat.",
            &["Growth was 5.2 The rest was flat."],
        );
        check("See para.2 Then stop.", &["See para.2 Then stop."]);
    }

    #[test]
    fn ellipses() {
        check(
            "Wait... what happened? Nothing... Then it rained.",
            &["Wait... what happened?", "Nothing...", "Then it rained."],
        );
        check("So… maybe not.", &["So… maybe not."]);
    }

    // --- clauses and list markers ---------------------------------------

    #[test]
    fn inline_numbered_clauses() {
        check(
            "(1) The county shall act; (2) The city shall pay.",
            &["(1) The county shall act; (2) The city shall pay."],
        );
        check(
            "(1) The county shall act. (2) The city shall pay.",
            &["(1) The county shall act.", "(2) The city shall pay."],
        );
        check("Do this. 2. Then that.", &["Do this.", "2. Then that."]);
        check(
            "Steps: 1. Open it. 2. Close it.",
            &["Steps: 1. Open it.", "2. Close it."],
        );
    }

    #[test]
    fn list_markers_start_sentences() {
        check(
            "1. Counties shall act.\n2. Cities shall pay.",
            &["1. Counties shall act.", "2. Cities shall pay."],
        );
        check(
            "Intro:\n- first item\n- second item",
            &["Intro:", "- first item", "- second item"],
        );
        check(
            "(a) first\n(b) second\n(iv) third\n(1)(i) fourth\n(12) fifth",
            &[
                "(a) first",
                "(b) second",
                "(iv) third",
                "(1)(i) fourth",
                "(12) fifth",
            ],
        );
        // Parenthesised words at line start are not markers.
        check(
            "wrapped\n(see) text\n(abcd) more",
            &["wrapped\n(see) text\n(abcd) more"],
        );
        check(
            "2) foo\n* bar\n+ baz\n• qux",
            &["2) foo", "* bar", "+ baz", "• qux"],
        );
        // A bullet inside a line starts an item; one glued to a word does not.
        check(
            "2 Enter: • $22,500 if head of household • $15,000 if single",
            &[
                "2 Enter:",
                "• $22,500 if head of household",
                "• $15,000 if single",
            ],
        );
        check("a•b and c •", &["a•b and c •"]);
        // An area code at line start is part of the number, not a marker.
        check(
            "Call\n(212) 867-5309 now.\n(212) items",
            &["Call\n(212) 867-5309 now.", "(212) items"],
        );
        check("a) alpha\nb) beta", &["a) alpha", "b) beta"]);
        check(
            "1.2. Scope of work\n1.3. Terms",
            &["1.2. Scope of work", "1.3. Terms"],
        );
        check(
            "- item that\n  continues here. And more\n- next",
            &["- item that\n  continues here.", "And more", "- next"],
        );
    }

    #[test]
    fn marker_never_alone() {
        check("1. Counties shall act.", &["1. Counties shall act."]);
        check("1.\nCounties shall act.", &["1.\nCounties shall act."]);
        check("- 1. Counties shall act.", &["- 1. Counties shall act."]);
        check("Text. (a). Next.", &["Text.", "(a). Next."]);
    }

    // --- layout ----------------------------------------------------------

    #[test]
    fn a_blank_line_inside_a_sentence_does_not_end_it() {
        check(
            "For example, if that job pays\n\nweekly, enter 52. Next one.",
            &[
                "For example, if that job pays\n\nweekly, enter 52.",
                "Next one.",
            ],
        );
        check(
            "became public law 113-\n\n274 on December 18, 2014.",
            &["became public law 113-\n\n274 on December 18, 2014."],
        );
        // A finished sentence, a heading or a capital after the blank line still ends it.
        check("Ends here.\n\nand then", &["Ends here.", "and then"]);
        check(
            "Scope of work\n\nThe county",
            &["Scope of work", "The county"],
        );
        check("Figure 3\n\n2019 totals", &["Figure 3", "2019 totals"]);
    }

    #[test]
    fn number_abbreviations_before_identifiers() {
        check(
            "Include Docket No. FAA-2020-0686 in comments. Then stop.",
            &[
                "Include Docket No. FAA-2020-0686 in comments.",
                "Then stop.",
            ],
        );
        check(
            "Did he? No. He did not.",
            &["Did he?", "No.", "He did not."],
        );
        check(
            "Cat. No. 10231X Form W-9 (Rev. 3-2024). Pub. L. No. 116-283, 134 Stat. 3388 (2021). Next.",
            &[
                "Cat. No. 10231X Form W-9 (Rev. 3-2024).",
                "Pub. L. No. 116-283, 134 Stat. 3388 (2021).",
                "Next.",
            ],
        );
    }

    #[test]
    fn blank_lines_end_sentences() {
        check(
            "First para without period\n\nSecond para\n \t\nThird",
            &["First para without period", "Second para", "Third"],
        );
        check("A line\r\n\r\nB line", &["A line", "B line"]);
    }

    #[test]
    fn wrapped_lines_do_not_split() {
        check(
            "This sentence is\nwrapped across lines. Next one\nalso wraps.",
            &[
                "This sentence is\nwrapped across lines.",
                "Next one\nalso wraps.",
            ],
        );
    }

    #[test]
    fn headings() {
        check(
            "# Title\nSome text. More text.\n## Sub. Heading\nBody",
            &[
                "# Title",
                "Some text.",
                "More text.",
                "## Sub. Heading",
                "Body",
            ],
        );
        check("text\n###### Six\nmore", &["text", "###### Six", "more"]);
        check(
            "#hashtag is text\n####### seven",
            &["#hashtag is text\n####### seven"],
        );
        check("  ## Indented\nBody", &["## Indented", "Body"]);
    }

    #[test]
    fn tables_and_rules() {
        check(
            "Intro\n| a | b |\n|---|---|\n| 1. X | 2 |\nAfter",
            &["Intro", "| a | b |", "|---|---|", "| 1. X | 2 |", "After"],
        );
        check(
            "Text one\n---\nText two\n***\n___\n- - -",
            &["Text one", "---", "Text two", "***", "___", "- - -"],
        );
        check("Title\n=====\nBody", &["Title", "=====", "Body"]);
    }

    #[test]
    fn long_sentence_is_kept() {
        let text = "word ".repeat(10_000);
        assert_eq!(sentences(&text), vec![Span::new(0, text.len() - 1)]);
    }

    // --- line numbers ----------------------------------------------------

    #[test]
    fn line_numbers() {
        let text = "ab\ncd\n\nef";
        assert_eq!(line_range(text, Span::new(0, 2)), (1, 1));
        assert_eq!(line_range(text, Span::new(0, 3)), (1, 1)); // ends after "\n"
        assert_eq!(line_range(text, Span::new(0, 4)), (1, 2));
        assert_eq!(line_range(text, Span::new(3, 5)), (2, 2));
        assert_eq!(line_range(text, Span::new(7, 9)), (4, 4));
        assert_eq!(line_range(text, Span::new(6, 6)), (3, 3));
        assert_eq!(line_range(text, Span::new(0, 100)), (1, 4));
        let idx = LineIndex::new(text);
        assert_eq!(idx.line_of(0), 1);
        assert_eq!(idx.line_of(2), 1);
        assert_eq!(idx.line_of(3), 2);
        assert_eq!(idx.line_of(6), 3);
        assert_eq!(idx.line_of(9), 4);
        assert_eq!(idx.range(Span::new(0, 3)), (1, 1));
        assert_eq!(idx.range(Span::new(3, 8)), (2, 4));
        assert_eq!(line_range("", Span::new(0, 0)), (1, 1));
        assert_eq!(LineIndex::new("").range(Span::new(0, 0)), (1, 1));
    }

    #[test]
    fn span_helpers() {
        let s = Span::new(2, 5);
        assert_eq!(s.len(), 3);
        assert!(!s.is_empty());
        assert_eq!(s.slice("abcdefg"), "cde");
        assert!(Span::new(4, 4).is_empty());
    }

    // --- properties ------------------------------------------------------

    const FRAGMENTS: &[&str] = &[
        "the",
        "county",
        "shall",
        "act",
        "The",
        "County",
        "Smith",
        "élan",
        "日本語",
        "act.",
        "act!",
        "why?",
        "end.\"",
        "end.)",
        "done…",
        "wait...",
        "3.5",
        "164.308(a)(1)",
        "https://example.com/a.b",
        "john.doe@example.com",
        "Dr.",
        "Mr.",
        "e.g.",
        "i.e.",
        "etc.",
        "vs.",
        "U.S.",
        "J.",
        "No.",
        "Fig.",
        "p.",
        "Jan.",
        "§",
        "§§",
        "5.1",
        "Section",
        "5.",
        "and",
        "(1)",
        "(a)",
        "1.",
        "2)",
        "-",
        "*",
        "“Quote.”",
        "。",
        "**Bold.**",
        "42",
        "IV.",
    ];
    const SEPARATORS: &[&str] = &[
        " ",
        " ",
        " ",
        " ",
        " ",
        "\n",
        "\n\n",
        "\n# Heading\n",
        "\n## Sub. Title\n",
        "\n- item\n",
        "\n1. First\n",
        "\n| a | b |\n",
        "\n---\n",
        "  ",
        "\t",
        "\r\n",
        "\n  \n",
        "",
        "\n(b) ",
    ];

    fn prose() -> impl Strategy<Value = String> {
        prop::collection::vec(
            (
                prop::sample::select(FRAGMENTS),
                prop::sample::select(SEPARATORS),
            ),
            0..80,
        )
        .prop_map(|parts| parts.into_iter().flat_map(|(a, b)| [a, b]).collect())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn invariants_arbitrary(text in any::<String>()) {
            let spans = sentences(&text);
            assert_invariants(&text, &spans);
            prop_assert_eq!(spans, sentences(&text));
        }

        #[test]
        fn invariants_dense(text in "[a-zA-Z0-9 .!?\n#|()§\"'”’*_`+•。…:,\t\r-]{0,200}") {
            let spans = sentences(&text);
            assert_invariants(&text, &spans);
            prop_assert_eq!(spans, sentences(&text));
        }

        #[test]
        fn invariants_prose(text in prose()) {
            let spans = sentences(&text);
            assert_invariants(&text, &spans);
            prop_assert_eq!(spans, sentences(&text));
        }

        #[test]
        fn line_index_matches_line_range(text in "[a\n\u{e9}]{0,40}", a in 0usize..50, b in 0usize..50) {
            let span = Span { start: a.min(b), end: a.max(b) };
            let idx = LineIndex::new(&text);
            let naive = |byte: usize| 1 + text.as_bytes()[..byte.min(text.len())].iter().filter(|&&c| c == b'\n').count();
            let expected = if span.is_empty() {
                (naive(span.start), naive(span.start))
            } else {
                let last = span.end.min(text.len()).saturating_sub(1).max(span.start.min(text.len()));
                (naive(span.start), naive(last))
            };
            prop_assert_eq!(line_range(&text, span), expected);
            prop_assert_eq!(idx.range(span), expected);
        }
    }
}
