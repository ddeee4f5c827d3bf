"""The remaining-latency table ADMS's scores read (:mod:`adms.chains`): a known answer, an
updated cost changing only what depends on it, and, on random plans, equal to the naive
recursion and, after any changes, to a table built afresh."""

from __future__ import annotations

from collections.abc import Mapping

from hypothesis import given, settings
from hypothesis import strategies as st

from adms.chains import ChainTable, chain_latency, remaining_latency
from harness.seams.plan import ModelPlan
from tests.fixtures.policies import plan


def test_remaining_latency_known_answer() -> None:
    mp, prof = plan("m", [("cpu", 0, 2, 30), ("gpu", 0, 0, 5), ("gpu", 1, 2, 9),
                          ("npu", 1, 1, 2), ("cpu", 2, 2, 3)])
    rest = remaining_latency(mp, lambda sg: prof[(sg.model, sg.index)])
    assert rest == (10, 5, 3, 0)


def test_chain_table_update_changes_only_what_depends_on_it() -> None:
    mp, prof = plan("m", [("cpu", 0, 2, 30), ("gpu", 0, 0, 5), ("gpu", 1, 2, 9),
                          ("npu", 1, 1, 2), ("cpu", 2, 2, 3)])
    table = ChainTable(mp, lambda sg: prof[(sg.model, sg.index)])
    table.set_cost(4, 20)  # the cpu tail gets slow: gpu 1-2 (9) now beats npu 1 + cpu 2 (22)
    assert list(table.rest()) == [14, 9, 20, 0]
    table.set_cost(1, 40)  # gpu 0 slow: the whole-model cpu subgraph (30) wins unit 0
    assert list(table.rest()) == [30, 9, 20, 0]


def naive_rest(mp: ModelPlan, cost: Mapping[int, int]) -> list[float]:
    rest = [float("inf")] * mp.num_units + [0.0]
    for u in range(mp.num_units - 1, -1, -1):
        for sg in mp.subgraphs:
            if sg.first_unit == u:
                rest[u] = min(rest[u], cost[sg.index] + rest[sg.last_unit + 1])
    return rest


def random_plan(n_units: int, data: st.DataObject, fewest: int, most: int
                ) -> tuple[ModelPlan, dict[int, int]]:
    """A cpu unit subgraph per unit and ``fewest``..``most`` random gpu/npu spans; costs by
    subgraph index."""
    spans = [("cpu", u, u, data.draw(st.integers(1, 50))) for u in range(n_units)]
    for _ in range(data.draw(st.integers(fewest, most))):
        a = data.draw(st.integers(0, n_units - 1))
        b = data.draw(st.integers(a, n_units - 1))
        spans.append((data.draw(st.sampled_from(["gpu", "npu"])), a, b,
                      data.draw(st.integers(1, 50))))
    mp, prof = plan("m", spans)
    return mp, {sg.index: prof[(sg.model, sg.index)] for sg in mp.subgraphs}


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 7), st.data())
def test_chain_table_equals_the_naive_recursion(n_units: int, data: st.DataObject) -> None:
    mp, cost = random_plan(n_units, data, 0, 10)
    table = ChainTable(mp, lambda sg: cost[sg.index])
    assert list(table.rest()) == naive_rest(mp, cost)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 7), st.data())
def test_chain_table_after_changes_equals_a_fresh_one(n_units: int, data: st.DataObject) -> None:
    """Re-solved from the last changed unit down, the table is the one a new table built
    from the current costs gives; a change without refresh is kept until one."""
    spans = [("cpu", u, u, data.draw(st.integers(1, 50))) for u in range(n_units)]
    for _ in range(data.draw(st.integers(0, 8))):
        a = data.draw(st.integers(0, n_units - 1))
        b = data.draw(st.integers(a, n_units - 1))
        spans.append(("gpu", a, b, data.draw(st.integers(1, 50))))
    mp, prof = plan("m", spans)
    cost = {sg.index: prof[(sg.model, sg.index)] for sg in mp.subgraphs}
    table = ChainTable(mp, lambda sg: cost[sg.index])
    shown = list(table.rest())
    for _ in range(data.draw(st.integers(1, 6))):
        index = data.draw(st.sampled_from(sorted(cost)))
        cost[index] = data.draw(st.integers(1, 80))
        refresh = data.draw(st.booleans())
        table.set_cost(index, cost[index], refresh)
        if refresh:
            shown = list(ChainTable(mp, lambda sg: cost[sg.index]).rest())
        assert list(table.rest()) == shown


# -- handoffs: the table prices chains as the tuner and the device do ---------------------------

@settings(max_examples=60, deadline=None)
@given(st.integers(2, 6), st.data())
def test_chain_table_with_handoffs_equals_the_tuners_chain_latency(
        n_units: int, data: st.DataObject) -> None:
    """The scheduler's table (no processor before unit 0) gives the tuner's
    :func:`chain_latency` for the same costs and handoffs, and, after any cost changes,
    a fresh table's answer (the incremental solve over (unit, processor before))."""
    mp, cost = random_plan(n_units, data, 1, 8)
    hand = {sg.index: data.draw(st.integers(0, 30)) for sg in mp.subgraphs}
    table = ChainTable(mp, lambda sg: cost[sg.index], lambda sg: hand[sg.index])
    assert table.rest()[0] == chain_latency(mp, lambda sg: cost[sg.index],
                                            lambda sg: hand[sg.index])
    for _ in range(data.draw(st.integers(1, 4))):
        index = data.draw(st.sampled_from(sorted(cost)))
        cost[index] = data.draw(st.integers(1, 80))
        table.set_cost(index, cost[index])
        fresh = ChainTable(mp, lambda sg: cost[sg.index], lambda sg: hand[sg.index])
        assert table.solve() == fresh.solve()


def test_a_job_after_a_cpu_subgraph_counts_the_handoff_to_the_gpu() -> None:
    """Two units, each 3 ms on the cpu or 2 ms on the gpu; moving to the other processor
    before unit 1 costs 5 ms. Without handoffs the gpu looks faster from unit 1 (2 ms against
    3); with them a job whose unit 0 ran on the cpu finishes first staying there (3 against
    5 + 2), and one whose unit 0 ran on the gpu stays on the gpu."""
    mp, prof = plan("m", [("cpu", 0, 0, 3), ("gpu", 0, 0, 2), ("cpu", 1, 1, 3),
                          ("gpu", 1, 1, 2)])
    blind = ChainTable(mp, lambda sg: prof[sg.key])
    priced = ChainTable(mp, lambda sg: prof[sg.key], lambda sg: 5)
    def after_unit_1(table: ChainTable, last: str) -> dict[str, int]:
        after, q = table.solve(), table.slot(last)
        return {mp.subgraphs[k].processor: table.entry(k, q) + table.cost[k]
                + after[table.end[k] * table.width + table.proc[k]] for k in table.starting(1)}
    assert after_unit_1(blind, "cpu") == {"cpu": 3, "gpu": 2}
    assert after_unit_1(priced, "cpu") == {"cpu": 3, "gpu": 7}
    assert after_unit_1(priced, "gpu") == {"cpu": 8, "gpu": 2}
    assert priced.rest() == [4, 2, 0]  # T_avg: both units on the gpu, no handoff
