"""A stand-in for the stock TFLite ``benchmark_model`` (a FAKE: it runs on this machine).

It takes the real tool's flags (``--graph``, ``--num_threads``, ``--warmup_runs``,
``--warmup_min_secs``, ``--num_runs``, ``--min_secs``, ``--max_secs``, ``--run_delay``,
``--run_frequency``, ``--use_gpu``, ``--use_nnapi``, ``--nnapi_accelerator_name``,
``--use_hexagon``, ``--use_xnnpack``, ``--report_peak_memory_footprint``, ...), runs the model
for real with LiteRT under the real tool's run loop (``BenchmarkModel::Run``), and prints what
the real tool prints (``INFO:`` lines, ``count=… p5= median= p95=`` statistics, the final
``Inference timings in us`` line, memory lines, delegate lines, ``ERROR: … Benchmarking
failed.`` with exit code 1). This machine has no GPU or NNAPI: ``--use_gpu`` is played by the
XNNPACK delegate (its real partitioning is what the "Replacing N out of M node(s)" line
reports), NNAPI declines the graph, Hexagon cannot be created, as on a phone without them.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from tests.devices.adb.fakephone.standins import common

DEFAULTS: dict[str, Any] = {
    "graph": "", "num_threads": -1, "warmup_runs": 1, "warmup_min_secs": 0.5, "num_runs": 50,
    "min_secs": 1.0, "max_secs": 150.0, "run_delay": -1.0, "run_frequency": -1.0,
    "use_gpu": False, "use_nnapi": False, "nnapi_accelerator_name": "", "use_hexagon": False,
    "use_xnnpack": False, "report_peak_memory_footprint": False,
    "memory_footprint_check_interval_ms": 50, "enable_op_profiling": False, "verbose": False,
}


def parse_flags(argv: list[str]) -> tuple[dict[str, Any], list[str]]:
    params, unconsumed = dict(DEFAULTS), []
    for arg in argv:
        name, _, value = arg.lstrip("-").partition("=")
        if not arg.startswith("--") or name not in DEFAULTS:
            unconsumed.append(arg)
            continue
        kind = type(DEFAULTS[name])
        params[name] = value.lower() in ("1", "true") if kind is bool else kind(value)
    return params, unconsumed


def rss_mb() -> float:
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


class PeakMemory(threading.Thread):
    def __init__(self, interval_ms: int) -> None:
        super().__init__(daemon=True)
        self.interval_s, self.peak, self.done = interval_ms / 1000, 0.0, threading.Event()

    def run(self) -> None:
        while not self.done.wait(self.interval_s):
            self.peak = max(self.peak, rss_mb())


def interpreter(path: str, threads: int, resolver: str, fuse: bool = True) -> Any:
    from ai_edge_litert.interpreter import Interpreter, OpResolverType

    kinds = {"xnnpack": OpResolverType.AUTO,
             "builtin": OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES}
    interp = Interpreter(model_path=path, num_threads=max(threads, 1),
                         experimental_op_resolver_type=kinds[resolver],
                         experimental_disable_delegate_node_fusion=not fuse)
    interp.allocate_tensors()
    rng = np.random.default_rng(0)
    for d in interp.get_input_details():
        data = (rng.uniform(-0.5, 0.5, d["shape"]) if np.issubdtype(d["dtype"], np.floating)
                else rng.integers(0, 100, d["shape"]))
        interp.set_tensor(d["index"], data.astype(d["dtype"]))
    return interp


def delegate_lines(params: dict[str, Any], path: str, threads: int) -> tuple[list[str], str]:
    """The delegate lines this 'phone' prints, and the kernels that really run."""
    if params["use_gpu"] or params["use_xnnpack"]:
        name, kind = ("GPU", "TfLiteGpuDelegateV2") if params["use_gpu"] else (
            "XNNPACK", "TfLiteXNNPackDelegate")
        def delegate_nodes(fuse: bool) -> int:
            ops = interpreter(path, threads, "xnnpack", fuse)._get_ops_details()
            return sum(op["op_name"] == "DELEGATE" for op in ops)

        total = len(interpreter(path, threads, "builtin")._get_ops_details())
        taken, parts = delegate_nodes(fuse=False), delegate_nodes(fuse=True)
        cover = ("completely executed by the delegate." if taken == total else
                 f"partially executed by the delegate w/ {parts} delegate kernels.")
        return [f"INFO: Created TensorFlow Lite delegate for {name}.",
                f"INFO: Replacing {taken} out of {total} node(s) with delegate ({kind}) node, "
                f"yielding {parts} partitions for the whole graph.",
                f"INFO: Explicitly applied {name} delegate, and the model graph will be {cover}"
                ], "xnnpack"
    if params["use_nnapi"]:
        return ["INFO: Though NNAPI delegate is explicitly applied, the model graph will not "
                "be executed by the delegate."], "builtin"
    if params["use_hexagon"]:
        return ["WARN: Could not create Hexagon delegate: platform may not support delegate or "
                "required libraries are missing"], "builtin"
    return ["INFO: Created TensorFlow Lite XNNPACK delegate for CPU."], "xnnpack"


def stat_line(values: list[int]) -> str:
    """``tsl::Stat<int64>::OutputToStream`` with the percentile extension."""
    if not values:
        return "count=0"
    arr = np.array(values, dtype=np.int64)

    def pct(p: int) -> int:
        return int(np.sort(arr)[min(len(arr) - 1, len(arr) * p // 100)])

    tail = f" p5={pct(5)} median={pct(50)} p95={pct(95)}"
    if (arr == arr[0]).all():
        return f"count={len(arr)} curr={arr[-1]}" + ("(all same)" if len(arr) > 1 else "") + tail
    return (f"count={len(arr)} first={arr[0]} curr={arr[-1]} min={arr.min()} max={arr.max()} "
            f"avg={arr.mean():g} std={arr.std():g}" + tail)


def run_phase(interp: Any, runs: int, min_secs: float, max_secs: float, params: dict[str, Any]
              ) -> list[int]:
    """``BenchmarkModel::Run``: at least ``runs`` runs and ``min_secs``, at most ``max_secs``."""
    common.log(f"INFO: Running benchmark for at least {runs} iterations and at least "
               f"{min_secs:g} seconds but terminate if exceeding {max_secs:g} seconds.")
    now = time.monotonic()
    min_end, max_end = now + min_secs, now + max_secs
    gap = 1.0 / params["run_frequency"] if params["run_frequency"] > 0 else 0.0
    next_end, delay = now + gap, params["run_delay"]
    times: list[int] = []
    while (len(times) < runs or now < min_end) and now <= max_end:
        start = time.monotonic_ns()
        interp.invoke()
        times.append((time.monotonic_ns() - start) // 1000)
        if gap:
            delay, next_end = next_end - time.monotonic(), next_end + gap
        if delay > 0:
            time.sleep(delay)
        now = time.monotonic()
    common.log(f"INFO: {stat_line(times)}\n")
    return times


def benchmark(params: dict[str, Any], model: str) -> int:
    start_mb = rss_mb()
    peak = PeakMemory(params["memory_footprint_check_interval_ms"])
    if params["report_peak_memory_footprint"]:
        peak.start()
    threads = params["num_threads"] if params["num_threads"] > 0 else os.cpu_count() or 1
    t0 = time.monotonic_ns()
    lines, kernels = delegate_lines(params, model, threads)
    interp = interpreter(model, threads, kernels)
    init_us = (time.monotonic_ns() - t0) // 1000
    init_mb = rss_mb() - start_mb
    common.log(f"INFO: Loaded model {model}")
    for line in lines:
        common.log(line)
    common.log(f"INFO: The input model file size (MB): {Path(model).stat().st_size / 1e6:g}")
    common.log(f"INFO: Initialized session in {init_us / 1e3:g}ms.")
    if common.fault("stall", model):
        common.stall_forever()
    warm = run_phase(interp, params["warmup_runs"], params["warmup_min_secs"],
                     params["max_secs"], params)
    if common.fault("truncate", model):
        return 0
    if common.fault("crash", model):
        common.log("ERROR: Node number 3 (CONV_2D) failed to invoke.")
        common.log("ERROR: Benchmarking failed.")
        return 1
    regular = run_phase(interp, params["num_runs"], params["min_secs"], params["max_secs"],
                        params)
    peak.done.set()
    common.log(f"INFO: Inference timings in us: Init: {init_us}, First inference: "
               f"{warm[0] if warm else 0}, Warmup (avg): {np.mean(warm) if warm else 0:g}, "
               f"Inference (avg): {np.mean(regular) if regular else 0:g}")
    common.log("INFO: Note: as the benchmark tool itself affects memory footprint, the following "
               "is only APPROXIMATE to the actual memory footprint of the model at runtime. "
               "Take the information at your discretion.")
    common.log(f"INFO: Memory footprint delta from the start of the tool (MB): "
               f"init={init_mb:g} overall={rss_mb() - start_mb:g}")
    if params["report_peak_memory_footprint"]:
        common.log(f"INFO: Overall peak memory footprint (MB) via periodic monitoring: "
                   f"{max(peak.peak, rss_mb()):g}")
    return 0


def main(argv: list[str]) -> int:
    params, unconsumed = parse_flags(argv)
    common.log("INFO: STARTING!")
    if unconsumed:
        common.log(f"WARN: Unconsumed cmdline flags: {' '.join(unconsumed)}")
    common.log(f"INFO: Graph: [{params['graph']}]")
    common.log(f"INFO: Num threads: [{params['num_threads']}]")
    model = params["graph"]
    if not model or not Path(model).is_file():
        common.log(f"ERROR: Could not open '{model}'." if model else
                   "ERROR: Please specify the name of your TF Lite input file with --graph")
        common.log("ERROR: Benchmarking failed.")
        return 1
    with common.running():
        return benchmark(params, model)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
