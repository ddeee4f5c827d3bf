"""The frame-rate bound: known answers worked by hand, properties against two independent
references, every error, and a benchmark on Band's EfficientNet-B4 plan.

The references: :func:`flow_program` builds the module docstring's flow program literally (one
column per f[s, q], sparse) and solves it with HiGHS; :func:`chains` enumerates every chain of
a plan by brute force. The module solves the same program by chain generation, so both must
agree with it.

Plans come from :func:`tests.fixtures.policies.plan`: spans ``(processor, first, last, ns)``;
unit ``u`` holds op ``u``. Times in the comments are ms; a processor has 1000 ms per second.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Mapping, Sequence

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from pytest_benchmark.fixture import BenchmarkFixture
from scipy.optimize import OptimizeResult, linprog

from baselines.band.analyzer import analyze
from devices.opsupport import support_table
from harness.models.zoo import load_graph
from harness.reporting import bound
from harness.reporting.bound import Bound, ModelWork, frame_rate_bound, handoff_bytes
from harness.seams.errors import UserError
from harness.seams.plan import ModelPlan, Processor, Subgraph
from tests.fixtures.graphs import dag
from tests.fixtures.policies import MS, Span, plan
from tests.fixtures.runs import compose_run

S = 1e9


def work(model: str, *spans: Span, handoff: Mapping[int, int] | None = None) -> ModelWork:
    """One plan of ``model`` from its spans; ``handoff``: subgraph index -> ns."""
    mp, profile = plan(model, spans)
    return ModelWork((mp,), {(0, k): ns for (_, k), ns in profile.items()},
                     {(0, k): ns for k, ns in (handoff or {}).items()})


def plans(model: str, *span_lists: Sequence[Span]) -> ModelWork:
    """Several plans of one model, one per span list."""
    built = [plan(model, spans) for spans in span_lists]
    return ModelWork(tuple(mp for mp, _ in built),
                     {(i, k): ns for i, (_, prof) in enumerate(built)
                      for (_, k), ns in prof.items()})


# -- reference 1: the flow program, literally ------------------------------------------------


def flow_program(processors: Sequence[str], models: Mapping[str, ModelWork],
                 capacity: Mapping[str, float] | None = None) -> tuple[float, int]:
    """(optimal F, columns) of the module docstring's program, one column per f[s, q]."""
    rows: dict[tuple[object, ...], int] = {}
    eq: list[tuple[int, int, float]] = []
    ub: list[tuple[int, int, float]] = []

    def row(key: tuple[object, ...]) -> int:
        return rows.setdefault(key, len(rows))

    for m, w in models.items():
        eq.append((row(("model", m)), 0, -1.0))  # sum of source flows - F = 0
        for i, mp in enumerate(w.plans):
            n = mp.num_units
            made = {(sg.last_unit + 1, sg.processor) for sg in mp.subgraphs}
            for sg in mp.subgraphs:
                entries = [None] if sg.first_unit == 0 else [
                    q for q in processors if (sg.first_unit, q) in made]
                for q in entries:
                    col = 1 + len(ub)
                    leave = ("model", m) if q is None else ("node", m, i, sg.first_unit, q)
                    eq.append((row(leave), col, -1.0 if q is not None else 1.0))
                    if sg.last_unit + 1 < n:
                        eq.append((row(("node", m, i, sg.last_unit + 1, sg.processor)), col, 1.0))
                    extra = w.handoff_ns.get((i, sg.index), 0) if q not in (None, sg.processor) \
                        else 0
                    seconds = (w.cost_ns[(i, sg.index)] + extra) / S
                    ub.append((processors.index(sg.processor), col, seconds))
    cols = 1 + len(ub)
    a_eq = sp.coo_array(([v for *_, v in eq], ([r for r, _, _ in eq], [c for _, c, _ in eq])),
                        shape=(len(rows), cols))
    a_ub = sp.coo_array(([v for *_, v in ub], ([r for r, _, _ in ub], [c for _, c, _ in ub])),
                        shape=(len(processors), cols))
    caps = [(capacity or {}).get(p, 1.0) for p in processors]
    c = np.zeros(cols)
    c[0] = -1.0
    # node rows: inflow - outflow = 0 (inflow +1, outflow -1); model rows: sources - F = 0
    result = linprog(c, A_ub=a_ub.tocsr(), b_ub=caps, A_eq=a_eq.tocsr(),
                     b_eq=np.zeros(len(rows)), method="highs")
    assert result.status == 0, result.message
    return -float(result.fun), cols


# -- reference 2: every chain, by brute force ------------------------------------------------


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


# -- known answers ---------------------------------------------------------------------------


def test_one_processor_one_model_whole() -> None:
    # 10 ms a frame on the only processor: 1000 / 10 = 100 frames/s
    b = frame_rate_bound(["cpu"], {"m": work("m", ("cpu", 0, 0, 10 * MS))})
    assert b.frames_per_s == pytest.approx(100.0, rel=1e-9)
    assert b.busy == pytest.approx({"cpu": 1.0})


def test_two_processors_split_the_model() -> None:
    # x on cpu (10 ms), y on gpu (5 ms): x <= 100, y <= 200, F = x + y = 300, both saturated,
    # so the optimum is unique: busy 1 s/s each and the model's time splits 1 : 1
    b = frame_rate_bound(["cpu", "gpu"],
                         {"m": work("m", ("cpu", 0, 0, 10 * MS), ("gpu", 0, 0, 5 * MS))})
    assert b.frames_per_s == pytest.approx(300.0, rel=1e-9)
    assert b.busy == pytest.approx({"cpu": 1.0, "gpu": 1.0})
    assert b.share == {"m": pytest.approx({"cpu": 0.5, "gpu": 0.5})}


TWO_UNITS = (("cpu", 0, 0, 4 * MS), ("gpu", 0, 0, 8 * MS), ("cpu", 1, 1, 6 * MS))


def test_a_unit_only_the_cpu_supports() -> None:
    # a frames start on cpu (4 + 6 ms there), b on gpu (8 ms there, then 6 ms on cpu):
    # cpu 10a + 6b <= 1000, gpu 8b <= 1000; F = a + b = 100 + 0.4b is largest at b = 125:
    # a = 25, F = 150; cpu 250 + 750 = 1000 ms, gpu 1000 ms
    b = frame_rate_bound(["cpu", "gpu"], {"m": work("m", *TWO_UNITS)})
    assert b.frames_per_s == pytest.approx(150.0, rel=1e-9)
    assert b.busy == pytest.approx({"cpu": 1.0, "gpu": 1.0})
    # the flow program: u0 on cpu, u0 on gpu, u1 entered from cpu or from gpu, and F
    assert b.variables == 5 == flow_program(["cpu", "gpu"], {"m": work("m", *TWO_UNITS)})[1]
    # the optimum is unique, and so are the flows: 25 frames/s start on cpu, 125 on gpu,
    # all 150 run unit 1 on cpu
    assert b.flow == {"m": pytest.approx({(0, 0): 25.0, (0, 1): 125.0, (0, 2): 150.0})}


def test_a_handoff_lowers_the_bound_as_computed() -> None:
    # entering unit 1 from the gpu costs 1 ms more: cpu 10a + 7b <= 1000, gpu 8b <= 1000;
    # F = 100 + 0.3b, b = 125, a = 12.5: F = 137.5 (was 150)
    w = work("m", *TWO_UNITS, handoff={2: 1 * MS})
    assert frame_rate_bound(["cpu", "gpu"], {"m": w}).frames_per_s == pytest.approx(
        137.5, rel=1e-9)


def test_a_handoff_is_not_charged_when_the_processor_stays() -> None:
    # with the gpu off, every frame runs cpu -> cpu: 10 ms, 100 frames/s, handoff or not
    # (charged, it would be 1000 / 11)
    w = work("m", *TWO_UNITS, handoff={2: 1 * MS})
    b = frame_rate_bound(["cpu", "gpu"], {"m": w}, {"gpu": 0.0})
    assert b.frames_per_s == pytest.approx(100.0, rel=1e-9)
    assert b.busy == pytest.approx({"cpu": 1.0, "gpu": 0.0})


def test_two_models_share_the_processors() -> None:
    # a: cpu 10 ms or gpu 5 ms; b: cpu 10 ms only. b alone fills the cpu at 100 frames/s,
    # so a must run on the gpu (100 x 5 ms = 0.5 s/s): F = 100, cpu 1.0, gpu 0.5, and each
    # model's time is all on one processor
    models = {"a": work("a", ("cpu", 0, 0, 10 * MS), ("gpu", 0, 0, 5 * MS)),
              "b": work("b", ("cpu", 0, 0, 10 * MS))}
    b = frame_rate_bound(["cpu", "gpu"], models)
    assert b.frames_per_s == pytest.approx(100.0, rel=1e-9)
    assert b.busy == pytest.approx({"cpu": 1.0, "gpu": 0.5})
    assert b.share == {"a": pytest.approx({"cpu": 0.0, "gpu": 1.0}),
                       "b": pytest.approx({"cpu": 1.0, "gpu": 0.0})}


def test_capacity_below_one() -> None:
    # cpu may give 0.5 s/s (50 frames of 10 ms), gpu 0.25 s/s (50 frames of 5 ms): F = 100
    b = frame_rate_bound(["cpu", "gpu"],
                         {"m": work("m", ("cpu", 0, 0, 10 * MS), ("gpu", 0, 0, 5 * MS))},
                         {"cpu": 0.5, "gpu": 0.25})
    assert b.frames_per_s == pytest.approx(100.0, rel=1e-9)
    assert b.busy == pytest.approx({"cpu": 0.5, "gpu": 0.25})


def test_no_capacity_no_frames() -> None:
    b = frame_rate_bound(["cpu"], {"m": work("m", ("cpu", 0, 0, 10 * MS))}, {"cpu": 0.0})
    assert (b.frames_per_s, b.busy, b.share) == (0.0, {"cpu": 0.0}, {"m": {"cpu": 0.0}})


def test_the_plans_of_one_model_add_up() -> None:
    # one plan runs the model on the cpu (10 ms), another on the gpu in two units (2 + 3 ms):
    # 100 + 200 = 300 frames/s, as if one plan offered both
    w = plans("m", [("cpu", 0, 0, 10 * MS)], [("gpu", 0, 0, 2 * MS), ("gpu", 1, 1, 3 * MS)])
    b = frame_rate_bound(["cpu", "gpu"], {"m": w})
    assert b.frames_per_s == pytest.approx(300.0, rel=1e-9)
    assert b.variables == 4  # F, cpu whole, gpu unit 0, gpu unit 1 entered from gpu


def test_a_merged_subgraph_is_used_when_cheaper() -> None:
    # units 0 and 1 on the cpu: 6 + 6 ms apart, 9 ms merged: 1000 / 9 frames/s
    w = work("m", ("cpu", 0, 0, 6 * MS), ("cpu", 1, 1, 6 * MS), ("cpu", 0, 1, 9 * MS))
    assert frame_rate_bound(["cpu"], {"m": w}).frames_per_s == pytest.approx(1000 / 9)


def uneven_ranges(model: str, n: int, names: Sequence[str], seed: int) -> ModelWork:
    """Every range of ``n`` units on every processor, each unit 0.2..5 ms on each processor
    (so switching can pay), ranges 5% below their units' sum, handoffs 0..1 ms."""
    rng = np.random.default_rng(seed)
    unit = rng.uniform(0.2, 5.0, size=(n, len(names))) * MS
    spans = [(p, i, j, int(0.95 * unit[i:j + 1, k].sum())) for i in range(n)
             for j in range(i, n) for k, p in enumerate(names)]
    mp, profile = plan(model, spans)
    return ModelWork((mp,), {(0, k): ns for (_, k), ns in profile.items()},
                     {(0, k): int(rng.integers(0, MS)) for k in range(len(spans))})


def test_matches_the_flow_program_on_uneven_ranges() -> None:
    names = ["cpu", "gpu", "npu"]
    models = {"a": uneven_ranges("a", 8, names, 5), "b": uneven_ranges("b", 5, names, 6)}
    expected, cols = flow_program(names, models, {"npu": 0.5})
    b = frame_rate_bound(names, models, {"npu": 0.5})
    assert b.frames_per_s == pytest.approx(expected, rel=1e-7)
    assert b.variables == cols
    # and the handoffs matter here: without them the bound is higher
    free = {m: ModelWork(w.plans, w.cost_ns) for m, w in models.items()}
    assert frame_rate_bound(names, free, {"npu": 0.5}).frames_per_s > b.frames_per_s * 1.001


# -- handoff_bytes ---------------------------------------------------------------------------

TENSOR_BYTES = 1 * 8 * 8 * 4 * 4  # tests.fixtures.graphs.SHAPE in float32


def unit_plan(model: str, units: Sequence[Sequence[int]]) -> ModelPlan:
    """A plan whose units hold the given ops, with every range on the cpu."""
    ops = tuple(frozenset(u) for u in units)
    subgraphs = [(a, b) for a in range(len(ops)) for b in range(a, len(ops))]
    return ModelPlan(model, ops, tuple(frozenset({"cpu"}) for _ in ops), tuple(
        Subgraph(k, model, "cpu", frozenset().union(*ops[a:b + 1]), tuple(range(a, b + 1)))
        for k, (a, b) in enumerate(subgraphs)))


def subgraph(mp: ModelPlan, first: int, last: int) -> Subgraph:
    return next(sg for sg in mp.subgraphs if (sg.first_unit, sg.last_unit) == (first, last))


def test_handoff_bytes_counts_only_what_the_previous_unit_made() -> None:
    # op 2 reads op 0's output (unit 0) and op 1's (unit 1): only the latter is counted
    graph = dag([(0, 1), (1, 2), (0, 2)], ["ADD"] * 3)
    mp = unit_plan("dag", [[0], [1], [2]])
    assert graph.pure_inputs([2]) == {1, 2}
    assert handoff_bytes(graph, mp, subgraph(mp, 2, 2)) == TENSOR_BYTES
    # units 1..2 read only op 0's output, which unit 0 made
    assert handoff_bytes(graph, mp, subgraph(mp, 1, 2)) == TENSOR_BYTES
    assert handoff_bytes(graph, mp, subgraph(mp, 0, 2)) == 0


def test_handoff_bytes_is_zero_when_the_input_is_older() -> None:
    graph = dag([(0, 1), (0, 2)], ["ADD"] * 3)  # op 2 reads op 0 only
    mp = unit_plan("dag", [[0], [1], [2]])
    assert handoff_bytes(graph, mp, subgraph(mp, 2, 2)) == 0


def test_handoff_bytes_sums_a_units_tensors() -> None:
    graph = dag([(0, 2), (1, 2)], ["ADD"] * 3)  # unit 0 = ops 0 and 1, both read by op 2
    mp = unit_plan("dag", [[0, 1], [2]])
    assert handoff_bytes(graph, mp, subgraph(mp, 1, 1)) == 2 * TENSOR_BYTES


def test_handoff_bytes_is_the_literal_definition() -> None:
    edges = [(0, 1), (1, 2), (0, 3), (2, 3), (1, 4), (3, 5), (4, 5), (2, 5)]
    graph = dag(edges, ["ADD"] * 6)
    mp = unit_plan("dag", [[0], [1, 2], [3], [4], [5]])
    for sg in mp.subgraphs:
        made = graph.outputs_of(mp.units[sg.first_unit - 1]) if sg.first_unit else frozenset()
        literal = sum(graph.tensors[t].nbytes for t in graph.pure_inputs(sg.ops) & made)
        assert handoff_bytes(graph, mp, sg) == literal, sg.units


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


# -- errors ----------------------------------------------------------------------------------

CPU_10 = work("m", ("cpu", 0, 0, 10 * MS))


def message(processors: Sequence[str], models: Mapping[str, ModelWork],
            capacity: Mapping[str, float] | None = None) -> str:
    with pytest.raises(UserError) as caught:
        frame_rate_bound(processors, models, capacity)
    text = str(caught.value)
    assert "\n" not in text
    return text


def test_a_model_without_a_complete_chain() -> None:
    # unit 1 has no subgraph, so nothing runs from unit 0 to unit 2
    text = message(["cpu"], {"m": work("m", ("cpu", 0, 0, MS), ("cpu", 2, 2, MS))})
    assert "'m'" in text and "no chain" in text


def test_a_subgraph_on_an_unknown_processor() -> None:
    text = message(["cpu"], {"m": work("m", ("cpu", 0, 0, MS), ("npu", 0, 0, MS))})
    assert "'m'" in text and "'npu'" in text


def test_a_missing_cost() -> None:
    mp, _ = plan("m", [("cpu", 0, 0, MS), ("gpu", 0, 0, MS)])
    text = message(["cpu", "gpu"], {"m": ModelWork((mp,), {(0, 0): MS})})
    assert "'m'" in text and "subgraph 1" in text and "gpu" in text and "no cost" in text


def test_no_models() -> None:
    assert "at least one model" in message(["cpu"], {})


@pytest.mark.parametrize("ns", [0, -MS])
def test_a_non_positive_cost(ns: int) -> None:
    text = message(["cpu", "gpu"], {"m": work("m", ("cpu", 0, 0, MS), ("gpu", 0, 0, ns))})
    assert "'m'" in text and "gpu" in text and "positive" in text


def test_a_negative_handoff() -> None:
    w = work("m", *TWO_UNITS, handoff={2: -MS})
    assert "handoff" in message(["cpu", "gpu"], {"m": w})


def test_a_plan_of_another_model_or_none() -> None:
    assert "'other'" in message(["cpu"], {"other": CPU_10})
    assert "no plans" in message(["cpu"], {"m": ModelWork((), {})})


@pytest.mark.parametrize(("processors", "capacity", "part"), [
    ([], None, "non-empty"),
    (["cpu", "cpu"], None, "distinct"),
    (["cpu"], {"gpu": 0.5}, "gpu"),
    (["cpu"], {"cpu": 1.5}, "'cpu'"),
    (["cpu"], {"cpu": -0.1}, "'cpu'"),
])
def test_bad_processors_or_capacity(processors: list[str], capacity: dict[str, float] | None,
                                    part: str) -> None:
    assert part in message(processors, {"m": CPU_10}, capacity)


def test_highs_failing_is_reported_with_its_message(monkeypatch: pytest.MonkeyPatch) -> None:
    said = "The problem is unbounded. (HiGHS Status 10: model_status is Unbounded)"
    monkeypatch.setattr(bound, "linprog",
                        lambda *a, **k: OptimizeResult(status=3, message=said))
    assert said in message(["cpu"], {"m": CPU_10})


def test_rounds_that_do_not_converge_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bound, "MAX_ROUNDS", 0)
    assert "did not converge" in message(["cpu"], {"m": CPU_10})


# -- benchmark -------------------------------------------------------------------------------


def efficientnet_b4_work() -> tuple[list[str], dict[str, ModelWork]]:
    """Band's plan of EfficientNet-B4 at minimum_subgraph_size 1 on the K50 Pro, with made-up
    costs (a seeded per unit and processor figure; merged ranges 10% below their units) and
    handoffs of 20 us + 1 ns per 4 bytes moved."""
    graph = load_graph("efficientnet_b4")
    device = compose_run("device=k50pro").device
    processors = [Processor(p.name, p.kind) for p in device.processors]
    mp = analyze(graph, processors, support_table(graph, device.processors), 1)
    names = [p.name for p in processors]
    unit = np.random.default_rng(11).integers(20_000, 400_000, size=(mp.num_units, len(names)))
    cost = {(0, sg.index): 1 + int(0.9 * unit[list(sg.units), names.index(sg.processor)].sum())
            for sg in mp.subgraphs}
    moved = {(0, sg.index): handoff_bytes(graph, mp, sg) for sg in mp.subgraphs}
    hand = {key: 20_000 + b // 4 for key, b in moved.items() if b}
    return names, {mp.model: ModelWork((mp,), cost, hand)}


@pytest.mark.benchmark(group="bound")
def test_bound_on_band_efficientnet_b4(benchmark: BenchmarkFixture) -> None:
    names, models = efficientnet_b4_work()
    walls: list[float] = []

    def timed() -> Bound:
        start = time.perf_counter()
        found = frame_rate_bound(names, models)
        walls.append(time.perf_counter() - start)
        return found

    b = benchmark.pedantic(timed, rounds=3)
    start = time.perf_counter()
    literal, cols = flow_program(names, models)
    literal_s = time.perf_counter() - start
    assert b.frames_per_s == pytest.approx(literal, rel=1e-7) and b.variables == cols
    (w,) = models.values()
    figures = {"subgraphs": len(w.plans[0].subgraphs), "variables": b.variables,
               "frames_per_s": b.frames_per_s, "solve_s": min(walls),
               "flow_program_s": literal_s}
    benchmark.extra_info.update(figures)
    print(" ".join(f"{k}={v}" if isinstance(v, int) else f"{k}={v:.4g}"
                   for k, v in figures.items()))
