"""The runtime: requests become jobs, a policy places their subgraphs, a device runs them.

* :mod:`~harness.runtime.traffic` — the scenario as seeded requests (the load generator);
* :mod:`~harness.runtime.core` — jobs, queues and decisions, clock-agnostic;
* :mod:`~harness.runtime.driver` — the one loop that drives a run, on any clock;
* :mod:`~harness.runtime.sensors` — the sensor cache every scheduler view reads.

The runtime names no concrete device or policy: it works on the protocols of
:mod:`harness.seams`, and goes by one of its clocks (:mod:`harness.seams.clocks`).
"""
