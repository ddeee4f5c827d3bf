"""The sensor cache: the latest reading of every processor, refreshed at one interval.

This is the caching half of the paper's Processor Monitor (Section 3.3). Reading sensors is
slow on a phone (the paper measured 40-50 ms per uncached read of the sysfs files, ~10 ms with
its cache), so the cache keeps the latest reading and reads the device again only when it is
older than ``refresh_ns``. The runtime's driver refreshes it every ``sensor_interval_ms`` and
scheduler views read it (:attr:`~harness.seams.view.ProcessorView.state`). Each real read is
handed to ``on_sample`` (the recorder writes it into ``sensors.parquet``), so the trace shows
exactly what a scheduler could have known.

It runs for every baseline, because every run records its sensor trace; which policy reads
the state, and what it makes of it, is the policy's business (ADMS: :mod:`adms.monitor`).
"""

from __future__ import annotations

from collections.abc import Callable

from harness.seams.records import SensorSample

Reader = Callable[[int], tuple[SensorSample, ...]]


class SensorCache:
    """Latest sensor sample per processor, refreshed at most every ``refresh_ns``."""

    def __init__(
        self,
        read: Reader,
        refresh_ns: int,
        on_sample: Callable[[SensorSample], None] | None = None,
    ) -> None:
        if refresh_ns <= 0:
            raise ValueError(f"refresh_ns must be positive, got {refresh_ns}")
        self._read = read
        self.refresh_ns = refresh_ns
        self._on_sample = on_sample
        self._latest: dict[str, SensorSample] = {}
        self._read_at_ns: int | None = None
        #: number of real device reads (cache misses)
        self.reads = 0

    def get(self, now_ns: int) -> dict[str, SensorSample]:
        """Samples by processor name, read again only when the cache is stale."""
        if self._read_at_ns is None or now_ns - self._read_at_ns >= self.refresh_ns:
            self.refresh(now_ns)
        return self._latest

    def refresh(self, now_ns: int) -> dict[str, SensorSample]:
        """Read the device now, whatever the cache age."""
        samples = self._read(now_ns)
        self._read_at_ns = now_ns
        self.reads += 1
        self._latest = {s.processor: s for s in samples}
        if self._on_sample is not None:
            for sample in samples:
                self._on_sample(sample)
        return self._latest
