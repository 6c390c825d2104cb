//! Every service error, and its gRPC code in one exhaustive match.

use hanniball_arbiter::ActionError;
use hanniball_store::StoreError;
use hanniball_svc_kit::{AuthError, internal_status, store_status};
use tonic::{Code, Status};

/// Why a call failed.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// The caller was not accepted (svc-kit answers it).
    #[error(transparent)]
    Auth(#[from] AuthError),
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
    /// The store failed (svc-kit answers it, the same in every service).
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("the server is shutting down")]
    ShuttingDown,
    #[error("internal error")]
    Internal(String),
}

impl From<ServiceError> for Status {
    fn from(error: ServiceError) -> Self {
        let code = match error {
            ServiceError::Auth(error) => return error.into(),
            ServiceError::Store(error) => return store_status(error),
            ServiceError::Internal(detail) => return internal_status(&detail),
            ServiceError::NotYourGame(_) | ServiceError::Denied(_) => Code::PermissionDenied,
            ServiceError::TooMany(_) => Code::ResourceExhausted,
            ServiceError::InvalidArgument(_) => Code::InvalidArgument,
            ServiceError::NotFound { .. } => Code::NotFound,
            ServiceError::AlreadyExists(_) => Code::AlreadyExists,
            ServiceError::LostRace => Code::Aborted,
            ServiceError::ShuttingDown => Code::Unavailable,
            ServiceError::Action(ref action) => match action {
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
