"""Fastest remaining latency through a plan: the table ADMS's scores read.

``rest[u]`` is the fewest ns to run units ``u..n-1`` of a model on a free device, choosing
for each step any subgraph that starts at the current unit (``rest[n] = 0``):

    rest[u] = min over subgraphs s starting at u of  cost(s) + rest[s.last_unit + 1]

and, as the device charges it, each subgraph whose predecessor ran on another processor also
pays its handoff (:class:`ChainTable`: the programme then runs over (unit, processor before)).

A changed estimate updates one cost and marks the table stale instead of rebuilding it; the
programme then runs again from the last unit any changed subgraph starts at down to the first
(``rest`` after it depends on no changed cost), over integer lists: compiled
(:mod:`harness.native`) one step is a few instructions, where a numpy step per unit cost
microseconds of call overhead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import numpy as np

from harness.seams.plan import ModelPlan, Subgraph

#: remaining latency of a unit no chain reaches (an invalid plan), ns (below 2**62, so it and
#: every sum with a cost stay machine-size integers in compiled code)
UNREACHABLE_NS: Final = 2**61


class ChainTable:
    """Subgraph costs of one plan, its handoffs, and the ``rest`` table derived from them.

    With handoffs (the device's time to move a subgraph's inputs when the subgraph before it
    ran on another processor, as the tuner's :func:`chain_latency` and the device charge it)
    the programme runs over (unit, processor of the subgraph before it):

        after[u][q] = min over s starting at u of
            cost(s) + (handoff(s) if u > 0 and q is another processor) + after[end(s)][p(s)]

    ``q`` is one of the plan's processors (sorted names) or *none* (the last slot: nothing
    ran before, or the caller does not know where: no handoff). Without handoffs every
    column equals the one of :meth:`rest`."""

    def __init__(self, plan: ModelPlan, cost: Callable[[Subgraph], int],
                 handoff: Callable[[Subgraph], int] | None = None) -> None:
        self.plan = plan
        subgraphs = plan.subgraphs
        self.position = {sg.index: k for k, sg in enumerate(subgraphs)}
        self.cost: list[int] = [int(cost(sg)) for sg in subgraphs]
        self.end: list[int] = [sg.last_unit + 1 for sg in subgraphs]
        self._first: list[int] = [sg.first_unit for sg in subgraphs]
        names = sorted({sg.processor for sg in subgraphs})
        #: processor name -> its slot; the slot ``len(names)`` is *none*
        self.slots: dict[str, int] = {name: q for q, name in enumerate(names)}
        self.none = len(names)
        #: slots per unit in :meth:`solve`'s flat table
        self.width = len(names) + 1
        self.proc: list[int] = [self.slots[sg.processor] for sg in subgraphs]
        self.hand: list[int] = [0 if handoff is None or sg.first_unit == 0 else int(handoff(sg))
                                for sg in subgraphs]
        #: some subgraph pays a handoff (else every column of the table is the same)
        self.hops = any(self.hand)
        #: per unit, the positions of the subgraphs starting there, in plan order
        self._starting: list[list[int]] = [[] for _ in range(plan.num_units)]
        for k, sg in enumerate(subgraphs):
            if 0 <= sg.first_unit < plan.num_units:
                self._starting[sg.first_unit].append(k)
        self._after: list[int] | None = None
        #: the last unit a subgraph whose cost changed since the last solve starts at (-1: none)
        self._changed = -1
        self._stale = True

    def set_cost(self, subgraph_index: int, ns: int, refresh: bool = True) -> None:
        """Record a subgraph's new cost; ``refresh=False`` keeps the current table until a
        later refresh (small drifts need not re-run the programme)."""
        k = self.position[subgraph_index]
        self.cost[k] = ns
        if self._first[k] > self._changed:
            self._changed = self._first[k]
        if refresh:
            self._stale = True

    def starting(self, unit: int) -> list[int]:
        """Positions (in the plan) of the subgraphs that start at ``unit``, in plan order
        (the plan's candidates there)."""
        return self._starting[unit] if 0 <= unit < len(self._starting) else []

    def slot(self, processor: str) -> int:
        """The slot of the processor the subgraph before ran on ("" or unknown: *none*)."""
        return self.slots.get(processor, self.none)

    def entry(self, k: int, q: int) -> int:
        """The handoff subgraph ``k`` pays after a subgraph on slot ``q``."""
        return 0 if q == self.none or q == self.proc[k] else self.hand[k]

    @property
    def stale(self) -> bool:
        """The next :meth:`solve` re-runs the programme."""
        return self._stale

    def solve(self) -> list[int]:
        """``after[u * width + q]`` for u in 0..n (ns); the table's own list: read it only."""
        if self._after is None or self._stale:
            self._after = self._solve(self._after)
            self._changed, self._stale = -1, False
        return self._after

    def rest(self) -> list[int]:
        """``rest[u]`` for u in 0..n (ns): the fastest way through units u.. when nothing is
        known of what ran before (the *none* column)."""
        after, width, none = self.solve(), self.width, self.none
        return [after[u * width + none] for u in range(self.plan.num_units + 1)]

    def _solve(self, last: list[int] | None) -> list[int]:
        """The programme over every unit, or with ``last`` (the table before the costs
        changed) over the units up to the last changed one only."""
        n, width = self.plan.num_units, self.width
        if last is None:
            after = [UNREACHABLE_NS] * ((n + 1) * width)
            for q in range(width):
                after[n * width + q] = 0
            top = n - 1
        else:
            after = list(last)
            top = min(self._changed, n - 1)
        for u in range(top, -1, -1):
            if self.hops and u > 0:
                for q in range(width):
                    after[u * width + q] = self._best(after, u, q)
            else:  # (no handoff into unit u: every column is the same)
                best = self._best(after, u, self.none)
                for q in range(width):
                    after[u * width + q] = best
        return after

    def _best(self, after: list[int], u: int, q: int) -> int:
        cost, end, proc, width = self.cost, self.end, self.proc, self.width
        best = UNREACHABLE_NS
        for k in self._starting[u]:
            ns = cost[k] + self.entry(k, q) + after[end[k] * width + proc[k]]
            if ns < best:
                best = ns
        return best


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
