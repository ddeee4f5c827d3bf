"""``Monsoon.HVPM`` as the fake monitor offers it (see the package docstring)."""

from __future__ import annotations

import os


class Protocol:
    def __init__(self) -> None:
        self.DEVICE: object | None = None


class Monsoon:
    def __init__(self) -> None:
        self.Protocol: Protocol | None = None
        self.vout = 4.0

    def setup_usb(self, serialno: int | None = None) -> None:
        self.Protocol = Protocol()
        if os.environ.get("FAKE_MONSOON", "present") == "absent":
            print("Unable to find device")
            return
        self.Protocol.DEVICE = f"fake HVPM {serialno or 12345}"

    def setVout(self, value: float) -> None:
        self.vout = float(value)
