//! The PDF and DOCX of the review sample in `corpus/review/` (a fictional wetland
//! restoration project): the project plan, written on a registry template with
//! instruction text followed by values, and the land lease. `examples/review_sample.rs`
//! writes them; a test checks the committed files are exactly what this code writes.
#![allow(dead_code)]

use super::docgen::{docx, heading, paged_pdf, para, table, Line};

/// One block of the plan: a heading, a paragraph (wrapped), or a table row (cells at
/// fixed x positions).
enum Block {
    Heading(&'static str),
    Para(&'static str),
    Row(&'static [&'static str]),
}

use Block::*;

const PLAN: &[Block] = &[
    Heading("Alder Marsh Wetland Restoration Project"),
    Para("Project Plan prepared on the Registry Project Description Template, version 4.2. Instructions of the template are kept in the text; the project's answers follow them."),
    Heading("1.1 Summary Description of the Project"),
    Para("Provide a summary description of the project, no more than one page."),
    Para("The project restores the drained peat meadows of Alder Marsh in Tamsin County. Drainage ditches dug in the 1960s will be blocked, the water table raised to the surface, and native sedges and alder carr re-established on the former pasture."),
    Heading("1.2 Project Identification"),
    Para("Provide the project identifier assigned by the registry."),
    Para("Registry project ID: AMW-0417. The Project ID (2023 listing round) was confirmed by the registry secretariat."),
    Heading("1.4 Project Proponent"),
    Row(&["Organisation", "Alder Marsh Conservation Trust"]),
    Row(&["Contact", "Dr. Ruth Okafor, Programme Director"]),
    Heading("1.5 Land Tenure"),
    Para("Describe the ownership of the land and the proponent's right to use it for the crediting period."),
    Para("The land is owned by Helen Whitfield and leased to the Alder Marsh Conservation Trust. Land tenure: leasehold, under a lease registered with the county land office."),
    Para("The project area covers 1,250 hectares of drained peat meadow."),
    Heading("1.8 Project Start Date"),
    Para("Indicate and justify the project start date, specifying the day, month, and year."),
    Para("15/03/2021."),
    Para("On that date the first ditch blocks were installed under the approved restoration design."),
    Heading("1.9 Project Crediting Period"),
    Para("State the length of the crediting period and its start and end dates."),
    Para("The crediting period is 30 years, from 15/03/2021 to 14/03/2051."),
    Heading("1.11 Leakage"),
    Para("Leakage is estimated at 5% of the emission reductions, from grazing displaced to neighbouring farms. A leakage of >10% will be monitored and would trigger a revision of this plan."),
    Heading("1.12 Permanence and Buffer"),
    Para("The proponent commits to a permanence period of 40 years after the end of the crediting period. 15% of the verified credits are deposited in the buffer pool."),
    Heading("3 Land Areas"),
    Row(&["Parameter", "Value", "Unit"]),
    Row(&["Total Project Area", "1,250", "ha"]),
    Row(&["Buffer Zone", "80", "ha"]),
    Row(&["Ditch Length", "14.6", "km"]),
    Heading("4 Monitoring Plan"),
    Para("Describe the monitoring plan, including the parameters measured and their frequency."),
    Para("Water table depth is read every week at twelve dipwells, vegetation cover is surveyed each summer on thirty permanent plots, and methane fluxes are measured with closed chambers four times a year."),
    Heading("5 Stakeholder Consultation"),
    Para("Describe the consultation of local stakeholders and how their comments were taken into account."),
    Para("Two public meetings were held in Tamsin village hall with neighbouring farmers and the parish council. Farmers asked for access to summer grazing on the higher ground, which the plan now allows outside the bird nesting season."),
];

const HEADER: &str = "Alder Marsh Project Plan - Registry Template v4.2";
const TOP: u32 = 730;
const BOTTOM: u32 = 90;
const LEADING: u32 = 13;
const WRAP: usize = 92;

/// Words of `text` wrapped into lines of at most [`WRAP`] characters.
fn wrap(text: &'static str) -> Vec<&'static str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut last_space = None;
    for (i, c) in text.char_indices() {
        if c == ' ' {
            last_space = Some(i);
        }
        if text[start..i].chars().count() >= WRAP {
            if let Some(sp) = last_space.filter(|&s| s > start) {
                out.push(&text[start..sp]);
                start = sp + 1;
            }
        }
    }
    out.push(&text[start..]);
    out
}

/// The plan's pages: header on every page, blocks laid out top to bottom, a footer
/// `Page N of M`.
fn plan_pages() -> Vec<Vec<Line<'static>>> {
    let mut pages: Vec<Vec<Line<'static>>> = vec![Vec::new()];
    let mut y = TOP;
    for block in PLAN {
        let lines: Vec<Vec<(u32, &'static str)>> = match block {
            Heading(t) => vec![vec![(72, *t)]],
            Para(t) => wrap(t).into_iter().map(|l| vec![(72, l)]).collect(),
            Row(cells) => vec![cells
                .iter()
                .enumerate()
                .map(|(i, c)| (72 + 200 * i as u32, *c))
                .collect()],
        };
        let keep = lines.len() as u32 + if matches!(block, Heading(_)) { 3 } else { 0 };
        if y < BOTTOM + LEADING * keep {
            pages.push(Vec::new());
            y = TOP;
        }
        for line in lines {
            for (x, t) in line {
                pages.last_mut().unwrap().push((x, y, t));
            }
            y -= LEADING;
        }
        if !matches!(block, Row(_)) {
            y -= LEADING;
        }
    }
    pages
}

/// `corpus/review/01-project-plan.pdf`.
pub fn project_plan_pdf() -> Vec<u8> {
    let pages = plan_pages();
    let n = pages.len();
    let footers: Vec<String> = (1..=n).map(|i| format!("Page {i} of {n}")).collect();
    let footers: Vec<&'static str> = footers
        .into_iter()
        .map(|s| &*Box::leak(s.into_boxed_str()))
        .collect();
    let pages: Vec<Vec<Line>> = pages
        .into_iter()
        .zip(footers)
        .map(|(mut p, f)| {
            p.insert(0, (72, 760, HEADER));
            p.push((260, 50, f));
            p
        })
        .collect();
    paged_pdf(&pages, false)
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn p(s: &str) -> String {
    para(&escape(s))
}

/// `corpus/review/02-land-lease.docx`.
pub fn land_lease_docx() -> Vec<u8> {
    let body = [
        heading("Agricultural Land Lease for Wetland Restoration"),
        p("This lease is made on 02/03/2021 between Helena Whitfield of Marsh End Farm, Tamsin (the \"Lessor\") and the Alder Marsh Conservation Trust (the \"Lessee\"), for the purposes of the Alder Marsh Wetland Restoration Project, Project ID: AMW-0417."),
        heading("1. The Land"),
        p("The Lessor is the registered owner of the land shown edged red on the plan in Schedule 1, an area of 3,089 acres of former pasture and drained peat meadow at Alder Marsh."),
        heading("2. Term and Tenure"),
        table(&[
            &["Term", "Detail"],
            &["Tenure type", "Leasehold"],
            &["Term of lease", "70 years"],
            &["Rent", "A peppercorn, if demanded"],
        ]),
        p("The Lessee may block drainage ditches, raise the water table and carry out any works in the approved restoration design. The Lessor keeps the right to graze cattle on the higher ground outside the bird nesting season."),
        heading("3. Lessee's Covenants"),
        p("The Lessee shall maintain the restored wetland for the whole term, keep the boundary fences in good repair, and report the state of the land to the Lessor once a year."),
        heading("4. Signatures"),
        p("Signed by Helena Whitfield, Lessor, and by Ruth Okafor for the Alder Marsh Conservation Trust, Lessee, on 31/03/2021."),
    ];
    docx(&body.concat())
}
