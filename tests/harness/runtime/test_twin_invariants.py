"""Invariants of whole runs on the real twins: short runs (1 s + 0.2 s warm-up) of every
baseline on k50pro (FRS and ROS), p20 and mi6, through
:func:`harness.experiment.baseline.run_baseline` into a real results folder, then checks on the
recorded rows: one subgraph at a time per processor; a request's subgraphs run in unit order,
one after another; an ``ok`` request covers its plan's units exactly once;
arrival <= start <= end; warm-up flags. The checkers themselves are tested on hand-made rows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pandas as pd
import pytest

from harness.config.schema import RunConf
from harness.reporting.store import RunData
from harness.seams.units import NS_PER_S
from tests.fixtures.runs import BASELINES, SHORT, compose_run, run_baselines

#: (device, scenario): both scenarios on k50pro, one each on p20 and mi6
CASES = (("k50pro", "frs"), ("k50pro", "ros"), ("p20", "frs"), ("mi6", "ros"))

Run = tuple[RunData, dict, RunConf]


@pytest.fixture(scope="module")
def twin_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[str, str], Run]]:
    """``twin_run(device, scenario)``: every baseline, short, run once per module."""
    cache_dir = tmp_path_factory.mktemp("tuner_cache")
    done: dict[tuple[str, str], Run] = {}

    def get(device: str, scenario: str) -> Run:
        if (device, scenario) not in done:
            cfg = compose_run(f"device={device}", f"scenario={scenario}",
                              f"run=[{','.join(baselines_of(device, scenario))}]", *SHORT)
            folder = tmp_path_factory.mktemp(f"{device}_{scenario}")
            data, facts = run_baselines(cfg, folder, cache_dir)
            done[(device, scenario)] = (data, facts, cfg)
        return done[(device, scenario)]

    yield get


def rows_of(run: Run, baseline: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    data = run[0]
    req = data.requests[data.requests["baseline"] == baseline]
    sub = data.subgraphs[data.subgraphs["baseline"] == baseline]
    return req, sub


def overlaps(sub: pd.DataFrame, by: str = "processor") -> list[tuple[str, int, int]]:
    """(processor, previous end, start) wherever a subgraph starts before the previous ends
    (``by``: on one processor, or of one model)."""
    bad = []
    for proc, rows in sub.groupby(by):
        rows = rows.sort_values(["start_ns", "end_ns"])
        prev_end = rows["end_ns"].shift(1)
        for start, end in zip(rows["start_ns"], prev_end, strict=True):
            if not pd.isna(end) and start < end:
                bad.append((str(proc), int(end), int(start)))
    return bad


def chain_faults(sub: pd.DataFrame) -> list[str]:
    """Requests whose subgraphs do not run units 0, 1, ... consecutively, one after another."""
    bad = []
    for rid, rows in sub.groupby("request_id"):
        rows = rows.sort_values("start_ns")
        expected_first = [0, *(rows["last_unit"].iloc[:-1] + 1)]
        if list(rows["first_unit"]) != expected_first:
            bad.append(f"request {rid}: first units {list(rows['first_unit'])}")
        if (rows["start_ns"].iloc[1:].to_numpy() < rows["end_ns"].iloc[:-1].to_numpy()).any():
            bad.append(f"request {rid}: a subgraph starts before the previous one ended")
    return bad


def coverage_faults(req: pd.DataFrame, sub: pd.DataFrame, units: dict[str, int]) -> list[str]:
    """``ok`` requests that do not end at their plan's last unit, or whose row disagrees with
    its subgraph rows (count, first start, last end, processors in order of first use)."""
    bad = []
    by_request = dict(tuple(sub.groupby("request_id")))
    for r in req[req["status"] == "ok"].itertuples():
        rows = by_request.get(r.request_id)
        if rows is None:
            bad.append(f"request {r.request_id}: ok without subgraphs")
            continue
        rows = rows.sort_values("start_ns")
        seen = ",".join(dict.fromkeys(rows["processor"]))
        facts = (int(rows["last_unit"].iloc[-1]), len(rows), int(rows["start_ns"].iloc[0]),
                 int(rows["end_ns"].iloc[-1]), seen, bool(rows["ok"].all()))
        want = (units[str(r.model)] - 1, r.n_subgraphs, r.start_ns, r.end_ns, r.processors, True)
        if facts != want:
            bad.append(f"request {r.request_id}: {facts} != {want}")
    return bad


def num_units(run: Run, baseline: str) -> dict[str, int]:
    facts = run[1][baseline]
    return {m: c.unit for m, c in facts.get("plans", {}).items()}


#: Band-7 runs everywhere, beside the default baselines
RUN_BASELINES = (*BASELINES, "band7")


def baselines_of(device: str, scenario: str) -> tuple[str, ...]:
    """The baselines a case runs: on k50pro ROS not Band at size 1, which loads 38,556
    interpreters there to be killed for memory (the longest run of the module; that failure
    is shown by tests/notebooks/test_notebooks.py)."""
    if (device, scenario) == ("k50pro", "ros"):
        return tuple(b for b in RUN_BASELINES if b != "band")
    return RUN_BASELINES


#: k50pro ROS is the module's longest run (~25 s): under ``-m slow``; mi6 ROS covers ROS
SLOW_CASES = {("k50pro", "ros")}
BASELINE_CASES = [pytest.param(d, s, b, id=f"{d}-{s}-{b}",
                               marks=[pytest.mark.slow] if (d, s) in SLOW_CASES else [])
                  for d, s in CASES for b in baselines_of(d, s)]


@pytest.mark.parametrize(("device", "scenario", "baseline"), BASELINE_CASES)
def test_every_model_finishes_requests(device: str, scenario: str, baseline: str,
                                       twin_run: Callable[[str, str], Run]) -> None:
    run = twin_run(device, scenario)
    req, sub = rows_of(run, baseline)
    assert "failed" not in run[1][baseline]
    ok = req[req["status"] == "ok"]
    assert set(ok["model"]) == set(run[2].scenario.models)
    assert len(sub) >= len(ok) > 0
    assert set(sub["request_id"]) <= set(req["request_id"])


@pytest.mark.parametrize(("device", "scenario", "baseline"), BASELINE_CASES)
def test_one_subgraph_at_a_time_per_processor(device: str, scenario: str, baseline: str,
                                              twin_run: Callable[[str, str], Run]) -> None:
    """Band and ADMS: one worker per processor. Vanilla TFLite runs each model's interpreter
    on its own thread (concurrent plans): one invocation at a time per model (one stream per
    model here), several per processor."""
    _, sub = rows_of(twin_run(device, scenario), baseline)
    assert overlaps(sub, "model" if baseline == "tflite" else "processor") == []


@pytest.mark.parametrize(("device", "scenario", "baseline"), BASELINE_CASES)
def test_subgraphs_of_a_request_run_units_in_order(device: str, scenario: str, baseline: str,
                                                   twin_run: Callable[[str, str], Run]) -> None:
    _, sub = rows_of(twin_run(device, scenario), baseline)
    assert chain_faults(sub) == []


@pytest.mark.parametrize(("device", "scenario", "baseline"), BASELINE_CASES)
def test_ok_requests_cover_their_plan_once(device: str, scenario: str, baseline: str,
                                           twin_run: Callable[[str, str], Run]) -> None:
    run = twin_run(device, scenario)
    req, sub = rows_of(run, baseline)
    assert coverage_faults(req, sub, num_units(run, baseline)) == []


@pytest.mark.parametrize(("device", "scenario", "baseline"), BASELINE_CASES)
def test_request_times_and_warmup_flags(device: str, scenario: str, baseline: str,
                                        twin_run: Callable[[str, str], Run]) -> None:
    run = twin_run(device, scenario)
    req, _ = rows_of(run, baseline)
    ok = req[req["status"] == "ok"]
    assert (ok["arrival_ns"] <= ok["start_ns"]).all()
    assert (ok["start_ns"] <= ok["end_ns"]).all()
    warmup_ns = int(run[2].scenario.warmup_s * NS_PER_S)
    assert (req["warmup"] == (req["arrival_ns"] < warmup_ns)).all()
    assert req["warmup"].any() and not req["warmup"].all()


def test_invariant_checks_catch_faults() -> None:
    """The checkers themselves: overlapping, out-of-order and short rows are reported."""
    sub = pd.DataFrame({"request_id": [1, 1, 2], "processor": ["cpu", "gpu", "cpu"],
                        "first_unit": [0, 2, 0], "last_unit": [0, 2, 1],
                        "start_ns": [0, 5, 8], "end_ns": [10, 20, 30], "ok": [True] * 3})
    assert overlaps(sub) == [("cpu", 10, 8)]
    assert len(chain_faults(sub)) == 2  # request 1: unit 1 skipped and starts before 10
    req = pd.DataFrame({"request_id": [2], "model": ["m"], "status": ["ok"], "n_subgraphs": [1],
                        "start_ns": [8], "end_ns": [30], "processors": ["cpu"]})
    assert coverage_faults(req, sub, {"m": 2}) == []
    assert len(coverage_faults(req, sub, {"m": 3})) == 1
