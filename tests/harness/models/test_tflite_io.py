"""Reading real ``.tflite`` files into ModelGraphs, checked against the LiteRT interpreter."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from ai_edge_litert import schema_py_generated as schema
from ai_edge_litert.interpreter import Interpreter, OpResolverType
from ai_edge_litert.tools import flatbuffer_utils
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.models.tflite_io import read_tflite
from harness.seams.errors import UserError
from harness.seams.graph import ModelGraph
from tests.fixtures.tinymodels import TinyModel, chain_model


def _interpreter(path: Path) -> Interpreter:
    it = Interpreter(
        model_path=str(path),
        experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES,
    )
    it.allocate_tensors()
    return it


def test_every_tiny_model_matches_the_interpreter(tiny_models: dict[str, Path]) -> None:
    for name, path in tiny_models.items():
        g, it = read_tflite(path), _interpreter(path)
        assert [op.kind for op in g.ops] == [d["op_name"] for d in it._get_ops_details()], name
        assert list(g.inputs) == [d["index"] for d in it.get_input_details()]
        assert list(g.outputs) == [d["index"] for d in it.get_output_details()]
        shapes = {d["index"]: tuple(d["shape"]) for d in it.get_tensor_details()}
        assert all(shapes[t.index] == t.shape for t in g.tensors if t.index in shapes), name
        assert g.total_flops > 0 and g.parameter_count > 0


def test_chain_model_kinds_options_and_costs(tiny_models: dict[str, Path]) -> None:
    g = read_tflite(tiny_models["chain"])
    assert [op.kind for op in g.ops] == [
        "CONV_2D", "MAX_POOL_2D", "CONV_2D", "LOGISTIC", "AVERAGE_POOL_2D", "RESHAPE",
        "FULLY_CONNECTED", "SOFTMAX"]
    conv = g.ops[0]
    assert {k: conv.options[k] for k in ("stride_h", "stride_w", "dilation_h", "padding",
                                         "fused_activation", "filter_h", "filter_w",
                                         "in_dtype", "max_rank")} == {
        "stride_h": 1, "stride_w": 1, "dilation_h": 1, "padding": "SAME",
        "fused_activation": "RELU", "filter_h": 3, "filter_w": 3, "in_dtype": "float32",
        "max_rank": 4}
    assert conv.macs == 12 * 12 * 8 * 3 * 3 * 3
    assert conv.weight_bytes == (8 * 3 * 3 * 3 + 8) * 4
    assert conv.in_bytes == 12 * 12 * 3 * 4 and conv.out_bytes == 12 * 12 * 8 * 4
    assert g.ops[1].options["filter_h"] == 2 and g.ops[1].flops == 6 * 6 * 8 * 4
    assert g.ops[6].options["keep_num_dims"] is False
    assert g.ops[7].options["beta"] == 1.0


def test_int8_and_fp16_tensors(tiny_models: dict[str, Path]) -> None:
    g = read_tflite(tiny_models["int8"])
    assert g.ops[0].kind == "QUANTIZE" and g.is_quantized
    conv = g.ops[1]
    assert conv.options["in_dtype"] == "int8"
    assert [g.tensors[i].dtype for i in conv.inputs] == ["int8", "int8", "int32"]
    assert all(g.tensors[i].quantized for i in conv.inputs)
    fp16 = read_tflite(tiny_models["fp16"])
    dequant = fp16.ops[0]
    weights = fp16.tensors[dequant.inputs[0]]
    assert dequant.kind == "DEQUANTIZE" and dequant.options["in_dtype"] == ""
    assert weights.is_const and weights.dtype == "float16" and weights.nbytes == 8 * 27 * 2
    assert not fp16.tensors[dequant.outputs[0]].is_const


def test_json_round_trip(tiny_models: dict[str, Path], tmp_path: Path) -> None:
    for name, path in tiny_models.items():
        g = read_tflite(path)
        assert ModelGraph.from_dict(g.to_dict()).to_dict() == g.to_dict()
        assert ModelGraph.load(g.save(tmp_path / f"{name}.json")).to_dict() == g.to_dict()


def test_name_and_source_hash(tiny_models: dict[str, Path]) -> None:
    path = tiny_models["branchy"]
    assert read_tflite(path).name == "branchy"
    g = read_tflite(path, name="other")
    assert g.name == "other"
    assert g.source_sha256 == hashlib.sha256(path.read_bytes()).hexdigest()


def test_extended_builtin_codes_and_custom_ops(tmp_path: Path) -> None:
    model = chain_model().to_object()
    gelu, custom = model.operatorCodes[1], model.operatorCodes[2]  # MAX_POOL_2D, LOGISTIC
    gelu.builtinCode, gelu.deprecatedBuiltinCode = schema.BuiltinOperator.GELU, 127
    custom.builtinCode = custom.deprecatedBuiltinCode = schema.BuiltinOperator.CUSTOM
    custom.customCode, custom.version = "MyOp", 2
    path = tmp_path / "renamed.tflite"
    path.write_bytes(bytes(flatbuffer_utils.convert_object_to_bytearray(model)))
    kinds = [(op.kind, op.version) for op in read_tflite(path).ops]
    assert kinds[1:4] == [("GELU", 1), ("CONV_2D", 1), ("CUSTOM:MyOp", 2)]


def test_missing_file_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match=r"nope\.tflite"):
        read_tflite(tmp_path / "nope.tflite")


def test_non_tflite_file_is_a_user_error(tmp_path: Path) -> None:
    path = tmp_path / "notes.tflite"
    path.write_text("this is not a flatbuffer\n")
    with pytest.raises(UserError, match=r"notes\.tflite.*not a TFLite model"):
        read_tflite(path)


def test_truncated_tflite_is_a_user_error(tmp_path: Path) -> None:
    path = tmp_path / "cut.tflite"
    path.write_bytes(chain_model().to_bytes()[:64])
    with pytest.raises(UserError, match=r"cut\.tflite"):
        read_tflite(path)


@settings(max_examples=15, deadline=None)
@given(
    size=st.integers(3, 12), channels=st.integers(1, 6), depth=st.integers(1, 4),
    k=st.sampled_from([1, 3]), stride=st.sampled_from([1, 2]),
)
def test_random_conv_chains_match_the_interpreter(
    tmp_path_factory: pytest.TempPathFactory, size: int, channels: int, depth: int, k: int,
    stride: int,
) -> None:
    m = TinyModel("random")
    x = m.input((1, size, size, channels))
    for _ in range(depth):
        x = m.conv2d(x, channels + 1, k=k, stride=stride, act="RELU6")
    m.output(x)
    path = m.write(tmp_path_factory.mktemp("random") / "m.tflite")
    g, it = read_tflite(path), _interpreter(path)
    out = g.tensors[g.outputs[0]]
    assert out.shape == tuple(it.get_output_details()[0]["shape"])
    assert g.num_ops == depth
    in_channels = channels + 1 if depth > 1 else channels
    assert g.ops[-1].macs == out.shape[1] * out.shape[2] * (channels + 1) * k * k * in_channels
