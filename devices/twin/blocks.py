"""Reading a twin's raw YAML blocks into typed values (:mod:`devices.twin.spec`): a block as its
schema dataclass, mappings and tables with only known keys, numbers as floats; every refusal is
one line naming the device or processor and the bad key or value."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from omegaconf import MISSING

from harness.seams.errors import UserError
from harness.seams.fields import check

T = TypeVar("T")


def as_block(cls: type[T], raw: Any, where: str) -> T:
    """``raw`` as the schema dataclass ``cls``: itself, or a plain mapping (as tests write
    one) with no unknown key and every key the schema needs."""
    if isinstance(raw, cls):
        return raw
    table = as_mapping(raw, where)
    check_keys(where, table, field_names(cls), required_fields(cls))
    return cls(**table)


def checked(block: Any, where: str, path: str) -> None:
    """:func:`~harness.seams.fields.check` with the processor (or device) named."""
    try:
        check(block, path)
    except UserError as exc:
        raise UserError(f"twin: {where}: {exc}") from None


def as_mapping(value: Any, where: str) -> dict[str, Any]:
    if value is None:
        raise UserError(f"twin: {where} has no twin: block")
    if not isinstance(value, Mapping):
        raise UserError(f"twin: {where} twin: must be a mapping, got {value!r}")
    return {str(k): v for k, v in value.items()}


def check_keys(where: str, raw: Mapping[str, Any], allowed: set[str], required: set[str]) -> None:
    unknown = sorted(set(raw) - allowed)
    if unknown:
        raise UserError(f"twin: {where}: unknown key {unknown[0]!r} (allowed: {sorted(allowed)})")
    missing = sorted(required - set(raw))
    if missing:
        raise UserError(f"twin: {where}: missing key {missing[0]!r}")


def field_names(cls: Any) -> set[str]:
    return {f.name for f in dataclasses.fields(cls)}


def required_fields(cls: Any) -> set[str]:
    """The schema's fields without a default."""
    return {f.name for f in dataclasses.fields(cls)
            if f.default is MISSING and f.default_factory is dataclasses.MISSING}


def floats(block: Any, names: Iterable[str]) -> dict[str, float]:
    """The numbers ``names`` of ``block`` as floats (as the compiled twin reads them); a
    constant not given (None) is 0.0, which only a mechanism that is off can have
    (:func:`devices.twin.spec`'s mechanism check), so nothing reads it."""
    return {name: as_float(getattr(block, name)) for name in names}


def as_float(value: Any) -> float:
    return 0.0 if value is None else float(value)


def number_table(where: str, key: str, raw: Any, allowed: set[str], required: set[str]
           ) -> dict[str, float]:
    """A table keyed by dtype or op class: only the keys the twin knows."""
    table = as_mapping(raw, f"{where} {key}")
    check_keys(f"{where} {key}", table, allowed, required)
    return {k: float(v) for k, v in table.items()}


def strings(where: str, raw: Any) -> dict[str, str]:
    if not isinstance(raw, Mapping):
        raise UserError(f"twin: {where}: expected a mapping, got {raw!r}")
    return {str(k): str(v) for k, v in raw.items()}
