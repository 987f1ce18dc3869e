//! Words for the Milvus BM25 index, normalised as SQLite's FTS5 tokenizer
//! (`porter unicode61 remove_diacritics 2`) normalises them: runs of letters and digits,
//! lower-cased, diacritics removed, Porter-stemmed ([`super::porter`]). Milvus's own analyzer (milvus-lite
//! offers only the `standard` tokenizer, without stemming) then only splits on spaces,
//! so both backends match the same words.

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

/// The normalised words of `text`, in order.
pub fn terms(text: &str) -> Vec<String> {
    crate::text::words(text)
        .into_iter()
        .map(|w| {
            let plain: String = w.nfd().filter(|c| !is_combining_mark(*c)).collect();
            super::porter::stem(&plain)
        })
        .collect()
}

/// [`terms`] joined by spaces: what the BM25 field of a chunk holds, cut (at a word) to
/// at most `max_bytes`.
pub fn indexed(text: &str, max_bytes: usize) -> String {
    let mut out = String::new();
    for t in terms(text) {
        if out.len() + t.len() + 1 > max_bytes {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&t);
    }
    out
}

/// Whether the words `phrase` appear consecutively in `words`.
pub fn holds_phrase(words: &[&str], phrase: &[String]) -> bool {
    !phrase.is_empty()
        && words
            .windows(phrase.len())
            .any(|w| w.iter().zip(phrase).all(|(a, b)| *a == b.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_lowered_stripped_of_diacritics_and_stemmed() {
        assert_eq!(
            terms("Records RETAINED; café"),
            vec!["record", "retain", "cafe"]
        );
        assert_eq!(indexed("retention of records", 100), "retent of record");
        assert_eq!(indexed("retention of records", 10), "retent of");
    }

    /// FTS5's own words for `line` (porter unicode61 remove_diacritics 2), with counts.
    fn fts5_words(
        db: &rusqlite::Connection,
        line: &str,
    ) -> std::collections::BTreeMap<String, i64> {
        db.execute("DELETE FROM f", []).unwrap();
        db.execute("INSERT INTO f(t) VALUES (?1)", [line]).unwrap();
        let mut st = db.prepare("SELECT term, cnt FROM v").unwrap();
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    }

    #[test]
    fn every_line_of_the_sample_corpus_has_the_words_fts5_indexes() {
        let db = rusqlite::Connection::open_in_memory().unwrap();
        db.execute_batch(
            "CREATE VIRTUAL TABLE f USING fts5(t, tokenize='porter unicode61 remove_diacritics 2');
             CREATE VIRTUAL TABLE v USING fts5vocab(f, 'row');",
        )
        .unwrap();
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
        let mut lines: Vec<String> = vec![
            "Café naïve façade Ünïcödé 東京 agreement documented tries happy try".into(),
            "generalization controlling hopping filing relational sky skies dying".into(),
        ];
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_file() {
                let text = String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned();
                lines.extend(text.lines().map(str::to_string));
            }
        }
        let mut checked = 0;
        for line in lines.iter().filter(|l| !l.trim().is_empty()) {
            let mut ours = std::collections::BTreeMap::new();
            for t in terms(line) {
                *ours.entry(t).or_insert(0i64) += 1;
            }
            assert_eq!(ours, fts5_words(&db, line), "{line}");
            checked += 1;
        }
        assert!(checked > 300, "{checked} lines");
    }

    #[test]
    fn a_phrase_must_be_consecutive() {
        let p = terms("project id");
        assert!(holds_phrase(&["the", "project", "id", "is"], &p));
        assert!(!holds_phrase(&["project", "the", "id"], &p));
        assert!(!holds_phrase(&["project"], &[]));
    }
}
