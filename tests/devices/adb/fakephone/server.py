"""The real adb server (from the adbutils wheel) on a port of the test's own.

FINDINGS.md: adbutils starts ``adb start-server`` by itself when the server port refuses, so
tests pin the binary (``ADBUTILS_ADB_PATH``) and give each test its own server port, started
here with ``adb -P PORT start-server`` and stopped with ``kill-server``. Ports for the fake
adbd are picked outside 5555-5585, which adb 36 treats as emulators.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path

import adbutils

EMULATOR_PORTS = range(5555, 5586)


def wheel_adb() -> str:
    """The adb binary shipped inside the adbutils wheel."""
    path = Path(adbutils.__file__).parent / "binaries" / "adb"
    if not path.is_file():
        raise FileNotFoundError(f"the adbutils wheel has no adb binary at {path}")
    return str(path)


def free_port() -> int:
    """A free loopback port outside adb's emulator range."""
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        if port not in EMULATOR_PORTS:
            return port


class AdbServer:
    """One adb server for one test: ``start``, ``connect`` a serial, ``stop``."""

    def __init__(self, port: int | None = None) -> None:
        self.port = port or free_port()
        self.adb = wheel_adb()
        self.env = {**os.environ, "ADBUTILS_ADB_PATH": self.adb,
                    "ANDROID_ADB_SERVER_PORT": str(self.port)}

    def run(self, *args: str, timeout_s: float = 20.0) -> str:
        out = subprocess.run([self.adb, "-P", str(self.port), *args], env=self.env,
                             capture_output=True, text=True, timeout=timeout_s, check=False)
        return out.stdout + out.stderr

    def start(self) -> AdbServer:
        self.run("start-server")
        return self

    def connect(self, serial: str, timeout_s: float = 10.0) -> None:
        """``adb connect`` and wait until the device is listed as ``device``."""
        self.run("connect", serial)
        deadline = time.monotonic() + timeout_s
        client = adbutils.AdbClient("127.0.0.1", self.port)
        while time.monotonic() < deadline:
            if any(d.serial == serial and d.state == "device" for d in client.list()):
                return
            time.sleep(0.05)
        raise TimeoutError(f"{serial} never came up on the adb server at port {self.port}")

    def forget_all(self) -> None:
        """``adb disconnect`` every phone (so the next test starts with none)."""
        self.run("disconnect")

    def stop(self) -> None:
        self.run("kill-server")
