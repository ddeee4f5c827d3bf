"""The host device tests' fixtures: a slice cache per module, and devices closed after."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from devices.host.config import HostDeviceConf
from devices.host.device import HostDevice


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("slices")


@pytest.fixture
def make_device(tiny_models: dict[str, Path], cache_dir: Path) -> Iterator[Any]:
    """``make(conf)``: a real host device on the tiny models, closed after the test."""
    devices: list[HostDevice] = []

    def make(conf: HostDeviceConf) -> HostDevice:
        devices.append(HostDevice(conf, tiny_models, cache_dir))
        return devices[-1]

    yield make
    for dev in devices:
        dev.close()
