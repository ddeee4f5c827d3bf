"""Power monitors (:mod:`devices.power`): the Monsoon adapter driven through a drop-in of the
vendor package (:mod:`tests.devices.adb.fakephone.monsoon`, a FAKE with the real API and
``getSamples()`` shape), RAPL on a fake powercap tree, and the windowing into rows."""

from __future__ import annotations

import itertools
import os
import threading
import time
from pathlib import Path

import pytest

from devices.power import PowerMonitor, PowerSample, windowed
from devices.power.monsoon import MonsoonMonitor
from devices.power.rapl import RaplMonitor
from harness.seams.errors import UserError

FAKE = "tests.devices.adb.fakephone.monsoon"


def test_a_monsoon_samples_in_its_thread_on_the_runs_clock(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    (tmp_path / ".fake/load").mkdir(parents=True)
    (tmp_path / ".fake/load/1").write_text("")  # one tool running on the fake phone
    monkeypatch.setenv("FAKE_PHONE_ROOT", str(tmp_path))
    monitor = MonsoonMonitor(FAKE, voltage_v=4.2).open()
    assert isinstance(monitor, PowerMonitor)
    t0 = time.time_ns() - 2_000_000_000  # the run began 2 s ago
    monitor.start(t0)
    time.sleep(0.6)
    samples = monitor.stop()
    assert len(samples) >= 500
    assert all(s.power_w == pytest.approx(2.7) and s.voltage_v == 4.2 for s in samples)
    assert 1.9e9 < samples[0].t_ns < samples[-1].t_ns < 3.5e9
    assert monitor.facts()["samples"] == len(samples)


def test_a_missing_monsoon_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """setup_usb() prints "Unable to find device" and returns: the adapter raises."""
    monkeypatch.setenv("FAKE_MONSOON", "absent")
    with pytest.raises(UserError, match=r"no Monsoon HVPM.*Unable to find device.*monitor=none"):
        MonsoonMonitor(FAKE).open()


def test_an_unknown_driver_package() -> None:
    with pytest.raises(UserError, match="cannot be imported"):
        MonsoonMonitor("no_such_monsoon_pkg").open()


def test_the_vendor_package_reports_no_device_here() -> None:
    """The real `monsoon` package on a machine without the USB monitor (or pyusb)."""
    with pytest.raises(UserError, match="Monsoon"):
        MonsoonMonitor("Monsoon").open()


def fake_rapl(root: Path, watts: float, stop: threading.Event) -> threading.Thread:
    zone = root / "sys/class/powercap/intel-rapl:0"
    zone.mkdir(parents=True)
    (zone / "max_energy_range_uj").write_text("262143328850\n")
    (zone / "energy_uj").write_text("0\n")

    def count() -> None:
        # (written whole and moved into place, as the kernel's file never reads half-written)
        began = time.monotonic()
        while not stop.wait(0.01):
            part = zone / "energy_uj.part"
            part.write_text(f"{int((time.monotonic() - began) * watts * 1e6)}\n")
            os.replace(part, zone / "energy_uj")

    thread = threading.Thread(target=count, daemon=True)
    thread.start()
    return thread


def test_rapl_power_from_energy_counters(tmp_path: Path) -> None:
    stop = threading.Event()
    counter = fake_rapl(tmp_path, 5.0, stop)
    monitor = RaplMonitor(tmp_path, interval_s=0.05).open()
    monitor.start(time.time_ns())
    time.sleep(1.0)
    samples = monitor.stop()
    stop.set()
    counter.join()
    assert len(samples) >= 5
    # the energy over the span, not one sample's power: on a loaded machine the fake
    # counter's thread stalls now and then, giving one sample near 0 W and the next one high;
    # weighted by their intervals they still add up to 5 W (a stall at either end of the
    # span is the only error left)
    spans = [b.t_ns - a.t_ns for a, b in itertools.pairwise(samples)]
    energy = sum(s.power_w * dt for s, dt in zip(samples[1:], spans, strict=True))
    assert energy / sum(spans) == pytest.approx(5.0, rel=0.25)


def test_no_rapl_is_said_so(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no readable RAPL zone"):
        RaplMonitor(tmp_path).open()


def test_windows_average_samples() -> None:
    raw = [PowerSample(t, p, 4.0, p / 4.0) for t, p in ((0, 1.0), (40, 3.0), (120, 5.0))]
    assert windowed(raw, 100) == [PowerSample(50, 2.0, 4.0, 0.5), PowerSample(150, 5.0, 4.0, 1.25)]
