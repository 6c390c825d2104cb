//! Every service error, and its gRPC code in one exhaustive match.

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
    FailedPrecondition(String),
    #[error("lost a race with another writer; retry")]
    LostRace,
    /// The store failed (svc-kit answers it, the same in every service).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The service's configuration cannot be used (only at start).
    #[error("rating configuration: {0}")]
    Config(String),
    #[error("internal error")]
    Internal(String),
}

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
            ServiceError::FailedPrecondition(_) => Code::FailedPrecondition,
            ServiceError::LostRace => Code::Aborted,
        };
        Status::new(code, error.to_string())
    }
}

/// Results of service calls.
pub type ServiceResult<T> = Result<T, ServiceError>;
