# The web pages in English. Every message here is in ru/main.ftl and fr/main.ftl too, with the
# same variables (the crate's tests check it). Numbers given as numbers choose plural forms.

## Layout, header, errors

nav-site = site
nav-rules = Rules
nav-organisers = Organisers
nav-language = language
search-label = Search players, tournaments and games
search-placeholder = Player, tournament, game
search-button = Search
status-400 = Bad Request
status-403 = Forbidden
status-404 = Not Found
status-429 = Too Many Requests
status-502 = Bad Gateway
status-503 = Service Unavailable
status-other = Error
error-no-page = No such page.
error-unreachable = The game server is not reachable; try again shortly.
error-server-said = The game server answered (in English):
error-server = The game server answered with an error.
error-no-tournaments = This server shows no tournaments.
error-no-ladders = This server shows no ladders.
error-tournament-id = A tournament id is a positive number.
error-game-id = A game id is a positive number.
error-player-id = A player id is a positive number.
error-no-player = No such player.
error-after = after= takes a round number (1, 2, …).
error-no-round = This tournament has no round { $round } paired.
error-not-entrant = This player does not play in this tournament.

## Words many pages share

none = None.
none-found = None found.
white = white
black = black
playing = playing
rated = rated
unrated = unrated
untimed = untimed
player-number = player { $id }
game-number = game { $id }
tournament-number = Tournament { $id }
round-of = round { $round } of { $rounds }
players-count = { $count ->
    [one] { $count } player
   *[other] { $count } players
}
points-count = { $count ->
    [one] { $points } point
   *[other] { $points } points
}
# The day, month (1–12) and year of a date.
date = { $day } { $month ->
    [1] January
    [2] February
    [3] March
    [4] April
    [5] May
    [6] June
    [7] July
    [8] August
    [9] September
    [10] October
    [11] November
   *[12] December
} { $year }
# The short form: day and month with two digits.
date-short = { $year }-{ $month }-{ $day }
date-time = { $date }, { $time } UTC
col-game = Game
col-games = Games
col-white = White
col-black = Black
col-turns = Turns
col-result = Result
col-board = Board
col-player = Player
col-rating = Rating
col-points = Points
col-rank = Rk
col-rank-title = rank
col-rank-long = Rank
col-tournament = Tournament
col-status = Status
col-card = Card
col-final-rank-title = final rank
col-start-rank-title = starting rank
col-number = No
col-round-short = R{ $round }
col-colour = Colour
col-opponent = Opponent
col-score = Score
col-rating-change = Rating change
col-won = Won
col-drawn = Drawn
col-lost = Lost
col-was = Was
col-now = Now
col-by = By
col-why = Why

## Home

home-title = Live games, tournaments and ladders
home-live = Live games
home-finished = Recently finished
home-tournaments = Tournaments
home-ladders = Ladders
home-no-rated = No rated games yet.

## A tournament

status-registration = open for registration
status-running = running
status-finished = finished
status-unknown = unknown
over-the-board = played over the board
online = played online
print-link = Print pairings and standings
statistics-link = Statistics
standings-before = Standings before round 1
standings-after = Standings after round { $round }
standings-nav = standings after round
standings-nav-label = After round:
round-heading = Round { $round }
crosstable = Crosstable
by-start-rank = by starting rank
by-final-rank = by final rank
# A crosstable cell's colour letter (5w1: White against number 5, won).
cross-white = w
cross-black = b
bye = bye
bye-half = half-point bye
bye-zero = zero-point bye
absent = absent
not-paired = not paired
corrections = Result corrections
correction-after-pairing = (after the next round was paired: its pairings stand)
tiebreak-rules = Tie-breaks follow FIDE C.07, { $text } text. Unrated players: { $unrated }.
unrated-drop = rating-based tie-breaks (ARO, TPR, PTP, APRO, APPO, RTNG) are left out while anyone is unrated, as FIDE says
unrated-ignore = rating-based tie-breaks count rated opponents only
unrated-as = they count as rated { $rating }
print-title = { $name } (print)
print-back = Back to { $name }
print-note = each sheet below prints on a page of its own.
print-round = { $name }: round { $round } pairings
print-standings = { $name }: standings after round { $round }

## Tie-breaks (FIDE C.07)

tb-bh-c1 = Buchholz Cut-1: Buchholz without the lowest opponent's score
tb-bh = Buchholz: the sum of the opponents' scores
tb-fb = fore-Buchholz: Buchholz with every last-round game counted as a draw
tb-aob = the average of the opponents' Buchholz
tb-sb = Sonneborn-Berger: each opponent's score times the points scored against them, summed
tb-ps = progressive score: the running score after each round, summed
tb-ks = Koya: the points scored against opponents with at least half the points
tb-de = direct encounter: the results among the tied players
tb-win = rounds won, with or without playing (a bye or forfeit win counts)
tb-won = games won over the board
tb-std = standard points: each round counted 1, ½ or 0, whatever the point system
tb-bpg = games played with black
tb-bwg = games won with black
tb-rep = rounds the player chose to play
tb-vur = voluntarily unplayed rounds (fewer ranks higher)
tb-aro = the average rating of the opponents
tb-tpr = tournament performance rating
tb-ptp = perfect tournament performance
tb-apro = the average of the opponents' performance ratings
tb-appo = the average of the opponents' perfect performances
tb-rtng = the player's rating
tb-tpn = the tournament pairing number (lower ranks higher)
tb-unknown = a tie-break of the tournament's settings
tb-with-cut = { $meaning }, { $cut }
tb-cut-lowest = { $count ->
    [1] without the lowest
   *[other] without the { $count } lowest
}
tb-cut-median = { $count ->
    [1] without the highest and the lowest
   *[other] without the { $count } highest and the { $count } lowest
}
tb-cut-other = with a cut

## A player's card

card-number = No. { $number }
card-rating = rating { $rating }
card-rank = rank { $rank } after round { $round }
card-withdrawn = withdrawn from round { $round }
card-all-games = all games and ratings
card-rounds = Rounds
card-rating-change = Rating change in this tournament: { $change }
card-performance = Performance rating { $performance } (FIDE: the opponents' average { $average } plus dp for { $score } of { $games } rated games)
card-tiebreaks = Tie-breaks after round { $round }

## Statistics

statistics-title = { $name }: statistics
statistics-none = No round is paired yet.
chart-round = round { $round }: { $white } white wins, { $draws } draws, { $black } black wins
chart-legend = White wins · draws · Black wins
stat-round = Rd
stat-round-title = round
stat-games = Games
stat-games-title = games played
stat-white-title = White won
stat-draw-title = drawn
stat-black-title = Black won
stat-forfeits = Forf.
stat-forfeits-title = forfeits
stat-byes = Byes
stat-byes-title = byes
stat-upsets = Ups.
stat-upsets-title = upsets: decisive games the lower-rated player won
stat-gap = Gap
stat-gap-title = the average rating difference between opponents
stat-open = Open
stat-open-title = games without a result yet
stat-all = All

## A game

game-title = Game { $id }
game-heading = Game { $id }: { $white } – { $black }
# The board picture's accessible name: the status line, as the page shows it.
board-title = Board: { $status }
game-over = Game over: { $summary }
to-move = { $side ->
    [white] White
   *[black] Black
} to move, turn { $turn }
# How a game ended: the score and the reason, or the reason alone.
result-summary = { $score } { $reason }
end-goal = goal
end-own-goal = own-goal
end-no-legal-turn = no-legal-turn
end-max-turns = max-turns
end-dead-end = dead-end
end-resignation = resignation
end-time = time
end-agreement = agreement
end-aborted = aborted
end-adjudication = adjudication
end-forfeit = forfeit
end-over-the-board = over-the-board
time-control = time control { $control }
round-board = round { $round } · board { $board }
queue = matchmaking queue
clocks = Clocks:
clock-white = White
clock-black = Black
untimed-game = Untimed.
white-label = White:
black-label = Black:
download-record = Download the game record
turns = Turns
replay-label = replay
replay-showing = Showing the position after turn { $shown } of { $total }:
replay-start = « start
replay-previous = ◀ previous
replay-next = next ▶
replay-end = end »

## A player

chart-history = rating history from { $from } to { $to }: from { $first } to { $last }, lowest { $low }, highest { $high }
ladder-word = Ladder
head-to-head = Head to head (last { $count } rated games)
recent-games = Recent games
player-card = card
player-tournaments = Tournaments entered
game-won = won
game-lost = lost
game-drawn = drawn
game-aborted = aborted

## A ladder

ladder-title = Ladder { $name }
ladder-at-least = At least
ladder-rated-games = rated games
ladder-filter = Filter
ladder-empty = No rated players here.
provisional = provisional
pages = pages
page-previous = Previous page
page-top = Top
page-next = Next page

## Search

search-title = Search
search-help = Search for a player or tournament by name (or part of it), or for a game or tournament by its number.
search-results-title = Search: { $query }
search-players = Players
search-tournaments = Tournaments
search-games = Games
search-too-long = A search is at most { $count } characters.

## Rules

rules-title = Rules
rules-in-english = The rules text is in English.
rules-hanniball-figure = HanniBall: the initial position (White at the bottom).
rules-paper-figure = Paper football: the field and the ball at the start.

## The organisers' console: signing in, one's account

sign-in = Sign in
sign-in-name = Name
sign-in-password = Password
sign-in-token-instead = Sign in with a token instead
sign-in-token = Player token (hb_…)
sign-in-with-token = Sign in with the token
sign-in-token-note = The token is exchanged for a session once and is not kept.
sign-in-locked = Too many failed sign-ins from this address; try again in { $seconds } seconds.
sign-in-bad-token = That token is not valid (revoked, expired or mistyped), or is the admin token, which opens no session.
sign-in-wrong = Wrong name or password.
sign-in-no-session = The server answered without a session.
error-form-too-large = The form is too large.
sign-out = Sign out
sign-out-failed = Could not sign out: { $reason }
sign-out-everywhere = Sign out everywhere
account-title = Account
account-heading = Account: { $name }
account-rights = Rights: { $rights }.
account-sessions = Sessions
account-signed-in = Signed in
account-where = Where
account-ends = Ends
account-this-one = (this one)
password-change = Change password
password-current = Current password (if you have one)
password-new = New password (at least 8 characters)
password-again = New password again
password-differ = The two new passwords differ; nothing was changed.
password-changed = Password changed.
session-this-out = This session is signed out.
session-out = That session is signed out.
session-already-out = That session was already signed out.
signed-out-everywhere = Signed out everywhere ({ $count } sessions).

## The console: one's tournaments, creating one

console-nav = console
console-mine = My tournaments
console-account = Account ({ $name })
console-none = You organise no tournament yet.
console-import-link = Start a tournament from a TRF file another program wrote
console-not-organiser = Your account does not hold the organiser right: ask the server's admin to grant it:
console-registration = registration open
said-unavailable = The server is not reachable or busy; nothing was changed. ({ $reason })
said-not-allowed = Not allowed: { $reason }
field-not-number = { $field }: "{ $text }" is not a whole number
field-session = session
field-rounds = rounds
field-round = round
field-board = board
field-player = player
field-rating = rating
field-bye-points = bye points
create-heading = Create a tournament
create-name = Name
create-where = Where it is played
create-where-board = Over the board (results typed in here; played games, rated when the event is)
create-where-online = Online (games on this server, with clocks)
create-system = System
system-swiss = Swiss (FIDE Dutch)
system-round-robin = Round robin
system-double-round-robin = Double round robin
create-rounds = Rounds (Swiss)
create-game = Game
game-paper-football = Paper football
create-time = Time control, seconds: initial+increment (online; blank: untimed)
create-time-example = 600+5 or 300+0.5
create-rated = Rated
create-tiebreaks = Tie-breaks, in order (blank: BH-C1, BH, SB for a Swiss)
create-tiebreak-rules = Tie-break rules (FIDE C.07)
create-text-in-force = The text in force
create-unrated = Unrated players in rating tie-breaks: drop, ignore, or a rating
create-bye = Pairing-allocated bye
create-bye-1 = 1 point
create-bye-half = ½ point
create-bye-0 = 0 points
create-top-seed = Top seed in round 1 plays
create-manual = Pair each round myself (else as soon as a round is over)
create-self-entry = Players may enter themselves
create-late-entry = Late entries after the start (Swiss)
create-forfeit-withdraws = Withdraw a player who does not start a game
create-button = Create the tournament
time-control-bad = time control "{ $text }": write it in seconds as INITIAL+INCREMENT, e.g. 600+5 or 300+0.5
no-scheduler = This server runs no scheduler.
created = Tournament "{ $name }" created (number { $id }). Add its players next.

## The console: a TRF file from another program

import-title = Start from a TRF file
import-intro = A Swiss another program started (Swiss-Manager, Vega, bbpPairings…): its players, ratings and the rounds played come from the file, which is checked as this command checks it:
import-intro-after = The next round is then paired here as the file would be. Players are found by name; a name no account has is registered.
import-file = TRF file
import-name = Name (blank: the file's)
import-rounds = Rounds (blank: the file's)
import-board = Over the board
import-online = Online
import-manual = Pair each round myself
import-accept = Keep rounds paired otherwise than the engine would (their pairings stand)
import-button = Check and start
import-no-file = Choose a TRF file to upload.
import-unreadable = The file cannot be read: { $reason }. Nothing was imported.
import-register-failed = Starting rank { $rank } ({ $name }): { $reason }. Nothing was imported.
import-refused = The file was not imported:
imported = Imported: { $players } players, { $played } rounds played of { $rounds }{ $registered ->
    [0] {""}
   *[other] ; { $registered } players registered
}.

## The console: running a tournament

error-no-tournament = No such tournament.
run-over-the-board = over the board
run-online = online
run-rated = rated
run-standings-link = Standings and crosstable
run-export-trf = Export TRF
run-start = Start and pair round 1
run-delete = Delete this tournament
run-pair = Pair round { $round }
run-finish = Finish the tournament
run-results = Round { $round } results
run-all-results = Every board of round { $round } has its result.
run-open = { $open } of { $boards } boards still open.
run-board = Board { $board }
run-corrected = (corrected)
run-pairing-bye = pairing-allocated bye
result-white-wins = White wins
result-draw = Draw
result-black-wins = Black wins
result-white-forfeit = White wins by forfeit
result-black-forfeit = Black wins by forfeit
result-both-forfeit = Both lose by forfeit
correct-heading = Correct a result
correct-note = A correction changes the board, its game, the TRF, the standings and the ratings. Once the next round is paired, its pairings stand as made.
correct-board = Board
round-board-of = Round { $round }, board { $board }
correct-result = Right result
correct-why = Why (kept with the correction)
correct-button = Correct the result
run-players = Players ({ $count })
run-col-number = No.
run-col-name = Name
run-joined = (from round { $round })
run-withdraw = Withdraw
run-withdraw-who = Withdraw { $name }
bye-heading = Request a bye
bye-player = Player
bye-round = Round
bye-kind = Bye
bye-kind-half = half point
bye-kind-zero = zero points
bye-button = Request the bye
apart-heading = Players who must not meet
apart-pair = { $first } and { $second }
apart-undo = May meet again
apart-first = Player
apart-second = must not meet
apart-button = Keep them apart
add-heading = Add players
add-find = Find an account by name
add-find-button = Find
add-none = No account has a name with these words.
add-entered = entered
add-rating = rating
add-rating-auto = auto
add-who = Add { $name }
add-button = Add
register-heading = Register a new player
register-name = Name (any script)
register-rating = Seeding rating (blank: the rating list's)
register-button = Register and add
done-started = Started with { $count } players; round 1 is paired.
done-finished = The tournament is finished: its final standings are on its page.
done-paired = Round { $round } is paired.
done-deleted = The tournament is deleted.
done-board-said = Round { $round }, board { $board }: { $reason }
done-recorded = Round { $round }, board { $board }: { $result } recorded.
done-choose-board = board "{ $key }": choose a board from the list
done-corrected = Round { $round }, board { $board } corrected from { $was } to { $now }; standings, TRF and ratings follow.
done-not-corrected = Round { $round }, board { $board } already had { $result }: nothing to correct.
done-removed = The entry is removed.
done-withdrawn = Withdrawn: not paired from round { $round } on.
done-bye-half = A half-point bye is noted for round { $round }.
done-bye-zero = A zero-point bye is noted for round { $round }.
done-apart = They will not be paired with each other from the next round on.
done-already-apart = They were already kept apart.
done-may-meet = They may be paired with each other again.
done-not-apart = They were not kept apart.
done-entered = { $name } is entered (rating { $rating }).
done-registered-not-entered = { $name } is registered but not entered: { $reason }
done-registered = { $name } is registered and entered (rating { $rating }).
details-heading = About the tournament
details-place = Place
details-dates = Dates
details-date-range = { $start } – { $end }
details-organiser = Organiser
details-chief-arbiter = Chief arbiter
details-deputies = Deputy arbiters
details-time-control = Time control
details-rating = Rating
details-rules = Rules
details-round-dates = Round dates
details-round-date = round { $round }: { $date }
details-note = Note
details-federation = Federation (three letters)
details-start = First day
details-end = Last day
details-one-a-line = one a line
details-round-dates-hint = yyyy-mm-dd, one a line, round 1 first
details-button = Save the details
done-details = The details are saved.
done-details-same = The details were these already.
