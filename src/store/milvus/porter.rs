//! The Porter stemmer as SQLite's FTS5 `porter` tokenizer applies it, so words stemmed
//! here for Milvus match the words FTS5 indexes: tokens under 3 or over 64 bytes are kept
//! as they are; each step looks at one rule list chosen by the word's next-to-last letter
//! and tries only the first suffix of that list the word ends with (a failed condition
//! stops the step); `logi` → `log` and `bli` → `ble` as in Porter's later revision.
//! Bytes are compared as bytes: a non-ASCII byte is a consonant.

/// Longest token FTS5 stems, in bytes.
const MAX_TOKEN: usize = 64;

fn vowel(c: u8, y_is_vowel: bool) -> bool {
    matches!(c, b'a' | b'e' | b'i' | b'o' | b'u') || (y_is_vowel && c == b'y')
}

/// Index after the first vowel-consonant sequence of `w` (0 when there is none).
fn gobble_vc(w: &[u8], prev_consonant: bool) -> usize {
    let mut cons = prev_consonant;
    let mut i = 0;
    while i < w.len() {
        cons = !vowel(w[i], cons);
        if !cons {
            break;
        }
        i += 1;
    }
    i += 1;
    while i < w.len() {
        cons = !vowel(w[i], cons);
        if cons {
            return i + 1;
        }
        i += 1;
    }
    0
}

/// m > 0.
fn m_gt0(w: &[u8]) -> bool {
    gobble_vc(w, false) != 0
}

/// m > 1.
fn m_gt1(w: &[u8]) -> bool {
    let n = gobble_vc(w, false);
    n != 0 && gobble_vc(&w[n..], true) != 0
}

/// m = 1.
fn m_eq1(w: &[u8]) -> bool {
    let n = gobble_vc(w, false);
    n != 0 && gobble_vc(&w[n..], true) == 0
}

/// *o: ends consonant-vowel-consonant, the last not w, x or y.
fn o_star(w: &[u8]) -> bool {
    let Some(&last) = w.last() else { return false };
    if matches!(last, b'w' | b'x' | b'y') {
        return false;
    }
    let mut mask = 0u8;
    let mut cons = false;
    for &c in w {
        cons = !vowel(c, cons);
        mask = ((mask << 1) + cons as u8) & 7;
    }
    mask == 5
}

/// *v*: the stem holds a vowel.
fn has_vowel(w: &[u8]) -> bool {
    w.iter().enumerate().any(|(i, &c)| vowel(c, i > 0))
}

/// When to apply a rule, tested on the stem before the suffix.
#[derive(Clone, Copy)]
enum Cond {
    MGt1,
    /// m > 1 and the stem ends in s or t.
    MGt1St,
}

impl Cond {
    fn holds(self, stem: &[u8]) -> bool {
        match self {
            Cond::MGt1 => m_gt1(stem),
            Cond::MGt1St => matches!(stem.last(), Some(b's' | b't')) && m_gt1(stem),
        }
    }
}

/// Step 2: (next-to-last letter, suffix, replacement), tried in order; condition m > 0.
const STEP2: &[(u8, &str, &str)] = &[
    (b'a', "ational", "ate"),
    (b'a', "tional", "tion"),
    (b'c', "enci", "ence"),
    (b'c', "anci", "ance"),
    (b'e', "izer", "ize"),
    (b'g', "logi", "log"),
    (b'l', "bli", "ble"),
    (b'l', "alli", "al"),
    (b'l', "entli", "ent"),
    (b'l', "eli", "e"),
    (b'l', "ousli", "ous"),
    (b'o', "ization", "ize"),
    (b'o', "ation", "ate"),
    (b'o', "ator", "ate"),
    (b's', "alism", "al"),
    (b's', "iveness", "ive"),
    (b's', "fulness", "ful"),
    (b's', "ousness", "ous"),
    (b't', "aliti", "al"),
    (b't', "iviti", "ive"),
    (b't', "biliti", "ble"),
];

/// Step 3, condition m > 0.
const STEP3: &[(u8, &str, &str)] = &[
    (b'a', "ical", "ic"),
    (b's', "ness", ""),
    (b't', "icate", "ic"),
    (b't', "iciti", "ic"),
    (b'u', "ful", ""),
    (b'v', "ative", ""),
    (b'z', "alize", "al"),
];

/// Step 4: (next-to-last letter, suffix, condition), the suffix removed.
const STEP4: &[(u8, &str, Cond)] = &[
    (b'a', "al", Cond::MGt1),
    (b'c', "ance", Cond::MGt1),
    (b'c', "ence", Cond::MGt1),
    (b'e', "er", Cond::MGt1),
    (b'i', "ic", Cond::MGt1),
    (b'l', "able", Cond::MGt1),
    (b'l', "ible", Cond::MGt1),
    (b'n', "ant", Cond::MGt1),
    (b'n', "ement", Cond::MGt1),
    (b'n', "ment", Cond::MGt1),
    (b'n', "ent", Cond::MGt1),
    (b'o', "ion", Cond::MGt1St),
    (b'o', "ou", Cond::MGt1),
    (b's', "ism", Cond::MGt1),
    (b't', "ate", Cond::MGt1),
    (b't', "iti", Cond::MGt1),
    (b'u', "ous", Cond::MGt1),
    (b'v', "ive", Cond::MGt1),
    (b'z', "ize", Cond::MGt1),
];

/// The first rule of `rules` for `w`'s next-to-last letter whose suffix `w` ends with
/// (longer than the suffix): (its index, the stem's length).
fn first_rule<T>(w: &[u8], rules: &[(u8, &str, T)]) -> Option<(usize, usize)> {
    let key = *w.get(w.len().checked_sub(2)?)?;
    rules
        .iter()
        .enumerate()
        .filter(|(_, r)| r.0 == key)
        .find(|(_, r)| w.len() > r.1.len() && w.ends_with(r.1.as_bytes()))
        .map(|(i, r)| (i, w.len() - r.1.len()))
}

fn replace_step(w: &mut Vec<u8>, rules: &[(u8, &str, &str)]) {
    if let Some((i, stem)) = first_rule(w, rules) {
        if m_gt0(&w[..stem]) {
            w.truncate(stem);
            w.extend_from_slice(rules[i].2.as_bytes());
        }
    }
}

fn step1a(w: &mut Vec<u8>) {
    let n = w.len();
    if w[n - 1] != b's' {
        return;
    }
    if w[n - 2] == b'e' {
        let sses = n > 4 && w[n - 4] == b's' && w[n - 3] == b's';
        let ies = n > 3 && w[n - 3] == b'i';
        w.truncate(if sses || ies { n - 2 } else { n - 1 });
    } else if w[n - 2] != b's' {
        w.truncate(n - 1);
    }
}

/// Step 1b's first part: whether `ed` or `ing` was removed.
fn step1b(w: &mut Vec<u8>) -> bool {
    let n = w.len();
    if n > 3 && w.ends_with(b"eed") {
        if m_gt0(&w[..n - 3]) {
            w.truncate(n - 1);
        }
        false
    } else if n > 2 && w.ends_with(b"ed") && w[n - 2] == b'e' {
        let cut = has_vowel(&w[..n - 2]);
        if cut {
            w.truncate(n - 2);
        }
        cut
    } else if n > 3 && w.ends_with(b"ing") {
        let cut = has_vowel(&w[..n - 3]);
        if cut {
            w.truncate(n - 3);
        }
        cut
    } else {
        false
    }
}

/// Step 1b's second part, after `ed` or `ing` went.
fn step1b2(w: &mut Vec<u8>) {
    for suffix in [&b"at"[..], b"bl", b"iz"] {
        if w.len() > 2 && w.ends_with(suffix) {
            w.push(b'e');
            return;
        }
    }
    let n = w.len();
    let c = w[n - 1];
    if n >= 2 && !vowel(c, false) && !matches!(c, b'l' | b's' | b'z') && c == w[n - 2] {
        w.truncate(n - 1);
    } else if m_eq1(w) && o_star(w) {
        w.push(b'e');
    }
}

fn step5(w: &mut Vec<u8>) {
    let n = w.len();
    if w[n - 1] == b'e' {
        let stem = &w[..n - 1];
        if m_gt1(stem) || (m_eq1(stem) && !o_star(stem)) {
            w.truncate(n - 1);
        }
    }
    let n = w.len();
    if n > 1 && w[n - 1] == b'l' && w[n - 2] == b'l' && m_gt1(&w[..n - 1]) {
        w.truncate(n - 1);
    }
}

/// `token` (lower-case) stemmed as FTS5's `porter` tokenizer stems it.
pub fn stem(token: &str) -> String {
    if token.len() > MAX_TOKEN || token.len() < 3 {
        return token.to_string();
    }
    let mut w = token.as_bytes().to_vec();
    step1a(&mut w);
    if step1b(&mut w) {
        step1b2(&mut w);
    }
    let n = w.len();
    if w[n - 1] == b'y' && has_vowel(&w[..n - 1]) {
        w[n - 1] = b'i';
    }
    replace_step(&mut w, STEP2);
    replace_step(&mut w, STEP3);
    if let Some((i, stem)) = first_rule(&w, STEP4) {
        if STEP4[i].2.holds(&w[..stem]) {
            w.truncate(stem);
        }
    }
    step5(&mut w);
    // Only ASCII suffixes are ever cut, so the bytes stay UTF-8.
    String::from_utf8(w).unwrap_or_else(|_| token.to_string())
}

#[cfg(test)]
mod tests {
    use super::stem;

    #[test]
    fn porter_examples_stem_as_fts5_stems_them() {
        for (word, want) in [
            ("caresses", "caress"),
            ("ponies", "poni"),
            ("cats", "cat"),
            ("agreed", "agre"),
            ("plastered", "plaster"),
            ("motoring", "motor"),
            ("hopping", "hop"),
            ("filing", "file"),
            ("happy", "happi"),
            ("try", "try"),
            ("relational", "relat"),
            ("agreement", "agreement"),
            ("documents", "document"),
            ("retention", "retent"),
            ("records", "record"),
            ("generalization", "gener"),
            ("controlling", "control"),
            ("an", "an"),
            ("ies", "ie"),
        ] {
            assert_eq!(stem(word), want, "{word}");
        }
    }
}
