"""Every numeric and list field of every schema: its unit, its range and its meaning, declared
once.

The dataclass schemas (``harness/config/schema.py``, ``devices/*/config.py``,
``baselines/*``, ``adms/config.py``) give each field its type; this table gives what a type
cannot say: the unit, the allowed range (every float must also be finite) and whether a list
may be empty. Both the validation (:mod:`harness.config.validate`) and the README's config
reference (:mod:`harness.config.reference`) are generated from it, so an error message and the
documentation cannot disagree. A numeric field of a registered schema without an entry here is
a test failure (``tests/harness/config/test_fields.py``).

Schemas are named by class name; a field is ``Class.field``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Range:
    """``lo <= x <= hi`` (``lo_open``: ``lo < x``); ``None``: unbounded on that side."""

    lo: float | None = None
    hi: float | None = None
    lo_open: bool = False

    def holds(self, x: float) -> bool:
        if not math.isfinite(x):
            return False
        if self.lo is not None and (x <= self.lo if self.lo_open else x < self.lo):
            return False
        return self.hi is None or x <= self.hi

    def text(self) -> str:
        lo = None if self.lo is None else f"{'>' if self.lo_open else '>='} {self.lo:g}"
        hi = None if self.hi is None else f"<= {self.hi:g}"
        return " and ".join(p for p in (lo, hi) if p) or "any finite number"


POS = Range(0, lo_open=True)
NONNEG = Range(0)
FRACTION = Range(0, 1)
OPEN_FRACTION = Range(0, 1, lo_open=True)
ANY = Range()
PORT = Range(1, 65535)


def at_least(n: float) -> Range:
    return Range(n)


@dataclass(frozen=True, slots=True)
class Spec:
    """What a field means beyond its type."""

    unit: str
    range: Range
    meaning: str
    #: a list (or mapping) that must hold at least one item
    non_empty: bool = False


def _s(unit: str, rng: Range, meaning: str, non_empty: bool = False) -> Spec:
    return Spec(unit, rng, meaning, non_empty)


_RUN: dict[str, dict[str, Spec]] = {
    "ScenarioConf": {
        "models": _s("", ANY, "models issued per frame: zoo names, .tflite paths or name:path",
                     non_empty=True),
        "fps": _s("frames/s", POS, "frame rate of periodic and poisson arrival"),
        "duration_s": _s("s", POS, "measured duration, after warm-up"),
        "warmup_s": _s("s", NONNEG, "warm-up before measurement (requests not counted)"),
        "slo_multiplier": _s("x", NONNEG, "SLO = this x the model's latency alone; 0: no SLO"),
        "streams_per_model": _s("", at_least(1), "closed-loop streams per model (stream)"),
        "frames_in_flight": _s("", at_least(1), "frames outstanding at once (frames)"),
    },
    "SeedsConf": {
        "base": _s("", NONNEG, "the first repetition's seed (repetition i: base + i)"),
        "count": _s("", NONNEG, "repetitions per baseline; 0: the device's default"),
    },
    "RunConf": {
        "run": _s("", ANY, "baselines to run, in order (names or groups)", non_empty=True),
        "sensor_interval_ms": _s("ms", Range(1), "sensor sampling interval"),
    },
    "ModelConf": {
        "input_shape": _s("", at_least(1), "input shape without batch (H, W, C)"),
        "paper_ops": _s("ops", NONNEG, "op count the paper reports (Table III)"),
    },
}

_POLICIES: dict[str, dict[str, Spec]] = {
    "AdmsConf": {
        "window_size": _s("ops", NONNEG, "window size for every model; 0: tuned per model"),
        "window_candidates": _s("ops", at_least(1), "window sizes the tuner tries",
                                non_empty=True),
        "window_tie_tolerance": _s("fraction", FRACTION,
                                   "largest window within this of the fastest wins"),
        "estimate_refresh": _s("fraction", FRACTION, "estimate change that re-derives tables"),
        "ema_alpha": _s("", OPEN_FRACTION, "moving-average weight of a new latency sample"),
        "alpha": _s("", NONNEG, "weight of waiting fairness, eq. (2)"),
        "gamma": _s("1/ms", NONNEG, "weight of deadline urgency, eq. (1)"),
        "delta": _s("", NONNEG, "weight of resource efficiency, eq. (3)"),
        "loop_call_size": _s("jobs", at_least(1), "jobs examined from the queue head"),
        "thermal_margin_c": _s("°C", NONNEG, "keep work off a processor this near throttling"),
        "implicit_slo_factor": _s("x", NONNEG, "T_SLO = this x T_avg without an SLO"),
    },
    "BandConf": {
        "minimum_subgraph_size": _s("ops", at_least(1), "Band's minimum_subgraph_size"),
        "ema_alpha": _s("", OPEN_FRACTION, "moving-average weight of a new latency sample"),
        "schedule_window_size": _s("jobs", NONNEG, "jobs examined per decision; 0: all"),
    },
}

_PROCESSOR = {
    "api_level": _s("", NONNEG, "Android API level of the delegate rules (NNAPI)"),
}

_DEVICES: dict[str, dict[str, Spec]] = {
    "TwinDeviceConf": {"processors": _s("", ANY, "the processors", non_empty=True)},
    "HostDeviceConf": {"processors": _s("", ANY, "the processors", non_empty=True)},
    "AdbDeviceConf": {"processors": _s("", ANY, "the processors", non_empty=True)},
    "TwinProcessorConf": _PROCESSOR,
    "HostProcessorConf": _PROCESSOR,
    "AdbProcessorConf": _PROCESSOR,
    "CalibrationConf": {"target_ms": _s("ms", POS, "measured whole-model latency alone")},
    "TwinProcessorBlock": {
        "peak_gflops": _s("GFLOP/s", POS, "peak throughput per dtype at the top frequency",
                          non_empty=True),
        "efficiency": _s("fraction", FRACTION, "achievable fraction of peak per op class"),
        "bandwidth_share": _s("fraction", OPEN_FRACTION, "share of memory bandwidth alone"),
        "invoke_overhead_us": _s("µs", NONNEG, "fixed cost of one subgraph invocation"),
        "dispatch_overhead_us": _s("µs", NONNEG, "fixed cost of dispatching one op"),
        "freqs_mhz": _s("MHz", POS, "DVFS levels", non_empty=True),
        "static_w": _s("W", NONNEG, "idle (leakage) power"),
        "dynamic_w": _s("W", NONNEG, "dynamic power when busy at the top frequency"),
        "v_min_v": _s("V", POS, "supply voltage at the lowest DVFS level"),
        "v_max_v": _s("V", POS, "supply voltage at the top DVFS level"),
        "capacitance_j_per_k": _s("J/K", POS, "heat capacity of the thermal node"),
        "resistance_k_per_w": _s("K/W", POS, "thermal resistance to the SoC node"),
        "throttle_c": _s("°C", ANY, "the governor steps down above this temperature"),
        "hysteresis_c": _s("°C", NONNEG, "steps up again below throttle_c minus this"),
        "invoke_floor_us": _s("µs", NONNEG, "shortest invoke of the delegate; 0: none"),
        "io_copy_gbps": _s("GB/s", NONNEG, "delegate I/O copy bandwidth; 0: no copy"),
        "critical_c": _s("°C", NONNEG, "shutdown temperature; 0: never"),
        "measured_us": _s("µs", POS, "a subgraph's latency measured alone on a phone, by its "
                          "op set (written by python -m harness.calibrate)"),
    },
    "TwinDeviceBlock": {
        "ambient_c": _s("°C", Range(-50, 60), "ambient air"),
        "soc_capacitance_j_per_k": _s("J/K", POS, "heat capacity of the SoC/skin node"),
        "soc_resistance_k_per_w": _s("K/W", POS, "thermal resistance of the SoC to ambient"),
        "memory_bandwidth_gbps": _s("GB/s", POS, "DRAM peak bandwidth"),
        "transfer_fixed_us": _s("µs", NONNEG, "fixed cost of moving a tensor"),
        "transfer_bandwidth_gbps": _s("GB/s", POS, "bandwidth of moving a tensor"),
        "governor_period_ms": _s("ms", POS, "thermal governor period"),
        "noise_sigma": _s("", Range(0, 2), "sigma of the lognormal latency noise; 0: none"),
        "memcpy_gbps": _s("GB/s", POS, "memcpy bandwidth between interpreters"),
        "copy_fixed_us": _s("µs", NONNEG, "fixed cost of copying one tensor"),
        "scheduler_fixed_us": _s("µs", NONNEG, "fixed cost per dispatched subgraph"),
        "scheduler_ns_per_op": _s("ns", NONNEG, "time of one unit of decision work"),
        "memory_budget_mb": _s("MB", NONNEG, "memory for interpreters; 0: unlimited"),
        "interpreter_overhead_kb": _s("KB", NONNEG, "one interpreter's fixed memory"),
        "rest_of_phone_w": _s("W", NONNEG, "power of the rest of the phone"),
    },
    "HostProcessorBlock": {
        "threads": _s("", at_least(1), "interpreter threads (num_threads)"),
        "cores": _s("", NONNEG, "core ids the worker is pinned to", non_empty=True),
    },
    "HostSettingsConf": {
        "profile_runs": _s("", at_least(1), "timed runs per profiled subgraph"),
        "warmup_runs": _s("", NONNEG, "untimed runs before them"),
        "seed": _s("", NONNEG, "seed of the random model inputs"),
        "input_frames": _s("", at_least(1), "distinct input frames per model input"),
        "eager_build_limit": _s("", NONNEG, "interpreters built up front"),
        "keep_outputs": _s("", NONNEG, "finished jobs whose outputs stay readable"),
        "join_timeout_s": _s("s", POS, "how long close() waits for each worker"),
    },
    "AdbProcessorBlock": {
        "threads": _s("", at_least(1), "interpreter threads (--num_threads)"),
        "cpufreq_policies": _s("", NONNEG, "cpufreq policies of this processor"),
    },
    "AdbServerConf": {
        "port": _s("", PORT, "the adb server's port"),
        "command_timeout_s": _s("s", POS, "limit of a short command"),
        "transfer_timeout_s": _s("s", POS, "limit of one push or pull"),
        "kill_after_s": _s("s", NONNEG, "KILL this long after the on-device TERM"),
        "retries": _s("", NONNEG, "tries for a lost phone"),
        "backoff_s": _s("s", NONNEG, "first wait between tries (doubling)"),
    },
    "AdbToolsConf": {
        "grace_s": _s("s", NONNEG, "time a tool may take beyond warm-up + duration"),
        "band_profile_warmup_runs": _s("", NONNEG, "Band's profile_warmup_runs"),
        "band_profile_runs": _s("", at_least(1), "Band's profile_num_runs"),
    },
    "AdbSensorsConf": {
        "interval_ms": _s("ms", Range(10), "the phone's sampling interval"),
        "gpu_frequency_unit_hz": _s("Hz", POS, "Hz per unit of the GPU frequency files"),
        "cooldown_to_c": _s("°C", NONNEG, "wait until every zone is below this; 0: no"),
        "cooldown_timeout_s": _s("s", NONNEG, "give up waiting after this long"),
    },
    "AdbPowerConf": {
        "monsoon_serial": _s("", NONNEG, "the Monsoon's serial; 0: the first found"),
        "monsoon_voltage_v": _s("V", Range(0, 13.5), "output voltage to set; 0: leave it"),
        "window_ms": _s("ms", POS, "power samples averaged over windows this long"),
    },
}

_ANALYZE: dict[str, dict[str, Spec]] = {
    "AnalyzeConf": {
        "window_size": _s("ops", at_least(1), "window size, or a list of them to sweep",
                          non_empty=True),
    },
}

#: schema class name -> field -> spec
FIELDS: Mapping[str, Mapping[str, Spec]] = {**_RUN, **_POLICIES, **_DEVICES, **_ANALYZE}


def spec(schema: str, name: str) -> Spec | None:
    """The declared spec of ``schema.name``, or None."""
    return FIELDS.get(schema, {}).get(name)
