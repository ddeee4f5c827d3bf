"""The plain cases of the other commands: compare, farm, analyze, paper, calibrate, probe,
zoo and the ``harness`` console entry."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.cases.case import Case, Setup, console, copy_ref, module, write

TWIN_ONLY = ["inventory.phones=[]",
             "inventory.twins=[{name: k50pro, device: k50pro, baselines: [tflite], overrides: []}]",
             'matrix.overrides=["plots=false","scenario.duration_s=0.5"]', "plots=false",
             "results={d}/farm"]


def compare(*args: str) -> list[str]:
    return module("harness.compare", *args)


def damaged(table: str, data: bytes) -> Setup:
    """A setup: the shared run with ``table`` replaced by ``data``."""
    return write(f"ref/{table}", data, also=copy_ref())


def truncated_manifest(folder: Path, ref: Path) -> None:
    copy_ref()(folder, ref)
    text = (folder / "ref/manifest.json").read_text()
    (folder / "ref/manifest.json").write_text(text[: len(text) // 2])


def no_requests(folder: Path, ref: Path) -> None:
    """The shared run with its requests table emptied (0 rows, same columns)."""
    import pyarrow.parquet as pq
    copy_ref()(folder, ref)
    table = pq.read_table(folder / "ref/requests.parquet")
    copy_ref("cand")(folder, ref)
    pq.write_table(table.slice(0, 0), folder / "cand/requests.parquet")


def compares() -> list[Case]:
    ref: dict[str, Any] = {"setup": copy_ref()}
    return [
        Case("compare no arguments", compare()),
        Case("compare a missing folder", compare("{d}/nope")),
        Case("compare a file", compare("{d}/f"), setup=write("f", "x")),
        Case("compare an empty folder", compare("{d}/e"), setup=write("e/.keep", "")),
        Case("compare --tolerance nan", compare("{d}/ref", "{d}/ref", "--tolerance=nan"), **ref),
        Case("compare --tolerance -1", compare("{d}/ref", "{d}/ref", "--tolerance=-1"), **ref),
        Case("compare --tolerance abc", compare("{d}/ref", "{d}/ref", "--tolerance=abc"), **ref),
        Case("compare --tolerance 1e400", compare("{d}/ref", "{d}/ref", "--tolerance=1e400"),
             **ref),
        Case("compare truncated manifest", compare("{d}/ref"), setup=truncated_manifest),
        Case("compare manifest not an object", compare("{d}/ref"),
             setup=write("ref/manifest.json", "[1, 2]", also=copy_ref())),
        Case("compare requests.parquet garbage", compare("{d}/ref"),
             setup=damaged("requests.parquet", b"PAR1garbagePAR1")),
        Case("compare requests.parquet empty file", compare("{d}/ref"),
             setup=damaged("requests.parquet", b"")),
        Case("compare sensors.parquet garbage", compare("{d}/ref"),
             setup=damaged("sensors.parquet", b"not parquet")),
        Case("compare candidate with 0 requests", compare("{d}/ref", "{d}/cand"),
             expect="fail", setup=no_requests),
        Case("compare a run with itself", compare("{d}/ref", "{d}/ref"), expect="ok", **ref),
        Case("compare --markdown, ascii stdout", compare("{d}/ref", "--markdown"), expect="ok",
             env={"PYTHONIOENCODING": "ascii"}, **ref),
        Case("console: report a missing folder", console("report", "{d}/nope")),
        Case("console: compare nothing", console("compare")),
        Case("console: list", console("list"), expect="ok"),
        Case("console: runs in an empty folder", console("runs")),
        Case("console: help", console("help"), expect="ok"),
        Case("console: unknown word", console("nope")),
    ]


def farms() -> list[Case]:
    def farm(*args: str) -> list[str]:
        return module("harness.farm", *TWIN_ONLY, *args)
    return [Case(f"farm {a}", farm(a)) for a in [
        "thresholds.fps=nan", "thresholds.fps=-1", "thresholds.latency_p90_ms=inf",
        "matrix.seeds=[]", "matrix.seeds={a: 1}", "matrix.seeds=[-1]", "matrix.scenarios=[]",
        "night=../escaped", "previous=a/b", "lock_timeout_s=inf", "lock_timeout_s=-1",
        "launcher=nope", "matrix.baselines=[{a: 1}]", "inventory.twins={a: 1}",
    ]]


def analyzes() -> list[Case]:
    def analyze(*args: str) -> list[str]:
        return module("harness.analyze", *args)
    cases = [Case(f"analyze {a}", analyze(a)) for a in [
        "window_size=0", "window_size=[]", "window_size=1.5", "window_size={a: 1}",
        "model=nope", "device=nope", "model.path={d}/missing.tflite",
        "graph={d}/missing.json",
    ]]
    return [*cases,
            Case("analyze model.path a folder", analyze("model.path={d}/m.tflite"),
                 setup=write("m.tflite/x", "")),
            Case("analyze model.path not a model", analyze("model.path={d}/m.tflite",
                                                           "cache={d}/cache"),
                 setup=write("m.tflite", b"\x18\x00\x00\x00TFL3" + bytes(64))),
            Case("analyze graph truncated JSON", analyze("graph={d}/g.json"),
                 setup=write("g.json", json.dumps({"ops": [1, 2, 3]})[:9])),
            Case("analyze accepted", analyze("out_dir={d}/out"), expect="ok")]


def others() -> list[Case]:
    paper = [Case(f"paper {a}", module("harness.paper", a, "out_dir={d}/p")) for a in [
        "mode=nope", "only=[nope]", "only={a: 1}", "modes.fast.seeds=0",
        "notebook_timeout_s=nan", "device=nope"]]
    cal = [Case(f"calibrate {a}", module("harness.calibrate", a)) for a in [
        "device.serial=none", "prior=nope", "profile.duration_s=nan", "check.seeds=0",
        "heat.duration_s=-1"]]
    probe = [Case(f"probe {a}", module("harness.probe", a)) for a in [
        "device.serial=none", "device.adb.port=70000", "device.adb.port=abc"]]
    zoo = [Case("zoo list", module("harness.zoo", "list"), expect="ok"),
           Case("zoo nope", module("harness.zoo", "nope")),
           Case("zoo no command", module("harness.zoo")),
           Case("zoo build --bogus", module("harness.zoo", "build", "--bogus"))]
    return [*paper, *cal, *probe, *zoo]
