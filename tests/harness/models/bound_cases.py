"""The plans and the literal flow program that the frame-rate bound's tests share.

:func:`flow_program` builds the program of :mod:`harness.models.bound`'s docstring
literally (one column per f[s, q], sparse) and solves it with HiGHS: the reference the bound's
chain generation must agree with. :func:`work`, :func:`plans` and :func:`uneven_ranges` build
the :class:`~harness.models.bound.ModelWork` the tests feed both.

Plans come from :func:`tests.fixtures.policies.plan`: spans ``(processor, first, last, ns)``;
unit ``u`` holds op ``u``. Times in the comments are ms; a processor has 1000 ms per second.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from harness.models.bound import ModelWork
from tests.fixtures.policies import MS, Span, plan

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


#: unit 0 on the cpu (4 ms) or the gpu (8 ms), unit 1 on the cpu only (6 ms)
TWO_UNITS = (("cpu", 0, 0, 4 * MS), ("gpu", 0, 0, 8 * MS), ("cpu", 1, 1, 6 * MS))


# -- the reference: the flow program, literally ---------------------------------------------


def flow_program(processors: Sequence[str], models: Mapping[str, ModelWork],
                 capacity: Mapping[str, float] | None = None) -> tuple[float, int]:
    """(optimal F, columns) of the program in :mod:`harness.models.bound`'s docstring, one
    column per f[s, q]."""
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


# -- larger cases: every range of every processor, uneven costs -----------------------------


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
