#!/bin/sh
# Makes expected.txt from bbpPairings' own output (see README.md).
# Usage: BBP=/path/to/bbpPairings.exe BBP_COMMIT=<its commit> \
#   sh crates/pairing/tests/data/real/regenerate.sh
# (run from the workspace root; the first test run writes the cut files and may fail while
# expected.txt is stale, which is what this script is for).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cuts=$(mktemp -d)
REAL_TRF_CUTS=$cuts CARGO_INCREMENTAL=0 cargo test -q -p hanniball-pairing --test pairing \
  real_files::cut_back >/dev/null 2>&1 || true
out=$here/expected.txt
{
  echo "# Source: bbpPairings $BBP_COMMIT, \`bbpPairings.exe --dutch FILE -p OUT\` and \`-c\`, by regenerate.sh:"
  echo "# pair FILE ROUND: -p on the file cut back to the rounds before ROUND (white-black, bye)"
  echo "# check FILE: the rounds -c shows as not its pairing"
  for path in "$here"/*.trf; do
    name=$(basename "$path")
    for cut in $(ls -v "$cuts/$name".r*); do
      round=${cut##*.r}
      if "$BBP" --dutch "$cut" -p "$cuts/pairs" >/dev/null 2>&1; then
        pairs=$(tail -n +2 "$cuts/pairs" | awk '{ if ($2 == "0") printf " bye %s", $1; else printf " %s-%s", $1, $2 }')
        echo "pair $name $round$pairs"
      else
        echo "pair $name $round none"
      fi
    done
    rounds=$("$BBP" --dutch "$cuts/$name" -c 2>&1 |
      awk '/: Round #/ { r = substr($NF, 2) } /Checker pairings|No valid pairing/ { printf " %s", r }')
    echo "check $name$rounds"
  done
} >"$out"
rm -r "$cuts"
echo "wrote $out"
