#!/usr/bin/env python3
"""A HanniBall bot in plain Python gRPC: an example of the API, not a strong player.

It knows no rules: it follows its games on the arbiter's WatchPlayer stream, lists its active
games on every (re)connect so that it resumes mid-game, and when it is to move builds a whole turn
of up to four steps, each chosen from what GetLegalSteps lists as legal after the steps chosen so
far: a goal if a step scores, otherwise (half the time) the step that takes the ball furthest
forward, otherwise a random step; it ends the turn where the arbiter says it may, checks it with
CheckTurn and submits it. With --queue it waits for opponents in the scheduler's matchmaking queue.

The gRPC stubs are generated at start-up from the repository's .proto files into a temporary
directory (nothing generated is kept or committed). See README.md.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import grpc

HERE = Path(__file__).resolve().parent
DEFAULT_PROTO_DIR = HERE.parent.parent / "proto"
PROTO_FILES = [
    "hanniball/accounts/v1/accounts.proto",
    "hanniball/arbiter/v1/arbiter.proto",
    "hanniball/scheduler/v1/scheduler.proto",
]

# Set by load_stubs().
accounts_pb2 = accounts_grpc = arbiter_pb2 = arbiter_grpc = scheduler_pb2 = scheduler_grpc = None


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def load_stubs(proto_dir: Path, out_dir: Path) -> None:
    """Generates the Python stubs with grpc_tools.protoc and imports them."""
    global accounts_pb2, accounts_grpc, arbiter_pb2, arbiter_grpc, scheduler_pb2, scheduler_grpc
    command = [
        sys.executable, "-m", "grpc_tools.protoc", f"-I{proto_dir}",
        f"--python_out={out_dir}", f"--grpc_python_out={out_dir}", *PROTO_FILES,
    ]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"protoc failed ({' '.join(command)}):\n{done.stderr}")
    sys.path.insert(0, str(out_dir))
    from hanniball.accounts.v1 import accounts_pb2 as a, accounts_pb2_grpc as ag
    from hanniball.arbiter.v1 import arbiter_pb2 as r, arbiter_pb2_grpc as rg
    from hanniball.scheduler.v1 import scheduler_pb2 as s, scheduler_pb2_grpc as sg
    accounts_pb2, accounts_grpc, arbiter_pb2, arbiter_grpc = a, ag, r, rg
    scheduler_pb2, scheduler_grpc = s, sg


# --- strategy (RULES.md 1.11 notation) ------------------------------------------------------

STEP = re.compile(r"^([a-i])(\d+)([-=>])([a-i])(\d+)(?:>([a-i])(\d+))?$")
GOALS = {"white": {"d15", "e15", "f15"}, "black": {"d1", "e1", "f1"}}  # the goal each side attacks


def ball_step(step: str):
    """For a carry or shot: (from rank, landing square, landing rank); None for other steps."""
    m = STEP.match(step)
    if not m or m.group(3) == "-":
        return None
    if m.group(6):  # ricochet off a keeper: lands on the third square
        return int(m.group(2)), m.group(6) + m.group(7), int(m.group(7))
    return int(m.group(2)), m.group(4) + m.group(5), int(m.group(5))


def choose_step(steps: list[str], side: str, rng: random.Random):
    """A goal if a step scores; otherwise, half the time, the step that takes the ball furthest
    forward; otherwise a random step. None when every step would score for the opponent."""
    own_goal = GOALS["black" if side == "white" else "white"]
    candidates = []
    for step in steps:
        ball = ball_step(step)
        if ball and ball[1] in GOALS[side]:
            return step  # a goal ends the game at once
        if ball and ball[1] in own_goal:
            continue  # never score for the opponent
        candidates.append(step)
    if not candidates:
        return None
    if rng.random() < 0.5:
        forward = 1 if side == "white" else -1
        gains = [(forward * (b[2] - b[0]), s) for s in candidates if (b := ball_step(s))]
        best = max((gain for gain, _ in gains), default=0)
        if best > 0:
            return rng.choice([s for gain, s in gains if gain == best])
    return rng.choice(candidates)


# --- the client ---------------------------------------------------------------------------

class Fatal(Exception):
    """An error that reconnecting cannot fix (bad token, bad arguments)."""


class Bot:
    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.server = args.server
        self.scheduler_url = args.scheduler or args.server
        self.target = address(args.server)
        self.metadata = (("authorization", f"Bearer {args.token}"),)
        self.rng = random.Random(args.seed)
        self.me = 0
        self.name = "?"
        self.sides: dict[int, str] = {}  # game id -> our side ("white"/"black")
        self.kinds: dict[int, str] = {}  # game id -> "hanniball" or "paper-football"
        self.active: set[int] = set()
        self.finished: set[int] = set()
        self.turns_played = 0
        self.rate_limited = 0  # calls the server refused for its rate limit
        self.connected = False  # this session got as far as the event stream
        self.longest_turn = 0  # most steps in one turn played

    # -- helpers
    def done(self) -> bool:
        return self.args.games > 0 and len(self.finished) >= self.args.games

    def call(self, method, request, retries: int = 5):
        """A unary call with the token, retried while the server is UNAVAILABLE, and after the
        server's own back-off when it refuses for a rate limit (RESOURCE_EXHAUSTED)."""
        attempt = 0
        limited = 0
        while True:
            try:
                return method(request, metadata=self.metadata, timeout=self.args.call_timeout)
            except grpc.RpcError as error:
                wait = pushback(error)
                if wait is not None and limited < 100:
                    # A rate limit, not a lost connection: wait as long as the server says.
                    limited += 1
                    self.note_rate_limit(wait)
                    time.sleep(wait)
                    continue
                attempt += 1
                if error.code() not in (grpc.StatusCode.UNAVAILABLE,
                                        grpc.StatusCode.DEADLINE_EXCEEDED) or attempt >= retries:
                    raise
                time.sleep(0.2 * 2 ** (attempt - 1))

    def note_rate_limit(self, wait: float) -> None:
        self.rate_limited += 1
        if self.rate_limited == 1 or self.rate_limited % 50 == 0:
            log(f"{self.name}: rate-limited by the server ({self.rate_limited} so far); "
                f"waiting {wait:.2f}s as it asks")

    def note_game(self, game) -> None:
        self.kinds[game.id] = game.kind
        if game.white_player_id == self.me:
            self.sides[game.id] = "white"
        elif game.black_player_id == self.me:
            self.sides[game.id] = "black"
        if game.state.status == arbiter_pb2.GAME_STATUS_ACTIVE:
            self.active.add(game.id)
        else:
            self.game_over(game.id, game.state)

    def game_over(self, game_id: int, state) -> None:
        self.active.discard(game_id)
        if game_id not in self.finished:
            self.finished.add(game_id)
            summary = state.result.summary if state.HasField("result") else "over"
            log(f"{self.name}: game {game_id} over: {summary} "
                f"({len(self.finished)} finished)")

    def join_queue(self) -> None:
        if not self.args.queue or self.active or self.done():
            return
        request = scheduler_pb2.JoinQueueRequest(kind="hanniball", rated=self.args.rated)
        if self.args.time:
            request.time_control.CopyFrom(parse_time(self.args.time))
        self.call(self.scheduler.JoinQueue, request)
        log(f"{self.name}: waiting in the matchmaking queue")

    # -- playing
    def play(self, game_id: int) -> None:
        """Plays our turn in a game if it is ours to play; re-reads the game after a stale answer."""
        if game_id not in self.sides:
            self.note_game(self.call(self.arbiter.GetGame,
                                     arbiter_pb2.GetGameRequest(game_id=game_id)).game)
        side = self.sides.get(game_id)
        if side is None:
            return
        if self.kinds.get(game_id) != "hanniball":
            log(f"{self.name}: game {game_id} is {self.kinds.get(game_id)!r}: "
                "this bot plays HanniBall only; resigning")
            try:
                self.call(self.arbiter.Resign, arbiter_pb2.ResignRequest(game_id=game_id))
            except grpc.RpcError as error:
                log(f"{self.name}: resigning game {game_id}: {error.details()}")
            return
        for _ in range(5):
            answer = self.call(self.arbiter.GetLegalSteps,
                               arbiter_pb2.GetLegalStepsRequest(game_id=game_id))
            state = answer.state
            if state.status != arbiter_pb2.GAME_STATUS_ACTIVE:
                self.game_over(game_id, state)
                return
            to_move = "white" if state.side_to_move == arbiter_pb2.SIDE_WHITE else "black"
            if to_move != side or not answer.steps:
                return
            turn = self.build_turn(game_id, side)
            if turn is None:
                log(f"{self.name}: game {game_id}: found no turn; resigning")
                self.call(self.arbiter.Resign, arbiter_pb2.ResignRequest(game_id=game_id))
                return
            request = arbiter_pb2.SubmitTurnRequest(
                game_id=game_id, turn_number=state.next_turn_number, turn=turn)
            try:
                # What SubmitTurn would answer, changing nothing; then the real thing.
                self.call(self.arbiter.CheckTurn, request)
                reply = self.call(self.arbiter.SubmitTurn, request)
            except grpc.RpcError as error:
                code = error.code()
                if code in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.ABORTED,
                            grpc.StatusCode.FAILED_PRECONDITION):
                    # A turn through another connection, the clock, a refused turn: read the game
                    # again and decide again.
                    log(f"{self.name}: game {game_id}: {turn!r} not taken "
                        f"({code.name}: {error.details()}); re-reading")
                    continue
                raise
            self.turns_played += 1
            self.longest_turn = max(self.longest_turn, len(turn.split()))
            if self.args.verbose:
                log(f"{self.name}: game {game_id} turn {reply.record.number}: {turn}")
            if reply.state.status != arbiter_pb2.GAME_STATUS_ACTIVE:
                self.game_over(game_id, reply.state)
            return
        log(f"{self.name}: game {game_id}: giving up on this turn for now")

    def build_turn(self, game_id: int, side: str):
        """A whole turn (up to four steps), each step chosen from what the arbiter lists as legal
        after the steps chosen so far; the turn ends where the arbiter says it may (sometimes at
        once, always after a goal or when nothing useful is left). None if no turn was found."""
        for _ in range(10):
            chosen: list[str] = []
            while True:
                answer = self.call(self.arbiter.GetLegalSteps, arbiter_pb2.GetLegalStepsRequest(
                    game_id=game_id, after=" ".join(chosen)))
                if answer.must_end:
                    return " ".join(chosen)
                step = choose_step(list(answer.steps), side, self.rng)
                scores = step is not None and (b := ball_step(step)) is not None \
                    and b[1] in GOALS[side]
                if answer.may_end and not scores and (step is None or self.rng.random() < 0.3):
                    return " ".join(chosen)
                if step is None:
                    break  # a dead end before the turn may end: start the turn again
                chosen.append(step)
        return None

    def resync(self) -> None:
        """After (re)connecting: our active games (and any we knew that ended meanwhile)."""
        games = self.call(self.arbiter.ListGames, arbiter_pb2.ListGamesRequest(
            player_id=self.me, status=arbiter_pb2.GAME_STATUS_ACTIVE, limit=500)).games
        listed = {game.id for game in games}
        for game_id in sorted(self.active - listed):
            game = self.call(self.arbiter.GetGame, arbiter_pb2.GetGameRequest(game_id=game_id)).game
            self.note_game(game)
        for game in games:
            self.note_game(game)
        if games:
            log(f"{self.name}: active games {sorted(listed)}")
        for game_id in sorted(listed):
            self.play(game_id)

    def handle(self, event) -> None:
        kind = event.WhichOneof("event")
        if kind == "game_started":
            self.note_game(event.game_started)
            log(f"{self.name}: game {event.game_id} started, playing "
                f"{self.sides.get(event.game_id, '?')}")
            self.play(event.game_id)
        elif kind == "your_turn":
            self.active.add(event.game_id)
            self.play(event.game_id)
        elif kind == "game_over":
            self.game_over(event.game_id, event.game_over.state)
            self.join_queue()
        elif kind == "draw_offered":
            pass  # a draw offer lapses when we play our next turn

    def session(self) -> None:
        """One connection: returns when done; raises grpc.RpcError when the connection fails."""
        options = [("grpc.keepalive_time_ms", 30_000), ("grpc.keepalive_timeout_ms", 10_000)]
        with open_channel(self.server, self.args, options) as channel, \
                open_channel(self.scheduler_url, self.args, options) as scheduler:
            self.arbiter = arbiter_grpc.ArbiterStub(channel)
            self.scheduler = scheduler_grpc.SchedulerStub(scheduler)
            accounts = accounts_grpc.AccountsStub(channel)
            who = self.call(accounts.WhoAmI, accounts_pb2.WhoAmIRequest())
            if not who.HasField("player"):
                raise Fatal("this is the admin token: a bot needs a player's token")
            self.me, self.name = who.player.id, who.player.name
            events = self.arbiter.WatchPlayer(arbiter_pb2.WatchPlayerRequest(),
                                              metadata=self.metadata)
            try:
                events.initial_metadata()  # the server has subscribed us: nothing is missed now
                self.connected = True
                log(f"{self.name} (player {self.me}) connected to {self.target}")
                self.resync()
                self.join_queue()
                while not self.done():
                    event = next(events, None)
                    if event is None:
                        log(f"{self.name}: the server ended the event stream")
                        return
                    self.handle(event)
            finally:
                events.cancel()

    def run(self) -> int:
        backoff = 0.5
        while not self.done():
            self.connected = False
            try:
                self.session()
                backoff = 0.5
            except Fatal as error:
                log(f"{self.name}: {error}")
                return 2
            except grpc.RpcError as error:
                code = error.code()
                if code in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED,
                            grpc.StatusCode.INVALID_ARGUMENT):
                    log(f"{self.name}: {code.name}: {error.details()}")
                    return 2
                wait = pushback(error)
                if wait is not None:
                    # The stream was refused for a limit: reconnect when the server says.
                    self.note_rate_limit(wait)
                    time.sleep(wait)
                    continue
                if self.connected:
                    backoff = 0.5  # a new outage: its back-off starts again
                log(f"{self.name}: connection lost ({code.name}: {error.details()}); "
                    f"reconnecting in {backoff:.1f}s")
            if not self.done():
                time.sleep(backoff)
                backoff = min(backoff * 2, 10.0)
        log(f"{self.name}: done: {len(self.finished)} game(s) finished, "
            f"{self.turns_played} turns played, longest turn {self.longest_turn} steps, "
            f"rate-limited {self.rate_limited} times")
        return 0


def pushback(error) -> float | None:
    """The server's back-off in seconds when it refused a call for a limit: RESOURCE_EXHAUSTED
    with `grpc-retry-pushback-ms` or `retry-after` (seconds) in its trailing metadata. None for
    any other error, RESOURCE_EXHAUSTED without a back-off included (a request too large:
    sending it again cannot help)."""
    if error.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
        return None
    trailers = dict(error.trailing_metadata() or ())
    for key, scale in (("grpc-retry-pushback-ms", 0.001), ("retry-after", 1.0)):
        try:
            wait = float(trailers[key]) * scale
        except (KeyError, ValueError):
            continue
        if wait >= 0:
            return min(max(wait, 0.001), 60.0)
    return None


def address(url: str) -> str:
    """host:port for grpc from http://host:port, https://host:port or host:port."""
    return re.sub(r"^https?://", "", url).rstrip("/")


def open_channel(url: str, args, options):
    """A channel to url: TLS for https:// (checked against --ca-cert, else the system roots;
    with --client-cert/--client-key when the server requires a client certificate), plain
    otherwise."""
    if not url.startswith("https://"):
        if args.ca_cert or args.client_cert:
            raise Fatal(f"--ca-cert/--client-cert are for TLS, but {url} is not https://")
        return grpc.insecure_channel(address(url), options=options)

    def read(path):
        return Path(path).read_bytes() if path else None

    credentials = grpc.ssl_channel_credentials(root_certificates=read(args.ca_cert),
                                               private_key=read(args.client_key),
                                               certificate_chain=read(args.client_cert))
    return grpc.secure_channel(address(url), credentials, options=options)


def parse_time(text: str):
    initial, _, increment = text.partition("+")
    return arbiter_pb2.TimeControl(initial_ms=round(float(initial) * 1000),
                                   increment_ms=round(float(increment or 0) * 1000))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", default=os.environ.get("HANNIBALL_SERVER",
                                                           "http://127.0.0.1:50051"),
                        help="server address, http://host:port, https://host:port (TLS) or "
                             "host:port (default: $HANNIBALL_SERVER or http://127.0.0.1:50051)")
    parser.add_argument("--token", default=os.environ.get("HANNIBALL_TOKEN"),
                        help="the bot's bearer token (default: $HANNIBALL_TOKEN)")
    parser.add_argument("--ca-cert", default=os.environ.get("HANNIBALL_CA_CERT"),
                        help="for an https:// server: trust this CA certificate (PEM) instead of "
                             "the system roots (default: $HANNIBALL_CA_CERT)")
    parser.add_argument("--client-cert", default=os.environ.get("HANNIBALL_CLIENT_CERT"),
                        help="for a server that requires one: a client certificate (PEM)")
    parser.add_argument("--client-key", default=os.environ.get("HANNIBALL_CLIENT_KEY"),
                        help="the key of --client-cert (PEM)")
    parser.add_argument("--scheduler",
                        help="the scheduler's address when it runs apart from the arbiter "
                             "(default: --server)")
    parser.add_argument("--games", type=int, default=0,
                        help="exit after this many finished games (default 0: run forever)")
    parser.add_argument("--queue", action="store_true",
                        help="join the matchmaking queue for a HanniBall game whenever idle")
    parser.add_argument("--time", help="with --queue: a Fischer time control in seconds, "
                                       "initial+increment (e.g. 300+5); default untimed")
    parser.add_argument("--rated", action="store_true", help="with --queue: rated games")
    parser.add_argument("--seed", type=int, help="random seed (default: random)")
    parser.add_argument("--proto-dir", type=Path, default=DEFAULT_PROTO_DIR,
                        help=f"where the .proto files are (default {DEFAULT_PROTO_DIR})")
    parser.add_argument("--stubs-dir", type=Path,
                        help="generate the stubs here (default: a temporary directory)")
    parser.add_argument("--call-timeout", type=float, default=30.0,
                        help="deadline of each unary call in seconds")
    parser.add_argument("-v", "--verbose", action="store_true", help="log every turn")
    args = parser.parse_args()
    if not args.token:
        parser.error("--token (or HANNIBALL_TOKEN) is required")
    if args.stubs_dir:
        args.stubs_dir.mkdir(parents=True, exist_ok=True)
        out_dir, temporary = args.stubs_dir, False
    else:
        out_dir, temporary = Path(tempfile.mkdtemp(prefix="hanniball-stubs-")), True
    # SIGTERM exits like Ctrl-C does, through the clean-up below.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        load_stubs(args.proto_dir, out_dir)
        return Bot(args).run()
    except KeyboardInterrupt:
        return 130
    finally:
        if temporary:
            shutil.rmtree(out_dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
