"""The runs a validation makes: each model alone (calibration), then every row on both sides.

Every run is a ``python -m harness`` session into its own folder under ``out``, named by a
hash of its arguments and the checkout's commit; a folder whose run completed with the same
arguments is reused (its ``args.json``), so a validation interrupted, or repeated with other
twin settings, does not measure the host again. Each host run notes the load
(``/proc/loadavg``) and the CPU other processes used meanwhile
(:func:`devices.host.contention.foreign_load`) in ``load.json``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from devices.host.contention import cpu_clock, foreign_load
from harness.experiment import session
from harness.experiment.provenance import git_commit
from harness.seams.errors import UserError
from harness.seams.plan import ModelPlan
from harness.validate.config import ValidateConf
from harness.validate.measure import Overheads, SliceMeasure, dispatch_overheads

#: the rows when ``run`` is empty: the run's defaults (conf/config.yaml)
DEFAULT_ROWS = ("tflite", "tflite_gpu", "band", "adms", "adms_ef")
#: warm-up of each single-model run, s (on a loaded machine its first dispatch has been
#: seen to wait 2 s)
SINGLE_WARMUP_S = 3.0


def cached_run(args: Sequence[str], root: Path, console: Console, salt: str = ""
               ) -> tuple[Path, dict[str, object]]:
    """A completed run with ``args`` (reused, or made now) and its load notes; ``salt``
    (e.g. the twin YAML's text) and the checkout's commit are part of the key, as a run's
    arguments are (a run made by other code is not reused)."""
    keyed = [*args, salt, git_commit()] if salt else [*args, git_commit()]
    key = hashlib.sha256(json.dumps(keyed).encode()).hexdigest()[:12]
    folder = root / key
    done = folder / "args.json"
    if done.is_file() and json.loads(done.read_text()) == list(args):
        console.print(f"reusing {folder}")
        return folder, json.loads((folder / "load.json").read_text())
    if folder.exists():
        import shutil

        shutil.rmtree(folder)
    load0, clock0 = _load(), cpu_clock()
    session.run(list(args), folder / "run")
    foreign = foreign_load(clock0, cpu_clock())
    notes: dict[str, object] = {"load_before": load0, "load_after": _load(),
             "foreign_cores": None if foreign is None else round(foreign, 3)}
    (folder / "load.json").write_text(json.dumps(notes))
    done.write_text(json.dumps(list(args)))
    return folder, notes


def _load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def timing(duration_s: float, warmup_s: float, seeds: int) -> list[str]:
    return [f"scenario.duration_s={duration_s:g}", f"scenario.warmup_s={warmup_s:g}",
            f"seed.count={seeds}", "plots=false"]


def single_model_overheads(conf: ValidateConf, overrides: Sequence[str], out: Path,
                           plans: Mapping[str, ModelPlan], device: Sequence[str],
                           measures: Sequence[SliceMeasure], console: Console) -> Overheads:
    """Each model alone, one request at a time, as Band's chain of subgraphs: the gaps and
    excesses of all their subgraphs (:func:`~harness.validate.measure.dispatch_overheads`)."""
    profiles = {(m.model, m.processor, m.ops): m.profile_ns for m in measures}
    gaps: list[int] = []
    excess: list[int] = []
    for model, plan in plans.items():
        args = [*device, "scenario=single", f"scenario.models=[{model}]", "run=[band]",
                f"zoo_cache={conf.zoo_cache}", *timing(conf.single_s, SINGLE_WARMUP_S, 1)]
        folder, _ = cached_run(args, out / "single", console)
        found = dispatch_overheads(folder / "run", profiles, _ops_of(plan))
        gaps += found.gap_ns
        excess += found.excess_ns
    if not gaps:
        raise UserError("the single-model runs finished no measured subgraph of a profiled "
                        f"slice: make single_s longer (now {conf.single_s:g} s)")
    return Overheads(tuple(gaps), tuple(excess))


def _ops_of(plan: ModelPlan) -> Callable[[str, int], frozenset[int]]:
    """(model, subgraph index) -> the op set of that subgraph of ``plan``."""
    ops = {sg.index: sg.ops for sg in plan.subgraphs}
    return lambda _, index: ops.get(index, frozenset())


@dataclass(frozen=True, slots=True)
class BothSides:
    host: Path
    twin: Path
    baselines: tuple[str, ...]
    host_load: dict[str, object]


def common_args(conf: ValidateConf, overrides: Sequence[str]) -> list[str]:
    """What both sides' runs are given: the scenario, the rows, the zoo and the timing."""
    rows = tuple(conf.run) or DEFAULT_ROWS
    scenario = [o for o in overrides if o.split("=", 1)[0].lstrip("+~").split(".")[0]
                == "scenario"]
    return [*scenario, f"run=[{','.join(rows)}]", f"zoo_cache={conf.zoo_cache}",
            *timing(conf.duration_s, conf.warmup_s, conf.seeds)]


def both_sides(conf: ValidateConf, overrides: Sequence[str], out: Path, twin_name: str,
               device: Sequence[str], console: Console) -> BothSides:
    """Every row on the host, then on its twin, with the same seeds and traffic."""
    rows = tuple(conf.run) or DEFAULT_ROWS
    common = common_args(conf, overrides)
    host, notes = cached_run([*device, *common], out / "host", console)
    twin_args = [f"hydra.searchpath=[file://{out.resolve()}]", f"device={twin_name}", *common,
                 *conf.twin_overrides]
    salt = (out / "device" / f"{twin_name}.yaml").read_text()
    twin, _ = cached_run(twin_args, out / "twin", console, salt)
    return BothSides(host / "run", twin / "run", rows, notes)
