"""``python -m harness.probe``: what a phone over adb says of itself, and a draft device YAML.

    python -m harness.probe device.serial=SERIAL
    python -m harness.probe device.serial=127.0.0.1:5600 device.adb.port=5038 out=my.yaml

It connects as a ``device=adb`` run does (``conf/probe.yaml`` composes ``conf/device/adb.yaml``:
server, serial, timeouts), reads the phone's facts in one shell call
(:mod:`devices.adb.probe`: model, SoC, ABI, API level, CPU clusters with frequency tables,
thermal zones with types, GPU clock files, the delegates it can offer), prints them, writes
a draft device YAML (:func:`devices.adb.draft.write_draft`) to ``out`` (default
``results/probe/<model>.yaml``) and the facts as JSON beside it. Bad input and an absent
phone end with one ``error:`` line and exit code 2. This module is the command's composition
root (its config, then the adb backend, which does the work).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING
from rich.console import Console

from devices.adb.config import AdbDeviceConf
from devices.adb.draft import write_draft
from devices.adb.phone import connect
from harness.config.compose import compose, to_object
from harness.experiment.components import device_class, register, typed
from harness.seams.errors import UserError, command


@dataclass
class ProbeConf:
    # the phone to probe (conf/device/adb.yaml, or a drafted phone YAML)
    device: Any = MISSING
    # where the draft YAML goes; empty: results/probe/<model>.yaml
    out: str = ""


def compose_config(overrides: Sequence[str]) -> ProbeConf:
    register()
    ConfigStore.instance().store(name="probe_schema", node=ProbeConf)
    conf: ProbeConf = to_object(compose("probe", overrides), ProbeConf)
    cls = device_class(conf.device)
    if cls.kind.word != "adb":
        raise UserError(f"python -m harness.probe probes a phone over adb; device "
                        f"{getattr(conf.device, 'name', '?')!r} is a {cls.kind.word} device")
    conf.device = typed(conf.device, cls)
    assert isinstance(conf.device, AdbDeviceConf)
    return conf


def run(overrides: Sequence[str], console: Console | None = None) -> Path:
    console = console or Console()
    conf = compose_config(overrides)
    out, lines = write_draft(connect(conf.device), conf.out)
    for line in lines:
        console.print(line, highlight=False)
    return out


def main(argv: Sequence[str] | None = None) -> None:
    command(__doc__, run, argv)


if __name__ == "__main__":
    main()
