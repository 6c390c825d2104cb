//! The integration tests of `hanniball-pairing`, one module per subject, linked as one test
//! binary (one link instead of eight). The data they read is in `tests/data`. Run one subject
//! with a filter: `cargo test -p hanniball-pairing --test pairing tiebreak::`.

mod bbp_differential;
mod big_field;
mod dutch_cases;
mod fuzz_trf;
mod matchmaking;
mod properties;
mod real_files;
mod roundrobin;
mod tiebreak;
mod tiebreak_tbs;
mod trf_and_check;
mod trf_edges;
mod trf_reading;
