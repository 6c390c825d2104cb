//! Every scheduler error, and its gRPC code in one exhaustive match.

use hanniball_store::StoreError;
use hanniball_svc_kit::AuthError;
use tonic::{Code, Status};

/// Why a call failed.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
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
    #[error("the database is unavailable ({0}); nothing was applied, retry later")]
    Unavailable(String),
    #[error("the arbiter did not answer: {0}")]
    Arbiter(String),
    #[error("internal error")]
    Internal(String),
}

impl From<StoreError> for ServiceError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::Unavailable(detail) => {
                tracing::warn!(%detail, "database unavailable");
                ServiceError::Unavailable(hanniball_store::unavailable_reason(&detail).to_owned())
            }
            StoreError::Conflict(_) => ServiceError::LostRace,
            StoreError::Invalid(detail) => ServiceError::InvalidArgument(detail),
            StoreError::Corrupt(detail) | StoreError::Database(detail) => {
                ServiceError::Internal(detail)
            }
        }
    }
}

impl From<ServiceError> for Status {
    fn from(error: ServiceError) -> Self {
        let code = match &error {
            // The kit maps its own errors (and never lets a database message through).
            ServiceError::Auth(_) => {
                let ServiceError::Auth(auth) = error else {
                    unreachable!("matched above")
                };
                return auth.into();
            }
            ServiceError::NotYou(_) | ServiceError::Denied(_) => Code::PermissionDenied,
            ServiceError::InvalidArgument(_) => Code::InvalidArgument,
            ServiceError::NotFound { .. } => Code::NotFound,
            ServiceError::AlreadyExists(_) => Code::AlreadyExists,
            ServiceError::FailedPrecondition(_) | ServiceError::CannotPair(_) => {
                Code::FailedPrecondition
            }
            ServiceError::LostRace => Code::Aborted,
            ServiceError::Unavailable(_) | ServiceError::Arbiter(_) => Code::Unavailable,
            ServiceError::Internal(detail) => {
                tracing::error!(%detail, "internal error");
                Code::Internal
            }
        };
        if code == Code::Internal {
            return Status::new(code, "internal error");
        }
        Status::new(code, error.to_string())
    }
}

/// Results of service calls.
pub type ServiceResult<T> = Result<T, ServiceError>;
