//! How every service answers the failures they share: a store that could not do the work and a
//! caller who was not accepted. Each service's own error type keeps what only it can fail at and
//! hands these two here, so that the same fault gets the same code and words everywhere.

use hanniball_store::StoreError;
use tonic::Status;

use crate::AuthError;

/// The answer to a failed store call: `UNAVAILABLE` with the reason when the database cannot
/// do the work now (read-only, full, busy, lost, unreachable); `ABORTED` when a concurrent change
/// won (read again and retry); `INVALID_ARGUMENT` for a value the database cannot hold;
/// `INTERNAL` otherwise, the detail logged and never sent.
#[must_use]
pub fn store_status(error: StoreError) -> Status {
    match error {
        StoreError::Unavailable(detail) => {
            tracing::warn!(%detail, "database unavailable");
            Status::unavailable(format!(
                "the database is unavailable ({}); nothing was applied, retry later",
                hanniball_store::unavailable_reason(&detail)
            ))
        }
        StoreError::Conflict(detail) => {
            tracing::debug!(%detail, "lost a race");
            Status::aborted("lost a race with a concurrent change; read again and retry")
        }
        StoreError::Invalid(detail) => Status::invalid_argument(detail),
        StoreError::Corrupt(detail) | StoreError::Database(detail) => internal_status(&detail),
    }
}

/// `INTERNAL` ("internal error"), the detail logged and never sent.
#[must_use]
pub fn internal_status(detail: &str) -> Status {
    tracing::error!(%detail, "internal error");
    Status::internal("internal error")
}

impl From<AuthError> for Status {
    fn from(error: AuthError) -> Self {
        match error {
            AuthError::NoToken | AuthError::BadToken | AuthError::Expired => {
                Status::unauthenticated(error.to_string())
            }
            AuthError::AdminOnly | AuthError::MissingScope { .. } => {
                Status::permission_denied(error.to_string())
            }
            AuthError::Store(error) => store_status(error),
            AuthError::NoRandomness(detail) => internal_status(&detail),
        }
    }
}
