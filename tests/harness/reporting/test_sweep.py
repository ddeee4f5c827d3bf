"""A frames-in-flight sweep read back from hand-made run folders: rows, ordering, titles."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from harness.reporting import sweep
from harness.seams.errors import UserError

#: (scenario, frames in flight) -> baseline -> (fps, half-width, p90 ms)
POINTS = {
    ("frs", 1): {"tflite": (20.0, 0.5, 50.0), "tflite_gpu": (15.0, 0.5, 70.0),
                 "adms": (25.0, 0.5, 40.0)},
    ("frs", 8): {"tflite": (30.0, 1.0, 260.0), "tflite_gpu": (18.0, 0.5, 440.0),
                 "adms": (29.5, 1.0, 270.0)},
    ("ros", 2): {"tflite": (19.0, 0.2, 100.0), "tflite_gpu": (19.0, 0.2, 100.0),
                 "adms": (21.0, 0.2, 90.0)},
}


def _folder(root: Path, scenario: str, fif: int, rows: dict[str, tuple[float, float, float]]
            ) -> None:
    folder = root / "k50pro" / scenario / str(fif)
    folder.mkdir(parents=True)
    config = {"scenario": {"name": scenario, "arrival": "Arrival.frames",
                           "frames_in_flight": fif}}
    (folder / "manifest.json").write_text(json.dumps({"config": config}))
    table = pd.DataFrame([{"device_kind": "twin", "device": "k50pro", "scenario": scenario,
                           "baseline": b, "n_seeds": 3, "fps": f, "fps_low": f - h,
                           "fps_high": f + h, "latency_p90_ms": p}
                          for b, (f, h, p) in rows.items()])
    table.to_csv(folder / "summary.csv", index=False)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    for (scenario, fif), rows in POINTS.items():
        _folder(tmp_path, scenario, fif, rows)
    return tmp_path


def test_collect_reads_every_run_with_its_frames_in_flight(root: Path) -> None:
    table = sweep.collect(sweep.run_folders(root))
    assert len(table) == 9
    assert list(table[["scenario", "frames_in_flight"]].drop_duplicates().itertuples(
        index=False, name=None)) == [("frs", 1), ("frs", 8), ("ros", 2)]
    frs8 = table[(table["scenario"] == "frs") & (table["frames_in_flight"] == 8)]
    assert frs8.set_index("baseline").loc["adms", "fps"] == 29.5


def test_order_says_where_intervals_separate_and_where_they_overlap(root: Path) -> None:
    table = sweep.collect(sweep.run_folders(root))

    def at(scenario: str, fif: int) -> str:
        return sweep.order(table[(table["scenario"] == scenario)
                                 & (table["frames_in_flight"] == fif)])

    assert at("frs", 1) == "adms > tflite (oracle) > tflite_gpu"
    assert at("frs", 8) == "tflite (oracle) ≈ adms > tflite_gpu"  # the ordering changed


def test_each_scenario_table_is_titled_with_its_frames_in_flight(root: Path) -> None:
    text = sweep.markdown(sweep.collect(sweep.run_folders(root)))
    titles = [line for line in text.splitlines() if line.startswith("**")]
    assert titles == [
        "**device k50pro · scenario frs · frames in flight 1, 8 · each cell: FPS ± 95% CI / "
        "p90 latency ms**",
        "**device k50pro · scenario ros · frames in flight 2 · each cell: FPS ± 95% CI / "
        "p90 latency ms**"]
    assert "| 1 | 20.00 ± 0.50 / 50.0 | 15.00 ± 0.50 / 70.0 | 25.00 ± 0.50 / 40.0 |" in text


def test_report_writes_the_table_and_a_figure_per_scenario(root: Path) -> None:
    written = sweep.report(root)
    assert [p.name for p in written] == ["frames_sweep.csv", "frames_sweep.md",
                                         "frames_sweep_frs.png", "frames_sweep_ros.png"]
    assert all(p.stat().st_size > 0 for p in written)
    assert len(pd.read_csv(root / "frames_sweep.csv")) == 9


def test_no_runs_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no run folder"):
        sweep.collect(sweep.run_folders(tmp_path))
    assert sweep.main([str(tmp_path)]) == 2
