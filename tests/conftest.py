"""Shared pytest fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fixtures.tinymodels import write_all


@pytest.fixture(scope="session")
def tiny_models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The ready-made tiny models written once per session: name -> ``.tflite`` path."""
    return write_all(tmp_path_factory.mktemp("tiny_models"))
