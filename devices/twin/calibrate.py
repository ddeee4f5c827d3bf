"""Calibration: scale a processor's efficiencies to match one single-model measurement.

The twin is calibrated only from single-model data (paper Table II's one-model column,
public single-model CPU latencies, specs), never from the multi-model results it is later
checked against. For each processor with a ``calibration:`` entry (model, target_ms), the
*shape* of its efficiency table (conv : depthwise : fully connected : other, a prior from the
processor kind) is kept and all four are multiplied by one factor ``s``, found by bisection so
that the whole model, run alone as one subgraph at the top frequency, takes ``target_ms``.
Latency falls monotonically as ``s`` grows (compute terms shrink, memory terms and overheads
stay), so the factor is unique when the target lies above the memory-and-overhead floor.

Run ``python -m devices.twin.calibrate conf/device/k50pro.yaml ...`` to print, per processor,
the target, the twin's current latency, the factor and the calibrated efficiencies to write
back into the YAML (a factor of 1.000 means the YAML is calibrated).
"""

from __future__ import annotations

import dataclasses
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from devices.twin.config import TwinDeviceConf, register
from devices.twin.latency import OpTable
from devices.twin.spec import TwinDeviceSpec, TwinProcessorSpec, parse
from harness.config.compose import compose_file
from harness.models.zoo import PROFILE_DIR
from harness.seams.errors import UserError
from harness.seams.graph import ModelGraph, Op
from harness.seams.units import NS_PER_MS

PROFILES = PROFILE_DIR


@dataclass(frozen=True, slots=True)
class CalibrationRow:
    device: str
    processor: str
    model: str
    target_ms: float
    #: latency with the efficiencies currently in the YAML
    twin_ms: float
    #: factor that makes the twin match the target
    scale: float
    #: the efficiencies to write back (current x scale)
    efficiency: dict[str, float]


def load_conf(path: str | Path) -> TwinDeviceConf:
    """A twin's device YAML (``conf/device/<name>.yaml``), composed and typed."""
    register()
    conf = compose_file(path, TwinDeviceConf)
    if not isinstance(conf, TwinDeviceConf):
        raise UserError(f"{str(path)!r} is not a twin device config")
    return conf


def whole_model_ns(spec: TwinProcessorSpec, device: TwinDeviceSpec, graph: ModelGraph) -> float:
    """Latency of the whole model alone at the top frequency, as a single-model benchmark
    measures it: one interpreter (no copies between interpreters, no scheduler), with its
    delegate's floor and I/O copies."""
    cost = OpTable.of(spec, graph, device).subgraph(range(graph.num_ops), shared=True)
    return cost.latency_ns(1.0, spec.bandwidth_share * device.memory_bandwidth_gbps)


def scaled(spec: TwinProcessorSpec, factor: float) -> TwinProcessorSpec:
    eff = {k: v * factor for k, v in spec.efficiency.items()}
    return dataclasses.replace(spec, efficiency=eff)


def calibration_scale(
    spec: TwinProcessorSpec, device: TwinDeviceSpec, graph: ModelGraph, target_ns: float
) -> float:
    """The factor ``s`` with ``whole_model_ns(scaled(spec, s)) == target_ns`` (bisection)."""
    lo, hi = -30.0, 30.0  # log(s)
    if whole_model_ns(scaled(spec, math.exp(hi)), device, graph) > target_ns:
        raise UserError(f"calibration of {spec.name}: target {target_ns / NS_PER_MS:.3f} ms is "
                        "below the memory and overhead floor")
    for _ in range(200):
        mid = (lo + hi) / 2
        if whole_model_ns(scaled(spec, math.exp(mid)), device, graph) > target_ns:
            lo = mid
        else:
            hi = mid
    return math.exp(hi)


def int8_view(graph: ModelGraph) -> ModelGraph:
    """A stand-in for the 8-bit quantized model: float tensors become int8 (bytes / 4).
    Used only when the zoo has no quantized profile of the model."""
    tensors = tuple(
        dataclasses.replace(t, dtype="int8", nbytes=t.nbytes // 4, quantized=True)
        if t.dtype == "float32" else t for t in graph.tensors
    )
    ops = tuple(_int8_op(op) for op in graph.ops)
    return dataclasses.replace(graph, name=f"{graph.name}_int8", tensors=tensors, ops=ops)


def _int8_op(op: Op) -> Op:
    return dataclasses.replace(op, weight_bytes=op.weight_bytes // 4,
                               in_bytes=op.in_bytes // 4, out_bytes=op.out_bytes // 4)


def calibration_graph(model: str, int8: bool, profiles: Path = PROFILES) -> ModelGraph:
    """The model's graph profile (its quantized variant for int8 targets)."""
    if int8 and (profiles / f"{model}_int8.json").is_file():
        return ModelGraph.load(profiles / f"{model}_int8.json")
    graph = ModelGraph.load(profiles / f"{model}.json")
    return int8_view(graph) if int8 and not _is_int8(graph) else graph


def _is_int8(graph: ModelGraph) -> bool:
    return not any(t.dtype in ("float32", "float16") for t in graph.tensors if not t.is_const)


def calibrate(conf: TwinDeviceConf, profiles: Path = PROFILES) -> list[CalibrationRow]:
    """One row per processor that has a calibration target."""
    spec = parse(conf)
    rows = []
    for p in spec.processors:
        if p.calibration is None:
            continue
        graph = calibration_graph(p.calibration.model, p.calibration.int8, profiles)
        target_ns = p.calibration.target_ms * NS_PER_MS
        s = calibration_scale(p, spec.device, graph, target_ns)
        twin_ms = whole_model_ns(p, spec.device, graph) / NS_PER_MS
        eff = {k: v * s for k, v in p.efficiency.items()}
        rows.append(CalibrationRow(spec.name, p.name, graph.name, p.calibration.target_ms,
                                   twin_ms, s, eff))
    return rows


def format_row(r: CalibrationRow) -> str:
    eff = ", ".join(f"{k}: {v:.4g}" for k, v in r.efficiency.items())
    flag = "  (!) efficiency > 1: peak too low" if max(r.efficiency.values()) > 1 else ""
    return (f"{r.device:7s} {r.processor:4s} {r.model:16s} target {r.target_ms:8.2f} ms  "
            f"twin {r.twin_ms:8.2f} ms  scale {r.scale:.4f}  {{{eff}}}{flag}")


def main(argv: Sequence[str]) -> None:
    for path in argv:
        for row in calibrate(load_conf(path)):
            print(format_row(row))


if __name__ == "__main__":
    from harness.seams.errors import run_cli

    run_cli(lambda: main(sys.argv[1:]))
