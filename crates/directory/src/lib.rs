//! What Accounts tells every service about its callers: a [`Player`], a [`Token`] and a
//! [`TokenEvent`]. Accounts' store answers with these in one process, its gRPC API (read by
//! `hanniball-svc-kit`'s `Directory`) in another, so the services' auth and the rating service
//! and scheduler name players without linking Accounts' store or the arbiter.
//!
//! Pure: plain values, no dependencies but the shared ids.

use hanniball_ids::{PlayerId, Timestamp};

/// A registered player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Player {
    pub id: PlayerId,
    pub name: String,
    /// `human` or `bot`.
    pub kind: String,
    pub created_at: Timestamp,
    /// The admin made this player an organiser.
    pub organiser: bool,
}

/// A player's token as stored (its hash aside).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub id: i64,
    pub player: PlayerId,
    /// Scope names separated by single spaces (`play queue read`); the services give them
    /// meaning, the store keeps the text.
    pub scopes: String,
    pub created_at: Timestamp,
    /// `None`: never expires.
    pub expires_at: Option<Timestamp>,
    /// `None`: not revoked.
    pub revoked_at: Option<Timestamp>,
    /// A session's label; `None` for an API token.
    pub session_label: Option<String>,
}

/// What happened to tokens, as the services' auth hears it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenEvent {
    /// The token with this id was revoked.
    Revoked(i64),
    /// Events may have been missed (a lost listening connection, a lagging receiver): every
    /// token in use should be looked up again.
    Missed,
}
