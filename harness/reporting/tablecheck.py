"""A run folder's tables held to their schema before anything is computed from them.

A table copied in, edited by hand or written by another tool may lack a column or hold text
where numbers belong; metrics would then end in a ``KeyError`` or a ``TypeError`` deep in
pandas. :func:`check_tables` names the first such fault in one line: the folder, the table,
the column, what it holds and what belongs there (:data:`~harness.reporting.store.TABLES`).
A table without rows is not held to it (a run that recorded nothing is judged elsewhere).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from pandas.api import types

from harness.reporting.store import RUNTIME_TABLES, TABLES, RunData
from harness.seams.errors import UserError

#: declared column types that must hold numbers (bool is a number here: 0/1)
NUMERIC = ("int64", "int32", "float64", "float32", "double", "bool")


def fault(name: str, frame: pd.DataFrame) -> str | None:
    """What is wrong with table ``name`` against its schema, or None."""
    if frame.empty:
        return None
    declared = TABLES[name]
    missing = [c for c in declared if c not in frame.columns]
    if missing:
        return (f"the {name} table has no column {missing[0]!r} (its columns: "
                f"{', '.join(map(str, frame.columns))})")
    for column, kind in declared.items():
        if kind in NUMERIC and not types.is_numeric_dtype(frame[column]):
            sample = frame[column].dropna().head(1).tolist()
            return (f"the {name} table's column {column!r} holds {frame[column].dtype} "
                    f"(e.g. {sample[0] if sample else ''!r}) where {kind} numbers belong")
    return None


def check_tables(folder: Path, data: RunData) -> None:
    """Raise :class:`UserError` naming the first table of ``data`` that breaks its schema."""
    frames = {"requests": data.requests, "subgraphs": data.subgraphs, "sensors": data.sensors}
    for name in RUNTIME_TABLES:
        found = fault(name, frames[name])
        if found:
            raise UserError(f"{folder}: {found}: not a table this harness wrote")
