"""Several loopback phones at once (a FAKE farm), each its own folder, adbd and port, all
joined by one adb server, as one lab host's adb server sees a rack of phones."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.devices.adb.fakephone.adbd import Adbd
from tests.devices.adb.fakephone.phone import FakePhone
from tests.devices.adb.fakephone.server import AdbServer


@contextmanager
def loopback_phones(root: Path, server: AdbServer, count: int
                    ) -> Iterator[list[tuple[FakePhone, Adbd]]]:
    """``count`` phones (models "FP-1 Loopback 0", "… 1", …), connected; killed after."""
    phones: list[tuple[FakePhone, Adbd]] = []
    try:
        for i in range(count):
            phone = FakePhone(root / f"phone{i}", {"ro.product.model": f"FP-1 Loopback {i}"})
            daemon = Adbd(phone)
            phones.append((phone, daemon))
            server.connect(daemon.serial)
        yield phones
    finally:
        for phone, daemon in phones:
            daemon.kill()
            phone.close()
        server.forget_all()
