"""A config field's unit, range and meaning, declared on the field itself.

Every schema dataclass (the run's, each device's, each policy's, each tool's) gives a
numeric or list field its metadata where it declares the field::

    fps: float = field(default=30.0, metadata=spec("frames/s", POS, "frame rate"))

:func:`check` holds a typed config (dataclasses, lists and mappings of them) to that metadata
before anything runs: a number out of its range, a float that is not finite (every float
must be finite, declared or not), an empty list that must not be empty, an integer field
given a fraction. The generated config reference (:mod:`harness.config.reference`) prints the
same metadata, so an error message and the documentation cannot disagree. Each error is one
:class:`~harness.seams.errors.UserError` naming the key, the value and what is allowed.

Ranges match the arithmetic downstream. Time inside the program is int64 nanoseconds, so a
field whose unit is a time (``s``, ``ms``, ``µs``) is at most :data:`MAX_TIME_S` seconds
whatever its declared upper bound: thousands of such times still add up within int64
(9.2e9 s). A seed is a :data:`SEED` (an unsigned 32-bit number, the common currency of
seeded generators), and a count of repetitions is at most :data:`MAX_COUNT`, so that
``seed + repetition`` stays an int64 in the tables.

Here, in the seams, because devices and policies declare their schemas and may import only
the seams.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from harness.seams.errors import UserError

#: the key of a field's :class:`Spec` in its dataclass metadata
KEY = "harness.spec"


@dataclass(frozen=True, slots=True)
class Range:
    """``lo <= x <= hi`` (``lo_open``: ``lo < x``); ``None``: unbounded on that side."""

    lo: float | None = None
    hi: float | None = None
    lo_open: bool = False

    def holds(self, x: float) -> bool:
        if not math.isfinite(x):
            return False
        if self.lo is not None and (x <= self.lo if self.lo_open else x < self.lo):
            return False
        return self.hi is None or x <= self.hi

    def text(self) -> str:
        lo = None if self.lo is None else f"{'>' if self.lo_open else '>='} {number(self.lo)}"
        hi = None if self.hi is None else f"<= {number(self.hi)}"
        return " and ".join(p for p in (lo, hi) if p) or "any finite number"


def number(x: float) -> str:
    """``x`` as a person writes it: whole numbers in full (``4294967295``), others short."""
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e16 else f"{x:g}"


POS = Range(0, lo_open=True)
NONNEG = Range(0)
FRACTION = Range(0, 1)
OPEN_FRACTION = Range(0, 1, lo_open=True)
ANY = Range()
PORT = Range(1, 65535)


#: the longest time any config field may give, in seconds (about 11.6 days)
MAX_TIME_S = 1e6
#: seconds per unit of the time units a field may carry
TIME_UNITS_S = {"s": 1.0, "ms": 1e-3, "µs": 1e-6, "us": 1e-6, "ns": 1e-9}
#: the largest seed (2**32 - 1)
MAX_SEED = 2**32 - 1
SEED = Range(0, MAX_SEED)
#: the most repetitions (seeds, runs, streams) a count field may ask for
MAX_COUNT = 1_000_000


#: one to :data:`MAX_COUNT`
COUNT = Range(1, MAX_COUNT)


def at_least(n: float) -> Range:
    return Range(n)


@dataclass(frozen=True, slots=True)
class Spec:
    """What a field means beyond its type."""

    unit: str
    range: Range
    meaning: str
    #: a list (or mapping) that must hold at least one item
    non_empty: bool = False
    #: whole numbers only (for a field whose type cannot say so: ``Any``)
    integer: bool = False

    def allowed(self) -> str:
        """The range with its unit, e.g. ``> 0 frames/s``."""
        return self.range.text() + (f" {self.unit}" if self.unit else "")


def spec(unit: str, rng: Range, meaning: str, non_empty: bool = False,
         integer: bool = False) -> dict[str, Spec]:
    """A field's metadata: ``field(default=..., metadata=spec(unit, range, meaning))``.

    A time unit caps the range at :data:`MAX_TIME_S` (see the module docstring)."""
    return {KEY: Spec(unit, _capped(unit, rng), meaning, non_empty, integer)}


def _capped(unit: str, rng: Range) -> Range:
    per_s = TIME_UNITS_S.get(unit)
    if per_s is None:
        return rng
    cap = MAX_TIME_S / per_s
    return rng if rng.hi is not None and rng.hi <= cap else Range(rng.lo, cap, rng.lo_open)


def spec_of(f: dataclasses.Field[Any]) -> Spec | None:
    """The spec a field declares, or None."""
    found = f.metadata.get(KEY)
    return found if isinstance(found, Spec) else None


def declared(cls: type) -> dict[str, Spec]:
    """Field name -> spec of every field of the dataclass ``cls`` that declares one."""
    return {f.name: s for f in dataclasses.fields(cls) if (s := spec_of(f)) is not None}


# -- validation -----------------------------------------------------------------------------


def check(obj: Any, path: str = "") -> None:
    """Every field of ``obj`` (recursively) within its declared range; ``path`` prefixes keys."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            _field(spec_of(f), getattr(obj, f.name), _join(path, f.name))
    elif isinstance(obj, list | tuple):
        for i, item in enumerate(obj):
            check(item, _join(path, str(i)))
    elif isinstance(obj, Mapping):
        for k, item in obj.items():
            check(item, _join(path, str(k)))


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _field(declared: Spec | None, value: Any, key: str) -> None:
    if declared is not None and declared.non_empty and _is_empty(value):
        raise UserError(f"{key} is empty; it needs at least one item ({declared.meaning})")
    if declared is not None and declared.range != ANY:
        _only_numbers(value, key)
    for leaf, number in _numbers(value, key):
        _number(leaf, number, declared)
    check(value, key)


def _only_numbers(value: Any, key: str) -> None:
    """A numeric field holds a number, or a list or mapping of numbers (not nested lists)."""
    items = value.items() if isinstance(value, Mapping) else enumerate(value) if isinstance(
        value, list | tuple) else () if value is None else [(None, value)]
    for k, item in items:
        if isinstance(item, bool) or not isinstance(item, int | float):
            where = key if k is None else f"{key}.{k}"
            raise UserError(f"{where}={item!r} is not a number")


def _is_empty(value: Any) -> bool:
    return isinstance(value, list | tuple | Mapping) and len(value) == 0


def _numbers(value: Any, key: str) -> Iterator[tuple[str, float]]:
    """The numbers a field holds: itself, or the items of a list or mapping of numbers."""
    if isinstance(value, bool | Enum):
        return
    if isinstance(value, int | float):
        yield key, value
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            if isinstance(item, int | float) and not isinstance(item, bool):
                yield f"{key}.{i}", item
    elif isinstance(value, Mapping):
        for k, item in value.items():
            if isinstance(item, int | float) and not isinstance(item, bool):
                yield f"{key}.{k}", item


def _number(key: str, x: float, declared: Spec | None) -> None:
    if declared is None:
        if isinstance(x, float) and not math.isfinite(x):
            raise UserError(f"{key}={x} is not a finite number")
        return
    if not math.isfinite(x):
        raise UserError(f"{key}={x} is not a finite number; it must be {declared.allowed()} "
                        f"({declared.meaning})")
    if declared.integer and not float(x).is_integer():
        raise UserError(f"{key}={x!r} is not an integer; it must be an integer "
                        f"{declared.allowed()} ({declared.meaning})")
    if not declared.range.holds(x):
        raise UserError(f"{key}={number(x)} is out of range: it must be {declared.allowed()} "
                        f"({declared.meaning})")
