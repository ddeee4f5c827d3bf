"""The runner's sensors: the phone's sysfs files the probe found, read by the runner itself.

In a runner run the runner samples the sensors (``--sensors FILE``, ``runner/README.md``):
its policy's views carry the latest sample, as the Python runtime's sensor cache gives them
(ADMS's monitor reads throttling and load), and its sensor log becomes the run's ``sensors``
rows. The files are the ones the sampling loop of :mod:`devices.adb.sensors` reads for each
processor (:meth:`~devices.adb.phone.Phone.sensor_plan`: its thermal zone, its cpufreq
policies, the GPU clock), with one difference: the runner takes one file per field, so a
processor with several cpufreq policies is read at the one with the highest top frequency
(its prime or big cluster) for frequency and throttling, while load counts the cores of all
its policies, as the loop does. A file the phone does not let the shell read is left out
(the runner refuses to start on one): that field is "not available", as in the loop.

The file is written on the phone by the shell (``printf``), not pushed: its lines are phone
paths, so a phone whose paths are mapped (the tests' fake phone) maps them as it maps the
commands.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Sequence

from devices.adb.runner_logs import complete_lines
from devices.adb.sensors import ProcessorSensors, SensorPlan
from devices.adb.transport import Transport
from harness.seams.records import SensorSample

LOG_HEADER = ("t_ns", "processor", "temperature_c", "frequency_hz", "max_frequency_hz", "load",
              "power_w", "throttled", "throttle_temperature_c")
BASE = "/sys/devices/system/cpu/cpufreq/policy"


def _cpu_lines(plan: SensorPlan, proc: ProcessorSensors) -> list[tuple[str, str, float]]:
    if not proc.policies:
        return []
    prime = max(proc.policies, key=lambda p: plan.max_khz.get(p, 0))
    return [("frequency_hz", f"{BASE}{prime}/scaling_cur_freq", 1e3),
            ("max_frequency_hz", f"{BASE}{prime}/cpuinfo_max_freq", 1e3),
            ("cap_frequency_hz", f"{BASE}{prime}/scaling_max_freq", 1e3)]


def field_files(plan: SensorPlan, proc: ProcessorSensors) -> list[tuple[str, str, float]]:
    """(field, phone path, scale) of one processor."""
    files = dict(plan.files)
    out = []
    if proc.zone and f"zone:{proc.zone}" in files:
        out.append(("temperature_c", files[f"zone:{proc.zone}"], 1e-3))
    if proc.gpu:
        out += [(f, files[k], plan.gpu_unit_hz) for f, k in
                (("frequency_hz", "gpu:cur"), ("max_frequency_hz", "gpu:max")) if k in files]
    else:
        out += _cpu_lines(plan, proc)
    return out


def readable(transport: Transport, paths: Iterable[str]) -> set[str]:
    """The paths the phone's shell can read."""
    unique = sorted(set(paths))
    if not unique:
        return set()
    tests = "; ".join(f"head -c 1 {shlex.quote(p)} >/dev/null 2>&1 && echo {shlex.quote(p)}"
                      for p in unique)
    return set(transport.shell(f"{tests}; true").stdout.split()) & set(unique)


def sensors_lines(plan: SensorPlan, ok: set[str]) -> list[str]:
    """The runner's sensors file, lines."""
    lines = []
    for proc in plan.processors:
        lines += [f"sensor {proc.name} {field} path={path} scale={scale!r}"
                  for field, path, scale in field_files(plan, proc) if path in ok]
        cores = sorted({c for p in proc.policies for c in plan.cores.get(p, ())})
        if cores and not proc.gpu:
            lines.append(f"sensor {proc.name} load cpus={','.join(map(str, cores))} "
                         f"stat=/proc/stat")
    return lines


def write_command(lines: Sequence[str], path: str) -> str:
    """The shell command writing ``lines`` to ``path`` on the phone."""
    words = " ".join(shlex.quote(line) for line in ["# devices/adb/runner_sensors.py", *lines])
    return f"printf '%s\\n' {words} > {shlex.quote(path)}"


def _value(word: str) -> float | None:
    return float(word) if word else None


def parse_sensor_log(text: str, t0_ns: int) -> list[SensorSample]:
    """The samples of each whole line of the runner's sensor log, on the run's clock
    (``t0_ns``: its 0, phone ns)."""
    return sensor_samples(complete_lines(text, LOG_HEADER), t0_ns)


def sensor_samples(lines: Iterable[Sequence[str]], t0_ns: int) -> list[SensorSample]:
    """The samples of a sensor log's whole lines' fields (a field that does not parse
    leaves its line out)."""
    out = []
    for f in lines:
        try:
            temp, freq, top, load, power = (_value(w) for w in f[2:7])
            throttled = None if f[7] == "" else f[7] == "1"
            out.append(SensorSample(f[1], int(f[0]) - t0_ns, temp, freq, top, load, power,
                                    throttled, _value(f[8])))
        except ValueError:
            continue
    return out
