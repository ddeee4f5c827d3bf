"""The twin backend: a calibrated SimPy model of a phone (Redmi K50 Pro, Huawei P20, Mi 6).

Only the models' graphs are real; every processor is a roofline (peak throughput per dtype,
achievable efficiency per op class, a memory-bandwidth share, invoke and dispatch overheads)
with DVFS levels, a power model and a thermal node on a shared SoC node. The constants live in
the ``twin:`` blocks of ``conf/device/*.yaml``, each commented with its source.

* :mod:`devices.twin.spec` parses and validates those blocks;
* :mod:`devices.twin.latency` costs ops and subgraphs;
* :mod:`devices.twin.power` and :mod:`devices.twin.thermal` model power, heat and throttling;
* :mod:`devices.twin.device` is :class:`TwinDevice`, the Device protocol over SimPy;
* :mod:`devices.twin.calibrate` scales efficiencies to single-model measurements;
* :mod:`devices.twin.calibrated` is the twin ``python -m harness.calibrate`` writes from a
  phone's measurements (measured latencies over the measured model files).
"""

from devices.twin.device import TwinDevice
from devices.twin.spec import TwinDeviceSpec, TwinProcessorSpec, TwinSpec, parse

__all__ = ["TwinDevice", "TwinDeviceSpec", "TwinProcessorSpec", "TwinSpec", "parse"]
