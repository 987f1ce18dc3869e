//! Builds the review-speed submission: the seven documents of the blind project set
//! rendered as PDFs (wrapped at 95 characters, 40 lines a page) into `DIR/pdf`, and a
//! 23-requirement checklist (the project set's 18 and 5 of the forms set) as
//! `DIR/checklist.json`. With the ten PDFs of `../shared/data/realdocs/docs` beside them
//! that is 17 PDFs; `scripts/review-speed.sh` ingests them and times the review.
//! `cargo run --release --example review_speed DIR`.

#[path = "../tests/common/docgen.rs"]
mod docgen;

use std::path::{Path, PathBuf};

const WRAP: usize = 95;
const LINES_PER_PAGE: usize = 40;

/// `text` as PDF pages: ASCII only (Helvetica's standard encoding), wrapped, paged.
fn pages(text: &str) -> Vec<Vec<String>> {
    let ascii: String = text
        .chars()
        .map(|c| match c {
            '–' | '—' => '-',
            '‘' | '’' => '\'',
            '“' | '”' => '"',
            '²' => '2',
            c if c.is_ascii() => c,
            _ => '?',
        })
        .collect();
    let mut lines = Vec::new();
    for line in ascii.lines() {
        let mut cur = String::new();
        for w in line.split_whitespace() {
            if !cur.is_empty() && cur.len() + 1 + w.len() > WRAP {
                lines.push(std::mem::take(&mut cur));
            }
            if !cur.is_empty() {
                cur.push(' ');
            }
            cur.push_str(w);
        }
        lines.push(cur);
    }
    lines.chunks(LINES_PER_PAGE).map(|c| c.to_vec()).collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = PathBuf::from(std::env::args().nth(1).ok_or("usage: review_speed DIR")?);
    let pdf = dir.join("pdf");
    std::fs::create_dir_all(&pdf)?;
    let docs = Path::new("tests/fixtures/review-blind-projects/docs");
    let mut n_pages = 0;
    for e in std::fs::read_dir(docs)? {
        let p = e?.path();
        let text = std::fs::read_to_string(&p)?;
        let pages = pages(&text);
        n_pages += pages.len();
        let laid: Vec<Vec<docgen::Line>> = pages
            .iter()
            .map(|pg| {
                pg.iter()
                    .enumerate()
                    .map(|(i, l)| (50, 760 - 14 * i as u32, l.as_str()))
                    .collect()
            })
            .collect();
        let name = p.file_stem().unwrap().to_string_lossy().to_string();
        std::fs::write(
            pdf.join(format!("{name}.pdf")),
            docgen::paged_pdf(&laid, false),
        )?;
    }
    let projects: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(
        "tests/fixtures/review-blind-projects/checklist.json",
    )?)?;
    let forms: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(
        "tests/fixtures/review-blind-forms/checklist.json",
    )?)?;
    let mut reqs = projects["requirements"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    reqs.extend(
        forms["requirements"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|r| r["validation_type"] == "structured_field")
            .take(23 - reqs.len().min(23))
            .cloned(),
    );
    let checklist =
        serde_json::json!({"name": "review speed: 23 requirements", "requirements": reqs});
    std::fs::write(
        dir.join("checklist.json"),
        serde_json::to_string_pretty(&checklist)?,
    )?;
    println!(
        "{} requirements, 7 PDFs of {n_pages} pages in {}",
        reqs.len(),
        pdf.display()
    );
    Ok(())
}
