//! A PDF's title as its first page prints it: the lines in the largest type on the upper
//! half of page 1, when that type stands out from the body text. Used when the file's
//! metadata has no title, or one that is only a file name ("hlt2004.dvi", "Microsoft Word
//! - draft3.doc", the file's own stem).

use unicode_normalization::UnicodeNormalization;

use super::forms::Word;
use super::glue;
use crate::lexicon::{self, Class};

/// How much larger than the page's typical word the title type must be.
const STANDS_OUT: f32 = 1.15;

/// Words of a line in the title type: at least this share of the largest height.
const SAME_TYPE: f32 = 0.95;

/// A line set close to the title in type at least this share of the title's belongs to it.
const EXTENDS: f32 = 0.65;

/// Width of the left margin no title reaches into, in points (three quarters of an inch).
const MARGIN: f32 = 54.0;

/// Most words a title has.
const MAX_WORDS: usize = 40;

/// Most letters and figures a metadata title that marks page 1's title lines holds.
const MAX_TITLE_CHARS: usize = 400;

/// Most lines a title runs to.
const MAX_LINES: usize = 6;

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

/// Separators after which a metadata title goes on to name its venue ("Disk-Based
/// Storage for Scalable Video - Circuits and Systems for Video Technology, IEEE …").
const VENUE_SEPARATORS: &[&str] = &[" - ", " – ", " — ", " | "];

/// `text` lower-cased, its letters and figures only: lines, hyphens and spacing aside.
fn spelled(text: &str) -> String {
    text.nfc()
        .flat_map(char::to_lowercase)
        .filter(|c| c.is_alphanumeric())
        .collect()
}

/// Whether `page` prints `title` whole, in one run (line breaks, hyphens, case aside).
pub fn prints_whole(title: &str, page: &str) -> bool {
    let t = spelled(title);
    !t.is_empty() && spelled(page).contains(&t)
}

/// The document's title from its metadata title (`meta`, one that says something) and
/// the title page 1 sets in its largest type (`printed`). The metadata governs when the
/// page prints it whole, or prints most of its words and the printed title is one piece
/// of it ("GAO-23-106826" above "Cybersecurity: …"); else the printed title does (the
/// metadata naming a journal, a template, another draft's wording). A metadata title the
/// page prints only up to a dash gives its head ("… Video - Circuits and Systems …").
pub fn choose_title(meta: Option<String>, printed: Option<String>, page: &str) -> Option<String> {
    let meta = meta.map(|m| venue_cut(m, page));
    let Some(p) = printed else {
        return meta;
    };
    let words = |t: &str| -> std::collections::HashSet<String> {
        crate::text::content_words(t).into_iter().collect()
    };
    let governs = |m: &String| {
        prints_whole(m, page) || (printed_in(m, page) && words(&p).is_subset(&words(m)))
    };
    Some(meta.filter(governs).unwrap_or(p))
}

/// `meta` cut before a venue separator when `page` prints the head whole but not `meta`.
pub fn venue_cut(meta: String, page: &str) -> String {
    if prints_whole(&meta, page) {
        return meta;
    }
    VENUE_SEPARATORS
        .iter()
        .find_map(|sep| {
            let (head, _) = meta.split_once(sep)?;
            (head.split_whitespace().count() >= 2 && prints_whole(head, page))
                .then(|| head.trim().to_string())
        })
        .unwrap_or(meta)
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
/// `known` is a title from elsewhere (the file's metadata): where the page sets no title
/// in a type that stands out, the lines that print `known` mark where the authors begin.
/// Authors are read only from a paper's or a thesis's first page (one that prints an
/// [`Class::PaperFront`] word or an e-mail address): under the title of a report or a
/// permit stand a programme's, a company's or a council's name.
pub fn read(height: f32, words: &[Word], known: Option<&str>) -> FirstPage {
    let paper = words.iter().any(|w| {
        let t = w.text.to_lowercase();
        let head = t
            .split(|c: char| !c.is_alphabetic())
            .find(|p| !p.is_empty());
        head.is_some_and(|h| lexicon::is(Class::PaperFront, h))
            || t.split_once('@').is_some_and(|(_, d)| d.contains('.'))
    });
    let block = title_block(height, words);
    let below = block
        .as_ref()
        .map(|(_, b)| *b)
        .or_else(|| known.and_then(|k| printed_lines(height, words, k)));
    FirstPage {
        title: block.map(|(t, _)| t),
        authors: match below {
            Some(b) if paper => authors(height, words, b),
            _ => Vec::new(),
        },
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

fn size(w: &Word) -> f32 {
    w.bbox[3] - w.bbox[1]
}

/// Whether a word's box measures its type: a brace, bracket or at sign (an e-mail group
/// "{a,b}@x.org") can stand taller than its text.
fn plain(w: &Word) -> bool {
    !w.text.contains(['{', '}', '[', ']', '(', ')', '@', '|'])
}

/// The upright words of the page's upper half that hold a letter, set in lines from the
/// top down, each line left to right.
fn upper_lines(height: f32, words: &[Word]) -> Vec<Vec<&Word>> {
    let mut upper: Vec<&Word> = words
        .iter()
        .filter(|w| w.bbox[1] < height / 2.0 && upright(w))
        .collect();
    upper.sort_by(|a, b| a.bbox[1].total_cmp(&b.bbox[1]));
    let mut lines: Vec<Vec<&Word>> = Vec::new();
    for w in upper {
        match lines.last_mut() {
            Some(line) if (w.bbox[1] - line[0].bbox[1]).abs() < 0.5 * size(w) => line.push(w),
            _ => lines.push(vec![w]),
        }
    }
    for line in &mut lines {
        line.sort_by(|a, b| a.bbox[0].total_cmp(&b.bbox[0]));
    }
    lines
}

/// A line's type: the size of its largest plain word.
fn line_type(line: &[&Word]) -> f32 {
    line.iter()
        .filter(|w| plain(w))
        .map(|w| size(w))
        .fold(0.0f32, f32::max)
}

fn top(line: &[&Word]) -> f32 {
    line.iter().map(|w| w.bbox[1]).fold(f32::MAX, f32::min)
}

fn bottom(line: &[&Word]) -> f32 {
    line.iter().map(|w| w.bbox[3]).fold(0.0f32, f32::max)
}

/// The title and where its block ends (the bottom of its lowest word).
fn title_block(height: f32, words: &[Word]) -> Option<(String, f32)> {
    let lines = upper_lines(height, words);
    // A letter alone (a drop capital, a symbol font's brace) does not measure the type.
    let lettered =
        |w: &&&Word| w.text.chars().filter(|c| c.is_alphabetic()).count() >= 2 && plain(w);
    let largest = lines
        .iter()
        .flatten()
        .filter(lettered)
        .map(|w| size(w))
        .fold(0.0f32, f32::max);
    let mut sizes: Vec<f32> = words.iter().map(size).filter(|h| *h > 0.0).collect();
    sizes.sort_by(f32::total_cmp);
    let typical = *sizes.get(sizes.len() / 2)?;
    if largest < typical * STANDS_OUT {
        return None;
    }
    let (first, last) = title_lines(&lines, largest)?;
    let mut block: Vec<&Word> = lines[first..=last].iter().flatten().copied().collect();
    // A journal's label set above the title in its type ("Research Article") is no part
    // of it.
    if first < last && is_label(&lines[first]) {
        block.retain(|w| !lines[first].iter().any(|l| std::ptr::eq(*l, *w)));
    }
    let joined = join_words(&block);
    let n = joined.split_whitespace().count();
    let letters = joined.chars().filter(|c| c.is_alphabetic()).count();
    // A title is set as running text: a line whose words stand apart like table cells,
    // or a block of many lines, is a form's or a table's header.
    let spread = lines[first..=last].iter().any(|line| {
        line.windows(2)
            .any(|p| p[1].bbox[0] - p[0].bbox[2] > 1.5 * largest)
    });
    let fits = last - first < MAX_LINES && (2..=MAX_WORDS).contains(&n);
    let end = bottom(&block);
    (fits && !spread && letters * 2 > joined.len()).then_some((joined, end))
}

/// The first and last of `lines` that hold the title: the lines in the largest type that
/// follow one another from the first, a line in the title's type but a larger box aside
/// (an italic word); then the lines set close above or below them in a type not much
/// smaller (a title's second line in another font). None when the lines in the largest
/// type are mostly in other type (a drop capital opening the text).
fn title_lines(lines: &[Vec<&Word>], largest: f32) -> Option<(usize, usize)> {
    let big = |w: &&Word| size(w) >= largest * SAME_TYPE && size(w) <= largest / SAME_TYPE;
    let first = lines.iter().position(|l| l.iter().any(big))?;
    let mut last = first;
    while last + 1 < lines.len()
        && lines[last + 1].iter().any(big)
        && top(&lines[last + 1]) <= bottom(&lines[last]) + 2.0 * largest
    {
        last += 1;
    }
    let seeds = &lines[first..=last];
    let in_type = seeds.iter().flatten().filter(|w| big(w)).count();
    if in_type * 2 < seeds.iter().map(Vec::len).sum::<usize>() {
        return None;
    }
    let close = |line: &[&Word], gap: f32| {
        let t = line_type(line);
        t >= largest * EXTENDS
            && gap <= 0.5 * t
            && line.iter().any(|w| w.text.chars().any(char::is_alphabetic))
    };
    let (mut first, mut last) = (first, last);
    while first > 0
        && close(
            &lines[first - 1],
            top(&lines[first]) - bottom(&lines[first - 1]),
        )
    {
        first -= 1;
    }
    while last + 1 < lines.len()
        && close(
            &lines[last + 1],
            top(&lines[last + 1]) - bottom(&lines[last]),
        )
    {
        last += 1;
    }
    Some((first, last))
}

/// Whether a line is only a journal's article label ([`Class::ArticleLabel`]).
fn is_label(line: &[&Word]) -> bool {
    line.iter().all(|w| {
        let t = w.text.to_lowercase();
        lexicon::is(
            Class::ArticleLabel,
            t.trim_matches(|c: char| !c.is_alphabetic()),
        )
    })
}

/// Footnote marks set after a title or a name ("Platforms∗", "Montoya † ‡").
const MARKS: &[char] = &['∗', '*', '†', '‡', '§', '¶', '⋆', '★'];

/// Words in reading order as one line of text: pieces set touching (small capitals, a
/// logo) are one word, and footnote marks are dropped.
fn join_words(block: &[&Word]) -> String {
    let mut joined = String::new();
    for (i, w) in block.iter().enumerate() {
        let text = w.text.trim_end_matches(MARKS);
        if text.is_empty() {
            continue;
        }
        if i > 0 && !joined.is_empty() && !glue::touching(block[i - 1], w) {
            joined.push(' ');
        }
        joined.push_str(text);
    }
    joined.nfc().collect()
}

/// Where the lines of the upper page that print `known` end: the bottom of the last of
/// consecutive lines whose letters and figures, run together, spell it (case aside).
fn printed_lines(height: f32, words: &[Word], known: &str) -> Option<f32> {
    let want = spelled(known);
    // No title runs longer; the bound keeps a hostile page and metadata from costing more
    // than a linear pass over the page's lines.
    if want.is_empty() || want.len() > MAX_TITLE_CHARS {
        return None;
    }
    let lines = upper_lines(height, words);
    for i in 0..lines.len() {
        let mut have = String::new();
        for line in &lines[i..] {
            let text: Vec<&str> = line.iter().map(|w| w.text.as_str()).collect();
            have.push_str(&spelled(&text.join(" ")));
            if have == want {
                return Some(bottom(line));
            }
            if !want.starts_with(&have) {
                break;
            }
        }
    }
    None
}

/// Lines below the title searched for the first line of names.
const NAME_LINES: usize = 3;

/// The authors: the names on the first line of names within [`NAME_LINES`] lines below
/// the title block (which ends at `below`), and on the lines that continue it (the line
/// before ends with a comma or "and"). Names set side by side (one author block per
/// column) are apart by a wide gap.
pub fn authors(height: f32, words: &[Word], below: f32) -> Vec<String> {
    let lines: Vec<Vec<&Word>> = upper_lines(height, words)
        .into_iter()
        .map(|l| {
            l.into_iter()
                .filter(|w| w.bbox[1] >= below)
                .collect::<Vec<_>>()
        })
        .filter(|l| !l.is_empty())
        .collect();
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
/// any word in smaller type, an e-mail address), a gap wider than twice the type size, or one well wider
/// than the line's space between words; the parts that are not names (an address, a
/// mark) are dropped.
fn names(line: &[&Word]) -> Option<(Vec<String>, bool)> {
    let height = |w: &Word| w.bbox[3] - w.bbox[1];
    let tallest = body_type(line)?;
    let gap = |i: usize| line[i].bbox[0] - line[i - 1].bbox[2];
    // The space between words of a name; names are set further apart (a quad).
    let wordy = |w: &Word| w.text.chars().filter(|c| c.is_alphabetic()).count() >= 2;
    let space = (1..line.len())
        .filter(|&i| wordy(line[i - 1]) && wordy(line[i]))
        .map(gap)
        .filter(|g| *g > 0.0)
        .fold(f32::MAX, f32::min);
    let mut parts: Vec<Vec<String>> = vec![Vec::new()];
    for (i, w) in line.iter().enumerate() {
        let h = height(w);
        if address(&w.text) || h < 0.8 * tallest || h > 2.0 * tallest {
            parts.push(Vec::new());
            continue;
        }
        if i > 0 && (gap(i) > 2.0 * h || (gap(i) > 2.5 * space && gap(i) > 0.5 * h)) {
            parts.push(Vec::new());
        }
        let t: String = w.text.nfc().collect();
        let t = t.as_str();
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

/// Whether a word is an e-mail or web address: set beside a name, it is a mark between
/// names, neither a name nor a part that is not one.
fn address(word: &str) -> bool {
    word.contains('@') || word.contains("://") || word.starts_with("www.")
}

/// A line's type: the height that sets most of its letters, to half a point (marks and
/// addresses in smaller type, a stamp set across the line aside).
fn body_type(line: &[&Word]) -> Option<f32> {
    let mut letters: Vec<(i32, usize)> = Vec::new();
    for w in line.iter().filter(|w| !address(&w.text)) {
        let key = ((w.bbox[3] - w.bbox[1]) * 2.0).round() as i32;
        let n = w.text.chars().filter(|c| c.is_alphabetic()).count();
        match letters.iter_mut().find(|(k, _)| *k == key) {
            Some((_, count)) => *count += n,
            None => letters.push((key, n)),
        }
    }
    let (key, _) = letters.into_iter().max_by_key(|&(k, n)| (n, k))?;
    Some(key as f32 / 2.0)
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
    // An affiliation's words ("South Africa", "Stanford University") make no name.
    let affiliation = tokens.iter().any(|t| {
        let t = t.to_lowercase();
        let t = t.trim_end_matches('.');
        lexicon::is_any(&[Class::Affiliation, Class::PaperFront], t)
            || lexicon::is(Class::PlacePrefix, &tokens[0].to_lowercase())
    });
    let fits = !affiliation
        && (2..=5).contains(&tokens.len())
        && tokens.iter().all(|t| word(t))
        && !(capitals && tokens.iter().any(|t| short(&t)))
        && !initial(last)
        && last.chars().filter(|c| c.is_alphabetic()).count() >= 2;
    fits.then(|| tokens.join(" "))
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

    /// Forty lines of body text in 9 pt at `x`, below the page's upper lines.
    fn body(x: f32) -> impl Iterator<Item = Word> {
        (0..40).map(move |i| word(x, 200.0 + i as f32 * 10.0, 9.0, "body"))
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
        words.extend(body(100.0));
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

    #[test]
    fn the_metadata_title_governs_only_where_page_one_prints_it() {
        let page = "Journal of Things\nTympanic membrane contour measurement with two\nsource \
                    positions\nAbstract. The membrane shape is measured through a double \
                    source position.";
        let printed =
            Some("Tympanic membrane contour measurement with two source positions".into());
        // Another draft's wording, its words scattered over the abstract: the printed
        // title governs.
        let other = Some("Measurement of the membrane shape through double source position".into());
        assert_eq!(choose_title(other, printed.clone(), page), printed);
        // Printed whole (across a line break): the metadata governs.
        let whole = Some("Tympanic Membrane Contour Measurement with Two Source Positions".into());
        assert_eq!(choose_title(whole.clone(), printed.clone(), page), whole);
        // A piece of it in the largest type ("GAO-23-106826" above the rest).
        let gao = "GAO-23-106826\nCYBERSECURITY\nLaunching the Strategy";
        let meta = Some("GAO-23-106826, Cybersecurity: Launching the Strategy".to_string());
        assert_eq!(
            choose_title(meta.clone(), Some("CYBERSECURITY".into()), gao),
            meta
        );
        // The journal's name after a dash goes.
        assert_eq!(
            venue_cut(
                "Disk-Based Storage for Video - Circuits and Systems, IEEE".into(),
                "Disk-\nBased Storage for Video\nEd Chang"
            ),
            "Disk-Based Storage for Video"
        );
        assert_eq!(choose_title(None, printed.clone(), page), printed);
    }

    #[test]
    fn a_title_line_keeps_its_larger_italic_word_and_drops_a_label_and_the_names() {
        let mut words = vec![
            word(60.0, 40.0, 16.0, "Original"),
            word(112.0, 40.0, 16.0, "Article"),
            word(60.0, 62.0, 16.0, "Anaemia"),
            word(106.0, 62.0, 16.0, "improves"),
            word(158.0, 62.0, 16.0, "after"),
            word(60.0, 82.0, 16.0, "eradication"),
            word(130.0, 80.0, 22.0, "Helicobacter"),
            word(60.0, 116.0, 15.0, "Kola"),
            word(100.0, 116.0, 15.0, "Odeku"),
        ];
        words.extend(body(60.0));
        assert_eq!(
            title(792.0, &words).as_deref(),
            Some("Anaemia improves after eradication Helicobacter")
        );
        // A drop capital opening the text is no title.
        let mut dropped = vec![
            word(60.0, 100.0, 30.0, "IN"),
            word(90.0, 104.0, 9.0, "this"),
        ];
        for i in 1..6 {
            dropped.push(word(90.0 + 30.0 * i as f32, 104.0, 9.0, "paper"));
        }
        dropped.extend(body(60.0));
        assert_eq!(title(792.0, &dropped), None);
    }

    #[test]
    fn names_set_a_quad_apart_or_with_decomposed_accents_are_names() {
        let quad = line(&[
            (100.0, 10.0, "Ruifang"),
            (145.0, 10.0, "Ge"),
            (166.0, 10.0, "Raymond"),
            (211.0, 10.0, "J."),
            (226.0, 10.0, "Mooney"),
        ]);
        assert_eq!(names_of(quad).unwrap(), ["Ruifang Ge", "Raymond J. Mooney"]);
        let accents = line(&[
            (100.0, 10.0, "Zolta\u{301}n"),
            (140.0, 10.0, "Gyo\u{308}ngyi"),
        ]);
        assert_eq!(names_of(accents).unwrap(), ["Zoltán Gyöngyi"]);
        let place = line(&[(100.0, 10.0, "South"), (140.0, 10.0, "Africa")]);
        assert_eq!(names_of(place), None);
    }

    #[test]
    fn a_metadata_title_marks_where_the_names_begin_and_a_huge_one_marks_nothing() {
        let mut words = vec![
            word(90.0, 100.0, 10.0, "SPARSE"),
            word(140.0, 100.0, 10.0, "EXTRACTION"),
            word(90.0, 130.0, 9.0, "Ada"),
            word(112.0, 130.0, 9.0, "Byron"),
            word(90.0, 160.0, 9.0, "Abstract."),
        ];
        words.extend(body(90.0));
        let read_with = |known: &str| read(792.0, &words, Some(known)).authors;
        assert_eq!(read_with("Sparse Extraction"), ["Ada Byron"]);
        assert!(read_with(&"a".repeat(100_000)).is_empty());
    }
}
