//! Every scheduler error, and its gRPC code in one exhaustive match.

use hanniball_store::StoreError;
use hanniball_svc_kit::{AuthError, internal_status, store_status};
use tonic::{Code, Status};

/// Why a call failed.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// The caller was not accepted (svc-kit answers it).
    #[error(transparent)]
    Auth(#[from] AuthError),
    #[error("{0}")]
    InvalidArgument(String),
    #[error("{what} {id} not found")]
    NotFound { what: &'static str, id: String },
    #[error("{0}")]
    AlreadyExists(String),
    #[error("{0}")]
    FailedPrecondition(String),
    #[error("the round cannot be paired: {0}")]
    CannotPair(String),
    #[error("only the organiser (admin) or player {0} may do this")]
    NotYou(i64),
    /// A player asking for what only the organiser may do here; the message says what and why.
    #[error("{0}")]
    Denied(String),
    #[error("lost a race with a concurrent change; read the tournament again and retry")]
    LostRace,
    /// The store failed (svc-kit answers it, the same in every service).
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("the arbiter did not answer: {0}")]
    Arbiter(String),
    #[error("internal error")]
    Internal(String),
}

impl From<ServiceError> for Status {
    fn from(error: ServiceError) -> Self {
        let code = match error {
            ServiceError::Auth(error) => return error.into(),
            ServiceError::Store(error) => return store_status(error),
            ServiceError::Internal(detail) => return internal_status(&detail),
            ServiceError::NotYou(_) | ServiceError::Denied(_) => Code::PermissionDenied,
            ServiceError::InvalidArgument(_) => Code::InvalidArgument,
            ServiceError::NotFound { .. } => Code::NotFound,
            ServiceError::AlreadyExists(_) => Code::AlreadyExists,
            ServiceError::FailedPrecondition(_) | ServiceError::CannotPair(_) => {
                Code::FailedPrecondition
            }
            ServiceError::LostRace => Code::Aborted,
            ServiceError::Arbiter(_) => Code::Unavailable,
        };
        Status::new(code, error.to_string())
    }
}

/// Results of service calls.
pub type ServiceResult<T> = Result<T, ServiceError>;
