"""The sampling loop on the phone, merged into sensor rows on the run's clock; governor
pinning and cool-down (:mod:`devices.adb.sensors`, :mod:`.measure`, :mod:`.conditioning`)."""

from __future__ import annotations

import itertools
import time
from typing import Any

import pytest

from devices.adb import conditioning
from devices.adb.measure import Measurement
from devices.adb.phone import connect
from devices.adb.sensors import ProcessorSensors, SensorPlan, parse_log, samples_for
from tests.devices.adb.conftest import phone_conf
from tests.devices.adb.fakephone.adbd import Adbd
from tests.devices.adb.fakephone.phone import FakePhone
from tests.devices.adb.fakephone.server import AdbServer

LOG = """h zone:cpu cur:0 cap:0
s 1000000000 41000 1800000 1800000
p cpu0 100 0 0 900 0 0 0 0 0 0
p cpu1 100 0 0 900 0 0 0 0 0 0
s 1100000000 NA 1000000 1000000
p cpu0 150 0 0 950 0 0 0 0 0 0
p cpu1 200 0 0 900 0 0 0 0 0 0
s 1200000000 43
"""


class Sink:
    def __init__(self) -> None:
        self.rows: dict[str, list[dict[str, Any]]] = {}

    def append(self, table: str, row: Any) -> None:
        self.rows.setdefault(table, []).append(dict(row))


def test_the_log_becomes_samples_per_processor() -> None:
    loop = parse_log(LOG)
    assert len(loop) == 2  # the cut last line is dropped
    plan = SensorPlan((ProcessorSensors("cpu", "cpu", (0,)),), (), {0: (0, 1)}, {0: 1800000})
    first, second = samples_for(plan, loop, lambda ns: ns - 1000000000)
    assert (first.t_ns, first.temperature_c, first.frequency_hz, first.load) == (
        0, 41.0, 1.8e9, None)
    assert first.throttled is False and first.max_frequency_hz == 1.8e9
    # unreadable: None, never the previous value; load = busy jiffies / all jiffies since
    assert second.temperature_c is None and second.throttled is True
    assert second.load == pytest.approx((50 + 100) / (100 + 100))


def heat(phone: FakePhone, seconds: float) -> None:
    marker = phone.root / ".fake/load" / "test-load"
    marker.write_text("")
    time.sleep(seconds)
    marker.unlink()


def test_the_phone_heats_with_load_in_the_rows(adb_server: AdbServer, adbd: Adbd,
                                              phone: FakePhone) -> None:
    p = connect(phone_conf(adb_server, adbd.serial))
    p.conf.sensors.interval_ms = 50
    sink = Sink()
    with Measurement(p, "tflite", 3, sink, max_s=30) as m:
        heat(phone, 1.5)
    rows = [r for r in sink.rows["sensors"] if r["processor"] == "cpu"]
    assert len(rows) > 10 and all(r["baseline"] == "tflite" and r["seed"] == 3 for r in rows)
    assert all(0 <= a["t_ns"] < b["t_ns"] for a, b in itertools.pairwise(rows))
    temps = [r["temperature_c"] for r in rows]
    assert temps[-1] > temps[0] + 2  # it heated under load
    assert max(r["frequency_hz"] for r in rows) == 2.4e9  # the big cluster went to the top
    assert any((r["load"] or 0) > 0.2 for r in rows)
    assert m.facts()["sensor_availability"]["zone:skin-therm"] == 0.0
    assert "device" not in {r["processor"] for r in sink.rows["sensors"]}  # no power monitor


def test_governors_are_pinned_then_restored(adb_server: AdbServer, adbd: Adbd,
                                            phone: FakePhone) -> None:
    p = connect(phone_conf(adb_server, adbd.serial))
    p.conf.sensors.pin_governor = "performance"
    governor = phone.root / "sys/devices/system/cpu/cpufreq/policy2/scaling_governor"
    with Measurement(p, "band", 0, Sink(), max_s=10) as m:
        assert governor.read_text().strip() == "performance"
    assert governor.read_text().strip() == "schedutil"
    assert m.facts()["conditioning"]["restored_governors"] == {0: "schedutil", 2: "schedutil"}


def test_cool_down_waits_for_the_target(adb_server: AdbServer, adbd: Adbd, phone: FakePhone,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(conditioning, "POLL_S", 0.2)
    heat(phone, 2.0)
    p = connect(phone_conf(adb_server, adbd.serial))
    start = conditioning.hottest_c(p.transport)
    assert start is not None and start > 32
    p.conf.sensors.cooldown_to_c = start - 1
    with Measurement(p, "tflite", 0, Sink(), max_s=10) as m:
        pass
    record = m.facts()["conditioning"]
    assert record["cooldown_reached"] is True and record["cooled_to_c"] < start - 1
    assert record["cooldown_s"] > 0.1 and record["start_temperature_c"] >= start - 1
