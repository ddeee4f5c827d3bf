"""The sensor cache keeps reads for refresh_ns and reports every real read."""

from __future__ import annotations

import pytest

from harness.runtime.sensors import SensorCache
from harness.seams.records import SensorSample


class CountingReader:
    def __init__(self) -> None:
        self.calls: list[int] = []

    def __call__(self, now_ns: int) -> tuple[SensorSample, ...]:
        self.calls.append(now_ns)
        return (SensorSample("cpu", now_ns, temperature_c=40.0 + len(self.calls)),
                SensorSample("gpu", now_ns, temperature_c=None))


def test_reads_only_when_cache_is_stale() -> None:
    reader = CountingReader()
    seen: list[SensorSample] = []
    mon = SensorCache(reader, refresh_ns=100, on_sample=seen.append)
    assert mon.get(0)["cpu"].temperature_c == 41.0
    assert mon.get(99)["cpu"].temperature_c == 41.0
    assert mon.get(100)["cpu"].temperature_c == 42.0
    assert reader.calls == [0, 100]
    assert mon.reads == 2
    assert [s.processor for s in seen] == ["cpu", "gpu", "cpu", "gpu"]
    assert mon.get(150)["gpu"].temperature_c is None


def test_refresh_forces_a_read() -> None:
    reader = CountingReader()
    mon = SensorCache(reader, refresh_ns=1000)
    mon.get(0)
    mon.refresh(1)
    assert reader.calls == [0, 1]


def test_refresh_interval_must_be_positive() -> None:
    with pytest.raises(ValueError, match="refresh_ns"):
        SensorCache(CountingReader(), refresh_ns=0)
