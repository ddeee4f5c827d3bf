"""The loopback phones' fixtures (tests/devices/adb/conftest.py), here too."""

from tests.devices.adb.conftest import session_server, tools, zoo_dir  # noqa: F401  (fixtures)
