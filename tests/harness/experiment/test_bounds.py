"""The as-run bound: a baseline's own LP with every subgraph that ran priced at its mean
latency in the run (harness/experiment/bounds.py), worked by hand."""

from __future__ import annotations

from dataclasses import replace

import pytest

from harness.experiment.baseline import shares_concurrently
from harness.experiment.bounds import Timings, Work, as_run
from harness.models.bound import ModelWork, frame_rate_bound
from harness.seams.records import Completion, Request
from tests.fixtures.policies import MS, plan


def test_subgraphs_that_ran_are_priced_at_their_mean_latency() -> None:
    # m: unit 0 on the cpu (4 ms) or the gpu (8 ms), unit 1 on the cpu (6 ms; 1 ms more when
    # entered from the gpu). In the run unit 0 on the cpu took 4 and 6 ms (mean 5), unit 1
    # took 7 ms (its handoff now inside), one failed attempt of 50 ms does not count, and
    # unit 0 on the gpu never ran (it keeps 8 ms). cpu 12a + 7b <= 1000, gpu 8b <= 1000:
    # b = 125, a = 125 / 12, F = 125 + 125 / 12
    mp, profile = plan("m", [("cpu", 0, 0, 4 * MS), ("gpu", 0, 0, 8 * MS), ("cpu", 1, 1, 6 * MS)])
    work = Work({"m": ModelWork((mp,), {(0, k): ns for (_, k), ns in profile.items()},
                                {(0, 2): 1 * MS})}, "d")
    req = Request(0, "m", -1, 0, 0)
    timings = Timings()
    for sg, start, end, ok in ((0, 0, 4, True), (0, 10, 16, True), (2, 16, 23, True),
                               (2, 30, 80, False)):
        timings.add(Completion(0, req, mp.subgraphs[sg], start * MS, end * MS, ok))
    ran = as_run(work, timings).models["m"]
    assert ran.cost_ns == {(0, 0): 5 * MS, (0, 1): 8 * MS, (0, 2): 7 * MS}
    assert ran.handoff_ns[(0, 2)] == 0 and set(ran.handoff_ns.values()) == {0}
    bound = frame_rate_bound(["cpu", "gpu"], {"m": ran})
    assert bound.frames_per_s == pytest.approx(125 + 125 / 12, rel=1e-9)
    # before the run: cpu 10a + 7b <= 1000 with the handoff, F = 137.5
    assert frame_rate_bound(["cpu", "gpu"], work.models).frames_per_s == pytest.approx(137.5)


def test_models_sharing_a_processor_concurrently_have_no_as_run_bound() -> None:
    """A latency measured while two models' interpreters share a processor holds the time
    shared, not the processor's busy time, so the as-run LP would understate that
    processor's capacity (FPS over it above 100%): such plans get none."""
    a, _ = plan("a", [("gpu", 0, 0, 4 * MS)])
    b, _ = plan("b", [("gpu", 0, 0, 6 * MS)])
    c, _ = plan("c", [("cpu", 0, 0, 6 * MS)])
    shared = {m: replace(p, concurrent=True) for m, p in (("a", a), ("b", b))}
    assert shares_concurrently(shared)
    assert not shares_concurrently({"a": a, "b": b})  # one at a time: the LP holds
    assert not shares_concurrently({"a": replace(a, concurrent=True),
                                    "c": replace(c, concurrent=True)})  # no processor shared
