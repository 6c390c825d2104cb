//! The end-to-end tests, one module per service or concern, linked as one test binary (one link
//! of the whole server instead of seven). Each test boots its own server on `127.0.0.1:0` over
//! fresh databases (`hanniball_e2e::databases`), so tests share nothing but the process. Run one
//! module with a filter: `cargo test -p hanniball-e2e --test e2e scopes::`.

mod arbiter;
mod corrections;
mod details;
mod rating;
mod replicas;
mod scheduler;
mod scopes;
mod search;
mod selfservice;
mod streams;
mod turns;
mod upgrade;

use tonic::{Code, Status};

/// The code and message of a call that must fail.
fn refusal<T: std::fmt::Debug>(result: Result<T, Status>) -> (Code, String) {
    let status = result.expect_err("the call should fail");
    (status.code(), status.message().to_owned())
}
