"""A phone played by this machine, for the ``adb`` backend's tests. **These are fakes.**

Nothing here is a phone. Each piece speaks a real interface, so that the code under test is
the code a real phone meets:

* :mod:`.adbd`: the device side of the adb wire protocol (CNXN without AUTH, OPEN/OKAY/WRTE/
  CLSE, ``shell:`` and ``shell,v2:``, ``sync:`` STAT/LIST/SEND/RECV/QUIT) on a loopback port;
  the real adb server from the adbutils wheel joins it with ``adb connect``;
* :mod:`.phone`: the phone's filesystem as a folder (``/data``, a ``/sys`` thermal and cpufreq
  tree that heats with load, ``/proc/stat``, ``getprop``), shell commands run by the host's
  ``/bin/sh`` with the phone's absolute paths rewritten into that folder;
* :mod:`.standins`: ``benchmark_model`` (runs the model with LiteRT, takes the real flags,
  prints the real output formats and exit codes), ``band_benchmark`` (writes Band's Chrome-
  trace job log at the pinned commit) and a Monsoon HVPM driver with the vendor package's API
  and ``getSamples()`` shape.
"""
