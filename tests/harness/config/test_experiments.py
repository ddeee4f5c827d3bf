"""Experiment configs (``conf/experiment/*.yaml``): each composes, validates and plans.

An experiment is one YAML file in Hydra's *configuring experiments* pattern
(``# @package _global_``, selected with ``+experiment=<name>``); a sweep is its
``hydra.sweeper.params``. For every file, and for every point of its sweep, the config is
composed with real Hydra, validated against :class:`~harness.config.schema.RunConf` and
handed to :func:`~harness.experiment.session.run_session` with ``dry_run=true``: nothing is
run. One multirun goes through the real command line (``python -m harness -m``), as a user
would type it.
"""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hydra.core.override_parser.overrides_parser import OverridesParser
from omegaconf import DictConfig

from harness.config.compose import compose, to_object
from harness.config.schema import RunConf
from harness.experiment.components import register
from harness.experiment.session import run_session
from harness.models import zoo
from tests.fixtures.paths import REPO

ROOT = REPO
EXPERIMENTS = sorted(p.stem for p in (ROOT / "conf" / "experiment").glob("*.yaml"))

#: experiment -> (dotted field of RunConf, expected value)
EXPECTED: dict[str, list[tuple[str, Any]]] = {
    "paper_fig8": [("scenario.duration_s", 30.0), ("run", ["tflite", "band", "adms"])],
    "slo_sweep": [("device.name", "k50pro"), ("run", ["tflite", "adms"]),
                  ("scenario.slo_multiplier", 1.0)],
    "long_duration": [("device.name", "k50pro"), ("scenario.duration_s", 1800.0)],
    "thermal_stress": [("device.name", "k50pro"), ("device.twin.ambient_c", 35.0),
                       ("scenario.duration_s", 900.0)],
    "concurrency": [("device.name", "k50pro"), ("scenario.name", "concurrency")],
    "frames_sweep": [("device.name", "k50pro"), ("seed.count", 3),
                     ("run", ["tflite", "tflite_gpu", "band", "adms", "adms_ef"])],
    "readings": [("device.name", "k50pro"), ("seed.count", 10), ("scenario.duration_s", 10.0),
                 ("run", ["tflite", "tflite_gpu", "band_best", "adms_readings"])],
    "windows": [("run", ["adms", "adms_per_model", "band", "band7", "adms_window1", "adms_ws2",
                         "adms_ws3", "adms_ws4", "adms_ws5", "adms_ws8", "adms_ws12"]),
                ("baselines.adms_ws4.window_size", 4)],
}
#: experiment -> the values its sweep must cover, per swept key
SWEEPS: dict[str, dict[str, list[str]]] = {
    "paper_fig8": {"device": ["k50pro", "p20"], "scenario": ["frs", "ros"]},
    "slo_sweep": {"scenario.slo_multiplier": [f"{x / 10:.1f}" for x in range(5, 16)]},
    "frames_sweep": {"scenario": ["frs", "ros"], "scenario.frames_in_flight": ["1", "2", "4", "8"]},
}


def compose_raw(overrides: list[str], hydra_node: bool = False) -> DictConfig:
    register()
    return compose("config", overrides, with_hydra=hydra_node)


def sweep_points(name: str) -> list[list[str]]:
    """Every combination of the experiment's ``hydra.sweeper.params``, as override lists."""
    params = compose_raw([f"+experiment={name}"], hydra_node=True).hydra.sweeper.params or {}
    parsed = OverridesParser.create().parse_overrides([f"{k}={v}" for k, v in params.items()])
    axes = [[f"{o.key_or_group}={v}" for v in o.sweep_string_iterator()] for o in parsed]
    return [list(point) for point in itertools.product(*axes)]


def field(run: RunConf, dotted: str) -> Any:
    value: Any = run
    for part in dotted.split("."):
        value = value[part] if isinstance(value, dict) else getattr(value, part)
    return value


def test_every_experiment_has_expectations() -> None:
    assert sorted(EXPECTED) == EXPERIMENTS


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_header_says_what_it_targets_and_how_to_run_it(name: str) -> None:
    lines = (ROOT / "conf" / "experiment" / f"{name}.yaml").read_text().splitlines()
    assert lines[0] == "# @package _global_"
    assert lines[1].startswith("# Paper ")
    header = "\n".join(ln for ln in lines if ln.startswith("#"))
    assert "python -m harness" in header and f"+experiment={name}" in header


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_composes_validates_and_dry_runs(name: str, tmp_path: Path) -> None:
    raw = compose_raw([f"+experiment={name}", "dry_run=true"])
    run: RunConf = to_object(raw, RunConf)
    for dotted, value in EXPECTED[name]:
        assert field(run, dotted) == value, dotted
    assert run_session(run, raw, str(tmp_path)) == tmp_path
    assert list(tmp_path.iterdir()) == []  # a dry run records nothing


def _spread(points: list[list[str]]) -> list[list[str]]:
    """The first, middle and last point of a sweep (a point costs ~1 s of Hydra)."""
    return [points[k] for k in sorted({0, len(points) // 2, len(points) - 1})] if points else []


@pytest.mark.parametrize("name", EXPERIMENTS)
@pytest.mark.parametrize("every", [pytest.param(False, id="spread"),
                                   pytest.param(True, id="all", marks=pytest.mark.slow)])
def test_sweep_points_validate(name: str, every: bool) -> None:
    """Every point composes to a valid run with zoo models, none twice (the default run takes
    three points of each sweep; ``-m slow`` all of them); the sweep covers its values."""
    known = set(zoo.names())
    points = sweep_points(name)
    for point in points if every else _spread(points):
        run = to_object(compose_raw([f"+experiment={name}", *point]), RunConf)
        assert set(run.scenario.models) <= known, point
        assert len(set(run.scenario.models)) == len(run.scenario.models), point
    for key, values in SWEEPS.get(name, {}).items():
        assert sorted({p.split("=", 1)[1] for pt in points for p in pt if p.startswith(key + "=")}
                      ) == sorted(values)


def _settings(point: list[str]) -> dict[str, str]:
    return dict(p.split("=", 1) for p in point)


def test_frames_sweep_is_four_values_for_each_of_two_scenarios() -> None:
    points = [_settings(p) for p in sweep_points("frames_sweep")]
    assert len(points) == 8
    assert {(p["scenario"], p["scenario.frames_in_flight"]) for p in points} == {
        (s, str(n)) for s in ("frs", "ros") for n in (1, 2, 4, 8)}


def test_concurrency_sweeps_four_to_thirteen_distinct_models() -> None:
    lists = [_settings(p)["scenario.models"].strip("[]").split(",")
             for p in sweep_points("concurrency")]
    assert [len(models) for models in lists] == list(range(4, 14))
    assert all(len(set(models)) == len(models) for models in lists)


def multirun(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "harness", "-m", *args, "dry_run=true",
           f"hydra.sweep.dir={tmp_path}"]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300,
                          check=False)


@pytest.mark.slow  # ~25 s of composing; the panels' overrides are checked by the sweep
# tests above and the command line's multirun by the two-job sweep below
def test_paper_fig8_multirun_launches_its_four_panels(tmp_path: Path) -> None:
    done = multirun(tmp_path, "+experiment=paper_fig8")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Launching 4 jobs" in done.stdout + done.stderr
    for device, scenario in itertools.product(("k50pro", "p20"), ("frs", "ros")):
        assert f"device={device} (twin) scenario={scenario}" in done.stdout


def test_command_line_sweep_is_accepted(tmp_path: Path) -> None:
    done = multirun(tmp_path, "+experiment=paper_fig8", "device=k50pro,p20", "scenario=frs")
    assert done.returncode == 0, done.stderr[-2000:]
