"""A baseline that one kind of device runs itself, with its own processes or threads (host
``threads``; a phone's stock ``benchmark_model`` and ``band_benchmark``): its class only checks
where it may run. On another device kind it is a user error, raised before anything runs
(``check_device``); ``from_config`` is reached only if the device did not take it.
"""

from __future__ import annotations

from typing import Any, ClassVar

from harness.seams.errors import UserError
from harness.seams.policy import PolicyContext, PolicyDefaults


class DeviceRunBaseline(PolicyDefaults):
    """Run by a device of kind :attr:`kind` itself; refused on every other kind."""

    #: the only device kind that runs it
    kind: ClassVar[str] = ""
    #: what it is, in messages ("plain LiteRT threads")
    what: ClassVar[str] = ""
    #: the devices that run it, in messages ("a phone (device=adb)")
    where: ClassVar[str] = ""
    #: who runs it, in messages ("the phone's device")
    by: ClassVar[str] = ""

    @classmethod
    def check_device(cls, name: str, kind: str) -> None:
        """Refuse a device of another kind than :attr:`kind` (``name`` is the baseline's)."""
        if kind != cls.kind:
            raise UserError(f"baseline {name!r} ({cls.what}) runs only on {cls.where}, "
                            f"not on a {kind} device")

    @classmethod
    def from_config(cls, conf: Any, context: PolicyContext) -> Any:
        """Never a policy: reached only if a device did not run the baseline itself."""
        cls.check_device(context.name, context.device.kind)
        raise UserError(f"baseline {context.name!r} is run by {cls.by} itself; "
                        f"device {context.device.name!r} did not take it")
