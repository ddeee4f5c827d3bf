"""Op support: which ops of a model each processor can run.

A processor follows one **rule set** (:class:`devices.processors.SupportRules`), the public rules of
the TFLite delegate that would drive it (``docs/reference/op-support.md``):

* ``all`` – a CPU: every op;
* ``gpu`` – the GPU delegate; ``nnapi`` – the NNAPI delegate at the processor's ``api_level``;
  ``hexagon`` – the Hexagon DSP delegate; ``xnnpack`` – the XNNPACK CPU delegate;
* ``listed`` – exactly the ops named in ``accept_ops`` (an emulated accelerator).

A rule set is a *global rule* (tensor ranks and dtypes the delegate takes at all) plus a
*table* from op kind to a per-op condition (:mod:`devices.opsupport.rules`); an op is supported
when both pass. A rule set also caps how many partitions vanilla TFLite delegates
(:data:`MAX_PARTITIONS`; the GPU delegate keeps only the largest one). Per processor,
``reject_ops`` then removes op kinds and ``accept_ops`` adds them back (reject wins).

Missing op options mean *unknown* and are permissive, so every table is an upper bound of what
the real delegate accepts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from devices.opsupport.rules import (
    FQ,
    GPU,
    HEXAGON,
    NNAPI,
    Q8,
    Check,
    F,
    OpView,
    Table,
    act,
    all_of,
    beta_one,
    const_at,
    in_rank,
    n_in,
    ok,
    opt_range,
    rank_le,
    rows,
    rt_types,
)
from devices.processors import ProcessorConf, SupportRules
from harness.seams.errors import UserError
from harness.seams.graph import ModelGraph
from harness.seams.records import DelegateLimits

#: Most partitions vanilla TFLite hands to each delegate (``None``: no cap).
MAX_PARTITIONS: Mapping[SupportRules, int | None] = {
    SupportRules.all: None,
    SupportRules.gpu: 1,  # max_delegated_partitions=1 by default
    SupportRules.nnapi: 3,
    SupportRules.hexagon: 4,
    SupportRules.xnnpack: None,
    SupportRules.listed: None,
}

#: Fewest ops a delegated partition may have (Hexagon: ``min_nodes_per_partition`` = 2).
MIN_PARTITION_OPS: Mapping[SupportRules, int] = {SupportRules.hexagon: 2}

LOGICAL_OUT = frozenset(
    ("EQUAL", "NOT_EQUAL", "LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL", "LOGICAL_AND",
     "LOGICAL_OR", "LOGICAL_NOT")
)


# -- global rules ---------------------------------------------------------------------------


def gpu_global(v: OpView) -> str | None:
    """Rank <= 4; runtime tensors float or q8, bool and int32 only where the GPU takes them."""
    return rank_le(4)(v) or _gpu_in_types(v) or _gpu_out_types(v)


def _gpu_in_types(v: OpView) -> str | None:
    kind = v.op.kind
    allowed = {"bool": kind in ("CAST", "SELECT", "SELECT_V2", "LOGICAL_AND"),
               "int32": kind in ("CAST", "ONE_HOT", "GATHER")}
    bad = [t.dtype for t in v.rt_ins if t.dtype not in _GPU_TYPES and not allowed.get(t.dtype)]
    return f"GPU takes no {bad[0]} runtime input here" if bad else None


def _gpu_out_types(v: OpView) -> str | None:
    kind = v.op.kind
    allowed = {"bool": kind in LOGICAL_OUT, "int32": kind == "CAST"}
    bad = [t.dtype for t in v.outs if t.dtype not in _GPU_TYPES and not allowed.get(t.dtype)]
    return f"GPU writes no {bad[0]} output here" if bad else None


_GPU_TYPES = ("float32", "float16", *Q8)


def nnapi_global(v: OpView) -> str | None:
    return f"NNAPI needs API 27, have {v.api_level}" if v.api_level < 27 else None


def hexagon_global(v: OpView) -> str | None:
    """8-bit quantized runtime tensors only (int32 for ARG_MAX/MIN outputs), rank <= 4."""
    int_out = v.op.kind in ("ARG_MAX", "ARG_MIN")
    bad = [t.dtype for t in v.rt_ins if t.dtype not in Q8]
    bad += [t.dtype for t in v.outs if t.dtype not in Q8 and not (int_out and t.dtype == "int32")]
    return rank_le(4)(v) or (f"Hexagon takes q8 only, not {bad[0]}" if bad else None)


xnnpack_global: Check = all_of(rank_le(6), act("NONE", "RELU", "RELU6", "RELU_N1_TO_1"))

# XNNPACK delegate (op-support.md section 4); rank <= 6 and the activation rule are global.

XNN_FQ = rt_types(*FQ)
XNNPACK: Table = rows(
    ("ABS CEIL COS EXP FLOOR GELU HARD_SWISH LOG NEG RELU RELU6 RELU_N1_TO_1 ROUND RSQRT "
     "SIN SQRT SQUARE DIV MAXIMUM MINIMUM SQUARED_DIFFERENCE", rt_types(*F)),
    ("ELU", rt_types(*F, "int8")),
    ("LOGISTIC TANH LEAKY_RELU QUANTIZE DEQUANTIZE", XNN_FQ),
    ("ADD SUB MUL", all_of(n_in(2), XNN_FQ)),
    ("PRELU", all_of(rt_types(*F), const_at(1))),
    ("CONV_2D DEPTHWISE_CONV_2D", all_of(in_rank(4, 4), XNN_FQ, const_at(1, 2), n_in(3))),
    ("TRANSPOSE_CONV", const_at(0, 1, 3)),
    ("FULLY_CONNECTED", all_of(lambda v: "sparse weights (v8)" if v.op.version == 8 else None,
                               const_at(1, 2))),
    ("BATCH_MATMUL", in_rank(2, 6)),
    ("AVERAGE_POOL_2D", rt_types(*F)),
    ("MAX_POOL_2D", XNN_FQ),
    ("CONCATENATION", n_in(2, 5)),
    ("SPLIT", const_at(0)),
    ("MEAN SUM REDUCE_MAX REDUCE_MIN", const_at(1)),
    ("PAD RESHAPE EXPAND_DIMS TRANSPOSE", const_at(1)),
    ("RESIZE_BILINEAR", all_of(in_rank(4, 4), const_at(1))),
    ("SLICE", const_at(1, 2)),
    ("STRIDED_SLICE", const_at(1, 2, 3)),
    ("SOFTMAX", all_of(rt_types(*F), beta_one)),
    ("DEPTH_TO_SPACE SPACE_TO_DEPTH", opt_range("block_size", 2)),
    ("CUSTOM:Convolution2DTransposeBias CUSTOM:MaxPoolingWithArgmax2D "
     "CUSTOM:MaxUnpooling2D", ok),
)



def _nnapi_table(api_level: int) -> Table:
    """The NNAPI table at one API level: ops below their minimum level drop out."""
    return {k: c for k, (lo, c) in NNAPI.items() if api_level >= lo}


@dataclass(frozen=True, slots=True)
class RuleSet:
    name: str
    table: Table | None  # None: every op
    global_rule: Check | None = None


RULE_SETS: Mapping[SupportRules, Callable[[int], RuleSet]] = {
    SupportRules.all: lambda _: RuleSet("all", None),
    SupportRules.gpu: lambda _: RuleSet("gpu", GPU, gpu_global),
    SupportRules.nnapi: lambda api: RuleSet(f"nnapi@{api}", _nnapi_table(api), nnapi_global),
    SupportRules.hexagon: lambda _: RuleSet("hexagon", HEXAGON, hexagon_global),
    SupportRules.xnnpack: lambda _: RuleSet("xnnpack", XNNPACK, xnnpack_global),
    SupportRules.listed: lambda _: RuleSet("listed", {}),
}


# -- public API -----------------------------------------------------------------------------


def rules_of(proc: ProcessorConf) -> SupportRules:
    """The processor's rule set, as the Enum (a plain string is accepted)."""
    try:
        return SupportRules(getattr(proc.support, "value", proc.support))
    except ValueError:
        known = ", ".join(r.value for r in SupportRules)
        raise UserError(
            f"processor {proc.name!r}: unknown op-support rule set {proc.support!r} "
            f"(known: {known})"
        ) from None


def explain(graph: ModelGraph, proc: ProcessorConf, op_index: int) -> str:
    """Why ``proc`` cannot run op ``op_index`` (``"supported"`` when it can)."""
    reason = _reason(graph, proc, op_index)
    op = graph.ops[op_index]
    if reason is None:
        return "supported"
    return f"op {op_index} {op.kind} on {proc.name} ({rules_of(proc).value}): {reason}"


def _reason(graph: ModelGraph, proc: ProcessorConf, op_index: int) -> str | None:
    kind = graph.ops[op_index].kind
    if kind in proc.reject_ops:
        return "listed in reject_ops"
    if kind in proc.accept_ops:
        return None
    rules = RULE_SETS[rules_of(proc)](proc.api_level)
    return _rule_reason(rules, OpView(graph, graph.ops[op_index], proc.api_level))


def _rule_reason(rules: RuleSet, v: OpView) -> str | None:
    if rules.table is None:
        return _custom_reason(v.op.kind)
    if rules.global_rule is not None and (reason := rules.global_rule(v)) is not None:
        return reason
    check = rules.table.get(v.op.kind)
    if check is None:
        return f"{v.op.kind} is not in the {rules.name} rule table"
    return check(v)


def _custom_reason(kind: str) -> str | None:
    """A CPU runs every builtin op, but a custom op only where a kernel for it exists: in
    LiteRT, the XNNPACK delegate's (which TFLite's CPU path applies by default)."""
    if kind.startswith("CUSTOM:") and kind not in XNNPACK:
        return f"{kind} is a custom op that no LiteRT kernel provides"
    return None


def unsupported_ops(graph: ModelGraph, proc: ProcessorConf) -> frozenset[int]:
    """Indices of the ops ``proc`` cannot run (rules, then ``reject_ops`` / ``accept_ops``)."""
    return frozenset(i for i in range(graph.num_ops) if _reason(graph, proc, i) is not None)


def support_table(
    graph: ModelGraph, processors: Sequence[ProcessorConf]
) -> dict[str, frozenset[int]]:
    """Processor name -> unsupported op indices; every op must run somewhere."""
    table = {p.name: unsupported_ops(graph, p) for p in processors}
    orphans = frozenset(range(graph.num_ops)).intersection(*table.values()) if table else None
    if orphans is None or orphans:
        _no_processor(graph, processors, min(orphans) if orphans else 0)
    return table


def _no_processor(graph: ModelGraph, processors: Sequence[ProcessorConf], op: int) -> None:
    names = ", ".join(p.name for p in processors) or "none"
    kind = graph.ops[op].kind if graph.ops else "-"
    raise UserError(
        f"model {graph.name!r}: op {op} ({kind}) is supported by no processor ({names}); "
        "add a processor with support: all"
    )


def max_partitions(proc: ProcessorConf) -> int | None:
    """How many delegate partitions vanilla TFLite keeps on ``proc`` (``None``: all)."""
    return MAX_PARTITIONS[rules_of(proc)]


def min_partition_ops(proc: ProcessorConf) -> int:
    return MIN_PARTITION_OPS.get(rules_of(proc), 1)


def delegate_limits(processors: Sequence[ProcessorConf]) -> dict[str, DelegateLimits]:
    """Processor name -> how vanilla TFLite's delegate for it partitions a model."""
    return {p.name: DelegateLimits(max_partitions(p), min_partition_ops(p)) for p in processors}


def fallback_processor(processors: Sequence[ProcessorConf]) -> str:
    """The processor that runs every op (``support: all``), where unsupported ops fall back;
    ``cpu`` when none does."""
    return next((p.name for p in processors if rules_of(p) is SupportRules.all), "cpu")


def supported_share(graph: ModelGraph, unsupported: frozenset[int]) -> float:
    """Fraction of the model's ops a processor supports."""
    return 1.0 - len(unsupported) / graph.num_ops if graph.num_ops else 1.0
