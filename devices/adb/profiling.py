"""Subgraphs profiled on the phone by the native runner, and kept on the host.

A policy is prepared on the profile of the device it runs on (what every subgraph takes
alone on its processor), as on the host and the twins; on a phone that profile is measured
there: ``runner --profile N`` loads the subgraphs of a plan file and invokes each one alone
``N`` times on its processor's worker (``runner/README.md``). A subgraph's profile is its
median invoke plus its median copy (its inputs in, its outputs out), as the host's profile
counts the copies.

The first time a subgraph of a plan is asked for, every subgraph of that plan not yet known
is profiled in one runner call (ADMS's window tuner asks for candidates of plans it never
loads: one call per candidate plan, not per subgraph). In that call's plan file each
subgraph is a model of its own (``<model>@<index>``, its slice's inputs and outputs the
model's), so any subset of a plan's subgraphs passes the runner's plan checks. Profiles are kept in
``<cache>/adb_profiles/<serial>.json`` by the slice's content hash and the processor's
plan-file line (its backend, threads, cores, kernels), so another run on the same phone
profiles nothing it has seen.
"""

from __future__ import annotations

import json
import os
import posixpath
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from devices.adb import leftovers
from devices.adb.phone import Phone
from devices.adb.runner_exe import RunnerOnPhone
from devices.adb.runner_plan import PlacedSlice, model_line, processor_line, subgraph_line
from devices.adb.slices import PhoneSlices
from harness.seams.errors import UserError
from harness.seams.plan import ModelPlan, Subgraph

#: joins a model's name and a subgraph's index into the name of the one-subgraph model the
#: profile's plan file holds for it
SEP = "@"
#: the profile table's columns (runner --profile-out)
COLUMNS = ("model", "index", "processor", "first_unit", "last_unit", "n", "invoke_ns_median",
           "invoke_ns_min", "copy_ns_median")


def parse_profile(text: str) -> dict[tuple[str, int], int]:
    """(model, subgraph index) -> median invoke + median copy, ns."""
    lines = text.splitlines()
    if not lines or tuple(lines[0].split("\t")) != COLUMNS:
        raise UserError(f"the runner's profile has no header {'/'.join(COLUMNS)}: "
                        f"{lines[0] if lines else 'empty'!r}")
    found = {}
    for line in lines[1:]:
        row = dict(zip(COLUMNS, line.split("\t"), strict=True))
        model, _, index = row["model"].rpartition(SEP)
        found[(model, int(index))] = int(row["invoke_ns_median"]) + int(row["copy_ns_median"])
    return found


class PhoneProfiles:
    """Profiles of subgraphs on one phone; see the module docstring."""

    def __init__(self, phone: Phone, runner: RunnerOnPhone, slices: PhoneSlices,
                 cache_dir: Path) -> None:
        self.phone, self.runner, self.slices = phone, runner, slices
        self.path = cache_dir / "adb_profiles" / f"{_safe(phone.serial)}.json"
        self.known: dict[str, int] = _read(self.path)
        self.measured = 0

    def key(self, sg: Subgraph) -> str:
        digest = self.slices.place(sg).path.split("/")[0]
        return f"{digest}|{processor_line(self.phone.processor(sg.processor))}"

    def profile(self, plan: ModelPlan, sg: Subgraph) -> int:
        """ns of ``sg`` alone on its processor (``plan`` is profiled if ``sg`` is unknown)."""
        if self.key(sg) not in self.known:
            self._measure(plan.model, [s for s in plan.subgraphs
                                       if self.key(s) not in self.known])
        return self.known[self.key(sg)]

    def _measure(self, model: str, subgraphs: Sequence[Subgraph]) -> None:
        placed = {(sg.model, sg.index): self.slices.place(sg) for sg in subgraphs}
        text = self._plan(subgraphs, placed)
        found = self._run(text)
        for sg in subgraphs:
            if (sg.model, sg.index) not in found:
                raise UserError(f"the runner's profile lacks subgraph {sg.index} of {model}")
            self.known[self.key(sg)] = found[(sg.model, sg.index)]
        self.measured += len(subgraphs)
        _write(self.path, self.known)

    def _plan(self, subgraphs: Sequence[Subgraph],
              placed: Mapping[tuple[str, int], PlacedSlice]) -> str:
        lines = list(map(processor_line, self.phone.conf.processors))
        for sg in subgraphs:
            piece = placed[(sg.model, sg.index)]
            name = f"{sg.model}{SEP}{sg.index}"
            alone = Subgraph(0, name, sg.processor, sg.ops, sg.units)
            lines += [model_line(name, (piece.inputs, piece.outputs), 0),
                      subgraph_line(alone, piece, False)]
        return "\n".join(lines) + "\n"

    def _run(self, plan_text: str) -> dict[tuple[str, int], int]:
        folder = self.phone.run_dir("profile")
        with tempfile.TemporaryDirectory() as tmp:
            local = Path(tmp) / "profile_plan.txt"
            local.write_text(plan_text)
            plan = self.phone.deployer.deploy(local)
        out = posixpath.join(folder, "profile.tsv")
        runs = self.phone.conf.tools.profile_runs
        command = self.runner.command("--plan", plan, "--slices", self.phone.conf.remote_dir,
                                      "--profile", str(runs), "--profile-out", out,
                                      "--warmup", "1")
        self.phone.transport.check(command, "profiling subgraphs with the runner",
                                   self.phone.conf.tools.grace_s)
        found = parse_profile(self.phone.transport.pull_text(out))
        leftovers.finish(self.phone.transport, folder)
        return found


def _safe(serial: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in serial)


def _read(path: Path) -> dict[str, int]:
    try:
        return {str(k): int(v) for k, v in json.loads(path.read_text()).items()}
    except (OSError, ValueError, AttributeError):
        return {}


def _write(path: Path, known: Mapping[str, int]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(fd, "w") as fh:
        json.dump(dict(sorted(known.items())), fh, indent=0)
    os.replace(tmp, path)
