//! Pure tournament pairing for HanniBall: the Swiss tournament model, FIDE TRF reading and
//! writing, a checker of the FIDE absolute pairing criteria and the FIDE (Dutch) pairing engine.
//!
//! What this crate does NOT do: no IO (callers hand in text and get text back), no clock, no
//! randomness (the engine is a deterministic function of the tournament), no async, no logging.
//! Round robins, tie-breaks and matchmaking live in their own modules of this crate.

pub mod check;
pub mod dutch;
pub mod history;
pub mod standings;
pub mod tournament;
pub mod trf;

pub use check::{Violation, check};
pub use dutch::{
    DutchOptions, Pairing, PairingError, RoundMismatch, format_pairing, pair_next_round, recheck,
};
pub use tournament::{
    Colour, Forbidden, GameResult, Player, PointSystem, RoundEntry, Score, StartRank, Tournament,
    TournamentInfo,
};
pub mod matchmaking;
pub mod roundrobin;
pub mod tiebreak;
