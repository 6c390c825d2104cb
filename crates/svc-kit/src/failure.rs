//! Every service's errors and their gRPC codes, in one type and one exhaustive match: the same
//! fault gets the same code and words in the arbiter, the rating service and the scheduler. The
//! cases are kinds of failure, not any service's domain: a service turns its own refusals (the
//! rules', the pairing's) into these where it meets them.

use hanniball_db::StoreError;
use tonic::{Code, Status};

use crate::AuthError;

/// Why a call failed.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// The caller was not accepted.
    #[error(transparent)]
    Auth(#[from] AuthError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{0}")]
    InvalidArgument(String),
    #[error("{what} {id} not found")]
    NotFound { what: &'static str, id: String },
    #[error("{0}")]
    AlreadyExists(String),
    #[error("{0}")]
    FailedPrecondition(String),
    /// A caller asking for what only the admin (or another player) may do; the message says what
    /// and why.
    #[error("{0}")]
    Denied(String),
    /// A limit on what one player may hold (the message names it).
    #[error("{0}")]
    TooMany(String),
    #[error("lost a race with a concurrent change; read it again and retry")]
    LostRace,
    /// Another service did not answer, or answered with an error this call cannot pass on.
    #[error("the {service} did not answer: {detail}")]
    Peer {
        service: &'static str,
        detail: String,
    },
    #[error("the server is shutting down")]
    ShuttingDown,
    /// The service's configuration cannot be used (only at start).
    #[error("configuration: {0}")]
    Config(String),
    #[error("internal error")]
    Internal(String),
}

/// Results of service calls.
pub type ServiceResult<T> = Result<T, ServiceError>;

impl From<ServiceError> for Status {
    fn from(error: ServiceError) -> Self {
        let code = match error {
            ServiceError::Auth(error) => return error.into(),
            ServiceError::Store(error) => return store_status(error),
            ServiceError::Config(detail) | ServiceError::Internal(detail) => {
                return internal_status(&detail);
            }
            ServiceError::InvalidArgument(_) => Code::InvalidArgument,
            ServiceError::NotFound { .. } => Code::NotFound,
            ServiceError::AlreadyExists(_) => Code::AlreadyExists,
            ServiceError::FailedPrecondition(_) => Code::FailedPrecondition,
            ServiceError::Denied(_) => Code::PermissionDenied,
            ServiceError::TooMany(_) => Code::ResourceExhausted,
            ServiceError::LostRace => Code::Aborted,
            ServiceError::Peer { .. } | ServiceError::ShuttingDown => Code::Unavailable,
        };
        Status::new(code, error.to_string())
    }
}

impl ServiceError {
    /// `service` answered `status` (or did not answer): `UNAVAILABLE`, naming the service.
    #[must_use]
    pub fn peer(service: &'static str, status: &Status) -> ServiceError {
        ServiceError::Peer {
            service,
            detail: format!("{:?}: {}", status.code(), status.message()),
        }
    }
}

/// The answer to a failed store call: `UNAVAILABLE` with the reason when the database cannot
/// do the work now (read-only, full, busy, lost, unreachable); `ABORTED` when a concurrent change
/// won (read again and retry); `INVALID_ARGUMENT` for a value the database cannot hold;
/// `INTERNAL` otherwise, the detail logged and never sent.
#[must_use]
pub fn store_status(error: StoreError) -> Status {
    match error {
        StoreError::Unavailable { why, detail } => {
            tracing::warn!(%why, %detail, "database unavailable");
            Status::unavailable(format!(
                "the database is unavailable ({why}); nothing was applied, retry later"
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
