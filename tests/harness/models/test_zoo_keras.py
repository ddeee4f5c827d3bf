"""The Keras rebuild and the file written from the profile are the same model to LiteRT
(``-m zoo``: needs the ``zoo`` extra; every model is built with Keras, ~30 s to minutes each).

Same op sequence (kinds, versions, tensors, options) and tensor shapes and dtypes (names differ:
Keras numbers layers by build order), and the same latency on LiteRT (XNNPACK, one thread)
within noise: the medians of interleaved runs are within a factor :data:`LATENCY_RATIO`.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter

from harness.models import zoo
from harness.models.tflite_io import read_tflite
from harness.seams.graph import ModelGraph

pytestmark = pytest.mark.zoo

#: generous: the machine is shared, and the weights differ (the same work on other numbers)
LATENCY_RATIO = 1.5
RUNS = 15


def structure(graph: ModelGraph) -> tuple[object, ...]:
    ops = [(op.kind, op.version, op.inputs, op.outputs, dict(op.options)) for op in graph.ops]
    tensors = [(t.shape, t.dtype, t.nbytes, t.is_const, t.quantized) for t in graph.tensors]
    return ops, tensors, graph.inputs, graph.outputs


def interpreter(path: Path) -> Interpreter:
    it = Interpreter(model_path=str(path), num_threads=1)
    it.allocate_tensors()
    for detail in it.get_input_details():
        x = np.random.default_rng(0).uniform(-1, 1, detail["shape"])
        if detail["dtype"] == np.int8:
            x = 100 * x
        it.set_tensor(detail["index"], x.astype(detail["dtype"]))
    it.invoke()  # warm-up
    return it


def interleaved_medians(a: Interpreter, b: Interpreter) -> tuple[float, float]:
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(RUNS):
        for it, out in ((a, times[0]), (b, times[1])):
            start = time.perf_counter()
            it.invoke()
            out.append(time.perf_counter() - start)
    return float(np.median(times[0])), float(np.median(times[1]))


@pytest.mark.filterwarnings("ignore:Statistics for quantized inputs:UserWarning")  # icn_quant
@pytest.mark.parametrize("name", zoo.names())
def test_profile_written_model_is_the_keras_model(name: str, tmp_path: Path) -> None:
    pytest.importorskip("tensorflow")
    keras = zoo.build_keras(name, tmp_path / "keras")
    written = zoo.build(name, tmp_path / "written")
    assert structure(read_tflite(written)) == structure(read_tflite(keras))
    keras_s, written_s = interleaved_medians(interpreter(keras), interpreter(written))
    assert 1 / LATENCY_RATIO <= written_s / keras_s <= LATENCY_RATIO, (written_s, keras_s)
