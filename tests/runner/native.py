"""The native runner from the tests' side: building it, laying out slices and plans as the
harness will ship them to a phone, running it, and reading its job log.

Slices are cut by :class:`~devices.host.slicing.ModelSlicer` and written as
``<slices>/<sha256[:16]>/<file>``, the layout ``devices/adb/deploy.py`` pushes. The plan file
format is the runner's (``runner/README.md``, "Plan file").
"""

from __future__ import annotations

import fcntl
import hashlib
import itertools
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from ai_edge_litert.interpreter import Interpreter

from adms.config import AdmsConf
from adms.policy import AdmsPolicy
from baselines.band.config import BandConf
from baselines.band.policy import BandPolicy
from baselines.tflite.config import TfliteConf
from baselines.tflite.policy import TflitePolicy
from devices.adb.runner_logs import JobLine
from devices.host.slicing import ModelSlicer
from harness.replay.record import conf_obj
from harness.replay.replay import rebuild
from harness.replay.trace import VERSION
from tests.fixtures.paths import REPO

#: the runner's sources and build folder; a mutant's copy when RUNNER_SOURCE/RUNNER_BUILD
#: are set (``python -m tests.runner.mutants``)
SOURCE = Path(os.environ.get("RUNNER_SOURCE") or REPO / "runner")
#: the build folder `make runner` uses (ignored by git)
BUILD = Path(os.environ.get("RUNNER_BUILD") or SOURCE / "build")


def missing_tools() -> str | None:
    """Why the runner cannot be built here, or None."""
    absent = [tool for tool in ("cmake", "g++") if shutil.which(tool) is None]
    if absent:
        return f"{' and '.join(absent)} not installed (apt-get install cmake g++)"
    return None


def build(build_dir: Path = BUILD, *options: str) -> Path:
    """Configure (once) and build the runner; returns the binary. Test processes running side
    by side (``pytest -n``) build one folder in turn: a lock file beside it is held meanwhile."""
    build_dir.parent.mkdir(parents=True, exist_ok=True)
    with open(build_dir.parent / f".{build_dir.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (build_dir / "CMakeCache.txt").exists():
            subprocess.run(["cmake", "-S", str(SOURCE), "-B", str(build_dir),
                            f"-DPYTHON={sys.executable}", *options],
                           check=True, capture_output=True, text=True)
        subprocess.run(["cmake", "--build", str(build_dir), "-j", str(os.cpu_count() or 1)],
                       check=True, capture_output=True, text=True)
    return build_dir / "runner"


@dataclass(frozen=True)
class Layout:
    """A plan and its slices on disk."""

    plan: Path
    slices: Path
    #: model -> number of subgraphs
    subgraphs: dict[str, int]


def cut(model: Path, parts: int) -> list[tuple[bytes, tuple[int, ...], tuple[int, ...]]]:
    """``model`` cut into ``parts`` contiguous op ranges: (bytes, inputs, outputs) of each
    non-empty slice."""
    slicer = ModelSlicer(model)
    bounds = np.linspace(0, len(slicer.operators), parts + 1).astype(int)
    slices = []
    for start, end in itertools.pairwise(bounds):
        data, plan = slicer.build(range(int(start), int(end)))
        if data is not None:
            slices.append((data, plan.input_tensors, plan.output_tensors))
    return slices


def ints(values: Sequence[int]) -> str:
    return ",".join(map(str, values))


def lay_out(root: Path, models: dict[str, Path], parts: int, cores: Sequence[int]) -> Layout:
    """Slices of every model (``parts`` each) and a plan that puts subgraph k on processor
    ``k % len(cores)``, one processor per core (XNNPACK, one thread); no cores: one processor,
    not pinned."""
    slices_dir = root / "slices"
    pins = [str(c) for c in cores] or [""]
    lines = [f"processor cpu{i} accelerator=cpu threads=1 cores={c}" for i, c in enumerate(pins)]
    counts = {}
    for name, path in models.items():
        sub = ModelSlicer(path).model.subgraphs[0]
        lines.append(f"model {name} inputs={ints(sub.inputs)} outputs={ints(sub.outputs)}")
        pieces = cut(path, parts)
        for k, (data, ins, outs) in enumerate(pieces):
            folder = slices_dir / hashlib.sha256(data).hexdigest()[:16]
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{name}_{k}.tflite").write_bytes(data)
            lines.append(f"subgraph {name} {k} processor=cpu{k % len(pins)} "
                         f"slice={folder.name}/{name}_{k}.tflite inputs={ints(ins)} "
                         f"outputs={ints(outs)}")
        counts[name] = len(pieces)
    plan = root / "plan.txt"
    plan.write_text("\n".join(lines) + "\n")
    return Layout(plan, slices_dir, counts)


def whole_model_outputs(path: Path, inputs: dict[int, np.ndarray]) -> dict[int, bytes]:
    """The model run whole in Python LiteRT: output tensor index -> bytes."""
    interpreter = Interpreter(model_path=str(path), num_threads=1)
    interpreter.allocate_tensors()
    for index, value in inputs.items():
        interpreter.set_tensor(index, value)
    interpreter.invoke()
    return {d["index"]: interpreter.get_tensor(d["index"]).tobytes()
            for d in interpreter.get_output_details()}


def random_inputs(path: Path, folder: Path, name: str) -> dict[int, np.ndarray]:
    """Seeded inputs of the model, also written where the runner reads them (``--inputs``)."""
    rng = np.random.default_rng(23)
    interpreter = Interpreter(model_path=str(path))
    inputs = {}
    for d in interpreter.get_input_details():
        value = rng.standard_normal(d["shape"]).astype(d["dtype"])
        inputs[d["index"]] = value
        (folder / f"{name}.{d['index']}.bin").write_bytes(value.tobytes())
    return inputs


#: baseline -> (its policy class, its config) for ``--policy`` headers
POLICIES: dict[str, tuple[type, Any]] = {
    "tflite": (TflitePolicy, TfliteConf()),
    "band": (BandPolicy, BandConf()),
    "adms": (AdmsPolicy, AdmsConf()),
}


def policy_header(baseline: str, layout: Layout, processors: int, **changes: Any
                  ) -> dict[str, Any]:
    """The decision trace header (``runner --policy``) of ``baseline`` with its default
    config for ``layout``'s plan (laid out over ``processors`` cores): one unit per subgraph,
    subgraph k on ``cpu{k % processors}``, as the plan file has them."""
    cls, conf = POLICIES[baseline]
    tflite = baseline == "tflite"
    names = [f"cpu{i}" for i in range(max(processors, 1))]
    plans = [{"model": m, "units": n, "unit_support": [[names[k % len(names)]] for k in range(n)],
              "window_size": 1, "shared_interpreter": tflite,
              "concurrent": tflite and conf.concurrent,
              "subgraphs": [{"index": k, "processor": names[k % len(names)], "units": [k]}
                            for k in range(n)]}
             for m, n in layout.subgraphs.items()]
    out: dict[str, Any] = {
        "trace": "decisions", "version": VERSION, "baseline": baseline, "name": baseline,
        "policy": f"{cls.__module__}.{cls.__qualname__}", "reinsert_front": False,
        "conf": conf_obj(conf), "processors": [{"name": n, "kind": "cpu"} for n in names],
        "plans": plans, "facts": {},
        "profile": [[m, k, 200_000 + 50_000 * k] for m, n in layout.subgraphs.items()
                    for k in range(n)]}
    out.update(changes)
    out["reinsert_front"] = rebuild(out).reinsert_front
    return out


def run(binary: Path, layout: Layout, *args: str, check: bool = True
        ) -> subprocess.CompletedProcess[str]:
    """The runner on ``layout``; its job log goes to ``<plan folder>/jobs.tsv``."""
    log = layout.plan.parent / "jobs.tsv"
    result = subprocess.run([str(binary), "--plan", str(layout.plan), "--slices",
                             str(layout.slices), "--log", str(log), *args],
                            capture_output=True, text=True, timeout=300)
    if check and result.returncode != 0:
        raise AssertionError(f"runner failed ({result.returncode}): {result.stderr[-2000:]}")
    return result


#: a job log line (the host's reader's type: one definition of the log's columns)
JobRow = JobLine


def read_jobs(path: Path) -> list[JobRow]:
    lines = path.read_text().splitlines()
    assert lines[0].split("\t") == ["request", "model", "subgraph", "processor", "start_ns",
                                    "end_ns", "copy_ns", "invoke_ns"]
    rows = []
    for line in lines[1:]:
        r, m, s, p, *times = line.split("\t")
        rows.append(JobRow(int(r), m, int(s), p, *(int(t) for t in times)))
    return rows


def ready_gaps_ns(rows: Sequence[JobRow]) -> list[int]:
    """Ready-to-start gaps: each subgraph's start minus its predecessor's end (same request)."""
    by_request: dict[int, list[JobRow]] = {}
    for row in rows:
        by_request.setdefault(row.request, []).append(row)
    gaps = []
    for jobs in by_request.values():
        jobs.sort(key=lambda j: j.subgraph)
        gaps += [b.start_ns - a.end_ns for a, b in itertools.pairwise(jobs)]
    return gaps


def read_requests(path: Path) -> list[tuple[int, str, int, int]]:
    """The request log: (request, model, arrival_ns, end_ns) per line (end -1: dropped)."""
    rows = [line.split("\t") for line in path.read_text().splitlines()[1:]]
    return [(int(r), m, int(a), int(e)) for r, m, a, e in rows]
