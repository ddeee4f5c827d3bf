"""Running tool processes on the phone, several at once, and what to do when one fails.

:func:`run_all` starts every :class:`~devices.adb.rows.ToolRun` in its own host thread (its
own adb shell), each under the phone's ``timeout``, and returns when every shell returned
(:attr:`ToolRun.ended <devices.adb.rows.ToolRun.ended>`); while they run, the progress
callback is fed the run's time. Nothing raises out of a tool's thread: a lost phone or a
failed call is written into its ToolRun, so every measured row gets written before
:func:`raise_for` turns the first failure into one UserError (a lost phone into
:class:`~devices.adb.transport.PhoneLost`).

What raises out of :func:`run_all` is the host's own ending: an interruption (SIGINT or
SIGTERM, :class:`~harness.experiment.endings.Interrupted`, a KeyboardInterrupt) arrives while
it waits. Closing the host's adb shells does not stop their tools on the phone, so every tool
whose shell has not returned is then killed by the process id its shell wrote to its
``pid_file`` (:func:`~devices.adb.tflite_tool.tool_command`), if the phone answers
(:func:`stop`), and the exception goes on.
"""

from __future__ import annotations

import shlex
import threading
from collections.abc import Callable, Sequence

from devices.adb.clock import RunClock
from devices.adb.rows import ToolRun
from devices.adb.tflite_tool import END, START, marker_ns
from devices.adb.transport import PhoneLost, Transport
from harness.seams.errors import UserError

TICK_S = 0.5


def _execute(transport: Transport, run: ToolRun, limit_s: float, clock: RunClock) -> None:
    try:
        _shell(transport, run, limit_s, clock)
    finally:
        run.ended = True


def _shell(transport: Transport, run: ToolRun, limit_s: float, clock: RunClock) -> None:
    try:
        run.result = transport.shell(run.command, limit_s, retry=False)
    except PhoneLost as exc:
        run.lost, run.problem = True, str(exc)
        return
    except UserError as exc:
        run.problem = str(exc)
        return
    start, end = marker_ns(run.result.stdout, START), marker_ns(run.result.stdout, END)
    run.start_ns = clock.from_phone(start) if start else -1
    run.end_ns = clock.from_phone(end) if end else -1


def run_all(transport: Transport, runs: Sequence[ToolRun], limit_s: float, clock: RunClock,
            progress: Callable[[int], None]) -> None:
    """Run every tool to its end (see the module docstring)."""
    threads = [threading.Thread(target=_execute, args=(transport, r, limit_s, clock),
                                name=f"tool-{r.model}", daemon=True) for r in runs]
    try:
        for t in threads:
            t.start()
        while running := [t for t, r in zip(threads, runs, strict=True) if not r.ended]:
            progress(clock.now_ns())
            running[0].join(TICK_S)
    except BaseException:
        stop(transport, runs)
        raise
    progress(clock.now_ns())


def kill_command(pid_files: Sequence[str]) -> str:
    """The shell text that kills the processes whose ids these files hold."""
    files = " ".join(shlex.quote(f) for f in pid_files)
    return f"kill -9 $(cat {files} 2>/dev/null) 2>/dev/null"


def stop(transport: Transport, runs: Sequence[ToolRun]) -> None:
    """The host leaves mid-run: every tool whose shell has not returned killed on the phone
    by its process id, if the phone answers; nothing raises out, so the host's own ending
    goes on. (A tool whose shell has not yet written its id is missed.)"""
    files = [r.pid_file for r in runs if r.pid_file and not r.ended]
    if not files:
        return
    try:
        transport.shell(kill_command(files), retry=False)
    except Exception as exc:  # (any: leaving must not hide why the host leaves)
        for run in runs:
            run.problem = run.problem or f"the tool could not be stopped: {exc}"


def describe_failure(run: ToolRun, status: str, limit_s: float) -> str:
    where = f"{run.tool} for {run.model or 'the scenario'}" + (
        f" on {run.processor}" if run.processor else "")
    if status == "timeout":
        return (f"{where} did not finish within {limit_s:.0f} s and was killed on the phone "
                f"(a stalled tool; device.tools.grace_s sets the slack)")
    if status == "truncated":
        return f"{where} printed a truncated output (no final timings line)"
    detail = run.problem or (run.result.last_line() if run.result else "")
    code = f"exited with {run.result.exit_code}" if run.result else "failed"
    return f"{where} {code}: {detail}"


def raise_for(baseline: str, runs: Sequence[ToolRun], statuses: Sequence[str],
              limit_s: float) -> None:
    """One error for the first tool that did not end well (after its rows were written)."""
    kept = "; its output, the other tools' rows and the run's sensors are kept"
    for run, status in zip(runs, statuses, strict=True):
        if status == "lost":
            raise PhoneLost(run.problem)
        if status != "ok":
            raise UserError(f"{baseline} on the phone: {describe_failure(run, status, limit_s)}"
                            f"{kept}")
