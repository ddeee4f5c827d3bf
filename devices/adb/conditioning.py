"""Putting a phone in a known state before a baseline, and back afterwards.

* **Governor pinning** (``sensors.pin_governor``): every cpufreq policy's
  ``scaling_governor`` is set (writing sysfs needs root: ``adb root`` on a userdebug build, or
  a rooted phone), and :meth:`Conditioning.restore` writes the old ones back, also when the
  baseline fails.
* **Cool-down** (``sensors.cooldown_to_c``): wait until every readable thermal zone is below
  the target, up to ``cooldown_timeout_s``. The temperature it started from, where it ended
  and how long it waited are recorded, reached or not.
"""

from __future__ import annotations

import shlex
import time
from dataclasses import dataclass, field

from devices.adb.config import AdbSensorsConf
from devices.adb.probe import parse_probe
from devices.adb.transport import Transport
from harness.seams.errors import UserError

POLICY = "/sys/devices/system/cpu/cpufreq/policy{}/scaling_governor"
ZONES = ("for z in /sys/class/thermal/thermal_zone*; do t=$(cat $z/temp 2>/dev/null) || t=NA; "
         "echo \"@@zone ${z##*thermal_zone}|$(cat $z/type 2>/dev/null)|${t:-NA}\"; done")
POLL_S = 2.0


def hottest_c(transport: Transport) -> float | None:
    """The hottest readable thermal zone now, °C."""
    zones = parse_probe(transport.check(ZONES, "reading thermal zones")).zones
    temps = [z.temperature_c for z in zones if z.temperature_c is not None]
    return max(temps) if temps else None


@dataclass
class Conditioning:
    transport: Transport
    conf: AdbSensorsConf
    policies: tuple[int, ...]
    saved: dict[int, str] = field(default_factory=dict)
    record: dict[str, object] = field(default_factory=dict)

    def pin(self) -> None:
        governor = self.conf.pin_governor
        if not governor:
            return
        for p in self.policies:
            self.saved[p] = self.transport.check(f"cat {POLICY.format(p)}",
                                                 "reading a governor").strip()
        for p in self.policies:
            self._write(p, governor)
        self.record["pinned_governor"] = governor

    def _write(self, policy: int, governor: str) -> None:
        path = POLICY.format(policy)
        result = self.transport.shell(f"echo {shlex.quote(governor)} > {path}")
        if result.exit_code != 0:
            raise UserError(f"cannot set {path} to {governor!r} ({result.last_line()}): "
                            f"pinning governors needs root (adb root), or set "
                            f"device.sensors.pin_governor=''")

    def restore(self) -> None:
        for policy, governor in self.saved.items():
            self.transport.shell(f"echo {shlex.quote(governor)} > {POLICY.format(policy)}")
        if self.saved:
            self.record["restored_governors"] = dict(self.saved)
        self.saved.clear()

    def cool_down(self) -> None:
        target = self.conf.cooldown_to_c
        start = hottest_c(self.transport)
        self.record["start_temperature_c"] = start
        if target <= 0 or start is None:
            return
        began = time.monotonic()
        now: float | None = start
        while now is not None and now >= target and \
                time.monotonic() - began < self.conf.cooldown_timeout_s:
            time.sleep(POLL_S)
            now = hottest_c(self.transport)
        self.record.update(cooldown_target_c=target, cooldown_s=time.monotonic() - began,
                           cooled_to_c=now, cooldown_reached=now is not None and now < target)
