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
from hydra.errors import HydraException
from omegaconf import DictConfig
from omegaconf.errors import OmegaConfBaseException

from harness.config import register
from harness.errors import UserError

#: the package that holds the YAML configs (``conf/`` is installed as package ``conf``)
CONFIG_MODULE = "conf"


def user_overrides(argv: Sequence[str]) -> list[str]:
    """The ``key=value`` overrides of a command line (flags such as ``-m`` left out)."""
    return [a for a in argv if not a.startswith("-")]


def check_overrides(config_name: str, argv: Sequence[str] | None = None) -> DictConfig:
    """Compose ``config_name`` with the command line's overrides or raise a UserError."""
    register()
    overrides = user_overrides(sys.argv[1:] if argv is None else argv)
    try:
        with initialize_config_module(config_module=CONFIG_MODULE, version_base="1.3"):
            return compose(config_name=config_name, overrides=overrides)
    except (HydraException, OmegaConfBaseException, ValueError) as exc:
        raise UserError(_one_line(exc)) from None


def _one_line(exc: BaseException) -> str:
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    text = " ".join(lines[:3]) if lines else type(exc).__name__
    return text.replace("\n", " ")
