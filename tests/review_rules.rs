//! `attest review` through the real binary on a regulation: checklist items without
//! declared fields that ask for a deadline or a retention period, where the same number
//! stands in several sections for different subjects.

use std::path::Path;

use serde_json::Value;

const MEMBERS: &str = "# Notification to members\n\n\
(a) Standard. After discovering an incident that affects member data, the office shall \
notify each affected member.\n\n\
(b) Timeliness. The office shall provide the notification required by paragraph (a) without \
unreasonable delay and in no case later than 45 calendar days after discovery of the \
incident.\n\n\
(c) Police delay. If a police officer states that a notice would impede an investigation, \
the office shall delay the notification temporarily and for no longer than 30 days from \
the statement.\n";

const PRESS: &str = "# Notification to the press\n\n\
(a) Standard. For an incident affecting more than 500 people in one county, the office \
shall notify prominent newspapers serving that county.\n\n\
(b) Timeliness. The office shall provide the notification required by paragraph (a) without \
unreasonable delay and in no case later than 45 calendar days after discovery of the \
incident.\n";

const REGULATOR: &str = "# Notification to the regulator\n\n\
(a) Large incidents. For incidents affecting 100 or more members, the office shall notify \
the regulator at the same time as it notifies the members.\n\n\
(b) Annual log. For incidents affecting fewer than 100 members, the office shall keep a log \
and, not later than 45 days after the end of each calendar year, provide the notification \
required by paragraph (a) for incidents discovered during the preceding year.\n";

const RECORDS: &str = "# Records\n\n\
(a) Documentation. The office must keep its policies and procedures in written form.\n\n\
(b) Retention period. The office must retain the documentation required by paragraph (a) \
for 6 years from the date of its creation.\n";

const ACCESS: &str = "# Access of members to their records\n\n\
(a) Timeliness. The office must act on a request for access no later than 20 days after \
receipt of the request.\n\n\
(b) Extension. If the office is unable to act within the time required by paragraph (a), \
it may extend the time for such action by no more than 10 days, provided that it gives the \
member a written statement of the reasons.\n";

const FEES: &str = "# Fees\n\nA member may be charged a reasonable fee for copies. Payment \
is due within 30 days of the invoice.\n";

const LIST: &str = r#"{"name": "Office rules", "requirements": [
 {"requirement_id": "N1", "category": "Incident Notification", "requirement_text": "Members affected by an incident shall be notified no later than 45 days after discovery.", "validation_type": "structured_field"},
 {"requirement_id": "N2", "category": "Incident Notification", "requirement_text": "Prominent newspapers serving a county where an incident affected more than 500 people shall be notified no later than 45 days after discovery.", "validation_type": "structured_field"},
 {"requirement_id": "N3", "category": "Incident Notification", "requirement_text": "Incidents affecting fewer than 100 members shall be logged and reported to the regulator not later than 45 days after the end of each calendar year.", "validation_type": "structured_field"},
 {"requirement_id": "N4", "category": "Incident Notification", "requirement_text": "Members shall be notified within a reasonable time after discovery.", "validation_type": "structured_field"},
 {"requirement_id": "R1", "category": "Record Retention", "requirement_text": "Records of incidents and the documentation of policies shall be retained for at least ten years.", "validation_type": "structured_field"},
 {"requirement_id": "R2", "category": "Record Retention", "requirement_text": "Audit logs of the member database shall be retained for 6 years.", "validation_type": "structured_field"},
 {"requirement_id": "A1", "category": "Member Access", "requirement_text": "The office shall act on a request for access no later than 20 days after receipt of the request.", "validation_type": "structured_field"},
 {"requirement_id": "E1", "category": "Member Access", "requirement_text": "The deadline to act on a request for access may be extended once, by no more than 10 days.", "validation_type": "structured_field"}
]}"#;

fn reviewed(dir: &Path) -> Value {
    let docs = [
        ("notification-to-members.md", MEMBERS),
        ("notification-to-the-press.md", PRESS),
        ("notification-to-the-regulator.md", REGULATOR),
        ("records.md", RECORDS),
        ("access.md", ACCESS),
        ("fees.md", FEES),
    ];
    super::review_subjects::reviewed(dir, &docs, LIST)
}

/// Status, and every (field, value, file) of requirement `id`.
fn outcome(r: &Value, id: &str) -> (String, Vec<(String, f64, String)>) {
    let q = r["requirements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["id"] == id)
        .unwrap_or_else(|| panic!("no {id} in {r}"));
    let mut values: Vec<(String, f64, String)> = q["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let file = f["source"].as_str().unwrap().rsplit('/').next().unwrap();
            let name = f["name"].as_str().unwrap().to_string();
            (name, f["value"].as_f64().unwrap(), file.to_string())
        })
        .collect();
    values.sort_by(|a, b| a.partial_cmp(b).unwrap());
    values.dedup();
    (q["status"].as_str().unwrap().to_string(), values)
}

fn one(name: &str, v: f64, file: &str) -> Vec<(String, f64, String)> {
    vec![(name.to_string(), v, file.to_string())]
}

#[test]
fn deadlines_and_retention_periods_are_read_from_the_section_that_sets_them() {
    let tmp = tempfile::tempdir().unwrap();
    let r = reviewed(tmp.path());
    let n = "notification_deadline_days";
    // The same sentence stands in three sections; the titles say whom each binds, and the
    // police delay of 30 days is no deadline.
    assert_eq!(
        outcome(&r, "N1"),
        (
            "evidenced".into(),
            one(n, 45.0, "notification-to-members.md")
        ),
        "{r:#}"
    );
    assert_eq!(
        outcome(&r, "N2"),
        (
            "evidenced".into(),
            one(n, 45.0, "notification-to-the-press.md")
        )
    );
    // Both the members' and the regulator's sections are named; the regulator's period is
    // the one counted from the end of the year.
    assert_eq!(
        outcome(&r, "N3"),
        (
            "evidenced".into(),
            one(n, 45.0, "notification-to-the-regulator.md")
        )
    );
    // The members' section states its period in a sentence that does not say "members";
    // the regulator's sentence does, but under a title that names less of the requirement
    // than the members' section: no value is better than the regulator's.
    assert_eq!(outcome(&r, "N4"), ("missing".into(), vec![]));
    let ret = "retention_period_years";
    // "must retain … for 6 years" is the rule, not a limit; ten years asked, six stated.
    assert_eq!(
        outcome(&r, "R1"),
        ("needs_review".into(), one(ret, 6.0, "records.md"))
    );
    // Nothing says how long audit logs are kept.
    assert_eq!(outcome(&r, "R2"), ("missing".into(), vec![]));
    let resp = "response_deadline_days";
    assert_eq!(
        outcome(&r, "A1"),
        ("evidenced".into(), one(resp, 20.0, "access.md"))
    );
    assert_eq!(
        outcome(&r, "E1"),
        ("evidenced".into(), one(resp, 10.0, "access.md"))
    );
    let r1 = r["requirements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["id"] == "R1")
        .unwrap();
    let failed = r1["checks"].as_array().unwrap().iter().any(|c| {
        c["kind"] == "requirement"
            && c["status"] == "fail"
            && c["note"].as_str().unwrap().contains("ten years")
    });
    assert!(failed, "{r1:#}");
}

const FORM_A: &str = "# Form A-1 (Rev. 2024)\n\nRequest for a member card.\n\n\
OMB No. 1111-2222\n\nGive this form to the office. Do not send it to the agency.\n";

const FORM_B: &str = "# Form B-2 (Rev. 2025)\n\nChange of address.\n\n\
OMB No. 3333-4444\n\nCat. No. 12345X Form B-2 (2025)\n";

const FORM_LIST: &str = r#"{"requirements": [
 {"requirement_id": "B1", "requirement_text": "The OMB control number of Form B-2 is displayed on the form.", "validation_type": "structured_field", "fields": [{"name": "b2_omb_number", "type": "identifier"}]},
 {"requirement_id": "B2", "requirement_text": "The catalog number of Form B-2 is printed on the form.", "validation_type": "structured_field", "fields": [{"name": "b2_catalog_number", "type": "identifier"}]},
 {"requirement_id": "A2", "requirement_text": "The catalog number of Form A-1 is printed on the form.", "validation_type": "structured_field", "fields": [{"name": "a1_catalog_number", "type": "identifier"}]}
]}"#;

#[test]
fn a_declared_field_named_for_one_form_takes_its_value_from_that_form_only() {
    let tmp = tempfile::tempdir().unwrap();
    let docs = [("form-a.md", FORM_A), ("form-b.md", FORM_B)];
    let r = super::review_subjects::reviewed(tmp.path(), &docs, FORM_LIST);
    let values = |id: &str| -> Vec<(String, String)> {
        fields_of(&r, id)
            .iter()
            .map(|f| {
                let file = f["source"].as_str().unwrap().rsplit('/').next().unwrap();
                (f["value"].as_str().unwrap().to_string(), file.to_string())
            })
            .collect()
    };
    // "omb number" alone would also take Form A-1's number; the name's "b2" binds the form.
    assert_eq!(
        values("B1"),
        vec![("3333-4444".into(), "form-b.md".into())],
        "{r:#}"
    );
    // "catalog number" is printed "Cat. No.".
    assert_eq!(
        values("B2"),
        vec![("12345X".into(), "form-b.md".into())],
        "{r:#}"
    );
    // Form A-1 prints no catalog number; Form B-2's is not its.
    assert!(values("A2").is_empty(), "{r:#}");
}

/// Filler that keeps two notices of one file in different chunks.
fn filler(topic: &str) -> String {
    (1..=30)
        .map(|i| format!("Paragraph {i} of the {topic} discussion explains the unsafe condition in plain words."))
        .collect::<Vec<_>>()
        .join("\n\n")
}

const FORMS_LIST: &str = r#"{"requirements": [
  {"requirement_id": "D1", "category": "Rulemaking", "requirement_text": "The docket number of the proposed airworthiness directive for the Zephyr Z-9 is stated.", "validation_type": "structured_field", "fields": [{"name": "faa_docket_number", "type": "identifier"}]},
  {"requirement_id": "D2", "category": "Rulemaking", "requirement_text": "The date by which the FAA must receive comments on the proposed Zephyr AD is stated.", "validation_type": "structured_field", "fields": [{"name": "comment_due_date", "type": "date"}]},
  {"requirement_id": "P1", "category": "Procurement", "requirement_text": "The Contracting Officer responsible for the RFI is named.", "validation_type": "structured_field", "fields": [{"name": "contracting_officer_name", "type": "name"}]},
  {"requirement_id": "P2", "category": "Procurement", "requirement_text": "The deadline for submitting responses to the RFI is stated.", "validation_type": "structured_field", "fields": [{"name": "rfi_response_due_date", "type": "date"}]},
  {"requirement_id": "F1", "category": "Filing", "requirement_text": "The first and last day of the reporting (covering) period are stated.", "validation_type": "structured_field", "fields": [{"name": "coverage_start_date", "type": "date"}, {"name": "coverage_end_date", "type": "date"}]},
  {"requirement_id": "S1", "category": "Standards", "requirement_text": "The publication date of the Widget Testing Framework is stated.", "validation_type": "structured_field", "fields": [{"name": "framework_publication_date", "type": "date"}]},
  {"requirement_id": "T1", "category": "Tax", "requirement_text": "The backup withholding rate is stated.", "validation_type": "structured_field", "fields": [{"name": "backup_withholding_rate", "type": "percentage"}]}
]}"#;

#[test]
fn declared_fields_are_read_as_forms_notices_and_covers_print_them() {
    let tmp = tempfile::tempdir().unwrap();
    // One file, two notices: only the Zephyr notice's docket and deadline are asked for.
    let notices = format!(
        "DEPARTMENT OF TRANSPORTATION\n\nFederal Aviation Administration\n\n\
         [Docket No. FAA-2031-0101; Product Identifier 2031-NM-001-AD]\n\n\
         Airworthiness Directives; The Zephyr Company Airplanes\n\n\
         DATES: The FAA must receive comments on this proposed AD by October 2, 2031.\n\n{}\n\n\
         [Docket No. FAA-2031-0202; Product Identifier 2031-CE-002-AD]\n\n\
         Airworthiness Directives; Boreal Aircraft Ltd. Airplanes\n\n\
         DATES: The FAA must receive comments on this proposed AD by November 5, 2031.\n\n{}\n",
        filler("Zephyr Z-9 airplane"),
        filler("Boreal airplane")
    );
    let rfi = "Request for Information (RFI)\n\nThe points of contact for this RFI are Contract \
               Specialist, Ann Lee and Contracting Officer, Paul Grant.\n\nRFI responses are \
               to be submitted directly to Ann Lee by 3:00PM Eastern Time, April 30, 2030.\n\n\
               Questions were received by the office on March 1, 2030.\n";
    let filing = "REPORT OF RECEIPTS\n\n5. Covering Period 02 01 2030 through 02 28 2030\n\n\
                  6. Cash on hand 1000.00\n";
    let cover = "Widget Testing Framework\n\nVersion 2.0\n\nNational Widget Institute\n\n\
                 March 3, 2029\n\nThe first version of the framework was issued on January 5, 2020.\n";
    let w9 = "Form W-9\n\nPersons making certain payments to you must withhold and pay to the \
              IRS 24% of such payments. This is called backup withholding.\n";
    let docs = [
        ("fedreg-notices.txt", notices.as_str()),
        ("va-rfi.txt", rfi),
        ("filing.txt", filing),
        ("widget-framework.txt", cover),
        ("form-w9.txt", w9),
    ];
    let r = super::review_subjects::reviewed(tmp.path(), &docs, FORMS_LIST);
    let values = |id: &str| -> Vec<String> {
        fields_of(&r, id)
            .iter()
            .map(|f| format!("{}={}", f["name"].as_str().unwrap(), f["value"]))
            .collect()
    };
    assert_eq!(
        values("D1"),
        ["faa_docket_number=\"FAA-2031-0101\""],
        "{r:#}"
    );
    assert_eq!(values("D2"), ["comment_due_date=\"2031-10-02\""], "{r:#}");
    assert_eq!(
        values("P1"),
        ["contracting_officer_name=\"Paul Grant\""],
        "{r:#}"
    );
    assert_eq!(
        values("P2"),
        ["rfi_response_due_date=\"2030-04-30\""],
        "{r:#}"
    );
    let mut f1 = values("F1");
    f1.sort();
    assert_eq!(
        f1,
        [
            "coverage_end_date=\"2030-02-28\"",
            "coverage_start_date=\"2030-02-01\""
        ],
        "{r:#}"
    );
    assert_eq!(
        values("S1"),
        ["framework_publication_date=\"2029-03-03\""],
        "{r:#}"
    );
    assert_eq!(values("T1"), ["backup_withholding_rate=24"], "{r:#}");
}

/// The field values of requirement `id` in review `r`.
fn fields_of<'a>(r: &'a Value, id: &str) -> &'a Vec<Value> {
    let q = r["requirements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["id"] == id)
        .unwrap_or_else(|| panic!("no requirement {id}"));
    q["fields"].as_array().unwrap()
}
