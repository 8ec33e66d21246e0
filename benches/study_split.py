"""Split the human collection into training and test games for the data
study (benches/study.sh): by a hash of each game (its White, Black, Date,
Round and Event tags and its moves), so that the copies of one game in two
players' files fall on the same side; about 10% of the games are test games.

Writes OUT/train.pgn and OUT/test.pgn (each game once) and OUT/sides.txt (one line per
game of the collection in pgntune's reading order, `train` or `test`: the
`game` ids of `pgntune extract` index it).

Usage: python3 benches/study_split.py OUT PGN...
"""
import hashlib
import sys


def games(path):
    """The games of a PGN file as bytes, split where a tag section starts after movetext."""
    data = open(path, "rb").read().replace(b"\r\n", b"\n")
    current = []
    for line in data.split(b"\n"):
        if line.startswith(b"[Event ") and any(not l.startswith(b"[") and l.strip() for l in current):
            yield b"\n".join(current)
            current = []
        current.append(line)
    if current:
        yield b"\n".join(current)


def identity(game):
    tags, moves = {}, []
    for line in game.split(b"\n"):
        if line.startswith(b"["):
            tags[line[1:].split(b" ", 1)[0]] = line
        elif line.strip():
            moves.append(line.strip())
    key = b"|".join(tags.get(k, b"") for k in (b"White", b"Black", b"Date", b"Round", b"Event"))
    return hashlib.sha1(key + b"|" + b" ".join(moves)).digest()


def main(out, paths):
    seen = set()
    counts = {"train": 0, "test": 0, "copies": 0}
    with open(f"{out}/train.pgn", "wb") as train, open(f"{out}/test.pgn", "wb") as test, open(f"{out}/sides.txt", "w") as sides:
        for path in paths:
            for game in games(path):
                digest = identity(game)
                side = "test" if digest[0] < 26 else "train"
                sides.write(side + "\n")
                if digest in seen:
                    counts["copies"] += 1
                    continue
                seen.add(digest)
                counts[side] += 1
                (test if side == "test" else train).write(game.rstrip(b"\n") + b"\n\n")
    print(f"{counts['train']} training games, {counts['test']} test games, {counts['copies']} copies of a game already seen")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
