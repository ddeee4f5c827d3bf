"""Host sensors on a fake /proc + /sys tree written in the kernel's own file formats."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from devices.host.sensors import HostSensors, parse_proc_stat

CPUINFO = """processor\t: 0
vendor_id\t: AuthenticAMD
model name\t: AMD EPYC 7B13
cpu MHz\t\t: 2450.000

processor\t: 1
vendor_id\t: AuthenticAMD
model name\t: AMD EPYC 7B13
"""


def proc_stat(cpu0: tuple[int, ...], cpu1: tuple[int, ...]) -> str:
    """``/proc/stat``: user nice system idle iowait irq softirq steal guest guest_nice."""
    total = tuple(a + b for a, b in zip(cpu0, cpu1, strict=True))
    rows = [("cpu ", total), ("cpu0", cpu0), ("cpu1", cpu1)]
    lines = [f"{name} {' '.join(map(str, cols))}" for name, cols in rows]
    return "\n".join([*lines, "intr 1462898 9 0 0", "ctxt 2817153", "btime 1700000000",
                      "processes 12345", "procs_running 2", "procs_blocked 0", ""])


def write(root: Path, relative: str, text: str) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def cpufreq(root: Path, core: int, cur_khz: int, max_khz: int, cap_khz: int) -> None:
    base = f"sys/devices/system/cpu/cpu{core}/cpufreq"
    write(root, f"{base}/scaling_cur_freq", f"{cur_khz}\n")
    write(root, f"{base}/cpuinfo_max_freq", f"{max_khz}\n")
    write(root, f"{base}/scaling_max_freq", f"{cap_khz}\n")


def zone(root: Path, n: int, kind: str, milli_c: int, trips: dict[str, int]) -> None:
    base = f"sys/class/thermal/thermal_zone{n}"
    write(root, f"{base}/type", f"{kind}\n")
    write(root, f"{base}/temp", f"{milli_c}\n")
    for i, (trip_type, trip_milli) in enumerate(trips.items()):
        write(root, f"{base}/trip_point_{i}_type", f"{trip_type}\n")
        write(root, f"{base}/trip_point_{i}_temp", f"{trip_milli}\n")


def rapl(root: Path, name: str, energy_uj: int, max_uj: int = 262143328850) -> None:
    base = f"sys/class/powercap/{name}"
    write(root, f"{base}/energy_uj", f"{energy_uj}\n")
    write(root, f"{base}/max_energy_range_uj", f"{max_uj}\n")
    write(root, f"{base}/name", "package-0\n" if name.count(":") == 1 else "core\n")


class FakeClock:
    """Monotonic ns, advanced by the test."""

    def __init__(self) -> None:
        self.ns = 1_000_000_000

    def __call__(self) -> int:
        return self.ns


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def root(tmp_path: Path) -> Iterator[Path]:
    write(tmp_path, "proc/stat", proc_stat((100, 0, 0, 900, 0, 0, 0, 0, 0, 0),
                                           (10, 0, 10, 980, 0, 0, 0, 0, 0, 0)))
    write(tmp_path, "proc/cpuinfo", CPUINFO)
    write(tmp_path, "proc/sys/kernel/osrelease", "6.1.0-fake\n")
    yield tmp_path


PROCS = {"big": [0], "little": [1], "both": [0, 1]}


def test_load_from_two_proc_stat_snapshots(root: Path, clock: FakeClock) -> None:
    sensors = HostSensors(root, PROCS, clock)
    # cpu0: +40 user, +10 system, +40 idle, +10 iowait -> busy 50 of 100
    # cpu1: +100 idle -> busy 0 of 100
    write(root, "proc/stat", proc_stat((140, 0, 10, 940, 10, 0, 0, 0, 0, 0),
                                       (10, 0, 10, 1080, 0, 0, 0, 0, 0, 0)))
    loads = {s.processor: s.load for s in sensors.read(5)}
    assert loads == {"big": 0.5, "little": 0.0, "both": 0.25}


def test_load_compares_with_the_previous_read(root: Path, clock: FakeClock) -> None:
    sensors = HostSensors(root, PROCS, clock)
    write(root, "proc/stat", proc_stat((200, 0, 0, 900, 0, 0, 0, 0, 0, 0),
                                       (10, 0, 10, 980, 0, 0, 0, 0, 0, 0)))
    assert sensors.read(1)[0].load == 1.0
    # no tick elapsed since the last read: the last figure, not zero
    assert sensors.read(2)[0].load == 1.0


def test_first_read_without_ticks_gives_the_share_since_boot(root: Path,
                                                            clock: FakeClock) -> None:
    loads = {s.processor: s.load for s in HostSensors(root, PROCS, clock).read(0)}
    assert loads == {"big": 0.1, "little": 0.02, "both": 0.06}


def test_a_restart_forgets_the_load_before_the_run(root: Path, clock: FakeClock) -> None:
    """Loading and profiling before the clock starts must not read as the run's load."""
    sensors = HostSensors(root, PROCS, clock)
    write(root, "proc/stat", proc_stat((200, 0, 0, 900, 0, 0, 0, 0, 0, 0),
                                       (10, 0, 10, 980, 0, 0, 0, 0, 0, 0)))  # cpu0 busy
    sensors.restart()
    assert {s.processor: s.load for s in sensors.read(0)} == {
        "big": 0.0, "little": 0.0, "both": 0.0}  # no tick yet: idle, as the run starts
    write(root, "proc/stat", proc_stat((230, 0, 0, 970, 0, 0, 0, 0, 0, 0),
                                       (10, 0, 10, 1080, 0, 0, 0, 0, 0, 0)))
    loads = {s.processor: s.load for s in sensors.read(1)}
    assert loads == {"big": 0.3, "little": 0.0, "both": 0.15}


def test_parse_proc_stat_counts_iowait_as_idle_and_skips_the_total_line() -> None:
    times = parse_proc_stat(proc_stat((1, 2, 3, 4, 5, 6, 7, 8, 9, 10), (0,) * 10))
    assert sorted(times) == [0, 1]
    assert (times[0].idle, times[0].total) == (4 + 5, sum(range(1, 9)))


def test_frequency_in_hz_and_throttling(root: Path, clock: FakeClock) -> None:
    cpufreq(root, 0, 1_800_000, 3_000_000, 3_000_000)
    cpufreq(root, 1, 2_200_000, 2_500_000, 1_500_000)
    samples = {s.processor: s for s in HostSensors(root, PROCS, clock).read(0)}
    assert samples["big"].frequency_hz == 1.8e9 and samples["big"].max_frequency_hz == 3.0e9
    assert samples["both"].frequency_hz == 2.0e9 and samples["both"].max_frequency_hz == 3.0e9
    assert samples["big"].throttled is False
    assert samples["little"].throttled is True and samples["both"].throttled is True


def test_frequency_of_a_core_without_cpufreq_is_none(root: Path, clock: FakeClock) -> None:
    cpufreq(root, 0, 1_800_000, 3_000_000, 3_000_000)
    samples = {s.processor: s for s in HostSensors(root, PROCS, clock).read(0)}
    assert samples["big"].frequency_hz == 1.8e9
    assert samples["little"].frequency_hz is None and samples["both"].frequency_hz is None


def test_thermal_zones_in_millidegrees(root: Path, clock: FakeClock) -> None:
    zone(root, 0, "acpitz", 41_000, {"critical": 105_000})
    zone(root, 1, "x86_pkg_temp", 45_500, {"passive": 95_000, "hot": 100_000})
    zone(root, 2, "soc_thermal", 30_000, {"passive": 85_000})
    sensors = HostSensors(root, PROCS, clock)
    sample = sensors.read(0)[0]
    assert sample.temperature_c == 45.5
    assert sample.throttle_temperature_c == 85.0
    assert sensors.zone_temperatures_c()["thermal_zone1 (x86_pkg_temp)"] == 45.5


def test_rapl_power_from_energy_delta(root: Path, clock: FakeClock) -> None:
    rapl(root, "intel-rapl:0", 1_000_000)
    rapl(root, "intel-rapl:0:0", 500_000)  # a part of package 0: not counted twice
    sensors = HostSensors(root, PROCS, clock)
    rapl(root, "intel-rapl:0", 4_000_000)
    rapl(root, "intel-rapl:0:0", 2_000_000)
    clock.ns += 1_500_000_000
    assert [s.power_w for s in sensors.read(0)] == [2.0, 2.0, 2.0]


def test_rapl_counter_wrap_around(root: Path, clock: FakeClock) -> None:
    rapl(root, "intel-rapl:0", 9_000_000, max_uj=10_000_000)
    sensors = HostSensors(root, PROCS, clock)
    rapl(root, "intel-rapl:0", 1_000_000, max_uj=10_000_000)
    clock.ns += 1_000_000_000
    assert sensors.read(0)[0].power_w == 2.0


def test_absent_sensors_are_none(tmp_path: Path, clock: FakeClock) -> None:
    sensors = HostSensors(tmp_path, PROCS, clock)
    clock.ns += 1_000_000_000
    for s in sensors.read(7):
        assert s.t_ns == 7
        assert (s.load, s.frequency_hz, s.max_frequency_hz, s.temperature_c, s.power_w,
                s.throttled, s.throttle_temperature_c) == (None,) * 7
    assert set(sensors.available().values()) == {False}
    assert sensors.facts()["cpu_model"] is None


def test_facts_name_the_machine_and_its_sensors(root: Path, clock: FakeClock) -> None:
    zone(root, 0, "x86_pkg_temp", 40_000, {})
    facts = HostSensors(root, PROCS, clock).facts()
    assert facts["cpu_model"] == "AMD EPYC 7B13"
    assert facts["cores"] == 2 and facts["kernel"] == "6.1.0-fake"
    assert facts["sensors"] == {
        "load": True, "frequency_hz": False, "max_frequency_hz": False, "temperature_c": True,
        "power_w": False, "throttled": False, "throttle_temperature_c": False}


def test_this_machine_reports_only_what_it_has() -> None:
    sensors = HostSensors(Path("/"), {"cpu0": [0]})
    (sample,) = sensors.read(0)
    has_freq = Path("/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq").exists()
    assert (sample.frequency_hz is not None) == has_freq
    assert (sample.temperature_c is not None) == bool(sensors.zone_temperatures_c())
    assert sample.load is None or 0.0 <= sample.load <= 1.0
