"""The ``adb`` device's config schema (the backend is not implemented yet)."""

from __future__ import annotations

from dataclasses import dataclass

from hydra.core.config_store import ConfigStore

from harness.config.schema import DeviceConf


@dataclass
class AdbDeviceConf(DeviceConf):
    _target_: str = "devices.adb.AdbDevice"
    # the phone's adb serial (empty: ANDROID_SERIAL, or the only phone attached)
    serial: str = ""


def register() -> None:
    ConfigStore.instance().store(group="schema/device", name="adb", node=AdbDeviceConf)
