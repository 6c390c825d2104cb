//! The integration tests of `hanniball-store`, one module per service's tables, linked as one
//! test binary (one link instead of two). Each test makes fresh databases (`testing::all_urls`:
//! SQLite, and PostgreSQL when `HANNIBALL_TEST_POSTGRES_URL` is set), so they share nothing.
//! Run one with a filter: `cargo test -p hanniball-store --test store scheduler::`.

mod rating;
mod scheduler;
