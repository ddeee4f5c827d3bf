"""Bring your own model: any ``.tflite`` file, beside the zoo's names.

A scenario names a model as a zoo name (``mobilenet_v2``), a path to a ``.tflite`` file
(``models/selfie.tflite``: the model is named after the file's stem) or a name and a path
(``selfie:models/selfie.tflite``). :func:`parse` tells them apart.

A file's graph profile (ops, shapes, FLOPs, bytes: :func:`harness.models.tflite_io.read_tflite`)
is computed on first use and cached under ``<cache>/profiles/<sha256[:16]>.json``, keyed by the
file's *content*, so a renamed or moved copy is not read again and an edited file is.

Before a profile is cached the model is checked to run (:func:`check_runs`): LiteRT builds an
interpreter for it as a device would. A custom op LiteRT has no kernel for (MediaPipe's
``Landmarks2TransformMatrix``, say) or a tensor type it cannot allocate makes the model
unrunnable on every processor, and it is refused with the op's name and the model's path.
Some custom ops exist only inside the XNNPACK delegate (``Convolution2DTransposeBias``): such a
model runs where XNNPACK runs, and its profile says so (``meta["needs_xnnpack"]``).
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from harness.models.tflite_io import missing_file, read_tflite, sha256_file
from harness.seams.errors import UserError
from harness.seams.graph import ModelGraph

#: a model name: what results, plots and ``run`` use
NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")
#: how LiteRT words an op it has no kernel for
_UNRESOLVED = re.compile(r"unresolved custom op: ([^.\s]+)")
#: bump when a cached profile's content or meaning changes
PROFILE_VERSION = 1


def is_path(entry: str) -> bool:
    """A model entry that names a file rather than a zoo model."""
    return entry.endswith(".tflite") or "/" in entry or ":" in entry


def parse(entry: str) -> tuple[str, Path | None]:
    """``name`` (zoo), ``path.tflite`` or ``name:path`` -> the model's name and its file."""
    if not is_path(entry):
        return entry, None
    name, sep, path = entry.partition(":")
    if not sep or "/" in name:  # a plain path (a folder name may hold a colon)
        name, path = Path(entry).stem, entry
    if not NAME.match(name):
        raise UserError(f"model {entry!r}: name {name!r} must start with a letter or _ and "
                        "hold only letters, digits, _ . -; write it as name:path")
    return name, Path(path)


def profile(name: str, path: Path, cache: Path) -> ModelGraph:
    """The graph profile of ``path`` (named ``name``), computed on first use and cached by
    content hash; the model is checked to run on LiteRT first."""
    if not path.is_file():
        raise UserError(f"model {name!r}: {missing_file(path)}")
    sha = sha256_file(path)
    cached = cache / "profiles" / f"{sha[:16]}.json"
    if cached.is_file():
        graph = ModelGraph.load(cached)
        if graph.source_sha256 == sha and graph.meta.get("byo_version") == PROFILE_VERSION:
            return dataclasses.replace(graph, name=name)
    graph = read_tflite(path, name)
    needs_xnnpack = check_runs(path)
    meta = {**dict(graph.meta), "byo_version": PROFILE_VERSION, "needs_xnnpack": needs_xnnpack}
    graph = dataclasses.replace(graph, meta=meta)
    graph.save(cached)
    return graph


def check_runs(path: Path) -> bool:
    """Whether the model needs XNNPACK (it runs only with it); a UserError naming the op and
    the path when LiteRT cannot run it at all."""
    from ai_edge_litert.interpreter import OpResolverType

    if _allocate_error(path, OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES) is None:
        return False
    error = _allocate_error(path, OpResolverType.AUTO)
    if error is None:
        return True
    if match := _UNRESOLVED.search(error):
        raise UserError(
            f"model {str(path)!r} needs custom op {match.group(1)!r}, which no processor's "
            "kernels provide (LiteRT has none, with or without XNNPACK): it cannot run here"
        )
    raise UserError(f"model {str(path)!r} does not run on LiteRT: {error}")


def _allocate_error(path: Path, resolver: object) -> str | None:
    """The first line of LiteRT's error building and allocating ``path``, or None."""
    from ai_edge_litert.interpreter import Interpreter

    try:
        Interpreter(model_path=str(path), num_threads=1,
                    experimental_op_resolver_type=resolver).allocate_tensors()
    except (RuntimeError, ValueError) as exc:
        lines = [ln for ln in str(exc).splitlines() if ln.strip()]
        return lines[0] if lines else type(exc).__name__
    return None
