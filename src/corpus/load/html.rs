//! HTML parsing within bounds. A linear pre-scan models the stack of open elements the
//! HTML5 tree builder keeps, so markup that would nest deeper than a limit is refused
//! before parsing (the parser's scope checks cost time in proportion to the depth for
//! every tag). Whatever the pre-scan says, the parse itself is fed a slice at a time and
//! stops at the file's deadline, so no markup the model misjudges can run past it.

use std::collections::HashMap;

use html5ever::tendril::{StrTendril, TendrilSink};

use super::{find, Deadline};

/// Elements that never have content.
const VOID: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr", "keygen", "basefont", "bgsound", "frame",
];

/// Elements whose end tag may be left out (not counted as nesting: the tree builder
/// closes them when a sibling or their parent's end comes).
const OPTIONAL_END: &[&str] = &[
    "p", "li", "dt", "dd", "option", "optgroup", "tr", "td", "th", "thead", "tbody", "tfoot",
    "colgroup", "caption", "rb", "rt", "rp", "rtc", "html", "head", "body",
];

/// Elements whose content is raw text up to their end tag (`noscript` too: the parser
/// runs with scripting on).
const RAW_TEXT: &[&str] = &[
    "script",
    "style",
    "textarea",
    "title",
    "xmp",
    "iframe",
    "noembed",
    "noframes",
    "noscript",
    "plaintext",
];

/// SVG and MathML elements whose content is parsed as HTML again.
const INTEGRATION_POINTS: &[&str] = &[
    "foreignobject",
    "desc",
    "title",
    "mi",
    "mo",
    "mn",
    "ms",
    "mtext",
    "annotation-xml",
];

/// HTML start tags that end SVG or MathML content: the tree builder pops the foreign
/// elements and reads the tag as HTML.
const BREAKOUT: &[&str] = &[
    "b",
    "big",
    "blockquote",
    "body",
    "br",
    "center",
    "code",
    "dd",
    "div",
    "dl",
    "dt",
    "em",
    "embed",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "head",
    "hr",
    "i",
    "img",
    "li",
    "listing",
    "menu",
    "meta",
    "nobr",
    "ol",
    "p",
    "pre",
    "ruby",
    "s",
    "small",
    "span",
    "strong",
    "strike",
    "sub",
    "sup",
    "table",
    "tt",
    "u",
    "ul",
    "var",
];

/// Elements that bound the search for an open element "in scope" (table cells and
/// captions, which the model does not hold, are stood for by their `table`).
const SCOPE_BOUNDARY: &[&str] = &[
    "applet", "marquee", "object", "template", "table", "html", "svg", "math",
];

fn is_heading(name: &str) -> bool {
    matches!(name, "h1" | "h2" | "h3" | "h4" | "h5" | "h6")
}

/// An element the model holds open.
#[derive(Debug)]
struct Open {
    name: String,
    /// Whether its content is SVG or MathML (foreign) content.
    foreign_inside: bool,
}

/// The stack of open elements as the HTML5 tree builder keeps it: what nests, and what a
/// start or end tag closes.
#[derive(Debug, Default)]
struct Nesting {
    stack: Vec<Open>,
    counts: HashMap<String, usize>,
}

impl Nesting {
    fn depth(&self) -> usize {
        self.stack.len()
    }

    /// Whether the current node's content is foreign (SVG or MathML).
    fn in_foreign(&self) -> bool {
        self.stack.last().is_some_and(|o| o.foreign_inside)
    }

    fn push(&mut self, name: String, foreign_inside: bool) {
        *self.counts.entry(name.clone()).or_default() += 1;
        self.stack.push(Open {
            name,
            foreign_inside,
        });
    }

    fn forget(&mut self, open: &Open) {
        if let Some(n) = self.counts.get_mut(&open.name) {
            *n -= 1;
        }
    }

    fn pop(&mut self) {
        if let Some(open) = self.stack.pop() {
            self.forget(&open);
        }
    }

    /// Close the element at `i` and everything opened inside it.
    fn truncate(&mut self, i: usize) {
        while self.stack.len() > i {
            self.pop();
        }
    }

    fn is_open(&self, name: &str) -> bool {
        self.counts.get(name).is_some_and(|n| *n > 0)
    }

    /// The innermost open `name` with no scope boundary above it.
    fn in_scope(&self, name: &str) -> Option<usize> {
        for (i, open) in self.stack.iter().enumerate().rev() {
            if open.name == name {
                return Some(i);
            }
            if SCOPE_BOUNDARY.contains(&open.name.as_str()) {
                return None;
            }
        }
        None
    }

    /// An end tag: it closes the innermost open element of its name (any heading closes
    /// the innermost heading) and everything inside it; a stray one is ignored.
    fn end(&mut self, name: &str) {
        let at = if is_heading(name) {
            self.stack.iter().rposition(|o| is_heading(&o.name))
        } else if self.is_open(name) {
            self.stack.iter().rposition(|o| o.name == name)
        } else {
            None
        };
        if let Some(i) = at {
            self.truncate(i);
        }
    }

    /// A start tag; whether raw text (up to its end tag) follows it. In SVG or MathML
    /// content a self-closing tag closes its element and an HTML tag such as `div` ends
    /// the foreign content; in HTML a self-closing slash means nothing.
    fn start(&mut self, name: String, self_closing: bool) -> bool {
        if self.in_foreign() && BREAKOUT.contains(&name.as_str()) {
            while self.in_foreign() {
                self.pop();
            }
        }
        if self.in_foreign() {
            if !self_closing {
                let inside = !INTEGRATION_POINTS.contains(&name.as_str());
                self.push(name, inside);
            }
            return false;
        }
        self.html_start(name, self_closing)
    }

    /// A start tag in HTML content, modelling the tree builder: void and optional-end
    /// elements do not nest; a new `a` or `nobr` closes the open one (the adoption agency
    /// algorithm), a `button` closes an open `button` and what is inside it, a heading
    /// closes a heading that is the current node, and a `form` inside a form is ignored.
    fn html_start(&mut self, name: String, self_closing: bool) -> bool {
        let n = name.as_str();
        if RAW_TEXT.contains(&n) {
            return true;
        }
        if VOID.contains(&n) || OPTIONAL_END.contains(&n) || (n == "form" && self.is_open(n)) {
            return false;
        }
        if matches!(n, "svg" | "math") {
            if !self_closing {
                self.push(name, true);
            }
            return false;
        }
        match n {
            "a" | "nobr" => {
                if let Some(i) = self.in_scope(n) {
                    let open = self.stack.remove(i);
                    self.forget(&open);
                }
            }
            "button" => {
                if let Some(i) = self.in_scope(n) {
                    self.truncate(i);
                }
            }
            _ if is_heading(n) && self.stack.last().is_some_and(|o| is_heading(&o.name)) => {
                self.pop()
            }
            _ => {}
        }
        self.push(name, false);
        false
    }
}

/// Byte offset of the first start tag that the HTML5 tree builder would nest deeper than
/// `limit`, if any.
///
/// A linear pre-scan that reads tags as the tokenizer does (comments, doctypes and raw
/// text skipped; a tag name runs to whitespace, `/` or `>`; quotes count only in attribute
/// values) and keeps the stack of open elements of [`Nesting`].
pub(super) fn too_deep(source: &str, limit: usize) -> Option<usize> {
    let b = source.as_bytes();
    let mut nesting = Nesting::default();
    let mut i = 0;
    while let Some(p) = b[i..].iter().position(|&c| c == b'<') {
        let lt = i + p;
        let mut j = lt + 1;
        if b[j..].starts_with(b"!--") {
            i = comment_end(b, j + 3);
            continue;
        }
        if b[j..].starts_with(b"![CDATA[") && nesting.in_foreign() {
            i = find(b, j, b"]]>").map_or(b.len(), |e| e + 3);
            continue;
        }
        let closing = b.get(j) == Some(&b'/');
        j += usize::from(closing);
        let bogus = matches!(b.get(lt + 1), Some(b'!' | b'?'))
            || (closing
                && b.get(j)
                    .is_some_and(|c| !c.is_ascii_alphabetic() && *c != b'>'));
        if bogus {
            i = find(b, j, b">").map_or(b.len(), |e| e + 1);
            continue;
        }
        if !b.get(j).is_some_and(u8::is_ascii_alphabetic) {
            i = j;
            continue;
        }
        let name_len = b[j..]
            .iter()
            .take_while(|c| !matches!(c, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ' | b'/' | b'>'))
            .count();
        let name = source[j..j + name_len].to_ascii_lowercase();
        let (end, self_closing) = scan_tag(b, j + name_len);
        i = (end + 1).min(b.len());
        if closing {
            nesting.end(&name);
            continue;
        }
        let raw = nesting.start(name.clone(), self_closing);
        if raw {
            i = find_end_tag(b, i, &name).unwrap_or(b.len());
        } else if nesting.depth() > limit {
            return Some(lt);
        }
    }
    None
}

/// Index just past a comment whose text starts at `from` (after `<!--`): `<!-->` and
/// `<!--->` end at once; otherwise at `-->` or `--!>`, or the end of the input.
fn comment_end(b: &[u8], from: usize) -> usize {
    let rest = &b[from.min(b.len())..];
    if rest.starts_with(b">") {
        return from + 1;
    }
    if rest.starts_with(b"->") {
        return from + 2;
    }
    let mut k = from;
    while let Some(dashes) = find(b, k, b"--") {
        let after = &b[dashes + 2..];
        if after.starts_with(b">") {
            return dashes + 3;
        }
        if after.starts_with(b"!>") {
            return dashes + 4;
        }
        k = dashes + 1;
    }
    b.len()
}

/// Where a tag whose attributes start at `from` ends, and whether it is self-closing: the
/// index of its `>` (or the input's end), read with the tokenizer's attribute states —
/// quotes open a value only after `=`, and a slash inside an unquoted value is part of it.
fn scan_tag(b: &[u8], from: usize) -> (usize, bool) {
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum S {
        /// Between attributes.
        Gap,
        Name,
        AfterName,
        BeforeValue,
        Quoted(u8),
        Unquoted,
        Slash,
    }
    let mut s = S::Gap;
    for (k, &c) in b.iter().enumerate().skip(from) {
        let ws = matches!(c, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ');
        s = match (s, c) {
            (S::Quoted(q), _) if c == q => S::Gap,
            (S::Quoted(q), _) => S::Quoted(q),
            (_, b'>') => return (k, s == S::Slash),
            (S::Unquoted, _) if ws => S::Gap,
            (S::Unquoted, _) => S::Unquoted,
            (S::BeforeValue, b'"' | b'\'') => S::Quoted(c),
            (S::BeforeValue, _) if ws => S::BeforeValue,
            (S::BeforeValue, _) => S::Unquoted,
            (_, b'/') => S::Slash,
            (S::Name | S::AfterName, b'=') => S::BeforeValue,
            (S::Name | S::AfterName, _) if ws => S::AfterName,
            (S::Name, _) => S::Name,
            (_, _) if ws => S::Gap,
            (_, _) => S::Name,
        };
    }
    (b.len(), false)
}

/// Index just past the end tag `</name>` that ends raw text at or after `from` (ASCII
/// case-insensitive; the name must be followed by whitespace, `/` or `>`).
fn find_end_tag(b: &[u8], from: usize, name: &str) -> Option<usize> {
    let mut k = from;
    while let Some(lt) = find(b, k, b"</") {
        let after = lt + 2 + name.len();
        let named = b.len() >= after && b[lt + 2..after].eq_ignore_ascii_case(name.as_bytes());
        let ended = matches!(
            b.get(after),
            None | Some(b'\t' | b'\n' | b'\x0C' | b'\r' | b' ' | b'/' | b'>')
        );
        if named && ended {
            return Some((scan_tag(b, after).0 + 1).min(b.len()));
        }
        k = lt + 2;
    }
    None
}

/// How much markup the parser is given at a time; the deadline is checked in between.
const SLICE_BYTES: usize = 4096;

/// Parse `source` as an HTML document (as `scraper::Html::parse_document` does), fed to
/// the parser a slice at a time; `None` once `deadline` passes, checked between slices,
/// so the work stops at the deadline whatever the markup.
pub(super) fn parse(source: &str, deadline: &Deadline) -> Option<scraper::Html> {
    parse_in_slices(source, SLICE_BYTES, deadline)
}

fn parse_in_slices(source: &str, slice: usize, deadline: &Deadline) -> Option<scraper::Html> {
    let sink = scraper::HtmlTreeSink::new(scraper::Html::new_document());
    let mut parser = html5ever::driver::parse_document(sink, Default::default());
    let mut rest = source;
    while !rest.is_empty() {
        if deadline.expired() {
            return None;
        }
        let mut cut = slice.max(1).min(rest.len());
        while !rest.is_char_boundary(cut) {
            cut += 1;
        }
        parser.process(StrTendril::from_slice(&rest[..cut]));
        rest = &rest[cut..];
    }
    if deadline.expired() {
        return None;
    }
    Some(parser.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn depth_model_nests_what_the_tree_builder_nests() {
        let deep = |n: usize| format!("<body>{}x{}</body>", "<div>".repeat(n), "</div>".repeat(n));
        assert_eq!(too_deep(&deep(10), 10), None);
        assert_eq!(too_deep(&deep(11), 10), Some(6 + 10 * 5));
        // Closed siblings, void and optional-end elements, comments and raw text do not nest.
        let flat = "<div></div>".repeat(50)
            + &"<p>a<li>b<br><img src='>'><br/><dd>c<dt>d".repeat(50)
            + "<!-- <div><div><div> --><script><div><div><div></script>"
            + "<noscript><div><div><div></noscript><title><i><i><i></title>";
        assert_eq!(too_deep(&flat, 3), None);
        // An end tag closes what is open inside it; stray end tags are ignored.
        let mixed = "<div><span><b></div></i>".repeat(50);
        assert_eq!(too_deep(&mixed, 3), None);
    }

    #[test]
    fn a_self_closing_slash_closes_only_foreign_elements() {
        // In HTML `<div/>` opens a div like `<div>`: each one nests in the last.
        for tag in ["<div/>x", "<span />", "<section data-x=\"1\"/>", "<q/>"] {
            assert_eq!(too_deep(&tag.repeat(20), 10), Some(10 * tag.len()), "{tag}");
        }
        // In SVG and MathML it closes; `<svg/>` and `<math/>` close too.
        let svg = format!("<svg>{}</svg>", "<path d='M0 0'/><g/>".repeat(100));
        assert_eq!(too_deep(&svg, 3), None);
        assert_eq!(too_deep(&"<svg/><math/>".repeat(100), 3), None);
        // A slash inside an unquoted value is the value's: the element stays open.
        let unquoted = "<svg>".to_string() + &"<g a=b/>".repeat(20);
        assert!(too_deep(&unquoted, 10).is_some());
        // An HTML tag ends the foreign content, and its slash means nothing again.
        let breakout = "<svg>".to_string() + &"<div/>".repeat(20);
        assert!(too_deep(&breakout, 10).is_some());
        // Inside an integration point content is HTML.
        let inside = "<svg><foreignObject>".to_string() + &"<b/>".repeat(20);
        assert!(too_deep(&inside, 10).is_some());
    }

    #[test]
    fn elements_the_tree_builder_closes_do_not_nest() {
        // A new `a` closes the open one, as does `nobr`; a `button` closes an open button.
        for tag in ["<a href='#x'>", "<A>", "<nobr>", "<button>"] {
            let html = format!("<body>{}text</body>", format!("{tag}x").repeat(1_000));
            assert_eq!(too_deep(&html, 4), None, "{tag}");
        }
        // ... but not across a table cell or an object, where they do nest.
        let cells = "<a><table><tr><td>".repeat(10);
        assert!(too_deep(&cells, 10).is_some());
        // A heading that is the current node is closed by the next heading; a heading's
        // end tag closes any heading; a form inside a form is ignored.
        let headings = "<h1>a<h2>b<h3>c</h1>".repeat(100) + &"<form><div></div>".repeat(100);
        assert_eq!(too_deep(&headings, 3), None);
        // Other unclosed elements still nest.
        assert!(too_deep(&"<b>x".repeat(20), 10).is_some());
    }

    #[test]
    fn comments_and_bogus_markup_end_where_the_tokenizer_ends_them() {
        // `<!-->` is a whole comment: what follows is markup.
        for comment in [
            "<!-->",
            "<!--->",
            "<!-- a --!>",
            "<!-- a -- b -->",
            "<? pi >",
            "</ x>",
        ] {
            let html = format!("{comment}{}", "<div>".repeat(20));
            assert!(too_deep(&html, 10).is_some(), "{comment}");
        }
        // A raw text element ends only at its own end tag.
        let script = "<script>x = '</scriptx>'; </script>".to_string() + &"<div>".repeat(20);
        assert!(too_deep(&script, 10).is_some());
        assert_eq!(too_deep("<plaintext><div><div><div>", 2), None);
    }

    #[test]
    fn parsing_in_slices_builds_the_same_document() {
        let html = "<!DOCTYPE html><html><head><title>T &amp; U</title></head><body>\r\n\
            <p>caf\u{e9} &eacute;&#233; &notin; <b>bold <i>both</b> italic</i></p>\
            <table><tr><td>a<td>b</table><svg><path d='x'/></svg><!-- c --> tail</body></html>";
        let whole = scraper::Html::parse_document(html).html();
        for slice in [1, 2, 3, 5, 7, 64] {
            let parsed = parse_in_slices(html, slice, &Deadline::never()).unwrap();
            assert_eq!(parsed.html(), whole, "slices of {slice}");
        }
    }

    #[test]
    fn the_deadline_stops_the_parse_between_slices() {
        // One tag with many attributes costs the tokenizer time quadratic in their number
        // (each is checked against the others), and the depth pre-scan sees no nesting.
        let attrs: String = (0..200_000).map(|i| format!(" a{i}")).collect();
        let html = format!("<p{attrs}>text</p>");
        assert_eq!(too_deep(&html, 512), None);
        let started = std::time::Instant::now();
        let deadline = Deadline::after(Duration::from_millis(300));
        assert!(parse(&html, &deadline).is_none());
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "stopped after {:?}",
            started.elapsed()
        );
        assert!(parse("<p>fine</p>", &Deadline::never()).is_some());
    }
}
