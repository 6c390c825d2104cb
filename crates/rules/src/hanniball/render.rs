//! A plain-text picture of a position for terminals: ranks 15 down to 1, files a to i.

use std::fmt::Write;

use super::position::Position;
use super::square::{GOALS, RANKS, Square};

/// Renders the board. A piece is its letter (White upper case, Black lower case); the ball holder
/// is shown in parentheses, a loose ball as `o`, an empty square as `.`, a goal square as `_`.
#[must_use]
pub fn render(position: &Position) -> String {
    let mut out = String::new();
    for rank in (0..RANKS).rev() {
        let _ = write!(out, "{:>2} ", rank + 1);
        for file in 0..9 {
            let Some(square) = Square::new(file, rank) else {
                out.push_str("   ");
                continue;
            };
            let cell = match (position.piece_at(square), square == position.ball()) {
                (Some(piece), true) => format!("({})", piece.letter()),
                (Some(piece), false) => format!(" {} ", piece.letter()),
                (None, true) => " o ".to_owned(),
                (None, false) if GOALS & square.bit() != 0 => " _ ".to_owned(),
                (None, false) => " . ".to_owned(),
            };
            out.push_str(&cell);
        }
        out.push('\n');
    }
    out.push_str("    a  b  c  d  e  f  g  h  i\n");
    let _ = write!(
        out,
        "{} to move, turn {} step {} of {}, {}",
        position.side_to_move(),
        position.fullmove(),
        position.steps_taken(),
        position.step_limit(),
        position.ruleset()
    );
    if let Some(result) = position.result() {
        let _ = write!(out, ", game over: {result}");
    } else {
        let offences = position.offences();
        if position.steps_taken() == 0 && offences.any() {
            let _ = write!(
                out,
                ", penalty removal available ({})",
                offences.names().join(", ")
            );
        }
    }
    out.push('\n');
    out
}
