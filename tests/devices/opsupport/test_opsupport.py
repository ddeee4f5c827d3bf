"""Op-support rules: spot checks against docs/reference/op-support.md, overrides and errors."""

from __future__ import annotations

import pytest

from devices.opsupport import SupportRules, explain, max_partitions, support_table, unsupported_ops
from devices.processors import ProcessorConf
from harness.seams.errors import UserError
from harness.seams.graph import ModelGraph
from harness.seams.plan import ProcessorKind
from tests.fixtures.graphs import SHAPE, chain, single_op

Q_SHAPE = ((SHAPE, "uint8", False),)
Q_OUT = ((SHAPE, "uint8"),)


def proc(rules: str, name: str = "p", api_level: int = 31, **kw: list[str]) -> ProcessorConf:
    kind = ProcessorKind.CPU if rules in ("all", "xnnpack") else ProcessorKind.GPU
    return ProcessorConf(name=name, kind=kind, support=SupportRules(rules), api_level=api_level,
                         **kw)


def runs(graph: ModelGraph, p: ProcessorConf) -> bool:
    return not unsupported_ops(graph, p)


def test_gpu_rejects_rank5_tensors() -> None:
    five = (1, 2, 8, 8, 4)
    assert runs(single_op("ADD", [(SHAPE, "float32", False)] * 2), proc("gpu"))
    g = single_op("ADD", [(five, "float32", False)] * 2, [(five, "float32")])
    assert not runs(g, proc("gpu"))
    assert "rank 5" in explain(g, proc("gpu"), 0)


def test_gpu_depthwise_multiplier_above_one_needs_a_single_input_channel() -> None:
    ins = [(SHAPE, "float32", False), ((1, 3, 3, 8), "float32", True)]
    assert runs(single_op("DEPTHWISE_CONV_2D", ins, options={"depth_multiplier": 1}), proc("gpu"))
    dw2 = single_op("DEPTHWISE_CONV_2D", ins, options={"depth_multiplier": 2})
    assert not runs(dw2, proc("gpu"))
    assert "depth_multiplier 2" in explain(dw2, proc("gpu"), 0)
    one_channel = [((1, 8, 8, 1), "float32", False), ((1, 3, 3, 2), "float32", True)]
    assert runs(single_op("DEPTHWISE_CONV_2D", one_channel, options={"depth_multiplier": 2}),
                proc("gpu"))


def test_gpu_int32_runtime_tensors_only_for_cast_gather() -> None:
    ints = [(SHAPE, "int32", False)]
    assert not runs(single_op("ADD", ints * 2, [(SHAPE, "int32")]), proc("gpu"))
    assert runs(single_op("CAST", ints, [(SHAPE, "float32")]), proc("gpu"))


def test_gpu_missing_options_are_permissive_but_recorded_ones_count() -> None:
    assert runs(single_op("SOFTMAX"), proc("gpu"))
    assert not runs(single_op("SOFTMAX", options={"beta": 2.0}), proc("gpu"))
    assert not runs(single_op("CONV_2D", options={"fused_activation": "SIGN_BIT"}), proc("gpu"))
    add_v3 = single_op("ADD", [(SHAPE, "float32", False)] * 2, version=3)
    assert "version 3 > 2" in explain(add_v3, proc("gpu"), 0)


def test_hexagon_takes_quantized_ops_only() -> None:
    assert not runs(single_op("ADD"), proc("hexagon"))
    assert "q8" in explain(single_op("ADD"), proc("hexagon"), 0)
    assert runs(single_op("ADD", Q_SHAPE, Q_OUT), proc("hexagon"))
    assert not runs(single_op("SUM", Q_SHAPE, Q_OUT), proc("hexagon"))


def test_nnapi_resize_nearest_neighbor_needs_api_29() -> None:
    g = single_op("RESIZE_NEAREST_NEIGHBOR", [(SHAPE, "float32", False), ((2,), "int32", True)])
    assert not runs(g, proc("nnapi", api_level=27))
    assert "not in the nnapi@27 rule table" in explain(g, proc("nnapi", api_level=27), 0)
    assert runs(g, proc("nnapi", api_level=29))


def test_nnapi_below_27_runs_nothing() -> None:
    assert not runs(single_op("ADD"), proc("nnapi", api_level=26))
    assert runs(single_op("ADD"), proc("nnapi", api_level=27))


def test_xnnpack_rejects_float_only_ops_on_int8() -> None:
    assert runs(single_op("SQRT"), proc("xnnpack"))
    assert not runs(single_op("SQRT", [(SHAPE, "int8", False)], [(SHAPE, "int8")]),
                    proc("xnnpack"))


@pytest.mark.parametrize("kind", ["CONV_2D", "CUSTOM:Convolution2DTransposeBias", "GATHER_ND",
                                  "WHILE"])
def test_cpu_supports_everything(kind: str) -> None:
    g = single_op(kind, [((1, 2, 3, 4, 5, 6, 7), "int64", False)])
    assert runs(g, proc("all"))
    assert explain(g, proc("all"), 0) == "supported"


def test_a_custom_op_no_litert_kernel_provides_runs_nowhere() -> None:
    g = single_op("CUSTOM:Landmarks2TransformMatrix")
    assert not any(runs(g, proc(rules)) for rules in ("all", "gpu", "xnnpack"))
    assert "no LiteRT kernel" in explain(g, proc("all"), 0)


def test_reject_ops_and_accept_ops_override_the_rules() -> None:
    g = chain(["CONV_2D", "ARG_MAX", "RELU"])
    assert unsupported_ops(g, proc("gpu")) == {1}
    assert unsupported_ops(g, proc("gpu", accept_ops=["ARG_MAX"])) == set()
    assert unsupported_ops(g, proc("gpu", reject_ops=["RELU"])) == {1, 2}
    assert unsupported_ops(g, proc("all", reject_ops=["RELU"])) == {2}
    both = proc("gpu", accept_ops=["RELU"], reject_ops=["RELU"])
    assert unsupported_ops(g, both) == {1, 2}
    assert explain(g, both, 2).endswith("listed in reject_ops")


def test_listed_rules_run_exactly_the_accepted_ops() -> None:
    g = chain(["CONV_2D", "ARG_MAX", "RELU"])
    assert unsupported_ops(g, proc("listed", accept_ops=["CONV_2D", "RELU"])) == {1}
    assert unsupported_ops(g, proc("listed")) == {0, 1, 2}


def test_support_table_names_every_processor() -> None:
    g = chain(["CONV_2D", "ARG_MAX"])
    table = support_table(g, [proc("all", "cpu"), proc("gpu", "gpu")])
    assert table == {"cpu": frozenset(), "gpu": frozenset({1})}


def test_op_no_processor_supports_is_a_user_error() -> None:
    g = chain(["CONV_2D", "ARG_MAX"])
    with pytest.raises(UserError, match=r"op 1 \(ARG_MAX\) is supported by no processor "
                                        r"\(gpu, npu\)"):
        support_table(g, [proc("gpu", "gpu"), proc("nnapi", "npu", api_level=27)])


def test_unknown_rule_set_is_a_user_error() -> None:
    bad = ProcessorConf(name="tpu", kind=ProcessorKind.NPU, support="edgetpu")  # type: ignore[arg-type]
    with pytest.raises(UserError, match=r"tpu.*unknown op-support rule set 'edgetpu'"):
        unsupported_ops(chain(["ADD"]), bad)


def test_partition_caps_follow_the_delegates() -> None:
    caps = {r: max_partitions(proc(r)) for r in ("gpu", "nnapi", "hexagon", "xnnpack")}
    assert caps == {"gpu": 1, "nnapi": 3, "hexagon": 4, "xnnpack": None}
