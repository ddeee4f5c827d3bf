"""A phone run disturbed from outside: its serial blinks, or its host stops.

A phone whose serial blinks (its adbd gone for a second, then back on the same port) in the
middle of a runner run, on the loopback phone with the real runner and the real adb server.

The adb server rejoins the phone by itself a few seconds later; meanwhile the runner goes on
running on the phone and logging jobs. The run must ride it out: the host's calls are retried,
the runner (whose shell broke under it) is followed by its process id until it ends, and
the run ends ``completed`` with the rows of the jobs the phone logged, after the blink too.

A host stopped (SIGSTOP) for longer than the stall limit while the runner runs on: the
runner's log grew all along, so it is no stall; the run completes, the host's gap noted.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from harness.reporting.store import load_run
from tests.devices.adb.fakephone.adbd import Adbd
from tests.devices.adb.fakephone.phone import FakePhone
from tests.devices.adb.fakephone.server import AdbServer
from tests.devices.adb.test_adb_e2e import WAIT_S, env_for, wait_for
from tests.devices.adb.test_adb_runner import args, lines_in, runner_files
from tests.fixtures.paths import REPO

__all__ = ["args"]  # (the fixture, imported for this module's tests)

#: how long the host is stopped, s: longer than the stall limit it sets (3 s)
STOP_S = 6.0
#: a retry budget that rides out the adb server's rejoin: 0.5 + 1 + 2 + 4 s of waits
RETRIES = ("device.adb.retries=5", "device.adb.backoff_s=0.5")


def test_a_blinking_serial_keeps_the_run_and_its_rows(args: list[str], adb_server: AdbServer,
                                                      adbd: Adbd, phone: FakePhone,
                                                      tmp_path: Path) -> None:
    run_args = [*args, *RETRIES, "run=[adms]", "scenario.arrival=periodic", "scenario.fps=50",
                "scenario.duration_s=6", "device.tools.stall_s=10"]
    proc = subprocess.Popen(run_args, cwd=REPO, env=env_for(adb_server, phone),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    back: Adbd | None = None
    try:
        wait_for(lambda: lines_in(runner_files(phone, "adms")[1]) > 20, proc, "jobs logged")
        port = adbd.port
        adbd.kill()
        blinked = time.monotonic()
        time.sleep(1.0)
        back = Adbd(phone, port)
        _, stderr = proc.communicate(timeout=WAIT_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        if back is not None:
            back.kill()
    assert proc.returncode == 0, stderr[-3000:]
    run = load_run(tmp_path / "run")
    assert run.manifest["status"] == "completed"
    logged = lines_in(runner_files(phone, "adms")[1]) - 1  # (less its header)
    ok = run.requests[run.requests["status"] == "ok"]
    assert len(ok) >= 100 and len(run.subgraphs) >= logged * 0.9, (len(ok), logged)
    assert ok["end_ns"].max() > 5e9  # rows from after the blink, to the traffic's end
    assert time.monotonic() - blinked > 0  # (the blink happened during the run)
    facts = run.manifest["runs"]["adms"]["0"]
    assert "lost" in facts["shell_lost"] and facts["decisions"] == "clean"


@pytest.mark.slow
def test_a_stopped_host_is_no_stall_of_the_runner(args: list[str], adb_server: AdbServer,
                                                  phone: FakePhone, tmp_path: Path) -> None:
    """The host stopped (SIGSTOP) for longer than the stall limit while the runner runs on the
    phone, then continued: the runner did not stall (its log grew all along), so the run
    completes with its rows (timed by the phone's clock, which never stopped), and the host's
    gap is kept in the facts (``host_gaps_s``)."""
    run_args = [*args, "run=[adms]", "scenario.arrival=periodic", "scenario.fps=50",
                "scenario.duration_s=10", "device.tools.stall_s=3"]
    proc = subprocess.Popen(run_args, cwd=REPO, env=env_for(adb_server, phone),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: lines_in(runner_files(phone, "adms")[1]) > 20, proc, "jobs logged")
        os.kill(proc.pid, signal.SIGSTOP)
        time.sleep(STOP_S)
        os.kill(proc.pid, signal.SIGCONT)
        _, stderr = proc.communicate(timeout=WAIT_S)
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGCONT)
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, stderr[-3000:]
    run = load_run(tmp_path / "run")
    gaps = run.manifest["runs"]["adms"]["0"]["host_gaps_s"]
    assert run.manifest["status"] == "completed" and max(gaps) > STOP_S - 1
    assert run.requests["end_ns"].max() > 9e9  # the traffic ran to its end
