"""A text trace (see `pgntune::dataset::trace`) as a Parquet trace, with polars.

    python3 examples/trace_to_parquet.py engine.trace engine.parquet

Also the template for an engine that logs its trace from Python: the header
(the `# pgntune trace`, `# term` and `# hold` lines) goes into the file's
key-value metadata under `pgntune.trace`, each position into one row.
Integer columns must be 32 or 64 bits wide (polars' default is 64).
"""

import sys

import polars as pl


def convert(source, target):
    header, rows = [], {"result": [], "phase": [], "eval": [], "game": [], "terms": [], "coefs": []}
    with open(source) as f:
        for n, line in enumerate(f):
            if line.startswith("#"):
                if not rows["result"]:
                    header.append(line.rstrip("\n"))
                continue
            words = line.split()
            if not words:
                continue
            rows["result"].append(float(words[0]))
            rows["phase"].append(int(words[1]))
            eval_, game, terms, coefs = None, n, [], []
            for word in words[2:]:
                if word.startswith("eval="):
                    eval_ = float(word[5:])
                elif word.startswith("game="):
                    game = int(word[5:])
                else:
                    index, coef = word.split(":")
                    terms.append(int(index))  # counting from 1, as in the text
                    coefs.append(int(coef))
            rows["eval"].append(eval_)
            rows["game"].append(game)
            rows["terms"].append(terms)
            rows["coefs"].append(coefs)
    frame = pl.DataFrame(
        rows,
        schema={
            "result": pl.Float64,
            "phase": pl.Int32,
            "eval": pl.Float64,
            "game": pl.UInt64,
            "terms": pl.List(pl.Int32),
            "coefs": pl.List(pl.Int32),
        },
    )
    frame.write_parquet(target, metadata={"pgntune.trace": "\n".join(header) + "\n"})


if __name__ == "__main__":
    convert(sys.argv[1], sys.argv[2])
