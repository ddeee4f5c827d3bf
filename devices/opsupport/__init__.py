"""Op support, as the devices that own it know it: which ops of a model each processor runs.

The rules are the public ones of the TFLite delegates (``docs/reference/op-support.md``): the
GPU delegate, NNAPI by API level, Hexagon, XNNPACK (:mod:`devices.opsupport.rules` holds the
per-op tables, :mod:`devices.opsupport.support` the rule sets and the queries). A twin reads
its processors' support from these rules; the host finds XNNPACK's by trial and the rest
here; a phone's comes from the same rules for its delegates.
"""

from devices.opsupport.support import (
    MAX_PARTITIONS,
    delegate_limits,
    explain,
    fallback_processor,
    max_partitions,
    min_partition_ops,
    rules_of,
    support_table,
    supported_share,
    unsupported_ops,
)
from devices.processors import ProcessorConf, SupportRules

__all__ = [
    "MAX_PARTITIONS",
    "ProcessorConf",
    "SupportRules",
    "delegate_limits",
    "explain",
    "fallback_processor",
    "max_partitions",
    "min_partition_ops",
    "rules_of",
    "support_table",
    "supported_share",
    "unsupported_ops",
]
