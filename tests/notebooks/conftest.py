"""Reports built by ``python -m harness.paper`` in fast mode, once per test session.

``small_report``: one artifact (Tables III/V's single-model run and the Table III notebook),
for the default run. ``paper_report``: every artifact (``slow``: minutes on a shared 2-core
machine). Both run the real driver in process: real twin runs, real kernels."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.paper.build import Built, build


def _build(tmp: Path, *overrides: str) -> tuple[Built, Path]:
    out = tmp / "paper"
    return build(["mode=fast", f"out_dir={out}", *overrides]), out


@pytest.fixture(scope="session")
def small_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Built, Path]:
    return _build(tmp_path_factory.mktemp("small"), "only=[table3]")


@pytest.fixture(scope="session")
def paper_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Built, Path]:
    return _build(tmp_path_factory.mktemp("full"))
