//! The examples of every rule of the question frame's tables: each answer-type rule
//! ([`TypeRule`]) and each date role ([`DateRole::ASKED`]) with questions it must read.
//! One test runs them all, so a rule that stops firing on its own examples fails.

use super::{AnswerType, DateRole, TypeRule};

/// Questions each answer-type rule types, with the type it gives them.
const TYPE_EXAMPLES: &[(TypeRule, &str, AnswerType)] = &[
    (
        TypeRule::Auxiliary,
        "Do these statistics represent firearms sold?",
        AnswerType::YesNo,
    ),
    (
        TypeRule::Auxiliary,
        "According to the disclaimer, do these statistics represent sales?",
        AnswerType::YesNo,
    ),
    (
        TypeRule::Telephone,
        "What is the treasurer's telephone number?",
        AnswerType::Phone,
    ),
    (
        TypeRule::Email,
        "What e-mail address should questions go to?",
        AnswerType::Email,
    ),
    (
        TypeRule::Percentage,
        "What percentage of payments must payers withhold?",
        AnswerType::Percentage,
    ),
    (
        TypeRule::Percentage,
        "What share of the budget goes to staff?",
        AnswerType::Percentage,
    ),
    (
        TypeRule::Percentage,
        "What annual availability must the vehicles achieve?",
        AnswerType::Percentage,
    ),
    (
        TypeRule::UnitNamed,
        "What is the output in MW?",
        AnswerType::Quantity,
    ),
    (
        TypeRule::UnitNamed,
        "How many tonnes of waste were recycled?",
        AnswerType::Quantity,
    ),
    (
        TypeRule::PriceAsked,
        "How much does a permit for a fence lower than 2 metres cost?",
        AnswerType::Money,
    ),
    (
        TypeRule::PriceAsked,
        "What was the turnover in EUR?",
        AnswerType::Money,
    ),
    (
        TypeRule::MeasureNamed,
        "What is the maximum pressure of the vessel?",
        AnswerType::Quantity,
    ),
    (
        TypeRule::MeasureNamed,
        "What is the maximum submission size?",
        AnswerType::Quantity,
    ),
    (
        TypeRule::MeasureNamed,
        "What is the flash point of the solvent?",
        AnswerType::Quantity,
    ),
    (
        TypeRule::MeasureAsked,
        "How wide may a stockpile be?",
        AnswerType::Quantity,
    ),
    (
        TypeRule::MeasureAsked,
        "How high must the kiln temperature be kept?",
        AnswerType::Quantity,
    ),
    (
        TypeRule::CountNamed,
        "What is the seating capacity of the hall?",
        AnswerType::Quantity,
    ),
    (
        TypeRule::CountNamed,
        "In Table 3, what is the Female 'Total' column value for vandalism?",
        AnswerType::Quantity,
    ),
    (
        TypeRule::NumberOfOne,
        "What was the number of the previous Lighthouse RFI archived on FBO?",
        AnswerType::Identifier,
    ),
    (
        TypeRule::NumberOfOne,
        "What is the solicitation number of this (second) RFI?",
        AnswerType::Identifier,
    ),
    (
        TypeRule::NumberOfTime,
        "What is the maximum number of days of suspension?",
        AnswerType::Duration,
    ),
    (
        TypeRule::LengthOfThing,
        "How long is the bridge that connects Copenhagen and Malmo?",
        AnswerType::Quantity,
    ),
    (
        TypeRule::LengthOfThing,
        "How long is the trail named after the founder?",
        AnswerType::Quantity,
    ),
    (
        TypeRule::HowLong,
        "How long must client records be retained?",
        AnswerType::Duration,
    ),
    (
        TypeRule::HowLong,
        "How many days does the agency have to respond?",
        AnswerType::Duration,
    ),
    (
        TypeRule::HowLong,
        "For how long is the bridge closed?",
        AnswerType::Duration,
    ),
    (
        TypeRule::HowMany,
        "How many checks were denied in Texas?",
        AnswerType::Quantity,
    ),
    (
        TypeRule::HowMany,
        "How much funding did the institute allocate?",
        AnswerType::Money,
    ),
    (
        TypeRule::HowMany,
        "How many trees are planted per hectare?",
        AnswerType::Quantity,
    ),
    (
        TypeRule::MoneyNamed,
        "What is the minimum fine for a prohibited practice?",
        AnswerType::Money,
    ),
    (
        TypeRule::MoneyNamed,
        "On line 2 of the worksheet, what amount is entered?",
        AnswerType::Money,
    ),
    (
        TypeRule::MoneyNamed,
        "What is the proposed allocation for the programme?",
        AnswerType::Money,
    ),
    (
        TypeRule::LimitNamed,
        "What page limit is requested for responses?",
        AnswerType::Quantity,
    ),
    (
        TypeRule::LimitNamed,
        "What is the minimum term limit in years?",
        AnswerType::Duration,
    ),
    (
        TypeRule::TimeOfDay,
        "What time must the south gate be locked?",
        AnswerType::Time,
    ),
    (
        TypeRule::TimeOfDay,
        "At what time does the office open?",
        AnswerType::Time,
    ),
    (
        TypeRule::DateAsked,
        "When did the director resign?",
        AnswerType::Date,
    ),
    (
        TypeRule::DateAsked,
        "On what date does the regulation expire?",
        AnswerType::Date,
    ),
    (
        TypeRule::PeriodAsked,
        "What period does this report cover?",
        AnswerType::Period,
    ),
    (
        TypeRule::IdentifierAsked,
        "What docket number is assigned to the AD?",
        AnswerType::Identifier,
    ),
    (
        TypeRule::IdentifierAsked,
        "What is the committee's ZIP code?",
        AnswerType::Identifier,
    ),
    (
        TypeRule::Alternatives,
        "Who died first, Bryce Courtenay or Juan Carlos Onetti?",
        AnswerType::Text,
    ),
    (
        TypeRule::PersonAsked,
        "Who is the contracting officer?",
        AnswerType::Person,
    ),
    (
        TypeRule::PersonAsked,
        "What full name is entered on the form?",
        AnswerType::Person,
    ),
    (
        TypeRule::OrganisationAsked,
        "Which agency issued the order?",
        AnswerType::Organisation,
    ),
    (
        TypeRule::DefinitionAsked,
        "How does the Regulation define a confiscation order?",
        AnswerType::Definition,
    ),
    (
        TypeRule::ObligationAsked,
        "What must an applicant submit with the form?",
        AnswerType::Obligation,
    ),
    (
        TypeRule::ListAsked,
        "What are the grounds for refusal?",
        AnswerType::List,
    ),
    (
        TypeRule::ListAsked,
        "Which documents accompany the application?",
        AnswerType::List,
    ),
    (
        TypeRule::NumberOfThings,
        "What is the number of the employees on site?",
        AnswerType::Quantity,
    ),
    (
        TypeRule::ExplanationAsked,
        "Why does the guide prefer federal loans?",
        AnswerType::Explanation,
    ),
    (
        TypeRule::Otherwise,
        "What happens to the money obtained?",
        AnswerType::Text,
    ),
];

impl TypeRule {
    /// Questions this rule types, with the type it gives them.
    pub fn examples(self) -> Vec<(&'static str, AnswerType)> {
        TYPE_EXAMPLES
            .iter()
            .filter(|(r, ..)| *r == self)
            .map(|(_, q, t)| (*q, *t))
            .collect()
    }
}

impl DateRole {
    /// Questions asking for a date of this role.
    pub fn examples(self) -> &'static [&'static str] {
        match self {
            DateRole::Expiry => &[
                "On what date does the regulation expire?",
                "When does the lease end?",
            ],
            DateRole::Effective => &[
                "When does the amendment take effect on its effective date?",
                "When did the treaty enter into force?",
            ],
            DateRole::Application => &["From what date does the Regulation apply?"],
            DateRole::Signature => &["When was the agreement signed?"],
            DateRole::Issue => &["When was the permit issued?", "When was the guidance published?"],
            DateRole::Founding => &["When was the company founded?", "When was the bridge built?"],
            DateRole::Deadline => &[
                "By what date must the Commission submit its first report on the application of the Regulation?",
                "When are the comments due?",
            ],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::frame;
    use super::*;

    #[test]
    fn every_type_rule_fires_on_its_own_examples_and_gives_its_type() {
        for rule in TypeRule::ALL {
            assert!(!rule.examples().is_empty(), "{rule:?} has no example");
            for (q, ty) in rule.examples() {
                let ty = &ty;
                let f = frame(q);
                assert_eq!((f.type_rule, f.answer_type), (rule, *ty), "{q}");
            }
        }
    }

    #[test]
    fn every_date_role_is_read_from_its_own_examples() {
        for role in DateRole::ASKED {
            assert!(!role.examples().is_empty(), "{role:?} has no example");
            for q in role.examples() {
                let f = frame(q);
                assert_eq!(
                    (f.answer_type, f.date_role),
                    (AnswerType::Date, Some(role)),
                    "{q}"
                );
            }
        }
    }

    #[test]
    fn rule_names_are_the_json_names() {
        assert_eq!(TypeRule::PriceAsked.name(), "price_asked");
        let f = frame("Who is the contracting officer?");
        let json = serde_json::to_value(&f).unwrap();
        assert_eq!(json["type_rule"], "person_asked");
    }
}
