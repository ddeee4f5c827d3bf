"""Slices on disk: each slice of a ``.tflite`` model built once and kept, with its boundary.

:class:`SliceCache` cuts a slice (:class:`~devices.host.slicing.ModelSlicer`) on its first use
and keeps it under its root, keyed by the source's sha256 and a hash of the sorted op set;
each ``.tflite`` has a ``.json`` sidecar with its boundary (:class:`Slice`: the slice's ops,
inputs and outputs in the source's numbering; no file for an empty slice). The op set of every
op is the source model itself, and the cache keeps each model's slices within 1.5x its size
(:meth:`SliceCache.trim`: overlapping op sets each carry their own copy of the weights).
Files are written atomically (:func:`write_atomic`), so concurrent runs never see half a file.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from devices.host.slicing import ModelSlicer, SlicePlan, ops_text
from harness.models.tflite_io import FileHashes
from harness.seams.errors import UserError


@dataclass(frozen=True, slots=True)
class Slice:
    """A slice written to disk (``path`` is ``None`` for an empty slice: nothing to run)."""

    path: Path | None
    ops: tuple[int, ...]
    included_ops: tuple[int, ...]
    input_tensors: tuple[int, ...]
    output_tensors: tuple[int, ...]

    @property
    def is_empty(self) -> bool:
        return self.path is None


class SliceCache:
    """Slices on disk under ``root``: ``<model sha256[:16]>/<op set hash[:16]>.tflite``.

    **Size.** Each slice keeps only the buffers its ops use, so disjoint slices of a model
    add up to the model (MobileNetV2 in 4 slices: 1.0005x). But plans hold *overlapping* op
    sets: a merged subgraph for every range of units (Band at ``minimum_subgraph_size`` 1,
    ADMS's windows, the window tuner's candidates), and every such file carries its own copy
    of the weights of its range: InceptionV4's 7 host units give 28 ranges, 1.4 GB of slices
    for a 171 MB model. So:

    * the op set of every op is the source model itself (``whole``; no copy is written);
    * :meth:`trim` (the host device calls it when it closes) keeps each model's slice files
      within ``budget`` x the model's size, dropping the least recently used first; the
      ``.json`` boundary of a dropped slice stays, and the slice is rebuilt from the source
      on its next use (unchecked: it allocated when first built).

    A run may hold more than the budget while it runs: every slice of its plans is on disk
    until the device closes.
    """

    #: slice files of a model kept by :meth:`trim`, as a multiple of the model's size
    BUDGET = 1.5

    def __init__(self, root: str | Path, budget: float = BUDGET) -> None:
        self.root = Path(root)
        self.budget = budget
        self._slicers: dict[Path, ModelSlicer] = {}
        self._hashes = FileHashes()
        #: folder of a model's slices -> the model's size in bytes
        self._sources: dict[Path, int] = {}

    def get(self, model_path: str | Path, op_set: Iterable[int]) -> Path:
        """Path of the slice of ``model_path`` for ``op_set``, built on first use."""
        piece = self.slice(model_path, op_set)
        if piece.path is None:
            raise UserError(f"slice of {str(model_path)!r} with ops {ops_text(piece.ops)} "
                            "holds only constant-only ops: there is nothing to run")
        return piece.path

    def slice(self, model_path: str | Path, op_set: Iterable[int]) -> Slice:
        """The slice of ``model_path`` for ``op_set`` with its boundary, built on first use
        (or again, if :meth:`trim` dropped its file)."""
        source = Path(model_path)
        ops = tuple(sorted({int(i) for i in op_set}))
        path = self._path(source, ops)
        sidecar = path.with_suffix(".json")
        if not sidecar.is_file():
            self._write(source, ops, path, check=True)
        facts = json.loads(sidecar.read_text())
        plan = _plan_from(facts)
        if facts.get("whole"):
            return Slice(source, plan.ops, plan.included_ops, plan.input_tensors,
                         plan.output_tensors)
        if not plan.is_empty and not path.is_file():
            self._write(source, ops, path, check=False)
        if not plan.is_empty:
            _mark_used(path)
        return Slice(None if plan.is_empty else path, plan.ops, plan.included_ops,
                     plan.input_tensors, plan.output_tensors)

    def _write(self, source: Path, ops: tuple[int, ...], path: Path, check: bool) -> None:
        """Build the slice and write its file (none for an empty or a whole-model slice)
        and its boundary."""
        slicer = self._slicer(source)
        whole = slicer.whole(ops)
        if whole is not None:
            plan, facts = whole, {**_plan_dict(whole), "whole": True}
        else:
            data, plan = slicer.build(ops, check)
            if data is not None:
                write_atomic(path, data)
            facts = _plan_dict(plan)
        write_atomic(path.with_suffix(".json"), json.dumps(facts).encode())

    def trim(self) -> int:
        """Drop the least recently used slice files of every model this cache cut until
        each model's slices take at most ``budget`` x its size; returns the bytes freed."""
        return sum(_trim(folder, int(self.budget * size)) for folder, size in
                   self._sources.items())

    def footprint(self, model_path: str | Path) -> int:
        """Bytes of the model's slice files on disk."""
        folder = self._folder(Path(model_path))
        return sum(p.stat().st_size for p in folder.glob("*.tflite")) if folder.is_dir() else 0

    def _path(self, model_path: Path, ops: tuple[int, ...]) -> Path:
        ops_sha = hashlib.sha256(",".join(map(str, ops)).encode()).hexdigest()
        return self._folder(model_path) / f"{ops_sha[:16]}.tflite"

    def _folder(self, model_path: Path) -> Path:
        if not model_path.is_file():
            return self.root / "missing"
        folder = self.root / self._hashes.sha256(model_path)[:16]
        self._sources.setdefault(folder, model_path.stat().st_size)
        return folder

    def _slicer(self, model_path: Path) -> ModelSlicer:
        key = model_path.resolve()
        if key not in self._slicers:
            self._slicers[key] = ModelSlicer(model_path)
        return self._slicers[key]


def _mark_used(path: Path) -> None:
    """Set the file's access time to now (its modification time stays: it was not rewritten);
    :func:`_trim` drops the least recently used first."""
    with contextlib.suppress(FileNotFoundError):  # another process trimmed it meanwhile
        os.utime(path, ns=(time.time_ns(), path.stat().st_mtime_ns))


def _trim(folder: Path, limit: int) -> int:
    """Delete the least recently used ``.tflite`` files of ``folder`` until they take
    ``limit`` bytes or less; the bytes freed."""
    files = []
    for p in folder.glob("*.tflite"):
        try:
            st = p.stat()
        except FileNotFoundError:  # another process trimmed it
            continue
        files.append((st.st_atime_ns, st.st_size, p))
    total, freed = sum(f[1] for f in files), 0
    for _, size, p in sorted(files):
        if total - freed <= limit:
            break
        p.unlink(missing_ok=True)
        freed += size
    return freed


def _plan_dict(plan: SlicePlan) -> dict[str, Any]:
    return {"ops": list(plan.ops), "included_ops": list(plan.included_ops),
            "input_tensors": list(plan.input_tensors),
            "output_tensors": list(plan.output_tensors)}


def _plan_from(d: dict[str, Any]) -> SlicePlan:
    return SlicePlan(tuple(d["ops"]), tuple(d["included_ops"]), tuple(d["input_tensors"]),
                     tuple(d["output_tensors"]))


def write_atomic(path: Path, data: bytes) -> None:
    """Write through a temporary file so that a concurrent reader never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
