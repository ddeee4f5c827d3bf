"""The twin's memory mechanism (:mod:`devices.twin.device`): resident memory against the
phone's ``memory_budget_mb``. Every loaded subgraph's interpreter (and weight copy) is resident
from the load; its arena is reserved at load but resident only from its first run, as demand
paging makes it. A load or a first run past the budget is a
:class:`~harness.seams.errors.RunFailure` (the app is killed, as Android's low-memory killer
would)."""

from __future__ import annotations

from typing import Final

from harness.seams.errors import RunFailure
from harness.seams.units import NS_PER_S

MB: Final = 1 << 20


class Memory:
    """Resident bytes and the arenas that have been touched."""

    def __init__(self, phone: str, budget_mb: float, enabled: bool) -> None:
        self.phone = phone
        #: the budget, MB (0: none)
        self.budget_mb = budget_mb
        #: the memory mechanism is on
        self.enabled = enabled
        #: resident memory: every loaded subgraph's interpreter (and weight copy), and the
        #: arenas of those that have run, bytes
        self.bytes = 0
        #: the arenas (model, processor, ops) made resident by a run
        self.touched: set[tuple[str, str, frozenset[int]]] = set()

    def load(self, held_bytes: int, subgraphs: int, now_ns: int) -> None:
        """``subgraphs`` loaded, holding ``held_bytes``; no arena has run yet."""
        self.bytes = held_bytes
        self.touched.clear()
        self.check(f"{subgraphs} loaded subgraphs hold", now_ns)

    def touch(self, key: tuple[str, str, frozenset[int]], arena_bytes: int, now_ns: int
              ) -> None:
        """A subgraph's first run makes its arena (``key``) resident."""
        if key in self.touched:
            return
        self.touched.add(key)
        self.bytes += arena_bytes
        self.check(f"{len(self.touched)} subgraphs have run; with every loaded interpreter, "
                   "the app holds", now_ns)

    def check(self, what: str, now_ns: int) -> None:
        """RunFailure when resident memory exceeds the budget (the memory mechanism)."""
        budget = self.budget_mb
        if self.enabled and budget > 0 and self.bytes > budget * MB:
            raise RunFailure(f"out of memory on {self.phone} at {now_ns / NS_PER_S:.2f} s: "
                             f"{what} {self.bytes / MB:.0f} MB, the budget is {budget:.0f} MB")
