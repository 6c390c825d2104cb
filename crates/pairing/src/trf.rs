//! Reading and writing the FIDE Tournament Report File (TRF-16 with the JaVaFo/bbpPairings lines).
//!
//! Recognised lines:
//! - `001` player records, in the exact TRF-16 columns: starting rank 5–8, sex 10, title 11–13,
//!   name 15–47, rating 49–52, federation 54–56, FIDE id 58–68, birth date 70–79, points 81–84,
//!   rank 86–89, then ten columns per round from column 92: opponent 92–95 (`0000`, `0` or blank
//!   when there is none), colour 97 (`w`, `b`, `-`), result 99 (`1 = 0 W D L + - H F U Z`, blank
//!   ≡ Z; blank after an opponent: a game without a result yet).
//! - `012 022 032 042 052 092 102 112 122 132` header lines, kept in [`TournamentInfo`] (`132`:
//!   the round dates in the round columns, 92-99 for round 1, 102-109 for round 2, ...; a line
//!   with words before column 92 is read word by word); `062 072 082` are recomputable and are
//!   dropped with a note (`062` and `072` are written from the players when asked).
//! - `XXR <rounds>` (or `142 <rounds>`): total rounds; `XXC [rank] white1|black1` (or `152 W|B`): the
//!   top seed's colour in round 1. Without either, the colour is taken from round 1 (as bbpPairings
//!   does) and the number of rounds from the longest player record.
//! - `162 W 3.0 D 1.0 L 0.0 A 0.0 P 1.0` (TRF-2026's point system; `A`, or bbpPairings' `Z`, is
//!   an absence: a zero-point bye and a forfeit loss) and bbpPairings' `BBW BBD BBL BBZ BBF BBU`:
//!   points for a win (also a forfeit win and a full-point bye), a draw (also a half-point bye),
//!   a loss, a zero-point bye (also an absence), a forfeit loss and the pairing-allocated bye
//!   (a win's unless given). Defaults 1.0, 0.5, 0, 0, 0, 1.0. These and the `XXA` values are in
//!   tenths, at most 99.9, the most the TRF points format holds.
//! - `XXW <rank> <round>`: this crate's extension, the player is withdrawn from that round on.
//! - `XXA <rank> <points> <points> ...`: accelerated pairing, points added to the player's pairing
//!   score in rounds 1, 2, ... (JaVaFo/bbpPairings; values separated by spaces).
//! - `XXP <rank> <rank> ...`: these players must not meet each other in any round.
//! - TRF-2026 records: `240 T RRR PPPP PPPP ...` byes (`T` = `F`, `H` or `Z`) of the round to be
//!   paired, which become that round's entries (a bye for another round is noted and not kept,
//!   as bbpPairings does); `250 MMMM GGGG RRF RRL PPPF PPPL` (columns 5-8, 10-13, 15-17, 19-21,
//!   23-26, 28-31) fictitious points `GGGG` for rounds `RRF..=RRL` of players `PPPF..=PPPL`, like
//!   `XXA`; `260 RRF RRL PPPP PPPP ...` players who must not meet in rounds `RRF..=RRL`; `192`
//!   the type of tournament, where a name ending in `_BAKU` (`FIDE_DUTCH_2025_BAKU`) asks for the
//!   Baku acceleration as bbpPairings applies it when no `XXA`/`250` is given: the top half in
//!   pairing order (`⌈n / 2⌉` players; by `XXC rank`, the first `001` lines) get a win's points in rounds 1 to `⌊(rounds − 1) / 4⌋ + 1`
//!   and a draw's from there to round `⌈rounds / 2⌉`, which needs the point system's loss to be
//!   0 and its win two draws.
//! - `###` comments are ignored; any other line (a column ruler, a header row, a program's own
//!   record) is ignored with a [`TrfNote`]; only the first [`MAX_LINE_NOTES`] such notes are
//!   kept, then one counting the rest, so that a file of junk takes no more memory than itself.
//!
//! Forgiving where the meaning is unambiguous ([`read`]): the bytes may be UTF-8 (with or
//! without a byte-order mark), UTF-16 with one, or Windows-1252/Latin-1 (detected, with a note,
//! or named: [`Encoding`]); lines end in CR, LF or CR LF. `XXC rank` takes the players in the
//! order of the `001` lines for the effective pairing numbers (bbpPairings, JaVaFo; lichess
//! writes `XXC rank white1`). A round paired whose games have no results yet (`   8 w  `, how
//! programs save mid-round) is read as an [`UnfinishedRound`]: it can be checked, not paired
//! past. The points column (81–84) must be the score of the results, as bbpPairings requires
//! ([`points`]); a column that disagrees is an error naming the players and a point system
//! that would explain it, unless [`ReadOptions::recompute_points`] asks to score by the results.
//! Pre-entered byes of the round being paired (`0000 - H`, `0000 - Z`, `0000 - F`) are
//! ordinary entries: the engine does not pair those players.
//!
//! [`TournamentInfo`]: crate::tournament::TournamentInfo

mod decode;
mod encoding;
mod error;
mod file;
mod lines;
mod numbers;
pub mod points;
mod read;
mod record;
mod write;

pub use decode::decode;
pub use encoding::{Encoding, UnknownEncoding};
pub use error::{MAX_PLAYERS, TrfError};
pub use file::{ReadOptions, TrfFile, TrfNote, UnfinishedRound};
pub use lines::MAX_LINE_NOTES;
pub use points::PointsMismatch;
pub use read::{parse, parse_with_notes, read, read_text};
pub use write::{write, write_unfinished};
