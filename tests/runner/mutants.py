"""Mutation checks of the runner: ``python -m tests.runner.mutants`` (``make mutants``).

Each mutant changes one line of the runner's decisions, runtime core or trace reader (a
tie-break, the front/back re-insert, an off-by-one in a view, a traffic rule, a reader's
bound) in one copy of ``runner/`` (built once, then incrementally), and runs the default
tests that use no LiteRT slices (:data:`TESTS`) against it (``RUNNER_SOURCE``/``RUNNER_BUILD``,
:mod:`tests.runner.native`). A mutant the tests fail on is caught; the script prints each
verdict and the score, and exits 1 when a mutant survives (or its line is no longer in the
source: the list must follow the code). ``-k WORD`` runs the mutants whose name has it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from tests.fixtures.paths import REPO


@dataclass(frozen=True)
class Mutant:
    name: str
    #: a file under runner/
    path: str
    before: str
    after: str


MUTANTS = (
    # the runtime core (library_policy.cc: the Python runtime's queues, executor, traffic)
    Mutant("re-insert at the other end", "src/library_policy.cc",
           "} else if (front_) {", "} else if (!front_) {"),
    Mutant("local queue served last first", "src/library_policy.cc",
           "lane.waiting.emplace_back(a.job_id, sg);", "lane.waiting.emplace_front(a.job_id, sg);"),
    Mutant("view: queued off by one", "src/library_policy.cc",
           "view.queued = static_cast<int64_t>(lane.waiting.size());",
           "view.queued = static_cast<int64_t>(lane.waiting.size()) + 1;"),
    Mutant("view: idle processor free a ns late", "src/library_policy.cc",
           "view.available_ns = now_ns;", "view.available_ns = now_ns + 1;"),
    Mutant("view: a running subgraph's expected end ignored", "src/library_policy.cc",
           "std::max(view.available_ns, lane.running_since + expected(lane.running->second));",
           "std::max(view.available_ns, lane.running_since);"),
    Mutant("executor: next unit off by one", "src/executor.cc",
           "request.next_unit = sg.last_unit + 1;", "request.next_unit = sg.last_unit;"),
    Mutant("executor: no second decision after drops", "src/executor.cc",
           "} while (!out.drops.empty());", "} while (false);"),
    Mutant("frames: wait after a frame without drops", "src/traffic.cc",
           "schedule(now_ns + (wait ? loop_.drop_wait_ns : 0));",
           "schedule(now_ns + (wait ? 0 : loop_.drop_wait_ns));"),
    Mutant("streams: ties released by model, not by schedule", "src/traffic.cc",
           "return at_[a] != at_[b] ? at_[a] < at_[b] : order_[a] < order_[b];",
           "return at_[a] != at_[b] ? at_[a] < at_[b] : a < b;"),
    # decisions (Band's; ADMS's are covered by the same tests but its files are changing)
    Mutant("band: least slack ties in reverse queue order", "src/policies/band_schedulers.cc",
           "[](const auto& a, const auto& b) { return a.first < b.first; });",
           "[](const auto& a, const auto& b) { return a.first < b.first || "
           "(a.first == b.first && a.second > b.second); });"),
    Mutant("band: equal-latency subgraphs, the last wins", "src/policies/band_round.cc",
           "if (chosen < 0 || ns < best) {", "if (chosen < 0 || ns <= best) {"),
    # the trace reader
    Mutant("reader: nesting unbounded", "src/policies/json.cc",
           "if (++depth_ > kMaxDepth)", "if (++depth_ > kMaxDepth * 100000)"),
    Mutant("reader: duplicate keys accepted", "src/policies/json.cc",
           "if (field.first == key) {", "if (field.first == key && false) {"),
    Mutant("reader: a cut last line refused whole", "src/policies/replay.cc",
           "json::Value obj = parse_line(text, in.eof(), line);",
           "json::Value obj = parse_line(text, false, line);"),
)

#: the default tests a mutant must fail (those that need no LiteRT slices: seconds each)
TESTS = ("tests/runner/test_runner_differential.py", "tests/runner/test_trace_reader_cpp.py",
         "tests/runner/test_replay.py::test_generated_traces_replay_clean")


def mutate(source: Path, mutant: Mutant) -> str:
    """Apply ``mutant`` to the copy at ``source``; the file's text before. ValueError if its
    line is not there exactly once."""
    path = source / mutant.path
    text = path.read_text()
    if text.count(mutant.before) != 1:
        raise ValueError(f"{mutant.path}: {mutant.before!r} occurs {text.count(mutant.before)} "
                         "times (once wanted): update tests/runner/mutants.py")
    path.write_text(text.replace(mutant.before, mutant.after))
    return text


def build(source: Path) -> str:
    """Configure (once) and build the copy incrementally; '' or the last error line."""
    build_dir = source / "build"
    for cmd in (["cmake", "-S", str(source), "-B", str(build_dir), f"-DPYTHON={sys.executable}"],
                ["cmake", "--build", str(build_dir), "-j", str(os.cpu_count() or 1)]):
        made = subprocess.run(cmd, capture_output=True, text=True)
        if made.returncode != 0:
            return "does not build: " + (made.stderr.strip().splitlines() or ["?"])[-1]
    return ""


def caught(mutant: Mutant, source: Path) -> tuple[bool, str]:
    """(the tests failed on the mutant, what failed or why it was not built); the copy is
    restored after."""
    original = mutate(source, mutant)
    try:
        broken = build(source)
        if broken:
            return True, broken
        env = {**os.environ, "RUNNER_SOURCE": str(source), "RUNNER_BUILD": str(source / "build")}
        tests = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:randomly",
                                "-p", "no:cacheprovider", *TESTS], capture_output=True,
                               text=True, cwd=REPO, env=env)
    finally:
        (source / mutant.path).write_text(original)
    failed = [line for line in tests.stdout.splitlines() if line.startswith("FAILED")]
    return tests.returncode != 0, (failed or ["no test failed"])[0][:150]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.runner.mutants")
    parser.add_argument("-k", default="", help="run the mutants whose name has this word")
    chosen = [m for m in MUTANTS if parser.parse_args(argv).k in m.name]
    console = Console()
    survived = 0
    with tempfile.TemporaryDirectory(prefix="mutants-") as work:
        source = Path(work) / "runner"
        shutil.copytree(REPO / "runner", source, ignore=shutil.ignore_patterns("build"))
        with console.status("building the unmutated copy"):
            broken = build(source)
        if broken:
            console.print(f"the unmutated runner {escape(broken)}")
            return 1
        for k, mutant in enumerate(chosen, 1):
            started = time.monotonic()
            with console.status(f"[{k}/{len(chosen)}] {escape(mutant.name)}"):
                try:
                    hit, why = caught(mutant, source)
                except ValueError as e:
                    hit, why = False, str(e)
            survived += not hit
            verdict = "[green]caught[/]" if hit else "[red]SURVIVED[/]"
            console.print(f"[{k}/{len(chosen)}] {verdict} {escape(mutant.name)} "
                          f"({time.monotonic() - started:.0f} s): {escape(why)}")
    console.print(f"mutation score: {len(chosen) - survived}/{len(chosen)} caught")
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
