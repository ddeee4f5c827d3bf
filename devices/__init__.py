"""Devices: run subgraphs on processors and report completions and sensor readings.

One protocol (:class:`harness.seams.device.Device`), several backends: ``twin`` (a
calibrated SimPy model of a phone), ``host`` (real LiteRT on this machine's cores) and
``adb`` (a real phone). Each backend keeps its schema in ``config.py`` and its heavy imports
inside its own subpackage. What every backend shares: the processor schema
(:mod:`devices.processors`) and op support by the delegates' public rules
(:mod:`devices.opsupport`).
"""

import harness  # noqa: F401  (first: it loads the compiled core, harness.native)
