//! OCR: the text of image-only PDF pages and of image files, read by Tesseract's
//! command-line program (Debian `tesseract-ocr`, which `scripts/setup.sh` installs).
//!
//! A PDF page is rendered to a grey 300 dpi PNG by poppler's `pdftoppm`, then read by
//! `tesseract … tsv`, which gives every word with its box and its confidence (0–100). The
//! words are laid out as `pdftotext -layout` lays out a page (rows by position, words at
//! their character column), so [`super::pdflayout::assemble`] reads tables and columns in
//! scans as it does in born-digital pages. Both programs run as child processes under the
//! same limits as `pdftotext` (address space, time, output); Tesseract on one thread
//! (`OMP_THREAD_LIMIT=1`), which keeps its output the same from run to run.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use super::layout::OcrWord;
use super::pdftext::{self, PopplerFail, PopplerLimits};

/// Resolution pages are rendered at for OCR.
pub const DPI: u32 = 300;

/// Pages with fewer non-blank characters than this in their text layer are read by OCR.
pub const MIN_TEXT_CHARS: usize = 8;

/// Whether image-only pages and image files are read by OCR.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OcrMode {
    /// With Tesseract when it is installed; otherwise such pages are an error, as before.
    #[default]
    Auto,
    /// Never: image-only pages stay without text and image files are refused.
    Off,
}

impl OcrMode {
    /// The name used in settings.
    pub fn as_str(self) -> &'static str {
        match self {
            OcrMode::Auto => "auto",
            OcrMode::Off => "off",
        }
    }
}

impl std::fmt::Display for OcrMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for OcrMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        [OcrMode::Auto, OcrMode::Off]
            .into_iter()
            .find(|m| m.as_str() == s.trim())
            .ok_or_else(|| format!("expected auto or off, not {s:?}"))
    }
}

/// The installed `tesseract` and its version (`5.3.0`), looked up once on `PATH`.
pub fn tesseract() -> Option<&'static (PathBuf, String)> {
    static FOUND: OnceLock<Option<(PathBuf, String)>> = OnceLock::new();
    FOUND
        .get_or_init(|| {
            let exe = pdftext::find_on_path("tesseract")?;
            let out = std::process::Command::new(&exe)
                .arg("--version")
                .output()
                .ok()?;
            let text = String::from_utf8_lossy(&out.stdout).into_owned()
                + &String::from_utf8_lossy(&out.stderr);
            let version = text
                .lines()
                .find_map(|l| l.trim().strip_prefix("tesseract "))
                .unwrap_or("unknown")
                .trim()
                .to_string();
            Some((exe, version))
        })
        .as_ref()
}

/// The extractor name recorded for OCR text: `tesseract 5.3.0`.
pub fn engine_name() -> String {
    let version = tesseract().map_or("not installed", |(_, v)| v.as_str());
    format!("tesseract {version}")
}

/// One page read by OCR: its text, laid out like `pdftotext -layout`, and every word's
/// byte span in it with its confidence.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OcrPage {
    /// The page's text.
    pub text: String,
    /// Words in text order.
    pub words: Vec<OcrWord>,
}

/// Read image file `path` (PNG, JPEG, TIFF; a multi-page TIFF gives several pages).
pub fn image_pages(path: &Path, limits: PopplerLimits) -> Result<Vec<OcrPage>, PopplerFail> {
    let tsv = run_tesseract(path, limits)?;
    Ok(pages_from_tsv(&tsv))
}

/// Render page `page` (1-based) of PDF `pdf` and read it.
pub fn pdf_page(pdf: &Path, page: usize, limits: PopplerLimits) -> Result<OcrPage, PopplerFail> {
    let Some((pdftotext, _)) = pdftext::poppler() else {
        return Err(PopplerFail::Spawn("pdftoppm is not installed".into()));
    };
    let dir = tempfile::tempdir().map_err(|e| PopplerFail::Spawn(e.to_string()))?;
    let root = dir.path().join("page");
    let n = page.to_string();
    let dpi = DPI.to_string();
    let args: [&std::ffi::OsStr; 11] = [
        "-r".as_ref(),
        dpi.as_ref(),
        "-gray".as_ref(),
        "-png".as_ref(),
        "-singlefile".as_ref(),
        "-f".as_ref(),
        n.as_ref(),
        "-l".as_ref(),
        n.as_ref(),
        pdf.as_os_str(),
        root.as_os_str(),
    ];
    let render = PopplerLimits {
        output_bytes: 1 << 16,
        ..limits
    };
    pdftext::run_limited(&pdftotext.with_file_name("pdftoppm"), &args, render)?;
    let tsv = run_tesseract(&root.with_extension("png"), limits)?;
    Ok(pages_from_tsv(&tsv).into_iter().next().unwrap_or_default())
}

/// `tesseract IMAGE stdout tsv` on one thread, under `limits`.
fn run_tesseract(image: &Path, limits: PopplerLimits) -> Result<String, PopplerFail> {
    let Some((exe, _)) = tesseract() else {
        return Err(PopplerFail::Spawn("tesseract is not installed".into()));
    };
    let args: [&std::ffi::OsStr; 6] = [
        image.as_os_str(),
        "stdout".as_ref(),
        "-l".as_ref(),
        "eng".as_ref(),
        "--psm".as_ref(),
        "3".as_ref(),
    ];
    let mut all: Vec<&std::ffi::OsStr> = args.to_vec();
    all.push("tsv".as_ref());
    let out = pdftext::run_limited_env(exe, &all, limits, &[("OMP_THREAD_LIMIT", "1")])?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// One word of Tesseract's TSV.
#[derive(Debug, Clone, PartialEq)]
struct Box {
    page: usize,
    left: i64,
    top: i64,
    width: i64,
    height: i64,
    conf: f64,
    text: String,
}

/// The words (level 5 rows with text) of Tesseract's TSV output.
fn words_of(tsv: &str) -> Vec<Box> {
    tsv.lines()
        .skip(1)
        .filter_map(|line| {
            let cols: Vec<&str> = line.splitn(12, '\t').collect();
            if cols.len() < 12 || cols[0] != "5" || cols[11].trim().is_empty() {
                return None;
            }
            let num = |i: usize| cols[i].trim().parse::<i64>().ok();
            Some(Box {
                page: num(1)?.max(1) as usize,
                left: num(6)?,
                top: num(7)?,
                width: num(8)?.max(1),
                height: num(9)?.max(1),
                conf: cols[10].trim().parse().unwrap_or(0.0),
                text: cols[11].split_whitespace().collect::<Vec<_>>().join(" "),
            })
        })
        .collect()
}

/// Tesseract's TSV as pages of laid-out text (pages without words are empty).
pub fn pages_from_tsv(tsv: &str) -> Vec<OcrPage> {
    let words = words_of(tsv);
    let last = words.iter().map(|w| w.page).max().unwrap_or(1);
    (1..=last)
        .map(|p| {
            let on: Vec<&Box> = words.iter().filter(|w| w.page == p).collect();
            lay_out(&on)
        })
        .collect()
}

/// The median of `v` (0 when empty).
fn median(mut v: Vec<i64>) -> i64 {
    v.sort_unstable();
    v.get(v.len() / 2).copied().unwrap_or(0)
}

/// Words placed as `pdftotext -layout` places them: rows of words whose vertical centres
/// are within half a line of each other, each word at its character column (the median
/// character width), a blank line where rows are more than a line apart.
fn lay_out(words: &[&Box]) -> OcrPage {
    let line_h = median(words.iter().map(|w| w.height).collect()).max(1);
    let char_w = median(
        words
            .iter()
            .map(|w| w.width / w.text.chars().count().max(1) as i64)
            .collect(),
    )
    .max(1);
    let mut sorted: Vec<&Box> = words.to_vec();
    sorted.sort_by_key(|w| (w.top + w.height / 2, w.left));
    let mut rows: Vec<Vec<&Box>> = Vec::new();
    for w in sorted {
        let centre = w.top + w.height / 2;
        match rows.last_mut() {
            Some(row) if (centre - row_centre(row)).abs() * 2 <= line_h => row.push(w),
            _ => rows.push(vec![w]),
        }
    }
    for row in &mut rows {
        row.sort_by_key(|w| w.left);
    }
    // Rows further apart than one and a half times the usual line pitch (measured between
    // row tops, which capitals and ascenders set) are separated by a blank line.
    let tops: Vec<i64> = rows
        .iter()
        .map(|r| r.iter().map(|w| w.top).min().unwrap_or(0))
        .collect();
    let pitch = median(tops.windows(2).map(|w| w[1] - w[0]).collect()).max(line_h);
    let mut page = OcrPage::default();
    for (i, row) in rows.iter().enumerate() {
        if i > 0 && (tops[i] - tops[i - 1]) * 2 > pitch * 3 {
            page.text.push('\n');
        }
        push_row(&mut page, row, char_w);
    }
    page
}

/// The mean vertical centre of a row.
fn row_centre(row: &[&Box]) -> i64 {
    row.iter().map(|w| w.top + w.height / 2).sum::<i64>() / row.len().max(1) as i64
}

/// Append one row. A word closer to the previous one than [`WORD_GAP`] character widths
/// follows it after one space (justified prose stays prose); a word further away starts at
/// its own character column, at least two spaces on (table cells and columns stay apart).
fn push_row(page: &mut OcrPage, row: &[&Box], char_w: i64) {
    let mut col = 0usize;
    let mut prev_end: Option<i64> = None;
    for w in row {
        let want = (w.left.max(0) / char_w) as usize;
        let pad = match prev_end {
            None => want,
            Some(end) if (w.left - end) * 2 <= char_w * WORD_GAP => 1,
            Some(_) => want.saturating_sub(col).max(2),
        };
        let pad = pad.min(400);
        page.text.extend(std::iter::repeat_n(' ', pad));
        let start = page.text.len();
        page.text.push_str(&w.text);
        page.words.push(OcrWord {
            start,
            end: page.text.len(),
            conf: w.conf.clamp(0.0, 100.0).round() as u8,
        });
        col += pad + w.text.chars().count();
        prev_end = Some(w.left + w.width);
    }
    page.text.push('\n');
}

/// Twice the widest gap, in character widths, between two words of one phrase.
const WORD_GAP: i64 = 5;

/// Place each page's OCR words in the assembled text: page `p`'s words are searched, in
/// order, within that page's range of `text` (`starts` = the layout's page offsets). A word
/// the assembly changed (a hyphen joined across lines) is not placed.
pub fn place_words(text: &str, starts: &[usize], pages: &[(usize, OcrPage)]) -> Vec<OcrWord> {
    let mut out = Vec::new();
    for (p, page) in pages {
        let Some(&from) = starts.get(p.saturating_sub(1)) else {
            continue;
        };
        let to = starts.get(*p).copied().unwrap_or(text.len());
        let region = &text[from..to];
        let mut cursor = 0;
        for w in &page.words {
            let word = &page.text[w.start..w.end];
            let at = region[cursor..]
                .find(word)
                .map(|i| cursor + i)
                .or_else(|| region.find(word).filter(|&i| i >= cursor));
            if let Some(i) = at {
                out.push(OcrWord {
                    start: from + i,
                    end: from + i + word.len(),
                    conf: w.conf,
                });
                cursor = i + word.len();
            }
        }
    }
    out.sort_by_key(|w| w.start);
    out.dedup_by(|b, a| b.start < a.end);
    out
}

/// Limits for one OCR step: the PDF limits, with a per-page time limit.
pub fn limits(timeout: Duration, memory_bytes: u64) -> PopplerLimits {
    PopplerLimits {
        timeout,
        memory_bytes,
        output_bytes: 16 << 20,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TSV: &str = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext
1\t1\t0\t0\t0\t0\t0\t0\t2550\t3300\t-1\t
5\t1\t1\t1\t1\t1\t300\t100\t100\t40\t96.5\tTotal
5\t1\t1\t1\t1\t2\t420\t102\t50\t40\t91.2\tdue
5\t1\t2\t1\t1\t1\t1500\t98\t125\t40\t42.0\t$1,250
5\t1\t3\t1\t1\t1\t300\t150\t150\t40\t90.0\tPaid
5\t1\t3\t1\t2\t1\t300\t200\t150\t40\t90.0\tin
5\t1\t3\t1\t3\t1\t300\t400\t150\t40\t88.0\tSigned
4\t1\t3\t1\t1\t0\t300\t300\t150\t40\t-1\t
";

    #[test]
    fn words_are_laid_out_in_rows_at_their_columns_with_their_confidence() {
        let pages = pages_from_tsv(TSV);
        assert_eq!(pages.len(), 1);
        let page = &pages[0];
        let lines: Vec<&str> = page.text.lines().collect();
        // One row for the three words on the same line, whatever block Tesseract gave them.
        assert_eq!(
            lines[0].split_whitespace().collect::<Vec<_>>(),
            ["Total", "due", "$1,250"]
        );
        assert!(
            lines[0].contains("due      "),
            "columns kept: {:?}",
            lines[0]
        );
        assert_eq!((lines[1].trim(), lines[2].trim()), ("Paid", "in"));
        assert_eq!(lines[3], "", "a gap of 1.5 line pitches is a blank line");
        assert_eq!(lines[4].trim(), "Signed");
        let spans: Vec<(&str, u8)> = page
            .words
            .iter()
            .map(|w| (&page.text[w.start..w.end], w.conf))
            .collect();
        assert_eq!(
            spans,
            [
                ("Total", 97),
                ("due", 91),
                ("$1,250", 42),
                ("Paid", 90),
                ("in", 90),
                ("Signed", 88)
            ]
        );
    }

    #[test]
    fn a_multi_page_tsv_gives_its_pages_and_garbage_gives_none() {
        let two = format!("{TSV}5\t2\t1\t1\t1\t1\t10\t10\t50\t40\t90\tNext\n");
        let pages = pages_from_tsv(&two);
        assert_eq!(pages.len(), 2);
        assert_eq!(pages[1].text.trim(), "Next");
        assert!(pages_from_tsv("not a tsv\n5\tx\n")
            .iter()
            .all(|p| p.words.is_empty()));
    }

    #[test]
    fn words_are_placed_in_the_assembled_text_of_their_page() {
        let page = pages_from_tsv(TSV).remove(0);
        let text = "Cover page\nTotal due $1,250\nPaid in\n\nSigned\n";
        let words = place_words(text, &[0, 11], &[(2, page)]);
        let placed: Vec<&str> = words.iter().map(|w| &text[w.start..w.end]).collect();
        assert_eq!(placed, ["Total", "due", "$1,250", "Paid", "in", "Signed"]);
        assert!(words.iter().all(|w| w.start >= 11));
    }

    #[test]
    fn modes_round_trip() {
        for m in [OcrMode::Auto, OcrMode::Off] {
            assert_eq!(m.as_str().parse::<OcrMode>(), Ok(m));
        }
        assert!("tesseract".parse::<OcrMode>().is_err());
    }
}
