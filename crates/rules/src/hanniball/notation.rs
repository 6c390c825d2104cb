//! The notations of RULES 1.11: positions, steps and turns, read strictly and written canonically,
//! so that `write(read(text)) == text` for every accepted text.

use std::fmt;
use std::str::FromStr;

use super::error::ParseError;
use super::piece::{Kind, Piece, Ruleset, Step, Turn};
use super::position::{DEFAULT_MAX_TURNS, Position};
use super::square::{RANKS, Square, ZONE};
use crate::game::Side;

/// Largest fullmove number accepted: far beyond any turn limit, small enough for exact arithmetic.
const MAX_FULLMOVE: u32 = 1_000_000_000;

/// The initial position in notation (RULES 1.11).
pub const INITIAL: &str =
    "1k1/2l3l2/1e1e1e1e1/1h1h1h1h1/9/9/9/9/9/9/9/1H1H1H1H1/1E1E1E1E1/2L3L2/1K1 e8 w 1 0 standard";

/// The existing files of a rank: `(first file, count)`.
const fn rank_files(rank: u8) -> (u8, u8) {
    if rank == 0 || rank == RANKS - 1 {
        (3, 3)
    } else {
        (0, 9)
    }
}

impl Position {
    /// Reads a position written as RULES 1.11 describes. The turn limit is the default (300); use
    /// [`Position::with_max_turns`] for another.
    pub fn from_notation(text: &str) -> Result<Position, ParseError> {
        let fields: Vec<&str> = text.split(' ').collect();
        if fields.len() != 6 || fields.iter().any(|field| field.is_empty()) {
            return Err(ParseError::new(
                "position",
                text,
                format!(
                    "expected 6 fields separated by single spaces \
                     (<board> <ball> <side> <fullmove> <steps-taken> <ruleset>), found {}",
                    fields.iter().filter(|field| !field.is_empty()).count()
                ),
            ));
        }
        let [board, ball, side, fullmove, steps, ruleset] =
            <[&str; 6]>::try_from(fields).expect("six fields were counted");

        let mut position = Position {
            by_side: [0; 2],
            by_kind: [0; 4],
            ball: Square::parse(ball)
                .ok_or_else(|| ParseError::new("ball square", ball, "not a square of the board"))?,
            side: match side {
                "w" => Side::White,
                "b" => Side::Black,
                _ => return Err(ParseError::new("side", side, "expected w or b")),
            },
            fullmove: parse_count(fullmove, "fullmove")?,
            steps_taken: 0,
            ruleset: Ruleset::from_name(ruleset).ok_or_else(|| {
                ParseError::new("ruleset", ruleset, "expected standard or zillions-2010")
            })?,
            max_turns: DEFAULT_MAX_TURNS,
        };
        if position.fullmove == 0 || position.fullmove > MAX_FULLMOVE {
            return Err(ParseError::new(
                "fullmove",
                fullmove,
                format!("expected a number from 1 to {MAX_FULLMOVE}"),
            ));
        }
        let steps_taken = parse_count(steps, "steps-taken")?;
        if steps_taken > u32::from(position.step_limit()) {
            return Err(ParseError::new(
                "steps-taken",
                steps,
                format!("this turn allows at most {} steps", position.step_limit()),
            ));
        }
        position.steps_taken = steps_taken as u8;
        read_board(board, &mut position)?;
        Ok(position)
    }

    /// The position in RULES 1.11 notation. Written byte by byte rather than through the
    /// formatting machinery: the arbiter writes one for every accepted turn.
    #[must_use]
    pub fn to_notation(&self) -> String {
        let mut out = String::with_capacity(96);
        let occupied = self.by_side[0] | self.by_side[1];
        for row in 0..RANKS {
            let rank = RANKS - 1 - row;
            if row > 0 {
                out.push('/');
            }
            let (first, width) = rank_files(rank);
            // A rank is at most nine squares wide: every run of empty squares is one digit.
            let mut run = 0u8;
            for file in first..first + width {
                let square = Square::new(file, rank).expect("files within the rank's width exist");
                // Most squares are empty: one bit test instead of a piece lookup.
                if occupied & square.bit() == 0 {
                    run += 1;
                    continue;
                }
                match self.piece_at(square) {
                    None => run += 1,
                    Some(piece) => {
                        if run > 0 {
                            out.push(char::from(b'0' + run));
                            run = 0;
                        }
                        out.push(piece.letter());
                    }
                }
            }
            if run > 0 {
                out.push(char::from(b'0' + run));
            }
        }
        out.push(' ');
        out.push(char::from(b'a' + self.ball.file()));
        push_number(&mut out, u32::from(self.ball.rank()) + 1);
        out.push(' ');
        out.push(match self.side {
            Side::White => 'w',
            Side::Black => 'b',
        });
        out.push(' ');
        push_number(&mut out, self.fullmove);
        out.push(' ');
        push_number(&mut out, u32::from(self.steps_taken));
        out.push(' ');
        out.push_str(self.ruleset.name());
        out
    }
}

/// Appends a number in decimal.
fn push_number(out: &mut String, mut n: u32) {
    let mut digits = [0u8; 10];
    let mut len = 0;
    loop {
        digits[len] = b'0' + (n % 10) as u8;
        len += 1;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &digit in digits[..len].iter().rev() {
        out.push(char::from(digit));
    }
}

/// Reads a non-negative decimal number without leading zeros.
fn parse_count(text: &str, what: &str) -> Result<u32, ParseError> {
    let canonical = !text.is_empty()
        && text.bytes().all(|b| b.is_ascii_digit())
        && (text == "0" || !text.starts_with('0'));
    if !canonical {
        return Err(ParseError::new(
            what,
            text,
            "expected a number in plain decimal digits",
        ));
    }
    text.parse()
        .map_err(|_| ParseError::new(what, text, "number too large"))
}

fn read_board(board: &str, position: &mut Position) -> Result<(), ParseError> {
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != usize::from(RANKS) {
        return Err(ParseError::new(
            "board",
            board,
            format!("expected 15 ranks separated by '/', found {}", ranks.len()),
        ));
    }
    let mut keepers = [None::<Square>; 2];
    for (row, text) in ranks.iter().enumerate() {
        let rank = RANKS - 1 - row as u8;
        let (first, width) = rank_files(rank);
        let what = format!("board rank {}", rank + 1);
        let mut file = 0u8;
        let mut previous_digit = false;
        for c in text.chars() {
            if let Some(run) = c.to_digit(10) {
                if run == 0 || previous_digit {
                    return Err(ParseError::new(
                        &what,
                        text,
                        "empty squares are one digit 1-9 per run, never two digits side by side",
                    ));
                }
                previous_digit = true;
                file += run as u8;
                if file > width {
                    break;
                }
                continue;
            }
            previous_digit = false;
            let piece = Piece::from_letter(c).ok_or_else(|| {
                ParseError::new(
                    &what,
                    text,
                    format!("{c:?} is not a piece letter (K L E H k l e h)"),
                )
            })?;
            if file >= width {
                file += 1;
                break;
            }
            let square =
                Square::new(first + file, rank).expect("files within the rank's width exist");
            if piece.kind == Kind::Keeper {
                let side = piece.side.index();
                if let Some(other) = keepers[side] {
                    return Err(ParseError::new(
                        &what,
                        text,
                        format!("a second {} keeper (the first is on {other})", piece.side),
                    ));
                }
                if ZONE[side] & square.bit() == 0 {
                    return Err(ParseError::new(
                        &what,
                        text,
                        format!("the {} keeper on {square} is outside its zone", piece.side),
                    ));
                }
                keepers[side] = Some(square);
            }
            position.put(square, piece);
            file += 1;
        }
        if file != width {
            return Err(ParseError::new(
                &what,
                text,
                format!("covers {file} squares, the rank has {width}"),
            ));
        }
    }
    Ok(())
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_notation())
    }
}

impl FromStr for Position {
    type Err = ParseError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Position::from_notation(text)
    }
}

fn parse_square(step: &str, text: &str) -> Result<Square, ParseError> {
    Square::parse(text).ok_or_else(|| {
        ParseError::new(
            "step",
            step,
            format!("{} is not a square of the board", super::error::quote(text)),
        )
    })
}

impl FromStr for Step {
    type Err = ParseError;

    /// Reads one step: `d4-e6`, `e8=e9`, `f6>g8`, `e10>e15>e11`, `xg7`.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        if let Some(square) = text.strip_prefix('x') {
            return Ok(Step::Remove(parse_square(text, square)?));
        }
        let Some(at) = text.find(['-', '=', '>']) else {
            return Err(ParseError::new(
                "step",
                text,
                "expected from-to, from=to, from>to, from>keeper>to or x<square>",
            ));
        };
        let from = parse_square(text, &text[..at])?;
        let rest = &text[at + 1..];
        match text.as_bytes()[at] {
            b'-' => Ok(Step::Move {
                from,
                to: parse_square(text, rest)?,
            }),
            b'=' => Ok(Step::Carry {
                from,
                to: parse_square(text, rest)?,
            }),
            _ => match rest.split_once('>') {
                None => Ok(Step::Shoot {
                    from,
                    to: parse_square(text, rest)?,
                }),
                Some((keeper, to)) => Ok(Step::Ricochet {
                    from,
                    keeper: parse_square(text, keeper)?,
                    to: parse_square(text, to)?,
                }),
            },
        }
    }
}

impl FromStr for Turn {
    type Err = ParseError;

    /// Reads a turn: steps separated by single spaces. The empty text is a turn of no steps, which
    /// is well formed but never legal.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        if text.is_empty() {
            return Ok(Turn(Vec::new()));
        }
        text.split(' ')
            .map(|token| {
                if token.is_empty() {
                    Err(ParseError::new(
                        "turn",
                        text,
                        "steps must be separated by single spaces",
                    ))
                } else {
                    token.parse()
                }
            })
            .collect::<Result<Vec<Step>, ParseError>>()
            .map(Turn)
    }
}
