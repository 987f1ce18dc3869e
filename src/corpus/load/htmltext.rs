//! HTML as readable text: the DOM walked into plain text with its line breaks, list
//! markers and table cells, hidden elements dropped, and the `h1`–`h6` headings and title
//! the document names.

use super::{collapse_ws, html, Deadline};

/// Elements whose whole subtree is not readable text.
const HTML_DROPPED: &[&str] = &[
    "head", "script", "style", "noscript", "template", "svg", "math", "iframe", "object", "embed",
    "canvas", "title",
];

/// Whether an element and everything inside it is hidden from a reader: one of
/// [`HTML_DROPPED`], the `hidden` attribute, `aria-hidden="true"`, or an inline style that
/// says `display: none` or `visibility: hidden | collapse`. A descendant that a style would
/// make visible again stays dropped: hidden text must never become evidence.
fn html_hidden(el: &scraper::node::Element) -> bool {
    HTML_DROPPED.contains(&el.name()) || hidden_by_attributes(el)
}

/// Whether an element's own attributes hide it (see [`html_hidden`]).
fn hidden_by_attributes(el: &scraper::node::Element) -> bool {
    el.attr("hidden").is_some()
        || el
            .attr("aria-hidden")
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
        || el.attr("style").is_some_and(style_hides)
}

/// Whether an inline `style` attribute hides its element: the `display` or `visibility`
/// declaration that wins (the last one, unless an earlier one is `!important` and it is
/// not) is `none`, or `hidden` / `collapse`. Any case and spacing; CSS comments ignored.
fn style_hides(style: &str) -> bool {
    let style = strip_css_comments(style);
    // (hides, important) of the winning declaration of each property.
    let mut display: Option<(bool, bool)> = None;
    let mut visibility: Option<(bool, bool)> = None;
    for decl in style.split(';') {
        let Some((prop, value)) = decl.split_once(':') else {
            continue;
        };
        let mut value = value.trim().to_ascii_lowercase();
        let mut important = false;
        if let Some(bang) = value.find('!') {
            important = value[bang + 1..].trim() == "important";
            value = value[..bang].trim().to_string();
        }
        let (slot, hides) = match prop.trim().to_ascii_lowercase().as_str() {
            "display" => (&mut display, value == "none"),
            "visibility" => (&mut visibility, value == "hidden" || value == "collapse"),
            _ => continue,
        };
        if slot.is_none_or(|(_, was_important)| important || !was_important) {
            *slot = Some((hides, important));
        }
    }
    display.is_some_and(|d| d.0) || visibility.is_some_and(|v| v.0)
}

/// `style` without its `/* … */` comments (an unclosed comment runs to the end).
fn strip_css_comments(style: &str) -> String {
    let mut out = String::with_capacity(style.len());
    let mut rest = style;
    while let Some(open) = rest.find("/*") {
        out.push_str(&rest[..open]);
        out.push(' ');
        rest = match rest[open + 2..].find("*/") {
            Some(close) => &rest[open + 2 + close + 2..],
            None => "",
        };
    }
    out.push_str(rest);
    out
}

/// How many line breaks an element forces around itself (0 = inline).
fn html_block_breaks(name: &str, list_depth: usize) -> u8 {
    match name {
        "p" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "blockquote" | "pre" | "table" | "dl"
        | "section" | "article" | "header" | "footer" | "nav" | "main" | "aside" | "figure"
        | "hr" | "address" | "details" | "form" | "fieldset" | "menu" | "body" => 2,
        // Top-level lists stand apart; nested lists continue their parent item.
        "ul" | "ol" => {
            if list_depth == 0 {
                2
            } else {
                1
            }
        }
        "div" | "li" | "tr" | "dt" | "dd" | "caption" | "figcaption" | "summary" | "legend"
        | "option" | "thead" | "tbody" | "tfoot" => 1,
        _ => 0,
    }
}

/// What goes between the previous piece of inline text and the next one.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sep {
    None,
    Space,
    Cell,
}

/// Accumulates readable text while walking the DOM.
struct HtmlText {
    out: String,
    /// Newlines owed before the next text (0..=2).
    breaks: u8,
    sep: Sep,
    /// List-item marker owed before the next text.
    prefix: Option<String>,
    pre_depth: usize,
    list_depth: usize,
    /// The `h1`–`h6` being read: its level and text so far.
    heading: Option<(u8, String)>,
    /// Headings read, in order (level, collapsed text).
    headings: Vec<(u8, String)>,
    /// The mark owed before the first text of an open `sup` (`^`) or `sub` (`_`).
    script: Option<char>,
}

impl HtmlText {
    fn new() -> Self {
        Self {
            out: String::new(),
            breaks: 0,
            sep: Sep::None,
            prefix: None,
            pre_depth: 0,
            list_depth: 0,
            heading: None,
            headings: Vec::new(),
            script: None,
        }
    }

    fn block(&mut self, n: u8) {
        if n > 0 {
            self.breaks = self.breaks.max(n);
            self.sep = Sep::None;
        }
    }

    fn at_line_start(&self) -> bool {
        self.out.is_empty() || self.out.ends_with('\n')
    }

    /// Emit owed breaks, marker or separator before new content.
    fn flush(&mut self) {
        if self.breaks > 0 {
            if !self.out.is_empty() {
                for _ in 0..self.breaks {
                    self.out.push('\n');
                }
            }
            self.breaks = 0;
            self.sep = Sep::None;
        }
        if let Some(p) = self.prefix.take() {
            self.out.push_str(&p);
            self.sep = Sep::None;
        }
        match std::mem::replace(&mut self.sep, Sep::None) {
            Sep::None => {}
            Sep::Space => {
                if !self.at_line_start() {
                    self.out.push(' ');
                }
            }
            Sep::Cell => {
                if !self.at_line_start() {
                    self.out.push_str(" | ");
                }
            }
        }
    }

    fn text(&mut self, s: &str) {
        if s.is_empty() {
            return;
        }
        if self.pre_depth > 0 {
            self.flush();
            let mark = self.script_mark(s);
            self.out.push_str(s);
            self.heading_text(s, mark);
            return;
        }
        if s.starts_with(char::is_whitespace) && self.sep == Sep::None {
            self.sep = Sep::Space;
        }
        let mut mark = None;
        let mut words = s.split_whitespace().peekable();
        while let Some(word) = words.next() {
            self.flush();
            mark = mark.or(self.script_mark(word));
            self.out.push_str(word);
            if words.peek().is_some() {
                self.sep = Sep::Space;
            }
        }
        if s.ends_with(char::is_whitespace) && self.sep == Sep::None {
            self.sep = Sep::Space;
        }
        self.heading_text(s, mark);
    }

    /// Add `s` to the heading being read, with the script mark written before it.
    fn heading_text(&mut self, s: &str, mark: Option<char>) {
        if let Some((_, h)) = &mut self.heading {
            let body = s.trim_start();
            h.push_str(&s[..s.len() - body.len()]);
            h.extend(mark);
            h.push_str(body);
        }
    }

    /// Write the `^` / `_` owed by an open `sup` / `sub` before its first text `s`,
    /// so that `10<sup>25</sup>` reads `10^25`, never `1025`. An ordinal suffix after a
    /// digit (`5<sup>th</sup>`) is written plain.
    fn script_mark(&mut self, s: &str) -> Option<char> {
        if s.trim().is_empty() {
            return None;
        }
        let mark = self.script.take()?;
        let ordinal = matches!(s, "st" | "nd" | "rd" | "th")
            && self.out.ends_with(|c: char| c.is_ascii_digit());
        if ordinal {
            return None;
        }
        self.out.push(mark);
        Some(mark)
    }

    fn open(&mut self, name: &str) {
        match name {
            "sup" | "sub" => {
                self.script = Some(if name == "sup" { '^' } else { '_' });
                return;
            }
            "br" => {
                if self.pre_depth > 0 {
                    self.out.push('\n');
                } else {
                    self.breaks = (self.breaks + 1).min(2);
                    self.sep = Sep::None;
                }
                return;
            }
            "td" | "th" => {
                if self.breaks == 0 && !self.at_line_start() {
                    self.sep = Sep::Cell;
                }
                return;
            }
            _ => {}
        }
        self.block(html_block_breaks(name, self.list_depth));
        match name {
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                self.heading = Some((name.as_bytes()[1] - b'0', String::new()));
            }
            "pre" => self.pre_depth += 1,
            "ul" | "ol" => self.list_depth += 1,
            "li" => {
                let indent = "  ".repeat(self.list_depth.saturating_sub(1));
                self.prefix = Some(format!("{indent}- "));
            }
            _ => {}
        }
    }

    fn close(&mut self, name: &str) {
        if name.len() == 2 && name.starts_with('h') {
            if let Some((level, h)) = self.heading.take() {
                let h = collapse_ws(&h);
                if !h.is_empty() {
                    self.headings.push((level, h));
                }
            }
        }
        match name {
            "pre" => self.pre_depth = self.pre_depth.saturating_sub(1),
            "ul" | "ol" => self.list_depth = self.list_depth.saturating_sub(1),
            // An item without text leaves no dangling marker.
            "li" => self.prefix = None,
            "sup" | "sub" => self.script = None,
            _ => {}
        }
        self.block(html_block_breaks(name, self.list_depth));
    }

    /// Trim line ends, keep at most one blank line in a row, trim the whole; with the
    /// headings read.
    fn finish(self) -> (String, Vec<(u8, String)>) {
        let mut result = String::with_capacity(self.out.len());
        let mut blank_run = 0usize;
        for line in self.out.lines() {
            let line = line.trim_end();
            if line.is_empty() {
                blank_run += 1;
                if blank_run > 1 || result.is_empty() {
                    continue;
                }
            } else {
                blank_run = 0;
            }
            result.push_str(line);
            result.push('\n');
        }
        (result.trim_end().to_string(), self.headings)
    }
}

/// An HTML document as text: title, readable text, and the `h1`–`h6` it has.
type HtmlDoc = (Option<String>, String, Vec<(u8, String)>);

/// Convert an HTML document to `(title, readable text, headings)`; `None` once
/// `deadline` passes (during the parse too).
pub(super) fn html_to_text(source: &str, deadline: &Deadline) -> Option<HtmlDoc> {
    let doc = html::parse(source, deadline)?;
    let selector = scraper::Selector::parse("title").expect("static selector");
    let title = doc
        .select(&selector)
        .filter(|el| title_shown(el))
        .map(|el| collapse_ws(&el.text().collect::<String>()))
        .find(|t| !t.is_empty() && !names_a_file(t))
        .or_else(|| marked_title(&doc));

    // Iterative pre-order walk (deeply nested markup must not overflow the stack).
    let mut w = HtmlText::new();
    let root = doc.tree.root();
    let mut node = root;
    let mut visited = 0usize;
    'walk: loop {
        visited += 1;
        if visited.is_multiple_of(4096) && deadline.expired() {
            return None;
        }
        let mut descend = true;
        match node.value() {
            scraper::Node::Text(t) => w.text(t),
            scraper::Node::Element(el) => {
                if html_hidden(el) {
                    descend = false;
                } else {
                    w.open(el.name());
                }
            }
            scraper::Node::Document | scraper::Node::Fragment => {}
            _ => descend = false, // comments, doctype, processing instructions
        }
        if descend {
            if let Some(child) = node.first_child() {
                node = child;
                continue;
            }
        }
        // Close `node` (if it was opened) and climb until a sibling exists.
        loop {
            if let scraper::Node::Element(el) = node.value() {
                if descend {
                    w.close(el.name());
                }
            }
            descend = true; // ancestors were all opened
            if node.id() == root.id() {
                break 'walk;
            }
            if let Some(next) = node.next_sibling() {
                node = next;
                break;
            }
            match node.parent() {
                Some(parent) => node = parent,
                None => break 'walk,
            }
        }
    }
    let (text, headings) = w.finish();
    // Else the first `h1` read (hidden ones never are).
    let title = title.or_else(|| {
        headings
            .iter()
            .find(|(level, _)| *level == 1)
            .map(|(_, h)| h.clone())
    });
    Some((title, text, headings))
}

/// Whether a `<title>` is a file's name or identifier rather than a title
/// (`L_2013176EN.01000101.xml`): one word with a dot or an underscore and a digit.
fn names_a_file(t: &str) -> bool {
    !t.contains(char::is_whitespace)
        && t.contains(['.', '_'])
        && t.chars().any(|c| c.is_ascii_digit())
}

/// Classes that mark a document's title in the body (EUR-Lex `doc-ti`, ELI
/// `eli-main-title`, and the common `doc-title` / `document-title`).
const TITLE_CLASSES: &str =
    ".doc-ti, .eli-main-title, .doc-title, .document-title, .title-doc-first";

/// The title the body marks with a title class: its marked elements in order, each
/// whitespace-collapsed, joined by spaces; parts wholly in parentheses ("(Text with EEA
/// relevance)") are left out.
fn marked_title(doc: &scraper::Html) -> Option<String> {
    let selector = scraper::Selector::parse(TITLE_CLASSES).expect("static selector");
    let parts: Vec<String> = doc
        .select(&selector)
        .filter(|el| title_shown(el))
        .map(|el| collapse_ws(&el.text().collect::<String>()))
        .filter(|t| !t.is_empty() && !is_bracketed(t))
        .take(8)
        .collect();
    let title = parts.join(" ");
    (!title.is_empty()).then(|| title.chars().take(500).collect())
}

/// Whether `t` is wholly in parentheses ("(Text with EEA relevance)").
fn is_bracketed(t: &str) -> bool {
    t.starts_with('(') && t.ends_with(')')
}

/// Whether a `<title>` element names the page: not hidden by its attributes nor inside a
/// hidden element (an SVG's title, one in a hidden `div`); `head` hides nothing here.
fn title_shown(el: &scraper::ElementRef<'_>) -> bool {
    !hidden_by_attributes(el.value())
        && el.ancestors().all(|a| match a.value() {
            scraper::Node::Element(e) if e.name() == "head" => !hidden_by_attributes(e),
            scraper::Node::Element(e) => !html_hidden(e),
            _ => true,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_hidden_elements_and_their_descendants_are_not_text() {
        let html = r#"<html><head><title hidden>T1</title><title>Page</title></head><body>
            <h1 aria-hidden="TRUE">Fake title</h1><p>Visible one.</p>
            <div style="DISPLAY : none !important"><p>s1 <b>s2</b></p></div>
            <div style="color:red;display:none">s3</div>
            <div style="display:none; display:block">Visible two.</div>
            <div style="display:none !important; display:block">s4</div>
            <span style="visibility: hidden">s5</span><span style="visibility:collapse">s6</span>
            <span style="display:/* c */none">s7</span>
            <section hidden><div style="visibility:visible">s8</div></section>
            <div aria-hidden=" true "><span>s9</span></div><div aria-hidden="false">Visible three.</div>
            <template><p>s10</p></template><noscript>s11</noscript><!-- s12 -->
            <svg><title>s13</title></svg><p>Visible <em>four</em>.</p></body></html>"#;
        let (title, text, headings) = html_to_text(html, &Deadline::never()).unwrap();
        assert_eq!(title.as_deref(), Some("Page"));
        assert_eq!(
            text,
            "Visible one.\n\nVisible two.\nVisible three.\n\nVisible four."
        );
        assert!(headings.is_empty(), "{headings:?}");
        let (title, ..) = html_to_text(
            "<svg><title>s</title></svg><h1 hidden>x</h1><h1>Shown</h1>",
            &Deadline::never(),
        )
        .unwrap();
        assert_eq!(title.as_deref(), Some("Shown"));
        assert!(!style_hides("display: block; visibility: visible"));
        assert!(style_hides("visibility:HIDDEN"));
        assert!(!style_hides("content: 'display'"));
    }

    #[test]
    fn html_nested_lists_are_indented() {
        let (_, text, _) = html_to_text(
            "<p>Intro</p><ol><li>a<ul><li>b</li></ul></li><li><p>c</p></li><li></li></ol>tail",
            &Deadline::never(),
        )
        .unwrap();
        // A <p> inside an item keeps paragraph spacing (a "loose" list item).
        assert_eq!(text, "Intro\n\n- a\n  - b\n\n- c\n\ntail");
    }

    #[test]
    fn an_html_title_that_is_a_file_id_gives_way_to_the_title_the_body_marks() {
        let html = "<html><head><title>L_2013176EN.01000101.xml</title></head><body>\
            <p class=\"doc-ti\">REGULATION (EU) No 575/2013</p><p class=\"doc-ti\">of 26 June 2013</p>\
            <p class=\"doc-ti\">(Text with EEA relevance)</p><h1>Other</h1></body></html>";
        let (title, ..) = html_to_text(html, &Deadline::never()).unwrap();
        assert_eq!(
            title.as_deref(),
            Some("REGULATION (EU) No 575/2013 of 26 June 2013")
        );
        let plain = "<title>Annual report 2.1</title><p class=\"doc-ti\">X</p>";
        let (title, ..) = html_to_text(plain, &Deadline::never()).unwrap();
        assert_eq!(title.as_deref(), Some("Annual report 2.1"));
        let (title, ..) = html_to_text(
            "<title>report_v2.html</title><h1>Report</h1>",
            &Deadline::never(),
        )
        .unwrap();
        assert_eq!(title.as_deref(), Some("Report"));
    }
}
