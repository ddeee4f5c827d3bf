"""Plots are written as non-empty PNG files for a small run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
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


def test_the_gpu_and_npu_lines_of_the_thermal_plot_differ_in_colour_and_dashes(
        tmp_path: Path) -> None:
    """Two processors with the same readings draw the same line: it is told apart by its
    colour and its dash pattern, which the legend repeats."""
    from unittest import mock

    from tests.harness.reporting.test_metrics import sens

    rows = [req("adms", k, "m", k, 10 * k, 10 * k + 5) for k in range(20)]
    sensors = [sens("adms", t, proc, 1.0, 40 + t / 100, frequency_hz=1e9 + t * 1e6)
               for t in range(0, 200, 20) for proc in ("gpu", "npu")]
    run = write_run(tmp_path / "run", rows, sensors=sensors)
    drawn: list[Figure] = []

    def keep(fig: Figure, *_: object) -> Path:
        drawn.append(fig)
        return tmp_path

    with mock.patch.object(plots, "_save", keep):
        plots.thermal_plot(run, run_identity(run.manifest), tmp_path / "thermal.png")
    (fig,) = drawn
    for ax in fig.axes:
        gpu, npu = ax.get_lines()
        assert np.array_equal(np.asarray(gpu.get_ydata()), np.asarray(npu.get_ydata()))  # same
        assert gpu.get_color() != npu.get_color()
        assert gpu.get_linestyle() != npu.get_linestyle()
    legend = {h.get_label(): h for h in fig.legends[0].legend_handles
              if isinstance(h, Line2D)}
    assert legend["gpu"].get_color() == fig.axes[0].get_lines()[0].get_color()
    assert legend["npu"].get_linestyle() == fig.axes[0].get_lines()[1].get_linestyle()
