"""Inputs that used to pass silently or end in a traceback are one ``error:`` line, exit 2
(issue 25 items 5, 6 and 8): NaN or negative tolerances and thresholds, an empty seed list or
matrix, names with ``..`` or ``/`` that would become paths outside the results tree, and a
mapping where a name belongs. Each case is a real process."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.config.names import plain_name
from harness.seams.errors import UserError, cli_guard
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
    assert_user_error(done, needle, "--tolerance")


@pytest.mark.parametrize("args", [[], ["nope"], ["build", "--bogus"]])
def test_a_refused_command_line_is_one_line(args: list[str], tmp_path: Path) -> None:
    assert_user_error(run("harness.zoo", *args, cwd=tmp_path))


@pytest.mark.parametrize("code", [errno.EROFS, errno.EACCES])
def test_a_path_that_cannot_be_used_is_one_line(code: int,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as ended, cli_guard():
        raise OSError(code, os.strerror(code), "results/x")
    assert ended.value.code == 2
    assert capsys.readouterr().err.startswith("error: cannot use results/x: ")


def test_a_full_disk_is_left_to_the_run(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(OSError, match="No space"), cli_guard():
        raise OSError(errno.ENOSPC, "No space left on device", "results/x")


def test_analyze_refuses_a_mapping_for_a_window_size(tmp_path: Path) -> None:
    assert_user_error(run("harness.analyze", "window_size={a: 1}", cwd=tmp_path), "window_size")


def test_analyze_names_a_device_yaml_without_its_schema(tmp_path: Path) -> None:
    text = (REPO / "conf/device/k50pro.yaml").read_text()
    (tmp_path / "device").mkdir()
    (tmp_path / "device/mine.yaml").write_text(
        "\n".join(ln for ln in text.splitlines() if "/schema/device/" not in ln))
    done = run("harness.analyze", f"hydra.searchpath=[file://{tmp_path}]", "device=mine",
               cwd=tmp_path)
    assert_user_error(done, "k50pro", "schema")


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
