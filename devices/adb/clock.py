"""The run's clock on a phone: time 0 is when a baseline's measurement begins (after pushes
and cool-down), in integer nanoseconds, for every row a baseline writes.

Three clocks meet: the host's (the power monitor's samples, the progress bar), the phone's
wall clock (``date +%s%N`` in the tools' start/end markers and the sampling loop; Band's
``gettimeofday`` job times) and the run's. :func:`sync_clock` estimates the phone's offset from
the host by bracketing ``date +%s%N`` between two host readings, a few times, and keeps the
tightest bracket: its half-width is the offset's uncertainty (a few ms over USB), recorded in
the manifest.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from devices.adb.transport import Transport
from harness.seams.errors import UserError

ROUNDS = 3


@dataclass(frozen=True, slots=True)
class RunClock:
    #: the host's wall clock (ns since the epoch) and monotonic clock at time 0
    t0_epoch_ns: int
    t0_monotonic_ns: int
    #: phone wall clock minus host wall clock, ns, and the uncertainty of that estimate
    phone_offset_ns: int
    uncertainty_ns: int

    def now_ns(self) -> int:
        return time.monotonic_ns() - self.t0_monotonic_ns

    def from_host(self, host_epoch_ns: float) -> int:
        return int(host_epoch_ns) - self.t0_epoch_ns

    def from_phone(self, phone_epoch_ns: float) -> int:
        return int(phone_epoch_ns) - self.phone_offset_ns - self.t0_epoch_ns

    def facts(self) -> dict[str, int]:
        return {"t0_host_epoch_ns": self.t0_epoch_ns,
                "phone_minus_host_ns": self.phone_offset_ns,
                "offset_uncertainty_ns": self.uncertainty_ns}


def phone_offset(transport: Transport) -> tuple[int, int]:
    """(phone minus host, half-width of the tightest bracket), ns."""
    best: tuple[int, int] | None = None
    for _ in range(ROUNDS):
        before = time.time_ns()
        out = transport.check("date +%s%N", "reading the phone's clock").strip()
        after = time.time_ns()
        if not out.isdigit() or len(out) < 16:
            raise UserError(f"the phone's date +%s%N printed {out!r}, not nanoseconds "
                            f"(a toybox date from Android 7 on is needed)")
        half = (after - before) // 2
        if best is None or half < best[1]:
            best = (int(out) - (before + half), half)
    assert best is not None
    return best


def sync_clock(transport: Transport) -> RunClock:
    """Time 0 is now; with the phone's offset measured just before."""
    offset, uncertainty = phone_offset(transport)
    return RunClock(time.time_ns(), time.monotonic_ns(), offset, uncertainty)
