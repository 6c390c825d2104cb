//! The integration tests of `hanniball-rating`, one module per subject, linked as one test binary
//! (one link instead of two): `golden` reads the files in `tests/data`, `properties` plays seeded
//! random games. Run one with a filter: `cargo test -p hanniball-rating --test rating golden::`.

mod golden;
mod properties;
