"""Validation of a typed config, before anything runs: ranges, finiteness, non-empty lists and
unknown keys.

Hydra and OmegaConf check types and closed sets when they compose; :func:`check`
(:mod:`harness.seams.fields`) walks the typed object and holds each field to the spec its
metadata declares: a number out of its range, a float that is not finite, an empty list that
must not be empty. :func:`check_keys` compares the composed (raw) config with the typed one:
a key no schema declares (a typo, even one added with ``+``) is refused with the keys allowed
there.

Each error is one :class:`~harness.seams.errors.UserError` naming the key, the value and what
is allowed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields, is_dataclass
from typing import Any

from omegaconf import DictConfig, ListConfig, OmegaConf

from harness.seams.errors import UserError
from harness.seams.fields import check

__all__ = ["check", "check_all", "check_keys"]


# -- unknown keys ---------------------------------------------------------------------------


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


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
