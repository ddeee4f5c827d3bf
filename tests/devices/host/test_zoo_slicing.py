"""Every zoo model, cut into the analyzer's unit subgraphs on the K50 Pro, runs in a chain of
slices that gives exactly the whole model's outputs (``-m zoo``; a missing model is written into
``.cache/zoo`` from its profile).

The partition is the one ADMS schedules: the units of ``analyze(..., window_size=1,
merge=False)`` at the K50 Pro's op support (``conf/device/k50pro.yaml``). One slice per unit is
cut with :class:`~devices.host.slicecache.SliceCache`; the slices run in unit order in LiteRT (one
thread), each fed from the outputs so far, the model input being one seeded random tensor.

Checked bit for bit (``np.array_equal``), float and int8 models alike, with the default resolver
(XNNPACK applied) and without delegates, the whole model and the slices always using the same
one:

* every model output of the chain against the whole model's;
* every boundary tensor (every slice output) against the same tensor of the whole model, read
  from a copy of it that also lists those tensors as model outputs ("taps"). With random
  weights the classifiers' softmax is flat (MobileNetV1/V2, EfficientNet-B0/B4, ICN_quant give
  1000 equal scores), so their model outputs alone would not show a wrong slice; their logits
  and feature maps at the cuts do.

Every model was exact under both resolvers when this test was written (no tolerance needed).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter, OpResolverType
from ai_edge_litert.tools import flatbuffer_utils

from adms.analyzer import analyze
from devices.host.slicecache import Slice, SliceCache
from devices.opsupport import support_table
from harness.models import zoo
from harness.models.tflite_io import load_model_object, read_tflite
from harness.seams.graph import ModelGraph
from harness.seams.plan import Processor
from tests.devices.host.test_slicing import RESOLVERS, run
from tests.fixtures.paths import REPO
from tests.fixtures.runs import compose_run

ROOT = REPO
CACHE = ROOT / zoo.DEFAULT_CACHE


def zoo_tflite(name: str) -> Path:
    """The model's ``.tflite`` in the zoo cache, written there from its profile if missing."""
    return zoo.ensure_built([name], CACHE)[name]


def k50pro_units(graph: ModelGraph) -> list[list[int]]:
    """The unit subgraphs of ``graph`` at the K50 Pro's op support, in unit order."""
    device = compose_run("device=k50pro").device
    processors = [Processor(p.name, p.kind) for p in device.processors]
    plan = analyze(graph, processors, support_table(graph, device.processors),
                   window_size=1, merge=False)
    return [sorted(unit) for unit in plan.units]


def random_input(path: Path, seed: int = 0) -> np.ndarray:
    """One seeded random input of the model's dtype and shape (full range for integers)."""
    (detail,) = Interpreter(model_path=str(path)).get_input_details()
    shape, dtype = detail["shape"], np.dtype(detail["dtype"])
    rng = np.random.default_rng(seed)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=dtype)
    return rng.standard_normal(shape).astype(dtype)


def write_tapped(path: Path, taps: list[int], out: Path) -> list[int]:
    """Write a copy of ``path`` whose outputs are its own followed by ``taps`` (source
    numbering, unchanged); return the copy's output tensors in order."""
    model = load_model_object(path)
    sub = model.subgraphs[0]
    outputs = [int(t) for t in sub.outputs]
    sub.outputs = outputs + [t for t in taps if t not in outputs]
    out.write_bytes(bytes(flatbuffer_utils.convert_object_to_bytearray(model)))
    return list(sub.outputs)


def chain_values(slices: list[Slice], inputs: dict[int, np.ndarray],
                 resolver: OpResolverType) -> dict[int, np.ndarray]:
    """Run the slices in order from the model inputs: tensor -> value of everything made."""
    values = dict(inputs)
    for piece in slices:
        if piece.path is None:
            continue
        outs = run(piece.path, [values[t] for t in piece.input_tensors], resolver)
        values.update(zip(piece.output_tensors, outs, strict=True))
    return values


@dataclass(frozen=True)
class ZooCase:
    name: str
    path: Path
    graph: ModelGraph
    x: np.ndarray
    slices: list[Slice]
    tapped: Path
    tapped_outputs: list[int]


@pytest.fixture(scope="module", params=zoo.names())
def case(request: pytest.FixtureRequest,
         tmp_path_factory: pytest.TempPathFactory) -> Iterator[ZooCase]:
    """One zoo model, its unit slices and its tapped copy (removed afterwards: they are as
    large as the model)."""
    name: str = request.param
    path = zoo_tflite(name)
    graph = read_tflite(path, name)
    work = tmp_path_factory.mktemp(f"zoo_{name}")
    cache = SliceCache(work / "slices")
    slices = [cache.slice(path, unit) for unit in k50pro_units(graph)]
    taps = sorted({t for piece in slices for t in piece.output_tensors})
    tapped = work / "tapped.tflite"
    tapped_outputs = write_tapped(path, taps, tapped)
    yield ZooCase(name, path, graph, random_input(path), slices, tapped, tapped_outputs)
    shutil.rmtree(work, ignore_errors=True)


@pytest.mark.zoo
@pytest.mark.parametrize("resolver", RESOLVERS, ids=["xnnpack", "builtin"])
def test_unit_slices_chain_to_the_whole_model(case: ZooCase, resolver: OpResolverType) -> None:
    graph, x = case.graph, case.x
    assert len(graph.inputs) == 1
    covered = sorted(op for piece in case.slices for op in piece.ops)
    assert covered == list(range(graph.num_ops)), "the units are not a partition of the ops"

    whole = run(case.path, [x], resolver)
    values = chain_values(case.slices, {graph.inputs[0]: x}, resolver)
    got = [values[t] for t in graph.outputs]
    assert len(got) == len(whole)
    for k, (expected, actual) in enumerate(zip(whole, got, strict=True)):
        assert expected.dtype == actual.dtype and expected.shape == actual.shape, k
        assert np.array_equal(expected, actual), (
            f"{case.name} output {k} (tensor {graph.outputs[k]}): max abs diff "
            f"{_max_diff(expected, actual)}")

    reference = dict(zip(case.tapped_outputs, run(case.tapped, [x], resolver), strict=True))
    differ = [
        (u, t, _max_diff(reference[t], values[t]))
        for u, piece in enumerate(case.slices) for t in piece.output_tensors
        if not np.array_equal(reference[t], values[t])
    ]
    assert not differ, f"{case.name}: (unit, tensor, max abs diff) that differ: {differ[:10]}"


def _max_diff(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a.astype(np.float64) - b.astype(np.float64)).max())
