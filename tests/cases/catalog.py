"""The plain cases: a command line, perhaps a file or two, and what it should do.

Grouped by command; the cases that need timing, signals, mounts or a second process are in
:mod:`tests.cases.special`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tests.cases.case import Case, Setup, copy_ref, harness, module, write
from tests.cases.proc import NO_ROOT, QUICK, REPO

RUN = [*QUICK, "run=[tflite]", "hydra.run.dir=run"]
NOT_A_MODEL = b"\x18\x00\x00\x00TFL3" + bytes(64)
K50 = (REPO / "conf/device/k50pro.yaml").read_text()


def unreadable(folder: Path, ref: Path) -> None:
    (folder / "m.tflite").write_bytes(NOT_A_MODEL)
    (folder / "m.tflite").chmod(0)


def device_yaml() -> list[str]:
    return harness("hydra.searchpath=[file://{d}/conf]", "device=mine", *RUN)


def without(*keys: str) -> str:
    """The K50 Pro's YAML without the lines that set ``keys``."""
    return "\n".join(ln for ln in K50.splitlines()
                     if not any(re.match(rf"\s*{k}:", ln) for k in keys))


def mine(text: str) -> Setup:
    return write("conf/device/mine.yaml", text)


def bad_values() -> list[Case]:
    """The run refusing values: types, ranges at their edges, names, mappings for lists."""
    cases = [(k, v) for k, v in [
        ("device", "pixel9"), ("scenario", "nope"), ("run", "[nope]"), ("run", "{a: 1}"),
        ("run", "[{a: 1}]"), ("scenario.models", "{a: 1}"), ("scenario.models", "[{a: 1}]"),
        ("scenario.models", "[]"), ("scenario.duration_s", "nan"), ("scenario.duration_s", "inf"),
        ("scenario.duration_s", "-1"), ("scenario.duration_s", "0"),
        ("scenario.duration_s", "1000000.1"), ("scenario.duration_s", "1e308"),
        ("scenario.fps", "0"), ("scenario.fps", "1000000001"), ("scenario.fps", "abc"),
        ("scenario.warmup_s", "-0.1"), ("scenario.slo_multiplier", "-1"),
        ("seed.base", "-1"), ("seed.base", "4294967296"), ("seed.count", "1000001"),
        ("seed.count", "1.5"), ("seed.count", "[1]"), ("sensor_interval_ms", "0"),
        ("sensor_interval_ms", "1e10"), ("scenario.name", "../../escaped"),
        ("scenario.name", "a/b"), ("device.name", ".."), ("baselines.adms.ema_alpha", "0"),
        ("baselines.adms.window_tie_tolerance", "1.5"), ("baselines.band.scheduler", "nope"),
        ("device.twin.ambient_c", "60.5"), ("device.twin.noise_sigma", "-inf"),
        ("scenario.frames_in_flight", "0"), ("no_such_key", "1"),
    ]]
    # a name becomes a path only in the default run folder, so those go without hydra.run.dir
    return [Case(f"run {k}={v}", harness(*(RUN[:-1] if "name" in k else RUN), f"{k}={v}"))
            for k, v in cases]


def accepted() -> list[Case]:
    """Values at the accepted edge of their range, and settings of the terminal."""
    ok: dict[str, Any] = {"expect": "ok", "run_dir": "run", "statuses": ("completed",)}
    return [
        Case("run accepted", harness(*RUN), **ok),
        Case("run seed.base=4294967295", harness(*RUN, "seed.base=4294967295"), **ok),
        Case("run duration_s=1e-6 (no requests)", harness(*RUN[1:], "scenario.duration_s=1e-6"),
             expect="ok", run_dir="run", statuses=("completed",)),
        Case("run noise_sigma=2 (edge)", harness(*RUN, "device.twin.noise_sigma=2"), **ok),
        Case("run LANG=C", harness(*RUN), env={"LANG": "C", "LC_ALL": "C"}, **ok),
        Case("run PYTHONIOENCODING=ascii", harness(*RUN), env={"PYTHONIOENCODING": "ascii"},
             **ok),
        Case("run folder with a space, quoted", harness(*RUN[:-1], "hydra.run.dir='my run'"),
             expect="ok", run_dir="my run", statuses=("completed",)),
        Case("run into a folder that holds a run", harness(*RUN), setup=copy_ref("run")),
        Case("sweep with one bad job", harness("-m", *QUICK, "seed.base=0,1",
                                               "scenario.duration_s=-")),
    ]


def models() -> list[Case]:
    """Model files that are missing, not models, folders, unreadable."""
    def model(path: str) -> list[str]:
        return harness(*RUN, f"scenario.models=[{path}]")
    return [
        Case("model missing", model("{d}/missing.tflite")),
        Case("model is a folder", model("{d}/m.tflite"), setup=write("m.tflite/x", "")),
        Case("model: flatbuffer, not a model", model("{d}/m.tflite"),
             setup=write("m.tflite", NOT_A_MODEL)),
        Case("model: random bytes", model("{d}/m.tflite"),
             setup=write("m.tflite", bytes(range(256)))),
        Case("model: empty file", model("{d}/m.tflite"), setup=write("m.tflite", b"")),
        Case("model: a text file", model("{d}/m.txt"), setup=write("m.txt", "hello")),
        Case("model unreadable (no root)", model("{d}/m.tflite"), wrap=NO_ROOT, setup=unreadable),
    ]


def devices() -> list[Case]:
    """Device YAMLs of the user's own: old schema, missing constants, malformed."""
    no_schema = K50.replace("  - /schema/device/twin@_here_\n", "")
    return [
        Case("device YAML without mechanism constants",
             device_yaml(), setup=mine(without("memcpy_gbps", "scheduler_fixed_us"))),
        Case("device YAML of an old schema (no schema default)", device_yaml(),
             setup=mine(no_schema)),
        Case("device YAML not YAML", device_yaml(), setup=mine("name: [unclosed\n")),
        Case("device YAML processors a mapping", device_yaml(),
             setup=mine(K50.split("processors:")[0] + "processors: {cpu: 1}\n")),
        Case("analyze on a device YAML without schema defaults",
             module("harness.analyze", "hydra.searchpath=[file://{d}/conf]", "device=mine"),
             setup=mine(no_schema)),
    ]
