//! Words a PDF prints as one but its text layer splits: small capitals ("G ROBID",
//! "S CI B ERT", the "L AT E X" logo) are set in a second, smaller font, and the extractor
//! breaks the word at each change of font although no space separates the pieces. The
//! word boxes (`pdftotext -bbox`) show the pieces touching; [`glued`] finds them and
//! [`rejoin`] removes the spaces from the page's text.

use super::forms::Word;

/// Widest gap between two pieces of one word, as a share of the taller piece's height
/// (a space between words is about a quarter of the font size or more).
const MAX_GAP: f32 = 0.12;

/// Least vertical overlap of two pieces on one line, as a share of the shorter's height.
const MIN_OVERLAP: f32 = 0.5;

/// Whether `w` is a piece small capitals are made of: capital letters only, perhaps
/// followed by the punctuation that ends a word ("VAL:").
fn capitals(w: &str) -> bool {
    let letters = w.trim_end_matches([':', ',', '.', ';', ')']);
    !letters.is_empty() && letters.chars().all(|c| c.is_uppercase())
}

/// Whether `b` follows `a` on the same line with no space between them.
pub fn touching(a: &Word, b: &Word) -> bool {
    let [ax0, ay0, ax1, ay1] = a.bbox;
    let [bx0, by0, _, by1] = b.bbox;
    let (ha, hb) = (ay1 - ay0, by1 - by0);
    if ha <= 0.0 || hb <= 0.0 || bx0 < ax0 {
        return false;
    }
    let overlap = ay1.min(by1) - ay0.max(by0);
    let gap = bx0 - ax1;
    overlap >= MIN_OVERLAP * ha.min(hb) && gap <= MAX_GAP * ha.max(hb) && gap > -0.5 * ha
}

/// The runs of pieces on a page that print as one word: each run is two or more
/// touching pieces of capital letters, the first ending in a capital, at least one of
/// them longer than a letter (so a row of touching initials or table letters is left
/// alone).
pub fn glued(words: &[Word]) -> Vec<Vec<String>> {
    let mut runs = Vec::new();
    let mut run: Vec<&Word> = Vec::new();
    let flush = |run: &mut Vec<&Word>, runs: &mut Vec<Vec<String>>| {
        if run.len() >= 2 && run.iter().any(|w| w.text.chars().count() > 1) {
            runs.push(run.iter().map(|w| w.text.clone()).collect());
        }
        run.clear();
    };
    for w in words {
        let joins = run
            .last()
            .is_some_and(|last| ends_capital(&last.text) && capitals(&w.text) && touching(last, w));
        if !joins {
            flush(&mut run, &mut runs);
        }
        if joins || ends_capital(&w.text) {
            run.push(w);
        }
    }
    flush(&mut run, &mut runs);
    runs.sort();
    runs.dedup();
    runs
}

fn ends_capital(w: &str) -> bool {
    w.chars().last().is_some_and(|c| c.is_uppercase())
}

/// `page` with every run of [`glued`] pieces written as one word where the text shows
/// them separated by single spaces, between word boundaries.
pub fn rejoin(page: &str, runs: &[Vec<String>]) -> String {
    let mut out = page.to_string();
    for run in runs {
        let split = run.join(" ");
        let whole = run.concat();
        out = replace_words(&out, &split, &whole);
    }
    out
}

/// `text` with each occurrence of `from` that starts and ends at a word boundary
/// replaced by `to`.
fn replace_words(text: &str, from: &str, to: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(from) {
        let end = at + from.len();
        let before = rest[..at].chars().next_back();
        let after = rest[end..].chars().next();
        let bounded =
            !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric);
        out.push_str(&rest[..at]);
        out.push_str(if bounded { to } else { from });
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(x0: f32, x1: f32, top: f32, bottom: f32, text: &str) -> Word {
        Word {
            bbox: [x0, top, x1, bottom],
            text: text.into(),
        }
    }

    #[test]
    fn touching_capital_pieces_of_two_sizes_are_one_word() {
        // "using GROBID, a tool": G at 9 pt, ROBID in small capitals at 7 pt, touching.
        let words = [
            word(100.0, 120.0, 445.0, 454.0, "using"),
            word(123.0, 129.5, 445.0, 454.0, "G"),
            word(129.9, 150.0, 446.5, 454.0, "ROBID"),
            word(150.2, 152.0, 445.0, 454.0, ","),
            word(155.0, 160.0, 445.0, 454.0, "a"),
        ];
        let runs = glued(&words);
        assert_eq!(runs, vec![vec!["G".to_string(), "ROBID".to_string()]]);
        assert_eq!(
            rejoin("we ran G ROBID, a tool; G ROBIDS stays", &runs),
            "we ran GROBID, a tool; G ROBIDS stays"
        );
    }

    #[test]
    fn words_a_space_apart_and_touching_initials_stay_apart() {
        // "APPENDIX B DATA" set in one font with ordinary spaces; "J R R" touching.
        let spaced = [
            word(100.0, 150.0, 445.0, 454.0, "APPENDIX"),
            word(152.5, 158.0, 445.0, 454.0, "B"),
            word(160.5, 185.0, 445.0, 454.0, "DATA"),
        ];
        assert!(glued(&spaced).is_empty());
        let initials = [
            word(100.0, 106.0, 445.0, 454.0, "J"),
            word(106.2, 112.0, 445.0, 454.0, "R"),
            word(112.1, 118.0, 445.0, 454.0, "R"),
        ];
        assert!(glued(&initials).is_empty());
        // A superscript or lower-case piece is never glued on.
        let marker = [
            word(100.0, 130.0, 445.0, 454.0, "BERT"),
            word(130.1, 136.0, 443.0, 449.0, "12"),
        ];
        assert!(glued(&marker).is_empty());
    }

    #[test]
    fn a_logo_of_several_pieces_is_rejoined() {
        let words = [
            word(100.0, 106.0, 445.0, 454.0, "L"),
            word(104.0, 114.0, 444.0, 451.0, "AT"),
            word(113.5, 119.0, 447.0, 456.0, "E"),
            word(118.8, 125.0, 445.0, 454.0, "X"),
        ];
        let runs = glued(&words);
        assert_eq!(runs.len(), 1);
        assert_eq!(rejoin("typeset in L AT E X.", &runs), "typeset in LATEX.");
    }
}
