"""The price of a decision: the native decision library timed against the work it counts.

A simulated device charges every scheduling decision ``Decision.work`` times a price in ns
(the twin's ``scheduler_ns_per_work``, else ``scheduler_ns_per_op``). The work is each
policy's own unit (Band: jobs looked at plus chain-search steps; ADMS: candidates weighed and
tables re-derived; TFLite: jobs scanned), so one price for all is a guess. This package
measures each policy's price on this machine:

1. :mod:`.record` runs short twin runs (k50pro, p20; FRS, ROS) and records every
   baseline's decision trace (``docs/decision-traces.md``);
2. :mod:`.bench` replays each trace through the runner's C++ policies with
   ``runner/build/decision_bench``, which times every ``schedule()`` call (the minimum over
   repeated replays) and checks that it made the recorded decision;
3. :mod:`.fit` fits ``ns = fixed + slope x work`` per baseline by least squares, with
   95% intervals by a bootstrap over decisions, and the slope alone through the origin
   (what the twin charges).

``python -m harness.decision_cost`` runs the three (``docs/decision-cost.md``).
"""
