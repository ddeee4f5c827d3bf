"""Two of the project's additions to ADMS's decision (:mod:`adms.scheduler`), as functions of
the examined jobs: exclusive-aware extents (``exclusive_aware``) and shedding (``shed``).
Neither is in the paper (docs/adms-as-built.md, "The project's additions to the scheduler")."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from adms.jobs import Job, Option
from harness.seams.plan import ModelPlan, Subgraph
from harness.seams.view import SchedulerView


def spare_exclusive(jobs: list[Job], view: SchedulerView,
                    through: Callable[[ModelPlan, Subgraph, str], int],
                    cost: Callable[[Subgraph], int]) -> tuple[list[Job], int]:
    """(``jobs`` with, on each processor that other examined jobs can run nowhere else, the
    extent minimising the model's finish + (number of such jobs) x the time it holds the
    processor; the candidates weighed). Its option's time stays the model's finish
    (``through``: ns to finish the model if a subgraph runs next after one on a processor)."""
    only: dict[str, int] = {}
    for item in jobs:
        if len(item.options) == 1:
            name = next(iter(item.options))
            only[name] = only.get(name, 0) + 1
    if not only:
        return jobs, 0
    out: list[Job] = []
    work = 0
    for item in jobs:
        own = int(len(item.options) == 1)  # the job itself is one of ``only``'s
        contended = [(p, only.get(p, 0) - own) for p in item.options
                     if only.get(p, 0) - own > 0]
        if not contended:
            out.append(item)
            continue
        plan = view.plans[item.job.model]
        options = dict(item.options)
        candidates = plan.candidates(item.job.next_unit)
        last = item.job.last_processor
        finish = {sg.index: through(plan, sg, last) for sg in candidates}
        for name, others in contended:
            best = _spared(candidates, name, others, finish, cost)
            work += len(candidates)
            if best is not None:
                options[name] = best
        out.append(replace(item, options=options))
    return out, work


def _spared(candidates: tuple[Subgraph, ...], name: str, others: int,
            finish_of: dict[int, int],
            cost: Callable[[Subgraph], int]) -> Option | None:
    """The option on ``name`` minimising finish + ``others`` x the time held (first of ties)."""
    best: tuple[int, int, Subgraph] | None = None
    for sg in candidates:
        if sg.processor != name:
            continue
        held = cost(sg)
        finish = finish_of[sg.index]
        key = finish + others * held
        if best is None or key < best[0]:
            best = (key, finish, sg)
    return None if best is None else (best[1], best[2])


def shed(jobs: list[Job], view: SchedulerView,
         options: Callable[[ModelPlan, int, str], dict[str, Option]]
         ) -> tuple[list[Job], tuple[int, ...]]:
    """(the jobs kept, the ids dropped): a job is dropped when its request has an SLO and
    even its fastest way to finish, started now on a free processor, ends after the
    deadline."""
    kept: list[Job] = []
    dropped: list[Job] = []
    for item in jobs:
        request = item.job.request
        opts = options(view.plans[item.job.model], item.job.next_unit,
                       item.job.last_processor)
        fastest = min((o[0] for o in opts.values()), default=0)
        deadline_ns = request.arrival_ns + request.slo_ns
        late = request.slo_ns > 0 and view.now_ns + fastest > deadline_ns
        (dropped if late else kept).append(item)
    return kept, tuple(item.job.job_id for item in dropped)
