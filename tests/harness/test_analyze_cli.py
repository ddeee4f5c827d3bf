"""`python -m harness.analyze`: Table III counts, the Figure 6 sweep, and one-line errors.

The model is the Figure 5 graph of ``test_analyzer``, saved as a graph profile and named by a
model config in a temporary config directory added to Hydra's search path.
"""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import pytest

from harness.analyze import main, run
from tests.baselines.band.test_analyzer import FIG5
from tests.fixtures.paths import REPO
from tests.harness.experiment.test_cli import assert_user_error

ROOT = REPO


@pytest.fixture
def fig5_args(tmp_path: Path) -> list[str]:
    (tmp_path / "conf" / "model").mkdir(parents=True)
    (tmp_path / "conf" / "model" / "fig5.yaml").write_text("name: fig5\n")
    profile = FIG5.save(tmp_path / "fig5.json")
    return ["model=fig5", f"hydra.searchpath=[file://{tmp_path / 'conf'}]", f"graph={profile}"]


def analyze_cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness.analyze", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300, check=False)


def test_counts_per_window_on_p20(fig5_args: list[str]) -> None:
    # P20: cpu (all), gpu, npu (NNAPI 27: no MEAN before 28) -> the npu misses op 4.
    rows = run([*fig5_args, "device=p20"])
    assert [(r["unit"], r["unit_subgraphs"], r["merged"], r["total"]) for r in rows] == [
        (3, 8, 4, 12)]
    assert rows[0]["npu_ops_pct"] == pytest.approx(100 * 6 / 7)
    assert rows[0]["cpu_ops_pct"] == 100


def test_cli_prints_the_table(fig5_args: list[str], tmp_path: Path) -> None:
    proc = analyze_cli(*fig5_args, "device=p20", "window_size=3", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "fig5" in proc.stdout and "p20" in proc.stdout
    assert not (tmp_path / "results").exists()


def test_sweep_writes_csv_and_png(fig5_args: list[str], tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = analyze_cli(*fig5_args, "device=p20", "window_size=[1,2,3,5]", f"out_dir={out}")
    assert proc.returncode == 0, proc.stderr
    assert f"wrote {out / 'subgraphs_vs_window.csv'}" in proc.stdout.replace("\n", "")
    with (out / "subgraphs_vs_window.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [(r["window_size"], r["total"]) for r in rows] == [
        ("1", "12"), ("2", "12"), ("3", "7"), ("5", "2")]
    assert (out / "subgraphs_vs_window.png").read_bytes()[:4] == b"\x89PNG"


def test_sweep_defaults_to_results_analyze_device(fig5_args: list[str], tmp_path: Path) -> None:
    proc = analyze_cli(*fig5_args, "device=mi6", "window_size=[1,2]", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "results" / "analyze" / "mi6" / "subgraphs_vs_window.csv").is_file()


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["window_size=0"], ["window_size", "0"]),
        (["window_size=[1,0]"], ["window_size"]),
        (["window_size=big"], ["window_size", "big"]),
        (["device.processors.1.kind=TPU"], ["TPU"]),
        (["device.processors.1.support=edgetpu"], ["edgetpu"]),
        (["device=pixel9"], ["pixel9"]),
        (["model=resnet999"], ["resnet999"]),
        (["windw=3"], ["windw"]),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    fig5_args: list[str], args: list[str], needles: list[str],
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """The command's ``main`` in this process (``test_missing_profile_is_a_user_error`` and
    the sweep tests run it as a real process)."""
    monkeypatch.chdir(ROOT)
    with pytest.raises(SystemExit) as ended:
        main([*fig5_args, *args])
    code = ended.value.code
    assert isinstance(code, int), code
    assert_user_error(subprocess.CompletedProcess(args, code, "", capsys.readouterr().err),
                      *needles)


def test_missing_profile_is_a_user_error(tmp_path: Path) -> None:
    proc = analyze_cli("graph=" + str(tmp_path / "none.json"), "model=all")
    assert proc.returncode == 2 and "none.json" in proc.stderr and "Traceback" not in proc.stderr
