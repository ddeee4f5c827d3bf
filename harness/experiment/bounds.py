"""The frame-rate bound of a run (:mod:`harness.models.bound`) from what its baselines ran.

Each baseline's bound (``own``) is the LP over its own plans, priced by the device's
single-model profile of every subgraph and the device's handoff time
(:meth:`~harness.seams.device.Device.handoff_ns`). The run's bound is the LP over the
*union* of every plan its baselines loaded: each model may be split over any chain any
baseline's plan offers (on a twin with Band at size 1 in the run, that is every unit range
on every processor), so no scheduler of the run can beat it on these profiles. A baseline
whose plans did not load (out of memory) adds none.

A twin's profile is deterministic, so bounds are computed once per distinct set of costs
(:class:`BoundCache`); a host's are measured, so they differ from seed to seed.

**The as-run bound** (``as_run``) is the same LP over a baseline's own plans, each subgraph
that ran priced at its *mean latency in the run* instead of its profile (handoffs 0: a
measured time already holds what its input copies cost there; a subgraph that never ran keeps
its profile and handoff). It is not a bound on anything another run could do; it separates
the two reasons a run falls short of the profile bound: subgraphs that ran slower than alone
(processors contending for memory, the harness's own threads, a twin's copies and overheads),
which lower the as-run bound itself, and the schedule (idle processors, the split of work),
which is the gap between FPS and the as-run bound.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from harness.models.bound import Bound, ModelWork, frame_rate_bound
from harness.seams.device import Device
from harness.seams.plan import ModelPlan
from harness.seams.records import Completion


@dataclass(frozen=True, slots=True)
class Work:
    """A baseline's plans with their costs, per model, and a digest of all of it."""

    models: Mapping[str, ModelWork]
    digest: str


def work_of(device: Device, plans: Mapping[str, ModelPlan],
            profile: Mapping[tuple[str, int], int]) -> Work:
    """Each model's one plan, its profiled costs and handoffs."""
    models: dict[str, ModelWork] = {}
    digest = hashlib.sha256()
    for model, plan in plans.items():
        work = models[model] = ModelWork.of(plan, profile, device.handoff_ns)
        cost, handoff = work.cost_ns, work.handoff_ns
        for sg in plan.subgraphs:
            digest.update(f"{model}|{sg.processor}|{sorted(sg.ops)}|{sg.units}|"
                          f"{cost[(0, sg.index)]}|{handoff[(0, sg.index)]};".encode())
    return Work(models, digest.hexdigest())


class Timings:
    """Each subgraph's measured latencies in one run: (model, subgraph index) -> [sum ns,
    count] of the completions that succeeded. A run sums them as it records its rows
    (:class:`~harness.experiment.recording.RunRows`) and adds each subgraph's sum once."""

    def __init__(self) -> None:
        self.seen: dict[tuple[str, int], list[int]] = {}

    def add(self, completion: Completion) -> None:
        if completion.ok:
            sg = completion.subgraph
            self.add_sum(sg.model, sg.index, completion.end_ns - completion.start_ns, 1)

    def add_sum(self, model: str, index: int, sum_ns: int, count: int) -> None:
        """``count`` successful completions of subgraph ``index`` of ``model``, whose
        latencies sum to ``sum_ns``."""
        got = self.seen.get((model, index))
        if got is None:
            got = self.seen[(model, index)] = [0, 0]
        got[0] += sum_ns
        got[1] += count


def as_run(work: Work, timings: Timings) -> Work:
    """``work`` (one plan per model) with every subgraph that ran priced at its mean
    measured latency and no handoff (module docstring); the rest unchanged."""
    models: dict[str, ModelWork] = {}
    for model, mw in work.models.items():
        cost, handoff = dict(mw.cost_ns), dict(mw.handoff_ns)
        for sg in mw.plans[0].subgraphs:
            got = timings.seen.get((model, sg.index))
            if got and got[1] > 0:
                cost[(0, sg.index)] = max(1, got[0] // got[1])
                handoff[(0, sg.index)] = 0
        models[model] = ModelWork(mw.plans, cost, handoff)
    return Work(models, "")


def union(works: Sequence[Work]) -> Work:
    """Every model's plans from every work, in order (identical plans once)."""
    merged: dict[str, list[tuple[ModelPlan, dict, dict]]] = {}
    seen: set[tuple[str, str]] = set()
    for work in works:
        for model, mw in work.models.items():
            key = (model, _plan_digest(mw))
            if key in seen:
                continue
            seen.add(key)
            merged.setdefault(model, []).append(
                (mw.plans[0], {k[1]: v for k, v in mw.cost_ns.items()},
                 {k[1]: v for k, v in mw.handoff_ns.items()}))
    models = {}
    for model, entries in merged.items():
        cost = {(pos, i): v for pos, (_, c, _) in enumerate(entries) for i, v in c.items()}
        handoff = {(pos, i): v for pos, (_, _, h) in enumerate(entries) for i, v in h.items()}
        models[model] = ModelWork(tuple(e[0] for e in entries), cost, handoff)
    digest = hashlib.sha256("|".join(sorted(w.digest for w in works)).encode()).hexdigest()
    return Work(models, digest)


def _plan_digest(mw: ModelWork) -> str:
    h = hashlib.sha256()
    for sg in mw.plans[0].subgraphs:
        h.update(f"{sg.processor}|{sorted(sg.ops)}|{mw.cost_ns[(0, sg.index)]};".encode())
    return h.hexdigest()


def facts(bound: Bound) -> dict[str, object]:
    """What the manifest keeps of a bound."""
    return {"frames_per_s": bound.frames_per_s, "busy": dict(bound.busy),
            "share": {m: dict(s) for m, s in bound.share.items()},
            "variables": bound.variables}


class BoundCache:
    """Bounds by the digest of their work (a twin's repeat for every seed)."""

    def __init__(self) -> None:
        self._bounds: dict[str, Bound] = {}

    def bound(self, processors: Sequence[str], work: Work) -> Bound:
        if work.digest not in self._bounds:
            self._bounds[work.digest] = frame_rate_bound(processors, work.models)
        return self._bounds[work.digest]
