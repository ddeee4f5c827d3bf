"""Every job of a sweep (``python -m harness -m ...``) checked before the sweep starts.

Hydra's basic sweeper composes each job's config before launching it, but the schemas' ranges
(:mod:`harness.config.validate`), the baselines named in ``run`` and the models are checked
only inside a job, when the jobs before it have run. :func:`check_sweep` expands the sweep the
way Hydra's basic sweeper does (``hydra.sweeper.params`` of the config, then the command
line's overrides, their cartesian product) and has each job composed and checked first; the first
bad job ends the command with one line naming the job's overrides.

A single run is checked the same way when it names its folder (``hydra.run.dir=X``), before
the folder is claimed: a typo refused then leaves nothing in X, so the corrected command can
use it. Without ``-m``, a list given to a config group that takes one option
(``device=[k50pro,p20]``, which Hydra would merge into one device, the last one winning) is
refused in one line pointing at ``-m``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
from hydra.core.override_parser.overrides_parser import OverridesParser

from harness.config.compose import compose
from harness.config.rundir import run_dir_arg
from harness.seams.errors import UserError

T = TypeVar("T")
MULTIRUN_FLAGS = ("-m", "--multirun")
#: config groups that take one option: a list for them is a sweep, only under ``-m``
SINGLE_OPTION = ("device", "scenario")
#: Hydra flags followed by a value
VALUE_FLAGS = ("-cn", "--config-name", "-cp", "--config-path", "-cd", "--config-dir",
               "--experimental-rerun", "-c", "--cfg", "-p", "--package", "--info")


def overrides_of(args: Sequence[str]) -> list[str]:
    """The overrides among Hydra's command-line arguments (flags and their values dropped)."""
    out, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg in VALUE_FLAGS:
            skip = True
        elif not arg.startswith("-"):
            out.append(arg)
    return out


def jobs(overrides: Sequence[str]) -> list[list[str]]:
    """Each job's overrides, as Hydra's basic sweeper would launch them."""
    parser = OverridesParser.create()
    plain = [o.input_line for o in parser.parse_overrides(list(overrides))
             if not o.is_sweep_override() and o.input_line]
    params = compose("config", plain, with_hydra=True).hydra.sweeper.get("params") or {}
    args = [f"{k}={v}" for k, v in params.items()] + list(overrides)
    parsed = parser.parse_overrides(args)
    return [list(job) for batch in BasicSweeper.split_arguments(parsed, None) for job in batch]


def is_sweep(args: Sequence[str]) -> bool:
    return any(a in MULTIRUN_FLAGS for a in args)


def check_single_options(overrides: Sequence[str]) -> None:
    """Refuse a list given to a config group of :data:`SINGLE_OPTION` (module docstring)."""
    for override in OverridesParser.create().parse_overrides(list(overrides)):
        if override.key_or_group in SINGLE_OPTION and isinstance(override.value(), list):
            values = ",".join(map(str, override.value()))  # type: ignore[arg-type]
            raise UserError(f"{override.input_line} gives a list to {override.key_or_group}, "
                            "which takes one option; to run each, sweep them: "
                            f"python -m harness -m {override.key_or_group}={values}")


def check_jobs(args: Sequence[str], check: Callable[[list[str]], T]) -> list[tuple[list[str], T]]:
    """With ``-m``: ``check`` (compose and validate) every job's overrides before any runs;
    without, the single run's overrides (module docstring). Each sweep job's overrides with
    what ``check`` returned ([] without ``-m``)."""
    if not is_sweep(args):
        check_single_options(overrides_of(args))
        if run_dir_arg(args) is not None:
            check(overrides_of(args))
        return []
    checked = []
    for job in jobs(overrides_of(args)):
        try:
            checked.append((job, check(job)))
        except UserError as exc:
            raise UserError(f"sweep job [{' '.join(job)}]: {exc}") from None
    return checked


def seed_note(seeds: Sequence[tuple[Sequence[str], Sequence[int]]]) -> str:
    """What a sweep of ``seed.base`` does when its jobs' seeds overlap ("" when they do
    not): each job runs ``seed.count`` seeds from its base, so ``seed.base=0,1,2`` with 5
    seeds a job runs 15 seed-runs over 7 distinct seeds. ``seeds``: each job's overrides
    and the seeds it runs."""
    groups: dict[tuple[str, ...], list[Sequence[int]]] = {}
    for job, ran in seeds:
        rest = tuple(o for o in job if not o.lstrip("+~").startswith("seed."))
        groups.setdefault(rest, []).append(ran)
    for runs in groups.values():
        total, distinct = sum(len(r) for r in runs), len({s for r in runs for s in r})
        if total > distinct:
            return (f"note: these jobs run {total} seed-runs over {distinct} distinct seeds "
                    f"(each job runs seed.count={len(runs[0])} seeds from its seed.base, "
                    "so they repeat seeds); for each seed once, sweep with seed.count=1, "
                    "or run seed.count=N without -m (one run, N seeds, one interval)")
    return ""
