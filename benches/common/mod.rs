//! What several benches share: the reference script's generated texts.

/// A base paragraph repeated and cut into texts of a given number of words.
const BASE: &str =
    "Counties shall provide community-based services to adults with severe mental illness, \
including crisis response, housing support and case management within the service area, \
and each county must document every assessment within sixty days of the first contact. ";

/// The reference script's texts (`../shared/tools/pytorch_reference.py`): `n` texts of
/// `words` words, each slightly different.
pub fn texts(n: usize, words: usize) -> Vec<String> {
    let base = BASE.repeat(words / 30 + 2);
    let w: Vec<&str> = base.split_whitespace().collect();
    (0..n)
        .map(|i| format!("{} item {i}.", w[i % 7..i % 7 + words].join(" ")))
        .collect()
}
