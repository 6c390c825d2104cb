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
game-over = Game over: { $summary }
to-move = { $side ->
    [white] White
   *[black] Black
} to move, turn { $turn }
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
