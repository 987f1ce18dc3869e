//! Fitted relevance and typed abstention through the real binary and bi-encoder: a
//! research paper answers questions worded in another register than its own (the
//! question's framing verbs and degree words are not required of the passage), a
//! question from another field is still turned away, and a question asking for a value of
//! a precise type whose passages state none is not answered; values of another kind than
//! the one asked are not named.

use serde_json::Value;

use super::ask::ask_json;

const PAPER: &str = "# Learning to Tag Ship Radio Logs with Weak Supervision\n\n\
## Abstract\n\nWe study intent tagging for transcribed ship-to-shore radio calls. We introduce \
two corpora of harbour radio traffic and show that weak labels from port schedules help a \
small tagger.\n\n\
## Introduction\n\nRadio traffic in busy harbours is logged but rarely analysed. Prior work \
BIBREF3 tagged aviation calls; maritime calls differ in vocabulary and turn length BIBREF7 .\n\n\
## Corpora\n\nWe release HarbourCalls and PilotNet. Each of them holds more than 40K \
transcribed utterances, recorded at three ports between 2019 and 2022.\n\n\
## Model\n\nOur tagger is a two-layer bidirectional LSTM over subword embeddings, followed by \
a linear layer over the twelve intent labels. We train it with Adam for 20 epochs.\n\n\
## Results\n\nThe tagger reaches 81.4 macro-F1 on HarbourCalls, 6.2 points above the keyword \
baseline BIBREF12 . Weak labels from port schedules add 2.1 points.\n\n\
## Limitations\n\nWe do not evaluate the tagger on calls in languages other than English.\n";

/// The cited quotes of answer `a`.
fn cited(a: &Value) -> Vec<String> {
    a["evidence"]
        .as_array()
        .map(|e| {
            e.iter()
                .map(|x| x["quote"].as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_paper_answers_in_its_own_words_and_other_fields_and_unstated_types_abstain() {
    let tmp = tempfile::tempdir().unwrap();
    let idx = super::cli::ingested(tmp.path(), &[("paper.md", PAPER)]);
    // The question's verb ("use") frames the ask; the passage states the architecture.
    let (a, code) = ask_json(
        &idx,
        "What architecture does the tagger use?",
        &["--no-memory"],
    );
    assert_eq!(code, 0, "{a}");
    assert!(
        cited(&a).iter().any(|q| q.contains("bidirectional LSTM")),
        "{a}"
    );
    // A question from another field finds no passage about it.
    let (a, code) = ask_json(
        &idx,
        "What government position was held by the actress who starred in the film?",
        &["--no-memory"],
    );
    assert_eq!(code, 1, "{a}");
    assert_eq!(a["status"], "no_authoritative_evidence", "{a}");
    // An amount asked of passages that state none is not answered, and says so.
    let (a, code) = ask_json(
        &idx,
        "How much did the port authority charge for the logging software?",
        &["--no-memory"],
    );
    assert_eq!(code, 1, "{a}");
    assert_eq!(a["status"], "no_authoritative_evidence", "{a}");
    assert!(a["answer_value"].is_null(), "{a}");
}

const CORPUS_PAPER: &str = "# Intent Tagging for Harbour Radio\n\n\
## Abstract\n\nWe propose a corpus of harbour radio calls and a tagger for their intents.\n\n\
## Corpus\n\nWe introduce HarbourTalk, a corpus of manually transcribed utterances in English \
and Dutch, each labelled with one communicative intent. The final corpus contains 18,420 \
utterances from 1,312 radio exchanges.\n";

const CORPUS_PLAN: &str = "# Riverside Planting Plan\n\n\
## Permanence\n\nThe permanence period of the Riverside planting is 40 years. Trees lost in \
that period are replaced by the owner.\n\n\
## Reporting\n\nThe monitoring report must be filed within 30 days after each site \
inspection.\n";

/// The value answer `a` names, as written.
fn named(a: &Value) -> Option<String> {
    a["answer_value"]["raw"].as_str().map(str::to_string)
}

/// Values are named only when they are of the asked kind: a heading run into the text is
/// no person, a count of another thing does not answer "how many", and a bare length of
/// time does not say when something ends (a time limit does say when it is due). A
/// named value carries the check it went through.
#[test]
fn values_of_another_kind_are_not_named() {
    let tmp = tempfile::tempdir().unwrap();
    let idx = super::cli::ingested(
        tmp.path(),
        &[("paper.md", CORPUS_PAPER), ("plan.md", CORPUS_PLAN)],
    );
    let ask = |q: &str| super::ask::ask_read(&idx, q);
    let a = ask("Who wrote the paper on harbour radio intent tagging?");
    let who = named(&a).unwrap_or_default();
    assert!(!who.contains("Abstract") && !who.contains("We"), "{a}");
    let a = ask("How many utterances does the HarbourTalk corpus contain?");
    assert_ne!(named(&a).as_deref(), Some("one"), "{a}");
    let a = ask("When does the permanence period of the Riverside planting end?");
    assert_ne!(named(&a).as_deref(), Some("40 years"), "{a}");
    let a = ask("When must the monitoring report be filed?");
    assert_eq!(named(&a).as_deref(), Some("30 days"), "{a}");
    let check = &a["assurance"]["value_check"];
    assert_eq!(check["value"]["raw"], "30 days", "{a}");
    let p = check["probability"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&p) && check["given"] == true, "{a}");
}

/// A board's page: roles beside names, a site's ratings in several units, and opening
/// hours.
const CORPUS_BOARD: &str = "# Northgate Energy Cooperative\n\n\
## Board and officers\n\nThe board chair, Tom Reyes, opened the annual meeting in March. \
Later in the meeting the members thanked the departing chief executive for eleven years \
of service.\n\n\
## Site\n\nThe solar site at Marsh Farm has an export capacity of 49.9 MW. Its battery \
can store up to 120 MWh. Dust from the access road must stay below 5 mg/m³ at the boundary.\n\n\
## Visitors\n\nThe visitor centre opens at 9 am. The south gate must be locked at 11 pm \
every night.\n";

/// Who-questions are answered by a name that holds the asked role; a unit of another
/// family is never read as the asked one; "what time" is answered by a time of day.
#[test]
fn roles_units_and_times_of_day_bind_to_what_is_asked() {
    let tmp = tempfile::tempdir().unwrap();
    let idx = super::cli::ingested(tmp.path(), &[("board.md", CORPUS_BOARD)]);
    let ask = |q: &str| super::ask::ask_read(&idx, q);
    // The only person named is the chair; the chief executive is not named anywhere.
    let a = ask("Who is the chief executive of Northgate Energy Cooperative?");
    assert_ne!(named(&a).as_deref(), Some("Tom Reyes"), "{a}");
    let a = ask("Who is the board chair of Northgate Energy Cooperative?");
    assert_eq!(named(&a).as_deref(), Some("Tom Reyes"), "{a}");
    // A battery's energy answers no question about power, and the other way round.
    let a = ask("What is the export capacity of the Marsh Farm solar site in MW?");
    assert_eq!(named(&a).as_deref(), Some("49.9 MW"), "{a}");
    let a = ask("How many megawatt-hours can the Marsh Farm battery store?");
    assert_eq!(named(&a).as_deref(), Some("120 MWh"), "{a}");
    let a = ask("At what time must the south gate be locked?");
    assert_eq!(a["answer_value"]["normalised"], "23:00", "{a}");
}

const CORPUS_LICENCE: &str = "# Licence to Abstract Water WL-88/R2\n\n\
## Term\n\nThis licence replaces licence WL-88/R1, which expired on 31 March 2025. \
This licence is valid for twelve (12) years from 1 April 2025 and expires on 31 March 2037. \
An application for renewal must be made at least six months before expiry.\n\n\
## Monitoring\n\nThe holder keeps a survey of 4,120 recorded fish movements from 11 \
counting stations.\n";

/// A "when" question about an end is answered by the date its sentence says ends, not by
/// the replaced licence's end, the term's length or a time told relative to the end;
/// a count of another noun does not answer "how many".
#[test]
fn an_end_date_binds_to_its_own_instrument_and_counts_to_their_noun() {
    let tmp = tempfile::tempdir().unwrap();
    let idx = super::cli::ingested(tmp.path(), &[("licence.md", CORPUS_LICENCE)]);
    let ask = |q: &str| super::ask::ask_read(&idx, q);
    let a = ask("When does abstraction licence WL-88/R2 expire?");
    assert_eq!(a["answer_value"]["normalised"], "2037-03-31", "{a}");
    // The question that names the replaced licence asks for the replaced licence's end.
    let a = ask("When did abstraction licence WL-88/R1 expire?");
    assert_eq!(a["answer_value"]["normalised"], "2025-03-31", "{a}");
    let a = ask("When does the licence expire?");
    assert_ne!(a["answer_value"]["normalised"], "2025-03-31", "{a}");
    assert_ne!(a["answer_value"]["type"], "duration", "{a}");
    let a = ask("How many fish species does the survey record?");
    assert_ne!(named(&a).as_deref(), Some("4,120"), "{a}");
}

/// The value model's `answer_from`, as fitted (`src/ask/value.toml`).
fn answer_from() -> f64 {
    let model: toml::Value = toml::from_str(include_str!("../src/ask/value.toml")).unwrap();
    model["answer_from"].as_float().unwrap()
}

/// A value the value model gives less than the bound is not named, and the notes say which
/// value was read and why it is not named; at bound 0 it is named. The question is still
/// answered, its same passages cited, when the value's probability reaches the model's
/// `answer_from`; below it the question is not answered (status
/// `no_authoritative_evidence`, confidence `insufficient`), the passages shown as the
/// closest found.
/// A bound outside 0..=1, or not a number, is refused with the setting's name.
#[test]
fn a_value_below_the_fitted_bound_is_cited_but_not_named() {
    let tmp = tempfile::tempdir().unwrap();
    let idx = super::cli::ingested(tmp.path(), &[("licence.md", CORPUS_LICENCE)]);
    let q = "When does abstraction licence WL-88/R2 expire?";
    let run_with = |env: &[(&str, &str)]| {
        let mut cmd = super::cli::attest(&idx);
        cmd.env("ATTEST_MIN_VALUE_PROBABILITY", "0.9999");
        cmd.envs(env.iter().copied());
        let out = cmd
            .args(["ask", q, "--json", "--no-memory"])
            .output()
            .unwrap();
        (serde_json::from_slice::<Value>(&out.stdout).ok(), out)
    };
    let run = |bound: &str| run_with(&[("ATTEST_MIN_VALUE_PROBABILITY", bound)]);
    let (named, _) = run("0");
    let named = named.unwrap();
    assert_eq!(named["answer_value"]["normalised"], "2037-03-31", "{named}");
    let (withheld, _) = run("0.9999");
    let withheld = withheld.unwrap();
    assert!(withheld["answer_value"].is_null(), "{withheld}");
    let read = withheld["assurance"]["value_check"]["probability"]
        .as_f64()
        .unwrap();
    // Below the naming bound, from the fitted `answer_from`: answered, its passages cited.
    let expect = if read >= answer_from() {
        "answered"
    } else {
        "no_authoritative_evidence"
    };
    assert_eq!(withheld["status"], expect, "{withheld}");
    assert_eq!(cited(&withheld), cited(&named));
    let said = withheld["missing_evidence"].to_string();
    assert!(
        said.contains("31 March 2037") && said.contains("not named"),
        "{said}"
    );
    // Below `answer_from` too: not answered, the same passages the closest found.
    let (unanswered, _) = run_with(&[("ATTEST_MIN_VALUE_ANSWER_PROBABILITY", "0.9999")]);
    let unanswered = unanswered.unwrap();
    assert_eq!(unanswered["status"], "no_authoritative_evidence");
    assert_eq!(unanswered["confidence"], "insufficient", "{unanswered}");
    assert_eq!(cited(&unanswered), cited(&named));
    let out = super::cli::attest(&idx)
        .env("ATTEST_MIN_VALUE_PROBABILITY", "0.9999")
        .env("ATTEST_MIN_VALUE_ANSWER_PROBABILITY", "0.9999")
        .args(["ask", q, "--no-memory"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("No authoritative evidence")
            && text.contains("Closest passages found (not an answer):")
            && text.contains("31 March 2037"),
        "{text}"
    );
    let (_, out) = run("1.5");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("ATTEST_MIN_VALUE_PROBABILITY"), "{err}");
    let (_, out) = run_with(&[("ATTEST_MIN_VALUE_ANSWER_PROBABILITY", "NaN")]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("ATTEST_MIN_VALUE_ANSWER_PROBABILITY"), "{err}");
}

/// A licence whose only charge is a former one.
const CORPUS_FORMER_CHARGE: &str = "# Licence to Abstract Water WL-88/R2\n\n\
## Term\n\nThis licence is valid for twelve (12) years from 1 April 2025.\n\n\
## Fees\n\nThe previous annual charge was GBP 300.\n";

/// `--explain` and `--json` show what the question asks for and the rule of the
/// answer-type table that read it; a value of the asked kind that a rule of the value
/// filter sets aside is named in the answer's notes with that rule, and never given as
/// the answer's value.
#[test]
fn the_frame_s_rule_and_the_rule_setting_a_value_aside_are_shown() {
    let tmp = tempfile::tempdir().unwrap();
    let idx = super::cli::ingested(tmp.path(), &[("licence.md", CORPUS_FORMER_CHARGE)]);
    let q = "What is the annual charge?";
    let out = super::cli::attest(&idx)
        .args(["ask", q, "--explain", "--no-memory"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("question frame: asks for an amount of money (rule money_named)"),
        "{text}"
    );
    let a = super::ask::ask_read(&idx, q);
    assert_eq!(a["question_frame"]["type_rule"], "money_named", "{a}");
    assert!(a["answer_value"].is_null(), "{a}");
    let notes = a["missing_evidence"].to_string();
    assert!(
        notes.contains("\\\"GBP 300\\\", set aside by rule other_one"),
        "{a}"
    );
    // A bound before the question's own figure is its condition, not the bound asked.
    let a = super::ask::ask_read(&idx, "What charge applies for up to 300 days?");
    assert!(a["question_frame"]["extreme"].is_null(), "{a}");
    let a = super::ask::ask_read(&idx, "What is the maximum charge?");
    assert_eq!(a["question_frame"]["extreme"], "max", "{a}");
}

/// A club's rules that define a class of member and say nothing of how many there are.
const CORPUS_CLUB: &str = "# Rules of the Harrow Reach Sailing Club\n\n\
## 2. Membership\n\n2.3 Full members are members aged 18 or over who sail or crew.\n\n\
2.4 Cadet members are members still at school.\n\n\
## 5. Moorings\n\nBoats on the hard must be no wider than 2.5 metres.\n";

/// A question that names one thing with a qualifier beside it ("Full members") asks one
/// passage, not two things to hop between; a count the rules do not state is not
/// answered, its closest passages shown, and "how wide" asks a length.
#[test]
fn a_qualified_thing_is_one_thing_and_an_unstated_count_is_not_answered() {
    let tmp = tempfile::tempdir().unwrap();
    let idx = super::cli::ingested(tmp.path(), &[("rules.md", CORPUS_CLUB)]);
    let a = super::ask::ask_read(
        &idx,
        "How many Full members does the Harrow Reach Sailing Club have?",
    );
    assert_eq!(a["research"]["class"], "simple", "{a}");
    assert_eq!(a["status"], "no_authoritative_evidence", "{a}");
    assert!(a["answer_value"].is_null(), "{a}");
    let a = super::ask::ask_read(&idx, "How wide may boats on the hard be?");
    assert_eq!(a["question_frame"]["type_rule"], "measure_asked", "{a}");
    assert_eq!(a["question_frame"]["unit_family"], "length", "{a}");
    let cited = cited(&a).join(" ");
    assert!(cited.contains("2.5 metres"), "{a}");
}

/// A paper whose abstract and conclusion restate the question's words and whose body
/// states the answer.
const CORPUS_PAPER_SUMMARIES: &str = "# Tagging VHF Calls in Harbour Traffic\n\n\
## Abstract\n\nWe present a tagger for VHF radio calls and describe how the tagger is trained \
and evaluated on harbour traffic.\n\n\
## Introduction\n\nHarbour pilots talk to vessels over VHF radio, and the calls are short and noisy.\n\n\
## Training\n\nThe tagger is trained with the Adam optimizer for 20 epochs on four GPUs, with a \
learning rate of 0.001.\n\n\
## Conclusion\n\nWe showed how the tagger is trained on harbour traffic and how it is evaluated \
against a keyword baseline.\n";

/// A paper's abstract and conclusion sum up its body: a body passage about as relevant
/// leads the answer, and the summaries follow, labelled as such.
#[test]
fn a_paper_s_body_leads_its_abstract_and_conclusion() {
    let tmp = tempfile::tempdir().unwrap();
    let idx = super::cli::ingested(tmp.path(), &[("paper.md", CORPUS_PAPER_SUMMARIES)]);
    let a = super::ask::ask_read(&idx, "How is the tagger trained?");
    assert_eq!(a["status"], "answered", "{a}");
    let ev = a["evidence"].as_array().unwrap();
    assert_eq!(ev[0]["section"], "Training", "{a}");
    let summaries: Vec<&Value> = ev
        .iter()
        .filter(|e| matches!(e["section"].as_str(), Some("Abstract" | "Conclusion")))
        .collect();
    assert!(!summaries.is_empty(), "{a}");
    for e in summaries {
        assert_eq!(e["non_binding"]["kind"], "summary", "{e}");
    }
}
