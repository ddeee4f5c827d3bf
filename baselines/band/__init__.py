"""Band (MobiSys'22, ``mrsnu/band``) re-implemented as a harness policy: its model analyzer
(:mod:`.analyzer`), latency estimator (:mod:`.estimator`), shortest-latency search
(:mod:`.planner`), six schedulers (:mod:`.schedulers`), its config (:mod:`.config`) and the
policy that ties them to the runtime (:mod:`.policy`)."""

from baselines.band.policy import BandPolicy, whole_model_plan

__all__ = ["BandPolicy", "whole_model_plan"]
