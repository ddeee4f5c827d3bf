"""Cases that need more than a command line: mounts, signals, a closed stdout, a run compared
while it runs, two runs racing for one folder, a farm night after a damaged one."""

from __future__ import annotations

import hashlib
import signal
import time
from pathlib import Path

from tests.cases.case import Case, harness, module
from tests.cases.outcome import Outcome, inspect_run, judge_run
from tests.cases.proc import (
    QUICK,
    SIGINT,
    SIGKILL,
    SIGTERM,
    finish,
    head_one,
    mounted,
    read_only_copy,
    run,
    shown,
    signalled,
    start,
    wait_for,
)
from tests.cases.tools import TWIN_ONLY

RUN = [*QUICK, "run=[tflite]"]
#: a run long enough to be disturbed in the middle
LONG = ["scenario.duration_s=4", "seed.count=1", "plots=false", "run=[band]"]


def in_read_only(argv: list[str], also: str = "") -> Case:
    """``argv`` with ``{ro}``: a read-only tmpfs in the case's folder."""
    def go(folder: Path, ref: Path) -> tuple[Outcome, str]:
        with mounted(folder / "ro", "ro"):
            if also:
                (folder / also).mkdir(exist_ok=True)
            args = [a.replace("{ro}", str(folder / "ro")) for a in argv]
            return run(args, folder), shown([a.replace("{ro}", "$RO") for a in argv])
    return Case("", custom=go)


def read_only_cases() -> list[Case]:
    named = [
        ("run into a read-only folder", harness(*RUN, "hydra.run.dir={ro}/run")),
        ("analyze out_dir read-only", module("harness.analyze", "window_size=[1,2]",
                                             "out_dir={ro}/a")),
        ("paper out_dir read-only", module("harness.paper", "mode=fast", "only=[table3]",
                                           "out_dir={ro}/p")),
        ("farm results read-only", module("harness.farm", *TWIN_ONLY[:-1], "results={ro}")),
        ("console report --out read-only", ["-c", "import sys; from harness.cli.main import main;"
                                            " main(sys.argv[1:])", "report", "{d}/ref",
                                            "--out", "{ro}/r"]),
        ("analyze cache read-only", module("harness.analyze",
                                           "model.path=tests/fixtures/selfie_segmentation.tflite",
                                           "cache={ro}/c")),
    ]
    cases = []
    for name, argv in named:
        case = in_read_only(argv)
        case.name = name
        cases.append(case)
    cases[4].setup = _copy
    return cases


def _copy(folder: Path, ref: Path) -> None:
    import shutil
    shutil.copytree(ref, folder / "ref")


def compare_read_only(folder: Path, ref: Path) -> tuple[Outcome, str]:
    """A completed run on a read-only mount is read as it is."""
    with read_only_copy(ref, folder / "ref"):
        argv = module("harness.compare", "{d}/ref", "{d}/ref")
        return run(argv, folder), shown(argv)


def full_disk(size: str, duration: str) -> Case:
    """A run into a tmpfs of ``size``: it ends failed with one line, keeping what fit."""
    def go(folder: Path, ref: Path) -> tuple[Outcome, str]:
        argv = harness(f"scenario.duration_s={duration}", "seed.count=1", "plots=false",
                       "run=[band,adms]", "hydra.run.dir={d}/full/run")
        with mounted(folder / "full", f"size={size}"):
            out = run(argv, folder)
            inspect_run(folder / "full/run", out)
        out.notes += judge_run(out, need_rows=False)
        return out, shown(argv) + f"  (tmpfs size={size})"
    return Case(f"disk full: tmpfs {size}, {duration} s run", custom=go)


def signal_case(name: str, signals: list[tuple[float, int]], code: int, mid: bool) -> Case:
    """SIGINT/SIGTERM at start-up (``mid`` False) or once the run's journals exist."""
    def go(folder: Path, ref: Path) -> tuple[Outcome, str]:
        argv = harness(*(LONG if mid else RUN), "hydra.run.dir=run")
        after = folder / "run/requests.arrows" if mid else None
        out = signalled(argv, folder, signals, after=after)
        inspect_run(folder / "run", out)
        if out.status != "absent" or mid:
            out.notes += judge_run(out, need_rows=mid)
        sent = ", ".join(f"{signal.Signals(s).name}@{d}s" for d, s in signals)
        return out, shown(argv) + "  + " + sent
    return Case(name, expect="ending", codes=(code,), custom=go)


def digest(folder: Path) -> str:
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    return hashlib.sha256(b"".join(p.name.encode() + p.read_bytes() for p in files)).hexdigest()


def killed_then_compared(folder: Path, ref: Path) -> tuple[Outcome, str]:
    """SIGKILL mid-run leaves ``running``; compare reads it without changing a byte."""
    argv = harness(*LONG, "hydra.run.dir=run")
    killed = signalled(argv, folder, [(1.5, SIGKILL)], after=folder / "run/requests.arrows")
    before = digest(folder / "run")
    cmp = module("harness.compare", "{d}/run")
    out = run(cmp, folder)
    if digest(folder / "run") != before:
        out.notes.append("compare changed the folder")
    inspect_run(folder / "run", out)
    out.notes += judge_run(out, statuses=("running",))
    out.notes += [] if killed.code == -9 else [f"kill exit {killed.code}"]
    return out, shown(argv) + " + SIGKILL; " + shown(cmp)


def closed_stdout(argv: list[str], run_dir: str = "") -> Case:
    def go(folder: Path, ref: Path) -> tuple[Outcome, str]:
        import shutil
        shutil.copytree(ref, folder / "ref")
        out = head_one(argv, folder)
        if run_dir:
            inspect_run(folder / run_dir, out)
            out.notes += judge_run(out, statuses=("completed",))
        return out, shown(argv) + " | head -1"
    return Case("", expect="ok", custom=go)


def live_compare(folder: Path, ref: Path) -> tuple[Outcome, str]:
    """Compare a run while it runs; after it ends its rows equal an undisturbed run's."""
    argv = harness(*LONG, "hydra.run.dir=quiet")
    quiet = run(argv, folder)
    inspect_run(folder / "quiet", quiet)
    live = start(harness(*LONG, "hydra.run.dir=live"), folder)
    wait_for(folder / "live/requests.arrows")
    cmps = []
    for _ in range(3):
        time.sleep(0.7)
        cmps.append(run(module("harness.compare", "{d}/live"), folder))
    ended = finish(live)
    inspect_run(folder / "live", ended)
    out = cmps[-1]
    out.notes += [n for c in cmps for n in (["traceback"] if c.traceback else [])]
    out.notes += judge_run(ended, statuses=("completed",))
    if ended.rows != quiet.rows:
        out.notes.append(f"rows {ended.rows} != undisturbed {quiet.rows}")
    out.run = f"{ended.run} (undisturbed {quiet.run})"
    return out, shown(argv) + " ; compare live x3 while a twin of it runs"


def race(tries: int) -> Case:
    """Two runs into one folder at once: one records, the other is refused with one line."""
    def go(folder: Path, ref: Path) -> tuple[Outcome, str]:
        notes: list[str] = []
        last = Outcome(None, "")
        for i in range(tries):
            argv = harness(*RUN, f"hydra.run.dir=race{i}")
            pair = [start(argv, folder), start(argv, folder)]
            outs = sorted((finish(p) for p in pair), key=lambda o: o.code or 0)
            inspect_run(folder / f"race{i}", outs[0])
            notes += judge_run(outs[0], statuses=("completed",))
            if [o.code for o in outs] != [0, 2] or len(outs[1].errors) != 1 or any(
                    o.traceback for o in outs):
                notes.append(f"try {i}: exits {[o.code for o in outs]}")
            last = Outcome(outs[1].code, outs[1].stderr, outs[0].run)
        last.notes = notes
        return last, shown(harness(*RUN, "hydra.run.dir=raceN")) + f" x2 at once, {tries} tries"
    return Case(f"two runs racing for one folder ({tries} tries)", expect="error", custom=go)


def farm_after_bad_night(folder: Path, ref: Path) -> tuple[Outcome, str]:
    """Last night's cell.json truncated: tonight's report is still written."""
    first = run(module("harness.farm", *TWIN_ONLY, "night=n1"), folder)
    cells = list((folder / "farm/n1").rglob("cell.json"))
    for cell in cells:
        cell.write_text(cell.read_text()[:10])
    argv = module("harness.farm", *TWIN_ONLY, "night=n2", "previous=n1")
    out = run(argv, folder)
    if first.code != 0 or not cells:
        out.notes.append(f"first night exit {first.code}, {len(cells)} cells")
    if not (folder / "farm/n2/report.md").exists():
        out.notes.append("no report for tonight")
    return out, shown(argv) + " (n1's cell.json truncated)"


def special() -> list[Case]:
    stdout = [closed_stdout(harness(*RUN, "hydra.run.dir=run"), "run"),
              closed_stdout(module("harness.compare", "{d}/ref")),
              closed_stdout(module("harness.zoo", "list"))]
    for case, name in zip(stdout, ["run | head -1", "compare | head -1", "zoo list | head -1"],
                          strict=True):
        case.name = name
    return [
        *read_only_cases(),
        Case("compare a read-only completed run", expect="ok", custom=compare_read_only),
        full_disk("64k", "0.5"), full_disk("600k", "3"),
        signal_case("SIGINT at start-up (0.5 s)", [(0.5, SIGINT)], 130, False),
        signal_case("SIGINT at start-up (2 s)", [(2.0, SIGINT)], 130, False),
        signal_case("SIGTERM at start-up (0.5 s)", [(0.5, SIGTERM)], 143, False),
        signal_case("SIGTERM at start-up (2 s)", [(2.0, SIGTERM)], 143, False),
        signal_case("SIGINT mid-run", [(2.5, SIGINT)], 130, True),
        signal_case("SIGTERM mid-run", [(2.5, SIGTERM)], 143, True),
        signal_case("second SIGINT during shutdown", [(2.5, SIGINT), (0.05, SIGINT)], 130, True),
        signal_case("SIGINT then SIGTERM during shutdown", [(2.5, SIGINT), (0.2, SIGTERM)], 130,
                    True),
        Case("SIGKILL mid-run, then compare", expect="ending", custom=killed_then_compared),
        *stdout,
        Case("compare a run while it runs", expect="ending", custom=live_compare),
        race(5),
        Case("farm after a night with truncated cell.json", expect="ending",
             custom=farm_after_bad_night),
    ]
