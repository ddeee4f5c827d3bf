"""``python -m harness.validate`` on a tiny real model: the host's twin predicts the host.

Real LiteRT on this machine's cores, a tiny fixture model (:mod:`tests.fixtures.tinymodels`,
saved under a zoo name) run alone in a closed loop, so each run takes a second or two. The
twin is calibrated from the model's slices alone and its single-model runs, then the rows run
on both sides. Checked:

* the intact twin predicts the host's FPS within a bound on every row;
* a twin with one cost mechanism switched off (``scheduler_cost``: the runtime's overhead per
  subgraph, which on a tiny model is most of its time) or mis-scaled (every measured slice
  latency divided by ten) misses that bound: the comparison can tell a broken twin;
* the statistics (error, interval, ordering, Kendall's tau) on known values;
* bad input: a twin device, one ``error:`` line.

The bound here is wide (a shared machine's load moves a second-long host run by tens of
percent); the broken mechanisms miss it by far more.
"""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest
import yaml

from devices.host.spec import available_cores
from harness.reporting.stats import mean_ci, ratio_ci
from harness.seams.errors import UserError
from harness.validate import compare
from harness.validate.__main__ import run

#: the bound the intact twin must meet on the tiny model, and the broken ones miss, %
BOUND_PCT = 40.0
MODEL = "arcface_mobilenet"

needs_two_cores = pytest.mark.skipif(
    len(available_cores()) < 2, reason="the host configs pin workers to cores 0 and 1")


def args(zoo: Path, out: Path, *extra: str) -> list[str]:
    return ["device=host_equal", "scenario=single", f"scenario.models=[{MODEL}]",
            "run=[tflite,band,adms]", f"zoo_cache={zoo}", f"out={out}", "seeds=2",
            "duration_s=1", "warmup_s=0.2", "single_s=0.5", *extra]


@pytest.fixture(scope="module")
def zoo(tiny_models: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("validate_zoo")
    shutil.copy(tiny_models["chain"], folder / f"{MODEL}.tflite")
    return folder


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("validate_out")


def fps_errors(out: Path) -> dict[str, float]:
    """Row -> the twin's FPS error, %, from the run folders the command left."""
    host = next((out / "host").glob("*/run"))
    twins = sorted((out / "twin").glob("*/run"), key=lambda p: p.stat().st_mtime)
    rows = compare.compare(host, twins[-1], ["tflite", "band", "adms"])
    return {r.baseline: r.error_pct() for r in rows if r.metric == "fps"}


@needs_two_cores
def test_the_intact_twin_predicts_the_host(zoo: Path, out: Path) -> None:
    report = run(args(zoo, out))
    errors = fps_errors(out)
    assert report.is_file() and "| adms |" in report.read_text()
    assert all(abs(e) <= BOUND_PCT for e in errors.values()), errors
    twin = yaml.safe_load(next((out / "device").glob("*.yaml")).read_text())
    assert twin["twin"]["scheduler_fixed_us"] > 0
    assert twin["processors"][0]["twin"]["measured_us"]


@needs_two_cores
@pytest.mark.parametrize("broken", [
    "device.twin.mechanisms.scheduler_cost=false",
    "device.twin.scheduler_fixed_us=0.5",
])
def test_a_broken_mechanism_misses_the_bound(zoo: Path, out: Path, broken: str) -> None:
    run(args(zoo, out, f"twin_overrides=[{broken}]"))
    errors = fps_errors(out)
    assert max(errors.values()) > BOUND_PCT, errors


def test_error_interval_and_ordering_on_known_values() -> None:
    host = {0: 10.0, 1: 12.0, 2: 11.0}
    twin = {0: 11.0, 1: 13.2, 2: 12.1}
    row = compare.RowError("a", "fps", mean_ci(list(host.values())),
                           mean_ci(list(twin.values())), ratio_ci(twin, host))
    assert math.isclose(row.error_pct(), 10.0)
    assert row.within(10.5) and not row.within(9.0)
    assert compare.kendall_tau(["a", "b", "c"], ["a", "b", "c"]) == 1.0
    assert compare.kendall_tau(["a", "b", "c"], ["c", "b", "a"]) == -1.0


def test_a_twin_device_is_refused() -> None:
    with pytest.raises(UserError, match=r"k50pro.*twin device"):
        run(["device=k50pro"])
