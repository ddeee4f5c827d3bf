"""Processor power: leakage plus switching power that scales with f·V².

A busy processor draws ``static_w + dynamic_w · (f / f_max) · (V(f) / V_max)²``; an idle one
draws ``static_w``. CMOS switching power is C·V²·f; the supply voltage of a DVFS table rises
roughly linearly with frequency, so ``V(f)`` interpolates linearly between ``v_min_v`` at the
lowest level and ``v_max_v`` at the top one. ``dynamic_w`` is the power at the top level (from
a power profile or an IPA power model, see the YAML comments). Leakage's dependence on
temperature is not modelled.
"""

from __future__ import annotations

from devices.twin.spec import TwinProcessorSpec


def voltage_v(spec: TwinProcessorSpec, f_mhz: float) -> float:
    """Supply voltage at ``f_mhz`` (linear between the lowest and the top DVFS level)."""
    lo, hi = spec.freqs_mhz[0], spec.freqs_mhz[-1]
    if hi == lo:
        return spec.v_max_v
    return spec.v_min_v + (spec.v_max_v - spec.v_min_v) * (f_mhz - lo) / (hi - lo)


def dynamic_power_w(spec: TwinProcessorSpec, f_mhz: float) -> float:
    """Switching power when busy at ``f_mhz``."""
    v_ratio = voltage_v(spec, f_mhz) / spec.v_max_v
    return spec.dynamic_w * (f_mhz / spec.f_max_mhz) * v_ratio**2


def power_w(spec: TwinProcessorSpec, f_mhz: float, busy: bool) -> float:
    """Total power of one processor."""
    return spec.static_w + (dynamic_power_w(spec, f_mhz) if busy else 0.0)
