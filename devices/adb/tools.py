"""Running tool processes on the phone, several at once, and what to do when one fails.

:func:`run_all` starts every :class:`~devices.adb.rows.ToolRun` in its own host thread (its
own adb shell), each under the phone's ``timeout``, and returns when all ended; while they
run, the progress callback is fed the run's time. Nothing raises out of a tool's thread: a lost
phone or a failed call is written into its ToolRun, so every measured row gets written before
:func:`raise_for` turns the first failure into one UserError (a lost phone into
:class:`~devices.adb.transport.PhoneLost`).
"""

from __future__ import annotations

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
    threads = [threading.Thread(target=_execute, args=(transport, r, limit_s, clock),
                                name=f"tool-{r.model}", daemon=True) for r in runs]
    for t in threads:
        t.start()
    while alive := [t for t in threads if t.is_alive()]:
        progress(clock.now_ns())
        alive[0].join(TICK_S)
    progress(clock.now_ns())


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
