#!/usr/bin/env python3
"""Where a ladder match against Stockfish is lost: pgntune's scores against
Stockfish's, move by move, and each side's clock.

    python3 benches/ladder_scores.py LADDER.pgn [MORE.pgn ...]
    python3 benches/ladder_scores.py data/ladder-2300.pgn.zst

The games are those of `benches/engine.sh ladder` (pgntune against
`stockfish-ELO`, every move with its `{score/depth time}` comment). After
each move of pgntune's, Stockfish's next score (its own view, negated) is
set against pgntune's score for the position before the move: the
difference is how much more pgntune thinks of its position than Stockfish
does. Printed: the median difference by game phase, the games pgntune did
not win after scoring +2.00 or more, and the time each side had left at
the end (10 s + 0.1 s assumed when the tag is missing).
"""

import io
import re
import statistics
import subprocess
import sys

import chess
import chess.pgn

COMMENT = re.compile(r"([+-]?[\d.]+|[+-]?M\d+)/(\d+) ([\d.]+)s")
PHASE = {chess.KNIGHT: 1, chess.BISHOP: 1, chess.ROOK: 2, chess.QUEEN: 4}


def fail(message):
    """One line on standard error and exit status 2, as pgntune does for bad input."""
    print(f"ladder_scores: {message}", file=sys.stderr)
    sys.exit(2)


def phase(board):
    return min(24, sum(len(board.pieces(role, color)) * w for role, w in PHASE.items() for color in chess.COLORS))


def score(text):
    """Pawns from the mover's view; mates as ±100."""
    if "M" in text:
        return -100.0 if text.startswith("-") else 100.0
    return float(text)


def control(game):
    base, _, inc = game.headers.get("TimeControl", "10+0.1").partition("+")
    return float(base), float(inc or 0)


def open_games(path):
    """The file's text; a `.zst` file is read through `zstd -dc`."""
    if path.endswith(".zst"):
        text = subprocess.run(["zstd", "-dc", path], check=True, capture_output=True, text=True).stdout
        return io.StringIO(text)
    return open(path, encoding="utf-8")


def main(paths):
    pairs = []  # (phase, pgntune's score, Stockfish's score), both from pgntune's side
    not_won_after_two, lost_after_two, games = 0, 0, 0
    left = {"pgntune": [], "stockfish": []}
    for path in paths:
        with open_games(path) as handle:
            while (game := chess.pgn.read_game(handle)) is not None:
                players = (game.headers.get("White"), game.headers.get("Black"))
                if "pgntune" not in players:
                    continue  # not a game of the ladder's engine
                games += 1
                ours = chess.WHITE if players[0] == "pgntune" else chess.BLACK
                base, inc = control(game)
                clock = {chess.WHITE: base, chess.BLACK: base}
                board, pending, best = game.board(), None, -1000.0
                for node in game.mainline():
                    mover = board.turn
                    found = COMMENT.match(node.comment.replace("\n", " "))
                    if found:
                        clock[mover] += inc - float(found.group(3))
                        value = score(found.group(1))
                        if mover == ours:
                            best = max(best, value)
                            pending = (phase(board), value) if abs(value) < 100 else None
                        elif pending is not None and abs(value) < 100:
                            pairs.append((pending[0], pending[1], -value))
                            pending = None
                    board.push(node.move)
                result = {"1-0": 1.0, "0-1": 0.0}.get(game.headers["Result"], 0.5)
                result = result if ours == chess.WHITE else 1.0 - result
                if best >= 2.0 and result < 1.0:
                    not_won_after_two += 1
                    lost_after_two += result == 0.0
                left["pgntune"].append(clock[ours])
                left["stockfish"].append(clock[not ours])
    if not pairs:
        fail("no scored moves of pgntune followed by one of Stockfish's (not a ladder match's games?)")
    diffs = [o - s for _, o, s in pairs]
    print(f"{games} games, {len(pairs)} pairs of scores")
    print(f"pgntune's score minus Stockfish's: median {statistics.median(diffs):+.2f}, mean {statistics.mean(diffs):+.2f} pawns")
    for low in range(0, 25, 4):
        bucket = [o - s for p, o, s in pairs if low <= p < low + 4]
        if bucket:
            span = f"{low:2d}-{low + 3:2d}" if low < 24 else f"{low:2d}   "
            print(f"  phase {span}: {len(bucket):6d} pairs, median {statistics.median(bucket):+.2f}")
    print(f"games not won after pgntune scored +2.00 or more: {not_won_after_two} ({lost_after_two} lost)")
    for side, times in left.items():
        print(f"time left at the end, {side}: median {statistics.median(times):.2f} s")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    try:
        main(sys.argv[1:])
    except (OSError, subprocess.CalledProcessError, UnicodeDecodeError) as err:
        fail(str(err))
