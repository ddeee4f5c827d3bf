"""The ``adb`` device: a real phone over adb — NOT IMPLEMENTED YET.

Selecting it (``device=adb``) ends with one clear error. What it will do (``DESIGN.md``):
probe the phone, push models by content hash, run the stock TFLite ``benchmark_model`` per
delegate, sample sensors on the phone and measure power with a Monsoon.
"""

from __future__ import annotations

from typing import Any, ClassVar

from devices.adb.config import AdbDeviceConf
from harness.seams.device import DeviceContext
from harness.seams.errors import NotImplementedYet


class AdbDevice:
    Conf: ClassVar[type] = AdbDeviceConf
    kind: ClassVar[str] = "adb"
    #: nothing to build until the backend exists
    needs_model_files: ClassVar[bool] = False
    default_seeds: ClassVar[int] = 3

    @classmethod
    def open(cls, conf: AdbDeviceConf, context: DeviceContext) -> Any:
        raise NotImplementedYet(
            "device backend 'adb' (real phones) is not implemented yet; use a twin "
            "(device=k50pro|p20|mi6) or device=host"
        )


__all__ = ["AdbDevice"]
