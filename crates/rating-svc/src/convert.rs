//! Protobuf messages to domain types and back: every conversion of this service in one file.

use crate::store::{Change, EventRow, NewEvent, Points, RatingRow};
use hanniball_ids::TimeControl;
use hanniball_ids::{GameId, PlayerId, Timestamp};
use hanniball_proto::arbiter::v1 as apb;
use hanniball_proto::rating::v1 as pb;
use hanniball_rating::{Rating, Score, System};
use hanniball_rules::GameKind;

use crate::error::{ServiceError, ServiceResult};
use crate::ladders::{self, Ladders};

/// A finished game as both feeds give it (the arbiter's outbox and `RecordResult`).
#[derive(Clone, Debug, PartialEq)]
pub struct GameResult {
    pub game_id: i64,
    pub kind: String,
    pub white: i64,
    pub black: i64,
    /// White's score; `None` for an aborted game.
    pub white_score: Option<Score>,
    pub finished_at_ms: i64,
    /// Rated when played: the game was created rated (or reported as a rated result).
    pub rated: bool,
    /// Counts as played ([`hanniball_ids::counts_as_played`]); unplayed games change no
    /// rating.
    pub played: bool,
    pub time_control: Option<TimeControl>,
    /// 0: the game's result as it ended; n: its n-th correction, made at `corrected_at_ms`.
    pub correction: u32,
    pub corrected_at_ms: i64,
}

fn invalid(message: String) -> ServiceError {
    ServiceError::InvalidArgument(message)
}

impl GameResult {
    /// The event to record, or `None` for an unrated or aborted game (which changes nothing).
    pub fn event(&self, ladders: &Ladders) -> ServiceResult<Option<NewEvent>> {
        if self.game_id <= 0 {
            return Err(invalid(format!(
                "game_id must be positive, not {}",
                self.game_id
            )));
        }
        if self.white <= 0 || self.black <= 0 {
            return Err(invalid(format!(
                "player ids must be positive, not {} and {}",
                self.white, self.black
            )));
        }
        if self.white == self.black {
            return Err(invalid(format!(
                "player {} cannot play against themselves",
                self.white
            )));
        }
        let kind: GameKind = self
            .kind
            .parse()
            .map_err(|e: hanniball_rules::SetupError| invalid(e.to_string()))?;
        if let Some(tc) = self.time_control
            && (tc.initial_ms < 0 || tc.increment_ms < 0)
        {
            return Err(invalid(format!(
                "time control needs initial_ms and increment_ms >= 0, got {} and {}",
                tc.initial_ms, tc.increment_ms
            )));
        }
        if !self.rated {
            return Ok(None);
        }
        let score = self.white_score.filter(|_| self.played);
        if self.correction > 0 {
            // A correction takes back what the game left, even if the new result is not rated.
            return Ok(Some(NewEvent {
                ladder: ladders.of_game(kind, self.time_control),
                at: Timestamp(self.corrected_at_ms.max(self.finished_at_ms)),
                change: Change::Correction {
                    game_id: GameId(self.game_id),
                    first: PlayerId(self.white),
                    second: PlayerId(self.black),
                    correction: self.correction,
                    score,
                    previous: None,
                },
            }));
        }
        let Some(score) = score else {
            return Ok(None);
        };
        Ok(Some(NewEvent {
            ladder: ladders.of_game(kind, self.time_control),
            at: Timestamp(self.finished_at_ms),
            change: Change::Game {
                game_id: GameId(self.game_id),
                first: PlayerId(self.white),
                second: PlayerId(self.black),
                score,
            },
        }))
    }
}

fn time_control(tc: Option<&pb::TimeControl>) -> Option<TimeControl> {
    tc.map(|tc| TimeControl {
        initial_ms: tc.initial_ms,
        increment_ms: tc.increment_ms,
    })
}

/// A `RecordResult` request.
pub fn record_request(r: &pb::RecordResultRequest) -> ServiceResult<GameResult> {
    let white_score = match pb::Outcome::try_from(r.outcome) {
        Ok(pb::Outcome::WhiteWins) => Some(Score::Win),
        Ok(pb::Outcome::BlackWins) => Some(Score::Loss),
        Ok(pb::Outcome::Draw) => Some(Score::Draw),
        Ok(pb::Outcome::None) => None,
        Ok(pb::Outcome::Unspecified) | Err(_) => {
            return Err(invalid(format!(
                "outcome {} is not a result (white wins, black wins, draw or none)",
                r.outcome
            )));
        }
    };
    Ok(GameResult {
        game_id: r.game_id,
        kind: r.kind.clone(),
        white: r.white_player_id,
        black: r.black_player_id,
        white_score,
        finished_at_ms: r.finished_at_ms,
        rated: r.rated,
        played: true,
        time_control: time_control(r.time_control.as_ref()),
        correction: 0,
        corrected_at_ms: 0,
    })
}

/// Whether a finished game counts as played ([`hanniball_ids::counts_as_played`]).
fn played(game: &apb::FinishedGame) -> bool {
    let forfeit = game
        .result
        .as_ref()
        .is_some_and(|r| r.reason() == apb::EndReason::Forfeit);
    let over_the_board = game
        .result
        .as_ref()
        .is_some_and(|r| r.reason() == apb::EndReason::OverTheBoard);
    hanniball_ids::counts_as_played(game.turns_played, forfeit, over_the_board)
}

/// A game from the arbiter's results outbox.
pub fn finished_game(game: &apb::FinishedGame) -> ServiceResult<GameResult> {
    let outcome = game.result.as_ref().map_or(0, |r| r.outcome);
    let white_score = match apb::Outcome::try_from(outcome) {
        Ok(apb::Outcome::WhiteWins) => Some(Score::Win),
        Ok(apb::Outcome::BlackWins) => Some(Score::Loss),
        Ok(apb::Outcome::Draw) => Some(Score::Draw),
        Ok(apb::Outcome::None) => None,
        Ok(apb::Outcome::Unspecified) | Err(_) => {
            return Err(invalid(format!(
                "finished game {} has no outcome ({outcome})",
                game.game_id
            )));
        }
    };
    Ok(GameResult {
        game_id: game.game_id,
        kind: game.kind.clone(),
        white: game.white_player_id,
        black: game.black_player_id,
        white_score,
        finished_at_ms: game.finished_at_ms,
        rated: game.rated,
        // Played games only (README, "What is rated"): a forfeit, or a game in which a side never
        // made a turn, is not rated whatever the game was created as.
        played: played(game),
        time_control: game.time_control.as_ref().map(|tc| TimeControl {
            initial_ms: tc.initial_ms,
            increment_ms: tc.increment_ms,
        }),
        correction: game.correction,
        corrected_at_ms: game.corrected_at_ms,
    })
}

pub fn score(score: Score) -> i32 {
    match score {
        Score::Win => pb::Score::Win as i32,
        Score::Draw => pb::Score::Draw as i32,
        Score::Loss => pb::Score::Loss as i32,
    }
}

/// A rating for the wire, as shown at `now_ms` (Glicko-2 deviations grow while idle).
pub fn player_rating(
    system: &System,
    ladder: &str,
    player: PlayerId,
    name: &str,
    stored: &Rating,
    rank: u64,
    now_ms: i64,
) -> pb::PlayerRating {
    let shown = system.current(stored, ladders::seconds(Timestamp(now_ms)));
    pb::PlayerRating {
        player_id: player.0,
        name: name.to_owned(),
        ladder: ladder.to_owned(),
        rating: shown.rating,
        deviation: shown.deviation,
        volatility: shown.volatility,
        provisional: system.provisional(&shown),
        games: shown.games,
        wins: shown.wins,
        draws: shown.draws,
        losses: shown.losses,
        peak: shown.peak,
        rank,
        last_played_ms: shown.last_played.map_or(0, |s| s.saturating_mul(1000)),
    }
}

/// A leaderboard entry.
pub fn entry(system: &System, row: &RatingRow, rank: u64, now_ms: i64) -> pb::LeaderboardEntry {
    let shown = system.current(&row.rating, ladders::seconds(Timestamp(now_ms)));
    pb::LeaderboardEntry {
        rank,
        player_id: row.player.0,
        name: row.name.clone().unwrap_or_default(),
        rating: shown.rating,
        deviation: shown.deviation,
        games: shown.games,
        provisional: system.provisional(&shown),
    }
}

/// White's and black's changes from a game's points.
pub fn changes(
    event: &NewEvent,
    points: Option<&Points>,
) -> (Option<pb::RatingChange>, Option<pb::RatingChange>) {
    let (Some(points), Some(second)) = (points, event.change.second()) else {
        return (None, None);
    };
    (
        Some(pb::RatingChange {
            player_id: event.change.first().0,
            before: points.first_before,
            after: points.first_after,
        }),
        Some(pb::RatingChange {
            player_id: second.0,
            before: points.second_before.unwrap_or_default(),
            after: points.second_after.unwrap_or_default(),
        }),
    )
}

/// One point of `player`'s history; `names` gives opponents' names.
pub fn history_point(
    row: &EventRow,
    player: PlayerId,
    names: &std::collections::HashMap<PlayerId, String>,
) -> pb::HistoryPoint {
    let points = row.points.unwrap_or(Points {
        first_before: 0.0,
        first_after: 0.0,
        second_before: None,
        second_after: None,
    });
    match &row.event.change {
        Change::Correction {
            game_id,
            first,
            second,
            score: first_score,
            ..
        } => game_point(
            row,
            &points,
            player,
            names,
            (*game_id, *first, *second, *first_score),
            pb::PointKind::Correction,
        ),
        Change::Game {
            game_id,
            first,
            second,
            score: first_score,
        } => game_point(
            row,
            &points,
            player,
            names,
            (*game_id, *first, *second, Some(*first_score)),
            pb::PointKind::Game,
        ),
        Change::Adjustment { reason, .. } => pb::HistoryPoint {
            sequence: row.sequence,
            kind: pb::PointKind::Adjustment as i32,
            game_id: 0,
            opponent_id: 0,
            opponent_name: String::new(),
            score: pb::Score::Unspecified as i32,
            opponent_rating_before: 0.0,
            rating_before: points.first_before,
            rating_after: points.first_after,
            at_ms: row.event.at.0,
            reason: reason.clone(),
        },
    }
}

/// The history point of a game or of its correction, seen from `player`'s side: (game, first
/// player, second player, the first's score if rated).
fn game_point(
    row: &EventRow,
    points: &Points,
    player: PlayerId,
    names: &std::collections::HashMap<PlayerId, String>,
    (game_id, first, second, first_score): (GameId, PlayerId, PlayerId, Option<Score>),
    kind: pb::PointKind,
) -> pb::HistoryPoint {
    let (opponent, own_score, before, after, opponent_before) = if first == player {
        (
            second,
            first_score,
            points.first_before,
            points.first_after,
            points.second_before.unwrap_or_default(),
        )
    } else {
        (
            first,
            first_score.map(Score::reverse),
            points.second_before.unwrap_or_default(),
            points.second_after.unwrap_or_default(),
            points.first_before,
        )
    };
    pb::HistoryPoint {
        sequence: row.sequence,
        kind: kind as i32,
        game_id: game_id.0,
        opponent_id: opponent.0,
        opponent_name: names.get(&opponent).cloned().unwrap_or_default(),
        score: own_score.map_or(pb::Score::Unspecified as i32, score),
        opponent_rating_before: opponent_before,
        rating_before: before,
        rating_after: after,
        at_ms: row.event.at.0,
        reason: String::new(),
    }
}

/// An adjustment's audit record.
pub fn adjustment(row: &EventRow, name: &str) -> pb::Adjustment {
    let (reason, by) = match &row.event.change {
        Change::Adjustment { reason, actor, .. } => (reason.clone(), actor.clone()),
        Change::Game { .. } | Change::Correction { .. } => (String::new(), String::new()),
    };
    let points = row.points;
    pb::Adjustment {
        sequence: row.sequence,
        ladder: row.event.ladder.clone(),
        player_id: row.event.change.first().0,
        player_name: name.to_owned(),
        rating_before: points.map_or(0.0, |p| p.first_before),
        rating_after: points.map_or(0.0, |p| p.first_after),
        reason,
        by,
        at_ms: row.event.at.0,
    }
}
