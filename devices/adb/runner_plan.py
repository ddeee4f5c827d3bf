"""The native runner's input files, written from the harness's plans: the plan file and the
arrivals file (formats in ``runner/README.md``).

**Plan file.** One ``processor`` line per processor of the device config (its runner backend,
threads, pinned cores, kernels, the classic TFLite delegate), one ``model`` line per model
(the source model's input and output tensors, its SLO), one ``subgraph`` line per subgraph of
the plan (its processor, its slice's path relative to the deploy folder, the slice's inputs
and outputs in the source model's numbering). A plan whose subgraphs cover the model's units
once each, in order of their index, is a *chain* and is written as such; any other plan (a
subgraph per candidate range and processor: ADMS's partitions, Band's fallback subgraphs)
is written with ``units=`` on every subgraph, which makes them alternatives the policy picks
from.

**Arrivals file.** ``<offset_ns> <model> <stream>`` per request of open-loop traffic, in
arrival order; the runner numbers requests in that order, so request ``k`` of its logs is
the ``k``-th arrival.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from devices.adb.config import Accelerator, AdbProcessorConf, Delegate
from harness.seams.plan import ModelPlan, ProcessorKind, Subgraph
from harness.seams.records import Request

#: a processor kind's runner backend under ``accelerator: auto``
BY_KIND = {ProcessorKind.CPU: Accelerator.cpu, ProcessorKind.GPU: Accelerator.gpu,
           ProcessorKind.NPU: Accelerator.npu, ProcessorKind.DSP: Accelerator.tflite}
#: benchmark_model's delegate -> the runner's classic TFLite delegate
TFLITE_DELEGATES = {Delegate.cpu: "none", Delegate.xnnpack: "none", Delegate.gpu: "gpu",
                    Delegate.nnapi: "nnapi", Delegate.hexagon: "hexagon"}


@dataclass(frozen=True, slots=True)
class PlacedSlice:
    """A subgraph's slice on the phone: its path under the deploy folder and its boundary
    (tensors in the source model's numbering, in the slice's own input and output order)."""

    path: str
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]


def _ints(values: Iterable[int]) -> str:
    return ",".join(map(str, values))


def accelerator_of(proc: AdbProcessorConf) -> Accelerator:
    chosen = proc.adb.accelerator
    return BY_KIND.get(proc.kind, Accelerator.cpu) if chosen is Accelerator.auto else chosen


def processor_line(proc: AdbProcessorConf) -> str:
    block = proc.adb
    acc = accelerator_of(proc)
    words = [f"processor {proc.name}", f"accelerator={acc.value}", f"threads={block.threads}"]
    if block.cores:
        words.append(f"cores={_ints(block.cores)}")
    if acc is Accelerator.tflite:
        words.append(f"delegate={TFLITE_DELEGATES[block.delegate]}")
    else:
        words.append(f"kernel={block.kernel}")
    return " ".join(words)


def is_chain(plan: ModelPlan) -> bool:
    """Whether the plan's subgraphs, by index, cover its units once each, in order."""
    ordered = sorted(plan.subgraphs, key=lambda sg: sg.index)
    units = [u for sg in ordered for u in sg.units]
    return units == list(range(plan.num_units)) and \
        [sg.index for sg in ordered] == list(range(len(ordered)))


def subgraph_line(sg: Subgraph, piece: PlacedSlice, alternatives: bool) -> str:
    units = f" units={sg.first_unit}-{sg.last_unit}" if alternatives else ""
    return (f"subgraph {sg.model} {sg.index} processor={sg.processor}{units} "
            f"slice={piece.path} inputs={_ints(piece.inputs)} outputs={_ints(piece.outputs)}")


def model_line(model: str, boundary: tuple[Sequence[int], Sequence[int]], slo_ns: int) -> str:
    slo = f" slo_ns={slo_ns}" if slo_ns > 0 else ""
    return f"model {model} inputs={_ints(boundary[0])} outputs={_ints(boundary[1])}{slo}"


def plan_text(processors: Sequence[AdbProcessorConf], plans: Mapping[str, ModelPlan],
              boundaries: Mapping[str, tuple[Sequence[int], Sequence[int]]],
              slices: Mapping[tuple[str, int], PlacedSlice], slo_ns: Mapping[str, int]
              ) -> str:
    """The plan file of ``plans`` (``slices``: (model, subgraph index) -> its slice)."""
    lines = ["# written by devices/adb/runner_plan.py", *map(processor_line, processors)]
    for model, plan in plans.items():
        lines.append(model_line(model, boundaries[model], slo_ns.get(model, 0)))
        alternatives = not is_chain(plan)
        lines += [subgraph_line(sg, slices[(model, sg.index)], alternatives)
                  for sg in sorted(plan.subgraphs, key=lambda sg: sg.index)]
    return "\n".join(lines) + "\n"


def arrivals_text(arrivals: Sequence[Request]) -> str:
    """The arrivals file of open-loop requests (offsets from the run's start)."""
    return "".join(f"{r.arrival_ns} {r.model} {r.stream}\n" for r in arrivals)
