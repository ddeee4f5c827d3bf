"""A case's outcome: what a process printed and left behind, and whether that is clean.

A case expects one of four things. ``fail``: a comparison that must fail (non-zero exit, no
traceback). ``error``: the input is the user's mistake, so a non-zero
exit code, exactly one stderr line starting with ``error:`` and no traceback. ``ok``: the
input is accepted, so exit code 0 and no traceback. ``ending``: a run that is disturbed
(signal, full disk, closed stdout) must end with its manifest ``completed``, ``interrupted``
or ``failed`` and every table readable (the journals read in place, never converted here).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow.parquet as pq

from harness.reporting.journal import read_batches

#: the tables whose rows a run measures
TABLES = ("requests", "subgraphs", "sensors")
#: how a run may end and still have recorded its ending
ENDED = ("completed", "interrupted", "failed")


@dataclass
class Outcome:
    """What one process did: exit code, stderr, and the run folder it left (if any)."""

    code: int | None
    stderr: str
    run: str = ""  # "<status> r=<requests> s=<subgraphs> n=<sensors>", or why unreadable
    status: str = ""
    rows: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def traceback(self) -> bool:
        return "Traceback (most recent call last)" in self.stderr

    @property
    def errors(self) -> list[str]:
        return [ln for ln in self.stderr.splitlines() if ln.startswith("error:")]

    def line(self) -> str:
        """The first ``error:`` line, else the last stderr line."""
        lines = [ln for ln in self.stderr.splitlines() if ln.strip()]
        return (self.errors or lines[-1:] or [""])[0]


def table_rows(folder: Path, table: str) -> int:
    """Rows of one table, read in place: its parquet file and any journal beside it."""
    rows = 0
    parquet = folder / f"{table}.parquet"
    if parquet.exists():
        rows += pq.read_metadata(parquet).num_rows
    journal = folder / f"{table}.arrows"
    if journal.exists():
        rows += sum(b.num_rows for b in read_batches(journal))
    return rows


def inspect_run(folder: Path, out: Outcome) -> None:
    """Fill ``out`` with the run folder's status and rows (a note when unreadable)."""
    manifest = folder / "manifest.json"
    if not manifest.exists():
        out.run = "no manifest" + (" (folder left)" if folder.exists() else "")
        out.status = "absent" if not folder.exists() else "no manifest"
        return
    try:
        out.status = str(json.loads(manifest.read_text()).get("status"))
        out.rows = {t: table_rows(folder, t) for t in TABLES}
    except Exception as exc:
        out.run = f"unreadable: {type(exc).__name__}: {exc}"[:120]
        out.status = out.status or "unreadable"
        return
    r = out.rows
    out.run = f"{out.status} r={r['requests']} s={r['subgraphs']} n={r['sensors']}"


def judge(expect: str, out: Outcome, codes: tuple[int, ...] = ()) -> list[str]:
    """Why ``out`` is not clean for a case expecting ``expect`` (empty: clean)."""
    why = list(out.notes)
    if out.traceback:
        why.append("traceback")
    if expect == "error":
        if out.code in (0, None) or (out.code or 0) < 0:
            why.append(f"exit {out.code}")
        if len(out.errors) != 1:
            why.append(f"{len(out.errors)} error: lines")
    elif expect == "fail" and out.code in (0, None):
        why.append("exit 0")
    elif expect == "ok" and out.code != 0:
        why.append(f"exit {out.code}")
    # killed by signal N (-N here) is what a shell shows as 128 + N
    shell = 128 - out.code if out.code is not None and out.code < 0 else out.code
    if codes and shell not in codes:
        why.append(f"exit {out.code} not in {codes}")
    return why


def judge_run(out: Outcome, statuses: tuple[str, ...] = ENDED, need_rows: bool = True
              ) -> list[str]:
    """Why a run folder lost its ending or its rows (empty: nothing lost)."""
    if out.status not in statuses:
        return [f"run {out.run or out.status}"]
    if need_rows and not out.rows.get("requests"):
        return ["no request rows"]
    return []
