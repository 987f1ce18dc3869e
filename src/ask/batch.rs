//! Questions asked in a batch (`attest ask --questions FILE`, `POST /v1/ask/batch`): the
//! questions file, and the summary of a run.
//!
//! A questions file holds one question per line, or JSON Lines with an `id` and a
//! `question` (BEIR's `_id` and `text` are read too). Blank lines and lines starting with
//! `#` are skipped. Lines without an id are numbered from 1 by their line.

use serde::{Deserialize, Serialize};

use crate::answer::Status;
use crate::error::Error;

/// Most questions in one batch.
pub const MAX_QUESTIONS: usize = 10_000;
/// Largest questions file, in bytes.
pub const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// One question of a batch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchQuestion {
    /// The id results are reported under.
    pub id: String,
    /// The question.
    pub question: String,
}

/// Read a questions file (see the module docs), within [`MAX_FILE_BYTES`] and
/// [`MAX_QUESTIONS`].
pub fn read_questions(path: &std::path::Path) -> Result<Vec<BatchQuestion>, Error> {
    let bad = |msg: String| Error::Usage(format!("{}: {msg}", path.display()));
    let meta = std::fs::metadata(path).map_err(|e| bad(e.to_string()))?;
    if !meta.is_file() {
        return Err(bad("not a regular file".into()));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(bad(format!(
            "{} bytes, over the {MAX_FILE_BYTES}-byte limit of a questions file",
            meta.len()
        )));
    }
    let bytes = std::fs::read(path).map_err(|e| bad(e.to_string()))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        bad(format!(
            "not UTF-8 text (byte {})",
            e.utf8_error().valid_up_to()
        ))
    })?;
    parse_questions(&text).map_err(bad)
}

/// The questions of a questions file's text.
pub fn parse_questions(text: &str) -> Result<Vec<BatchQuestion>, String> {
    let mut out: Vec<BatchQuestion> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let n = i + 1;
        let q = if line.starts_with('{') {
            json_question(line, n)?
        } else {
            BatchQuestion {
                id: n.to_string(),
                question: line.to_string(),
            }
        };
        if out.len() == MAX_QUESTIONS {
            return Err(format!("more than {MAX_QUESTIONS} questions"));
        }
        if !seen.insert(q.id.clone()) {
            return Err(format!("line {n}: id {:?} is used twice", q.id));
        }
        out.push(q);
    }
    if out.is_empty() {
        return Err("no question in the file".into());
    }
    Ok(out)
}

/// A JSON Lines question: `{"id": …, "question": …}` (or `_id`/`text`); a number id is
/// kept as its digits, a missing one is the line number.
fn json_question(line: &str, n: usize) -> Result<BatchQuestion, String> {
    let v: serde_json::Value = serde_json::from_str(line).map_err(|e| format!("line {n}: {e}"))?;
    let field = |names: [&str; 2]| names.iter().find_map(|k| v.get(*k)).cloned();
    let id = match field(["id", "_id"]) {
        None => n.to_string(),
        Some(serde_json::Value::String(s)) => s,
        Some(serde_json::Value::Number(x)) => x.to_string(),
        Some(other) => return Err(format!("line {n}: id {other} is not a string or number")),
    };
    let Some(serde_json::Value::String(question)) = field(["question", "text"]) else {
        return Err(format!("line {n}: expected a string field \"question\""));
    };
    if question.trim().is_empty() {
        return Err(format!("line {n}: the question is empty"));
    }
    Ok(BatchQuestion { id, question })
}

/// What a batch run gave.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BatchSummary {
    /// Questions asked.
    pub questions: usize,
    /// Answered with cited evidence.
    pub answered: usize,
    /// No authoritative evidence, a stated absence (no value), or an undecided choice.
    pub abstained: usize,
    /// Refused as input (the question screen).
    pub rejected: usize,
    /// Wall time of the run, in seconds.
    pub seconds: f64,
    /// Questions per second.
    pub questions_per_second: f64,
}

impl BatchSummary {
    /// Count one answer's outcome.
    pub fn count(&mut self, status: Status) {
        self.questions += 1;
        match status {
            Status::Answered => self.answered += 1,
            Status::NoAuthoritativeEvidence | Status::StatedAbsent => self.abstained += 1,
            Status::RejectedInput => self.rejected += 1,
        }
    }

    /// Close the run after `seconds`.
    pub fn finish(&mut self, seconds: f64) {
        self.seconds = (seconds * 1000.0).round() / 1000.0;
        self.questions_per_second = if seconds > 0.0 {
            ((self.questions as f64 / seconds) * 1000.0).round() / 1000.0
        } else {
            0.0
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_lines_and_json_lines_are_read_with_their_ids() {
        let text = "# audit list\nHow long are records kept?\n\n{\"id\": \"Q7\", \"question\": \"Who signs?\"}\n{\"_id\": 9, \"text\": \"When?\"}\n";
        let qs = parse_questions(text).unwrap();
        let got: Vec<(&str, &str)> = qs
            .iter()
            .map(|q| (q.id.as_str(), q.question.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("2", "How long are records kept?"),
                ("Q7", "Who signs?"),
                ("9", "When?")
            ]
        );
    }

    #[test]
    fn bad_files_are_refused_with_the_line() {
        assert!(parse_questions("\n# only a comment\n")
            .unwrap_err()
            .contains("no question"));
        let dup = "{\"id\": \"a\", \"question\": \"x\"}\n{\"id\": \"a\", \"question\": \"y\"}";
        assert!(parse_questions(dup).unwrap_err().contains("line 2"));
        assert!(parse_questions("{\"id\": 1}")
            .unwrap_err()
            .contains("\"question\""));
        assert!(parse_questions("{not json")
            .unwrap_err()
            .starts_with("line 1"));
        let many = "q\n".repeat(MAX_QUESTIONS + 1);
        assert!(parse_questions(&many).unwrap_err().contains("more than"));
    }

    #[test]
    fn the_summary_counts_outcomes_and_the_rate() {
        let mut s = BatchSummary::default();
        s.count(Status::Answered);
        s.count(Status::NoAuthoritativeEvidence);
        s.count(Status::Answered);
        s.count(Status::RejectedInput);
        s.finish(2.0);
        assert_eq!(
            (s.questions, s.answered, s.abstained, s.rejected),
            (4, 2, 1, 1)
        );
        assert_eq!(s.questions_per_second, 2.0);
    }
}
