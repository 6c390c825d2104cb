//! The board as an SVG picture, for web pages: the field, both goals and keeper zones, the pieces
//! (White light, Black dark, each with its letter), the ball, and a turn's steps as arrows.
//! Deterministic text (no ids, no randomness), so pages can be compared and cached.

use std::fmt::Write;

use super::position::Position;
use super::square::{GOALS, RANKS, Square, ZONE};
use crate::Side;

/// Pixels per square.
const CELL: i32 = 40;
/// Room for the coordinates around the board.
const MARGIN: i32 = 24;

/// The centre of `square` in the picture (White's goal at the bottom).
fn centre(square: Square) -> (i32, i32) {
    let x = MARGIN + i32::from(square.file()) * CELL + CELL / 2;
    let y = MARGIN + (i32::from(RANKS) - 1 - i32::from(square.rank())) * CELL + CELL / 2;
    (x, y)
}

/// The squares a step's text names, in order (`d4-e6`, `e8=e9`, `f6>g8`, `e10>e15>e11`, `xg7`).
fn squares_of(step: &str) -> Vec<Square> {
    step.trim_start_matches('x')
        .split(['-', '=', '>'])
        .filter_map(Square::parse)
        .collect()
}

/// The position drawn as an SVG document, with `last_turn`'s steps (RULES.md notation) as arrows
/// (a penalty removal as a red cross). Text that is not a step is left out of the arrows.
#[must_use]
pub fn svg(position: &Position, last_turn: Option<&str>) -> String {
    svg_titled(
        position,
        last_turn,
        &format!("HanniBall board: {}", describe(position)),
    )
}

/// [`svg`] with `title` as its accessible name (its first `<title>`), for a page that
/// knows more than the position does: a resignation, the turn a replay shows.
#[must_use]
pub fn svg_titled(position: &Position, last_turn: Option<&str>, title: &str) -> String {
    let width = MARGIN * 2 + 9 * CELL;
    let height = MARGIN * 2 + i32::from(RANKS) * CELL;
    let mut out = String::with_capacity(16 * 1024);
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" class="board" role="img"><title>{}</title>"#,
        crate::xml_text(title)
    );
    out.push_str(
        r##"<defs><marker id="arrow" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="5" markerHeight="5" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#c0392b"/></marker></defs>"##,
    );
    for rank in (0..RANKS).rev() {
        for file in 0..9 {
            let Some(square) = Square::new(file, rank) else {
                continue;
            };
            let (cx, cy) = centre(square);
            let fill = if GOALS & square.bit() != 0 {
                "#9aa5ab"
            } else if (ZONE[0] | ZONE[1]) & square.bit() != 0 {
                if (file + rank) % 2 == 0 {
                    "#b9dfa6"
                } else {
                    "#acd697"
                }
            } else if (file + rank) % 2 == 0 {
                "#8fc97a"
            } else {
                "#83c06d"
            };
            let _ = write!(
                out,
                r##"<rect x="{}" y="{}" width="{CELL}" height="{CELL}" fill="{fill}" stroke="#5e8c4f" stroke-width="0.5"/>"##,
                cx - CELL / 2,
                cy - CELL / 2
            );
        }
    }
    // Coordinates.
    for file in 0..9u8 {
        let x = MARGIN + i32::from(file) * CELL + CELL / 2;
        let _ = write!(
            out,
            r#"<text x="{x}" y="{}" class="coord" text-anchor="middle" font-size="12">{}</text>"#,
            height - 6,
            char::from(b'a' + file)
        );
    }
    for rank in 0..RANKS {
        let y = MARGIN + (i32::from(RANKS) - 1 - i32::from(rank)) * CELL + CELL / 2 + 4;
        let _ = write!(
            out,
            r#"<text x="{}" y="{y}" class="coord" text-anchor="end" font-size="12">{}</text>"#,
            MARGIN - 4,
            rank + 1
        );
    }
    // Pieces, then the ball on top.
    for rank in 0..RANKS {
        for file in 0..9 {
            let Some(square) = Square::new(file, rank) else {
                continue;
            };
            let Some(piece) = position.piece_at(square) else {
                continue;
            };
            let (cx, cy) = centre(square);
            let (fill, ink) = match piece.side {
                Side::White => ("#f7f4ea", "#222"),
                Side::Black => ("#2b2b2b", "#f7f4ea"),
            };
            let _ = write!(
                out,
                r##"<g class="piece"><title>{} {:?} on {square}</title><circle cx="{cx}" cy="{cy}" r="15" fill="{fill}" stroke="#222" stroke-width="1.5"/><text x="{cx}" y="{}" text-anchor="middle" font-size="16" font-weight="bold" fill="{ink}">{}</text></g>"##,
                piece.side,
                piece.kind,
                cy + 6,
                piece.letter().to_ascii_uppercase()
            );
        }
    }
    let ball = position.ball();
    let (bx, by) = centre(ball);
    let held = position.piece_at(ball).is_some();
    let (bx, by, r) = if held {
        (bx + 12, by - 12, 6)
    } else {
        (bx, by, 8)
    };
    let _ = write!(
        out,
        r##"<circle class="ball" cx="{bx}" cy="{by}" r="{r}" fill="#f39c12" stroke="#7a4a00" stroke-width="1.5"><title>the ball on {ball}</title></circle>"##
    );
    // The last turn's steps.
    for step in last_turn.unwrap_or_default().split_whitespace() {
        let squares = squares_of(step);
        if step.starts_with('x') {
            if let Some(&square) = squares.first() {
                let (cx, cy) = centre(square);
                let _ = write!(
                    out,
                    r##"<path class="removal" d="M{} {} L{} {} M{} {} L{} {}" stroke="#c0392b" stroke-width="4"/>"##,
                    cx - 12,
                    cy - 12,
                    cx + 12,
                    cy + 12,
                    cx + 12,
                    cy - 12,
                    cx - 12,
                    cy + 12
                );
            }
            continue;
        }
        for pair in squares.windows(2) {
            let ((x1, y1), (x2, y2)) = (centre(pair[0]), centre(pair[1]));
            let dash = if step.contains('>') {
                r#" stroke-dasharray="6 4""#
            } else {
                ""
            };
            let _ = write!(
                out,
                r##"<line class="step" x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="#c0392b" stroke-width="3" stroke-opacity="0.8"{dash} marker-end="url(#arrow)"/>"##
            );
        }
    }
    out.push_str("</svg>");
    out
}

/// A one-line description of the position for screen readers.
fn describe(position: &Position) -> String {
    let mut text = format!(
        "{} to move, turn {}, ball on {}",
        position.side_to_move(),
        position.fullmove(),
        position.ball()
    );
    if let Some(result) = position.result() {
        let _ = write!(text, ", game over: {result}");
    } else if position.steps_taken() == 0 && position.offences().any() {
        let _ = write!(
            text,
            ", penalty removal available ({})",
            position.offences().names().join(", ")
        );
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hanniball::INITIAL;

    #[test]
    fn the_initial_board_has_every_square_piece_and_the_ball() {
        let position = Position::from_notation(INITIAL).expect("initial");
        let picture = svg(&position, None);
        assert!(picture.starts_with("<svg ") && picture.ends_with("</svg>"));
        assert_eq!(
            picture.matches("<rect ").count(),
            123,
            "every existing square"
        );
        assert_eq!(picture.matches(r#"class="piece""#).count(), 22);
        assert_eq!(picture.matches(r#"class="ball""#).count(), 1);
        assert!(picture.contains("the ball on e8"));
        let titled = svg_titled(&position, None, "Game over: 1-0 <resignation> & more");
        assert!(titled.contains(r#"<title>Game over: 1-0 &lt;resignation&gt; &amp; more</title>"#));
        assert_eq!(picture.matches(r#"class="step""#).count(), 0);
    }

    #[test]
    fn the_last_turn_is_drawn_as_arrows_and_a_removal_as_a_cross() {
        let position = Position::from_notation(INITIAL).expect("initial");
        let picture = svg(&position, Some("d4-c6 e10>e15>e11 xg7 nonsense"));
        // One arrow for the move, two for the ricochet; one cross.
        assert_eq!(picture.matches(r#"class="step""#).count(), 3);
        assert_eq!(picture.matches(r#"class="removal""#).count(), 1);
        assert_eq!(picture.matches("stroke-dasharray").count(), 2);
    }
}
