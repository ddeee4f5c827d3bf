"""``Monsoon.sampleEngine`` as the fake monitor offers it (see the package docstring)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

RATE_HZ = 2000.0
IDLE_W, PER_TOOL_W = 1.1, 1.6


def phone_power_w() -> float:
    load = Path(os.environ.get("FAKE_PHONE_ROOT", "/nonexistent")) / ".fake/load"
    tools = sum(1 for _ in load.iterdir()) if load.is_dir() else 0
    return IDLE_W + PER_TOOL_W * tools


class SampleEngine:
    def __init__(self, monsoon: Any) -> None:
        self.monsoon = monsoon
        self.start = 0.0
        self.count = 0

    def ConsoleOutput(self, value: bool) -> None:
        pass

    def periodicStartSampling(self) -> list[list[float]]:
        self.start, self.count = time.time(), 0
        return [[], [], [], [], [], []]

    def periodicCollectSamples(self, samples: int = 100) -> list[list[float]]:
        """Blocks until ``samples`` more samples came, like the real one."""
        volts = self.monsoon.vout
        times = [(self.count + i) / RATE_HZ for i in range(samples)]
        self.count += samples
        delay = self.start + times[-1] - time.time()
        if delay > 0:
            time.sleep(delay)
        main_ma = phone_power_w() / volts * 1000.0
        n = len(times)
        return [times, [main_ma] * n, [0.0] * n, [0.0] * n, [volts] * n, [0.0] * n]

    def periodicStopSampling(self, closeCSV: bool = False) -> None:
        pass
