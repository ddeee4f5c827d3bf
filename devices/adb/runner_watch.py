"""One native runner process on the phone, watched from the host while it runs.

:func:`watch` starts the runner's command in a host thread (one adb shell, under the
phone's ``timeout`` like every tool) and, every half second until it ends, feeds the progress
bar, copies what the runner's logs gained since the last look (``tail -c +N``: only the
new bytes travel; each copy's start and end on the host's clock are kept, for
:mod:`devices.adb.runner_rows` to tell which lines are surely all there) and hands them to
``pulled``, which writes their rows as they come, so a phone lost mid-run still leaves every
line up to the last look on the host and its rows in the run folder. A runner whose job log
has not grown for ``stall_s`` (``grace_s`` before its first job: loading and warming up the
slices) is stalled: it is killed on the phone by the process id it wrote first. A runner
running a closed loop (which counts requests, not time) is stopped the same way once its
traffic's time and a drain have passed since its first job (``stop_s``): its lines up to
then are flushed (every second), and the rows keep the requests issued within the traffic's
time. A phone whose serial blinks is retried (every look is an idempotent call); a runner
whose shell broke under it is followed once the phone answers again, by its process id,
until it ends (``shell_lost``), so the rows it logged meanwhile are kept. Nothing the runner
does raises out of the watch: how it ended is in its
:class:`RunnerProcess` for :func:`failure` to word once the rows are written. What raises
out of it is the host's own ending (an interruption, SIGINT or SIGTERM, comes as
:class:`KeyboardInterrupt` while it waits): the runner is then killed on the phone and its
logs pulled a last time if the phone answers (:func:`abandon`) before the exception goes on.
"""

from __future__ import annotations

import posixpath
import shlex
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from devices.adb.tools import kill_command
from devices.adb.transport import PhoneLost, ShellResult, Transport
from harness.seams.errors import UserError

TICK_S = 0.5
#: more than this between the end of a look and the start of the next (a TICK_S wait), s,
#: means the host stood still
HOST_GAP_S = 10 * TICK_S


@dataclass
class LogTail:
    """A file on the phone, copied to the host as it grows."""

    path: str
    text: str = ""
    #: bytes of the file copied so far (kept, not counted again from ``text`` at every pull)
    size: int = 0
    #: when the last pull began and ended, host monotonic s (a line it brought was in the
    #: file by its end; a line in the file at its beginning came with it)
    began_s: float = 0.0
    ended_s: float = 0.0

    def pull(self, transport: Transport) -> bool:
        """Copy what was added since the last pull; whether anything was."""
        self.began_s = time.monotonic()
        got = transport.shell(f"tail -c +{self.size + 1} {shlex.quote(self.path)} 2>/dev/null",
                              retry=True)
        self.text += got.stdout
        self.size += len(got.stdout.encode())
        self.ended_s = time.monotonic()
        return bool(got.stdout)


@dataclass
class RunnerProcess:
    """The runner as the host saw it."""

    command: str
    folder: str
    logs: dict[str, LogTail] = field(default_factory=dict)
    result: ShellResult | None = None
    problem: str = ""
    lost: bool = False
    stalled_s: float = 0.0
    #: stopped by the host when its traffic's time was up (a closed loop)
    stopped: bool = False
    #: how long its shell took, s
    took_s: float = 0.0
    #: its shell returned (not its thread's ``is_alive``: a KeyboardInterrupt in ``join``
    #: marks a running thread stopped, CPython 3.11's ``Thread._wait_for_tstate_lock``)
    ended: bool = False
    #: why its shell broke while the runner went on running on the phone ("": it did not)
    shell_lost: str = ""
    #: times the host stood still between two looks, s (not counted as the runner's stall)
    host_gaps_s: list[float] = field(default_factory=list)

    @property
    def pid_file(self) -> str:
        return posixpath.join(self.folder, "pid")

    def shell_command(self) -> str:
        """Writes its process id, then becomes the runner."""
        return f"echo $$ > {shlex.quote(self.pid_file)}; exec {self.command}"


def _execute(transport: Transport, proc: RunnerProcess, limit_s: float) -> None:
    began = time.monotonic()
    try:
        proc.result = transport.shell(proc.shell_command(), limit_s, retry=False)
    except PhoneLost as exc:
        proc.lost, proc.problem = True, str(exc)
    except UserError as exc:
        proc.problem = str(exc)
    proc.took_s = time.monotonic() - began
    proc.ended = True


def _nothing() -> None:
    pass


@dataclass
class Watch:
    """Stall limits, seconds: before the first job, and between jobs; the time after the
    first job at which the host stops the runner (0: it ends by itself); what is called at
    every look (``progress``) and after every pull of the logs (``pulled``)."""

    first_s: float
    stall_s: float
    progress: Callable[[], None]
    stop_s: float = 0.0
    pulled: Callable[[], None] = _nothing


def watch(transport: Transport, proc: RunnerProcess, limit_s: float, limits: Watch) -> None:
    """Run ``proc`` to its end (see the module docstring)."""
    thread = threading.Thread(target=_execute, args=(transport, proc, limit_s),
                              name="runner", daemon=True)
    thread.start()
    try:
        _follow(transport, proc, limits, thread)
    except BaseException:
        abandon(transport, proc, not proc.ended)
        raise


def _follow(transport: Transport, proc: RunnerProcess, limits: Watch,
            thread: threading.Thread) -> None:
    looks = _Looks(transport, proc, limits, thread)
    while thread.is_alive():
        thread.join(TICK_S)
        if not looks.look():
            return
    if proc.lost and proc.result is None:
        _reattach(transport, proc, looks)
        if proc.lost:
            return
    _final_pull(transport, proc)
    limits.pulled()


def _reattach(transport: Transport, proc: RunnerProcess, looks: _Looks) -> None:
    """The runner's shell broke (the phone's serial blinked, the link dropped) but the
    runner may still run on the phone: once the phone answers again, follow its logs
    until its process ends, as while its shell lived. Only a phone that never comes back
    (a retried call lost) leaves the run lost."""
    proc.shell_lost, proc.lost, proc.problem = proc.problem, False, ""
    try:
        while _running(transport, proc):
            time.sleep(TICK_S)
            if not looks.look():
                return
    except PhoneLost as exc:
        proc.lost, proc.problem = True, str(exc)


def _running(transport: Transport, proc: RunnerProcess) -> bool:
    """Whether the process named by the runner's pid file still runs (a retried call)."""
    pid = shlex.quote(proc.pid_file)
    return transport.shell(f"kill -0 $(cat {pid} 2>/dev/null) 2>/dev/null && echo yes",
                           retry=True).stdout.strip() == "yes"


class _Looks:
    """One look at a running runner every tick: progress, its logs pulled, a stall or the
    end of its traffic's time acted on (module docstring)."""

    def __init__(self, transport: Transport, proc: RunnerProcess, limits: Watch,
                 thread: threading.Thread) -> None:
        self.transport, self.proc, self.limits, self.thread = transport, proc, limits, thread
        self.last = self.seen = time.monotonic()
        self.first: float | None = None

    def _host_gap(self) -> None:
        """A wait between two looks longer than :data:`HOST_GAP_S`: the host itself stood
        still (stopped, suspended, a frozen VM) while the runner ran on. That time is no
        stall of the runner's: the stall clock skips it, and the gap is kept
        (``host_gaps_s``)."""
        now = time.monotonic()
        if now - self.seen > HOST_GAP_S:
            self.proc.host_gaps_s.append(round(now - self.seen, 3))
            self.last += now - self.seen

    def look(self) -> bool:
        """One look; False when the phone was lost (``proc`` says so)."""
        proc, limits, jobs = self.proc, self.limits, self.proc.logs["jobs"]
        self._host_gap()
        limits.progress()
        try:
            grew = _pull_all(self.transport, proc.logs.values(), jobs)
            limits.pulled()
            if grew:
                self.last = time.monotonic()
                if self.first is None and jobs.text.count("\n") > 1:
                    self.first = self.last
            elif time.monotonic() - self.last > (limits.stall_s if self.first
                                                 else limits.first_s):
                proc.stalled_s = time.monotonic() - self.last
                _kill(self.transport, proc, self.thread)
            if limits.stop_s and self.first and time.monotonic() - self.first > limits.stop_s:
                proc.stopped = True
                _kill(self.transport, proc, self.thread)
        except PhoneLost as exc:
            proc.lost, proc.problem = True, str(exc)
            return False
        self.seen = time.monotonic()  # (the next look's gap is counted from here)
        return True


def _pull_all(transport: Transport, logs: Iterable[LogTail], jobs: LogTail) -> bool:
    """Pull every log; whether the job log grew."""
    grew = False
    for log in logs:
        grew |= log.pull(transport) and log is jobs
    return grew


def _final_pull(transport: Transport, proc: RunnerProcess) -> None:
    if proc.lost:
        return
    try:
        for log in proc.logs.values():
            log.pull(transport)
    except PhoneLost as exc:
        proc.lost, proc.problem = True, str(exc)


def _kill(transport: Transport, proc: RunnerProcess, thread: threading.Thread) -> None:
    transport.shell(kill_command([proc.pid_file]), retry=True)
    thread.join()


def abandon(transport: Transport, proc: RunnerProcess, running: bool) -> None:
    """The host leaves mid-run: the runner, if still ``running``, killed on the phone (by
    the process id it wrote first) and its logs pulled a last time, if the phone answers
    (every line it flushed is in them then); nothing raises out, so the host's own ending
    goes on."""
    if proc.lost:
        return
    try:
        if running:
            transport.shell(kill_command([proc.pid_file]), retry=False)
        for log in proc.logs.values():
            log.pull(transport)
    except Exception as exc:  # (any: leaving must not hide why the host leaves)
        proc.problem = proc.problem or f"the runner could not be stopped: {exc}"


def error_line(result: ShellResult) -> str:
    """The runner's ``error:`` line, else its last line."""
    lines = [ln.strip() for ln in (result.stderr + "\n" + result.stdout).splitlines()]
    errors = [ln for ln in lines if ln.startswith("error:")]
    return (errors or [ln for ln in lines if ln] or [""])[-1]


def failure(proc: RunnerProcess, limit_s: float) -> str | None:
    """How the runner failed, in words (None: it ended well)."""
    if proc.stopped and proc.result is not None:
        return None
    if proc.stalled_s:
        return (f"the runner stalled (its job log did not grow for {proc.stalled_s:.0f} s) "
                f"and was killed on the phone (device.tools.stall_s)")
    if proc.result is None and proc.shell_lost and not proc.lost:
        return None  # (followed to its end once the phone came back; its exit unknown)
    if proc.result is None:
        return proc.problem or "the runner did not run"
    code = proc.result.exit_code
    if proc.result.timed_out and proc.took_s >= limit_s:
        return f"the runner did not finish within {limit_s:.0f} s and was killed on the phone"
    if code > 128:
        return f"the runner was killed (signal {code - 128})"
    if code != 0:
        return f"the runner exited with {code}: {error_line(proc.result)}"
    return None
