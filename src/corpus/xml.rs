//! XML loader: documents published as XML (Formex from EUR-Lex, eCFR and USLM from the
//! U.S. Government Publishing Office, Akoma Ntoso, DocBook, JATS…) as readable text.
//!
//! The vocabulary is not assumed; the structure is read:
//!
//! * an element holding text of its own beside its children (mixed content) is one
//!   paragraph, its children inline (`<P>(a) A <I>small</I> quantity</P>`);
//! * an element holding only elements is a container: each child is a block of its own,
//!   and blocks are separated by a blank line;
//! * a block that is only a label ("(1)", "1.", "(iv)") or a run-in head ("Authority:")
//!   opens the next block's line: `<NO.P>(1)</NO.P><TXT>The protection…</TXT>` reads
//!   "(1) The protection…";
//! * headings are the elements named as headings in the common vocabularies (`TI`,
//!   `TI.ART`, `STI.ART`, `HEAD`, `heading`, `title`…); their level is how many
//!   ancestors carry a heading;
//! * table rows (`TR`, `row`) are one line of cells separated by ` | `;
//! * footnotes (`NOTE`, `FTNT`, `footnote`) are lifted out of the sentence they interrupt
//!   and listed at the end under "Notes" (text that does not bind);
//! * metadata (`BIB.INSTANCE`, `meta`, `teiHeader`…), comments and processing
//!   instructions are left out; Formex's quotation elements with a `CODE` give their
//!   character.
//!
//! The title is the document's own: the first `TITLE` / `docTitle` element (parts wholly
//! in parentheses, such as "(Text with EEA relevance)", left out), else its first
//! heading. Entities are never resolved beyond XML's five and character references: a
//! DOCTYPE is ignored and any other reference (an XXE `&xxe;`) is kept as written.

use quick_xml::events::{BytesRef, BytesStart, Event};
use quick_xml::Reader;

/// Names the method and version that produced the text; bump when the output changes.
pub const EXTRACTOR: &str = "attest-xml 1 (quick-xml 0.42)";
/// Events read between two looks at the deadline.
const DEADLINE_EVERY: usize = 4096;
/// Longest text that counts as a label block ("(iv)", "12.", "1a").
const LABEL_BYTES: usize = 8;
/// Most words of a run-in head ("Authority:").
const RUN_IN_WORDS: usize = 3;

/// Lower-case local names of heading elements.
const HEADINGS: &[&str] = &[
    "title",
    "ti",
    "sti",
    "ti.art",
    "sti.art",
    "ti.cjt",
    "head",
    "heading",
    "hd",
    "subtitle",
    "doctitle",
    "longtitle",
    "subject",
];
/// Lower-case local names of title elements (the document's title, when first).
const TITLES: &[&str] = &["title", "doctitle", "longtitle"];
/// Lower-case local names of metadata left out of the text.
const METADATA: &[&str] = &[
    "bib.instance",
    "meta",
    "metadata",
    "teiheader",
    "info.prod",
    "mgt.doc",
    "script",
    "style",
    "fmx.gen",
    "management",
];
/// Lower-case local names of footnotes.
const NOTES: &[&str] = &["note", "ftnt", "footnote", "fn", "authorialnote"];
/// Lower-case local names of table rows, and of their cells.
const ROWS: &[&str] = &["tr", "row"];
const CELLS: &[&str] = &["td", "th", "entry", "cell"];

/// Why an XML file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum XmlError {
    /// Not well-formed.
    #[error("malformed XML: {0}")]
    Malformed(String),
    /// Elements nest deeper than the limit.
    #[error("XML elements nest deeper than {limit} (at byte {at})")]
    TooDeep {
        /// The limit.
        limit: usize,
        /// Where the limit was passed.
        at: u64,
    },
    /// The deadline passed.
    #[error("timed out")]
    TimedOut,
}

/// An XML document as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XmlDoc {
    /// The title the markup gives, if any.
    pub title: Option<String>,
    /// The readable text.
    pub text: String,
    /// Headings (level, text), in order.
    pub headings: Vec<(u8, String)>,
}

enum Node {
    El { name: String, children: Vec<usize> },
    Text(String),
}

/// The document tree (node 0 is a synthetic root).
struct Tree {
    nodes: Vec<Node>,
}

fn local_lower(e: &BytesStart<'_>) -> String {
    e.local_name().as_ref().to_ascii_lowercase()
}

/// The character a Formex quotation element stands for (`<QUOT.START CODE="2018"/>`).
fn quote_char(e: &BytesStart<'_>) -> Option<char> {
    let a = e
        .attributes()
        .with_checks(false)
        .flatten()
        .find(|a| a.key.local_name().as_ref().eq_ignore_ascii_case("code"))?;
    let code: &str = &a.value;
    char::from_u32(u32::from_str_radix(code, 16).ok()?)
}

/// The text of a reference: a character reference or one of XML's five entities; any
/// other is kept as written.
fn reference(r: &BytesRef<'_>) -> String {
    if let Ok(Some(c)) = r.resolve_char_ref() {
        return c.to_string();
    }
    match quick_xml::escape::resolve_predefined_entity(r) {
        Some(s) => s.to_string(),
        None => format!("&{};", &**r),
    }
}

impl Tree {
    fn push_text(&mut self, parent: usize, s: &str) {
        let last = match &self.nodes[parent] {
            Node::El { children, .. } => children.last().copied(),
            Node::Text(_) => None,
        };
        if let Some(Node::Text(t)) = last.map(|i| &mut self.nodes[i]) {
            t.push_str(s);
            return;
        }
        self.add(parent, Node::Text(s.to_string()));
    }

    fn add(&mut self, parent: usize, node: Node) -> usize {
        let id = self.nodes.len();
        self.nodes.push(node);
        if let Node::El { children, .. } = &mut self.nodes[parent] {
            children.push(id);
        }
        id
    }

    /// Parse `source`, nesting at most `max_depth`, until `expired` says stop.
    fn parse(source: &str, max_depth: usize, expired: &dyn Fn() -> bool) -> Result<Tree, XmlError> {
        let mut reader = Reader::from_str(source);
        reader.config_mut().check_end_names = true;
        let mut tree = Tree {
            nodes: vec![Node::El {
                name: String::new(),
                children: Vec::new(),
            }],
        };
        let mut stack: Vec<usize> = vec![0];
        for n in 0usize.. {
            if n % DEADLINE_EVERY == DEADLINE_EVERY - 1 && expired() {
                return Err(XmlError::TimedOut);
            }
            let parent = *stack.last().expect("the root is never popped");
            let event = reader.read_event().map_err(|e| {
                XmlError::Malformed(format!("{e} (at byte {})", reader.error_position()))
            })?;
            match event {
                Event::Start(e) => {
                    if stack.len() > max_depth {
                        let at = reader.buffer_position();
                        return Err(XmlError::TooDeep {
                            limit: max_depth,
                            at,
                        });
                    }
                    let name = local_lower(&e);
                    let id = tree.add(parent, element(name));
                    stack.push(id);
                }
                Event::Empty(e) => {
                    match quote_char(&e).filter(|_| local_lower(&e).starts_with("quot")) {
                        Some(c) => tree.push_text(parent, &c.to_string()),
                        None => {
                            tree.add(parent, element(local_lower(&e)));
                        }
                    }
                }
                Event::End(_) => {
                    stack.pop();
                }
                Event::Text(t) => tree.push_text(parent, &t.xml10_content()),
                Event::CData(t) => tree.push_text(parent, &t.xml10_content()),
                Event::GeneralRef(r) => tree.push_text(parent, &reference(&r)),
                Event::Eof => break,
                _ => {} // declarations, DOCTYPE, comments, processing instructions
            }
        }
        if stack.len() > 1 {
            return Err(XmlError::Malformed("unexpected end of file".into()));
        }
        Ok(tree)
    }
}

fn element(name: String) -> Node {
    Node::El {
        name,
        children: Vec::new(),
    }
}

/// One piece of the rendered text.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Block(String),
    Heading(u8, String),
}

/// Whether `s` is a paragraph label ("(1)", "1.", "(iv)", "12", "a)").
fn is_label(s: &str) -> bool {
    let core = s.trim_start_matches('(').trim_end_matches(['.', ')']);
    s.len() <= LABEL_BYTES
        && !core.is_empty()
        && core.chars().all(|c| c.is_ascii_alphanumeric())
        && (s != core || core.chars().all(|c| c.is_ascii_digit()))
}

/// Whether `s` is a run-in head ("Authority:", "Source:").
fn is_run_in(s: &str) -> bool {
    s.ends_with(':') && s.split_whitespace().count() <= RUN_IN_WORDS
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Renders the tree.
struct Render<'t> {
    tree: &'t Tree,
    notes: Vec<String>,
}

impl Render<'_> {
    fn name(&self, id: usize) -> &str {
        match &self.tree.nodes[id] {
            Node::El { name, .. } => name,
            Node::Text(_) => "",
        }
    }

    fn children(&self, id: usize) -> &[usize] {
        match &self.tree.nodes[id] {
            Node::El { children, .. } => children,
            Node::Text(_) => &[],
        }
    }

    fn is(&self, id: usize, set: &[&str]) -> bool {
        set.contains(&self.name(id))
    }

    /// Whether element `id` holds text of its own (mixed content).
    fn mixed(&self, id: usize) -> bool {
        self.children(id)
            .iter()
            .any(|&c| matches!(&self.tree.nodes[c], Node::Text(t) if !t.trim().is_empty()))
    }

    /// The text of `id` and its descendants on one line; footnotes are lifted out.
    fn inline(&mut self, id: usize) -> String {
        let mut raw = String::new();
        self.inline_into(id, &mut raw);
        collapse(&raw)
    }

    fn inline_into(&mut self, id: usize, out: &mut String) {
        let tree = self.tree;
        match &tree.nodes[id] {
            Node::Text(t) => out.push_str(t),
            Node::El { children, .. } => {
                if self.is(id, METADATA) {
                    return;
                }
                if self.is(id, NOTES) {
                    let note = self.inline_note(id);
                    self.notes.extend(note);
                    return;
                }
                let row = self.is(id, ROWS);
                for (n, &c) in children.iter().enumerate() {
                    if row && n > 0 && self.is(c, CELLS) {
                        out.push_str(" | ");
                    } else if self.is(c, CELLS) || self.is(c, ROWS) {
                        out.push(' ');
                    }
                    self.inline_into(c, out);
                }
            }
        }
    }

    fn inline_note(&mut self, id: usize) -> Option<String> {
        let mut raw = String::new();
        for &c in self.children(id).to_vec().iter() {
            self.inline_into(c, &mut raw);
            raw.push(' ');
        }
        let note = collapse(&raw);
        (!note.is_empty()).then_some(note)
    }

    /// The pieces of element `id`, whose ancestors carry `depth` headings.
    fn pieces(&mut self, id: usize, depth: u8, out: &mut Vec<Piece>) {
        if self.is(id, METADATA) {
            return;
        }
        if self.is(id, NOTES) {
            let note = self.inline_note(id);
            self.notes.extend(note);
            return;
        }
        if self.is(id, HEADINGS) {
            let h = self.heading_text(id);
            if !h.is_empty() {
                out.push(Piece::Heading(depth.clamp(1, 6), h));
            }
            return;
        }
        if self.is(id, ROWS) || self.mixed(id) {
            let line = self.inline(id);
            if !line.is_empty() {
                out.push(Piece::Block(line));
            }
            return;
        }
        let kids = self.children(id).to_vec();
        let headed = kids.iter().any(|&c| self.is(c, HEADINGS));
        let inner = depth.saturating_add(u8::from(headed));
        let mut mine: Vec<Piece> = Vec::new();
        for c in kids {
            if matches!(self.tree.nodes[c], Node::El { .. }) {
                self.pieces(c, inner, &mut mine);
            }
        }
        out.extend(join_labels(mine));
    }

    /// A heading's text on one line (its parts wholly in parentheses kept).
    fn heading_text(&mut self, id: usize) -> String {
        let mut parts: Vec<Piece> = Vec::new();
        self.pieces_flat(id, &mut parts);
        let texts: Vec<String> = parts
            .into_iter()
            .map(|p| match p {
                Piece::Block(t) | Piece::Heading(_, t) => t,
            })
            .collect();
        texts.join(" ")
    }

    /// The blocks inside `id` as if it were a container (headings inside it included as
    /// blocks).
    fn pieces_flat(&mut self, id: usize, out: &mut Vec<Piece>) {
        if self.mixed(id) || self.children(id).iter().all(|&c| !self.is_element(c)) {
            let line = self.inline(id);
            if !line.is_empty() {
                out.push(Piece::Block(line));
            }
            return;
        }
        for c in self.children(id).to_vec() {
            if self.is_element(c) && !self.is(c, METADATA) && !self.is(c, NOTES) {
                self.pieces_flat(c, out);
            }
        }
    }

    fn is_element(&self, id: usize) -> bool {
        matches!(self.tree.nodes[id], Node::El { .. })
    }

    /// The document's title: its first title element's parts (those wholly in
    /// parentheses left out), else its first heading.
    fn title(&mut self, pieces: &[Piece]) -> Option<String> {
        let first = (0..self.tree.nodes.len()).find(|&i| self.is(i, TITLES));
        if let Some(id) = first {
            let mut parts = Vec::new();
            self.pieces_flat(id, &mut parts);
            let kept: Vec<String> = parts
                .into_iter()
                .filter_map(|p| match p {
                    Piece::Block(t) if !(t.starts_with('(') && t.ends_with(')')) => Some(t),
                    _ => None,
                })
                .collect();
            if !kept.is_empty() {
                return Some(kept.join(" ").chars().take(500).collect());
            }
        }
        pieces.iter().find_map(|p| match p {
            Piece::Heading(_, h) => Some(h.chars().take(500).collect()),
            Piece::Block(_) => None,
        })
    }
}

/// Blocks that are only a label or a run-in head open the next block's line.
fn join_labels(pieces: Vec<Piece>) -> Vec<Piece> {
    let mut out: Vec<Piece> = Vec::with_capacity(pieces.len());
    let mut owed: Option<String> = None;
    for p in pieces {
        match p {
            Piece::Block(t) => {
                let t = match owed.take() {
                    Some(o) => format!("{o} {t}"),
                    None => t,
                };
                if is_label(&t) || is_run_in(&t) {
                    owed = Some(t);
                } else {
                    out.push(Piece::Block(t));
                }
            }
            h => {
                out.extend(owed.take().map(Piece::Block));
                out.push(h);
            }
        }
    }
    out.extend(owed.map(Piece::Block));
    out
}

/// Convert an XML document to text. `expired` is polled while parsing.
pub fn xml_to_text(
    source: &str,
    max_depth: usize,
    expired: &dyn Fn() -> bool,
) -> Result<XmlDoc, XmlError> {
    let tree = Tree::parse(source, max_depth, expired)?;
    let mut r = Render {
        tree: &tree,
        notes: Vec::new(),
    };
    let mut pieces = Vec::new();
    r.pieces(0, 0, &mut pieces);
    let title = r.title(&pieces);
    if !r.notes.is_empty() {
        pieces.push(Piece::Heading(1, "Notes".into()));
        pieces.extend(std::mem::take(&mut r.notes).into_iter().map(Piece::Block));
    }
    let mut text = String::new();
    let mut headings = Vec::new();
    for p in pieces {
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        match p {
            Piece::Block(t) => text.push_str(&t),
            Piece::Heading(level, h) => {
                text.push_str(&h);
                headings.push((level, h));
            }
        }
    }
    Ok(XmlDoc {
        title,
        text,
        headings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(xml: &str) -> XmlDoc {
        xml_to_text(xml, 64, &|| false).unwrap()
    }

    #[test]
    fn labels_open_their_paragraph_and_inline_markup_stays_in_the_sentence() {
        let d = text(
            "<ACT><TITLE><TI><P><HT>Regulation</HT> (EU) 1/2016</P><P>(Text with EEA relevance)</P></TI></TITLE>\
             <CONSID><NP><NO.P>(1)</NO.P><TXT>Protection is a right.</TXT></NP></CONSID>\
             <ARTICLE><TI.ART>Article 1</TI.ART><STI.ART>Scope</STI.ART>\
             <PARAG><NO.PARAG>1.</NO.PARAG><ALINEA>This applies to <I>all</I> data.</ALINEA></PARAG>\
             </ARTICLE></ACT>",
        );
        assert_eq!(d.title.as_deref(), Some("Regulation (EU) 1/2016"));
        assert!(
            d.text.contains("\n\n(1) Protection is a right.\n\n"),
            "{}",
            d.text
        );
        assert!(
            d.text.contains("1. This applies to all data."),
            "{}",
            d.text
        );
        let levels: Vec<(u8, &str)> = d.headings.iter().map(|(l, h)| (*l, h.as_str())).collect();
        assert_eq!(
            levels,
            vec![
                (1, "Regulation (EU) 1/2016 (Text with EEA relevance)"),
                (2, "Article 1"),
                (2, "Scope")
            ]
        );
    }

    #[test]
    fn footnotes_move_to_the_end_metadata_is_dropped_and_quotes_are_characters() {
        let d = text(
            "<ACT><BIB.INSTANCE><DATE>20160427</DATE></BIB.INSTANCE>\
             <VISA>Having regard to the opinion<NOTE><P>OJ C 229, p. 90.</P></NOTE>,</VISA>\
             <P>the <QUOT.START CODE=\"2018\"/>data<QUOT.END CODE=\"2019\"/> &amp; more &xxe; &#167;</P></ACT>",
        );
        assert!(!d.text.contains("20160427"), "{}", d.text);
        assert!(
            d.text.starts_with("Having regard to the opinion,"),
            "{}",
            d.text
        );
        assert!(
            d.text.contains("the \u{2018}data\u{2019} & more &xxe; §"),
            "{}",
            d.text
        );
        assert!(d.text.ends_with("Notes\n\nOJ C 229, p. 90."), "{}", d.text);
    }

    #[test]
    fn run_in_heads_rows_and_sections_read_as_a_reader_sees_them() {
        let d = text(
            "<DIV5><HEAD>PART 2\u{2014}GENERAL</HEAD><AUTH><HED>Authority:</HED><PSPACE>44 U.S.C. 1506.</PSPACE></AUTH>\
             <DIV8><HEAD>&#xA7; 2.1 Scope.</HEAD><P>(a) This chapter applies.</P>\
             <TABLE><TR><TH>Waste</TH><TH>Code</TH></TR><TR><TD>Lead</TD><TD>D008</TD></TR></TABLE></DIV8></DIV5>",
        );
        assert_eq!(d.title.as_deref(), Some("PART 2\u{2014}GENERAL"));
        assert!(d.text.contains("Authority: 44 U.S.C. 1506."), "{}", d.text);
        assert!(
            d.text.contains("§ 2.1 Scope.\n\n(a) This chapter applies."),
            "{}",
            d.text
        );
        assert!(d.text.contains("Waste | Code\n\nLead | D008"), "{}", d.text);
        assert_eq!(d.headings[1], (2, "§ 2.1 Scope.".to_string()));
    }

    #[test]
    fn malformed_deep_and_slow_documents_are_refused() {
        assert!(matches!(
            xml_to_text("<a><b></a>", 64, &|| false),
            Err(XmlError::Malformed(_))
        ));
        assert!(matches!(
            xml_to_text("<a><b>text", 64, &|| false),
            Err(XmlError::Malformed(_))
        ));
        let deep = "<a>".repeat(100) + &"</a>".repeat(100);
        assert!(matches!(
            xml_to_text(&deep, 64, &|| false),
            Err(XmlError::TooDeep { limit: 64, .. })
        ));
        let long = "<a>".to_string() + &"<b>x</b>".repeat(10_000) + "</a>";
        assert!(matches!(
            xml_to_text(&long, 64, &|| true),
            Err(XmlError::TimedOut)
        ));
    }
}
