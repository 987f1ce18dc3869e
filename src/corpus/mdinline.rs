//! Markdown inline syntax that would otherwise reach a quote raw: inline links and images
//! are stored as their text (`[the Act](https://…)` → `the Act`, `![a map](m.png)` →
//! `a map`), character references are decoded (`&#40;` → `(`, `&amp;` → `&`) and HTML
//! tags are dropped (see [`INLINE_TAGS`], [`BLOCK_TAGS`]). All else
//! stays byte for byte; code spans and fenced code blocks are left as written, and a link
//! never spans a line, so line numbers still map onto the file. Linear in the text.
//!
//! [`render_mapped`] also records every place where the stored text departs from the
//! file's bytes (an [`Edit`]), so each stored span has the span of the file it came from
//! ([`crate::corpus::layout::SourceMap`]).

use std::borrow::Cow;
use std::collections::HashMap;

use crate::corpus::layout::{Edit, EditKind};

/// Deepest link nesting rendered (`[![alt](img)](url)` is 2); deeper text stays raw.
const MAX_DEPTH: usize = 8;

/// Named character references decoded (the common ones; others stay as written).
const NAMED: &[(&str, char)] = &[
    ("amp", '&'),
    ("lt", '<'),
    ("gt", '>'),
    ("quot", '"'),
    ("apos", '\''),
    ("nbsp", '\u{a0}'),
    ("ndash", '–'),
    ("mdash", '—'),
    ("sect", '§'),
    ("para", '¶'),
    ("copy", '©'),
    ("reg", '®'),
    ("trade", '™'),
    ("hellip", '…'),
    ("lsquo", '‘'),
    ("rsquo", '’'),
    ("ldquo", '“'),
    ("rdquo", '”'),
    ("deg", '°'),
    ("plusmn", '±'),
    ("times", '×'),
    ("middot", '·'),
    ("euro", '€'),
    ("pound", '£'),
];

/// `text` with inline links and images rendered as their text and character references
/// decoded, outside code; borrowed when there is nothing to render.
pub fn render(text: &str) -> Cow<'_, str> {
    render_mapped(text).0
}

/// [`render`], with the edits that turn the file's bytes (`text`) into the rendering, in
/// order (none when it is borrowed).
pub fn render_mapped(text: &str) -> (Cow<'_, str>, Vec<Edit>) {
    if !text.contains(['[', '&', '<']) {
        return (Cow::Borrowed(text), Vec::new());
    }
    let mut out = Out {
        s: String::with_capacity(text.len()),
        edits: Vec::new(),
    };
    let mut fence: Option<(char, usize)> = None;
    let mut base = 0;
    for line in text.split_inclusive('\n') {
        let at = base;
        base += line.len();
        let trimmed = line.trim_start_matches(' ');
        let indent = line.len() - trimmed.len();
        let fence_char = trimmed.chars().next().filter(|c| *c == '`' || *c == '~');
        if let Some(c) = fence_char.filter(|_| indent <= 3) {
            let run = trimmed.chars().take_while(|x| *x == c).count();
            if run >= 3 {
                match fence {
                    None => fence = Some((c, run)),
                    Some((open, len)) if open == c && run >= len => fence = None,
                    Some(_) => {}
                }
                out.s.push_str(line);
                continue;
            }
        }
        if fence.is_some() {
            out.s.push_str(line);
        } else {
            let l = Line::new(line, at);
            l.render(0, line.len(), 0, &mut out);
        }
    }
    if out.edits.is_empty() {
        (Cow::Borrowed(text), Vec::new())
    } else {
        (Cow::Owned(out.s), out.edits)
    }
}

/// The rendering so far and its edits.
struct Out {
    s: String,
    edits: Vec<Edit>,
}

impl Out {
    /// Store `with` for the file's bytes `[file_at, file_at + file_len)`.
    fn edit(&mut self, file_at: usize, file_len: usize, with: &str, kind: EditKind) {
        self.edits.push(Edit {
            at: self.s.len(),
            len: with.len(),
            file_at,
            file_len,
            kind,
        });
        self.s.push_str(with);
    }
}

/// One line with its code spans and matching brackets and parentheses.
struct Line<'a> {
    s: &'a str,
    /// Where the line starts in the file.
    at: usize,
    /// Code span start → end (exclusive).
    code: HashMap<usize, usize>,
    /// `[` → its matching `]`; `(` → its matching `)`.
    close: HashMap<usize, usize>,
}

impl<'a> Line<'a> {
    fn new(s: &'a str, at: usize) -> Self {
        let b = s.as_bytes();
        let code = code_spans(b);
        let mut close = HashMap::new();
        let (mut squares, mut rounds) = (Vec::new(), Vec::new());
        let mut i = 0;
        while i < b.len() {
            if let Some(&e) = code.get(&i) {
                i = e;
                continue;
            }
            match b[i] {
                b'\\' => i += 1,
                b'[' => squares.push(i),
                b'(' => rounds.push(i),
                b']' => {
                    if let Some(o) = squares.pop() {
                        close.insert(o, i);
                    }
                }
                b')' => {
                    if let Some(o) = rounds.pop() {
                        close.insert(o, i);
                    }
                }
                _ => {}
            }
            i += 1;
        }
        Line { s, at, code, close }
    }

    /// Render `s[lo..hi]` into `out`.
    fn render(&self, lo: usize, hi: usize, depth: usize, out: &mut Out) {
        let b = self.s.as_bytes();
        let mut i = lo;
        while i < hi {
            if let Some(&e) = self.code.get(&i) {
                let e = e.min(hi);
                out.s.push_str(&self.s[i..e]);
                i = e;
                continue;
            }
            let image = b[i] == b'!' && b.get(i + 1) == Some(&b'[');
            let open = if image { i + 1 } else { i };
            if b[open] == b'[' && depth < MAX_DEPTH {
                if let Some((text_end, end)) = self.link(open, hi) {
                    out.edit(self.at + i, open + 1 - i, "", EditKind::Open);
                    self.render(open + 1, text_end, depth + 1, out);
                    out.edit(self.at + text_end, end - text_end, "", EditKind::Close);
                    i = end;
                    continue;
                }
            }
            if b[i] == b'\\' && b.get(i + 1).is_some_and(u8::is_ascii_punctuation) {
                out.s.push_str(&self.s[i..i + 2]);
                i += 2;
                continue;
            }
            if let Some((with, len)) = self.replaced(i, hi) {
                out.edit(self.at + i, len, with.as_str(), EditKind::Atom);
                i += len;
                continue;
            }
            let c = self.s[i..].chars().next().expect("char boundary");
            out.s.push(c);
            i += c.len_utf8();
        }
    }

    /// The tag or character reference at `i` (ending by `hi`): what it is stored as and
    /// its length in bytes.
    fn replaced(&self, i: usize, hi: usize) -> Option<(String, usize)> {
        match self.s.as_bytes()[i] {
            b'<' => inline_tag(&self.s[i..hi]).map(|(with, len)| (with.to_string(), len)),
            b'&' => reference(&self.s[i..hi]).map(|(c, len)| (c.to_string(), len)),
            _ => None,
        }
    }

    /// An inline link whose `[` is at `open`, ending by `hi`: the end of its text (its
    /// `]`) and the byte after its `)`.
    fn link(&self, open: usize, hi: usize) -> Option<(usize, usize)> {
        let text_end = *self.close.get(&open)?;
        let paren = text_end + 1;
        if self.s.as_bytes().get(paren) != Some(&b'(') {
            return None;
        }
        let paren_end = *self.close.get(&paren)?;
        let dest = self.s[paren + 1..paren_end].trim();
        (paren_end < hi && !dest.is_empty()).then_some((text_end, paren_end + 1))
    }
}

/// Inline HTML elements whose tags are dropped, their content kept (`<a name="x"></a>`
/// anchors before headings, emphasis, spans); `sup` opens with `^` so an exponent cannot
/// fuse with its base (`10<sup>25</sup>` → `10^25`).
const INLINE_TAGS: &[&str] = &[
    "a", "abbr", "b", "em", "font", "i", "small", "span", "strong", "sub", "sup", "u",
];

/// HTML elements that divide text (a table's cells, a figure, a break): their tags become
/// a space, so neither their attributes (`markdown="1"`, `width:100%`) nor fused cell
/// texts reach a quote.
const BLOCK_TAGS: &[&str] = &[
    "blockquote",
    "br",
    "caption",
    "center",
    "col",
    "colgroup",
    "dd",
    "details",
    "div",
    "dl",
    "dt",
    "figcaption",
    "figure",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "hr",
    "img",
    "li",
    "ol",
    "p",
    "section",
    "summary",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "tr",
    "ul",
];

/// Longest inline tag read, in bytes (a bound: anchors with long attributes stay raw).
const MAX_TAG_BYTES: usize = 256;

/// An HTML tag (of [`INLINE_TAGS`] or [`BLOCK_TAGS`]) at the start of `s`: what it is
/// stored as and its length in bytes.
fn inline_tag(s: &str) -> Option<(&'static str, usize)> {
    let end = s.bytes().take(MAX_TAG_BYTES).position(|b| b == b'>')?;
    let inner = &s[1..end];
    if inner.contains(['<', '\n']) {
        return None;
    }
    let closing = inner.starts_with('/');
    let body = inner.trim_start_matches('/').trim_end_matches('/');
    let name_end = body.find(|c: char| c.is_whitespace()).unwrap_or(body.len());
    let name = body[..name_end].to_ascii_lowercase();
    let with = match (name.as_str(), closing) {
        ("sup", false) => "^",
        (n, _) if BLOCK_TAGS.contains(&n) => " ",
        (n, _) if INLINE_TAGS.contains(&n) => "",
        _ => return None,
    };
    Some((with, end + 1))
}

/// Code spans of a line: a backtick run to the next run of the same length.
fn code_spans(b: &[u8]) -> HashMap<usize, usize> {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'`' {
            let n = b[i..].iter().take_while(|c| **c == b'`').count();
            runs.push((i, n));
            i += n;
        } else {
            i += 1;
        }
    }
    // For each run, the next run of its length (scanned from the end: linear).
    let mut next_of_len: HashMap<usize, usize> = HashMap::new();
    let mut next = vec![None; runs.len()];
    for (k, (_, n)) in runs.iter().enumerate().rev() {
        next[k] = next_of_len.get(n).copied();
        next_of_len.insert(*n, k);
    }
    let mut spans = HashMap::new();
    let mut k = 0;
    while k < runs.len() {
        match next[k] {
            Some(m) => {
                let (start, _) = runs[k];
                let (end, n) = runs[m];
                spans.insert(start, end + n);
                k = m + 1;
            }
            None => k += 1,
        }
    }
    spans
}

/// The character reference at the start of `s` (`&#40;`, `&#x28;`, `&amp;`): the
/// character and the reference's length.
fn reference(s: &str) -> Option<(char, usize)> {
    let semi = s.as_bytes().iter().take(33).position(|b| *b == b';')?;
    let body = &s[1..semi];
    let c = if let Some(num) = body.strip_prefix('#') {
        let (digits, radix) = match num.strip_prefix(['x', 'X']) {
            Some(hex) if (1..=6).contains(&hex.len()) => (hex, 16),
            None if (1..=7).contains(&num.len()) => (num, 10),
            _ => return None,
        };
        if !digits.chars().all(|c| c.is_digit(radix)) {
            return None;
        }
        let v = u32::from_str_radix(digits, radix).ok()?;
        char::from_u32(v)
            .filter(|c| *c != '\0')
            .unwrap_or('\u{fffd}')
    } else {
        NAMED.iter().find(|(n, _)| *n == body)?.1
    };
    Some((c, semi + 1))
}

#[cfg(test)]
mod tests {
    use super::{render, render_mapped};
    use crate::corpus::layout::SourceMap;

    #[test]
    fn links_images_and_references_are_rendered_outside_code() {
        let r = |s: &str| render(s).into_owned();
        assert_eq!(
            r("See [the Act](https://example.org/act_(2020)) now.\n"),
            "See the Act now.\n"
        );
        assert_eq!(r("![a map](m.png \"Map\") here"), "a map here");
        assert_eq!(r("[![logo](l.png)](https://x.org)"), "logo");
        assert_eq!(
            r("paragraph &#40;c)(1) &amp; &#x28;2) &bogus; &#0;"),
            "paragraph (c)(1) & (2) &bogus; \u{fffd}"
        );
        assert_eq!(r("`[a](b) &amp;` and [x](y)"), "`[a](b) &amp;` and x");
        assert_eq!(
            r("```\n[a](b) &amp;\n```\n[a](b)"),
            "```\n[a](b) &amp;\n```\na"
        );
        let untouched = "\\[a](b) and [c] (d) and [e]() and [f]";
        assert_eq!(r(untouched), untouched);
        assert_eq!(r("[a\n](b)"), "[a\n](b)");
        let plain = "No links here.";
        assert!(matches!(render(plain), std::borrow::Cow::Borrowed(_)));
        let many = "[".repeat(100_000) + "x" + &"](y)".repeat(100_000);
        assert!(render(&many).len() <= many.len());
    }

    #[test]
    fn inline_html_tags_are_dropped_and_exponents_kept_apart() {
        let r = |s: &str| render(s).into_owned();
        assert_eq!(
            r("#### <a name=\"throttle\"></a>5.2.2 Rate Limiting (Throttling)\n"),
            "#### 5.2.2 Rate Limiting (Throttling)\n"
        );
        assert_eq!(
            r("more than 10<sup>25</sup> FLOPs"),
            "more than 10^25 FLOPs"
        );
        assert_eq!(
            r("H<sub>2</sub>O, <em>not</em> later<br/>than"),
            "H2O, not later than"
        );
        // Markup around a table: no attribute is stored, cells stay apart.
        assert_eq!(
            r("<div markdown=\"1\"><table style=\"width:100%\"><tr><td>A</td><td>B</td></tr>"),
            "    A  B  "
        );
        assert_eq!(r("<img src=\"m.png\" alt=\"x\"/> Memorized"), "  Memorized");
        // Unknown tags, a tag cut by a line end and code stay as written.
        for raw in [
            "<widget>x</widget>",
            "a < b > c",
            "<a name=\"x\"\n>y",
            "`<b>x</b>`",
        ] {
            assert_eq!(r(raw), raw);
        }
    }

    /// The map of `file`'s rendering.
    fn map_of(file: &str) -> (String, SourceMap) {
        let (text, edits) = render_mapped(file);
        (text.into_owned(), SourceMap::Bytes { edits })
    }

    #[test]
    fn every_rendered_span_maps_to_file_bytes_that_render_to_it() {
        let file = "A [covered entity](/x/160-103) must, per \
                    [§ 164.306](https://e.org/a_(b)), act &amp; report.\n\
                    See ![the map](m.png) and H<sub>2</sub>O &#40;2) <em>now</em>.\n";
        let (text, map) = map_of(file);
        assert_eq!(
            text,
            "A covered entity must, per § 164.306, act & report.\nSee the map and H2O (2) now.\n"
        );
        let span = |q: &str| {
            let at = text.find(q).unwrap();
            map.file_span(at, at + q.len()).map(|(a, b)| &file[a..b])
        };
        assert_eq!(
            span("A covered entity must"),
            Ok("A [covered entity](/x/160-103) must")
        );
        assert_eq!(span("covered entity"), Ok("covered entity"));
        assert_eq!(span("act & report."), Ok("act &amp; report."));
        assert_eq!(
            span("H2O (2) now."),
            Ok("H<sub>2</sub>O &#40;2) <em>now</em>.")
        );
        assert_eq!(
            span("entity must"),
            Err(crate::corpus::layout::NoFileSpan::Unaligned)
        );
        for q in [
            "A covered entity must, per § 164.306, act & report.",
            "See the map and",
        ] {
            let got = span(q).unwrap();
            assert_eq!(render(got), q, "{got:?}");
        }
        // Nothing to render: the identity.
        assert!(render_mapped("plain [text] & more").1.is_empty());
    }

    proptest::proptest! {
        /// Over lines of links, images, references and tags, every span of the rendering
        /// that has a span of the file is the rendering of those file bytes, and the whole
        /// text has one.
        #[test]
        fn mapped_spans_render_back_to_themselves(
            parts in proptest::collection::vec(proptest::sample::select(vec![
                "[", "]", "(", ")", "!", "a", "b c", " ", "\n", "&amp;", "&#40;", "&bogus;",
                "<em>", "</em>", "<br/>", "<sup>", "<td>", "<widget>", "](x)", "é",
            ]), 0..24),
        ) {
            let file: String = parts.concat();
            let (text, map) = map_of(&file);
            proptest::prop_assert!(map.check(&text).is_ok());
            let (fs, fe) = map.file_span(0, text.len()).expect("the whole text maps");
            proptest::prop_assert_eq!(render(&file[fs..fe]), text.as_str());
            let bounds: Vec<usize> = (0..=text.len()).filter(|&i| text.is_char_boundary(i)).collect();
            for (k, &a) in bounds.iter().enumerate() {
                for &b in &bounds[k..] {
                    if let Ok((fs, fe)) = map.file_span(a, b) {
                        proptest::prop_assert_eq!(render(&file[fs..fe]), &text[a..b]);
                    }
                }
            }
        }
    }
}
