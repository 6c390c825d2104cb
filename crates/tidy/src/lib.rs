//! The rules ARCHITECTURE states about the code itself, as checks (`tests/tidy.rs` runs them
//! on the workspace, after rust-analyzer's tidy tests). Each check is a function of text, so
//! that a unit test can break its rule on a fixture and see it fail.
//!
//! Test-only: it reads files and runs `cargo metadata`; nothing links it.

use std::collections::{BTreeMap, BTreeSet};

/// The most lines a function may have outside tests and migrations.
pub const MAX_FUNCTION_LINES: usize = 150;

/// The most lines a source file may have outside tests and data.
pub const MAX_FILE_LINES: usize = 1_000;

/// The most lines README.md and ARCHITECTURE.md may have (they stay under 500).
pub const MAX_DOC_LINES: usize = 499;

/// Functions of `text` longer than `max` lines, as `name (N lines)`, skipping inline
/// `#[cfg(test)]` modules. Reads rustfmt's layout: a body ends at the first `}` line at the
/// indentation of its `fn` line.
#[must_use]
pub fn long_functions(text: &str, max: usize) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let indent = line.len() - line.trim_start().len();
        if line.trim() == "#[cfg(test)]"
            && lines
                .get(i + 1)
                .is_some_and(|next| next.trim_start().starts_with("mod ") && next.ends_with('{'))
        {
            i = block_end(&lines, i + 1, indent) + 1;
            continue;
        }
        if let Some(name) = fn_name(line) {
            // A declaration without a body (a trait's) ends with `;` before any `{`.
            let Some(open) = (i..lines.len()).find(|&j| {
                let l = lines[j].trim_end();
                l.ends_with('{') || l.ends_with(';') || l.ends_with("{}")
            }) else {
                break;
            };
            let opened = lines[open].trim_end();
            if opened.ends_with(';') || opened.ends_with("{}") {
                i = open + 1;
                continue;
            }
            let end = block_end(&lines, i, indent);
            let length = end + 1 - i;
            if length > max {
                found.push(format!("{name} ({length} lines)"));
            }
            i = end + 1;
            continue;
        }
        i += 1;
    }
    found
}

/// The name of the function a line starts, if it starts one.
fn fn_name(line: &str) -> Option<&str> {
    let mut rest = line.trim_start();
    for prefix in ["pub(crate) ", "pub(super) ", "pub "] {
        rest = rest.strip_prefix(prefix).unwrap_or(rest);
    }
    for prefix in ["const ", "async ", "unsafe ", "extern \"C\" "] {
        rest = rest.strip_prefix(prefix).unwrap_or(rest);
    }
    let rest = rest.strip_prefix("fn ")?;
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
}

/// The line of the `}` that closes the block opened at or after `start` at `indent`.
fn block_end(lines: &[&str], start: usize, indent: usize) -> usize {
    (start + 1..lines.len())
        .find(|&j| {
            let l = lines[j];
            l.len() - l.trim_start().len() == indent && l.trim_start().starts_with('}')
        })
        .unwrap_or(lines.len() - 1)
}

/// One source file of a crate: its module path (`a::b`; the crate root is `crate`) and text.
#[derive(Clone, Debug)]
pub struct SourceFile {
    pub module: String,
    pub text: String,
}

/// The module path of a file under a crate's `src/` (`lib.rs` → `crate`, `a/mod.rs` → `a`,
/// `a/b.rs` → `a::b`).
#[must_use]
pub fn module_of(relative: &str) -> String {
    let path = relative.trim_end_matches(".rs");
    let path = path.strip_suffix("/mod").unwrap_or(path);
    if matches!(path, "lib" | "main") {
        return "crate".to_owned();
    }
    path.replace('/', "::")
}

/// Import cycles between the files of one crate: each strongly connected group of modules
/// that name each other's items (`crate::`, `super::`, `self::` and child-module paths),
/// leaving out the crate root, whose re-exports every module may use. Inline `#[cfg(test)]`
/// modules count for nothing.
#[must_use]
pub fn import_cycles(files: &[SourceFile]) -> Vec<Vec<String>> {
    let modules: BTreeSet<&str> = files.iter().map(|f| f.module.as_str()).collect();
    let mut edges: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for file in files.iter().filter(|f| f.module != "crate") {
        let targets = edges.entry(file.module.as_str()).or_default();
        for path in paths_named(&without_tests(&file.text)) {
            if let Some(target) = resolve(&file.module, &path, &modules)
                && target != file.module
                && target != "crate"
            {
                targets.insert(modules.get(target.as_str()).copied().unwrap_or("crate"));
            }
        }
    }
    strongly_connected(&edges)
        .into_iter()
        .filter(|group| group.len() > 1)
        .map(|group| group.into_iter().map(str::to_owned).collect())
        .collect()
}

/// The text without inline `#[cfg(test)] mod … { … }` blocks and `//` comments.
fn without_tests(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut kept = String::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let indent = line.len() - line.trim_start().len();
        if line.trim() == "#[cfg(test)]"
            && lines
                .get(i + 1)
                .is_some_and(|next| next.trim_start().starts_with("mod ") && next.ends_with('{'))
        {
            i = block_end(&lines, i + 1, indent) + 1;
            continue;
        }
        let code = line.split("//").next().unwrap_or("");
        kept.push_str(code);
        kept.push('\n');
        i += 1;
    }
    kept
}

/// Every path the text names that starts at `crate`, `super` or `self`, or at a lower-case
/// name (a child module, or an extern crate: resolving tells them apart), with `use` trees
/// (`a::{b, c::d}`) expanded.
fn paths_named(text: &str) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    let bytes: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < bytes.len() {
        let starts_word = i == 0 || !(bytes[i - 1].is_alphanumeric() || bytes[i - 1] == '_');
        let after_colons = i >= 2 && bytes[i - 1] == ':' && bytes[i - 2] == ':';
        if starts_word && !after_colons && (bytes[i].is_ascii_lowercase() || bytes[i] == '_') {
            let (tree, next) = use_tree(&bytes, i);
            for path in tree {
                if path.len() > 1 {
                    paths.push(path);
                }
            }
            i = next.max(i + 1);
        } else {
            i += 1;
        }
    }
    paths
}

/// The paths of the use tree (or plain path) at `i`, and where it ends.
fn use_tree(chars: &[char], mut i: usize) -> (Vec<Vec<String>>, usize) {
    let mut prefix: Vec<String> = Vec::new();
    loop {
        let start = i;
        while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
            i += 1;
        }
        if start == i {
            break;
        }
        prefix.push(chars[start..i].iter().collect());
        if chars.get(i) == Some(&':') && chars.get(i + 1) == Some(&':') {
            i += 2;
            if chars.get(i) == Some(&'{') {
                i += 1;
                let mut all = Vec::new();
                loop {
                    while i < chars.len() && (chars[i].is_whitespace() || chars[i] == ',') {
                        i += 1;
                    }
                    if i >= chars.len() || chars[i] == '}' {
                        break;
                    }
                    let (inner, next) = use_tree(chars, i);
                    for path in inner {
                        let mut whole = prefix.clone();
                        whole.extend(path);
                        all.push(whole);
                    }
                    if next == i {
                        i += 1;
                    } else {
                        i = next;
                    }
                    // `as name` and the like: skip to the next item.
                    while i < chars.len() && chars[i] != ',' && chars[i] != '}' {
                        i += 1;
                    }
                }
                return (all, i + 1);
            }
            continue;
        }
        break;
    }
    (vec![prefix], i)
}

/// The module a path names from `module`, if it names one of this crate's files: the longest
/// known module it starts with, after `crate`, `super` and `self` are read.
fn resolve(module: &str, path: &[String], modules: &BTreeSet<&str>) -> Option<String> {
    let mut base: Vec<String> = if module == "crate" {
        Vec::new()
    } else {
        module.split("::").map(str::to_owned).collect()
    };
    let mut rest = path;
    match path.first().map(String::as_str) {
        Some("crate") => {
            base.clear();
            rest = &path[1..];
        }
        Some("self") => rest = &path[1..],
        Some("super") => {
            while rest.first().map(String::as_str) == Some("super") {
                base.pop()?;
                rest = &rest[1..];
            }
        }
        // A child module of this one, or nothing of this crate.
        _ => {}
    }
    let mut best = None;
    let mut candidate = base.clone();
    for segment in rest {
        candidate.push(segment.clone());
        let name = candidate.join("::");
        if modules.contains(name.as_str()) {
            best = Some(name);
        } else {
            break;
        }
    }
    match best {
        Some(found) => Some(found),
        None if path.first().map(String::as_str) == Some("crate") || rest.len() < path.len() => {
            Some(if base.is_empty() {
                "crate".to_owned()
            } else {
                base.join("::")
            })
        }
        None => None,
    }
}

/// Tarjan's strongly connected components of a directed graph.
fn strongly_connected<'a>(edges: &BTreeMap<&'a str, BTreeSet<&'a str>>) -> Vec<Vec<&'a str>> {
    struct State<'a> {
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        groups: Vec<Vec<&'a str>>,
    }
    fn visit<'a>(node: &'a str, edges: &BTreeMap<&'a str, BTreeSet<&'a str>>, s: &mut State<'a>) {
        let n = s.index.len();
        s.index.insert(node, n);
        s.low.insert(node, n);
        s.stack.push(node);
        s.on_stack.insert(node);
        for &next in edges.get(node).into_iter().flatten() {
            if !s.index.contains_key(next) {
                visit(next, edges, s);
                let low = s.low[node].min(s.low[next]);
                s.low.insert(node, low);
            } else if s.on_stack.contains(next) {
                let low = s.low[node].min(s.index[next]);
                s.low.insert(node, low);
            }
        }
        if s.low[node] == s.index[node] {
            let mut group = Vec::new();
            while let Some(top) = s.stack.pop() {
                s.on_stack.remove(top);
                group.push(top);
                if top == node {
                    break;
                }
            }
            group.sort_unstable();
            s.groups.push(group);
        }
    }
    let mut state = State {
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        groups: Vec::new(),
    };
    for &node in edges.keys() {
        if !state.index.contains_key(node) {
            visit(node, edges, &mut state);
        }
    }
    state.groups
}

/// The dependency rules ARCHITECTURE states, one per clause (lines split at "; ") that says
/// "never depend on": the packages named before those words may not reach, directly or
/// through others, the packages named after them.
#[must_use]
pub fn never_rules(architecture: &str) -> Vec<(Vec<String>, Vec<String>)> {
    architecture
        .lines()
        .flat_map(|line| line.split("; "))
        .filter_map(|clause| {
            let (before, after) = clause.split_once(" never depend on ")?;
            Some((backticked(before), backticked(after)))
        })
        .filter(|(from, to)| !from.is_empty() && !to.is_empty())
        .collect()
}

/// The `hanniball-*` names in backticks.
fn backticked(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|name| name.starts_with("hanniball-"))
        .map(str::to_owned)
        .collect()
}

/// The packages ARCHITECTURE's code map lists (second column of its `| path | package |` rows).
#[must_use]
pub fn mapped_packages(architecture: &str) -> BTreeSet<String> {
    architecture
        .lines()
        .filter(|line| {
            ["| `crates/", "| `migrations/", "| `tests/`"]
                .iter()
                .any(|start| line.starts_with(start))
        })
        .filter_map(|line| line.split('|').nth(2))
        .flat_map(backticked)
        .collect()
}

/// The pure crates ARCHITECTURE names in its "**Pure crates** (`a`, `b`): …" line, as packages.
#[must_use]
pub fn pure_packages(architecture: &str) -> Vec<String> {
    let Some(start) = architecture.find("**Pure crates** (") else {
        return Vec::new();
    };
    let rest = &architecture[start + "**Pure crates** (".len()..];
    let list = rest.split(')').next().unwrap_or("");
    list.split('`')
        .skip(1)
        .step_by(2)
        .map(|name| format!("hanniball-{name}"))
        .collect()
}

/// Dependencies (names as code writes them: `-` as `_`) that no source text of the package
/// names as a path (`name::`), an import (`use name`) or an extern crate.
#[must_use]
pub fn unused_dependencies<'a>(dependencies: &[&'a str], sources: &[String]) -> Vec<&'a str> {
    dependencies
        .iter()
        .copied()
        .filter(|dependency| {
            let ident = dependency.replace('-', "_");
            let forms = [
                format!("{ident}::"),
                format!("use {ident}"),
                format!("extern crate {ident}"),
            ];
            !sources.iter().any(|text| {
                forms.iter().any(|form| {
                    text.match_indices(form.as_str()).any(|(at, _)| {
                        at == 0 || {
                            let before = text[..at].chars().next_back().unwrap_or(' ');
                            !(before.is_alphanumeric() || before == '_')
                        }
                    })
                })
            })
        })
        .collect()
}

/// Lines of `text` that make a `testing` module public without a `cfg` that keeps it to tests
/// (`#[cfg(any(test, feature = "testing"))]` or `#[cfg(test)]` on the line before).
#[must_use]
pub fn ungated_test_helpers(text: &str) -> Vec<usize> {
    let lines: Vec<&str> = text.lines().collect();
    lines
        .iter()
        .enumerate()
        .filter(|(_, line)| {
            let line = line.trim_start();
            line.starts_with("pub mod testing") || line.starts_with("pub mod test_support")
        })
        .filter(|&(i, _)| {
            !(0..i).rev().take(3).any(|j| {
                let above = lines[j].trim();
                above.starts_with("#[cfg(") && (above.contains("test") || above.contains("testing"))
            })
        })
        .map(|(i, _)| i + 1)
        .collect()
}

/// Lines of a service's file at `path` (from the workspace root) that name the store's sea-orm
/// entities (`entities::`, `::entities`) outside its store (`src/store/`, `src/store.rs`): rows
/// never leave the store, which answers with domain types. Comments count for nothing.
#[must_use]
pub fn rows_outside_store(path: &str, text: &str) -> Vec<usize> {
    if path.contains("/src/store/") || path.ends_with("/src/store.rs") {
        return Vec::new();
    }
    text.lines()
        .enumerate()
        .filter(|(_, line)| {
            let code = line.split("//").next().unwrap_or("");
            code.contains("entities::") || code.contains("::entities")
        })
        .map(|(i, _)| i + 1)
        .collect()
}

#[cfg(test)]
mod tests;
