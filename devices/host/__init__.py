"""The host device: real LiteRT interpreters on this machine's CPU cores, one per processor.

Importing this package does not import LiteRT: :class:`HostDevice` is loaded on first use.
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    if name == "HostDevice":
        from devices.host.device import HostDevice

        return HostDevice
    raise AttributeError(name)
