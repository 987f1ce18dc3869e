//! Authorship: whether a question asks who wrote a document, and whether a quote is that
//! document's author line (the line of names its first page prints under the title,
//! stored in its profile at ingest).
//!
//! A relevance model reads "Fay Chang, Jeffrey Dean, …" as unrelated to "Who is the
//! first author of 'Bigtable'?": the line shares no word with the question. The line is
//! admitted as evidence when the question asks for authors, the quote holds the first of
//! the document's authors and at least half of them, and the question names that
//! document (most of its title's content words), or is scoped to it alone.

use std::collections::HashSet;

use crate::text::content_words;

pub use crate::corpus::firstpage::is_author_line;

/// Phrases that ask who wrote something.
const ASKING: &[&str] = &[
    "who wrote",
    "who authored",
    "who are the authors",
    "who is the author",
    "who is the first author",
    "who is the last author",
    "who is the lead author",
    "who is the corresponding author",
    "author of",
    "authors of",
    "written by whom",
    "whose paper",
];

/// Phrases that ask for a document's title.
const ASKING_TITLE: &[&str] = &[
    "what is the title",
    "what was the title",
    "title of the paper",
    "title of the article",
    "title of the thesis",
    "title of the report",
    "what is the paper called",
    "what is the article called",
    "what is the name of the paper",
];

/// Whether `question` asks for a document's title.
pub fn asks_title(question: &str) -> bool {
    let lower = crate::text::words(&question.to_lowercase()).join(" ");
    let padded = format!(" {lower} ");
    ASKING_TITLE
        .iter()
        .any(|p| padded.contains(&format!(" {p} ")))
}

/// Whether `question` names one of `authors` (by family name, the last word of a name,
/// as a word of three letters or more).
pub fn names_author(question: &str, authors: &[String]) -> bool {
    let q: HashSet<String> = crate::text::words(&question.to_lowercase())
        .into_iter()
        .collect();
    authors.iter().any(|a| {
        crate::text::words(&a.to_lowercase())
            .last()
            .is_some_and(|f| f.chars().count() >= 3 && q.contains(f))
    })
}

/// Whether `quote` is the title `title` (the same words in order).
pub fn is_title(quote: &str, title: &str) -> bool {
    let q = crate::text::words(&quote.to_lowercase());
    !q.is_empty() && q == crate::text::words(&title.to_lowercase())
}

/// Whether `question` asks who wrote a document.
pub fn asks(question: &str) -> bool {
    let lower = crate::text::words(&question.to_lowercase()).join(" ");
    let padded = format!(" {lower} ");
    ASKING.iter().any(|p| padded.contains(&format!(" {p} ")))
}

/// Whether `question` names the document titled `title`: at least two thirds of the
/// title's content words (and two or more) are in the question.
pub fn names_document(question: &str, title: &str) -> bool {
    let want: HashSet<String> = content_words(title).into_iter().collect();
    if want.len() < 2 {
        return false;
    }
    let have: HashSet<String> = content_words(question).into_iter().collect();
    want.intersection(&have).count() * 3 >= want.len() * 2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_about_authorship_are_recognised() {
        assert!(asks("Who is the first author of 'Bigtable'?"));
        assert!(asks("Who wrote the MapReduce paper?"));
        assert!(asks("Who are the authors of this article?"));
        assert!(!asks("Who approved the permit?"));
        assert!(!asks("Which authority issues the licence?"));
    }

    #[test]
    fn title_questions_name_an_author_by_family_name() {
        assert!(asks_title(
            "What is the title of the paper by Georgiana Dinu?"
        ));
        assert!(!asks_title("What does the paper title its second section?"));
        let a = vec!["Georgiana Dinu".to_string(), "Marco Baroni".to_string()];
        assert!(names_author("What is the title of Baroni's paper?", &a));
        assert!(!names_author(
            "What is the title of the paper by Marco Polo?",
            &a[..1]
        ));
        assert!(is_title("How to make\nwords", "How to make words"));
        assert!(!is_title(
            "How to make words with vectors",
            "How to make words"
        ));
    }

    #[test]
    fn a_question_names_a_document_by_most_of_its_title() {
        let t = "Bigtable: A Distributed Storage System for Structured Data";
        assert!(names_document(
            "Who is the first author of 'Bigtable: A Distributed Storage System for Structured Data'?",
            t
        ));
        assert!(!names_document("Who wrote the paper on storage?", t));
        assert!(!names_document("Who wrote it?", "Notes"));
    }
}
