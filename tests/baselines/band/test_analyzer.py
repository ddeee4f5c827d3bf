"""Band's Model Analyzer: exact plans for hand-built graphs, and properties on random DAGs."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baselines.band.analyzer import Dataflow, analyze, fallback_subgraphs, short_runs
from harness.seams.errors import UserError
from harness.seams.graph import ModelGraph
from harness.seams.plan import ModelPlan
from tests.fixtures.graphs import CPU, GPU, NPU, chain, dag

# -- Figure 5 -------------------------------------------------------------------------------
# Seven ops; the GPU runs 1-3 and 6, not 0, 4, 5. Vanilla TFLite delegates its largest
# partition only, so three ops run on the GPU (Figure 5(b)); the analyzer groups the ops into
# units of equal support (Figure 5(c)).
#
#   op0 ─ op1 ─ op2 ─ op3 ─┐
#     └──────── op4 ───────┴ op5 ─ op6
FIG5 = dag([(0, 1), (1, 2), (2, 3), (0, 4), (3, 5), (4, 5), (5, 6)],
           ["CONV_2D", "CONV_2D", "RELU", "CONV_2D", "MEAN", "ADD", "CONV_2D"], name="fig5")
FIG5_UNSUPPORTED = {"cpu": frozenset(), "gpu": frozenset({0, 4, 5})}


def layout(plan: ModelPlan) -> list[tuple[str, tuple[int, ...]]]:
    return [(sg.processor, sg.units) for sg in plan.subgraphs]


def test_figure5_fallback_runs_alternate() -> None:
    runs = fallback_subgraphs(FIG5, GPU, FIG5_UNSUPPORTED["gpu"])
    assert runs == [{0, 4}, {1, 2, 3}, {5}, {6}]


def test_figure5_units_and_merged_subgraphs() -> None:
    plan = analyze(FIG5, [CPU, GPU], FIG5_UNSUPPORTED)
    assert plan.units == ({0, 4}, {1, 2, 3}, {5}, {6})
    assert plan.unit_support == ({"cpu"}, {"cpu", "gpu"}, {"cpu"}, {"cpu", "gpu"})
    assert layout(plan) == [
        ("cpu", (0,)), ("cpu", (1,)), ("gpu", (1,)), ("cpu", (2,)), ("cpu", (3,)), ("gpu", (3,)),
        ("cpu", (0, 1)), ("cpu", (0, 1, 2)), ("cpu", (0, 1, 2, 3)), ("cpu", (2, 3))]
    assert (plan.counts().unit, plan.counts().merged, plan.counts().total) == (4, 4, 10)


def test_figure5_window_two_drops_the_lone_gpu_op() -> None:
    plan = analyze(FIG5, [CPU, GPU], FIG5_UNSUPPORTED, minimum_subgraph_size=2)
    assert plan.units == ({0, 4}, {1, 2, 3}, {5, 6})
    assert layout(plan)[-2:] == [("cpu", (0, 1)), ("cpu", (0, 1, 2))]
    assert plan.meta["window_size"] == 2 and plan.window_size == 2


def test_figure5_window_above_every_run_leaves_one_cpu_unit() -> None:
    plan = analyze(FIG5, [CPU, GPU], FIG5_UNSUPPORTED, minimum_subgraph_size=4)
    assert layout(plan) == [("cpu", (0,))] and plan.units == (frozenset(range(7)),)


# -- chains and branches --------------------------------------------------------------------


def test_chain_alternating_support_merges_only_on_the_cpu() -> None:
    g = chain(["CONV_2D"] * 4)
    plan = analyze(g, [CPU, GPU], {"cpu": frozenset(), "gpu": frozenset({1, 3})})
    assert layout(plan) == [
        ("cpu", (0,)), ("gpu", (0,)), ("cpu", (1,)), ("cpu", (2,)), ("gpu", (2,)), ("cpu", (3,)),
        ("cpu", (0, 1)), ("cpu", (0, 1, 2)), ("cpu", (0, 1, 2, 3)), ("cpu", (1, 2)),
        ("cpu", (1, 2, 3)), ("cpu", (2, 3))]


def test_chain_fully_supported_is_one_unit_on_every_processor() -> None:
    g = chain(["ADD"] * 3)
    plan = analyze(g, [CPU, GPU, NPU], {"cpu": frozenset(), "gpu": frozenset(),
                                        "npu": frozenset()})
    assert layout(plan) == [("cpu", (0,)), ("gpu", (0,)), ("npu", (0,))]


def test_diamond_branch_units_merge_where_inputs_allow() -> None:
    # op0 feeds op1 (GPU only with the CPU) and op2 (CPU only); op3 joins them.
    g = dag([(0, 1), (0, 2), (1, 3), (2, 3)], ["CONV_2D", "CONV_2D", "MEAN", "ADD"])
    plan = analyze(g, [CPU, GPU], {"cpu": frozenset(), "gpu": frozenset({2})})
    assert plan.units == ({0, 1}, {2}, {3})
    assert layout(plan) == [
        ("cpu", (0,)), ("gpu", (0,)), ("cpu", (1,)), ("cpu", (2,)), ("gpu", (2,)),
        ("cpu", (0, 1)), ("cpu", (0, 1, 2))]


def test_npu_and_gpu_windows_apply_per_processor() -> None:
    g = chain(["CONV_2D"] * 6)
    unsupported = {"cpu": frozenset(), "gpu": frozenset({2}), "npu": frozenset({0, 1, 2})}
    assert short_runs(g, GPU, unsupported["gpu"], 3) == {0, 1}
    assert short_runs(g, NPU, unsupported["npu"], 3) == set()
    assert short_runs(g, CPU, frozenset({1}), 9) == set()
    plan = analyze(g, [CPU, GPU, NPU], unsupported, minimum_subgraph_size=3)
    assert plan.units == ({0, 1, 2}, {3, 4, 5})
    assert plan.unit_support == ({"cpu"}, {"cpu", "gpu", "npu"})


def test_op_reading_only_constants_starts_its_own_chain() -> None:
    g = dag([(1, 2)], ["CONV_2D", "FILL", "ADD"], const_only=[1])
    plan = analyze(g, [CPU, GPU], {"cpu": frozenset(), "gpu": frozenset({0})})
    assert plan.units == ({0}, {1, 2})
    assert ("cpu", (0, 1)) in layout(plan)


# -- errors ---------------------------------------------------------------------------------


@pytest.mark.parametrize("window", [0, -3])
def test_window_below_one_is_a_user_error(window: int) -> None:
    with pytest.raises(UserError, match="window_size"):
        analyze(FIG5, [CPU, GPU], FIG5_UNSUPPORTED, minimum_subgraph_size=window)


def test_op_no_processor_runs_is_a_user_error() -> None:
    with pytest.raises(UserError, match=r"op 0 \(CONV_2D\).*no processor"):
        analyze(FIG5, [GPU], {"gpu": FIG5_UNSUPPORTED["gpu"]})


def test_missing_support_entry_is_a_user_error() -> None:
    with pytest.raises(UserError, match="npu"):
        analyze(FIG5, [CPU, NPU], FIG5_UNSUPPORTED)


def test_duplicate_processor_names_are_a_user_error() -> None:
    with pytest.raises(UserError, match="distinct"):
        analyze(FIG5, [CPU, CPU], FIG5_UNSUPPORTED)


# -- random DAGs ----------------------------------------------------------------------------


@st.composite
def graphs(draw: st.DrawFn, max_ops: int = 9) -> ModelGraph:
    n = draw(st.integers(1, max_ops))
    edges = [(a, b) for b in range(1, n) for a in draw(st.sets(st.integers(0, b - 1), max_size=3))]
    const_only = draw(st.sets(st.integers(0, n - 1), max_size=1))
    const_only = {i for i in const_only if all(b != i for _, b in edges)}
    return dag(edges, ["CONV_2D"] * n, const_only=const_only)


@st.composite
def cases(draw: st.DrawFn, max_ops: int = 9) -> tuple[ModelGraph, dict[str, frozenset[int]]]:
    g = draw(graphs(max_ops))
    ops = st.frozensets(st.integers(0, g.num_ops - 1))
    return g, {"cpu": frozenset(), "gpu": draw(ops), "npu": draw(ops)}


PROCS = [CPU, GPU, NPU]


def naive_band_merge(graph: ModelGraph, plan: ModelPlan) -> set[tuple[str, frozenset[int]]]:
    """Band's ``MergeUnitSubgraphs`` fixpoint, literally: (processor, unit set) pairs."""
    flow = Dataflow.of(graph)
    found = {(sg.processor, frozenset(sg.units)) for sg in plan.subgraphs if not sg.is_merged}

    def outputs(units: frozenset[int]) -> frozenset[int]:
        return frozenset().union(*(flow.outputs[o] for u in units for o in plan.units[u]))

    def pure_inputs(units: frozenset[int]) -> frozenset[int]:
        return flow.pure_inputs(o for u in units for o in plan.units[u])

    while True:
        new = {(p, a | b) for p, a in found for q, b in found
               if p == q and a != b and pure_inputs(b) <= outputs(a)} - found
        if not new:
            return found
        found |= new


def contiguous(units: frozenset[int]) -> bool:
    return max(units) - min(units) == len(units) - 1


@settings(max_examples=300, deadline=None)
@given(cases(max_ops=7), st.integers(1, 4))
def test_fast_merge_equals_naive_band_closure(case: tuple, window: int) -> None:
    graph, unsupported = case
    plan = analyze(graph, PROCS, unsupported, minimum_subgraph_size=window)
    fast = {(sg.processor, frozenset(sg.units)) for sg in plan.subgraphs}
    naive = {(p, us) for p, us in naive_band_merge(graph, plan) if contiguous(us)}
    assert fast == naive
    assert len(fast) == len(plan.subgraphs)


@settings(max_examples=300, deadline=None)
@given(cases(), st.integers(1, 5))
def test_plan_invariants(case: tuple, window: int) -> None:
    graph, unsupported = case
    plan = analyze(graph, PROCS, unsupported, minimum_subgraph_size=window)
    assert sorted(o for u in plan.units for o in u) == list(range(graph.num_ops))
    cut = {p.name: unsupported[p.name] | short_runs(graph, p, unsupported[p.name], window)
           for p in PROCS}
    for sg in plan.subgraphs:
        assert not sg.ops & cut[sg.processor]
        assert sg.units == tuple(range(sg.first_unit, sg.last_unit + 1))
        assert sg.ops == frozenset().union(*(plan.units[u] for u in sg.units))
        assert all(sg.processor in plan.unit_support[u] for u in sg.units)
    assert_units_topological(graph, plan)


def assert_units_topological(graph: ModelGraph, plan: ModelPlan) -> None:
    flow, seen = Dataflow.of(graph), set[int]()
    for ops in plan.units:
        producers = {flow.producer.get(t) for t in flow.pure_inputs(ops)} - {None}
        assert producers <= seen
        seen |= ops


@st.composite
def chain_cases(draw: st.DrawFn) -> tuple[ModelGraph, dict[str, frozenset[int]]]:
    g = chain(["CONV_2D"] * draw(st.integers(1, 12)))
    ops = st.frozensets(st.integers(0, g.num_ops - 1))
    return g, {"cpu": frozenset(), "gpu": draw(ops), "npu": draw(ops)}


@settings(max_examples=300, deadline=None)
@given(chain_cases(), st.integers(1, 5))
def test_larger_window_never_yields_more_units_on_a_chain(case: tuple, window: int) -> None:
    # On a chain a unit lies inside one run for or against each processor, so the window
    # rule changes all its ops alike: unit boundaries can vanish, never appear.
    graph, unsupported = case
    small = analyze(graph, PROCS, unsupported, window, merge=False).counts()
    large = analyze(graph, PROCS, unsupported, window + 1, merge=False).counts()
    assert large.unit <= small.unit
    assert large.unit_subgraphs <= small.unit_subgraphs


def test_larger_window_can_split_units_on_a_branchy_graph() -> None:
    # Found by hypothesis: not monotone beyond chains. Op 3 reads ops 0 and 1; the NPU
    # cannot run op 0, so its run {3} is a lone op. At window 2 op 3 loses the NPU, no longer
    # matches ops 1-2, and becomes a unit of its own (Band's greedy grouping, same outcome).
    g = dag([(0, 3), (1, 3)], ["CONV_2D"] * 4)
    unsupported = {"cpu": frozenset(), "gpu": frozenset(), "npu": frozenset({0})}
    assert analyze(g, PROCS, unsupported, minimum_subgraph_size=1).units == ({0}, {1, 2, 3})
    assert analyze(g, PROCS, unsupported, minimum_subgraph_size=2).units == ({0}, {1, 2}, {3})


def test_subgraphs_follow_the_given_processor_order() -> None:
    plan = analyze(FIG5, [GPU, CPU], FIG5_UNSUPPORTED)
    assert [sg.processor for sg in plan.subgraphs[:3]] == ["cpu", "gpu", "cpu"]
