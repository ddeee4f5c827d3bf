"""Run results: tidy tables written as the run goes, and read back for metrics and plots.

A run folder (``results/<device>/<timestamp>_<scenario>/``) holds:

* ``requests.parquet``: one row per request (:data:`REQUEST_COLUMNS`);
* ``subgraphs.parquet``: one row per executed subgraph (:data:`SUBGRAPH_COLUMNS`);
* ``sensors.parquet``: one row per processor per sensor sample (:data:`SENSOR_COLUMNS`);
* ``phone_runs.parquet``: one row per tool process a phone ran (:data:`PHONE_RUN_COLUMNS`):
  what the stock ``benchmark_model`` or Band's ``band_benchmark`` *reported*, aggregates
  only. ``benchmark_model`` prints statistics, not per-inference times, so a vanilla TFLite
  run on a phone has rows here and none in ``requests``: no request row is ever made up from
  an aggregate (:mod:`harness.reporting.phone` derives the scenario's columns from them);
* ``phone_ops.parquet``: the per-op profile ``benchmark_model --enable_op_profiling`` prints
  (:data:`PHONE_OP_COLUMNS`);
* ``manifest.json``: what produced the run (config, versions, commit, device facts, seed).

Rows are written as the run goes (:mod:`harness.reporting.journal`). Request, subgraph and
sensor rows are held in columns and appended to Arrow journals (``*.arrows``) a record batch
at a time: when a table holds :data:`~harness.reporting.journal.BATCH_ROWS` rows, and when
:data:`FLUSH_S` (one second) of wall time has passed since the last write, which the run
checks at every sensor sample (every ``sensor_interval_ms`` of the run's time) and a device
that writes its own rows after each row. Phone rows are appended to JSON-lines journals
(``*.jsonl``) one line each as they come. So a run stopped by Ctrl-C or SIGTERM, whose
recorder closes on the way out, keeps every row; a killed run (SIGKILL, a crash) keeps every
batch written before the kill and loses at most the rows recorded since the last write:
about the last second of wall time, never more than ``BATCH_ROWS`` rows of a table. When the
recorder closes, each journal becomes one parquet file by a streamed conversion (row group
by row group, so memory stays bounded whatever the run's length:
:mod:`harness.reporting.parquet`), and the journal is removed.

Readers never write. Only a run's own recorder converts its journals; :func:`load_run` and
:func:`read_table` (what :class:`~harness.reporting.runfolder.RunFolder`, the reader of run
folders, uses) read a table in place: its parquet file, else its journal as it stands (a run
still going, or one killed before it closed). A killed run's folder needs no finishing step:
it is read as it is. The recorder holds the folder's claim (:mod:`harness.seams.claim`) while
it records, so a reader can tell a run still going from one that ended.
Statistics are always derived from these rows, never from printed text.

Every table's columns are declared once, in :mod:`harness.seams.rows` (with the request
``status`` values).
"""

from __future__ import annotations

import errno
import json
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from harness.reporting.columns import RequestColumns, SensorColumns, SubgraphColumns
from harness.reporting.journal import (
    BATCH_ROWS,
    ArrowJournal,
    LineJournal,
    SubgraphJournal,
    journal_frame,
    lines_frame,
    parts_frame,
)
from harness.reporting.parquet import empty, read_parquet
from harness.seams import claim
from harness.seams.errors import UserError
from harness.seams.rows import (
    PHONE_OP_COLUMNS,
    PHONE_RUN_COLUMNS,
    REQUEST_COLUMNS,
    SCHEMA_VERSION,
    SENSOR_COLUMNS,
    SUBGRAPH_COLUMNS,
)

TABLES: dict[str, dict[str, str]] = {
    "requests": REQUEST_COLUMNS,
    "subgraphs": SUBGRAPH_COLUMNS,
    "sensors": SENSOR_COLUMNS,
    "phone_runs": PHONE_RUN_COLUMNS,
    "phone_ops": PHONE_OP_COLUMNS,
}

#: the tables a run on the runtime records (in Arrow journals); the others are journaled
#: line by line
RUNTIME_TABLES = ("requests", "subgraphs", "sensors")
#: wall seconds after which :meth:`RunRecorder.flush_due` writes the rows held
FLUSH_S = 1.0


class RunRecorder:
    """The tables of one run folder, written as the run goes (module docstring).

    ``requests``, ``subgraphs`` and ``sensors`` are Arrow journals: a run on the runtime
    appends to their columns (``held``) directly, a device that writes its own rows
    through :meth:`append`. The phone tables are JSON-lines journals."""

    def __init__(self, folder: Path, batch: int | None = None) -> None:
        self.folder = folder
        claim.claim(folder)  # (kept when the command line claimed it first)
        if taken := sorted(p.name for name in TABLES for p in folder.glob(f"{name}.*")):
            raise UserError(
                f"results folder {str(folder)!r} already holds a run ({', '.join(taken)}); "
                f"a run never appends to another: choose a new folder (hydra.run.dir=...)"
            )
        rows = BATCH_ROWS if batch is None else batch
        self.requests = ArrowJournal(folder, "requests", REQUEST_COLUMNS, RequestColumns(rows))
        self.subgraphs = SubgraphJournal(folder, SUBGRAPH_COLUMNS, SubgraphColumns(rows))
        self.sensors = ArrowJournal(folder, "sensors", SENSOR_COLUMNS, SensorColumns(rows))
        self._writers: dict[str, ArrowJournal | LineJournal] = {
            "requests": self.requests, "subgraphs": self.subgraphs, "sensors": self.sensors,
            **{name: LineJournal(folder, name, TABLES[name])
               for name in TABLES if name not in RUNTIME_TABLES}}
        self._flushed_at_s = time.monotonic()

    def append(self, table: str, row: Mapping[str, Any]) -> None:
        """One row of ``table`` (a :class:`~harness.seams.device.RowSink`)."""
        if table not in self._writers:
            raise KeyError(f"no table {table!r}; tables: {', '.join(self._writers)}")
        self._writers[table].append(row)
        self.flush_due()

    def flush_due(self) -> None:
        """Write the rows held when the last write is :data:`FLUSH_S` old or older (the run
        calls this at every sensor sample, and :meth:`append` after every row)."""
        now_s = time.monotonic()
        if now_s - self._flushed_at_s >= FLUSH_S:
            self.flush()
            self._flushed_at_s = now_s

    def flush(self) -> None:
        """Write every row held."""
        for writer in self._writers.values():
            writer.flush()

    def close(self, release: bool = True) -> None:
        """Write what is held, and turn every journal into its parquet file; a table that
        fails does not keep the others open (its error is raised after). ``release``: the
        folder's claim is let go too (a caller that writes the manifest's ending after
        closing lets go itself, :meth:`release`, so no reader sees the run ended before
        its ending is written)."""
        try:
            self._close_all()
        finally:
            if release:
                self.release()

    def _close_all(self) -> None:
        errors = []
        for writer in self._writers.values():
            try:
                writer.close()
            except Exception as exc:
                errors.append(exc)
        if errors:
            raise errors[0]

    def write_manifest(self, manifest: Mapping[str, Any]) -> Path:
        return write_manifest(self.folder, manifest)

    def release(self) -> None:
        """The run is over: the folder's claim is no longer held (readers read it as
        ended)."""
        claim.release(self.folder)


def write_manifest(folder: Path, manifest: Mapping[str, Any]) -> Path:
    """``manifest.json`` with the schema version, replaced whole (written under a
    temporary name and moved into place: a reader never sees half of it)."""
    path = folder / "manifest.json"
    body = {"schema_version": SCHEMA_VERSION, **manifest}
    partial = path.with_name(path.name + ".tmp")
    try:
        partial.write_text(json.dumps(body, indent=2, sort_keys=True, default=str) + "\n")
        os.replace(partial, path)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        if exc.errno != errno.ENOSPC or not path.exists():
            raise
        _write_over(path, body)
    return path


def _write_over(path: Path, body: Mapping[str, Any]) -> None:
    """A full disk: the manifest written over the one there, without indentation (about a
    third of its size, so it fits in the space the old one held)."""
    text = (json.dumps(body, sort_keys=True, default=str, separators=(",", ":")) + "\n")
    with path.open("r+b") as fh:
        fh.write(text.encode())
        fh.truncate()


@dataclass(frozen=True)
class RunData:
    folder: Path
    requests: pd.DataFrame
    subgraphs: pd.DataFrame
    sensors: pd.DataFrame
    manifest: Mapping[str, Any]
    #: what phone tools reported (empty for runs without a phone)
    phone_runs: pd.DataFrame = field(default_factory=lambda: empty(PHONE_RUN_COLUMNS))
    phone_ops: pd.DataFrame = field(default_factory=lambda: empty(PHONE_OP_COLUMNS))


def load_run(folder: str | Path) -> RunData:
    """Read a run folder in place (:func:`read_table`): nothing is written, converted or
    removed, whether the run closed, is still going, or was killed."""
    folder = Path(folder)
    manifest = read_manifest(folder)
    frames = {name: read_table(folder, name, manifest) for name in TABLES}
    return RunData(folder, frames["requests"], frames["subgraphs"], frames["sensors"], manifest,
                   frames["phone_runs"], frames["phone_ops"])


def read_table(folder: Path, name: str, manifest: Mapping[str, Any]) -> pd.DataFrame:
    """A table as the run folder holds it, read in place: its parquet file, else what its
    journal holds (a run still going, or one that never closed), migrated from an older
    layout. It never writes into the folder. A journal that its recorder converts while it
    is read is read again, as the parquet file it became."""
    try:
        frame = _read_table(folder, name, manifest)
    except FileNotFoundError:
        frame = _read_table(folder, name, manifest)
    return _migrate(frame, manifest)


def _read_table(folder: Path, name: str, manifest: Mapping[str, Any]) -> pd.DataFrame:
    columns = TABLES[name]
    if (folder / f"{name}.parquet").exists():
        return read_parquet(folder / f"{name}.parquet")
    if (folder / f"{name}.arrows").exists():
        return journal_frame(folder / f"{name}.arrows", columns)
    if (folder / f"{name}.parts").is_dir():
        return parts_frame(folder / f"{name}.parts", columns)
    return lines_frame(folder / f"{name}.jsonl",
                       _line_columns(name, manifest.get("schema_version", SCHEMA_VERSION)))


def read_manifest(folder: Path) -> dict[str, Any]:
    """The folder's ``manifest.json``; ``{}`` when it has none (a run that never wrote one)."""
    path = folder / "manifest.json"
    return _read_manifest(path) if path.exists() else {}


def _read_manifest(path: Path) -> dict[str, Any]:
    try:
        manifest = json.loads(path.read_text())
    except (ValueError, OSError) as exc:
        raise UserError(f"{str(path)!r} is not readable JSON: {exc}") from None
    if not isinstance(manifest, dict):
        raise UserError(f"{str(path)!r} is not a run manifest (a JSON object)")
    return manifest


def _line_columns(name: str, version: int) -> dict[str, str]:
    """A JSON-lines journal's columns: schema 1 had no ``seed``."""
    return {c: t for c, t in TABLES[name].items() if version > 1 or c != "seed"}


def _migrate(frame: pd.DataFrame, manifest: Mapping[str, Any]) -> pd.DataFrame:
    """Schema 1 (one seed per folder, no ``seed`` column) -> 2: the manifest's seed;
    2 -> 3: nothing to do (the phone tables, absent there, read as empty)."""
    version = manifest.get("schema_version", SCHEMA_VERSION)
    if version == 1 and "seed" not in frame.columns:
        seed = manifest.get("seed", 0)
        seed = seed.get("base", 0) if isinstance(seed, Mapping) else seed
        frame.insert(1, "seed", pd.Series([int(seed)] * len(frame), dtype="int64",
                                          index=frame.index))
        return frame
    if version not in (1, 2, SCHEMA_VERSION):
        raise ValueError(f"results schema {version} is not readable by schema {SCHEMA_VERSION}")
    return frame
