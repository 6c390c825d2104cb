//! Every service error, and its gRPC code in one exhaustive match.

use hanniball_store::StoreError;
use hanniball_svc_kit::AuthError;
use tonic::{Code, Status};

/// Why a call failed.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    #[error("missing bearer token (send `authorization: Bearer <token>` metadata)")]
    NoToken,
    #[error("invalid or revoked token")]
    BadToken,
    #[error("token expired")]
    Expired,
    #[error("this call needs the admin token")]
    AdminOnly,
    /// The token is valid but lacks the call's scope (the message names both).
    #[error("{0}")]
    MissingScope(String),
    #[error("{0}")]
    InvalidArgument(String),
    #[error("{what} {id} not found")]
    NotFound { what: &'static str, id: String },
    #[error("{0}")]
    FailedPrecondition(String),
    #[error("lost a race with another writer; retry")]
    LostRace,
    #[error("the database is unavailable ({0}); nothing was applied, retry later")]
    Unavailable(String),
    /// The service's configuration cannot be used (only at start).
    #[error("rating configuration: {0}")]
    Config(String),
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

impl From<AuthError> for ServiceError {
    fn from(error: AuthError) -> Self {
        match error {
            AuthError::NoToken => ServiceError::NoToken,
            AuthError::BadToken => ServiceError::BadToken,
            AuthError::Expired => ServiceError::Expired,
            AuthError::AdminOnly => ServiceError::AdminOnly,
            AuthError::MissingScope { .. } => ServiceError::MissingScope(error.to_string()),
            AuthError::NoRandomness(detail) => ServiceError::Internal(detail),
            AuthError::Store(error) => error.into(),
        }
    }
}

impl From<ServiceError> for Status {
    fn from(error: ServiceError) -> Self {
        let code = match &error {
            ServiceError::NoToken | ServiceError::BadToken | ServiceError::Expired => {
                Code::Unauthenticated
            }
            ServiceError::AdminOnly | ServiceError::MissingScope(_) => Code::PermissionDenied,
            ServiceError::InvalidArgument(_) => Code::InvalidArgument,
            ServiceError::NotFound { .. } => Code::NotFound,
            ServiceError::FailedPrecondition(_) => Code::FailedPrecondition,
            ServiceError::LostRace => Code::Aborted,
            ServiceError::Unavailable(_) => Code::Unavailable,
            ServiceError::Config(detail) | ServiceError::Internal(detail) => {
                tracing::error!(%detail, "internal error");
                Code::Internal
            }
        };
        Status::new(code, error.to_string())
    }
}

/// Results of service calls.
pub type ServiceResult<T> = Result<T, ServiceError>;
