//! A `001` player record: its columns, and each round's cell resolved into an entry.

use super::error::TrfError;
use super::numbers::{number, points_column};
use crate::tournament::{Colour, GameResult, Player, RoundEntry, StartRank};

/// A `001` line's columns before they are checked against the other players.
#[derive(Clone, Debug, Default)]
pub(super) struct RawRecord {
    /// The points column (81–84), in tenths; `None` when blank.
    pub(super) points: Option<u32>,
    pub(super) cells: Vec<RawEntry>,
}

/// One round's columns before the opponent is checked against the player list.
#[derive(Clone, Copy, Debug)]
pub(super) struct RawEntry {
    opponent: u32,
    colour: char,
    result: char,
}

/// One round of a player's record.
pub(super) enum Cell {
    Entry(RoundEntry),
    /// A game paired whose result is not in yet (result column blank).
    Pending {
        opponent: StartRank,
        colour: Colour,
    },
}

impl RawEntry {
    pub(super) fn resolve(
        self,
        line: usize,
        round: u32,
        me: u32,
        count: u32,
    ) -> Result<Cell, TrfError> {
        if self.opponent != 0 && self.result == ' ' && self.opponent <= count && self.opponent != me
        {
            let colour = match self.colour {
                'w' | 'W' => Colour::White,
                'b' | 'B' => Colour::Black,
                _ => {
                    return Err(TrfError::GameWithoutColour {
                        line,
                        round,
                        opponent: self.opponent,
                    });
                }
            };
            return Ok(Cell::Pending {
                opponent: StartRank(self.opponent),
                colour,
            });
        }
        self.resolve_entry(line, round, me, count).map(Cell::Entry)
    }

    fn resolve_entry(
        self,
        line: usize,
        round: u32,
        me: u32,
        count: u32,
    ) -> Result<RoundEntry, TrfError> {
        let colour = match self.colour {
            'w' | 'W' => Some(Colour::White),
            'b' | 'B' => Some(Colour::Black),
            '-' | ' ' => None,
            code => return Err(TrfError::UnknownColour { line, round, code }),
        };
        let code = self.result.to_ascii_uppercase();
        if self.opponent == 0 {
            return match code {
                'U' => Ok(RoundEntry::PairingBye),
                'F' | '+' => Ok(RoundEntry::FullPointBye),
                'H' | '=' => Ok(RoundEntry::HalfPointBye),
                'Z' | '-' => Ok(RoundEntry::ZeroPointBye),
                ' ' => Ok(RoundEntry::NotPaired),
                '1' | '0' | 'W' | 'D' | 'L' => {
                    Err(TrfError::ResultWithoutOpponent { line, round, code })
                }
                code => Err(TrfError::UnknownResult { line, round, code }),
            };
        }
        if self.opponent > count {
            return Err(TrfError::UnknownOpponent {
                line,
                round,
                opponent: self.opponent,
            });
        }
        if self.opponent == me {
            return Err(TrfError::SelfPairing {
                line,
                round,
                player: me,
            });
        }
        let opponent = StartRank(self.opponent);
        let game = |result, rated| match colour {
            Some(colour) => Ok(RoundEntry::Game {
                opponent,
                colour,
                result,
                rated,
            }),
            None => Err(TrfError::GameWithoutColour {
                line,
                round,
                opponent: self.opponent,
            }),
        };
        match code {
            '1' => game(GameResult::Win, true),
            '=' => game(GameResult::Draw, true),
            '0' => game(GameResult::Loss, true),
            'W' => game(GameResult::Win, false),
            'D' => game(GameResult::Draw, false),
            'L' => game(GameResult::Loss, false),
            '+' => Ok(RoundEntry::Forfeit {
                opponent,
                colour,
                won: true,
            }),
            '-' => Ok(RoundEntry::Forfeit {
                opponent,
                colour,
                won: false,
            }),
            'U' | 'F' | 'H' | 'Z' | ' ' => Err(TrfError::ByeWithOpponent {
                line,
                round,
                code,
                opponent: self.opponent,
            }),
            code => Err(TrfError::UnknownResult { line, round, code }),
        }
    }
}

/// Characters of a line by 1-based column, blank past the end.
fn column(chars: &[char], col: usize) -> char {
    chars.get(col - 1).copied().unwrap_or(' ')
}

pub(super) fn columns(chars: &[char], from: usize, to: usize) -> String {
    (from..=to)
        .map(|c| column(chars, c))
        .collect::<String>()
        .trim()
        .to_string()
}

/// [`columns`] in `buffer`, without allocating once the buffer holds a few characters.
fn columns_into<'b>(chars: &[char], from: usize, to: usize, buffer: &'b mut String) -> &'b str {
    buffer.clear();
    buffer.extend((from..=to).map(|c| column(chars, c)));
    buffer.trim()
}

pub(super) fn parse_player(
    line_no: usize,
    line: &str,
) -> Result<(usize, Player, RawRecord), TrfError> {
    let chars: Vec<char> = line.chars().collect();
    if chars.len() < 8 {
        return Err(TrfError::ShortPlayerLine {
            line: line_no,
            len: chars.len(),
        });
    }
    let rank = number(line_no, "starting rank", &columns(&chars, 5, 8))?;
    // A control character (a tab, an escape sequence) is no part of a name: shown as U+FFFD,
    // never sent to a terminal or page as it is.
    let name: String = columns(&chars, 15, 47)
        .chars()
        .map(|c| if c.is_control() { '\u{FFFD}' } else { c })
        .collect();
    let rating_text = columns(&chars, 49, 52);
    let rating = if rating_text.is_empty() {
        0
    } else {
        number(line_no, "rating", &rating_text)?
    };
    let mut raw = Vec::with_capacity(chars.len().saturating_sub(91).div_ceil(10));
    let mut start = 92;
    // One buffer for every round's opponent, not a string a round.
    let mut buffer = String::new();
    while start <= chars.len() {
        let opp_text = columns_into(&chars, start, start + 3, &mut buffer);
        let colour = column(&chars, start + 5);
        let result = column(&chars, start + 7);
        let opponent = if opp_text.is_empty() {
            0
        } else {
            number(line_no, "opponent", opp_text)?
        };
        raw.push(RawEntry {
            opponent,
            colour,
            result,
        });
        start += 10;
    }
    // A score of 100 points or more spills left of column 81 (this writer, as others, moves it
    // left rather than shift the rounds); some programs write a decimal comma (`4,5`).
    let mut from = 81;
    while from > 71 && matches!(column(&chars, from - 1), '0'..='9' | '.' | ',') {
        from -= 1;
    }
    let points_text = columns(&chars, from, 84).replace(',', ".");
    let points = if points_text.is_empty() {
        None
    } else {
        Some(points_column(line_no, &points_text)?)
    };
    let mut player = Player::new(StartRank(rank), name, rating);
    player.entries.reserve(raw.len());
    Ok((line_no, player, RawRecord { points, cells: raw }))
}
