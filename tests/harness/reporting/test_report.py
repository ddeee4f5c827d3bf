"""The comparison report names the device kind and writes summary.csv."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
import pytest
from rich.console import Console

from harness.reporting import report
from tests.harness.reporting.test_metrics import small_run

SESSION_MANIFEST = {"device": "k50pro", "device_kind": "host", "scenario": "frs", "seed": 3,
                    "versions": {"pandas": "3.1"}, "git_commit": "abcdef1234567"}


def test_title_names_the_device_kind(tmp_path: Path) -> None:
    run = small_run(tmp_path)
    out = io.StringIO()
    report.print_comparison(run, Console(file=out, width=200))
    text = out.getvalue()
    assert "TWIN = SIMULATION" in text
    assert "device k50pro" in text and "scenario frs" in text and "seed 7" in text
    assert "45.12" in text  # the paper's ADMS FPS


@pytest.mark.parametrize(("kind", "words"), [("host", "THIS MACHINE"), ("adb", "PHONE"),
                                              ("twin", "SIMULATION"), ("x", "UNKNOWN")])
def test_identity_from_session_manifest(kind: str, words: str) -> None:
    identity = report.run_identity({**SESSION_MANIFEST, "device_kind": kind})
    assert identity.title().startswith(f"{kind.upper()} = ")
    assert words in identity.title()
    assert "seed 3" in identity.title() and "commit abcdef1234" in identity.title()


def test_summary_csv_columns(tmp_path: Path) -> None:
    run = small_run(tmp_path)
    path = report.summary_csv(run)
    table = pd.read_csv(path)
    assert path == tmp_path / "summary.csv"
    assert list(table.columns[:5]) == ["device_kind", "device", "scenario", "seed", "baseline"]
    for column in ("fps", "paper_fps", "ratio_vs_tflite", "paper_ratio_vs_tflite",
                   "latency_p50_ms", "latency_p90_ms", "slo_satisfaction", "dropped",
                   "energy_per_frame_j", "peak_temperature_c", "time_to_throttle_s"):
        assert column in table.columns
    assert list(table["baseline"]) == ["tflite", "band", "adms"]
    assert set(table["device_kind"]) == {"twin"}
    assert table.loc[2, "paper_ratio_vs_tflite"] == pytest.approx(4.04)


def test_markdown_has_title_header_and_rows(tmp_path: Path) -> None:
    run = small_run(tmp_path, manifest={**SESSION_MANIFEST, "scenario": "ros"})
    table, identity = report.report_table(run)
    text = report.markdown(table, identity)
    lines = text.splitlines()
    assert lines[0].startswith("**HOST = THIS MACHINE")
    assert lines[2].startswith("| baseline | FPS | paper FPS")
    assert len([line for line in lines if line.startswith("| ")]) == 1 + 3
    assert "derived" in text  # ROS Band/TFLite values come from stated ratios
    assert f"{6.98 / 2.84:.2f}" in text
