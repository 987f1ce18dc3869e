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
const MAX_WORDS: usize = 40;

/// Most lines a title runs to.
const MAX_LINES: usize = 4;

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
        || lower.ends_with(':')
        || FILE_ENDINGS.iter().any(|e| lower.ends_with(e))
        || (!t.contains(' ') && t.chars().any(|c| c.is_ascii_digit() || c == '_'))
}

/// Whether `page` prints what `title` names: at least two thirds of its content words
/// stand on the page (case and punctuation aside). A metadata title naming a journal, a
/// template or another paper does not; one the page prints in pieces ("GAO-23-106826"
/// above, the title below) does.
pub fn printed_in(title: &str, page: &str) -> bool {
    let want: std::collections::HashSet<String> =
        crate::text::content_words(title).into_iter().collect();
    let have: std::collections::HashSet<String> =
        crate::text::content_words(page).into_iter().collect();
    !want.is_empty() && want.intersection(&have).count() * 3 >= want.len() * 2
}

/// What page 1 of a paper prints about it: its title and its authors.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FirstPage {
    /// The title in the page's largest type ([`title`]).
    pub title: Option<String>,
    /// The names on the first line of names below the title ([`authors`]).
    pub authors: Vec<String>,
}

/// Page 1's title and authors, from its words (`height`: the page's height in points).
/// Authors are read only from a paper's first page, one that has an abstract: under the
/// title of a report or a permit stand a programme's, a company's or a council's name.
pub fn read(height: f32, words: &[Word]) -> FirstPage {
    let paper = words.iter().any(|w| {
        w.text
            .trim_matches(|c: char| !c.is_alphabetic())
            .eq_ignore_ascii_case("abstract")
    });
    match title_block(height, words) {
        Some((title, bottom)) => FirstPage {
            title: Some(title),
            authors: if paper {
                authors(height, words, bottom)
            } else {
                Vec::new()
            },
        },
        None => FirstPage::default(),
    }
}

/// The title page 1 prints, from its words (`height`: the page's height in points).
pub fn title(height: f32, words: &[Word]) -> Option<String> {
    title_block(height, words).map(|(t, _)| t)
}

/// Whether a word is upright in the type area: a stamp set sideways in the margin (a
/// preprint server's) has boxes taller than they are wide.
fn upright(w: &Word) -> bool {
    let size = w.bbox[3] - w.bbox[1];
    (w.text.chars().count() <= 2 || size <= 1.5 * (w.bbox[2] - w.bbox[0])) && w.bbox[2] > MARGIN
}

/// The title and where its block ends (the bottom of its lowest word).
fn title_block(height: f32, words: &[Word]) -> Option<(String, f32)> {
    let size = |w: &Word| w.bbox[3] - w.bbox[1];
    let upper: Vec<&Word> = words
        .iter()
        .filter(|w| w.bbox[1] < height / 2.0 && w.text.chars().any(char::is_alphabetic))
        .filter(|w| upright(w))
        .collect();
    // Type size is read from words of plain characters: a brace, bracket or at sign
    // (an e-mail group "{a,b}@x.org") can stand taller than its text.
    let plain = |w: &&&Word| !w.text.contains(['{', '}', '[', ']', '(', ')', '@', '|']);
    let largest = upper
        .iter()
        .filter(plain)
        .map(|w| size(w))
        .fold(0.0f32, f32::max);
    let mut sizes: Vec<f32> = words.iter().map(size).filter(|h| *h > 0.0).collect();
    sizes.sort_by(f32::total_cmp);
    let typical = *sizes.get(sizes.len() / 2)?;
    if largest < typical * STANDS_OUT {
        return None;
    }
    let big: Vec<&Word> = upper
        .into_iter()
        .filter(|w| size(w) >= largest * SAME_TYPE && size(w) <= largest / SAME_TYPE)
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
    let bottom = pieces.iter().map(|w| w.bbox[3]).fold(0.0f32, f32::max);
    (fits && !spread && letters * 2 > joined.len()).then_some((joined, bottom))
}

/// Lines below the title searched for the first line of names.
const NAME_LINES: usize = 3;

/// The authors: the names on the first line of names within [`NAME_LINES`] lines below
/// the title block (which ends at `below`), and on the lines that continue it (the line
/// before ends with a comma or "and"). Names set side by side (one author block per
/// column) are apart by a wide gap.
pub fn authors(height: f32, words: &[Word], below: f32) -> Vec<String> {
    let mut under: Vec<&Word> = words
        .iter()
        .filter(|w| w.bbox[1] >= below && w.bbox[1] < height / 2.0 && upright(w))
        .collect();
    under.sort_by(|a, b| a.bbox[1].total_cmp(&b.bbox[1]));
    let mut lines: Vec<Vec<&Word>> = Vec::new();
    for w in under {
        let h = w.bbox[3] - w.bbox[1];
        match lines.last_mut() {
            Some(line) if (w.bbox[1] - line[0].bbox[1]).abs() < 0.5 * h => line.push(w),
            _ => lines.push(vec![w]),
        }
    }
    for line in &mut lines {
        line.sort_by(|a, b| a.bbox[0].total_cmp(&b.bbox[0]));
    }
    let Some(start) = lines
        .iter()
        .take(NAME_LINES)
        .position(|l| names(l).is_some())
    else {
        return Vec::new();
    };
    let mut out = names(&lines[start]).map(|(n, _)| n).unwrap_or_default();
    for pair in lines[start..].windows(2) {
        let last = pair[0].last().map_or("", |w| w.text.as_str());
        let continues = last.ends_with(',') || last.eq_ignore_ascii_case("and");
        // "… and Oren Etzioni" closes the list: what follows is an affiliation.
        let closed = pair[0][..pair[0].len().saturating_sub(2)]
            .iter()
            .any(|w| w.text.eq_ignore_ascii_case("and") || w.text == "&");
        if closed && !continues {
            break;
        }
        match names(&pair[1]) {
            Some((more, all)) if continues || all => out.extend(more),
            _ => break,
        }
    }
    out
}

/// The names a line holds, when at least half its parts are personal names, and whether
/// all are: parts are apart at a comma, "and", "&", a footnote mark (digits, `*`, `†`,
/// or any word in smaller type) or a gap wider than twice the type size; the parts that
/// are not names (an address, a mark) are dropped.
fn names(line: &[&Word]) -> Option<(Vec<String>, bool)> {
    let height = |w: &Word| w.bbox[3] - w.bbox[1];
    let tallest = line.iter().map(|w| height(w)).fold(0.0f32, f32::max);
    let mut parts: Vec<Vec<String>> = vec![Vec::new()];
    for (i, w) in line.iter().enumerate() {
        let h = height(w);
        if h < 0.8 * tallest {
            parts.push(Vec::new());
            continue;
        }
        if i > 0 && w.bbox[0] - line[i - 1].bbox[2] > 2.0 * h {
            parts.push(Vec::new());
        }
        let t = w.text.as_str();
        if matches!(t.to_lowercase().as_str(), "and" | "&" | ",") {
            parts.push(Vec::new());
            continue;
        }
        let token = t.trim_end_matches(|c: char| !c.is_alphabetic() && c != '.');
        if !token.is_empty() {
            parts.last_mut()?.push(token.to_string());
        }
        if token.len() < t.trim_end_matches('.').len() {
            parts.push(Vec::new());
        }
    }
    parts.retain(|p| !p.is_empty());
    let found: Vec<String> = parts.iter().filter_map(|p| personal_name(p)).collect();
    let all = found.len() == parts.len();
    (!found.is_empty() && found.len() * 2 >= parts.len()).then_some((found, all))
}

/// `tokens` as a personal name: two to five capitalised words or initials ("E."), the
/// last a word of two letters or more; a lower-case word, a figure or an address is not
/// part of one.
fn personal_name(tokens: &[String]) -> Option<String> {
    let word = |t: &str| {
        let mut c = t.chars();
        c.next().is_some_and(char::is_uppercase)
            && t.chars().all(|c| c.is_alphabetic() || "-'’.".contains(c))
    };
    let initial = |t: &str| t.chars().filter(|c| c.is_alphabetic()).count() == 1;
    // A name set in capitals has no two-letter words (a line of capitals that has them is
    // an address in small capitals: "JDF SH DUKE EDU").
    let capitals = tokens.iter().all(|t| !t.chars().any(char::is_lowercase));
    let short = |t: &&String| t.chars().count() == 2 && !t.ends_with('.');
    let last = tokens.last()?;
    let fits = (2..=5).contains(&tokens.len())
        && tokens.iter().all(|t| word(t))
        && !(capitals && tokens.iter().any(|t| short(&t)))
        && !initial(last)
        && last.chars().filter(|c| c.is_alphabetic()).count() >= 2;
    fits.then(|| tokens.join(" "))
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

/// Whether `name` is printed in `text` as whole words (case and spacing as words).
fn prints_name(text: &str, name: &str) -> bool {
    let t = crate::text::words(&text.to_lowercase());
    let n = crate::text::words(&name.to_lowercase());
    !n.is_empty() && t.windows(n.len()).any(|w| w == n.as_slice())
}

/// Whether `quote` is an author line of a document whose authors are `authors`: it
/// names the first and at least half of them.
pub fn is_author_line(quote: &str, authors: &[String]) -> bool {
    let Some(first) = authors.first() else {
        return false;
    };
    let named = authors.iter().filter(|a| prints_name(quote, a)).count();
    prints_name(quote, first) && named * 2 >= authors.len()
}

#[cfg(test)]
mod tests {
    fn owned(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn an_author_line_names_the_first_author_and_half_of_them() {
        let a = owned(&["Fay Chang", "Jeffrey Dean", "Sanjay Ghemawat"]);
        assert!(is_author_line(
            "Fay Chang, Jeffrey Dean, Sanjay Ghemawat",
            &a
        ));
        assert!(is_author_line("Fay Chang, Jeffrey Dean", &a));
        assert!(!is_author_line("Jeffrey Dean, Sanjay Ghemawat", &a));
        assert!(!is_author_line("Fay Chang thanks the reviewers.", &a));
        assert!(!is_author_line("Fay Changes, Jeffrey Dean", &a));
        assert!(!is_author_line("Fay Chang", &[]));
    }

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

    fn line(words: &[(f32, f32, &str)]) -> Vec<Word> {
        words
            .iter()
            .map(|&(x, h, t)| Word {
                bbox: [x, 100.0, x + 6.0 * t.len() as f32, 100.0 + h],
                text: t.into(),
            })
            .collect()
    }

    fn names_of(ws: Vec<Word>) -> Option<Vec<String>> {
        let refs: Vec<&Word> = ws.iter().collect();
        names(&refs).map(|(n, _)| n)
    }

    #[test]
    fn a_line_of_names_gives_its_names_and_an_affiliation_gives_none() {
        let listed = line(&[
            (100.0, 10.0, "Michele"),
            (150.0, 10.0, "Banko,"),
            (195.0, 10.0, "Michael"),
            (240.0, 10.0, "J"),
            (250.0, 10.0, "Cafarella"),
            (310.0, 10.0, "and"),
            (335.0, 10.0, "Oren"),
            (365.0, 10.0, "Etzioni"),
        ]);
        assert_eq!(
            names_of(listed).unwrap(),
            ["Michele Banko", "Michael J Cafarella", "Oren Etzioni"]
        );
        // Side by side, apart by a wide gap, marks in smaller type between them.
        let blocks = line(&[
            (100.0, 10.0, "Arman"),
            (136.0, 10.0, "Cohan"),
            (172.0, 6.0, "†∗"),
            (230.0, 10.0, "Daniel"),
            (272.0, 10.0, "S."),
            (286.0, 10.0, "Weld"),
        ]);
        assert_eq!(names_of(blocks).unwrap(), ["Arman Cohan", "Daniel S. Weld"]);
        for affiliation in [
            "Department of Computer Science",
            "University of Washington",
            "JDF SH KH DUKE EDU",
            "Seattle, WA 98195, USA",
        ] {
            let mut x = 100.0;
            let mut ws = Vec::new();
            for t in affiliation.split(' ') {
                ws.push((x, 10.0, t));
                x += 6.0 * t.len() as f32 + 3.0;
            }
            assert_eq!(names_of(line(&ws)), None, "{affiliation}");
        }
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
        assert!(says_nothing("doi:", "paper"));
        assert!(printed_in(
            "Sparse Information Extraction",
            "SPARSE INFORMATION\nEXTRACTION: Unsupervised"
        ));
        assert!(!printed_in(
            "Sparse Extraction - Transactions on Circuits and Systems",
            "Sparse Extraction\nAda Byron"
        ));
        assert!(printed_in(
            "GAO-23-106826, Cybersecurity: Launching the Strategy",
            "GAO-23-106826\nCYBERSECURITY\nLaunching the Strategy"
        ));
        assert!(!says_nothing("BERT", "paper"));
    }
}
