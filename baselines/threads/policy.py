"""The class the ``threads`` config names: it only checks where the baseline may run.

The host device runs ``threads`` itself (:class:`~harness.seams.device.BaselineRunner`,
:mod:`devices.host.threads`): one interpreter per model in its own thread is not a schedule
the runtime can dispatch, since the runtime runs one subgraph at a time per processor and
here the OS shares the cores. On any other device kind the baseline is a user error, raised
before anything runs (:meth:`ThreadsBaseline.check_device`).
"""

from __future__ import annotations

from typing import Any, ClassVar

from baselines.threads.config import ThreadsConf
from harness.seams.errors import UserError
from harness.seams.policy import PolicyContext, PolicyDefaults, Runner

#: the only device kind that runs the baseline
HOST = "host"


class ThreadsBaseline(PolicyDefaults):
    """Plain LiteRT threads; run by the host device, refused elsewhere."""

    Conf: ClassVar[type] = ThreadsConf
    #: the host device runs it with its own threads
    runner: ClassVar[Runner] = Runner.THREADS

    @classmethod
    def check_device(cls, name: str, kind: str) -> None:
        """Refuse a device of another kind than ``host`` (``name`` is the baseline's)."""
        if kind != HOST:
            raise UserError(
                f"baseline {name!r} (plain LiteRT threads) runs only on a host device "
                f"(device=host or device=host_equal), not on a {kind} device")

    @classmethod
    def from_config(cls, conf: Any, context: PolicyContext) -> Any:
        """Never a policy: reached only if a device did not run the baseline itself."""
        cls.check_device(context.name, context.device.kind)
        raise UserError(f"baseline {context.name!r} is run by the host device itself; "
                        f"device {context.device.name!r} did not take it")
