//! The code's shape, checked on the sources: no function in `src/` longer than
//! [`MAX_FN_LINES`] lines except documented kernels, and no import cycle between the
//! library's modules (at the level of top-level modules and of their children).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Longest function, in lines from its signature to its closing brace.
const MAX_FN_LINES: usize = 80;

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(rust_files(&p));
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
    out.sort();
    out
}

fn src() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The name of the function a line declares, if it does (a body follows).
fn declared_fn(line: &str) -> Option<&str> {
    let mut rest = line.trim_start();
    if rest.ends_with(';') {
        return None;
    }
    for prefix in [
        "pub(crate) ",
        "pub(super) ",
        "pub ",
        "const ",
        "async ",
        "unsafe ",
    ] {
        rest = rest.strip_prefix(prefix).unwrap_or(rest);
    }
    let rest = rest.strip_prefix("fn ")?;
    let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_'))?;
    Some(&rest[..end])
}

/// Whether the signature starting at `lines[0]` ends in `;` before any body opens (a
/// trait method without a default body).
fn is_declaration(lines: &[&str]) -> bool {
    lines
        .iter()
        .map(|l| l.trim_end())
        .find(|l| l.ends_with('{') || l.ends_with(';'))
        .is_some_and(|l| l.ends_with(';'))
}

/// Whether the doc comment above line `i` calls the function a kernel.
fn documented_kernel(lines: &[&str], i: usize) -> bool {
    lines[..i]
        .iter()
        .rev()
        .take_while(|l| {
            let t = l.trim_start();
            t.starts_with("///") || t.starts_with("#[")
        })
        .any(|l| l.to_lowercase().contains("kernel"))
}

/// (file, line, name, length) of every function over the limit.
fn long_functions() -> Vec<(String, usize, String, usize)> {
    let mut out = Vec::new();
    for p in rust_files(&src()) {
        let text = std::fs::read_to_string(&p).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, l) in lines.iter().enumerate() {
            let Some(name) = declared_fn(l) else { continue };
            if is_declaration(&lines[i..]) {
                continue;
            }
            let indent = &l[..l.len() - l.trim_start().len()];
            let close = format!("{indent}}}");
            let Some(end) = lines[i..].iter().position(|x| *x == close) else {
                continue;
            };
            if end + 1 > MAX_FN_LINES && !documented_kernel(&lines, i) {
                let file = p.strip_prefix(src()).unwrap().display().to_string();
                out.push((file, i + 1, name.to_string(), end + 1));
            }
        }
    }
    out
}

#[test]
fn no_function_is_longer_than_the_limit_except_documented_kernels() {
    let long = long_functions();
    assert!(
        long.is_empty(),
        "functions over {MAX_FN_LINES} lines: {long:#?}"
    );
}

/// The module path of a library file (`ask/mod.rs` → `ask`, `ask/screen.rs` →
/// `ask::screen`); `None` for the binary.
fn module_of(file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src()).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.first().is_some_and(|p| p == "main" || p == "bin") {
        return None;
    }
    if parts.last().is_some_and(|l| l == "mod" || l == "lib") {
        parts.pop();
    }
    Some(parts.join("::"))
}

/// Module → modules its non-test code names (`crate::…` and `super::…` paths), cut to
/// the first `depth` path segments.
fn module_graph(depth: usize) -> BTreeMap<String, BTreeSet<String>> {
    let mut files: Vec<(String, String)> = rust_files(&src())
        .into_iter()
        .filter_map(|p| Some((module_of(&p)?, std::fs::read_to_string(&p).unwrap())))
        .collect();
    let tests = test_only_modules(&files);
    files.retain(|(m, _)| !tests.contains(m));
    let modules: BTreeSet<&str> = files.iter().map(|(m, _)| m.as_str()).collect();
    let resolve = |path: &str| -> Option<String> {
        let parts: Vec<&str> = path.split("::").filter(|p| !p.is_empty()).collect();
        (1..=parts.len())
            .rev()
            .map(|n| parts[..n].join("::"))
            .find(|c| modules.contains(c.as_str()))
    };
    let cut = |m: &str| m.split("::").take(depth).collect::<Vec<_>>().join("::");
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (m, text) in &files {
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        let parent = m.rsplit_once("::").map_or("", |(p, _)| p);
        for (marker, base) in [("crate::", String::new()), ("super::", parent.to_string())] {
            for (at, _) in code.match_indices(marker) {
                let tail: String = code[at + marker.len()..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                    .collect();
                let full = if base.is_empty() {
                    tail
                } else {
                    format!("{base}::{tail}")
                };
                let Some(target) = resolve(&full) else {
                    continue;
                };
                let (a, b) = (cut(m), cut(&target));
                let nested = a.starts_with(&format!("{b}::")) || b.starts_with(&format!("{a}::"));
                if a != b && !a.is_empty() && !b.is_empty() && !nested {
                    graph.entry(a).or_default().insert(b);
                }
            }
        }
    }
    graph
}

/// Modules declared only for tests (`#[cfg(test)] mod name;`).
fn test_only_modules(files: &[(String, String)]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (m, text) in files {
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        for w in lines.windows(2) {
            let decl = w[1].strip_prefix("pub ").unwrap_or(w[1]);
            if let (true, Some(name)) = (w[0] == "#[cfg(test)]", decl.strip_prefix("mod ")) {
                if let Some(name) = name.strip_suffix(';') {
                    out.insert(if m.is_empty() {
                        name.to_string()
                    } else {
                        format!("{m}::{name}")
                    });
                }
            }
        }
    }
    out
}

/// A cycle in `graph`, if there is one.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        g: &BTreeMap<String, BTreeSet<String>>,
        n: &str,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == n) {
            return Some(path[i..].to_vec());
        }
        if done.contains(n) {
            return None;
        }
        path.push(n.to_string());
        for next in g.get(n).into_iter().flatten() {
            if let Some(c) = visit(g, next, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(n.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|n| visit(graph, n, &mut Vec::new(), &mut done))
}

#[test]
fn library_modules_import_each_other_without_cycles() {
    for depth in [1, 2] {
        let g = module_graph(depth);
        assert!(g.contains_key("ask"), "the graph is read: {g:?}");
        if let Some(cycle) = find_cycle(&g) {
            panic!("import cycle between modules (depth {depth}): {cycle:?}");
        }
    }
}

#[test]
fn the_checks_see_long_functions_and_cycles() {
    let lines = ["fn short() {", "}", "/// A kernel.", "fn k() {", "}"];
    assert_eq!(declared_fn(lines[0]), Some("short"));
    assert!(documented_kernel(&lines, 3));
    assert!(declared_fn("    pub fn f(&self) -> u8;").is_none());
    assert!(is_declaration(&[
        "    fn g(",
        "        &self,",
        "    ) -> u8;",
        "    fn h() {"
    ]));
    assert!(!is_declaration(&[
        "    fn g(",
        "        &self,",
        "    ) -> u8 {",
        "    x;"
    ]));
    let g: BTreeMap<String, BTreeSet<String>> = [
        ("a".to_string(), BTreeSet::from(["b".to_string()])),
        ("b".to_string(), BTreeSet::from(["a".to_string()])),
    ]
    .into();
    assert_eq!(find_cycle(&g).unwrap().len(), 2);
}
