"""Hand-built plans, jobs and views for policy tests (no analyzer, no device).

A plan is described by its *spans*: ``(processor, first unit, last unit, cost ns)``. Unit ``u``
holds op ``u``, so a subgraph's ops are its unit indices; the spans' costs form the profile
``{(model, subgraph index): ns}`` that policies' ``prepare`` takes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from harness.graph import ModelGraph, Op, Tensor
from harness.plan import ModelPlan, Processor, ProcessorKind, Subgraph
from harness.runtime.api import (
    NS_PER_MS,
    Decision,
    JobView,
    ProcessorView,
    Request,
    SchedulerView,
    SensorSample,
)

MS = NS_PER_MS

Span = tuple[str, int, int, int]
Profile = dict[tuple[str, int], int]

_KINDS = {"cpu": ProcessorKind.CPU, "gpu": ProcessorKind.GPU, "dsp": ProcessorKind.DSP,
          "npu": ProcessorKind.NPU}


def proc(name: str) -> Processor:
    return Processor(name, _KINDS.get(name, ProcessorKind.NPU))


def procs(*names: str) -> tuple[Processor, ...]:
    return tuple(proc(n) for n in names)


def plan(model: str, spans: Sequence[Span], window_size: int = 1) -> tuple[ModelPlan, Profile]:
    """A plan with one subgraph per span (indices in span order) and its profile."""
    n = max(last for _, _, last, _ in spans) + 1
    support: list[set[str]] = [set() for _ in range(n)]
    subgraphs, profile = [], {}
    for k, (p, first, last, cost) in enumerate(spans):
        units = tuple(range(first, last + 1))
        subgraphs.append(Subgraph(k, model, p, frozenset(units), units))
        profile[(model, k)] = cost
        for u in units:
            support[u].add(p)
    units_ops = tuple(frozenset({u}) for u in range(n))
    mp = ModelPlan(model, units_ops, tuple(frozenset(s) for s in support), tuple(subgraphs),
                   window_size=window_size)
    return mp, profile


def single(model: str, costs_ms: Mapping[str, float]) -> tuple[ModelPlan, Profile]:
    """A one-unit model that runs whole on each listed processor in ``costs_ms``."""
    return plan(model, [(p, 0, 0, int(ms * MS)) for p, ms in costs_ms.items()])


def merge(*built: tuple[ModelPlan, Profile]) -> tuple[dict[str, ModelPlan], Profile]:
    plans, profile = {}, {}
    for mp, prof in built:
        plans[mp.model] = mp
        profile.update(prof)
    return plans, profile


def job(
    job_id: int, model: str, *, next_unit: int = 0, arrival_ms: float = 0.0,
    slo_ms: float = 0.0, enqueue_ms: float | None = None,
) -> JobView:
    arrival = int(arrival_ms * MS)
    req = Request(job_id, model, -1, arrival, int(slo_ms * MS))
    enq = arrival if enqueue_ms is None else int(enqueue_ms * MS)
    return JobView(job_id, req, next_unit, enq)


def pv(
    name: str, *, busy_ms: float = 0.0, now_ms: float = 0.0, load: float | None = None,
    temp_c: float | None = None, throttle_c: float | None = None, throttled: bool | None = None,
) -> ProcessorView:
    """A processor idle when ``busy_ms == 0``, else busy for ``busy_ms`` more ms."""
    state = None
    if load is not None or temp_c is not None or throttled is not None:
        state = SensorSample(name, int(now_ms * MS), temperature_c=temp_c, load=load,
                             throttled=throttled, throttle_temperature_c=throttle_c)
    available = int((now_ms + busy_ms) * MS)
    return ProcessorView(proc(name), busy_ms == 0, available, 0, state)


def view(
    queue: Iterable[JobView], processors: Iterable[ProcessorView],
    plans: Mapping[str, ModelPlan], now_ms: float = 0.0,
) -> SchedulerView:
    return SchedulerView(int(now_ms * MS), tuple(queue), tuple(processors), dict(plans))


def placed(decision: Decision) -> list[tuple[int, str]]:
    """``[(job id, processor)]`` of a decision's assignments, in order."""
    return [(a.job_id, a.subgraph.processor) for a in decision.assignments]


def all_ranges(
    model: str, n_units: int, costs_ms: Mapping[str, float]
) -> tuple[ModelPlan, Profile]:
    """Every contiguous unit range on every processor; cost = per-unit ms x units (merged
    subgraphs save 10% per extra unit, so longer runs are worth something)."""
    spans: list[Span] = []
    for first in range(n_units):
        for last in range(first, n_units):
            k = last - first + 1
            for p, ms in costs_ms.items():
                spans.append((p, first, last, int(ms * k * (1.0 - 0.1 * (k - 1) / k) * MS)))
    return plan(model, spans)


def chain_graph(name: str = "m", n_ops: int = 3) -> ModelGraph:
    """A straight line of ``n_ops`` ADD ops (op i reads tensor i, writes tensor i + 1)."""
    tensors = tuple(Tensor(i, f"t{i}", (1,), "float32", 4, False) for i in range(n_ops + 1))
    ops = tuple(Op(i, "ADD", 1, (i,), (i + 1,)) for i in range(n_ops))
    return ModelGraph(name, tensors, ops, (0,), (n_ops,))
