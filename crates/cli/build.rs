//! Release builds of the `hanniball` binary keep line tables (readable backtraces, `perf`) but
//! compress them: `--compress-debug-sections=zlib` makes the debug sections about a fifth of their
//! size, and the standard library's backtrace reader, gdb and perf read them compressed.

fn main() {
    let release = std::env::var("PROFILE").is_ok_and(|p| p == "release");
    let linux = std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux");
    if release && linux {
        println!("cargo:rustc-link-arg-bins=-Wl,--compress-debug-sections=zlib");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
