#!/usr/bin/env bash
# How long calls take to fail while PostgreSQL is killed (kill -9 of the postmaster): a
# throwaway cluster on port 5433, `hanniball serve` on it, two loops of client commands for
# 22 s, the database killed 6 s in. Prints how many failing calls took how long (tenths of a
# second), and the slowest. Needs PostgreSQL's server binaries and the `postgres` user (Debian's
# packages); run as root from the workspace after `cargo build -p hanniball-cli`.
set -euo pipefail
cd "$(dirname "$0")/../.."
H=$PWD/target/debug/hanniball
PGBIN=$(ls -d /usr/lib/postgresql/*/bin | head -1)
WORK=$(mktemp -d /tmp/hb-fault.XXXX)
chown postgres "$WORK"
su postgres -c "$PGBIN/initdb -D $WORK/pg -A trust -U postgres >/dev/null"
su postgres -c "$PGBIN/pg_ctl -D $WORK/pg -o '-p 5433 -k $WORK' -l $WORK/pg.log start >/dev/null"
sleep 2
psql -h 127.0.0.1 -p 5433 -U postgres -qc "create database hb"
export HANNIBALL__DATA_DIR=$WORK/data HANNIBALL_SERVER=http://127.0.0.1:50151
"$H" serve --listen 127.0.0.1:50151 --database postgres://postgres@127.0.0.1:5433/hb \
  >"$WORK/serve.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; rm -rf "$WORK"' EXIT
sleep 6
"$H" player register alice --bot >/dev/null
"$H" player register bob --bot >/dev/null
"$H" game create --white alice --black bob >/dev/null
probe() {
  local end=$(($(date +%s) + 22)) i=0
  local cmds=("game show 1" "game list" "ratings leaderboard" "tournament list" "player show alice")
  while [ "$(date +%s)" -lt $end ]; do
    local c=${cmds[$((i % 5))]}
    i=$((i + 1))
    local s e rc=0
    s=$(date +%s.%N)
    "$H" $c >/dev/null 2>&1 || rc=$?
    e=$(date +%s.%N)
    echo "$(echo "$e - $s" | bc) $rc $c"
  done
}
probe >"$WORK/a" &
probe >"$WORK/b" &
sleep 6
pkill -9 -f "postgres -D $WORK/pg"
wait %2 %3 2>/dev/null || wait
echo "failing calls by time taken (s, rounded down to a tenth), and the command:"
cat "$WORK/a" "$WORK/b" | awk '$2 != 0 {print int($1 * 10) / 10, $3, $4}' | sort | uniq -c | sort -k2 -n
echo "calls: $(cat "$WORK/a" "$WORK/b" | wc -l); failed: $(cat "$WORK/a" "$WORK/b" | awk '$2 != 0' | wc -l)"
echo "slowest failing call: $(cat "$WORK/a" "$WORK/b" | awk '$2 != 0' | sort -n | tail -1)"
