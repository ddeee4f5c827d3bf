"""The comparison report names the device kind and writes summary.csv."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pandas as pd
import pytest
from rich.console import Console

from harness.reporting import report, summaryfiles
from tests.harness.reporting.test_metrics import small_run

SESSION_MANIFEST = {"device": "k50pro", "device_kind": "host",
                    "kind_meaning": "THIS MACHINE (real measurements)", "scenario": "frs",
                    "seed": 3,
                    "versions": {"pandas": "3.1"}, "git_commit": "abcdef1234567"}


def test_title_names_the_device_kind(tmp_path: Path) -> None:
    run = small_run(tmp_path)
    out = io.StringIO()
    report.print_comparison(run, Console(file=out, width=200))
    text = out.getvalue()
    assert "TWIN = SIMULATION" in text
    assert "device k50pro" in text and "scenario frs" in text and "seed 7" in text
    assert "45.12" in text  # the paper's ADMS FPS


@pytest.mark.parametrize(("kind", "said", "words"), [
    ("host", {"kind_meaning": "THIS MACHINE (real measurements)"}, "THIS MACHINE"),
    ("adb", {"kind_words": "ADB = PHONE over adb (real measurements)"}, "PHONE over adb"),
    ("quantum", {"kind_meaning": "A QUANTUM PHONE"}, "A QUANTUM PHONE"),
    ("x", {}, "UNKNOWN device kind 'x'")])
def test_identity_from_session_manifest(kind: str, said: dict[str, str], words: str) -> None:
    """The kind's meaning is the one its device class declared, as the manifest recorded it
    (``kind_meaning``; ``kind_words`` in older folders); a report knows no kinds itself."""
    base = {k: v for k, v in SESSION_MANIFEST.items() if k != "kind_meaning"}
    identity = report.run_identity({**base, "device_kind": kind, **said})
    assert identity.title().startswith(f"{kind.upper()} = {words}")
    assert "seed 3" in identity.title() and "commit abcdef1234" in identity.title()


def test_summary_csv_columns(tmp_path: Path) -> None:
    run = small_run(tmp_path)
    path = summaryfiles.summary_csv(run)
    table = pd.read_csv(path)
    assert path == tmp_path / "summary.csv"
    assert list(table.columns[:5]) == ["device_kind", "device", "scenario", "baseline",
                                       "n_seeds"]
    for column in ("fps", "fps_low", "fps_high", "paper_fps", "fps_vs_tflite",
                   "fps_vs_tflite_low", "paper_ratio_vs_tflite", "latency_p50_ms",
                   "latency_p90_ms", "slo_pct", "dropped", "energy_per_frame_j",
                   "peak_temperature_c", "time_to_throttle_s", "bound_fps", "bound_pct"):
        assert column in table.columns
    assert list(table["baseline"]) == ["tflite", "band", "adms"]
    assert set(table["device_kind"]) == {"twin"}
    assert table.loc[2, "paper_ratio_vs_tflite"] == pytest.approx(4.04)
    seeds = pd.read_csv(tmp_path / "summary_seeds.csv")
    assert {"baseline", "seed", "fps"} <= set(seeds.columns) and len(seeds) == 3


def test_markdown_has_title_header_and_rows(tmp_path: Path) -> None:
    run = small_run(tmp_path, {"tflite_gpu": 0.8},
                    manifest={**SESSION_MANIFEST, "scenario": "ros"})
    table, identity = report.report_table(run)
    text = report.markdown(table, identity)
    lines = text.splitlines()
    assert lines[0].startswith("**HOST = THIS MACHINE")
    headers = [line for line in lines if line.startswith("| baseline")]
    assert headers[0].startswith("| baseline | FPS ± 95% CI | % of bound")
    assert headers[1].startswith("| baseline | p50 ms | p90 ms")
    assert len([line for line in lines if line.startswith("| ")]) == 2 * (1 + 4)
    assert "derived" in text  # ROS Band/TFLite values come from stated ratios
    vanilla = next(line for line in lines if line.startswith("| tflite_gpu |"))
    assert f"{6.98 / 2.84:.2f}" in vanilla  # the paper's TFLite, beside its vanilla TFLite
    oracle = next(line for line in lines if line.startswith("| tflite (oracle) |"))
    assert f"{6.98 / 2.84:.2f}" not in oracle


def test_the_bound_and_failures_are_printed_under_the_table(tmp_path: Path) -> None:
    manifest = {"bound": {"7": {"frames_per_s": 80.0}},
                "runs": {"band7": {"7": {"failed": "out of memory on k50pro: 9 subgraphs"}},
                         "adms": {"7": {"bound": {"frames_per_s": 70.0},
                                        "as_run_bound": {"frames_per_s": 50.0}}}}}
    run = small_run(tmp_path, manifest=manifest)
    table, _identity = report.report_table(run)
    rows = table.set_index("baseline")
    assert rows.loc["adms", "bound_fps"] == 80.0 and rows.loc["adms", "own_bound_fps"] == 70.0
    assert rows.loc["adms", "bound_pct"] == pytest.approx(100 * rows.loc["adms", "fps"] / 80)
    assert rows.loc["adms", "as_run_pct"] == pytest.approx(100 * rows.loc["adms", "fps"] / 50)
    out = io.StringIO()
    report.print_comparison(run, Console(file=out, width=200))
    text = out.getvalue()
    assert "bound: 80.00 frames/s" in text
    assert "band7 failed: seed 7: out of memory on k50pro" in text
    assert re.search(r"│ band7 +│ +failed │", text)


def _with_load(frames_in_flight: int) -> dict[str, object]:
    scenario = {"name": "frs", "arrival": "Arrival.frames", "frames_in_flight": frames_in_flight,
                "fps": 30.0, "models": ["retinaface", "arcface_mobilenet"]}
    return {**SESSION_MANIFEST, "config": {"scenario": scenario}}


def test_every_table_title_states_the_frames_in_flight(tmp_path: Path) -> None:
    run = small_run(tmp_path, manifest=_with_load(4))
    out = io.StringIO()
    report.print_comparison(run, Console(file=out, width=250))
    titles = [line for line in out.getvalue().splitlines()
              if "HOST = THIS MACHINE" in line or line.startswith("latency, SLO")]
    assert len(titles) == 2 and all("frames in flight 4" in t for t in titles)
    table, identity = report.report_table(run)
    text = report.markdown(table, identity)
    named = [line for line in text.splitlines() if line.startswith(("**", "_throughput",
                                                                    "_latency"))]
    assert len(named) == 3 and all("frames in flight 4" in line for line in named)


def test_periodic_arrival_is_stated_instead() -> None:
    manifest = _with_load(2)
    manifest["config"]["scenario"]["arrival"] = "Arrival.periodic"  # type: ignore[index]
    assert "periodic arrival at 30 frames/s" in report.run_identity(manifest).title()


def test_tflite_is_labelled_an_oracle_and_both_ratios_are_shown(tmp_path: Path) -> None:
    run = small_run(tmp_path, speed={"tflite_gpu": 0.5})
    out = io.StringIO()
    table = report.print_comparison(run, Console(file=out, width=250))
    text = out.getvalue()
    assert "tflite (oracle)" in text and report.ORACLE_NOTE[:40] in text.replace("\n", " ")
    assert "×tflite (oracle)" in text and "×tflite_gpu" in text
    assert list(table["baseline"]) == ["tflite", "band", "adms", "tflite_gpu"]  # keys kept
    adms = table.set_index("baseline").loc["adms"]
    assert adms["fps_vs_tflite_gpu"] == pytest.approx(adms["fps"] / table.set_index(
        "baseline").loc["tflite_gpu", "fps"])


def test_summary_md_opens_with_the_headline_then_the_boxes(tmp_path: Path) -> None:
    run = small_run(tmp_path)
    text = summaryfiles.summary_md(run).read_text()
    assert text.startswith("**Paper (Redmi K50 Pro, FRS): ADMS 4.04× TFLite, 1.21× Band. "
                           "This run (adms): ")
    assert text.index("> **adms / band") < text.index("| baseline |")
