//! Reading a checklist's JSON, TOML or YAML into its raw requirements, with parse errors
//! named and bounded.

use serde::Deserialize;

use super::{Format, RawChecklist};

/// Characters of a parser's message kept in an error (a message may quote a whole value).
const MESSAGE_CHARS: usize = 300;

/// `message` cut to [`MESSAGE_CHARS`] characters, with `…` when cut.
pub(super) fn bounded(message: &str) -> String {
    let message = message.trim_end();
    let mut out: String = message.chars().take(MESSAGE_CHARS).collect();
    if out.len() < message.len() {
        out.push('…');
    }
    out
}

/// Why a parsed document is not a checklist: where (the path into it) and what.
pub(super) fn data_reason(path: &serde_path_to_error::Path, message: &str) -> String {
    let message = bounded(message);
    if path.iter().next().is_some() {
        format!("at {path}: {message}")
    } else if message.starts_with("invalid type") {
        format!("expected an object with a \"requirements\" array ({message})")
    } else {
        message
    }
}

/// A TOML error as one bounded line, with its line and column.
fn toml_reason(text: &str, e: &toml::de::Error) -> String {
    let message = bounded(e.message());
    match e.span().map(|s| s.start.min(text.len())) {
        Some(at) => {
            let at = (0..=at)
                .rev()
                .find(|&i| text.is_char_boundary(i))
                .unwrap_or(0);
            let line = text[..at].matches('\n').count() + 1;
            let column = text[..at].rsplit('\n').next().unwrap_or("").chars().count() + 1;
            format!("{message} (line {line}, column {column})")
        }
        None => message,
    }
}

/// A JSON, TOML or YAML document as a checklist: a syntax error says the document is not
/// valid in its format, any other error where it is in the document.
pub(super) fn parse_raw(text: &str, format: Format) -> Result<RawChecklist, String> {
    let syntax = |message: String| format!("not valid {} ({message})", format.name());
    match format {
        Format::Toml => {
            let de = toml::Deserializer::parse(text).map_err(|e| syntax(toml_reason(text, &e)))?;
            serde_path_to_error::deserialize(de)
                .map_err(|e| data_reason(e.path(), &toml_reason(text, e.inner())))
        }
        Format::Yaml => {
            // The whole document is parsed (anchors, depth and alias expansion bounded by
            // the parser) before it is read as a checklist.
            serde::de::IgnoredAny::deserialize(yaml_serde::Deserializer::from_str(text))
                .map_err(|e| syntax(bounded(&e.to_string())))?;
            serde_path_to_error::deserialize(yaml_serde::Deserializer::from_str(text))
                .map_err(|e| data_reason(e.path(), &e.inner().to_string()))
        }
        // CSV is read by `from_csv`; anything else is JSON.
        Format::Json | Format::Csv => {
            let mut de = serde_json::Deserializer::from_str(text);
            let raw = serde_path_to_error::deserialize(&mut de).map_err(|e| {
                match e.inner().classify() {
                    serde_json::error::Category::Data => {
                        data_reason(e.path(), &e.inner().to_string())
                    }
                    _ => syntax(bounded(&e.inner().to_string())),
                }
            })?;
            de.end().map_err(|e| syntax(e.to_string()))?;
            Ok(raw)
        }
    }
}
