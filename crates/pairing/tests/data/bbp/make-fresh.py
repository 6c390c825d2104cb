#!/usr/bin/env python3
"""Makes the `fresh-*.trf` tournaments of this directory with bbpPairings' generator.

Sixty random configurations drawn from one seed (20261126): 9 to 400 players, 5 to 11 rounds,
random draw, forfeit, absence and half-point-bye rates, and every fifth with another point
system. Each file is bbpPairings' output, unchanged; its name gives players, rounds and the
generator's seed. To make them again (bbpPairings built from BieremaBoyzProgramming/bbpPairings
at commit 16a000f, `make`):

    python3 crates/pairing/tests/data/bbp/make-fresh.py /path/to/bbpPairings.exe
"""

import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    bbp = sys.argv[1]
    rng = random.Random(20261126)
    for i in range(60):
        seed = 30000 + i
        players = rng.choice([rng.randint(9, 40), rng.randint(41, 150), rng.randint(151, 400)])
        rounds = rng.randint(5, 11)
        if players < 14:
            rounds = min(rounds, players - 2)
        cfg = (
            f"PlayersNumber={players}\nRoundsNumber={rounds}\n"
            f"DrawPercentage={rng.randint(10, 45)}\nForfeitRate={rng.randint(6, 30)}\n"
            f"RetiredRate={rng.randint(4, 30)}\nHalfPointByeRate={rng.randint(4, 30)}\n"
            "HighestRating=2700\nLowestRating=1200\n"
        )
        if i % 5 == 4:
            w, d, l = rng.choice([(3, 1, 0), (2, 1, 0), (1, 0.5, 0), (3, 2, 1), (4, 2, 1)])
            cfg += (
                f"PointsForWin={w}\nPointsForDraw={d}\nPointsForLoss={l}\nPointsForZPB=0\n"
                f"PointsForForfeitLoss={l if l else 0}\nPointsForPAB={w}\n"
            )
        name = os.path.join(HERE, f"fresh-p{players}-r{rounds}-s{seed}")
        with open(name + ".cfg", "w") as out:
            out.write(cfg)
        try:
            subprocess.run([bbp, "--dutch", "-g", name + ".cfg", "-o", name + ".trf", "-s", str(seed)], check=True)
        finally:
            os.unlink(name + ".cfg")
        print(name + ".trf")


if __name__ == "__main__":
    main()
