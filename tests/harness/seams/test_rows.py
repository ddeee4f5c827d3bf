"""The tables' one declaration (:mod:`harness.seams.rows`): each row function fills every
declared column, in order, with a value of the declared dtype, and the recorder's columns
and the row mappings are derived from it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from harness.reporting.columns import ROW_COLUMNS, SHAPE_COLUMNS, RequestColumns, SensorColumns
from harness.seams.plan import Subgraph
from harness.seams.records import Completion, Request, SensorSample
from harness.seams.rows import (
    REQUEST_COLUMNS,
    SENSOR_COLUMNS,
    SUBGRAPH_COLUMNS,
    request_row,
    sensor_row,
    subgraph_row,
)


@dataclass(frozen=True)
class _Job:
    start_ns: int = 5
    end_ns: int = 9
    processors: str = "cpu,gpu"
    n_subgraphs: int = 2


def _completion() -> Completion:
    return Completion(3, Request(1, "m", 0, 0), Subgraph(0, "m", "cpu", frozenset({0}), (0,)),
                      10, 20, True)


#: dtype -> the Python types a value of it may have
KINDS: dict[str, tuple[type, ...]] = {
    "string": (str,), "int64": (int,), "bool": (bool,), "float64": (float, type(None)),
    "boolean": (bool, type(None)),
}


ROWS: list[tuple[dict[str, Any], dict[str, str]]] = [
    (request_row("adms", 0, Request(1, "m", 2, 3, 4, 5), "ok", _Job(), False), REQUEST_COLUMNS),
    (subgraph_row("adms", 0, _completion()), SUBGRAPH_COLUMNS),
    (sensor_row("adms", 0, SensorSample("cpu", 7, 40.0, None, 1e9, 0.5, 2.0, False)),
     SENSOR_COLUMNS),
]


@pytest.mark.parametrize(("row", "columns"), ROWS)
def test_a_row_fills_every_declared_column_with_its_dtype(
        row: dict[str, Any], columns: dict[str, str]) -> None:
    assert list(row) == list(columns)
    wrong = {c: v for c, v in row.items() if not isinstance(v, KINDS[columns[c]])
             or (columns[c] == "int64" and isinstance(v, bool))}
    assert wrong == {}


def test_the_recorders_columns_are_the_declared_ones() -> None:
    assert list(RequestColumns(10).lists()) == list(REQUEST_COLUMNS)
    assert list(SensorColumns(10).lists()) == list(SENSOR_COLUMNS)
    assert sorted((*SHAPE_COLUMNS, *ROW_COLUMNS)) == sorted(SUBGRAPH_COLUMNS)


def test_columns_hold_the_rows_the_row_functions_make() -> None:
    held = RequestColumns(10)
    held.add("adms", 0, Request(1, "m", 2, 3, 4, 5), "ok", _Job(), False)
    assert {c: v[0] for c, v in held.lists().items()} == ROWS[0][0]
