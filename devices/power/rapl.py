"""RAPL package energy counters as a :class:`~devices.power.PowerMonitor`.

Reads ``<root>/sys/class/powercap/intel-rapl:N/energy_uj`` (package zones only; wrap-around at
``max_energy_range_uj``) every ``interval_s`` in a thread of its own; each sample is the mean
power since the previous read, stamped at the read. It measures the machine whose sysfs it
reads: for a phone that is only right when the phone is that machine. With no RAPL zones it
says so (:meth:`RaplMonitor.open` raises a UserError), as FINDINGS.md finds on cloud VMs.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

from devices.power import PowerSample
from harness.seams.errors import UserError


def _read_uj(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


class RaplMonitor:
    def __init__(self, root: Path = Path("/"), interval_s: float = 0.05) -> None:
        self.root, self.interval_s = Path(root), interval_s
        self._samples: list[PowerSample] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def zones(self) -> list[Path]:
        base = self.root / "sys/class/powercap"
        return sorted(p for p in base.glob("intel-rapl:*") if p.name.count(":") == 1)

    def open(self) -> RaplMonitor:
        if not any(_read_uj(z / "energy_uj") is not None for z in self.zones()):
            raise UserError(f"no readable RAPL zone under {self.root}/sys/class/powercap: "
                            f"set device.power.monitor=none (or another monitor)")
        return self

    def _energy(self) -> dict[Path, int]:
        readings = {z: _read_uj(z / "energy_uj") for z in self.zones()}
        return {z: e for z, e in readings.items() if e is not None}

    def start(self, t0_epoch_ns: int) -> None:
        self._thread = threading.Thread(target=self._sample, args=(t0_epoch_ns,),
                                        name="rapl", daemon=True)
        self._thread.start()

    def _sample(self, t0_epoch_ns: int) -> None:
        before, t_before = self._energy(), time.time_ns()
        while not self._stop.wait(self.interval_s):
            after, t_after = self._energy(), time.time_ns()
            joules = sum(self._delta(z, before[z], after[z]) for z in after if z in before)
            if t_after > t_before and after:
                watts = joules / 1e6 / ((t_after - t_before) / 1e9)
                self._samples.append(PowerSample(t_after - t0_epoch_ns, watts))
            before, t_before = after, t_after

    def _delta(self, zone: Path, before: int, after: int) -> int:
        if after >= before:
            return after - before
        return after + (_read_uj(zone / "max_energy_range_uj") or 0) - before

    def stop(self) -> list[PowerSample]:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        return list(self._samples)

    def facts(self) -> dict[str, object]:
        return {"monitor": "rapl", "root": str(self.root),
                "zones": [z.name for z in self.zones()], "samples": len(self._samples)}
