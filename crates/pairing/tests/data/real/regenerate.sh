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
# The file as it is, for bbpPairings' -c: the five it refuses with the least edit that it reads
# (README.md says which and why).
as_is() {
  case $(basename "$1") in
    fide-c07-*) sed 's/   0 - /0000 - /g' "$1" ;;
    half-point-bye-in-round-2.trf) sed '/^001    2 /s/ 0\.5\(          4 b =  0000 - H\)/ 1.0\1/' "$1" ;;
    javafo-half-point-byes.trf)
      sed '/^192 FIDE_DUTCH_2017/d; /^001    4 /s/ 2\.0 / 2.5 /; /^001   13 /s/ 0\.5 / 1.0 /' "$1" ;;
    tbs-no-colour-preference.trf) sed '/^162 /{s/    X 0\.5$//;s/ A / Z /}' "$1" ;;
    *) cat "$1" ;;
  esac
}
checked_rounds() {
  "$BBP" --dutch "$1" -c 2>&1 |
    awk '/: Round #/ { r = substr($NF, 2) } /Checker pairings|No valid pairing/ { printf " %s", r }'
}
{
  echo "# Source: bbpPairings $BBP_COMMIT, \`bbpPairings.exe --dutch FILE -p OUT\` and \`-c\`, by regenerate.sh:"
  echo "# pair FILE ROUND: -p on the file cut back to the rounds before ROUND (white-black, bye)"
  echo "# check FILE: the rounds -c shows as not its pairing"
  echo "# check-as-is FILE: the same, -c on the file as it is (five with the edit README.md names)"
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
    echo "check $name$(checked_rounds "$cuts/$name")"
    as_is "$path" >"$cuts/as-is.trf"
    "$BBP" --dutch "$cuts/as-is.trf" -c >/dev/null 2>&1 || { echo "bbpPairings refuses $name as is" >&2; exit 1; }
    echo "check-as-is $name$(checked_rounds "$cuts/as-is.trf")"
  done
} >"$out"
rm -r "$cuts"
echo "wrote $out"
