"""The scenario's models: their graphs, and their ``.tflite`` files where the device runs them.

A model is a zoo name (:mod:`harness.models.zoo`): its committed graph profile is enough for a
simulated device; a device that runs real files (the host, a phone) needs the built
``.tflite`` in the zoo cache.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from harness.models import zoo
from harness.seams.errors import UserError
from harness.seams.graph import ModelGraph


@dataclass(frozen=True)
class Models:
    """The scenario's models: graphs, and the .tflite files where the device needs them."""

    graphs: Mapping[str, ModelGraph]
    paths: Mapping[str, Path]


def check_names(scenario: str, names: Sequence[str]) -> None:
    """Each model once, each a zoo model."""
    if len(set(names)) != len(names):
        twice = sorted({n for n in names if names.count(n) > 1})
        raise UserError(
            f"scenario {scenario!r} lists {', '.join(twice)} more than once; list each "
            f"model once (to run copies of a model, use scenario.streams_per_model with "
            f"arrival=stream)"
        )
    known = set(zoo.names())
    for name in names:
        if name not in known:
            raise UserError(
                f"scenario {scenario!r} names model {name!r}, which the zoo lacks; "
                f"known models: {', '.join(sorted(known))}"
            )


def load_models(scenario: str, names: Sequence[str], files: bool, cache: Path) -> Models:
    """Graph profiles of ``names``; with ``files``, their built ``.tflite`` under ``cache``."""
    check_names(scenario, names)
    if not files:
        return Models({n: zoo.load_graph(n) for n in names}, {})
    from harness.models.tflite_io import read_tflite

    paths = {n: zoo.tflite_path(n, cache) for n in names}
    missing = [n for n, p in paths.items() if not p.exists()]
    if missing:
        raise UserError(
            f"the host device runs real .tflite files; build them first: "
            f"python -m harness.zoo build {' '.join(missing)} --cache {cache}"
        )
    return Models({n: read_tflite(p, n) for n, p in paths.items()}, paths)
