"""Lumped thermal RC network and a step-wise DVFS thermal governor.

Each processor is one thermal node (heat capacity ``C_i``) joined through ``R_i`` to a shared
SoC/skin node (``C_s``), which is joined through ``R_s`` to the ambient air:

    C_i dT_i/dt = P_i - (T_i - T_s) / R_i
    C_s dT_s/dt = Σ_i (T_i - T_s) / R_i + P_rest - (T_s - T_amb) / R_s

:class:`ThermalNetwork` integrates this with explicit Euler sub-steps short enough to be stable
(a tenth of the fastest node's time constant). ``P_rest`` is the rest of the phone (display,
video decode) dissipated in the SoC/skin node. The device advances the network with each
processor's average power over a governor tick (:mod:`devices.twin.heat`).

:class:`Governor` is the per-processor frequency cap of a step-wise thermal governor: every
period, a processor hotter than its throttle temperature (68 °C, the paper's threshold) drops
one DVFS level; one cooler than ``throttle - hysteresis`` climbs one level back.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


class ThermalNetwork:
    """Temperatures of the processor nodes and of the shared SoC node. A handful of nodes:
    plain floats, each step the same IEEE operations numpy's elementwise ones would do (and
    sums in numpy's order: :func:`array_sum`), without numpy's per-call cost."""

    def __init__(
        self,
        ambient_c: float,
        soc_capacitance_j_per_k: float,
        soc_resistance_k_per_w: float,
        capacitance_j_per_k: Sequence[float],
        resistance_k_per_w: Sequence[float],
    ) -> None:
        self.ambient_c = ambient_c
        self.c_soc = soc_capacitance_j_per_k
        self.r_soc = soc_resistance_k_per_w
        c = np.asarray(capacitance_j_per_k, dtype=float)
        g = 1.0 / np.asarray(resistance_k_per_w, dtype=float)
        self.c: list[float] = c.tolist()
        self.g: list[float] = g.tolist()
        self.temps_c: list[float] = [float(ambient_c)] * len(self.c)
        self.soc_c = ambient_c
        soc_tau = self.c_soc / (g.sum() + 1.0 / self.r_soc)
        self.max_dt_s = 0.1 * float(min((c / g).min(), soc_tau))

    def advance(self, powers_w: Sequence[float], dt_s: float, soc_power_w: float = 0.0) -> None:
        """Integrate ``dt_s`` seconds with constant processor powers (and ``soc_power_w``
        dissipated in the SoC node itself: the rest of the phone)."""
        steps = max(1, math.ceil(dt_s / self.max_dt_s))
        h = dt_s / steps
        powers = [float(p) for p in powers_w]
        for _ in range(steps):
            self._euler(powers, h, soc_power_w)

    def _euler(self, powers_w: list[float], h: float, soc_power_w: float) -> None:
        soc, g, c = self.soc_c, self.g, self.c
        temps = self.temps_c
        flow = [(temps[i] - soc) * g[i] for i in range(len(temps))]
        soc_out = (soc - self.ambient_c) / self.r_soc
        self.temps_c = [temps[i] + h * (powers_w[i] - flow[i]) / c[i] for i in range(len(temps))]
        self.soc_c = soc + h * (array_sum(flow) + soc_power_w - soc_out) / self.c_soc


def array_sum(values: Sequence[float]) -> float:
    """``float(np.sum(values))`` exactly: numpy adds fewer than 8 float64s one after the other
    from the first (more, pairwise: left to numpy)."""
    if len(values) >= 8:
        return float(np.sum(np.asarray(values, dtype=float)))
    total = 0.0
    for k, v in enumerate(values):
        total = v if k == 0 else total + v
    return total


class Governor:
    """Frequency level (index into each processor's ascending DVFS table) per processor."""

    def __init__(
        self,
        levels: Sequence[int],
        throttle_c: Sequence[float],
        hysteresis_c: Sequence[float],
    ) -> None:
        self.top = [n - 1 for n in levels]
        self.level = list(self.top)
        self.throttle_c = list(throttle_c)
        self.clear_c = [t - h for t, h in zip(throttle_c, hysteresis_c, strict=True)]

    def update(self, temps_c: Sequence[float]) -> None:
        """One governor period: step each processor down if hot, up if cool."""
        for i, t in enumerate(temps_c):
            if t > self.throttle_c[i]:
                self.level[i] = max(self.level[i] - 1, 0)
            elif t < self.clear_c[i]:
                self.level[i] = min(self.level[i] + 1, self.top[i])

    def throttled(self, i: int) -> bool:
        return self.level[i] < self.top[i]
