//! The integration tests of `hanniball-svc-kit`, linked as one test binary (one link instead of
//! two): `panic` (a panicking handler answers `INTERNAL` and is logged with its request id) and
//! `reflection`. Run one with a filter: `cargo test -p hanniball-svc-kit --test svc_kit panic::`.
//!
//! `panic` installs the process's tracing subscriber, so under `cargo test` (one process for the
//! binary) no other test here may install one, and once it has, the panic hook that `serve`
//! installs logs other tests' panics to that subscriber instead of stderr: if another test fails
//! without a message, run it alone (a filter, or `cargo nextest`, which gives each test its own
//! process).

mod frozen_peer;
mod panic;
mod reflection;
