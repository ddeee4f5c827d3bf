"""A baseline's name as tables, plots and verdicts show it.

Results keep the config key (``tflite``, ``band``); what a reader sees adds what the key does
not say:

* ``tflite`` shows as ``tflite (oracle)``: it places each model by the twin's own profiles,
  which no app knows (:data:`SHOWN_AS`);
* a baseline whose settings the command line changed shows with what differs from its named
  config, ``band[scheduler=heft]`` for ``baselines.band.scheduler=heft``: the run's
  ``.hydra/overrides.yaml`` (:func:`variants`), so two runs of "band" with other settings never
  read alike.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path

import yaml

#: a baseline's name where it differs from the config key
SHOWN_AS: Mapping[str, str] = {"tflite": "tflite (oracle)"}
#: an override of one baseline's setting: ``[+|++|~]baselines.<name>.<key>=<value>``
_OVERRIDE = re.compile(r"^(?:\+\+|\+|~)?baselines\.([A-Za-z0-9_]+)\.([^=]+)=(.*)$")


def shown_name(baseline: str, variants: Mapping[str, str] | None = None) -> str:
    """``baseline`` as shown: :data:`SHOWN_AS`, then ``[what differs]`` when it is a
    variant (``variants``: baseline -> ``key=value,...``)."""
    name = SHOWN_AS.get(baseline, baseline)
    differs = (variants or {}).get(baseline)
    return f"{name}[{differs}]" if differs else name


def variants_of(overrides: Iterable[str]) -> dict[str, str]:
    """Baseline -> its overridden settings (``key=value`` joined by ","), in override order."""
    out: dict[str, list[str]] = {}
    for text in overrides:
        found = _OVERRIDE.match(str(text).strip())
        if found:
            name, key, value = found.groups()
            out.setdefault(name, []).append(f"{key}={value}")
    return {name: ",".join(settings) for name, settings in out.items()}


def variants(folder: Path | None) -> dict[str, str]:
    """The variants a run folder's command line made (``.hydra/overrides.yaml``; {} without
    one)."""
    path = folder / ".hydra" / "overrides.yaml" if folder is not None else None
    if path is None or not path.is_file():
        return {}
    try:
        listed = yaml.safe_load(path.read_text())
    except yaml.YAMLError:
        return {}
    return variants_of(listed) if isinstance(listed, list) else {}
