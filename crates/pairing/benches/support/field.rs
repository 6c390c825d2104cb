//! The seeded tournaments of the Dutch bench (`benches/dutch.rs`), shared with the test that
//! checks the first rounds of the 1,000-player one against the recorded pairings
//! (`tests/pairing/big_field.rs`), and the pairings recorded before the matcher's rework.

use hanniball_pairing::{
    GameResult, Pairing, RoundEntry, StartRank, Tournament, format_pairing, pair_next_round,
};
use hanniball_rng::Rng;

/// Per round, the digest (`digest`) of each field's pairing, as the engine of commit
/// 0017671 (before the matcher's rework) paired it: `players round digest` lines, for the
/// default field (made by `cargo bench -p hanniball-pairing --bench dutch -- 1000 5000 10000`
/// on that commit).
pub const RECORDED: &str = include_str!("recorded-digests.txt");

/// A seeded random tournament (SplitMix64 seeded with `players * 7919`): ratings in steps of
/// a quarter point down the field, 2 % requested half-point byes a round, and 40 % white
/// wins, 30 % draws, 30 % black wins (`scale`: the service's scale bench's field instead, five
/// players to a rating, no requested byes, a third of the games each way).
pub struct Field {
    pub t: Tournament,
    pub players: u32,
    rng: Rng,
    scale: bool,
}

impl Field {
    pub fn new(players: u32, rounds: u32, scale: bool) -> Self {
        let mut t = Tournament::new(rounds);
        for i in 0..players {
            let rating = if scale { 2400 - i / 5 } else { 3000 - i / 4 };
            t.add_player(format!("P{}", i + 1), rating);
        }
        Field {
            t,
            players,
            rng: Rng::new(u64::from(players) * 7919),
            scale,
        }
    }

    /// Sets round `round`'s requested byes (before pairing it).
    pub fn byes(&mut self, round: u32) {
        for i in 0..self.players {
            if !self.scale && self.rng.next_u64() % 100 < 2 {
                self.t
                    .set_entry(StartRank(i + 1), round, RoundEntry::HalfPointBye);
            }
        }
    }

    /// Plays round `round` as paired.
    pub fn play(&mut self, round: u32, p: &Pairing) {
        for &(w, b) in &p.boards {
            let r = match (self.scale, self.rng.next_u64() % 10) {
                (true, _) => [GameResult::Win, GameResult::Loss, GameResult::Draw]
                    [(self.rng.next_u64() % 3) as usize],
                (false, 0..=3) => GameResult::Win,
                (false, 4..=6) => GameResult::Draw,
                (false, _) => GameResult::Loss,
            };
            self.t.record_game(round, w, b, r);
        }
        if let Some(b) = p.bye {
            self.t.set_entry(b, round, RoundEntry::PairingBye);
        }
    }

    /// Sets the byes of round `round`, pairs it and plays it; returns the pairing.
    #[allow(dead_code)]
    pub fn round(&mut self, round: u32) -> Pairing {
        self.byes(round);
        let p = pair_next_round(&self.t, &Default::default()).expect("a pairing");
        self.play(round, &p);
        p
    }
}

/// A digest of a pairing (FNV-1a of its `format_pairing`, board order included).
pub fn digest(p: &Pairing) -> u64 {
    format_pairing(p)
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        })
}

/// The recorded digest of round `round` of the default field of `players`, if any.
pub fn recorded(players: u32, round: u32) -> Option<u64> {
    RECORDED.lines().find_map(|line| {
        let mut f = line.split_whitespace();
        let (p, r, d) = (f.next()?, f.next()?, f.next()?);
        (p.parse() == Ok(players) && r.parse() == Ok(round))
            .then(|| u64::from_str_radix(d, 16).ok())
            .flatten()
    })
}
