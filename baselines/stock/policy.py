"""The classes the stock baselines' configs name: they only check where the baseline may run.

A phone's device runs them itself (:class:`~harness.seams.device.BaselineRunner`, with the
tools' own processes); on any other device kind they are a user error, raised before
anything runs (``check_device``), as for the host-only ``threads`` baseline.
"""

from __future__ import annotations

from typing import Any, ClassVar

from baselines.band.config import BandConf
from baselines.tflite.config import TfliteConf
from harness.seams.errors import UserError
from harness.seams.policy import PolicyContext, PolicyDefaults, Runner

#: the only device kind that runs them
PHONE = "adb"


class _Stock(PolicyDefaults):
    """A phone's stock tool; run by the ``adb`` device, refused elsewhere."""

    #: the tool, in messages
    tool: ClassVar[str] = ""

    @classmethod
    def check_device(cls, name: str, kind: str) -> None:
        """Refuse a device of another kind than ``adb`` (``name`` is the baseline's)."""
        if kind != PHONE:
            raise UserError(f"baseline {name!r} (the stock {cls.tool}) runs only on a phone "
                            f"(device=adb), not on a {kind} device")

    @classmethod
    def from_config(cls, conf: Any, context: PolicyContext) -> Any:
        """Never a policy: reached only if a device did not run the baseline itself."""
        cls.check_device(context.name, context.device.kind)
        raise UserError(f"baseline {context.name!r} is run by the phone's device itself; "
                        f"device {context.device.name!r} did not take it")


class StockTflite(_Stock):
    """Vanilla TFLite as the stock ``benchmark_model`` runs it (its config is ``tflite``'s)."""

    Conf: ClassVar[type] = TfliteConf
    runner: ClassVar[Runner] = Runner.TFLITE_STOCK
    tool: ClassVar[str] = "benchmark_model"


class StockBand(_Stock):
    """Band as its own ``band_benchmark`` runs it (its config is ``band``'s)."""

    Conf: ClassVar[type] = BandConf
    runner: ClassVar[Runner] = Runner.BAND_STOCK
    tool: ClassVar[str] = "band_benchmark"
