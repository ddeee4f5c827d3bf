"""What a phone run the host lost leaves on the phone, found by the next run or ``harness
recover``, on the loopback phone with the real runner and the real adb protocol.

The host is SIGKILLed while the runner runs: the runner goes on running on the phone. Then:

* the next run (``device.leftovers=stop``, the default) stops it before it starts, says so
  in one line naming the pid and where the lost run's logs went, and pulls them into the
  lost run's folder (``phone_leftovers/<phone folder>/``), then runs: exit 0;
* with ``device.leftovers=refuse`` the next run is refused in one line (exit 2) and the
  runner keeps running; ``harness recover RUN`` then stops it and pulls its logs.

Checked against the phone itself: the runner's process is gone, the pulled job log holds
the lines the runner had written.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.devices.adb.fakephone.phone import FakePhone
from tests.devices.adb.fakephone.server import AdbServer
from tests.devices.adb.test_adb_e2e import WAIT_S, env_for, wait_for
from tests.devices.adb.test_adb_runner import LONG, PERIODIC, args, requests_in, runner_files
from tests.fixtures.paths import REPO
from tests.fixtures.processes import alive
from tests.harness.experiment.test_cli import assert_user_error

__all__ = ["args"]  # (the fixture, imported for this module's tests)


def _into(args: list[str], folder: Path) -> list[str]:
    """``args`` recording into ``folder``."""
    return [*(a for a in args if not a.startswith("hydra.run.dir=")), f"hydra.run.dir={folder}"]


def _lost_run(args: list[str], server: AdbServer, phone: FakePhone, run_dir: Path) -> int:
    """A long ADMS run whose host is SIGKILLed once rows reached its folder; the pid of the
    runner it left running on the phone."""
    proc = subprocess.Popen(_into([*args, *LONG], run_dir), cwd=REPO,
                            env=env_for(server, phone), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: requests_in(run_dir) > 0, proc, "requests rows in the run folder")
    finally:
        proc.kill()
        proc.communicate()
    pid = int(runner_files(phone, "adms")[0].read_text())
    assert alive(pid)
    return pid


def _pulled(run_dir: Path) -> Path:
    (folder,) = (run_dir / "phone_leftovers").iterdir()
    return folder / "jobs.tsv"


def test_the_next_run_stops_the_lost_runner_and_pulls_its_logs(
        args: list[str], adb_server: AdbServer, phone: FakePhone, tmp_path: Path) -> None:
    lost = tmp_path / "lost"
    pid = _lost_run(args, adb_server, phone, lost)
    nxt = subprocess.run(_into([*args, "run=[adms]", *PERIODIC], tmp_path / "next"),
                         cwd=REPO, env=env_for(adb_server, phone), capture_output=True,
                         text=True, timeout=WAIT_S)
    assert nxt.returncode == 0, nxt.stderr[-3000:]
    assert not alive(pid)
    said = [ln for ln in nxt.stderr.splitlines() if ln.startswith("phone leftover adms_")]
    assert len(said) == 1 and f"stopped pid {pid} left running on the phone" in said[0]
    assert str(lost / "phone_leftovers") in said[0]
    assert _pulled(lost).read_text().count("\n") > 20


@pytest.mark.slow
def test_refuse_then_recover(args: list[str], adb_server: AdbServer, phone: FakePhone,
                             tmp_path: Path) -> None:
    lost = tmp_path / "lost"
    pid = _lost_run(args, adb_server, phone, lost)
    refused = subprocess.run(_into([*args, "run=[adms]", *PERIODIC, "device.leftovers=refuse"],
                             tmp_path / "next"), cwd=REPO,
                             env=env_for(adb_server, phone), capture_output=True, text=True,
                             timeout=WAIT_S)
    assert_user_error(refused, "a run the host lost left a process running on the phone",
                      f"pid {pid}", "harness recover")
    assert alive(pid)
    recovered = subprocess.run(
        [sys.executable, "-c", "import sys; from harness.cli.main import main; "
         "main(sys.argv[1:])", "recover", str(lost)], cwd=REPO,
        env=env_for(adb_server, phone), capture_output=True, text=True, timeout=WAIT_S)
    assert recovered.returncode == 0, recovered.stderr[-3000:]
    assert f"stopped pid {pid}" in recovered.stdout and not alive(pid)
    assert _pulled(lost).read_text().count("\n") > 20
    again = subprocess.run(
        [sys.executable, "-c", "import sys; from harness.cli.main import main; "
         "main(sys.argv[1:])", "recover", str(lost)], cwd=REPO,
        env=env_for(adb_server, phone), capture_output=True, text=True, timeout=WAIT_S)
    assert again.returncode == 0 and "nothing of" in again.stdout
