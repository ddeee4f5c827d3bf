"""Run every case of the battery and write its table (markdown).

    PYTHONPATH=$PWD HARNESS_NATIVE=0 python -m tests.cases.battery --out FILE.md [--only WORD]...

Needs root (mounts, capabilities). Each case runs in a fresh folder under a temporary root;
one completed run made first is copied where a case needs a finished run.
"""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.cases.case import Case
from tests.cases.catalog import accepted, bad_values, devices, models
from tests.cases.outcome import Outcome, inspect_run, judge, judge_run
from tests.cases.proc import QUICK, REPO, run, shown
from tests.cases.special import special
from tests.cases.tools import analyzes, compares, farms, others


def every_case() -> list[Case]:
    return [*bad_values(), *accepted(), *models(), *devices(), *compares(), *farms(),
            *analyzes(), *others(), *special()]


def play(case: Case, folder: Path, ref: Path) -> tuple[Outcome, str]:
    """Run one case in ``folder``; its outcome (notes: why unclean) and shown command."""
    folder.mkdir(parents=True)
    if case.setup is not None:
        case.setup(folder, ref)
    if case.custom is not None:
        out, text = case.custom(folder, ref)
    else:
        out, text = run(case.argv, folder, case.env, case.wrap), shown(case.argv, case.wrap,
                                                                        case.env)
    if case.run_dir:
        inspect_run(folder / case.run_dir, out)
        out.notes += judge_run(out, case.statuses)
    out.notes = judge(case.expect, out, case.codes)
    return out, text


def cell(text: str, root: Path, width: int = 150) -> str:
    text = text.replace(str(root), "$T").replace(str(REPO), ".").replace("|", "\\|")
    text = text.replace(sys.executable, "python")
    text = text.replace("\n", " ")
    return text if len(text) <= width else text[: width - 1] + "…"


def row(i: int, case: Case, out: Outcome, text: str, root: Path) -> str:
    verdict = "clean" if not out.notes else "**NOT clean**: " + "; ".join(out.notes)
    line = out.line() + (f" [run: {out.run}]" if out.run else "")
    return (f"| {i} | {cell(case.name, root)} | `{cell(text, root)}` | {out.code} | "
            f"{cell(line, root, 220)} | {cell(verdict, root)} |")


def reference(root: Path) -> Path:
    """The shared completed run."""
    argv = ["-m", "harness", *QUICK, "run=[tflite]", "hydra.run.dir=ref"]
    out = run(argv, root)
    if out.code != 0:
        sys.exit(f"error: the reference run failed: {out.line()}")
    return root / "ref"


def commit() -> str:
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, text=True,
                          capture_output=True, check=False)
    return done.stdout.strip() or "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--only", action="append", default=[],
                        help="run only the cases whose name holds this (repeatable)")
    args = parser.parse_args(argv)
    # a child inherits an ignored SIGINT (a battery started in the background ignores it)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    cases = [c for c in every_case() if not args.only or any(o in c.name for o in args.only)]
    root = Path(tempfile.mkdtemp(prefix="cases-"))
    ref = reference(root)
    lines = ["| # | case | command | exit | line | clean? |", "|---|---|---|---|---|---|"]
    clean = 0
    began = time.monotonic()
    for i, case in enumerate(cases, 1):
        out, text = play(case, root / f"{i:03d}", ref)
        clean += not out.notes
        lines.append(row(i, case, out, text, root))
        print(lines[-1], flush=True)
    head = (f"{len(cases)} cases, {clean} clean, {len(cases) - clean} not clean; commit "
            f"{commit()}; {time.monotonic() - began:.0f} s.\n")
    args.out.write_text(head + "\n" + "\n".join(lines) + "\n")
    print(head)
    return 0 if clean == len(cases) else 1


if __name__ == "__main__":
    raise SystemExit(main())
