"""The loopback phone of the adb backend's tests (tests/devices/adb/conftest.py), here too."""

from tests.devices.adb.conftest import (  # noqa: F401  (fixtures)
    adb_server,
    adbd,
    phone,
    session_server,
    tools,
    zoo_dir,
)
