"""A processor as every device config describes it: its name, its kind and its op support.

Each backend's processor schema (:mod:`devices.twin.config`, :mod:`devices.host.config`)
extends :class:`ProcessorConf` with that backend's constants. The op-support fields say which
TFLite delegate's public rules the processor follows (:mod:`devices.opsupport`), adjusted by
op kind.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from omegaconf import MISSING

from harness.seams.fields import NONNEG, spec
from harness.seams.plan import ProcessorKind


class SupportRules(Enum):
    """Op-support rule sets (see :mod:`devices.opsupport`)."""

    #: runs every op (a CPU)
    all = "all"
    #: TFLite GPU delegate compatibility
    gpu = "gpu"
    #: TFLite NNAPI delegate at ``api_level``
    nnapi = "nnapi"
    #: TFLite Hexagon delegate (8-bit quantized only)
    hexagon = "hexagon"
    #: XNNPACK delegate (CPU)
    xnnpack = "xnnpack"
    #: exactly the ops listed in ``accept_ops``
    listed = "listed"


@dataclass
class ProcessorConf:
    # processor name used in plans and results, e.g. cpu, gpu, apu, npu, dsp
    name: str = MISSING
    # CPU, GPU, DSP or NPU
    kind: ProcessorKind = MISSING
    # op-support rule set this processor follows; all: runs every op (a CPU, where the ops
    # others reject fall back)
    support: SupportRules = SupportRules.all
    # Android API level for the nnapi rules (27..31; 33 and 34 stand for NNAPI feature levels 6,
    # 7); 31: Android 12, NNAPI feature level 5 (the K50 Pro's, docs/reference/devices.md §7)
    api_level: int = field(default=31, metadata=spec(
        "", NONNEG, "Android API level of the delegate rules (NNAPI)"))
    # op kinds (TFLite builtin names) this processor's driver rejects although the rules allow
    reject_ops: list[str] = field(default_factory=list)
    # op kinds it accepts beyond the rules (or the whole set, with support=listed)
    accept_ops: list[str] = field(default_factory=list)
