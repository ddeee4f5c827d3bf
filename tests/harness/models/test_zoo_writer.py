"""Zoo models written from their committed profiles (no TensorFlow): the file has the profile's
ops and tensors and runs on LiteRT with and without XNNPACK.

The default run writes and runs :data:`DEFAULT`, the small models that between them have 19
of the zoo's 25 op kinds (two of the FRS scenario's models, the int8 one, DeepLabV3 with its
atrous SPACE_TO_BATCH_ND/BATCH_TO_SPACE_ND chains, the hand-landmark regressor); ``-m slow``
covers every zoo model, and with it AVERAGE_POOL_2D, PRELU, PAD, SUB, EXP and SPLIT_V (the
largest models write 170-250 MB of weights each and take seconds on the reference kernels).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter, OpResolverType
from ai_edge_litert.schema_py_generated import BuiltinOperator

from harness.models import zoo
from harness.models.tflite_io import load_model_object, read_tflite
from harness.models.zoo.recipe import Recipe, recipe_of
from harness.seams.errors import UserError
from harness.seams.graph import ModelGraph

DEFAULT = ["retinaface", "arcface_mobilenet", "icn_quant", "deeplabv3", "hand_landmark"]
RESOLVERS = [OpResolverType.AUTO, OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES]
MODELS = [pytest.param(n, marks=() if n in DEFAULT else pytest.mark.slow) for n in zoo.names()]


def tensor_rows(graph: ModelGraph) -> list[tuple[object, ...]]:
    return [(t.name, t.shape, t.dtype, t.nbytes, t.is_const, t.quantized) for t in graph.tensors]


def op_rows(graph: ModelGraph) -> list[tuple[object, ...]]:
    return [(op.kind, op.version, op.inputs, op.outputs, dict(op.options)) for op in graph.ops]


def invoke(path: Path, resolver: OpResolverType) -> list[np.ndarray]:
    it = Interpreter(model_path=str(path), num_threads=1, experimental_op_resolver_type=resolver)
    it.allocate_tensors()
    rng = np.random.default_rng(1)
    for detail in it.get_input_details():
        info = np.iinfo(detail["dtype"]) if detail["dtype"] == np.int8 else None
        x = (rng.integers(info.min, info.max + 1, detail["shape"]) if info
             else rng.uniform(0.0, 1.0, detail["shape"]))
        it.set_tensor(detail["index"], x.astype(detail["dtype"]))
    it.invoke()
    return [it.get_tensor(d["index"]) for d in it.get_output_details()]


@pytest.mark.parametrize("name", MODELS)
def test_written_model_is_its_profile_and_runs(name: str, tmp_path: Path) -> None:
    path = zoo.build(name, tmp_path)
    profile, written = zoo.load_graph(name), read_tflite(path, name)
    assert op_rows(written) == op_rows(profile)
    assert tensor_rows(written) == tensor_rows(profile)
    assert (written.inputs, written.outputs) == (profile.inputs, profile.outputs)
    assert [op.macs for op in written.ops] == [op.macs for op in profile.ops]
    assert recipe_of(load_model_object(path)).options == zoo.load_recipe(name).options
    for resolver in RESOLVERS:
        outputs = invoke(path, resolver)
        assert len(outputs) == len(profile.outputs)
        assert all(np.isfinite(o).all() for o in outputs if o.dtype.kind == "f"), resolver


@pytest.mark.parametrize("name", zoo.names())
def test_every_committed_profile_has_a_recipe(name: str) -> None:
    recipe, graph = zoo.load_recipe(name), zoo.load_graph(name)
    assert len(recipe.options) == graph.num_ops
    quantized = {t.index for t in graph.tensors if t.quantized}
    assert set(recipe.quantization) == quantized
    ints = {t.index for t in graph.tensors
            if t.is_const and not t.quantized and t.dtype.startswith("int")}
    assert set(recipe.values) == ints


def test_recipe_round_trips_through_json() -> None:
    recipe = zoo.load_recipe("icn_quant")
    again = Recipe.from_dict(json.loads(json.dumps(recipe.to_dict())))
    assert again == recipe
    assert any(len(row) == 3 for row in recipe.to_dict()["quantization"])  # constants
    assert any(len(row) == 4 for row in recipe.to_dict()["quantization"])  # activations


def test_the_seed_decides_the_weights_not_the_graph(tmp_path: Path) -> None:
    a = zoo.build("arcface_mobilenet", tmp_path / "a", seed=0).read_bytes()
    b = zoo.build("arcface_mobilenet", tmp_path / "b", seed=0).read_bytes()
    c = zoo.build("arcface_mobilenet", tmp_path / "c", seed=1)
    assert a == b and c.read_bytes() != a
    assert op_rows(read_tflite(c)) == op_rows(zoo.load_graph("arcface_mobilenet"))


def test_int8_biases_have_the_scale_tflite_requires(tmp_path: Path) -> None:
    model = load_model_object(zoo.build("icn_quant", tmp_path))
    sub = model.subgraphs[0]
    biased = {i for i, code in enumerate(model.operatorCodes)
              if code.builtinCode in (BuiltinOperator.CONV_2D, BuiltinOperator.DEPTHWISE_CONV_2D,
                                      BuiltinOperator.FULLY_CONNECTED)}
    convs = [op for op in sub.operators if op.opcodeIndex in biased and min(op.inputs) >= 0]
    assert len(convs) > 50
    for op in convs:
        x, w, b = (sub.tensors[i].quantization for i in op.inputs)
        expected = x.scale[0] * np.asarray(w.scale)
        assert np.allclose(np.asarray(b.scale), expected, rtol=1e-6)
        assert all(z == 0 for z in b.zeroPoint)


def test_ensure_built_writes_only_what_is_missing(tmp_path: Path) -> None:
    first = zoo.ensure_built(["arcface_mobilenet"], tmp_path)
    stamp = first["arcface_mobilenet"].stat().st_mtime_ns
    again = zoo.ensure_built(["arcface_mobilenet", "icn_quant"], tmp_path)
    assert again["arcface_mobilenet"].stat().st_mtime_ns == stamp
    assert again["icn_quant"].is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["arcface_mobilenet.tflite",
                                                         "icn_quant.tflite"]


def test_host_models_are_written_on_first_use(tmp_path: Path) -> None:
    from harness.experiment.models import load_models

    models = load_models("frs", ["arcface_mobilenet"], True, tmp_path)
    assert models.paths["arcface_mobilenet"] == tmp_path / "arcface_mobilenet.tflite"
    graph = models.graphs["arcface_mobilenet"]
    assert op_rows(graph) == op_rows(zoo.load_graph("arcface_mobilenet"))


def test_cli_build_needs_no_tensorflow(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    from harness.models.zoo.__main__ import main

    monkeypatch.setitem(sys.modules, "tensorflow", None)
    main(["build", "arcface_mobilenet", "--cache", str(tmp_path)])
    assert (tmp_path / "arcface_mobilenet.tflite").is_file()
    assert "built arcface_mobilenet" in capsys.readouterr().out


def test_profile_without_recipe_names_the_keras_rebuild(monkeypatch: pytest.MonkeyPatch,
                                                        tmp_path: Path) -> None:
    bare = tmp_path / "mobilenet_v1.json"
    zoo.load_graph("mobilenet_v1").save(bare)
    monkeypatch.setattr(zoo, "PROFILE_DIR", tmp_path)
    with pytest.raises(UserError, match="build --keras mobilenet_v1"):
        zoo.build("mobilenet_v1", tmp_path)
