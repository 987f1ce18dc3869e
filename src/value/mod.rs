//! The value grammar: typed values read from text, each with its byte span — dates (in
//! every written form, a configurable order for numeric ones, ambiguity reported),
//! durations, money with its currency, percentages, quantities with units (areas
//! converted), counts, phone numbers, emails, identifiers, and names of people and
//! organisations. One module for the whole engine: `ask` reads an answer's value with it
//! and `review` a field's.
//!
//! [`parse`] finds dates, durations, percentages, areas and identifiers; [`names`] reads
//! names; [`typed`] finds the value of an answer type in a quote.

use serde::{Deserialize, Serialize};

pub mod names;
pub mod parse;
pub mod typed;

/// How ambiguous numeric dates (`05/06/2021`) are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DateOrder {
    /// Day, month, year.
    Dmy,
    /// Month, day, year.
    Mdy,
    /// Year, month, day.
    Ymd,
}

impl std::str::FromStr for DateOrder {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "dmy" => Ok(DateOrder::Dmy),
            "mdy" => Ok(DateOrder::Mdy),
            "ymd" => Ok(DateOrder::Ymd),
            other => Err(format!("unknown date order {other:?} (dmy, mdy, ymd)")),
        }
    }
}

/// A typed value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A calendar date.
    Date {
        /// Year.
        year: i32,
        /// Month, 1–12.
        month: u32,
        /// Day of the month.
        day: u32,
    },
    /// A number in the type's unit (years, percent, hectares).
    Number(f64),
    /// Text as written (names, identifiers, tenure).
    Text(String),
}

impl Value {
    /// The normalised JSON value: ISO date, number (whole numbers as integers), text.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Value::Date { year, month, day } => format!("{year:04}-{month:02}-{day:02}").into(),
            Value::Number(n) if n.fract() == 0.0 && n.abs() < 1e15 => (*n as i64).into(),
            Value::Number(n) => serde_json::Number::from_f64(*n)
                .map(serde_json::Value::Number)
                .unwrap_or(serde_json::Value::Null),
            Value::Text(t) => t.clone().into(),
        }
    }

    /// Days since 1970-01-01 of a date.
    pub(crate) fn days(&self) -> Option<i64> {
        let Value::Date { year, month, day } = *self else {
            return None;
        };
        let (y, m) = if month <= 2 {
            (year as i64 - 1, month as i64 + 9)
        } else {
            (year as i64, month as i64 - 3)
        };
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let doy = (153 * m + 2) / 5 + day as i64 - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        Some(era * 146_097 + doe - 719_468)
    }
}

/// Why a candidate value was not taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RejectReason {
    /// Day and month can be read either way and no order is known (or a two-digit year).
    AmbiguousDate,
    /// Not a calendar date (31/02, month 13).
    InvalidDate,
    /// A month and year without a day.
    IncompleteDate,
    /// A bare year where an identifier was expected.
    BareYear,
    /// Role words ("The Project", "the Landowner"), not a name.
    GenericName,
    /// A limit or condition ("more than 10 %"), not the stated value.
    Threshold,
    /// Outside the plausible range of the type.
    OutOfRange,
    /// Does not match the checklist's pattern.
    PatternMismatch,
    /// Not a value of the type.
    NotAValue,
    /// Stated for another subject than the one asked about (another section's rule).
    OtherSubject,
    /// Stated in an earlier version of a document the submission also holds updated.
    Superseded,
}

/// How bad a disagreement is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// A person should look (same surname, different first names).
    Warning,
    /// The values are different.
    Error,
}

/// Result of comparing two values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agreement {
    /// Equal within tolerance.
    Agree,
    /// Different.
    Disagree(Severity),
}
