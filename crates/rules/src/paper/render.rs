//! A picture of a position for a monospace terminal: points, walls, drawn segments, goals, ball.

use std::fmt::Write as _;

use super::field::{Direction, Point};
use super::notation::write_steps;
use super::position::{Bounce, Position};
use crate::game::{EndReason, Outcome, Side};

/// Characters per lattice step across, lines per lattice step up; 4 : 2 keeps cells roughly
/// square in a terminal font and leaves one character at each cell's centre for diagonals.
const DX: usize = 4;
const DY: usize = 2;
const MAX_X: u8 = 8;
const MAX_Y: u8 = 12;
/// Width of the `y` labels on the left.
const MARGIN: usize = 4;
const WIDTH: usize = MARGIN + DX * MAX_X as usize + 1;
/// One line for each goal's net, then the lattice.
const FIELD_TOP: usize = 1;
const HEIGHT: usize = FIELD_TOP + DY * MAX_Y as usize + 1 + 1;

impl Position {
    /// The field as text: `·` a free point, `•` a point already used, `●` the ball, `═ ║` the
    /// border (which no segment may run along), `─ │ ╱ ╲ ╳` drawn segments, the goals as nets
    /// beyond the goal lines, coordinates on the edges, and whose turn it is.
    #[must_use]
    pub fn render(&self) -> String {
        let mut grid = vec![vec![' '; WIDTH]; HEIGHT];
        for point in Point::all() {
            self.draw_point(&mut grid, point);
        }
        for (row, side) in [(0, Side::Black), (HEIGHT - 1, Side::White)] {
            draw_net(&mut grid[row], side);
        }

        let mut out = String::new();
        let _ = writeln!(out, "paper football: {}", self.status());
        let _ = write!(
            out,
            "turns played {}, steps {}, ball at {}",
            self.turns_played(),
            self.steps().len(),
            self.ball()
        );
        if self.bounce_owed().is_some() {
            let _ = write!(
                out,
                ", this turn so far: {}",
                write_steps(self.current_turn())
            );
        }
        out.push('\n');
        out.push_str(&x_labels());
        for (row, line) in grid.iter().enumerate() {
            let mut text: String = line.iter().collect();
            if let Some(y) = lattice_y(row) {
                text.replace_range(0..MARGIN - 1, &format!("{y:>2} "));
                match y {
                    MAX_Y => text.push_str("   black's goal (white attacks)"),
                    0 => text.push_str("   white's goal (black attacks)"),
                    _ => {}
                }
            }
            out.push_str(text.trim_end());
            out.push('\n');
        }
        out.push_str(&x_labels());
        out
    }

    fn status(&self) -> String {
        let side = self.side_to_move();
        if let Some(result) = self.result() {
            let winner = match result.outcome {
                Outcome::Win(winner) => winner.name(),
                Outcome::Draw => "nobody",
            };
            let how = match result.reason {
                EndReason::Goal => format!("{side} scored"),
                EndReason::OwnGoal => format!("{side} scored an own goal"),
                EndReason::DeadEnd => format!("{side} had no segment to draw"),
                EndReason::NoLegalTurn | EndReason::MaxTurns => result.reason.name().to_owned(),
            };
            return format!("game over, {} ({how}; {winner} wins)", result);
        }
        match self.bounce_owed() {
            None => format!("{side} to move"),
            Some(bounce) => {
                let why = match bounce {
                    Bounce::UsedPoint => "the ball is on a used point",
                    Bounce::Border => "the ball is on the border",
                    Bounce::Crossing => "the last segment crossed a diagonal",
                };
                format!("{side} to move again, bouncing ({why})")
            }
        }
    }

    fn draw_point(&self, grid: &mut [Vec<char>], point: Point) {
        let (col, row) = cell(point);
        grid[row][col] = if point == self.ball() {
            '●'
        } else if self.is_used(point) {
            '•'
        } else {
            '·'
        };
        // Each point draws the connections to its east and north neighbours and the diagonals
        // of the cell to its north-east, so every segment is drawn exactly once.
        if let Some(east) = point.neighbour(Direction::E) {
            let c = if self.has_segment(point, Direction::E) {
                '─'
            } else if point.is_border() && east.is_border() {
                if point.goal_of().is_some() && east.goal_of().is_some() {
                    ' '
                } else {
                    '═'
                }
            } else {
                ' '
            };
            for dc in 1..DX {
                grid[row][col + dc] = c;
            }
        }
        if let Some(north) = point.neighbour(Direction::N) {
            grid[row - 1][col] = if self.has_segment(point, Direction::N) {
                '│'
            } else if point.is_border() && north.is_border() {
                '║'
            } else {
                ' '
            };
        }
        // The cell whose lower-left corner is `point` (which may itself be a missing corner,
        // so look at the cell from whichever of its points exist).
        let rising = self.has_segment(point, Direction::NE);
        let falling = point
            .neighbour(Direction::N)
            .is_some_and(|north| self.has_segment(north, Direction::SE));
        let centre = match (rising, falling) {
            (true, true) => '╳',
            (true, false) => '╱',
            (false, true) => '╲',
            (false, false) => return,
        };
        grid[row - DY / 2][col + DX / 2] = centre;
    }
}

/// Columns and rows of `point` in the grid.
fn cell(point: Point) -> (usize, usize) {
    let col = MARGIN + DX * point.x() as usize;
    let row = FIELD_TOP + DY * (MAX_Y - point.y()) as usize;
    (col, row)
}

/// The lattice `y` shown on grid row `row`, if that row holds points.
fn lattice_y(row: usize) -> Option<u8> {
    let offset = row.checked_sub(FIELD_TOP)?;
    if offset % DY != 0 || offset / DY > MAX_Y as usize {
        return None;
    }
    Some(MAX_Y - (offset / DY) as u8)
}

/// The net behind a goal: a bracket spanning the goal points, opening towards the field.
fn draw_net(line: &mut [char], side: Side) {
    let (left, right, fill) = match side {
        Side::Black => ('┌', '┐', '─'),
        Side::White => ('└', '┘', '─'),
    };
    let start = MARGIN + DX * 3;
    let end = MARGIN + DX * 5;
    for c in &mut line[start..=end] {
        *c = fill;
    }
    line[start] = left;
    line[end] = right;
}

fn x_labels() -> String {
    let mut text = " ".repeat(MARGIN);
    for x in 0..=MAX_X {
        let _ = write!(text, "{x:<DX$}");
    }
    format!("{}\n", text.trim_end())
}
