"""Band's shortest-latency search, compiled: the same dynamic programme as
:meth:`baselines.band.planner.ChainFinder.shortest_reference`, over flat arrays.

Band runs this search for every job it considers at every decision; with Band's sample
``minimum_subgraph_size`` of 1 a plan holds thousands of subgraphs, and the search in plain
Python costs about a millisecond. Here each plan is flattened once into arrays (the ranges
ending at each unit, start unit descending; the subgraphs of each range, in plan order) and
the programme runs in machine code (numba, cached on disk). The tie rules are Band's and the
reference's: among subgraphs of one range the later in the plan wins (``<=``), among ranges
ending at the same unit the one starting latest wins (first strict minimum). A property test
holds the two implementations equal on random plans.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from harness.seams.plan import ModelPlan

#: "no chain reaches this unit"
NONE = -1


@dataclass(frozen=True, slots=True)
class FlatPlan:
    """A plan as arrays: for end unit j, ranges ``end_ptr[j]:end_ptr[j+1]`` (start unit
    descending); for range r, its start unit ``start[r]`` and subgraphs
    ``sg_ptr[r]:sg_ptr[r+1]`` (positions ``position``, processor indices ``proc``)."""

    end_ptr: np.ndarray
    start: np.ndarray
    sg_ptr: np.ndarray
    position: np.ndarray
    proc: np.ndarray
    #: processor names, in the order of ``proc`` indices
    processors: tuple[str, ...]
    #: the programme's outputs, reused from call to call (every entry it reads it wrote)
    finish: np.ndarray
    last: np.ndarray
    first: np.ndarray

    @classmethod
    def of(cls, plan: ModelPlan, processors: tuple[str, ...]) -> FlatPlan:
        index = {p: k for k, p in enumerate(processors)}
        ranges: dict[tuple[int, int], list[int]] = {}
        for k, sg in enumerate(plan.subgraphs):
            ranges.setdefault((sg.first_unit, sg.last_unit), []).append(k)
        order = sorted(ranges, key=lambda r: (r[1], -r[0]))
        counts = np.bincount([j for _, j in order], minlength=plan.num_units)
        end_ptr = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
        positions = [k for r in order for k in ranges[r]]
        sizes = [len(ranges[r]) for r in order]
        out = [np.full(plan.num_units, NONE, dtype=np.int64) for _ in range(3)]
        return cls(end_ptr, np.array([i for i, _ in order], dtype=np.int64),
                   np.concatenate(([0], np.cumsum(sizes))).astype(np.int64),
                   np.array(positions, dtype=np.int64),
                   np.array([index[plan.subgraphs[k].processor] for k in positions],
                            dtype=np.int64), processors, *out)


def _programme(next_unit, end_ptr, start, sg_ptr, position, proc, costs, waiting,
               finish, last, first):  # pragma: no cover - compiled
    n = end_ptr.shape[0] - 1
    for j in range(next_unit, n):
        best = NONE
        for r in range(end_ptr[j], end_ptr[j + 1]):
            i = start[r]
            if i < next_unit or (i > next_unit and finish[i - 1] == NONE):
                continue
            begin = finish[i - 1] if i > next_unit else 0
            pick, pick_ns = NONE, NONE
            for s in range(sg_ptr[r], sg_ptr[r + 1]):
                wait = waiting[proc[s]]
                total = costs[position[s]] + (wait if wait > begin else begin)
                if pick_ns < 0 or total <= pick_ns:
                    pick, pick_ns = position[s], total
            if best == NONE or pick_ns < best:
                best, last[j], first[j] = pick_ns, pick, i
        finish[j] = best


@functools.cache
def _compiled() -> Callable[..., None]:
    """:func:`_programme` in machine code, compiled (or loaded from numba's disk cache) on
    first use: importing numba costs ~0.8 s, which every command would pay otherwise."""
    from numba import njit

    return njit(cache=True)(_programme)


def programme(flat: FlatPlan, next_unit: int, costs: np.ndarray, waiting: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(finish, last subgraph position, its start unit) for every end unit from
    ``next_unit`` (entries before it are stale); ``finish[j] == NONE`` where no chain reaches
    unit j. The arrays are the flat plan's own, overwritten by the next call."""
    _compiled()(next_unit, flat.end_ptr, flat.start, flat.sg_ptr, flat.position, flat.proc,
               costs, waiting, flat.finish, flat.last, flat.first)
    return flat.finish, flat.last, flat.first
