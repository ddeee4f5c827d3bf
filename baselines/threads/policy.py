"""The class the ``threads`` config names: it only checks where the baseline may run.

The host device runs ``threads`` itself (:class:`~harness.seams.device.BaselineRunner`,
:mod:`devices.host.threads`): one interpreter per model in its own thread is not a schedule
the runtime can dispatch, since the runtime runs one subgraph at a time per processor and
here the OS shares the cores. On any other device kind the baseline is a user error, raised
before anything runs (:class:`~baselines.device_run.DeviceRunBaseline`).
"""

from __future__ import annotations

from typing import ClassVar

from baselines.device_run import DeviceRunBaseline
from baselines.threads.config import ThreadsConf
from harness.seams.policy import Runner


class ThreadsBaseline(DeviceRunBaseline):
    """Plain LiteRT threads; run by the host device, refused elsewhere."""

    Conf: ClassVar[type] = ThreadsConf
    #: the host device runs it with its own threads
    runner: ClassVar[Runner] = Runner.THREADS
    kind: ClassVar[str] = "host"
    what: ClassVar[str] = "plain LiteRT threads"
    where: ClassVar[str] = "a host device (device=host or device=host_equal)"
    by: ClassVar[str] = "the host device"
