"""python-chess drives `pgntune uci` as a GUI would, with Threads = 2.

Usage: python3 uci_threads.py PGNTUNE
Prints what it checked and "ok" last; fails with a traceback otherwise.
"""
import sys

import chess
import chess.engine

engine = chess.engine.SimpleEngine.popen_uci([sys.argv[1], "uci"])
try:
    option = engine.options["Threads"]
    assert (option.type, option.default, option.min, option.max) == ("spin", 1, 1, 64), option
    print("option", option.type, option.default, option.min, option.max)
    engine.configure({"Threads": 2})
    board = chess.Board()
    for _ in range(8):
        played = engine.play(board, chess.engine.Limit(time=0.05))
        assert played.move in board.legal_moves, played
        board.push(played.move)
    print("moves", len(board.move_stack))
    info = engine.analyse(board, chess.engine.Limit(depth=8))
    assert info["depth"] == 8 and info["nodes"] > 0 and info["pv"][0] in board.legal_moves, info
    print("analyse depth", info["depth"])
    # Mate in one is still found with two threads.
    mate = chess.Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")
    info = engine.analyse(mate, chess.engine.Limit(depth=4))
    assert info["score"].white() == chess.engine.Mate(1) and info["pv"][0] == chess.Move.from_uci("a1a8"), info
    print("mate", info["pv"][0])
finally:
    engine.quit()
print("ok")
