#!/usr/bin/env python3
"""Writes the expected tie-break values in this directory by running TieBreakServer.

TieBreakServer (https://github.com/OttoMilvang/TieBreakServer, the FIDE Technical Commission
secretary's tie-break program) is not part of this repository; fetch it and install networkx:

    git clone https://github.com/OttoMilvang/TieBreakServer /tmp/tbs   # commit 14a34a2, 1.9.57
    pip install networkx
    python3 crates/pairing/tests/data/tiebreak/tbs/make.py /tmp/tbs [COMMIT]

For every source file and variant below, and each rules text, it writes `NAME.VARIANT.RULES.tsv`
with TieBreakServer's own text output (`-d T`) of four runs: the tie-break list, Fore Buchholz
(alone, since it changes the state later tie-breaks of the same run read), DE (after points
only) and STD (the 2026 text's standard points); a run TieBreakServer fails is a `# failed:`
line instead. Files already written are kept (delete them to write them again); one without
the STD run gets it appended. The input is the source file with CR line ends turned into LF; an `unrated4` variant sets
the rating of every player whose number is a multiple of 4 to 0 (unrated), and runs once as is
(FIDE: rating-based tie-breaks are dropped) and once with `-u 1400`.
"""

import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BBP = os.path.join(HERE, "..", "..", "bbp")
# Real files (each names its source in its first line), copied from tests/data/real of the TRF
# reading work so that this test stands alone.
REAL = os.path.join(HERE, "..", "..", "real")
# Edge cases of TRF reading (issue 50): each as it is, and a file of blank half-point byes (`0000 -`
# with a blank result, counted in the points column) also with each blank result written `H`, its
# meaning (the `blank-as-h` variant: ours reads the file as is with `--blank-as H`).
EDGES = os.path.join(HERE, "..", "..", "trf-edges")

MAIN = "PTS BH BH/C1 BH/C2 BH/M1 BH/M2 SB SB/C1 PS PS/C1 KS AOB WIN WON BPG BWG REP VUR ARO ARO/C1 ARO/M1 TPR PTP APRO APPO RTNG TPN".split()
FORE = "PTS FB FB/C1".split()
DE = "PTS DE".split()
STD = "PTS STD".split()


def versioned(tbs, rules):
    return [tb if tb in ("PTS", "DE") else f"{tb}/V{rules}" for tb in tbs]


def unrated4(text):
    out = []
    for line in text.split("\n"):
        if line.startswith("001") and len(line) >= 52 and int(line[4:8]) % 4 == 0:
            line = line[:48] + "   0" + line[52:]
        out.append(line)
    return "\n".join(out)


def blank_as_h(text):
    """Every round of a player line without an opponent and with a blank result (`0000 -  `,
    ten columns from column 90) written as a half-point bye (`0000 - H`)."""
    out = []
    for line in text.split("\n"):
        if line.startswith("001"):
            cells = [line[i : i + 10] for i in range(89, len(line), 10)]
            cells = [c[:9] + "H" if c[2:9] == "0000 - " and c[9:].strip() == "" else c for c in cells]
            line = line[:89] + "".join(cells)
        out.append(line)
    return "\n".join(out)


def run(tbs_dir, path, tbs, extra):
    cmd = ["python3", "tiebreakchecker.py", "-i", path, "-s", "-d", "T", *extra, "-t", *tbs]
    done = subprocess.run(cmd, cwd=tbs_dir, capture_output=True, text=True)
    shown = " ".join("IN" if c == path else c for c in cmd)
    if done.returncode != 0:
        # TieBreakServer fails on a few extreme files (a run, not a value): no block.
        why = " ".join(done.stdout.split()).replace(f'"{path}"', "IN").replace(path, "IN")
        return f"# failed: {shown}: exit {done.returncode}: {why}\n"
    return f"# command: {shown}\n{done.stdout}"


def main():
    tbs_dir = sys.argv[1]
    # Its commit: from its git history, or given (an exported tree has none).
    version = sys.argv[2] if len(sys.argv) > 2 else subprocess.run(["git", "log", "-1", "--format=%h"], cwd=tbs_dir, capture_output=True, text=True).stdout.strip()
    sources = sorted(f for f in os.listdir(BBP) if f.endswith(".trf"))
    # Every generated tournament of at most 200 players, under both texts; unrated variants of
    # the smaller ones under 2026 (ratings do not depend on the text).
    jobs = []
    for f in sources:
        players = int(f.split("-")[1][1:])
        if players <= 200:
            for rules in ("2024", "2026"):
                jobs.append((f, "as-is", rules, []))
        if players <= 60:
            jobs.append((f, "unrated4", "2026", []))
            jobs.append((f, "unrated4-1400", "2026", ["-u", "1400"]))
    done = {f for f in os.listdir(HERE) if f.endswith(".tsv")}
    for f in sorted(os.listdir(REAL)):
        if f.endswith(".trf"):
            for rules in ("2024", "2026"):
                jobs.append((f, "real", rules, []))
    for f in sorted(os.listdir(EDGES)):
        if f.endswith(".trf"):
            for rules in ("2024", "2026"):
                jobs.append((f, "edge", rules, []))
                if "blank" in f:
                    jobs.append((f, "blank-as-h", rules, []))
    for f, variant, rules, extra in jobs:
        name = f"{f[:-4]}.{variant}.{rules}.tsv"
        runs = (MAIN, FORE, DE, STD)
        if name in done:
            written = open(os.path.join(HERE, name)).read()
            if "\tSTD/V" in written or " STD/V" in written:
                continue
            runs = (STD,)
        folder, shown = {"real": (REAL, "real"), "edge": (EDGES, "trf-edges"), "blank-as-h": (EDGES, "trf-edges")}.get(variant, (BBP, "bbp"))
        text = open(os.path.join(folder, f), newline="", encoding="latin-1").read().replace("\r\n", "\n").replace("\r", "\n")
        if variant.startswith("unrated4"):
            text = unrated4(text)
        if variant == "blank-as-h":
            text = blank_as_h(text)
        with tempfile.NamedTemporaryFile("w", suffix=".trf", delete=False, encoding="latin-1") as tmp:
            tmp.write(text)
        try:
            body = "".join(run(tbs_dir, tmp.name, versioned(t, rules), extra) for t in runs)
        finally:
            os.unlink(tmp.name)
        if len(runs) == 1:
            with open(os.path.join(HERE, name), "a") as out:
                out.write(body)
            print(name, "+ STD")
            continue
        header = (
            f"# Expected values from TieBreakServer {version} (OttoMilvang/TieBreakServer), written by make.py.\n"
            f"# source: crates/pairing/tests/data/{shown}/{f}\n"
            f"# variant: {variant}\n"
            f"# rules: {rules}\n"
        )
        with open(os.path.join(HERE, name), "w") as out:
            out.write(header + body)
        print(name)


if __name__ == "__main__":
    main()
