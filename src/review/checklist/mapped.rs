//! Requirements without declared fields mapped to the field catalogue: the topics their
//! category and text name, and the question each mapped field asks.

use super::{catalogue, FieldSpec, Mapping};

/// A catalogue topic: words that name it, and its fields.
struct Topic {
    name: &'static str,
    words: &'static [&'static str],
    fields: &'static [&'static str],
}

const TOPICS: &[Topic] = &[
    Topic {
        name: "land tenure",
        words: &[
            "tenure",
            "land title",
            "land ownership",
            "ownership of the land",
            "right to the land",
            "rights to the land",
            "land rights",
            "legal right",
            "title deed",
            "landowner",
        ],
        fields: &["owner_name", "area_hectares", "tenure_type"],
    },
    Topic {
        name: "crediting period",
        words: &["crediting period"],
        fields: &[
            "crediting_period_years",
            "crediting_period_start",
            "crediting_period_end",
        ],
    },
    Topic {
        name: "project start date",
        words: &["start date", "project start", "commencement"],
        fields: &["project_start_date"],
    },
    Topic {
        name: "leakage",
        words: &["leakage"],
        fields: &["leakage_percentage"],
    },
    Topic {
        name: "permanence",
        words: &["permanence"],
        fields: &["permanence_period_years"],
    },
    Topic {
        name: "buffer pool",
        words: &["buffer"],
        fields: &["buffer_pool_percentage"],
    },
    Topic {
        name: "identifiers",
        words: &[
            "project id",
            "project identifier",
            "identification number",
            "registry id",
            "registration number",
            "project number",
        ],
        fields: &["project_id"],
    },
    Topic {
        name: "record retention",
        words: &["retain", "retention", "kept for", "be kept"],
        fields: &["retention_period_years"],
    },
    Topic {
        name: "notification deadline",
        words: &["notify", "notified", "notification"],
        fields: &["notification_deadline_days"],
    },
    Topic {
        name: "response deadline",
        words: &[
            "act on",
            "acting on",
            "respond",
            "response to",
            "answered",
            "reply to",
        ],
        fields: &["response_deadline_days"],
    },
];

/// The topics whose words occur in `text` (lowercased).
fn topics_in(text: &str) -> Vec<&'static Topic> {
    let t = text.to_lowercase();
    // A word of a topic counts where a word starts ("act on", not "impact on").
    let starts_word = |w: &str| {
        t.match_indices(w).any(|(i, _)| {
            !t[..i]
                .chars()
                .next_back()
                .is_some_and(char::is_alphanumeric)
        })
    };
    TOPICS
        .iter()
        .filter(|topic| topic.words.iter().any(|w| starts_word(w)))
        .collect()
}

/// Fields for a requirement without declared ones: the category decides when it names a
/// topic, otherwise the requirement text.
pub(super) fn mapped_fields(category: &str, text: &str) -> (Vec<FieldSpec>, Mapping) {
    let (topics, matched_in) = match topics_in(category) {
        t if !t.is_empty() => (t, "category"),
        _ => (topics_in(text), "requirement_text"),
    };
    if topics.is_empty() {
        return (Vec::new(), Mapping::None);
    }
    let all = catalogue();
    let fields = topics
        .iter()
        .flat_map(|t| t.fields.iter())
        .filter_map(|name| all.iter().find(|c| c.name == *name).cloned())
        .collect();
    let mapping = Mapping::Catalogue {
        topics: topics.iter().map(|t| t.name.to_string()).collect(),
        matched_in: matched_in.into(),
    };
    (fields, mapping)
}

/// Plain-language question for a field, used as a research query.
pub fn field_question(spec: &FieldSpec) -> String {
    match spec.name.as_str() {
        "owner_name" => "Who is the owner of the land?".into(),
        "area_hectares" => "What is the area of the land in hectares or acres?".into(),
        "tenure_type" => "Is the land owned or leased (land tenure)?".into(),
        "project_start_date" => "What is the project start date?".into(),
        "crediting_period_years" => "How many years is the crediting period?".into(),
        "crediting_period_start" | "crediting_period_end" => {
            "When does the crediting period start and end?".into()
        }
        "leakage_percentage" => "What is the leakage percentage?".into(),
        "permanence_period_years" => "How many years is the permanence period?".into(),
        "buffer_pool_percentage" => "What percentage goes to the buffer pool?".into(),
        "project_id" => "What is the project ID?".into(),
        "retention_period_years" => "How long must the records be retained?".into(),
        "notification_deadline_days" => "Within how many days must notification be given?".into(),
        "response_deadline_days" => "Within how many days must a request be acted on?".into(),
        other => format!("What is the {}?", other.replace('_', " ")),
    }
}
