"""The runtime: requests become jobs, a policy places their subgraphs, a device runs them.

:mod:`harness.runtime.api` holds the seams (records, the scheduler's immutable view, the
policy and device protocols); :mod:`harness.runtime.core` is the clock-agnostic event loop
shared by every device; the drivers (simulated SimPy clock, wall clock) live next to it.
"""
