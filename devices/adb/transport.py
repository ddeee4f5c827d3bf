"""One phone over adb: shell commands with a timeout and an exit code, pushes and pulls.

:class:`Transport` speaks to the adb server through ``adbutils`` (the real client; the server
is the real adb). Every command

* is wrapped in a subshell ``( … )`` and runs under the phone's own ``timeout`` (toybox):
  a hung tool is killed **on the phone** at its limit (TERM, then KILL ``kill_after_s``
  later), because a host-side timeout leaves the remote process running (FINDINGS.md);
  ``adbutils``' v1 exit-code marker also breaks on commands that ``exit`` themselves, which the
  subshell prevents;
* returns its exit code (``shell,v2``: the exit code travels in the protocol) and output;
* waits at most its limit plus a grace on the host side.

A lost phone (``device offline``, gone from the server, a dropped connection) is retried with
a doubling backoff (``retries``, ``backoff_s``) and then raises :class:`PhoneLost`, a
:class:`~harness.seams.errors.UserError`: one line, exit 2. A tool run is never retried
(it is not idempotent): a phone lost under it is lost at once.

The serial comes from the config, else ``ANDROID_SERIAL``, else the only phone attached;
``HOST:PORT`` serials are joined with ``adb connect`` when the server does not list them. The
server is the one at ``adb.host:adb.port``; a local one is started on that port if none
answers (adbutils would start one on its default port instead).
"""

from __future__ import annotations

import os
import shlex
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import adbutils
from adbutils import AdbClient, AdbError, AdbTimeout
from adbutils.errors import AdbConnectionError

from devices.adb.config import AdbDeviceConf
from harness.seams.errors import UserError

T = TypeVar("T")
#: what an adb error says when the phone went away
LOST_WORDS = ("offline", "not found", "no devices", "closed", "connection", "unauthorized",
              "broken pipe", "reset")
#: host-side slack beyond the on-device limit before a call is given up, seconds
HOST_SLACK_S = 10.0


class PhoneLost(UserError):
    """The phone went away (offline, unplugged, adbd killed) and did not come back."""


class TransferDeadline(UserError):
    """A call to the phone (a push, a pull, a shell) did not end within its deadline."""


@dataclass(frozen=True, slots=True)
class ShellResult:
    """A finished shell command."""

    exit_code: int
    stdout: str
    stderr: str

    @property
    def timed_out(self) -> bool:
        """Killed by the phone's ``timeout`` (124; 137 when it needed KILL)."""
        return self.exit_code in (124, 137)

    def last_line(self) -> str:
        """The last error line it printed (else its last line), past the ``@@`` markers."""
        lines = [ln.strip() for ln in (self.stdout + "\n" + self.stderr).splitlines()
                 if ln.strip() and not ln.startswith("@@")]
        errors = [ln for ln in lines if "error" in ln.lower() or "fail" in ln.lower()]
        return (errors or lines or [""])[-1]


class TrackingClient(AdbClient):
    """adbutils' client that closes, after each call, the connections the call opened:
    adbutils 2.12's ``open_transport`` raises on a refused transport (``device offline``)
    before it closes its connection, which would leak one socket per failed try."""

    _local = threading.local()

    def make_connection(self, timeout: float | None = None) -> Any:
        conn = super().make_connection(timeout)
        opened = getattr(self._local, "opened", None)
        if opened is not None:
            opened.append(conn)
        return conn

    @contextmanager
    def closing(self) -> Iterator[list[Any]]:
        """The connections a call opens (yielded: a watchdog may close them), closed after."""
        opened: list[Any] = []
        self._local.opened = opened
        try:
            yield opened
        finally:
            for conn in opened:
                conn.close()
            self._local.opened = None


def on_device_timeout(command: str, limit_s: float, kill_after_s: float) -> str:
    """``command`` as it is sent: a subshell under the phone's ``timeout``."""
    limit, grace = max(1, round(limit_s)), max(1, round(kill_after_s))
    return f"( timeout -k {grace} {limit} sh -c {shlex.quote(command)} )"


def is_lost(exc: BaseException) -> bool:
    if isinstance(exc, EOFError | ConnectionError | AdbConnectionError):
        return True
    return isinstance(exc, AdbError) and any(w in str(exc).lower() for w in LOST_WORDS)


class Transport:
    """Shell, push and pull on one phone; see the module docstring."""

    def __init__(self, conf: AdbDeviceConf) -> None:
        self.conf = conf
        self.server = conf.adb
        self.client = self._client()
        self.serial = self._resolve_serial(conf.serial or os.environ.get("ANDROID_SERIAL", ""))
        self.device = self.client.device(self.serial)

    # -- the server and the serial ---------------------------------------------------------

    def _client(self) -> TrackingClient:
        host, port = self.server.host, self.server.port
        if not _listening(host, port):
            if host not in ("127.0.0.1", "localhost"):
                raise UserError(f"no adb server answers at {host}:{port} (device.adb.host/port)")
            _start_server(port)
        return TrackingClient(host, port,
                              socket_timeout=self.server.transfer_timeout_s + HOST_SLACK_S)

    def attached(self) -> dict[str, str]:
        """Serial -> state of every device the server lists."""
        return {d.serial: d.state for d in self.client.list()}

    def _resolve_serial(self, serial: str) -> str:
        devices = self.attached()
        if not serial:
            ready = [s for s, state in devices.items() if state == "device"]
            if len(ready) != 1:
                raise UserError(_which_phone(ready))
            return ready[0]
        if serial not in devices and ":" in serial:
            self._connect(serial)
            devices = self.attached()
        if devices.get(serial) != "device":
            raise UserError(_not_ready(serial, devices))
        return serial

    def _connect(self, serial: str) -> None:
        try:
            self.client.connect(serial, timeout=self.server.command_timeout_s)
        except AdbError as exc:
            raise UserError(f"adb connect {serial} failed: {exc}") from None
        deadline = time.monotonic() + self.server.command_timeout_s
        while self.attached().get(serial) != "device" and time.monotonic() < deadline:
            time.sleep(0.1)

    # -- calls -----------------------------------------------------------------------------

    def shell(self, command: str, limit_s: float | None = None, retry: bool = True
              ) -> ShellResult:
        """Run ``command`` on the phone under its ``timeout`` of ``limit_s`` (default: the
        command timeout); ``retry``: retry when the phone is lost (idempotent commands)."""
        limit = self.server.command_timeout_s if limit_s is None else limit_s
        wrapped = on_device_timeout(command, limit, self.server.kill_after_s)
        wait_s = limit + self.server.kill_after_s + HOST_SLACK_S
        call = self._retrying if retry else self._once
        raw = call(f"shell {command[:60]!r}",
                   lambda: self.device.shell2(wrapped, timeout=wait_s, v2=True), wait_s)
        return ShellResult(raw.returncode, raw.stdout, raw.stderr)

    def check(self, command: str, what: str, limit_s: float | None = None) -> str:
        """``command``'s stdout; a non-zero exit is a UserError naming ``what``."""
        result = self.shell(command, limit_s)
        if result.exit_code != 0:
            raise UserError(f"{what} failed on the phone (exit {result.exit_code}): "
                            f"{result.last_line() or command}")
        return result.stdout

    def push(self, local: Path, remote: str, mode: int) -> None:
        def send() -> None:
            self.device.sync.push(local, remote, mode=mode)

        try:
            self._retrying(f"push of {local.name}", send, self.server.transfer_timeout_s)
        except (PhoneLost, TransferDeadline):
            raise
        except AdbError as exc:
            raise UserError(f"push of {local} to {remote} failed: {exc}") from None
        size = self.stat_size(remote)
        if size != local.stat().st_size:
            raise UserError(f"push of {local} to {remote} failed: the phone has {size} of "
                            f"{local.stat().st_size} bytes")

    def stat_size(self, remote: str) -> int | None:
        """Size of a file on the phone, None if absent."""
        info = self._retrying(f"stat {remote}", lambda: self.device.sync.stat(remote),
                              self.server.command_timeout_s)
        return int(info.size) if info.mtime is not None else None

    def pull_text(self, remote: str) -> str:
        """A text file's content (undecodable bytes replaced)."""
        try:
            data = self._retrying(f"pull of {remote}",
                                  lambda: self.device.sync.read_bytes(remote),
                                  self.server.transfer_timeout_s)
        except (PhoneLost, TransferDeadline):
            raise
        except AdbError as exc:
            raise UserError(f"pull of {remote} failed: {exc}") from None
        return data.decode("utf-8", errors="replace")

    def _call(self, call: Callable[[], T], what: str = "", limit_s: float = 0.0) -> T:
        """``call``, given up after ``limit_s`` (0: no deadline) by closing its connections
        under it: a transfer to a phone whose storage filled, or a stalled link, never
        hangs the run; a call given up is a :class:`TransferDeadline`, never retried."""
        with self.client.closing() as opened:
            if limit_s <= 0:
                return call()
            fired = threading.Event()
            timer = threading.Timer(limit_s, _give_up, (opened, fired))
            timer.daemon = True
            timer.start()
            try:
                return call()
            except Exception:
                if fired.is_set():
                    raise TransferDeadline(_deadline(self.serial, what, limit_s)) from None
                raise
            finally:
                timer.cancel()

    def _once(self, what: str, call: Callable[[], T], limit_s: float = 0.0) -> T:
        try:
            return self._call(call, what, limit_s)
        except AdbTimeout:
            raise UserError(f"the phone {self.serial} did not answer {what} in time") from None
        except Exception as exc:
            if is_lost(exc):
                raise PhoneLost(_lost(self.serial, what, exc, 1, 0.0)) from None
            raise

    def _retrying(self, what: str, call: Callable[[], T], limit_s: float = 0.0) -> T:
        start, wait = time.monotonic(), self.server.backoff_s
        tries = max(1, self.server.retries)
        for attempt in range(1, tries + 1):
            try:
                return self._call(call, what, limit_s)
            except Exception as exc:
                if not (is_lost(exc) or isinstance(exc, AdbTimeout)):
                    raise
                if attempt == tries:
                    raise PhoneLost(_lost(self.serial, what, exc, tries,
                                          time.monotonic() - start)) from None
                time.sleep(wait)
                wait *= 2
        raise AssertionError("unreachable")  # pragma: no cover

    def describe(self) -> dict[str, Any]:
        return {"serial": self.serial, "adb_server": f"{self.server.host}:{self.server.port}",
                "adbutils": adbutils.__version__ if hasattr(adbutils, "__version__") else ""}


def _listening(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1.0):
            return True
    except OSError:
        return False


def _start_server(port: int) -> None:
    try:
        exe = adbutils.adb_path()
        subprocess.run([exe, "-P", str(port), "start-server"], capture_output=True,
                       timeout=30, check=False)
    except (AdbError, OSError, subprocess.TimeoutExpired) as exc:
        raise UserError(f"could not start an adb server on port {port}: {exc}") from None
    if not _listening("127.0.0.1", port):
        raise UserError(f"could not start an adb server on port {port} ({exe})")


def _which_phone(ready: list[str]) -> str:
    if not ready:
        return ("no phone is attached (adb lists none ready): plug one in and allow USB "
                "debugging, or give device.serial=HOST:PORT for adb over TCP")
    return (f"{len(ready)} phones are attached ({', '.join(ready)}): choose one with "
            f"device.serial=... or ANDROID_SERIAL")


def _not_ready(serial: str, devices: dict[str, str]) -> str:
    listed = ", ".join(f"{s} ({st})" for s, st in devices.items()) or "none"
    state = devices.get(serial)
    if state is None:
        return f"phone {serial!r} is not connected to the adb server; attached: {listed}"
    return f"phone {serial!r} is {state}, not ready (authorize USB debugging?); attached: {listed}"


def _give_up(opened: list[Any], fired: threading.Event) -> None:
    """A call's deadline passed: its connections closed under it (what blocks on them
    raises at once)."""
    fired.set()
    for conn in list(opened):
        with suppress(Exception):  # (reads and writes blocked on it return: SHUT_RDWR)
            conn.conn.shutdown(socket.SHUT_RDWR)
        with suppress(Exception):
            conn.close()


def _deadline(serial: str, what: str, limit_s: float) -> str:
    return (f"the phone {serial} did not finish the {what} within {limit_s:g} s and it was "
            "given up (a full phone storage, or a stalled link; device.adb.transfer_timeout_s "
            "and command_timeout_s set the limits)")


def _lost(serial: str, what: str, exc: BaseException, tries: int, spent_s: float) -> str:
    reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return (f"phone {serial} was lost during {what} ({reason}; {tries} tries over "
            f"{spent_s:.1f} s); everything measured before is kept in the run folder")
