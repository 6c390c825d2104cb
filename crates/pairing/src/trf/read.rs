//! Reading a TRF file: its bytes as text, its lines, then the players' records against each
//! other, the settings applied and the points column checked.

use super::decode::decode_borrowed;
use super::encoding::Encoding;
use super::error::TrfError;
use super::file::{ReadOptions, TrfFile, TrfNote, UnfinishedRound};
use super::lines::{LineNotes, Lines, baku_accelerations};
use super::points;
use super::record::{Cell, RawRecord};
use crate::tournament::{Colour, Player, RoundEntry, StartRank, Tournament};

/// Reads a TRF file's bytes (see the module notes).
pub fn read(bytes: &[u8], options: &ReadOptions) -> Result<TrfFile, TrfError> {
    let (text, used) = decode_borrowed(bytes, options.encoding)?;
    let mut file = read_text(&text, options)?;
    if options.encoding.is_none() && matches!(used, Encoding::Windows1252) {
        file.notes.insert(
            0,
            TrfNote {
                line: 0,
                text: "the file is not UTF-8: read as Windows-1252 (Latin-1); name the encoding if it is another".to_string(),
            },
        );
    } else if options.encoding.is_none() && used != Encoding::Utf8 {
        file.notes.insert(
            0,
            TrfNote {
                line: 0,
                text: format!("read as {used} (byte-order mark)"),
            },
        );
    }
    Ok(file)
}

/// Parses a TRF text into a tournament whose rounds all have results (the points column must
/// agree with them).
pub fn parse(text: &str) -> Result<Tournament, TrfError> {
    parse_with_notes(text).map(|(t, _)| t)
}

/// Parses a TRF text and also returns notes about the lines that were ignored.
pub fn parse_with_notes(text: &str) -> Result<(Tournament, Vec<TrfNote>), TrfError> {
    let file = read_text(text, &ReadOptions::default())?;
    let notes = file.notes.clone();
    file.finished().map(|t| (t, notes))
}

/// Reads a TRF text (see the module notes); the encoding option is not used.
pub fn read_text(text: &str, options: &ReadOptions) -> Result<TrfFile, TrfError> {
    let mut lines = Lines::read(text)?;
    let records = std::mem::take(&mut lines.records);
    let pairing_order = lines
        .rank_order
        .then(|| records.iter().map(|(_, p, _)| p.id).collect::<Vec<_>>());
    let columns_by_rank: Vec<(u32, Option<u32>)> = records
        .iter()
        .map(|(_, p, raw)| (p.id.0, raw.points))
        .collect();
    let (mut players, unfinished) = players(records)?;
    for &(line_no, rank, round) in &lines.withdrawals {
        let p = (rank as usize)
            .checked_sub(1)
            .and_then(|i| players.get_mut(i))
            .ok_or_else(|| TrfError::BadWithdrawal {
                line: line_no,
                text: format!("{rank} {round}"),
            })?;
        p.withdrawn_from = Some(round);
    }
    let longest = players
        .iter()
        .map(|p| p.entries.len() as u32)
        .max()
        .unwrap_or(0);
    let initial_colour = lines
        .initial
        .unwrap_or_else(|| inferred_initial_colour(&players));
    let total_rounds = lines.rounds.unwrap_or(longest);
    if lines.baku && lines.accelerations.is_empty() {
        // As bbpPairings, only up to the round to be paired: later rounds' values do not count
        // yet (and `XXR` may be any number).
        let rounds = total_rounds.min(longest + 1);
        // The top half in pairing order: with `XXC rank`, the `001` lines' order.
        let order: Vec<u32> = match &pairing_order {
            Some(order) => order.iter().map(|id| id.0).collect(),
            None => players.iter().map(|p| p.id.0).collect(),
        };
        lines.accelerations = baku_accelerations(&lines.points, &order, total_rounds, rounds)?;
    }
    for a in lines.accelerations {
        a.apply(&mut players);
    }
    let mut tournament = Tournament {
        forbidden: lines.forbidden,
        info: lines.info,
        total_rounds,
        initial_colour,
        points: lines.points,
        players,
        pairing_order,
    };
    let mut line_notes = lines.notes;
    enter_byes(&mut tournament, lines.byes, &mut line_notes);
    let mut notes = line_notes.finish();
    let mut columns = vec![None; tournament.players.len()];
    for (rank, column) in columns_by_rank {
        columns[rank as usize - 1] = column;
    }
    let unfinished_round = unfinished.as_ref().map(|u| u.round);
    let mut wrong = points::mismatches(&tournament, &columns, unfinished_round);
    let blank = points::blank_half_point_byes(&tournament, &wrong, unfinished_round);
    if options.blank_as_half_point_bye
        && !wrong.is_empty()
        && let Some(rounds) = &blank
    {
        for (player, round) in rounds {
            tournament.set_entry(*player, *round, RoundEntry::HalfPointBye);
        }
        notes.push(TrfNote {
            line: 0,
            text: format!(
                "{} unpaired rounds read as half-point byes, as the points column counts them",
                rounds.len()
            ),
        });
        wrong = points::mismatches(&tournament, &columns, unfinished_round);
    }
    if !wrong.is_empty() {
        if options.recompute_points {
            notes.push(TrfNote {
                line: 0,
                text: format!(
                    "the points column of {} players disagrees with the results; scored by the results",
                    wrong.len()
                ),
            });
        } else {
            return Err(TrfError::PointsDisagree {
                system: points::system_text(&tournament.points),
                explained_by: points::explaining_system(&tournament, &columns, unfinished_round)
                    .map(|ps| points::system_text(&ps)),
                blank_byes: blank.map(|rounds| rounds.len()),
                players: wrong,
            });
        }
    }
    Ok(TrfFile {
        tournament,
        notes,
        unfinished,
    })
}

/// The players in starting-rank order, their round cells resolved (every rank from 1 to the
/// number of records exactly once), and the unfinished round, if any.
fn players(
    records: Vec<(usize, Player, RawRecord)>,
) -> Result<(Vec<Player>, Option<UnfinishedRound>), TrfError> {
    if records.is_empty() {
        return Err(TrfError::NoPlayers);
    }
    let count = records.len();
    // The first rank without a record (1, 2, 4 in a file of three: 3).
    let missing = || {
        let present: std::collections::HashSet<u32> =
            records.iter().map(|(_, p, _)| p.id.0).collect();
        (1..).find(|r| !present.contains(r)).unwrap_or(1)
    };
    if records
        .iter()
        .any(|(_, p, _)| p.id.0 == 0 || p.id.0 as usize > count)
    {
        return Err(TrfError::MissingPlayer {
            count,
            missing: missing(),
        });
    }
    let mut slots: Vec<Option<(usize, Player, RawRecord)>> = vec![None; count];
    for (line_no, player, raw) in records {
        let rank = player.id.0;
        let slot = (rank as usize)
            .checked_sub(1)
            .and_then(|i| slots.get_mut(i))
            .ok_or(TrfError::MissingPlayer { count, missing: 1 })?;
        if slot.is_some() {
            return Err(TrfError::DuplicatePlayer {
                line: line_no,
                rank,
            });
        }
        *slot = Some((line_no, player, raw));
    }
    let mut players = Vec::with_capacity(count);
    // Games without a result: (line, round, player, opponent, colour).
    let mut pending = Vec::new();
    for (i, slot) in slots.into_iter().enumerate() {
        let Some((line_no, mut player, raw)) = slot else {
            return Err(TrfError::MissingPlayer {
                count,
                missing: i as u32 + 1,
            });
        };
        for (r, e) in raw.cells.into_iter().enumerate() {
            let round = r as u32 + 1;
            match e.resolve(line_no, round, player.id.0, count as u32)? {
                Cell::Entry(entry) => player.entries.push(entry),
                Cell::Pending { opponent, colour } => {
                    pending.push((line_no, round, player.id, opponent, colour));
                    // Only blank cells may follow (checked below, with the other players'
                    // later rounds).
                    player.entries.push(RoundEntry::NotPaired);
                }
            }
        }
        players.push(player);
    }
    let unfinished = unfinished_round(&mut players, pending)?;
    Ok((players, unfinished))
}

/// The round of the games without a result (at most one, the last with a pairing in it):
/// their players' entries for it and after are taken out (they are blank), and each game must
/// be mirrored by its opponent's record.
fn unfinished_round(
    players: &mut [Player],
    pending: Vec<(usize, u32, StartRank, StartRank, Colour)>,
) -> Result<Option<UnfinishedRound>, TrfError> {
    let Some(round) = pending.iter().map(|p| p.1).max() else {
        return Ok(None);
    };
    let last_with_results = players
        .iter()
        .filter_map(|p| p.entries.iter().rposition(RoundEntry::is_pairing))
        .map(|i| i as u32 + 1)
        .max()
        .unwrap_or(0);
    for &(line, r, _, opponent, _) in &pending {
        if r < round || r < last_with_results {
            return Err(TrfError::UnfinishedNotLast {
                line,
                round: r,
                opponent: opponent.0,
            });
        }
    }
    // Every pending game is of `round` now, so a player has at most one: its opponent and
    // colour by player, for a lookup instead of a scan of every other pending game.
    let mut game_of: Vec<Option<(StartRank, Colour)>> = vec![None; players.len()];
    for &(_, _, me, opponent, colour) in &pending {
        game_of[me.index()] = Some((opponent, colour));
    }
    let mut games = Vec::new();
    for &(line, _, me, opponent, colour) in &pending {
        let mirrored = game_of[opponent.index()] == Some((me, colour.opposite()));
        if !mirrored {
            return Err(TrfError::UnfinishedMismatch {
                line,
                round,
                player: me.0,
                opponent: opponent.0,
            });
        }
        if colour == Colour::White {
            games.push((me, opponent));
        }
        let p = &mut players[me.index()];
        p.entries.truncate(round as usize - 1);
    }
    games.sort();
    Ok(Some(UnfinishedRound { round, games }))
}

/// Without `XXC`, the initial colour as bbpPairings infers it from round 1: the round-1 colour
/// of the highest player who took part in the pairing; if that one has no colour listed (the
/// PAB), the next one's, reversed, and so on.
fn inferred_initial_colour(players: &[Player]) -> Colour {
    players
        .iter()
        .filter(|p| p.entry(1).is_some_and(RoundEntry::is_pairing))
        .enumerate()
        .find_map(|(k, p)| {
            let c = match p.entry(1) {
                Some(RoundEntry::Game { colour, .. }) => Some(*colour),
                Some(RoundEntry::Forfeit { colour, .. }) => *colour,
                _ => None,
            }?;
            Some(if k % 2 == 0 { c } else { c.opposite() })
        })
        .unwrap_or(Colour::White)
}

/// `240` byes become entries of the round to be paired; a bye for another round, or of a
/// player not registered, is noted and not kept (as bbpPairings does).
fn enter_byes(
    tournament: &mut Tournament,
    byes: Vec<(usize, u32, StartRank, RoundEntry)>,
    notes: &mut LineNotes,
) {
    let next = tournament.rounds_paired() + 1;
    for (line, round, id, entry) in byes {
        let p = (id.0 as usize)
            .checked_sub(1)
            .and_then(|i| tournament.players.get_mut(i));
        match p {
            Some(p) if round == next && p.entries.len() < round as usize => {
                p.entries
                    .resize(round as usize - 1, RoundEntry::NotPaired);
                p.entries.push(entry);
            }
            Some(_) if round == next => {}
            Some(_) => notes.push(line, || {
                format!("bye of player {id} in round {round} is not for the round to pair ({next}); not kept")
            }),
            None => notes.push(line, || {
                format!("bye of player {id}, who is not registered; not kept")
            }),
        }
    }
}
