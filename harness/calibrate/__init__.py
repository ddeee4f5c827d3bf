"""``python -m harness.calibrate``: a twin calibrated from a phone, and its held-out check.

Steps (each its own module; the first two drive the adb backend and live with it):

1. :mod:`devices.adb.calibrate.profile`: every subgraph slice of the scenario's models that
   Band's analyzer cuts at minimum size 1 (each unit subgraph and each merged one, per
   processor the phone offers: the op sets the Band and ADMS plans are made of) is cut from the
   model file (exact slicing, :mod:`devices.host.slicing`), pushed and run *alone* by the stock
   ``benchmark_model`` on that processor's delegate; then one heat-up trace: a model run back
   to back for ``heat.duration_s`` while the phone's sensor loop samples;
2. :mod:`devices.adb.calibrate.fit`: a twin device YAML from a prior twin (``prior``), where
   the measured latencies (``measured_us``), the efficiencies scaled to the largest measured
   slice, the CPU's frequency table, the ambient temperature and the thermal constants fitted
   from the trace replace the prior's, each with a provenance line naming the phone's serial,
   the date and the tool's version; what was not measured keeps the prior's value and says so;
3. :mod:`.check`: Band and ADMS run on that twin (the report's device says "twin calibrated
   from <serial>"), and the held-out check: vanilla TFLite with every model at once, on the
   phone (``benchmark_model`` processes, as ``device=adb`` runs it) and on the twin with the
   same placement and closed-loop streams, FPS side by side (``calibration.md``).

The phone's multi-model runs never feed the twin's constants (DESIGN.md: single-model
measurements only).
"""
