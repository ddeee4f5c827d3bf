"""The one way every entry point composes ``conf/``, and how Hydra's errors reach a user.

* ``python -m harness`` composes through ``@hydra.main`` (Hydra's own command line: sweeps,
  launchers, ``--cfg``, ``--info``, ``--help``); :func:`hydra_errors` makes every composition
  error there end as one ``error:`` line and exit code 2.
* Scripts, notebooks, tests and ``python -m harness.analyze`` call :func:`compose` (Hydra's
  compose API on the same ``conf/`` package) and :func:`to_object`.

Both read the same YAML files and the same registered schemas; the composition root
(:mod:`harness.experiment.components`) registers every schema before either runs.

Hydra prints an error and exits with code 1 unless ``HYDRA_FULL_ERROR`` is set, in which
case it raises. :func:`hydra_errors` sets it, catches what Hydra raises, and turns it into a
:class:`~harness.seams.errors.UserError`. A user who set ``HYDRA_FULL_ERROR=1`` themselves
gets Hydra's full traceback, as Hydra documents.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml
from hydra import compose as hydra_compose
from hydra import initialize_config_dir
from hydra.core.global_hydra import GlobalHydra
from hydra.errors import HydraException
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from harness.config import CONF_DIR as CONF_DIR
from harness.config.reference import find
from harness.seams.errors import UserError, fail
from harness.seams.fields import check

#: errors of composition and of validation against a schema
#: a config file that is not YAML (yaml.YAMLError: a scanner or parser error naming the file,
#: its line and column) is a config error too
CONFIG_ERRORS = (HydraException, OmegaConfBaseException, ValueError, yaml.YAMLError)


#: lines of Hydra's and OmegaConf's errors that say nothing to a user
_NOISE = ("To append to your config use", "full_key:", "reference_type=", "object_type=")


def one_line(exc: BaseException) -> str:
    """Hydra's or OmegaConf's error as one line that names the bad value and what is allowed:
    the first lines of the error joined (Hydra and OmegaConf add ``full_key:`` lines), the
    first line of its cause (Hydra's "Error merging override" says why only there), a missing
    option's every alternative, and for a number that is not one, the field's range (its
    metadata, :mod:`harness.seams.fields`). Hydra's advice to add an unknown key with ``+``
    is dropped: the schema refuses it anyway."""
    raw = str(exc)
    lines = [ln.strip() for ln in raw.split("\nConfig search path:")[0].splitlines() if ln.strip()]
    lines = [ln for ln in lines if not ln.startswith(_NOISE)]
    if any(ln.startswith("Available options in") for ln in lines):
        return _available(lines)
    text = " ".join(lines[:3]) if lines else type(exc).__name__
    cause = [ln.strip() for ln in str(exc.__cause__ or "").splitlines() if ln.strip()]
    if cause and cause[0] not in text:
        text = f"{text}: {cause[0]}"
    if "is not a valid bool" in text:
        text += "; allowed: true or false"
    key = re.search(r"full_key: (\S+)", f"{raw}\n{exc.__cause__ or ''}")
    if key and key.group(1) not in text:
        text = f"{key.group(1)}: {text}"
    return text + _range_hint(str(exc.__cause__ or raw))


def _available(lines: list[str]) -> str:
    at = next(i for i, ln in enumerate(lines) if ln.startswith("Available options in"))
    options = ", ".join(lines[at + 1:]) or "none"
    return f"{' '.join(lines[:at])}; {lines[at].rstrip(':')}: {options}"


def _range_hint(text: str) -> str:
    """``; allowed: <range>`` for a value that could not be converted to a number field."""
    key = re.search(r"full_key: (\S+)", text)
    schema = re.search(r"object_type=(\w+)", text)
    if "could not be converted to" not in text or not key or not schema:
        return ""
    declared = find(schema.group(1), key.group(1).rsplit(".", 1)[-1])
    kind = "an integer" if "to Integer" in text else "a finite number"
    if declared is None:
        return f"; allowed: {kind}"
    return f"; allowed: {kind}, {declared.allowed()}"


@contextmanager
def user_errors() -> Iterator[None]:
    """Composition and schema errors raised inside the block become one-line UserErrors."""
    try:
        yield
    except UserError:
        raise
    except CONFIG_ERRORS as exc:
        raise UserError(one_line(exc)) from None


def compose(
    config_name: str, overrides: Sequence[str] = (), with_hydra: bool = False
) -> DictConfig:
    """``conf/<config_name>.yaml`` composed with ``overrides``, as the command line would
    (``with_hydra``: with the ``hydra`` node, where an experiment's sweep lives)."""
    with user_errors(), initialize_config_dir(str(CONF_DIR), version_base="1.3"):
        return hydra_compose(config_name=config_name, overrides=list(overrides),
                             return_hydra_config=with_hydra)


def group_options(group: str) -> list[str]:
    """The options of a config group (``conf/<group>/*.yaml`` and registered nodes)."""
    with user_errors(), initialize_config_dir(str(CONF_DIR), version_base="1.3"):
        return list(GlobalHydra.instance().config_loader().get_group_options(group))


def compose_file(path: str | Path, schema: type) -> Any:
    """One option file of a config group (e.g. ``conf/device/k50pro.yaml``), composed alone
    (its defaults list applied) and validated against ``schema``."""
    path = Path(path).resolve()
    if not path.is_file():
        raise UserError(f"no such config file: {str(path)!r}")
    group = path.parent.name
    with user_errors(), initialize_config_dir(str(path.parent.parent), version_base="1.3"):
        cfg = hydra_compose(overrides=[f"+{group}={path.stem}"])
        return to_object(cfg[group], schema, group)


def to_object(cfg: Any, schema: type, path: str = "") -> Any:
    """Validate ``cfg`` against ``schema`` and return the typed object, every field held to
    its declared range (:func:`~harness.seams.fields.check`): the same validation for every
    command and every device YAML. ``path`` is where ``cfg`` sits in the whole config (the
    prefix of the keys its errors name)."""
    with user_errors():
        merged = OmegaConf.merge(OmegaConf.structured(schema), cfg)
        typed = OmegaConf.to_object(merged)
    check(typed, path)
    return typed


class TaskError(Exception):
    """An error of the task function itself, not of composing its config: it keeps its
    traceback (its ``__cause__``)."""


@contextmanager
def task_errors() -> Iterator[None]:
    """Inside a ``@hydra.main`` function: a UserError ends the command with its one line
    (here, so that Hydra adds no line of its own); anything else is the program's fault."""
    try:
        yield
    except UserError as exc:
        fail(str(exc))
    except Exception as exc:
        raise TaskError(type(exc).__name__) from exc


@contextmanager
def hydra_errors() -> Iterator[None]:
    """Around a ``@hydra.main`` app: Hydra raises instead of printing; what it raises about
    the config becomes a UserError, the task's own errors keep their traceback (unless the
    user asked for Hydra's full errors, which are then left alone)."""
    if os.environ.get("HYDRA_FULL_ERROR") == "1":
        yield
        return
    os.environ["HYDRA_FULL_ERROR"] = "1"
    try:
        with user_errors():
            yield
    except TaskError as exc:
        raise (exc.__cause__ or exc) from None
    finally:
        os.environ.pop("HYDRA_FULL_ERROR", None)
