"""Every numeric field of every registered schema declares its unit, range and meaning on the
field (:mod:`harness.seams.fields`). The schemas are found in Hydra's ConfigStore
(:func:`harness.config.reference.schemas`), so a new component is covered without a list to
edit here."""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass, field

import pytest
from hydra.core.config_store import ConfigStore

from harness.config import reference
from harness.seams.errors import UserError
from harness.seams.fields import NONNEG, POS, check, spec, spec_of


def _numeric(tp: object) -> bool:
    if tp in (int, float):
        return True
    return any(_numeric(a) for a in typing.get_args(tp) if a is not type(None))


def undeclared() -> list[str]:
    """``Class.field`` of every numeric field of a registered schema without a spec."""
    reference.register_all()
    missing = []
    for cls in reference.schemas():
        hints = typing.get_type_hints(cls)
        missing += [f"{cls.__name__}.{f.name}" for f in reference.own_fields(cls)
                    if _numeric(hints[f.name]) and spec_of(f) is None]
    return missing


def test_every_numeric_field_declares_its_spec() -> None:
    missing = undeclared()
    assert not missing, f"give these fields metadata=spec(unit, range, meaning): {missing}"


def test_schemas_are_found_in_the_config_store() -> None:
    reference.register_all()
    names = {cls.__name__ for cls in reference.schemas()}
    assert {"RunConf", "ScenarioConf", "AdmsConf", "ThreadsConf", "TwinProcessorBlock",
            "ProcessorConf", "AdbSensorsConf", "AnalyzeConf", "FarmConf", "ModeConf"} <= names


@dataclass
class _Stray:
    rate: float = 1.0


@dataclass
class _Declared:
    rate: float = field(default=1.0, metadata=spec("Hz", POS, "a rate"))
    nested: _Stray = field(default_factory=_Stray)


def test_a_new_schema_without_specs_fails_the_check() -> None:
    store = ConfigStore.instance()
    store.store(group="schema/test", name="stray", node=_Declared)
    try:
        assert "_Stray.rate" in undeclared() and "_Declared.rate" not in undeclared()
    finally:
        del store.repo["schema"]["test"]


def test_check_reads_the_metadata() -> None:
    check(_Declared(rate=2.0))
    with pytest.raises(UserError, match=r"x.rate=0 is out of range: it must be > 0 Hz \(a rate"):
        check(_Declared(rate=0.0), "x")
    with pytest.raises(UserError, match="not a finite number"):
        check(_Declared(nested=_Stray(rate=float("nan"))))
    assert reference.find("AdmsConf", "delta") == spec_of(
        next(f for f in dataclasses.fields(_adms()) if f.name == "delta"))
    assert NONNEG.holds(0) and not NONNEG.holds(-1)


def _adms() -> type:
    from adms.config import AdmsConf

    return AdmsConf
