"""The scenario's models: their graphs, and their ``.tflite`` files where the device runs them.

A model is a zoo name (:mod:`harness.models.zoo`) or a file (:mod:`harness.models.byo`:
``path.tflite`` or ``name:path``). A zoo model's committed graph profile is enough for a
simulated device; a device that runs real files (the host, a phone) needs its ``.tflite`` in
the zoo cache, written there from the profile on first use
(:func:`harness.models.zoo.ensure_built`, no TensorFlow). A file's profile is computed on first
use and cached by content hash under the zoo cache; it is checked to run on LiteRT first, and
refused with the op's name and its path if it cannot.

Scenario entries become plain names (:func:`model_names`): results, traffic and reports know a
model by its name, the manifest's config keeps the path.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from harness.experiment.progress import bar_phases
from harness.models import byo, zoo
from harness.seams.errors import UserError
from harness.seams.graph import ModelGraph
from harness.seams.progress import StartPhase


@dataclass(frozen=True)
class Models:
    """The scenario's models: graphs, and the .tflite files where the device needs them."""

    graphs: Mapping[str, ModelGraph]
    paths: Mapping[str, Path]


def model_names(entries: Sequence[str]) -> list[str]:
    """The models' names (a file's entry gives its name or its stem)."""
    return [byo.parse(e)[0] for e in entries]


def check_names(scenario: str, entries: Sequence[str]) -> None:
    """At least one model; each once; each a zoo model or a file."""
    for i, entry in enumerate(entries):
        if not isinstance(entry, str):
            raise UserError(f"scenario.models.{i}={entry!r} is not a model name: give a zoo "
                            f"name, a .tflite path or name:path")
    if not entries:
        raise UserError(f"scenario {scenario!r} lists no model; scenario.models needs at least "
                        "one (a zoo name, a .tflite path or name:path)")
    names = model_names(entries)
    if len(set(names)) != len(names):
        twice = sorted({n for n in names if names.count(n) > 1})
        raise UserError(
            f"scenario {scenario!r} lists {', '.join(twice)} more than once; list each "
            f"model once (to run copies of a model, use scenario.streams_per_model with "
            f"arrival=stream)"
        )
    known = set(zoo.names())
    for entry in entries:
        if not byo.is_path(entry) and entry not in known:
            raise UserError(
                f"scenario {scenario!r} names model {entry!r}, which the zoo lacks; "
                f"known models: {', '.join(sorted(known))}; or give a .tflite file "
                f"(path.tflite or name:path)"
            )


def load_models(scenario: str, entries: Sequence[str], files: bool, cache: Path,
                phases: StartPhase | None = None) -> Models:
    """Graph profiles of ``entries``; with ``files``, their ``.tflite`` files (zoo models
    written under ``cache`` where missing, a phase of ``phases``: bars of their own by
    default) and the graphs read from them."""
    check_names(scenario, entries)
    graphs: dict[str, ModelGraph] = {}
    paths: dict[str, Path] = {}
    for entry in entries:
        name, path = byo.parse(entry)
        if path is not None:
            graphs[name], paths[name] = byo.profile(name, path, cache), path
        elif not files:
            graphs[name] = zoo.load_graph(name)
    if files:
        built = [n for n in model_names(entries) if n not in paths]
        paths |= zoo.ensure_built(built, cache, phases or bar_phases())
        graphs |= _read_built(paths, graphs)
    return Models({n: graphs[n] for n in model_names(entries)}, paths if files else {})


def _read_built(paths: Mapping[str, Path], done: Mapping[str, ModelGraph]
                ) -> dict[str, ModelGraph]:
    from harness.models.tflite_io import read_tflite

    return {n: read_tflite(p, n) for n, p in paths.items() if n not in done}
