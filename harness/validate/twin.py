"""The host's twin as a device YAML, from what :mod:`harness.validate.measure` measured.

The processors are the host config's (names, kinds, op support), each with a ``twin:`` block;
the twin is a :class:`devices.host.twin.HostTwinDevice` (the XNNPACK op support found by
trial, as on the host). What is measured on this machine ends in ``[M]``:

* ``measured_us``: each slice alone, its host profile less the copy of its inputs (which the
  twin's ``boundary_copy`` mechanism charges back, so that a slice alone costs its profile);
* ``memcpy_gbps``, ``copy_fixed_us``: fitted to the slices' input copies;
* ``scheduler_fixed_us``: the runtime's mean overhead per subgraph in single-model runs
  (ready to end, less the profile alone);
* the invoke and dispatch overheads and the peaks, scaled by one factor each to every
  measured slice (:func:`devices.adb.calibrate.fit.fit_latency`, the phone's procedure: what
  the twin uses for op sets nobody measured); the invoke floor is the shortest slice;
* ``memory_bandwidth_gbps`` (one core copying 64 MB) and ``noise_sigma`` (the spread of the
  profiles' timed runs);
* ``corun_factor`` per processor: its longest slices timed alone and beside a loop of
  another processor's longest slice (:func:`harness.validate.measure.time_beside`), the
  median slowdown beyond the bandwidth model's own when every slice was slower
  (:func:`applied_corun`; else 1, the measurement kept in the provenance).

What is not measured is a prior written here with its reason: the efficiency shape (the
phones' CPU prior), no DVFS, no thermal throttling and no power (the host has no sensors for
them), no delegate I/O (XNNPACK and the built-in kernels work in the process's memory),
concurrent interpreters time-sliced (the host's lanes share a core), a handoff between
cores at the copy bandwidth with no fixed cost, and ``scheduler_ns_per_op`` (decisions' work)
0: the single-model overhead holds the decisions' time.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from devices.adb.calibrate.fit import fit_latency
from devices.adb.calibrate.profile import SliceSpec, SliceTiming
from devices.host.config import HostDeviceConf
from devices.twin.config import (
    TwinDeviceBlock,
    TwinDeviceConf,
    TwinProcessorBlock,
    TwinProcessorConf,
)
from devices.twin.latency import effective_bandwidth, subgraph_cost
from devices.twin.spec import TwinSpec, measured_key, parse
from harness.seams.graph import ModelGraph
from harness.validate.measure import Beside, SliceMeasure

TARGET = "devices.host.twin.HostTwinDevice"
#: a core's peak, GFLOP/s: AVX2, 2 FMA x 8 floats x 2 at ~2.5 GHz; int8 2x [E] (scaled by the fit)
PRIOR_PEAK = {"float32": 80.0, "float16": 80.0, "int8": 160.0}
#: the phones' CPU prior (conv : depthwise : fully connected : other) [E]
PRIOR_EFFICIENCY = {"conv": 0.6, "depthwise": 0.3, "fully_connected": 0.4, "other": 0.1}
#: invoke and per-op dispatch of LiteRT on a core, µs [E] (scaled by the fit)
PRIOR_INVOKE_US, PRIOR_DISPATCH_US = 5.0, 0.5


@dataclass(frozen=True, slots=True)
class HostFacts:
    """Device-wide figures measured on this machine (:mod:`harness.validate.measure`)."""

    memcpy_gbps: float
    copy_fixed_us: float
    scheduler_fixed_us: float
    memory_bandwidth_gbps: float
    noise_sigma: float
    #: where they come from, e.g. "measured on <host> <date> at load 1.2 [M]"
    source: str


def copy_in_ns(graph: ModelGraph, ops: frozenset[int], facts: HostFacts) -> float:
    """The twin's boundary copy of ``ops``'s inputs (as :mod:`devices.twin.latency` prices
    it), ns."""
    inputs = graph.pure_inputs(ops)
    nbytes = sum(graph.tensors[t].nbytes for t in inputs)
    return nbytes / facts.memcpy_gbps + len(inputs) * facts.copy_fixed_us * 1000.0


def processor_block(measures: Sequence[SliceMeasure], graphs: Mapping[str, ModelGraph],
                    facts: HostFacts) -> TwinProcessorBlock:
    """One processor's block: the slices' own latencies and the priors."""
    measured = {}
    for m in measures:
        own = m.profile_ns - copy_in_ns(graphs[m.model], m.ops, facts)
        own_us = float(max(own, 0.5 * m.profile_ns)) / 1000.0
        measured[measured_key(m.model, m.ops)] = round(own_us, 3)
    shortest = min(measured.values(), default=0.0)
    return TwinProcessorBlock(
        peak_gflops=dict(PRIOR_PEAK), efficiency=dict(PRIOR_EFFICIENCY), bandwidth_share=1.0,
        invoke_overhead_us=PRIOR_INVOKE_US, dispatch_overhead_us=PRIOR_DISPATCH_US,
        freqs_mhz=[1000.0], static_w=0.0, dynamic_w=0.0, v_min_v=1.0, v_max_v=1.0,
        capacitance_j_per_k=20.0, resistance_k_per_w=1.0, throttle_c=1000.0,
        invoke_floor_us=shortest, io_copy_gbps=0.0, critical_c=0.0, measured_us=measured,
        provenance={"measured_us": f"{len(measured)} slices alone, host profile less the "
                                   f"input copy; {facts.source}",
                    "invoke_floor_us": f"the shortest slice; {facts.source}",
                    "peak_gflops": "AVX2 core [E]", "efficiency": "phones' CPU prior [E]",
                    "io_copy_gbps": "none: the kernels share the process's memory [S]",
                    "thermal": "none: no sensors on this host [U]",
                    "concurrency": "none: concurrent interpreters' threads time-share the "
                                   "core [S]"})


def device_block(facts: HostFacts) -> TwinDeviceBlock:
    measured = facts.source
    return TwinDeviceBlock(
        ambient_c=25.0, soc_capacitance_j_per_k=100.0, soc_resistance_k_per_w=1.0,
        memory_bandwidth_gbps=round(facts.memory_bandwidth_gbps, 3), transfer_fixed_us=0.0,
        transfer_bandwidth_gbps=round(facts.memcpy_gbps, 3), governor_period_ms=100.0,
        noise_sigma=round(facts.noise_sigma, 4), memcpy_gbps=round(facts.memcpy_gbps, 3),
        copy_fixed_us=round(facts.copy_fixed_us, 3),
        scheduler_fixed_us=round(facts.scheduler_fixed_us, 3), scheduler_ns_per_op=0.0,
        memory_budget_mb=0.0, interpreter_overhead_kb=0.0, rest_of_phone_w=0.0,
        provenance={
            "memory_bandwidth_gbps": f"one core copying 64 MB; {measured}",
            "memcpy_gbps": f"fitted to the slices' input copies; {measured}",
            "copy_fixed_us": f"fitted to the slices' input copies; {measured}",
            "scheduler_fixed_us": f"single-model runs: ready to end less the profile; "
                                  f"{measured}",
            "scheduler_ns_per_op": "0: the decisions' time is in scheduler_fixed_us [E]",
            "noise_sigma": f"spread of the profiles' timed runs; {measured}",
            "transfer_fixed_us": "0: the cores share memory [E]",
            "memory_budget_mb": "0 (unlimited) [E]"})


def build(name: str, host: HostDeviceConf, measures: Sequence[SliceMeasure],
          graphs: Mapping[str, ModelGraph], facts: HostFacts,
          besides: Sequence[Beside] = ()) -> TwinDeviceConf:
    """The twin's config: measured slices and overheads, then the fit for the rest, and
    each processor's interference from the slices timed beside another's loop."""
    procs = [TwinProcessorConf(
        name=p.name, kind=p.kind, support=p.support, api_level=p.api_level,
        reject_ops=list(p.reject_ops), accept_ops=list(p.accept_ops),
        twin=processor_block([m for m in measures if m.processor == p.name], graphs, facts))
        for p in host.processors]
    conf = TwinDeviceConf(_target_=TARGET, name=name, processors=procs,
                          description=f"twin of {host.name}, calibrated on this machine",
                          twin=device_block(facts))
    spec = parse(conf)
    for proc in conf.processors:
        assert proc.twin is not None
        mine = [m for m in measures if m.processor == proc.name]
        if mine:
            _fit(proc.twin, spec, proc.name, mine, graphs, facts)
    spec = parse(conf)
    for proc in conf.processors:
        assert proc.twin is not None
        timed = [b for b in besides if b.measure.processor == proc.name]
        if timed:
            proc.twin.corun_factor, proc.twin.provenance["corun_factor"] = applied_corun(
                corun_ratios(spec, proc.name, timed, graphs), facts.source)
    return conf


def applied_corun(ratios: Sequence[float], source: str) -> tuple[float, str]:
    """The twin's factor from the slices' ratios and its provenance: their median when every
    ratio says the processor is slower beside another (a sign test, p = 2^(1-n)); else 1,
    with what was measured. A ratio below 1 (a core faster while another works: a VM's or
    a governor's power states, not interference) is recorded, never applied."""
    median = float(statistics.median(ratios))
    how = (f"median over {len(ratios)} slices of (beside / alone) over the bandwidth "
           f"model's own ratio: x{median:.3f}")
    if len(ratios) >= 5 and all(r > 1.0 for r in ratios):
        return round(median, 4), f"{how}; {source}"
    return 1.0, (f"1: {how}, not every slice slower, so not applied (in the runs "
                 f"slices were slower than alone, not faster); {source}")


def corun_ratios(spec: TwinSpec, name: str, timed: Sequence[Beside],
                 graphs: Mapping[str, ModelGraph]) -> list[float]:
    """How much slower each of ``name``'s slices ran beside another processor's loop than
    alone, beyond what the twin's bandwidth model already charges it for that: the measured
    ratio over the model's ratio (one other processor busy)."""
    proc, dev = spec.processor(name), spec.device
    alone_bw = effective_bandwidth(dev.memory_bandwidth_gbps, proc.bandwidth_share, 1)
    beside_bw = effective_bandwidth(dev.memory_bandwidth_gbps, proc.bandwidth_share, 2)
    ratios = []
    for b in timed:
        cost = subgraph_cost(proc, graphs[b.measure.model], b.measure.ops, dev)
        modelled = cost.latency_ns(1.0, beside_bw) / cost.latency_ns(1.0, alone_bw)
        ratios.append(b.beside_ns / b.alone_ns / modelled)
    return ratios


def _fit(block: TwinProcessorBlock, spec: TwinSpec, name: str, mine: Sequence[SliceMeasure],
         graphs: Mapping[str, ModelGraph], facts: HostFacts) -> None:
    timings = [SliceTiming(SliceSpec(m.model, name, m.ops),
                           block.measured_us[measured_key(m.model, m.ops)], 1, 0.0)
               for m in mine]
    fit = fit_latency(spec.processor(name), spec.device, graphs, timings)
    block.invoke_overhead_us = round(block.invoke_overhead_us * fit.overhead, 6)
    block.dispatch_overhead_us = round(block.dispatch_overhead_us * fit.overhead, 6)
    how = f"least squares over {fit.slices} slices alone; {facts.source}"
    block.provenance["overheads"] = f"prior x {fit.overhead:.4g} ({how})"
    if fit.peak is not None:
        block.peak_gflops = {k: round(v * fit.peak, 6) for k, v in block.peak_gflops.items()}
        block.provenance["peak_gflops"] = f"AVX2 prior x {fit.peak:.4g} ({how})"
