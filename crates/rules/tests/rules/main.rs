//! The integration tests of `hanniball-rules`, one module per subject, linked as one test binary
//! (one link instead of five). Run one subject with a filter:
//! `cargo test -p hanniball-rules --test rules paper::`.

mod differential;
mod fuzz_readers;
mod hanniball;
mod oracle;
mod paper;
mod partial_turns;
