"""Lanes: one thread per model and processor for plans whose interpreters run concurrently.

Vanilla TFLite in an app gives each model's interpreter a thread of its own
(``ModelPlan.concurrent``), so two models placed on one processor run at once and the
operating system time-slices the core between their threads; a fallback segment on the CPU
starts while another model's interpreter is in the middle of its own. A host processor's
:class:`~devices.host.workers.Worker` runs one task at a time, which would queue that segment
behind the other model's whole invoke: a scheduler vanilla TFLite does not have. So a
concurrent plan's subgraphs run on a lane, a worker of its own pinned to the processor's
cores, one per (processor, model); the kernel shares the core among the lanes. Streams of one
model share its lane (the host keeps one interpreter per slice, which two threads must not
invoke at once). The interpreters are still built and profiled on the processor's worker.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from devices.host.workers import Worker


class Lanes:
    """The lane workers of one device, made on first use and stopped by :meth:`close`."""

    def __init__(self, cores: Mapping[str, Sequence[int]]) -> None:
        self._cores = {name: tuple(c) for name, c in cores.items()}
        self._lanes: dict[tuple[str, str], Worker] = {}

    def lane(self, processor: str, model: str) -> Worker:
        """The thread that runs ``model``'s subgraphs on ``processor``."""
        key = (processor, model)
        if key not in self._lanes:
            self._lanes[key] = Worker(f"{processor}:{model}", self._cores[processor])
        return self._lanes[key]

    def open(self, processors: Mapping[str, Sequence[str]]) -> None:
        """Start the lanes of each model (-> the processors its plan uses) before the clock
        starts, so no thread is made while the run is timed."""
        for model, names in processors.items():
            for name in names:
                self.lane(name, model)

    def drain(self) -> None:
        """Wait until every task posted to a lane so far has ended."""
        for worker in self._lanes.values():
            worker.call(lambda: None)

    def close(self, timeout_s: float) -> list[str]:
        """Stop every lane; the names of those that did not end within ``timeout_s``."""
        late = [w.name for w in self._lanes.values() if not w.close(timeout_s)]
        self._lanes.clear()
        return late

    def __len__(self) -> int:
        return len(self._lanes)
