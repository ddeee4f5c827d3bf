"""The twin's heat, power and frequencies, advanced lazily from governor tick to tick.

Between two ticks of the thermal governor a processor's frequency is fixed, so its energy
over the tick is ``static_w · dt + dynamic_w(f) · busy_time``: the device only needs each
processor's busy time. Starts and ends of subgraphs cost two additions (:meth:`busy`,
:meth:`idle`); the thermal network (:class:`~devices.twin.thermal.ThermalNetwork`) is
integrated once per tick with each processor's *average* power over it (its time constants
are tens of seconds, a tick is 100 ms), and up to the present when sensors are read. The rest
of the phone (display, video decode) heats the shared SoC node with ``rest_of_phone_w``.

At every tick the governor steps a processor's frequency down when it is hotter than its
throttle temperature, up when cooler than throttle − hysteresis (:class:`Governor`); and, with
the shutdown mechanism, a processor at its critical temperature shuts down until it has
cooled by its hysteresis.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from devices.twin.power import dynamic_power_w
from devices.twin.spec import TwinDeviceSpec, TwinProcessorSpec
from devices.twin.thermal import Governor, ThermalNetwork, array_sum
from harness.seams.records import SensorSample
from harness.seams.units import NS_PER_MS, NS_PER_S

#: sensor rows of this pseudo-processor are the whole phone (harness.reporting.power)
DEVICE: Final = "device"


class Heat:
    """Temperatures, energy, busy time, DVFS levels and shutdowns of one twin."""

    def __init__(self, device: TwinDeviceSpec, procs: Sequence[TwinProcessorSpec],
                 t0_ns: int) -> None:
        self.procs, self.device = tuple(procs), device
        n = len(procs)
        self.network = ThermalNetwork(
            device.ambient_c, device.soc_capacitance_j_per_k, device.soc_resistance_k_per_w,
            [p.capacitance_j_per_k for p in procs], [p.resistance_k_per_w for p in procs])
        self.governor = Governor([len(p.freqs_mhz) for p in procs],
                                 [p.throttle_c for p in procs], [p.hysteresis_c for p in procs])
        self.period_ns = max(1, round(device.governor_period_ms * NS_PER_MS))
        self.next_tick_ns = (t0_ns // self.period_ns + 1) * self.period_ns
        self.t_ns = t0_ns
        #: busy since (ns) per processor, or None when idle
        self.since: list[int | None] = [None] * n
        #: busy ns since ``t_ns`` of subgraphs already ended
        self.acc = [0] * n
        #: busy ns and energy (J) per processor since the start (floats: see
        #: :class:`~devices.twin.thermal.ThermalNetwork`)
        self.busy_ns: list[float] = [0.0] * n
        self.energy_j: list[float] = [0.0] * n
        self.rest_energy_j = 0.0
        self.down = [False] * n
        #: (time, busy ns, energy) at the last sensor read
        self._last_read = (t0_ns, list(self.busy_ns), list(self.energy_j))

    @property
    def rest_w(self) -> float:
        return self.device.rest_of_phone_w if self.device.mechanisms.phone_power else 0.0

    # -- events ----------------------------------------------------------------------------

    def busy(self, i: int, t_ns: int) -> None:
        self.since[i] = t_ns

    def idle(self, i: int, t_ns: int) -> None:
        since = self.since[i]
        if since is not None:
            self.acc[i] += max(0, t_ns - max(since, self.t_ns))
        self.since[i] = None

    def advance(self, now_ns: int) -> None:
        """Ticks up to ``now_ns`` (each integrates and governs), then integrate to now."""
        while self.next_tick_ns <= now_ns:
            self._integrate(self.next_tick_ns)
            self._govern()
            self.next_tick_ns += self.period_ns
        self._integrate(now_ns)

    def read(self, t: int, busy: Sequence[bool]) -> tuple[SensorSample, ...]:
        """Readings at ``t``, load and power averaged since the previous read (``busy``:
        which processors run something, for a read at the same instant). With the rest of the
        phone modelled, a ``device`` row carries the whole phone's power."""
        self.advance(t)
        last_t, last_busy, last_energy = self._last_read
        dt_ns = t - last_t
        if dt_ns > 0:
            dt_s = dt_ns / NS_PER_S
            load = [(b - b0) / dt_ns for b, b0 in zip(self.busy_ns, last_busy, strict=True)]
            power = [(e - e0) / dt_s for e, e0 in zip(self.energy_j, last_energy, strict=True)]
        else:
            load = [float(b) for b in busy]
            power = self.powers_w(load)
        self._last_read = (t, list(self.busy_ns), list(self.energy_j))
        rows = [self._sample(i, t, load[i], power[i]) for i in range(len(busy))]
        if self.rest_w > 0:
            rows.append(SensorSample(DEVICE, t, power_w=array_sum(power) + self.rest_w))
        return tuple(rows)

    def _sample(self, i: int, t_ns: int, load: float, power: float) -> SensorSample:
        spec = self.procs[i]
        return SensorSample(
            processor=spec.name, t_ns=t_ns,
            temperature_c=self.network.temps_c[i],
            frequency_hz=0.0 if self.down[i] else self.frequency_mhz(i) * 1e6,
            max_frequency_hz=spec.f_max_mhz * 1e6,
            load=min(max(load, 0.0), 1.0), power_w=power,
            throttled=self.governor.throttled(i) or self.down[i],
            throttle_temperature_c=spec.throttle_c,
        )

    # -- state -----------------------------------------------------------------------------

    def frequency_mhz(self, i: int) -> float:
        return self.procs[i].freqs_mhz[self.governor.level[i]]

    def powers_w(self, busy_fraction: Sequence[float]) -> list[float]:
        return [p.static_w + dynamic_power_w(p, self.frequency_mhz(i)) * busy_fraction[i]
                for i, p in enumerate(self.procs)]

    def _integrate(self, t_ns: int) -> None:
        dt_ns = t_ns - self.t_ns
        if dt_ns <= 0:
            return
        busy = [float(self.acc[i] + (max(0, t_ns - max(s, self.t_ns)) if s is not None
                                     else 0)) for i, s in enumerate(self.since)]
        powers = self.powers_w([b / dt_ns for b in busy])
        dt_s = dt_ns / NS_PER_S
        self.network.advance(powers, dt_s, self.rest_w)
        self.energy_j = [e + p * dt_s for e, p in zip(self.energy_j, powers, strict=True)]
        self.rest_energy_j += self.rest_w * dt_s
        self.busy_ns = [b0 + b for b0, b in zip(self.busy_ns, busy, strict=True)]
        self.acc = [0] * len(self.acc)
        self.t_ns = t_ns

    def _govern(self) -> None:
        temps = list(self.network.temps_c)
        self.governor.update(temps)
        if not self.device.mechanisms.shutdown:
            return
        for i, (p, t) in enumerate(zip(self.procs, temps, strict=True)):
            if p.critical_c > 0:
                self.down[i] = t >= p.critical_c or (self.down[i]
                                                     and t > p.critical_c - p.hysteresis_c)
