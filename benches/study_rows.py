"""Keep the rows of an EPD file that come from training games (the data
study, benches/study.sh): IDS is a CSV written by the same extraction with
--fen (its `game` column gives each row's game, its `fen` checks that the
rows line up), SIDES is benches/study_split.py's sides.txt.

Usage: python3 benches/study_rows.py IDS SIDES IN.epd OUT.epd
"""
import csv
import sys


def main(ids, sides, source, out):
    side = [line.strip() for line in open(sides)]
    kept = 0
    with open(ids, newline="") as rows, open(source) as epd, open(out, "w") as train:
        for row, line in zip(csv.DictReader(rows), epd, strict=True):
            if row["fen"].split()[:4] != line.split()[:4]:
                sys.exit(f"{source}: the row of game {row['game']} is not the position of {ids}: the files do not line up")
            if side[int(row["game"])] == "train":
                train.write(line)
                kept += 1
    print(f"{out}: {kept} rows of training games")


if __name__ == "__main__":
    main(*sys.argv[1:])
