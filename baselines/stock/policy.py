"""The classes the stock baselines' configs name: they only check where the baseline may run.

A phone's device runs them itself (:class:`~harness.seams.device.BaselineRunner`, with the
tools' own processes); on any other device kind they are a user error, raised before
anything runs (:class:`~baselines.device_run.DeviceRunBaseline`), as for the host-only
``threads`` baseline.
"""

from __future__ import annotations

from typing import ClassVar

from baselines.band.config import BandConf
from baselines.device_run import DeviceRunBaseline
from baselines.tflite.config import TfliteConf
from harness.seams.policy import Runner


class _Stock(DeviceRunBaseline):
    """A phone's stock tool; run by the ``adb`` device, refused elsewhere."""

    kind: ClassVar[str] = "adb"
    where: ClassVar[str] = "a phone (device=adb)"
    by: ClassVar[str] = "the phone's device"


class StockTflite(_Stock):
    """Vanilla TFLite as the stock ``benchmark_model`` runs it (its config is ``tflite``'s)."""

    Conf: ClassVar[type] = TfliteConf
    runner: ClassVar[Runner] = Runner.TFLITE_STOCK
    what: ClassVar[str] = "the stock benchmark_model"


class StockBand(_Stock):
    """Band as its own ``band_benchmark`` runs it (its config is ``band``'s)."""

    Conf: ClassVar[type] = BandConf
    runner: ClassVar[Runner] = Runner.BAND_STOCK
    what: ClassVar[str] = "the stock band_benchmark"
