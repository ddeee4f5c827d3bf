"""From measurements to a twin device YAML: every constant measured on the phone says so.

The twin starts as a copy of a prior twin (``conf/device/<prior>.yaml``), with the phone's
processors (names, kinds, op-support rules from its device config; each takes the twin block
of the prior's processor of the same kind). Then, per processor:

* ``measured_us``: each profiled slice's latency alone, keyed ``<model>:<op ranges>``; the
  twin takes these in preference to its roofline (:mod:`devices.twin.latency`);
* the invoke and dispatch overheads and ``peak_gflops``, each scaled by one factor, both
  fitted to every measured slice of the processor (:func:`fit_latency`: what the twin uses for the
  op sets nobody measured), the invoke floor at most the shortest slice;
* the CPU's ``freqs_mhz`` from the probed cpufreq table of its fastest cluster;

and from the heat-up trace (:func:`fit_heating`), ``T(t) = T∞ − (T∞ − T0)·exp(−t/τ)`` fitted
to the heated processor's thermal zone from its coolest sample (the load's onset, after the
tool's start-up) to its hottest: the total resistance to ambient is the rise over the
twin's own power for that processor busy at the top frequency (so the twin reproduces the
rise), split between the processor's node and the SoC node as the prior splits it; the SoC
node's capacitance is ``τ / R``; the ambient is the start temperature less what the idle
phone dissipates. The rest (power; voltages; copy and transfer costs; the accelerators' DVFS
tables) keeps the prior's values, its provenance prefixed ``prior <name>:``.
"""

from __future__ import annotations

import copy
import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from omegaconf import OmegaConf
from scipy.optimize import curve_fit, least_squares

from devices.adb.calibrate.profile import SliceTiming
from devices.adb.config import AdbDeviceConf
from devices.adb.probe import PhoneFacts
from devices.twin.config import TwinDeviceConf, TwinProcessorBlock, TwinProcessorConf
from devices.twin.latency import OpTable
from devices.twin.spec import TwinDeviceSpec, TwinProcessorSpec, measured_key, parse
from harness.seams.errors import UserError
from harness.seams.graph import ModelGraph

TARGET = "devices.twin.calibrated.CalibratedTwinDevice"


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where every measured constant comes from: ``measured on <serial> (<model>) <date>
    with <tool> [M]``."""

    serial: str
    phone: str
    date: str
    tool: str
    prior: str

    def measured(self, how: str = "") -> str:
        extra = f"; {how}" if how else ""
        return f"measured on {self.serial} ({self.phone}) {self.date} with {self.tool}{extra} [M]"

    def prior_of(self, source: str) -> str:
        return f"prior {self.prior}: {source}"


@dataclass(frozen=True, slots=True)
class HeatFit:
    processor: str
    start_c: float
    rise_c: float
    tau_s: float
    samples: int


def twin_processors(prior: TwinDeviceConf, phone: AdbDeviceConf, prov: Provenance
                    ) -> list[TwinProcessorConf]:
    """The phone's processors, each with the prior's twin block of its kind."""
    out = []
    for proc in phone.processors:
        donor = next((p for p in prior.processors if p.kind == proc.kind), None) or next(
            (p for p in prior.processors if p.name == proc.name), None)
        if donor is None or donor.twin is None:
            raise UserError(f"prior {prior.name!r} has no {proc.kind.name} processor to take "
                            f"the twin constants of phone processor {proc.name!r} from")
        block = copy.deepcopy(donor.twin)
        block.calibration = None
        block.provenance = {k: prov.prior_of(v) for k, v in block.provenance.items()}
        fields = {f.name: copy.deepcopy(getattr(proc, f.name))
                  for f in dataclasses.fields(TwinProcessorConf) if f.name != "twin"}
        out.append(TwinProcessorConf(**fields, twin=block))
    return out


@dataclass(frozen=True, slots=True)
class LatencyFit:
    """Factors on a processor's prior: overheads x ``overhead``, peaks x ``peak`` (None:
    the fit could not tell, the prior's stand)."""

    overhead: float
    peak: float | None
    slices: int


def fit_latency(spec: TwinProcessorSpec, device: TwinDeviceSpec,
                graphs: Mapping[str, ModelGraph], timings: Sequence[SliceTiming]) -> LatencyFit:
    """Least squares (relative residuals) over the processor's slices alone of
    ``a·(invoke + dispatch·ops) + Σ_ops max(compute / s, bytes / bandwidth) + I/O copies``:
    overheads x ``a``, peaks x ``s``; ``s`` is None when the slices hardly depend on it
    (all overhead- or memory-bound)."""
    plain = dataclasses.replace(spec, measured_ns={})
    bandwidth = spec.bandwidth_share * device.memory_bandwidth_gbps
    costs = [OpTable.of(plain, graphs[t.slice.model], device).subgraph(t.slice.ops, True)
             for t in timings]
    measured = np.array([t.latency_us * 1e3 for t in timings])

    def predicted(x: np.ndarray) -> np.ndarray:
        a, s = np.exp(x)
        return np.array([a * c.fixed_ns + float(np.maximum(c.compute_ns / s,
                                                           c.nbytes / bandwidth).sum())
                         + c.copy_ns for c in costs])

    found = least_squares(lambda x: predicted(x) / measured - 1.0, np.zeros(2),
                          bounds=([-12.0, -12.0], [12.0, 12.0]))
    log_a, log_s = found.x
    doubled = predicted(np.array([log_a, log_s + math.log(2)]))
    sensitive = float(np.abs(doubled / predicted(found.x) - 1).max()) > 0.01
    return LatencyFit(math.exp(log_a), math.exp(log_s) if sensitive else None, len(timings))


def fit_heating(sensors: pd.DataFrame, processor: str) -> HeatFit:
    """The first-order step response fitted to ``processor``'s temperatures."""
    rows = sensors[(sensors["processor"] == processor) & sensors["temperature_c"].notna()]
    if len(rows) < 5:
        raise UserError(f"the heat-up trace has {len(rows)} temperature samples of "
                        f"{processor!r} (its thermal zone unreadable?): at least 5 are needed")
    temp, t_ns = rows["temperature_c"].to_numpy(float), rows["t_ns"].to_numpy(float)
    top = int(np.argmax(temp))
    onset = int(np.argmin(temp[: top + 1]))  # the load starts after the tool's start-up
    temp, t = temp[onset: top + 1], (t_ns[onset: top + 1] - t_ns[onset]) / 1e9
    if len(temp) < 5:
        raise UserError(f"the heat-up trace of {processor!r} has {len(temp)} samples while "
                        "it heated: make heat.duration_s longer")
    start, span = float(temp[0]), max(float(t[-1]), 1e-3)

    def step(x: np.ndarray, t0: float, rise: float, tau: float) -> np.ndarray:
        return t0 + rise * (1.0 - np.exp(-x / tau))

    guess = (start, max(float(temp.max()) - start, 0.1), span / 3)
    bounds = ([-50.0, 0.0, 1e-3], [150.0, 200.0, 100 * span])
    try:
        (t0, rise, tau), _ = curve_fit(step, t, temp, p0=guess, bounds=bounds)
    except RuntimeError as exc:
        raise UserError(f"the heat-up trace of {processor!r} does not fit a first-order "
                        f"step response ({exc}); make heat.duration_s longer") from None
    if rise < 0.05:
        raise UserError(f"the heat-up trace of {processor!r} rose {rise:.2f} °C only: make "
                        "heat.duration_s longer or heat another processor")
    return HeatFit(processor, float(t0), float(rise), float(tau), len(rows))


def build_twin(name: str, description: str, prior: TwinDeviceConf, phone: AdbDeviceConf,
               facts: PhoneFacts, timings: Sequence[SliceTiming],
               graphs: Mapping[str, ModelGraph], heat: HeatFit | None, prov: Provenance
               ) -> TwinDeviceConf:
    """The calibrated twin's config (see the module docstring)."""
    assert prior.twin is not None
    device = copy.deepcopy(prior.twin)
    device.provenance = {k: prov.prior_of(v) for k, v in device.provenance.items()}
    conf = TwinDeviceConf(_target_=TARGET, name=name, description=description,
                          processors=twin_processors(prior, phone, prov), twin=device)
    for proc in conf.processors:
        assert proc.twin is not None
        _measured(proc.name, proc.twin, timings, prov)
    spec = parse(conf)
    for proc in conf.processors:
        assert proc.twin is not None
        _latency_fit(spec.processor(proc.name), spec.device, proc.twin, timings, graphs, prov)
    _cpu_freqs(conf, facts, prov)
    if heat is not None:
        _thermal(conf, parse(conf), heat, prov)
    return conf


def _measured(name: str, block: TwinProcessorBlock, timings: Sequence[SliceTiming],
              prov: Provenance) -> None:
    mine = [t for t in timings if t.slice.processor == name]
    block.measured_us = {measured_key(t.slice.model, t.slice.ops): round(t.latency_us, 3)
                         for t in mine}
    if mine:
        block.provenance["measured_us"] = prov.measured(
            f"{len(mine)} slices, each alone on its delegate, the tool's mean")


def _latency_fit(spec: TwinProcessorSpec, device: TwinDeviceSpec, block: TwinProcessorBlock,
                 timings: Sequence[SliceTiming], graphs: Mapping[str, ModelGraph],
                 prov: Provenance) -> None:
    mine = [t for t in timings if t.slice.processor == spec.name]
    if not mine:
        return
    fit = fit_latency(spec, device, graphs, mine)
    how = f"least squares over {fit.slices} slices alone"
    block.invoke_overhead_us = round(block.invoke_overhead_us * fit.overhead, 6)
    block.dispatch_overhead_us = round(block.dispatch_overhead_us * fit.overhead, 6)
    shortest = min(t.latency_us for t in mine)
    block.invoke_floor_us = round(min(spec.invoke_floor_us, shortest), 6)
    block.provenance["overheads"] = prov.measured(
        f"prior invoke and dispatch overheads x {fit.overhead:.4g} ({how}); invoke floor at "
        f"most the shortest slice, {shortest:.1f} us")
    if fit.peak is None:
        block.provenance["peak_gflops"] = prov.prior_of(
            f"kept: the slices' times are all overhead ({how})")
        return
    block.peak_gflops = {k: round(v * fit.peak, 6) for k, v in block.peak_gflops.items()}
    block.provenance["peak_gflops"] = prov.measured(f"prior peaks x {fit.peak:.4g} ({how})")


def _cpu_freqs(conf: TwinDeviceConf, facts: PhoneFacts, prov: Provenance) -> None:
    clusters = [c for c in facts.clusters if c.freqs_khz]
    cpus = [p for p in conf.processors if p.kind.name == "CPU" and p.twin is not None]
    if not clusters or not cpus:
        return
    top = max(clusters, key=lambda c: c.max_khz or 0)
    for proc in cpus:
        assert proc.twin is not None
        proc.twin.freqs_mhz = sorted(f / 1000 for f in top.freqs_khz)
        proc.twin.provenance["freqs_mhz"] = prov.measured(
            f"cpufreq policy{top.policy} scaling_available_frequencies")


def _thermal(conf: TwinDeviceConf, spec: Any, heat: HeatFit, prov: Provenance) -> None:
    proc = next((p for p in conf.processors if p.name == heat.processor), None)
    if proc is None or proc.twin is None or conf.twin is None:
        raise UserError(f"heat.processor={heat.processor!r} is not a processor of the phone")
    block, device, mine = proc.twin, conf.twin, spec.processor(heat.processor)
    power_w = mine.static_w + mine.dynamic_w
    total = heat.rise_c / power_w
    r_share = block.resistance_k_per_w / (block.resistance_k_per_w + device.soc_resistance_k_per_w)
    c_share = block.capacitance_j_per_k / (block.capacitance_j_per_k
                                           + device.soc_capacitance_j_per_k)
    capacity = heat.tau_s / total
    block.resistance_k_per_w, block.capacitance_j_per_k = total * r_share, capacity * c_share
    device.soc_resistance_k_per_w = total * (1 - r_share)
    device.soc_capacitance_j_per_k = capacity * (1 - c_share)
    idle_w = sum(p.static_w for p in spec.processors) + (
        spec.device.rest_of_phone_w if spec.device.mechanisms.phone_power else 0.0)
    device.ambient_c = heat.start_c - idle_w * device.soc_resistance_k_per_w
    how = (f"heat-up trace of {heat.processor}: rise {heat.rise_c:.2f} C, tau {heat.tau_s:.2f} s"
           f" ({heat.samples} samples); R = rise / the twin's {heat.processor} power "
           f"{power_w:.2f} W, split as the prior")
    block.provenance["thermal"] = prov.measured(how)
    for key in ("soc_resistance_k_per_w", "soc_capacitance_j_per_k"):
        device.provenance[key] = prov.measured(how)
    device.provenance["ambient_c"] = prov.measured(
        f"start of the heat-up trace {heat.start_c:.2f} C less the idle phone's heating")


def write_yaml(conf: TwinDeviceConf, path: Path, header: Sequence[str]) -> Path:
    """The config as a device YAML (``conf/device/<name>.yaml`` shape)."""
    body = OmegaConf.to_container(OmegaConf.structured(conf), enum_to_str=True)
    assert isinstance(body, dict)
    text = OmegaConf.to_yaml({"defaults": ["/schema/device/twin@_here_", "_self_"], **body})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"# {line}\n" for line in header) + text)
    return path
