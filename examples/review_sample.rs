//! Writes the generated files of the review sample: `corpus/review/01-project-plan.pdf`
//! and `corpus/review/02-land-lease.docx` (or into the directory given as the argument).
//! `cargo run --example review_sample [DIR]`.

#[path = "../tests/common/docgen.rs"]
mod docgen;
#[path = "../tests/common/review_sample.rs"]
mod review_sample;

fn main() -> std::io::Result<()> {
    let dir = std::env::args()
        .nth(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::PathBuf::from("corpus/review"));
    std::fs::create_dir_all(&dir)?;
    std::fs::write(
        dir.join("01-project-plan.pdf"),
        review_sample::project_plan_pdf(),
    )?;
    std::fs::write(
        dir.join("02-land-lease.docx"),
        review_sample::land_lease_docx(),
    )?;
    println!("wrote {}", dir.display());
    Ok(())
}
