//! Documents generated for the tests and the review sample: a PDF built by hand with a
//! correct xref table, and DOCX files from WordprocessingML. Shared by the integration
//! tests and `examples/review_sample.rs` (through `#[path]`), so no binary fixture is
//! written by anything but this code.
#![allow(dead_code)]

use std::io::Write;

/// One line of text on a PDF page: x, y (points from the bottom left) and the text.
pub type Line<'a> = (u32, u32, &'a str);

/// Escape text for a PDF string literal.
pub fn pdf_string(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('(', "\\(")
        .replace(')', "\\)")
}

/// A PDF whose pages hold `pages` (Helvetica 10 pt at the given positions), built by
/// hand with a correct xref table. `encrypt` adds a standard-security `/Encrypt`
/// dictionary whose empty user password does not open it.
pub fn paged_pdf(pages: &[Vec<Line>], encrypt: bool) -> Vec<u8> {
    let n = pages.len();
    let font = 3 + 2 * n; // object number of the font
    let kids: Vec<String> = (0..n).map(|i| format!("{} 0 R", 3 + 2 * i)).collect();
    let mut objects = vec![
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        format!("<< /Type /Pages /Kids [{}] /Count {n} >>", kids.join(" ")),
    ];
    for (i, lines) in pages.iter().enumerate() {
        let mut content = String::new();
        for (x, y, text) in lines {
            content.push_str(&format!(
                "BT /F1 10 Tf {x} {y} Td ({}) Tj ET\n",
                pdf_string(text)
            ));
        }
        if lines.is_empty() {
            content.push_str("0.5 g 72 72 400 600 re f\n"); // an image-like page: no text
        }
        objects.push(format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {} 0 R \
             /Resources << /Font << /F1 {font} 0 R >> >> >>",
            4 + 2 * i
        ));
        objects.push(format!(
            "<< /Length {} >>\nstream\n{content}endstream",
            content.len()
        ));
    }
    objects.push("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_string());
    let mut trailer_extra = String::new();
    if encrypt {
        objects.push(format!(
            "<< /Filter /Standard /V 1 /R 2 /O <{}> /U <{}> /P -44 >>",
            "11".repeat(32),
            "22".repeat(32)
        ));
        trailer_extra = format!(
            " /Encrypt {} 0 R /ID [<{}> <{}>]",
            objects.len(),
            "33".repeat(16),
            "33".repeat(16)
        );
    }
    let bodies: Vec<Vec<u8>> = objects.into_iter().map(String::into_bytes).collect();
    pdf_file(&bodies, &trailer_extra)
}

/// A run of text on a one-page PDF built by [`typeset_pdf`]: x and y (points from the
/// bottom left), the type size, whether it is set in the second font (Times; the first
/// is Helvetica), and the text.
pub type Run<'a> = (f32, f32, f32, bool, &'a str);

/// A one-page PDF whose runs are set at the given positions and sizes in two fonts, as a
/// typesetter sets small capitals and titles (no metadata title).
pub fn typeset_pdf(runs: &[Run]) -> Vec<u8> {
    typeset_pdf_titled(runs, None)
}

/// [`typeset_pdf`] with a metadata title (`/Title` of the document information).
pub fn typeset_pdf_titled(runs: &[Run], title: Option<&str>) -> Vec<u8> {
    let mut content = String::new();
    for (x, y, size, second, text) in runs {
        let font = if *second { "F2" } else { "F1" };
        content.push_str(&format!(
            "BT /{font} {size} Tf {x:.2} {y:.2} Td ({}) Tj ET\n",
            pdf_string(text)
        ));
    }
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R \
         /Resources << /Font << /F1 5 0 R /F2 6 0 R >> >> >>"
            .to_string(),
        format!(
            "<< /Length {} >>\nstream\n{content}endstream",
            content.len()
        ),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_string(),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman >>".to_string(),
    ];
    let mut objects = objects.to_vec();
    let mut trailer = String::new();
    if let Some(t) = title {
        objects.push(format!("<< /Title ({}) >>", pdf_string(t)));
        trailer = format!(" /Info {} 0 R", objects.len());
    }
    let bodies: Vec<Vec<u8>> = objects.into_iter().map(String::into_bytes).collect();
    pdf_file(&bodies, &trailer)
}

/// A field of a fillable PDF form built by [`form_pdf`].
pub struct FormField<'a> {
    /// The field name (`/T`).
    pub name: &'a str,
    /// The tooltip (`/TU`), if any.
    pub tooltip: Option<&'a str>,
    /// The widget rectangle: left, bottom, right, top.
    pub rect: [u32; 4],
    /// A checkbox ticked or not, or a text field's value ("" = left empty).
    pub value: FormValue<'a>,
}

/// What a [`FormField`] holds.
pub enum FormValue<'a> {
    /// A checkbox, ticked or not.
    Check(bool),
    /// A radio button (an option of a group), on or not.
    Radio(bool),
    /// A text field's value.
    Text(&'a str),
}

/// A one-page fillable PDF form: `lines` printed on the page, `fields` as AcroForm
/// widgets (merged field and widget dictionaries, listed in the page's `/Annots`).
pub fn form_pdf(lines: &[Line], fields: &[FormField]) -> Vec<u8> {
    let first_field = 6;
    let refs: Vec<String> = (0..fields.len())
        .map(|i| format!("{} 0 R", first_field + i))
        .collect();
    let mut content = String::new();
    for (x, y, text) in lines {
        content.push_str(&format!(
            "BT /F1 10 Tf {x} {y} Td ({}) Tj ET\n",
            pdf_string(text)
        ));
    }
    let mut objects = vec![
        format!(
            "<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [{}] >> >>",
            refs.join(" ")
        ),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
        format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R \
             /Resources << /Font << /F1 5 0 R >> >> /Annots [{}] >>",
            refs.join(" ")
        ),
        format!(
            "<< /Length {} >>\nstream\n{content}endstream",
            content.len()
        ),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_string(),
    ];
    for f in fields {
        let [a, b, c, d] = f.rect;
        let tu = f
            .tooltip
            .map(|t| format!(" /TU ({})", pdf_string(t)))
            .unwrap_or_default();
        let value = match f.value {
            FormValue::Check(on) => {
                let state = if on { "/Yes" } else { "/Off" };
                format!("/FT /Btn /V {state} /AS {state}")
            }
            FormValue::Radio(on) => {
                let state = if on { "/Yes" } else { "/Off" };
                format!("/FT /Btn /Ff 32768 /V {state} /AS {state}")
            }
            FormValue::Text(v) => format!("/FT /Tx /V ({})", pdf_string(v)),
        };
        objects.push(format!(
            "<< /Type /Annot /Subtype /Widget /T ({}){tu} {value} /Rect [{a} {b} {c} {d}] /P 3 0 R >>",
            pdf_string(f.name)
        ));
    }
    let bodies: Vec<Vec<u8>> = objects.into_iter().map(String::into_bytes).collect();
    pdf_file(&bodies, "")
}

/// A PDF file of `objects` (numbered from 1, the catalog first) with a correct xref table;
/// `trailer_extra` is added to the trailer dictionary.
fn pdf_file(objects: &[Vec<u8>], trailer_extra: &str) -> Vec<u8> {
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, o) in objects.iter().enumerate() {
        offsets.push(out.len());
        writeln!(out, "{} 0 obj", i + 1).unwrap();
        out.extend_from_slice(o);
        out.extend_from_slice(b"\nendobj\n");
    }
    let xref = out.len();
    write!(out, "xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).unwrap();
    for off in offsets {
        writeln!(out, "{off:010} 00000 n ").unwrap();
    }
    write!(
        out,
        "trailer\n<< /Size {} /Root 1 0 R{trailer_extra} >>\nstartxref\n{xref}\n%%EOF\n",
        objects.len() + 1
    )
    .unwrap();
    out
}

pub const W: &str = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";

/// A zip with the given parts (name, content).
pub fn zip_of(parts: &[(&str, &[u8])]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, content) in parts {
        let opts = zip::write::SimpleFileOptions::default();
        zip.start_file(*name, opts).unwrap();
        zip.write_all(content).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

/// A DOCX whose body is `body` (WordprocessingML), with a `Heading1` style.
pub fn docx(body: &str) -> Vec<u8> {
    let document = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="{W}"><w:body>{body}</w:body></w:document>"#
    );
    let styles = format!(
        r#"<?xml version="1.0"?><w:styles xmlns:w="{W}"><w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style></w:styles>"#
    );
    zip_of(&[
        ("word/document.xml", document.as_bytes()),
        ("word/styles.xml", styles.as_bytes()),
    ])
}

pub fn para(text: &str) -> String {
    format!(r#"<w:p><w:r><w:t xml:space="preserve">{text}</w:t></w:r></w:p>"#)
}

pub fn heading(text: &str) -> String {
    format!(r#"<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>{text}</w:t></w:r></w:p>"#)
}

pub fn table(rows: &[&[&str]]) -> String {
    let rows: String = rows
        .iter()
        .map(|cells| {
            let cells: String = cells
                .iter()
                .map(|c| format!("<w:tc>{}</w:tc>", para(c)))
                .collect();
            format!("<w:tr>{cells}</w:tr>")
        })
        .collect();
    format!("<w:tbl>{rows}</w:tbl>")
}

/// An image-only PDF: each page of `pdf` rendered to grey pixels at `dpi` by poppler's
/// `pdftoppm`, and only the pixels kept (no text layer), as a scanner makes it. Panics
/// when `pdftoppm` is missing or fails.
pub fn scanned_pdf(pdf: &[u8], pages: usize, dpi: u32) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("in.pdf"), pdf).unwrap();
    let mut images = Vec::new();
    for p in 1..=pages {
        let root = dir.path().join(format!("p{p}"));
        let status = std::process::Command::new("pdftoppm")
            .args(["-r", &dpi.to_string(), "-gray", "-singlefile"])
            .args(["-f", &p.to_string(), "-l", &p.to_string()])
            .arg(dir.path().join("in.pdf"))
            .arg(&root)
            .status()
            .expect("pdftoppm (scripts/setup.sh installs poppler-utils)");
        assert!(status.success(), "pdftoppm failed");
        images.push(pgm(&std::fs::read(root.with_extension("pgm")).unwrap()));
    }
    image_pdf(&images, dpi)
}

/// Width, height and pixels of an 8-bit binary PGM.
fn pgm(data: &[u8]) -> (usize, usize, Vec<u8>) {
    let mut fields = Vec::new();
    let mut pos = 0;
    while fields.len() < 4 {
        while data[pos].is_ascii_whitespace() {
            pos += 1;
        }
        let start = pos;
        while !data[pos].is_ascii_whitespace() {
            pos += 1;
        }
        fields.push(String::from_utf8_lossy(&data[start..pos]).into_owned());
    }
    assert_eq!((fields[0].as_str(), fields[3].as_str()), ("P5", "255"));
    let (w, h) = (fields[1].parse().unwrap(), fields[2].parse().unwrap());
    (w, h, data[pos + 1..].to_vec())
}

/// A PDF whose pages are the grey images given (width, height, pixels) at `dpi`.
fn image_pdf(images: &[(usize, usize, Vec<u8>)], dpi: u32) -> Vec<u8> {
    let n = images.len();
    let kids: Vec<String> = (0..n).map(|i| format!("{} 0 R", 3 + 3 * i)).collect();
    let mut objects: Vec<Vec<u8>> = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        format!("<< /Type /Pages /Kids [{}] /Count {n} >>", kids.join(" ")).into_bytes(),
    ];
    for (i, (w, h, pixels)) in images.iter().enumerate() {
        let (wp, hp) = (*w as f64 * 72.0 / dpi as f64, *h as f64 * 72.0 / dpi as f64);
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        z.write_all(pixels).unwrap();
        let data = z.finish().unwrap();
        let content = format!("q {wp:.2} 0 0 {hp:.2} 0 0 cm /Im0 Do Q");
        objects.push(
            format!(
                "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {wp:.2} {hp:.2}] \
                 /Resources << /XObject << /Im0 {} 0 R >> >> /Contents {} 0 R >>",
                4 + 3 * i,
                5 + 3 * i
            )
            .into_bytes(),
        );
        let mut image = format!(
            "<< /Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace /DeviceGray \
             /BitsPerComponent 8 /Filter /FlateDecode /Length {} >>\nstream\n",
            data.len()
        )
        .into_bytes();
        image.extend_from_slice(&data);
        image.extend_from_slice(b"\nendstream");
        objects.push(image);
        objects.push(
            format!(
                "<< /Length {} >>\nstream\n{content}\nendstream",
                content.len()
            )
            .into_bytes(),
        );
    }
    pdf_file(&objects, "")
}

/// Character accuracy of `got` against `want`: 1 − edit distance / length of `want`, both
/// with whitespace runs collapsed.
pub fn char_accuracy(want: &str, got: &str) -> f64 {
    let norm = |s: &str| -> Vec<char> {
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .chars()
            .collect()
    };
    let (a, b) = (norm(want), norm(got));
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    1.0 - prev[b.len()] as f64 / a.len().max(1) as f64
}
