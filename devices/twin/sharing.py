"""Processor sharing: running subgraphs re-priced whenever what runs beside them changes.

A running subgraph has one unit of work. In a *state* it progresses at ``1 / latency`` per ns,
where ``latency`` is what it would take if that state held for its whole run
(:mod:`devices.twin.latency`): the DVFS level of its processor at its start, the memory
bandwidth its processor gets while the other busy processors draw theirs, and, where its
processor runs several invocations at once, its share of the processor (:func:`slowdown`).
Whenever a subgraph starts or ends, every running one is priced again (:meth:`Run.reprice`):
the fraction of its work done so far is kept, the rest runs at the new rate, and its end moves
(:mod:`devices.twin.ends`). At any fixed state this is the
state's latency exactly, so single-model calibration holds; and since the subgraphs that start
at one instant have done no work by that instant, the order in which they start does not
change when anything ends.

The frequency stays the one at the start: a throttle while a subgraph runs reaches the
subgraphs started after it (:mod:`devices.twin.heat`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

from devices.twin.facts import Facts
from harness.seams.records import Completion, Request
from harness.seams.units import round_int


class Run:
    """One subgraph on its processor, from its start to its end event."""

    __slots__ = ("done", "end_ns", "extra_ns", "facts", "job_id", "latency_ns", "level_key",
                 "mark_ns", "noise", "ok", "on_done", "order", "request", "start_ns")

    def __init__(self, facts: Facts, job_id: int, request: Request, start_ns: int,
                 on_done: Callable[[Completion], None], ok: bool, level_key: int,
                 extra_ns: float, noise: float) -> None:
        self.facts = facts
        self.job_id = job_id
        self.request = request
        self.start_ns = start_ns
        self.on_done = on_done
        #: False: it fails (its processor is down) after a fixed time, never re-priced
        self.ok = ok
        #: its DVFS level at the start x the state stride (:mod:`devices.twin.device`)
        self.level_key = level_key
        #: state-independent time on top of the state's latency (moving its inputs), ns
        self.extra_ns = extra_ns
        #: its latency-noise factor
        self.noise = noise
        #: fraction of its work done by ``mark_ns`` (it starts at ``start_ns``)
        self.done = 0.0
        self.mark_ns = start_ns
        #: its latency in the present state, ns (0: not priced yet)
        self.latency_ns = 0.0
        #: when it ends (-1: not set yet)
        self.end_ns = -1
        #: when its end was set, among all ends set (-1: no end pending:
        #: :mod:`devices.twin.ends`)
        self.order = -1

    def reprice(self, now_ns: int, latency_ns: float) -> int:
        """Its end if the state is ``latency_ns`` from ``now_ns`` on (work done so far kept)."""
        mark = self.mark_ns
        if now_ns > mark:
            self.done += (now_ns - mark) / self.latency_ns
            self.mark_ns = mark = now_ns
        self.latency_ns = latency_ns
        left = (1.0 - self.done) * latency_ns
        return mark + round_int(left) if left > 0.0 else mark


def slowdown(table: Sequence[tuple[int, float]], k: int) -> float:
    """Latency of one of ``k`` concurrent invocations on one processor over its latency
    alone, from ``table`` ((invocations, factor) ascending from (1, 1.0)): linear between its
    points, past the last along its last segment; with no table, ``k`` (the processor is
    time-sliced among them and nothing overlaps)."""
    if k <= 1:
        return 1.0
    if len(table) < 2:
        return float(k)
    for (k0, f0), (k1, f1) in itertools.pairwise(table):
        if k <= k1:
            return f0 + (f1 - f0) * (k - k0) / (k1 - k0)
    (k0, f0), (k1, f1) = table[-2], table[-1]
    return f1 + (f1 - f0) * (k - k1) / (k1 - k0)
