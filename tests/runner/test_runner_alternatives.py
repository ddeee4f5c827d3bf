"""The runner on plans with alternative subgraphs (``units=`` in the plan file): ADMS's
partitions and Band's fallback subgraphs, planned by the policies themselves for two
processors (``tests/runner/candidates.py``), run under their ``--policy`` headers. Every
request finishes, runs each unit once, and its outputs equal the whole model's bit for bit;
the phone's decision trace replays clean in Python and C++. Plans that break the
alternatives' rules are refused with one ``error:`` line. Skipped when cmake or g++ is
missing. Band's other schedulers run under ``-m slow``.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from adms.config import AdmsConf
from adms.policy import AdmsPolicy
from baselines.band.config import BandConf, SchedulerName
from baselines.band.policy import BandPolicy
from harness.replay.phone import check_phone_trace
from harness.seams.policy import Policy
from tests.runner import candidates, native

pytestmark = pytest.mark.skipif(native.missing_tools() is not None,
                                reason=f"runner not buildable: {native.missing_tools()}")

CORES = sorted(os.sched_getaffinity(0))[:2]
MODELS = ("chain", "branchy")
FRAMES = 4


def adms() -> Policy:
    return AdmsPolicy(AdmsConf(window_size=1), lambda *_: 0, "runner")


def band(scheduler: SchedulerName) -> Policy:
    return BandPolicy(BandConf(scheduler=scheduler))


#: baseline -> its policy, planning
POLICIES = {
    "adms": adms,
    "band": lambda: band(SchedulerName.least_slack_time_first),
    "band_heft": lambda: band(SchedulerName.heterogeneous_earliest_finish_time),
}
SLOW = {
    "band_sel": lambda: band(SchedulerName.shortest_expected_latency),
    "band_heft_reserved": lambda: band(SchedulerName.heterogeneous_earliest_finish_time_reserved),
    "band_round_robin": lambda: band(SchedulerName.round_robin),
    "band_fixed_worker": lambda: band(SchedulerName.fixed_worker),
}


@pytest.fixture(scope="module")
def binary() -> Path:
    return native.build()


def lay_out(root: Path, tiny_models: dict[str, Path], baseline: str,
            **slo: int) -> candidates.Candidates:
    make = POLICIES.get(baseline) or SLOW[baseline]
    return candidates.lay_out(root, {m: tiny_models[m] for m in MODELS}, make(), baseline,
                              CORES, slo)


def run(binary: Path, plan: candidates.Candidates, folder: Path, *traffic: str,
        check: bool = True) -> subprocess.CompletedProcess[str]:
    (folder / "header.json").write_text(json.dumps(plan.header))
    return native.run(binary, plan.layout, *traffic, "--policy", str(folder / "header.json"),
                      "--decisions", str(folder / "trace.jsonl"), "--requests",
                      str(folder / "requests.tsv"), check=check)


def assert_replays_clean(trace: Path) -> None:
    assert check_phone_trace(trace) is None
    replayed = subprocess.run([str(native.BUILD / "replay"), str(trace)], capture_output=True,
                              text=True)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr


def assert_units_run_once(plan: candidates.Candidates, jobs: list[native.JobRow]) -> None:
    """Each request's subgraphs cover its model's units once, in order."""
    by_request: dict[int, list[native.JobRow]] = {}
    for job in jobs:
        by_request.setdefault(job.request, []).append(job)
    for rows in by_request.values():
        mp = plan.plans[rows[0].model]
        by_index = {sg.index: sg for sg in mp.subgraphs}
        units = [u for r in sorted(rows, key=lambda r: r.start_ns)
                 for u in by_index[r.subgraph].units]
        assert units == list(range(mp.num_units))
        assert all(by_index[r.subgraph].processor == r.processor for r in rows)


def check_run(binary: Path, tiny_models: dict[str, Path], tmp_path: Path, baseline: str
              ) -> tuple[candidates.Candidates, list[native.JobRow]]:
    plan = lay_out(tmp_path, tiny_models, baseline)
    (tmp_path / "in").mkdir()
    (tmp_path / "out").mkdir()
    inputs = {m: native.random_inputs(tiny_models[m], tmp_path / "in", m) for m in MODELS}
    run(binary, plan, tmp_path, "--frames", str(FRAMES), "--inputs", str(tmp_path / "in"),
        "--outputs", str(tmp_path / "out"))
    requests = (tmp_path / "requests.tsv").read_text().splitlines()[1:]
    assert len(requests) == FRAMES * len(MODELS)
    assert all(int(line.split("\t")[3]) > 0 for line in requests), "a request was dropped"
    for m in MODELS:
        for index, value in native.whole_model_outputs(tiny_models[m], inputs[m]).items():
            assert (tmp_path / "out" / f"{m}.{index}.bin").read_bytes() == value, m
    jobs = native.read_jobs(plan.layout.plan.parent / "jobs.tsv")
    assert_units_run_once(plan, jobs)
    assert_replays_clean(tmp_path / "trace.jsonl")
    return plan, jobs


@pytest.mark.parametrize("baseline", sorted(POLICIES))
def test_candidate_plans_run_and_equal_the_whole_model(
        binary: Path, tiny_models: dict[str, Path], tmp_path: Path, baseline: str) -> None:
    plan, jobs = check_run(binary, tiny_models, tmp_path, baseline)
    assert any(len(p.subgraphs) > p.num_units for p in plan.plans.values()), "no alternatives"
    if baseline != "band":  # (least slack first runs each model whole on cpu0 here)
        assert {j.processor for j in jobs} == {"cpu0", "cpu1"}


@pytest.mark.slow
@pytest.mark.parametrize("baseline", sorted(SLOW))
def test_every_band_scheduler_runs_candidate_plans(
        binary: Path, tiny_models: dict[str, Path], tmp_path: Path, baseline: str) -> None:
    check_run(binary, tiny_models, tmp_path, baseline)


def error_of(result: subprocess.CompletedProcess[str], status: int = 1) -> str:
    assert result.returncode == status, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 1, result.stderr
    return lines[0]


def edit(plan: candidates.Candidates, old: str, new: str) -> None:
    text = plan.layout.plan.read_text()
    assert old in text
    plan.layout.plan.write_text(text.replace(old, new, 1))


def unit_range(head: dict[str, Any]) -> dict[str, Any]:
    head["plans"][0]["subgraphs"][-1]["units"] = [0]
    return head


@pytest.mark.parametrize(("old", "new", "message"), [
    ("units=0-0 ", "", "units= on some of its subgraphs but not all"),
    ("subgraph chain 1 ", "subgraph chain 0 ", "subgraph index given twice"),
    ("units=0-0 ", "units=2-1 ", "units= wants <first>-<last>"),
])
def test_a_bad_plan_with_alternatives_names_the_line(
        binary: Path, tiny_models: dict[str, Path], tmp_path: Path, old: str, new: str,
        message: str) -> None:
    plan = lay_out(tmp_path, tiny_models, "adms")
    edit(plan, old, new)
    message_line = error_of(run(binary, plan, tmp_path, "--frames", "1", check=False))
    assert message in message_line and "plan.txt:" in message_line


def test_a_header_whose_units_differ_is_refused(binary: Path, tiny_models: dict[str, Path],
                                                tmp_path: Path) -> None:
    plan = lay_out(tmp_path, tiny_models, "band_heft")
    unit_range(plan.header)
    line = error_of(run(binary, plan, tmp_path, "--frames", "1", check=False))
    assert line.startswith("error: --policy ") and "in the header and" in line


def test_a_band_run_with_a_tight_slo_drops_and_replays_clean(
        binary: Path, tiny_models: dict[str, Path], tmp_path: Path) -> None:
    """A burst of arrivals (streams 0 and 1, as the host ships Python's traffic) under an SLO
    of 2 ms: Band drops the requests it cannot finish in time, the others finish, and the
    views carried each request's SLO and stream. The burst comes at one instant, so Band's
    first decision sees all of it priced by the profile (each subgraph 190 µs or more: 48
    requests on two workers are 4.5 ms of work), however fast this machine runs them."""
    slo = {m: 2_000_000 for m in MODELS}
    plan = lay_out(tmp_path, tiny_models, "band", **slo)
    arrivals = tmp_path / "arrivals.txt"
    burst = 24
    arrivals.write_text("".join(f"0 {m} {s}\n" for _ in range(burst)
                                for s, m in enumerate(MODELS)))
    run(binary, plan, tmp_path, "--arrivals", str(arrivals))
    ends = [int(line.split("\t")[3])
            for line in (tmp_path / "requests.tsv").read_text().splitlines()[1:]]
    assert len(ends) == burst * len(MODELS) and -1 in ends and any(e > 0 for e in ends)
    lines = [json.loads(line) for line in (tmp_path / "trace.jsonl").read_text().splitlines()]
    jobs = [job for line in lines[1:] if line["call"] == "schedule" for job in line["queue"]]
    assert {(job[5], job[8], job[9]) for job in jobs} == {
        (m, 2_000_000, s) for s, m in enumerate(MODELS)}
    assert {job[6] for job in jobs} <= set(range(burst)) and max(job[6] for job in jobs) > 0
    assert any(line["decision"]["drop"] for line in lines[1:] if line["call"] == "schedule")
    assert_replays_clean(tmp_path / "trace.jsonl")


def test_a_frame_with_a_dropped_request_delays_the_next_by_the_drop_wait(
        binary: Path, tiny_models: dict[str, Path], tmp_path: Path) -> None:
    """Frames one at a time under Band with an SLO of 0.6 ms, below what the profile prices
    some requests at (each subgraph 200 µs or more), so Band drops some: the frame after a
    frame with a dropped request arrives ``--drop-wait-ns`` (30 ms) or more after that frame
    ended (its last finished request, or its arrival when all were dropped, as the request
    log does not time drops); the frame after a frame without drops arrives at once; the
    trace replays clean."""
    wait_ns, frames = 30_000_000, 16
    plan = lay_out(tmp_path, tiny_models, "band", **{m: 600_000 for m in MODELS})
    run(binary, plan, tmp_path, "--frames", str(frames), "--drop-wait-ns", str(wait_ns))
    rows = native.read_requests(tmp_path / "requests.tsv")
    assert sorted(r[0] for r in rows) == list(range(frames * len(MODELS)))
    by_frame: dict[int, list[tuple[int, str, int, int]]] = {}
    for row in rows:
        by_frame.setdefault(row[0] // len(MODELS), []).append(row)
    arrival = {f: min(r[2] for r in reqs) for f, reqs in by_frame.items()}
    ended = {f: max(arrival[f], *(r[3] for r in reqs)) for f, reqs in by_frame.items()}
    dropped = {f for f, reqs in by_frame.items() if any(r[3] == -1 for r in reqs)}
    assert dropped, "Band dropped nothing: the SLO is not tight enough here"
    for f in range(frames - 1):
        assert arrival[f + 1] >= ended[f] + (wait_ns if f in dropped else 0), f
    kept = [f for f in range(frames - 1) if f not in dropped]
    assert not kept or min(arrival[f + 1] - ended[f] for f in kept) < wait_ns
    assert_replays_clean(tmp_path / "trace.jsonl")


PROFILE_COLUMNS = ["model", "index", "processor", "first_unit", "last_unit", "n",
                   "invoke_ns_median", "invoke_ns_min", "copy_ns_median"]


def profile(binary: Path, plan: candidates.Candidates, *args: str
            ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(binary), "--plan", str(plan.layout.plan), "--slices",
                           str(plan.layout.slices), *args], capture_output=True, text=True,
                          timeout=300)


def test_profile_times_every_subgraph_alone(binary: Path, tiny_models: dict[str, Path],
                                            tmp_path: Path) -> None:
    plan = lay_out(tmp_path, tiny_models, "adms")
    out = tmp_path / "profile.tsv"
    result = profile(binary, plan, "--profile", "3", "--profile-out", str(out), "--warmup", "0")
    assert result.returncode == 0, result.stderr
    header, *lines = [line.split("\t") for line in out.read_text().splitlines()]
    assert header == PROFILE_COLUMNS
    rows = {(r[0], int(r[1])): r[2:] for r in lines}
    assert len(rows) == len(lines) == sum(len(p.subgraphs) for p in plan.plans.values())
    for m, mp in plan.plans.items():
        for sg in mp.subgraphs:
            processor, first, last, n, median, low, copy = rows[(m, sg.index)]
            assert (processor, int(first), int(last), int(n)) == (
                sg.processor, sg.first_unit, sg.last_unit, 3)
            assert 0 < int(low) <= int(median) and int(copy) >= 0


@pytest.mark.parametrize(("args", "message"), [
    (("--profile", "2", "--profile-out", "p.tsv", "--frames", "1"), "--profile excludes --frames"),
    (("--profile-out", "p.tsv"), "missing --profile"),
    (("--profile", "0", "--profile-out", "p.tsv"), "--profile wants at least 1 run"),
    (("--profile", "2", "--profile-out", "p.tsv", "--in-flight", "2"),
     "--profile excludes --in-flight"),
])
def test_profile_usage_errors(binary: Path, tiny_models: dict[str, Path], tmp_path: Path,
                              args: tuple[str, ...], message: str) -> None:
    plan = lay_out(tmp_path, tiny_models, "band")
    assert message in error_of(profile(binary, plan, *args), status=2)
