//! The FIDE (Dutch) Swiss system, C.04.3 in the 2025 edition (in force from 2026), paired exactly
//! as the FIDE-endorsed engine bbpPairings v6.0.0 pairs it.
//!
//! # Design
//!
//! Every quality criterion of C.04.3 is a term of one edge weight: the weight of a possible pair
//! packs the criteria into bit fields, the most important highest (completion and the bye first,
//! then the number of pairs and their scores in the current bracket and the next, the bye
//! assignee's unplayed games, the four colour criteria, repeated floats and their scores, and
//! room for the order of transpositions and exchanges). A maximum-weight perfect matching of all
//! players still to be paired (plus one dummy vertex when their number is odd: its partner gets
//! the bye) is then the best pairing by those criteria. Bracket by bracket, from the top, the
//! procedure asks the matching which moved-down players can be paired in this bracket, with whom,
//! which residents must be exchanged between S1 and S2, and who S1's players meet, each time by
//! nudging a few weights and re-solving; every answer is fixed before the next question. The
//! procedure and the weight layout follow bbpPairings' `dutch.cpp` (read as the second reading
//! of the rules the issue asks for; the code here is our own), so the pairing is the one the
//! endorsed engine gives, colours and board order included. The players are read in
//! `entrants.rs`, the weights laid out in `weights.rs`; the procedure, a method per phase of a
//! bracket, is `brackets.rs`; colours and board order are `boards.rs`. `engine.rs` pairs a
//! round, `recheck.rs` checks a file's rounds, `round.rs` holds the types they share.
//!
//! The matching (`blossom/`) is warm-started: a weight change keeps the old solution's duals
//! feasible and unmatches only the edges that stop being tight, so each question costs one or
//! two augmentations instead of a full solve.

mod blossom;
mod boards;
mod brackets;
mod engine;
mod entrants;
mod recheck;
mod round;
#[cfg(test)]
mod tests;
mod weights;
mod wide;

pub use engine::{next_round, pair_next_round, pair_round, record_round};
pub use recheck::{RoundMismatch, recheck, recorded_pairing};
pub use round::{DutchOptions, MEMORY_LIMIT_MIB, Pairing, PairingError, format_pairing};
