"""Validation of a typed config, before anything runs: ranges, finiteness, non-empty lists and
unknown keys.

Hydra and OmegaConf check types and closed sets when they compose; :func:`check` walks the
typed object (dataclasses, lists and mappings of them) and holds each field to its spec in
:mod:`harness.config.fields`: a number out of its range, a float that is not finite, an empty
list that must not be empty. A float field without a spec must still be finite.
:func:`check_keys` compares the composed (raw) config with the typed one: a key no schema
declares (a typo, even one added with ``+``) is refused with the keys allowed there.

Each error is one :class:`~harness.seams.errors.UserError` naming the key, the value and what
is allowed.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import fields, is_dataclass
from enum import Enum
from typing import Any

from omegaconf import DictConfig, ListConfig, OmegaConf

from harness.config.fields import ANY, Spec, spec
from harness.seams.errors import UserError


def check(obj: Any, path: str = "") -> None:
    """Every field of ``obj`` (recursively) within its declared range; ``path`` prefixes keys."""
    if is_dataclass(obj) and not isinstance(obj, type):
        for f in fields(obj):
            _field(type(obj).__name__, f.name, getattr(obj, f.name), _join(path, f.name))
    elif isinstance(obj, list | tuple):
        for i, item in enumerate(obj):
            check(item, _join(path, str(i)))
    elif isinstance(obj, Mapping):
        for k, item in obj.items():
            check(item, _join(path, str(k)))


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _field(schema: str, name: str, value: Any, key: str) -> None:
    declared = spec(schema, name)
    if declared is not None and declared.non_empty and _is_empty(value):
        raise UserError(f"{key} is empty; it needs at least one item ({declared.meaning})")
    if declared is not None and declared.range != ANY:
        _only_numbers(value, key)
    for leaf, number in _numbers(value, key):
        _number(leaf, number, declared)
    check(value, key)


def _only_numbers(value: Any, key: str) -> None:
    """A numeric field's list or mapping holds numbers only (not nested lists, say)."""
    items = value.items() if isinstance(value, Mapping) else enumerate(value) if isinstance(
        value, list | tuple) else ()
    for k, item in items:
        if isinstance(item, bool) or not isinstance(item, int | float):
            raise UserError(f"{key}.{k}={item!r} is not a number")


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
        raise UserError(f"{key}={x} is not a finite number; it must be {declared.range.text()}"
                        f"{' ' + declared.unit if declared.unit else ''} ({declared.meaning})")
    if not declared.range.holds(x):
        unit = f" {declared.unit}" if declared.unit else ""
        raise UserError(f"{key}={x:g} is out of range: it must be {declared.range.text()}"
                        f"{unit} ({declared.meaning})")


# -- unknown keys ---------------------------------------------------------------------------


def check_keys(raw: Any, typed: Any, path: str = "") -> None:
    """Every key of the composed ``raw`` config is a field of the schema typing it."""
    node = OmegaConf.to_container(raw, resolve=False) if isinstance(
        raw, DictConfig | ListConfig) else raw
    _keys(node, typed, path)


def _keys(node: Any, typed: Any, path: str) -> None:
    if is_dataclass(typed) and not isinstance(typed, type) and isinstance(node, Mapping):
        allowed = [f.name for f in fields(typed)]
        for key, child in node.items():
            if path == "" and key == "hydra":
                continue
            if key not in allowed:
                where = path or "the top level"
                raise UserError(f"unknown key {_join(path, str(key))!r}: {where} has no such "
                                f"field; allowed: {', '.join(allowed)}")
            _keys(child, getattr(typed, key), _join(path, str(key)))
    elif isinstance(typed, Mapping) and isinstance(node, Mapping):
        for key, child in node.items():
            if key in typed:
                _keys(child, typed[key], _join(path, str(key)))
    elif isinstance(typed, list | tuple) and isinstance(node, list | tuple):
        for i, (child, item) in enumerate(zip(node, typed, strict=False)):
            _keys(child, item, _join(path, str(i)))


def check_all(raw: Any, typed: Any) -> None:
    """:func:`check_keys` then :func:`check`."""
    check_keys(raw, typed)
    check(typed)
