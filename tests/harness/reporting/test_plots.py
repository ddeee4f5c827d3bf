"""Plots are written as non-empty PNG files for a small run."""

from __future__ import annotations

from pathlib import Path

from harness.reporting import plots
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
