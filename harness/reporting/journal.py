"""Journals: a table's rows on disk while the run goes, readable however the run ends.

* **Arrow journals** (``<table>.arrows``: requests, subgraphs, sensors). The rows are held in
  columns (:mod:`harness.reporting.columns`) and appended to the journal as one record batch
  of an Arrow IPC stream when :data:`BATCH_ROWS` are held, and whenever the recorder is told
  a second of wall time went by (:meth:`~harness.reporting.store.RunRecorder.flush_due`). A
  batch is written straight to the file (no buffer in the process), so a killed process
  leaves every batch written before it; a batch cut by the kill ends the journal there
  (:func:`read_batches` keeps every complete one). A stop signal (Ctrl-C) that comes while
  a batch is written is obeyed once the batch is written and its rows forgotten
  (:func:`stops_held`), so no batch is written twice or lost. Subgraph rows are journaled
  with their shapes as an Arrow dictionary (:class:`SubgraphJournal`), so the file holds
  about 40 bytes a row instead of 120.
* **JSON-lines journals** (``<table>.jsonl``: the phone tables). One line per row, written
  as it comes: the rows are few, and each is minutes of a phone's work.
* **Parquet parts** (``subgraphs.parts/``): what versions before the Arrow journals wrote;
  still read, in place (:func:`parts_frame`).

On close each journal becomes one parquet file (:func:`~harness.reporting.parquet.write_parquet`:
row groups of :data:`~harness.reporting.parquet.ROW_GROUP` rows, so memory holds about one row
group whatever the run's length, written under a temporary name and moved into place, so the
file is whole or absent) and the journal is removed. The parquet file is what a frame of the
table's columns and dtypes (:func:`~harness.reporting.parquet.empty`) would be written as, so
it reads back with exactly those dtypes.
"""

from __future__ import annotations

import json
import signal
import sys
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Generic, TypeVar

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.parquet as pq

from harness.reporting.columns import ROW_COLUMNS, SHAPE_COLUMNS, Columns, SubgraphColumns
from harness.reporting.parquet import empty, write_parquet

#: rows a table holds before they are written as one record batch
BATCH_ROWS = 65_536
#: JSON lines parsed at a time when a JSON-lines journal is converted
CONVERT_CHUNK = 100_000
#: pandas dtypes whose columns may not hold missing values
_NOT_NULL = frozenset({"int64", "bool"})


def arrow_schema(columns: Mapping[str, str]) -> pa.Schema:
    """The arrow schema, pandas metadata included, of a frame of ``columns``: a table
    written with it reads back with the columns' pandas dtypes."""
    return pa.Schema.from_pandas(empty(columns), preserve_index=False)


# -- Arrow journals -------------------------------------------------------------------------


H = TypeVar("H", bound=Columns)


class ArrowJournal(Generic[H]):
    """The rows of one table held in columns (``held``) and appended as record batches to
    ``<table>.arrows``; on close, one parquet file."""

    def __init__(self, folder: Path, table: str, columns: Mapping[str, str], held: H) -> None:
        self.columns = columns
        self.held = held
        self.journal = folder / f"{table}.arrows"
        self.parquet = folder / f"{table}.parquet"
        self.schema = arrow_schema(columns)
        #: the schema of the journal's batches
        self.batch_schema = self._batch_schema()
        self._file: Any = pa.OSFile(str(self.journal), "wb")
        self._writer: Any = ipc.new_stream(
            self._file, self.batch_schema,
            options=ipc.IpcWriteOptions(emit_dictionary_deltas=True))
        held.write = self.flush

    def _batch_schema(self) -> pa.Schema:
        return self.schema

    def append(self, row: Mapping[str, Any]) -> None:
        """One row as a mapping column -> value."""
        assert self._writer is not None, "journal closed"
        self.held.append(row)

    def flush(self) -> None:
        """Write the rows held as the journal's next record batch, and forget them: both or
        neither, whatever stop signal comes (:func:`stops_held`)."""
        if not self.held.rows() or self._writer is None:
            return
        with stops_held():
            self.held.cut()
            batch = self._batch()
            self._writer.write_batch(batch)
            self._written(batch)
            self.held.clear()

    def _written(self, batch: pa.RecordBatch) -> None:
        """What follows a batch's write (for a table that keeps sums of its rows)."""

    def _batch(self) -> pa.RecordBatch:
        lists = self.held.lists()
        arrays = [self._array(lists[f.name], f) for f in self.batch_schema]
        return pa.record_batch(arrays, schema=self.batch_schema)

    def _array(self, values: list[Any], field: pa.Field) -> pa.Array:
        return _array(values, field, self.columns[field.name])

    def close(self) -> None:
        """Write what is held, end the journal and convert it into the parquet file (what
        was written, even when the rows held cannot be)."""
        if self._writer is None:
            return
        try:
            self.flush()
        finally:
            self._writer.close()
            self._file.close()
            self._writer = None
            convert_arrows(self.journal, self.parquet, self.columns)


#: the signals that stop a run (Ctrl-C, SIGTERM: :mod:`harness.experiment.session`)
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def stops_held() -> Iterator[None]:
    """Inside the block a stop signal is noted, and obeyed (raised again, to the handler
    the run had) when the block ends: a handler's exception raised between a batch's write
    and its rows' removal would write them twice, or never. Python runs signal handlers in
    the main thread only, so elsewhere the block is a plain one (as it is where a handler
    was not set from Python, which could not be set back)."""
    if threading.current_thread() is not threading.main_thread() or any(
            signal.getsignal(s) is None for s in STOP_SIGNALS):
        yield
        return
    came: list[int] = []
    before = {s: signal.signal(s, lambda signum, _frame: came.append(signum))
              for s in STOP_SIGNALS}
    try:
        yield
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)
        for signum in came:
            signal.raise_signal(signum)


def _array(values: list[Any], field: pa.Field, dtype: str) -> pa.Array:
    """One column's values as an arrow array (NaN as missing, as pandas writes it); a
    missing value where the dtype has none is an error. Integers go through numpy, which
    reads a list of them faster than arrow does."""
    if pa.types.is_integer(field.type):
        try:
            return pa.array(np.fromiter(values, dtype=field.type.to_pandas_dtype(),
                                        count=len(values)))
        except TypeError:
            raise ValueError(f"column {field.name!r} has missing values") from None
    array = pa.array(values, type=field.type, from_pandas=True)
    if array.null_count and dtype in _NOT_NULL:
        raise ValueError(f"column {field.name!r} has missing values")
    return array


class SubgraphJournal(ArrowJournal[SubgraphColumns]):
    """Subgraph rows journaled as their shape codes, with the shapes as the dictionary of
    one ``shape`` column (a dictionary delta is written when new shapes appear); the
    parquet file has every column of the table."""

    def __init__(self, folder: Path, columns: Mapping[str, str], held: SubgraphColumns
                 ) -> None:
        self._shape_type = pa.struct([arrow_schema(columns).field(n) for n in SHAPE_COLUMNS])
        self._dictionary: pa.Array = pa.array([], type=self._shape_type)
        super().__init__(folder, "subgraphs", columns, held)

    def _batch_schema(self) -> pa.Schema:
        shape = pa.field("shape", pa.dictionary(pa.int32(), self._shape_type))
        return pa.schema([shape, *(self.schema.field(n) for n in ROW_COLUMNS)],
                         metadata=self.schema.metadata)

    def _array(self, values: list[Any], field: pa.Field) -> pa.Array:
        if field.name != "shape":
            return super()._array(values, field)
        codes = pa.array(np.fromiter(values, dtype=np.int32, count=len(values)))
        return pa.DictionaryArray.from_arrays(codes, self._shapes())

    def _written(self, batch: pa.RecordBatch) -> None:
        """Each shape's latency summed over the batch's rows that succeeded, and their
        number, added to the columns' (:attr:`SubgraphColumns.latency_ns`)."""
        held = self.held
        ok = batch.column("ok").to_numpy(zero_copy_only=False)
        codes = batch.column("shape").indices.to_numpy()[ok]
        latency = (batch.column("end_ns").to_numpy() - batch.column("start_ns").to_numpy())[ok]
        sums = np.zeros(len(held.latency_ns), dtype=np.int64)
        np.add.at(sums, codes, latency)
        counts = np.bincount(codes, minlength=len(sums))
        for code in np.flatnonzero(counts).tolist():
            held.latency_ns[code] += int(sums[code])
            held.succeeded[code] += int(counts[code])

    def _shapes(self) -> pa.Array:
        """Every shape so far as a struct array (made again only when shapes were added)."""
        shapes = self.held.shapes
        if len(self._dictionary) < len(shapes):
            fields = [self.schema.field(n) for n in SHAPE_COLUMNS]
            children = [_array([s[k] for s in shapes], f, self.columns[f.name])
                        for k, f in enumerate(fields)]
            self._dictionary = pa.StructArray.from_arrays(children, fields=fields)
        return self._dictionary


def read_batches(journal: Path) -> Iterator[pa.RecordBatch]:
    """The journal's complete record batches, in order; a batch cut by a kill (or a file
    cut inside its schema) ends it."""
    with pa.OSFile(str(journal), "rb") as source:
        try:
            reader = ipc.open_stream(source)
            while True:
                yield reader.read_next_batch()
        except StopIteration:
            return
        except (OSError, ValueError):  # a truncated message: everything before it is kept
            return


def as_table(batch: pa.RecordBatch, schema: pa.Schema) -> pa.Table:
    """A journal's batch as rows of the table ``schema``: a subgraph journal's shapes
    expanded into their columns."""
    if batch.schema.names[0] != "shape":
        return pa.Table.from_batches([batch], schema=schema)
    shape = batch.column(0)
    expanded = shape.dictionary.take(shape.indices)
    arrays = {n: expanded.field(n) for n in SHAPE_COLUMNS}
    arrays.update({n: batch.column(n) for n in ROW_COLUMNS})
    return pa.Table.from_arrays([arrays[n] for n in schema.names], schema=schema)


def journal_frame(journal: Path, columns: Mapping[str, str]) -> pd.DataFrame:
    """What an Arrow journal holds so far, as a frame of ``columns`` (the rows of its
    complete batches; for a run still going, or killed)."""
    schema = arrow_schema(columns)
    tables = [as_table(b, schema) for b in read_batches(journal)] if journal.exists() else []
    if not tables:
        return empty(columns)
    return pa.concat_tables(tables).to_pandas()


def convert_arrows(journal: Path, parquet: Path, columns: Mapping[str, str]) -> None:
    """An Arrow journal as the table's parquet file; then the journal goes."""
    schema = arrow_schema(columns)
    batches = read_batches(journal) if journal.exists() else iter(())
    write_parquet((as_table(b, schema) for b in batches), parquet, columns)
    journal.unlink(missing_ok=True)


def parts_frame(parts: Path, columns: Mapping[str, str]) -> pd.DataFrame:
    """The parquet parts under ``parts`` (older versions' subgraph journal), read in place,
    part by part; a part cut by a kill (unreadable) ends the table."""
    tables = list(_part_tables(_part_files(parts)))
    if not tables:
        return empty(columns)
    return pa.concat_tables(tables).to_pandas()


def _part_files(parts: Path) -> list[Path]:
    return sorted(parts.glob("part-*.parquet")) if parts.is_dir() else []


def _part_tables(files: list[Path]) -> Iterator[pa.Table]:
    """Part by part, until one cut by a kill (unreadable)."""
    for path in files:
        try:
            yield pq.read_table(path)
        except (OSError, ValueError):
            return


# -- JSON-lines journals ----------------------------------------------------------------------


class LineJournal:
    """Appends rows of one table to a JSON-lines journal, one line as each comes; on close,
    converts it to parquet and removes it."""

    def __init__(self, folder: Path, table: str, columns: Mapping[str, str]) -> None:
        self.columns = columns
        self.journal = folder / f"{table}.jsonl"
        self.parquet = folder / f"{table}.parquet"
        self._fh: IO[str] | None = self.journal.open("a", buffering=1)

    def append(self, row: Mapping[str, Any]) -> None:
        assert self._fh is not None, "journal closed"
        self._fh.write(json.dumps({c: row.get(c) for c in self.columns}) + "\n")

    def flush(self) -> None:
        """Nothing is held: every line is written as it comes."""

    def close(self) -> None:
        if self._fh is None:
            return
        self._fh.close()
        self._fh = None
        convert_lines(self.journal, self.parquet, self.columns)
        self.journal.unlink()


def convert_lines(journal: Path, parquet: Path, columns: Mapping[str, str]) -> None:
    """A JSON-lines journal as one parquet file, :data:`CONVERT_CHUNK` lines at a time, so
    memory does not grow with the journal; a line cut by a kill ends it."""
    write_parquet((pa.Table.from_pandas(frame, preserve_index=False)
                   for frame in _line_chunks(journal, columns)), parquet, columns)


def lines_frame(journal: Path, columns: Mapping[str, str]) -> pd.DataFrame:
    """What :func:`convert_lines` would write, read in place (nothing is written or
    removed): a line cut by a kill ends it."""
    chunks = list(_line_chunks(journal, columns))
    return pd.concat(chunks, ignore_index=True) if chunks else empty(columns)


def _line_chunks(journal: Path, columns: Mapping[str, str]) -> Iterator[pd.DataFrame]:
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
    """A JSON-lines journal's rows; a corrupt line (cut by a kill, or garbage) is skipped,
    counted in ``frame.attrs["skipped_lines"]`` and reported on stderr, and every row after
    it is kept."""
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
