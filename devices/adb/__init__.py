"""The ``adb`` device backend: real phones over adb (see :mod:`devices.adb.device`).

Modules, bottom up: :mod:`.config` (schema), :mod:`.transport` (adbutils: shell with timeouts
and exit codes, push, pull, a lost phone), :mod:`.probe` and :mod:`.draft` (facts, a draft
YAML), :mod:`.deploy` (push by content hash, ABI check), :mod:`.clock` (the run's clock),
:mod:`.sensors` (the sampling loop on the phone), :mod:`.conditioning` (governors,
cool-down), :mod:`.measure` (everything around a baseline's run, power included),
:mod:`.phone` (a connected, probed phone); the native runner: :mod:`.runner_exe` (its binary
and libraries pushed), :mod:`.slices` (subgraphs cut and pushed), :mod:`.profiling`
(subgraphs profiled on the phone), :mod:`.runner_plan` and :mod:`.runner_sensors` (its input
files), :mod:`.runner_watch` (the process watched), :mod:`.runner_logs` (its logs into rows),
:mod:`.runner_rows` (those rows written as the logs come), :mod:`.runner_run` (a prepared
policy run there); the stock tools: :mod:`.tflite_tool` /
:mod:`.tflite_output` (``benchmark_model``'s flags and output), :mod:`.band_files` (Band's
config and job log), :mod:`.tools` and :mod:`.rows` (tool processes and their rows),
:mod:`.vanilla` and :mod:`.band_run` (``tflite_stock``, ``band_stock``); :mod:`.device` (the
device class).

Importing this package (its config schema, every run registers it) does not import adbutils
and the tools' modules: :class:`AdbDevice` is loaded on first use.
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    if name == "AdbDevice":
        from devices.adb.device import AdbDevice
        return AdbDevice
    raise AttributeError(name)
