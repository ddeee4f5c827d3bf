"""Parquet files: a table's rows written whole in row groups, and read back with bounded memory.

Every table of a run folder ends as one parquet file (:mod:`harness.reporting.store`), made
from its journal (:mod:`harness.reporting.journal`) by :func:`write_parquet`: row groups of
:data:`ROW_GROUP` rows, so memory holds about one row group whatever the run's length,
written under a temporary name and moved into place, so the file is whole or absent. The file
is what a frame of the table's columns and dtypes (:func:`empty`) would be written as, so it
reads back with exactly those dtypes. :func:`read_parquet` reads it as ``pd.read_parquet``
does, with memory for the frame plus one row group.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from harness.reporting.columns import SHAPE_COLUMNS

#: rows per row group of a table's parquet file
ROW_GROUP = 262_144


def empty(columns: Mapping[str, str]) -> pd.DataFrame:
    """A frame with no rows of ``columns`` (column -> pandas dtype)."""
    return pd.DataFrame(columns=list(columns)).astype(dict(columns))


# -- writing --------------------------------------------------------------------------------


def write_parquet(tables: Iterable[pa.Table], parquet: Path, columns: Mapping[str, str]
                  ) -> None:
    """``tables`` (all of one schema) as one parquet file in row groups of :data:`ROW_GROUP`
    rows (an empty table of ``columns`` when there are none), holding about one row group
    in memory; written under a temporary name and moved into place. Only the columns whose
    values repeat are dictionary-encoded (:func:`repeating`): trying it on the others (times,
    ids) costs time to write and to read, and saves nothing."""
    partial = parquet.with_name(parquet.name + ".tmp")
    try:
        _write_groups(tables, partial, columns)
        os.replace(partial, parquet)
    except BaseException:
        partial.unlink(missing_ok=True)  # (a disk that filled: the journal stays, whole)
        raise


def _write_groups(tables: Iterable[pa.Table], partial: Path, columns: Mapping[str, str]
                  ) -> None:
    writer = None
    try:
        for group in _row_groups(tables):
            writer = writer or pq.ParquetWriter(partial, group.schema,
                                                use_dictionary=repeating(columns))
            writer.write_table(group, row_group_size=ROW_GROUP)
    finally:
        if writer is not None:
            writer.close()
    if writer is None:
        empty(columns).to_parquet(partial, index=False)


def repeating(columns: Mapping[str, str]) -> list[str]:
    """The columns whose values repeat from row to row: the strings (baselines, models,
    processors, statuses), the seed and a subgraph row's shape."""
    return [c for c, dtype in columns.items() if dtype == "string" or c in SHAPE_COLUMNS]


def _row_groups(tables: Iterable[pa.Table]) -> Iterator[pa.Table]:
    """The rows of ``tables`` in tables of :data:`ROW_GROUP` rows (the last one shorter)."""
    pending: list[pa.Table] = []
    held = 0
    for table in tables:
        pending.append(table)
        held += table.num_rows
        while held >= ROW_GROUP:
            whole = pa.concat_tables(pending)
            yield whole.slice(0, ROW_GROUP)
            rest = whole.slice(ROW_GROUP)
            pending, held = ([rest] if rest.num_rows else []), rest.num_rows
    if held:
        yield pa.concat_tables(pending)


# -- reading --------------------------------------------------------------------------------


#: numpy dtypes :func:`read_parquet` fills row group by row group
_FILLED = frozenset({"int64", "float64", "bool"})


def read_parquet(parquet: Path) -> pd.DataFrame:
    """What ``pd.read_parquet`` gives (the same values, dtypes, columns and index), with
    memory for the frame plus one row group: each plain numpy column (int64, float64, bool,
    without missing values) is filled row group by row group into its array, the other
    columns are read together. Reading the whole table first, as pandas does, holds it twice
    (a 30-minute run's subgraph table is millions of rows). A file that stored its index, or
    a column with missing values, is read by pandas itself."""
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
    frame = pd.DataFrame({n: filled[n] if n in filled else others[n] for n in names},
                         copy=False)
    pa.default_memory_pool().release_unused()  # what decoding used (~70 MB for 30 minutes)
    return frame


def _filled(file: Any, name: str, numpy_type: str) -> Any:
    """Column ``name`` as one numpy array, filled row group by row group (None when it has
    missing values)."""
    out = np.empty(file.metadata.num_rows, dtype=numpy_type)
    at = 0
    for group in range(file.num_row_groups):
        chunk = file.read_row_group(group, columns=[name]).column(0)
        if chunk.null_count:
            return None
        out[at:at + len(chunk)] = chunk.to_numpy()
        at += len(chunk)
    return out
