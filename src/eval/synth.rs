//! A deterministic synthetic corpus for scale measurements.
//!
//! Documents are Markdown files of numbered sections. Their words follow a Zipf law over
//! a large vocabulary of made-up words (frequent function words first), and each document
//! leans on a topic vocabulary of its own, so documents cluster as real ones do. Sentence
//! lengths vary from 6 to 34 words. A seeded list of planted facts, one per fact document,
//! states a value about a named entity that occurs nowhere else: the questions and their
//! answers are known before any run. Same seed, same bytes.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// What to generate.
#[derive(Debug, Clone)]
pub struct SynthSpec {
    /// Documents to write.
    pub documents: usize,
    /// Words per document (about; sections end on sentence ends).
    pub words_per_document: usize,
    /// Every `fact_every`-th document states a planted fact (0: none).
    pub fact_every: usize,
    /// Seed of every random choice.
    pub seed: u64,
}

/// A planted fact: where it is, the question it answers and the value it states.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Planted {
    /// File, relative to the output folder.
    pub file: String,
    /// The question.
    pub question: String,
    /// The value stated, as written.
    pub answer: String,
    /// The sentence that states it.
    pub sentence: String,
}

/// Vocabulary size (made-up words).
const VOCABULARY: usize = 40_000;
/// Words in each document's topic vocabulary.
const TOPIC_WORDS: usize = 60;
/// Documents per folder.
const PER_FOLDER: usize = 500;

const FUNCTION_WORDS: [&str; 24] = [
    "the", "of", "and", "to", "a", "in", "is", "that", "for", "shall", "be", "by", "with", "as",
    "on", "or", "any", "each", "under", "this", "may", "from", "not", "must",
];

const SYLLABLES: [&str; 32] = [
    "ka", "ter", "mo", "lin", "sa", "ven", "ri", "dos", "pa", "gul", "ne", "tor", "ba", "mir",
    "co", "fen", "da", "sol", "ve", "rum", "ta", "bre", "li", "gan", "po", "set", "mu", "dra",
    "ho", "cal", "ze", "nor",
];

/// SplitMix64: a small, well-mixed, seedable generator (stable across versions, which a
/// crate's generator need not be).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The made-up word of rank `i` (2–4 syllables, unique per rank).
fn word(i: usize) -> String {
    let mut s = String::new();
    let mut n = i + SYLLABLES.len();
    while n > 0 {
        s.push_str(SYLLABLES[n % SYLLABLES.len()]);
        n /= SYLLABLES.len();
    }
    s
}

/// Zipf-distributed ranks over `n` items (exponent 1), by inverse CDF on the harmonic sum.
struct Zipf {
    cdf: Vec<f64>,
}

impl Zipf {
    fn new(n: usize) -> Self {
        let mut acc = 0.0;
        let mut cdf: Vec<f64> = (1..=n)
            .map(|r| {
                acc += 1.0 / r as f64;
                acc
            })
            .collect();
        cdf.iter_mut().for_each(|c| *c /= acc);
        Zipf { cdf }
    }
    fn sample(&self, rng: &mut Rng) -> usize {
        let u = rng.unit();
        self.cdf.partition_point(|&c| c < u).min(self.cdf.len() - 1)
    }
}

/// Writes the corpus under `out` (folders of [`PER_FOLDER`] documents) and returns the
/// planted facts.
pub fn generate(spec: &SynthSpec, out: &Path) -> std::io::Result<Vec<Planted>> {
    let zipf = Zipf::new(VOCABULARY);
    let words: Vec<String> = (0..VOCABULARY).map(word).collect();
    let mut facts = Vec::new();
    for d in 0..spec.documents {
        let mut rng = Rng(spec.seed ^ (d as u64).wrapping_mul(0xA24B_AED4_963E_E407));
        let rel =
            PathBuf::from(format!("part-{:04}", d / PER_FOLDER)).join(format!("doc-{d:07}.md"));
        let fact = (spec.fact_every > 0 && d % spec.fact_every == 0).then(|| planted(d, &mut rng));
        let text = document(spec, d, &words, &zipf, &mut rng, fact.as_ref());
        let path = out.join(&rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::File::create(&path)?.write_all(text.as_bytes())?;
        if let Some((question, answer, sentence)) = fact {
            facts.push(Planted {
                file: rel.display().to_string(),
                question,
                answer,
                sentence,
            });
        }
    }
    Ok(facts)
}

/// A planted fact of document `d`: (question, answer, sentence). The entity name holds
/// the document number spelled in letters, so it occurs in this document only.
fn planted(d: usize, rng: &mut Rng) -> (String, String, String) {
    const UNITS: [(&str, &str); 4] = [
        ("inspection fee", "dollars"),
        ("setback distance", "metres"),
        ("retention period", "years"),
        ("storage capacity", "cubic metres"),
    ];
    let (what, unit) = UNITS[rng.below(UNITS.len())];
    let entity = format!("{} facility", capitalise(&word(VOCABULARY + d)));
    let value = format!("{} {unit}", 2 + rng.below(9_998));
    let sentence = format!("The {what} of the {entity} is {value}.");
    let question = format!("What is the {what} of the {entity}?");
    (question, value, sentence)
}

fn capitalise(w: &str) -> String {
    let mut c = w.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// One document's text: a title, then sections of sentences; the planted sentence, if
/// any, goes into a section in the middle.
fn document(
    spec: &SynthSpec,
    d: usize,
    words: &[String],
    zipf: &Zipf,
    rng: &mut Rng,
    fact: Option<&(String, String, String)>,
) -> String {
    let topic: Vec<usize> = (0..TOPIC_WORDS)
        .map(|_| 200 + rng.below(VOCABULARY - 200))
        .collect();
    let mut text = format!(
        "# Document {d}: {} {}\n\n",
        words[topic[0]], words[topic[1]]
    );
    let (mut written, mut section) = (0, 0);
    let fact_at = spec.words_per_document / 2;
    let mut fact = fact;
    while written < spec.words_per_document {
        section += 1;
        text.push_str(&format!(
            "## {section}. {}\n\n",
            capitalise(&words[topic[section % TOPIC_WORDS]])
        ));
        for _ in 0..3 + rng.below(5) {
            if written >= fact_at {
                if let Some((_, _, s)) = fact.take() {
                    text.push_str(s);
                    text.push(' ');
                }
            }
            let n = 6 + rng.below(29);
            text.push_str(&sentence(n, words, &topic, zipf, rng));
            text.push(' ');
            written += n;
        }
        text.push_str("\n\n");
    }
    text
}

/// A sentence of `n` words: function words, topic words and Zipf-drawn vocabulary.
fn sentence(n: usize, words: &[String], topic: &[usize], zipf: &Zipf, rng: &mut Rng) -> String {
    let mut s = String::new();
    for i in 0..n {
        let r = rng.unit();
        let w: &str = if r < 0.35 {
            FUNCTION_WORDS[rng.below(FUNCTION_WORDS.len())]
        } else if r < 0.55 {
            &words[topic[rng.below(topic.len())]]
        } else {
            &words[zipf.sample(rng)]
        };
        if i == 0 {
            s.push_str(&capitalise(w));
        } else {
            s.push(' ');
            s.push_str(w);
        }
    }
    s.push('.');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(documents: usize) -> SynthSpec {
        SynthSpec {
            documents,
            words_per_document: 600,
            fact_every: 2,
            seed: 7,
        }
    }

    #[test]
    fn the_same_seed_writes_the_same_bytes_and_facts() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let fa = generate(&spec(5), a.path()).unwrap();
        let fb = generate(&spec(5), b.path()).unwrap();
        assert_eq!(fa.len(), 3);
        for (x, y) in fa.iter().zip(&fb) {
            assert_eq!((&x.question, &x.answer), (&y.question, &y.answer));
            let ta = std::fs::read(a.path().join(&x.file)).unwrap();
            assert_eq!(ta, std::fs::read(b.path().join(&y.file)).unwrap());
        }
        let other = generate(&SynthSpec { seed: 8, ..spec(5) }, b.path()).unwrap();
        assert_ne!(other[1].answer, fa[1].answer);
    }

    #[test]
    fn each_planted_fact_is_stated_once_in_its_own_document() {
        let dir = tempfile::tempdir().unwrap();
        let facts = generate(&spec(6), dir.path()).unwrap();
        let all: Vec<String> = (0..6)
            .map(|d| {
                let p = dir.path().join(format!("part-0000/doc-{d:07}.md"));
                std::fs::read_to_string(p).unwrap()
            })
            .collect();
        for f in &facts {
            let entity = f
                .question
                .split("of the ")
                .last()
                .unwrap()
                .trim_end_matches('?');
            let holding: Vec<_> = all.iter().filter(|t| t.contains(entity)).collect();
            assert_eq!(holding.len(), 1, "{entity}");
            assert_eq!(holding[0].matches(&f.sentence).count(), 1);
            assert!(f.sentence.contains(&f.answer));
        }
        let words: usize = all[1].split_whitespace().count();
        assert!((600..900).contains(&words), "{words} words");
    }
}
