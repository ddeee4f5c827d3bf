"""The phone's filesystem as a folder, and its shell (a FAKE phone, for tests).

:class:`FakePhone` lays out under one root folder what the ``adb`` backend reads on a phone:

* ``getprop`` (``/system/bin/getprop`` printing ``[key]: [value]`` lines from :attr:`props`);
* ``/sys/devices/system/cpu/cpufreq/policy{0,2}`` (two clusters of two cores each, frequency
  tables, governors), ``/sys/class/thermal/thermal_zone*`` (``type``, ``temp`` in m°C, trip
  points; one zone whose ``temp`` cannot be read, as SELinux denies on retail phones),
  ``/sys/class/kgsl/kgsl-3d0`` (an Adreno-style GPU clock), ``/proc/stat``;
* ``/data/local/tmp`` for what the harness pushes.

A physics thread makes it *heat with load*: every process a stand-in tool runs marks itself in
``.fake/load/<pid>``; temperatures approach ``ambient + 9 °C × running tools`` with a 1.5 s
time constant, frequencies go to the top of their tables while anything runs, and
``/proc/stat`` counts busy jiffies.

**Shell.** :meth:`spawn` runs a command with the host's ``/bin/sh``, the phone's absolute
paths (``/data``, ``/sys``, ``/system``, ``/vendor``, ``/proc/stat``) rewritten into the
root, and the root stripped from what the command prints, so the harness sees phone paths
both ways (a mount namespace would do the same without rewriting; it needs bubblewrap,
which a clean CI machine lacks). Faults are files under ``.fake/faults/`` that the stand-in
tools read (:mod:`tests.devices.adb.fakephone.standins.common`), plus :attr:`push_fails`.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import struct
import subprocess
import threading
from collections.abc import Mapping
from pathlib import Path

AMBIENT_C = 30.0
HEAT_PER_TOOL_C = 9.0
TAU_S = 1.5
PHONE_PREFIXES = ("data", "sys", "system", "vendor", "proc/stat")
_PATH = re.compile(r"(?<![^\s'\"=(;|&<>`])/(?:" + "|".join(PHONE_PREFIXES)
                   + r")(?=[/\s'\";)|&]|$)")

DEFAULT_PROPS = {
    "ro.product.model": "FP-1 Loopback",
    "ro.product.manufacturer": "Harness Test Labs",
    "ro.product.name": "fp1",
    "ro.product.device": "fp1",
    "ro.soc.manufacturer": "FakeSilicon",
    "ro.soc.model": "FS8000",
    "ro.board.platform": "fakeboard",
    "ro.hardware": "fakehw",
    "ro.product.cpu.abi": "x86_64",
    "ro.product.cpu.abilist": "x86_64,x86",
    "ro.build.version.sdk": "33",
    "ro.build.version.release": "13",
    "ro.build.fingerprint": "harness/fp1/fp1:13/TEST/1:userdebug/test-keys",
    "ro.opengles.version": "196610",
}
#: policy -> (cores, frequency table in kHz)
CLUSTERS = {0: ((0, 1), (300000, 1000000, 1800000)), 2: ((2, 3), (500000, 1500000, 2400000))}
#: zone type -> whether its temp can be read
ZONES = (("cpu-0-0-usr", True), ("cpu-1-0-usr", True), ("gpu0-usr", True),
         ("battery", True), ("skin-therm", False))
GPU_FREQS_HZ = (257000000, 585000000)


class FakePhone:
    """A folder that answers as a phone does; see the module docstring."""

    def __init__(self, root: Path, props: Mapping[str, str] | None = None) -> None:
        self.root = root
        self.props = {**DEFAULT_PROPS, **(props or {})}
        self.push_fails: str = ""
        self.procs: list[subprocess.Popen[bytes]] = []
        self._stop = threading.Event()
        self._temps = {z: AMBIENT_C for z, _ in ZONES}
        self._jiffies = [[0, 0] for _ in range(4)]  # busy, idle per core
        self._lay_out()
        self._physics = threading.Thread(target=self._heat, daemon=True)
        self._physics.start()

    # -- the tree -------------------------------------------------------------------------

    def _write(self, rel: str, text: str, mode: int = 0o644) -> Path:
        """Write a file whole at once (a reader never sees it half written, as in sysfs)."""
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        staged = path.with_name(f".{path.name}.{threading.get_ident()}")
        staged.write_text(text)
        staged.chmod(mode)
        os.replace(staged, path)
        return path

    def _lay_out(self) -> None:
        for rel in ("data/local/tmp", ".fake/load", ".fake/faults", "vendor/lib64"):
            (self.root / rel).mkdir(parents=True, exist_ok=True)
        self._write("vendor/lib64/libOpenCL.so", "")
        self._write("system/bin/getprop", _GETPROP, 0o755)
        self._write(".fake/props", "".join(f"[{k}]: [{v}]\n" for k, v in self.props.items()))
        for policy, (cores, freqs) in CLUSTERS.items():
            self._cluster(policy, cores, freqs)
        for i, (kind, readable) in enumerate(ZONES):
            self._zone(i, kind, readable)
        gpu = "sys/class/kgsl/kgsl-3d0"
        self._write(f"{gpu}/gpuclk", f"{GPU_FREQS_HZ[0]}\n")
        self._write(f"{gpu}/max_gpuclk", f"{GPU_FREQS_HZ[-1]}\n")
        self._write(f"{gpu}/devfreq/available_frequencies", " ".join(map(str, GPU_FREQS_HZ)))
        self._write_stat()

    def _cluster(self, policy: int, cores: tuple[int, ...], freqs: tuple[int, ...]) -> None:
        base = f"sys/devices/system/cpu/cpufreq/policy{policy}"
        related = " ".join(map(str, cores))
        values = {"related_cpus": related, "affected_cpus": related,
                  "cpuinfo_min_freq": freqs[0], "cpuinfo_max_freq": freqs[-1],
                  "scaling_min_freq": freqs[0], "scaling_max_freq": freqs[-1],
                  "scaling_cur_freq": freqs[0],
                  "scaling_available_frequencies": " ".join(map(str, freqs)),
                  "scaling_governor": "schedutil",
                  "scaling_available_governors": "schedutil performance powersave"}
        for name, value in values.items():
            self._write(f"{base}/{name}", f"{value}\n")
        for core in cores:
            link = self.root / f"sys/devices/system/cpu/cpu{core}/cpufreq"
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(self.root / base)

    def _zone(self, i: int, kind: str, readable: bool) -> None:
        base = f"sys/class/thermal/thermal_zone{i}"
        self._write(f"{base}/type", f"{kind}\n")
        self._write(f"{base}/trip_point_0_type", "passive\n")
        self._write(f"{base}/trip_point_0_temp", "95000\n")
        if readable:
            self._write(f"{base}/temp", f"{int(AMBIENT_C * 1000)}\n")
        else:  # present but unreadable (a dangling link: open fails, as SELinux denies)
            (self.root / base / "temp").symlink_to(self.root / ".fake/denied")

    # -- physics ----------------------------------------------------------------------------

    def running_tools(self) -> int:
        return sum(1 for _ in (self.root / ".fake/load").iterdir())

    def _heat(self, step_s: float = 0.05) -> None:
        while not self._stop.wait(step_s):
            n = self.running_tools()
            target = AMBIENT_C + HEAT_PER_TOOL_C * n
            for zone, temp in self._temps.items():
                self._temps[zone] = temp + (target - temp) * step_s / TAU_S
            self._update_files(n, step_s)

    def _update_files(self, n: int, step_s: float) -> None:
        for i, (kind, readable) in enumerate(ZONES):
            if readable:
                self._write(f"sys/class/thermal/thermal_zone{i}/temp",
                            f"{int(self._temps[kind] * 1000)}\n")
        for policy, (_, freqs) in CLUSTERS.items():
            cur = freqs[-1] if n else freqs[0]
            self._write(f"sys/devices/system/cpu/cpufreq/policy{policy}/scaling_cur_freq",
                        f"{cur}\n")
        self._write("sys/class/kgsl/kgsl-3d0/gpuclk", f"{GPU_FREQS_HZ[-1 if n else 0]}\n")
        ticks = int(step_s * 100)
        for counts in self._jiffies:
            busy = min(ticks, ticks * n // 2)
            counts[0] += busy
            counts[1] += ticks - busy
        self._write_stat()

    def _write_stat(self) -> None:
        lines = [f"cpu{c} {b} 0 0 {i} 0 0 0 0 0 0" for c, (b, i) in enumerate(self._jiffies)]
        total_b = sum(b for b, _ in self._jiffies)
        total_i = sum(i for _, i in self._jiffies)
        self._write("proc/stat", "\n".join([f"cpu  {total_b} 0 0 {total_i} 0 0 0 0 0 0",
                                            *lines, "intr 0", ""]))

    def temperature_c(self, zone: str) -> float:
        return self._temps[zone]

    # -- the shell --------------------------------------------------------------------------

    def rewrite(self, command: str) -> str:
        """The command with the phone's absolute paths moved into the root."""
        return _PATH.sub(lambda m: f"{self.root}{m.group(0)}", command)

    def unrewrite(self, data: bytes) -> bytes:
        return data.replace(str(self.root).encode(), b"")

    def spawn(self, command: str, merge_stderr: bool) -> subprocess.Popen[bytes]:
        env = {"PATH": f"{self.root}/system/bin:/usr/bin:/bin", "HOME": "/data/local/tmp",
               "FAKE_PHONE_ROOT": str(self.root), "PYTHONDONTWRITEBYTECODE": "1"}
        if "PYTHONPATH" in os.environ:
            env["PYTHONPATH"] = os.environ["PYTHONPATH"]
        proc = subprocess.Popen(["/bin/sh", "-c", self.rewrite(command)], cwd=self.root,
                                env=env, start_new_session=True, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT if merge_stderr else subprocess.PIPE)
        self.procs.append(proc)
        return proc

    def host_path(self, phone_path: str) -> Path:
        return self.root / phone_path.lstrip("/")

    def stat(self, phone_path: str) -> tuple[int, int, int]:
        """(mode, size, mtime) as sync STAT answers; zeros when absent."""
        try:
            st = self.host_path(phone_path).stat()
        except OSError:
            return (0, 0, 0)
        return (st.st_mode, st.st_size, int(st.st_mtime))

    def listing(self, phone_path: str) -> bytes:
        out = b""
        folder = self.host_path(phone_path)
        for entry in sorted(folder.iterdir()) if folder.is_dir() else []:
            st = entry.lstat()
            name = entry.name.encode()
            out += b"DENT" + struct.pack("<IIII", st.st_mode, st.st_size, int(st.st_mtime),
                                         len(name)) + name
        return out

    def push_failure(self, path: Path) -> str:
        return self.push_fails

    def banner(self) -> str:
        p = self.props
        return (f"device::ro.product.name={p['ro.product.name']};"
                f"ro.product.model={p['ro.product.model']};"
                f"ro.product.device={p['ro.product.device']};features=shell_v2,cmd")

    # -- faults -----------------------------------------------------------------------------

    def fault(self, kind: str, model: str = "") -> None:
        """Make the stand-in tools misbehave: ``kind`` in :data:`standins.common.FAULTS`, for
        models whose name contains ``model`` (empty: every model)."""
        self._write(f".fake/faults/{kind}", model)

    def close(self) -> None:
        self._stop.set()
        for proc in self.procs:  # each shell leads its own process group: end it, by id
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        self._physics.join(timeout=2)


_GETPROP = """#!/bin/sh
# getprop of the fake phone: every property, or one value
if [ $# -eq 0 ]; then cat "$FAKE_PHONE_ROOT/.fake/props"; exit 0; fi
sed -n "s/^\\[$1\\]: \\[\\(.*\\)\\]$/\\1/p" "$FAKE_PHONE_ROOT/.fake/props"
"""
