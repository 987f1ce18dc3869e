use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::*;

#[test]
fn the_file_parses_and_every_class_is_there_with_a_source() {
    let read = parse(ENGLISH);
    assert_eq!(read.len(), Class::ALL.len());
    for (i, c) in Class::ALL.into_iter().enumerate() {
        assert_eq!(
            c as usize, i,
            "{c:?} is out of declaration order in Class::ALL"
        );
    }
    for c in Class::ALL {
        assert!(
            !source(c).trim().is_empty(),
            "[{}] names no source",
            c.key()
        );
    }
}

#[test]
#[should_panic(expected = "english.toml")]
fn a_parse_error_is_a_panic_naming_the_file() {
    parse("[stop]\nwords = [\"a\"\n");
}

#[test]
#[should_panic(expected = "unknown class [stops]")]
fn an_unknown_class_is_a_panic() {
    parse("[stops]\nsource = \"project\"\nwords = [\"a\"]\n");
}

#[test]
fn every_class_is_non_empty_and_lists_each_word_once() {
    for c in Class::ALL {
        let ws = words(c);
        assert!(!ws.is_empty(), "[{}] is empty", c.key());
        let mut seen = HashSet::new();
        for w in ws {
            assert!(seen.insert(*w), "[{}] lists {w:?} twice", c.key());
            assert_eq!(w.trim(), *w, "[{}] {w:?} has spaces around it", c.key());
        }
    }
}

#[test]
fn classes_are_matched_exactly() {
    assert!(is(Class::Stop, "the"));
    assert!(!is(Class::Stop, "The"));
    assert!(is(Class::Abbreviation, "Dr"));
    assert!(!is(Class::Abbreviation, "dr"));
    assert!(is_any(&[Class::Scaffold, Class::ScaffoldValue], "maximum"));
    assert_eq!(key_of("generic_role"), Some(Class::GenericRole));
}

fn key_of(k: &str) -> Option<Class> {
    Class::ALL.into_iter().find(|c| c.key() == k)
}

#[test]
fn number_scale_ordinal_and_month_words_read_as_their_values() {
    assert_eq!(number_value("zero"), Some(0));
    assert_eq!(number_value("fourteen"), Some(14));
    assert_eq!(number_value("ninety"), Some(90));
    assert_eq!(number_value("hundred"), None);
    assert_eq!(scale_power("hundred"), Some(2));
    assert_eq!(scale_power("thousand"), Some(3));
    assert_eq!(scale_power("billion"), Some(9));
    assert_eq!(ordinal_value("third"), Some(3));
    assert_eq!(month_number("September"), Some(9));
    assert_eq!(month_number("sept."), Some(9));
    assert_eq!(month_number("Dec"), Some(12));
    assert_eq!(month_number("may"), Some(5));
    assert_eq!(month_number("marc"), None);
    assert_eq!(month_number("mon"), None);
    assert_eq!(month_name(1), Some("january"));
    assert_eq!(month_name(0), None);
    assert_eq!(month_name(13), None);
    for m in words(Class::MonthAbbreviation) {
        assert!(month_number(m).is_some(), "{m} shortens no month");
    }
}

#[test]
fn an_alternation_puts_longer_words_first_and_escapes() {
    let months = alternation(&[Class::Month, Class::MonthAbbreviation]);
    assert!(months.starts_with("september|"), "{months}");
    let order: Vec<&str> = months.split('|').collect();
    let at = |w: &str| order.iter().position(|x| *x == w);
    assert!(at("sept").unwrap() < at("sep").unwrap(), "{months}");
    let generic = alternation(&[Class::GenericRole]);
    assert!(generic.contains("n/a"), "{generic}");
    assert!(
        alternation(&[Class::Scaffold, Class::Scaffold])
            .matches("|what|")
            .count()
            == 1
    );
}

/// The `.rs` files under `dir`, recursively.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("src is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

/// The source of `path` without its test code: test files (`tests.rs`, `tests/`) are
/// left out, a file is read up to its first `#[cfg(test)]`, and comment lines are
/// dropped.
fn non_test_source(path: &Path) -> Option<String> {
    let p = path.to_string_lossy().replace('\\', "/");
    if p.ends_with("/tests.rs") || p.contains("/tests/") || p.contains("/lexicon/") {
        return None;
    }
    let text = std::fs::read_to_string(path).expect("a source file is readable");
    let code = text
        .find("#[cfg(test)]")
        .map_or(text.as_str(), |i| &text[..i]);
    let lines = code.lines().filter(|l| !l.trim_start().starts_with("//"));
    Some(lines.collect::<Vec<_>>().join("\n"))
}

/// The string literals of `code` (plain `"…"` ones; escapes kept as written).
fn literals(code: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find('"') {
        let after = &rest[i + 1..];
        // A char literal `'"'` is no string.
        if rest[..i].ends_with('\'') && after.starts_with('\'') {
            rest = after;
            continue;
        }
        let mut end = None;
        let mut escaped = false;
        for (j, c) in after.char_indices() {
            match c {
                '\\' if !escaped => escaped = true,
                '"' if !escaped => {
                    end = Some(j);
                    break;
                }
                _ => escaped = false,
            }
        }
        let Some(j) = end else { break };
        out.push(&after[..j]);
        rest = &after[j + 1..];
    }
    out
}

/// Words no module outside the lexicon may write as a string literal or inside a
/// pattern's alternation: month names, number words from eleven, tens and scales.
fn owned_words() -> Vec<&'static str> {
    let mut out: Vec<&str> = words(Class::Month)
        .iter()
        .filter(|m| **m != "may" && **m != "march")
        .copied()
        .collect();
    out.extend(&words(Class::Number)[11..]);
    out.extend(words(Class::Tens));
    out.extend(&words(Class::Scale)[1..]);
    out
}

/// Literals of `code` (from file `name`) that write an owned word (alone, or between `|`
/// in a pattern), or that hold a stop-word list: a `[…]` of more than 40 stop words (the
/// longest list of function words a reader keeps today, phrase ends, holds 36).
fn findings(name: &str, code: &str, owned: &[&str]) -> Vec<String> {
    let mut found = Vec::new();
    for lit in literals(code) {
        let lower = lit.to_lowercase();
        let parts = lower.split(['|', '(', ')', '?', ':']);
        if let Some(w) = parts.into_iter().find(|p| owned.contains(p)) {
            found.push(format!("{name}: \"{lit}\" writes {w:?}"));
        }
    }
    for block in code.split("];") {
        let stops: HashSet<&str> = literals(block)
            .into_iter()
            .filter(|l| is(Class::Stop, l))
            .collect();
        if stops.len() > 40 {
            found.push(format!("{name}: a list of {} stop words", stops.len()));
        }
        found.extend(restated(block).map(|c| format!("{name}: a list restates {c:?}")));
    }
    found
}

/// The classes of six words or more whose every word `block` writes as a literal: a list
/// that restates a class instead of reading it from the lexicon.
fn restated(block: &str) -> impl Iterator<Item = &'static str> + '_ {
    let written: HashSet<String> = literals(block).iter().map(|l| l.to_lowercase()).collect();
    Class::ALL.iter().filter_map(move |&c| {
        let w = words(c);
        (w.len() >= 6 && w.iter().all(|x| written.contains(*x))).then(|| c.key())
    })
}

/// [`findings`] in every non-test source file outside the lexicon.
fn lexicon_literals() -> Vec<String> {
    let owned = owned_words();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    for path in rust_files(&src) {
        let Some(code) = non_test_source(&path) else {
            continue;
        };
        let name = path
            .strip_prefix(&src)
            .unwrap_or(&path)
            .display()
            .to_string();
        found.extend(findings(&name, &code, &owned));
    }
    found
}

#[test]
fn no_module_writes_month_number_stop_word_or_whole_class_lists_of_its_own() {
    let found = lexicon_literals();
    assert!(
        found.is_empty(),
        "word lists belong in src/lexicon/english.toml:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_literal_scan_sees_a_month_a_pattern_and_a_stop_list() {
    assert_eq!(literals(r#"x("a\"b", 'c', '"', "d")"#), [r#"a\"b"#, "d"]);
    let owned = owned_words();
    assert!(owned.contains(&"september") && owned.contains(&"seventeen"));
    assert!(owned.contains(&"thousand") && !owned.contains(&"may"));
    let months = r#"const M: &[&str] = &["September"]; let p = "jan|sept(?:ember)?";"#;
    assert_eq!(findings("m.rs", months, &owned).len(), 1);
    let aux = words(Class::Auxiliary)
        .iter()
        .map(|w| format!("{w:?}"))
        .collect::<Vec<_>>()
        .join(", ");
    let list = format!("const A: &[&str] = &[{aux}, \"need\"];");
    let found = findings("a.rs", &list, &owned);
    assert!(
        found.iter().any(|f| f.contains("\"auxiliary\"")),
        "{found:?}"
    );
    let pattern = r#"let p = "one|seventeen|twenty";"#;
    assert_eq!(findings("p.rs", pattern, &owned).len(), 1);
    let stops: Vec<String> = words(Class::Stop)
        .iter()
        .map(|w| format!("{w:?}"))
        .collect();
    let list = format!("const S: &[&str] = &[{}];", stops.join(", "));
    let found = findings("s.rs", &list, &owned);
    assert!(found.iter().any(|f| f.ends_with("stop words")), "{found:?}");
    assert!(findings("ok.rs", r#"let s = "may"; let t = "one";"#, &owned).is_empty());
}
