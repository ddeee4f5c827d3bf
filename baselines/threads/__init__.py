"""Plain LiteRT threads (``threads``): what a user of the host has without any scheduler.

Each model of the scenario is one LiteRT interpreter of the whole model (XNNPACK, one
thread) in its own thread, the operating system sharing the cores among them; requests of a
model wait, first come first served, for that model's thread. Only the ``host`` device runs
it (:mod:`devices.host.threads`, the host's own means, as a phone's tools run vanilla TFLite);
its config (:mod:`.config`) and the class its ``_target_`` names (:mod:`.policy`) live here.
"""

from baselines.threads.config import ThreadsConf, register
from baselines.threads.policy import ThreadsBaseline

__all__ = ["ThreadsBaseline", "ThreadsConf", "register"]
