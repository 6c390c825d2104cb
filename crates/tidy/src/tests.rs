//! Each check, broken on a fixture: it must see what it is there to see.

use super::*;

fn function_of(lines: usize) -> String {
    let mut text = String::from("pub fn long(x: u32) -> u32 {\n");
    for i in 0..lines.saturating_sub(2) {
        text.push_str(&format!("    let _y{i} = x;\n"));
    }
    text.push_str("}\n");
    text
}

#[test]
fn a_function_over_the_limit_is_named_and_one_at_it_is_not() {
    assert_eq!(long_functions(&function_of(150), 150), Vec::<String>::new());
    assert_eq!(
        long_functions(&function_of(151), 150),
        vec!["long (151 lines)".to_owned()]
    );
    // Inside a test module it does not count; a trait's declaration has no body.
    let tested = format!("#[cfg(test)]\nmod tests {{\n{}}}\n", function_of(200));
    assert!(long_functions(&tested, 150).is_empty());
    let declared = format!("trait T {{\n    fn f(&self);\n}}\n{}", function_of(151));
    assert_eq!(long_functions(&declared, 150).len(), 1);
}

fn file(module: &str, text: &str) -> SourceFile {
    SourceFile {
        module: module.to_owned(),
        text: text.to_owned(),
    }
}

#[test]
fn modules_that_use_each_other_are_a_cycle_and_a_chain_is_not() {
    let chain = [
        file("crate", "mod a;\nmod b;\npub use a::A;\n"),
        file("a", "use crate::b::B;\npub struct A(B);\n"),
        file("b", "pub struct B;\nfn f() -> crate::A { todo!() }\n"),
    ];
    assert!(
        import_cycles(&chain).is_empty(),
        "{:?}",
        import_cycles(&chain)
    );
    let cycle = [
        file("crate", "mod a;\nmod b;\n"),
        file("a", "use crate::{b::{self, B}};\npub struct A;\n"),
        file("b", "pub struct B(super::a::A);\n"),
    ];
    assert_eq!(
        import_cycles(&cycle),
        vec![vec!["a".to_owned(), "b".to_owned()]]
    );
    // A parent that uses its child, which uses the parent.
    let nested = [
        file("p", "mod c;\npub use c::C;\npub struct P;\n"),
        file("p::c", "pub struct C(super::P);\n"),
    ];
    assert_eq!(import_cycles(&nested).len(), 1);
    // What a test module names counts for nothing.
    let tested = [
        file(
            "a",
            "pub struct A;\n#[cfg(test)]\nmod tests {\n    use crate::b::B;\n}\n",
        ),
        file("b", "pub struct B(crate::a::A);\n"),
    ];
    assert!(import_cycles(&tested).is_empty());
}

#[test]
fn module_paths_follow_the_file_layout() {
    assert_eq!(module_of("lib.rs"), "crate");
    assert_eq!(module_of("main.rs"), "crate");
    assert_eq!(module_of("store/mod.rs"), "store");
    assert_eq!(module_of("dutch/blossom.rs"), "dutch::blossom");
}

#[test]
fn never_rules_are_read_from_their_lines() {
    let text = "x\n- `hanniball-a` and `hanniball-b` never depend on `hanniball-c`; `hanniball-d` \
                never depend on `hanniball-e`.\n- nothing here never depend on anything\n";
    assert_eq!(
        never_rules(text),
        vec![
            (
                vec!["hanniball-a".to_owned(), "hanniball-b".to_owned()],
                vec!["hanniball-c".to_owned()]
            ),
            (
                vec!["hanniball-d".to_owned()],
                vec!["hanniball-e".to_owned()]
            )
        ]
    );
}

#[test]
fn the_code_map_and_the_pure_list_are_read() {
    let text = "| path | package |\n|---|---|\n| `crates/x` | `hanniball-x` | PURE | y |\n\
                | `tests/` | `hanniball-e2e` | tests | z |\n\
                **Pure crates** (`x`, `ids`): no IO\n";
    assert_eq!(
        mapped_packages(text),
        ["hanniball-e2e", "hanniball-x"]
            .into_iter()
            .map(str::to_owned)
            .collect()
    );
    assert_eq!(pure_packages(text), vec!["hanniball-x", "hanniball-ids"]);
}

#[test]
fn a_dependency_no_source_names_is_unused() {
    let sources = vec![
        "use tokio::sync;\n#[derive(thiserror::Error)]\nstruct E;\n".to_owned(),
        "// serde_json::from_str is only in a comment? no: this counts\nfn f() {}\n".to_owned(),
    ];
    assert_eq!(
        unused_dependencies(&["tokio", "thiserror", "metrics", "my-tokio"], &sources),
        vec!["metrics", "my-tokio"]
    );
}

#[test]
fn a_public_testing_module_needs_a_test_cfg() {
    assert_eq!(
        ungated_test_helpers("pub fn a() {}\npub mod testing {\n}\n"),
        vec![2]
    );
    assert!(
        ungated_test_helpers("#[cfg(any(test, feature = \"testing\"))]\npub mod testing {\n}\n")
            .is_empty()
    );
}

#[test]
fn an_entity_named_outside_a_store_is_found_and_inside_it_is_not() {
    let text = "use crate::store::entities::boards;\n// entities::boards in a comment\n\
                fn f() -> entities::boards::Model {\n    todo!()\n}\nuse crate::store::entities;\n";
    assert_eq!(
        rows_outside_store("crates/x-svc/src/service/mod.rs", text),
        vec![1, 3, 6]
    );
    assert!(rows_outside_store("crates/x-svc/src/store/convert.rs", text).is_empty());
    assert!(rows_outside_store("crates/x-svc/src/store.rs", text).is_empty());
    assert!(
        rows_outside_store("crates/x-svc/src/core.rs", "use crate::domain::Board;\n").is_empty()
    );
}
