"""A draft device YAML for a probed phone: processors for the delegates it can offer, sensor
files it has, the serial it answered on. A draft to read and correct, not a calibration:
which delegate really takes which ops shows only in a ``benchmark_model`` run (its
"Replacing N out of M node(s)" line, recorded in ``phone_runs``).
"""

from __future__ import annotations

import re

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
