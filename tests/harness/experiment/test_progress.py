"""A first host run reports every phase before its clock starts, by name and count.

With an empty model cache, a ``device=host`` run writes the model, finds the ops each
processor runs, plans, cuts the plan's slices, builds their interpreters and profiles the
subgraphs; each is a phase of the session's progress (:class:`Progress`, the interface the
terminal's bars and a log's lines implement), named with the baseline, the seed and the
count, and advanced from 0 to its total. The sinks themselves: a log gets a line for a phase
that lasts, none for one that does not.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from rich.console import Console

from harness.experiment import session
from harness.experiment.progress import Progress, plain_progress, terminal_progress
from harness.seams.progress import Advance, counted, no_phases, steps

MODEL = "arcface_mobilenet"  # a small zoo model: 63 ops, 4 MB written from its profile


class Recorder:
    """A progress sink that keeps every phase: its name, total and advances."""

    def __init__(self) -> None:
        self.phases: list[tuple[str, int, list[int]]] = []
        self.tasks: list[str] = []

    def phase(self, name: str, total: int) -> Advance:
        self.phases.append((name, total, []))
        return self.phases[-1][2].append

    def task(self, name: str, total_ns: int) -> Callable[[int], None]:
        self.tasks.append(name)
        return lambda _ns: None


def test_a_first_host_run_reports_each_phase_with_its_count(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "zoo"  # empty: nothing written, cut or profiled yet
    recorder = Recorder()

    @contextmanager
    def recording(_console: Console) -> Iterator[Progress]:
        yield Progress(recorder.task, recorder.phase)

    monkeypatch.setattr(session, "progress_of", recording)
    session.run(["device=host", "scenario=single", f"scenario.models=[{MODEL}]", "run=[tflite]",
                 "seed.count=1", "seed.base=0", "scenario.duration_s=0.2",
                 "scenario.warmup_s=0", "plots=false", f"zoo_cache={cache}"],
                tmp_path / "run", report=False)
    names = [name for name, _, _ in recorder.phases]
    slices, subgraphs = recorder.phases[3][1], recorder.phases[5][1]
    assert names == [f"writing 1 zoo model to {cache}",
                     "tflite seed 0: op support of 1 model",
                     "tflite seed 0: planning 1 model",
                     f"tflite seed 0: cutting {counted(slices, 'slice')}",
                     f"tflite seed 0: building {counted(slices, 'interpreter')}",
                     f"tflite seed 0: profiling {counted(subgraphs, 'subgraph')}"]
    assert slices >= 1 and subgraphs >= slices
    for name, total, done in recorder.phases:
        assert done == list(range(total + 1)), name  # from 0, a step at a time, to the total
    assert recorder.tasks == ["tflite"]
    # a second run finds the model written: no writing phase
    again = Recorder()
    monkeypatch.setattr(session, "progress_of", lambda _c: _yielding(again))
    session.run(["device=host", "scenario=single", f"scenario.models=[{MODEL}]", "run=[tflite]",
                 "seed.count=1", "scenario.duration_s=0.2", "scenario.warmup_s=0",
                 "plots=false", f"zoo_cache={cache}"], tmp_path / "run2", report=False)
    assert not any(name.startswith("writing") for name, _, _ in again.phases)


@contextmanager
def _yielding(recorder: Recorder) -> Iterator[Progress]:
    yield Progress(recorder.task, recorder.phase)


def test_steps_start_a_phase_and_advance_after_each_item() -> None:
    recorder = Recorder()
    seen = []
    for item in steps(recorder.phase, "cutting 3 slices", "abc"):
        seen.append((item, list(recorder.phases[0][2])))
    assert recorder.phases == [("cutting 3 slices", 3, [0, 1, 2, 3])]
    assert seen == [("a", [0]), ("b", [0, 1]), ("c", [0, 1, 2])]
    assert list(steps(no_phases, "nothing", [1, 2])) == [1, 2]
    assert (counted(1, "slice"), counted(22, "slice"), counted(0, "model")) == (
        "1 slice", "22 slices", "0 models")


def test_a_log_gets_a_line_for_a_phase_that_lasts_and_none_for_a_quick_one() -> None:
    out, now = io.StringIO(), [0.0]
    with plain_progress(out, every_s=5, clock=lambda: now[0]) as progress:
        quick = progress.phase("band seed 0: profiling 3 subgraphs", 3)
        for k in range(4):
            quick(k)
        slow = progress.phase("band seed 0: cutting 22 slices", 22)
        for k in range(23):
            now[0] += 0.5
            slow(k)
    lines = out.getvalue().splitlines()
    assert len(lines) == 3 and "profiling" not in out.getvalue()
    assert lines[0].startswith("progress band seed 0: cutting 22 slices: 9 of 22, ")
    assert lines[-1].startswith("progress band seed 0: cutting 22 slices: 22 of 22, ")


def test_a_terminal_shows_a_phase_while_it_lasts() -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=100)
    with terminal_progress(console) as progress:
        advance = progress.phase("adms seed 1: building 5 interpreters", 5)
        advance(2)
        console.print("while it lasts")  # (rich draws the bars again below a print)
        for k in range(3, 6):
            advance(k)
        console.print("after it ended")
    text = out.getvalue()
    during, after = text.split("while it lasts")[1].split("after it ended")
    assert "building 5 interpreters" in during and "2/5" in during
    assert "building 5 interpreters" not in after
