"""The runner's other builds, slow (a full compile each): with ASan and UBSan, with TSan, and
for aarch64 under qemu-user (``runner/cross/aarch64.sh``; marked ``cross`` too, so that
``make test-cross`` runs it alone: CI does, after ``make test``). Each runs chained slices, which
must reproduce the whole model bit for bit as the x86 release build does in
``test_runner.py`` (aarch64: its own whole-model run; Python on x86 within rounding); the
sanitizer builds also run the policy headers, candidate plans with SLOs, streams and sensors,
closed loops waiting after Band's drops, the profiling mode, simulated runs of every policy
family and traffic (equal to Python's rows, :mod:`tests.runner.differential`) and the trace
reader over the kept fuzz inputs.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from adms.config import AdmsConf
from adms.policy import AdmsPolicy
from baselines.band.config import BandConf
from baselines.band.policy import BandPolicy
from harness.config.schema import Arrival
from tests.runner import candidates, native
from tests.runner.differential import (
    ARRIVALS,
    FAMILIES,
    Case,
    difference,
    make_setup,
    run_python,
    run_runner,
)

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(native.missing_tools() is not None,
                                 reason=f"runner not buildable: {native.missing_tools()}")]

CORES = sorted(os.sched_getaffinity(0))[:2]
CROSS = native.SOURCE / "cross" / "aarch64.sh"


def outputs(root: Path, model: Path, name: str, command: list[str], parts: int = 3,
            cores: Sequence[int] = ()) -> tuple[dict[int, bytes], dict[int, bytes]]:
    """Runs ``command`` + the runner's arguments on ``model`` cut in ``parts`` (one worker per
    core, or one unpinned): the runner's outputs and Python LiteRT's on the whole model (same
    seeded inputs)."""
    layout = native.lay_out(root, {name: model}, parts=parts, cores=cores)
    (root / "in").mkdir()
    (root / "out").mkdir()
    inputs = native.random_inputs(model, root / "in", name)
    result = subprocess.run([*command, "--plan", str(layout.plan), "--slices", str(layout.slices),
                             "--log", str(root / "jobs.tsv"), "--frames", "2",
                             "--inputs", str(root / "in"), "--outputs", str(root / "out")],
                            capture_output=True, text=True, timeout=1200)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Sanitizer" not in result.stderr and "runtime error" not in result.stderr, result.stderr
    assert len(native.read_jobs(root / "jobs.tsv")) == 2 * layout.subgraphs[name]
    got = {int(p.name.split(".")[1]): p.read_bytes() for p in (root / "out").iterdir()}
    return got, native.whole_model_outputs(model, inputs)


@pytest.mark.parametrize("sanitizer", ["address", "thread"])
def test_sanitizer_build(tmp_path_factory: pytest.TempPathFactory,
                         tiny_models: dict[str, Path], sanitizer: str) -> None:
    binary = native.build(tmp_path_factory.mktemp(sanitizer), f"-DRUNNER_SANITIZE={sanitizer}",
                          "-DCMAKE_BUILD_TYPE=Debug")
    for name in ("branchy", "fallback"):
        got, expected = outputs(tmp_path_factory.mktemp(name), tiny_models[name], name,
                                [str(binary)], cores=CORES)
        assert got == expected
    root = tmp_path_factory.mktemp("policies")
    layout = native.lay_out(root, {n: tiny_models[n] for n in ("chain", "branchy")}, parts=3,
                            cores=CORES)
    for baseline in sorted(native.POLICIES):
        header = root / f"{baseline}.json"
        header.write_text(json.dumps(native.policy_header(baseline, layout, len(CORES))))
        result = native.run(binary, layout, "--frames", "3", "--policy", str(header),
                            "--decisions", str(root / f"{baseline}.jsonl"))
        assert "Sanitizer" not in result.stderr and "runtime error" not in result.stderr, (
            result.stderr)
    run_alternatives(binary, tmp_path_factory.mktemp("alternatives"), tiny_models)
    run_drop_waits(binary, tmp_path_factory.mktemp("drop_waits"), tiny_models)
    run_simulated(binary, tmp_path_factory.mktemp("simulated"))
    corpus = sorted((native.SOURCE / "fuzz" / "corpus").iterdir())
    clean(subprocess.run([str(binary.parent / "replay_corpus"), *map(str, corpus)],
                         capture_output=True, text=True, timeout=1200))


def run_simulated(binary: Path, root: Path) -> None:
    """Every policy family under every traffic, simulated: the rows equal Python's."""
    for k, (family, arrival) in enumerate((f, a) for f in FAMILIES for a in ARRIVALS):
        case = Case(family, k, arrival, 6, 1 + k % 3, 300.0 if arrival is Arrival.frames
                    else 1000.0)
        cpp = run_runner(binary, case, make_setup(case), root / str(k))
        assert not difference(run_python(case, make_setup(case)), cpp)


def clean(result: subprocess.CompletedProcess[str]) -> None:
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Sanitizer" not in result.stderr and "runtime error" not in result.stderr, (
        result.stderr)


def run_alternatives(binary: Path, root: Path, tiny_models: dict[str, Path]) -> None:
    """ADMS's candidate plans with SLOs, streams and the monitor reading sensor files; then
    every subgraph profiled alone."""
    models = {n: tiny_models[n] for n in ("chain", "branchy")}
    plan = candidates.lay_out(root, models, AdmsPolicy(AdmsConf(window_size=1), lambda *_: 0,
                                                       "runner"), "adms", CORES,
                              {"chain": 3_000_000})
    (root / "header.json").write_text(json.dumps(plan.header))
    (root / "temp").write_text("45000\n")
    (root / "sensors.txt").write_text(f"sensor cpu0 temperature_c path={root}/temp scale=0.001\n"
                                      "sensor cpu0 load cpus=0\n")
    (root / "arrivals.txt").write_text("".join(f"{k * 2_000_000} {m} {s}\n" for k in range(10)
                                               for s, m in enumerate(models)))
    clean(native.run(binary, plan.layout, "--arrivals", str(root / "arrivals.txt"), "--policy",
                     str(root / "header.json"), "--decisions", str(root / "trace.jsonl"),
                     "--sensors", str(root / "sensors.txt"), "--sensor-interval-ms", "5",
                     "--sensor-log", str(root / "sensors.tsv"), check=False))
    clean(subprocess.run([str(binary), "--plan", str(plan.layout.plan), "--slices",
                          str(plan.layout.slices), "--profile", "2", "--profile-out",
                          str(root / "profile.tsv")], capture_output=True, text=True,
                         timeout=1200))


def run_drop_waits(binary: Path, root: Path, tiny_models: dict[str, Path]) -> None:
    """Band under a 0.6 ms SLO drops: frames two in flight, then streams, each waiting 2 ms
    after a drop (the main thread woken for a release sooner than it sleeps until)."""
    models = {n: tiny_models[n] for n in ("chain", "branchy")}
    plan = candidates.lay_out(root, models, BandPolicy(BandConf()), "band", CORES,
                              dict.fromkeys(models, 600_000))
    (root / "header.json").write_text(json.dumps(plan.header))
    for traffic in (("--frames", "12", "--in-flight", "2"), ("--streams", "8")):
        clean(native.run(binary, plan.layout, *traffic, "--drop-wait-ns", "2000000", "--policy",
                         str(root / "header.json"), check=False))


def cross_missing() -> str | None:
    tools = ("aarch64-linux-gnu-g++", "qemu-aarch64", "unshare")
    absent = [t for t in tools if not shutil.which(t)]
    if absent:
        return f"{', '.join(absent)} missing (apt-get install g++-aarch64-linux-gnu qemu-user)"
    if os.geteuid() != 0:
        return "qemu run needs root (bind-mounts an aarch64 /proc/cpuinfo)"
    if subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode != 0:
        return "no private mount namespace here (unshare -m fails: a container without it)"
    return None


@pytest.mark.cross
@pytest.mark.skipif(cross_missing() is not None, reason=f"aarch64 build: {cross_missing()}")
def test_aarch64_build_under_qemu(tmp_path: Path, tiny_models: dict[str, Path]) -> None:
    env = {**os.environ, "PYTHON": sys.executable}
    built = subprocess.run([str(CROSS), "build"], capture_output=True, text=True, env=env,
                           timeout=1800)
    assert built.returncode == 0, built.stderr[-3000:]
    model, run = tiny_models["mobile_block"], [str(CROSS), "run"]
    chained, python_x86 = outputs(tmp_path / "chained", model, "mobile_block", run)
    whole, _ = outputs(tmp_path / "whole", model, "mobile_block", run, parts=1)
    assert chained == whole
    for index, value in python_x86.items():  # XNNPACK's Arm kernels round differently
        np.testing.assert_allclose(np.frombuffer(chained[index], np.float32),
                                   np.frombuffer(value, np.float32), rtol=1e-5, atol=1e-7)
