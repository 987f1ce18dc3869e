//! Field extraction on quotes written like real project documents, including every known
//! failure mode of the system the review replaces.

use super::*;

fn field(name: &str) -> FieldSpec {
    catalogue().into_iter().find(|f| f.name == name).unwrap()
}

/// (raw, value) of what `name` takes from `quote`.
fn got(
    name: &str,
    quote: &str,
    ctx: Option<&str>,
    order: Option<DateOrder>,
) -> Vec<(String, serde_json::Value)> {
    let x = extract(&field(name), quote, ctx, order);
    for f in &x.found {
        assert_eq!(&quote[f.start..f.end], f.raw, "span of {name} in {quote:?}");
    }
    x.found
        .iter()
        .map(|f| (f.raw.clone(), f.value.to_json()))
        .collect()
}

fn values(name: &str, quote: &str) -> Vec<serde_json::Value> {
    got(name, quote, None, None)
        .into_iter()
        .map(|(_, v)| v)
        .collect()
}

fn rejected(name: &str, quote: &str, ctx: Option<&str>) -> Vec<RejectReason> {
    extract(&field(name), quote, ctx, None)
        .rejected
        .iter()
        .map(|r| r.reason)
        .collect()
}

#[test]
fn a_bare_year_next_to_project_id_is_never_the_identifier() {
    assert!(values("project_id", "Project ID: 2023").is_empty());
    assert_eq!(
        rejected("project_id", "Project ID: 2023", None),
        [RejectReason::BareYear]
    );
    assert_eq!(
        values("project_id", "The Project ID is MCW-0042."),
        ["MCW-0042"]
    );
    assert!(values("project_id", "Project ID (2024 registration round)").is_empty());
}

#[test]
fn generic_text_is_never_an_owner_name() {
    for q in [
        "Landowner: The Project",
        "The land is owned by the Project Proponent.",
        "Owner: Project Owner",
        "Landowner | the Landowner",
    ] {
        assert!(values("owner_name", q).is_empty(), "{q}");
        assert!(
            rejected("owner_name", q, None).contains(&RejectReason::GenericName),
            "{q}"
        );
    }
    assert_eq!(
        values(
            "owner_name",
            "The registered owner of the parcel is Mr. João Pereira, a farmer."
        ),
        ["João Pereira"]
    );
    assert_eq!(
        values("owner_name", "This lease is made between Maria Santos (the \"Lessor\") and Green Wetlands Ltd (the \"Lessee\")."),
        ["Maria Santos"]
    );
}

#[test]
fn a_threshold_near_leakage_is_not_the_leakage_value() {
    assert!(values("leakage_percentage", "Leakage of >10% will be monitored.").is_empty());
    assert_eq!(
        rejected(
            "leakage_percentage",
            "Leakage of >10% will be monitored.",
            None
        ),
        [RejectReason::Threshold]
    );
    assert_eq!(
        values(
            "leakage_percentage",
            "Leakage is estimated at 4%; a leakage of more than 15% would trigger a revision."
        ),
        [serde_json::json!(4)]
    );
    assert!(values("buffer_pool_percentage", "Leakage is estimated at 4%.").is_empty());
}

#[test]
fn day_first_dates_follow_the_order_and_ambiguous_ones_are_reported() {
    let q = "Project start date: 05/06/2021.";
    assert!(got("project_start_date", q, None, None).is_empty());
    assert_eq!(
        rejected("project_start_date", q, None),
        [RejectReason::AmbiguousDate]
    );
    assert_eq!(
        got("project_start_date", q, None, Some(DateOrder::Dmy))[0].1,
        "2021-06-05"
    );
    assert_eq!(
        values(
            "project_start_date",
            "The project start date is 31/12/2020."
        ),
        ["2020-12-31"]
    );
}

#[test]
fn a_crediting_period_gives_its_years_start_and_end_but_not_the_project_start() {
    let q = "The project started on 1 March 2021, and the crediting period is 30 years, from 1 July 2021 to 30 June 2051.";
    assert_eq!(values("project_start_date", q), ["2021-03-01"]);
    assert_eq!(values("crediting_period_years", q), [serde_json::json!(30)]);
    assert_eq!(values("crediting_period_start", q), ["2021-07-01"]);
    assert_eq!(values("crediting_period_end", q), ["2051-06-30"]);
    assert_eq!(
        values(
            "crediting_period_years",
            "The project has a 30-year crediting period."
        ),
        [serde_json::json!(30)]
    );
    assert!(values("project_start_date", "The lease was signed on 12 May 2020.").is_empty());
}

#[test]
fn areas_convert_and_other_areas_are_not_the_land() {
    assert_eq!(
        values("area_hectares", "The property covers 3,089 acres."),
        [serde_json::json!(1250.07)]
    );
    assert_eq!(
        values(
            "area_hectares",
            "Total project area: 1,250 ha, of which 80 ha is buffer zone."
        ),
        [serde_json::json!(1250)]
    );
    assert_eq!(
        got(
            "area_hectares",
            "| Total Project Area | 1,250 | ha |",
            None,
            None
        )[0]
        .1,
        serde_json::json!(1250)
    );
}

#[test]
fn a_value_under_its_label_or_column_header_is_read_by_the_label() {
    let ctx = "Indicate and justify the project start date, specifying the day, month, and year.";
    assert_eq!(
        got("project_start_date", "15/03/2021.", Some(ctx), None)[0].1,
        "2021-03-15"
    );
    assert!(got(
        "project_start_date",
        "15/03/2021.",
        Some("Date of signature"),
        None
    )
    .is_empty());
    let header = "Parcel | Owner | Area (ha)";
    assert_eq!(
        got(
            "owner_name",
            "P-01 | Maria Santos | 1,250",
            Some(header),
            None
        )[0]
        .0,
        "Maria Santos"
    );
    assert!(got(
        "owner_name",
        "P-01 | Maria Santos | 1,250",
        Some("Parcel | Surveyor | Area"),
        None
    )
    .is_empty());
}

#[test]
fn tenure_comes_from_a_tenure_cue() {
    assert_eq!(
        values(
            "tenure_type",
            "Land tenure: leasehold (30-year lease registered in 2019)."
        ),
        ["lease"]
    );
    assert_eq!(
        values("tenure_type", "Tenure type | Freehold"),
        ["ownership"]
    );
    assert!(values("tenure_type", "The lease was signed by both parties.").is_empty());
}

#[test]
fn percentages_durations_and_names_compare_within_tolerance() {
    let tol = Tolerance::default();
    assert_eq!(
        compare(
            FieldType::Area,
            &Value::Number(1250.0),
            &Value::Number(1250.07),
            &tol
        )
        .0,
        Agreement::Agree
    );
    assert_eq!(
        compare(
            FieldType::Area,
            &Value::Number(1250.0),
            &Value::Number(1400.0),
            &tol
        )
        .0,
        Agreement::Disagree(Severity::Error)
    );
    let d = |y, m, day| Value::Date {
        year: y,
        month: m,
        day,
    };
    assert_eq!(
        compare(FieldType::Date, &d(2021, 3, 15), &d(2021, 3, 15), &tol).0,
        Agreement::Agree
    );
    assert_eq!(
        compare(FieldType::Date, &d(2021, 3, 15), &d(2021, 4, 15), &tol).0,
        Agreement::Disagree(Severity::Error)
    );
    let week = Tolerance { days: 31, ..tol };
    assert_eq!(
        compare(FieldType::Date, &d(2021, 3, 15), &d(2021, 4, 15), &week).0,
        Agreement::Agree
    );
    assert_eq!(
        compare(
            FieldType::Identifier,
            &Value::Text("VCS-1234".into()),
            &Value::Text("vcs 1234".into()),
            &tol
        )
        .0,
        Agreement::Agree
    );
    assert_eq!(
        compare(
            FieldType::Name,
            &Value::Text("Maria Santos".into()),
            &Value::Text("Mario Santos".into()),
            &tol
        )
        .0,
        Agreement::Disagree(Severity::Warning)
    );
}

#[test]
fn a_long_sentence_under_a_tenure_section_is_not_read_by_its_section() {
    let q =
        "The land is owned by Helen Whitfield and leased to the Alder Marsh Conservation Trust.";
    assert_eq!(
        got("tenure_type", q, Some("1.5 Land Tenure"), None)[0].0,
        "leased"
    );
    assert!(values("tenure_type", "The parcel is not held under a lease.").is_empty());
}

#[test]
fn rule_fields_take_the_rule_not_its_delay_or_look_back() {
    let n = "notification_deadline_days";
    assert_eq!(
        values(
            n,
            "The office shall provide the notification without unreasonable delay and in no \
             case later than 60 calendar days after discovery of a breach."
        ),
        vec![serde_json::json!(60)]
    );
    // Trailing cue, in the same sentence: "not later than 60 days …, provide the notification".
    assert_eq!(
        values(
            n,
            "The office shall keep a log and, not later than 60 days after the end of each \
             calendar year, provide the notification to the Secretary."
        ),
        vec![serde_json::json!(60)]
    );
    assert!(values(
        n,
        "The office shall delay the notification temporarily and no longer than 30 days from \
         the date of the oral statement."
    )
    .is_empty());
    let r = "retention_period_years";
    // "must" states the rule here; it is no limit.
    assert_eq!(
        values(
            r,
            "A covered entity must retain the documentation for six years from the date of \
             its creation."
        ),
        vec![serde_json::json!(6)]
    );
    assert!(values(r, "Copies retained in the six years prior to the request.").is_empty());
    // Days are never read as a retention period in years.
    assert!(values(r, "Records are retained for 90 days.").is_empty());
}

#[test]
fn a_deadline_is_counted_from_the_event_after_it() {
    let q = "no later than 60 days after the end of each calendar year, provide";
    let end = q.find("days").unwrap() + 4;
    assert_eq!(event_words(q, end), vec!["end", "calendar", "year"]);
    let q = "by no more than 30 days, provided that";
    assert!(event_words(q, q.find(',').unwrap()).is_empty());
    let q = "within 30 days of receipt of the request";
    let end = q.find("days").unwrap() + 4;
    assert_eq!(event_words(q, end), vec!["receipt", "request"]);
}

#[test]
fn areas_of_strips_pixels_and_holdings_are_not_the_projects() {
    let a = "area_hectares";
    assert!(values(
        a,
        "The project area includes 9.5 ha of unplanted open-ground strips."
    )
    .is_empty());
    assert!(values(
        a,
        "The project forms part of Low Hollin Farm, a holding of about 640 ha."
    )
    .is_empty());
    assert!(values(a, "The project area is mapped at 10 m pixels (0.01 ha).").is_empty());
    assert_eq!(
        values(a, "The project area is 398.6 ha of upland moor."),
        vec![serde_json::json!(398.6)]
    );
}

#[test]
fn the_next_lines_label_does_not_name_the_value_before_it() {
    let got = values(
        "project_start_date",
        "Monitoring period: 14/11/2022 to 13/11/2023\nProject start date: 14/11/2022",
    );
    assert_eq!(got, vec![serde_json::json!("2022-11-14")]);
}

/// A declared date field for a deadline set for `act`.
fn deadline(act: &[&str]) -> FieldSpec {
    let mut f = field("project_start_date");
    f.name = "response_due_date".into();
    f.cues = vec!["response due date".into()];
    f.act = act.iter().map(|w| w.to_string()).collect();
    f
}

#[test]
fn a_deadline_date_is_the_one_set_for_the_requirement_act() {
    let f = deadline(&["submitting", "responses"]);
    let take = |q: &str| raws(&f, q);
    // "submitted" (a distractor elsewhere) is the act here; a time may stand between.
    assert_eq!(
        take("RFI responses are to be submitted to the office by 3:00PM Eastern Time, February 28, 2018."),
        ["February 28, 2018"]
    );
    assert_eq!(
        take("Responses must be submitted no later than March 3, 2019."),
        ["March 3, 2019"]
    );
    // The act named, but the date is not set by "by": the date the RFI was issued.
    assert!(take("Responses submitted to the RFI of January 5, 2018 were read.").is_empty());
    // The deadline of another act.
    assert!(take("Questions must be received by February 2, 2018.").is_empty());
    // The act named after the date is no deadline of it.
    assert!(take("By February 2, 2018 we expect responses to be submitted.").is_empty());
}

#[test]
fn a_role_and_its_holder_in_apposition_give_the_name() {
    let mut f = field("owner_name");
    f.name = "contracting_officer_name".into();
    f.cues = vec!["contracting officer".into()];
    let x = extract(
        &f,
        "The points of contact are Contract Specialist, David Melton and Contracting Officer, Mark Junda.",
        None,
        None,
    );
    let names: Vec<&str> = x.found.iter().map(|v| v.raw.as_str()).collect();
    assert_eq!(names, ["Mark Junda"]);
}

#[test]
fn a_value_named_by_the_next_sentence_is_the_field_it_names() {
    let mut f = field("buffer_pool_percentage");
    f.name = "backup_withholding_rate".into();
    f.cues = vec!["backup withholding".into()];
    let take = |q: &str| raws(&f, q);
    assert_eq!(
        take("Payers must withhold and pay to the IRS 24% of such payments. This is called “backup withholding.”"),
        ["24%"]
    );
    // Another number in the sentence: which one the name is of is not said.
    assert!(take("Payers must withhold 24% of payments above 10% of income. This is called backup withholding.").is_empty());
    // The next sentence names something else.
    assert!(
        take("Payers must withhold 24% of such payments. This is called a penalty.").is_empty()
    );
}

/// The raw text of every value `f` takes from `quote`.
fn raws(f: &FieldSpec, quote: &str) -> Vec<String> {
    extract(f, quote, None, None)
        .found
        .iter()
        .map(|v| v.raw.clone())
        .collect()
}
