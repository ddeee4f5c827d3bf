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

from collections.abc import Sequence

import numpy as np


class ThermalNetwork:
    """Temperatures of the processor nodes and of the shared SoC node."""

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
        self.c = np.asarray(capacitance_j_per_k, dtype=float)
        self.g = 1.0 / np.asarray(resistance_k_per_w, dtype=float)
        self.temps_c = np.full(len(self.c), ambient_c)
        self.soc_c = ambient_c
        self.max_dt_s = 0.1 * self._fastest_time_constant_s()

    def _fastest_time_constant_s(self) -> float:
        soc_tau = self.c_soc / (self.g.sum() + 1.0 / self.r_soc)
        return float(min((self.c / self.g).min(), soc_tau))

    def advance(self, powers_w: np.ndarray, dt_s: float, soc_power_w: float = 0.0) -> None:
        """Integrate ``dt_s`` seconds with constant processor powers (and ``soc_power_w``
        dissipated in the SoC node itself: the rest of the phone)."""
        steps = max(1, int(np.ceil(dt_s / self.max_dt_s)))
        h = dt_s / steps
        for _ in range(steps):
            self._euler(powers_w, h, soc_power_w)

    def _euler(self, powers_w: np.ndarray, h: float, soc_power_w: float) -> None:
        flow = (self.temps_c - self.soc_c) * self.g
        soc_out = (self.soc_c - self.ambient_c) / self.r_soc
        self.temps_c = self.temps_c + h * (powers_w - flow) / self.c
        self.soc_c = self.soc_c + h * (float(flow.sum()) + soc_power_w - soc_out) / self.c_soc


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
