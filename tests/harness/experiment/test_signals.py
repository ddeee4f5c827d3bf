"""A run stopped by a signal closes cleanly, on a twin.

SIGINT, a second SIGINT during shutdown and SIGTERM end the run as ``interrupted`` with the
journals closed into parquet; SIGKILL leaves the manifest at ``running`` and the journals
(every batch written before the kill), which reading the folder reads in place (never
converting them), and whose claim no one holds (compare flags it as never closed).

In the default run, SIGINT, double SIGINT and SIGTERM are real signals sent to this process
while ``harness.__main__.main()`` runs in it (its handlers are the ones a shell's Ctrl-C
reaches; the second SIGINT is sent when the journals start closing, so it lands during
shutdown), and SIGKILL kills a real ``python -m harness`` process. The ``slow`` variant runs
all four as real processes started together, signalled once their journals hold rows (the
recorder writes its held rows at least once a second).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.__main__ import main
from harness.reporting.compare import flags
from harness.reporting.journal import journal_frame
from harness.reporting.runfolder import RunFolder, State
from harness.reporting.store import RunRecorder, load_run
from harness.seams.rows import REQUEST_COLUMNS
from tests.fixtures.paths import REPO

#: a run far longer than the test: only a signal ends it
LONG = ("scenario=single", "scenario.duration_s=100000", "seed.count=1", "run=[tflite]",
        "plots=false")
PLANS = {"sigint": [signal.SIGINT], "double_sigint": [signal.SIGINT, signal.SIGINT],
         "sigterm": [signal.SIGTERM], "sigkill": [signal.SIGKILL]}


def _start(folder: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen([sys.executable, "-m", "harness", *LONG, f"hydra.run.dir={folder}"],
                            cwd=REPO, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)


def _journaled(journal: Path) -> int:
    """Request rows the journal holds so far (its complete batches)."""
    return len(journal_frame(journal, REQUEST_COLUMNS))


def _wait_for_rows(proc: subprocess.Popen[str], journal: Path) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if _journaled(journal) > 0:
            return
        time.sleep(0.05)
    raise AssertionError(f"no rows in {journal} (exit {proc.poll()})")


@pytest.fixture(scope="module", autouse=True)
def to_kill(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[subprocess.Popen[str], Path]]:
    """A real run, started with the module so that its start-up overlaps the other tests."""
    folder = tmp_path_factory.mktemp("sigkill") / "run"
    proc = _start(folder)
    yield proc, folder
    if proc.poll() is None:
        proc.kill()
    proc.communicate()


@pytest.fixture
def killed(to_kill: tuple[subprocess.Popen[str], Path]) -> Path:
    proc, folder = to_kill
    _wait_for_rows(proc, folder / "requests.arrows")
    proc.send_signal(signal.SIGKILL)
    assert proc.wait(timeout=60) == -signal.SIGKILL
    return folder


def _in_process(folder: Path, monkeypatch: pytest.MonkeyPatch, sig: int,
                again_on_close: bool = False) -> tuple[int, list[int]]:
    """``main()`` in this process, sent ``sig`` once the journal holds rows (and, with
    ``again_on_close``, SIGINT again as the journals start closing). Returns the exit code
    and the signals that reached the test's own handler (none should)."""
    stray: list[int] = []
    monkeypatch.setattr(sys, "argv", ["harness", *LONG, f"hydra.run.dir={folder}"])
    if again_on_close:
        close = RunRecorder.close

        def close_after_a_second_sigint(self: RunRecorder, release: bool = True) -> None:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)
            close(self, release)

        monkeypatch.setattr(RunRecorder, "close", close_after_a_second_sigint)
    sender = threading.Thread(target=_signal_when_rows, args=(folder, sig), daemon=True)
    before = {s: signal.signal(s, lambda n, _f: stray.append(n))
              for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        sender.start()
        with pytest.raises(SystemExit) as ended:
            main()
    finally:
        for s, h in before.items():
            signal.signal(s, h)
    return int(ended.value.code or 0), stray


def _signal_when_rows(folder: Path, sig: int) -> None:
    """Send ``sig`` once the journal holds rows, or after 120 s in any case: a run that has
    not started by then is stopped rather than left running for its 100,000 s (the test then
    fails on what it finds, instead of hanging)."""
    journal = folder / "requests.arrows"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if _journaled(journal) > 0:
            break
        time.sleep(0.02)
    os.kill(os.getpid(), sig)


@pytest.mark.parametrize(("sig", "again", "code"),
                         [(signal.SIGINT, False, 130), (signal.SIGINT, True, 130),
                          (signal.SIGTERM, False, 143)],
                         ids=["sigint", "double_sigint", "sigterm"])
def test_a_signal_in_process_ends_interrupted_with_parquet(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    sig: int, again: bool, code: int,
) -> None:
    folder = tmp_path / "run"
    returncode, stray = _in_process(folder, monkeypatch, sig, again)
    assert (returncode, stray) == (code, [])
    manifest = _manifest(folder)
    assert manifest["status"] == "interrupted"
    assert manifest["signal"] == signal.Signals(sig).name
    assert (folder / "requests.parquet").exists() and (folder / "sensors.parquet").exists()
    assert len(load_run(folder).requests) > 0
    err = capsys.readouterr().err
    assert ("SIGINT during shutdown" in err) == again


def test_sigkill_then_reading_the_journals(killed: Path) -> None:
    assert _manifest(killed)["status"] == "running"
    assert not (killed / "requests.parquet").exists()
    journaled = _journaled(killed / "requests.arrows")
    run = load_run(killed)
    assert len(run.requests) == journaled > 0  # every batch written before the kill
    # read in place: nothing converted, and the run is read as killed, not as going on
    assert not (killed / "requests.parquet").exists() and (killed / "requests.arrows").exists()
    folder = RunFolder(killed)
    assert folder.state == State.RUNNING and folder.recorder_pid is None
    assert any("never closed" in line for line in flags(folder))


@pytest.fixture(scope="module")
def stopped(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, tuple[int, str, Path]]]:
    root = tmp_path_factory.mktemp("signals")
    procs = {name: _start(root / name) for name in PLANS}
    try:
        for name, proc in procs.items():
            _wait_for_rows(proc, root / name / "requests.arrows")
            for k, sig in enumerate(PLANS[name]):
                if k:
                    time.sleep(0.05)  # the second Ctrl-C, 50 ms after the first
                proc.send_signal(sig)
        yield {name: (proc.wait(timeout=120), proc.communicate()[1], root / name)
               for name, proc in procs.items()}
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.kill()


def _manifest(folder: Path) -> dict:
    return json.loads((folder / "manifest.json").read_text())


@pytest.mark.slow
@pytest.mark.parametrize(("name", "code", "signal_name"),
                         [("sigint", 130, "SIGINT"), ("double_sigint", 130, "SIGINT"),
                          ("sigterm", 143, "SIGTERM")])
def test_a_signal_ends_the_run_interrupted_with_parquet(
    stopped: dict, name: str, code: int, signal_name: str
) -> None:
    returncode, stderr, folder = stopped[name]
    assert returncode == code, stderr
    assert "Traceback" not in stderr
    manifest = _manifest(folder)
    assert manifest["status"] == "interrupted" and manifest["signal"] == signal_name
    requests = folder / "requests.parquet"
    assert requests.exists() and (folder / "sensors.parquet").exists()
    assert len(load_run(folder).requests) > 0


@pytest.mark.slow
def test_sigkill_leaves_journals_read_in_place(stopped: dict) -> None:
    returncode, _, folder = stopped["sigkill"]
    assert returncode == -signal.SIGKILL
    assert _manifest(folder)["status"] == "running"
    assert not (folder / "requests.parquet").exists()
    journaled = _journaled(folder / "requests.arrows")
    run = load_run(folder)
    assert len(run.requests) == journaled > 0
    assert not (folder / "requests.parquet").exists()


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_signal_whose_exception_is_lost_still_stops_the_run() -> None:
    """A handler's exception raised inside ``__del__`` is printed and dropped by Python; the
    signal stays pending, and the run's progress callback (``obey_pending_signal``) raises."""
    from harness.experiment import session

    class Dropped:
        def __del__(self) -> None:
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(100_000):  # the handler runs here, and its exception is dropped
                pass

    with session.stop_on_signals():
        obj = Dropped()
        del obj
        with pytest.raises(session.Interrupted):
            session.obey_pending_signal()
    session.obey_pending_signal()  # outside the block nothing is pending
