//! The layers of `src/` import one way only (`docs/architecture.md`): a module may use the
//! ground floor and anything on a floor below its own, never a floor above, and the rule
//! families on one floor never use each other. This test reads every source file and fails on
//! the first reference that runs back up, naming the file, the line and both modules.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Floor of each top-level module of the library (0 is the ground floor).
const FLOORS: &[(&str, u8)] = &[
    ("model", 0),
    ("error", 0),
    ("config", 1),
    ("mcp", 1),
    ("audit", 2),
    ("launch_audit", 2),
    ("lock", 2),
    ("policy", 2),
    ("catalog", 3),
    ("kit", 3),
    ("baseline", 3),
    ("pipeline", 4),
    ("guard", 4),
    ("report", 5),
    ("cli", 6),
];

/// Modules of one floor that may not use each other (the rule families are siblings).
const SIBLINGS_APART: u8 = 2;

fn floor(module: &str) -> Option<u8> {
    FLOORS.iter().find(|(m, _)| *m == module).map(|(_, f)| *f)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file of `src/` belongs to (`src/audit/engine.rs` → `audit`).
fn owner(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).ok()?;
    let first = rel.components().next()?.as_os_str().to_str()?;
    Some(first.trim_end_matches(".rs").to_owned())
}

/// Every `crate::X` a line refers to, and the modules a `use crate::{a, b::c}` group names.
fn referenced(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(i) = rest.find("crate::") {
        let after = &rest[i + "crate::".len()..];
        let before = &rest[..i];
        let is_path = !before.ends_with(|c: char| c.is_alphanumeric() || c == '_');
        if is_path {
            if let Some(group) = after.strip_prefix('{') {
                let end = group.find('}').unwrap_or(group.len());
                for part in group[..end].split(',') {
                    let name: String = part
                        .trim()
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    if !name.is_empty() {
                        out.push(name);
                    }
                }
            } else {
                let name: String = after
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    out.push(name);
                }
            }
        }
        rest = after;
    }
    out
}

#[test]
fn no_import_runs_back_up() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut problems = Vec::new();
    let mut unknown: BTreeMap<String, PathBuf> = BTreeMap::new();
    for file in &files {
        let Some(from) = owner(&src, file) else {
            continue;
        };
        if ["lib", "main", "bin"].contains(&from.as_str()) {
            continue;
        }
        let Some(from_floor) = floor(&from) else {
            unknown.insert(from.clone(), file.clone());
            continue;
        };
        let text = std::fs::read_to_string(file).expect("read source");
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            for to in referenced(code) {
                if to == from {
                    continue;
                }
                let Some(to_floor) = floor(&to) else {
                    unknown.insert(to.clone(), file.clone());
                    continue;
                };
                let up = to_floor > from_floor;
                let sideways = to_floor == from_floor && from_floor == SIBLINGS_APART;
                if up || sideways {
                    problems.push(format!(
                        "{}:{}: `{from}` (floor {from_floor}) uses `{to}` (floor {to_floor}){}",
                        file.strip_prefix(&src).unwrap_or(file).display(),
                        n + 1,
                        if sideways { ", a sibling family" } else { "" },
                    ));
                }
            }
        }
    }
    assert!(
        unknown.is_empty(),
        "modules without a floor (add them to FLOORS and docs/architecture.md): {unknown:?}"
    );
    assert!(
        problems.is_empty(),
        "imports that run back up:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_checker_sees_paths_and_groups() {
    assert_eq!(referenced("use crate::model::spec::ServerSpec;"), ["model"]);
    assert_eq!(
        referenced("use crate::{audit, model::finding::Finding};"),
        ["audit", "model"]
    );
    assert_eq!(
        referenced("let x = crate::report::write_stdout(b);"),
        ["report"]
    );
    assert!(referenced("let mycrate::x = 1;").is_empty());
}
