"""``benchmark_model``'s output, read across its versions (:mod:`devices.adb.tflite_output`).

The samples below are the formats the real tool prints (FINDINGS.md; published runs of the
stock binary): the modern one with ``INFO:`` prefixes and percentiles, an older one without
prefixes whose memory line says "Peak memory footprint", the oldest "Average inference
timings" line, scientific notation, the "(all same)" statistics, glog headers, delegate lines,
an op profile, and outputs cut short.
"""

# ruff: noqa: E501 - the samples are the tool's lines verbatim
from __future__ import annotations

import math

import pytest

from devices.adb.tflite_output import parse_benchmark_output, parse_stats, strip_prefix

MODERN = """INFO: STARTING!
INFO: Log parameter values verbosely: [0]
INFO: Num threads: [4]
INFO: Graph: [/data/local/tmp/ssd_mobilenet_v2_coco.tflite]
INFO: Use gpu: [1]
INFO: Loaded model /data/local/tmp/ssd_mobilenet_v2_coco.tflite
INFO: Created TensorFlow Lite delegate for GPU.
INFO: Initialized OpenCL-based API.
INFO: Created 1 GPU delegate kernels.
INFO: Replacing 63 out of 66 node(s) with delegate (TfLiteGpuDelegateV2) node, yielding 2 partitions for the whole graph.
INFO: Explicitly applied GPU delegate, and the model graph will be partially executed by the delegate w/ 2 delegate kernels.
INFO: The input model file size (MB): 67.3128
INFO: Initialized session in 614.333ms.
INFO: Running benchmark for at least 1 iterations and at least 0.5 seconds but terminate if exceeding 150 seconds.
INFO: count=1 curr=905463 p5=905463 median=905463 p95=905463
INFO: Running benchmark for at least 50 iterations and at least 1 seconds but terminate if exceeding 150 seconds.
INFO: count=50 first=900416 curr=898333 min=898007 max=906121 avg=899641 std=1549 p5=898333 median=899281 p95=904305
INFO: Inference timings in us: Init: 614333, First inference: 905463, Warmup (avg): 905463, Inference (avg): 899641
INFO: Note: as the benchmark tool itself affects memory footprint, the following is only APPROXIMATE to the actual memory footprint of the model at runtime. Take the information at your discretion.
INFO: Memory footprint delta from the start of the tool (MB): init=133.086 overall=149.531
INFO: Overall peak memory footprint (MB) via periodic monitoring: 155.402
"""

OLDER = """STARTING!
Num threads: [4]
Graph: [mobilenet.tflite]
XNNPACK delegate created.
Explicitly applied XNNPACK delegate, and the model graph will be partially executed by the delegate w/ 22 delegate kernels.
The input model file size (MB): 0.541472
Initialized session in 18.738ms.
Running benchmark for at least 1 iterations and at least 0.5 seconds but terminate if exceeding 180 seconds.
count=6 first=140706 curr=74599 min=74599 max=140706 avg=85791.2 std=24559

Running benchmark for at least 50 iterations and at least 1 seconds but terminate if exceeding 180 seconds.
count=50 first=74456 curr=74516 min=73909 max=75323 avg=74481.6 std=268

Inference timings in us: Init: 18738, First inference: 140706, Warmup (avg): 85791.2, Inference (avg): 74481.6
Peak memory footprint (MB): init=6.44141 overall=64.8633
"""

OLDEST = """Initialized TensorFlow Lite runtime.
count=5 first=44478 curr=44010 min=43900 max=44478 avg=44100 std=210
count=50 first=43020 curr=43100 min=42800 max=43900 avg=43018.8 std=190
Average inference timings in us: Warmup: 44478, Init: 1734, no stats: 43018.8
"""

SCIENTIFIC = """Explicitly applied NNAPI delegate, and the model graph will be completely executed by the delegate.
Inference timings in us: Init: 30724, First inference: 1.26753e+07, Warmup (avg): 1.00135e+07, Inference (avg): 8413.35
"""

GLOG = """2018-09-10 12:36:15.624324: I tensorflow/lite/tools/benchmark/benchmark_model.cc:469] count=50 curr=1234(all same)
2018-09-10 12:36:15.624416: I tensorflow/lite/tools/benchmark/benchmark_model.cc:470] Inference timings in us: Init: 10, First inference: 1300, Warmup (avg): 1300, Inference (avg): 1234
"""

OP_PROFILE = MODERN + """INFO: Operator-wise Profiling Info for Regular Benchmark Runs:
============================== Run Order ==============================
\t             [node type]\t  [first]\t [avg ms]\t     [%]\t  [cdf%]\t  [mem KB]\t[times called]\t[Name]
\t     TfLiteGpuDelegateV2\t    3.826\t    4.011\t 62.037%\t 62.037%\t     0.000\t        1\t[TfLiteGpuDelegateV2]:66
\t                 RESHAPE\t    0.016\t    0.015\t  0.232%\t 62.269%\t     0.000\t        1\t[MobilenetV2/Logits/Reshape]

============================== Top by Computation Time ==============================
\t     TfLiteGpuDelegateV2\t    3.826\t    4.011\t 62.037%\t 62.037%\t     0.000\t        1\t[TfLiteGpuDelegateV2]:66
"""

NOT_DELEGATED = """INFO: Though NNAPI delegate is explicitly applied, the model graph will not be executed by the delegate.
"""

FAILED = """INFO: STARTING!
ERROR: Could not open '/data/local/tmp/missing.tflite'.
ERROR: Failed to mmap model /data/local/tmp/missing.tflite
ERROR: Benchmarking failed.
"""


def test_the_modern_format_gives_every_figure() -> None:
    r = parse_benchmark_output(MODERN)
    assert r.complete
    assert (r.init_us, r.first_us, r.warmup_avg_us, r.avg_us) == (614333, 905463, 905463, 899641)
    assert r.warmup is not None and r.warmup.count == 1 and r.warmup.avg_us == 905463
    assert r.regular is not None
    assert (r.regular.count, r.regular.min_us, r.regular.max_us, r.regular.std_us) == (
        50, 898007, 906121, 1549)
    assert (r.regular.p5_us, r.regular.median_us, r.regular.p95_us) == (898333, 899281, 904305)
    assert (r.init_memory_mb, r.overall_memory_mb, r.peak_memory_mb) == (133.086, 149.531,
                                                                         155.402)
    assert (r.delegate, r.delegated_nodes, r.total_nodes, r.partitions, r.coverage) == (
        "TfLiteGpuDelegateV2", 63, 66, 2, "partial")
    assert r.errors == []


def test_an_older_format_without_prefixes_or_percentiles() -> None:
    r = parse_benchmark_output(OLDER)
    assert r.complete and r.avg_us == 74481.6
    assert r.regular is not None and r.regular.p5_us is None and r.regular.avg_us == 74481.6
    assert r.warmup is not None and r.warmup.count == 6
    assert (r.init_memory_mb, r.overall_memory_mb, r.peak_memory_mb) == (6.44141, 64.8633, None)
    assert (r.delegate, r.coverage, r.partitions) == ("XNNPACK", "partial", 22)


def test_the_oldest_average_timings_line() -> None:
    r = parse_benchmark_output(OLDEST)
    assert r.complete
    assert (r.warmup_avg_us, r.init_us, r.avg_us) == (44478, 1734, 43018.8)
    assert r.regular is not None and r.regular.count == 50


def test_scientific_notation_and_full_delegation() -> None:
    r = parse_benchmark_output(SCIENTIFIC)
    assert r.first_us == 1.26753e7 and r.warmup_avg_us == 1.00135e7 and r.avg_us == 8413.35
    assert (r.delegate, r.coverage) == ("NNAPI", "full")


def test_glog_headers_and_all_same_statistics() -> None:
    r = parse_benchmark_output(GLOG)
    assert r.complete and r.avg_us == 1234
    assert r.regular is not None
    assert (r.regular.count, r.regular.min_us, r.regular.max_us, r.regular.std_us) == (
        50, 1234, 1234, 0.0)


def test_a_declined_delegate() -> None:
    r = parse_benchmark_output(NOT_DELEGATED)
    assert (r.delegate, r.coverage, r.complete) == ("NNAPI", "none", False)


def test_the_op_profile_run_order_table() -> None:
    ops = parse_benchmark_output(OP_PROFILE).ops
    assert [(o.order, o.node_type, o.avg_ms, o.times_called) for o in ops] == [
        (0, "TfLiteGpuDelegateV2", 4.011, 1), (1, "RESHAPE", 0.015, 1)]
    assert ops[1].name == "MobilenetV2/Logits/Reshape" and ops[0].share_pct == 62.037


@pytest.mark.parametrize("cut", [0.3, 0.6, 0.95])
def test_a_cut_output_is_not_complete(cut: float) -> None:
    """Cut anywhere before the final timings line (a killed tool, a dropped stream)."""
    text = MODERN[: int(MODERN.index("INFO: Inference timings") * cut)]
    r = parse_benchmark_output(text)
    assert not r.complete and r.avg_us is None and r.init_us is None


def test_errors_are_kept() -> None:
    r = parse_benchmark_output(FAILED)
    assert not r.complete and r.errors[-1] == "Benchmarking failed."


def test_statistics_lines() -> None:
    assert parse_stats("count=0") is not None and parse_stats("count=0").count == 0  # type: ignore[union-attr]
    one = parse_stats("count=1 curr=12")
    assert one is not None and one.avg_us == 12 and one.min_us == 12
    assert parse_stats("Running benchmark for at least 1 iterations") is None
    assert strip_prefix("WARN: Unconsumed cmdline flags: --x") == "Unconsumed cmdline flags: --x"
    assert math.isclose(parse_stats("count=3 first=1 curr=2 min=1 max=3 avg=2e3 std=1")
                        .avg_us or 0, 2000.0)  # type: ignore[union-attr]
