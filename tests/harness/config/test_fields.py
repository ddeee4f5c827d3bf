"""Every numeric field of every schema has its unit, range and meaning declared once
(:mod:`harness.config.fields`), and every declaration names a real field."""

from __future__ import annotations

import dataclasses
import typing
from types import ModuleType

import adms.config
import baselines.band.config
import baselines.tflite
import devices.adb.config
import devices.host.config
import devices.twin.config
from harness import analyze
from harness.config import schema
from harness.config.fields import FIELDS

MODULES: tuple[ModuleType, ...] = (schema, devices.twin.config, devices.host.config,
                                   devices.adb.config, adms.config, baselines.band.config,
                                   baselines.tflite, analyze)


def schemas() -> dict[str, type]:
    found: dict[str, type] = {}
    for module in MODULES:
        for value in vars(module).values():
            if isinstance(value, type) and dataclasses.is_dataclass(value) and (
                    value.__module__ == module.__name__):
                found[value.__name__] = value
    return found


def _numeric(tp: object) -> bool:
    args = typing.get_args(tp)
    if tp in (int, float):
        return True
    return any(_numeric(a) for a in args if a is not type(None))


def test_every_numeric_field_is_declared() -> None:
    missing = []
    for name, cls in schemas().items():
        hints = typing.get_type_hints(cls)
        for f in dataclasses.fields(cls):
            if _numeric(hints[f.name]) and f.name not in FIELDS.get(name, {}):
                missing.append(f"{name}.{f.name}")
    assert not missing, f"declare these in harness/config/fields.py: {missing}"


def test_every_declaration_names_a_field_of_a_schema() -> None:
    known = schemas()
    stray = [f"{s}.{n}" for s, specs in FIELDS.items() for n in specs
             if s not in known or n not in {f.name for f in dataclasses.fields(known[s])}]
    assert not stray
