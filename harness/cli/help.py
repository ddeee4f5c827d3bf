"""``harness --help``: every option of the composed run with its unit, range and meaning.

The text is written like Hydra's help template, generated from the metadata each
schema declares on its fields (:func:`harness.seams.fields.spec`, the same metadata the
validation applies and ``docs/config-reference.md`` prints), not the composed YAML. It is
generated for the command line it is asked on: ``harness device=host --help`` lists the host's
fields, and only the baselines ``run`` names. Fields without a spec (names, switches, paths)
are listed with their value; the config groups are listed from the config folder and
Hydra's own flags from Hydra's argument parser. It is printed here rather than by Hydra's
``--help``, which composes every group's every option first (~10 s here for text this help
does not show).
"""

from __future__ import annotations

import dataclasses
import textwrap
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from hydra._internal.hydra import Hydra
from hydra._internal.utils import get_args_parser

from harness.seams.fields import spec_of

WIDTH = 80
HELP_FLAGS = ("--help", "-h")


@dataclass(frozen=True, slots=True)
class Option:
    """One settable key of the composed run."""

    key: str
    value: Any
    #: "s, > 0" (unit and allowed values), "" without a spec
    allowed: str
    meaning: str

    def text(self) -> str:
        """Two lines at most 80 wide: ``key = value  [unit, range]`` then the meaning."""
        head = f"  {self.key} = {_value(self.value)}"
        head += f"  [{self.allowed}]" if self.allowed else ""
        if not self.meaning:
            return head
        return head + "\n" + textwrap.fill(self.meaning, WIDTH, initial_indent=" " * 6,
                                           subsequent_indent=" " * 6)


def _value(value: Any) -> str:
    if isinstance(value, Enum):
        return value.name
    if isinstance(value, list | tuple):
        return "[" + ",".join(_value(v) for v in value) + "]"
    text = str(value)
    return text if len(text) <= 40 else text[:37] + "..."


def options(obj: Any, prefix: str = "", skip: Sequence[str] = ()) -> Iterator[Option]:
    """Every leaf field of a typed config, depth first, with its spec where it declares one
    (underscore names such as ``_target_`` are internal; mappings and lists of blocks, e.g.
    per-processor blocks, are in ``docs/config-reference.md``)."""
    for f in dataclasses.fields(obj):
        if f.name.startswith("_") or f.name in skip:
            continue
        value, key = getattr(obj, f.name), f"{prefix}{f.name}"
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            yield from options(value, key + ".")
        elif not _nested(value):
            yield Option(key, value, _allowed(f, value), getattr(spec_of(f), "meaning", ""))


def _allowed(f: dataclasses.Field[Any], value: Any) -> str:
    if isinstance(value, Enum):
        return "one of " + ", ".join(type(value).__members__)
    spec = spec_of(f)
    if spec is None:
        return ""
    return ", ".join(p for p in (spec.unit, spec.range.text()) if p and p != "any finite number")


def _nested(value: Any) -> bool:
    return isinstance(value, dict) or (isinstance(value, list | tuple) and any(
        dataclasses.is_dataclass(v) or isinstance(v, dict | list) for v in value))


def run_options(cfg: Any) -> list[Option]:
    """The run's own options, its device's, and those of each baseline ``run`` names."""
    from harness.experiment.components import baselines_to_run

    found = list(options(cfg, skip=("device", "baselines", "groups", "metrics")))
    found += options(cfg.device, "device.")
    for name in baselines_to_run(cfg):
        found += options(cfg.baselines[name], f"baselines.{name}.")
    return found


def template(found: Sequence[Option]) -> str:
    """The help's template: usage, config groups, every option, and ``$FLAGS_HELP`` where
    Hydra's flags go (a ``$`` of our text doubled, as in Hydra's templates)."""
    body = "\n".join(o.text() for o in found).replace("$", "$$")
    return "\n".join([
        "harness: every baseline on one device and one scenario (python -m harness).",
        "Usage: harness [group=option ...] [key=value ...]",
        "  e.g. harness device=p20 run=[band,adms] scenario.duration_s=30",
        "Other commands: harness help (list, runs, report, compare, analyze, ...).",
        "Every field, all schemas: docs/config-reference.md",
        "", "== Config groups (group=option; +experiment=NAME) ==", groups(),
        "", "== Options (key = default  [unit, allowed]; meaning) ==", body,
        "", "== Flags ==", "$FLAGS_HELP", ""])


def groups() -> str:
    """The run's config groups and their options, wrapped to :data:`WIDTH`."""
    from harness.config.compose import group_options

    return "\n".join(textwrap.fill(f"{g}: {', '.join(group_options(g))}", WIDTH,
                                    subsequent_indent="    ")
                     for g in ("device", "scenario", "baseline", "experiment"))


def asks_help(argv: Sequence[str]) -> bool:
    return any(a in HELP_FLAGS for a in argv)


def help_text(argv: Sequence[str]) -> str:
    """The help for the command line ``argv``, its options from the overrides in it (a line
    that does not compose gets the defaults')."""
    from harness.experiment.session import compose_run

    overrides = [a for a in argv if "=" in a and not a.startswith("-")]
    try:
        cfg = compose_run(overrides)[0]
    except Exception:  # a bad line still gets help; running it says what is wrong
        cfg = compose_run([])[0]
    flags = Hydra.format_args_help(get_args_parser())
    return template(run_options(cfg)).replace("$FLAGS_HELP", flags).replace("$$", "$")
