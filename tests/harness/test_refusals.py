"""Inputs that used to pass silently or end in a traceback are one ``error:`` line, exit 2
(issue 25 items 5, 6 and 8): NaN or negative tolerances and thresholds, an empty seed list or
matrix, names with ``..`` or ``/`` that would become paths outside the results tree, and a
mapping where a name belongs. Each case is a real process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from harness.config.names import plain_name
from harness.seams.errors import UserError
from tests.fixtures.paths import REPO
from tests.harness.experiment.test_cli import assert_user_error


def run(module: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", module, *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300, check=False)


@pytest.mark.parametrize(("args", "needles"), [
    (["thresholds.fps=nan"], ["thresholds.fps", "finite"]),
    (["thresholds.latency_p90_ms=-1"], ["thresholds.latency_p90_ms", "out of range"]),
    (["matrix.seeds=[]"], ["matrix.seeds", "empty"]),
    (["matrix.scenarios=[]"], ["matrix.scenarios", "empty"]),
    (["matrix.seeds=[4294967296]"], ["matrix.seeds.0", "4294967295"]),
    (["night=../escaped"], ["night", "plain name"]),
    (["previous=a/b"], ["previous", "plain name"]),
])
def test_the_farm_refuses_what_would_pass_silently(args: list[str], needles: list[str],
                                                   tmp_path: Path) -> None:
    assert_user_error(run("harness.farm", *args, f"results={tmp_path}/farm", cwd=REPO), *needles)
    assert not (tmp_path / "escaped").exists()


@pytest.mark.parametrize(("value", "needle"), [("nan", "nan"), ("-1", "-1"), ("inf", "inf")])
def test_compare_refuses_a_tolerance_that_cannot_fail(value: str, needle: str,
                                                      tmp_path: Path) -> None:
    done = run("harness.compare", str(tmp_path), str(tmp_path), f"--tolerance={value}", cwd=REPO)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert needle in done.stderr and "--tolerance" in done.stderr


@pytest.mark.parametrize(("args", "needles"), [
    (["scenario.name=../../escaped"], ["scenario.name", "plain name"]),
    (["scenario.models=[{a: 1}]"], ["scenario.models.0", "not a model name"]),
    (["run=[{a: 1}]"], ["run.0", "not a baseline name"]),
    (["scenario.duration_s=1e12"], ["scenario.duration_s", "out of range"]),
    (["seed.base=9223372036854775807"], ["seed.base", "4294967295"]),
])
def test_the_run_refuses_names_and_values_it_cannot_use(args: list[str], needles: list[str],
                                                        tmp_path: Path) -> None:
    done = run("harness", "device=k50pro", "scenario=single", *args, cwd=tmp_path)
    assert_user_error(done, *needles)
    assert not (tmp_path / "escaped").exists()


@pytest.mark.parametrize("bad", ["", ".", "..", "a/b", "..\\x", "../x"])
def test_a_name_with_a_path_in_it_is_refused(bad: str) -> None:
    with pytest.raises(UserError, match="plain name"):
        plain_name("night", bad)


def test_a_plain_name_passes() -> None:
    assert plain_name("night", "2026-12-01_a.b") == "2026-12-01_a.b"


def test_a_folder_given_as_a_model_is_named_a_folder(tmp_path: Path) -> None:
    folder = tmp_path / "m.tflite"
    folder.mkdir()
    done = run("harness", "device=k50pro", f"scenario.models=[{folder}]", "run=[tflite]",
               cwd=tmp_path)
    assert_user_error(done, "is a folder")


def test_a_flatbuffer_that_is_not_a_model_says_so(tmp_path: Path) -> None:
    (tmp_path / "m.tflite").write_bytes(b"1234TFL3" + bytes(64))
    done = run("harness", "device=k50pro", f"scenario.models=[{tmp_path}/m.tflite]",
               "run=[tflite]", cwd=tmp_path)
    assert_user_error(done, "m.tflite")
