"""The ADMS paper's reference numbers, as data, each with where it comes from.

These are the values our runs are compared with (``docs/reference/paper.md``). Every number
is a :class:`PaperValue` that carries its source (table or figure, section, a short quote)
and whether it is stated in the paper or *derived* from what the paper states. The text
version of the paper has no page numbers, so a source names the section instead.

Figure 8 is a bar chart whose bars are not printed as numbers. The paper states in the text
the FRS values on the Redmi K50 Pro (they match Table VI), ADMS's FRS value on the Huawei P20,
and ADMS's ROS value on the K50 Pro with its ratios over Band and TFLite ("19% and 184%
higher", i.e. 1.19x and 2.84x); the ROS values of Band and TFLite are derived from those ratios.

Names follow the harness: devices ``k50pro``, ``p20``, ``mi6``; scenarios ``frs``, ``ros``;
baselines ``tflite``, ``band``, ``adms``; models by their zoo names.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final


@dataclass(frozen=True, slots=True)
class Source:
    """Where a number stands in the paper."""

    #: table or figure, e.g. ``Table VI``, ``Figure 8(a)``
    where: str
    #: section number and title
    section: str
    #: a short quote that gives the number its meaning
    context: str = ""


@dataclass(frozen=True, slots=True)
class PaperValue:
    value: float
    unit: str
    source: Source
    #: computed from stated numbers (see ``note``), not printed in the paper
    derived: bool = False
    note: str = ""


S44 = "§4.4 FPS in Parallel Inference Scenarios"
FIG8A = Source("Figure 8(a)", S44, "FRS on Redmi K50 Pro: ADMS up to 45.12 FPS, "
               "an improvement of 404% and 121% compared to the TFLite and Band systems")
FIG8B = Source("Figure 8(b)", S44, "ROS on Redmi K50 Pro: ADMS 6.98 FPS, approximately 19% and "
               "184% higher than the performance of Band and TFLite")
FIG8C = Source("Figure 8(c)", S44, "FRS on Huawei P20: ADMS 12.35 FPS")
TABLE6_SOURCE = Source("Table VI", "§4.7 Analysis of Resource Efficiency",
                "Average power consumption and energy efficiency during FRS workload execution "
                "on Redmi K50 Pro (Monsoon Power Monitor)")

#: ADMS FPS divided by each baseline's FPS, as the paper states them (Figure 8 text)
FIG8_RATIOS: Final[Mapping[tuple[str, str], Mapping[str, float]]] = MappingProxyType({
    ("k50pro", "frs"): MappingProxyType({"tflite": 4.04, "band": 1.21}),
    ("k50pro", "ros"): MappingProxyType({"tflite": 2.84, "band": 1.19}),
})


def _fps(value: float, source: Source, derived: bool = False, note: str = "") -> PaperValue:
    return PaperValue(value, "frames/s", source, derived, note)


FIG8_FPS: Final[Mapping[tuple[str, str], Mapping[str, PaperValue]]] = MappingProxyType({
    ("k50pro", "frs"): MappingProxyType({
        "tflite": _fps(11.20, FIG8A, note="also Table VI"),
        "band": _fps(37.17, FIG8A, note="also Table VI"),
        "adms": _fps(45.12, FIG8A, note="also Table VI"),
    }),
    ("k50pro", "ros"): MappingProxyType({
        "tflite": _fps(6.98 / 2.84, FIG8B, True, "6.98 / 2.84 from the stated 184% gain"),
        "band": _fps(6.98 / 1.19, FIG8B, True, "6.98 / 1.19 from the stated 19% gain"),
        "adms": _fps(6.98, FIG8B),
    }),
    ("p20", "frs"): MappingProxyType({"adms": _fps(12.35, FIG8C)}),
})


@dataclass(frozen=True, slots=True)
class Table2Row:
    """Average latency (ms) of MobileNetV1 on one accelerator with 1, 2 and 4 concurrent models."""

    device: str
    accelerator: str
    latency_ms: MappingProxyType[int, float]


TABLE2_SOURCE = Source("Table II", "§2.2.2 The performance of Multi-Processor Inference",
                       "Impact of parallel inference on latency: average latency (ms) for "
                       "MobileNetV1 on various processors with different levels of concurrency")


def _t2(device: str, accelerator: str, one: float, two: float, four: float) -> Table2Row:
    return Table2Row(device, accelerator, MappingProxyType({1: one, 2: two, 4: four}))


TABLE2: Final[tuple[Table2Row, ...]] = (
    _t2("k50pro", "Mali-G710 GPU", 3.65, 7.88, 9.09),
    _t2("k50pro", "MediaTek APU 5.0", 8.24, 10.71, 16.97),
    _t2("k50pro", "MediaTek NPU", 1.88, 2.13, 2.39),
    _t2("p20", "Mali-G72 GPU", 45.35, 76.77, 114.88),
    _t2("p20", "Dual-core NPU", 70.15, 220.07, 429.1),
    _t2("mi6", "Adreno 540 GPU", 7.89, 7.96, 8.1),
    _t2("mi6", "Hexagon 682 DSP", 46.77, 277.14, 609.44),
)


@dataclass(frozen=True, slots=True)
class Table3Row:
    """Subgraph and op counts on the Redmi K50 Pro (Band-style partitioning)."""

    model: str
    paper_name: str
    operations: int
    unit: int
    merged: int
    total: int


TABLE3_SOURCE = Source("Table III", "§2.2.2 / §3.2 Model Analyzer",
                       "Subgraph and Operation Counts for Various Models on Redmi K50 Pro")
TABLE3: Final[tuple[Table3Row, ...]] = (
    Table3Row("east", "East", 108, 1, 0, 4),
    Table3Row("yolov3", "YoloV3", 232, 2, 3, 9),
    Table3Row("mobilenet_v1", "MobileNetV1", 31, 4, 24, 42),
    Table3Row("mobilenet_v2", "MobileNetV2", 66, 26, 860, 968),
    Table3Row("icn_quant", "ICN_quant", 77, 33, 1496, 1644),
    Table3Row("deeplabv3", "DeepLabV3", 112, 65, 3076, 3329),
)


@dataclass(frozen=True, slots=True)
class Table5Row:
    """Single-model subgraphs and latency on the Redmi K50 Pro, Band vs ADMS."""

    model: str
    paper_name: str
    unit: MappingProxyType[str, int]
    merged: MappingProxyType[str, int]
    latency_ms: MappingProxyType[str, float]


TABLE5_SOURCE = Source("Table V", "§4.3 Inference Latency for Single Models",
                       "Subgraph partitioning and latency for single model inference on "
                       "Redmi K50 Pro using BAND and ADMS")


def _t5(model: str, name: str, unit: tuple[int, int], merged: tuple[int, int],
        latency: tuple[float, float]) -> Table5Row:
    def pair(v: tuple) -> MappingProxyType:
        return MappingProxyType({"band": v[0], "adms": v[1]})

    return Table5Row(model, name, pair(unit), pair(merged), pair(latency))


TABLE5: Final[tuple[Table5Row, ...]] = (
    _t5("mobilenet_v1", "MobileNetV1", (4, 2), (24, 4), (17.35, 12.19)),
    _t5("icn_quant", "ICN_quant", (33, 7), (1496, 60), (72.25, 55.1)),
    _t5("deeplabv3", "DeepLabV3", (21, 17), (393, 261), (51.35, 43.8)),
    _t5("mobilenet_v2", "MobileNetV2", (25, 2), (860, 4), (25.1, 18.16)),
    _t5("yolov3", "YoloV3", (65, 2), (112, 3), (86.62, 80.63)),
)


@dataclass(frozen=True, slots=True)
class Table6Row:
    """FRS on the Redmi K50 Pro: average power, FPS and frames per joule of one baseline."""

    power_w: float
    fps: float
    frames_per_joule: float


TABLE6: Final[Mapping[str, Table6Row]] = MappingProxyType({
    "tflite": Table6Row(7.18, 11.20, 1.56),
    "band": Table6Row(8.05, 37.17, 4.62),
    "adms": Table6Row(7.86, 45.12, 5.74),
})


@dataclass(frozen=True, slots=True)
class Table7Row:
    """Stress tests on the Redmi K50 Pro."""

    #: share of failed requests in the 30-minute test, percent
    failure_rate_pct: float
    #: most concurrent models before failures; ADMS's "10+" is stored as 10 with ``at_least``
    max_concurrent_models: int
    max_concurrent_at_least: bool
    #: minutes to the first thermal throttling at 35 degrees C ambient
    time_to_throttle_min: float


TABLE7_SOURCE = Source("Table VII", "§4.8 Analysis of System Robustness",
                       "System robustness under stress conditions on Redmi K50 Pro")
TABLE7: Final[Mapping[str, Table7Row]] = MappingProxyType({
    "tflite": Table7Row(3.2, 6, False, 2.5),
    "band": Table7Row(1.8, 8, False, 9.7),
    "adms": Table7Row(0.5, 10, True, 13.9),
})

FIG9_SOURCE = Source("Figure 9", "§4.5 Analysis of SLOs",
                     "At SLO multiplier 1.0, ADMS achieved SLO satisfaction rates of 95.24%, "
                     "99.85%, 100%, and 100%; TFLite 75%, 78%, 76.4%, and 80%")
#: SLO satisfaction (percent) at SLO multiplier 1.0 on the Redmi K50 Pro
FIG9_SLO_PCT: Final[Mapping[str, Mapping[str, float]]] = MappingProxyType({
    "adms": MappingProxyType({"mobilenet_v1": 95.24, "efficientnet_b4": 99.85,
                              "inception_v4": 100.0, "arcface_resnet50": 100.0}),
    "tflite": MappingProxyType({"mobilenet_v1": 75.0, "efficientnet_b4": 78.0,
                                "inception_v4": 76.4, "arcface_resnet50": 80.0}),
})

_DEVICE_ALIASES = {"redmik50pro": "k50pro", "huaweip20": "p20", "xiaomi6": "mi6",
                   "xiaomimi6": "mi6"}


def device_key(device: str) -> str:
    """``Redmi K50 Pro``, ``k50_pro``, ``k50pro`` -> ``k50pro``."""
    key = re.sub(r"[^a-z0-9]", "", device.lower())
    return _DEVICE_ALIASES.get(key, key)


#: the models of the paper's scenarios (Section 4.4); a run with other models is not Figure 8
SCENARIO_MODELS: dict[str, frozenset[str]] = {
    "frs": frozenset({"retinaface", "arcface_mobilenet", "arcface_resnet50"}),
    "ros": frozenset({"mobilenet_v2", "efficientnet_b4", "inception_v4"}),
}


def paper_scenario(scenario: str, models: tuple[str, ...] | None) -> str:
    """``scenario`` when its models are the paper's (or unknown), else "" (no paper figure)."""
    expected = SCENARIO_MODELS.get(scenario.lower())
    if expected is None or models is None or frozenset(models) == expected:
        return scenario
    return ""


#: the paper's systems (its names, the keys above) -> our row that runs each as §4.1
#: describes it, beside which its figures are shown. The paper's "Vanilla" TFLite runs the
#: ops an accelerator supports there and falls back to the CPU for the rest: our
#: ``tflite_gpu`` (every model on the GPU delegate, 8-bit models on NNAPI), not ``tflite``,
#: a placement oracle the paper does not run.
PAPER_ROWS: Final[Mapping[str, str]] = MappingProxyType({"tflite": "tflite_gpu",
                                                          "band": "band", "adms": "adms"})


def paper_system(row: str) -> str | None:
    """The paper's system whose figures sit beside our row ``row`` (None: none does)."""
    return next((system for system, ours in PAPER_ROWS.items() if ours == row), None)


def fig8_rows(device: str, scenario: str) -> dict[str, float]:
    """Paper FPS keyed by our row that runs each paper system (:data:`PAPER_ROWS`)."""
    return {PAPER_ROWS[system]: v for system, v in fig8_fps(device, scenario).items()}


def fig8_fps(device: str, scenario: str) -> dict[str, float]:
    """Paper FPS per baseline for ``device`` and ``scenario`` ({} where the paper has none)."""
    values = fig8_values(device, scenario)
    return {baseline: v.value for baseline, v in values.items()}


def fig8_values(device: str, scenario: str) -> dict[str, PaperValue]:
    """As :func:`fig8_fps`, with sources and the derived flag."""
    return dict(FIG8_FPS.get((device_key(device), scenario.lower()), {}))


def fig8_ratio(device: str, scenario: str, baseline: str) -> float | None:
    """ADMS FPS over ``baseline``'s FPS as the paper states it, or None."""
    return FIG8_RATIOS.get((device_key(device), scenario.lower()), {}).get(baseline)


def table2(device: str | None = None) -> tuple[Table2Row, ...]:
    """Table II rows, all or those of one device."""
    return tuple(r for r in TABLE2 if device is None or r.device == device_key(device))


def table3(model: str) -> Table3Row | None:
    return next((r for r in TABLE3 if r.model == model), None)


def table5(model: str) -> Table5Row | None:
    return next((r for r in TABLE5 if r.model == model), None)


def fig9_slo_pct(baseline: str) -> dict[str, float]:
    """Per model SLO satisfaction (percent) at multiplier 1.0, or {}."""
    return dict(FIG9_SLO_PCT.get(baseline, {}))


# -- the rest of the evaluation (issue 12): numbers stated in the text ----------------------

#: Table II accelerator -> the processor of our device config that stands for it
TABLE2_PROCESSOR: Final[Mapping[tuple[str, str], str]] = MappingProxyType({
    ("k50pro", "Mali-G710 GPU"): "gpu", ("k50pro", "MediaTek APU 5.0"): "apu",
    ("k50pro", "MediaTek NPU"): "npu", ("p20", "Mali-G72 GPU"): "gpu",
    ("p20", "Dual-core NPU"): "npu", ("mi6", "Adreno 540 GPU"): "gpu",
    ("mi6", "Hexagon 682 DSP"): "dsp",
})


def table2_processor(row: Table2Row) -> str | None:
    """Our processor name for a Table II row's accelerator."""
    return TABLE2_PROCESSOR.get((row.device, row.accelerator))


FIG6 = Source("Figure 6", "§3.2 Model Analyzer", "Relationship between window size, inference "
              "latency, and subgraph count for DeepLabV3 on Redmi K50 Pro, highlighting the "
              "optimal balance at window size 5")
#: the window size the paper found best for DeepLabV3 on the K50 Pro
FIG6_BEST_WINDOW: Final = PaperValue(5, "ops", FIG6)

FIG10 = Source("Figure 10", "§4.6 Subgraph-level scheduling", "two ArcFace-ResNet50 on "
               "Huawei P20: TFLite bound by the slowest processor (27.74 ms), utilisation "
               "about 50%; ADMS about 21.15 ms, utilisation nearly 95%")
FIG10_VALUES: Final[Mapping[str, Mapping[str, PaperValue]]] = MappingProxyType({
    "tflite": MappingProxyType({"pair_ms": PaperValue(27.74, "ms", FIG10),
                                "utilization_pct": PaperValue(50.0, "%", FIG10)}),
    "adms": MappingProxyType({"pair_ms": PaperValue(21.15, "ms", FIG10),
                              "utilization_pct": PaperValue(95.0, "%", FIG10)}),
})

FIG11 = Source("Figure 11", "§4.7 Analysis of Resource Efficiency", "Band peaks near 8.8 W; "
               "TFLite drops as low as 6.5 W; ADMS stays between 7.7 W and 8.1 W")
#: baseline -> statistic of the 60-second power trace (W)
FIG11_POWER_W: Final[Mapping[str, Mapping[str, PaperValue]]] = MappingProxyType({
    "band": MappingProxyType({"max": PaperValue(8.8, "W", FIG11)}),
    "tflite": MappingProxyType({"min": PaperValue(6.5, "W", FIG11)}),
    "adms": MappingProxyType({"min": PaperValue(7.7, "W", FIG11),
                              "max": PaperValue(8.1, "W", FIG11)}),
})

FIG12 = Source("Figure 12", "§4.8 Analysis of System Robustness", "TFLite: CPU and GPU reach "
               "the throttling threshold (68 C) within 2-3 minutes, CPU frequency drops from "
               "about 3 GHz to as low as 1 GHz; ADMS: CPU stays below the threshold for 10 "
               "minutes at about 2.8-3 GHz")
FIG12_THRESHOLD_C: Final = PaperValue(68.0, "C", FIG12)
#: baseline -> lowest CPU frequency in the 10-minute stress test (GHz)
FIG12_CPU_MIN_GHZ: Final[Mapping[str, PaperValue]] = MappingProxyType({
    "tflite": PaperValue(1.0, "GHz", FIG12), "adms": PaperValue(2.8, "GHz", FIG12)})

ABLATION = Source("Figure 8(b) text", S44, "the version of ADMS without subgraph partitioning "
                  "performed 34.02% worse than Band and 44.70% worse than the subgraph-enabled "
                  "version of ADMS")
#: ROS on the K50 Pro: ADMS without subgraph partitioning, its FPS over each row's FPS
ABLATION_NO_PARTITION: Final[Mapping[str, PaperValue]] = MappingProxyType({
    "adms": PaperValue(1 - 0.4470, "x", ABLATION, True, "1 - 44.70%"),
    "band": PaperValue(1 - 0.3402, "x", ABLATION, True, "1 - 34.02%"),
})
