"""Plans with alternative subgraphs for the native runner, made by the policies themselves.

A policy (ADMS's or Band's analyzer) plans tiny models for two processors, ``cpu0`` (every
op) and ``cpu1`` (a GPU by kind, refusing every third op from op 1), which gives units with
candidates on both and merged subgraphs: the plans of a real run. Every subgraph's ops are
cut into a slice (:class:`~devices.host.slicing.ModelSlicer`), and the plan file gives each
its ``units=`` (the runner's alternatives, ``runner/README.md``). The header
(``runner --policy``) is what :class:`~harness.replay.record.Recorder` writes once the policy
is prepared with a made-up profile (by op count).
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from devices.host.slicing import ModelSlicer
from harness.models.tflite_io import read_tflite
from harness.replay.record import Recorder
from harness.seams.plan import ModelPlan, Processor, ProcessorKind
from harness.seams.policy import Policy
from tests.runner.native import Layout, ints

PROCESSORS = (Processor("cpu0", ProcessorKind.CPU), Processor("cpu1", ProcessorKind.GPU))


@dataclass(frozen=True)
class Candidates:
    """A plan file with alternatives, its slices, and the policy's header."""

    layout: Layout
    header: dict[str, Any]
    plans: dict[str, ModelPlan]


def unsupported(path: Path) -> dict[str, frozenset[int]]:
    n = len(ModelSlicer(path).operators)
    return {"cpu0": frozenset(), "cpu1": frozenset(range(1, n, 3))}


def processor_lines(cores: Sequence[int]) -> list[str]:
    """One worker per processor, pinned to its own core (or both to the one core given)."""
    pins = [str(c) for c in cores] or [""]
    return [f"processor {p.name} accelerator=cpu threads=1 cores={pins[k % len(pins)]}"
            for k, p in enumerate(PROCESSORS)]


def subgraph_lines(root: Path, path: Path, plan: ModelPlan) -> list[str]:
    slicer = ModelSlicer(path)
    lines = []
    for sg in plan.subgraphs:
        data, cut = slicer.build(sorted(sg.ops))
        assert data is not None, f"{plan.model} subgraph {sg.index} is an empty slice"
        folder = root / "slices" / hashlib.sha256(data).hexdigest()[:16]
        folder.mkdir(parents=True, exist_ok=True)
        name = f"{plan.model}_{sg.index}.tflite"
        (folder / name).write_bytes(data)
        lines.append(f"subgraph {plan.model} {sg.index} processor={sg.processor} "
                     f"units={sg.first_unit}-{sg.last_unit} slice={folder.name}/{name} "
                     f"inputs={ints(cut.input_tensors)} outputs={ints(cut.output_tensors)}")
    return lines


def header_of(policy: Policy, baseline: str, plans: Mapping[str, ModelPlan],
              profile: Mapping[tuple[str, int], int]) -> dict[str, Any]:
    out = io.StringIO()
    out.close = lambda: None  # type: ignore[method-assign]  # (read after the recorder)
    Recorder(policy, out, baseline, PROCESSORS).write_header(plans, profile)
    head: dict[str, Any] = json.loads(out.getvalue())
    return head


def lay_out(root: Path, models: Mapping[str, Path], policy: Policy, baseline: str,
            cores: Sequence[int], slo_ns: Mapping[str, int] | None = None) -> Candidates:
    """``policy``'s plans of ``models`` as a plan file under ``root``, and its header."""
    plans = {m: policy.plan(read_tflite(p, m), PROCESSORS, unsupported(p))
             for m, p in models.items()}
    profile = {(m, sg.index): 150_000 + 40_000 * len(sg.ops)
               for m, plan in plans.items() for sg in plan.subgraphs}
    policy.prepare(plans, profile)
    lines = processor_lines(cores)
    for m, path in models.items():
        sub = ModelSlicer(path).model.subgraphs[0]
        slo = f" slo_ns={slo_ns[m]}" if slo_ns and m in slo_ns else ""
        lines.append(f"model {m} inputs={ints(sub.inputs)} outputs={ints(sub.outputs)}{slo}")
        lines += subgraph_lines(root, path, plans[m])
    (root / "plan.txt").write_text("\n".join(lines) + "\n")
    counts = {m: len(p.subgraphs) for m, p in plans.items()}
    layout = Layout(root / "plan.txt", root / "slices", counts)
    return Candidates(layout, header_of(policy, baseline, plans, profile), plans)
