"""Components from config: every baseline and device of ``conf/`` built by its ``_target_``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from adms.policy import AdmsPolicy
from baselines.band.policy import BandPolicy
from baselines.tflite import TflitePolicy
from devices.twin import TwinDevice
from harness.experiment.components import build_policy, open_device
from harness.seams.device import Device, DeviceContext
from harness.seams.errors import UserError
from harness.seams.policy import Policy, PolicyContext
from tests.fixtures.runs import BASELINES, compose_run


def _context(name: str, tmp_path: Path) -> PolicyContext:
    cfg = compose_run()
    device = open_device(cfg.device, DeviceContext({}, {}, np.random.default_rng(0), tmp_path))
    return PolicyContext(name, device.describe(), lambda p, sg: 1, tmp_path)


def test_every_baseline_is_built_from_its_config(tmp_path: Path) -> None:
    kinds = {"tflite": TflitePolicy, "band": BandPolicy, "adms": AdmsPolicy}
    baselines = compose_run().baselines
    for name in BASELINES:
        policy = build_policy(name, baselines, _context(name, tmp_path))
        assert isinstance(policy, kinds[name]) and isinstance(policy, Policy)
        assert policy.name == name


def test_an_unknown_baseline_names_the_known_ones(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="'bandit'; allowed: tflite, tflite_gpu, band, band7"):
        build_policy("bandit", compose_run().baselines, _context("bandit", tmp_path))


def test_a_twin_is_opened_from_its_config(tmp_path: Path) -> None:
    device = open_device(compose_run().device,
                         DeviceContext({}, {}, np.random.default_rng(0), tmp_path))
    assert isinstance(device, TwinDevice) and isinstance(device, Device)
    assert device.describe().kind == "twin" and device.describe().fallback == "cpu"


def test_a_target_that_does_not_import_is_a_user_error(tmp_path: Path) -> None:
    cfg = compose_run()
    with pytest.raises(UserError, match="no_such_module"):
        build_policy("band", {"band": {"_target_": "no_such_module.Policy"}},
                     _context("band", tmp_path))
    with pytest.raises(UserError, match="names no class"):
        open_device({"name": "x"}, DeviceContext({}, {}, np.random.default_rng(0), tmp_path))
    assert cfg.device.name == "k50pro"
