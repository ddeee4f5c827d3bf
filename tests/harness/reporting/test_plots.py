"""Plots are written as non-empty PNG files for a small run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image

from harness.reporting import plots
from harness.reporting.metrics import compute
from harness.reporting.report import run_identity
from tests.harness.reporting.test_metrics import req, small_run, write_run

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_plot_all_writes_every_png(tmp_path: Path) -> None:
    run = small_run(tmp_path / "run")
    paths = plots.plot_all(run, tmp_path / "out")
    names = sorted(p.name for p in paths)
    assert names == ["fps.png", "latency_cdf.png", "power.png", "thermal.png", "timeline.png"]
    for path in paths:
        assert path.read_bytes()[:8] == PNG_MAGIC
        assert path.stat().st_size > 5_000


def test_plot_all_skips_what_the_run_lacks(tmp_path: Path) -> None:
    run = write_run(tmp_path, [req("adms", 0, "m", 0, 0, 5), req("adms", 1, "m", 1, 10, 15)])
    paths = plots.plot_all(run)
    assert sorted(p.name for p in paths) == ["fps.png", "latency_cdf.png"]
    assert all(p.parent == tmp_path for p in paths)


def _red_pixels(path: Path) -> int:
    with Image.open(path) as image:
        rgb = np.asarray(image.convert("RGB")).astype(int)
    return int(((rgb[..., 0] > 180) & (rgb[..., 1] < 80)).sum())


def test_fps_plot_keeps_a_slot_for_a_failed_baseline(tmp_path: Path) -> None:
    run = small_run(tmp_path / "run")
    scenario, identity = compute(run).scenario, run_identity(run.manifest)
    per_seed = scenario[scenario["baseline"] != "band"]  # band completed no seed
    plain = plots.fps_plot(per_seed, identity, tmp_path / "plain.png")
    marked = plots.fps_plot(per_seed, identity, tmp_path / "failed.png",
                            {"band": "out of memory on k50pro at 1.46 s (every seed)"})
    assert marked.read_bytes()[:8] == PNG_MAGIC
    assert _red_pixels(marked) > _red_pixels(plain) + 50  # the red "failed" label


def test_no_thermal_plot_where_no_processor_has_such_a_sensor(tmp_path: Path) -> None:
    import dataclasses

    run = small_run(tmp_path / "run")
    sensors = run.sensors.copy()
    sensors["temperature_c"] = np.nan
    sensors["frequency_hz"] = np.nan  # a host VM: no thermal zone, no cpufreq
    bare = dataclasses.replace(run, sensors=sensors)
    names = {p.name for p in plots.plot_all(bare, tmp_path / "out")}
    assert "thermal.png" not in names and "power.png" in names
    # a device with a frequency but no temperature gets one row of panels, not two
    sensors["frequency_hz"] = run.sensors["frequency_hz"]
    half = plots.thermal_plot(dataclasses.replace(run, sensors=sensors),
                              run_identity(run.manifest), tmp_path / "half.png")
    whole = plots.thermal_plot(run, run_identity(run.manifest), tmp_path / "whole.png")
    with Image.open(half) as a, Image.open(whole) as b:
        assert a.size[1] < b.size[1]
