//! An independent reference implementation ("oracle") of HanniBall's rules (RULES.md Part 1), used
//! by `tests/rules/differential.rs` to cross-check the engine in `hanniball_rules::hanniball`.
//!
//! It was written from RULES.md alone, without reading the engine, in the plainest style that could
//! work: a 2-D array board (files `a`–`i`, ranks `1`–`15`, non-existent squares marked
//! [`Cell::Off`]), naive loops over all squares, and each rule written down where RULES.md states
//! it. It has its own notation parser and writer (RULES.md 1.11). Speed is not a goal.

/// A side (RULES.md 1.2). White moves first and attacks the rank-15 goal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Color {
    White,
    Black,
}

impl Color {
    pub fn other(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }
}

/// The four kinds of piece (RULES.md 1.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Keeper,
    Lion,
    Elephant,
    Horse,
}

/// A piece: colour and kind. Two pieces of the same colour and kind are indistinguishable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    pub color: Color,
    pub kind: Kind,
}

impl Piece {
    /// `K L E H` for White, `k l e h` for Black (RULES.md 1.11).
    fn letter(self) -> char {
        let upper = match self.kind {
            Kind::Keeper => 'K',
            Kind::Lion => 'L',
            Kind::Elephant => 'E',
            Kind::Horse => 'H',
        };
        match self.color {
            Color::White => upper,
            Color::Black => upper.to_ascii_lowercase(),
        }
    }

    fn from_letter(c: char) -> Option<Piece> {
        let kind = match c.to_ascii_uppercase() {
            'K' => Kind::Keeper,
            'L' => Kind::Lion,
            'E' => Kind::Elephant,
            'H' => Kind::Horse,
            _ => return None,
        };
        let color = if c.is_ascii_uppercase() {
            Color::White
        } else {
            Color::Black
        };
        Some(Piece { color, kind })
    }
}

/// A square of the full 9 × 15 grid: `file` 0–8 (`a`–`i`), `rank` 1–15. Coordinates outside the
/// grid are allowed as values (geometry is that of the full grid); [`Sq::exists`] says whether the
/// square is on the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sq {
    pub file: i32,
    pub rank: i32,
}

impl Sq {
    pub fn new(file: i32, rank: i32) -> Sq {
        Sq { file, rank }
    }

    /// RULES.md 1.1: ranks 2–14 are full; ranks 1 and 15 hold only `d e f` (the goals).
    pub fn exists(self) -> bool {
        if self.file < 0 || self.file > 8 || self.rank < 1 || self.rank > 15 {
            return false;
        }
        if self.rank == 1 || self.rank == 15 {
            return self.file >= 3 && self.file <= 5;
        }
        true
    }

    /// A goal square: `d1 e1 f1` (White's goal) or `d15 e15 f15` (Black's goal).
    pub fn is_goal(self) -> bool {
        self.exists() && (self.rank == 1 || self.rank == 15)
    }

    pub fn plus(self, df: i32, dr: i32) -> Sq {
        Sq::new(self.file + df, self.rank + dr)
    }

    /// `e8`, `d15`.
    pub fn name(self) -> String {
        let mut out = String::new();
        self.write_name(&mut out);
        out
    }

    fn write_name(self, out: &mut String) {
        let letters = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'];
        out.push(letters[self.file as usize]);
        if self.rank >= 10 {
            out.push('1');
        }
        out.push(char::from(b'0' + (self.rank % 10) as u8));
    }

    /// Parses an existing square written canonically (no leading zero, no sign).
    pub fn parse(text: &str) -> Option<Sq> {
        let letters = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'];
        let mut chars = text.chars();
        let letter = chars.next()?;
        let file = letters.iter().position(|&l| l == letter)?;
        let digits = chars.as_str();
        if digits.is_empty()
            || digits.len() > 2
            || digits.starts_with('0')
            || !digits.chars().all(|c| c.is_ascii_digit())
        {
            return None;
        }
        let rank: i32 = digits.parse().ok()?;
        let sq = Sq::new(file as i32, rank);
        if sq.exists() { Some(sq) } else { None }
    }

    /// True when the two squares touch (8-neighbourhood) and differ.
    fn touches(self, other: Sq) -> bool {
        self != other && (self.file - other.file).abs() <= 1 && (self.rank - other.rank).abs() <= 1
    }
}

/// Every existing square, rank 1 upwards, file `a` upwards within a rank.
pub fn all_squares() -> &'static [Sq] {
    static SQUARES: std::sync::OnceLock<Vec<Sq>> = std::sync::OnceLock::new();
    SQUARES.get_or_init(|| {
        let mut out = Vec::new();
        for rank in 1..=15 {
            for file in 0..=8 {
                let sq = Sq::new(file, rank);
                if sq.exists() {
                    out.push(sq);
                }
            }
        }
        out
    })
}

/// RULES.md 1.1: a keeper's zone is its own goal area (2 × 5) plus its own goal.
/// White: `c2`–`g3` and `d1 e1 f1`; Black: `c13`–`g14` and `d15 e15 f15`.
pub fn in_zone(color: Color, sq: Sq) -> bool {
    if !sq.exists() {
        return false;
    }
    let (goal_rank, area_ranks) = match color {
        Color::White => (1, [2, 3]),
        Color::Black => (15, [13, 14]),
    };
    if sq.rank == goal_rank {
        return true; // the existing squares of that rank are exactly the goal
    }
    sq.file >= 2 && sq.file <= 6 && area_ranks.contains(&sq.rank)
}

const KNIGHT: [(i32, i32); 8] = [
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];

/// The 8 neighbours, which are also the 8 straight directions.
const ADJACENT: [(i32, i32); 8] = [
    (-1, -1),
    (0, -1),
    (1, -1),
    (-1, 0),
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
];

/// RULES.md 1.6: the intermediate squares of a knight leap are the two squares adjacent to both
/// origin and target (computed on the full grid; they may not exist). Found by brute force.
fn intermediates(from: Sq, to: Sq) -> [Sq; 2] {
    let mut out = [from; 2];
    let mut found = 0;
    for (df, dr) in ADJACENT {
        let sq = from.plus(df, dr);
        if sq.touches(to) {
            out[found] = sq; // panics if a third square were found
            found += 1;
        }
    }
    assert_eq!(found, 2, "a knight leap has two intermediate squares");
    out
}

fn leaps(kind: Kind) -> bool {
    matches!(kind, Kind::Horse | Kind::Lion | Kind::Keeper)
}

fn steps_to_neighbours(kind: Kind) -> bool {
    matches!(kind, Kind::Elephant | Kind::Lion | Kind::Keeper)
}

/// What a square of the 9 × 15 grid holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cell {
    /// The square does not exist (ranks 1 and 15 outside the goals).
    Off,
    Empty,
    Occupied(Piece),
}

/// One step (RULES.md 1.5, written as in 1.11).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// `from-to`: move, never carries the ball (captures and pick-ups are moves).
    Move(Sq, Sq),
    /// `from=to`: the ball holder moves and takes the ball along.
    Carry(Sq, Sq),
    /// `from>to`: the holder shoots; the ball lands on `to` (not a keeper's square).
    Shot(Sq, Sq),
    /// `from>keeper>to`: a shot onto a keeper's square, bouncing to `to`.
    Ricochet(Sq, Sq, Sq),
    /// `x<sq>`: penalty removal of the opponent piece on the square.
    Removal(Sq),
}

impl Step {
    pub fn text(self) -> String {
        let mut out = String::with_capacity(10);
        let mut parts = |from: Sq, sep: char, to: Sq| {
            from.write_name(&mut out);
            out.push(sep);
            to.write_name(&mut out);
        };
        match self {
            Step::Move(a, b) => parts(a, '-', b),
            Step::Carry(a, b) => parts(a, '=', b),
            Step::Shot(a, b) => parts(a, '>', b),
            Step::Ricochet(a, k, b) => {
                parts(a, '>', k);
                out.push('>');
                b.write_name(&mut out);
            }
            Step::Removal(a) => {
                out.push('x');
                a.write_name(&mut out);
            }
        }
        out
    }
}

/// A position (RULES.md 1.11): board, ball, side to move, fullmove, steps taken, ruleset, plus the
/// turn limit (not part of the notation; 300 unless changed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pos {
    /// `board[file][rank]`; index rank 0 is unused and `Off`.
    board: [[Cell; 16]; 9],
    pub ball: Sq,
    pub side: Color,
    pub fullmove: u32,
    pub steps: u32,
    /// Ruleset `zillions-2010` (else `standard`).
    pub zillions: bool,
    pub max_turns: u32,
}

impl Pos {
    /// An empty board (ball on `e8`, White to move, `1 0 standard`).
    pub fn empty() -> Pos {
        let mut board = [[Cell::Off; 16]; 9];
        for &sq in all_squares() {
            board[sq.file as usize][sq.rank as usize] = Cell::Empty;
        }
        Pos {
            board,
            ball: Sq::new(4, 8),
            side: Color::White,
            fullmove: 1,
            steps: 0,
            zillions: false,
            max_turns: 300,
        }
    }

    pub fn cell(&self, sq: Sq) -> Cell {
        if !sq.exists() {
            return Cell::Off;
        }
        self.board[sq.file as usize][sq.rank as usize]
    }

    pub fn piece(&self, sq: Sq) -> Option<Piece> {
        match self.cell(sq) {
            Cell::Occupied(p) => Some(p),
            Cell::Off | Cell::Empty => None,
        }
    }

    pub fn set(&mut self, sq: Sq, piece: Option<Piece>) {
        assert!(sq.exists(), "no square {sq:?}");
        self.board[sq.file as usize][sq.rank as usize] = match piece {
            Some(p) => Cell::Occupied(p),
            None => Cell::Empty,
        };
    }

    /// Every piece of a colour with its square.
    pub fn pieces(&self, color: Color) -> Vec<(Sq, Piece)> {
        let mut out = Vec::new();
        for &sq in all_squares() {
            if let Some(p) = self.piece(sq)
                && p.color == color
            {
                out.push((sq, p));
            }
        }
        out
    }

    /// RULES.md 1.11: 2 steps if `w 1`, else 4.
    pub fn limit(&self) -> u32 {
        if self.side == Color::White && self.fullmove == 1 {
            2
        } else {
            4
        }
    }

    /// Whole turns completed: 2 per fullmove before this one, plus White's if Black is to move.
    pub fn turns_played(&self) -> u64 {
        let black = if self.side == Color::Black { 1 } else { 0 };
        2 * (u64::from(self.fullmove) - 1) + black
    }

    /// RULES.md 1.4: what stands on each square (colour and kind) and where the ball is.
    pub fn same_placement(&self, other: &Pos) -> bool {
        self.board == other.board && self.ball == other.ball
    }

    // ----- notation (RULES.md 1.11) -----

    pub fn to_notation(&self) -> String {
        let mut ranks = Vec::new();
        for rank in (1..=15).rev() {
            let mut text = String::new();
            let mut run = 0;
            for file in 0..=8 {
                match self.cell(Sq::new(file, rank)) {
                    Cell::Off => {}
                    Cell::Empty => run += 1,
                    Cell::Occupied(p) => {
                        if run > 0 {
                            text.push_str(&run.to_string());
                            run = 0;
                        }
                        text.push(p.letter());
                    }
                }
            }
            if run > 0 {
                text.push_str(&run.to_string());
            }
            ranks.push(text);
        }
        format!(
            "{} {} {} {} {} {}",
            ranks.join("/"),
            self.ball.name(),
            if self.side == Color::White { "w" } else { "b" },
            self.fullmove,
            self.steps,
            if self.zillions {
                "zillions-2010"
            } else {
                "standard"
            }
        )
    }

    /// Parses the six-field notation. Besides the syntax it checks what a position must satisfy:
    /// at most one keeper per side (RULES.md 1.2) and inside its zone (1.7), fullmove at least 1,
    /// steps-taken at most the turn's limit. RULES.md sets no other limit on piece counts.
    pub fn parse(text: &str) -> Result<Pos, String> {
        let fields: Vec<&str> = text.split(' ').collect();
        if fields.len() != 6 {
            return Err(format!("expected 6 fields, got {}", fields.len()));
        }
        let mut pos = Pos::empty();
        let rows: Vec<&str> = fields[0].split('/').collect();
        if rows.len() != 15 {
            return Err(format!("expected 15 ranks, got {}", rows.len()));
        }
        for (i, row) in rows.iter().enumerate() {
            let rank = 15 - i as i32;
            let files: Vec<i32> = (0..=8).filter(|&f| Sq::new(f, rank).exists()).collect();
            let mut next = 0; // index into `files`
            let mut previous_was_digit = false;
            for c in row.chars() {
                if let Some(d) = c.to_digit(10) {
                    if d == 0 || previous_was_digit {
                        return Err(format!("bad run of empty squares on rank {rank}"));
                    }
                    previous_was_digit = true;
                    next += d as usize;
                    if next > files.len() {
                        return Err(format!("rank {rank} is too long"));
                    }
                } else if let Some(p) = Piece::from_letter(c) {
                    previous_was_digit = false;
                    if next >= files.len() {
                        return Err(format!("rank {rank} is too long"));
                    }
                    pos.set(Sq::new(files[next], rank), Some(p));
                    next += 1;
                } else {
                    return Err(format!("bad character {c:?} on rank {rank}"));
                }
            }
            if next != files.len() {
                return Err(format!("rank {rank} is too short"));
            }
        }
        pos.ball = Sq::parse(fields[1]).ok_or("bad ball square")?;
        pos.side = match fields[2] {
            "w" => Color::White,
            "b" => Color::Black,
            _ => return Err("bad side".into()),
        };
        pos.fullmove = parse_number(fields[3]).ok_or("bad fullmove")?;
        if pos.fullmove == 0 {
            return Err("fullmove 0".into());
        }
        pos.steps = parse_number(fields[4]).ok_or("bad steps-taken")?;
        if pos.steps > pos.limit() {
            return Err("steps-taken above the turn's limit".into());
        }
        pos.zillions = match fields[5] {
            "standard" => false,
            "zillions-2010" => true,
            _ => return Err("bad ruleset".into()),
        };
        for color in [Color::White, Color::Black] {
            let keepers: Vec<Sq> = pos
                .pieces(color)
                .into_iter()
                .filter(|(_, p)| p.kind == Kind::Keeper)
                .map(|(sq, _)| sq)
                .collect();
            if keepers.len() > 1 {
                return Err(format!("{color:?} has {} keepers", keepers.len()));
            }
            if let Some(sq) = keepers.iter().find(|&&sq| !in_zone(color, sq)) {
                return Err(format!("keeper outside its zone on {}", sq.name()));
            }
        }
        Ok(pos)
    }

    // ----- piece patterns (RULES.md 1.6) -----

    /// RULES.md 1.6 blocking, for a real move: standard, both intermediate squares exist and hold
    /// a piece of either colour; zillions-2010, both hold a piece of the mover's opponent.
    fn leap_blocked(&self, from: Sq, to: Sq, mover: Color) -> bool {
        intermediates(from, to)
            .iter()
            .all(|&sq| match self.piece(sq) {
                None => false, // empty or non-existent
                Some(p) => !self.zillions || p.color != mover,
            })
    }

    /// Squares the piece on `from` may move or carry to by its pattern (keeper kept to its zone),
    /// before looking at what stands there.
    pub fn move_pattern(&self, from: Sq, piece: Piece) -> Vec<Sq> {
        let mut out = Vec::new();
        if leaps(piece.kind) {
            for (df, dr) in KNIGHT {
                let to = from.plus(df, dr);
                if to.exists() && !self.leap_blocked(from, to, piece.color) {
                    out.push(to);
                }
            }
        }
        if steps_to_neighbours(piece.kind) {
            for (df, dr) in ADJACENT {
                let to = from.plus(df, dr);
                if to.exists() {
                    out.push(to);
                }
            }
        }
        if piece.kind == Kind::Keeper {
            out.retain(|&sq| in_zone(piece.color, sq));
        }
        out
    }

    /// Squares the piece on `from` may shoot to (RULES.md 1.6 table). Flights are never blocked.
    fn shot_pattern(from: Sq, piece: Piece) -> Vec<Sq> {
        let mut out = Vec::new();
        let adjacent = matches!(piece.kind, Kind::Horse | Kind::Lion);
        let knight = matches!(piece.kind, Kind::Elephant | Kind::Lion);
        if adjacent {
            for (df, dr) in ADJACENT {
                out.push(from.plus(df, dr));
            }
        }
        if knight {
            for (df, dr) in KNIGHT {
                out.push(from.plus(df, dr));
            }
        }
        if piece.kind == Kind::Keeper {
            for (df, dr) in ADJACENT {
                for n in 1..=5 {
                    let to = from.plus(df * n, dr * n);
                    if !in_zone(piece.color, to) {
                        out.push(to);
                    }
                }
            }
        }
        out.retain(|sq| sq.exists());
        out
    }

    /// RULES.md 1.6 ricochet: 1–5 squares from the keeper in a straight direction, not a goal square.
    /// (A ricochet can never reach the other keeper: keepers stay in their zones, 10+ ranks apart.)
    fn ricochet_targets(keeper: Sq) -> Vec<Sq> {
        let mut out = Vec::new();
        for (df, dr) in ADJACENT {
            for n in 1..=5 {
                let to = keeper.plus(df * n, dr * n);
                if to.exists() && !to.is_goal() {
                    out.push(to);
                }
            }
        }
        out
    }

    // ----- offences (RULES.md 1.8) -----

    /// Offences of the opponent of the side to move, on the board as written: `obstruction` then
    /// `clustering`.
    pub fn offences(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        if self.obstruction() {
            out.push("obstruction");
        }
        if !self.zillions && self.clustering() {
            out.push("clustering");
        }
        out
    }

    fn obstruction(&self) -> bool {
        let me = self.side;
        if self.piece(self.ball).is_some_and(|p| p.color == me) {
            return false; // the player holds the ball
        }
        let mine = self.pieces(me);
        if !mine.iter().any(|(_, p)| p.kind != Kind::Keeper) {
            return false;
        }
        !mine.iter().any(|&(sq, p)| self.can_reach_ball(sq, p))
    }

    /// RULES.md 1.8 reach: the piece alone (its side's other pieces absent), opponent pieces are
    /// walls except the ball holder, a leap is blocked only by two opponent pieces.
    fn can_reach_ball(&self, start: Sq, piece: Piece) -> bool {
        let opponent = piece.color.other();
        let is_opponent = |sq: Sq| self.piece(sq).is_some_and(|p| p.color == opponent);
        let mut seen = [[false; 16]; 9];
        seen[start.file as usize][start.rank as usize] = true;
        let mut todo = vec![start];
        while let Some(from) = todo.pop() {
            let mut targets = Vec::new();
            if leaps(piece.kind) {
                for (df, dr) in KNIGHT {
                    let to = from.plus(df, dr);
                    if to.exists() && !intermediates(from, to).iter().all(|&sq| is_opponent(sq)) {
                        targets.push(to);
                    }
                }
            }
            if steps_to_neighbours(piece.kind) {
                for (df, dr) in ADJACENT {
                    let to = from.plus(df, dr);
                    if to.exists() {
                        targets.push(to);
                    }
                }
            }
            if piece.kind == Kind::Keeper {
                targets.retain(|&sq| in_zone(piece.color, sq));
            }
            for to in targets {
                if to == self.ball {
                    return true;
                }
                if is_opponent(to) || seen[to.file as usize][to.rank as usize] {
                    continue;
                }
                seen[to.file as usize][to.rank as usize] = true;
                todo.push(to);
            }
        }
        false
    }

    /// RULES.md 1.8 clustering: an orthogonally connected group of more than 3 squares, each with an
    /// opponent piece or the loose ball.
    fn clustering(&self) -> bool {
        let opponent = self.side.other();
        let loose = self.piece(self.ball).is_none();
        let member = |sq: Sq| {
            self.piece(sq).is_some_and(|p| p.color == opponent) || (loose && sq == self.ball)
        };
        let mut seen = [[false; 16]; 9];
        for &start in all_squares() {
            if !member(start) || seen[start.file as usize][start.rank as usize] {
                continue;
            }
            seen[start.file as usize][start.rank as usize] = true;
            let mut size = 0;
            let mut todo = vec![start];
            while let Some(sq) = todo.pop() {
                size += 1;
                for (df, dr) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                    let next = sq.plus(df, dr);
                    if next.exists()
                        && member(next)
                        && !seen[next.file as usize][next.rank as usize]
                    {
                        seen[next.file as usize][next.rank as usize] = true;
                        todo.push(next);
                    }
                }
            }
            if size > 3 {
                return true;
            }
        }
        false
    }

    // ----- steps (RULES.md 1.5, 1.6, 1.8) -----

    /// Every step the rules allow, ignoring whether the game is over and the must-change rule.
    fn candidate_steps(&self) -> Vec<Step> {
        let me = self.side;
        let mut out = Vec::new();
        if self.steps == 0 && !self.offences().is_empty() {
            for (sq, p) in self.pieces(me.other()) {
                if p.kind != Kind::Keeper {
                    out.push(Step::Removal(sq));
                }
            }
        }
        for (from, piece) in self.pieces(me) {
            let holds = self.ball == from;
            // Moves: to an empty square (the loose ball's square included) or onto the opponent's
            // ball holder. A keeper never leaves the ball behind.
            if !(holds && piece.kind == Kind::Keeper) {
                for to in self.move_pattern(from, piece) {
                    let allowed = match self.piece(to) {
                        None => true,
                        Some(q) => q.color != me && self.ball == to,
                    };
                    if allowed {
                        out.push(Step::Move(from, to));
                    }
                }
            }
            if holds {
                for to in self.move_pattern(from, piece) {
                    if self.piece(to).is_none() {
                        out.push(Step::Carry(from, to));
                    }
                }
                for to in Pos::shot_pattern(from, piece) {
                    if self.piece(to).is_some_and(|q| q.kind == Kind::Keeper) {
                        for landing in Pos::ricochet_targets(to) {
                            out.push(Step::Ricochet(from, to, landing));
                        }
                    } else {
                        out.push(Step::Shot(from, to));
                    }
                }
            }
        }
        out
    }

    /// The legal steps with their canonical texts, sorted by text in byte order. Empty when the
    /// game is over (goal, turn limit, or no legal turn at turn start) or the turn's steps are used.
    pub fn legal_steps(&self) -> Vec<(String, Step)> {
        if self.ball.is_goal()
            || self.turns_played() >= u64::from(self.max_turns)
            || self.steps >= self.limit()
        {
            return Vec::new();
        }
        let steps = self.candidate_steps();
        // RULES.md 1.9: at turn start, if no step changes anything, no turn can: no legal turn.
        if self.steps == 0 && steps.iter().all(|&s| self.apply(s).same_placement(self)) {
            return Vec::new();
        }
        let mut out: Vec<(String, Step)> = steps.into_iter().map(|s| (s.text(), s)).collect();
        out.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        out
    }

    /// Applies a step (assumed legal): the mid-turn position, steps-taken + 1, same side.
    pub fn apply(&self, step: Step) -> Pos {
        let mut next = self.clone();
        match step {
            Step::Move(from, to) => {
                // The ball stays where it is: on the captured holder's square, on the picked-up
                // square, or behind on `from`.
                let piece = self.piece(from);
                next.set(from, None);
                next.set(to, piece);
            }
            Step::Carry(from, to) => {
                let piece = self.piece(from);
                next.set(from, None);
                next.set(to, piece);
                next.ball = to;
            }
            Step::Shot(_, to) | Step::Ricochet(_, _, to) => next.ball = to,
            Step::Removal(sq) => next.set(sq, None), // a held ball stays loose there
        }
        next.steps += 1;
        next
    }

    /// Applies the legal step with this text, if there is one.
    pub fn apply_text(&self, text: &str) -> Option<Pos> {
        let steps = self.legal_steps();
        let (_, step) = steps.iter().find(|(t, _)| t == text)?;
        Some(self.apply(*step))
    }

    /// Plays a whole turn written as steps separated by single spaces (RULES.md 1.4, 1.11).
    pub fn play_turn(&self, text: &str) -> Result<Pos, String> {
        let mut current = self.clone();
        for (i, word) in text.split(' ').enumerate() {
            current = current
                .apply_text(word)
                .ok_or_else(|| format!("step {} {word:?} is not legal", i + 1))?;
        }
        if current.ball.is_goal() {
            return Ok(current); // the game ended mid-turn; written as it stands
        }
        if current.same_placement(self) {
            return Err("the turn changes nothing".into());
        }
        if current.side == Color::Black {
            current.fullmove += 1;
        }
        current.side = current.side.other();
        current.steps = 0;
        Ok(current)
    }

    /// The result as `<score> <reason>` (`1-0 goal`, `0-1 own-goal`, `1/2-1/2 max-turns`,
    /// `1-0 no-legal-turn`), or `None` while the game goes on.
    pub fn result(&self) -> Option<String> {
        let score = |winner: Color| if winner == Color::White { "1-0" } else { "0-1" };
        if self.ball.is_goal() {
            // The rank-1 goal is White's: Black scores there. The side to move made the last step.
            let winner = if self.ball.rank == 1 {
                Color::Black
            } else {
                Color::White
            };
            let reason = if winner == self.side {
                "goal"
            } else {
                "own-goal"
            };
            return Some(format!("{} {reason}", score(winner)));
        }
        if self.turns_played() >= u64::from(self.max_turns) {
            return Some("1/2-1/2 max-turns".into());
        }
        if self.steps == 0 && self.legal_steps().is_empty() {
            return Some(format!("{} no-legal-turn", score(self.side.other())));
        }
        None
    }
}

/// A canonical decimal number: digits only, no leading zero.
fn parse_number(text: &str) -> Option<u32> {
    if text.is_empty() || !text.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    if text.len() > 1 && text.starts_with('0') {
        return None;
    }
    text.parse().ok()
}
