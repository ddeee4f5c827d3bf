"""The frame-rate bound's chain generation against two independent references, on random small
plans (hypothesis): the literal flow program
(:func:`tests.harness.models.bound_cases.flow_program`, solved by HiGHS), and every chain of
a plan enumerated by brute force (:func:`chains`), which brackets the optimum from below (the
best single chain per model) and from above (capacity over the cheapest work). The flows,
busy times and shares it returns are checked for consistency too.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.models.bound import Bound, ModelWork, frame_rate_bound
from harness.seams.plan import ModelPlan
from tests.fixtures.policies import MS, plan
from tests.harness.models.bound_cases import S, flow_program, uneven_ranges

# -- the second reference: every chain, by brute force -------------------------------------


def chains(mp: ModelPlan, position: int, w: ModelWork,
           processors: Sequence[str]) -> list[np.ndarray]:
    """Seconds each chain of one plan puts on each processor."""
    found: list[np.ndarray] = []

    def walk(unit: int, previous: str | None, seconds: np.ndarray) -> None:
        if unit == mp.num_units:
            found.append(seconds)
            return
        for sg in mp.candidates(unit):
            moved = previous is not None and previous != sg.processor
            extra = w.handoff_ns.get((position, sg.index), 0) if moved else 0
            step = np.zeros(len(processors))
            step[processors.index(sg.processor)] = (w.cost_ns[(position, sg.index)] + extra) / S
            walk(sg.last_unit + 1, sg.processor, seconds + step)

    walk(0, None, np.zeros(len(processors)))
    return found


def model_chains(w: ModelWork, processors: Sequence[str]) -> list[np.ndarray]:
    return [c for i, mp in enumerate(w.plans) for c in chains(mp, i, w, processors)]


def rate(seconds: np.ndarray, caps: np.ndarray) -> float:
    """Frames per second when every frame puts ``seconds`` on the processors."""
    return min((c / s for c, s in zip(caps, seconds, strict=True) if s > 0), default=math.inf)


def best_whole_assignment(processors: Sequence[str], models: Mapping[str, ModelWork],
                          caps: np.ndarray) -> float:
    """The best frame rate when each model runs one chain only, by enumeration."""
    per_model = [model_chains(w, processors) for w in models.values()]
    return max(rate(sum(combo, np.zeros(len(processors))), caps)
               for combo in itertools.product(*per_model))


def cheapest_per_processor_bound(processors: Sequence[str], w: ModelWork,
                                 caps: np.ndarray) -> float:
    """sum_p capacity / (the least positive seconds any chain puts on p): every chain puts
    work on some processor, and at most cap_p / that much chain-rate can be charged there."""
    found = np.array(model_chains(w, processors))
    total = 0.0
    for k in range(len(processors)):
        used = found[:, k][found[:, k] > 0]
        if len(used):
            total += caps[k] / used.min()
    return total


def total_work_bound(processors: Sequence[str], models: Mapping[str, ModelWork],
                     caps: np.ndarray) -> float:
    """All capacity over the least total seconds a frame can take."""
    least = sum(min(c.sum() for c in model_chains(w, processors)) for w in models.values())
    return float(caps.sum() / least)


# -- properties on random small plans --------------------------------------------------------

NAMES = ("cpu", "gpu", "npu")


@st.composite
def plan_work(draw: st.DrawFn, model: str, names: Sequence[str]) -> ModelWork:
    """One to two random plans: every unit subgraph its support allows, some merged ones,
    costs of 0.5..10 ms and handoffs of 0..2 ms."""
    built, handoff = [], {}
    for position in range(draw(st.integers(1, 2))):
        n = draw(st.integers(1, 3))
        support = [sorted(draw(st.sets(st.sampled_from(names), min_size=1))) for _ in range(n)]
        spans = [(p, u, u) for u in range(n) for p in support[u]]
        merged = [(p, i, j) for i in range(n) for j in range(i + 1, n) for p in names
                  if all(p in support[u] for u in range(i, j + 1))]
        spans += draw(st.lists(st.sampled_from(merged), unique=True)) if merged else []
        costs = draw(st.lists(st.integers(1, 20), min_size=len(spans), max_size=len(spans)))
        built.append(plan(model, [(p, i, j, c * MS // 2) for (p, i, j), c in
                                  zip(spans, costs, strict=True)]))
        for k in range(len(spans)):
            handoff[(position, k)] = draw(st.sampled_from([0, 0, MS // 4, 2 * MS]))
    return ModelWork(tuple(mp for mp, _ in built),
                     {(i, k): ns for i, (_, prof) in enumerate(built)
                      for (_, k), ns in prof.items()}, handoff)


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[list[str], dict[str, ModelWork], dict[str, float]]:
    names = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=3, unique=True))
    models = {f"m{k}": draw(plan_work(f"m{k}", names)) for k in range(draw(st.integers(1, 2)))}
    caps = draw(st.fixed_dictionaries({p: st.sampled_from([0.0, 0.25, 0.5, 1.0])
                                       for p in names}))
    return names, models, caps


Scenario = tuple[list[str], dict[str, ModelWork], dict[str, float]]


def solved(scenario: Scenario) -> tuple[Bound, np.ndarray]:
    names, models, caps = scenario
    return frame_rate_bound(names, models, caps), np.array([caps[p] for p in names])


@settings(max_examples=80, deadline=None)
@given(scenarios())
def test_equals_the_flow_program(scenario: Scenario) -> None:
    b, _ = solved(scenario)
    expected, cols = flow_program(*scenario)
    assert b.frames_per_s == pytest.approx(expected, rel=1e-7, abs=1e-9)
    assert b.variables == cols


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 7), st.integers(0, 2**32 - 1))
def test_equals_the_flow_program_on_larger_plans(units: int, seed: int) -> None:
    names = ["cpu", "gpu", "npu"]
    models = {"a": uneven_ranges("a", units, names, seed),
              "b": uneven_ranges("b", 3, names, seed + 1)}
    caps = {"gpu": 0.5}
    assert frame_rate_bound(names, models, caps).frames_per_s == pytest.approx(
        flow_program(names, models, caps)[0], rel=1e-7)


@settings(max_examples=80, deadline=None)
@given(scenarios())
def test_at_least_the_best_single_chain_per_model(scenario: Scenario) -> None:
    b, caps = solved(scenario)
    names, models, _ = scenario
    assert b.frames_per_s >= best_whole_assignment(names, models, caps) * (1 - 1e-9)


@settings(max_examples=80, deadline=None)
@given(scenarios())
def test_at_most_capacity_over_the_cheapest_work(scenario: Scenario) -> None:
    b, caps = solved(scenario)
    names, models, _ = scenario
    tight = min(cheapest_per_processor_bound(names, w, caps) for w in models.values())
    assert b.frames_per_s <= tight * (1 + 1e-9)
    assert b.frames_per_s <= total_work_bound(names, models, caps) * (1 + 1e-9)


@settings(max_examples=80, deadline=None)
@given(scenarios())
def test_the_flows_carry_every_frame_and_make_the_busy_time(scenario: Scenario) -> None:
    """Per model, the flows into the sink sum to F and a boundary's inflow is its outflow;
    per processor, flows times costs without the handoffs are at most its busy time."""
    b, _ = solved(scenario)
    names, models, _ = scenario
    lower = dict.fromkeys(names, 0.0)
    for model, w in models.items():
        flow = b.flow[model]
        assert all(f > 0 for f in flow.values())
        for position, mp in enumerate(w.plans):
            through = np.zeros(mp.num_units + 1)
            for sg in mp.subgraphs:
                f = flow.get((position, sg.index), 0.0)
                through[sg.first_unit] -= f
                through[sg.last_unit + 1] += f
                lower[sg.processor] += f * w.cost_ns[(position, sg.index)] / S
            assert through[1:-1] == pytest.approx(np.zeros(mp.num_units - 1), abs=1e-6)
            if len(w.plans) == 1:
                assert through[-1] == pytest.approx(b.frames_per_s, rel=1e-6)
        ends = sum(flow.get((i, sg.index), 0.0) for i, mp in enumerate(w.plans)
                   for sg in mp.subgraphs if sg.last_unit + 1 == mp.num_units)
        assert ends == pytest.approx(b.frames_per_s, rel=1e-6)
    assert all(lower[p] <= b.busy[p] + 1e-6 for p in names)


@settings(max_examples=80, deadline=None)
@given(scenarios())
def test_busy_within_capacity_and_shares_add_up(scenario: Scenario) -> None:
    b, caps = solved(scenario)
    names, models, _ = scenario
    assert all(b.busy[p] <= c + 1e-9 for p, c in zip(names, caps, strict=True))
    for model, w in models.items():
        shares = b.share[model]
        used = set().union(*(mp.processors() for mp in w.plans))
        assert all(shares[p] == 0.0 for p in names if p not in used)
        assert sum(shares.values()) == pytest.approx(1.0 if b.frames_per_s > 0 else 0.0)
    # at the optimum some processor is full: otherwise F could grow
    if b.frames_per_s > 0:
        assert any(b.busy[p] >= c - 1e-7 for p, c in zip(names, caps, strict=True) if c > 0)
