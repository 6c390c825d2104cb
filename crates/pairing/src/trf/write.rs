//! Writing a tournament as TRF text.

use super::error::{MAX_PLAYERS, TrfError};
use super::file::UnfinishedRound;
use crate::tournament::{Colour, GameResult, Player, PointSystem, RoundEntry, Score, Tournament};

/// A value as one line of the file: CR and LF (which would end the line and start others, as
/// every TRF reader splits lines) become spaces, whatever a caller let through.
fn one_line(value: &str) -> String {
    value.replace(['\r', '\n'], " ")
}

fn points_text(p: Score) -> String {
    p.to_string()
}

/// Writes a tournament as TRF text (LF line ends; the columns of every `001` line are exact).
/// A field larger than `MAX_PLAYERS` is refused: its ranks would spill out of their columns and
/// the file would read back as a different tournament.
pub fn write(t: &Tournament) -> Result<String, TrfError> {
    write_unfinished(t, None)
}

/// [`write`] with the last round paired but not over: its games without a result yet are
/// written as programs save mid-round (`   8 w  `: opponent and colour, a blank result), after
/// the round's byes and finished games, which `t` holds. [`super::parse_with_notes`] reads such
/// a file back as the same [`UnfinishedRound`].
pub fn write_unfinished(
    t: &Tournament,
    unfinished: Option<&UnfinishedRound>,
) -> Result<String, TrfError> {
    if t.players.len() > MAX_PLAYERS {
        return Err(TrfError::TooManyPlayers {
            count: t.players.len(),
        });
    }
    let mut out = String::new();
    write_header(t, &mut out);
    write_players(t, unfinished, &mut out);
    write_settings(t, &mut out);
    Ok(out)
}

/// The tournament's details: `012`-`132`.
fn write_header(t: &Tournament, out: &mut String) {
    let line = |out: &mut String, tag: &str, value: &Option<String>| {
        if let Some(v) = value {
            out.push_str(&format!("{tag} {}\n", one_line(v)));
        }
    };
    for (tag, value) in [
        ("012", &t.info.name),
        ("022", &t.info.city),
        ("032", &t.info.federation),
        ("042", &t.info.start_date),
        ("052", &t.info.end_date),
    ] {
        line(out, tag, value);
    }
    if t.info.player_counts {
        let rated = t.players.iter().filter(|p| p.rating > 0).count();
        out.push_str(&format!("062 {}\n072 {rated}\n", t.players.len()));
    }
    for (tag, value) in [
        ("092", &t.info.kind),
        ("192", &t.info.system),
        ("102", &t.info.chief_arbiter),
    ] {
        line(out, tag, value);
    }
    for d in &t.info.deputies {
        out.push_str(&format!("112 {}\n", one_line(d)));
    }
    if let Some(v) = &t.info.time_control {
        out.push_str(&format!("122 {}\n", one_line(v)));
    }
    let dates = &t.info.round_dates;
    if dates
        .iter()
        .all(|d| d.chars().count() <= 8 && !d.contains(char::is_whitespace))
    {
        if !dates.is_empty() {
            // Round r's date in columns 92 + 10 (r - 1) to 99 + 10 (r - 1), as the `001` rounds.
            let mut line = format!("{:<91}", "132");
            for date in dates {
                line.push_str(&format!("{:<8}  ", one_line(date)));
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
    } else {
        // Longer dates as read word by word (`132 2026/03/01 2026/03/02`): a date cut to its
        // columns would be another date.
        let words: Vec<String> = dates.iter().map(|d| one_line(d).replace(' ', "")).collect();
        out.push_str(&format!("132 {}\n", words.join(" ")));
    }
}

/// One `001` line per player (with `XXC rank`, in that order), with the unfinished round's
/// pairings.
fn write_players(t: &Tournament, unfinished: Option<&UnfinishedRound>, out: &mut String) {
    // Final rank: score, then starting rank (ties are allowed by the format; we do not break
    // them by tie-breaks here).
    let mut order: Vec<&Player> = t.players.iter().collect();
    order.sort_by_key(|p| (std::cmp::Reverse(t.score(p.id)), p.id));
    let mut rank_of = vec![0u32; t.players.len()];
    for (i, p) in order.iter().enumerate() {
        rank_of[p.id.0 as usize - 1] = i as u32 + 1;
    }
    // With an `XXC rank` order, the `001` lines are that order.
    for p in t
        .indices_in_pairing_order()
        .into_iter()
        .map(|i| &t.players[i])
    {
        let rating = if p.rating == 0 {
            String::new()
        } else {
            p.rating.to_string()
        };
        let name: String = one_line(&p.name).chars().take(33).collect();
        // The points end in column 84 (columns 81-84, `dd.d`). A score of 100 points or more
        // does not fit: it spills left over the blank birth date (70-79) rather than right,
        // which would move every round column and make the file unreadable.
        let mut line = format!(
            "001 {:>4} {:1}{:>3} {:<33} {:>4} {:>3} {:>11} {:>15} {:>4}",
            p.id.0,
            "",
            "",
            name,
            rating,
            "",
            "",
            points_text(t.score(p.id)),
            rank_of[p.id.0 as usize - 1],
        );
        for e in &p.entries {
            line.push_str("  ");
            line.push_str(&entry_text(e));
        }
        let pending = unfinished.and_then(|u| {
            u.games.iter().find_map(|&(white, black)| {
                if white == p.id {
                    Some((u.round, black, 'w'))
                } else if black == p.id {
                    Some((u.round, white, 'b'))
                } else {
                    None
                }
            })
        });
        if let Some((round, opponent, colour)) = pending {
            for _ in p.entries.len() as u32 + 1..round {
                line.push_str("  ");
                line.push_str(&entry_text(&RoundEntry::NotPaired));
            }
            line.push_str(&format!("  {:>4} {colour}  ", opponent.0));
        }
        // A last round without a pairing (`0000 -  `) or a result (`   8 w  `) keeps its blank
        // result column: a line that stops inside a round's eight columns is malformed to
        // bbpPairings.
        if pending.is_some() || p.entries.last() == Some(&RoundEntry::NotPaired) {
            out.push_str(&line);
        } else {
            out.push_str(line.trim_end());
        }
        out.push('\n');
    }
}

/// Rounds, colours, the point system, withdrawals, accelerations and forbidden pairs.
fn write_settings(t: &Tournament, out: &mut String) {
    out.push_str(&format!("XXR {}\n", t.total_rounds));
    let c = match t.initial_colour {
        Colour::White => "white1",
        Colour::Black => "black1",
    };
    let rank = if t.pairing_order.is_some() {
        "rank "
    } else {
        ""
    };
    out.push_str(&format!("XXC {rank}{c}\n"));
    // The same in TRF-2026's own lines (142 rounds, 152 initial colour, 162 point system), so
    // that a program reading only those need not guess.
    out.push_str(&format!("142 {}\n", t.total_rounds));
    out.push_str(match t.initial_colour {
        Colour::White => "152 W\n",
        Colour::Black => "152 B\n",
    });
    // `162` in its fixed columns (a code every nine from column 6, its points in the four after
    // it), as TRF-2026 lays it out and bbpPairings requires. An absence (`A`) worth 0 is left
    // out: that is every reader's default, and bbpPairings knows only its own `Z` for it.
    let ps = &t.points;
    let mut fields = vec![('W', ps.win), ('D', ps.draw), ('L', ps.loss)];
    if ps.zero_bye == ps.forfeit_loss && ps.zero_bye != 0 {
        fields.push(('A', ps.zero_bye));
    }
    fields.push(('P', ps.pab));
    let mut system = String::from("162 ");
    for (code, points) in fields {
        system.push_str(&format!(" {code}{:>4}   ", Score(points).to_string()));
    }
    out.push_str(system.trim_end());
    out.push('\n');
    let (ps, usual) = (&t.points, PointSystem::default());
    for (tag, value, default) in [
        ("BBW", ps.win, usual.win),
        ("BBD", ps.draw, usual.draw),
        ("BBL", ps.loss, usual.loss),
        ("BBZ", ps.zero_bye, usual.zero_bye),
        ("BBF", ps.forfeit_loss, usual.forfeit_loss),
        ("BBU", ps.pab, ps.win),
    ] {
        // The value in columns 5-12, as bbpPairings reads these lines (it refuses `BBZ 0.5`).
        if value != default {
            out.push_str(&format!("{tag} {:>4}\n", Score(value).to_string()));
        }
    }
    for p in &t.players {
        if let Some(r) = p.withdrawn_from {
            out.push_str(&format!("XXW {} {}\n", p.id.0, r));
        }
    }
    for p in &t.players {
        if !p.accelerations.is_empty() {
            let values: Vec<String> = p
                .accelerations
                .iter()
                .map(|&a| format!("{:>4}", Score(a).to_string()))
                .collect();
            out.push_str(&format!("XXA {:>4} {}\n", p.id.0, values.join(" ")));
        }
    }
    for group in &t.forbidden {
        let ids: Vec<String> = group.players.iter().map(|id| id.0.to_string()).collect();
        match group.rounds {
            None => out.push_str(&format!("XXP {}\n", ids.join(" "))),
            Some((first, last)) => {
                let ids: Vec<String> = ids.iter().map(|id| format!("{id:>4}")).collect();
                out.push_str(&format!("260 {first:03} {last:03} {}\n", ids.join(" ")));
            }
        }
    }
}

fn colour_char(c: Option<Colour>) -> char {
    match c {
        Some(Colour::White) => 'w',
        Some(Colour::Black) => 'b',
        None => '-',
    }
}

/// The eight characters of one round (columns 92–99 for round 1).
fn entry_text(e: &RoundEntry) -> String {
    let (opp, colour, result) = match *e {
        RoundEntry::Game {
            opponent,
            colour,
            result,
            rated,
        } => {
            let code = match (result, rated) {
                (GameResult::Win, true) => '1',
                (GameResult::Draw, true) => '=',
                (GameResult::Loss, true) => '0',
                (GameResult::Win, false) => 'W',
                (GameResult::Draw, false) => 'D',
                (GameResult::Loss, false) => 'L',
            };
            (opponent.0, Some(colour), code)
        }
        RoundEntry::Forfeit {
            opponent,
            colour,
            won,
        } => (opponent.0, colour, if won { '+' } else { '-' }),
        RoundEntry::PairingBye => (0, None, 'U'),
        RoundEntry::FullPointBye => (0, None, 'F'),
        RoundEntry::HalfPointBye => (0, None, 'H'),
        RoundEntry::ZeroPointBye => (0, None, 'Z'),
        RoundEntry::NotPaired => (0, None, ' '),
    };
    format!("{:04} {} {}", opp, colour_char(colour), result)
}
