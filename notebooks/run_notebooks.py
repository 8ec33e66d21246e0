#!/usr/bin/env python3
"""Make pgntune's Parquet exports and execute every notebook in notebooks/ headless.

    python3 notebooks/run_notebooks.py --pgntune target/release/pgntune [--data ../shared/data] [--out DIR]

1. Checks that the stored notebooks carry no outputs and no execution counts
   (`--strip` removes them and exits).
2. Looks for the game collections under --data (default: ../shared/data beside the
   repository). If they are absent it prints SKIPPED and exits 0, unless
   --require-data is given (or PGNTUNE_REQUIRE_DATA=1 is set), when it fails.
3. Writes the exports with `pgntune extract` into --out (or a temporary directory):
   openrating.parquet (+ openrating_score_table.csv) and human.parquet.
4. Executes each notebook with nbclient (kernel python3, a timeout per cell, working
   directory the repository root) in memory; the stored .ipynb files are never
   written. With --out, the executed copies go to DIR/executed/ and the figures to
   DIR/figures/.
5. Exits 1 naming the notebook, the cell and its error if any cell fails.

The notebooks get their paths from the environment: PGNTUNE, PGNTUNE_DATA,
PGNTUNE_EXPORTS and PGNTUNE_FIGURES.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent  # notebooks/
ROOT = HERE.parent  # the repository
TAGS = "White,Black,WhiteElo,BlackElo,Event,Date"  # the same as the notebooks' export()
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def required(value: str | None) -> bool:
    """Whether an environment value such as PGNTUNE_REQUIRE_DATA asks for something to be required:
    set to anything but "" or "0" (the rule tests/all/common.rs follows too)."""
    return value not in (None, "", "0")


def notebooks() -> list[Path]:
    return sorted(HERE.glob("*.ipynb"))


def dirty_cells(nb) -> list[int]:
    """Indices of code cells that carry outputs or an execution count."""
    return [
        i
        for i, cell in enumerate(nb.cells)
        if cell.cell_type == "code" and (cell.get("outputs") or cell.get("execution_count") is not None)
    ]


def check_clean(strip: bool) -> bool:
    import nbformat

    clean = True
    for path in notebooks():
        nb = nbformat.read(path, as_version=4)
        dirty = dirty_cells(nb)
        if not dirty:
            continue
        if strip:
            for i in dirty:
                nb.cells[i].outputs = []
                nb.cells[i].execution_count = None
            nbformat.write(nb, path)
            print(f"stripped {path.relative_to(ROOT)} (cells {dirty})")
        else:
            clean = False
            print(
                f"error: {path.relative_to(ROOT)} is stored with outputs or execution counts in cells {dirty}; "
                f"run: python3 notebooks/run_notebooks.py --strip",
                file=sys.stderr,
            )
    return clean


def missing_data(data: Path) -> list[str]:
    missing = []
    if not (data / "pgnlearn" / "OpenRating.pgn").is_file():
        missing.append(str(data / "pgnlearn" / "OpenRating.pgn"))
    if not sorted((data / "human").glob("*.pgn")):
        missing.append(str(data / "human" / "*.pgn"))
    return missing


def extract(pgntune: Path, inputs: list[Path], out: Path, *extra: str) -> None:
    cmd = [str(pgntune), "extract", *map(str, inputs), "-o", str(out), "--tags", TAGS, "--quiet", *extra]
    t = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0 or not out.is_file():
        sys.exit(f"error: pgntune extract failed (exit {proc.returncode}): {' '.join(cmd)}\n{proc.stderr}")
    print(f"  {out.name}: {out.stat().st_size / 1e6:.1f} MB in {time.perf_counter() - t:.1f} s")


def make_exports(pgntune: Path, data: Path, exports: Path) -> None:
    exports.mkdir(parents=True, exist_ok=True)
    print(f"exports -> {exports}")
    extract(
        pgntune,
        [data / "pgnlearn" / "OpenRating.pgn"],
        exports / "openrating.parquet",
        "--score-table",
        str(exports / "openrating_score_table.csv"),
    )
    extract(pgntune, sorted((data / "human").glob("*.pgn")), exports / "human.parquet")


def use_this_python_as_kernel(directory: Path) -> None:
    """Make kernel "python3" run this interpreter (not whatever `python` is first on PATH)."""
    spec = directory / "kernels" / "python3"
    spec.mkdir(parents=True, exist_ok=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (pgntune notebooks)",
        "language": "python",
    }))
    os.environ["JUPYTER_PATH"] = os.pathsep.join(filter(None, [str(directory), os.environ.get("JUPYTER_PATH")]))


def run_notebook(path: Path, timeout: int, executed_dir: Path | None) -> str | None:
    """Execute one notebook in memory; None if every cell ran, else a description of the failure."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError
    from traitlets.config import Config

    nb = nbformat.read(path, as_version=4)
    current = {"index": None}

    def on_cell_start(cell, cell_index, **_):
        current["index"] = cell_index

    # IPC sockets in a private directory rather than unencrypted TCP on localhost
    sockets = tempfile.mkdtemp(prefix="pgntune-kernel-")
    config = Config({"KernelManager": {"transport": "ipc", "ip": os.path.join(sockets, "kernel")}})
    client = NotebookClient(
        nb,
        config=config,
        timeout=timeout,
        startup_timeout=120,
        kernel_name="python3",
        resources={"metadata": {"path": str(ROOT)}},  # the kernel's working directory
        on_cell_start=on_cell_start,
    )
    failure = None
    try:
        client.execute()
    except (CellExecutionError, CellTimeoutError, DeadKernelError) as err:
        i = current["index"]
        detail = ANSI.sub("", str(err)).strip()  # nbclient's message: the cell's source and the traceback
        kind = getattr(err, "ename", type(err).__name__)
        value = getattr(err, "evalue", "")
        failure = f"{path.relative_to(ROOT)}, cell {i} (0-based) failed: {kind}: {value}\n{detail}"
    except Exception as err:  # kernel could not start, etc.
        failure = f"{path.relative_to(ROOT)}: could not run: {type(err).__name__}: {err}"
    finally:
        shutil.rmtree(sockets, ignore_errors=True)
    if executed_dir is not None:
        executed_dir.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, executed_dir / path.name)
    return failure


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pgntune", type=Path, default=os.environ.get("PGNTUNE"),
                    help="the pgntune binary (default: $PGNTUNE)")
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data",
                    help="the shared game collections (default: ../shared/data beside the repository)")
    ap.add_argument("--out", type=Path,
                    help="keep the exports, executed notebooks and figures here (default: a temporary directory)")
    ap.add_argument("--timeout", type=int, default=300, help="seconds allowed per cell (default: 300)")
    ap.add_argument("--require-data", action="store_true",
                    default=required(os.environ.get("PGNTUNE_REQUIRE_DATA")),
                    help="fail instead of skipping when the data is absent (also PGNTUNE_REQUIRE_DATA set to anything but empty or 0)")
    ap.add_argument("--strip", action="store_true",
                    help="remove outputs and execution counts from the stored notebooks, then exit")
    ap.add_argument("notebook", nargs="*", help="run only these notebooks (names or paths)")
    args = ap.parse_args()

    started = time.perf_counter()
    if args.strip:
        check_clean(strip=True)
        return 0
    if not check_clean(strip=False):
        return 1

    data = args.data.resolve()
    missing = missing_data(data)
    if missing:
        msg = f"notebooks: the game collections are absent ({', '.join(missing)})"
        if args.require_data:
            print(f"error: {msg}, and --require-data was given", file=sys.stderr)
            return 1
        print(f"SKIPPED: {msg}; nothing was run")
        return 0

    if args.pgntune is None:
        ap.error("--pgntune PATH is required (or set PGNTUNE)")
    pgntune = args.pgntune.resolve()
    if not pgntune.is_file() or not os.access(pgntune, os.X_OK):
        print(f"error: no pgntune binary at {pgntune}", file=sys.stderr)
        return 1

    selected = notebooks()
    if args.notebook:
        wanted = {Path(n).stem for n in args.notebook}
        selected = [p for p in selected if p.stem in wanted]
        if len(selected) != len(wanted):
            print(f"error: unknown notebook among {sorted(wanted)}", file=sys.stderr)
            return 1

    with tempfile.TemporaryDirectory(prefix="pgntune-notebooks-") as tmp:
        out = args.out.resolve() if args.out else Path(tmp)
        exports = out / "exports" if args.out else out
        make_exports(pgntune, data, exports)
        kernel_dir = Path(tempfile.mkdtemp(prefix="pgntune-kernelspec-"))
        use_this_python_as_kernel(kernel_dir)
        print(f"kernel python3: {sys.executable}")
        os.environ.update(
            PGNTUNE=str(pgntune),
            PGNTUNE_DATA=str(data),
            PGNTUNE_EXPORTS=str(exports),
            MPLBACKEND="Agg",
            PYDEVD_DISABLE_FILE_VALIDATION="1",  # quiets debugpy's frozen-modules warning
        )
        if args.out:
            os.environ["PGNTUNE_FIGURES"] = str(out / "figures")
        else:
            os.environ.pop("PGNTUNE_FIGURES", None)

        failures = []
        for path in selected:
            t = time.perf_counter()
            failure = run_notebook(path, args.timeout, out / "executed" if args.out else None)
            status = "FAILED" if failure else "ok"
            print(f"{path.relative_to(ROOT)}: {status} ({time.perf_counter() - t:.1f} s)", flush=True)
            if failure:
                failures.append(failure)

    shutil.rmtree(kernel_dir, ignore_errors=True)
    for failure in failures:
        print(f"\n{failure}", file=sys.stderr)
    print(f"\nwall time {time.perf_counter() - started:.1f} s")
    print(f"notebooks: {len(selected) - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
