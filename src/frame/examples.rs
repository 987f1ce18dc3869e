//! The examples of every rule of the question frame's tables: each answer-type rule
//! ([`TypeRule`]) and each date role ([`DateRole::ASKED`]) with questions it must read.
//! One test runs them all, so a rule that stops firing on its own examples fails.

use super::{AnswerType, DateRole, TypeRule};

impl TypeRule {
    /// Questions this rule types, with the type it gives them.
    pub fn examples(self) -> &'static [(&'static str, AnswerType)] {
        use AnswerType as T;
        match self {
            TypeRule::Auxiliary => &[
                ("Do these statistics represent firearms sold?", T::YesNo),
                (
                    "According to the disclaimer, do these statistics represent sales?",
                    T::YesNo,
                ),
            ],
            TypeRule::Telephone => &[("What is the treasurer's telephone number?", T::Phone)],
            TypeRule::Email => &[("What e-mail address should questions go to?", T::Email)],
            TypeRule::Percentage => &[
                (
                    "What percentage of payments must payers withhold?",
                    T::Percentage,
                ),
                ("What share of the budget goes to staff?", T::Percentage),
            ],
            TypeRule::UnitNamed => &[
                ("What is the output in MW?", T::Quantity),
                ("How many tonnes of waste were recycled?", T::Quantity),
            ],
            TypeRule::PriceAsked => &[
                (
                    "How much does a permit for a fence lower than 2 metres cost?",
                    T::Money,
                ),
                ("What was the turnover in EUR?", T::Money),
            ],
            TypeRule::MeasureNamed => &[
                ("What is the maximum pressure of the vessel?", T::Quantity),
                ("What is the maximum submission size?", T::Quantity),
            ],
            TypeRule::CountNamed => &[
                ("What is the seating capacity of the hall?", T::Quantity),
                (
                    "In Table 3, what is the Female 'Total' column value for vandalism?",
                    T::Quantity,
                ),
            ],
            TypeRule::NumberOfOne => &[
                (
                    "What was the number of the previous Lighthouse RFI archived on FBO?",
                    T::Identifier,
                ),
                (
                    "What is the solicitation number of this (second) RFI?",
                    T::Identifier,
                ),
            ],
            TypeRule::NumberOfTime => &[(
                "What is the maximum number of days of suspension?",
                T::Duration,
            )],
            TypeRule::NumberOfThings => {
                &[("What is the number of the employees on site?", T::Quantity)]
            }
            TypeRule::LengthOfThing => &[
                (
                    "How long is the bridge that connects Copenhagen and Malmo?",
                    T::Quantity,
                ),
                (
                    "How long is the trail named after the founder?",
                    T::Quantity,
                ),
            ],
            TypeRule::HowLong => &[
                ("How long must client records be retained?", T::Duration),
                (
                    "How many days does the agency have to respond?",
                    T::Duration,
                ),
                ("For how long is the bridge closed?", T::Duration),
            ],
            TypeRule::HowMany => &[
                ("How many checks were denied in Texas?", T::Quantity),
                ("How much funding did the institute allocate?", T::Money),
                ("How many trees are planted per hectare?", T::Quantity),
            ],
            TypeRule::MoneyNamed => &[
                (
                    "What is the minimum fine for a prohibited practice?",
                    T::Money,
                ),
                (
                    "On line 2 of the worksheet, what amount is entered?",
                    T::Money,
                ),
            ],
            TypeRule::LimitNamed => &[
                ("What page limit is requested for responses?", T::Quantity),
                ("What is the minimum term limit in years?", T::Duration),
            ],
            TypeRule::TimeOfDay => &[
                ("What time must the south gate be locked?", T::Time),
                ("At what time does the office open?", T::Time),
            ],
            TypeRule::DateAsked => &[
                ("When did the director resign?", T::Date),
                ("On what date does the regulation expire?", T::Date),
            ],
            TypeRule::PeriodAsked => &[("What period does this report cover?", T::Period)],
            TypeRule::IdentifierAsked => &[
                ("What docket number is assigned to the AD?", T::Identifier),
                ("What is the committee's ZIP code?", T::Identifier),
            ],
            TypeRule::Alternatives => &[(
                "Who died first, Bryce Courtenay or Juan Carlos Onetti?",
                T::Text,
            )],
            TypeRule::PersonAsked => &[
                ("Who is the contracting officer?", T::Person),
                ("What full name is entered on the form?", T::Person),
            ],
            TypeRule::OrganisationAsked => &[("Which agency issued the order?", T::Organisation)],
            TypeRule::DefinitionAsked => &[(
                "How does the Regulation define a confiscation order?",
                T::Definition,
            )],
            TypeRule::ObligationAsked => &[(
                "What must an applicant submit with the form?",
                T::Obligation,
            )],
            TypeRule::ExplanationAsked => {
                &[("Why does the guide prefer federal loans?", T::Explanation)]
            }
            TypeRule::ListAsked => &[
                ("What are the grounds for refusal?", T::List),
                ("Which documents accompany the application?", T::List),
            ],
            TypeRule::Otherwise => &[("What happens to the money obtained?", T::Text)],
        }
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
