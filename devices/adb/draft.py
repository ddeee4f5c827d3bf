"""A draft device YAML for a probed phone: processors for the delegates it can offer, sensor
files it has, the serial it answered on. A draft to read and correct, not a calibration:
which delegate really takes which ops shows only in a ``benchmark_model`` run (its
"Replacing N out of M node(s)" line, recorded in ``phone_runs``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from devices.adb.phone import Phone
from devices.adb.probe import PhoneFacts

#: delegate -> (processor name, kind, op-support rules)
PROCESSORS = {"gpu": ("gpu", "GPU", "gpu"), "nnapi": ("npu", "NPU", "nnapi"),
              "hexagon": ("dsp", "DSP", "hexagon")}


def slug(text: str) -> str:
    """A config name from a phone model: ``Pixel 7 Pro`` -> ``pixel_7_pro``."""
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_") or "phone"


def draft_yaml(facts: PhoneFacts, serial: str) -> str:
    """The YAML text (``conf/device/<slug>.yaml``)."""
    lines = [
        f"# {facts.prop('ro.product.manufacturer')} {facts.model} ({facts.soc}), drafted by",
        "# `python -m harness.probe` from what the phone reported: check every value.",
        f"# ABI {facts.abi}, Android {facts.prop('ro.build.version.release')} "
        f"(API {facts.api_level}), delegates found: {', '.join(facts.delegates)}",
        "defaults:", "  - /schema/device/adb@_here_", "  - _self_", "",
        f"name: {slug(facts.model)}",
        f'description: "{facts.model} ({facts.soc})"',
        f'serial: "{serial}"', "tools:",
        "  # local paths of the binaries built for this ABI",
        '  benchmark_model: ""', '  band_benchmark: ""', "processors:",
        *_cpu(facts), *_accelerators(facts), "sensors:", *_sensors(facts),
    ]
    return "\n".join(lines) + "\n"


def _cpu(facts: PhoneFacts) -> list[str]:
    cores = sum(len(c.cpus) for c in facts.clusters) or 4
    zone = facts.zone_for("cpu")
    return ["  - name: cpu", "    kind: CPU", "    support: all", "    adb:",
            "      delegate: cpu", f"      threads: {min(4, cores)}",
            f'      thermal_zone: "{zone}"',
            f"      # clusters: {_clusters(facts)}"]


def _clusters(facts: PhoneFacts) -> str:
    return "; ".join(f"policy{c.policy} cpus {','.join(map(str, c.cpus))} "
                     f"up to {(c.max_khz or 0) / 1e6:.2f} GHz" for c in facts.clusters) or "none"


def _accelerators(facts: PhoneFacts) -> list[str]:
    out: list[str] = []
    for delegate, (name, kind, support) in PROCESSORS.items():
        if delegate not in facts.delegates:
            continue
        out += [f"  - name: {name}", f"    kind: {kind}", f"    support: {support}"]
        if support == "nnapi" and facts.api_level:
            out.append(f"    api_level: {min(max(facts.api_level, 27), 34)}")
        out += ["    adb:", f"      delegate: {delegate}", "      threads: 1",
                f'      thermal_zone: "{facts.zone_for(kind.lower())}"']
        if delegate == "nnapi" and facts.nnapi_accelerators:
            out.append(f"      # NNAPI services: {', '.join(facts.nnapi_accelerators)}")
    return out


def _sensors(facts: PhoneFacts) -> list[str]:
    return [f'  gpu_frequency_path: "{facts.gpu_frequency_path()}"',
            f'  gpu_max_frequency_path: "{facts.gpu_max_frequency_path()}"',
            "  gpu_frequency_unit_hz: 1.0",
            f"  # thermal zones: {', '.join(z.type for z in facts.zones) or 'none'}"]


def write_draft(phone: Phone, out: str) -> tuple[Path, list[str]]:
    """Write the phone's draft YAML to ``out`` (empty: ``results/probe/<model>.yaml``) and its
    facts as JSON beside it; the path and the lines that say what the phone is."""
    facts = phone.facts.manifest()
    path = Path(out or f"results/probe/{slug(phone.facts.model)}.yaml")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(draft_yaml(phone.facts, phone.serial))
    path.with_suffix(".json").write_text(json.dumps(facts, indent=2, sort_keys=True) + "\n")
    return path, [f"phone {phone.serial}", *summary(facts), f"draft device YAML: {path}"]


def _temperature(value: float | None) -> str:
    return "unreadable" if value is None else f"{value:g}"


def summary(facts: dict[str, Any]) -> list[str]:
    clusters = "; ".join(f"policy{c['policy']} cpus {c['cpus']} {c['min_khz']}-{c['max_khz']}"
                         f" kHz ({len(c['freqs_khz'])} steps, {c['governor']})"
                         for c in facts["cpu_clusters"])
    zones = ", ".join(f"{z['type']}={_temperature(z['temperature_c'])}"
                      for z in facts["thermal_zones"])
    return [f"model: {facts['model']}", f"SoC: {facts['soc']}", f"ABI: {facts['abi']}",
            f"API level: {facts['api_level']}", f"CPU clusters: {clusters or 'none'}",
            f"thermal zones: {zones or 'none'}",
            f"GPU clock files: {', '.join(facts['gpu_frequency_files']) or 'none'}",
            f"delegates: {', '.join(facts['delegates'])}"]
