"""The ``threads`` baseline on the host: one whole-model interpreter per model in its own
thread, the OS sharing the cores, through the same traffic and records as every baseline.

A real session (``harness.experiment.session.run``) on tiny real models saved under the FRS
models' names: its rows are the run folder's usual tables, every request of every model
finishes, each model's inferences run on its own lane, the lanes' inferences overlap in time
(three threads on shared cores, not one after another), and the manifest keeps the models'
times alone and the baseline's own bound. The bound and the dispatch rule on known cases.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from baselines.threads.config import ThreadsConf
from devices.host.config import Kernel
from devices.host.spec import available_cores
from devices.host.threads import (
    FirstComeFirstServed,
    lane_name,
    own_bound,
    threads_spec,
    whole_plan,
)
from harness.experiment.session import run
from harness.reporting.metrics import compute
from harness.reporting.store import RunData, load_run
from harness.seams.errors import UserError
from harness.seams.records import Request
from harness.seams.view import JobView, SchedulerView
from tests.fixtures.frs_zoo import STAND_INS, frs_zoo
from tests.fixtures.graphs import chain
from tests.fixtures.paths import REPO


@pytest.fixture(scope="module")
def threads_run(tiny_models: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
                ) -> RunData:
    zoo = frs_zoo(tiny_models, tmp_path_factory.mktemp("tiny_zoo"))
    out = tmp_path_factory.mktemp("threads_run") / "run"
    cores = available_cores()
    device = "host" if len(cores) >= 2 else "host_equal"
    overrides = [f"device={device}", "scenario=frs", f"zoo_cache={zoo}", "run=[threads]",
                 "seed.count=1", "scenario.duration_s=1", "scenario.warmup_s=0.2",
                 "plots=false"]
    if len(cores) < 2:  # the configs pin workers to cores 0 and 1
        overrides += [f"device.processors.{i}.host.cores=[{cores[0]}]" for i in (0, 1)]
    assert REPO.is_dir()
    return load_run(run(overrides, out))


def test_every_request_of_every_model_finishes_on_its_own_lane(threads_run: RunData) -> None:
    req = threads_run.requests
    assert set(req["baseline"]) == {"threads"} and set(req["model"]) == set(STAND_INS)
    measured = req[~req["warmup"]]
    assert len(measured) > 0 and (measured["status"] == "ok").all()
    assert (measured["processors"] == measured["model"].map(lane_name)).all()
    assert (measured["n_subgraphs"] == 1).all()
    assert (req["start_ns"] >= req["arrival_ns"]).all() and (req["end_ns"] > req["start_ns"]).all()
    fps = compute(threads_run).scenario.set_index("baseline").loc["threads", "fps"]
    assert fps > 0


def test_the_models_threads_run_at_the_same_time(threads_run: RunData) -> None:
    sub = threads_run.subgraphs.sort_values("start_ns")
    assert set(sub["processor"]) == {lane_name(m) for m in STAND_INS}
    assert _overlapping_pairs(sub) > 0


def _overlapping_pairs(sub: pd.DataFrame) -> int:
    """Inferences of different lanes whose run intervals intersect."""
    rows = list(sub[["processor", "start_ns", "end_ns"]].itertuples(index=False))
    return sum(1 for i, a in enumerate(rows) for b in rows[i + 1:i + 8]
               if a.processor != b.processor and b.start_ns < a.end_ns)


def test_the_manifest_keeps_times_alone_sensors_and_the_own_bound(threads_run: RunData) -> None:
    facts = threads_run.manifest["runs"]["threads"]["0"]
    assert set(facts["alone_ns"]) == set(STAND_INS)
    assert all(ns > 0 for ns in facts["alone_ns"].values())
    assert facts["threads"]["kernel"] == "xnnpack" and facts["threads"]["threads"] == 1
    expected = own_bound(facts["alone_ns"], len(facts["threads"]["cores"]))["frames_per_s"]
    assert facts["bound"]["frames_per_s"] == pytest.approx(expected)
    assert set(threads_run.sensors["processor"]) == {"cpu", "gpu"}


def test_own_bound_known_answers() -> None:
    s = 1_000_000_000
    assert own_bound({"a": s, "b": s}, 2)["frames_per_s"] == pytest.approx(1.0)
    # one long model: no faster than it alone
    assert own_bound({"a": 3 * s, "b": s}, 2)["frames_per_s"] == pytest.approx(1 / 3)
    # the cores' time: 2 cores, 4 s of work per frame
    assert own_bound({"a": s, "b": s, "c": 2 * s}, 2)["frames_per_s"] == pytest.approx(0.5)


def test_every_queued_request_goes_to_its_models_lane_in_order() -> None:
    plans = {m: whole_plan(chain(["CONV_2D"] * 3, name=m)) for m in ("a", "b")}
    queue = [JobView(j, Request(j, m, j, 0, 0, 0), 0, 0) for j, m in enumerate("abba")]
    view = SchedulerView(0, queue, (), plans)
    decision = FirstComeFirstServed({}).schedule(view)
    assert [(a.job_id, a.subgraph.processor) for a in decision.assignments] == [
        (0, "thread:a"), (1, "thread:b"), (2, "thread:b"), (3, "thread:a")]
    assert plans["a"].subgraphs[0].ops == frozenset(range(3))


def test_threads_spec_checks_kernel_threads_and_cores() -> None:
    spec = threads_spec(ThreadsConf(kernel="builtin", threads=2, cores=None), (0, 1))
    assert (spec.kernel, spec.threads, spec.cores) == (Kernel.builtin, 2, (0, 1))
    cases: list[tuple[dict[str, object], str]] = [
        ({"kernel": "cuda"}, "cuda"),
        ({"threads": 0}, r"baselines\.threads\.threads=0 is out of range: it must be >= 1"),
        ({"cores": [7]}, "core 7")]
    for bad, needle in cases:
        with pytest.raises(UserError, match=needle):
            threads_spec(ThreadsConf(**{"kernel": "xnnpack", "threads": 1, "cores": None,
                                        **bad}), (0, 1))  # type: ignore[arg-type]
