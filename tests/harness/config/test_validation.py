"""Every bad value is stopped at composition with one line naming it.

For every numeric field whose metadata declares a range (every registered schema), hypothesis
draws values out of range, non-finite values and values of the wrong type; for every
closed-set field (an Enum), a value outside the set. Each must be refused: in process (the
bulk), a :class:`UserError` of one line naming the key; through ``python -m harness`` (a
handful), exit code 2, one ``error:`` line, no traceback.
"""

from __future__ import annotations

import copy
import functools
import math
import subprocess
import sys
from dataclasses import fields, is_dataclass
from enum import Enum
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from omegaconf import DictConfig, OmegaConf

from harness.config import reference
from harness.config.compose import compose, to_object
from harness.config.schema import RunConf, ScenarioConf, SeedsConf
from harness.config.validate import check_keys
from harness.experiment.components import device_class, policy_class, register
from harness.experiment.session import compose_run
from harness.seams.errors import UserError
from harness.seams.fields import Range, declared
from tests.fixtures.paths import REPO

#: where each schema sits in a composed run (device k50pro twin, host, a baseline)
PREFIX = {
    "ScenarioConf": ["scenario"], "SeedsConf": ["seed"], "RunConf": [""],
    "AdmsConf": ["baselines.adms"], "BandConf": ["baselines.band"],
    "TwinDeviceConf": ["device"], "TwinProcessorConf": ["device.processors.0"],
    "TwinProcessorBlock": ["device.processors.1.twin"],
    "TwinDeviceBlock": ["device.twin"], "CalibrationConf": ["device.processors.1.twin.calibration"],
    "HostDeviceConf": ["device=host", "device"], "HostProcessorConf": ["device=host",
                                                                       "device.processors.0"],
    "HostProcessorBlock": ["device=host", "device.processors.0.host"],
    "HostSettingsConf": ["device=host", "device.host"],
}
#: fields whose value is a list or mapping of numbers: the override sets one item
ITEM = {"peak_gflops": "float32", "efficiency": "conv", "freqs_mhz": "0", "cores": "0",
        "window_candidates": "0", "measured_us": "m", "scheduler_ns_per_work": "band"}
#: mappings with free keys (a new key needs ``+``)
FREE_KEYS = {"measured_us", "scheduler_ns_per_work"}


def declared_numbers() -> list[tuple[str, str, Range]]:
    """(override key, device override, range) of every declared number a run composes."""
    out = []
    reference.register_all()
    for cls in reference.schemas():
        where, specs = PREFIX.get(cls.__name__), declared(cls)
        if where is None:
            continue
        device = where[0] if where[0].startswith("device=") else ""
        base = where[-1]
        for name, spec in specs.items():
            if name in ("models", "run", "processors"):
                continue
            key = f"{base}.{name}" if base else name
            if name in ITEM:
                key += f".{ITEM[name]}"
            if name in FREE_KEYS:
                key = f"+{key}"
            out.append((key, device, spec.range))
    return out


NUMBERS = declared_numbers()


@functools.cache
def base(device: str) -> DictConfig:
    register()
    return compose("config", [device] if device else [])


def schema_of(raw: DictConfig, top: str, rest: str) -> tuple[Any, type, str]:
    """The node an override lands in, the schema typing it, and its key prefix."""
    if top == "scenario":
        return raw.scenario, ScenarioConf, "scenario"
    if top == "seed":
        return raw.seed, SeedsConf, "seed"
    if top == "device":
        return raw.device, device_class(raw.device).Conf, "device"
    if top == "baselines":
        name = rest.split(".")[0]
        return raw.baselines[name], policy_class(name, raw.baselines).Conf, f"baselines.{name}"
    return raw, RunConf, ""


@functools.cache
def plain(device: str, top: str, rest: str) -> tuple[Any, type, str]:
    node, schema, prefix = schema_of(base(device), top, rest)
    return OmegaConf.to_container(node, resolve=True), schema, prefix


def validate(device: str, key: str, text: str) -> None:
    """The validation of ``key=text`` in process: the value set in its node of the composed
    run, the node typed by its schema and held to its fields' specs (a leading ``+``, a new
    key of a free-keyed mapping, is dropped)."""
    key = key.lstrip("+")
    top, _, rest = key.partition(".")
    container, schema, prefix = plain(device, top, rest.split(".")[0])
    node = copy.deepcopy(container)
    _set(node, key[len(prefix):].lstrip(".").split("."), yaml.safe_load(text))
    typed = to_object(node, schema, prefix)
    check_keys(node, typed, prefix)


def _set(node: Any, path: list[str], value: Any) -> None:
    for part in path[:-1]:
        node = node[int(part)] if isinstance(node, list) else node[part]
    last = path[-1]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value


def refused_fast(device: str, key: str, text: str) -> str:
    with pytest.raises(UserError) as exc:
        validate(device, key, text)
    message = one_line_of(exc.value)
    assert key.split(".")[-1] in message or key.split(".")[-2] in message, message
    return message


def one_line_of(exc: BaseException) -> str:
    message = str(exc)
    assert message and "\n" not in message
    return message


def refused(*overrides: str) -> str:
    """Through the real composition (Hydra's override parser, ``+``, the run's checks)."""
    with pytest.raises(UserError) as exc:
        compose_run([o for o in overrides if o])
    return one_line_of(exc.value)


def outside(rng: Range) -> st.SearchStrategy[float]:
    """Finite values outside ``rng`` (or nothing if it takes every finite number)."""
    parts = []
    if rng.lo is not None:
        hi = rng.lo if rng.lo_open else math.nextafter(rng.lo, -math.inf)
        parts.append(st.floats(min_value=-1e12, max_value=hi))
    if rng.hi is not None:
        parts.append(st.floats(min_value=math.nextafter(rng.hi, math.inf),
                               max_value=max(1e12, 2 * rng.hi)))
    return st.one_of(*parts) if parts else st.nothing()


def test_every_declared_number_is_a_key_of_the_composed_run() -> None:
    missing = [k for k, device, _ in NUMBERS
               if OmegaConf.select(base(device), k.lstrip("+").rsplit(".", 1)[0]
                                   if k.startswith("+") else k) is None
               and not k.endswith(("paper_ops", "calibration.target_ms"))]
    assert not missing
    validate("", "scenario.duration_s", "3")  # a value in range passes


SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@SETTINGS
@given(data=st.data())
def test_out_of_range_numbers_are_refused_naming_the_key(data: st.DataObject) -> None:
    key, device, rng = data.draw(st.sampled_from([n for n in NUMBERS
                                                  if n[2].lo is not None or n[2].hi is not None]))
    value = data.draw(outside(rng))
    integer = data.draw(st.booleans()) and value == int(value)
    text = str(int(value)) if integer else repr(value)
    message = refused_fast(device, key, text)
    assert "range" in message or "finite" in message or "allowed: an integer" in message


@SETTINGS
@given(data=st.data())
def test_non_finite_and_wrong_type_values_are_refused(data: st.DataObject) -> None:
    key, device, _ = data.draw(st.sampled_from(NUMBERS))
    bad = data.draw(st.sampled_from(["nan", "inf", "-inf", "abc", "'1 s'", "[1]", "{a: 1}",
                                     "true"]))
    refused_fast(device, key, bad)


def enum_fields() -> list[tuple[str, type[Enum]]]:
    """(override key, Enum) of every closed-set field of the default run and the host."""
    from harness.experiment.session import compose_run as typed

    out = []
    for device in ("", "device=host"):
        cfg = typed([device] if device else [])[0]
        out += [(k, e) for k, e in _enums(cfg, "") if not (device and not k.startswith("dev"))]
    return sorted(set(out), key=lambda x: x[0])


def _enums(obj: Any, path: str) -> list[tuple[str, type[Enum]]]:
    found: list[tuple[str, type[Enum]]] = []
    if is_dataclass(obj):
        for f in fields(obj):
            found += _enums(getattr(obj, f.name), f"{path}.{f.name}".lstrip("."))
    elif isinstance(obj, list):
        for i, item in enumerate(obj):
            found += _enums(item, f"{path}.{i}")
    elif isinstance(obj, dict):
        for k, item in obj.items():
            found += _enums(item, f"{path}.{k}")
    elif isinstance(obj, Enum):
        found.append((path, type(obj)))
    return found


ENUMS = enum_fields()


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_value_outside_a_closed_set_lists_the_allowed_ones(data: st.DataObject) -> None:
    key, enum = data.draw(st.sampled_from(ENUMS))
    names = {m.name for m in enum}
    value = data.draw(st.from_regex(r"\A[a-z][a-z0-9_]{0,12}\Z").filter(lambda v: v not in names))
    device = "device=host" if key.startswith("device") and "host" in key else ""
    message = refused_fast(device, key, value)
    assert value in message and all(n in message for n in names)


def test_unknown_keys_are_refused_even_with_plus() -> None:
    plus = refused("+scenario.duraton_s=5", "+baselines.adms.alpah=1")
    assert "scenario.duraton_s" in plus and "allowed: name," in plus
    plain_typo = refused("scenario.duraton_s=5")
    assert "duraton_s" in plain_typo and "To append" not in plain_typo


def test_empty_lists_are_refused() -> None:
    assert "scenario.models is empty" in refused_fast("", "scenario.models", "[]")
    assert "peak_gflops is empty" in refused_fast("", "device.processors.1.twin.peak_gflops",
                                                  "{}")


def test_the_config_reference_is_up_to_date() -> None:
    text = (REPO / "docs" / "config-reference.md").read_text()
    assert reference.block() in text, "run: python -m harness.config.reference --write"


# -- real processes -------------------------------------------------------------------------


SLOW = pytest.mark.slow
#: a handful of real processes (the bulk is checked in process above); two in the default run


@pytest.mark.parametrize("args", [
    ["scenario.duration_s=nan"],
    ["-m", "scenario.duration_s=1,-1", "run=[tflite]"],
    pytest.param(["scenario.arrival=sometimes"], marks=SLOW),
    pytest.param(["baselines.adms.gamma=-1"], marks=SLOW),
], ids=["nan", "sweep_second_job", "closed_set", "policy_range"])
def test_python_m_harness_ends_in_one_line_and_exit_2(args: list[str], tmp_path: Any) -> None:
    proc = subprocess.run([sys.executable, "-m", "harness", *args,
                           f"hydra.run.dir={tmp_path / 'run'}",
                           f"hydra.sweep.dir={tmp_path / 'sweep'}"],
                          cwd=REPO, capture_output=True, text=True, timeout=300, check=False)
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    assert not (tmp_path / "run" / "requests.arrows").exists()
    assert not (tmp_path / "sweep").exists() or not any((tmp_path / "sweep").rglob("*.arrows"))


@SLOW
def test_a_bad_twin_value_names_its_key_and_range(tmp_path: Any) -> None:
    """The twin's constants are validated only by their fields' metadata: one ``error:`` line."""
    proc = subprocess.run([sys.executable, "-m", "harness", "device=k50pro",
                           "device.processors.1.twin.bandwidth_share=1.5",
                           f"hydra.run.dir={tmp_path / 'run'}"],
                          cwd=REPO, capture_output=True, text=True, timeout=300, check=False)
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert proc.returncode == 2 and lines == [
        "error: device.processors.1.twin.bandwidth_share=1.5 is out of range: it must be > 0 "
        "and <= 1 fraction (share of memory bandwidth alone)"], proc.stderr
