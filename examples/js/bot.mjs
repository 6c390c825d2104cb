#!/usr/bin/env node
// A HanniBall bot in JavaScript with @grpc/grpc-js: an example of the API, not a strong player.
//
// It knows no rules. Each turn is built step by step from what the arbiter says is legal next
// (GetLegalSteps with the steps chosen so far in `after`): a step that scores if there is one,
// otherwise (half the time) the step that takes the ball furthest forward, otherwise a random
// one; it ends the turn where the arbiter says it may (now and then, or when nothing is left),
// checks the whole turn with CheckTurn, and submits it. It follows its games on WatchPlayer and
// lists its active games on every (re)connect, so it resumes mid-game.
//
//   npm ci && node bot.mjs --server http://127.0.0.1:50051 --token hb_... [--games 1]
//   node bot.mjs --server https://games.example.org:50051 --ca-cert ca.pem --token hb_...
//
// The .proto files are read at start-up from the repository (--proto-dir); nothing is generated.

import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";

const here = dirname(fileURLToPath(import.meta.url));

const { values: args } = parseArgs({
  options: {
    server: { type: "string", default: process.env.HANNIBALL_SERVER ?? "http://127.0.0.1:50051" },
    token: { type: "string", default: process.env.HANNIBALL_TOKEN },
    "ca-cert": { type: "string", default: process.env.HANNIBALL_CA_CERT },
    games: { type: "string", default: "0" },
    seed: { type: "string" },
    "proto-dir": { type: "string", default: join(here, "..", "..", "proto") },
    verbose: { type: "boolean", short: "v", default: false },
  },
});
if (!args.token) {
  console.error("--token (or HANNIBALL_TOKEN) is required");
  process.exit(2);
}
const gamesWanted = Number.parseInt(args.games, 10);

// A small seeded generator (mulberry32), so that a run can be repeated with --seed.
let seed = args.seed ? Number.parseInt(args.seed, 10) >>> 0 : (Math.random() * 2 ** 32) >>> 0;
function random() {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
}
const pick = (items) => items[Math.floor(random() * items.length)];

function log(message) {
  const time = new Date().toISOString().slice(11, 19);
  console.error(`[${time}] ${message}`);
}

// --- the API ----------------------------------------------------------------------------------
const definition = protoLoader.loadSync(
  ["hanniball/accounts/v1/accounts.proto", "hanniball/arbiter/v1/arbiter.proto"],
  { includeDirs: [args["proto-dir"]], keepCase: true, longs: Number, enums: String, defaults: true, oneofs: true },
);
const api = grpc.loadPackageDefinition(definition).hanniball;

function credentials(url) {
  if (!url.startsWith("https://")) return grpc.credentials.createInsecure();
  const ca = args["ca-cert"] ? readFileSync(args["ca-cert"]) : null;
  return grpc.credentials.createSsl(ca);
}
const target = args.server.replace(/^https?:\/\//, "").replace(/\/$/, "");
const creds = credentials(args.server);
const arbiter = new api.arbiter.v1.Arbiter(target, creds);
const accounts = new api.accounts.v1.Accounts(target, creds);
const metadata = new grpc.Metadata();
metadata.set("authorization", `Bearer ${args.token}`);

/**
 * The server's back-off in milliseconds when it refused a call for a limit: RESOURCE_EXHAUSTED
 * with `grpc-retry-pushback-ms` or `retry-after` (seconds) in its trailing metadata. null for any
 * other error, RESOURCE_EXHAUSTED without a back-off included (a request too large: sending it
 * again cannot help).
 */
function pushback(error) {
  if (error.code !== grpc.status.RESOURCE_EXHAUSTED) return null;
  for (const [key, scale] of [["grpc-retry-pushback-ms", 1], ["retry-after", 1000]]) {
    const value = error.metadata?.get(key)?.[0];
    const wait = value === undefined || value === "" ? NaN : Number(value) * scale;
    if (Number.isFinite(wait) && wait >= 0) return Math.min(Math.max(wait, 1), 60_000);
  }
  return null;
}

let rateLimited = 0;
function noteRateLimit(wait) {
  rateLimited++;
  if (rateLimited === 1 || rateLimited % 50 === 0) {
    log(`rate-limited by the server (${rateLimited} so far); waiting ${wait} ms as it asks`);
  }
}

/** A unary call as a promise, retried while the server is unavailable, and after the server's
 * own back-off when it refuses for a rate limit. */
async function call(client, method, request, retries = 5) {
  for (let attempt = 0, limited = 0; ; ) {
    try {
      return await new Promise((resolve, reject) =>
        client[method](request, metadata, { deadline: Date.now() + 30_000 }, (error, reply) =>
          error ? reject(error) : resolve(reply),
        ),
      );
    } catch (error) {
      const wait = pushback(error);
      if (wait !== null && limited < 100) {
        limited++;
        noteRateLimit(wait);
        await new Promise((r) => setTimeout(r, wait));
        continue;
      }
      attempt++;
      const retry = error.code === grpc.status.UNAVAILABLE || error.code === grpc.status.DEADLINE_EXCEEDED;
      if (!retry || attempt >= retries) throw error;
      await new Promise((r) => setTimeout(r, 200 * 2 ** (attempt - 1)));
    }
  }
}

// --- strategy (RULES.md 1.11 notation) ---------------------------------------------------------
const STEP = /^([a-i])(\d+)([-=>])([a-i])(\d+)(?:>([a-i])(\d+))?$/;
const GOALS = { white: ["d15", "e15", "f15"], black: ["d1", "e1", "f1"] }; // the goal each side attacks

/** For a carry or a shot: [from rank, landing square, landing rank]; null for other steps. */
function ballStep(step) {
  const m = STEP.exec(step);
  if (!m || m[3] === "-") return null;
  if (m[6]) return [Number(m[2]), m[6] + m[7], Number(m[7])]; // ricochet: lands on the third square
  return [Number(m[2]), m[4] + m[5], Number(m[5])];
}

function chooseStep(steps, side) {
  const ownGoal = GOALS[side === "white" ? "black" : "white"];
  const candidates = [];
  for (const step of steps) {
    const ball = ballStep(step);
    if (ball && GOALS[side].includes(ball[1])) return step; // a goal ends the game at once
    if (ball && ownGoal.includes(ball[1])) continue; // never score for the opponent
    candidates.push(step);
  }
  if (candidates.length === 0) return null;
  if (random() < 0.5) {
    const forward = side === "white" ? 1 : -1;
    const gains = candidates.flatMap((s) => {
      const b = ballStep(s);
      return b ? [[forward * (b[2] - b[0]), s]] : [];
    });
    const best = Math.max(0, ...gains.map(([gain]) => gain));
    if (best > 0) return pick(gains.filter(([gain]) => gain === best).map(([, s]) => s));
  }
  return pick(candidates);
}

/** A whole turn, chosen step by step from what the arbiter lists as legal next. */
async function buildTurn(gameId, side) {
  for (let attempt = 0; attempt < 10; attempt++) {
    const chosen = [];
    for (;;) {
      const next = await call(arbiter, "GetLegalSteps", { game_id: gameId, after: chosen.join(" ") });
      if (next.must_end) return chosen.join(" ");
      const step = chooseStep(next.steps, side);
      const scores = step !== null && GOALS[side].includes(ballStep(step)?.[1]);
      if (next.may_end && !scores && (step === null || random() < 0.3)) return chosen.join(" ");
      if (step === null) break; // a dead end before the turn may end: start the turn again
      chosen.push(step);
    }
  }
  return null;
}

// --- the bot ----------------------------------------------------------------------------------
let me = 0;
let name = "?";
const sides = new Map(); // game id -> "white" | "black"
const finished = new Set();
const busy = new Set();
let turnsPlayed = 0;
let connected = false; // this session got as far as the event stream
let longestTurn = 0; // most steps in one turn played
const done = () => gamesWanted > 0 && finished.size >= gamesWanted;

function gameOver(gameId, state) {
  if (finished.has(gameId)) return;
  finished.add(gameId);
  log(`${name}: game ${gameId} over: ${state?.result?.summary ?? "over"} (${finished.size} finished)`);
}

async function play(gameId) {
  if (busy.has(gameId)) return;
  busy.add(gameId);
  try {
    if (!sides.has(gameId)) {
      const { game } = await call(arbiter, "GetGame", { game_id: gameId });
      if (game.white_player_id === me) sides.set(gameId, "white");
      else if (game.black_player_id === me) sides.set(gameId, "black");
      if (game.kind !== "hanniball") {
        log(`${name}: game ${gameId} is ${game.kind}: this bot plays HanniBall only; resigning`);
        await call(arbiter, "Resign", { game_id: gameId }).catch(() => {});
        return;
      }
    }
    const side = sides.get(gameId);
    for (let tries = 0; tries < 5 && side; tries++) {
      const { state } = await call(arbiter, "GetLegalSteps", { game_id: gameId, after: "" });
      if (state.status !== "GAME_STATUS_ACTIVE") return gameOver(gameId, state);
      if (state.side_to_move !== (side === "white" ? "SIDE_WHITE" : "SIDE_BLACK")) return;
      const turn = await buildTurn(gameId, side);
      if (turn === null) {
        log(`${name}: game ${gameId}: found no turn; resigning`);
        await call(arbiter, "Resign", { game_id: gameId });
        return;
      }
      const request = { game_id: gameId, turn_number: state.next_turn_number, turn };
      try {
        await call(arbiter, "CheckTurn", request); // what SubmitTurn would say, changing nothing
        const reply = await call(arbiter, "SubmitTurn", request);
        turnsPlayed++;
        longestTurn = Math.max(longestTurn, turn.split(" ").length);
        if (args.verbose) log(`${name}: game ${gameId} turn ${reply.record.number}: ${turn}`);
        if (reply.state.status !== "GAME_STATUS_ACTIVE") gameOver(gameId, reply.state);
        return;
      } catch (error) {
        // Refused (the clock, a draw, a turn through another connection): read the game again.
        log(`${name}: game ${gameId}: ${JSON.stringify(turn)} not taken: ${error.details}`);
      }
    }
  } finally {
    busy.delete(gameId);
  }
}

async function session() {
  const who = await call(accounts, "WhoAmI", {});
  if (!who.player) throw Object.assign(new Error("this is the admin token: a bot needs a player's token"), { fatal: true });
  me = who.player.id;
  name = who.player.name;
  const stream = arbiter.WatchPlayer({}, metadata);
  connected = true;
  log(`${name} (player ${me}) connected to ${args.server}`);
  const { games } = await call(arbiter, "ListGames", { player_id: me, status: "GAME_STATUS_ACTIVE", limit: 500 });
  for (const game of games) await play(game.id);
  await new Promise((resolve, reject) => {
    const queue = [];
    let running = false;
    const drain = async () => {
      if (running) return;
      running = true;
      try {
        while (queue.length > 0) {
          const event = queue.shift();
          if (event.event === "game_over") gameOver(event.game_id, event.game_over.state);
          else if (event.event === "game_started" || event.event === "your_turn") await play(event.game_id);
          if (done()) {
            stream.cancel();
            return resolve();
          }
        }
      } catch (error) {
        stream.cancel();
        return reject(error);
      } finally {
        running = false;
      }
    };
    stream.on("data", (event) => {
      queue.push(event);
      drain();
    });
    stream.on("error", (error) => (error.code === grpc.status.CANCELLED && done() ? resolve() : reject(error)));
    stream.on("end", resolve);
  });
}

// A lost connection waits 0.2 s, doubling up to 5 s while it stays lost, from 0.2 s again after a
// session that worked; a rate limit waits what the server says and leaves that back-off alone.
let backoff = 200;
while (!done()) {
  connected = false;
  try {
    await session();
  } catch (error) {
    if (error.fatal || error.code === grpc.status.UNAUTHENTICATED || error.code === grpc.status.PERMISSION_DENIED) {
      log(`${name}: ${error.details ?? error.message}`);
      process.exit(1);
    }
    const wait = pushback(error);
    if (wait !== null) {
      noteRateLimit(wait);
      await new Promise((r) => setTimeout(r, wait));
      continue;
    }
    if (connected) backoff = 200;
    log(`${name}: connection lost (${error.details ?? error.message}); reconnecting in ${backoff} ms`);
    await new Promise((r) => setTimeout(r, backoff));
    backoff = Math.min(backoff * 2, 5_000);
  }
}
log(`${name}: done: ${finished.size} game(s) finished, ${turnsPlayed} turns played, longest turn ${longestTurn} steps, rate-limited ${rateLimited} times`);
process.exit(0);
