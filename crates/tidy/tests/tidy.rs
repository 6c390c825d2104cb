//! The workspace against the rules ARCHITECTURE states (see `hanniball_tidy`): run by
//! `cargo test`, so a broken rule fails the build like a broken test.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use hanniball_tidy::{
    MAX_DOC_LINES, MAX_FILE_LINES, MAX_FUNCTION_LINES, SourceFile, import_cycles, long_functions,
    mapped_packages, module_of, never_rules, pure_packages, rows_outside_store,
    ungated_test_helpers, unused_dependencies,
};
use serde_json::Value;

/// Dependencies whose users are not in the package's own sources, as (package, dependency, why).
const NAMED_ELSEWHERE: &[(&str, &str, &str)] = &[(
    "hanniball-proto",
    "tonic-prost",
    "the code build.rs generates into OUT_DIR names it",
)];

/// Crates no pure crate may reach (async runtimes, RPC, databases, clocks, randomness).
const NOT_PURE: &[&str] = &[
    "tokio",
    "tonic",
    "prost",
    "sea-orm",
    "sqlx",
    "hyper",
    "rand",
    "getrandom",
    "chrono",
    "fastrand",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("workspace root")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n == "target") {
                continue;
            }
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn relative(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// Test code, migrations and generated data, where the length rules do not apply.
fn exempt(relative: &str) -> bool {
    relative.contains("/tests/")
        || relative.starts_with("tests/")
        || relative.contains("/benches/")
        || relative.ends_with("/tests.rs")
        || relative.contains("/migration")
        || relative.starts_with("migrations/")
        || relative.contains("/fuzz-kit/")
        || relative.contains("/tidy/")
}

fn metadata() -> Value {
    let output = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1"])
        .current_dir(root())
        .output()
        .expect("cargo metadata");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("metadata JSON")
}

/// Each package by id: its name, manifest directory and dependencies as (name, kind).
struct Workspace {
    names: BTreeMap<String, String>,
    members: Vec<String>,
    edges: BTreeMap<String, Vec<(String, Option<String>)>>,
    dirs: BTreeMap<String, PathBuf>,
    declared: BTreeMap<String, Vec<(String, Option<String>)>>,
}

fn workspace() -> Workspace {
    let meta = metadata();
    let mut names = BTreeMap::new();
    let mut dirs = BTreeMap::new();
    let mut declared = BTreeMap::new();
    for package in meta["packages"].as_array().expect("packages") {
        let id = package["id"].as_str().expect("id").to_owned();
        let name = package["name"].as_str().expect("name").to_owned();
        if let Some(manifest) = package["manifest_path"].as_str() {
            dirs.insert(
                name.clone(),
                Path::new(manifest).parent().expect("dir").to_path_buf(),
            );
        }
        let deps = package["dependencies"]
            .as_array()
            .expect("dependencies")
            .iter()
            .map(|d| {
                let code = d["rename"]
                    .as_str()
                    .or_else(|| d["name"].as_str())
                    .expect("name")
                    .to_owned();
                (code, d["kind"].as_str().map(str::to_owned))
            })
            .collect();
        declared.insert(name.clone(), deps);
        names.insert(id, name);
    }
    let members = meta["workspace_members"]
        .as_array()
        .expect("members")
        .iter()
        .map(|id| names[id.as_str().expect("id")].clone())
        .collect();
    let mut edges = BTreeMap::new();
    for node in meta["resolve"]["nodes"].as_array().expect("resolve") {
        let from = names[node["id"].as_str().expect("id")].clone();
        let deps = node["deps"]
            .as_array()
            .expect("deps")
            .iter()
            .flat_map(|dep| {
                let to = names[dep["pkg"].as_str().expect("pkg")].clone();
                dep["dep_kinds"]
                    .as_array()
                    .expect("kinds")
                    .iter()
                    .map(move |k| (to.clone(), k["kind"].as_str().map(str::to_owned)))
            })
            .collect();
        edges.insert(from, deps);
    }
    Workspace {
        names,
        members,
        edges,
        dirs,
        declared,
    }
}

impl Workspace {
    /// Every package `from` reaches through edges of `kinds` (`None` is normal; dev edges only
    /// from `from` itself, as cargo builds them).
    fn reaches(&self, from: &str, kinds: &[Option<&str>]) -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut todo = vec![(from.to_owned(), true)];
        while let Some((package, first)) = todo.pop() {
            for (to, kind) in self.edges.get(&package).into_iter().flatten() {
                let dev = kind.as_deref() == Some("dev");
                if (dev && !first) || !kinds.contains(&kind.as_deref()) {
                    continue;
                }
                if seen.insert(to.clone()) {
                    todo.push((to.clone(), false));
                }
            }
        }
        seen
    }
}

#[test]
fn the_never_edges_of_architecture_hold() {
    let architecture = read(&root().join("ARCHITECTURE.md"));
    let rules = never_rules(&architecture);
    assert!(!rules.is_empty(), "ARCHITECTURE states no dependency rule");
    let ws = workspace();
    let mut broken = Vec::new();
    for (from, to) in rules {
        for package in &from {
            assert!(
                ws.members.contains(package),
                "{package}: not a workspace member"
            );
            let reached = ws.reaches(package, &[None, Some("build"), Some("dev")]);
            for forbidden in &to {
                assert!(ws.members.contains(forbidden), "{forbidden}: not a member");
                if reached.contains(forbidden) {
                    broken.push(format!("{package} reaches {forbidden}"));
                }
            }
        }
    }
    assert!(broken.is_empty(), "dependency rules broken: {broken:#?}");
}

#[test]
fn pure_crates_reach_no_runtime_database_or_randomness() {
    let architecture = read(&root().join("ARCHITECTURE.md"));
    let pure = pure_packages(&architecture);
    assert!(pure.len() >= 5, "the pure list was not found: {pure:?}");
    let ws = workspace();
    let mut broken = Vec::new();
    for package in &pure {
        assert!(
            ws.members.contains(package),
            "{package}: not a workspace member"
        );
        let reached = ws.reaches(package, &[None, Some("build")]);
        for crate_ in NOT_PURE {
            if reached.contains(*crate_) {
                broken.push(format!("{package} reaches {crate_}"));
            }
        }
    }
    // Clients link no database driver.
    for package in ["hanniball-client", "hanniball-web"] {
        let reached = ws.reaches(package, &[None, Some("build")]);
        for driver in ["sea-orm", "sqlx"] {
            if reached.contains(driver) {
                broken.push(format!("{package} reaches {driver}"));
            }
        }
    }
    // The CLI's client commands (built without the `server` feature) link no database driver.
    let output = Command::new(env!("CARGO"))
        .args([
            "tree",
            "-p",
            "hanniball-cli",
            "--no-default-features",
            "-e",
            "normal",
        ])
        .args(["--prefix", "none"])
        .current_dir(root())
        .output()
        .expect("cargo tree");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let tree = String::from_utf8_lossy(&output.stdout);
    assert!(
        tree.contains("hanniball-client "),
        "the client-only CLI's tree: {tree}"
    );
    for line in tree.lines() {
        if line.starts_with("sea-orm ") || line.starts_with("sqlx") {
            broken.push(format!(
                "hanniball-cli --no-default-features reaches {line}"
            ));
        }
    }
    assert!(broken.is_empty(), "{broken:#?}");
    assert!(ws.names.len() > ws.members.len());
}

#[test]
fn every_member_is_on_the_map_and_the_map_names_only_members() {
    let architecture = read(&root().join("ARCHITECTURE.md"));
    let mapped = mapped_packages(&architecture);
    let members: BTreeSet<String> = workspace().members.into_iter().collect();
    let missing: Vec<_> = members.difference(&mapped).collect();
    let stale: Vec<_> = mapped.difference(&members).collect();
    assert!(
        missing.is_empty(),
        "not in ARCHITECTURE's code map: {missing:?}"
    );
    assert!(stale.is_empty(), "on the map but not members: {stale:?}");
}

#[test]
fn readme_and_architecture_stay_under_500_lines() {
    for doc in ["README.md", "ARCHITECTURE.md"] {
        let lines = read(&root().join(doc)).lines().count();
        assert!(
            lines <= MAX_DOC_LINES,
            "{doc} has {lines} lines; at most {MAX_DOC_LINES}"
        );
    }
}

/// Each member's Rust files (src, tests, benches, build script, examples).
fn member_files(ws: &Workspace) -> BTreeMap<String, Vec<PathBuf>> {
    ws.members
        .iter()
        .map(|member| {
            let mut files = Vec::new();
            rust_files(&ws.dirs[member], &mut files);
            (member.clone(), files)
        })
        .collect()
}

#[test]
fn no_function_over_150_lines_and_no_file_over_1000_outside_tests() {
    let ws = workspace();
    let mut long = Vec::new();
    let mut files_over = BTreeSet::new();
    for files in member_files(&ws).values() {
        for path in files {
            let name = relative(path);
            if exempt(&name) {
                continue;
            }
            let text = read(path);
            for function in long_functions(&text, MAX_FUNCTION_LINES) {
                long.push(format!("{name}: {function}"));
            }
            if text.lines().count() > MAX_FILE_LINES {
                files_over.insert(name);
            }
        }
    }
    assert!(
        long.is_empty(),
        "functions over {MAX_FUNCTION_LINES} lines: {long:#?}"
    );
    assert!(
        files_over.is_empty(),
        "files over {MAX_FILE_LINES} lines: {files_over:?}"
    );
}

#[test]
fn no_import_cycle_between_the_files_of_a_crate() {
    let ws = workspace();
    let mut cycles = BTreeSet::new();
    for member in &ws.members {
        let src = ws.dirs[member].join("src");
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        let sources: Vec<SourceFile> = files
            .iter()
            .filter(|path| !path.ends_with("tests.rs"))
            .map(|path| {
                let inner = path.strip_prefix(&src).expect("under src");
                SourceFile {
                    module: module_of(&inner.to_string_lossy().replace('\\', "/")),
                    text: read(path),
                }
            })
            .filter(|file| !file.module.starts_with("bin::"))
            .collect();
        for cycle in import_cycles(&sources) {
            cycles.insert(format!("{member}: {}", cycle.join(", ")));
        }
    }
    assert!(cycles.is_empty(), "import cycles: {cycles:#?}");
}

#[test]
fn every_dependency_is_used() {
    let ws = workspace();
    let files = member_files(&ws);
    let mut unused = Vec::new();
    for member in &ws.members {
        let sources: Vec<String> = files[member].iter().map(|p| read(p)).collect();
        let deps: Vec<&str> = ws.declared[member]
            .iter()
            .map(|(name, _)| name.as_str())
            .filter(|name| {
                !NAMED_ELSEWHERE
                    .iter()
                    .any(|(package, n, _)| package == member && n == name)
            })
            .collect();
        for dep in unused_dependencies(&deps, &sources) {
            unused.push(format!("{member}: {dep}"));
        }
    }
    assert!(
        unused.is_empty(),
        "dependencies no source names: {unused:#?}"
    );
}

#[test]
fn test_helpers_are_behind_a_test_cfg() {
    let ws = workspace();
    let mut ungated = Vec::new();
    for files in member_files(&ws).values() {
        for path in files {
            let name = relative(path);
            if exempt(&name) {
                continue;
            }
            for line in ungated_test_helpers(&read(path)) {
                ungated.push(format!("{name}:{line}"));
            }
        }
    }
    assert!(
        ungated.is_empty(),
        "public test helpers without a test cfg: {ungated:?}"
    );
}

/// ARCHITECTURE, "db and the stores": a service's sea-orm entities stay in its store.
#[test]
fn rows_never_leave_a_services_store() {
    let ws = workspace();
    let mut named = Vec::new();
    for (member, files) in member_files(&ws) {
        if !member.ends_with("-svc") {
            continue;
        }
        for path in files {
            let name = relative(&path);
            for line in rows_outside_store(&name, &read(&path)) {
                named.push(format!("{name}:{line}"));
            }
        }
    }
    assert!(
        named.is_empty(),
        "sea-orm entities named outside a service's store: {named:?}"
    );
}

#[test]
fn one_generator_everywhere_tests_and_benches_included() {
    let ws = workspace();
    let mut others = Vec::new();
    for member in &ws.members {
        for (dep, _) in &ws.declared[member] {
            if ["rand", "fastrand", "oorandom", "nanorand", "tinyrand"].contains(&dep.as_str()) {
                others.push(format!("{member}: {dep}"));
            }
        }
    }
    assert!(
        others.is_empty(),
        "random generators besides hanniball-rng: {others:?}"
    );
}
