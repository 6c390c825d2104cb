//! Every service error, and its gRPC code in one exhaustive match.

use hanniball_arbiter::ActionError;
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
    #[error("you do not play in game {0}")]
    NotYourGame(i64),
    /// A player asking for what only the admin (or another player) may do; the message says what.
    #[error("{0}")]
    Denied(String),
    /// A limit on what one player may hold (the message names it).
    #[error("{0}")]
    TooMany(String),
    #[error("{0}")]
    InvalidArgument(String),
    #[error("{what} {id} not found")]
    NotFound { what: &'static str, id: String },
    #[error("{0}")]
    AlreadyExists(String),
    #[error(transparent)]
    Action(#[from] ActionError),
    #[error("lost a race with a concurrent writer; read the game again and retry")]
    LostRace,
    #[error("the database is unavailable ({0}); nothing was applied, retry later")]
    Unavailable(String),
    #[error("the server is shutting down")]
    ShuttingDown,
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
            ServiceError::AdminOnly
            | ServiceError::MissingScope(_)
            | ServiceError::NotYourGame(_)
            | ServiceError::Denied(_) => Code::PermissionDenied,
            ServiceError::TooMany(_) => Code::ResourceExhausted,
            ServiceError::InvalidArgument(_) => Code::InvalidArgument,
            ServiceError::NotFound { .. } => Code::NotFound,
            ServiceError::AlreadyExists(_) => Code::AlreadyExists,
            ServiceError::LostRace => Code::Aborted,
            ServiceError::Unavailable(_) | ServiceError::ShuttingDown => Code::Unavailable,
            ServiceError::Internal(detail) => {
                tracing::error!(%detail, "internal error");
                Code::Internal
            }
            ServiceError::Action(action) => match action {
                ActionError::NotAPlayer(_)
                | ActionError::AdminOnly
                | ActionError::OrganiserOnly => Code::PermissionDenied,
                ActionError::Malformed(_) | ActionError::Illegal(_) => Code::InvalidArgument,
                ActionError::NotYourTurn { .. }
                | ActionError::StaleTurn { .. }
                | ActionError::FutureTurn { .. }
                | ActionError::GameOver(_)
                | ActionError::NoDrawOffer
                | ActionError::DrawAlreadyOffered
                | ActionError::TooLateToAbort(_) => Code::FailedPrecondition,
            },
        };
        Status::new(code, error.to_string())
    }
}

/// Results of service calls.
pub type ServiceResult<T> = Result<T, ServiceError>;
