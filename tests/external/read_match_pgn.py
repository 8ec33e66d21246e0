"""Reads a match PGN written by pgntune with python-chess and checks it.

Usage: python3 tests/external/read_match_pgn.py GAMES.pgn [--timed]

Every game must parse without errors, replay legally, and carry what match
runners write: PlyCount equal to the moves read, TimeControl (or White- and
BlackTimeControl), Termination; with --timed (games played on a clock or a
time per move) also GameDuration (HH:MM:SS); a {book} comment on each
opening move, then on each engine move a comment like +0.68/12 0.232s (the
time only with --timed: games at fixed nodes or depth leave it out);
and a result that agrees with the final position when the game ended by
checkmate or stalemate. Prints `games N`, `book_plies N`, `engine_moves N`,
`mates N`, then `ok`; exits with status 1 and a message on the first problem.
"""

import re
import sys

import chess
import chess.pgn

ENGINE_COMMENT_TIMED = re.compile(r"^[+-](\d+\.\d\d|M\d+)(/\d+)? \d+\.\d{3}s$")
ENGINE_COMMENT_UNTIMED = re.compile(r"^[+-](\d+\.\d\d|M\d+)(/\d+)?$")


def fail(number, message):
    print(f"game {number}: {message}", file=sys.stderr)
    sys.exit(1)


def main(path, timed):
    ENGINE_COMMENT = ENGINE_COMMENT_TIMED if timed else ENGINE_COMMENT_UNTIMED
    games = book = engine = mates = 0
    with open(path, encoding="utf-8") as handle:
        while True:
            game = chess.pgn.read_game(handle)
            if game is None:
                break
            games += 1
            if game.errors:
                fail(games, f"python-chess reports {game.errors}")
            headers = game.headers
            wanted = ("Event", "Site", "Date", "Round", "White", "Black", "Result", "Termination", "PlyCount") + (("GameDuration",) if timed else ())
            for tag in wanted:
                if tag not in headers:
                    fail(games, f"no [{tag}] tag")
            if not timed and "GameDuration" in headers:
                fail(games, "a GameDuration tag in a game without a clock")
            if "TimeControl" not in headers and not ("WhiteTimeControl" in headers and "BlackTimeControl" in headers):
                fail(games, "no [TimeControl] tag")
            if timed and not re.fullmatch(r"\d\d:\d\d:\d\d", headers["GameDuration"]):
                fail(games, f"GameDuration {headers['GameDuration']!r} is not HH:MM:SS")
            nodes = list(game.mainline())
            if int(headers["PlyCount"]) != len(nodes):
                fail(games, f"PlyCount {headers['PlyCount']} but {len(nodes)} moves")
            in_book = True
            for ply, node in enumerate(nodes, 1):
                comment = " ".join(node.comment.split())
                if ply == len(nodes):
                    # The last move's comment also says how the game ended.
                    comment = re.sub(r" (Draw|White|Black).*$", "", comment)
                if comment == "book":
                    if not in_book:
                        fail(games, f"ply {ply}: a book move after an engine move")
                    book += 1
                elif ENGINE_COMMENT.match(comment):
                    in_book = False
                    engine += 1
                else:
                    fail(games, f"ply {ply}: unexpected comment {node.comment!r}")
            board = game.end().board()
            if board.is_checkmate():
                mates += 1
                expected = "0-1" if board.turn == chess.WHITE else "1-0"
                if headers["Result"] != expected:
                    fail(games, f"checkmate, but the result is {headers['Result']}")
            if board.is_stalemate() and headers["Result"] != "1/2-1/2":
                fail(games, f"stalemate, but the result is {headers['Result']}")
    if games == 0:
        fail(0, "no games read")
    print(f"games {games}")
    print(f"book_plies {book}")
    print(f"engine_moves {engine}")
    print(f"mates {mates}")
    print("ok")


if __name__ == "__main__":
    main(sys.argv[1], "--timed" in sys.argv[2:])
