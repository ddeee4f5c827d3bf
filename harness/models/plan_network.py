"""The network of one plan, and its cheapest chain at given processor prices.

The frame-rate bound (:mod:`harness.models.bound`, whose docstring states the program and
why it bounds) sees each plan of a model as a flow network on unit boundaries, split by the
processor that ran the last subgraph: the *source* is unit 0; the inner node ``(u, q)`` means
"units ``0..u-1`` are done and the last subgraph ran on ``q``"; the *sink* is unit ``n``. A
subgraph covering units ``i..j`` on processor ``p`` is an edge from every ``(i, q)`` (from the
source when ``i = 0``) to ``(j + 1, p)``, or to the sink when ``j + 1 = n``; entered from
another processor it takes its handoff time too.

A *chain* is a source-to-sink path: one way to run an inference of the model through the
plan. :meth:`PlanNetwork.cheapest` finds the chain of least price at processor prices ``y``
(``sum_p y[p] * seconds on p``) by a shortest path over the DAG, boundary by boundary: the
pricing step of the bound's column generation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from harness.seams.errors import UserError
from harness.seams.units import NS_PER_S

#: a chain's subgraphs: (plan position, subgraph indices in chain order)
Path = tuple[int, tuple[int, ...]]


def _check_chain(model: str, position: int, n: int, first: np.ndarray,
                 last: np.ndarray) -> None:
    """Some chain of subgraphs runs from unit 0 through the plan's last unit (``first`` is
    ascending)."""
    if n and len(last) and (last.max() >= n or first.min() < 0):
        raise UserError(f"model {model!r}: plan {position} has a subgraph outside its units "
                        f"0..{n - 1}")
    reached = np.zeros(n + 1, dtype=bool)
    reached[0] = True
    for i, j in zip(first, last, strict=True):
        reached[j + 1] |= reached[i]
    if n == 0 or not reached[n]:
        raise UserError(f"model {model!r}: plan {position} has no chain of subgraphs from "
                        f"unit 0 to its last unit {n - 1}")


@dataclass(frozen=True, slots=True)
class PlanNetwork:
    """One plan's network (module docstring) as arrays over its subgraphs, ordered by first
    unit; node ``(u, q)`` is entry ``u * width + q`` of a flat array."""

    proc: np.ndarray
    cost_s: np.ndarray
    handoff_s: np.ndarray
    #: the subgraphs by first unit
    groups: tuple[_Group, ...]
    width: int
    units: int
    #: how many f[s, q] the flow program gives this plan
    arcs: int
    #: the plan's position among its model's plans, and each row's subgraph index in it
    position: int
    sg_index: np.ndarray

    @classmethod
    def of(cls, model: str, position: int, units: int, table: np.ndarray,
           width: int) -> PlanNetwork:
        """The network of plan ``position`` of ``model``, of ``units`` units, over ``width``
        processors, from its subgraphs' table: one row per subgraph, ordered by first unit:
        first, last, processor, cost, handoff (ns), the subgraph's index in its plan."""
        first, last, proc, cost, handoff, sg_index = table.T
        n = units
        _check_chain(model, position, n, first, last)
        made = np.zeros((n + 1, width), dtype=bool)
        made[last + 1, proc] = True
        arcs = int(np.where(first == 0, 1, made[first].sum(axis=1)).sum())
        cost_s, handoff_s = cost / NS_PER_S, handoff / NS_PER_S
        cuts = np.flatnonzero(np.diff(first)) + 1
        groups = tuple(
            _Group(int(first[a]), width, np.arange(a, b), proc[a:b], cost_s[a:b],
                   handoff_s[a:b], (last[a:b] + 1) * width + proc[a:b])
            for a, b in zip(np.r_[0, cuts], np.r_[cuts, len(first)], strict=True))
        return cls(proc, cost_s, handoff_s, groups, width, n, arcs, position, sg_index)

    def cheapest(self, y: np.ndarray) -> tuple[float, np.ndarray, Path]:
        """The chain of least price ``sum_p y[p] * seconds on p``: (price, seconds on each
        processor, its subgraphs). A shortest path on the DAG, boundary by boundary."""
        w, n = self.width, self.units
        dist = np.full((n + 1) * w, np.inf)
        via = np.full((2, (n + 1) * w), -1)  # per node: last subgraph, the node it came from
        for g in self.groups:
            price, came = g.enter(y, dist[g.unit * w:(g.unit + 1) * w])
            before = dist[g.ends]
            np.minimum.at(dist, g.ends, price)
            won = (price < before) & (price <= dist[g.ends])
            via[0, g.ends[won]], via[1, g.ends[won]] = g.ids[won], came[won]
        end = n * w + int(np.argmin(dist[n * w:]))
        return (float(dist[end]), *self._walk(via, end))

    def _walk(self, via: np.ndarray, node: int) -> tuple[np.ndarray, Path]:
        """Seconds on each processor of the chain that ends at ``node``, walked back, and
        its subgraphs."""
        seconds = np.zeros(self.width)
        rows: list[int] = []
        while node >= 0:
            s, came = via[0, node], via[1, node]
            p = self.proc[s]
            moved = came >= 0 and came % self.width != p
            seconds[p] += self.cost_s[s] + (self.handoff_s[s] if moved else 0.0)
            rows.append(int(s))
            node = came
        return seconds, (self.position, tuple(int(self.sg_index[r]) for r in reversed(rows)))


@dataclass(frozen=True, slots=True)
class _Group:
    """The subgraphs of one plan that start at one unit."""

    unit: int
    width: int
    ids: np.ndarray
    proc: np.ndarray
    cost_s: np.ndarray
    handoff_s: np.ndarray
    #: the node each ends at
    ends: np.ndarray

    def enter(self, y: np.ndarray, here: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The price of reaching each subgraph's end through it, given the prices ``here`` of
        the nodes at its first unit, and the node it is best entered from (-1: the source).
        Entered from another processor, it is best entered from the cheapest node: if that is
        its own processor's, staying there is cheaper still (no handoff)."""
        p, cost = self.proc, y[self.proc] * self.cost_s
        if self.unit == 0:
            return cost, np.full(len(p), -1)
        best = int(np.argmin(here))
        stay = here[p] + cost
        move = here[best] + cost + y[p] * self.handoff_s
        came = np.where(stay <= move, p, best) + self.unit * self.width
        return np.minimum(stay, move), came
