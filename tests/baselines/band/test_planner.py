"""Band's shortest-latency search (:class:`baselines.band.planner.ChainFinder`): the fastest
chain of subgraphs to the end of a model, on an idle device and with processors still busy,
worked by hand and against a brute-force enumeration of every chain."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from baselines.band.planner import ChainFinder, plan_costs
from harness.seams.plan import ModelPlan
from tests.fixtures.policies import plan


def _chain_plan() -> tuple[ModelPlan, dict[tuple[str, int], int]]:
    # units 0..2; cpu runs everything slowly, gpu is fast on 0 and 1-2, npu fast on 1 only
    return plan("m", [("cpu", 0, 2, 30), ("gpu", 0, 0, 5), ("gpu", 1, 2, 9), ("npu", 1, 1, 2),
                      ("cpu", 2, 2, 3), ("cpu", 0, 0, 8)])


def test_shortest_chain_idle_device() -> None:
    mp, prof = _chain_plan()
    costs = plan_costs(mp, lambda sg: prof[(sg.model, sg.index)])
    chain = ChainFinder().shortest(mp, 0, {"cpu": 0, "gpu": 0, "npu": 0}, costs)
    assert chain is not None
    assert [sg.index for sg in chain.subgraphs] == [1, 3, 4]  # gpu 5, npu 2, cpu 3
    assert chain.finish_ns == 10


def test_shortest_chain_accounts_for_waiting() -> None:
    mp, prof = _chain_plan()
    costs = plan_costs(mp, lambda sg: prof[(sg.model, sg.index)])
    chain = ChainFinder().shortest(mp, 0, {"cpu": 0, "gpu": 20, "npu": 0}, costs)
    assert chain is not None
    # gpu busy for 20: cpu unit 0 (8), npu (10), cpu (13)
    assert [sg.index for sg in chain.subgraphs] == [5, 3, 4] and chain.finish_ns == 13
    later = ChainFinder().shortest(mp, 1, {"cpu": 0, "gpu": 0, "npu": 0}, costs)
    assert later is not None and later.finish_ns == 5  # npu 2 + cpu 3


def _brute_force(mp: ModelPlan, start: int, waiting: dict[str, int], costs: list[int]) -> int:
    best = None
    def walk(unit: int, t: int) -> None:
        nonlocal best
        if unit == mp.num_units:
            best = t if best is None else min(best, t)
            return
        for sg in mp.candidates(unit):
            walk(sg.last_unit + 1, costs[sg.index] + max(waiting[sg.processor], t))
    walk(start, 0)
    assert best is not None
    return best


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 4),
    costs=st.lists(st.integers(1, 50), min_size=40, max_size=40),
    waits=st.lists(st.integers(0, 60), min_size=3, max_size=3),
)
def test_shortest_chain_matches_brute_force(n: int, costs: list[int], waits: list[int]) -> None:
    names = ("cpu", "gpu", "npu")
    spans = [(p, i, j, 0) for i in range(n) for j in range(i, n) for p in names
             if p == "cpu" or (i + j + len(p)) % 3]
    spans = [(p, i, j, costs[k % len(costs)]) for k, (p, i, j, _) in enumerate(spans)]
    mp, prof = plan("m", spans)
    costs = plan_costs(mp, lambda sg: prof[(sg.model, sg.index)])
    waiting = dict(zip(names, waits, strict=True))
    for start in range(n):
        chain = ChainFinder().shortest(mp, start, waiting, costs)
        assert chain is not None
        assert chain.finish_ns == _brute_force(mp, start, waiting, costs)
        assert chain.first.first_unit == start and chain.subgraphs[-1].last_unit == n - 1
