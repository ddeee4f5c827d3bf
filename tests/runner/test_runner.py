"""The native runner (``runner/``) against Python LiteRT: slices of tiny models chained
through the runner's pinned workers give the whole model's outputs bit for bit, and its job
log has one sane row per executed subgraph. Skipped when cmake or g++ is missing.
"""

from __future__ import annotations

import itertools
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.runner import native

pytestmark = pytest.mark.skipif(native.missing_tools() is not None,
                                reason=f"runner not buildable: {native.missing_tools()}")

CORES = sorted(os.sched_getaffinity(0))[:2]
MODELS = ["chain", "branchy", "mobile_block", "int8", "fp16", "fallback"]


@pytest.fixture(scope="module")
def binary() -> Path:
    return native.build()


@pytest.mark.parametrize("name", MODELS)
def test_chained_slices_equal_the_whole_model(binary: Path, tiny_models: dict[str, Path],
                                              tmp_path: Path, name: str) -> None:
    layout = native.lay_out(tmp_path, {name: tiny_models[name]}, parts=3, cores=CORES)
    (tmp_path / "in").mkdir()
    (tmp_path / "out").mkdir()
    inputs = native.random_inputs(tiny_models[name], tmp_path / "in", name)
    native.run(binary, layout, "--frames", "2", "--inputs", str(tmp_path / "in"),
               "--outputs", str(tmp_path / "out"))
    expected = native.whole_model_outputs(tiny_models[name], inputs)
    got = {int(p.name.split(".")[1]): p.read_bytes() for p in (tmp_path / "out").iterdir()}
    assert got.keys() == expected.keys()
    for index, value in expected.items():
        assert got[index] == value, f"{name}: output tensor {index} differs"


def test_two_models_at_once_each_equal_their_whole_model(binary: Path,
                                                         tiny_models: dict[str, Path],
                                                         tmp_path: Path) -> None:
    """Requests of two models interleave on the same two workers; tensors do not mix."""
    names = ("branchy", "mobile_block")
    layout = native.lay_out(tmp_path, {n: tiny_models[n] for n in names}, parts=4, cores=CORES)
    (tmp_path / "in").mkdir()
    (tmp_path / "out").mkdir()
    inputs = {n: native.random_inputs(tiny_models[n], tmp_path / "in", n) for n in names}
    native.run(binary, layout, "--frames", "3", "--inputs", str(tmp_path / "in"),
               "--outputs", str(tmp_path / "out"))
    for name in names:
        for index, value in native.whole_model_outputs(tiny_models[name], inputs[name]).items():
            assert (tmp_path / "out" / f"{name}.{index}.bin").read_bytes() == value


def test_job_log_has_one_sane_row_per_subgraph(binary: Path, tiny_models: dict[str, Path],
                                               tmp_path: Path) -> None:
    models = {n: tiny_models[n] for n in ("chain", "branchy")}
    layout = native.lay_out(tmp_path, models, parts=4, cores=CORES)
    native.run(binary, layout, "--frames", "5", "--requests", str(tmp_path / "requests.tsv"))
    rows = native.read_jobs(tmp_path / "jobs.tsv")
    assert len(rows) == 5 * sum(layout.subgraphs.values())
    seen = {(r.request, r.model, r.subgraph) for r in rows}
    assert len(seen) == len(rows)
    for model, count in layout.subgraphs.items():
        requests = {r.request for r in rows if r.model == model}
        assert len(requests) == 5
        assert {(q, k) for q in requests for k in range(count)} == {
            (r.request, r.subgraph) for r in rows if r.model == model}
    for r in rows:
        assert r.processor == f"cpu{r.subgraph % len(CORES)}"
        assert r.invoke_ns > 0 and r.copy_ns >= 0
        assert r.copy_ns + r.invoke_ns == r.end_ns - r.start_ns
    assert all(gap >= 0 for gap in native.ready_gaps_ns(rows))
    assert len((tmp_path / "requests.tsv").read_text().splitlines()[1:]) == 10


def test_a_frame_starts_when_the_previous_one_finished(binary: Path,
                                                      tiny_models: dict[str, Path],
                                                      tmp_path: Path) -> None:
    layout = native.lay_out(tmp_path, {n: tiny_models[n] for n in ("chain", "int8")}, 2, CORES)
    native.run(binary, layout, "--frames", "3", "--requests", str(tmp_path / "r.tsv"))
    rows = [line.split("\t") for line in (tmp_path / "r.tsv").read_text().splitlines()[1:]]
    frames = [rows[i:i + 2] for i in range(0, 6, 2)]
    for before, after in itertools.pairwise(frames):
        assert min(int(r[2]) for r in after) >= max(int(r[3]) for r in before)


def test_frames_in_flight_keeps_that_many_frames_outstanding(binary: Path,
                                                            tiny_models: dict[str, Path],
                                                            tmp_path: Path) -> None:
    """``--in-flight 3``: three frames (six requests) arrive at the start; frame k is
    requests 2k and 2k+1, which arrive together; at no instant are more than three frames
    outstanding (arrived, not every request ended), and each frame after the first three
    arrives when one ended."""
    names = ("chain", "int8")
    layout = native.lay_out(tmp_path, {n: tiny_models[n] for n in names}, 2, CORES)
    native.run(binary, layout, "--frames", "12", "--in-flight", "3", "--requests",
               str(tmp_path / "r.tsv"))
    rows = native.read_requests(tmp_path / "r.tsv")
    assert sorted(r[0] for r in rows) == list(range(24))
    assert all(m == names[r % 2] and e > 0 for r, m, _, e in rows)
    frames: dict[int, list[tuple[int, int]]] = {}
    for r, _, a, e in rows:
        frames.setdefault(r // 2, []).append((a, e))
    assert sorted(frames) == list(range(12))
    spans = {f: (reqs[0][0], max(e for _, e in reqs)) for f, reqs in frames.items()}
    assert all(len({a for a, _ in reqs}) == 1 for reqs in frames.values())
    start = spans[0][0]
    assert [f for f, (a, _) in spans.items() if a == start] == [0, 1, 2]
    for f, (arrival, _) in spans.items():
        outstanding = [g for g, (a, e) in spans.items() if a <= arrival < e]
        assert len(outstanding) <= 3, (f, outstanding)
        if f >= 3:
            assert any(e <= arrival for g, (_, e) in spans.items() if g < f)
    assert [spans[f][0] for f in sorted(spans)] == sorted(a for a, _ in spans.values())


def test_frames_default_to_one_frame_in_flight(binary: Path, tiny_models: dict[str, Path],
                                               tmp_path: Path) -> None:
    layout = native.lay_out(tmp_path, {n: tiny_models[n] for n in ("chain", "int8")}, 2, CORES)
    native.run(binary, layout, "--frames", "4", "--requests", str(tmp_path / "r.tsv"))
    rows = native.read_requests(tmp_path / "r.tsv")
    ends = {f: max(e for r, _, _, e in rows if r // 2 == f) for f in range(4)}
    for r, _, arrival, _ in rows:
        assert all(arrival >= ends[f] for f in range(r // 2))


def test_arrival_times_from_a_file(binary: Path, tiny_models: dict[str, Path],
                                   tmp_path: Path) -> None:
    layout = native.lay_out(tmp_path, {n: tiny_models[n] for n in ("chain", "branchy")}, 2,
                            CORES)
    offsets = [(0, "chain"), (2_000_000, "branchy"), (2_000_000, "chain"), (30_000_000, "chain")]
    arrivals = tmp_path / "arrivals.txt"
    arrivals.write_text("".join(f"{t} {m}\n" for t, m in offsets))
    native.run(binary, layout, "--arrivals", str(arrivals), "--requests", str(tmp_path / "r.tsv"))
    rows = [line.split("\t") for line in (tmp_path / "r.tsv").read_text().splitlines()[1:]]
    assert sorted(r[1] for r in rows) == ["branchy", "chain", "chain", "chain"]
    by_id = {int(r[0]): (r[1], int(r[2]), int(r[3])) for r in rows}
    start = by_id[0][1]
    assert [(m, a - start) for m, a, _ in (by_id[i] for i in range(4))] == [
        ("chain", 0), ("branchy", 2_000_000), ("chain", 2_000_000), ("chain", 30_000_000)]
    jobs = native.read_jobs(tmp_path / "jobs.tsv")
    for job in jobs:
        assert job.start_ns >= by_id[job.request][1]


def test_streams_run_each_model_in_its_own_closed_loop(binary: Path,
                                                       tiny_models: dict[str, Path],
                                                       tmp_path: Path) -> None:
    layout = native.lay_out(tmp_path, {n: tiny_models[n] for n in ("chain", "int8")}, 1, CORES)
    native.run(binary, layout, "--streams", "4")
    rows = native.read_jobs(tmp_path / "jobs.tsv")
    assert sorted(r.model for r in rows) == ["chain"] * 4 + ["int8"] * 4


def error_of(binary: Path, layout: native.Layout, *args: str, status: int = 1) -> str:
    result = native.run(binary, layout, *args, check=False)
    assert result.returncode == status, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 1, result.stderr
    return lines[0]


@pytest.fixture
def one_model(tmp_path: Path, tiny_models: dict[str, Path]) -> native.Layout:
    return native.lay_out(tmp_path, {"chain": tiny_models["chain"]}, 2, CORES[:1])


def rewrite(layout: native.Layout, old: str, new: str) -> None:
    """Replaces the regular expression ``old`` in the plan."""
    layout.plan.write_text(re.sub(old, new, layout.plan.read_text()))


@pytest.mark.parametrize(("accelerator", "message"), [
    ("gpu", "LiteRT GPU accelerator not available on this build/host"),
    ("npu", "LiteRT NPU dispatch not available on this build/host"),
    ("tflite", "classic TFLite C API not available on this build/host: dlopen("),
    ("tflite lib=libm.so.6", "libm.so.6 has no symbol TfLiteModelCreateFromFile"),
])
def test_an_absent_accelerator_is_one_clear_error(binary: Path, one_model: native.Layout,
                                                  accelerator: str, message: str) -> None:
    rewrite(one_model, "accelerator=cpu", f"accelerator={accelerator}")
    assert message in error_of(binary, one_model, "--frames", "1")


@pytest.mark.parametrize(("old", "new", "message"), [
    ("threads=1", "threads=1 colour=red", "unknown key 'colour' for accelerator=cpu"),
    ("threads=1", "threads=1 spin_us=-5", "spin_us must not be negative"),
    ("accelerator=cpu", "accelerator=dsp", "accelerator must be cpu, gpu, npu or tflite"),
    ("subgraph chain 1", "subgraph chain 2", "subgraph indices must run 0, 1, ..."),
    ("processor=cpu0 slice", "processor=gpu9 slice", "no processor named 'gpu9'"),
    (r"(subgraph chain 1 .* inputs=)", r"\g<1>99,", "reads tensor 99, which no earlier"),
])
def test_a_bad_plan_names_the_line(binary: Path, one_model: native.Layout, old: str, new: str,
                                   message: str) -> None:
    rewrite(one_model, old, new)
    assert message in error_of(binary, one_model, "--frames", "1")


@pytest.mark.parametrize(("args", "message"), [
    (("--frames", "2", "--in-flight", "0"),
     "error: --in-flight wants the frames outstanding at once (an integer >= 1), not '0'"),
    (("--frames", "2", "--in-flight", "two"), "error: --in-flight wants"),
    (("--frames", "2", "--drop-wait-ns", "-1"),
     "error: --drop-wait-ns wants the wait after a drop in ns (an integer >= 0), not '-1'"),
    (("--arrivals", "a.txt", "--in-flight", "2"),
     "error: --in-flight goes with --frames only"),
    (("--streams", "2", "--in-flight", "2"), "error: --in-flight goes with --frames only"),
    (("--arrivals", "a.txt", "--drop-wait-ns", "5"),
     "error: --drop-wait-ns goes with --frames or --streams only"),
    (("--frames", "3abc"), "error: --frames wants a count (an integer >= 0), not '3abc'"),
    (("--streams", "-1"), "error: --streams wants a count (an integer >= 0), not '-1'"),
    (("--frames", "4294967296"), "error: --frames wants a count up to 2147483647"),
])
def test_bad_closed_loop_flags_are_usage_errors(binary: Path, one_model: native.Layout,
                                                args: tuple[str, ...], message: str) -> None:
    assert error_of(binary, one_model, *args, status=2).startswith(message)


def test_a_killed_runner_leaves_its_lines_up_to_the_last_second(
        binary: Path, tiny_models: dict[str, Path], tmp_path: Path) -> None:
    """The logs are written out every second: killed (SIGKILL) after ~2.5 s of a 10 s run,
    the job and request logs hold the first second's lines (a cut last line aside)."""
    layout = native.lay_out(tmp_path, {"chain": tiny_models["chain"]}, 2, CORES)
    arrivals = tmp_path / "arrivals.txt"
    arrivals.write_text("".join(f"{k * 50_000_000} chain\n" for k in range(200)))
    command = [str(binary), "--plan", str(layout.plan), "--slices", str(layout.slices),
               "--log", str(tmp_path / "jobs.tsv"), "--requests", str(tmp_path / "r.tsv"),
               "--arrivals", str(arrivals)]
    with subprocess.Popen(command, stderr=subprocess.DEVNULL) as runner:
        time.sleep(2.5)
        runner.send_signal(signal.SIGKILL)
    jobs = (tmp_path / "jobs.tsv").read_text().splitlines()
    requests = (tmp_path / "r.tsv").read_text().splitlines()
    assert len(jobs) > 10 and len(requests) > 5, (len(jobs), len(requests))
    assert len(requests) < 200  # (10 s of arrivals: a late kill under load still cuts)
