"""Measuring this machine for its twin, from single-model runs only.

As a phone's calibration does (:mod:`harness.calibrate`), every slice Band's analyzer cuts at
minimum subgraph size 1 (unit and merged subgraphs, per processor, by the host's own op
support) is run **alone** on its processor: the host device's profile (``host.warmup_runs``
untimed, the median of ``host.profile_runs`` timed runs of ``SliceRunner.run``: inputs copied
in, invoke, outputs copied out), kept in the host's profile cache as every run's profiles are.
Beside it, per slice, the copy of its inputs into its interpreter alone (``set_tensor``, the
boundary copy every subgraph pays): :func:`measure_slices`.

Then the per-subgraph overhead the runtime adds to a slice on this machine (the decision, the
hand-over to the worker thread and back, the slice running colder than in a tight loop):
each model alone, one request at a time, as a chain of subgraphs (Band's plan), and from its
rows the time between a subgraph being ready (its request's arrival, or its predecessor's end)
and its end, less its profile alone (:func:`dispatch_overheads`). And the machine's memory
bandwidth (one core copying a large array) and the spread of a slice's timed runs (the twin's
latency noise). Nothing here runs two models at once.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.optimize import nnls

from devices.host.device import HostDevice
from harness.seams.graph import ModelGraph
from harness.seams.plan import ModelPlan, Processor

#: an analyzer (Band's): (graph, processors, unsupported ops, minimum size, merge) -> plan
Analyzer = Callable[[ModelGraph, Sequence[Processor], Mapping[str, frozenset[int]], int, bool],
                    ModelPlan]
#: timed input copies per slice (each a few microseconds)
COPY_RUNS = 50


@dataclass(frozen=True, slots=True)
class SliceMeasure:
    """One op set of one model, measured alone on one processor."""

    model: str
    processor: str
    ops: frozenset[int]
    #: the host's profile: median ns of ``SliceRunner.run`` alone (copies in and out included)
    profile_ns: int
    #: median ns of copying its inputs in alone, their bytes and count
    copy_ns: int
    copy_bytes: int
    copy_tensors: int


def size1_plans(graphs: Mapping[str, ModelGraph], device: HostDevice, analyze: Analyzer
                ) -> dict[str, ModelPlan]:
    """Each model's plan as ``analyze`` (Band's) cuts it at minimum size 1, by the host's op
    support: unit and merged subgraphs on every processor."""
    procs = [s.processor for s in device.specs.values()]
    return {name: analyze(graph, procs, device.op_support(graph), 1, True)
            for name, graph in graphs.items()}


def slices(plans: Mapping[str, ModelPlan]) -> list[tuple[str, str, frozenset[int]]]:
    """Every distinct (model, processor, op set) of the plans."""
    found = {(name, sg.processor, sg.ops): None
             for name, plan in plans.items() for sg in plan.subgraphs}
    return list(found)


def measure_slices(device: HostDevice, todo: Sequence[tuple[str, str, frozenset[int]]],
                   tick: Callable[[], None] = lambda: None) -> list[SliceMeasure]:
    """Each slice alone: its profile (cached on disk) and its input copy."""
    out = []
    for model, proc, ops in todo:
        profile = device.profile_slice(model, ops, proc)
        copy_ns, nbytes, count = device.time_input_copy(model, ops, proc, COPY_RUNS)
        out.append(SliceMeasure(model, proc, ops, profile, copy_ns, nbytes, count))
        tick()
    return out


#: slices timed beside a loop on another processor, per processor (its longest ones)
CORUN_SLICES = 6
#: shorter slices are left out (their invoke's fixed costs dominate the ratio), ns
CORUN_MIN_NS = 500_000


@dataclass(frozen=True, slots=True)
class Beside:
    """A slice timed alone and then beside another processor's loop."""

    measure: SliceMeasure
    alone_ns: int
    beside_ns: int


def time_beside(device: HostDevice, measures: Sequence[SliceMeasure],
                tick: Callable[[], None] = lambda: None) -> list[Beside]:
    """Each processor's longest slices (up to :data:`CORUN_SLICES`), each alone and beside
    the longest slice of another processor running in a loop (not cached: both timings
    are taken together, under the same conditions)."""
    out = []
    for proc in dict.fromkeys(m.processor for m in measures):
        others = [m for m in measures if m.processor != proc]
        if not others:
            continue
        bg = max(others, key=lambda m: m.profile_ns)
        mine = sorted((m for m in measures
                       if m.processor == proc and m.profile_ns >= CORUN_MIN_NS),
                      key=lambda m: -m.profile_ns)[:CORUN_SLICES]
        for m in mine:
            alone, beside = device.time_beside((m.model, m.ops, m.processor),
                                               (bg.model, bg.ops, bg.processor))
            out.append(Beside(m, alone, beside))
            tick()
    return out


def fit_copy(measures: Sequence[SliceMeasure]) -> tuple[float, float]:
    """(fixed µs per tensor, GB/s) of ``copy = tensors x fixed + bytes / bandwidth``, least
    squares over the slices' input copies (non-negative; a bandwidth the fit cannot see is
    the largest copy's bytes over its time)."""
    a = np.array([[m.copy_tensors, m.copy_bytes] for m in measures], dtype=float)
    y = np.array([m.copy_ns for m in measures], dtype=float)
    (fixed_ns, ns_per_byte), _ = nnls(a, y)
    if ns_per_byte <= 0:
        big = max(measures, key=lambda m: m.copy_bytes)
        ns_per_byte = big.copy_ns / max(big.copy_bytes, 1)
    return float(fixed_ns) / 1000.0, 1.0 / float(ns_per_byte)


def memory_bandwidth_gbps(mbytes: int = 64, repeats: int = 5) -> float:
    """One core copying ``mbytes`` MB (read + write counted), the best of ``repeats``."""
    src = np.ones(mbytes * 2**20, dtype=np.uint8)
    dst = np.empty_like(src)
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter_ns()
        np.copyto(dst, src)
        best = min(best, time.perf_counter_ns() - t0)
    return 2 * src.nbytes / best


def noise_sigma(store_root: Path | None) -> float:
    """The median spread (sigma of log time) of the cached profiles' timed runs, or 0."""
    if store_root is None or not store_root.is_dir():
        return 0.0
    sigmas = []
    for path in store_root.rglob("*.json"):
        try:
            samples = json.loads(path.read_text()).get("samples_ns") or []
        except (OSError, ValueError):
            continue
        if len(samples) >= 3:
            sigmas.append(float(np.std(np.log(np.asarray(samples, dtype=float)))))
    return float(statistics.median(sigmas)) if sigmas else 0.0


@dataclass(frozen=True, slots=True)
class Overheads:
    """What a subgraph costs in a run beyond its profile alone, from single-model runs."""

    #: per subgraph: ready (arrival or predecessor's end) to start, ns
    gap_ns: tuple[int, ...]
    #: per subgraph: its span in the run less its profile alone, ns
    excess_ns: tuple[int, ...]

    @property
    def per_subgraph_us(self) -> float:
        """Mean gap + mean excess, µs: a throughput is set by means, and on a shared machine
        the tail (the runtime's thread descheduled for milliseconds) carries much of the
        overhead, which a median leaves out."""
        if not self.gap_ns:
            return 0.0
        return (statistics.fmean(self.gap_ns) + statistics.fmean(self.excess_ns)) / 1000.0


def dispatch_overheads(run: Path, profiles: Mapping[tuple[str, str, frozenset[int]], int],
                       ops_of: Callable[[str, int], frozenset[int]]) -> Overheads:
    """Gaps and excesses of every measured subgraph (warm-up requests left out) of a
    single-model run folder (``ops_of(model, subgraph index)`` -> the op set it ran;
    ``profiles`` by (model, processor, ops))."""
    sub = pd.read_parquet(run / "subgraphs.parquet")
    req = pd.read_parquet(run / "requests.parquet")
    req = req[~req["warmup"].astype(bool)][["baseline", "seed", "request_id", "arrival_ns"]]
    sub = sub[sub["ok"]].merge(req, on=["baseline", "seed", "request_id"])
    sub = sub.sort_values(["baseline", "seed", "request_id", "start_ns"])
    ready = sub.groupby(["baseline", "seed", "request_id"])["end_ns"].shift(1)
    ready = ready.fillna(sub["arrival_ns"]).astype("int64")
    gaps: list[int] = []
    excess: list[int] = []
    for row, was_ready in zip(sub.itertuples(index=False), ready, strict=True):
        ops = ops_of(str(row.model), int(row.subgraph))
        profile = profiles.get((str(row.model), str(row.processor), ops))
        if profile is None:
            continue
        gaps.append(int(row.start_ns) - int(was_ready))
        excess.append(int(row.end_ns) - int(row.start_ns) - profile)
    return Overheads(tuple(gaps), tuple(excess))
