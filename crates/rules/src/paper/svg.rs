//! The field as an SVG picture, for web pages: the lattice, the border and the goals, every drawn
//! segment, the last turn's segments highlighted, and the ball.

use std::fmt::Write as _;

use super::field::{Direction, Point};
use super::position::Position;

/// Pixels per lattice step.
const STEP: i32 = 32;
const MARGIN: i32 = 28;

fn at(point: Point) -> (i32, i32) {
    (
        MARGIN + i32::from(point.x()) * STEP,
        MARGIN + (12 - i32::from(point.y())) * STEP,
    )
}

/// The position drawn as an SVG document; its last `last_turn` steps (the last turn's) in red.
#[must_use]
pub fn svg(position: &Position, last_turn: usize) -> String {
    let title = format!(
        "paper football field: {} steps drawn, ball at ({}, {})",
        position.steps().len(),
        position.ball().x(),
        position.ball().y()
    );
    svg_titled(position, last_turn, &title)
}

/// [`svg`] with `title` as its accessible name (its first `<title>`), for a page that
/// knows more than the position does: a resignation, the turn a replay shows.
#[must_use]
pub fn svg_titled(position: &Position, last_turn: usize, title: &str) -> String {
    let (width, height) = (MARGIN * 2 + 8 * STEP, MARGIN * 2 + 12 * STEP);
    let mut out = String::with_capacity(8 * 1024);
    let _ = write!(
        out,
        r##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" class="board" role="img"><title>{}</title><rect width="{width}" height="{height}" fill="#fdfdf6"/>"##,
        crate::xml_text(title)
    );
    // The border (no segment may run along it) and the goals.
    let (x0, y0) = (MARGIN, MARGIN);
    let (x1, y1) = (MARGIN + 8 * STEP, MARGIN + 12 * STEP);
    let _ = write!(
        out,
        r##"<rect x="{x0}" y="{y0}" width="{}" height="{}" fill="none" stroke="#34495e" stroke-width="3"/>"##,
        x1 - x0,
        y1 - y0
    );
    for (y, label) in [(y0, "black's goal"), (y1, "white's goal")] {
        let _ = write!(
            out,
            r##"<line class="goal" x1="{}" y1="{y}" x2="{}" y2="{y}" stroke="#e67e22" stroke-width="6"><title>{label}</title></line>"##,
            MARGIN + 3 * STEP,
            MARGIN + 5 * STEP
        );
    }
    for point in Point::all() {
        let (x, y) = at(point);
        let _ = write!(
            out,
            r##"<circle cx="{x}" cy="{y}" r="1.8" fill="#7f8c8d"/>"##
        );
    }
    // Every drawn segment once (from the point where its direction goes up or right).
    let mut segments = 0;
    for point in Point::all() {
        for direction in Direction::ALL {
            let (dx, dy) = direction.delta();
            if (dy, dx) <= (0, 0) || !position.has_segment(point, direction) {
                continue;
            }
            if let Some(to) = point.neighbour(direction) {
                let ((ax, ay), (bx, by)) = (at(point), at(to));
                segments += 1;
                let _ = write!(
                    out,
                    r##"<line class="segment" x1="{ax}" y1="{ay}" x2="{bx}" y2="{by}" stroke="#2c3e50" stroke-width="2"/>"##
                );
            }
        }
    }
    debug_assert_eq!(segments, position.steps().len());
    // The last turn's path, walked from the kick-off.
    let mut path = vec![Point::KICK_OFF];
    for &step in position.steps() {
        let here = *path.last().unwrap_or(&Point::KICK_OFF);
        path.push(here.neighbour(step).unwrap_or(here));
    }
    let first = path.len().saturating_sub(last_turn + 1);
    for pair in path[first..].windows(2) {
        let ((ax, ay), (bx, by)) = (at(pair[0]), at(pair[1]));
        let _ = write!(
            out,
            r##"<line class="step" x1="{ax}" y1="{ay}" x2="{bx}" y2="{by}" stroke="#c0392b" stroke-width="3.5"/>"##
        );
    }
    let (bx, by) = at(position.ball());
    let _ = write!(
        out,
        r##"<circle class="ball" cx="{bx}" cy="{by}" r="7" fill="#f39c12" stroke="#7a4a00" stroke-width="1.5"/>"##
    );
    out.push_str("</svg>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_and_the_last_turn_are_drawn() {
        let start = svg(&Position::initial(), 0);
        assert_eq!(start.matches(r#"class="segment""#).count(), 0);
        assert_eq!(start.matches(r#"class="ball""#).count(), 1);
        assert!(start.contains(r#"<title>paper football field: 0 steps"#));
        // Two turns: two segments, the last turn's one highlighted.
        let mut position = Position::initial();
        for _ in 0..2 {
            let step = position.legal_steps().iter().next().expect("a step");
            position = position.play_step(step).expect("legal");
        }
        let picture = svg(&position, 1);
        assert_eq!(picture.matches(r#"class="segment""#).count(), 2);
        assert_eq!(picture.matches(r#"class="step""#).count(), 1);
    }
}
