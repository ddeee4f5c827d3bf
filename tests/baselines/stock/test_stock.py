"""The stock tools' baselines (``tflite_stock``, ``band_stock``): their configs are vanilla
TFLite's and Band's, their classes declare the stock runners a phone runs itself, and on any
other device kind they are one user error before anything runs."""

from __future__ import annotations

import pytest

from baselines.band.config import BandConf
from baselines.stock import StockBand, StockTflite
from baselines.tflite.config import Placement, TfliteConf
from harness.experiment.components import policy_class
from harness.experiment.session import compose_run
from harness.seams.errors import UserError
from harness.seams.policy import Runner


def test_the_stock_baselines_compose_with_their_systems_configs() -> None:
    cfg, _ = compose_run(["device=adb", "device.serial=NOPHONE", "dry_run=true",
                          "run=[tflite_stock,band_stock]"])
    tflite, band = cfg.baselines["tflite_stock"], cfg.baselines["band_stock"]
    assert isinstance(tflite, TfliteConf) and tflite.placement is Placement.fixed
    assert isinstance(band, BandConf) and band.scheduler == BandConf().scheduler
    assert policy_class("tflite_stock", cfg.baselines) is StockTflite
    assert StockTflite.runner is Runner.TFLITE_STOCK and StockBand.runner is Runner.BAND_STOCK


@pytest.mark.parametrize(("device", "kind"), [("k50pro", "twin"), ("host", "host")])
def test_the_stock_baselines_elsewhere_are_refused(device: str, kind: str) -> None:
    with pytest.raises(UserError, match=f"band_benchmark.*phone.*not on a {kind} device"):
        compose_run([f"device={device}", "run=[band,band_stock]"])
