"""Rows held in columns while a run goes: the per-row half of recording.

A run records one subgraph row per completion (two million in a 30-minute run), one request
row per ended request and one sensor row per processor per sample, each table held one
Python list per column; nothing is converted or written per row. A subgraph row, the hot one,
is appended as plain values (no dict, tuple or record is made for it); a request or sensor
row is the tuple of values its declaration's function gives (:mod:`harness.seams.rows`, the
one place a table's columns are named), appended list by list. A journal
(:mod:`harness.reporting.journal`) turns the lists into Arrow arrays a batch at a time and
empties them: a table's ``write`` (set by its journal) is called when it holds ``batch``
rows.

**Rows are whole or absent.** A row's values are appended one list after the other, and an
exception can cut a row short (Ctrl-C raises where the interpreter happens to be: in a
property a row reads, say). So each table counts its whole rows (``count``, raised after
the last value) and drops the values of a cut row before it appends the next one
(:meth:`cut`), and a journal writes only whole rows: columns never go out of step.

**Shapes.** A subgraph row's own facts (baseline, seed, model, plan index, processor, first
and last unit, ops) repeat: they are those of one of the few subgraphs of the run's plans.
Each distinct set is held once, as a *shape* with a code (numbered in order of first use);
a row holds its shape's code. The journal stores the shapes as an Arrow dictionary, and the
parquet table expands them, so the table reads back as if every row held its own values.
The journal also sums, a batch at a time, the latency of the rows that succeeded per shape
(:attr:`SubgraphColumns.latency_ns`, for the as-run bound), so no row pays for it.

Everything here is plain and fully annotated (classes with an explicit ``__init__``, no
closures), so the module compiles with mypyc as it is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from harness.seams.records import Request, SensorSample
from harness.seams.rows import (
    REQUEST_COLUMNS,
    SENSOR_COLUMNS,
    SUBGRAPH_COLUMNS,
    JobFacts,
    request_values,
    sensor_values,
)

#: a subgraph row's own facts, in :data:`SHAPE_COLUMNS` order
Shape = tuple[str, int, str, int, str, int, int, int]

#: the subgraph columns a shape holds, and the columns every row holds
SHAPE_COLUMNS = ("baseline", "seed", "model", "subgraph", "processor", "first_unit",
                 "last_unit", "n_ops")
ROW_COLUMNS = tuple(c for c in SUBGRAPH_COLUMNS if c not in SHAPE_COLUMNS)


def _nothing() -> None:
    """The ``write`` of columns no journal writes (they only grow)."""


class Columns:
    """Rows of one table held one list per column; ``count`` whole rows."""

    count: int

    def __init__(self, batch: int) -> None:
        self.batch = batch
        #: writes the rows held as a batch and forgets them (the table's journal)
        self.write: Callable[[], None] = _nothing
        self.clear()

    def lists(self) -> dict[str, list[Any]]:
        """Column -> its list, as a journal's batches hold them."""
        raise NotImplementedError

    def clear(self) -> None:
        """Forget the rows held (their batch was written)."""
        raise NotImplementedError

    def rows(self) -> int:
        """Whole rows held."""
        return self.count

    def cut(self) -> None:
        """Drop the values of a row cut short, if any."""
        for values in self.lists().values():
            del values[self.count:]

    def append(self, row: Mapping[str, Any]) -> None:
        """One row as a mapping column -> value (a device that writes its own rows;
        ``None`` where it has none)."""
        self.cut()
        for name, values in self.lists().items():
            values.append(row.get(name))
        self.count += 1
        if self.count >= self.batch:
            self.write()


class SubgraphColumns(Columns):
    """Subgraph rows: each row's shape code and its own values, one list per column."""

    shape: list[int]
    request_id: list[int]
    job_id: list[int]
    start_ns: list[int]
    end_ns: list[int]
    ok: list[bool]

    def __init__(self, batch: int) -> None:
        super().__init__(batch)
        #: shape code -> shape; kept across batches
        self.shapes: list[Shape] = []
        self._codes: dict[Shape, int] = {}
        #: shape code -> summed latency (ns) and number of the rows written that succeeded
        self.latency_ns: list[int] = []
        self.succeeded: list[int] = []

    def code(self, shape: Shape) -> int:
        """The code of ``shape`` (a new shape gets the next one; a shape whose code was
        cut short by an exception may get a second one, which reads back the same)."""
        code = self._codes.get(shape)
        if code is None:
            code = len(self.shapes)
            self.latency_ns.append(0)
            self.succeeded.append(0)
            self.shapes.append(shape)
            self._codes[shape] = code
        return code

    def add(self, shape: int, request_id: int, job_id: int, start_ns: int, end_ns: int,
            ok: bool) -> None:
        """One row: its shape's code and its own values."""
        if len(self.shape) != self.count:
            self.cut()
        self.shape.append(shape)
        self.request_id.append(request_id)
        self.job_id.append(job_id)
        self.start_ns.append(start_ns)
        self.end_ns.append(end_ns)
        self.ok.append(ok)
        self.count += 1
        if self.count >= self.batch:
            self.write()

    def append(self, row: Mapping[str, Any]) -> None:
        """One row as a mapping column -> value (a device that writes its own rows)."""
        missing = [c for c in (*SHAPE_COLUMNS, *ROW_COLUMNS) if row.get(c) is None]
        if missing:
            raise ValueError(f"subgraph row without {', '.join(missing)}")
        shape = (row["baseline"], row["seed"], row["model"], row["subgraph"], row["processor"],
                 row["first_unit"], row["last_unit"], row["n_ops"])
        self.add(self.code(shape), row["request_id"], row["job_id"], row["start_ns"],
                 row["end_ns"], row["ok"])

    def lists(self) -> dict[str, list[Any]]:
        """Column -> its list, as the journal's batches hold them (``shape``: the codes)."""
        return {"shape": self.shape, "request_id": self.request_id, "job_id": self.job_id,
                "start_ns": self.start_ns, "end_ns": self.end_ns, "ok": self.ok}

    def clear(self) -> None:
        """Forget the rows held (their batch was written); the shapes stay."""
        self.count = 0
        self.shape = []
        self.request_id = []
        self.job_id = []
        self.start_ns = []
        self.end_ns = []
        self.ok = []


class TableColumns(Columns):
    """Rows of a table held one list per column of its declaration
    (:mod:`harness.seams.rows`), in its order."""

    values: list[list[Any]]

    def __init__(self, batch: int, names: tuple[str, ...]) -> None:
        self.names = names
        super().__init__(batch)

    def put(self, row: tuple[Any, ...]) -> None:
        """One row: its values in the declaration's column order."""
        if len(self.values[0]) != self.count:
            self.cut()
        values = self.values
        for i in range(len(values)):  # (compiled: an indexed loop, no zip object per row)
            values[i].append(row[i])
        self.count += 1
        if self.count >= self.batch:
            self.write()

    def lists(self) -> dict[str, list[Any]]:
        """Column -> its list, in the table's column order."""
        return dict(zip(self.names, self.values, strict=True))

    def clear(self) -> None:
        """Forget the rows held (their batch was written)."""
        self.count = 0
        self.values = [[] for _ in self.names]


class RequestColumns(TableColumns):
    """Request rows, one list per column of :data:`~harness.seams.rows.REQUEST_COLUMNS`."""

    def __init__(self, batch: int) -> None:
        super().__init__(batch, tuple(REQUEST_COLUMNS))

    def add(self, baseline: str, seed: int, r: Request, status: str, job: JobFacts,
            warmup: bool) -> None:
        """The row of request ``r``, which ended with ``status``."""
        self.put(request_values(baseline, seed, r, status, job, warmup))


class SensorColumns(TableColumns):
    """Sensor rows, one list per column of :data:`~harness.seams.rows.SENSOR_COLUMNS`."""

    def __init__(self, batch: int) -> None:
        super().__init__(batch, tuple(SENSOR_COLUMNS))

    def add(self, baseline: str, seed: int, s: SensorSample) -> None:
        """The row of sample ``s``."""
        self.put(sensor_values(baseline, seed, s))
