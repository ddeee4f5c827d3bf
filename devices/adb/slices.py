"""Subgraphs as slices on the phone: cut on the host, pushed by content hash.

Each subgraph of a plan is cut from its model's ``.tflite`` by the host's slicer
(:class:`~devices.host.slicecache.SliceCache`, which keeps cut slices on disk between runs;
a subgraph of the whole model is the model file itself) and pushed by the phone's
:class:`~devices.adb.deploy.Deployer` under ``<remote_dir>/<sha256[:16]>/``: the runner's
plan names it by its path relative to ``remote_dir``, and a slice already on the phone is
not pushed again. The same op set of the same model is cut and pushed once, whatever its
subgraph.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from pathlib import Path

from devices.adb.deploy import Deployer
from devices.adb.runner_plan import PlacedSlice
from devices.host.slicecache import SliceCache
from devices.host.slicing import ops_text
from harness.seams.errors import UserError
from harness.seams.plan import Subgraph


class PhoneSlices:
    """Slices of the run's models on the phone, by (model, op set)."""

    def __init__(self, cache_dir: Path, deployer: Deployer, model_paths: Mapping[str, Path]
                 ) -> None:
        self.cache = SliceCache(cache_dir)
        self.deployer, self.model_paths = deployer, dict(model_paths)
        self._placed: dict[tuple[str, frozenset[int]], PlacedSlice] = {}

    def place(self, sg: Subgraph) -> PlacedSlice:
        """The subgraph's slice on the phone (cut and pushed on first use)."""
        key = (sg.model, sg.ops)
        if key not in self._placed:
            self._placed[key] = self._cut_and_push(sg)
        return self._placed[key]

    def _cut_and_push(self, sg: Subgraph) -> PlacedSlice:
        if sg.model not in self.model_paths:
            raise UserError(f"no .tflite for model {sg.model!r}; known: "
                            f"{sorted(self.model_paths)}")
        piece = self.cache.slice(self.model_paths[sg.model], sg.ops)
        if piece.path is None:
            raise UserError(f"subgraph {sg.index} of {sg.model} (ops {ops_text(piece.ops)}) "
                            f"holds only constant-only ops: the runner has nothing to run")
        remote = self.deployer.deploy(piece.path)
        return PlacedSlice(posixpath.relpath(remote, self.deployer.remote_dir),
                           piece.input_tensors, piece.output_tensors)

    def trim(self) -> None:
        """Keep the host's slice cache within its budget."""
        self.cache.trim()
