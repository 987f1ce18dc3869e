//! A PDF's title as its first page prints it: the lines in the largest type on the upper
//! half of page 1, when that type stands out from the body text. Used when the file's
//! metadata has no title, or one that is only a file name ("hlt2004.dvi", "Microsoft Word
//! - draft3.doc", the file's own stem).

use super::forms::Word;
use super::glue;

/// How much larger than the page's typical word the title type must be.
const STANDS_OUT: f32 = 1.15;

/// Words of a line in the title type: at least this share of the largest height.
const SAME_TYPE: f32 = 0.9;

/// Width of the left margin no title reaches into, in points (three quarters of an inch).
const MARGIN: f32 = 54.0;

/// Most words a title has.
const MAX_WORDS: usize = 30;

/// Most lines a title runs to.
const MAX_LINES: usize = 3;

/// Extensions a metadata title that is really a file name ends with.
const FILE_ENDINGS: &[&str] = &[
    ".dvi", ".pdf", ".doc", ".docx", ".tex", ".ps", ".eps", ".rtf", ".indd", ".odt", ".txt",
    ".qxd", ".wpd",
];

/// Whether a metadata title says nothing a reader would call the title: empty, a file
/// name, the file's own stem, a word processor's "Microsoft Word - …" label, a
/// proceedings volume's name, or mostly figures (a catalogue number and page range).
pub fn says_nothing(title: &str, stem: &str) -> bool {
    let t = title.trim();
    let lower = t.to_lowercase();
    let visible = t.chars().filter(|c| !c.is_whitespace()).count();
    let letters = t.chars().filter(|c| c.is_alphabetic()).count();
    t.is_empty()
        || letters * 4 < visible
        || lower.starts_with("proceedings of")
        || lower == stem.to_lowercase()
        || lower == "untitled"
        || lower.starts_with("microsoft word - ")
        || FILE_ENDINGS.iter().any(|e| lower.ends_with(e))
        || (!t.contains(' ') && t.chars().any(|c| c.is_ascii_digit() || c == '_'))
}

/// The title page 1 prints, from its words (`height`: the page's height in points).
pub fn title(height: f32, words: &[Word]) -> Option<String> {
    let size = |w: &Word| w.bbox[3] - w.bbox[1];
    // Upright words in the type area only: a stamp set sideways in the margin (a preprint
    // server's) has boxes taller than they are wide.
    let upright = |w: &Word| {
        (w.text.chars().count() <= 2 || size(w) <= 1.5 * (w.bbox[2] - w.bbox[0]))
            && w.bbox[2] > MARGIN
    };
    let upper: Vec<&Word> = words
        .iter()
        .filter(|w| w.bbox[1] < height / 2.0 && w.text.chars().any(char::is_alphabetic))
        .filter(|w| upright(w))
        .collect();
    let largest = upper.iter().map(|w| size(w)).fold(0.0f32, f32::max);
    let mut sizes: Vec<f32> = words.iter().map(size).filter(|h| *h > 0.0).collect();
    sizes.sort_by(f32::total_cmp);
    let typical = *sizes.get(sizes.len() / 2)?;
    if largest < typical * STANDS_OUT {
        return None;
    }
    let big: Vec<&Word> = upper
        .into_iter()
        .filter(|w| size(w) >= largest * SAME_TYPE)
        .collect();
    let first = big.first()?;
    // The title's lines follow one another closely; a later line in the same type (a
    // section heading) is not part of it.
    let mut lines: Vec<Vec<&Word>> = Vec::new();
    let mut bottom = first.bbox[1];
    for w in &big {
        if w.bbox[1] > bottom + 2.0 * largest {
            break;
        }
        match lines.last_mut() {
            Some(line) if (w.bbox[1] - line[0].bbox[1]).abs() < 0.5 * largest => line.push(w),
            _ => lines.push(vec![w]),
        }
        bottom = w.bbox[3];
    }
    // Every word set on the title's lines, small capitals of a smaller size included.
    let within = |w: &Word| {
        let mid = (w.bbox[1] + w.bbox[3]) / 2.0;
        lines
            .iter()
            .any(|l| l.iter().any(|b| mid >= b.bbox[1] && mid <= b.bbox[3]))
    };
    let pieces: Vec<Word> = words
        .iter()
        .filter(|w| upright(w) && within(w))
        .cloned()
        .collect();
    // Pieces set touching (small capitals, a logo) are one word.
    let mut joined = String::new();
    for (i, w) in pieces.iter().enumerate() {
        if i > 0 && !glue::touching(&pieces[i - 1], w) {
            joined.push(' ');
        }
        joined.push_str(&w.text);
    }
    let n = joined.split_whitespace().count();
    let letters = joined.chars().filter(|c| c.is_alphabetic()).count();
    // A title is set as running text: a line whose words stand apart like table cells,
    // or a block of many lines, is a form's or a table's header.
    let spread = pieces.windows(2).any(|p| {
        let gap = p[1].bbox[0] - p[0].bbox[2];
        (p[1].bbox[1] - p[0].bbox[1]).abs() < 0.5 * largest && gap > 1.5 * largest
    });
    let fits = lines_of(&pieces, largest) <= MAX_LINES && (2..=MAX_WORDS).contains(&n);
    (fits && !spread && letters * 2 > joined.len()).then_some(joined)
}

/// How many lines `words` (in reading order) are set on.
fn lines_of(words: &[Word], height: f32) -> usize {
    let mut tops: Vec<f32> = Vec::new();
    for w in words {
        if !tops.iter().any(|t| (t - w.bbox[1]).abs() < 0.5 * height) {
            tops.push(w.bbox[1]);
        }
    }
    tops.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(x: f32, top: f32, h: f32, text: &str) -> Word {
        Word {
            bbox: [x, top, x + 6.0 * text.len() as f32, top + h],
            text: text.into(),
        }
    }

    #[test]
    fn the_largest_type_on_the_upper_page_is_the_title() {
        let mut words = vec![
            word(100.0, 80.0, 14.0, "Accurate"),
            word(160.0, 80.0, 14.0, "Information"),
            word(100.0, 97.0, 14.0, "Extraction"),
            word(100.0, 130.0, 11.0, "Fuchun"),
            word(140.0, 130.0, 11.0, "Peng"),
            word(100.0, 500.0, 14.0, "Introduction"),
        ];
        for i in 0..40 {
            words.push(word(100.0, 200.0 + i as f32 * 10.0, 9.0, "body"));
        }
        assert_eq!(
            title(792.0, &words).as_deref(),
            Some("Accurate Information Extraction")
        );
        // Type that does not stand out gives no title.
        let flat: Vec<Word> = (0..30)
            .map(|i| word(100.0, i as f32 * 12.0, 9.0, "w"))
            .collect();
        assert_eq!(title(792.0, &flat), None);
    }

    #[test]
    fn a_file_name_or_a_word_processor_label_is_no_title() {
        for t in [
            "hlt2004.dvi",
            "Microsoft Word - draft3.doc",
            "paper",
            "2206_10883",
            "",
        ] {
            assert!(says_nothing(t, "paper"), "{t}");
        }
        assert!(!says_nothing("Accurate Information Extraction", "paper"));
        assert!(!says_nothing("BERT", "paper"));
    }
}
