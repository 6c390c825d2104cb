//! The arbiter's errors: the workspace's one error type (`svc-kit::failure`), so every service
//! answers the same fault with the same code and words; the rules' refusals become its cases
//! here, where the service meets them.

use hanniball_arbiter::ActionError;
pub use hanniball_svc_kit::{ServiceError, ServiceResult};

/// A game action the rules refused, as the service answers it: a caller who may not act is
/// denied, a turn that cannot be read or played is an invalid argument, and an action the game's
/// state does not allow now is a failed precondition.
#[must_use]
pub fn refused(error: ActionError) -> ServiceError {
    let message = error.to_string();
    match error {
        ActionError::NotAPlayer(_) | ActionError::AdminOnly | ActionError::OrganiserOnly => {
            ServiceError::Denied(message)
        }
        ActionError::Malformed(_) | ActionError::Illegal(_) => {
            ServiceError::InvalidArgument(message)
        }
        ActionError::NotYourTurn { .. }
        | ActionError::StaleTurn { .. }
        | ActionError::FutureTurn { .. }
        | ActionError::GameOver(_)
        | ActionError::NoDrawOffer
        | ActionError::DrawAlreadyOffered
        | ActionError::TooLateToAbort(_)
        | ActionError::OverTheBoard
        | ActionError::NotOverYet => ServiceError::FailedPrecondition(message),
    }
}

/// [`refused`], where the caller is a player acting in a game that is not theirs: says so with
/// the game's id.
pub fn refused_in(game: i64) -> impl Fn(ActionError) -> ServiceError {
    move |error| match error {
        ActionError::NotAPlayer(_) => {
            ServiceError::Denied(format!("you do not play in game {game}"))
        }
        other => refused(other),
    }
}
