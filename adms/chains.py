"""Fastest remaining latency through a plan, vectorised: the table ADMS's scores read.

``rest[u]`` is the fewest ns to run units ``u..n-1`` of a model on a free device, choosing
for each step any subgraph that starts at the current unit (``rest[n] = 0``):

    rest[u] = min over subgraphs s starting at u of  cost(s) + rest[s.last_unit + 1]

A plan can hold tens of thousands of subgraphs (Band-style merging at window 1), so the costs
live in one numpy array, the dynamic programme runs one vector step per unit, and a changed
estimate updates one entry and marks the table stale instead of rebuilding it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from harness.seams.plan import ModelPlan, Subgraph

#: remaining latency of a unit no chain reaches (an invalid plan), ns
UNREACHABLE_NS = 2**62


class ChainTable:
    """Subgraph costs of one plan and the ``rest`` table derived from them."""

    def __init__(self, plan: ModelPlan, cost: Callable[[Subgraph], int]) -> None:
        self.plan = plan
        subgraphs = plan.subgraphs
        self.position = {sg.index: k for k, sg in enumerate(subgraphs)}
        self.cost = np.fromiter((cost(sg) for sg in subgraphs), dtype=np.int64,
                                count=len(subgraphs))
        self.end = np.fromiter((sg.last_unit + 1 for sg in subgraphs), dtype=np.int64,
                               count=len(subgraphs))
        first = np.fromiter((sg.first_unit for sg in subgraphs), dtype=np.int64,
                            count=len(subgraphs))
        order = np.argsort(first, kind="stable")
        bounds = np.searchsorted(first[order], np.arange(plan.num_units + 1))
        self._starting = [order[bounds[u]:bounds[u + 1]] for u in range(plan.num_units)]
        self._rest: np.ndarray | None = None

    def set_cost(self, subgraph_index: int, ns: int, refresh: bool = True) -> None:
        """Record a subgraph's new cost; ``refresh=False`` keeps the current ``rest`` table
        until a later refresh (small drifts need not re-run the programme)."""
        self.cost[self.position[subgraph_index]] = ns
        if refresh:
            self._rest = None

    @property
    def stale(self) -> bool:
        """The next :meth:`rest` re-runs the programme."""
        return self._rest is None

    def rest(self) -> np.ndarray:
        """``rest[u]`` for u in 0..n (int64 ns)."""
        if self._rest is None:
            self._rest = self._solve()
        return self._rest

    def _solve(self) -> np.ndarray:
        n = self.plan.num_units
        rest = np.full(n + 1, UNREACHABLE_NS, dtype=np.int64)
        rest[n] = 0
        for u in range(n - 1, -1, -1):
            idx = self._starting[u]
            if idx.size:
                rest[u] = min(int((self.cost[idx] + rest[self.end[idx]]).min()), UNREACHABLE_NS)
        return rest


def chain_latency(plan: ModelPlan, cost: Callable[[Subgraph], int],
                  handoff: Callable[[Subgraph], int]) -> int:
    """The fastest chain through ``plan`` when a subgraph whose predecessor ran on another
    processor also pays ``handoff(subgraph)`` (moving tensors between processors): a
    programme over (unit, processor of the last subgraph), as a device would charge it."""
    names = sorted(plan.processors())
    at = {p: k for k, p in enumerate(names)}
    best = np.zeros((plan.num_units + 1, len(names)), dtype=np.float64)
    best[: plan.num_units] = np.inf
    for u in range(plan.num_units - 1, -1, -1):
        for sg in plan.candidates(u):
            q = at[sg.processor]
            tail = cost(sg) + best[sg.last_unit + 1, q]
            moved = np.full(len(names), tail + (handoff(sg) if u > 0 else 0))
            moved[q] = tail
            best[u] = np.minimum(best[u], moved)
    fastest = float(best[0].min()) if len(names) else float("inf")
    return int(fastest) if fastest < UNREACHABLE_NS else UNREACHABLE_NS


def remaining_latency(plan: ModelPlan, cost: Callable[[Subgraph], int]) -> tuple[int, ...]:
    """``rest[u]`` = fastest ns to run units ``u..n-1`` on a free device; ``rest[n] = 0``."""
    return tuple(int(v) for v in ChainTable(plan, cost).rest())
