"""What a run the host lost left on the phone: a runner or tool still running, and its logs.

Every baseline measures in a folder of its own on the phone (``<remote_dir>/runs/<tag>_<ns>``,
:meth:`~devices.adb.phone.Phone.run_dir`), which holds the runner's or the tools' process ids
(``pid``, ``*.pid``), their logs, and two marks the harness writes: ``host`` (the host's run
folder, written when the phone folder is made) and ``done`` (written when the host finished
with it, however the baseline ended). A host that was killed (SIGKILL, a crash, a lost
machine) never writes ``done``: its runner may still run on the phone, where it would measure
beside the next run, and its logs hold rows the host never got.

:func:`settle` runs before a phone run starts (and ``harness recover RUN`` runs it for one
run). For every phone folder without ``done``:

* a process it names that still runs (``kill -0``) is either the live run of another host
  process (its host folder's claim is held: :func:`harness.seams.claim.holder`), and the run
  is refused in one line, or a leftover: stopped (``device.leftovers=stop``, the default)
  or the run refused in one line (``refuse``);
* its logs are pulled into the host run folder it names, under ``phone_leftovers/<folder>/``,
  when that folder is on this machine and no process records into it; the phone folder is
  then marked ``done``. A folder of another machine's run is left as it is (and said so).
"""

from __future__ import annotations

import posixpath
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from devices.adb.transport import Transport
from harness.seams import claim
from harness.seams.errors import UserError

#: the marks in a phone run folder
HOST, DONE = "host", "done"
#: the files pulled from a leftover folder (the runner's and the tools' logs)
LOGS = ("jobs.tsv", "requests.tsv", "sensors.tsv", "decisions.jsonl", "sensors.log")
#: where a host run folder keeps what it recovered from the phone
RECOVERED = "phone_leftovers"

#: one line per unsettled folder: ``folder|host folder|pid:alive pid:alive ...``
SCAN = """for d in {runs}/*/; do d=${{d%/}}; [ -e "$d/done" ] && continue; [ -d "$d" ] || continue
h=$(cat "$d/host" 2>/dev/null); p=""
for f in "$d"/pid "$d"/*.pid; do [ -f "$f" ] || continue; i=$(cat "$f" 2>/dev/null)
case "$i" in ''|*[!0-9]*) continue;; esac
if kill -0 "$i" 2>/dev/null; then p="$p $i:1"; else p="$p $i:0"; fi; done
echo "$d|$h|$p"; done"""


@dataclass(frozen=True, slots=True)
class Leftover:
    """A phone run folder the host did not finish with."""

    folder: str
    #: the host run folder it belongs to ("" when it does not say: an older harness)
    host: str
    #: the process ids it names that still run on the phone
    alive: tuple[int, ...]

    @property
    def name(self) -> str:
        return posixpath.basename(self.folder)


def scan(transport: Transport, remote_dir: str) -> list[Leftover]:
    """Every phone run folder without ``done``."""
    runs = shlex.quote(posixpath.join(remote_dir, "runs"))
    out = transport.check(SCAN.format(runs=runs), "looking for runs left on the phone")
    found = []
    for line in out.splitlines():
        folder, _, rest = line.partition("|")
        host, _, pids = rest.partition("|")
        alive = tuple(int(p.split(":")[0]) for p in pids.split() if p.endswith(":1"))
        if folder.strip():
            found.append(Leftover(folder.strip(), host.strip(), alive))
    return found


def _owner(left: Leftover) -> int | None:
    """The pid of the host process still recording into the leftover's host folder."""
    folder = Path(left.host) if left.host else None
    return claim.holder(folder) if folder is not None and folder.is_dir() else None


def _stop(transport: Transport, left: Leftover, refuse: bool) -> str:
    """Stop what the leftover still runs (or refuse the run); what was done, in words."""
    pids = " ".join(str(p) for p in left.alive)
    owner = _owner(left)
    if owner is not None:
        raise UserError(f"the phone is busy: run {left.host} (host pid {owner}) is measuring "
                        f"on it (phone pid {pids}); wait for it to end")
    if refuse:
        raise UserError(f"a run the host lost left a process running on the phone (pid "
                        f"{pids}, {left.folder}{', run ' + left.host if left.host else ''}): "
                        "it would measure beside this run; stop it (harness recover RUN, or "
                        "device.leftovers=stop)")
    transport.shell(f"kill -9 {pids} 2>/dev/null; true", retry=True)
    return f"stopped pid {pids} left running on the phone"


def _pull(transport: Transport, left: Leftover) -> str:
    """The leftover's logs pulled into its host folder, and the phone folder marked done;
    what was done, in words."""
    host = Path(left.host) if left.host else None
    if host is None or not host.is_dir():
        return f"its logs stay on the phone in {left.folder} (its run folder {left.host or '?'}" \
               " is not on this machine)"
    into = host / RECOVERED / left.name
    into.mkdir(parents=True, exist_ok=True)
    for name in LOGS:
        path = posixpath.join(left.folder, name)
        if transport.stat_size(path) is not None:
            (into / name).write_text(transport.pull_text(path))
    transport.shell(f"touch {shlex.quote(posixpath.join(left.folder, DONE))}", retry=True)
    return f"its logs are in {into}"


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def settle(transport: Transport, remote_dir: str, refuse: bool = False,
           only: Path | None = None, say: Callable[[str], None] = _stderr) -> list[Leftover]:
    """Stop (or refuse) and recover every leftover (module docstring); ``only``: the
    leftovers of that host run folder. Each is said in one line; returns them."""
    found = [left for left in scan(transport, remote_dir)
             if only is None or (left.host and Path(left.host) == only.resolve())]
    for left in found:
        if left.host and claim.holds(Path(left.host)):
            continue  # (this very run's own folder)
        done = [_stop(transport, left, refuse)] if left.alive else []
        if left.host:
            done.append(_pull(transport, left))
        else:  # (a folder of an older harness, which marked none: nothing to pull it into)
            transport.shell(f"touch {shlex.quote(posixpath.join(left.folder, DONE))}")
        if done:
            say(f"phone leftover {left.name}: {'; '.join(done)}")
    return found


def this_run() -> str:
    """The host run folder this process records into (the one folder it claimed), or ""."""
    held = claim.held()
    return str(held[0]) if len(held) == 1 else ""


def mark(transport: Transport, folder: str, host: str) -> None:
    """Write ``host`` into a new phone run folder (:data:`HOST`)."""
    path = shlex.quote(posixpath.join(folder, HOST))
    transport.check(f"echo {shlex.quote(host)} > {path}", "marking a run folder")


def finish(transport: Transport, folder: str) -> None:
    """Mark a phone run folder done (best effort: a lost phone leaves it to :func:`settle`)."""
    try:
        transport.shell(f"touch {shlex.quote(posixpath.join(folder, DONE))}", retry=False)
    except Exception:  # (any: the host's own ending goes on)
        return
