"""Reports built by ``python -m harness.paper`` in fast mode, once per test session.

``small_report``: Tables III and V (one single-model run, which both read, and their two
notebooks: Table V draws a figure), for the default run. ``paper_report``: every artifact
(``slow``: minutes on a shared 2-core machine). ``ros_report``: Figure 8 on ROS, long enough
(1.5 s) for Band at minimum subgraph size 1 to run out of memory on the K50 Pro twin
(``slow``). Each runs the real driver in process: real twin runs, real kernels."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.paper.build import Built, build


def _build(tmp: Path, *overrides: str) -> tuple[Built, Path]:
    out = tmp / "paper"
    return build(["mode=fast", f"out_dir={out}", *overrides]), out


@pytest.fixture(scope="session")
def small_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Built, Path]:
    return _build(tmp_path_factory.mktemp("small"), "only=[table3,table5]")


@pytest.fixture(scope="session")
def paper_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Built, Path]:
    return _build(tmp_path_factory.mktemp("full"))


@pytest.fixture(scope="session")
def ros_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Built, Path]:
    return _build(tmp_path_factory.mktemp("ros"), "only=[fig8]",
                  "modes.fast.fig8_scenarios=[ros]", "modes.fast.duration_s=1.5")
