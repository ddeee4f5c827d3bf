"""Readers never write, and stay truthful on killed and damaged runs: real processes on the
twin. A results tree holds a completed run, a run SIGKILLed mid-run whose request journal then
gets a garbage tail, a run whose manifest is torn, and an index that is not UTF-8; ``harness
runs`` lists every run (the killed one as killed, the torn one on its own row), ``harness
report`` on the killed run prints the flags ``harness compare`` prints, and neither changes a
byte of the tree (a read-only tree, as root may not make one: every file's size and mtime,
and the set of files, are the same after)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from harness.reporting.store import load_run
from tests.fixtures.paths import REPO

RUN = ("scenario=single", "seed.count=1", "run=[tflite]", "plots=false")
ENV = {**os.environ, "HARNESS_NATIVE": "0", "PYTHONPATH": str(REPO)}
CONSOLE = "import sys; from harness.cli.main import main; main(sys.argv[1:])"


def harness(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", CONSOLE, *args], cwd=REPO, env=ENV,
                          capture_output=True, text=True, timeout=300, check=False)


def killed_run(folder: Path) -> None:
    """A run SIGKILLed once its request journal holds rows."""
    proc = subprocess.Popen([sys.executable, "-m", "harness", *RUN, "scenario.duration_s=400",
                             f"hydra.run.dir={folder}"], cwd=REPO, env=ENV,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    try:
        while not ((folder / "requests.arrows").exists() and load_run(folder).requests.size):
            assert proc.poll() is None and time.monotonic() < deadline, "never caught running"
            time.sleep(0.05)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()


def snapshot(root: Path) -> dict[str, tuple[int, int]]:
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns) for p in root.rglob("*")}


def test_runs_and_report_read_a_damaged_tree_and_write_nothing(tmp_path: Path) -> None:
    root = tmp_path / "results"
    done = subprocess.run([sys.executable, "-m", "harness", *RUN, "scenario.duration_s=0.3",
                           f"hydra.run.dir={root / 'k50pro' / 'done'}"], cwd=REPO, env=ENV,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    killed_run(root / "k50pro" / "killed")
    with (root / "k50pro" / "killed" / "requests.arrows").open("ab") as journal:
        journal.write(os.urandom(999))  # a garbage tail after the last whole batch
    torn = root / "k50pro" / "torn"
    torn.mkdir()
    (torn / "manifest.json").write_bytes(b'{"status": "compl\xff')
    (root / "index.jsonl").write_bytes(b'\xff\xfe{"folder": \n' + os.urandom(64) + b"\n")
    before = snapshot(root)

    listed = harness("runs", str(root))
    assert listed.returncode == 0 and "Traceback" not in listed.stderr, listed.stderr
    rows = dict(zip(listed.stdout.splitlines()[0::3], listed.stdout.splitlines()[1::3],
                    strict=False))
    assert " completed " in rows["k50pro/done"]
    assert " killed (never closed" in rows["k50pro/killed"]
    assert "unreadable:" in rows["k50pro/torn"] and "3 run(s)" in listed.stdout

    out = tmp_path / "report"
    shown = harness("report", str(root / "k50pro" / "killed"), "--out", str(out), "--no-plots")
    assert shown.returncode == 0 and "Traceback" not in shown.stderr, shown.stderr
    compared = subprocess.run([sys.executable, "-m", "harness.compare",
                               str(root / "k50pro" / "killed")], cwd=REPO, env=ENV,
                              capture_output=True, text=True, timeout=300, check=False)
    flags = [ln for ln in compared.stdout.splitlines() if ln.startswith("FLAG")]
    assert any("never closed" in f for f in flags) and any("covered" in f for f in flags)
    for flag in flags:
        assert flag in shown.stdout, shown.stdout
    assert snapshot(root) == before
    assert json.loads((root / "k50pro" / "killed" / "manifest.json").read_text())[
        "status"] == "running"
