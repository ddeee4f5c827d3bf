"""Slices against the whole model on one processor, for zoo models over 5 ms (goal: < 10%
extra). Real LiteRT, XNNPACK, one thread; interpreters built once, only ``invoke`` plus the
tensor copies between slices are timed. Needs the zoo's ``.tflite`` files (``make zoo``)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter

from devices.host.slicecache import SliceCache
from harness.models.tflite_io import read_tflite
from tests.fixtures.paths import REPO

ZOO = REPO / ".cache" / "zoo"
#: zoo models that take more than 5 ms on one XNNPACK thread here (FINDINGS: 6.9-75 ms)
MODELS = ["efficientnet_b0", "arcface_resnet50", "inception_v4"]
PIECES = [1, 2, 4, 8]

pytestmark = [pytest.mark.benchmark, pytest.mark.zoo]


def interpreter(path: Path) -> Interpreter:
    it = Interpreter(model_path=str(path), num_threads=1)
    it.allocate_tensors()
    return it


def chain(model: Path, pieces: int, cache: SliceCache) -> Callable[[], np.ndarray]:
    """A callable running ``pieces`` contiguous slices in order, copying boundary tensors."""
    graph = read_tflite(model)
    bounds = np.linspace(0, graph.num_ops, pieces + 1).astype(int)
    slices = [cache.slice(model, range(a, b)) for a, b in itertools.pairwise(bounds)]
    runners = [(s, interpreter(s.path)) for s in slices if s.path is not None]
    x = np.random.default_rng(0).standard_normal(
        runners[0][1].get_input_details()[0]["shape"]).astype(np.float32)

    def run() -> np.ndarray:
        values = {graph.inputs[0]: x}
        for piece, it in runners:
            for detail, t in zip(it.get_input_details(), piece.input_tensors, strict=True):
                it.set_tensor(detail["index"], values[t])
            it.invoke()
            for detail, t in zip(it.get_output_details(), piece.output_tensors, strict=True):
                values[t] = it.get_tensor(detail["index"])
        return values[graph.outputs[0]]

    return run


@pytest.mark.parametrize("pieces", PIECES)
@pytest.mark.parametrize("model", MODELS)
def test_slices_versus_whole(benchmark: Any, model: str, pieces: int, tmp_path: Path) -> None:
    path = ZOO / f"{model}.tflite"
    if not path.exists():
        pytest.skip(f"{path} missing: python -m harness.zoo build {model}")
    run = chain(path, pieces, SliceCache(tmp_path))
    benchmark.group = model
    out = benchmark.pedantic(run, rounds=15, warmup_rounds=3)
    assert np.isfinite(out).all()
