"""Slices of real models, run in a chain, give exactly the whole model's outputs."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter, OpResolverType
from ai_edge_litert.tools import flatbuffer_utils

from devices.host.slicecache import SliceCache
from devices.host.slicing import ModelSlicer
from harness.models.tflite_io import read_tflite
from harness.seams.errors import UserError
from harness.seams.graph import ModelGraph
from tests.fixtures.tinymodels import TinyModel

RESOLVERS = [OpResolverType.AUTO, OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES]
MODELS = ["chain", "branchy", "mobile_block", "int8", "fp16", "fallback"]


def run(path: Path, feeds: Sequence[np.ndarray], resolver: OpResolverType) -> list[np.ndarray]:
    it = Interpreter(model_path=str(path), num_threads=1,
                     experimental_op_resolver_type=resolver)
    it.allocate_tensors()
    for detail, value in zip(it.get_input_details(), feeds, strict=True):
        it.set_tensor(detail["index"], value)
    it.invoke()
    return [it.get_tensor(d["index"]) for d in it.get_output_details()]


def model_input(path: Path) -> np.ndarray:
    detail = Interpreter(model_path=str(path)).get_input_details()[0]
    rng = np.random.default_rng(42)
    return rng.standard_normal(detail["shape"]).astype(detail["dtype"])


def run_chain(cache: SliceCache, path: Path, graph: ModelGraph,
              partition: Sequence[Sequence[int]], x: np.ndarray,
              resolver: OpResolverType) -> list[np.ndarray]:
    """Run the slices in order, feeding each from the values made so far."""
    values = {graph.inputs[0]: x}
    for ops in partition:
        piece = cache.slice(path, ops)
        if piece.path is None:
            continue
        outs = run(piece.path, [values[t] for t in piece.input_tensors], resolver)
        values.update(zip(piece.output_tensors, outs, strict=True))
    return [values[t] for t in graph.outputs]


def predecessors(graph: ModelGraph, op: int) -> set[int]:
    """Ops whose outputs ``op`` reads (computed here from the op lists alone)."""
    producer = {t: o.index for o in graph.ops for t in o.outputs}
    return {producer[t] for t in graph.ops[op].inputs if t in producer}


def ancestors_closure(graph: ModelGraph) -> list[int]:
    """The first op set 'an op and all its ancestors' that is not a contiguous range."""
    for k in range(graph.num_ops):
        closure, stack = {k}, [k]
        while stack:
            new = predecessors(graph, stack.pop()) - closure
            closure |= new
            stack.extend(new)
        if max(closure) - min(closure) + 1 != len(closure):
            return sorted(closure)
    return list(range(graph.num_ops // 2))


def partitions(graph: ModelGraph) -> dict[str, list[list[int]]]:
    n = graph.num_ops
    closure = ancestors_closure(graph)
    return {
        "each_op": [[i] for i in range(n)],
        "halves": [list(range(n // 2)), list(range(n // 2, n))],
        "whole": [list(range(n))],
        "closure_first": [closure, [i for i in range(n) if i not in closure]],
    }


@pytest.mark.parametrize("resolver", RESOLVERS, ids=["xnnpack", "builtin"])
@pytest.mark.parametrize("name", MODELS)
def test_slice_chains_equal_the_whole_model(
    tiny_models: dict[str, Path], tmp_path_factory: pytest.TempPathFactory, name: str,
    resolver: OpResolverType,
) -> None:
    path, cache = tiny_models[name], SliceCache(tmp_path_factory.mktemp("slices"))
    graph, x = read_tflite(path), model_input(path)
    whole = run(path, [x], resolver)
    assert any(float(np.abs(w.astype(np.float64)).max()) > 0 for w in whole)
    for label, partition in partitions(graph).items():
        got = run_chain(cache, path, graph, partition, x, resolver)
        for expected, actual in zip(whole, got, strict=True):
            assert expected.dtype == actual.dtype and np.array_equal(expected, actual), label


def test_branchy_non_contiguous_slices(tiny_models: dict[str, Path], tmp_path: Path) -> None:
    path = tiny_models["branchy"]
    graph, x = read_tflite(path), model_input(path)
    assert ancestors_closure(graph) == [0, 4]
    # both branches in one slice, without the add that joins the residual
    partition = [[0], [1, 2, 4, 5], [3, 6, 7, 8]]
    cache = SliceCache(tmp_path)
    middle = cache.slice(path, partition[1])
    assert middle.input_tensors == graph.ops[0].outputs
    assert middle.output_tensors == (graph.ops[2].outputs[0], graph.ops[5].outputs[0])
    for resolver in RESOLVERS:
        got = run_chain(cache, path, graph, partition, x, resolver)
        assert all(map(np.array_equal, run(path, [x], resolver), got))


def test_boundaries_use_the_original_numbering(tiny_models: dict[str, Path],
                                               tmp_path: Path) -> None:
    path = tiny_models["chain"]
    graph, cache = read_tflite(path), SliceCache(tmp_path)
    first, second = cache.slice(path, [0, 1, 2]), cache.slice(path, range(3, 8))
    assert first.input_tensors == graph.inputs
    assert first.output_tensors == second.input_tensors == graph.ops[2].outputs
    assert second.output_tensors == graph.outputs


def test_slices_keep_only_the_buffers_they_use(tiny_models: dict[str, Path]) -> None:
    for name in MODELS:
        slicer = ModelSlicer(tiny_models[name])
        graph = read_tflite(tiny_models[name])
        for op in range(graph.num_ops):
            data, plan = slicer.build([op])
            if data is None:
                continue
            model = flatbuffer_utils.convert_bytearray_to_object(bytearray(data))
            consts = {t for i in plan.included_ops for t in graph.ops[i].inputs
                      if t >= 0 and graph.tensors[t].is_const}
            sizes = [b.data.size for b in model.buffers if b.data is not None]
            assert sorted(sizes) == sorted(graph.tensors[t].nbytes for t in consts), (name, op)
            assert len(model.operatorCodes) == len({graph.ops[i].kind for i in plan.included_ops})


def test_constant_only_ops_are_copied_into_their_readers(tiny_models: dict[str, Path],
                                                         tmp_path: Path) -> None:
    path = tiny_models["fp16"]
    graph, cache = read_tflite(path), SliceCache(tmp_path)
    assert [op.kind for op in graph.ops] == ["DEQUANTIZE", "CONV_2D", "DEQUANTIZE", "CONV_2D"]
    conv = cache.slice(path, [1])
    assert conv.included_ops == (0, 1) and conv.input_tensors == graph.inputs
    alone = cache.slice(path, [0])
    assert alone.is_empty and alone.output_tensors == ()
    with pytest.raises(UserError, match="nothing to run"):
        cache.get(path, [0])


def test_cache_returns_the_same_file(tiny_models: dict[str, Path], tmp_path: Path) -> None:
    path = tiny_models["mobile_block"]
    first = SliceCache(tmp_path).get(path, [3, 1, 2])
    stamp, content = first.stat().st_mtime_ns, first.read_bytes()
    again = SliceCache(tmp_path).get(path, (1, 2, 3))
    assert again == first and again.stat().st_mtime_ns == stamp
    assert again.read_bytes() == content
    assert SliceCache(tmp_path).get(path, [1, 2]) != first


@pytest.mark.parametrize("op_set", [[], [99], [-1, 0]])
def test_bad_op_sets_are_user_errors(tiny_models: dict[str, Path], tmp_path: Path,
                                     op_set: list[int]) -> None:
    with pytest.raises(UserError, match=r"chain\.tflite"):
        SliceCache(tmp_path).get(tiny_models["chain"], op_set)


def test_missing_model_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match=r"absent\.tflite"):
        SliceCache(tmp_path).get(tmp_path / "absent.tflite", [0])


def test_a_model_that_does_not_allocate_is_a_user_error(tmp_path: Path) -> None:
    m = TinyModel("broken")
    m.output(m.conv2d(m.input((1, 4, 4, 3)), 4))
    m.tensors[m.operators[0].inputs[1]].shape = [4, 3, 3, 5]  # weights disagree with input
    path = m.write(tmp_path / "broken.tflite")
    with pytest.raises(UserError, match=r"broken\.tflite"):
        SliceCache(tmp_path / "cache").get(path, [0])
