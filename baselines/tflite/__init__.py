"""Vanilla TFLite (paper Section 4.2): each model whole on one processor through its delegate,
unsupported ops and partitions past the delegate's limits falling back to the CPU, no
scheduler. Its config (:mod:`.config`), the delegate's partitioning (:mod:`.plan`), where
each model runs (:mod:`.placement`) and the policy (:mod:`.policy`)."""

from baselines.tflite.config import Placement, TfliteConf, register
from baselines.tflite.plan import tflite_plan
from baselines.tflite.policy import TflitePolicy

__all__ = ["Placement", "TfliteConf", "TflitePolicy", "register", "tflite_plan"]
