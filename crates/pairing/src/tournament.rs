//! The tournament model: players, rounds and what happened to each player in each round.
//!
//! Pure data plus the derived history the pairing rules need (scores, colour histories, floats,
//! byes, who has met whom). Scores are kept in tenths of a point (the TRF's `dd.d`) so that no
//! float ever enters a pairing decision, under a [`PointSystem`] (1 / ½ / 0 unless the TRF's `162`
//! or `BBW`…`BBU` lines say otherwise).
//!
//! Decisions taken from the FIDE rules (C.04.1, C.04.2 of the edition applied from 1 February 2026):
//! - A forfeited pairing (`+`/`-`) is not a played game: it gives no colour (C.04.2 3.4) and the two
//!   players have not met, so they may be paired again (C.04.2 3.5).
//! - Games recorded with `W`/`D`/`L` ("not rated", the game lasted less than one move) were played
//!   over the board: they count for colours and for having met.
//! - A zero-point absence gives no float; a pairing-allocated bye, or any round scored above a loss
//!   without playing (full- or half-point bye, forfeit win), gives a downfloat (C.04.3 1.4.3).

use std::fmt;

/// A player's starting rank (TRF "starting rank", the tournament pairing number), 1-based.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct StartRank(pub u32);

impl fmt::Display for StartRank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl StartRank {
    /// The player's 0-based index (in `Tournament::players`, or a crosstable's records).
    pub(crate) fn index(self) -> usize {
        self.0 as usize - 1
    }

    /// The player at 0-based `index`.
    pub(crate) fn of(index: usize) -> StartRank {
        StartRank(u32::try_from(index + 1).expect("the player count was checked to fit"))
    }
}

/// A score in tenths of a point (a win is 10 under the usual point system, a draw 5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Score(pub u32);

impl Score {
    /// The score in half-points, rounded down (exact under point systems of whole and half
    /// points).
    pub fn half_points(self) -> u32 {
        self.0 / 5
    }
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.0 / 10, self.0 % 10)
    }
}

/// Points for each kind of round, in tenths of a point (TRF `162`, bbpPairings' `BBW` `BBD`
/// `BBL` `BBZ` `BBF` `BBU`). A full-point bye (`F`) and a forfeit win (`+`) score a win's points, a
/// half-point bye (`H`) a draw's, an absence (`Z`, blank) the zero-point bye's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PointSystem {
    pub win: u32,
    pub draw: u32,
    pub loss: u32,
    /// A forfeit loss (`-`).
    pub forfeit_loss: u32,
    /// A zero-point bye (`Z`) or a round without an entry.
    pub zero_bye: u32,
    /// The pairing-allocated bye (`U`).
    pub pab: u32,
}

impl Default for PointSystem {
    /// 1, ½, 0; a PAB is a win's points.
    fn default() -> Self {
        PointSystem {
            win: 10,
            draw: 5,
            loss: 0,
            forfeit_loss: 0,
            zero_bye: 0,
            pab: 10,
        }
    }
}

impl PointSystem {
    /// The usual system with a PAB worth `half_points` half-points (0, 1 or 2).
    pub fn with_pab_half_points(half_points: u32) -> Self {
        PointSystem {
            pab: half_points * 5,
            ..PointSystem::default()
        }
    }

    /// C.04.3 1.8: a topscorer has more than half the most points `played` rounds can give
    /// (as bbpPairings counts it: `played × max(win, draw) / 2`, rounded down).
    pub fn topscorer_above(&self, played: u32) -> u32 {
        played * self.win.max(self.draw) / 2
    }
}

/// The colour a player had (or gets) in a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Colour {
    White,
    Black,
}

impl Colour {
    /// The other colour.
    pub fn opposite(self) -> Colour {
        match self {
            Colour::White => Colour::Black,
            Colour::Black => Colour::White,
        }
    }
}

/// A game's result from one player's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    Win,
    Draw,
    Loss,
}

impl GameResult {
    /// The same game seen from the opponent's side.
    pub fn reversed(self) -> GameResult {
        match self {
            GameResult::Win => GameResult::Loss,
            GameResult::Draw => GameResult::Draw,
            GameResult::Loss => GameResult::Win,
        }
    }

    /// Points under a point system, in tenths.
    pub fn points(self, ps: &PointSystem) -> u32 {
        match self {
            GameResult::Win => ps.win,
            GameResult::Draw => ps.draw,
            GameResult::Loss => ps.loss,
        }
    }
}

/// What happened to one player in one round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RoundEntry {
    /// A game played over the board. `rated: false` is the TRF `W`/`D`/`L` (the game lasted less
    /// than one move); it still counts as played.
    Game {
        opponent: StartRank,
        colour: Colour,
        result: GameResult,
        rated: bool,
    },
    /// A pairing whose game was not played: `won` is the TRF `+` (forfeit win), otherwise `-`.
    /// The scheduled colour is kept for the report only; it is not colour history.
    Forfeit {
        opponent: StartRank,
        colour: Option<Colour>,
        won: bool,
    },
    /// TRF `U`: the pairing-allocated bye (points: [`PointSystem::pab`]).
    PairingBye,
    /// TRF `F`: a full-point bye (requested or awarded), one win's points without playing.
    FullPointBye,
    /// TRF `H`: a requested half-point bye.
    HalfPointBye,
    /// TRF `Z`: a zero-point bye (known absence).
    ZeroPointBye,
    /// Blank TRF columns: not paired (late entry, absence); zero points.
    NotPaired,
}

impl RoundEntry {
    /// The opponent of a played game, if any.
    pub fn played_opponent(&self) -> Option<StartRank> {
        match self {
            RoundEntry::Game { opponent, .. } => Some(*opponent),
            _ => None,
        }
    }

    /// The colour of a played game, if any.
    pub fn played_colour(&self) -> Option<Colour> {
        match self {
            RoundEntry::Game { colour, .. } => Some(*colour),
            _ => None,
        }
    }

    /// The paired opponent (played or forfeited), if any.
    pub fn paired_opponent(&self) -> Option<StartRank> {
        match self {
            RoundEntry::Game { opponent, .. } | RoundEntry::Forfeit { opponent, .. } => {
                Some(*opponent)
            }
            _ => None,
        }
    }

    /// Whether this entry is the result of pairing the round (a game, a forfeit or the PAB), as
    /// opposed to a bye or absence known before the pairing.
    pub fn is_pairing(&self) -> bool {
        matches!(
            self,
            RoundEntry::Game { .. } | RoundEntry::Forfeit { .. } | RoundEntry::PairingBye
        )
    }

    /// Points scored, in tenths, under a point system.
    pub fn points(&self, ps: &PointSystem) -> u32 {
        match self {
            RoundEntry::Game { result, .. } => result.points(ps),
            RoundEntry::Forfeit { won, .. } => {
                if *won {
                    ps.win
                } else {
                    ps.forfeit_loss
                }
            }
            RoundEntry::PairingBye => ps.pab,
            RoundEntry::FullPointBye => ps.win,
            RoundEntry::HalfPointBye => ps.draw,
            RoundEntry::ZeroPointBye | RoundEntry::NotPaired => ps.zero_bye,
        }
    }

    /// C.04.1 art. 4: a pairing-allocated bye, or a win's points (or more) scored without playing
    /// (a full-point bye or a forfeit win; a half-point bye does not count).
    pub fn blocks_pab(&self, ps: &PointSystem) -> bool {
        match self {
            RoundEntry::PairingBye => true,
            RoundEntry::Game { .. } => false,
            other => other.points(ps) >= ps.win,
        }
    }

    /// C.04.3 1.4.3 as bbpPairings reads it: a round without a game floats the player down when
    /// it scored more than a loss.
    pub fn unplayed_downfloat(&self, ps: &PointSystem) -> bool {
        self.is_unplayed() && self.points(ps) > ps.loss
    }

    /// Whether the player did not play a game in this round.
    pub fn is_unplayed(&self) -> bool {
        !matches!(self, RoundEntry::Game { .. })
    }
}

/// A registered player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Player {
    /// Starting rank; players are stored in this order, `id.0 == index + 1`.
    pub id: StartRank,
    pub name: String,
    /// Rating, 0 when unrated.
    pub rating: u32,
    /// One entry per round, from round 1; rounds beyond the vector's length have no entry yet
    /// (the round being paired, future rounds). A late entry has `NotPaired` (or a bye) for the
    /// rounds before arrival.
    pub entries: Vec<RoundEntry>,
    /// First round (1-based) from which the player is withdrawn and never paired again.
    pub withdrawn_from: Option<u32>,
    /// Accelerated-pairing points (`XXA`), in tenths, for rounds 1, 2, ...: added to the
    /// score used for pairing that round (not to the score itself).
    pub accelerations: Vec<u32>,
}

impl Player {
    /// A player with no entries yet.
    pub fn new(id: StartRank, name: impl Into<String>, rating: u32) -> Player {
        Player {
            id,
            name: name.into(),
            rating,
            entries: Vec::new(),
            withdrawn_from: None,
            accelerations: Vec::new(),
        }
    }

    /// The entry for a 1-based round, if any.
    pub fn entry(&self, round: u32) -> Option<&RoundEntry> {
        round
            .checked_sub(1)
            .and_then(|i| self.entries.get(i as usize))
    }
}

/// Header data of a TRF file kept for the report; none of it influences pairing (a `192` type
/// asking for the Baku acceleration is read into the players' accelerations).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TournamentInfo {
    /// `012` tournament name.
    pub name: Option<String>,
    /// `022` city.
    pub city: Option<String>,
    /// `032` federation.
    pub federation: Option<String>,
    /// `042` start date, as written.
    pub start_date: Option<String>,
    /// `052` end date, as written.
    pub end_date: Option<String>,
    /// `092` type of tournament.
    pub kind: Option<String>,
    /// `102` chief arbiter.
    pub chief_arbiter: Option<String>,
    /// `112` deputy chief arbiters.
    pub deputies: Vec<String>,
    /// `122` allotted times.
    pub time_control: Option<String>,
    /// `132` each round's date as written (TRF-16: `YY/MM/DD`), round 1 first; an empty one:
    /// not given. Written in the round columns (round 1 in 92-99, round 2 in 102-109, ...).
    pub round_dates: Vec<String>,
    /// Write `062` and `072` (the numbers of players and of rated players, counted from the
    /// players when written; never read: they are recomputed).
    pub player_counts: bool,
    /// `192` encoded type of tournament (`FIDE_DUTCH_2025`, `FIDE_DUTCH_2025_BAKU`).
    pub system: Option<String>,
}

/// A Swiss tournament: players and the rounds so far.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tournament {
    pub info: TournamentInfo,
    /// Total number of rounds (`XXR`).
    pub total_rounds: u32,
    /// Colour of the top seed in round 1 (C.04.3 5.1 "initial-colour"; `XXC white1|black1`).
    pub initial_colour: Colour,
    /// Points for each kind of round.
    pub points: PointSystem,
    /// Players in starting-rank order: `players[i].id == StartRank(i + 1)`.
    pub players: Vec<Player>,
    /// Groups of players who must not be paired with each other (`XXP`, `260`).
    pub forbidden: Vec<Forbidden>,
    /// The order that gives the effective pairing numbers (C.04.3: the order of the players by
    /// rating and title), when it is not the starting ranks: a TRF file's `XXC rank` takes the
    /// players in the order of its `001` lines, as bbpPairings and JaVaFo do. `None`: starting
    /// ranks. When set, it holds every player once.
    pub pairing_order: Option<Vec<StartRank>>,
}

/// Players none of whom may be paired with another of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Forbidden {
    pub players: Vec<StartRank>,
    /// The rounds `first..=last` it holds in (TRF-2026 `260`); `None`: every round (`XXP`).
    pub rounds: Option<(u32, u32)>,
}

impl Forbidden {
    /// A group forbidden in every round.
    pub fn always(players: Vec<StartRank>) -> Forbidden {
        Forbidden {
            players,
            rounds: None,
        }
    }

    /// Whether it holds in `round`.
    pub fn applies_in(&self, round: u32) -> bool {
        self.rounds
            .is_none_or(|(first, last)| (first..=last).contains(&round))
    }
}

impl Tournament {
    /// An empty tournament of `total_rounds` rounds where the top seed has White in round 1.
    pub fn new(total_rounds: u32) -> Tournament {
        Tournament {
            info: TournamentInfo::default(),
            total_rounds,
            initial_colour: Colour::White,
            points: PointSystem::default(),
            players: Vec::new(),
            forbidden: Vec::new(),
            pairing_order: None,
        }
    }

    /// Player indices (0-based) in the order of the effective pairing numbers: the
    /// [`Tournament::pairing_order`] if any, else starting ranks.
    pub fn indices_in_pairing_order(&self) -> Vec<usize> {
        match &self.pairing_order {
            Some(order) => order.iter().map(|id| id.index()).collect(),
            None => (0..self.players.len()).collect(),
        }
    }

    /// Whether anyone was paired in `round` (a game, a forfeit or the PAB). In such a round a
    /// player without an entry was not paired, as in a TRF file whose line ends earlier.
    pub fn round_is_paired(&self, round: u32) -> bool {
        self.players
            .iter()
            .any(|p| p.entry(round).is_some_and(RoundEntry::is_pairing))
    }

    /// Registers a player with the next starting rank and returns its id.
    pub fn add_player(&mut self, name: impl Into<String>, rating: u32) -> StartRank {
        let id = StartRank(self.players.len() as u32 + 1);
        self.players.push(Player::new(id, name, rating));
        id
    }

    /// The player with this starting rank.
    pub fn player(&self, id: StartRank) -> Option<&Player> {
        id.0.checked_sub(1)
            .and_then(|i| self.players.get(i as usize))
    }

    /// The last round that has any pairing in it (a game, a forfeit or a PAB), 0 if none.
    pub fn rounds_paired(&self) -> u32 {
        self.players
            .iter()
            .filter_map(|p| p.entries.iter().rposition(RoundEntry::is_pairing))
            .map(|i| i as u32 + 1)
            .max()
            .unwrap_or(0)
    }

    /// Score before `round` (the sum of rounds `1..round`).
    pub fn score_before(&self, id: StartRank, round: u32) -> Score {
        let Some(p) = self.player(id) else {
            return Score(0);
        };
        Score(
            p.entries
                .iter()
                .take(round.saturating_sub(1) as usize)
                .map(|e| e.points(&self.points))
                .sum(),
        )
    }

    /// Final (current) score.
    pub fn score(&self, id: StartRank) -> Score {
        self.score_before(id, u32::MAX)
    }

    /// Whether `a` and `b` played a game (not a forfeit) before `round`.
    pub fn have_played(&self, a: StartRank, b: StartRank, round: u32) -> bool {
        self.player(a).is_some_and(|p| {
            p.entries
                .iter()
                .take(round.saturating_sub(1) as usize)
                .any(|e| e.played_opponent() == Some(b))
        })
    }

    /// Records a finished game in `round` for both players (the entries must be contiguous: every
    /// earlier round of both players must already have an entry).
    pub fn record_game(
        &mut self,
        round: u32,
        white: StartRank,
        black: StartRank,
        white_result: GameResult,
    ) {
        self.set_entry(
            white,
            round,
            RoundEntry::Game {
                opponent: black,
                colour: Colour::White,
                result: white_result,
                rated: true,
            },
        );
        self.set_entry(
            black,
            round,
            RoundEntry::Game {
                opponent: white,
                colour: Colour::Black,
                result: white_result.reversed(),
                rated: true,
            },
        );
    }

    /// Sets one player's entry for `round`, filling skipped earlier rounds with `NotPaired`.
    pub fn set_entry(&mut self, id: StartRank, round: u32, entry: RoundEntry) {
        let Some(p) =
            id.0.checked_sub(1)
                .and_then(|i| self.players.get_mut(i as usize))
        else {
            return;
        };
        let i = round.saturating_sub(1) as usize;
        if p.entries.len() <= i {
            p.entries.resize(i + 1, RoundEntry::NotPaired);
        }
        p.entries[i] = entry;
    }
}
