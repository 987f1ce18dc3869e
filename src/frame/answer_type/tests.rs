use super::*;
use crate::frame::{frame, Extreme};

fn ty(q: &str) -> AnswerType {
    frame(q).answer_type
}

#[test]
fn units_of_every_family_and_times_of_day_are_asked_for() {
    let fam = |q: &str| {
        let f = frame(q);
        (f.answer_type, f.unit_family, f.unit)
    };
    let q = AnswerType::Quantity;
    assert_eq!(
        fam("What is the output in MW?"),
        (q, Some(UnitFamily::Power), Some("MW".into()))
    );
    assert_eq!(
        fam("What is the dust limit in mg/m³?"),
        (q, Some(UnitFamily::Concentration), Some("mg/m3".into()))
    );
    assert_eq!(
        fam("How many megawatt-hours are stored?").1,
        Some(UnitFamily::Energy)
    );
    assert_eq!(
        fam("What is the maximum pressure of the vessel?").1,
        Some(UnitFamily::Pressure)
    );
    // "How many trees per hectare": trees are counted.
    assert_eq!(
        fam("How many trees are planted per hectare?").1,
        Some(UnitFamily::Count)
    );
    assert_eq!(
        ty("What time must the south gate be locked?"),
        AnswerType::Time
    );
    assert_eq!(ty("At what time does the office open?"), AnswerType::Time);
    assert_eq!(
        frame("At what time is the gate locked?").focus,
        ["gate", "locked"]
    );
    assert_eq!(
        frame("How many megawatt-hours can the battery store?").focus,
        ["battery", "store"]
    );
    assert_ne!(
        ty("Within what time must a complaint be filed?"),
        AnswerType::Time
    );
    assert_ne!(ty("What time limit applies to appeals?"), AnswerType::Time);
    assert_eq!(ty("What was the turnover in EUR?"), AnswerType::Money);
    assert_eq!(ty("What dividend was paid per share?"), AnswerType::Money);
}

#[test]
fn a_framing_phrase_an_amount_and_a_number_of_one_thing_are_read() {
    assert_eq!(
        ty("In the Estimated Costs table, what is the cost on U.S. operators for the test?"),
        AnswerType::Money
    );
    assert_eq!(
        ty("According to the disclaimer, do these statistics represent sales?"),
        AnswerType::YesNo
    );
    assert_eq!(
        ty("On line 2 of the worksheet, what amount is entered?"),
        AnswerType::Money
    );
    assert_eq!(
        ty("What was the number of the previous Lighthouse RFI archived on FBO?"),
        AnswerType::Identifier
    );
    assert_eq!(
        ty("What is the solicitation number of this (second) RFI?"),
        AnswerType::Identifier
    );
    assert_eq!(
        ty("For an OTP device whose nonce is based on a clock, how often must it change?"),
        AnswerType::Duration
    );
    assert_eq!(
        ty("What is the number of the employees on site?"),
        AnswerType::Quantity
    );
    assert_eq!(
        frame("If the highest paying job pays weekly, how many pay periods are entered?").extreme,
        None
    );
    let f = frame("What is the maximum submission size?");
    assert_eq!(
        (f.answer_type, f.unit_family, f.extreme),
        (
            AnswerType::Quantity,
            Some(UnitFamily::Data),
            Some(Extreme::Max)
        )
    );
    assert_eq!(
        frame("What is the highest fine?").extreme,
        Some(Extreme::Max)
    );
}

#[test]
fn named_things_side_by_side_are_alternatives() {
    let f = frame("Who died first, Bryce Courtenay or Juan Carlos Onetti?");
    assert!(f.either);
    assert_eq!(f.answer_type, AnswerType::Text);
    assert!(frame("Are Ferocactus and Silene both types of plant?").either);
    assert!(!frame("Did Edward Kelly sign the report of the Springfield office?").either);
    let f = frame("How long is the bridge that connects Copenhagen and Malmo?");
    assert_eq!(
        (f.answer_type, f.unit_family),
        (AnswerType::Quantity, Some(UnitFamily::Length))
    );
    assert_eq!(
        ty("How long is the retention period in years?"),
        AnswerType::Duration
    );
    // What is done to a thing lasts; "for how long" asks for a time.
    for q in [
        "For how long are moorings on the east pier assigned?",
        "How long are moorings on the east pier assigned?",
        "How long are inspection reports kept by the clerk?",
        "For how long is the bridge closed?",
    ] {
        assert_eq!(ty(q), AnswerType::Duration, "{q}");
    }
    let f = frame("How long is the trail named after the founder?");
    assert_eq!(f.unit_family, Some(UnitFamily::Length));
    // A length asked by name is a measure, whatever bound it carries.
    let f = frame("What is the maximum length of the haul trucks allowed on site?");
    assert_eq!(f.unit_family, Some(UnitFamily::Length));
    assert_eq!(
        ty("What length of time may a permit holder appeal?"),
        AnswerType::Duration
    );
    assert_eq!(
        frame("Under the county code, for how long must a client record be retained?")
            .head
            .as_deref(),
        Some("record")
    );
    assert_eq!(
        ty("How long is this medical release authorization valid?"),
        AnswerType::Duration
    );
}

#[test]
fn a_limit_asked_by_name_is_a_number() {
    assert_eq!(
        ty("What page limit is requested for responses?"),
        AnswerType::Quantity
    );
    assert_eq!(
        ty("What is the minimum length of a password?"),
        AnswerType::Quantity
    );
    assert_eq!(
        ty("What is the maximum number of days of suspension?"),
        AnswerType::Duration
    );
    assert_eq!(
        ty("What is the minimum fine for a breach?"),
        AnswerType::Money
    );
    assert_ne!(
        ty("What type of limit applies to grants?"),
        AnswerType::Quantity
    );
}

#[test]
fn a_table_s_figure_and_a_numbered_item_are_read() {
    assert_eq!(
        ty("In Table 3, what is the Female 'Total' column value for vandalism?"),
        AnswerType::Quantity
    );
    assert_eq!(
        ty("In Table 3, what is the value for a higher paying job of $0 - 9,999?"),
        AnswerType::Quantity
    );
    let f = frame("In Figure 1, what is strategic objective 3.6?");
    assert!(f.numbers_item("3.6: Explore a federal cyber insurance backstop"));
    assert!(!f.numbers_item("3.61: Another objective") && !f.numbers_item("See 3.6 below"));
}

#[test]
fn answer_types_follow_the_wording() {
    assert_eq!(
        ty("What is the treasurer's telephone number?"),
        AnswerType::Phone
    );
    assert_eq!(
        ty("What value applies when the higher paying job earns $0 - 9,999?"),
        AnswerType::Quantity
    );
    assert_eq!(ty("What is the value of the shares?"), AnswerType::Text);
    assert_eq!(
        ty("How long must client records be retained?"),
        AnswerType::Duration
    );
    assert_eq!(
        ty("How many days does the agency have to respond?"),
        AnswerType::Duration
    );
    assert_eq!(
        ty("How many checks were denied in Texas?"),
        AnswerType::Quantity
    );
    assert_eq!(
        ty("How many hectares does the project cover?"),
        AnswerType::Quantity
    );
    assert_eq!(
        frame("How many hectares does the project cover?").unit_family,
        Some(UnitFamily::Area)
    );
    assert_eq!(
        ty("What is the minimum fine for a prohibited practice?"),
        AnswerType::Money
    );
    assert_eq!(ty("How much funding did NIST allocate?"), AnswerType::Money);
    assert_eq!(
        ty("What percentage of payments must payers withhold?"),
        AnswerType::Percentage
    );
    assert_eq!(
        ty("On what date does the regulation expire?"),
        AnswerType::Date
    );
    assert_eq!(ty("When did the director resign?"), AnswerType::Date);
    assert_eq!(
        ty("What period does this report cover?"),
        AnswerType::Period
    );
    assert_eq!(
        ty("What docket number is assigned to the AD?"),
        AnswerType::Identifier
    );
    assert_eq!(
        ty("What is the committee's ZIP code?"),
        AnswerType::Identifier
    );
    assert_eq!(ty("Who is the contracting officer?"), AnswerType::Person);
    assert_eq!(
        ty("What full name is entered on the form?"),
        AnswerType::Person
    );
    assert_eq!(
        ty("Which agency issued the order?"),
        AnswerType::Organisation
    );
    assert_eq!(
        ty("Do these statistics represent firearms sold?"),
        AnswerType::YesNo
    );
    assert_eq!(
        ty("How does the Regulation define a confiscation order?"),
        AnswerType::Definition
    );
    assert_eq!(
        ty("Why does the guide prefer federal loans?"),
        AnswerType::Explanation
    );
    assert_eq!(ty("What happens to the money obtained?"), AnswerType::Text);
}
