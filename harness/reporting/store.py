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

Every request, sensor and phone row is first appended to a line-buffered JSON-lines journal
(``*.jsonl``), so a run that is interrupted, even killed, keeps every finished request. The
subgraph rows, a thousand or more per simulated second, are kept in columns and written as
the run goes in batches of :data:`SUBGRAPH_BATCH` rows, each a complete parquet file under
``subgraphs.parts/`` (a kill loses at most the last unwritten batch of subgraph rows, never a
request). When the recorder closes (also on Ctrl-C), and in :func:`load_run` if a run never
closed, each table becomes one parquet file by a streamed conversion (chunk by chunk, so
memory stays bounded whatever the run's length), and the journal or parts are removed.
Statistics are always derived from these rows, never from printed text.

Request ``status``: ``ok`` (finished), ``dropped`` (the policy dropped it), ``unfinished``
(the run ended first), ``failed`` (the device could not run it).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Protocol

import pandas as pd

from harness.seams.errors import UserError
from harness.seams.records import Completion, Request, SensorSample

#: bump on any change of the columns below, and teach :func:`_migrate` the old layout
#: (2: a ``seed`` column in every table; a run folder holds every seed of its run;
#: 3: the phone tables, absent (empty) in older folders)
SCHEMA_VERSION = 3

#: column -> pandas dtype
REQUEST_COLUMNS: dict[str, str] = {
    "baseline": "string",
    "seed": "int64",  # the seed of the repetition (seed.base + i)
    "request_id": "int64",
    "model": "string",
    "frame_id": "int64",
    "stream": "int64",
    "arrival_ns": "int64",
    "start_ns": "int64",  # first subgraph start, -1 if none ran
    "end_ns": "int64",  # last subgraph end, -1 if not finished
    "slo_ns": "int64",  # 0 = no SLO
    "status": "string",
    "processors": "string",  # processors used, comma-separated, in order of first use
    "n_subgraphs": "int64",
    "warmup": "bool",  # issued during warm-up: excluded from metrics
}

SUBGRAPH_COLUMNS: dict[str, str] = {
    "baseline": "string",
    "seed": "int64",  # the seed of the repetition (seed.base + i)
    "request_id": "int64",
    "job_id": "int64",
    "model": "string",
    "subgraph": "int64",  # index in the model's plan
    "processor": "string",
    "first_unit": "int64",
    "last_unit": "int64",
    "n_ops": "int64",
    "start_ns": "int64",
    "end_ns": "int64",
    "ok": "bool",
}

SENSOR_COLUMNS: dict[str, str] = {
    "baseline": "string",
    "seed": "int64",  # the seed of the repetition (seed.base + i)
    "t_ns": "int64",
    "processor": "string",
    "temperature_c": "float64",
    "frequency_hz": "float64",
    "max_frequency_hz": "float64",
    "load": "float64",
    "power_w": "float64",
    "throttled": "boolean",
}

#: one row per tool process on a phone; times in µs as the tool reports them, NaN (or -1,
#: "") where it reports nothing
PHONE_RUN_COLUMNS: dict[str, str] = {
    "baseline": "string",
    "seed": "int64",
    "tool": "string",  # benchmark_model | band_benchmark
    "model": "string",  # "" for a summary over every model (Band's stream mode)
    "processor": "string",  # the device config's processor ("" for Band: it places itself)
    "delegate": "string",  # cpu | xnnpack | gpu | nnapi | hexagon, or band
    # ok | failed (non-zero exit) | timeout (killed on the phone) | truncated (output cut
    # before its final timings) | lost (the phone went away)
    "status": "string",
    "exit_code": "int64",  # -1: unknown (lost)
    "start_ns": "int64",  # the process's start and end on the run's clock, -1 unknown
    "end_ns": "int64",
    "run_frequency_hz": "float64",  # --run_frequency (0: back to back)
    "threads": "int64",
    "init_us": "float64",  # model load and delegate preparation
    "first_us": "float64",  # the first (warm-up) inference
    "warmup_count": "float64",
    "warmup_avg_us": "float64",
    "count": "float64",  # inferences in the regular (measured) phase
    "avg_us": "float64",
    "std_us": "float64",
    "min_us": "float64",
    "max_us": "float64",
    "p5_us": "float64",
    "p50_us": "float64",
    "p95_us": "float64",
    "canceled": "float64",  # requests the tool dropped (Band: SLO violations)
    "slo_satisfaction": "float64",  # share in [0, 1] the tool reports (Band), NaN otherwise
    "init_memory_mb": "float64",
    "overall_memory_mb": "float64",
    "peak_memory_mb": "float64",
    "delegate_name": "string",  # as the tool names it, e.g. TfLiteGpuDelegateV2
    "delegated_nodes": "float64",  # "Replacing N out of M node(s)": N, M, partitions
    "total_nodes": "float64",
    "delegate_partitions": "float64",
    "delegate_coverage": "string",  # full | partial | none | "" (no delegate line)
    "command": "string",
    "error": "string",  # the tool's last error line, or the harness's reason
    "output": "string",  # the tool's output (its tail beyond 64 KB is dropped)
}

#: one row per op of ``benchmark_model --enable_op_profiling``'s Run Order table
PHONE_OP_COLUMNS: dict[str, str] = {
    "baseline": "string",
    "seed": "int64",
    "model": "string",
    "processor": "string",
    "order": "int64",
    "node_type": "string",
    "name": "string",
    "first_ms": "float64",
    "avg_ms": "float64",
    "share_pct": "float64",
    "cdf_pct": "float64",
    "mem_kb": "float64",
    "times_called": "int64",
}

#: tables written in columnar batches rather than journaled line by line
BATCHED = frozenset({"subgraphs"})

TABLES: dict[str, dict[str, str]] = {
    "requests": REQUEST_COLUMNS,
    "subgraphs": SUBGRAPH_COLUMNS,
    "sensors": SENSOR_COLUMNS,
    "phone_runs": PHONE_RUN_COLUMNS,
    "phone_ops": PHONE_OP_COLUMNS,
}


#: subgraph rows per parquet part written as the run goes
SUBGRAPH_BATCH = 65_536
#: journal lines converted at a time
CONVERT_CHUNK = 100_000


class BatchWriter:
    """Keeps rows of one table in memory and writes them as the run goes, every ``batch``
    rows, as numbered parquet parts; on close, joins the parts into one parquet file (part
    by part) and removes them."""

    def __init__(self, folder: Path, table: str, batch: int | None = None) -> None:
        self.columns = TABLES[table]
        self.parts = folder / f"{table}.parts"
        self.parquet = folder / f"{table}.parquet"
        self.batch = SUBGRAPH_BATCH if batch is None else batch
        self._rows: list[tuple[Any, ...]] = []
        self._count = 0
        self._closed = False
        self._arrow_schema: Any = None

    def append(self, row: Mapping[str, Any]) -> None:
        self.add(tuple(row.get(c) for c in self.columns))

    def add(self, values: tuple[Any, ...]) -> None:
        """One row as its values in column order (the hot path: no dict per row)."""
        assert not self._closed, "writer closed"
        rows = self._rows
        rows.append(values)
        if len(rows) >= self.batch:
            self.flush()

    def flush(self) -> None:
        """Write the rows held so far as the next part."""
        if not self._rows:
            return
        import pyarrow as pa
        import pyarrow.parquet as pq

        self.parts.mkdir(exist_ok=True)
        schema = self._schema()
        arrays = [pa.array(values, type=f.type)
                  for values, f in zip(zip(*self._rows, strict=True), schema, strict=True)]
        for array, f in zip(arrays, schema, strict=True):
            if array.null_count:
                raise ValueError(f"{self.parquet.name}: column {f.name!r} has missing values")
        pq.write_table(pa.Table.from_arrays(arrays, schema=schema),
                       self.parts / f"part-{self._count:06d}.parquet")
        self._count += 1
        self._rows = []

    def _schema(self) -> Any:
        """The arrow schema (with pandas metadata) pandas gives a frame of these columns,
        so the parts read back with the table's dtypes; made once."""
        if self._arrow_schema is None:
            import pyarrow as pa

            self._arrow_schema = pa.Schema.from_pandas(empty(self.columns), preserve_index=False)
        return self._arrow_schema

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.flush()
        join_parts(self.parts, self.parquet, self.columns)


def join_parts(parts: Path, parquet: Path, columns: Mapping[str, str]) -> None:
    """The parquet parts under ``parts`` as one file, part by part; then the parts go. A
    part cut by a kill (unreadable) ends the table there."""
    import pyarrow.parquet as pq

    files = sorted(parts.glob("part-*.parquet")) if parts.is_dir() else []

    def tables() -> Iterator[Any]:
        for path in files:
            try:
                yield pq.read_table(path)
            except (OSError, ValueError):
                return

    write_tables(tables(), parquet, columns)
    for path in files:
        path.unlink()
    if parts.is_dir():
        parts.rmdir()


def write_tables(tables: Iterable[Any], parquet: Path, columns: Mapping[str, str]) -> None:
    """Arrow tables into one parquet file, one row group each (an empty table of ``columns``
    when there are none), holding one table in memory at a time."""
    import pyarrow.parquet as pq

    writer = None
    try:
        for table in tables:
            writer = writer or pq.ParquetWriter(parquet, table.schema)
            writer.write_table(table)
    finally:
        if writer is not None:
            writer.close()
    if writer is None:
        empty(columns).to_parquet(parquet, index=False)


class TableWriter:
    """Appends rows of one table to a JSON-lines journal; on close, converts it to parquet
    and removes it."""

    def __init__(self, folder: Path, table: str) -> None:
        self.columns = TABLES[table]
        self.journal = folder / f"{table}.jsonl"
        self.parquet = folder / f"{table}.parquet"
        self._fh: IO[str] | None = self.journal.open("a", buffering=1)

    def append(self, row: Mapping[str, Any]) -> None:
        assert self._fh is not None, "writer closed"
        self._fh.write(json.dumps({c: row.get(c) for c in self.columns}) + "\n")

    def close(self) -> None:
        if self._fh is None:
            return
        self._fh.close()
        self._fh = None
        convert_journal(self.journal, self.parquet, self.columns)
        self.journal.unlink()


def journal_to_parquet(journal: Path, parquet: Path, columns: Mapping[str, str]) -> pd.DataFrame:
    convert_journal(journal, parquet, columns)
    return read_parquet(parquet)


def convert_journal(journal: Path, parquet: Path, columns: Mapping[str, str]) -> None:
    """A journal as one parquet file, :data:`CONVERT_CHUNK` lines at a time (one row group
    each), so memory does not grow with the journal; a line cut by a kill ends it."""
    import pyarrow as pa

    write_tables((pa.Table.from_pandas(frame, preserve_index=False)
                  for frame in _journal_chunks(journal, columns)), parquet, columns)


def _journal_chunks(journal: Path, columns: Mapping[str, str]) -> Iterator[pd.DataFrame]:
    if not journal.exists():
        return
    rows: list[Any] = []
    with journal.open() as fh:
        for line in fh:
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except ValueError:
                break  # a line cut by a kill: everything before it is kept
            if len(rows) >= CONVERT_CHUNK:
                yield pd.DataFrame(rows, columns=list(columns)).astype(dict(columns))
                rows = []
    if rows:
        yield pd.DataFrame(rows, columns=list(columns)).astype(dict(columns))


def read_journal(journal: Path, columns: Mapping[str, str]) -> pd.DataFrame:
    """The journal's rows; a corrupt line (cut by a kill, or garbage) is skipped, counted in
    ``frame.attrs["skipped_lines"]`` and reported on stderr, and every row after it is kept."""
    rows, skipped = [], []
    if journal.exists():
        for number, line in enumerate(journal.read_text(errors="replace").splitlines(), 1):
            if line.strip():
                try:
                    row = json.loads(line)
                except ValueError:
                    row = None
                if isinstance(row, dict):
                    rows.append(row)
                else:
                    skipped.append(number)
    if skipped:
        print(f"warning: {journal}: skipped {len(skipped)} corrupt line(s) (line "
              f"{', '.join(map(str, skipped[:5]))}{', ...' if len(skipped) > 5 else ''})",
              file=sys.stderr)
    frame = pd.DataFrame(rows, columns=list(columns)).astype(dict(columns))
    frame.attrs["skipped_lines"] = len(skipped)
    return frame


class RunRecorder:
    """The tables of one run folder."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        if taken := sorted(p.name for name in TABLES for p in folder.glob(f"{name}.*")):
            raise UserError(
                f"results folder {str(folder)!r} already holds a run ({', '.join(taken)}); "
                f"a run never appends to another: choose a new folder (hydra.run.dir=...)"
            )
        self._writers: dict[str, TableWriter | BatchWriter] = {
            name: BatchWriter(folder, name) if name in BATCHED else TableWriter(folder, name)
            for name in TABLES}
        self.requests = self._writers["requests"]
        subgraphs = self._writers["subgraphs"]
        assert isinstance(subgraphs, BatchWriter)
        self.subgraphs: BatchWriter = subgraphs
        self.sensors = self._writers["sensors"]

    def append(self, table: str, row: Mapping[str, Any]) -> None:
        """One row of ``table`` (a :class:`~harness.seams.device.RowSink`)."""
        if table not in self._writers:
            raise KeyError(f"no table {table!r}; tables: {', '.join(self._writers)}")
        self._writers[table].append(row)

    def close(self) -> None:
        for writer in self._writers.values():
            writer.close()

    def write_manifest(self, manifest: Mapping[str, Any]) -> Path:
        path = self.folder / "manifest.json"
        body = {"schema_version": SCHEMA_VERSION, **manifest}
        path.write_text(json.dumps(body, indent=2, sort_keys=True, default=str) + "\n")
        return path


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


def empty(columns: Mapping[str, str]) -> pd.DataFrame:
    return pd.DataFrame(columns=list(columns)).astype(dict(columns))


def load_run(folder: str | Path) -> RunData:
    """Read a run folder; journals of a run that never closed are converted first, and an
    older layout is migrated."""
    folder = Path(folder)
    manifest_path = folder / "manifest.json"
    manifest = _read_manifest(manifest_path) if manifest_path.exists() else {}
    version = manifest.get("schema_version", SCHEMA_VERSION)
    frames = {name: _migrate(_load_table(folder, name, version), manifest) for name in TABLES}
    return RunData(folder, frames["requests"], frames["subgraphs"], frames["sensors"], manifest,
                   frames["phone_runs"], frames["phone_ops"])


def _read_manifest(path: Path) -> dict[str, Any]:
    try:
        manifest = json.loads(path.read_text())
    except (ValueError, OSError) as exc:
        raise UserError(f"{str(path)!r} is not readable JSON: {exc}") from None
    if not isinstance(manifest, dict):
        raise UserError(f"{str(path)!r} is not a run manifest (a JSON object)")
    return manifest


def _load_table(folder: Path, name: str, version: int) -> pd.DataFrame:
    parquet = folder / f"{name}.parquet"
    if parquet.exists():
        return read_parquet(parquet)
    if (folder / f"{name}.parts").is_dir():  # a batched table of a run that never closed
        join_parts(folder / f"{name}.parts", parquet, TABLES[name])
        return read_parquet(parquet)
    if name.startswith("phone_") and not (folder / f"{name}.jsonl").exists():
        return empty(TABLES[name])  # an older folder, or a run without a phone
    columns = {c: t for c, t in TABLES[name].items() if version > 1 or c != "seed"}
    return journal_to_parquet(folder / f"{name}.jsonl", parquet, columns)


#: numpy dtypes :func:`read_parquet` fills row group by row group
_FILLED = frozenset({"int64", "float64", "bool"})


def read_parquet(parquet: Path) -> pd.DataFrame:
    """What ``pd.read_parquet`` gives (the same values, dtypes, columns and index), with
    memory for the frame plus one row group: each plain numpy column (int64, float64, bool,
    without missing values) is filled row group by row group into its array, the other
    columns are read together. Reading the whole table first, as pandas does, holds it twice
    (a 30-minute run's subgraph table is millions of rows). A file that stored its index, or
    a column with missing values, is read by pandas itself."""
    import pyarrow.parquet as pq

    file = pq.ParquetFile(parquet)
    meta = file.schema_arrow.pandas_metadata or {}
    if meta.get("index_columns"):
        return pd.read_parquet(parquet)
    numpy_types = {c["name"]: c.get("numpy_type") for c in meta.get("columns", [])}
    names = file.schema_arrow.names
    filled = {n: _filled(file, n, numpy_types[n]) for n in names if numpy_types.get(n) in _FILLED}
    if any(column is None for column in filled.values()):
        return pd.read_parquet(parquet)
    rest = [n for n in names if n not in filled]
    others = file.read(columns=rest).to_pandas() if rest else pd.DataFrame()
    return pd.DataFrame({n: filled[n] if n in filled else others[n] for n in names},
                        copy=False)


def _filled(file: Any, name: str, numpy_type: str) -> Any:
    """Column ``name`` as one numpy array, filled row group by row group (None when it has
    missing values)."""
    import numpy as np

    out = np.empty(file.metadata.num_rows, dtype=numpy_type)
    at = 0
    for group in range(file.num_row_groups):
        chunk = file.read_row_group(group, columns=[name]).column(0)
        if chunk.null_count:
            return None
        out[at:at + len(chunk)] = chunk.to_numpy()
        at += len(chunk)
    return out


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


# -- rows ---------------------------------------------------------------------------------


class JobFacts(Protocol):
    """What a request row needs of the job that served it (the runtime's JobRecord)."""

    @property
    def start_ns(self) -> int: ...
    @property
    def end_ns(self) -> int: ...
    @property
    def processors(self) -> str: ...
    @property
    def n_subgraphs(self) -> int: ...


def request_row(
    baseline: str, seed: int, r: Request, status: str, rec: JobFacts, warmup: bool
) -> dict[str, Any]:
    return {
        "baseline": baseline, "seed": seed, "request_id": r.request_id, "model": r.model,
        "frame_id": r.frame_id, "stream": r.stream, "arrival_ns": r.arrival_ns,
        "start_ns": rec.start_ns, "end_ns": rec.end_ns, "slo_ns": r.slo_ns, "status": status,
        "processors": rec.processors, "n_subgraphs": rec.n_subgraphs, "warmup": warmup,
    }


def subgraph_row(baseline: str, seed: int, c: Completion) -> dict[str, Any]:
    sg = c.subgraph
    return {
        "baseline": baseline, "seed": seed, "request_id": c.request.request_id, "job_id": c.job_id,
        "model": sg.model, "subgraph": sg.index, "processor": sg.processor,
        "first_unit": sg.first_unit, "last_unit": sg.last_unit, "n_ops": len(sg.ops),
        "start_ns": c.start_ns, "end_ns": c.end_ns, "ok": c.ok,
    }


def subgraph_values(baseline: str, seed: int, c: Completion) -> tuple[Any, ...]:
    """:func:`subgraph_row`'s values in :data:`SUBGRAPH_COLUMNS` order (for
    :meth:`BatchWriter.add`)."""
    sg = c.subgraph
    return (baseline, seed, c.request.request_id, c.job_id, sg.model, sg.index, sg.processor,
            sg.first_unit, sg.last_unit, len(sg.ops), c.start_ns, c.end_ns, c.ok)


def sensor_row(baseline: str, seed: int, s: SensorSample) -> dict[str, Any]:
    return {
        "baseline": baseline, "seed": seed, "t_ns": s.t_ns, "processor": s.processor,
        "temperature_c": s.temperature_c, "frequency_hz": s.frequency_hz,
        "max_frequency_hz": s.max_frequency_hz, "load": s.load, "power_w": s.power_w,
        "throttled": s.throttled,
    }
