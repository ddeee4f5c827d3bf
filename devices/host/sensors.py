"""Host sensors: load, frequency, temperature and power of this machine's processors.

A host processor is a set of cores (:class:`~devices.host.spec.HostProcessorSpec`), so each
reading aggregates the sensors of those cores. Every figure comes from a kernel interface,
read under a root directory that tests replace with a fake tree:

* **load**: ``/proc/stat`` per-core jiffies; busy share of the ticks since the previous read
  (the first read compares against a snapshot taken at construction, or at
  :meth:`HostSensors.restart` when the run's clock starts), summed over the cores; when no
  tick (1/USER_HZ s) has passed since the previous read, the previous figure again (after a
  restart: 0, idle, as the run's first instant is);
* **frequency**: ``/sys/devices/system/cpu/cpuN/cpufreq/scaling_cur_freq`` (kHz, mean over the
  cores), maximum ``cpuinfo_max_freq``; *throttled* when ``scaling_max_freq`` is below
  ``cpuinfo_max_freq`` (a governor or the thermal framework capped it);
* **temperature**: ``/sys/class/thermal/thermal_zone*/temp`` (millidegrees C), the hottest
  zone; the throttling temperature is the lowest ``passive`` trip point;
* **power**: RAPL, ``/sys/class/powercap/intel-rapl:N/energy_uj`` (package zones only), power
  from the energy delta since the previous read (wrap-around at ``max_energy_range_uj``). It
  is package-wide: every processor reports the same figure, so do not sum across processors.

Whatever the machine lacks is ``None``: a missing file is never replaced by a guess. On the
cloud VMs this project runs on, only load is available (see FINDINGS.md).
"""

from __future__ import annotations

import platform
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from harness.seams.records import SensorSample
from harness.seams.units import NS_PER_S

#: /proc/stat columns counted as idle: idle, iowait
_IDLE_COLUMNS = (3, 4)
#: /proc/stat columns that make up the total: user..steal (guest time is inside user)
_TOTAL_COLUMNS = 8


@dataclass(frozen=True, slots=True)
class CpuTimes:
    """Jiffies of one core: idle and total."""

    idle: int
    total: int


#: stands for the all-zero snapshot at boot
_BOOT: Mapping[int, CpuTimes] = {}


def read_text(path: Path) -> str | None:
    """A sysfs/procfs file's content, or ``None`` when absent or unreadable."""
    try:
        return path.read_text()
    except OSError:
        return None


def read_int(path: Path) -> int | None:
    text = read_text(path)
    try:
        return int(text.strip()) if text is not None else None
    except ValueError:
        return None


def parse_proc_stat(text: str) -> dict[int, CpuTimes]:
    """Per-core times from the ``cpuN`` lines of ``/proc/stat``."""
    times: dict[int, CpuTimes] = {}
    for line in text.splitlines():
        name, _, rest = line.partition(" ")
        if not name.startswith("cpu") or name == "cpu":
            continue
        cols = [int(v) for v in rest.split()][:_TOTAL_COLUMNS]
        idle = sum(cols[i] for i in _IDLE_COLUMNS if i < len(cols))
        times[int(name[3:])] = CpuTimes(idle, sum(cols))
    return times


def busy_share(
    before: Mapping[int, CpuTimes], after: Mapping[int, CpuTimes], cores: Sequence[int]
) -> float | None:
    """Busy fraction in [0, 1] of ``cores`` between two snapshots, ``None`` if unknown."""
    if not cores or not all(c in after and (c in before or before is _BOOT) for c in cores):
        return None
    if before is _BOOT:
        before = dict.fromkeys(cores, CpuTimes(0, 0))
    total = sum(after[c].total - before[c].total for c in cores)
    idle = sum(after[c].idle - before[c].idle for c in cores)
    if total <= 0:
        return None
    return min(max((total - idle) / total, 0.0), 1.0)


class HostSensors:
    """Reads the host's sensors for processors given as ``name -> core ids``.

    ``clock`` (monotonic ns) times the RAPL energy deltas; tests pass a fake one.
    """

    def __init__(
        self,
        root: Path = Path("/"),
        processors: Mapping[str, Sequence[int]] | None = None,
        clock: Callable[[], int] = time.monotonic_ns,
    ) -> None:
        self.root = Path(root)
        self.processors = {k: tuple(v) for k, v in (processors or {}).items()}
        self._clock = clock
        self._cpu_times = self._read_cpu_times()
        self._last_load: dict[str, float | None] = {}
        self._energy = self._read_energy()

    def restart(self) -> None:
        """The run starts now: the next read's load and power cover only the time from here,
        and a read before a tick has passed finds every processor idle, as a run's first
        instant is (not the loading and profiling before it)."""
        self._cpu_times = self._read_cpu_times()
        self._last_load = {name: 0.0 for name in self.processors}
        self._energy = self._read_energy()

    # -- readings --------------------------------------------------------------------------

    def read(self, now_ns: int) -> tuple[SensorSample, ...]:
        """One :class:`SensorSample` per processor, stamped ``now_ns``."""
        loads = self._loads()
        temp_c, trip_c = self.temperature_c(), self.throttle_temperature_c()
        power = self._power_w()
        return tuple(
            self._sample(name, cores, now_ns, loads[name], temp_c, trip_c, power)
            for name, cores in self.processors.items()
        )

    def _loads(self) -> dict[str, float | None]:
        """Busy share per processor since the previous read; when no tick has passed since
        then, the previous figure (or, on the first read, the share since boot)."""
        times = self._read_cpu_times()
        before, self._cpu_times = self._cpu_times, times
        for name, cores in self.processors.items():
            load = busy_share(before, times, cores)
            if load is None:
                load = self._last_load.get(name, busy_share(_BOOT, times, cores))
            self._last_load[name] = load
        return {name: self._last_load[name] for name in self.processors}

    def _sample(
        self, name: str, cores: Sequence[int], now_ns: int, load: float | None,
        temp_c: float | None, trip_c: float | None, power_w: float | None,
    ) -> SensorSample:
        return SensorSample(
            processor=name, t_ns=now_ns, temperature_c=temp_c,
            frequency_hz=self.frequency_hz(cores), max_frequency_hz=self.max_frequency_hz(cores),
            load=load, power_w=power_w, throttled=self.throttled(cores),
            throttle_temperature_c=trip_c,
        )

    def _read_cpu_times(self) -> dict[int, CpuTimes]:
        text = read_text(self.root / "proc/stat")
        return parse_proc_stat(text) if text is not None else {}

    # -- frequency -------------------------------------------------------------------------

    def _cpufreq(self, core: int, name: str) -> int | None:
        return read_int(self.root / f"sys/devices/system/cpu/cpu{core}/cpufreq/{name}")

    def _khz_all(self, cores: Sequence[int], name: str) -> list[int] | None:
        values = [self._cpufreq(c, name) for c in cores]
        return None if not values or None in values else [v for v in values if v is not None]

    def frequency_hz(self, cores: Sequence[int]) -> float | None:
        khz = self._khz_all(cores, "scaling_cur_freq")
        return 1000.0 * sum(khz) / len(khz) if khz else None

    def max_frequency_hz(self, cores: Sequence[int]) -> float | None:
        khz = self._khz_all(cores, "cpuinfo_max_freq")
        return 1000.0 * max(khz) if khz else None

    def throttled(self, cores: Sequence[int]) -> bool | None:
        cap = self._khz_all(cores, "scaling_max_freq")
        top = self._khz_all(cores, "cpuinfo_max_freq")
        if not cap or not top:
            return None
        return any(c < t for c, t in zip(cap, top, strict=True))

    # -- thermal ---------------------------------------------------------------------------

    def thermal_zones(self) -> list[Path]:
        base = self.root / "sys/class/thermal"
        return sorted(base.glob("thermal_zone*")) if base.is_dir() else []

    def zone_temperatures_c(self) -> dict[str, float]:
        """``thermal_zoneN (type)`` -> degrees C, for every readable zone."""
        temps: dict[str, float] = {}
        for zone in self.thermal_zones():
            milli = read_int(zone / "temp")
            if milli is not None:
                kind = (read_text(zone / "type") or "?").strip()
                temps[f"{zone.name} ({kind})"] = milli / 1000.0
        return temps

    def temperature_c(self) -> float | None:
        temps = self.zone_temperatures_c()
        return max(temps.values()) if temps else None

    def throttle_temperature_c(self) -> float | None:
        trips = [t for zone in self.thermal_zones() for t in _passive_trips_c(zone)]
        return min(trips) if trips else None

    # -- power (RAPL) ----------------------------------------------------------------------

    def rapl_zones(self) -> list[Path]:
        """Package-level RAPL zones (``intel-rapl:N``, not the ``intel-rapl:N:M`` parts)."""
        base = self.root / "sys/class/powercap"
        if not base.is_dir():
            return []
        return sorted(p for p in base.glob("intel-rapl:*") if p.name.count(":") == 1)

    def _read_energy(self) -> tuple[int, dict[Path, int]]:
        energy = {z: read_int(z / "energy_uj") for z in self.rapl_zones()}
        return self._clock(), {z: e for z, e in energy.items() if e is not None}

    def _power_w(self) -> float | None:
        (t0, before), (t1, after) = self._energy, self._read_energy()
        self._energy = (t1, after)
        if not after or t1 <= t0 or set(after) != set(before):
            return None
        joules = sum(self._delta_uj(z, before[z], after[z]) for z in after) / 1e6
        return joules / ((t1 - t0) / NS_PER_S)

    def _delta_uj(self, zone: Path, before: int, after: int) -> int:
        if after >= before:
            return after - before
        wrap = read_int(zone / "max_energy_range_uj") or 0
        return after + wrap - before

    # -- facts -----------------------------------------------------------------------------

    def available(self) -> dict[str, bool]:
        """:class:`SensorSample` field -> this machine measures it for every processor."""
        groups = list(self.processors.values()) or [(0,)]

        def every(read: Callable[[Sequence[int]], object]) -> bool:
            return all(read(cores) is not None for cores in groups)

        return {
            "temperature_c": self.temperature_c() is not None,
            "frequency_hz": every(self.frequency_hz),
            "max_frequency_hz": every(self.max_frequency_hz),
            "load": all(c in self._cpu_times for cores in groups for c in cores),
            "power_w": bool(self._energy[1]),
            "throttled": every(self.throttled),
            "throttle_temperature_c": self.throttle_temperature_c() is not None,
        }

    def facts(self) -> dict[str, object]:
        """CPU model, core count, kernel, thermal zones, available sensors."""
        return {
            "cpu_model": cpu_model(self.root),
            "cores": len(self._cpu_times) or None,
            "kernel": kernel_release(self.root),
            "thermal_zones": sorted(self.zone_temperatures_c()),
            "sensors": self.available(),
        }


def _passive_trips_c(zone: Path) -> list[float]:
    trips = []
    for type_file in zone.glob("trip_point_*_type"):
        if (read_text(type_file) or "").strip() == "passive":
            milli = read_int(zone / type_file.name.replace("_type", "_temp"))
            if milli is not None:
                trips.append(milli / 1000.0)
    return trips


def kernel_release(root: Path = Path("/")) -> str:
    text = read_text(Path(root) / "proc/sys/kernel/osrelease")
    return text.strip() if text else platform.release()


def cpu_model(root: Path = Path("/")) -> str | None:
    """``model name`` (x86) or ``Hardware``/``Processor`` (Arm) from ``/proc/cpuinfo``."""
    text = read_text(Path(root) / "proc/cpuinfo") or ""
    for key in ("model name", "Hardware", "Processor"):
        for line in text.splitlines():
            name, sep, value = line.partition(":")
            if sep and name.strip() == key and value.strip():
                return value.strip()
    return None
