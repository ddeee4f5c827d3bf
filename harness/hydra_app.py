"""Shared pieces of the Hydra command-line apps (``python -m harness``, ``harness.analyze``).

Hydra reports a bad override (an unknown option, a typo, a wrong type) with exit code 1 and a
hint about stack traces. Before handing the command line to Hydra, :func:`check_overrides`
composes the config once itself and turns any composition error into a one-line
:class:`~harness.errors.UserError` (exit code 2), so every bad input ends the same way.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from hydra import compose, initialize_config_module
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.errors import HydraException
from omegaconf import DictConfig
from omegaconf.errors import OmegaConfBaseException

from harness.config import register
from harness.errors import UserError

#: the package that holds the YAML configs (``conf/`` is installed as package ``conf``)
CONFIG_MODULE = "conf"


def user_overrides(argv: Sequence[str]) -> list[str]:
    """The ``key=value`` overrides of a command line (flags such as ``-m`` left out). A sweep
    (``seed.base=0,1,2``, ``range(...)``, ``glob(...)``) is checked with each of its values."""
    overrides = [a for a in argv if not a.startswith("-")]
    try:
        parsed = OverridesParser.create().parse_overrides(overrides)
    except HydraException as exc:
        raise UserError(_one_line(exc)) from None
    expanded: list[str] = []
    for override in parsed:
        if override.is_sweep_override():
            key = override.get_key_element()
            expanded.extend(f"{key}={v}" for v in override.sweep_string_iterator())
        else:
            expanded.append(override.input_line or "")
    return expanded


def _single_runs(overrides: list[str]) -> list[list[str]]:
    """One override list per distinct value of each swept key (a sweep checks every value
    once; the values of different keys are checked together, not as a cross product)."""
    keyed: dict[str, list[str]] = {}
    for item in overrides:
        keyed.setdefault(item.split("=", 1)[0], []).append(item)
    depth = max((len(v) for v in keyed.values()), default=1)
    return [[vals[min(i, len(vals) - 1)] for vals in keyed.values()] for i in range(depth)]


def check_overrides(config_name: str, argv: Sequence[str] | None = None) -> DictConfig:
    """Compose ``config_name`` with the command line's overrides or raise a UserError."""
    register()
    runs = _single_runs(user_overrides(sys.argv[1:] if argv is None else argv))
    try:
        with initialize_config_module(config_module=CONFIG_MODULE, version_base="1.3"):
            composed = [compose(config_name=config_name, overrides=run) for run in runs]
    except (HydraException, OmegaConfBaseException, ValueError) as exc:
        raise UserError(_one_line(exc)) from None
    return composed[0]


def _one_line(exc: BaseException) -> str:
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    text = " ".join(lines[:3]) if lines else type(exc).__name__
    return text.replace("\n", " ")
