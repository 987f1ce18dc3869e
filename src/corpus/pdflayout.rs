//! Placeholder: pages joined, whitespace normalised.
use super::layout::Layout;

/// Version of the assembly rules, recorded with each document's extractor.
pub const LAYOUT_VERSION: u32 = 0;

/// Turn the `pdftotext -layout` text of each page into clean stored text and its layout.
pub fn assemble(pages: &[String]) -> (String, Layout) {
    let mut text = String::new();
    let mut layout = Layout::default();
    for page in pages {
        let clean: Vec<String> = page
            .lines()
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|l| !l.is_empty())
            .collect();
        if !text.is_empty() && !clean.is_empty() {
            text.push_str("\n\n");
        }
        layout.pages.push(text.len());
        text.push_str(&clean.join("\n"));
    }
    (text, layout)
}
