"""ADMS's Processor Monitor (paper Section 3.3): what the scheduler makes of the readings.

The readings themselves (temperature, frequency, load, power per processor) come from the
harness's sensor cache (:mod:`harness.runtime.sensors`), refreshed at one interval for every
baseline, and reach the scheduler as :attr:`~harness.seams.view.ProcessorView.state`. Here is
how ADMS reads them: which processors are too hot for new work, how loaded each one is
(``B_cur / B_max`` of eq. 3), and which idle processor to offer work to first.
"""

from __future__ import annotations

from harness.seams.records import SensorSample
from harness.seams.view import ProcessorView


def near_throttle(state: SensorSample | None, margin_c: float) -> bool:
    """Throttled, or within ``margin_c`` of the throttling temperature (unknown: False)."""
    if state is None:
        return False
    if state.throttled:
        return True
    if state.temperature_c is None or state.throttle_temperature_c is None:
        return False
    return state.temperature_c >= state.throttle_temperature_c - margin_c


def load_fraction(proc: ProcessorView) -> float:
    """``B_cur / B_max`` in [0, 1]: the monitor's load, else 0 when idle and 1 when busy."""
    if proc.state is not None and proc.state.load is not None:
        return min(max(proc.state.load, 0.0), 1.0)
    return 0.0 if proc.idle else 1.0


def preference(proc: ProcessorView, margin_c: float) -> tuple[bool, float, float]:
    """Sort key of an idle processor: not near throttling, less loaded, cooler first."""
    temp = proc.state.temperature_c if proc.state is not None else None
    return (near_throttle(proc.state, margin_c), load_fraction(proc), temp or 0.0)
